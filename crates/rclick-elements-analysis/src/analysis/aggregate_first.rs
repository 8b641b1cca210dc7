//! # AggregateFirst
//!
//! ## Synopsis
//!
//! `AggregateFirst([keywords NOTIFIER])`
//!
//! ## Category
//!
//! analysis — passes only the first packet of each aggregate.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs. Agnostic; output 1 is push.
//!
//! ## Description
//!
//! Passes the first packet seen with each aggregate annotation value to
//! output 0. Later packets of an aggregate already seen go to output 1 if
//! it exists, and are dropped otherwise (counted in `drops`).
//!
//! * `NOTIFIER` (element name): an element that announces the end of
//!   aggregates, such as AggregateIPFlows. It must exist; rclick's
//!   aggregate elements do not announce deletions yet, so the seen set is
//!   kept until the router stops.
//!
//! ## Annotations
//!
//! Reads the aggregate annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): later packets dropped because output 1 does not exist
//!   (an rclick addition).
//! * `naggregates` (read): aggregates seen (an rclick addition).
//!
//! ## Example
//!
//! `AggregateIPFlows -> AggregateFirst -> ToIPSummaryDump(flows)`
//!
//! ## See also
//!
//! AggregateIP, AggregateIPFlows, AggregateCounter

use std::collections::HashSet;

use rclick_core::args::{AnyArg, Args};
use rclick_core::drops::simple::divert_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

/// The AggregateFirst element.
#[derive(Default)]
pub struct AggregateFirst {
    seen: HashSet<u32>,
    drops: u64,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Drops = read("drops"),
        Nagg = read("naggregates"),
    }
}

impl Element for AggregateFirst {
    fn class_name(&self) -> &'static str {
        "AggregateFirst"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut notifier = AnyArg(String::new());
        Args::new(conf)
            .read("NOTIFIER", &mut notifier)
            .complete()
            .map_err(|e| e.to_string())?;
        super::notifier_class(&notifier.0, cx)?;
        Ok(())
    }

    fn is_simple(&self) -> bool {
        true
    }

    #[inline]
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.seen.insert(p.aggregate_anno()) {
            return Some(p);
        }
        divert_or_count(&mut self.drops, p, cx);
        None
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Drops) => self.drops.to_string(),
            Some(H::Nagg) => self.seen.len().to_string(),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry, run_dump};
    use rclick_core::testing;

    fn input(name: &str) -> String {
        let f = dir(name).join("in");
        std::fs::write(&f, "!data ip_ttl\n1\n2\n1\n3\n2\n1\n").unwrap();
        f.display().to_string()
    }

    // Click passes 1, 2, 3 and sends the three repeats to output 1.
    #[test]
    fn first_of_each_aggregate() {
        let i = input("aggfirst");
        let (r, lines) = run_dump(
            "aggfirst",
            &format!(
                "FromIPSummaryDump({i}, STOP true) -> AggregateIP(ip ttl) -> a :: AggregateFirst
                 -> ToIPSummaryDump(OUT, FIELDS aggregate); a[1] -> c :: Counter -> Discard;"
            ),
        );
        assert_eq!(lines, ["1", "2", "3"]);
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "a.naggregates"), "3");
        let i = input("aggfirst-drop");
        let r = testing::run(
            &format!(
                "FromIPSummaryDump({i}, STOP true) -> AggregateIP(ip ttl) -> a :: AggregateFirst
                 -> c :: Counter -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "a.drops"), "3");
    }

    #[test]
    fn configuration() {
        assert!(
            testing::build("Idle -> AggregateFirst(1) -> Discard;", &registry(), true).is_err()
        );
        let e = testing::build(
            "Idle -> AggregateFirst(NOTIFIER x) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("NOTIFIER: does not name an element"), "{e}");
        assert!(testing::build(
            "f :: AggregateIPFlows; Idle -> f -> AggregateFirst(NOTIFIER f) -> Discard;",
            &registry(),
            true
        )
        .is_ok());
    }
}
