//! # ScheduleInfo
//!
//! `ScheduleInfo(ELEMENT PARAM, ...)`
//!
//! **Category:** information. Specifies scheduling parameters.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Gives tasks of the named elements a share of the CPU relative to other
//! tasks. Each argument is an element name and a non-negative real number
//! PARAM; the element's tasks get PARAM times the default number of
//! tickets (1024), so `ScheduleInfo(a 2, b 0.5)` runs `a` four times as
//! often as `b` when both are busy. A name may also be a compound element
//! prefix: its elements get the tickets unless they have their own
//! setting. Tickets are limited to 32768.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! None besides the standard ones.
//!
//! ## Examples
//!
//! ```text
//! ScheduleInfo(unqueue 1, src 2);
//! ```
//!
//! ## See also
//!
//! StaticThreadSched

use rclick_core::args::Args;
use rclick_core::{phase, ConfigureCx, Element, InitCx};

/// Tickets for PARAM 1.
const DEFAULT_TICKETS: u64 = 1024;
const MAX_TICKETS: u64 = 32768;

/// The ScheduleInfo element.
#[derive(Default)]
pub struct ScheduleInfo {
    /// (name, tickets)
    entries: Vec<(String, u64)>,
}

/// Parses a non-negative real as a fixed-point value with 10 fraction bits.
fn parse_param(s: &str) -> Option<u64> {
    let mut v = 0f64;
    Args::new(&[s]).read_mp("PARAM", &mut v).complete().ok()?;
    (v >= 0.0 && v.is_finite()).then(|| (v * DEFAULT_TICKETS as f64).round() as u64)
}

impl Element for ScheduleInfo {
    fn class_name(&self) -> &'static str {
        "ScheduleInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::INFO
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut entries = Vec::new();
        let mut errs = Vec::new();
        for a in conf {
            let parts: Vec<&str> = a.split_whitespace().collect();
            if parts.is_empty() {
                continue;
            }
            match (parts.len(), parts.get(1).and_then(|p| parse_param(p))) {
                (2, Some(t)) => entries.push((parts[0].to_string(), t)),
                _ => errs.push("expected 'ELEMENTNAME PARAM'".to_string()),
            }
        }
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        self.entries = entries;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        // Names are relative to this element's compound.
        let own = cx.name().to_string();
        let prefix = own.rfind('/').map(|i| &own[..=i]).unwrap_or("").to_string();
        let n = cx.nelements();
        for e in 0..n {
            let name = cx.element_info(e).name.clone();
            let Some(local) = name.strip_prefix(prefix.as_str()) else {
                continue;
            };
            // the most specific setting wins: exact name, then the longest
            // compound prefix
            let mut best: Option<(usize, u64)> = None;
            for (k, t) in &self.entries {
                let matches = local == k || local.starts_with(&format!("{k}/"));
                if matches && best.is_none_or(|(len, _)| k.len() > len) {
                    best = Some((k.len(), *t));
                }
            }
            if let Some((_, t)) = best {
                let t = t.clamp(1, MAX_TICKETS);
                cx.set_tickets(e, t as u32);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_param;
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn params() {
        assert_eq!(parse_param("1"), Some(1024));
        assert_eq!(parse_param("0.5"), Some(512));
        assert_eq!(parse_param("x"), None);
    }

    #[test]
    fn sets_tickets() {
        let r = testing::build(
            "src :: InfiniteSource(LIMIT 1) -> q :: Queue -> unq :: Unqueue -> Discard;
             ScheduleInfo(unq 1, src 2);",
            &test_registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "src.tickets"), "2048");
        assert_eq!(testing::read(&r, "unq.tickets"), "1024");
        assert!(testing::build("ScheduleInfo(a b c);", &test_registry(), true).is_err());
    }

    #[test]
    fn upstream_notifier_test_passes() {
        // FullNoteQueue-upstream-notifier-01 without DriverManager
        let r = testing::run(
            "src :: InfiniteSource(<0800>, 2, 1, true, STOP true) -> q :: FullNoteQueue(1)
             -> count :: Counter() -> unq :: Unqueue -> Discard;
             ScheduleInfo(unq 1, src 2);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.drops"), "0");
    }
}
