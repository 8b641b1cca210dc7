//! # TimeRange
//!
//! ## Synopsis
//!
//! `TimeRange([keywords SIMPLE])`
//!
//! ## Category
//!
//! analysis — records the range of timestamps seen.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Passes packets through unchanged, remembering the earliest and latest
//! timestamp annotations among them.
//!
//! * `SIMPLE` (boolean, default false): record the first packet's timestamp
//!   as the start and the most recent packet's as the end, without
//!   comparing (cheaper, and right for sorted input).
//!
//! A zero start means "nothing seen yet", as in Click: the next packet
//! restarts the range.
//!
//! ## Annotations
//!
//! Reads the timestamp annotation.
//!
//! ## Handlers
//!
//! * `first` (read): the earliest timestamp.
//! * `last` (read): the latest timestamp.
//! * `range` (read): both, separated by a space.
//! * `interval` (read): `last` minus `first`.
//! * `reset` (write): forgets the range.
//!
//! ## Example
//!
//! `FromDump(f, STOP true) -> r :: TimeRange -> Discard` then read `r.range`.
//!
//! ## See also
//!
//! TimeFilter

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, Timestamp};

use super::unparse_time;

/// The TimeRange element.
#[derive(Default)]
pub struct TimeRange {
    first: Timestamp,
    last: Timestamp,
    simple: bool,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        First = read("first"),
        Last = read("last"),
        Range = read("range"),
        Interval = read("interval"),
        Reset = write("reset"),
    }
}

impl TimeRange {
    #[inline]
    fn note(&mut self, t: Timestamp) {
        if self.first.is_zero() {
            self.first = t;
            self.last = t;
        } else if self.simple {
            self.last = t;
        } else if t < self.first {
            self.first = t;
        } else if t > self.last {
            self.last = t;
        }
    }
}

impl Element for TimeRange {
    fn class_name(&self) -> &'static str {
        "TimeRange"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut simple = false;
        Args::new(conf)
            .read("SIMPLE", &mut simple)
            .complete()
            .map_err(|e| e.to_string())?;
        self.simple = simple;
        Ok(())
    }

    fn is_simple(&self) -> bool {
        true
    }

    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.note(p.timestamp_anno());
        Some(p)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::First) => unparse_time(self.first),
            Some(H::Last) => unparse_time(self.last),
            Some(H::Range) => format!("{} {}", unparse_time(self.first), unparse_time(self.last)),
            Some(H::Interval) => unparse_time(self.last - self.first),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => {
                self.first = Timestamp::ZERO;
                self.last = Timestamp::ZERO;
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry};
    use rclick_core::testing;

    fn range(name: &str, stamps: &str, args: &str) -> rclick_core::Router {
        let f = dir(name).join("in");
        std::fs::write(&f, format!("!data timestamp\n{stamps}")).unwrap();
        let conf = format!(
            "t :: TimeRange({args}); FromIPSummaryDump({}, STOP true) -> t -> Discard;",
            f.display()
        );
        testing::run(&conf, &registry()).unwrap()
    }

    // Expected values are Click's for the same input (clickdiff).
    #[test]
    fn min_and_max() {
        let r = range("tr-minmax", "1.5\n0.25\n3.000001\n", "");
        assert_eq!(testing::read(&r, "t.first"), "0.250000");
        assert_eq!(testing::read(&r, "t.last"), "3.000001");
        assert_eq!(testing::read(&r, "t.range"), "0.250000 3.000001");
        assert_eq!(testing::read(&r, "t.interval"), "2.750001");
    }

    #[test]
    fn simple_takes_first_and_latest() {
        let r = range("tr-simple", "1.5\n3\n0.25\n", "SIMPLE true");
        assert_eq!(testing::read(&r, "t.range"), "1.500000 0.250000");
        assert_eq!(testing::read(&r, "t.interval"), "-1.250000");
    }

    #[test]
    fn zero_start_means_unset() {
        let r = range("tr-zero", "0\n5\n2\n", "");
        assert_eq!(testing::read(&r, "t.range"), "2.000000 5.000000");
        let r = range("tr-zero-s", "0\n5\n2\n", "SIMPLE true");
        assert_eq!(testing::read(&r, "t.range"), "5.000000 2.000000");
    }

    #[test]
    fn empty_reset_and_errors() {
        let r = testing::run("t :: TimeRange; Idle -> t -> Discard;", &registry()).unwrap();
        assert_eq!(testing::read(&r, "t.range"), "0.000000 0.000000");
        assert_eq!(testing::read(&r, "t.interval"), "0.000000");
        let r = range("tr-reset", "1\n2\n", "");
        r.write_handler("t.reset", "").unwrap();
        assert_eq!(testing::read(&r, "t.range"), "0.000000 0.000000");
        assert!(testing::build("Idle -> TimeRange(1) -> Discard;", &registry(), true).is_err());
    }
}
