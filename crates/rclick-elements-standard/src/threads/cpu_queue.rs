//! # CPUQueue
//!
//! `CPUQueue([CAPACITY])`
//!
//! **Category:** threads. Stores packets in one FIFO queue per thread.
//!
//! **Ports:** one push input; one or more pull outputs.
//!
//! ## Description
//!
//! Stores incoming packets in first-in-first-out queues, one for each
//! router thread: a packet goes into the queue of the thread that pushes
//! it, so pushers on different threads never touch the same queue. A
//! packet is dropped when its thread's queue already holds CAPACITY
//! packets. Pulls (on any output; they are all alike) take packets from
//! the queues in turn, one queue after the other, starting after the queue
//! the last packet came from, as if each packet were pulled on its own.
//!
//! Like Click's CPUQueue it has no notifiers: elements pulling from it
//! poll. Any number of threads may push and pull at once (the router
//! calls its thread-safe ports); each queue is a lock-free ring
//! (`crossbeam-queue`'s `ArrayQueue`).
//!
//! Keywords:
//!
//! * `CAPACITY` (unsigned integer): the most packets each thread's queue
//!   holds. Default 128.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `capacity` (read): CAPACITY.
//! * `drops` (read): packets dropped so far.
//!
//! ## Examples
//!
//! ```text
//! pd0 :: InfiniteSource -> q :: CPUQueue;  pd1 :: InfiniteSource -> q;
//! q -> uq :: Unqueue -> Discard;
//! StaticThreadSched(pd0 0, pd1 1);
//! ```
//!
//! ## See also
//!
//! ThreadSafeQueue, Queue, CPUSwitch

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use crossbeam_queue::ArrayQueue;
use rclick_core::args::Args;
use rclick_core::{
    ConcurrentPorts, ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch,
};

use super::Line;

/// Click's default capacity.
pub const DEFAULT_CAPACITY: usize = 128;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Capacity = read("capacity"),
        Drops = read("drops"),
    }
}

/// The queues, shared by every thread.
pub struct Queues {
    /// One per router thread; empty when CAPACITY is 0 (every packet is
    /// dropped).
    queues: Vec<Line<ArrayQueue<Packet>>>,
    /// The queue the next pull starts at.
    next: AtomicUsize,
    drops: AtomicU64,
}

impl Queues {
    fn new(nthreads: usize, capacity: usize) -> Queues {
        let queues = if capacity == 0 {
            Vec::new()
        } else {
            (0..nthreads.max(1))
                .map(|_| Line(ArrayQueue::new(capacity)))
                .collect()
        };
        Queues {
            queues,
            next: AtomicUsize::new(0),
            drops: AtomicU64::new(0),
        }
    }

    fn push_batch(&self, mut batch: PacketBatch, cx: &mut Ctx) {
        let mut dropped = 0u64;
        match self.queues.len() {
            0 => dropped = batch.len() as u64,
            n => {
                let q = &self.queues[cx.thread_id() % n];
                batch.drain_each(|p| {
                    if q.push(p).is_err() {
                        dropped += 1;
                    }
                });
            }
        }
        if dropped > 0 {
            self.drops.fetch_add(dropped, Ordering::Relaxed);
        }
    }

    fn pull_batch(&self, max: usize) -> PacketBatch {
        let n = self.queues.len();
        let mut out = PacketBatch::new();
        if n == 0 || max == 0 {
            return out;
        }
        let mut i = self.next.load(Ordering::Relaxed) % n;
        let mut next = None;
        let mut misses = 0;
        while out.len() < max && misses < n {
            let got = self.queues[i].pop();
            i = if i + 1 == n { 0 } else { i + 1 };
            match got {
                Some(p) => {
                    out.push(p);
                    next = Some(i);
                    misses = 0;
                }
                None => misses += 1,
            }
        }
        if let Some(i) = next {
            self.next.store(i, Ordering::Relaxed);
        }
        out
    }
}

impl ConcurrentPorts for Queues {
    fn push(&self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.push_batch(batch, cx);
    }
    fn pull(&self, _port: usize, max: usize, _cx: &mut Ctx) -> PacketBatch {
        self.pull_batch(max)
    }
}

/// The CPUQueue element.
pub struct CpuQueue {
    capacity: usize,
    queues: Arc<Queues>,
}

/// Makes a CPUQueue.
pub fn new() -> Box<dyn Element> {
    Box::new(CpuQueue {
        capacity: DEFAULT_CAPACITY,
        queues: Arc::new(Queues::new(1, DEFAULT_CAPACITY)),
    })
}

impl Element for CpuQueue {
    fn class_name(&self) -> &'static str {
        "CPUQueue"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/l"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut cap = DEFAULT_CAPACITY as u32;
        Args::new(conf)
            .read_p("CAPACITY", &mut cap)
            .complete()
            .map_err(|e| e.to_string())?;
        self.capacity = cap as usize;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        // The router asks for the ports after every element initialized.
        self.queues = Arc::new(Queues::new(cx.nthreads(), self.capacity));
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.queues.push_batch(batch, cx);
    }

    fn pull(&mut self, _port: usize, max: usize, _cx: &mut Ctx) -> PacketBatch {
        self.queues.pull_batch(max)
    }

    fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
        Some(self.queues.clone())
    }

    fn notifier_passthrough(&self) -> bool {
        false
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Capacity) => self.capacity.to_string(),
            Some(H::Drops) => self.queues.drops.load(Ordering::Relaxed).to_string(),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use crate::threads::build_threads;
    use rclick_core::testing;

    #[test]
    fn one_thread_fifo_capacity_and_drops() {
        let r = testing::run(
            "InfiniteSource(LIMIT 10, STOP true) -> x :: CPUQueue(4) -> Unqueue -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "10");
        assert_eq!(testing::read(&r, "x.drops"), "0");
        assert_eq!(testing::read(&r, "x.capacity"), "4");
        // BURST 6 into a queue of 4 that nobody empties: 2 dropped a run.
        let r = testing::run(
            "InfiniteSource(LIMIT 12, BURST 6, STOP true) -> x :: CPUQueue(4) -> Idle;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "x.drops"), "8");
        let r = testing::run(
            "InfiniteSource(LIMIT 10, STOP true) -> x :: CPUQueue(0) -> Unqueue -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "x.drops"), "10");
        assert_eq!(testing::read(&r, "c.count"), "0");
        assert_eq!(testing::read(&r, "x.capacity"), "0");
        assert!(
            testing::build("Idle -> CPUQueue(-1) -> Discard;", &test_registry(), true).is_err()
        );
    }

    #[test]
    fn default_capacity_and_outputs() {
        let r = testing::build(
            "Idle -> x :: CPUQueue; x[0] -> Discard; x[1] -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "x.capacity"), "128");
        assert_eq!(testing::read(&r, "x.drops"), "0");
    }

    /// Two sources on two threads push into their own queues; one puller
    /// on thread 1 takes them in turn. Nothing is lost, and each queue
    /// overflows on its own (capacity is per thread).
    #[test]
    fn a_queue_per_pushing_thread() {
        let r = build_threads(
            "a :: InfiniteSource(LIMIT 20000, STOP true) -> ca :: Counter -> q :: CPUQueue(100000);
             b :: InfiniteSource(LIMIT 20000, STOP true) -> cb :: Counter -> q;
             q -> uq :: Unqueue(BURST 8) -> c :: Counter -> Discard;
             StaticThreadSched(a 0, b 1, uq 1);
             DriverManager(wait_stop, wait_stop, wait 0.05s, stop);",
            2,
        );
        r.run();
        assert_eq!(testing::read(&r, "ca.count"), "20000");
        assert_eq!(testing::read(&r, "cb.count"), "20000");
        assert_eq!(testing::read(&r, "q.drops"), "0");
        assert_eq!(testing::read(&r, "c.count"), "40000");

        // Capacity 10 per thread, nobody pulls: 10 kept per pushing thread.
        let r = build_threads(
            "a :: InfiniteSource(LIMIT 50, STOP true) -> q :: CPUQueue(10);
             b :: InfiniteSource(LIMIT 50, STOP true) -> q;
             q -> Idle;
             StaticThreadSched(a 0, b 1);
             DriverManager(wait_stop, wait_stop, stop);",
            2,
        );
        r.run();
        assert_eq!(testing::read(&r, "q.drops"), "80");
    }

    #[test]
    fn pulls_alternate_between_queues() {
        use rclick_core::{Packet, PacketBatch};
        let q = super::Queues::new(2, 8);
        for (i, tag) in [(0, 1u8), (0, 2), (1, 10), (1, 20), (1, 30)] {
            q.queues[i].push(Packet::from_slice(&[tag])).unwrap();
        }
        let order: Vec<u8> = (0..6)
            .flat_map(|_| q.pull_batch(1))
            .map(|p| p.data()[0])
            .collect();
        assert_eq!(order, [1, 10, 2, 20, 30]);
        for (i, tag) in [(0, 1u8), (0, 2), (1, 10)] {
            q.queues[i].push(Packet::from_slice(&[tag])).unwrap();
        }
        let b: PacketBatch = q.pull_batch(8);
        let order: Vec<u8> = b.iter().map(|p| p.data()[0]).collect();
        assert_eq!(order, [1, 10, 2]);
    }
}
