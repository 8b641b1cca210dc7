//! # AlignmentInfo
//!
//! `AlignmentInfo(ELEMENT [MODULUS OFFSET ...], ...)`
//!
//! **Category:** information. Records the packet alignment elements can
//! expect (kept for compatibility; alignment does not matter here).
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Each argument is `ELEMENT MODULUS OFFSET [MODULUS OFFSET ...]`: the
//! element named ELEMENT can expect data on its input N (the Nth pair) to
//! start OFFSET bytes past a MODULUS-byte boundary. click-align inserts
//! this element. rclick never needs aligned data, so the information is
//! only stored (other elements may look it up under the name kind
//! `alignmentinfo`, as `MODULUS OFFSET ...` text); the arguments are
//! checked as Click checks them.
//!
//! Names that are not elements are ignored. Several AlignmentInfo
//! elements may appear; they share one table, and giving one element two
//! different alignments is an error.
//!
//! Errors: `expected 'ELEMENTNAME CHUNK OFFSET [CHUNK OFFSET...]'` (an odd
//! number of numbers), `expected CHUNK`, `expected OFFSET` (not integers),
//! `conflicting AlignmentInfo for 'ELEMENT'`.
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
//! AlignmentInfo(ip_check 4 2, to_device 4 0)
//! ```
//!
//! ## See also
//!
//! Align

use rclick_core::args::{FromArg, NoContext};
use rclick_core::confparse::split_space;
use rclick_core::{phase, ConfigureCx, Element};

/// The name kind under which alignments are stored.
pub const NAME_KIND: &str = "alignmentinfo";

/// The AlignmentInfo element.
#[derive(Default)]
pub struct AlignmentInfo;

/// The (modulus, offset) alignment recorded for input `port` of element
/// `name`, if any AlignmentInfo gave one.
pub fn query(cx: &ConfigureCx, name: &str, port: usize) -> Option<(i32, i32)> {
    let text = cx.lookup_name(NAME_KIND, name)?;
    let v: Vec<i32> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    Some((*v.get(2 * port)?, *v.get(2 * port + 1)?))
}

impl Element for AlignmentInfo {
    fn class_name(&self) -> &'static str {
        "AlignmentInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::INFO
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut errors: Vec<String> = Vec::new();
        let mut defs: Vec<(String, String)> = Vec::new();
        for arg in conf {
            let parts = split_space(arg);
            let Some(name) = parts.first() else {
                continue; // Click warns about empty arguments
            };
            if cx.find(name).is_none() {
                continue;
            }
            if parts.len() % 2 != 1 {
                errors.push("expected 'ELEMENTNAME CHUNK OFFSET [CHUNK OFFSET...]'".into());
            }
            let mut values = Vec::new();
            for pair in parts[1..].chunks(2) {
                let c = i32::from_arg(&pair[0], &NoContext).unwrap_or_else(|_| {
                    errors.push("expected CHUNK".into());
                    -1
                });
                let o = match pair.get(1) {
                    Some(s) => i32::from_arg(s, &NoContext).unwrap_or_else(|_| {
                        errors.push("expected OFFSET".into());
                        -1
                    }),
                    None => -1,
                };
                values.push(format!("{c} {o}"));
            }
            let text = values.join(" ");
            let earlier = defs
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .or_else(|| cx.lookup_name(NAME_KIND, name).map(str::to_string));
            if earlier.is_some_and(|t| t != text) {
                errors.push(format!("conflicting AlignmentInfo for '{name}'"));
            }
            defs.push((name.clone(), text));
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        for (name, text) in defs {
            cx.define_name(NAME_KIND, &name, &text);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn accepts_and_checks() {
        let r = testing::run(
            "AlignmentInfo(src 8 2); AlignmentInfo(dst 8 2, nosuch 4 0, src 8 2);
             src :: InfiniteSource(LIMIT 1, STOP true) -> dst :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "dst.count"), "1");
        let e = testing::run(
            "AlignmentInfo(src 8 2); AlignmentInfo(src 4 0); src :: Idle -> Discard;",
            &test_registry(),
        )
        .unwrap_err();
        assert!(e.contains("conflicting AlignmentInfo for 'src'"), "{e}");
        let e = testing::run(
            "AlignmentInfo(src 8); src :: Idle -> Discard;",
            &test_registry(),
        )
        .unwrap_err();
        assert!(e.contains("expected 'ELEMENTNAME"), "{e}");
        let e = testing::run(
            "AlignmentInfo(src x 2); src :: Idle -> Discard;",
            &test_registry(),
        )
        .unwrap_err();
        assert!(e.contains("expected CHUNK"), "{e}");
    }
}
