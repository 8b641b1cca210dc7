//! The part Click's queue classes share (Click's `Storage`, `SimpleQueue`'s
//! store and `NotifierQueue`/`FullNoteQueue`'s notifiers), as a small
//! library: [`Store`] holds the packets, counters and notifiers and offers
//! the few operations a queue is made of (enqueue with tail drop, with
//! front drop, at the head; dequeue; the notifier rules); the
//! [`QueueClass`] trait is what each class writes in its own file, beside
//! its manual: its name, its ports, and its push and pull.
//! [`QueueElement<C>`] turns a class into an element (configuration,
//! handlers, hot swap), alike for all of them as in Click, where they are
//! inherited from SimpleQueue.
//!
//! The store is a `VecDeque` reserved up front (no per-packet allocation).
//! Its length is mirrored in a shared atomic ([`Store::shared_length`],
//! [`storage_length`]) so RED can watch queue sizes without locking the
//! queue.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Notifier, PacketBatch};
use rclick_packet::Packet;

/// Click's default queue capacity.
pub const DEFAULT_CAPACITY: usize = 1000;
/// Failed pulls tolerated before the "empty" notifier goes to sleep.
pub(crate) const SLEEPINESS_TRIGGER: u32 = 9;
/// The most slots reserved up front; larger queues grow on demand.
const PREALLOC_MAX: usize = 4096;

rclick_core::handlers! {
    /// The handlers every queue class has (the manuals' lists), and
    /// ThreadSafeQueue.
    pub(crate) enum H {
        Length = read("length"),
        Highwater = read("highwater_length"),
        Capacity = reconfigure_read("capacity", "CAPACITY").positional(0),
        Drops = read("drops"),
        ResetCounts = write("reset_counts"),
        Reset = write("reset"),
    }
}

/// A queue's packets, counters and notifiers.
pub struct Store {
    q: VecDeque<Packet>,
    capacity: usize,
    drops: u64,
    highwater: usize,
    length: Arc<AtomicUsize>,
    empty_note: Notifier,
    full_note: Notifier,
    sleepiness: u32,
}

impl Default for Store {
    fn default() -> Store {
        Store {
            q: VecDeque::new(),
            capacity: DEFAULT_CAPACITY,
            drops: 0,
            highwater: 0,
            length: Arc::new(AtomicUsize::new(0)),
            empty_note: Notifier::new(false),
            full_note: Notifier::new(true),
            sleepiness: 0,
        }
    }
}

impl Store {
    /// The number of packets queued.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// The capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Packets dropped so far.
    pub fn drops(&self) -> u64 {
        self.drops
    }

    /// A handle on the queue's length, kept current after every push and
    /// pull, for elements such as RED that watch queue sizes.
    pub fn shared_length(&self) -> Arc<AtomicUsize> {
        self.length.clone()
    }

    /// The "empty" notifier (active while there are packets).
    pub fn empty_note(&self) -> &Notifier {
        &self.empty_note
    }

    /// The "full" notifier (active while there is room).
    pub fn full_note(&self) -> &Notifier {
        &self.full_note
    }

    #[inline(always)]
    fn publish_length(&mut self) {
        let len = self.q.len();
        if len > self.highwater {
            self.highwater = len;
        }
        self.length.store(len, Ordering::Relaxed);
    }

    #[inline]
    fn note_drop(&mut self) {
        self.drops += 1;
    }

    /// Appends `batch` at the tail, dropping the packets that do not fit
    /// (SimpleQueue's policy); returns the dropped ones.
    #[inline(always)]
    pub fn enqueue_tail_drop(&mut self, mut batch: PacketBatch) -> PacketBatch {
        if batch.len() <= self.capacity.saturating_sub(self.q.len()) {
            // Room for the whole batch (the common case): one bulk move.
            batch.move_to_deque(&mut self.q);
            self.publish_length();
            return batch;
        }
        self.enqueue_tail_drop_slow(batch)
    }

    #[cold]
    #[inline(never)]
    fn enqueue_tail_drop_slow(&mut self, batch: PacketBatch) -> PacketBatch {
        let mut dropped = PacketBatch::new();
        for p in batch {
            if self.q.len() < self.capacity {
                self.q.push_back(p);
            } else {
                self.note_drop();
                dropped.push(p);
            }
        }
        self.publish_length();
        dropped
    }

    /// Appends `batch` at the tail, dropping the oldest packets to make
    /// room (FrontDropQueue's policy); returns the dropped ones.
    pub fn enqueue_front_drop(&mut self, mut batch: PacketBatch) -> PacketBatch {
        if batch.len() <= self.capacity.saturating_sub(self.q.len()) {
            batch.move_to_deque(&mut self.q);
            self.publish_length();
            return batch;
        }
        self.enqueue_evicting(batch, false)
    }

    /// Puts each packet of `batch` at the head, dropping the newest packet
    /// (at the tail) to make room (MixedQueue's LIFO input); returns the
    /// dropped ones.
    pub fn enqueue_head(&mut self, batch: PacketBatch) -> PacketBatch {
        self.enqueue_evicting(batch, true)
    }

    /// Adds each packet at the tail (at the head when `at_head`), first
    /// evicting the packet at the other end when the queue is full.
    fn enqueue_evicting(&mut self, batch: PacketBatch, at_head: bool) -> PacketBatch {
        let mut dropped = PacketBatch::new();
        for p in batch {
            if self.q.len() >= self.capacity {
                self.note_drop();
                let evicted = if at_head {
                    self.q.pop_back()
                } else {
                    self.q.pop_front()
                };
                match evicted {
                    Some(old) => dropped.push(old),
                    None => {
                        // capacity 0: nothing to make room with
                        dropped.push(p);
                        continue;
                    }
                }
            }
            if at_head {
                self.q.push_front(p);
            } else {
                self.q.push_back(p);
            }
        }
        self.publish_length();
        dropped
    }

    /// Sends `dropped` (what an `enqueue_*` returned) to output 1 when it
    /// exists, printing Click's overflow message on the first drop since
    /// the counts were reset.
    #[inline(always)]
    pub fn emit_drops(&self, dropped: PacketBatch, cx: &mut Ctx) {
        if !dropped.is_empty() {
            self.emit_drops_slow(dropped, cx);
        }
    }

    #[cold]
    #[inline(never)]
    fn emit_drops_slow(&self, dropped: PacketBatch, cx: &mut Ctx) {
        if self.drops == dropped.len() as u64 && self.capacity > 0 {
            cx.log(format!("{}: overflow", cx.declaration()));
        }
        cx.checked_push(1, dropped);
    }

    /// Up to `max` packets from the head (one bulk move, not a push per
    /// packet: BURST 32, 46 → 20 instructions per packet for the whole
    /// pull, callgrind). Empty when the queue is.
    #[inline(always)]
    pub fn dequeue(&mut self, max: usize) -> PacketBatch {
        let n = max.min(self.q.len());
        if n == 0 {
            return PacketBatch::new();
        }
        let mut out = PacketBatch::with_capacity(n);
        out.take_from_deque(&mut self.q, n);
        self.length.store(self.q.len(), Ordering::Relaxed);
        out
    }

    /// The "empty" notifier's rule after a push: wake the pullers when
    /// there are packets.
    #[inline(always)]
    pub fn wake_empty(&self, cx: &mut Ctx) {
        if !self.q.is_empty() && !self.empty_note.active() {
            cx.wake_notifier(&self.empty_note);
        }
    }

    /// The "empty" notifier's rule after a pull: a pull that found packets
    /// resets the count of empty pulls; the notifier sleeps after
    /// [`SLEEPINESS_TRIGGER`] empty pulls in a row.
    #[inline(always)]
    pub fn note_pull(&mut self, found: bool) {
        if found {
            self.sleepiness = 0;
        } else if self.sleepiness >= SLEEPINESS_TRIGGER {
            self.empty_note.set_active(false);
        } else {
            self.sleepiness += 1;
        }
    }

    /// Puts the "empty" notifier to sleep now (QuickNoteQueue).
    #[inline(always)]
    pub fn sleep_empty(&self) {
        self.empty_note.set_active(false);
    }

    /// The "full" notifier's rule after a push: as Click's FullNoteQueue,
    /// the pushers sleep when a push fills the queue, so a queue of
    /// capacity 0 (never filled) never puts them to sleep and drops every
    /// packet.
    #[inline(always)]
    pub fn sleep_full_if_full(&self) {
        if self.capacity > 0 && self.q.len() >= self.capacity {
            self.full_note.set_active(false);
        }
    }

    /// The "full" notifier's rule when room appears: wake the pushers.
    #[inline(always)]
    pub fn wake_full(&self, cx: &mut Ctx) {
        if self.q.len() < self.capacity && !self.full_note.active() {
            cx.wake_notifier(&self.full_note);
        }
    }

    /// Sets the capacity from `CAPACITY` and reserves room up front.
    pub fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        let cap = parse_capacity(conf)?;
        self.capacity = cap;
        let want = cap.min(PREALLOC_MAX);
        if self.q.capacity() < want {
            self.q.reserve(want - self.q.len());
        }
        Ok(())
    }

    /// Removes packets past `cap`: the oldest when `keep_newest`, else the
    /// newest. Returns how many went.
    fn trim(q: &mut VecDeque<Packet>, cap: usize, keep_newest: bool) -> usize {
        let n = q.len();
        if n <= cap {
            return 0;
        }
        if keep_newest {
            q.drain(..n - cap);
        } else {
            q.truncate(cap);
        }
        n - cap
    }

    /// A new `CAPACITY` while running; packets past it go (see
    /// [`QueueClass::KEEP_NEWEST`]).
    pub fn live_reconfigure(&mut self, conf: &[String], keep_newest: bool) -> Result<(), String> {
        let cap = parse_capacity(conf)?;
        Self::trim(&mut self.q, cap, keep_newest);
        self.capacity = cap;
        self.length.store(self.q.len(), Ordering::Relaxed);
        Ok(())
    }

    /// Takes `old`'s packets on a hot swap (Click's `take_state`), only
    /// into an empty queue; the packets past the capacity are counted as
    /// drops.
    pub fn take_from(&mut self, old: &mut Store, keep_newest: bool) -> Taken {
        if !self.q.is_empty() {
            return Taken::Refused;
        }
        let n = old.q.len();
        // Counted: a hot swap loses nothing silently.
        let lost = Self::trim(&mut old.q, self.capacity, keep_newest);
        self.drops += lost as u64;
        self.q.extend(old.q.drain(..));
        self.highwater = self.q.len();
        old.length.store(0, Ordering::Relaxed);
        self.length.store(self.q.len(), Ordering::Relaxed);
        if lost > 0 {
            Taken::Lost { old_len: n }
        } else {
            Taken::All
        }
    }

    fn read(&self, h: H) -> Option<String> {
        Some(match h {
            H::Length => self.q.len().to_string(),
            H::Highwater => self.highwater.to_string(),
            H::Capacity => self.capacity.to_string(),
            H::Drops => self.drops.to_string(),
            H::ResetCounts | H::Reset => return None,
        })
    }

    /// Empties the queue (the `reset` handler); returns the packets.
    fn drain_all(&mut self) -> PacketBatch {
        let mut all = PacketBatch::with_capacity(self.q.len());
        all.extend(self.q.drain(..));
        self.length.store(0, Ordering::Relaxed);
        all
    }
}

/// What [`Store::take_from`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Nothing: this queue already holds packets.
    Refused,
    /// Every packet.
    All,
    /// The packets that fit; the old queue held `old_len`.
    Lost {
        /// The old queue's length.
        old_len: usize,
    },
}

/// The CAPACITY argument of a queue (the Queue family and
/// ThreadSafeQueue): positional, 1000 by default.
pub(crate) fn parse_capacity(conf: &[String]) -> Result<usize, String> {
    let mut cap: u32 = DEFAULT_CAPACITY as u32;
    Args::new(conf)
        .read_p("CAPACITY", &mut cap)
        .complete()
        .map_err(|e| e.to_string())?;
    Ok(cap as usize)
}

/// What a queue class writes in its own file: Click's subclass of
/// SimpleQueue.
pub trait QueueClass: Default + Send + 'static {
    /// The class name.
    const CLASS: &'static str;
    /// The port count (`"1/1-2"` unless the class has more inputs).
    const PORTS: &'static str = "1/1-2";
    /// Whether the class has an "empty" notifier.
    const EMPTY_NOTE: bool;
    /// Whether the class has a "full" notifier.
    const FULL_NOTE: bool;
    /// Whether a smaller capacity (or a hot swap into one) keeps the
    /// newest packets rather than the oldest.
    const KEEP_NEWEST: bool = false;

    /// Pushes `batch` arriving on input `port`.
    fn push(s: &mut Store, port: usize, batch: PacketBatch, cx: &mut Ctx);

    /// Pulls up to `max` packets.
    fn pull(s: &mut Store, max: usize, cx: &mut Ctx) -> PacketBatch;
}

/// A queue of class `C`.
#[derive(Default)]
pub struct QueueElement<C: QueueClass> {
    store: Store,
    _class: C,
}

impl<C: QueueClass> QueueElement<C> {
    /// A fresh, unconfigured queue.
    pub fn boxed() -> Box<dyn Element> {
        Box::<QueueElement<C>>::default()
    }

    /// Its store.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

/// Finds the store of an element of any of the queue classes (Click's
/// `cast("Storage")`), whichever class the old element of a hot swap was.
macro_rules! stores {
    ($($c:ty),+ $(,)?) => {
        /// The store of `e` if it is one of this module's queues.
        pub fn store_of(e: &dyn Element) -> Option<&Store> {
            None $(.or_else(|| e.downcast_ref::<QueueElement<$c>>().map(|q| &q.store)))+
        }

        /// The store of `e` if it is one of this module's queues.
        pub fn store_mut(e: &mut dyn Element) -> Option<&mut Store> {
            $(
                if e.downcast_ref::<QueueElement<$c>>().is_some() {
                    return e.downcast_mut::<QueueElement<$c>>().map(|q| &mut q.store);
                }
            )+
            None
        }
    };
}

stores!(
    super::queue::Queue,
    super::simple_queue::SimpleQueue,
    super::notifier_queue::NotifierQueue,
    super::quick_note_queue::QuickNoteQueue,
    super::front_drop_queue::FrontDropQueue,
    super::mixed_queue::MixedQueue,
);

/// The shared length of `e` if it is one of this module's queues.
pub fn storage_length(e: &dyn Element) -> Option<Arc<AtomicUsize>> {
    store_of(e).map(Store::shared_length)
}

impl<C: QueueClass> Element for QueueElement<C> {
    fn class_name(&self) -> &'static str {
        C::CLASS
    }

    fn port_count(&self) -> &'static str {
        C::PORTS
    }

    fn processing(&self) -> &'static str {
        "h/lh"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.store.configure(conf)
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn live_reconfigure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.store.live_reconfigure(conf, C::KEEP_NEWEST)
    }

    fn reconfigured(&mut self, cx: &mut Ctx) {
        if C::FULL_NOTE {
            self.store.wake_full(cx);
        }
    }

    #[inline]
    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        C::push(&mut self.store, port, batch, cx);
    }

    #[inline]
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        C::pull(&mut self.store, max, cx)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        H::from_id(id)
            .and_then(|h| self.store.read(h))
            .ok_or_else(|| "no such handler".into())
    }

    fn write_handler(&mut self, id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::ResetCounts) => {
                self.store.drops = 0;
                self.store.highwater = self.store.q.len();
                Ok(())
            }
            Some(H::Reset) => {
                let all = self.store.drain_all();
                if C::FULL_NOTE {
                    self.store.wake_full(cx);
                }
                if !all.is_empty() {
                    cx.checked_push(1, all);
                }
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        C::EMPTY_NOTE.then(|| self.store.empty_note.clone())
    }

    fn full_notifier(&self) -> Option<Notifier> {
        C::FULL_NOTE.then(|| self.store.full_note.clone())
    }

    fn notifier_passthrough(&self) -> bool {
        false
    }

    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let Some(old) = store_mut(old) else {
            return;
        };
        match self.store.take_from(old, C::KEEP_NEWEST) {
            Taken::Refused => {
                cx.log(format!(
                    "{}: already have packets enqueued, can't take state",
                    cx.declaration()
                ));
                return;
            }
            Taken::Lost { old_len: n } => cx.log(format!(
                "{}: some packets lost (old length {}, new capacity {})",
                cx.declaration(),
                n,
                self.store.capacity
            )),
            Taken::All => {}
        }
        if C::EMPTY_NOTE {
            self.store.wake_empty(cx);
        }
        if C::FULL_NOTE && self.store.q.len() >= self.store.capacity {
            self.store.full_note.set_active(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_packet::Packet;

    #[test]
    fn capacity_argument() {
        let cap =
            |conf: &[&str]| parse_capacity(&conf.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(cap(&[]), Ok(DEFAULT_CAPACITY));
        assert_eq!(cap(&["5"]), Ok(5));
        assert_eq!(cap(&["CAPACITY 0"]), Ok(0));
        assert!(cap(&["x"]).is_err());
    }

    fn batch(n: usize) -> PacketBatch {
        let mut b = PacketBatch::new();
        for i in 0..n {
            b.push(Packet::from_slice(&[i as u8]));
        }
        b
    }

    fn heads(s: &Store) -> Vec<u8> {
        s.q.iter().map(|p| p.data()[0]).collect()
    }

    fn store(cap: usize) -> Store {
        let mut s = Store::default();
        s.configure(&[cap.to_string()]).unwrap();
        s
    }

    #[test]
    fn tail_drop_keeps_the_first_and_counts() {
        let mut s = store(3);
        let d = s.enqueue_tail_drop(batch(5));
        assert_eq!(heads(&s), [0, 1, 2]);
        assert_eq!(d.iter().map(|p| p.data()[0]).collect::<Vec<_>>(), [3, 4]);
        assert_eq!((s.drops(), s.highwater), (2, 3));
        assert_eq!(s.shared_length().load(Ordering::Relaxed), 3);
        let out = s.dequeue(2);
        assert_eq!(out.len(), 2);
        assert_eq!(heads(&s), [2]);
        assert_eq!(s.shared_length().load(Ordering::Relaxed), 1);
        assert!(s.dequeue(0).is_empty());
    }

    #[test]
    fn front_drop_keeps_the_last() {
        let mut s = store(3);
        let d = s.enqueue_front_drop(batch(5));
        assert_eq!(heads(&s), [2, 3, 4]);
        assert_eq!(d.len(), 2);
        let mut zero = store(0);
        assert_eq!(zero.enqueue_front_drop(batch(2)).len(), 2);
        assert!(zero.is_empty());
    }

    #[test]
    fn head_insert_evicts_the_tail() {
        let mut s = store(3);
        assert!(s.enqueue_tail_drop(batch(3)).is_empty());
        let d = s.enqueue_head(batch(2));
        assert_eq!(heads(&s), [1, 0, 0]);
        assert_eq!(d.iter().map(|p| p.data()[0]).collect::<Vec<_>>(), [2, 1]);
    }

    #[test]
    fn empty_notifier_sleeps_after_the_trigger() {
        let mut s = store(3);
        s.empty_note.set_active(true);
        for _ in 0..SLEEPINESS_TRIGGER {
            s.note_pull(false);
            assert!(s.empty_note().active());
        }
        s.note_pull(false);
        assert!(!s.empty_note().active());
        s.note_pull(true);
        assert_eq!(s.sleepiness, 0);
    }

    #[test]
    fn live_capacity_and_take_state_trim_by_policy() {
        let mut s = store(10);
        s.enqueue_tail_drop(batch(5));
        s.live_reconfigure(&["3".into()], true).unwrap();
        assert_eq!(heads(&s), [2, 3, 4]);
        s.live_reconfigure(&["2".into()], false).unwrap();
        assert_eq!(heads(&s), [2, 3]);
        assert!(s.live_reconfigure(&["x".into()], false).is_err());
        assert_eq!(s.capacity(), 2);

        let mut new = store(1);
        assert_eq!(new.take_from(&mut s, false), Taken::Lost { old_len: 2 });
        assert_eq!(heads(&new), [2]);
        assert_eq!(new.take_from(&mut store(1), false), Taken::Refused);
        assert_eq!(new.drops(), 1);
        assert!(s.is_empty());
        assert_eq!(s.shared_length().load(Ordering::Relaxed), 0);
    }
}
