//! # CompareBlock
//!
//! `CompareBlock(FWD_WEIGHT, REV_WEIGHT, THRESH)`
//!
//! **Category:** shaping. Sends packets whose forward rate outweighs their
//! reverse rate to a second output.
//!
//! **Ports:** one push input, two push outputs. Click declares them
//! agnostic, but its CompareBlock aborts when pulled from output 1 (it pulls an
//! input that does not exist); here pull connections are refused when the
//! router is built.
//!
//! ## Description
//!
//! Reads each packet's forward-rate annotation (the signed 32-bit integer
//! at annotation bytes 20 to 23) and reverse-rate annotation (bytes 24 to
//! 27), as IPRateMonitor leaves them; a rate below 1 counts as 1. When
//! either rate is greater than THRESH and FWD_WEIGHT times the forward
//! rate is greater than REV_WEIGHT times the reverse rate, the packet goes
//! to output 1; otherwise to output 0. So `CompareBlock(1, 0, 0)` sends
//! every packet to output 1, also those without annotations, as Click's
//! does.
//!
//! Keywords: `FWD_WEIGHT`, `REV_WEIGHT`, `THRESH` (integers, mandatory).
//!
//! ## Annotations
//!
//! Uses the forward- and reverse-rate annotations (bytes 20 to 27).
//!
//! ## Handlers
//!
//! * `fwd_weight`, `rev_weight` (read/write): the weights; a write that is
//!   not one integer fails with `not an integer` and changes nothing.
//!
//! Click's manual lists a `thresh` handler too, but Click never adds it;
//! neither does this element.
//!
//! ## Examples
//!
//! ```text
//! b :: CompareBlock(5, 2, 100);
//! ```
//! sends a packet to output 1 when 5 × forward rate > 2 × reverse rate and
//! either rate is over 100.
//!
//! ## See also
//!
//! Block, IPRateMonitor

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::block::{rate_anno, DST_RATE_ANNO, REV_RATE_ANNO};
use crate::basic::paint_switch::push_by;
use crate::basic::parse_int;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Rev = read_write("rev_weight"),
        Fwd = read_write("fwd_weight"),
    }
}

/// The CompareBlock element.
#[derive(Default)]
pub struct CompareBlock {
    fwd_weight: i32,
    rev_weight: i32,
    thresh: i32,
}

impl CompareBlock {
    #[inline]
    fn output(&self, p: &Packet) -> usize {
        let fwd = i64::from(rate_anno(p, DST_RATE_ANNO).max(1));
        let rev = i64::from(rate_anno(p, REV_RATE_ANNO).max(1));
        let t = i64::from(self.thresh);
        usize::from(
            (fwd > t || rev > t)
                && i64::from(self.fwd_weight) * fwd > i64::from(self.rev_weight) * rev,
        )
    }
}

impl Element for CompareBlock {
    fn class_name(&self) -> &'static str {
        "CompareBlock"
    }
    fn port_count(&self) -> &'static str {
        "1/2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut fwd, mut rev, mut thresh) = (0i32, 0i32, 0i32);
        Args::new(conf)
            .read_mp("FWD_WEIGHT", &mut fwd)
            .read_mp("REV_WEIGHT", &mut rev)
            .read_mp("THRESH", &mut thresh)
            .complete()
            .map_err(|e| e.to_string())?;
        (self.fwd_weight, self.rev_weight, self.thresh) = (fwd, rev, thresh);
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let this = &*self;
        push_by(batch, cx, |p| this.output(p));
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Fwd) => Ok(self.fwd_weight.to_string()),
            Some(H::Rev) => Ok(self.rev_weight.to_string()),
            None => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let v = parse_int::<i32>(value).ok_or("not an integer")?;
        match H::from_id(id) {
            Some(H::Fwd) => self.fwd_weight = v,
            Some(H::Rev) => self.rev_weight = v,
            None => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    fn out(paint: &str, conf: &str) -> Vec<String> {
        testing::run(
            &format!(
                "InfiniteSource(LIMIT 1, STOP true) -> {paint} -> b :: CompareBlock({conf}) -> Print(zero, 0) -> Discard;
                 b[1] -> Print(one, 0) -> Discard;"
            ),
            &test_registry(),
        )
        .unwrap()
        .take_log()
    }

    #[test]
    fn decisions_match_click() {
        // Each case checked against the reference Click.
        assert_eq!(out("Null", "1, 0, 0"), ["one:   69"]);
        assert_eq!(out("Null", "0, 0, 0"), ["zero:   69"]);
        assert_eq!(out("Null", "0, 1, 0"), ["zero:   69"]);
        assert_eq!(out("Null", "1, 1, 1"), ["zero:   69"]);
        assert_eq!(out("Paint(5, 20)", "1, 1, 1"), ["one:   69"]);
        assert_eq!(out("Paint(5, 24)", "1, 1, 1"), ["zero:   69"]);
        assert_eq!(out("Paint(5, 24)", "-1, -1, 0"), ["one:   69"]);
        assert_eq!(out("Paint(5, 28)", "-1, -1, 0"), ["zero:   69"]);
    }

    #[test]
    fn handlers_and_arguments() {
        let r = testing::build(
            "Idle -> b :: CompareBlock(1, 2, 3) -> Discard; b[1] -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap();
        r.write_handler("b.fwd_weight", "7").unwrap();
        assert_eq!(testing::read(&r, "b.fwd_weight"), "7");
        assert_eq!(
            r.write_handler("b.rev_weight", "x").unwrap_err(),
            "not an integer"
        );
        assert!(r.write_handler("b.fwd_weight", "1 2").is_err());
        assert_eq!(testing::read(&r, "b.rev_weight"), "2");
        assert!(r.read_handler("b.thresh", "").is_err());
        let e = testing::build(
            "Idle -> b :: CompareBlock(1, 2) -> Discard; b[1] -> Discard;",
            &test_registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("THRESH: required argument missing"), "{e}");
    }
}
