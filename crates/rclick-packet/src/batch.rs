//! [`PacketBatch`]: an ordered batch of packets, the unit of batched
//! push/pull between elements.
//!
//! Why this file is long: its tests. About 680 lines of code, one type and
//! the in-place operations elements keep a batch moving with, and 400
//! lines of tests.
//!
//! A batch is an optional boxed `Vec<Packet>` plus one inline packet slot:
//! two pointers, so a batch passed to or returned from a push or pull
//! travels in two registers. (A `Vec` in place made it four words, passed
//! through memory at every hop; copying a batch just written field by field
//! stalled store forwarding, a fifth of a Queue handoff's time, perf.) A
//! batch of one packet, the common case when sources emit one packet per
//! task run as Click's do by default, lives in the inline slot and touches
//! no vector at all. From the second packet on, the packets live in a boxed
//! vector recycled through the thread-local [`pool`] module: the first
//! spill takes one from the pool (capacity
//! [`BATCH_CAPACITY`](crate::pool::BATCH_CAPACITY) when fresh), and
//! dropping the batch returns it. A `SmallVec` with inline storage for many
//! packets was not used because moving it would copy the inline array
//! (256 bytes for 32 packets) at every element boundary.
//!
//! Invariant: while there is no vector the batch holds the inline packet
//! or nothing; once it has one, every packet is in the vector and the
//! inline slot is empty (a hollow packet).
//!
//! Order is preserved by every operation. Removing from the back
//! ([`pop`](PacketBatch::pop)) is O(1); there is deliberately no
//! `pop_front` (iterate with [`drain`](PacketBatch::drain) or
//! [`into_iter`](PacketBatch::into_iter) instead).

// Batch vectors are boxed on purpose: a batch is then two pointers, passed
// in registers (see the batch module's documentation).
#![allow(clippy::box_collection)]
use std::collections::VecDeque;
use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::{Index, IndexMut};

use crate::packet::Packet;
use crate::pool;

/// An ordered batch of packets with pooled backing storage. See the
/// [module docs](self).
pub struct PacketBatch {
    /// Dropped by hand (`Drop` below): the compiler's field drop would be
    /// an out-of-line call per batch even for the inline case, 44
    /// instructions per packet at BURST 1 (callgrind).
    v: ManuallyDrop<Option<Box<Vec<Packet>>>>,
    /// The only packet while there is no vector; hollow otherwise.
    one: Packet,
}

impl PacketBatch {
    /// An empty batch. Does not allocate (or touch the pool) until the
    /// second push.
    #[inline]
    pub const fn new() -> Self {
        PacketBatch {
            v: ManuallyDrop::new(None),
            one: Packet::HOLLOW,
        }
    }

    /// An empty batch with room for at least `n` packets. One packet needs
    /// no storage; up to [`BATCH_CAPACITY`](crate::pool::BATCH_CAPACITY)
    /// this takes a pooled vector.
    #[inline]
    pub fn with_capacity(n: usize) -> Self {
        if n <= 1 {
            return Self::new();
        }
        // Pooled vectors grow to what they are asked for and keep it, so a
        // pooled one serves larger requests too (reserved once).
        let mut v = if n <= pool::MAX_POOLED_BATCH_CAPACITY {
            pool::take_batch_vec()
        } else {
            Box::default()
        };
        v.reserve(n);
        PacketBatch {
            v: ManuallyDrop::new(Some(v)),
            one: Packet::HOLLOW,
        }
    }

    /// Whether the packets are in the inline slot (zero or one packet, no
    /// storage).
    #[inline(always)]
    fn inline(&self) -> bool {
        self.v.is_none()
    }

    /// Moves to vector storage (taking a pooled vector), carrying the inline
    /// packet over if there is one.
    #[cold]
    #[inline(never)]
    fn spill(&mut self) {
        let mut v = pool::take_batch_vec();
        if !self.one.is_hollow() {
            v.push(self.one.take_out());
        }
        // There was no vector (the batch was inline): nothing leaks.
        *self.v = Some(v);
    }

    /// The vector, taken first (with the inline packet) if the batch is
    /// inline.
    #[inline(always)]
    fn many(&mut self) -> &mut Vec<Packet> {
        if self.v.is_none() {
            self.spill();
        }
        self.v.get_or_insert_with(pool::take_batch_vec)
    }

    /// Appends a packet.
    #[inline]
    pub fn push(&mut self, p: Packet) {
        if self.inline() {
            if self.one.is_hollow() {
                put_into_hollow(&mut self.one, p);
                return;
            }
            self.spill();
        }
        self.many().push(p);
    }

    /// Appends `n` clones of `p` (Click's `clone()`: the buffer is shared,
    /// offsets and annotations copied), taking their headers from the pool
    /// in one access. Cheaper than `n` calls of `push(p.clone())`.
    #[inline]
    pub fn push_clones(&mut self, p: &Packet, n: usize) {
        if n == 0 {
            return;
        }
        if self.inline() {
            if n == 1 && self.one.is_hollow() {
                put_into_hollow(&mut self.one, p.clone());
                return;
            }
            self.spill();
        }
        p.clone_n_into(n, self.many());
    }

    /// Number of packets.
    #[inline]
    pub fn len(&self) -> usize {
        match &*self.v {
            Some(v) => v.len(),
            None => usize::from(!self.one.is_hollow()),
        }
    }

    /// True if the batch holds no packets.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Nonzero when the batch may hold packets; zero when it is empty and
    /// has no vector (as [`PacketBatch::new`] makes it, and every pull that
    /// found nothing returns it in practice). The or of its two pointers:
    /// no branch and no memory load, for a caller that ors it over many
    /// batches and tests once (the scheduler, over a task run's pulls). A
    /// batch emptied in place keeps its vector, so nonzero does not mean
    /// "not empty".
    #[inline(always)]
    pub fn storage_bits(&self) -> usize {
        let v = self
            .v
            .as_deref()
            .map_or(0, |v| v as *const Vec<Packet> as usize);
        v | self.one.header_addr()
    }

    /// Packets the batch can hold without taking (more) storage: at least
    /// one.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.v.as_ref().map_or(1, |v| v.capacity().max(1))
    }

    /// Iterates over the packets in order.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Packet> {
        self.as_slice().iter()
    }

    /// Iterates mutably over the packets in order.
    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Packet> {
        self.as_mut_slice().iter_mut()
    }

    /// The packets as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Packet] {
        if let Some(v) = &*self.v {
            v
        } else if self.one.is_hollow() {
            &[]
        } else {
            std::slice::from_ref(&self.one)
        }
    }

    /// The packets as a mutable slice.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Packet] {
        if let Some(v) = &mut *self.v {
            v
        } else if self.one.is_hollow() {
            &mut []
        } else {
            std::slice::from_mut(&mut self.one)
        }
    }

    /// The packet at `i`, if any.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&Packet> {
        self.as_slice().get(i)
    }

    /// The packet at `i`, mutable, if any.
    #[inline]
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Packet> {
        self.as_mut_slice().get_mut(i)
    }

    /// The first packet, if any.
    #[inline]
    pub fn first(&self) -> Option<&Packet> {
        self.as_slice().first()
    }

    /// The last packet, if any.
    #[inline]
    pub fn last(&self) -> Option<&Packet> {
        self.as_slice().last()
    }

    /// Removes and returns the last packet (O(1)).
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        if let Some(v) = &mut *self.v {
            v.pop()
        } else if self.one.is_hollow() {
            None
        } else {
            Some(self.one.take_out())
        }
    }

    /// Removes every packet, in order, keeping the storage for reuse.
    #[inline]
    pub fn drain(&mut self) -> std::vec::Drain<'_, Packet> {
        self.many().drain(..)
    }

    /// Calls `f` on every packet, in order, emptying the batch (keeping
    /// its storage). Unlike [`drain`](Self::drain), a one-packet batch
    /// stays without storage.
    #[inline]
    pub fn drain_each(&mut self, mut f: impl FnMut(Packet)) {
        match &mut *self.v {
            Some(v) => {
                for p in v.drain(..) {
                    f(p);
                }
            }
            None => {
                if !self.one.is_hollow() {
                    f(self.one.take_out());
                }
            }
        }
    }

    /// Drops every packet, keeping the storage.
    #[inline]
    pub fn clear(&mut self) {
        self.one = Packet::HOLLOW;
        if let Some(v) = &mut *self.v {
            v.clear();
        }
    }

    /// Keeps the first `n` packets, dropping the rest.
    #[inline]
    pub fn truncate(&mut self, n: usize) {
        if n == 0 {
            self.one = Packet::HOLLOW;
        }
        if let Some(v) = &mut *self.v {
            v.truncate(n);
        }
    }

    /// Moves the contents out, leaving this batch empty (without storage).
    #[inline]
    pub fn take(&mut self) -> PacketBatch {
        PacketBatch {
            v: ManuallyDrop::new(self.v.take()),
            one: self.one.take_out(),
        }
    }

    /// Replaces each packet by `f(packet)` in place, in order: `Some`
    /// keeps the (possibly new) packet, `None` removes it (the element
    /// dropped it or sent it elsewhere). Reuses this batch's storage, so a
    /// per-packet element costs no batch allocation or copy.
    #[inline]
    pub fn filter_map_in_place(&mut self, mut f: impl FnMut(Packet) -> Option<Packet>) {
        if self.inline() {
            if !self.one.is_hollow() {
                if let Some(q) = f(self.one.take_out()) {
                    put_into_hollow(&mut self.one, q);
                }
            }
            return;
        }
        let Some(v) = &mut *self.v else { return };
        let n = v.len();
        let mut kept = 0;
        for i in 0..n {
            // Leaves a hollow packet behind (dropping it is a no-op), so a
            // panic in `f` leaves a batch that is still safe to drop.
            let p = v[i].take_out();
            if let Some(q) = f(p) {
                put_into_hollow(&mut v[kept], q);
                kept += 1;
            }
        }
        v.truncate(kept);
    }

    /// Keeps, in place and in order, the packets for which `keep` returns
    /// true, and returns the others, in order, as a new batch (empty and
    /// unallocated when every packet was kept). This is the shape of an
    /// element with a good output and an error output; in the common case
    /// of no errors it costs no batch allocation.
    #[inline]
    pub fn divert(&mut self, mut keep: impl FnMut(&mut Packet) -> bool) -> PacketBatch {
        let mut out = PacketBatch::new();
        if self.inline() {
            if !self.one.is_hollow() && !keep(&mut self.one) {
                put_into_hollow(&mut out.one, self.one.take_out());
            }
            return out;
        }
        let Some(v) = &mut *self.v else { return out };
        let n = v.len();
        let mut i = 0;
        while i < n && keep(&mut v[i]) {
            i += 1;
        }
        if i == n {
            return out;
        }
        out.push(v[i].take_out());
        let mut kept = i;
        for j in i + 1..n {
            if keep(&mut v[j]) {
                let p = v[j].take_out();
                put_into_hollow(&mut v[kept], p);
                kept += 1;
            } else {
                out.push(v[j].take_out());
            }
        }
        v.truncate(kept);
        out
    }

    /// Moves the first `k` packets (all, if there are fewer) into a new
    /// batch, in order.
    #[inline]
    pub fn split_front(&mut self, k: usize) -> PacketBatch {
        if k >= self.len() {
            return self.take();
        }
        let mut front = PacketBatch::with_capacity(k);
        // More than k packets, so more than one: they are in the vector.
        if let Some(v) = &mut *self.v {
            for p in v.drain(..k) {
                front.push(p);
            }
        }
        front
    }

    /// Keeps the packets for which `f` returns true, in order; drops the
    /// others.
    #[inline]
    pub fn retain(&mut self, mut f: impl FnMut(&Packet) -> bool) {
        if self.inline() {
            if !self.one.is_hollow() && !f(&self.one) {
                self.one = Packet::HOLLOW;
            }
        } else if let Some(v) = &mut *self.v {
            v.retain(f);
        }
    }

    /// Like [`retain`](Self::retain), with mutable access to each packet.
    #[inline]
    pub fn retain_mut(&mut self, mut f: impl FnMut(&mut Packet) -> bool) {
        if self.inline() {
            if !self.one.is_hollow() && !f(&mut self.one) {
                self.one = Packet::HOLLOW;
            }
        } else if let Some(v) = &mut *self.v {
            v.retain_mut(f);
        }
    }

    /// Moves all packets of `other` to the end of this batch, leaving
    /// `other` empty. If this batch is empty, the storages are swapped
    /// instead of copying.
    #[inline]
    pub fn append(&mut self, other: &mut PacketBatch) {
        if self.is_empty() {
            std::mem::swap(self, other);
        } else if !other.is_empty() {
            let v = self.many();
            match &mut *other.v {
                Some(ov) => v.append(ov),
                None => v.push(other.one.take_out()),
            }
        }
    }

    /// Sends each packet to `outs[f(&packet)]`, preserving order within each
    /// output. Packets whose index is out of range are dropped, as Click's
    /// `checked_output_push` does. Allocation-free in steady state (output
    /// batches take pooled vectors); this batch's storage is recycled.
    #[inline]
    pub fn split_into(mut self, outs: &mut [PacketBatch], mut f: impl FnMut(&Packet) -> usize) {
        self.drain_each(|p| {
            if let Some(out) = outs.get_mut(f(&p)) {
                out.push(p);
            }
        });
    }

    /// Splits into `n` batches by `f(&packet)` (a classifier's output
    /// number); packets whose index is `>= n` are dropped. Allocates the
    /// returned `Vec`; use [`split_into`](Self::split_into) on a hot path.
    pub fn split_by(self, n: usize, f: impl FnMut(&Packet) -> usize) -> Vec<PacketBatch> {
        let mut outs: Vec<PacketBatch> = (0..n).map(|_| PacketBatch::new()).collect();
        self.split_into(&mut outs, f);
        outs
    }

    /// Moves every packet, in order, to the back of `q`, leaving this batch
    /// empty (its storage kept). One bulk move of the packet pointers, not
    /// a push per packet (a Queue's push of 32 packets: 29 → 13
    /// instructions per packet for the whole push, callgrind).
    #[inline]
    pub fn move_to_deque(&mut self, q: &mut VecDeque<Packet>) {
        match &mut *self.v {
            Some(v) => q.extend(v.drain(..)),
            None => {
                if !self.one.is_hollow() {
                    q.push_back(self.one.take_out());
                }
            }
        }
    }

    /// Appends the first `n` packets of `q` (all, if it holds fewer), in
    /// order, removing them from `q`. A batch left with one packet needs no
    /// storage, as with [`push`](Self::push).
    #[inline]
    pub fn take_from_deque(&mut self, q: &mut VecDeque<Packet>, n: usize) {
        let n = n.min(q.len());
        if n == 0 {
            return;
        }
        if self.inline() {
            if n == 1 && self.one.is_hollow() {
                if let Some(p) = q.pop_front() {
                    put_into_hollow(&mut self.one, p);
                }
                return;
            }
            self.spill();
        }
        // The packets are taken out of the deque's two slices (leaving
        // hollow packets, which the drain then drops with a test each):
        // slice iterators have a trusted length, so the vector reserves
        // once and copies pointers. `extend(q.drain(..n))` took 36
        // instructions per packet and a `pop_front` loop 25 (callgrind).
        let v = self.many();
        let (front, back) = q.as_mut_slices();
        let from_front = n.min(front.len());
        v.extend(front[..from_front].iter_mut().map(Packet::take_out));
        v.extend(back[..n - from_front].iter_mut().map(Packet::take_out));
        q.drain(..n);
    }

    /// Splits into the packets for which `f` is true and the others, each
    /// in order.
    #[inline]
    pub fn partition(mut self, mut f: impl FnMut(&Packet) -> bool) -> (PacketBatch, PacketBatch) {
        let mut yes = PacketBatch::new();
        let mut no = PacketBatch::new();
        self.drain_each(|p| {
            if f(&p) {
                yes.push(p);
            } else {
                no.push(p);
            }
        });
        (yes, no)
    }
}

/// Writes `p` into `slot`, which holds a hollow packet, without running
/// the hollow packet's drop (an out-of-line call the compiler kept per
/// packet: 15 instructions per packet in every per-packet element).
#[inline(always)]
fn put_into_hollow(slot: &mut Packet, p: Packet) {
    debug_assert!(slot.is_hollow());
    std::mem::forget(std::mem::replace(slot, p));
}

impl Default for PacketBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for PacketBatch {
    /// Drops the packets and returns the storage to the pool (the inline
    /// packet, if any, drops with the field).
    #[inline]
    fn drop(&mut self) {
        if let Some(v) = self.v.take() {
            pool::recycle_batch_vec(v);
        }
    }
}

impl fmt::Debug for PacketBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl From<Packet> for PacketBatch {
    /// A batch of one packet (no storage taken).
    #[inline]
    fn from(p: Packet) -> Self {
        PacketBatch {
            v: ManuallyDrop::new(None),
            one: p,
        }
    }
}

impl From<Vec<Packet>> for PacketBatch {
    /// Wraps an existing vector (its storage joins the pool when the batch
    /// is dropped).
    #[inline]
    fn from(v: Vec<Packet>) -> Self {
        if v.capacity() == 0 {
            return PacketBatch::new();
        }
        PacketBatch {
            v: ManuallyDrop::new(Some(Box::new(v))),
            one: Packet::HOLLOW,
        }
    }
}

impl Extend<Packet> for PacketBatch {
    fn extend<I: IntoIterator<Item = Packet>>(&mut self, iter: I) {
        for p in iter {
            self.push(p);
        }
    }
}

impl FromIterator<Packet> for PacketBatch {
    fn from_iter<I: IntoIterator<Item = Packet>>(iter: I) -> Self {
        let mut b = PacketBatch::new();
        b.extend(iter);
        b
    }
}

impl Index<usize> for PacketBatch {
    type Output = Packet;
    /// # Panics
    /// If `i >= len()`, like slice indexing; use [`PacketBatch::get`] to avoid.
    #[inline]
    fn index(&self, i: usize) -> &Packet {
        &self.as_slice()[i]
    }
}

impl IndexMut<usize> for PacketBatch {
    /// # Panics
    /// If `i >= len()`, like slice indexing; use [`PacketBatch::get_mut`].
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut Packet {
        &mut self.as_mut_slice()[i]
    }
}

impl<'a> IntoIterator for &'a PacketBatch {
    type Item = &'a Packet;
    type IntoIter = std::slice::Iter<'a, Packet>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut PacketBatch {
    type Item = &'a mut Packet;
    type IntoIter = std::slice::IterMut<'a, Packet>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl IntoIterator for PacketBatch {
    type Item = Packet;
    type IntoIter = IntoIter;
    /// Consumes the batch, yielding packets in order. The storage returns to
    /// the pool when the iterator is dropped.
    #[inline]
    fn into_iter(mut self) -> IntoIter {
        let mut v = self.v.take();
        // Stored reversed so that `next` is an O(1) `pop`; reversing a
        // vector of pointers is a few nanoseconds for a typical batch.
        if let Some(v) = &mut v {
            v.reverse();
        }
        IntoIter {
            rev: v,
            one: self.one.take_out(),
        }
    }
}

/// Owning iterator over a [`PacketBatch`], in order. Returned by
/// [`PacketBatch::into_iter`].
pub struct IntoIter {
    rev: Option<Box<Vec<Packet>>>,
    /// The batch's inline packet (hollow when `rev` holds the packets).
    one: Packet,
}

impl Iterator for IntoIter {
    type Item = Packet;

    #[inline]
    fn next(&mut self) -> Option<Packet> {
        match self.rev.as_mut().and_then(|v| v.pop()) {
            Some(p) => Some(p),
            None if !self.one.is_hollow() => Some(self.one.take_out()),
            None => None,
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rev.as_ref().map_or(0, |v| v.len()) + usize::from(!self.one.is_hollow());
        (n, Some(n))
    }
}

impl ExactSizeIterator for IntoIter {}

impl std::iter::FusedIterator for IntoIter {}

impl Drop for IntoIter {
    fn drop(&mut self) {
        if let Some(v) = self.rev.take() {
            pool::recycle_batch_vec(v);
        }
    }
}

impl fmt::Debug for IntoIter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter")
            .field("remaining", &self.size_hint().0)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(n: u8) -> PacketBatch {
        (0..n).map(|i| Packet::from_slice(&[i])).collect()
    }

    fn ids(b: &PacketBatch) -> Vec<u8> {
        b.iter().map(|p| p.data()[0]).collect()
    }

    /// `storage_bits` is zero for a new batch only: nonzero with one
    /// packet, with several, and for a batch emptied in place that kept
    /// its vector.
    #[test]
    fn storage_bits_is_zero_for_a_new_batch_only() {
        assert_eq!(PacketBatch::new().storage_bits(), 0);
        assert_ne!(batch(1).storage_bits(), 0);
        let mut b = batch(3);
        assert_ne!(b.storage_bits(), 0);
        while b.pop().is_some() {}
        assert!(b.is_empty());
        assert_ne!(b.storage_bits(), 0);
    }

    /// Packets moved into a deque and taken back out keep their order and
    /// are neither lost nor duplicated, whatever the deque's wrap-around,
    /// the batch sizes (one packet included) and the counts asked for; a
    /// one-packet take needs no storage.
    #[test]
    fn deque_moves_keep_order() {
        use std::collections::VecDeque;
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut below = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut q: VecDeque<Packet> = VecDeque::with_capacity(8);
        let mut model: VecDeque<u8> = VecDeque::new();
        let mut next = 0u8;
        for _ in 0..5000 {
            if below(2) == 0 {
                let k = below(6) as u8;
                let mut b: PacketBatch = (0..k)
                    .map(|i| Packet::from_slice(&[next.wrapping_add(i)]))
                    .collect();
                model.extend((0..k).map(|i| next.wrapping_add(i)));
                next = next.wrapping_add(k);
                b.move_to_deque(&mut q);
                assert!(b.is_empty());
            } else {
                let n = below(8) as usize;
                let mut b = PacketBatch::new();
                b.take_from_deque(&mut q, n);
                let want: Vec<u8> = model.drain(..n.min(model.len())).collect();
                assert_eq!(ids(&b), want);
                if want.len() <= 1 {
                    assert!(b.inline(), "{} packets took storage", want.len());
                }
            }
            assert_eq!(q.len(), model.len());
            assert!(q.iter().all(|p| !p.is_hollow()));
        }
        // Appending to a batch that already holds packets.
        let mut b = batch(2);
        q.clear();
        q.extend((10..13).map(|i| Packet::from_slice(&[i])));
        b.take_from_deque(&mut q, 2);
        assert_eq!(ids(&b), vec![0, 1, 10, 11]);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn batch_is_two_words() {
        // Two pointers: passed and returned in registers.
        assert_eq!(
            std::mem::size_of::<PacketBatch>(),
            2 * std::mem::size_of::<usize>()
        );
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PacketBatch>();
    }

    #[test]
    fn push_len_iter() {
        let mut b = PacketBatch::new();
        assert!(b.is_empty());
        assert_eq!(b.capacity(), 1);
        for i in 0..40u8 {
            b.push(Packet::from_slice(&[i]));
        }
        assert_eq!(b.len(), 40);
        assert_eq!(ids(&b), (0..40).collect::<Vec<_>>());
        for p in b.iter_mut() {
            p.data_mut()[0] += 1;
        }
        for p in &mut b {
            p.data_mut()[0] += 1;
        }
        assert_eq!(b[0].data(), &[2]);
        assert_eq!(b.get(39).unwrap().data(), &[41]);
        assert!(b.get(40).is_none());
        assert_eq!(b.first().unwrap().data(), &[2]);
        assert_eq!(b.last().unwrap().data(), &[41]);
        assert_eq!((&b).into_iter().count(), 40);
        assert_eq!(b.pop().unwrap().data(), &[41]);
        assert_eq!(b.as_slice().len(), 39);
        b.as_mut_slice().swap(0, 1);
        b[0].data_mut()[0] = 100;
        assert_eq!(b.as_slice()[0].data(), &[100]);
        b.truncate(5);
        assert_eq!(b.len(), 5);
        b.clear();
        assert!(b.is_empty());
        assert!(format!("{:?}", batch(2)).starts_with('['));
    }

    #[test]
    fn with_capacity_and_from() {
        let b = PacketBatch::with_capacity(10);
        assert!(b.capacity() >= 10);
        let b = PacketBatch::with_capacity(1000);
        assert!(b.capacity() >= 1000);
        assert_eq!(PacketBatch::with_capacity(0).capacity(), 1);
        let b = PacketBatch::from(Packet::from_slice(b"x"));
        assert_eq!(b.len(), 1);
        let b = PacketBatch::from(vec![Packet::from_slice(b"a"), Packet::from_slice(b"b")]);
        assert_eq!(b.len(), 2);
        let b: PacketBatch = PacketBatch::default();
        assert!(b.is_empty());
    }

    #[test]
    fn filter_map_in_place_keeps_order_and_storage() {
        let mut b: PacketBatch = (0u8..6).map(|i| Packet::from_slice(&[i])).collect();
        let cap = b.capacity();
        b.filter_map_in_place(|p| match p.data()[0] {
            1 | 4 => None,
            3 => Some(Packet::from_slice(&[33])),
            _ => Some(p),
        });
        let got: Vec<u8> = b.iter().map(|p| p.data()[0]).collect();
        assert_eq!(got, vec![0, 2, 33, 5]);
        assert_eq!(b.capacity(), cap);
        b.filter_map_in_place(|_| None);
        assert!(b.is_empty());
    }

    #[test]
    fn one_packet_needs_no_storage() {
        crate::pool::preallocate(0, 4);
        let before = crate::pool::stats();
        let mut b = PacketBatch::with_capacity(1);
        b.push(Packet::from_slice(&[7]));
        assert_eq!((b.len(), ids(&b)), (1, vec![7]));
        b.filter_map_in_place(Some);
        let bad = b.divert(|_| true);
        assert!(bad.is_empty());
        let mut front = b.split_front(1);
        assert!(b.is_empty());
        assert_eq!(ids(&front), vec![7]);
        front.retain(|_| true);
        let (yes, no) = front.partition(|_| false);
        assert_eq!((yes.len(), no.len()), (0, 1));
        let got: Vec<Packet> = no.into_iter().collect();
        assert_eq!(got.len(), 1);
        let d = crate::pool::stats().since(&before);
        assert_eq!(d.batch_allocs + d.batch_reuses, 0);
        // The second packet spills to a vector, in order.
        let mut b = PacketBatch::from(Packet::from_slice(&[1]));
        b.push(Packet::from_slice(&[2]));
        assert_eq!(ids(&b), vec![1, 2]);
        assert_eq!(b.pop().map(|p| p.data()[0]), Some(2));
        let mut single = PacketBatch::from(Packet::from_slice(&[3]));
        b.append(&mut single);
        assert_eq!(ids(&b), vec![1, 3]);
        let mut only = PacketBatch::from(Packet::from_slice(&[9]));
        assert_eq!(
            only.drain().map(|p| p.data()[0]).collect::<Vec<_>>(),
            vec![9]
        );
        assert!(only.is_empty());
    }

    #[test]
    fn divert_splits_in_order() {
        let mut b: PacketBatch = (0u8..7).map(|i| Packet::from_slice(&[i])).collect();
        let bad = b.divert(|p| p.data()[0] % 3 != 1);
        let ids = |b: &PacketBatch| b.iter().map(|p| p.data()[0]).collect::<Vec<u8>>();
        assert_eq!(ids(&b), vec![0, 2, 3, 5, 6]);
        assert_eq!(ids(&bad), vec![1, 4]);
        let none = b.divert(|_| true);
        assert!(none.is_empty() && none.capacity() == 1);
        assert_eq!(b.len(), 5);
        let all = b.divert(|_| false);
        assert_eq!((b.len(), all.len()), (0, 5));
    }

    #[test]
    fn split_front_moves_a_prefix() {
        let mut b: PacketBatch = (0u8..5).map(|i| Packet::from_slice(&[i])).collect();
        let f = b.split_front(2);
        assert_eq!(
            f.iter().map(|p| p.data()[0]).collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert_eq!(
            b.iter().map(|p| p.data()[0]).collect::<Vec<_>>(),
            vec![2, 3, 4]
        );
        let rest = b.split_front(10);
        assert_eq!((rest.len(), b.len()), (3, 0));
    }

    #[test]
    fn dropping_a_batch_recycles_every_header() {
        let step = || {
            let b: PacketBatch = (0u8..8).map(|i| Packet::from_slice(&[i; 60])).collect();
            drop(b);
        };
        step();
        let before = crate::pool::stats();
        for _ in 0..100 {
            step();
        }
        let d = crate::pool::stats().since(&before);
        assert_eq!(d.allocations(), 0);
        assert_eq!(d.header_reuses, 800);
    }

    #[test]
    fn drain_and_into_iter_preserve_order() {
        let mut b = batch(10);
        let got: Vec<u8> = b.drain().map(|p| p.data()[0]).collect();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
        assert!(b.is_empty());
        assert!(b.capacity() > 0, "storage kept");
        let b = batch(10);
        let mut it = b.into_iter();
        assert_eq!(it.len(), 10);
        assert_eq!(it.next().unwrap().data(), &[0]);
        let rest: Vec<u8> = it.map(|p| p.data()[0]).collect();
        assert_eq!(rest, (1..10).collect::<Vec<_>>());
        // Partially consumed iterator drops the rest without leaking.
        let mut it = batch(5).into_iter();
        it.next();
        drop(it);
        assert_eq!(PacketBatch::new().into_iter().next().map(|p| p.len()), None);
    }

    #[test]
    fn retain_and_append() {
        let mut b = batch(10);
        b.retain(|p| p.data()[0] % 2 == 0);
        assert_eq!(ids(&b), vec![0, 2, 4, 6, 8]);
        b.retain_mut(|p| {
            p.set_paint_anno(1);
            p.data()[0] < 6
        });
        assert_eq!(ids(&b), vec![0, 2, 4]);
        assert!(b.iter().all(|p| p.paint_anno() == 1));
        let mut other = batch(2);
        b.append(&mut other);
        assert_eq!(ids(&b), vec![0, 2, 4, 0, 1]);
        assert!(other.is_empty());
        // Appending into an empty batch swaps storage.
        let mut e = PacketBatch::new();
        e.append(&mut b);
        assert_eq!(ids(&e), vec![0, 2, 4, 0, 1]);
        assert!(b.is_empty());
        e.append(&mut b);
        assert_eq!(e.len(), 5);
        let mut t = e.take();
        assert!(e.is_empty());
        assert_eq!(t.len(), 5);
        t.extend(batch(3));
        assert_eq!(t.len(), 8);
    }

    #[test]
    fn split_by_routes_and_drops_out_of_range() {
        let b = batch(10);
        let outs = b.split_by(3, |p| p.data()[0] as usize % 4);
        assert_eq!(outs.len(), 3);
        assert_eq!(ids(&outs[0]), vec![0, 4, 8]);
        assert_eq!(ids(&outs[1]), vec![1, 5, 9]);
        assert_eq!(ids(&outs[2]), vec![2, 6]);
        // index 3 dropped
        let mut outs = [PacketBatch::new(), PacketBatch::new()];
        batch(5).split_into(&mut outs, |p| (p.data()[0] >= 3) as usize);
        assert_eq!(ids(&outs[0]), vec![0, 1, 2]);
        assert_eq!(ids(&outs[1]), vec![3, 4]);
        assert!(batch(3).split_by(0, |_| 0).is_empty());
        let (even, odd) = batch(6).partition(|p| p.data()[0] % 2 == 0);
        assert_eq!(ids(&even), vec![0, 2, 4]);
        assert_eq!(ids(&odd), vec![1, 3, 5]);
    }

    #[test]
    fn batches_reuse_storage() {
        let round = || {
            let b = batch(20);
            let (mut x, mut y) = b.partition(|p| p.data()[0] < 10);
            x.append(&mut y);
            for p in x {
                drop(p);
            }
        };
        round(); // warm up: three vectors live at once
        let before = pool::stats();
        for _ in 0..100 {
            round();
        }
        let d = pool::stats().since(&before);
        assert_eq!(d.batch_allocs, 0, "{d:?}");
        assert!(d.batch_reuses >= 300);
    }

    #[test]
    fn push_clones_edge_cases() {
        let p = Packet::from_slice(b"abc");
        let mut b = PacketBatch::new();
        b.push_clones(&p, 0);
        assert!(b.is_empty());
        b.push_clones(&p, 1); // inline slot, no storage
        assert_eq!(b.len(), 1);
        assert!(b.inline());
        b.push_clones(&p, 1); // spills
        assert_eq!(b.len(), 2);
        assert!(!b.inline());
        b.push(Packet::from_slice(b"x"));
        b.push_clones(&p, 70); // grows past the pooled capacity
        assert_eq!(b.len(), 73);
        assert_eq!(b[2].data(), b"x");
        assert!(b
            .iter()
            .enumerate()
            .all(|(i, q)| i == 2 || q.data() == b"abc"));
        assert_eq!(p.share_count(), 73);
        let mut c = PacketBatch::from(Packet::from_slice(b"y"));
        c.push_clones(&p, 3); // from the inline packet
        assert_eq!(ids(&c), vec![b'y', b'a', b'a', b'a']);
        drop((b, c));
        assert!(!p.is_shared());
    }

    #[test]
    fn push_clones_copies_metadata_and_keeps_cow() {
        let mut p = Packet::make(10, b"hello", 2);
        p.set_network_header(1, 2);
        p.anno_mut().paint = 9;
        let mut b = PacketBatch::with_capacity(4);
        b.push_clones(&p, 4);
        for q in b.iter() {
            assert_eq!((q.headroom(), q.tailroom()), (10, 2));
            assert_eq!(q.network_header_offset(), Some(1));
            assert_eq!(q.anno().paint, 9);
        }
        b[0].data_mut()[0] = b'J';
        assert_eq!(b[0].data(), b"Jello");
        assert_eq!(b[1].data(), b"hello");
        assert_eq!(p.data(), b"hello");
        assert_eq!(p.share_count(), 4);
    }

    #[test]
    fn push_clones_takes_and_returns_headers_in_bulk() {
        pool::clear();
        let p = Packet::from_slice(b"bulk");
        pool::preallocate(10, 4);
        let before = pool::stats();
        let mut b = PacketBatch::with_capacity(32);
        b.push_clones(&p, 32); // 10 pooled headers (their buffers move to spare), 22 new
        let d = pool::stats().since(&before);
        assert_eq!((d.header_reuses, d.header_allocs), (10, 22), "{d:?}");
        assert_eq!(pool::idle().0, 0);
        assert_eq!(pool::idle().1, 10, "detached buffers stay idle");
        drop(b);
        assert_eq!(pool::idle().0, 32, "every header came back");
        assert!(!p.is_shared());
        // Steady state: nothing allocated.
        let before = pool::stats();
        for _ in 0..100 {
            let mut b = PacketBatch::with_capacity(32);
            b.push_clones(&p, 32);
            drop(b);
        }
        let d = pool::stats().since(&before);
        assert_eq!(d.allocations(), 0, "{d:?}");
        assert_eq!(d.header_reuses, 3200);
        pool::clear();
    }

    #[test]
    fn dropped_batch_recycles_buffers_and_respects_bounds() {
        pool::clear();
        // Unique buffers come back attached to their headers.
        let b: PacketBatch = (0..40).map(|_| Packet::with_len(60)).collect();
        drop(b);
        assert_eq!(pool::idle().0, 40);
        assert_eq!(pool::idle().1, 40);
        // A batch larger than the pool's header bound: the surplus is freed.
        let p = Packet::from_slice(b"z");
        let mut b = PacketBatch::new();
        b.push_clones(&p, pool::MAX_POOLED_HEADERS + 5);
        let before = pool::stats();
        drop(b);
        let d = pool::stats().since(&before);
        assert_eq!(pool::idle().0, pool::MAX_POOLED_HEADERS);
        assert_eq!(d.header_frees, 5, "{d:?}");
        assert!(!p.is_shared());
        pool::clear();
    }
}
