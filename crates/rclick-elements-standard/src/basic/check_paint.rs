//! # CheckPaint
//!
//! `CheckPaint(COLOR [, ANNO])`
//!
//! **Category:** paint. Checks packets' paint annotation.
//!
//! **Ports:** one input, agnostic; agnostic output 0 and optional push
//! output 1.
//!
//! ## Description
//!
//! Packets whose paint annotation (or one-byte annotation ANNO) equals
//! COLOR go out output 0. Others go out output 1 if it exists, and are
//! dropped otherwise.
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
//! ... -> CheckPaint(1) -> ...  // only packets painted 1 pass
//! ```
//!
//! ## See also
//!
//! Paint, PaintTee

use rclick_core::{Ctx, Element, HandlerDef, PacketBatch};

use super::paint_color::PaintColor;

/// The CheckPaint element.
#[derive(Default)]
pub struct CheckPaint {
    color: PaintColor,
}

impl Element for CheckPaint {
    fn class_name(&self) -> &'static str {
        "CheckPaint"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
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
        let color = self.color;
        let (good, bad) = batch.partition(|p| color.matches(p));
        if !good.is_empty() {
            cx.push(0, good);
        }
        if !bad.is_empty() {
            cx.checked_push(1, bad);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        let color = self.color;
        let (good, bad) = batch.partition(|p| color.matches(p));
        if !bad.is_empty() {
            cx.checked_push(1, bad);
        }
        good
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
    fn splits() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> Paint(2) -> c :: CheckPaint(2) -> a :: Counter -> Discard; c[1] -> b :: Counter -> Discard;\
             InfiniteSource(LIMIT 2) -> Paint(1) -> d :: CheckPaint(2) -> Discard; d[1] -> e :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "3");
        assert_eq!(testing::read(&r, "b.count"), "0");
        assert_eq!(testing::read(&r, "e.count"), "2");
    }
}
