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

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::pull_input::{self, pull_input, read_input};

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
        self.input = read_input(conf, false, cx)?;
        Ok(())
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_input(self.input, max, cx)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        pull_input::handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        pull_input::read_switch(id, self.input)
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.input = pull_input::write_switch(id, value, cx.ninputs())?;
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
