//! # AggregatePacketCounter
//!
//! ## Synopsis
//!
//! `AggregatePacketCounter([keywords NOTIFIER, ANNO])`
//!
//! ## Category
//!
//! analysis — counts packets per packet number and aggregate annotation.
//!
//! ## Ports and processing
//!
//! Any number of inputs (at least one), as many outputs; agnostic. A packet
//! arriving on input N leaves unchanged on output N.
//!
//! ## Description
//!
//! Counts, for each aggregate annotation value and each packet number (a
//! four-byte annotation), how many packets were seen, separately for each
//! input. Packets whose aggregate annotation is 0 pass uncounted.
//!
//! With a sender-side trace on input 0 and a receiver-side trace on
//! input 1, `undelivered` lists the packet numbers sent but not received.
//!
//! Keywords:
//!
//! * `ANNO` (annotation): where the packet number is: `PACKET_NUMBER`
//!   (bytes 32 to 35, the default), another four-byte annotation name, or
//!   a byte offset; `NONE` counts every packet as number 0.
//! * `NOTIFIER` (element name): accepted and checked to name an element,
//!   as Click does; not used.
//!
//! ## Annotations
//!
//! Reads the aggregate annotation and the ANNO annotation.
//!
//! ## Handlers
//!
//! * `count` (read): packets counted (those with a nonzero aggregate).
//! * `received` (read with parameter AGG): the packet numbers seen in
//!   aggregate AGG on any input, one per line, in increasing order.
//! * `undelivered` (read with parameter AGG): the packet numbers seen in
//!   aggregate AGG more often on input 0 than on input 1, one per line.
//!   Needs two inputs.
//! * `clear` (write): forget every count.
//!
//! ## Example
//!
//! ```text
//! sender :: FromIPSummaryDump(s, STOP true); receiver :: FromIPSummaryDump(r, STOP true);
//! c :: AggregatePacketCounter;
//! sender -> AggregateIPFlows -> [0] c [0] -> Discard;
//! receiver -> AggregateIPFlows -> [1] c [1] -> Discard;
//! DriverManager(wait_stop, wait_stop, save c.undelivered1 lost)
//! ```
//!
//! ## See also
//!
//! AggregateCounter, AggregateIP, AggregateIPFlows

use std::collections::{BTreeMap, HashMap};

use rclick_core::args::{AnyArg, Args, FromArg, NoContext};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

/// Where Click keeps the packet-number annotation.
const PACKET_NUMBER_ANNO: usize = 32;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
        Received = read_param("received"),
        Undelivered = read_param("undelivered"),
        Clear = write("clear"),
    }
}

/// One aggregate's counts: per input, packet number to count.
type Columns = Vec<BTreeMap<u32, u64>>;

/// The AggregatePacketCounter element.
#[derive(Default)]
pub struct AggregatePacketCounter {
    /// The packet-number annotation's offset; `None` for `ANNO NONE`.
    anno: Option<usize>,
    flows: HashMap<u32, Columns>,
    ninputs: usize,
    /// Packets seen, and aggregates ever counted (for Click's cleanup
    /// warning).
    total_packets: u64,
    total_flows: u64,
}

/// Click's four-byte annotation argument: a name or a byte offset.
fn parse_anno(s: &str, cx: &ConfigureCx) -> Result<Option<usize>, String> {
    let upper = s.to_ascii_uppercase();
    let upper = upper.strip_suffix("_ANNO").unwrap_or(&upper);
    match upper {
        "NONE" => return Ok(None),
        "PACKET_NUMBER" => return Ok(Some(PACKET_NUMBER_ANNO)),
        "EXTRA_PACKETS" => return Ok(Some(super::EXTRA_PACKETS_ANNO)),
        _ => {}
    }
    if let Some(v) = cx.lookup_name("anno", s) {
        if let Some((off, "4")) = v.split_once(' ') {
            if let Ok(o) = off.parse::<usize>() {
                return Ok(Some(o));
            }
        }
        return Err("bad ANNO".into());
    }
    match usize::from_arg(s, &NoContext) {
        Ok(o) if o + 4 <= rclick_packet::USER_ANNO_SIZE => Ok(Some(o)),
        _ => Err("bad ANNO".into()),
    }
}

impl AggregatePacketCounter {
    /// Counts the packets of `batch`, arrived on input `port`.
    fn count(&mut self, port: usize, batch: &PacketBatch) {
        self.total_packets += batch.len() as u64;
        for p in batch.iter() {
            let agg = p.aggregate_anno();
            if agg == 0 {
                continue;
            }
            let n = self.anno.map_or(0, |o| p.anno_u32(o));
            let ninputs = self.ninputs.max(1);
            let total_flows = &mut self.total_flows;
            let cols = self.flows.entry(agg).or_insert_with(|| {
                *total_flows += 1;
                vec![BTreeMap::new(); ninputs]
            });
            if let Some(col) = cols.get_mut(port) {
                *col.entry(n).or_insert(0) += 1;
            }
        }
    }

    fn flow_numbers(&self, param: &str, undelivered: bool) -> Result<String, String> {
        let param = param.trim();
        let agg = if param.is_empty() {
            0
        } else {
            u32::from_arg(param, &NoContext)
                .map_err(|_| "argument should be aggregate number".to_string())?
        };
        if undelivered && self.ninputs < 2 {
            return Err("undelivered needs two inputs".into());
        }
        let Some(cols) = self.flows.get(&agg) else {
            return Ok(String::new());
        };
        let numbers: Vec<u32> = if undelivered {
            cols[0]
                .iter()
                .filter(|(n, &c)| c > cols[1].get(n).copied().unwrap_or(0))
                .map(|(&n, _)| n)
                .collect()
        } else {
            let mut all: Vec<u32> = cols
                .iter()
                .flat_map(|c| c.iter().filter(|(_, &k)| k > 0).map(|(&n, _)| n))
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        };
        Ok(numbers.iter().map(|n| format!("{n}\n")).collect())
    }
}

impl Element for AggregatePacketCounter {
    fn class_name(&self) -> &'static str {
        "AggregatePacketCounter"
    }
    fn port_count(&self) -> &'static str {
        "1-/1-"
    }
    fn processing(&self) -> &'static str {
        "a/a"
    }
    fn flow_code(&self) -> &'static str {
        "#/#"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut notifier = AnyArg(String::new());
        let mut anno = AnyArg("PACKET_NUMBER".to_string());
        Args::new(conf)
            .read("NOTIFIER", &mut notifier)
            .read("ANNO", &mut anno)
            .complete()
            .map_err(|e| e.to_string())?;
        super::notifier_class(&notifier.0, cx)?;
        self.anno = parse_anno(anno.0.trim(), cx)?;
        self.ninputs = cx.ninputs();
        Ok(())
    }

    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.count(port, &batch);
        cx.push(port, batch);
    }

    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(port, max);
        if batch.is_empty() {
            return batch;
        }
        self.count(port, &batch);
        batch
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        if self.total_packets > 0 && self.total_flows == 0 {
            cx.log(format!(
                "{}: warning: saw no packets with aggregate annotations",
                cx.declaration()
            ));
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Count) => Ok(self
                .flows
                .values()
                .flatten()
                .flat_map(|c| c.values())
                .sum::<u64>()
                .to_string()),
            Some(H::Received) => self.flow_numbers(param, false),
            Some(H::Undelivered) => self.flow_numbers(param, true),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Clear) => {
                self.flows.clear();
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

    /// Numbers packets by IP ID (0, 1, 2, 4, 5) into the packet-number
    /// annotation, through Paint at byte 32 as in the reference run.
    const NUM: &str = "elementclass Num { input -> MarkIPHeader
        -> t :: IPClassifier(id 0, id 1, id 2, id 4, id 5);
        t[0] -> Paint(0, ANNO 32) -> output; t[1] -> Paint(1, ANNO 32) -> output;
        t[2] -> Paint(2, ANNO 32) -> output; t[3] -> Paint(4, ANNO 32) -> output;
        t[4] -> Paint(5, ANNO 32) -> output; }";

    // Click's values for the same two traces.
    #[test]
    fn received_and_undelivered_as_click() {
        let d = dir("apc");
        std::fs::write(
            d.join("s"),
            "!data ip_ttl ip_id\n1 0\n1 1\n2 0\n1 2\n1 1\n0 5\n3 4\n",
        )
        .unwrap();
        std::fs::write(d.join("r"), "!data ip_ttl ip_id\n1 0\n2 0\n1 2\n").unwrap();
        let r = testing::run(
            &format!(
                "{NUM}
                 FromIPSummaryDump({s}, STOP true) -> AggregateIP(ip ttl) -> Num
                   -> [0] c :: AggregatePacketCounter [0] -> Discard;
                 FromIPSummaryDump({rc}, STOP true) -> AggregateIP(ip ttl) -> Num -> [1] c [1] -> Discard;
                 DriverManager(wait_stop, wait_stop);",
                s = d.join("s").display(),
                rc = d.join("r").display()
            ),
            &registry(),
        )
        .unwrap();
        let rd = |h: &str, p: &str| r.read_handler(h, p);
        assert_eq!(rd("c.count", "").unwrap(), "9");
        assert_eq!(rd("c.received", "1").unwrap(), "0\n1\n2\n");
        assert_eq!(rd("c.received", "2").unwrap(), "0\n");
        assert_eq!(rd("c.received", "3").unwrap(), "4\n");
        assert_eq!(rd("c.received", "").unwrap(), "");
        assert_eq!(rd("c.received", "9").unwrap(), "");
        assert_eq!(rd("c.undelivered", "1").unwrap(), "1\n");
        assert_eq!(rd("c.undelivered", "2").unwrap(), "");
        assert_eq!(rd("c.undelivered", "3").unwrap(), "4\n");
        assert_eq!(
            rd("c.received", "x").unwrap_err(),
            "argument should be aggregate number"
        );
        r.write_handler("c.clear", "").unwrap();
        assert_eq!(rd("c.count", "").unwrap(), "0");
    }

    #[test]
    fn anno_none_and_one_input() {
        let d = dir("apc1");
        std::fs::write(
            d.join("s"),
            "!data ip_ttl ip_id\n1 0\n1 1\n2 0\n1 2\n1 1\n0 5\n3 4\n",
        )
        .unwrap();
        let r = testing::run(
            &format!(
                "FromIPSummaryDump({}, STOP true) -> AggregateIP(ip ttl) -> Paint(7, ANNO 32)
                   -> c :: AggregatePacketCounter(ANNO NONE) -> Discard;",
                d.join("s").display()
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "6");
        assert_eq!(r.read_handler("c.received", "1").unwrap(), "0\n");
        // Click asserts here (two inputs needed); this one refuses
        assert!(r.read_handler("c.undelivered", "1").is_err());
    }

    // Click warns at cleanup when no packet had an aggregate.
    #[test]
    fn warns_at_cleanup_without_aggregates() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> c :: AggregatePacketCounter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        r.take_log();
        r.cleanup();
        assert_eq!(
            r.take_log(),
            ["c :: AggregatePacketCounter: warning: saw no packets with aggregate annotations"]
        );
    }

    #[test]
    fn configuration_errors_as_click() {
        let err = |c: &str| {
            testing::build(c, &registry(), true)
                .err()
                .unwrap_or_default()
        };
        assert!(
            err("Idle -> AggregatePacketCounter(PACKETNO 2) -> Discard;")
                .contains("PACKETNO: unknown argument")
        );
        assert!(
            err("Idle -> AggregatePacketCounter(NOTIFIER x) -> Discard;")
                .contains("NOTIFIER: does not name an element")
        );
        assert!(err("Idle -> AggregatePacketCounter(1) -> Discard;").contains("too many arguments"));
        assert!(err("Idle -> AggregatePacketCounter(ANNO 46) -> Discard;").contains("bad ANNO"));
        assert!(testing::build(
            "x :: Counter; Idle -> x -> AggregatePacketCounter(NOTIFIER x, ANNO 20) -> Discard;",
            &registry(),
            true
        )
        .is_ok());
    }
}
