//! # FlowDRR
//!
//! `FlowDRR([QUANTUM, CAPACITY, WEIGHT_ANNO])`
//!
//! **Category:** plugins, scheduling. A queue per flow, served by weighted
//! deficit round robin (the Router Plugins paper's DRR plugin, section 6.1).
//!
//! **Ports:** one push input, one pull output.
//!
//! ## Description
//!
//! Keeps one FIFO queue per flow and sends from them by deficit round
//! robin, so each backlogged flow gets link bytes in proportion to its
//! weight whatever its packet sizes or rate. A flow is the packet's
//! aggregate annotation, which FlowGate sets to the flow-cache entry's
//! number for packets of a bound filter (the paper's per-flow soft state in
//! the flow table); put FlowDRR after a gate whose filters select the
//! flows to schedule (packets with no aggregate annotation share flow 0).
//!
//! Weights: with WEIGHT_ANNO, a flow's weight is the byte at that offset
//! of the user annotation area of its latest packet (0 counts as 1), so a
//! plugin instance bound at the gate for reserved flows (`Paint(4, 20)`:
//! weight 4 in byte 20) gives them a larger share, as the paper's reserved
//! flows have; without it every weight is 1.
//!
//! Each visit to the flow at the head of the round adds QUANTUM x weight
//! bytes to its deficit; it sends while its first packet fits, then goes to
//! the back of the round. A flow whose queue empties leaves the round and
//! forgets its deficit (and its table entry: only backlogged flows are
//! held, so memory is bounded by CAPACITY).
//!
//! Keywords:
//!
//! * `QUANTUM` (unsigned integer, default 500): bytes per round per unit
//!   of weight.
//! * `CAPACITY` (unsigned integer, default 1000): packets held in all
//!   queues together; an arriving packet beyond it is dropped and counted.
//! * `WEIGHT_ANNO` (byte offset into the user annotation area): where the
//!   weight is read; absent, weights are 1.
//!
//! ## Annotations
//!
//! Uses the aggregate annotation, and the WEIGHT_ANNO byte if given.
//!
//! ## Handlers
//!
//! * `length` (read): packets held.
//! * `flows` (read): backlogged flows.
//! * `drops` (read): packets dropped for want of room.
//!
//! ## Examples
//!
//! ```text
//! ... -> FlowGate(sched) -> FlowDRR(QUANTUM 1500, WEIGHT_ANNO 20) -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! FlowGate, DRRSched, PluginManager

use std::collections::{HashMap, VecDeque};

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Notifier, Packet, PacketBatch};

struct FlowQueue {
    q: VecDeque<Packet>,
    deficit: u64,
    weight: u32,
}

/// The FlowDRR element.
pub struct FlowDRR {
    quantum: u32,
    capacity: usize,
    weight_anno: Option<usize>,
    flows: HashMap<u32, FlowQueue>,
    /// Backlogged flows in round order.
    round: VecDeque<u32>,
    len: usize,
    drops: u64,
    empty_note: Notifier,
}

impl Default for FlowDRR {
    fn default() -> FlowDRR {
        FlowDRR {
            quantum: 500,
            capacity: 1000,
            weight_anno: None,
            flows: HashMap::new(),
            round: VecDeque::new(),
            len: 0,
            drops: 0,
            empty_note: Notifier::new(false),
        }
    }
}

impl FlowDRR {
    fn enqueue(&mut self, p: Packet) {
        if self.len >= self.capacity {
            self.drops += 1;
            return;
        }
        let key = p.aggregate_anno();
        let weight = self
            .weight_anno
            .map_or(1, |o| p.anno().u8_at(o).max(1) as u32);
        let f = self.flows.entry(key).or_insert_with(|| FlowQueue {
            q: VecDeque::new(),
            deficit: 0,
            weight,
        });
        if f.q.is_empty() {
            self.round.push_back(key);
        }
        f.weight = weight;
        f.q.push_back(p);
        self.len += 1;
    }

    fn dequeue(&mut self) -> Option<Packet> {
        // Each turn either sends or adds at least QUANTUM (> 0) to a
        // deficit, so this ends; the bound makes sure even of QUANTUM 0.
        for _ in 0..self.len.saturating_mul(64).max(64) {
            let key = *self.round.front()?;
            let Some(f) = self.flows.get_mut(&key) else {
                self.round.pop_front();
                continue;
            };
            let Some(first) = f.q.front() else {
                self.round.pop_front();
                self.flows.remove(&key);
                continue;
            };
            if first.len() as u64 <= f.deficit {
                f.deficit -= first.len() as u64;
                let p = f.q.pop_front();
                self.len -= 1;
                if f.q.is_empty() {
                    self.round.pop_front();
                    self.flows.remove(&key);
                }
                return p;
            }
            f.deficit += self.quantum.max(1) as u64 * f.weight as u64;
            self.round.rotate_left(1);
        }
        None
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Length = read("length"),
        Flows = read("flows"),
        Drops = read("drops"),
    }
}

impl Element for FlowDRR {
    fn class_name(&self) -> &'static str {
        "FlowDRR"
    }
    fn processing(&self) -> &'static str {
        rclick_core::spec::common::PUSH_TO_PULL
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut quantum: u32 = 500;
        let mut capacity: u32 = 1000;
        let mut anno: u32 = u32::MAX;
        Args::new(conf)
            .read("QUANTUM", &mut quantum)
            .read("CAPACITY", &mut capacity)
            .read("WEIGHT_ANNO", &mut anno)
            .complete()
            .map_err(|e| e.to_string())?;
        if quantum == 0 {
            return Err("QUANTUM: must be positive".into());
        }
        let anno = match anno {
            u32::MAX => None,
            o if o as usize >= rclick_packet::USER_ANNO_SIZE => {
                return Err(format!(
                    "WEIGHT_ANNO: expected an offset below {}",
                    rclick_packet::USER_ANNO_SIZE
                ))
            }
            o => Some(o as usize),
        };
        self.quantum = quantum;
        self.capacity = capacity as usize;
        self.weight_anno = anno;
        Ok(())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        for p in batch.drain() {
            self.enqueue(p);
        }
        if self.len > 0 {
            cx.wake_notifier(&self.empty_note);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, _cx: &mut Ctx) -> PacketBatch {
        let mut out = PacketBatch::new();
        while out.len() < max {
            match self.dequeue() {
                Some(p) => out.push(p),
                None => break,
            }
        }
        if self.len == 0 {
            self.empty_note.set_active(false);
        }
        out
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.empty_note.clone())
    }
    fn notifier_passthrough(&self) -> bool {
        false
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Length) => self.len.to_string(),
            Some(H::Flows) => self.round.len().to_string(),
            Some(H::Drops) => self.drops.to_string(),
            None => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::registry;
    use rclick_core::testing;

    /// Three flows through a gate into FlowDRR, the link drained by an
    /// Unqueue after the queues filled: 100-byte, 300-byte and (weight 2,
    /// set by a Paint instance bound to its filter) 300-byte packets. Bytes
    /// sent must split 1 : 1 : 2 within one round's worth.
    #[test]
    fn weighted_shares_by_bytes() {
        let r = testing::build(
            "g :: FlowGate(sched);
             a :: InfiniteSource(LENGTH 72, LIMIT 300) -> UDPIPEncap(192.0.2.1, 1, 198.51.100.1, 1) -> g;
             b :: InfiniteSource(LENGTH 272, LIMIT 300) -> UDPIPEncap(192.0.2.2, 1, 198.51.100.2, 1) -> g;
             c :: InfiniteSource(LENGTH 272, LIMIT 300) -> UDPIPEncap(192.0.2.3, 1, 198.51.100.3, 1) -> g;
             g -> s :: FlowDRR(QUANTUM 300, CAPACITY 2000, WEIGHT_ANNO 20)
               -> u :: Unqueue(LIMIT 200, ACTIVE false) -> cu :: Counter
               -> sw :: IPClassifier(dst 198.51.100.1, dst 198.51.100.2, -);
             sw[0] -> ca :: Counter -> Discard; sw[1] -> cb :: Counter -> Discard; sw[2] -> cc :: Counter -> Discard;
             pm :: PluginManager;
             Script(wait 1, write u.active true, wait 1, stop);",
            &registry(),
            true,
        )
        .unwrap();
        // Every flow through a Null instance (so each has a flow number);
        // the third through Paint(2, 20): weight 2.
        let n = r.read_handler("pm.create", "Null").unwrap();
        let w = r.read_handler("pm.create", "Paint 2, 20").unwrap();
        r.write_handler("pm.bind", &format!("sched {n} * 198.51.100.0/30 * * * *"))
            .unwrap();
        r.write_handler("pm.bind", &format!("sched {w} * 198.51.100.3 * * * *"))
            .unwrap();
        r.run();
        let bytes = |c: &str| -> i64 {
            testing::read(&r, &format!("{c}.byte_count"))
                .parse()
                .unwrap()
        };
        let (a, b, c) = (bytes("ca"), bytes("cb"), bytes("cc"));
        eprintln!("FlowDRR bytes by flow: {a} {b} {c}");
        assert_eq!(testing::read(&r, "cu.count"), "200");
        assert!(a > 0 && b > 0 && c > 0, "{a} {b} {c}");
        // One round: QUANTUM 300 per unit of weight; shares within a
        // round of 1 : 1 : 2.
        assert!((a - b).abs() <= 600, "equal weights, equal bytes: {a} {b}");
        assert!(
            (c - 2 * b).abs() <= 1200,
            "weight 2, twice the bytes: {b} {c}"
        );
        assert_eq!(testing::read(&r, "s.drops"), "0");
        assert_eq!(testing::read(&r, "s.flows"), "3");
    }

    #[test]
    fn bounded_drops_counted() {
        let r = testing::run(
            "InfiniteSource(LIMIT 50, STOP true) -> s :: FlowDRR(CAPACITY 10) -> Idle;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.length"), "10");
        assert_eq!(testing::read(&r, "s.drops"), "40");
        assert_eq!(testing::read(&r, "s.flows"), "1");
        let e = testing::build(
            "Idle -> FlowDRR(WEIGHT_ANNO 100) -> Idle;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("WEIGHT_ANNO"), "{e}");
    }
}
