//! # Block
//!
//! `Block(THRESH)`
//!
//! **Category:** shaping. Sends packets with a high rate annotation to a
//! second output.
//!
//! **Ports:** one push input, two push outputs. Click declares them
//! agnostic, but its Block aborts when pulled from output 1 (it pulls an
//! input that does not exist); here pull connections are refused when the
//! router is built.
//!
//! ## Description
//!
//! Reads each packet's destination-rate annotation (the signed 32-bit
//! integer at annotation bytes 20 to 23, in host order, where Click's
//! IPRateMonitor and Monitor leave it) and sends the packet to output 0
//! when the rate is at most THRESH, to output 1 when it is greater. With
//! THRESH 0 every packet goes to output 0, as in Click (whose Block sends
//! everything to output 0 for THRESH 0 whatever the annotation).
//!
//! Keywords: `THRESH` (integer, mandatory).
//!
//! ## Annotations
//!
//! Uses the destination-rate annotation (bytes 20 to 23).
//!
//! ## Handlers
//!
//! * `thresh` (read/write): THRESH; a write that is not an integer fails
//!   with `not an integer` and changes nothing.
//!
//! ## Examples
//!
//! ```text
//! b :: Block(500);
//! ... -> IPRateMonitor(...) -> b;
//! b[0] -> ...; b[1] -> Discard;
//! ```
//!
//! ## See also
//!
//! CompareBlock, IPRateMonitor

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use crate::basic::paint_switch::push_by;
use crate::basic::parse_int;

/// Where Click keeps the rate annotations.
pub(crate) const DST_RATE_ANNO: usize = 20;
/// The reverse rate, for CompareBlock.
pub(crate) const REV_RATE_ANNO: usize = 24;

/// A signed 32-bit rate annotation.
pub(crate) fn rate_anno(p: &Packet, offset: usize) -> i32 {
    p.anno().u32_at(offset) as i32
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Thresh = read_write("thresh"),
    }
}

/// The Block element.
#[derive(Default)]
pub struct Block {
    thresh: i32,
}

impl Block {
    #[inline]
    fn output(&self, p: &Packet) -> usize {
        usize::from(self.thresh != 0 && rate_anno(p, DST_RATE_ANNO) > self.thresh)
    }
}

impl Element for Block {
    fn class_name(&self) -> &'static str {
        "Block"
    }
    fn port_count(&self) -> &'static str {
        "1/2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut thresh: i32 = 0;
        Args::new(conf)
            .read_mp("THRESH", &mut thresh)
            .complete()
            .map_err(|e| e.to_string())?;
        self.thresh = thresh;
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
        let Some(H::Thresh) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.thresh.to_string())
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Thresh) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        self.thresh = parse_int::<i32>(value).ok_or("not an integer")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    fn out(conf: &str) -> Vec<String> {
        testing::run(
            &format!(
                "InfiniteSource(LIMIT 1, STOP true) -> {conf} -> b :: Block(1) -> Print(zero, 0) -> Discard;
                 b[1] -> Print(one, 0) -> Discard;"
            ),
            &test_registry(),
        )
        .unwrap()
        .take_log()
    }

    #[test]
    fn splits_on_the_rate_annotation() {
        // As the reference Click: bytes 20..23 are the rate, signed.
        assert_eq!(out("Null"), ["zero:   69"]);
        assert_eq!(out("Paint(5, 20)"), ["one:   69"]);
        assert_eq!(out("Paint(5, 23)"), ["one:   69"]);
        assert_eq!(out("Paint(5, 24)"), ["zero:   69"]);
        assert_eq!(out("Paint(255, 23)"), ["zero:   69"]);
        assert_eq!(out("Paint(1, 20)"), ["zero:   69"]);
    }

    #[test]
    fn thresh_zero_and_handler() {
        let r = testing::run(
            "InfiniteSource(LIMIT 1, STOP true) -> Paint(5, 20) -> b :: Block(0) -> Print(zero, 0) -> Discard;
             b[1] -> Print(one, 0) -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["zero:   69"]);
        r.write_handler("b.thresh", "7").unwrap();
        assert_eq!(
            r.write_handler("b.thresh", "x").unwrap_err(),
            "not an integer"
        );
        assert_eq!(testing::read(&r, "b.thresh"), "7");
        let err = |c: &str| testing::build(c, &test_registry(), true).err().unwrap();
        assert!(err("Idle -> b :: Block() -> Discard; b[1] -> Discard;")
            .contains("THRESH: required argument missing"));
        assert!(err("Idle -> b :: Block(x) -> Discard; b[1] -> Discard;").contains("THRESH"));
        assert!(
            err("Idle -> Queue -> b :: Block(1) -> Unqueue -> Discard; b[1] -> Discard;")
                .contains("pull output 0 connected to 'b :: Block' push input 0")
        );
    }
}
