//! # SetAnnoByte
//!
//! `SetAnnoByte(ANNO, VALUE)`
//!
//! **Category:** annotations. Sets a one-byte packet annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's annotation byte ANNO to VALUE. ANNO is an annotation
//! name (`PAINT`) or a byte offset into the annotation area (0 to 47).
//! Click calls the element obsolete and says so with a warning at
//! configuration, which is printed here too: `Paint(VALUE, ANNO)` does the
//! same.
//!
//! Keywords:
//!
//! * `ANNO` (annotation, mandatory).
//! * `VALUE` (integer 0 to 255, mandatory); more is `VALUE: out of range,
//!   bound 255`.
//!
//! ## Annotations
//!
//! Sets annotation byte ANNO.
//!
//! ## Handlers
//!
//! * `anno` (read): ANNO as Click's offset (the paint annotation is 16).
//! * `value` (read/write): VALUE; a write that is not 0 to 255 fails with
//!   `expected uint8_t` and changes nothing.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetAnnoByte(PAINT, 2) -> PaintSwitch -> ...
//! ```
//!
//! ## See also
//!
//! Paint, PaintSwitch

use super::each_packet::{pull_each, push_each};
use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::{parse_int, AnnoSlot};

/// Click's warning about the class.
const OBSOLETE: &str = "SetAnnoByte(ANNO, VALUE) is obsolete, use Paint(VALUE, ANNO) instead";

/// Click's offset of the paint annotation, as the `anno` handler shows it.
const PAINT_OFFSET: usize = 16;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Value = read_write("value"),
        Anno = read("anno"),
    }
}

/// The SetAnnoByte element.
#[derive(Default)]
pub struct SetAnnoByte {
    anno: AnnoSlot,
    value: u8,
}

impl Element for SetAnnoByte {
    fn class_name(&self) -> &'static str {
        "SetAnnoByte"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.anno.set(&mut p, self.value);
        Some(p)
    }
    /// Per packet, independent of other elements.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let conf = super::resolve_anno_names(conf, cx);
        let mut anno = AnnoSlot::Paint;
        let mut value: u8 = 0;
        let parsed = Args::new(&conf)
            .read_mp("ANNO", &mut anno)
            .read_mp("VALUE", &mut value)
            .complete();
        // Click prints the warning first, also above an error, under one
        // context line.
        if let Err(e) = parsed {
            return Err(format!("warning: {OBSOLETE}\n{e}"));
        }
        cx.warning(OBSOLETE);
        self.anno = anno;
        self.value = value;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let (anno, value) = (self.anno, self.value);
        push_each(batch, cx, |p| anno.set(p, value));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let (anno, value) = (self.anno, self.value);
        pull_each(max, cx, |p| anno.set(p, value))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match (H::from_id(id), self.anno) {
            (Some(H::Anno), AnnoSlot::Paint) => PAINT_OFFSET.to_string(),
            (Some(H::Anno), AnnoSlot::User(o)) => o.to_string(),
            (Some(H::Value), _) => self.value.to_string(),
            (None, _) => return Err("no such handler".into()),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Value) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        self.value = parse_int::<u8>(value).ok_or("expected uint8_t")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn sets_the_byte_and_warns() {
        // Compared with the reference Click (output, handlers, warning).
        let r = testing::run(
            "InfiniteSource(\\<0011>, LIMIT 1, STOP true) -> x :: SetAnnoByte(3, 2) -> p :: PaintSwitch(3);
             p[2] -> Print(two) -> Discard; p[0] -> Discard; p[1] -> Discard;",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert!(log.iter().any(|l| l.contains(
            "warning: SetAnnoByte(ANNO, VALUE) is obsolete, use Paint(VALUE, ANNO) instead"
        )));
        assert!(log.iter().any(|l| l == "two:    2 | 0011"), "{log:?}");
        assert_eq!(testing::read(&r, "x.anno"), "3");
        assert_eq!(testing::read(&r, "x.value"), "2");
        let r = testing::run(
            "InfiniteSource(\\<0011>, LIMIT 1, STOP true) -> x :: SetAnnoByte(PAINT, 1) -> p :: PaintSwitch;
             p[1] -> Print(one) -> Discard; p[0] -> Discard;",
            &registry(),
        )
        .unwrap();
        assert!(r.take_log().iter().any(|l| l == "one:    2 | 0011"));
        assert_eq!(testing::read(&r, "x.anno"), "16");
    }

    #[test]
    fn bad_values() {
        let err = |c: &str| testing::build(c, &registry(), true).err().unwrap();
        assert!(err("Idle -> SetAnnoByte(3, 256) -> Discard;")
            .contains("VALUE: out of range, bound 255"));
        assert!(err("Idle -> SetAnnoByte(48, 1) -> Discard;").contains("ANNO: parse error"));
        // the warning and the error under one context line, as in Click
        assert_eq!(
            err("Idle -> x :: SetAnnoByte(3) -> Discard;"),
            "config:1: While configuring 'x :: SetAnnoByte':\n  warning: SetAnnoByte(ANNO, VALUE) is obsolete, use Paint(VALUE, ANNO) instead\n  VALUE: required argument missing"
        );
        assert!(
            err("Idle -> SetAnnoByte(3) -> Discard;").contains("VALUE: required argument missing")
        );
        let r = testing::build(
            "Idle -> x :: SetAnnoByte(ANNO 3, VALUE 4) -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "x.value"), "4");
        r.write_handler("x.value", "9").unwrap();
        assert_eq!(
            r.write_handler("x.value", "300").unwrap_err(),
            "expected uint8_t"
        );
        assert!(r.write_handler("x.value", "x").is_err());
        assert_eq!(testing::read(&r, "x.value"), "9");
    }
}
