//! What Paint, CheckPaint and PaintTee share: a color and the annotation
//! byte it is written to or compared with (`COLOR [, ANNO]`), and the
//! `color` handler. Each class's file holds what it does with them.

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, HandlerDef, Packet};

use super::{parse_int, AnnoSlot};

rclick_core::handlers! {
    /// The handlers of the three classes (their manuals' list).
    enum H {
        Color = read_write("color"),
    }
}

/// A color in an annotation byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PaintColor {
    color: u8,
    anno: AnnoSlot,
}

impl PaintColor {
    /// Parses `COLOR [, ANNO]`; ANNO may be an AnnotationInfo name.
    pub(crate) fn configure(conf: &[String], cx: &ConfigureCx) -> Result<PaintColor, String> {
        let conf = super::resolve_anno_names(conf, cx);
        let mut color: u8 = 0;
        let mut anno = AnnoSlot::Paint;
        Args::new(&conf)
            .read_mp("COLOR", &mut color)
            .read_p("ANNO", &mut anno)
            .complete()
            .map_err(|e| e.to_string())?;
        Ok(PaintColor { color, anno })
    }

    /// Whether `p` has the color.
    #[inline]
    pub(crate) fn matches(&self, p: &Packet) -> bool {
        self.anno.get(p) == self.color
    }

    /// Paints `p`.
    #[inline]
    pub(crate) fn paint(&self, p: &mut Packet) {
        self.anno.set(p, self.color);
    }

    /// The handlers' definitions.
    pub(crate) fn handlers() -> Vec<HandlerDef> {
        H::all_defs()
    }

    /// A handler's read.
    pub(crate) fn read(&self, id: u32) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Color) => Ok(self.color.to_string()),
            None => Err("no such handler".into()),
        }
    }

    /// A handler's write.
    pub(crate) fn write(&mut self, id: u32, value: &str) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Color) => {
                self.color = parse_int::<u8>(value)
                    .ok_or_else(|| "expected integer between 0 and 255".to_string())?;
                Ok(())
            }
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paints_matches_and_handlers() {
        let mut c = PaintColor {
            color: 7,
            anno: AnnoSlot::User(3),
        };
        let mut p = Packet::from_slice(b"abc");
        assert!(!c.matches(&p));
        c.paint(&mut p);
        assert!(c.matches(&p));
        assert_eq!(p.anno().u8_at(3), 7);
        assert_eq!(p.paint_anno(), 0);
        assert_eq!(c.read(H::Color.id()).unwrap(), "7");
        c.write(H::Color.id(), "200").unwrap();
        assert_eq!(c.read(H::Color.id()).unwrap(), "200");
        assert!(c.write(H::Color.id(), "256").is_err());
        assert!(c.read(9).is_err());
        assert_eq!(PaintColor::handlers().len(), 1);
    }
}
