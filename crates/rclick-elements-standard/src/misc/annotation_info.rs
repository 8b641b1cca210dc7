//! # AnnotationInfo
//!
//! `AnnotationInfo(NAME OFFSET [SIZE], ...)`
//!
//! **Category:** information. Names packet annotations.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Each argument defines NAME as the annotation of SIZE bytes (default 1)
//! at byte OFFSET of the annotation area (0 to 47), for the elements that
//! take an annotation argument: `AnnotationInfo(COLOR2 4)` lets a
//! configuration say `Paint(3, COLOR2)`. Elements that need a one-byte
//! annotation (Paint, CheckPaint, PaintTee, PaintSwitch, SetAnnoByte)
//! refuse a name whose SIZE is not 1 with `ANNO: parse error`, as Click's
//! do. An entry that is not `NAME OFFSET
//! [SIZE]` with the annotation inside the area is `bad entry for 'NAME'`.
//! A later definition of a name replaces an earlier one.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! AnnotationInfo(COLOR2 4);
//! ... -> Paint(2, COLOR2) -> ... -> PaintSwitch(COLOR2) -> ...
//! ```
//!
//! ## See also
//!
//! Paint, AlignmentInfo, FlowInfo

use rclick_core::{phase, ConfigureCx, Element};
use rclick_packet::USER_ANNO_SIZE;

use crate::basic::{parse_int, ANNO_NAME_KIND};

/// The AnnotationInfo element.
#[derive(Default)]
pub struct AnnotationInfo;

/// Parses `NAME OFFSET [SIZE]` into (name, offset, size).
fn parse_entry(a: &str) -> Result<(String, usize, usize), String> {
    let words: Vec<&str> = a.split_whitespace().collect();
    let name = words.first().copied().unwrap_or("");
    let bad = || format!("bad entry for '{name}'");
    let (off, size) = match words[..] {
        [_, off] => (off, "1"),
        [_, off, size] => (off, size),
        _ => return Err(bad()),
    };
    let off = parse_int::<usize>(off).ok_or_else(bad)?;
    let size = parse_int::<usize>(size)
        .filter(|&s| s > 0)
        .ok_or_else(bad)?;
    if off.checked_add(size).is_none_or(|end| end > USER_ANNO_SIZE) {
        return Err(bad());
    }
    Ok((name.to_string(), off, size))
}

impl Element for AnnotationInfo {
    fn class_name(&self) -> &'static str {
        "AnnotationInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::FIRST
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut entries = Vec::new();
        let mut errs = Vec::new();
        for a in conf.iter().filter(|a| !a.trim().is_empty()) {
            match parse_entry(a) {
                Ok(e) => entries.push(e),
                Err(e) => errs.push(e),
            }
        }
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        for (name, off, size) in entries {
            cx.define_name(ANNO_NAME_KIND, &name, &format!("{off} {size}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn entries() {
        // Accepted and refused as by the reference Click.
        for ok in [
            "AnnotationInfo(A 0 1, B 4 4, C 8)",
            "AnnotationInfo(A 0 1, A 2 1)",
            "AnnotationInfo(a 0 1)",
            "AnnotationInfo(A 0 1); AnnotationInfo(A 1 1)",
        ] {
            assert!(testing::build(ok, &test_registry(), true).is_ok(), "{ok}");
        }
        for bad in [
            "AnnotationInfo(A 0 1 2)",
            "AnnotationInfo(A 47 2)",
            "AnnotationInfo(A x)",
        ] {
            let e = testing::build(bad, &test_registry(), true).err().unwrap();
            assert!(e.contains("bad entry for 'A'"), "{bad}: {e}");
        }
    }

    #[test]
    fn names_used_by_paint_elements() {
        let r = testing::run(
            "AnnotationInfo(COLOR2 4);
             InfiniteSource(LIMIT 2, STOP true) -> Paint(3, COLOR2) -> CheckPaint(3, ANNO COLOR2)
             -> p :: PaintSwitch(COLOR2); p[0] -> Discard; p[1] -> Discard; p[2] -> Discard; p[3] -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        let e = testing::build(
            "AnnotationInfo(A 0 2); Idle -> Paint(4, A) -> Discard;",
            &test_registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("ANNO: parse error"), "{e}");
    }
}
