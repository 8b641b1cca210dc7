//! # AggregatePaint
//!
//! ## Synopsis
//!
//! `AggregatePaint([BITS, keywords INCREMENTAL])`
//!
//! ## Category
//!
//! analysis — sets the aggregate annotation from the paint annotation.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's aggregate annotation to the low `BITS` bits of its
//! paint annotation, so that per-paint counts can be kept by
//! AggregateCounter. Any packet is accepted, IP or not.
//!
//! * `BITS` (integer 1 to 8, default 8): how many low bits of the paint.
//! * `INCREMENTAL` (boolean, default false): accepted for Click
//!   compatibility (Click uses it for aggregate listeners); no effect on
//!   the annotation.
//!
//! ## Annotations
//!
//! Reads the paint annotation; sets the aggregate annotation.
//!
//! ## Example
//!
//! `Paint(2) -> AggregatePaint -> AggregateCounter`
//!
//! ## See also
//!
//! AggregateIP, AggregateLength, Paint

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};

/// The AggregatePaint element.
pub struct AggregatePaint {
    mask: u8,
}

impl Default for AggregatePaint {
    fn default() -> Self {
        AggregatePaint { mask: 0xff }
    }
}

impl Element for AggregatePaint {
    fn class_name(&self) -> &'static str {
        "AggregatePaint"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut bits = 8u32;
        let mut incremental = false;
        Args::new(conf)
            .read_p("BITS", &mut bits)
            .read("INCREMENTAL", &mut incremental)
            .complete()
            .map_err(|e| e.to_string())?;
        if !(1..=8).contains(&bits) {
            return Err("bad number of bits".into());
        }
        self.mask = (0xffu16 >> (8 - bits)) as u8;
        Ok(())
    }

    fn is_simple(&self) -> bool {
        true
    }

    #[inline]
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.set_aggregate_anno(u32::from(p.paint_anno() & self.mask));
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{registry, run_dump};
    use rclick_core::testing;

    fn agg(data: &str, paint: &str, args: &str) -> Vec<String> {
        let conf = format!(
            "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> Paint({paint})
             -> AggregatePaint({args}) -> ToIPSummaryDump(OUT, FIELDS aggregate);"
        );
        run_dump(
            &format!("aggpaint-{paint}-{}", args.replace([' ', ','], "_")),
            &conf,
        )
        .1
    }

    // Expected values are Click's for the same configuration (clickdiff).
    #[test]
    fn low_bits_of_paint() {
        assert_eq!(agg("00 01", "0xB7", ""), ["183"]);
        assert_eq!(agg("00 01", "0xB7", "4"), ["7"]);
        assert_eq!(agg("00 01", "0xB7", "BITS 4"), ["7"]);
        assert_eq!(agg("00 01", "0xB7", "8"), ["183"]);
        assert_eq!(agg("00 01", "0xB7", "4, INCREMENTAL true"), ["7"]);
        assert_eq!(agg("00 01", "3", "1"), ["1"]);
    }

    #[test]
    fn bits_out_of_range() {
        for bad in ["0", "9", "x"] {
            let e = testing::build(
                &format!("Idle -> AggregatePaint({bad}) -> Discard;"),
                &registry(),
                true,
            );
            assert!(e.is_err(), "{bad}");
        }
        let e = testing::build("Idle -> AggregatePaint(9) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("bad number of bits"), "{e}");
    }
}
