//! # AggregateLength
//!
//! ## Synopsis
//!
//! `AggregateLength([keywords IP])`
//!
//! ## Category
//!
//! analysis — sets the aggregate annotation to the packet's length.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's aggregate annotation to its length plus its extra
//! length annotation, so that later elements (AggregateCounter,
//! AggregateFilter) can group packets by size.
//!
//! * `IP` (boolean, default false): measure from the network header to the
//!   end of the packet instead of the whole packet (the IP length field is
//!   not read). Packets without a network header are then dropped, and
//!   counted in `drops`.
//!
//! ## Annotations
//!
//! Reads the extra length annotation and the network header; sets the
//! aggregate annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped for lacking a network header
//!   (`IP true` only; an rclick addition).
//!
//! ## Example
//!
//! `FromDump(f) -> AggregateLength -> c :: AggregateCounter`
//!
//! ## See also
//!
//! AggregateIP, AggregateIPFlows, AggregateCounter

use super::drop_counting::{DropCounting, DropCountingElement};
use rclick_core::args::Args;
use rclick_core::Packet;

/// AggregateLength's own part: IP, and the length it stores.
#[derive(Default)]
pub(crate) struct AggregateLengthClass {
    ip: bool,
}

impl DropCounting for AggregateLengthClass {
    const CLASS: &'static str = "AggregateLength";

    fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        let mut ip = false;
        Args::new(conf)
            .read("IP", &mut ip)
            .complete()
            .map_err(|e| e.to_string())?;
        self.ip = ip;
        Ok(())
    }

    #[inline]
    fn change(&mut self, p: &mut Packet) -> bool {
        let len = if self.ip {
            match p.network_length() {
                Some(n) => n,
                None => return false,
            }
        } else {
            p.len()
        };
        let agg = (len as u32).wrapping_add(p.extra_length_anno());
        p.set_aggregate_anno(agg);
        true
    }
}

/// The AggregateLength element: its own part in a [`DropCountingElement`].
pub(crate) type AggregateLength = DropCountingElement<AggregateLengthClass>;

#[cfg(test)]
mod tests {
    use super::super::test_util::{registry, run_dump, UDP28};
    use rclick_core::testing;

    // Checked against Click with clickdiff: a 2-byte prefix before a
    // 28-byte IP packet whose length field says 48.
    fn lengths(args: &str) -> Vec<String> {
        let conf = format!(
            "InfiniteSource(DATA \\<aa bb {UDP28}>, LIMIT 1, STOP true) -> MarkIPHeader(2)
             -> AggregateLength({args}) -> ToIPSummaryDump(OUT, FIELDS aggregate ip_len);"
        );
        run_dump(&format!("agglen-{}", args.replace(' ', "_")), &conf).1
    }

    #[test]
    fn whole_packet_by_default_network_part_with_ip() {
        assert_eq!(lengths(""), ["30 48"]);
        assert_eq!(lengths("IP false"), ["30 48"]);
        assert_eq!(lengths("IP true"), ["28 48"]);
    }

    #[test]
    fn extra_length_counts() {
        let d = super::super::test_util::dir("agglen-extra");
        std::fs::write(d.join("in"), "!data ip_len ip_proto\n100 T\n1500 I\n").unwrap();
        for ip in ["false", "true"] {
            let conf = format!(
                "FromIPSummaryDump({}, STOP true) -> AggregateLength(IP {ip})
                 -> ToIPSummaryDump(OUT, FIELDS aggregate);",
                d.join("in").display()
            );
            assert_eq!(
                run_dump(&format!("agglen-extra-{ip}"), &conf).1,
                ["100", "1500"]
            );
        }
    }

    #[test]
    fn non_ip_dropped_and_counted_only_with_ip() {
        let r = testing::run(
            "InfiniteSource(DATA \\<00 01 02 03 04>, LIMIT 2, STOP true)
             -> a :: AggregateLength(IP true) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        assert_eq!(testing::read(&r, "a.drops"), "2");
        let (_, l) = run_dump(
            "agglen-nonip",
            "InfiniteSource(DATA \\<00 01 02 03 04>, LIMIT 2, STOP true)
             -> AggregateLength -> ToIPSummaryDump(OUT, FIELDS aggregate);",
        );
        assert_eq!(l, ["5", "5"]);
    }

    #[test]
    fn ip_is_keyword_only() {
        assert!(testing::build(
            "Idle -> AggregateLength(true) -> Discard;",
            &registry(),
            true
        )
        .is_err());
    }
}
