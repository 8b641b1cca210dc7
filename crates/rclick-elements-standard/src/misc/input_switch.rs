//! # InputSwitch
//!
//! `InputSwitch([INPUT])`
//!
//! **Category:** classification. Accepts packets from one input, chosen at
//! run time, and drops the rest.
//!
//! **Ports:** any number of push inputs, one push output.
//!
//! ## Description
//!
//! Packets arriving on input INPUT are pushed to the output; packets
//! arriving on any other input are dropped. A negative INPUT drops
//! everything.
//!
//! Keywords:
//!
//! * `INPUT` (integer): the input to accept; must be smaller than the
//!   number of inputs. Default 0. As in Click, the keyword is spelled
//!   `OUTPUT`; the argument is normally given by position.
//!
//! Errors: `input must be < N`.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `switch` (read/write): the accepted input. Writing a number not
//!   below the number of inputs sets -1 (accept nothing); writing a
//!   non-integer fails with `InputSwitch input must be integer`.
//!
//! ## Examples
//!
//! ```text
//! a -> [0]sw :: InputSwitch(1); b -> [1]sw; sw -> Discard;
//! ```
//!
//! ## See also
//!
//! Switch, PullSwitch, Bypass

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Switch = read_write("switch"),
    }
}

/// The InputSwitch element.
#[derive(Default)]
pub struct InputSwitch {
    input: i64,
}

impl Element for InputSwitch {
    fn class_name(&self) -> &'static str {
        "InputSwitch"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut input: i32 = 0;
        Args::new(conf)
            .read_p("OUTPUT", &mut input)
            .complete()
            .map_err(|e| e.to_string())?;
        if i64::from(input) >= cx.ninputs() as i64 {
            return Err(format!("input must be < {}", cx.ninputs()));
        }
        self.input = i64::from(input);
        Ok(())
    }

    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        if port as i64 == self.input {
            cx.push(0, batch);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Switch) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.input.to_string())
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Switch) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        let mut n: i32 = 0;
        Args::new(&[value.trim()])
            .read_mp("INPUT", &mut n)
            .complete()
            .map_err(|_| "InputSwitch input must be integer".to_string())?;
        let n = i64::from(n);
        self.input = if n >= cx.ninputs() as i64 { -1 } else { n };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn accepts_one_input() {
        let r = testing::run(
            "sw :: InputSwitch(1) -> c :: Counter -> Discard;
             InfiniteSource(LIMIT 2) -> [0]sw;
             InfiniteSource(LIMIT 3) -> [1]sw;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "sw.switch"), "1");
        r.write_handler("sw.switch", "7").unwrap();
        assert_eq!(testing::read(&r, "sw.switch"), "-1");
        assert!(r.write_handler("sw.switch", "x").is_err());
        let e = testing::run("Idle -> InputSwitch(1) -> Discard;", &test_registry()).unwrap_err();
        assert!(e.contains("input must be < 1"), "{e}");
    }
}
