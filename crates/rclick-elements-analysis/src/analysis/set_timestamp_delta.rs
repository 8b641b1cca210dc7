//! # SetTimestampDelta
//!
//! ## Synopsis
//!
//! `SetTimestampDelta([keyword TYPE])`
//!
//! ## Category
//!
//! analysis — replaces packet timestamps with deltas.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! With `TYPE RANGE` (the default), replaces each nonzero timestamp with
//! its difference from the first nonzero timestamp seen. With `TYPE NOW`,
//! uses the difference between the current time and the timestamp. With
//! `TYPE FIRST`, uses the difference from the packet's first-timestamp
//! annotation.
//!
//! * `TYPE` (keyword, default RANGE): RANGE, NOW or FIRST.
//!
//! ## Annotations
//!
//! Changes the timestamp annotation.
//!
//! ## Handlers
//!
//! * `first` (read): the first timestamp seen (RANGE).
//! * `reset` (write): forgets the first timestamp.
//!
//! ## Example
//!
//! `SetTimestampDelta`
//!
//! ## See also
//!
//! SetTimestamp, AdjustTimestamp

use rclick_core::args::{Args, Word};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, Timestamp};

use super::ipsumdump_fields::write_timestamp;

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Kind {
    #[default]
    Range,
    Now,
    First,
}

/// The SetTimestampDelta element.
#[derive(Default)]
pub struct SetTimestampDelta {
    kind: Kind,
    first: Timestamp,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        First = read("first"),
        Reset = write("reset"),
    }
}

impl Element for SetTimestampDelta {
    fn class_name(&self) -> &'static str {
        "SetTimestampDelta"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ty = Word("RANGE".into());
        Args::new(conf)
            .read("TYPE", &mut ty)
            .complete()
            .map_err(|e| e.to_string())?;
        self.kind = match ty.0.to_ascii_uppercase().as_str() {
            "RANGE" => Kind::Range,
            "NOW" => Kind::Now,
            "FIRST" => Kind::First,
            _ => return Err("bad TYPE; expected 'RANGE', 'NOW', or 'FIRST'".into()),
        };
        self.first = Timestamp::ZERO;
        Ok(())
    }

    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let t = p.timestamp_anno();
        match self.kind {
            Kind::Range => {
                if !t.is_zero() {
                    if self.first.is_zero() {
                        self.first = t;
                    }
                    p.set_timestamp_anno(t - self.first);
                }
            }
            Kind::Now => p.set_timestamp_anno(cx.now() - t),
            Kind::First => {
                let f = p.first_timestamp_anno();
                p.set_timestamp_anno(t - f);
            }
        }
        Some(p)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        if !matches!(H::from_id(id), Some(H::First)) {
            return Err("no such handler".into());
        }
        let mut s = String::new();
        write_timestamp(&mut s, self.first);
        Ok(s)
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        if !matches!(H::from_id(id), Some(H::Reset)) {
            return Err("no such handler".into());
        }
        self.first = Timestamp::ZERO;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};
    use rclick_core::testing;

    /// RANGE: each nonzero timestamp minus the first; `first` reads it and
    /// `reset` forgets it.
    #[test]
    fn range_deltas_from_the_first_timestamp() {
        let f = dir("settsd").join("in");
        std::fs::write(&f, "!data timestamp\n0\n10.5\n11\n12.25\n").unwrap();
        let (r, lines) = run_dump(
            "settsd",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> d :: SetTimestampDelta
                 -> ToIPSummaryDump(OUT, FIELDS timestamp);",
                f.display()
            ),
        );
        assert_eq!(lines, ["0.000000", "0.000000", "0.500000", "1.750000"]);
        assert_eq!(testing::read(&r, "d.first"), "10.500000");
        r.write_handler("d.reset", "").unwrap();
        assert_eq!(testing::read(&r, "d.first"), "0.000000");
    }
}
