//! # Paint
//!
//! `Paint(COLOR [, ANNO])`
//!
//! **Category:** paint. Sets packets' paint annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's paint annotation (or the one-byte annotation ANNO) to
//! COLOR, an integer from 0 to 255.
//!
//! Keywords:
//!
//! * `COLOR` (byte, mandatory): the color.
//! * `ANNO` (annotation): `PAINT` (the default) or a byte offset into the
//!   user annotation area.
//!
//! ## Annotations
//!
//! Sets the paint annotation (or ANNO).
//!
//! ## Handlers
//!
//! * `color` (read/write): COLOR.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Paint(0) -> ...;
//! FromDevice(eth1) -> Paint(1) -> ...;
//! ```
//!
//! ## See also
//!
//! PaintTee, CheckPaint, PaintSwitch

use super::each_packet::{pull_each, push_each};
use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::paint_color::PaintColor;

/// The Paint element.
#[derive(Default)]
pub struct Paint {
    color: PaintColor,
}

impl Element for Paint {
    fn class_name(&self) -> &'static str {
        "Paint"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.color.paint(&mut p);
        Some(p)
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
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
        push_each(batch, cx, |p| color.paint(p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let color = self.color;
        pull_each(max, cx, |p| color.paint(p))
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
    fn paints() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2, STOP true) -> p :: Paint(3) -> ps :: PaintSwitch -> Discard; ps[1], ps[2] -> Discard; ps[3] -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert_eq!(testing::read(&r, "p.color"), "3");
        assert!(r.write_handler("p.color", "256").is_err());
        let e = testing::build("Idle -> Paint -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("COLOR"), "{e}");
    }
}
