//! # FlowInfo
//!
//! `FlowInfo(ELEMENT CODE, ...)`
//!
//! **Category:** information. Overrides elements' flow codes.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Each argument names an element and gives a flow code for it (as
//! `x/y`), which in Click replaces the element's class flow code in the
//! analyses that follow packets through elements (notifier searches,
//! upstream and downstream element lists). An argument that is not
//! `ELEMENT CODE` is reported as `expected 'ELEMENT CODE'`, and an ELEMENT
//! that names no element as `'X' does not name an element`; as in Click,
//! both are messages, not errors, and the router still runs.
//!
//! Here the entries are checked but not applied: the router's analyses use
//! each class's own flow code, which the core fixes when the graph is
//! built. A configuration that relies on FlowInfo to cut a notifier path
//! may therefore see a wider path than under Click (a puller then polls
//! where Click's would sleep; no packet goes elsewhere).
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
//! FlowInfo(tee x/y);
//! ```
//!
//! ## See also
//!
//! AlignmentInfo, AnnotationInfo

use rclick_core::{phase, ConfigureCx, Element};

/// The FlowInfo element.
#[derive(Default)]
pub struct FlowInfo {
    entries: Vec<(String, String)>,
}

impl Element for FlowInfo {
    fn class_name(&self) -> &'static str {
        "FlowInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::INFO
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.entries.clear();
        for a in conf {
            let words: Vec<&str> = a.split_whitespace().collect();
            let [name, code] = words[..] else {
                cx.message("expected 'ELEMENT CODE'");
                continue;
            };
            if cx.find(name).is_none() {
                cx.message(format!("'{name}' does not name an element"));
                continue;
            }
            self.entries
                .push((name.to_string(), code.trim_matches('"').to_string()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn messages_but_no_errors() {
        // The reference Click prints these lines and runs the router.
        let r = testing::build(
            "x :: FlowInfo(Idle x/x, Counter x/y, i x/y, i); i :: Idle;",
            &test_registry(),
            true,
        )
        .unwrap();
        let log = r.take_log();
        for want in [
            "  'Idle' does not name an element",
            "  'Counter' does not name an element",
            "  expected 'ELEMENT CODE'",
        ] {
            assert!(log.iter().any(|l| l == want), "{want}: {log:?}");
        }
        assert!(!log.iter().any(|l| l.contains("'i' does not")), "{log:?}");
    }
}
