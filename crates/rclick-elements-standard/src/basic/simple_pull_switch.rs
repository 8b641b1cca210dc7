//! # SimplePullSwitch
//!
//! `SimplePullSwitch([INPUT])`
//!
//! **Category:** scheduling. Pulls from one input, chosen at run time.
//!
//! **Ports:** any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! On every pull, pulls from input INPUT and returns the result. A negative
//! INPUT, or one that is not an input, returns nothing. Unlike PullSwitch it
//! has no notifier of its own: notifier searches pass through it to all its
//! inputs.
//!
//! Keywords: `INPUT` (integer): default 0.
//!
//! ## Handlers
//!
//! * `switch` (read/write): the current input; -1 means none.
//! * `config` (read/write): the configuration; writing it reconfigures.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Examples
//!
//! ```text
//! q0 :: Queue -> [0]s :: SimplePullSwitch(1);
//! q1 :: Queue -> [1]s;
//! s -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! PullSwitch, Switch

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::parse_int;
use super::switch::clamp_port;

/// The SimplePullSwitch element.
#[derive(Default)]
pub struct SimplePullSwitch {
    input: i64,
}

impl Element for SimplePullSwitch {
    fn class_name(&self) -> &'static str {
        "SimplePullSwitch"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut input: i64 = 0;
        Args::new(conf)
            .read_p("INPUT", &mut input)
            .complete()
            .map_err(|e| e.to_string())?;
        self.input = clamp_port(input, cx.ninputs());
        Ok(())
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.input < 0 {
            PacketBatch::new()
        } else {
            cx.pull(self.input as usize, max)
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        vec![HandlerDef::read_write("switch", 0)]
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.input.to_string())
    }
    fn write_handler(&mut self, _id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let n = parse_int::<i64>(value).ok_or("PullSwitch input must be integer")?;
        self.input = clamp_port(n, cx.ninputs());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn picks_input() {
        let r = testing::run(
            "a :: InfiniteSource(\\<aa>, LIMIT 2, STOP true) -> [1]s :: SimplePullSwitch(1) -> c :: Counter -> Discard; Idle -> [0]s;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert_eq!(testing::read(&r, "s.switch"), "1");
    }
}
