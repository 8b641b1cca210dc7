//! # PaintTee
//!
//! `PaintTee(COLOR [, ANNO])`
//!
//! **Category:** paint. Duplicates packets with a given paint.
//!
//! **Ports:** one input, agnostic; agnostic output 0 and push output 1.
//!
//! ## Description
//!
//! Every packet goes out output 0. A copy of each packet whose paint
//! annotation (or one-byte annotation ANNO) equals COLOR also goes out
//! output 1. Routers use it to send redirect notices for packets that leave
//! by the interface they came in on.
//!
//! Keywords: `COLOR` (byte, mandatory); `ANNO` (annotation, default
//! `PAINT`).
//!
//! ## Handlers
//!
//! * `color` (read/write): COLOR.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Examples
//!
//! ```text
//! ... -> pt :: PaintTee(1) -> ToDevice(eth1);
//! pt[1] -> ICMPError(1.0.0.1, redirect, host) -> ...;
//! ```
//!
//! ## See also
//!
//! Paint, CheckPaint, Tee

use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::paint_color::PaintColor;

/// The PaintTee element.
#[derive(Default)]
pub struct PaintTee {
    color: PaintColor,
}

impl PaintTee {
    /// Sends copies of the matching packets out output 1.
    #[inline]
    fn copies(&self, batch: &PacketBatch, cx: &mut Ctx) {
        // Usually nothing matches (PaintTee marks the rare packet going
        // back out its own interface): only this test is inlined.
        if batch.iter().any(|p| self.color.matches(p)) {
            self.push_copies(batch, cx);
        }
    }

    #[cold]
    #[inline(never)]
    fn push_copies(&self, batch: &PacketBatch, cx: &mut Ctx) {
        let copies: PacketBatch = batch
            .iter()
            .filter(|p| self.color.matches(p))
            .cloned()
            .collect();
        if !copies.is_empty() {
            cx.push(1, copies);
        }
    }
}

impl Element for PaintTee {
    fn class_name(&self) -> &'static str {
        "PaintTee"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.color.matches(&p) {
            cx.push_one(1, p.clone());
        }
        Some(p)
    }
    fn port_count(&self) -> &'static str {
        "1/2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(
        &mut self,
        conf: &[String],
        cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        self.color = PaintColor::configure(conf, cx)?;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.copies(&batch, cx);
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        self.copies(&batch, cx);
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        PaintColor::handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.color.read(id)
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        self.color.write(id, value)
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn copies_matching() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> Paint(5) -> t :: PaintTee(5) -> a :: Counter -> Discard; t[1] -> b :: Counter -> Discard;\
             InfiniteSource(LIMIT 3) -> u :: PaintTee(5) -> Discard; u[1] -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "3");
        assert_eq!(testing::read(&r, "b.count"), "3");
        assert_eq!(testing::read(&r, "c.count"), "0");
    }

    /// Batches of several packets, some painted: only those are copied, in
    /// order, and the batch goes on whole.
    #[test]
    fn copies_matching_in_batches() {
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 12, BURST 4, STOP true) -> rr :: RoundRobinSwitch;
             rr[0] -> Paint(5) -> j :: Null; rr[1] -> Paint(4) -> j; rr[2] -> Paint(5) -> j;
             j -> t :: PaintTee(5) -> a :: Counter -> Discard; t[1] -> b :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "12");
        assert_eq!(testing::read(&r, "b.count"), "8");
    }
}
