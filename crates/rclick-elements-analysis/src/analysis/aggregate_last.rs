//! # AggregateLast
//!
//! ## Synopsis
//!
//! `AggregateLast([keywords NOTIFIER, STOP_AFTER_CLEAR])`
//!
//! ## Category
//!
//! analysis — lets through the last packet of each aggregate.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs, all push.
//!
//! ## Description
//!
//! Keeps the latest packet seen with each aggregate annotation value and
//! forwards only that one, when the `clear` handler is written. Each
//! packet it replaces goes to output 1 at once if it exists, and is dropped
//! otherwise (counted in `drops`).
//!
//! The packet kept stands for its whole aggregate: its extra-packets
//! annotation counts the packets before it (so a summary dump's `count`
//! field shows the aggregate's packets), its extra-length annotation adds
//! their lengths, and its first-timestamp annotation is the timestamp of
//! the aggregate's first packet.
//!
//! On `clear`, the kept packets leave on output 0 in increasing aggregate
//! order, and the table is emptied.
//!
//! Keywords:
//!
//! * `NOTIFIER` (element name): an aggregate notifier such as
//!   AggregateIPFlows. It must be one (`x is not an AggregateNotifier`).
//!   In Click the notifier announces finished aggregates so their packet
//!   leaves early; rclick's aggregate elements do not announce them yet, so
//!   packets leave only on `clear`.
//! * `STOP_AFTER_CLEAR` (boolean): stop the router once a `clear` has
//!   emitted every packet. Default false.
//!
//! ## Annotations
//!
//! Reads the aggregate and timestamp annotations; sets the extra-packets,
//! extra-length and first-timestamp annotations.
//!
//! ## Handlers
//!
//! * `clear` (write): emit every kept packet and empty the table (done by
//!   a task soon after, or before the next packet, whichever comes first).
//! * `drops` (read): replaced packets dropped for want of output 1 (an
//!   rclick addition).
//! * `naggregates` (read): aggregates kept now (an rclick addition).
//!
//! ## Example
//!
//! ```text
//! FromDump(trace) -> AggregateIPFlows -> a :: AggregateLast
//!   -> ToIPSummaryDump(flows, FIELDS first_timestamp timestamp count);
//! DriverManager(wait_stop, write a.clear)
//! ```
//!
//! ## See also
//!
//! AggregateFirst, AggregateIP, AggregateIPFlows, AggregateCounter,
//! AggregateFilter

use std::collections::BTreeMap;

use rclick_core::args::{AnyArg, Args};
use rclick_core::drops::simple::divert_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TaskId};

use super::EXTRA_PACKETS_ANNO;

/// The classes that announce aggregates (Click's AggregateNotifier).
const NOTIFIER_CLASSES: [&str; 2] = ["AggregateIPFlows", "AggregateIPAddrPair"];

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Clear = write("clear"),
        Drops = read("drops"),
        Nagg = read("naggregates"),
    }
}

/// The AggregateLast element.
#[derive(Default)]
pub struct AggregateLast {
    /// The last packet of each aggregate, in aggregate order.
    kept: BTreeMap<u32, Packet>,
    stop_after_clear: bool,
    needs_clear: bool,
    task: Option<TaskId>,
    drops: u64,
}

impl AggregateLast {
    /// Emits every kept packet on output 0, in aggregate order.
    fn clear(&mut self, cx: &mut Ctx) {
        self.needs_clear = false;
        let kept = std::mem::take(&mut self.kept);
        if !kept.is_empty() {
            cx.push(0, kept.into_values().collect());
        }
        if self.stop_after_clear {
            cx.request_stop();
        }
    }

    /// Takes `p` as its aggregate's last packet; returns the one it
    /// replaces, if any.
    fn keep(&mut self, mut p: Packet) -> Option<Packet> {
        let agg = p.aggregate_anno();
        match self.kept.remove(&agg) {
            Some(old) => {
                let extra = p
                    .anno_u32(EXTRA_PACKETS_ANNO)
                    .wrapping_add(1)
                    .wrapping_add(old.anno_u32(EXTRA_PACKETS_ANNO));
                p.set_anno_u32(EXTRA_PACKETS_ANNO, extra);
                let len = u32::try_from(old.len()).unwrap_or(u32::MAX);
                let extra_len = p
                    .extra_length_anno()
                    .wrapping_add(len)
                    .wrapping_add(old.extra_length_anno());
                p.set_extra_length_anno(extra_len);
                p.set_first_timestamp_anno(old.first_timestamp_anno());
                self.kept.insert(agg, p);
                Some(old)
            }
            None => {
                let ts = p.timestamp_anno();
                p.set_first_timestamp_anno(ts);
                self.kept.insert(agg, p);
                None
            }
        }
    }
}

impl Element for AggregateLast {
    fn class_name(&self) -> &'static str {
        "AggregateLast"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut notifier = AnyArg(String::new());
        let mut stop = false;
        Args::new(conf)
            .read("NOTIFIER", &mut notifier)
            .read("STOP_AFTER_CLEAR", &mut stop)
            .complete()
            .map_err(|e| e.to_string())?;
        if let Some(class) = super::notifier_class(&notifier.0, cx)? {
            if !NOTIFIER_CLASSES.contains(&class.as_str()) {
                return Err(format!("{} is not an AggregateNotifier", notifier.0.trim()));
            }
        }
        self.stop_after_clear = stop;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.task = Some(cx.new_task(false));
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        // a pending clear goes first, as in Click
        if self.needs_clear {
            if let Some(t) = self.task {
                cx.unschedule_task(t);
            }
            self.clear(cx);
        }
        let mut replaced = PacketBatch::new();
        for p in batch {
            if let Some(old) = self.keep(p) {
                replaced.push(old);
            }
        }
        if replaced.is_empty() {
            return;
        }
        divert_or_count(&mut self.drops, replaced, cx);
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.needs_clear {
            return false;
        }
        self.clear(cx);
        true
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Drops) => self.drops.to_string(),
            Some(H::Nagg) => self.kept.len().to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Clear) => {
                self.needs_clear = true;
                if let Some(t) = self.task {
                    cx.schedule_task(t);
                }
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry, run_dump};
    use rclick_core::testing;

    fn input(name: &str) -> String {
        let f = dir(name).join("in");
        std::fs::write(
            &f,
            "!data timestamp ip_ttl ip_len\n1.5 1 100\n2.0 2 200\n3.0 1 300\n4.0 3 400\n5.0 2 500\n6.0 1 600\n",
        )
        .unwrap();
        f.display().to_string()
    }

    // Click's output for the same configuration (`DriverManager(wait 0.2,
    // write a.clear, wait 0.1, stop)` in place of the Script).
    #[test]
    fn last_of_each_aggregate_on_clear() {
        let i = input("agglast");
        let (r, lines) = run_dump(
            "agglast",
            &format!(
                "FromIPSummaryDump({i}, STOP false) -> AggregateIP(ip ttl) -> a :: AggregateLast
                 -> ToIPSummaryDump(OUT, FIELDS aggregate timestamp first_timestamp count ip_len wire_len);
                 a[1] -> c :: Counter -> Discard;
                 Script(wait 0.2, write a.clear, wait 0.1, stop);"
            ),
        );
        assert_eq!(
            lines,
            [
                "1 6.000000 1.500000 3 600 40",
                "2 5.000000 2.000000 2 500 40",
                "3 4.000000 4.000000 1 400 40"
            ]
        );
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "a.naggregates"), "0");
        assert_eq!(testing::read(&r, "a.drops"), "0");
    }

    #[test]
    fn replaced_packets_on_output_1_carry_their_counts() {
        let i = input("agglast1");
        let (_, lines) = run_dump(
            "agglast1",
            &format!(
                "FromIPSummaryDump({i}, STOP true) -> AggregateIP(ip ttl) -> a :: AggregateLast -> Discard;
                 a[1] -> ToIPSummaryDump(OUT, FIELDS aggregate timestamp first_timestamp count ip_len);"
            ),
        );
        assert_eq!(
            lines,
            [
                "1 1.500000 1.500000 1 100",
                "2 2.000000 2.000000 1 200",
                "1 3.000000 1.500000 2 300"
            ]
        );
    }

    #[test]
    fn stop_after_clear_and_drops() {
        let i = input("agglast2");
        let r = testing::run(
            &format!(
                "FromIPSummaryDump({i}, STOP false) -> AggregateIP(ip ttl)
                 -> a :: AggregateLast(STOP_AFTER_CLEAR true) -> c :: Counter -> Discard;
                 Script(wait 0.2, write a.clear);"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "a.drops"), "3");
    }

    #[test]
    fn configuration_errors_as_click() {
        let err = |c: &str| {
            testing::build(c, &registry(), true)
                .err()
                .unwrap_or_default()
        };
        assert!(err("Idle -> AggregateLast(NOTIFIER x) -> Discard;")
            .contains("NOTIFIER: does not name an element"));
        assert!(
            err("x :: Counter; Idle -> x -> AggregateLast(NOTIFIER x) -> Discard;")
                .contains("x is not an AggregateNotifier")
        );
        assert!(err("Idle -> AggregateLast(1) -> Discard;").contains("too many arguments"));
        assert!(
            err("Idle -> AggregateLast(STOP_AFTER_CLEAR maybe) -> Discard;")
                .contains("STOP_AFTER_CLEAR")
        );
        assert!(err("InfiniteSource -> q :: Queue -> AggregateLast -> Discard;").contains("pull"));
        assert!(testing::build(
            "f :: AggregateIPFlows; Idle -> f -> AggregateLast(NOTIFIER f) -> Discard;",
            &registry(),
            true
        )
        .is_ok());
    }

    // Click: a `count` field read from a dump is the packet count written
    // back (EXTRA_PACKETS_ANNO), 0 and 1 both reading 1.
    #[test]
    fn count_field_round_trip() {
        let f = dir("agglast-count").join("in");
        std::fs::write(&f, "!data timestamp count\n1.5 3\n2.0 0\n3 1\n").unwrap();
        let (_, lines) = run_dump(
            "agglast-count",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> ToIPSummaryDump(OUT, FIELDS timestamp count);",
                f.display()
            ),
        );
        assert_eq!(lines, ["1.500000 3", "2.000000 1", "3.000000 1"]);
    }
}
