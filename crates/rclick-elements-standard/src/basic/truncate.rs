//! # Truncate
//!
//! `Truncate(LENGTH [, KEYWORDS])`
//!
//! **Category:** basic. Limits packet length.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Cuts packets longer than LENGTH bytes down to LENGTH bytes, removing
//! bytes from the end.
//!
//! Keywords:
//!
//! * `LENGTH` (unsigned, mandatory).
//! * `EXTRA_LENGTH` (boolean): add the number of bytes removed to the
//!   extra length annotation. Default true.
//!
//! ## Annotations
//!
//! Updates the extra length annotation (unless EXTRA_LENGTH is false).
//!
//! ## Handlers
//!
//! * `nbytes` (read/write): LENGTH (Click's name).
//! * `length` (read/write): the same.
//!
//! ## Examples
//!
//! ```text
//! ... -> Truncate(64) -> ToDump(capture.pcap);
//! ```
//!
//! ## See also
//!
//! Pad, Strip

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::each_packet::{pull_each, push_each};

use super::length_arg::ByteLength;

/// The Truncate element.
#[derive(Default)]
pub struct Truncate {
    n: ByteLength,
    extra: bool,
}

impl Truncate {
    /// Cuts `p` to LENGTH bytes, adding what it cut to the extra length
    /// annotation when EXTRA_LENGTH.
    #[inline]
    fn cut(&self, p: &mut Packet) {
        let n = self.n.0 as usize;
        let len = p.len();
        if len > n {
            p.take(len - n);
            if self.extra {
                let e = p.extra_length_anno().saturating_add((len - n) as u32);
                p.set_extra_length_anno(e);
            }
        }
    }
}

impl Element for Truncate {
    fn class_name(&self) -> &'static str {
        "Truncate"
    }
    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut n = ByteLength::default();
        let mut extra = true;
        n.read_arg(Args::new(conf))
            .read("EXTRA_LENGTH", &mut extra)
            .complete()
            .map_err(|e| e.to_string())?;
        self.n = n;
        self.extra = extra;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_each(batch, cx, |p| self.cut(p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_each(max, cx, |p| self.cut(p))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        ByteLength::handlers(true)
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.n.read(id)
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        self.n.write(id, value)
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn truncates_and_pads_back() {
        let r = testing::run(
            "InfiniteSource(\\<0102030405>, LIMIT 1, STOP true) -> Truncate(2) -> Print(a) -> Pad -> Print(b) -> Truncate(3, EXTRA_LENGTH false) -> Pad -> Print(c) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "a:    2 | 0102",
                "b:    5 | 01020000 00",
                "c:    3 | 010200"
            ]
        );
    }

    /// Click's handler is `nbytes` (checked with clickdiff).
    #[test]
    fn nbytes_handler() {
        let r = testing::run(
            "InfiniteSource(\\<0102030405>, LIMIT 1, STOP true) -> t :: Truncate(3) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "t.nbytes"), "3");
        assert_eq!(testing::read(&r, "t.length"), "3");
    }
}
