//! # ThreadSafeQueue
//!
//! `ThreadSafeQueue([CAPACITY])`
//!
//! **Category:** storage (threads). Stores packets in a FIFO queue that
//! several threads may push to and pull from at the same time.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores incoming packets in a first-in-first-out queue. Drops incoming
//! packets if the queue already holds CAPACITY packets; dropped packets
//! leave on output 1 when it exists.
//!
//! This is the queue to put between threads: a path from a source on one
//! thread ending in a ThreadSafeQueue, and a path pulling from it on
//! another (see StaticThreadSched). Pushes and pulls do not take the
//! element: any number of threads may push and pull at once (the router
//! calls its thread-safe ports), and a pusher never waits for a puller.
//! In every other respect it behaves like Queue, notifiers included: its
//! "empty" notifier puts the pulling task to sleep some pulls after the
//! queue empties (on whatever thread that task runs) and a push into the
//! empty queue wakes it; its "full" notifier puts pushers such as
//! InfiniteSource to sleep while the queue is full and a pull wakes them.
//!
//! One difference from Click: the "full" notifier sleeps as soon as the
//! queue has no room for another batch as large as the largest pushed so
//! far (Click's, which sees one packet at a time, when the queue is full),
//! and a pull wakes it once there is room for such a batch. So a source
//! pushing BURST packets at a time sleeps instead of overflowing the queue
//! with its next burst; with one packet per push the two are the same.
//!
//! When the puller runs on another thread than the pusher, its notifier
//! sleeps only after 512 pulls found the queue empty (about 10-30 us)
//! instead of Click's 9: waking a sleeping thread costs the pusher a system
//! call, which would otherwise come every few packets whenever the puller is
//! the faster side.
//!
//! Packets cross threads in the batches they were pushed in: a pusher
//! hands over a whole batch with one operation on a lock-free ring
//! (`crossbeam-queue`'s `ArrayQueue`), and a puller takes batches until it
//! has what it asked for, keeping the rest of the last one for its next
//! pull.
//!
//! Keywords:
//!
//! * `CAPACITY` (unsigned integer): the most packets held at once.
//!   Default 1000.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `length` (read): packets now queued.
//! * `highwater_length` (read): the most packets ever queued at once.
//! * `capacity` (read/write): CAPACITY. Writing a smaller capacity discards
//!   the newest packets past it; a larger one wakes sleeping pushers.
//! * `drops` (read): packets dropped so far.
//! * `reset_counts` (write): resets `drops` and `highwater_length`.
//! * `reset` (write): empties the queue (the packets leave on output 1
//!   when it exists).
//!
//! ## Examples
//!
//! ```text
//! src :: InfiniteSource -> q :: ThreadSafeQueue(1000) -> uq :: Unqueue -> Discard;
//! StaticThreadSched(src 0, uq 1);
//! ```
//!
//! ## See also
//!
//! Queue, MSQueue, CPUQueue, StaticThreadSched, Unqueue

use std::collections::VecDeque;
use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crossbeam_queue::ArrayQueue;
use rclick_core::{
    ConcurrentPorts, ConfigureCx, Ctx, Element, HandlerDef, Notifier, Packet, PacketBatch,
};

/// Click's default capacity, and the failed pulls tolerated before the
/// "empty" notifier goes to sleep: Queue's.
pub use crate::queues::storage::DEFAULT_CAPACITY;
use crate::queues::storage::{parse_capacity, H, SLEEPINESS_TRIGGER};
/// Failed pulls tolerated for a puller on another thread than the last pusher: about
/// 10-30 us of pulling an empty queue.
const CROSS_THREAD_SLEEPINESS_TRIGGER: u32 = 512;

/// The batches in the queue. It has one slot per packet of capacity
/// (every batch in it holds at least one packet), so its slots never run
/// out before the packet count reaches the capacity.
type Ring = ArrayQueue<PacketBatch>;

fn new_ring(capacity: usize) -> Arc<Ring> {
    Arc::new(ArrayQueue::new(capacity.max(1)))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Up to `max` packets, oldest first: the `leftover` of the last batch
/// taken, then batches from the `ring`; what a pull does not need of the
/// last batch it takes stays in `leftover`.
fn take_packets(ring: &Ring, leftover: &mut VecDeque<Packet>, max: usize) -> PacketBatch {
    let mut out = PacketBatch::new();
    while out.len() < max {
        match leftover.pop_front() {
            Some(p) => out.push(p),
            None => break,
        }
    }
    while out.len() < max {
        let Some(mut b) = ring.pop() else { break };
        let want = max - out.len();
        if b.len() <= want {
            out.append(&mut b);
        } else {
            let mut i = 0;
            b.drain_each(|p| {
                if i < want {
                    out.push(p);
                } else {
                    leftover.push_back(p);
                }
                i += 1;
            });
        }
    }
    out
}

/// What pushers share, taken by one pusher at a time. Only pushers and
/// the rare capacity change touch it, so with one pushing thread it stays
/// in that thread's cache.
struct Producer {
    ring: Arc<Ring>,
    capacity: usize,
    /// [`ConsumerLine::dequeued`] as last read: the queue holds at most
    /// `enqueued - dequeued_seen` packets. Read again only when that bound
    /// says the queue may be full or past its high-water mark, so a pusher
    /// seldom reads the line the puller writes.
    dequeued_seen: u64,
}

/// What pullers share, taken by one puller at a time.
struct Consumer {
    ring: Arc<Ring>,
    /// The rest of a batch a pull took from the ring but did not need;
    /// it comes before anything in the ring.
    leftover: VecDeque<Packet>,
    /// Consecutive pulls that found nothing.
    sleepiness: u32,
}

#[repr(align(64))]
struct ProducerLine {
    lock: Mutex<Producer>,
    /// Packets ever queued (written under `lock`).
    enqueued: AtomicU64,
    highwater: AtomicU64,
    drops: AtomicU64,
    /// The largest batch pushed so far (at most the capacity): the "full"
    /// notifier sleeps while there is no room for another such batch.
    burst: AtomicU64,
    /// The thread that pushed last.
    pusher: AtomicUsize,
}

#[repr(align(64))]
struct ConsumerLine {
    lock: Mutex<Consumer>,
    /// Packets ever pulled (written under `lock`).
    dequeued: AtomicU64,
}

/// The queue itself: the element's thread-safe ports, which the element
/// keeps too for its handlers. Locks are always taken producer first.
pub struct Shared {
    producer: ProducerLine,
    consumer: ConsumerLine,
    /// CAPACITY, for handlers (changed only with both locks held).
    capacity: AtomicUsize,
    empty_note: Notifier,
    full_note: Notifier,
}

impl Shared {
    fn new(capacity: usize) -> Shared {
        let ring = new_ring(capacity);
        Shared {
            producer: ProducerLine {
                lock: Mutex::new(Producer {
                    ring: ring.clone(),
                    capacity,
                    dequeued_seen: 0,
                }),
                enqueued: AtomicU64::new(0),
                highwater: AtomicU64::new(0),
                drops: AtomicU64::new(0),
                burst: AtomicU64::new(1),
                pusher: AtomicUsize::new(usize::MAX),
            },
            consumer: ConsumerLine {
                lock: Mutex::new(Consumer {
                    ring,
                    leftover: VecDeque::new(),
                    sleepiness: 0,
                }),
                dequeued: AtomicU64::new(0),
            },
            capacity: AtomicUsize::new(capacity),
            empty_note: Notifier::new(false),
            full_note: Notifier::new(true),
        }
    }

    /// Packets now queued.
    pub fn len(&self) -> usize {
        let d = self.consumer.dequeued.load(Ordering::Acquire);
        let e = self.producer.enqueued.load(Ordering::Acquire);
        e.saturating_sub(d) as usize
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// CAPACITY.
    pub fn capacity(&self) -> usize {
        self.capacity.load(Ordering::Relaxed)
    }

    /// Packets dropped so far.
    pub fn drops(&self) -> u64 {
        self.producer.drops.load(Ordering::Relaxed)
    }

    /// Queues what fits of `batch`; the rest is dropped (output 1).
    fn push_batch(&self, mut batch: PacketBatch, cx: &mut Ctx) {
        let n = batch.len() as u64;
        if n == 0 {
            return;
        }
        let mut dropped = PacketBatch::new();
        let (queued, wake_full) = {
            let mut p = lock(&self.producer.lock);
            let pr = &self.producer;
            if pr.pusher.load(Ordering::Relaxed) != cx.thread_id() {
                pr.pusher.store(cx.thread_id(), Ordering::Relaxed);
            }
            let enqueued = pr.enqueued.load(Ordering::Relaxed);
            let cap = p.capacity as u64;
            let mut len = enqueued - p.dequeued_seen;
            let mut fresh = false;
            if len + n > cap {
                p.dequeued_seen = self.consumer.dequeued.load(Ordering::Acquire);
                len = enqueued - p.dequeued_seen;
                fresh = true;
            }
            let room = cap.saturating_sub(len);
            if n > room {
                let keep = batch.split_front(room as usize);
                dropped = std::mem::replace(&mut batch, keep);
            }
            let mut k = batch.len() as u64;
            if k > 0 {
                if let Err(mut lost) = p.ring.push(batch) {
                    // Cannot happen (one slot per packet of capacity);
                    // counted as drops rather than trusted.
                    dropped.append(&mut lost);
                    k = 0;
                }
            }
            let mut wake_full = false;
            if k > 0 {
                let total = enqueued + k;
                pr.enqueued.store(total, Ordering::Release);
                len += k;
                let hint = pr.burst.load(Ordering::Relaxed);
                if n.min(cap) > hint {
                    pr.burst.store(n.min(cap), Ordering::Relaxed);
                }
                let hint = hint.max(n).min(cap);
                let highwater = pr.highwater.load(Ordering::Relaxed);
                if (len > highwater || len + hint > cap) && !fresh {
                    p.dequeued_seen = self.consumer.dequeued.load(Ordering::Acquire);
                    len = total - p.dequeued_seen;
                }
                if len > highwater {
                    pr.highwater.store(len, Ordering::Relaxed);
                }
                if len + hint > cap {
                    // No room for another batch like the largest so far:
                    // sleep, then look again, in case a pull made room
                    // (and woke nobody) meanwhile, as Click's
                    // FullNoteQueue does.
                    self.full_note.set_active(false);
                    fence(Ordering::SeqCst);
                    let d = self.consumer.dequeued.load(Ordering::Acquire);
                    wake_full = total - d + hint <= cap;
                }
            }
            (k > 0, wake_full)
        };
        if queued {
            // Pairs with the fence in `pull_batch` before it looks at the
            // ring again: either the puller sees these packets or this
            // pusher sees the notifier asleep and wakes it.
            fence(Ordering::SeqCst);
            if !self.empty_note.active() {
                cx.wake_notifier(&self.empty_note);
            }
        }
        if wake_full {
            cx.wake_notifier(&self.full_note);
        }
        if !dropped.is_empty() {
            let d = dropped.len() as u64;
            if self.producer.drops.fetch_add(d, Ordering::Relaxed) == 0 && self.capacity() > 0 {
                cx.log(format!("{}: overflow", cx.declaration()));
            }
            cx.checked_push(1, dropped);
        }
    }

    /// Takes up to `max` packets, oldest first.
    fn pull_batch(&self, max: usize, cx: &mut Ctx) -> PacketBatch {
        let out;
        if max == 0 {
            return PacketBatch::new();
        }
        let mut c = lock(&self.consumer.lock);
        let Consumer {
            ring,
            leftover,
            sleepiness,
        } = &mut *c;
        out = take_packets(ring, leftover, max);
        if !out.is_empty() {
            *sleepiness = 0;
            self.consumer
                .dequeued
                .fetch_add(out.len() as u64, Ordering::Release);
            drop(c);
            // Pairs with the fence in `push_batch` after the full notifier
            // went to sleep: either that pusher sees this room or this
            // puller sees the notifier asleep and wakes it.
            fence(Ordering::SeqCst);
            if !self.full_note.active() && self.has_room_for_a_batch() {
                cx.wake_notifier(&self.full_note);
            }
            return out;
        }
        // A puller on another thread than the pusher keeps pulling longer
        // before its notifier sleeps: waking a sleeping thread costs the
        // pusher a system call (and the sleeper a context switch), and
        // would otherwise happen every few packets when this side is the
        // faster one.
        if *sleepiness < SLEEPINESS_TRIGGER
            || (*sleepiness < CROSS_THREAD_SLEEPINESS_TRIGGER
                && self.producer.pusher.load(Ordering::Relaxed) != cx.thread_id())
        {
            *sleepiness += 1;
            return out;
        }
        if self.empty_note.active() {
            // As Click's FullNoteQueue: sleep, then look again, in case a
            // push came in (and woke nobody) meanwhile.
            self.empty_note.set_active(false);
            fence(Ordering::SeqCst);
            let again = !leftover.is_empty() || !ring.is_empty();
            drop(c);
            if again {
                cx.wake_notifier(&self.empty_note);
            }
        }
        out
    }

    /// Every queued packet, oldest first, with both locks held by the
    /// caller; the counters say the queue is empty afterwards.
    fn drain_locked(&self, p: &mut Producer, c: &mut Consumer) -> PacketBatch {
        let mut all = PacketBatch::with_capacity(c.leftover.len());
        all.extend(c.leftover.drain(..));
        while let Some(mut b) = c.ring.pop() {
            all.append(&mut b);
        }
        let d = self.consumer.dequeued.load(Ordering::Relaxed) + all.len() as u64;
        self.consumer.dequeued.store(d, Ordering::Release);
        self.producer.enqueued.store(d, Ordering::Release);
        p.dequeued_seen = d;
        all
    }

    /// Replaces the ring by one of `capacity` slots holding `keep`
    /// (at most `capacity` packets), with both locks held by the caller.
    fn refill_locked(
        &self,
        p: &mut Producer,
        c: &mut Consumer,
        capacity: usize,
        keep: PacketBatch,
    ) {
        let ring = new_ring(capacity);
        let n = keep.len() as u64;
        if n > 0 && ring.push(keep).is_err() {
            unreachable!("a new ring has a free slot");
        }
        p.ring = ring.clone();
        p.capacity = capacity;
        c.ring = ring;
        c.leftover.clear();
        let d = self.consumer.dequeued.load(Ordering::Relaxed);
        self.producer.enqueued.store(d + n, Ordering::Release);
        self.capacity.store(capacity, Ordering::Relaxed);
    }

    /// Sets the capacity; a smaller one discards the newest packets past
    /// it (as Queue does).
    fn set_capacity(&self, capacity: usize) {
        let mut p = lock(&self.producer.lock);
        let mut c = lock(&self.consumer.lock);
        if capacity == p.capacity {
            return;
        }
        let mut all = self.drain_locked(&mut p, &mut c);
        all.truncate(capacity);
        self.refill_locked(&mut p, &mut c, capacity, all);
    }

    /// Whether the queue has room for a batch as large as the largest
    /// pushed so far.
    fn has_room_for_a_batch(&self) -> bool {
        let cap = self.capacity() as u64;
        let hint = self
            .producer
            .burst
            .load(Ordering::Relaxed)
            .clamp(1, cap.max(1));
        self.len() as u64 + hint <= cap
    }

    /// Wakes the pushers if there is room.
    fn wake_if_room(&self, cx: &mut Ctx) {
        if !self.full_note.active() && self.has_room_for_a_batch() {
            cx.wake_notifier(&self.full_note);
        }
    }
}

impl ConcurrentPorts for Shared {
    fn push(&self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.push_batch(batch, cx);
    }

    fn pull(&self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        self.pull_batch(max, cx)
    }
}

/// The ThreadSafeQueue element (also MSQueue, its deprecated name).
pub struct ThreadSafeQueue {
    class: &'static str,
    shared: Arc<Shared>,
}

/// Makes a ThreadSafeQueue.
pub fn new() -> Box<dyn Element> {
    Box::new(ThreadSafeQueue::with_class("ThreadSafeQueue"))
}

impl ThreadSafeQueue {
    /// A queue answering to class name `class` (ThreadSafeQueue or MSQueue).
    pub fn with_class(class: &'static str) -> ThreadSafeQueue {
        ThreadSafeQueue {
            class,
            shared: Arc::new(Shared::new(DEFAULT_CAPACITY)),
        }
    }

    /// The queue's state, as the router's threads share it.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }
}

impl Element for ThreadSafeQueue {
    fn class_name(&self) -> &'static str {
        self.class
    }

    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn processing(&self) -> &'static str {
        "h/lh"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let cap = parse_capacity(conf)?;
        self.shared.set_capacity(cap);
        Ok(())
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn live_reconfigure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let cap = parse_capacity(conf)?;
        self.shared.set_capacity(cap);
        Ok(())
    }

    fn reconfigured(&mut self, cx: &mut Ctx) {
        self.shared.wake_if_room(cx);
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.shared.push_batch(batch, cx);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        self.shared.pull_batch(max, cx)
    }

    fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
        Some(self.shared.clone())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let s = &self.shared;
        Ok(match H::from_id(id) {
            Some(H::Length) => s.len().to_string(),
            Some(H::Highwater) => s.producer.highwater.load(Ordering::Relaxed).to_string(),
            Some(H::Capacity) => s.capacity().to_string(),
            Some(H::Drops) => s.drops().to_string(),
            Some(H::ResetCounts | H::Reset) | None => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        let s = &self.shared;
        match H::from_id(id) {
            Some(H::ResetCounts) => {
                s.producer.drops.store(0, Ordering::Relaxed);
                let _p = lock(&s.producer.lock);
                s.producer
                    .highwater
                    .store(s.len() as u64, Ordering::Relaxed);
                Ok(())
            }
            Some(H::Reset) => {
                let all = {
                    let mut p = lock(&s.producer.lock);
                    let mut c = lock(&s.consumer.lock);
                    s.drain_locked(&mut p, &mut c)
                };
                s.wake_if_room(cx);
                if !all.is_empty() {
                    cx.checked_push(1, all);
                }
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.shared.empty_note.clone())
    }

    fn full_notifier(&self) -> Option<Notifier> {
        Some(self.shared.full_note.clone())
    }

    fn notifier_passthrough(&self) -> bool {
        false
    }

    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let Some(old) = old.downcast_mut::<ThreadSafeQueue>() else {
            return;
        };
        let s = &self.shared;
        if !s.is_empty() {
            cx.log(format!(
                "{}: already have packets enqueued, can't take state",
                cx.declaration()
            ));
            return;
        }
        let mut all = {
            let o = &old.shared;
            let mut p = lock(&o.producer.lock);
            let mut c = lock(&o.consumer.lock);
            o.drain_locked(&mut p, &mut c)
        };
        let cap = s.capacity();
        if all.len() > cap {
            cx.log(format!(
                "{}: some packets lost (old length {}, new capacity {})",
                cx.declaration(),
                all.len(),
                cap
            ));
            s.producer
                .drops
                .fetch_add((all.len() - cap) as u64, Ordering::Relaxed);
            all.truncate(cap);
        }
        let n = all.len() as u64;
        {
            let mut p = lock(&s.producer.lock);
            let mut c = lock(&s.consumer.lock);
            s.refill_locked(&mut p, &mut c, cap, all);
        }
        s.producer.highwater.store(n, Ordering::Relaxed);
        if n > 0 {
            let e = s.empty_note.clone();
            cx.wake_notifier(&e);
        }
        if cap > 0 && !s.has_room_for_a_batch() {
            s.full_note.set_active(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::{queue_checks, test_registry};
    use crate::threads::{build_threads, wait_for, wait_until, while_running};
    use rclick_core::testing;

    #[test]
    fn full_queue_puts_source_to_sleep() {
        let r = queue_checks::full_queue_puts_source_to_sleep("ThreadSafeQueue");
        assert_eq!(testing::read(&r, "q.length"), "5");
        assert_eq!(testing::read(&r, "q.highwater_length"), "5");
        assert_eq!(testing::read(&r, "q.class"), "ThreadSafeQueue");
    }

    #[test]
    fn capacity_changes_wake_and_drop() {
        queue_checks::capacity_changes_wake_and_drop("ThreadSafeQueue");
    }

    #[test]
    fn overflow_goes_to_output_1_and_reset() {
        let r = testing::run(
            "InfiniteSource(LIMIT 10, BURST 10) -> q :: ThreadSafeQueue(4);
             q[0] -> Idle; q[1] -> d :: Counter -> Discard;
             At(1, read q.drops, read q.length, read d.count, write q.reset, read q.length, read d.count);
             At(2, read q.highwater_length, write q.reset_counts, read q.drops, read q.highwater_length);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            [
                "q :: ThreadSafeQueue: overflow",
                "q.drops: 6",
                "q.length: 4",
                "d.count: 6",
                "q.length: 0",
                "d.count: 10",
                "q.highwater_length: 4",
                "q.drops: 0",
                "q.highwater_length: 0"
            ]
        );
        // Capacity 0 drops everything, without the overflow message.
        let r = testing::run(
            "InfiniteSource(LIMIT 3) -> q :: ThreadSafeQueue(0) -> Idle;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.drops"), "3");
        assert!(r.take_log().is_empty());
        assert!(testing::build(
            "Idle -> ThreadSafeQueue(-1) -> Discard;",
            &test_registry(),
            true
        )
        .is_err());
    }

    #[test]
    fn pulls_split_pushed_batches_in_order() {
        // Batches of 5 pulled 2 at a time: the rest of each batch waits for
        // the next pull, ahead of later batches.
        let r = testing::run(
            "InfiniteSource(LIMIT 20, BURST 5) -> q :: ThreadSafeQueue(20)
               -> u :: Unqueue(BURST 2) -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "20");
        assert_eq!(testing::read(&r, "q.length"), "0");
    }

    #[test]
    fn take_packets_keeps_order_across_batches() {
        use rclick_core::{Packet, PacketBatch};
        use std::collections::VecDeque;
        let ring = super::new_ring(16);
        let mut tag = 0u8;
        for n in [3, 1, 4] {
            let mut b = PacketBatch::new();
            for _ in 0..n {
                b.push(Packet::from_slice(&[tag]));
                tag += 1;
            }
            ring.push(b).unwrap();
        }
        let mut leftover = VecDeque::new();
        let mut got = Vec::new();
        for max in [2, 2, 1, 5, 3] {
            let b = super::take_packets(&ring, &mut leftover, max);
            got.push(b.iter().map(|p| p.data()[0]).collect::<Vec<u8>>());
        }
        assert_eq!(
            got,
            [vec![0, 1], vec![2, 3], vec![4], vec![5, 6, 7], vec![]]
        );
    }

    /// A producer on thread 0 and a consumer on thread 1: exact counts, no
    /// loss, whatever the batch size and however small the queue.
    #[test]
    fn producer_and_consumer_on_two_threads_lose_nothing() {
        for (burst, cap) in [(1, 16), (32, 64), (32, 1000), (7, 50)] {
            let r = build_threads(
                &format!(
                    "src :: InfiniteSource(LIMIT 200000, BURST {burst}) -> q :: ThreadSafeQueue({cap})
                       -> uq :: Unqueue(BURST {burst}) -> c :: Counter -> Discard;
                     StaticThreadSched(src 0, uq 1);"
                ),
                2,
            );
            let q = r.find("q").unwrap();
            assert_eq!(r.element_owner(q), None, "shared by both threads");
            assert_eq!(r.element_owner(r.find("c").unwrap()), Some(1));
            assert_eq!(r.element_owner(r.find("src").unwrap()), Some(0));
            let count = while_running(&r, |r| wait_for(r, "c.count", "200000"));
            assert_eq!(count, "200000", "burst {burst}, capacity {cap}");
            assert_eq!(testing::read(&r, "q.drops"), "0", "burst {burst}");
            assert_eq!(testing::read(&r, "q.length"), "0");
            let hw: usize = testing::read(&r, "q.highwater_length").parse().unwrap();
            assert!(hw >= burst && hw <= cap, "highwater {hw}");
        }
    }

    /// Two producers on two threads into one queue: every packet is
    /// pulled or counted as dropped. (Two pushers that both saw room may
    /// together overflow a nearly full queue, as in Click.)
    #[test]
    fn two_producers() {
        let r = build_threads(
            "a :: InfiniteSource(LIMIT 100000, BURST 3) -> q :: ThreadSafeQueue(100);
             b :: InfiniteSource(LIMIT 100000, BURST 5) -> q;
             q -> uq :: Unqueue(BURST 16) -> c :: Counter -> Discard;
             StaticThreadSched(a 0, b 1, uq 1);",
            2,
        );
        let total = |r: &rclick_core::Router| {
            let n = |h| testing::read(r, h).parse::<u64>().unwrap();
            n("c.count") + n("q.drops")
        };
        let seen = while_running(&r, |r| {
            wait_until(|| total(r) == 200_000);
            total(r)
        });
        assert_eq!(seen, 200_000);
        assert_eq!(testing::read(&r, "q.length"), "0");
    }

    /// The consumer's task sleeps once the queue is empty, and a push from
    /// the other thread wakes it.
    #[test]
    fn notifiers_wake_the_consumer_across_threads() {
        let r = build_threads(
            "src :: InfiniteSource(LIMIT 100, BURST 4) -> q :: ThreadSafeQueue
               -> uq :: Unqueue -> c :: Counter -> Discard;
             StaticThreadSched(src 0, uq 1);",
            2,
        );
        let log = while_running(&r, |r| {
            let mut log = vec![wait_for(r, "c.count", "100")];
            log.push(wait_for(r, "uq.scheduled", "false"));
            log.push(r.read_handler("q.length", "").unwrap());
            log.push(wait_for(r, "src.scheduled", "false"));
            r.write_handler("src.limit", "250").unwrap();
            log.push(wait_for(r, "c.count", "250"));
            log.push(wait_for(r, "uq.scheduled", "false"));
            log
        });
        assert_eq!(log, ["100", "false", "0", "false", "250", "false"]);
        assert_eq!(testing::read(&r, "uq.home_thread"), "1");
        assert_eq!(testing::read(&r, "q.drops"), "0");
    }
}
