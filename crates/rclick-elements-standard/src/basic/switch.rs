//! # Switch
//!
//! `Switch([OUTPUT])`
//!
//! **Category:** classification. Sends all packets to one output, chosen
//! at run time.
//!
//! **Ports:** one push input, any number of push outputs.
//!
//! ## Description
//!
//! Sends every packet out output OUTPUT; a negative OUTPUT drops all
//! packets. It is an error to configure an OUTPUT that is not an output.
//! Write the `switch` handler to change the output while the router runs;
//! writing a number that is not an output sets -1.
//!
//! Keywords: `OUTPUT` (integer): default 0.
//!
//! ## Handlers
//!
//! * `switch` (read/write): the current output; negative means drop.
//! * `config` (read/write): the configuration; writing it reconfigures.
//!
//! LLRPCs: `CLICK_LLRPC_GET_SWITCH` reads the output as a 4-byte integer,
//! `CLICK_LLRPC_SET_SWITCH` sets it (an integer that is not an output
//! sets -1).
//!
//! ## Examples
//!
//! ```text
//! s :: Switch(1); ... -> s; s[0] -> Discard; s[1] -> Print -> Discard;
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## See also
//!
//! StaticSwitch, PullSwitch, RoundRobinSwitch, PaintSwitch

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::parse_int;

/// The Switch element.
#[derive(Default)]
pub struct Switch {
    output: i64,
}

/// The output number a switch uses: `n` if it names an output, else -1.
pub(crate) fn clamp_port(n: i64, nports: usize) -> i64 {
    if n < 0 || n >= nports as i64 {
        -1
    } else {
        n
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Switch = read_write("switch"),
    }
}

impl Element for Switch {
    fn class_name(&self) -> &'static str {
        "Switch"
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut out: i64 = 0;
        Args::new(conf)
            .read_p("OUTPUT", &mut out)
            .complete()
            .map_err(|e| e.to_string())?;
        if out >= cx.noutputs() as i64 {
            return Err(format!("output must be < {}", cx.noutputs()));
        }
        self.output = out;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        if self.output >= 0 {
            cx.checked_push(self.output as usize, batch);
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Switch) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.output.to_string())
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Switch) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        let n = parse_int::<i64>(value).ok_or("Switch output must be integer")?;
        self.output = if n >= cx.noutputs() as i64 { -1 } else { n };
        Ok(())
    }
    fn llrpc(&mut self, command: u32, data: &mut [u8], cx: &mut Ctx) -> Result<(), i32> {
        use rclick_core::router::llrpc::{EINVAL, GET_SWITCH, SET_SWITCH};
        let word: &mut [u8; 4] = data.try_into().map_err(|_| EINVAL)?;
        match command {
            GET_SWITCH => *word = (self.output as i32).to_ne_bytes(),
            SET_SWITCH => {
                let n = i64::from(i32::from_ne_bytes(*word));
                self.output = if n >= cx.noutputs() as i64 { -1 } else { n };
            }
            _ => return Err(EINVAL),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn switches() {
        let conf = "InfiniteSource(LIMIT 4, STOP true) -> s :: Switch(1) -> a :: Counter -> Discard; s[1] -> b :: Counter -> Discard;";
        let r = testing::run(conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "a.count"), "0");
        assert_eq!(testing::read(&r, "b.count"), "4");
        assert_eq!(testing::read(&r, "s.switch"), "1");
        r.write_handler("s.switch", "7").unwrap();
        assert_eq!(testing::read(&r, "s.switch"), "-1");
        assert!(r.write_handler("s.switch", "x").is_err());
        assert_eq!(testing::read(&r, "s.switch"), "-1");
        let e = testing::build("Idle -> Switch(1) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("output must be < 1"), "{e}");
    }
}
