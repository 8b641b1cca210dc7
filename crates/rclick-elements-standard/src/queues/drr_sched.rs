//! # DRRSched
//!
//! `DRRSched([QUANTUM])`
//!
//! **Category:** scheduling. Pulls from inputs with deficit round robin
//! scheduling.
//!
//! **Ports:** any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! Schedules packets with deficit round robin (Shreedhar and Varghese,
//! "Efficient Fair Queuing using Deficit Round Robin", SIGCOMM 1995), as
//! Click's DRRSched does. Each input has a deficit counter. A pull looks
//! at each input at most once, starting with the *same* input it stopped
//! at last time: the input's waiting packet (held from an earlier visit)
//! or a new one pulled from it is sent if its length fits the deficit (the
//! deficit shrinks by the length); a packet that does not fit is held for
//! later; an input with no packet has its deficit reset to 0. Moving on to
//! the next input adds QUANTUM bytes to that input's deficit. Over time
//! every busy input gets the same number of bytes, whatever its packet
//! sizes.
//!
//! Inputs whose upstream queues say they are empty are not pulled from.
//! Notification passes through (the output's empty signal is its inputs').
//!
//! Keywords:
//!
//! * `QUANTUM` (unsigned integer, default 500): bytes added to an input's
//!   deficit each round.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! None besides the standard ones.
//!
//! ## Examples
//!
//! ```text
//! q1 :: Queue -> [0] s :: DRRSched(1500); q2 :: Queue -> [1] s;
//! s -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! PrioSched, StrideSched, RoundRobinSched

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, InitCx, Packet, PacketBatch};

use super::inputs::InputSignals;

/// The DRRSched element.
pub struct DRRSched {
    quantum: u32,
    /// A packet held from an earlier visit, per input.
    head: Vec<Option<Packet>>,
    deficit: Vec<u32>,
    inputs: InputSignals,
    next: usize,
}

impl Default for DRRSched {
    fn default() -> DRRSched {
        DRRSched {
            quantum: 500,
            head: Vec::new(),
            deficit: Vec::new(),
            inputs: InputSignals::default(),
            next: 0,
        }
    }
}

impl DRRSched {
    /// Click's `pull`: one packet, or none after one look at every input.
    fn pull_one(&mut self, cx: &mut Ctx) -> Option<Packet> {
        let n = self.head.len();
        for _ in 0..n {
            let i = self.next;
            let p = match self.head[i].take() {
                Some(p) => Some(p),
                None => self.inputs.pull_one(i, cx),
            };
            match p {
                None => self.deficit[i] = 0,
                Some(p) if p.len() as u64 <= self.deficit[i] as u64 => {
                    self.deficit[i] -= p.len() as u32;
                    return Some(p);
                }
                Some(p) => self.head[i] = Some(p),
            }
            self.next = (i + 1) % n;
            let d = &mut self.deficit[self.next];
            *d = d.saturating_add(self.quantum);
        }
        None
    }
}

impl Element for DRRSched {
    fn class_name(&self) -> &'static str {
        "DRRSched"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut quantum: u32 = 500;
        Args::new(conf)
            .read_p("QUANTUM", &mut quantum)
            .complete()
            .map_err(|e| e.to_string())?;
        self.quantum = quantum;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let n = cx.ninputs();
        self.inputs.initialize(cx);
        self.head = (0..n).map(|_| None).collect();
        self.deficit = vec![0; n];
        self.next = 0;
        Ok(())
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut out = PacketBatch::new();
        while out.len() < max {
            match self.pull_one(cx) {
                Some(p) => out.push(p),
                None => break,
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    /// Inputs of 100- and 300-byte packets, QUANTUM 300: each round
    /// gives each input 300 bytes, three small packets or one big one.
    /// The numbers are the reference Click's for this configuration: the
    /// first pull finds input 0's deficit 0 and holds its packet, so input
    /// 1 sends first; 6 rounds of 1 big + 3 small = 24 packets; each queue
    /// is short of what was sent by one packet held in the scheduler.
    #[test]
    fn equal_bytes_per_round() {
        let r = testing::run(
            "a :: InfiniteSource(LENGTH 100, LIMIT 30) -> qa :: Queue(100) -> [0] s :: DRRSched(300);
             b :: InfiniteSource(LENGTH 300, LIMIT 30) -> qb :: Queue(100) -> [1] s;
             Idle -> [2] s;
             s -> u :: Unqueue(LIMIT 24, ACTIVE false) -> c :: Counter -> Discard;
             At(0.1, write u.active true);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "24");
        assert_eq!(testing::read(&r, "qa.length"), "12");
        assert_eq!(testing::read(&r, "qb.length"), "23");
        assert_eq!(
            testing::read(&r, "c.byte_count"),
            (18 * 100 + 6 * 300).to_string()
        );
    }

    #[test]
    fn bad_quantum() {
        let e = testing::build(
            "Idle -> Queue -> DRRSched(-5) -> Discard;",
            &test_registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("QUANTUM"), "{e}");
    }
}
