//! # CoDel
//!
//! `CoDel([CAPACITY, keywords TARGET, INTERVAL, MTU])`
//!
//! **Category:** aqm. A queue managed by Controlled Delay (RFC 8289). Not
//! in Click's tree.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores packets like Queue and drops at dequeue time according to
//! CoDel, following the pseudocode of RFC 8289: each packet's sojourn time
//! (from enqueue to dequeue) is measured; once it has stayed at or above
//! TARGET for a whole INTERVAL (and more than one MTU of bytes remains
//! queued), CoDel enters the dropping state, drops one packet, and drops
//! again at times spaced INTERVAL / sqrt(count) apart while the sojourn
//! time stays above TARGET. Leaving the dropping state and coming back
//! soon (within 16 intervals) resumes from the previous drop rate.
//!
//! Packets arriving at a full queue (CAPACITY) are dropped as well. Dropped
//! packets leave on output 1 if it exists, and are freed otherwise; both
//! kinds are counted.
//!
//! Keywords:
//!
//! * `CAPACITY` (unsigned integer, packets): default 1000.
//! * `TARGET` (time): acceptable standing delay; default 5ms.
//! * `INTERVAL` (time): the window over which the delay must stay above
//!   TARGET; about a worst-case round-trip time. Default 100ms.
//! * `MTU` (unsigned integer, bytes): the "maxpacket" of RFC 8289; CoDel
//!   does not drop when at most this many bytes are queued. Default 1500.
//!
//! Time is the router's clock, so simulated time drives it exactly.
//!
//! ## Annotations
//!
//! None used or set (the enqueue time is kept beside each packet).
//!
//! ## Handlers
//!
//! * `length`, `highwater_length`, `capacity` (read): as Queue's.
//! * `drops` (read): packets dropped because the queue was full.
//! * `codel_drops` (read): packets dropped by CoDel.
//! * `dropping` (read): whether CoDel is in its dropping state.
//! * `count` (read): CoDel's drop count in this dropping state.
//! * `target`, `interval` (read): the parameters.
//! * `bytes` (read): bytes queued.
//!
//! ## Examples
//!
//! ```text
//! ... -> CoDel(1000, TARGET 5ms, INTERVAL 100ms) -> BandwidthRatedUnqueue(10Mbps) -> ...
//! ```
//!
//! ## See also
//!
//! Queue, RED, AdaptiveRED
//!
//! K. Nichols, V. Jacobson, A. McGregor, J. Iyengar. Controlled Delay
//! Active Queue Management. RFC 8289, January 2018.

use std::collections::VecDeque;

use rclick_core::args::{Args, Interval};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Notifier, PacketBatch};

/// CoDel's queue and state machine over items of type `T`, with times in
/// nanoseconds. Kept apart from the element so it can be tested with
/// made-up times.
pub struct CoDelQueue<T> {
    q: VecDeque<(T, i64, usize)>,
    bytes: usize,
    target: i64,
    interval: i64,
    mtu: usize,
    first_above_time: i64,
    drop_next: i64,
    count: u32,
    last_count: u32,
    dropping: bool,
}

/// What one dequeue does.
pub struct Dequeued<T> {
    /// The packet to hand out, if any.
    pub packet: Option<T>,
    /// The packets CoDel dropped on the way.
    pub dropped: Vec<T>,
}

impl<T> CoDelQueue<T> {
    /// An empty queue with TARGET and INTERVAL in nanoseconds.
    pub fn new(target: i64, interval: i64, mtu: usize) -> Self {
        CoDelQueue {
            q: VecDeque::new(),
            bytes: 0,
            target,
            interval,
            mtu,
            first_above_time: 0,
            drop_next: 0,
            count: 0,
            last_count: 0,
            dropping: false,
        }
    }

    /// Packets queued.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// Appends `item` of `bytes` bytes, enqueued at `now`.
    pub fn enqueue(&mut self, item: T, bytes: usize, now: i64) {
        self.bytes += bytes;
        self.q.push_back((item, now, bytes));
    }

    /// RFC 8289's `control_law`: `t + INTERVAL / sqrt(count)`.
    fn control_law(&self, t: i64, count: u32) -> i64 {
        t + (self.interval as f64 / f64::from(count.max(1)).sqrt()) as i64
    }

    /// RFC 8289's `dodequeue`: the head and whether it may be dropped.
    fn do_dequeue(&mut self, now: i64) -> (Option<T>, bool) {
        let Some((item, enq, bytes)) = self.q.pop_front() else {
            self.first_above_time = 0;
            return (None, false);
        };
        self.bytes -= bytes;
        let sojourn = now - enq;
        let mut ok_to_drop = false;
        if sojourn < self.target || self.bytes <= self.mtu {
            self.first_above_time = 0;
        } else if self.first_above_time == 0 {
            self.first_above_time = now + self.interval;
        } else if now >= self.first_above_time {
            ok_to_drop = true;
        }
        (Some(item), ok_to_drop)
    }

    /// RFC 8289's `dequeue` at time `now`.
    pub fn dequeue(&mut self, now: i64) -> Dequeued<T> {
        let mut dropped = Vec::new();
        let (mut p, mut ok_to_drop) = self.do_dequeue(now);
        if p.is_none() {
            self.dropping = false;
            return Dequeued {
                packet: None,
                dropped,
            };
        }
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                dropped.extend(p.take());
                self.count += 1;
                (p, ok_to_drop) = self.do_dequeue(now);
                if !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            dropped.extend(p.take());
            (p, _) = self.do_dequeue(now);
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.last_count);
            self.count = 1;
            if delta > 1 && delta < u32::MAX / 2 && now - self.drop_next < 16 * self.interval {
                self.count = delta;
            }
            self.drop_next = self.control_law(now, self.count);
            self.last_count = self.count;
        }
        Dequeued { packet: p, dropped }
    }

    /// Removes everything queued.
    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.bytes = 0;
        self.q.drain(..).map(|(t, _, _)| t)
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Length = read("length"),
        Highwater = read("highwater_length"),
        Capacity = read("capacity"),
        Drops = read("drops"),
        CodelDrops = read("codel_drops"),
        Dropping = read("dropping"),
        Count = read("count"),
        Target = read("target"),
        Interval = read("interval"),
        Bytes = read("bytes"),
    }
}

/// The CoDel element.
pub struct CoDel {
    q: CoDelQueue<rclick_core::Packet>,
    capacity: usize,
    highwater: usize,
    drops: u64,
    codel_drops: u64,
    empty_note: Notifier,
}

impl Default for CoDel {
    fn default() -> Self {
        CoDel {
            q: CoDelQueue::new(5_000_000, 100_000_000, 1500),
            capacity: 1000,
            highwater: 0,
            drops: 0,
            codel_drops: 0,
            empty_note: Notifier::new(false),
        }
    }
}

/// Makes a CoDel.
pub fn new() -> Box<dyn Element> {
    Box::<CoDel>::default()
}

impl Element for CoDel {
    fn class_name(&self) -> &'static str {
        "CoDel"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "h/lh"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut capacity = 1000usize;
        let mut target = Interval::from_millis(5);
        let mut interval = Interval::from_millis(100);
        let mut mtu = 1500usize;
        Args::new(conf)
            .read_p("CAPACITY", &mut capacity)
            .read("TARGET", &mut target)
            .read("INTERVAL", &mut interval)
            .read("MTU", &mut mtu)
            .complete()
            .map_err(|e| e.to_string())?;
        if interval.as_nanos() <= 0 {
            return Err("INTERVAL must be positive".into());
        }
        self.capacity = capacity;
        self.q = CoDelQueue::new(target.as_nanos(), interval.as_nanos(), mtu);
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let now = cx.now().as_nsec();
        let mut full = PacketBatch::new();
        for p in batch {
            if self.q.len() < self.capacity {
                let n = p.len();
                self.q.enqueue(p, n, now);
            } else {
                self.drops += 1;
                full.push(p);
            }
        }
        self.highwater = self.highwater.max(self.q.len());
        if !self.q.is_empty() && !self.empty_note.active() {
            cx.wake_notifier(&self.empty_note);
        }
        if !full.is_empty() {
            cx.checked_push(1, full);
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let now = cx.now().as_nsec();
        let mut out = PacketBatch::new();
        let mut dropped = PacketBatch::new();
        while out.len() < max {
            let d = self.q.dequeue(now);
            self.codel_drops += d.dropped.len() as u64;
            dropped.extend(d.dropped);
            match d.packet {
                Some(p) => out.push(p),
                None => break,
            }
        }
        if self.q.is_empty() {
            self.empty_note.set_active(false);
        }
        if !dropped.is_empty() {
            cx.checked_push(1, dropped);
        }
        out
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Length) => self.q.len().to_string(),
            Some(H::Highwater) => self.highwater.to_string(),
            Some(H::Capacity) => self.capacity.to_string(),
            Some(H::Drops) => self.drops.to_string(),
            Some(H::CodelDrops) => self.codel_drops.to_string(),
            Some(H::Dropping) => self.q.dropping.to_string(),
            Some(H::Count) => self.q.count.to_string(),
            Some(H::Target) => Interval::from_nanos(self.q.target).to_string(),
            Some(H::Interval) => Interval::from_nanos(self.q.interval).to_string(),
            Some(H::Bytes) => self.q.bytes.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.empty_note.clone())
    }

    fn notifier_passthrough(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::CoDelQueue;
    use crate::queues::test_registry;
    use rclick_core::testing;

    const MS: i64 = 1_000_000;

    /// A queue with RFC 8289's defaults and 1000-byte packets.
    fn q() -> CoDelQueue<u32> {
        CoDelQueue::new(5 * MS, 100 * MS, 1500)
    }

    #[test]
    fn short_delay_never_drops() {
        let mut c = q();
        // each packet served 1ms after arriving
        for t in 0..1000 {
            let now = t * MS;
            c.enqueue(t as u32, 1000, now);
            let d = c.dequeue(now + MS);
            assert!(d.dropped.is_empty());
            assert!(d.packet.is_some());
        }
        assert!(!c.dropping);
    }

    #[test]
    fn persistent_delay_drops_after_one_interval_then_faster() {
        let mut c = q();
        // a standing queue: 1000 packets enqueued at time 0
        for i in 0..1000 {
            c.enqueue(i, 1000, 0);
        }
        // one dequeue per ms from t = 10ms: every sojourn is >= TARGET
        let mut drops_at = Vec::new();
        for t in 10..=400 {
            let d = c.dequeue(t * MS);
            for _ in d.dropped {
                drops_at.push(t);
            }
            if c.is_empty() {
                break;
            }
        }
        // first_above_time is set at 10ms (10 + 100 = 110ms): the first drop
        // is at 110ms; the next at 110 + 100/sqrt(1) = 210ms, then
        // 210 + 100/sqrt(2) = 280.7ms (so at 281ms), then + 100/sqrt(3)
        // = 338.4ms and + 100/sqrt(4) = 388.4ms.
        assert_eq!(drops_at, [110, 210, 281, 339, 389]);
        assert!(c.dropping);
        assert_eq!(c.count, 5);
    }

    #[test]
    fn small_backlog_is_not_dropped() {
        // sojourn well above TARGET, but at most one MTU left queued
        let mut c = q();
        for t in 0..300 {
            c.enqueue(t as u32, 1000, t * MS);
            let d = c.dequeue(t * MS + 50 * MS);
            assert!(d.dropped.is_empty(), "at {t}");
        }
    }

    #[test]
    fn leaves_dropping_when_delay_falls_and_resumes_rate() {
        let mut c = q();
        for i in 0..1000 {
            c.enqueue(i, 1000, 0);
        }
        let mut t = 10;
        while c.count < 4 && t < 1000 {
            c.dequeue(t * MS);
            t += 1;
        }
        assert_eq!(c.count, 4);
        assert!(c.dropping);
        // the queue empties: dropping stops
        let _: Vec<u32> = c.drain().collect();
        assert!(c.dequeue(t * MS).packet.is_none());
        assert!(!c.dropping);
        // a new standing queue soon after: the drop rate resumes from the
        // old count (delta = count - lastcount > 1 within 16 intervals)
        let base = t;
        for i in 0..1000 {
            c.enqueue(i, 1000, base * MS);
        }
        let mut t2 = base + 10;
        while !c.dropping && t2 < base + 1000 {
            c.dequeue(t2 * MS);
            t2 += 1;
        }
        assert!(c.dropping);
        assert_eq!(c.count, 3, "delta = 4 - 1");
    }

    #[test]
    fn element_counts_and_handlers() {
        let r = testing::run(
            "InfiniteSource(LIMIT 8, STOP true) -> q :: CoDel(5, TARGET 2ms) -> Idle;
             q[1] -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.length"), "5");
        assert_eq!(testing::read(&r, "q.drops"), "3");
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "q.target"), "2ms");
        assert_eq!(testing::read(&r, "q.interval"), "100ms");
        assert_eq!(testing::read(&r, "q.dropping"), "false");
        assert!(testing::build("Idle -> CoDel(x) -> Idle;", &test_registry(), true).is_err());
        assert!(
            testing::build("Idle -> CoDel(INTERVAL 0) -> Idle;", &test_registry(), true).is_err()
        );
    }
}
