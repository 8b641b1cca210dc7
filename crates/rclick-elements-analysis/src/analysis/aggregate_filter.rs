//! # AggregateFilter
//!
//! ## Synopsis
//!
//! `AggregateFilter(PATTERN_1, ..., PATTERN_N)`
//!
//! ## Category
//!
//! analysis — sends packets to outputs by aggregate annotation.
//!
//! ## Ports and processing
//!
//! One input, 1 to 254 outputs, push.
//!
//! ## Description
//!
//! Each pattern is `PORT AGGREGATES...`: PORT is an output number, `allow`
//! (output 0) or `deny` (drop); each AGGREGATES word is `all`, a number
//! (decimal or `0x` hexadecimal) or a range `LOW-HIGH` (empty when LOW >
//! HIGH). A packet goes to the port of the first pattern naming its
//! aggregate annotation; a packet no pattern names, or one sent to `deny`
//! or to a port the element does not have, is dropped (counted in
//! `drops`). An aggregate named again by a later pattern keeps its first
//! port, with a warning.
//!
//! ## Annotations
//!
//! Reads the aggregate annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped (an rclick addition).
//!
//! ## Example
//!
//! `AggregateFilter(allow 1-10, 1 11-20, deny all)`
//!
//! ## See also
//!
//! AggregateIP, AggregateIPFlows, AggregateFirst

use rclick_core::{ConfigureCx, Ctx, Element, PacketBatch};

/// Port value meaning "drop".
const DENY: usize = usize::MAX;

/// The AggregateFilter element.
#[derive(Default)]
pub struct AggregateFilter {
    /// (low, high, port) in pattern order; the first match wins.
    ranges: Vec<(u32, u32, usize)>,
    drops: u64,
}

fn parse_agg(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

impl AggregateFilter {
    fn port_of(&self, agg: u32) -> usize {
        self.ranges
            .iter()
            .find(|(lo, hi, _)| (*lo..=*hi).contains(&agg))
            .map_or(DENY, |r| r.2)
    }
}

impl Element for AggregateFilter {
    fn class_name(&self) -> &'static str {
        "AggregateFilter"
    }
    fn port_count(&self) -> &'static str {
        "1/1-254"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let nout = cx.noutputs();
        let mut ranges: Vec<(u32, u32, usize)> = Vec::new();
        let mut warnings = Vec::new();
        for (i, pat) in conf.iter().enumerate() {
            let mut words = pat.split_whitespace();
            let port = match words.next() {
                Some("allow") => 0,
                Some("deny") => DENY,
                Some(w) => w
                    .parse::<usize>()
                    .map_err(|_| format!("pattern {i}: expected a port number"))?,
                None => return Err(format!("pattern {i}: expected a port number")),
            };
            let mut any = false;
            for w in words {
                any = true;
                let (lo, hi) = if w == "all" {
                    (0, u32::MAX)
                } else if let Some((a, b)) = w.split_once('-') {
                    match (parse_agg(a), parse_agg(b)) {
                        (Some(a), Some(b)) => (a, b),
                        _ => return Err(format!("pattern {i}: bad aggregate number '{w}'")),
                    }
                } else {
                    let a = parse_agg(w)
                        .ok_or_else(|| format!("pattern {i}: bad aggregate number '{w}'"))?;
                    (a, a)
                };
                if lo > hi {
                    continue;
                }
                if let Some(&(plo, phi, pport)) =
                    ranges.iter().find(|(plo, phi, _)| *plo <= hi && lo <= *phi)
                {
                    let first = lo.max(plo).min(phi);
                    let shown = if pport == DENY { nout } else { pport };
                    warnings.push(format!(
                        "pattern {i}: aggregate {first} already filtered to output {shown}"
                    ));
                }
                ranges.push((lo, hi, port));
            }
            if !any {
                return Err(format!("pattern {i} has no aggregates"));
            }
        }
        for w in warnings {
            cx.warning(w);
        }
        self.ranges = ranges;
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let nout = cx.noutputs();
        for p in batch {
            let port = self.port_of(p.aggregate_anno());
            if port < nout {
                cx.push(port, PacketBatch::from(p));
            } else {
                self.drops += 1;
            }
        }
    }

    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry, run_dump};
    use rclick_core::testing;

    /// Aggregates passed to output 0 for `args`, and how many went to
    /// output 1, for TTLs 1 2 1 3 2 1.
    fn filter(args: &str) -> (Vec<String>, String) {
        let name = format!(
            "aggfilt-{:x}",
            args.len() * 31 + args.bytes().map(usize::from).sum::<usize>()
        );
        let f = dir(&name).join("in");
        std::fs::write(&f, "!data ip_ttl\n1\n2\n1\n3\n2\n1\n").unwrap();
        let (r, lines) = run_dump(
            &name,
            &format!(
                "FromIPSummaryDump({}, STOP true) -> AggregateIP(ip ttl) -> a :: AggregateFilter({args})
                 -> ToIPSummaryDump(OUT, FIELDS aggregate); a[1] -> c :: Counter -> Discard;",
                f.display()
            ),
        );
        (lines, testing::read(&r, "c.count"))
    }

    // Expected results are Click's for the same configuration (clickdiff).
    #[test]
    fn patterns_like_click() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            filter("allow 1-2"),
            (v(&["1", "2", "1", "2", "1"]), "0".into())
        );
        assert_eq!(filter("allow 1, deny 2"), (v(&["1", "1", "1"]), "0".into()));
        assert_eq!(filter("deny 2"), (v(&[]), "0".into()));
        assert_eq!(filter("allow all").0.len(), 6);
        assert_eq!(filter("allow 1 3"), (v(&["1", "1", "3", "1"]), "0".into()));
        assert_eq!(filter("allow 5-2"), (v(&[]), "0".into()));
        assert_eq!(filter("allow 0x3"), (v(&["3"]), "0".into()));
        assert_eq!(filter("allow 3-3"), (v(&["3"]), "0".into()));
        assert_eq!(filter("1 2, allow 1"), (v(&["1", "1", "1"]), "2".into()));
        assert_eq!(filter("2 2, allow 1"), (v(&["1", "1", "1"]), "0".into()));
        assert_eq!(
            filter("allow 1-3, deny 2"),
            (v(&["1", "2", "1", "3", "2", "1"]), "0".into())
        );
        assert_eq!(
            filter("deny 2, allow 1-3"),
            (v(&["1", "1", "3", "1"]), "0".into())
        );
    }

    #[test]
    fn overlap_warning_and_errors() {
        let e = |args: &str| {
            testing::build(
                &format!("Idle -> AggregateFilter({args}) -> Discard;"),
                &registry(),
                true,
            )
            .err()
            .unwrap_or_default()
        };
        assert!(e("foo 1").contains("pattern 0: expected a port number"));
        assert!(e("allow").contains("pattern 0 has no aggregates"));
        assert!(e("allow 1/31").contains("pattern 0: bad aggregate number '1/31'"));
        let r = testing::build(
            "Idle -> a :: AggregateFilter(deny 2, allow 1-3) -> Discard; a[1] -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        let log = r.take_log();
        assert!(
            log.iter().any(|l| l.contains("warning: pattern 1: aggregate 2 already filtered to output 2")),
            "{log:?}"
        );
    }
}
