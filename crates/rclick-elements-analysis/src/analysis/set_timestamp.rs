//! # SetTimestamp
//!
//! ## Synopsis
//!
//! `SetTimestamp([TIMESTAMP, keyword FIRST])`
//!
//! ## Category
//!
//! analysis — sets packets' timestamp annotations.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's timestamp annotation to TIMESTAMP, or to the current
//! time when TIMESTAMP is not given.
//!
//! * `TIMESTAMP` (time): the value to set; default the current time.
//! * `FIRST` (boolean, default false): set the first-timestamp annotation
//!   instead.
//!
//! ## Annotations
//!
//! Sets the timestamp (or first timestamp) annotation.
//!
//! ## Example
//!
//! `SetTimestamp`
//!
//! ## See also
//!
//! AdjustTimestamp, SetTimestampDelta

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, Timestamp};

use super::parse_time_arg;

/// The SetTimestamp element.
#[derive(Default)]
pub struct SetTimestamp {
    ts: Option<Timestamp>,
    first: bool,
}

impl Element for SetTimestamp {
    fn class_name(&self) -> &'static str {
        "SetTimestamp"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ts = Timestamp::ZERO;
        let mut given = false;
        let mut first = false;
        Args::new(conf)
            .read_p_with("TIMESTAMP", &mut ts, parse_time_arg)
            .read_status(&mut given)
            .read("FIRST", &mut first)
            .complete()
            .map_err(|e| e.to_string())?;
        self.ts = given.then_some(ts);
        self.first = first;
        Ok(())
    }

    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let t = self.ts.unwrap_or_else(|| cx.now());
        if self.first {
            p.set_first_timestamp_anno(t);
        } else {
            p.set_timestamp_anno(t);
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};

    #[test]
    fn sets_the_timestamp_or_the_first_timestamp() {
        let f = dir("setts").join("in");
        std::fs::write(&f, "!data timestamp\n1.5\n7\n").unwrap();
        let conf = |args: &str| {
            format!(
                "FromIPSummaryDump({}, STOP true) -> SetTimestamp({args})
                 -> ToIPSummaryDump(OUT, FIELDS timestamp first_timestamp);",
                f.display()
            )
        };
        let (_, lines) = run_dump("setts", &conf("3.25"));
        assert_eq!(lines, ["3.250000 0.000000", "3.250000 0.000000"]);
        let (_, lines) = run_dump("setts", &conf("3.25, FIRST true"));
        assert_eq!(lines, ["1.500000 3.250000", "7.000000 3.250000"]);
    }
}
