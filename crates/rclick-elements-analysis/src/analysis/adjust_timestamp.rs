//! # AdjustTimestamp
//!
//! ## Synopsis
//!
//! `AdjustTimestamp([TIME, keywords FIRST, ALL])`
//!
//! ## Category
//!
//! analysis — adjusts packets' timestamp annotations.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Adds TIME (a possibly negative time, default 0) to each packet's
//! timestamp annotation. Zero timestamps are left alone unless ALL is true.
//!
//! * `TIME` (time, default 0): the adjustment.
//! * `FIRST` (boolean, default false): adjust the first-timestamp
//!   annotation instead.
//! * `ALL` (boolean, default false): adjust zero timestamps too.
//!
//! ## Annotations
//!
//! Changes the timestamp (or first timestamp) annotation.
//!
//! ## Handlers
//!
//! * `time` (read/write): the adjustment.
//!
//! ## Example
//!
//! `AdjustTimestamp(-1)`
//!
//! ## See also
//!
//! SetTimestamp, SetTimestampDelta

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, Timestamp};

use super::{parse_time_arg, unparse_time};

/// The AdjustTimestamp element.
#[derive(Default)]
pub struct AdjustTimestamp {
    ts: Timestamp,
    first: bool,
    all: bool,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Time = read_write("time"),
    }
}

impl Element for AdjustTimestamp {
    fn class_name(&self) -> &'static str {
        "AdjustTimestamp"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ts = Timestamp::ZERO;
        let mut first = false;
        let mut all = false;
        Args::new(conf)
            .read_p_with("TIME", &mut ts, parse_time_arg)
            .read("FIRST", &mut first)
            .read("ALL", &mut all)
            .complete()
            .map_err(|e| e.to_string())?;
        self.ts = ts;
        self.first = first;
        self.all = all;
        Ok(())
    }

    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        if self.first {
            let t = p.first_timestamp_anno();
            if !t.is_zero() || self.all {
                p.set_first_timestamp_anno(t + self.ts);
            }
        } else {
            let t = p.timestamp_anno();
            if !t.is_zero() || self.all {
                p.set_timestamp_anno(t + self.ts);
            }
        }
        Some(p)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        if !matches!(H::from_id(id), Some(H::Time)) {
            return Err("no such handler".into());
        }
        Ok(unparse_time(self.ts))
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        if !matches!(H::from_id(id), Some(H::Time)) {
            return Err("no such handler".into());
        }
        self.ts = parse_time_arg(value.trim())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};
    use rclick_core::testing;

    /// Adds TIME to nonzero timestamps; ALL adjusts zero ones too; `time`
    /// reads and writes the adjustment.
    #[test]
    fn adjusts_nonzero_timestamps() {
        let f = dir("adjts").join("in");
        std::fs::write(&f, "!data timestamp\n1.5\n0\n").unwrap();
        let conf = |args: &str| {
            format!(
                "FromIPSummaryDump({}, STOP true) -> a :: AdjustTimestamp({args})
                 -> ToIPSummaryDump(OUT, FIELDS timestamp);",
                f.display()
            )
        };
        let (r, lines) = run_dump("adjts", &conf("-0.5"));
        assert_eq!(lines, ["1.000000", "0.000000"]);
        assert_eq!(testing::read(&r, "a.time"), "-0.500000");
        let (_, lines) = run_dump("adjts", &conf("2, ALL true"));
        assert_eq!(lines, ["3.500000", "2.000000"]);
    }
}
