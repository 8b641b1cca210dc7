//! Thread-local recycling of packet headers, data buffers and batch vectors,
//! with a process-wide depot that moves whole chunks between threads.
//!
//! Why this file is long: its tests. About 900 lines of code, the
//! thread-local pool in one piece since every path through it is hot, and
//! 440 lines of tests of its accounting; the depot is in `depot.rs`.
//!
//! Every thread has its own pool (no locks, no atomics). Three kinds of
//! objects are recycled:
//!
//! * **headers**: the boxed struct holding a packet's offsets and
//!   annotations. Taken by [`Packet::make`](crate::Packet::make) and
//!   [`Packet::clone`](crate::Packet), returned when a packet is dropped.
//! * **buffers**: data buffers of exactly [`STD_BUFFER_LEN`] bytes. Any
//!   packet whose headroom + length + tailroom fits gets one (the unused tail
//!   of the buffer is invisible: `tailroom()` reports what was asked for). A
//!   buffer returns to the pool when the last packet using it is dropped.
//!   It stays attached to that packet's idle header, so the common
//!   make/drop cycle costs one pop and one push of a pointer. Buffers
//!   freed by a copy-on-write or set free by a `clone` (which needs a header
//!   but no buffer) wait in a separate spare list. Larger buffers are
//!   allocated exactly and freed normally.
//! * **batch vectors**: the backing `Vec` of a
//!   [`PacketBatch`](crate::PacketBatch), returned when the batch is dropped.
//!
//! Each list is bounded ([`MAX_POOLED_HEADERS`], [`MAX_POOLED_BUFFERS`],
//! [`MAX_POOLED_BATCHES`]). A packet made on one thread and dropped on
//! another is recycled into the dropping thread's pool.
//!
//! # The depot: chunks across threads
//!
//! In a pipeline across threads (one thread makes packets, another drops
//! them after forwarding) the making thread's pool would always be empty
//! and the dropping thread's always full. So, as in Click's packet pool
//! (per-thread pools plus a global pool of pool batches) and SMP Click's
//! per-CPU free lists, a list at its bound hands its top [`DEPOT_CHUNK`]
//! objects, as one chunk, to a process-wide *depot*, and an empty list
//! takes a chunk from the depot before falling back to the allocator.
//! Headers travel with their attached buffers. Only these chunk transfers
//! touch shared state: one short hold of a mutex per chunk of 256 objects
//! (one mutex per kind), plus one relaxed atomic load when a list is empty
//! and the depot has nothing. Taking and returning single objects stays as
//! before: thread-local, no atomics. Emptied chunk vectors go back and
//! forth through the depot too, so a steady pipeline allocates nothing.
//!
//! The depot holds at most [`MAX_DEPOT_CHUNKS`] chunks of each kind, 4096
//! objects: one thread's pool bound, enough to take in a whole pool when
//! its thread ends and to cover a producer running ahead, while idle memory
//! stays bounded by about one more thread's pool (some 9 MB of headers
//! with buffers, 8 MB of spare buffers, 1 MB of batch vectors of the
//! default capacity). A
//! chunk that finds the depot full is freed. When a thread ends, its pool
//! gives its whole chunks to the depot while there is room and frees the
//! rest.
//!
//! [`stats`] reports, for the calling thread, how many objects were freshly
//! allocated versus reused and how many chunks went to and came from the
//! depot, so tests can assert that a steady loop allocates nothing after
//! warm-up:
//!
//! ```
//! use rclick_packet::{pool, Packet};
//! let step = || {
//!     let p = Packet::from_slice(&[1; 64]);
//!     let q = p.clone();
//!     drop((p, q));
//! };
//! step(); // warm up: fills the pool with one buffer and two headers
//! let before = pool::stats();
//! for _ in 0..1000 {
//!     step();
//! }
//! assert_eq!(pool::stats().since(&before).allocations(), 0);
//! ```
//!
//! (This crate's own unit tests run with the depot off unless a test turns
//! one on, so that exact counts do not depend on other tests' threads.)

// Batch vectors are boxed on purpose: a batch is then two pointers, passed
// in registers (see the batch module's documentation).
#![allow(clippy::box_collection, clippy::vec_box)]
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
#[cfg(test)]
use std::sync::Arc;
use std::sync::{Mutex, MutexGuard};

use crate::packet::BufArc;

use crate::packet::{Buf, Header, Packet};

mod depot;
use depot::{Depot, DEPOT};

/// Length of a pooled data buffer: enough for a 1518-byte Ethernet frame plus
/// Click's default headroom and generous tailroom.
pub const STD_BUFFER_LEN: usize = 2048;
/// Maximum number of idle headers kept per thread.
pub const MAX_POOLED_HEADERS: usize = 4096;
/// Maximum number of idle data buffers kept per thread.
pub const MAX_POOLED_BUFFERS: usize = 4096;
/// Maximum number of idle batch vectors kept per thread.
pub const MAX_POOLED_BATCHES: usize = 1024;
/// Capacity of a freshly allocated batch vector.
pub const BATCH_CAPACITY: usize = 32;
/// Batch vectors whose capacity exceeds this are freed instead of pooled.
pub const MAX_POOLED_BATCH_CAPACITY: usize = 1024;
/// Objects per chunk moved between a thread's pool and the depot.
pub const DEPOT_CHUNK: usize = 256;
/// Maximum number of chunks of each kind (headers, spare buffers, batch
/// vectors) the process-wide depot holds.
pub const MAX_DEPOT_CHUNKS: usize = 16;

const _: () =
    assert!(DEPOT_CHUNK <= MAX_POOLED_BATCHES && MAX_POOLED_BATCHES <= MAX_POOLED_HEADERS);
const _: () = assert!(MAX_POOLED_HEADERS <= MAX_POOLED_BUFFERS);

/// Allocation counters of the calling thread's pool.
///
/// `*_allocs` count fresh heap allocations, `*_reuses` count objects taken
/// from the pool (including objects that came in a chunk from the depot),
/// `*_frees` count objects freed because the pool was full and the depot
/// too (or the object was not poolable, e.g. an oversized buffer).
/// `*_chunks_given` / `*_chunks_taken` count chunks of [`DEPOT_CHUNK`]
/// objects handed to and taken from the depot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Packet headers allocated.
    pub header_allocs: u64,
    /// Packet headers reused from the pool.
    pub header_reuses: u64,
    /// Packet headers freed.
    pub header_frees: u64,
    /// Data buffers allocated (of any size).
    pub buffer_allocs: u64,
    /// Data buffers reused from the pool.
    pub buffer_reuses: u64,
    /// Data buffers freed by the last packet using them.
    pub buffer_frees: u64,
    /// Batch vectors allocated.
    pub batch_allocs: u64,
    /// Batch vectors reused from the pool.
    pub batch_reuses: u64,
    /// Batch vectors freed.
    pub batch_frees: u64,
    /// Chunks of idle headers (with their attached buffers) given to the
    /// depot.
    pub header_chunks_given: u64,
    /// Chunks of idle headers taken from the depot.
    pub header_chunks_taken: u64,
    /// Chunks of spare buffers given to the depot.
    pub buffer_chunks_given: u64,
    /// Chunks of spare buffers taken from the depot.
    pub buffer_chunks_taken: u64,
    /// Chunks of batch vectors given to the depot.
    pub batch_chunks_given: u64,
    /// Chunks of batch vectors taken from the depot.
    pub batch_chunks_taken: u64,
}

impl PoolStats {
    /// Total fresh allocations (headers + buffers + batch vectors).
    pub fn allocations(&self) -> u64 {
        self.header_allocs + self.buffer_allocs + self.batch_allocs
    }

    /// Total reuses (headers + buffers + batch vectors).
    pub fn reuses(&self) -> u64 {
        self.header_reuses + self.buffer_reuses + self.batch_reuses
    }

    /// Total frees (headers + buffers + batch vectors).
    pub fn frees(&self) -> u64 {
        self.header_frees + self.buffer_frees + self.batch_frees
    }

    /// Chunks of every kind given to the depot.
    pub fn chunks_given(&self) -> u64 {
        self.header_chunks_given + self.buffer_chunks_given + self.batch_chunks_given
    }

    /// Chunks of every kind taken from the depot.
    pub fn chunks_taken(&self) -> u64 {
        self.header_chunks_taken + self.buffer_chunks_taken + self.batch_chunks_taken
    }

    /// Counter differences `self - earlier` (saturating).
    pub fn since(&self, earlier: &PoolStats) -> PoolStats {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        PoolStats {
            header_allocs: d(self.header_allocs, earlier.header_allocs),
            header_reuses: d(self.header_reuses, earlier.header_reuses),
            header_frees: d(self.header_frees, earlier.header_frees),
            buffer_allocs: d(self.buffer_allocs, earlier.buffer_allocs),
            buffer_reuses: d(self.buffer_reuses, earlier.buffer_reuses),
            buffer_frees: d(self.buffer_frees, earlier.buffer_frees),
            batch_allocs: d(self.batch_allocs, earlier.batch_allocs),
            batch_reuses: d(self.batch_reuses, earlier.batch_reuses),
            batch_frees: d(self.batch_frees, earlier.batch_frees),
            header_chunks_given: d(self.header_chunks_given, earlier.header_chunks_given),
            header_chunks_taken: d(self.header_chunks_taken, earlier.header_chunks_taken),
            buffer_chunks_given: d(self.buffer_chunks_given, earlier.buffer_chunks_given),
            buffer_chunks_taken: d(self.buffer_chunks_taken, earlier.buffer_chunks_taken),
            batch_chunks_given: d(self.batch_chunks_given, earlier.batch_chunks_given),
            batch_chunks_taken: d(self.batch_chunks_taken, earlier.batch_chunks_taken),
        }
    }
}

/// How a pool reaches its depot: the process-wide one; in this crate's unit
/// tests, an optional private one (see `Pool::depot`).
#[cfg(not(test))]
type DepotRef = &'static Depot;
#[cfg(test)]
type DepotRef = Arc<Depot>;

struct Pool {
    /// Idle headers. A header may carry an attached buffer (unique, of
    /// [`STD_BUFFER_LEN`]) so that the common make/drop cycle is a single
    /// pop/push of one pointer.
    // Boxed on purpose: the boxes themselves are what is recycled, so that
    // a `Packet` stays one pointer wide.
    #[allow(clippy::vec_box)]
    headers: Vec<Box<Header>>,
    /// Number of `headers` that carry a buffer.
    attached: usize,
    /// Idle buffers not attached to a header (unique, [`STD_BUFFER_LEN`]).
    spare: Vec<BufArc>,
    batches: Vec<Box<Vec<Packet>>>,
    /// Emptied chunk vectors kept from the last chunk taken from the depot,
    /// to carry the next chunk given (or to hand back at the next take).
    #[allow(clippy::vec_box)]
    header_shell: Option<Vec<Box<Header>>>,
    spare_shell: Option<Vec<BufArc>>,
    batch_shell: Option<Vec<Box<Vec<Packet>>>>,
    stats: PoolStats,
    /// This thread's depot in unit tests: none (surplus is freed one
    /// object at a time, an empty list allocates) unless a test sets one.
    #[cfg(test)]
    depot: Option<Arc<Depot>>,
}

const ZERO_STATS: PoolStats = PoolStats {
    header_allocs: 0,
    header_reuses: 0,
    header_frees: 0,
    buffer_allocs: 0,
    buffer_reuses: 0,
    buffer_frees: 0,
    batch_allocs: 0,
    batch_reuses: 0,
    batch_frees: 0,
    header_chunks_given: 0,
    header_chunks_taken: 0,
    buffer_chunks_given: 0,
    buffer_chunks_taken: 0,
    batch_chunks_given: 0,
    batch_chunks_taken: 0,
};

thread_local! {
    static POOL: RefCell<Pool> = const {
        RefCell::new(Pool {
            headers: Vec::new(),
            attached: 0,
            spare: Vec::new(),
            batches: Vec::new(),
            header_shell: None,
            spare_shell: None,
            batch_shell: None,
            stats: ZERO_STATS,
            #[cfg(test)]
            depot: None,
        })
    };
}

/// Runs `f` on this thread's pool. Returns `None` (without running `f`) when
/// the pool is unavailable: during thread teardown, or if re-entered.
///
/// Dropping headers and buffers inside `f` is fine (it only frees memory);
/// dropping packets is not (it would re-enter), so batch vectors are
/// emptied before they get here.
#[inline]
fn with_pool<R>(f: impl FnOnce(&mut Pool) -> R) -> Option<R> {
    POOL.try_with(|p| p.try_borrow_mut().ok().map(|mut p| f(&mut p)))
        .ok()
        .flatten()
}

/// A freshly allocated idle header (kept out of line: the pooled path is
/// the hot one).
#[cold]
#[inline(never)]
fn new_header() -> Box<Header> {
    Box::new(Header::EMPTY)
}

static ZEROS: [u8; STD_BUFFER_LEN] = [0; STD_BUFFER_LEN];

#[cold]
fn new_buffer(len: usize) -> BufArc {
    if len <= STD_BUFFER_LEN {
        BufArc::from(&ZEROS[..])
    } else {
        (0..len).map(|_| 0u8).collect()
    }
}

#[inline]
fn is_poolable(b: &BufArc) -> bool {
    // We never create `Weak` references, so a strong count of 1 means this
    // is the last reference to the buffer.
    b.len() == STD_BUFFER_LEN && BufArc::count(b) == 1
}

impl Pool {
    #[inline]
    fn idle_buffers(&self) -> usize {
        self.attached + self.spare.len()
    }

    /// This thread's depot.
    #[cfg(not(test))]
    #[inline(always)]
    fn depot(&self) -> Option<DepotRef> {
        Some(&DEPOT)
    }

    /// This thread's depot: none unless a test set one.
    #[cfg(test)]
    fn depot(&self) -> Option<DepotRef> {
        self.depot.clone()
    }

    /// Number of idle headers from `from` on that carry a buffer.
    fn attached_from(&self, from: usize) -> usize {
        self.headers[from..]
            .iter()
            .filter(|h| h.buf.is_heap())
            .count()
    }

    /// Hands the top [`DEPOT_CHUNK`] idle headers, with their attached
    /// buffers, to the depot, or frees them if the depot is full. Returns
    /// false (nothing done) without a depot or with fewer headers.
    #[cold]
    #[inline(never)]
    fn shed_headers(&mut self) -> bool {
        if self.headers.len() < DEPOT_CHUNK {
            return false;
        }
        let Some(depot) = self.depot() else {
            return false;
        };
        let from = self.headers.len() - DEPOT_CHUNK;
        let bufs = self.attached_from(from);
        self.attached -= bufs;
        if depot
            .headers
            .give(&mut self.headers, &mut self.header_shell)
        {
            self.stats.header_chunks_given += 1;
        } else {
            self.headers.truncate(from);
            self.stats.header_frees += DEPOT_CHUNK as u64;
            self.stats.buffer_frees += bufs as u64;
        }
        true
    }

    /// Takes a chunk of headers from the depot if there is one and room
    /// for it. Spare buffers beyond the buffer bound (rare: the taken
    /// headers carry buffers) are freed.
    #[cold]
    #[inline(never)]
    fn refill_headers(&mut self) -> bool {
        if self.headers.len() + DEPOT_CHUNK > MAX_POOLED_HEADERS {
            return false;
        }
        let Some(depot) = self.depot() else {
            return false;
        };
        let from = self.headers.len();
        if !depot
            .headers
            .take(&mut self.headers, &mut self.header_shell)
        {
            return false;
        }
        self.stats.header_chunks_taken += 1;
        self.attached += self.attached_from(from);
        let over = self.idle_buffers().saturating_sub(MAX_POOLED_BUFFERS);
        let over = over.min(self.spare.len());
        if over > 0 {
            self.spare.truncate(self.spare.len() - over);
            self.stats.buffer_frees += over as u64;
        }
        true
    }

    /// Hands the top [`DEPOT_CHUNK`] spare buffers to the depot, or frees
    /// them if the depot is full. False (nothing done) without a depot or
    /// with fewer spare buffers.
    #[cold]
    #[inline(never)]
    fn shed_spare(&mut self) -> bool {
        if self.spare.len() < DEPOT_CHUNK {
            return false;
        }
        let Some(depot) = self.depot() else {
            return false;
        };
        if depot.buffers.give(&mut self.spare, &mut self.spare_shell) {
            self.stats.buffer_chunks_given += 1;
        } else {
            self.spare.truncate(self.spare.len() - DEPOT_CHUNK);
            self.stats.buffer_frees += DEPOT_CHUNK as u64;
        }
        true
    }

    /// Takes a chunk of spare buffers from the depot if there is one and
    /// room for it.
    #[cold]
    #[inline(never)]
    fn refill_spare(&mut self) -> bool {
        if self.idle_buffers() + DEPOT_CHUNK > MAX_POOLED_BUFFERS {
            return false;
        }
        let Some(depot) = self.depot() else {
            return false;
        };
        let took = depot.buffers.take(&mut self.spare, &mut self.spare_shell);
        self.stats.buffer_chunks_taken += took as u64;
        took
    }

    /// Makes room for one more idle buffer by shedding a chunk of spare
    /// buffers, or else of headers with attached buffers. False if there
    /// is still no room (no depot).
    #[cold]
    #[inline(never)]
    fn make_buffer_room(&mut self) -> bool {
        let _ = self.shed_spare() || self.shed_headers();
        self.idle_buffers() < MAX_POOLED_BUFFERS
    }

    /// Hands the top [`DEPOT_CHUNK`] batch vectors to the depot, or frees
    /// them if the depot is full. False (nothing done) without a depot.
    #[cold]
    #[inline(never)]
    fn shed_batches(&mut self) -> bool {
        if self.batches.len() < DEPOT_CHUNK {
            return false;
        }
        let Some(depot) = self.depot() else {
            return false;
        };
        if depot.batches.give(&mut self.batches, &mut self.batch_shell) {
            self.stats.batch_chunks_given += 1;
        } else {
            self.batches.truncate(self.batches.len() - DEPOT_CHUNK);
            self.stats.batch_frees += DEPOT_CHUNK as u64;
        }
        true
    }

    /// Takes a chunk of batch vectors from the depot if there is one and
    /// room for it.
    #[cold]
    #[inline(never)]
    fn refill_batches(&mut self) -> bool {
        if self.batches.len() + DEPOT_CHUNK > MAX_POOLED_BATCHES {
            return false;
        }
        let Some(depot) = self.depot() else {
            return false;
        };
        let took = depot.batches.take(&mut self.batches, &mut self.batch_shell);
        self.stats.batch_chunks_taken += took as u64;
        took
    }

    /// Counts a header taken from `headers`.
    #[inline(always)]
    fn reused_header(&mut self, h: Box<Header>) -> Box<Header> {
        self.stats.header_reuses += 1;
        if h.buf.is_heap() {
            self.attached -= 1;
        }
        h
    }

    /// A header when this thread has none idle: from a depot chunk, or
    /// freshly allocated.
    #[cold]
    #[inline(never)]
    fn header_slow(&mut self) -> Box<Header> {
        if self.refill_headers() {
            if let Some(h) = self.headers.pop() {
                return self.reused_header(h);
            }
        }
        self.stats.header_allocs += 1;
        new_header()
    }

    /// A header, possibly with an attached buffer.
    #[inline]
    fn pop_header(&mut self) -> Box<Header> {
        match self.headers.pop() {
            Some(h) => self.reused_header(h),
            None => self.header_slow(),
        }
    }

    /// A header with `buf == None`; an attached buffer moves to the spare
    /// list.
    #[inline]
    fn pop_bare_header(&mut self) -> Box<Header> {
        let mut h = self.pop_header();
        if let Buf::Heap(b) = h.buf.take() {
            self.spare.push(b); // still counted in idle_buffers: no bound change
        }
        h
    }

    /// A unique buffer of at least `len` bytes from the spare list (refilled
    /// from the depot when empty), or new.
    #[inline]
    fn spare_buffer(&mut self, len: usize) -> BufArc {
        if len <= STD_BUFFER_LEN {
            if let Some(b) = self.spare.pop() {
                self.stats.buffer_reuses += 1;
                return b;
            }
        }
        self.spare_buffer_slow(len)
    }

    /// [`spare_buffer`](Self::spare_buffer) when the spare list is empty
    /// or `len` too large.
    #[cold]
    #[inline(never)]
    fn spare_buffer_slow(&mut self, len: usize) -> BufArc {
        if len <= STD_BUFFER_LEN && self.refill_spare() {
            if let Some(b) = self.spare.pop() {
                self.stats.buffer_reuses += 1;
                return b;
            }
        }
        self.stats.buffer_allocs += 1;
        new_buffer(len)
    }

    /// Keeps an unattached buffer if it is poolable and there is room;
    /// otherwise drops it (which frees it, or just decrements its count).
    #[inline]
    fn stash(&mut self, b: BufArc) {
        if !is_poolable(&b) {
            if BufArc::count(&b) == 1 {
                self.stats.buffer_frees += 1;
            }
        } else if self.idle_buffers() < MAX_POOLED_BUFFERS {
            self.spare.push(b);
        } else {
            self.stash_over_bound(b);
        }
    }

    /// [`stash`](Self::stash) when the idle buffers are at their bound.
    #[cold]
    #[inline(never)]
    fn stash_over_bound(&mut self, b: BufArc) {
        if self.make_buffer_room() {
            self.spare.push(b);
        } else {
            self.stats.buffer_frees += 1;
        }
    }

    /// Takes back a dropped packet's header, keeping its buffer attached if
    /// this was the buffer's last user.
    #[inline(always)]
    fn put_header(&mut self, mut h: Box<Header>) {
        // (Room for the header first, so that the common path below stays
        // the same as without a depot.)
        if self.headers.len() >= MAX_POOLED_HEADERS && !self.shed_headers() {
            self.free_header(h);
            return;
        }
        match &h.buf {
            Buf::Heap(b) => {
                if !is_poolable(b)
                    || (self.idle_buffers() >= MAX_POOLED_BUFFERS && !self.make_buffer_room())
                {
                    if BufArc::count(b) == 1 {
                        self.stats.buffer_frees += 1;
                    }
                    h.buf = Buf::None;
                }
            }
            // Template buffers are immortal: nothing to release.
            Buf::Static(_) => h.buf = Buf::None,
            Buf::None => {}
        }
        if h.buf.is_heap() {
            self.attached += 1;
        }
        self.headers.push(h);
    }

    /// Frees a dropped packet's header when there is no room for it (no
    /// depot: tests only), and its buffer if this was the last user.
    #[cold]
    #[inline(never)]
    fn free_header(&mut self, h: Box<Header>) {
        self.stats.header_frees += 1;
        if let Buf::Heap(b) = &h.buf {
            if BufArc::count(b) == 1 {
                self.stats.buffer_frees += 1;
            }
        }
        drop(h);
    }

    /// A header with a unique buffer of at least `len` bytes.
    #[inline]
    fn header_with_buffer(&mut self, len: usize) -> Box<Header> {
        let mut h = match self.headers.pop() {
            Some(h) => h,
            None => return self.header_with_buffer_slow(len),
        };
        self.stats.header_reuses += 1;
        // Idle headers carry a heap buffer or none.
        if let Buf::Heap(_) = &h.buf {
            // Attached buffers are all STD_BUFFER_LEN long.
            if len <= STD_BUFFER_LEN {
                self.attached -= 1;
                self.stats.buffer_reuses += 1;
                return h;
            }
            self.detach_buffer(&mut h);
        }
        h.buf = Buf::Heap(self.spare_buffer(len));
        h
    }

    /// Moves an idle header's attached buffer to the spare list (or frees
    /// it), for a packet that needs a larger one.
    #[cold]
    #[inline(never)]
    fn detach_buffer(&mut self, h: &mut Header) {
        if let Buf::Heap(b) = h.buf.take() {
            self.attached -= 1;
            self.stash(b);
        }
    }

    /// [`header_with_buffer`](Self::header_with_buffer) when this thread
    /// has no idle header.
    #[cold]
    #[inline(never)]
    fn header_with_buffer_slow(&mut self, len: usize) -> Box<Header> {
        let mut h = self.header_slow();
        match &h.buf {
            Buf::Heap(_) if len <= STD_BUFFER_LEN => self.stats.buffer_reuses += 1,
            Buf::Heap(_) => {
                if let Buf::Heap(b) = h.buf.take() {
                    self.stash(b);
                }
                h.buf = Buf::Heap(self.spare_buffer(len));
            }
            _ => h.buf = Buf::Heap(self.spare_buffer(len)),
        }
        h
    }

    /// Takes chunks from the depot until `n` headers are idle, the depot
    /// is empty, or there is no room for another chunk.
    #[cold]
    #[inline(never)]
    fn refill_headers_for(&mut self, n: usize) {
        while self.headers.len() < n && self.refill_headers() {}
    }
}

impl Drop for Pool {
    /// Thread exit: whole chunks go to the depot while it has room; the
    /// rest is freed with the pool's vectors.
    fn drop(&mut self) {
        let Some(depot) = self.depot() else {
            return;
        };
        while self.headers.len() >= DEPOT_CHUNK
            && depot
                .headers
                .give(&mut self.headers, &mut self.header_shell)
        {}
        while self.spare.len() >= DEPOT_CHUNK
            && depot.buffers.give(&mut self.spare, &mut self.spare_shell)
        {}
        while self.batches.len() >= DEPOT_CHUNK
            && depot.batches.give(&mut self.batches, &mut self.batch_shell)
        {}
    }
}

/// A header with `buf == None`, from the pool or freshly allocated. Other
/// fields are unspecified.
#[inline]
pub(crate) fn take_header() -> Box<Header> {
    with_pool(|p| p.pop_bare_header()).unwrap_or_else(new_header)
}

/// Appends `n` packets made by `make` to `v`, each from a header with
/// `buf == None` (pooled or new), with one pool access. `make` must not
/// touch the pool (it would find it unavailable).
#[inline]
pub(crate) fn extend_with_headers(
    v: &mut Vec<Packet>,
    n: usize,
    mut make: impl FnMut(Box<Header>) -> Packet,
) {
    v.reserve(n);
    let done = with_pool(|p| {
        if p.headers.len() < n {
            p.refill_headers_for(n);
        }
        // The last `k` idle headers (the most recently used), then fresh
        // ones.
        let k = n.min(p.headers.len());
        p.stats.header_reuses += k as u64;
        p.stats.header_allocs += (n - k) as u64;
        let Pool {
            headers,
            attached,
            spare,
            ..
        } = p;
        let from = headers.len() - k;
        v.extend(headers.drain(from..).map(|mut h| {
            if let Buf::Heap(b) = h.buf.take() {
                *attached -= 1;
                spare.push(b); // still counted in idle_buffers
            }
            make(h)
        }));
        v.extend((k..n).map(|_| make(new_header())));
    });
    if done.is_none() {
        v.extend((0..n).map(|_| make(new_header())));
    }
}

/// A header whose `buf` is a unique buffer of at least `len` bytes. All other
/// header fields are unspecified.
#[inline]
pub(crate) fn take_header_and_buffer(len: usize) -> Box<Header> {
    with_pool(|p| p.header_with_buffer(len)).unwrap_or_else(|| {
        let mut h = new_header();
        h.buf = Buf::Heap(new_buffer(len));
        h
    })
}

/// A unique buffer of at least `len` bytes.
#[inline]
pub(crate) fn take_buffer(len: usize) -> BufArc {
    with_pool(|p| p.spare_buffer(len)).unwrap_or_else(|| new_buffer(len))
}

/// Releases one reference to `b`, pooling the buffer if it was the last.
#[inline]
pub(crate) fn release_buffer(b: BufArc) {
    // If the pool is unavailable the closure, and `b` with it, is dropped.
    with_pool(move |p| p.stash(b));
}

/// Returns a dropped packet's header (and its buffer, if no other packet
/// shares it) to the pool.
#[inline]
pub(crate) fn recycle_header(h: Box<Header>) {
    with_pool(move |p| p.put_header(h));
}

/// An empty vector for a batch: pooled (from this thread's list, refilled
/// from the depot when empty), or freshly allocated with [`BATCH_CAPACITY`].
#[inline]
pub(crate) fn take_batch_vec() -> Box<Vec<Packet>> {
    with_pool(|p| {
        if p.batches.is_empty() {
            p.refill_batches();
        }
        match p.batches.pop() {
            Some(v) => {
                p.stats.batch_reuses += 1;
                v
            }
            None => {
                p.stats.batch_allocs += 1;
                Box::new(Vec::with_capacity(BATCH_CAPACITY))
            }
        }
    })
    .unwrap_or_else(|| Box::new(Vec::with_capacity(BATCH_CAPACITY)))
}

/// Returns an allocated batch vector to the pool, its packets' headers (and
/// buffers no other packet uses) with it. Out of line, so that dropping a
/// batch of one packet (no vector) stays small.
#[inline(never)]
pub(crate) fn recycle_batch_vec(mut v: Box<Vec<Packet>>) {
    if v.capacity() == 0 {
        return;
    }
    // One pool access for the packets and the vector. If the pool is
    // unavailable, `v` drops with the closure and its packets drop one by
    // one (freeing their memory).
    with_pool(move |p| {
        for pkt in v.drain(..) {
            if let Some(h) = pkt.into_header() {
                p.put_header(h);
            }
        }
        if v.capacity() <= MAX_POOLED_BATCH_CAPACITY
            && (p.batches.len() < MAX_POOLED_BATCHES || p.shed_batches())
        {
            p.batches.push(v);
        } else {
            p.stats.batch_frees += 1;
        }
    });
}

/// The calling thread's pool counters.
pub fn stats() -> PoolStats {
    with_pool(|p| p.stats).unwrap_or_default()
}

/// Resets the calling thread's pool counters to zero.
pub fn reset_stats() {
    with_pool(|p| p.stats = PoolStats::default());
}

/// Numbers of idle objects in the calling thread's pool:
/// `(headers, buffers, batch vectors)`.
pub fn idle() -> (usize, usize, usize) {
    with_pool(|p| (p.headers.len(), p.idle_buffers(), p.batches.len())).unwrap_or((0, 0, 0))
}

/// Pre-fills the calling thread's pool with up to `packets` headers (each
/// with a standard buffer) and up to `batches` batch vectors (bounded by the
/// pool limits), so that the first packets do not allocate.
pub fn preallocate(packets: usize, batches: usize) {
    with_pool(|p| {
        while p.headers.len() < packets.min(MAX_POOLED_HEADERS) {
            let mut h = new_header();
            p.stats.header_allocs += 1;
            if p.idle_buffers() < MAX_POOLED_BUFFERS {
                h.buf = Buf::Heap(new_buffer(STD_BUFFER_LEN));
                p.stats.buffer_allocs += 1;
                p.attached += 1;
            }
            p.headers.push(h);
        }
        while p.batches.len() < batches.min(MAX_POOLED_BATCHES) {
            p.stats.batch_allocs += 1;
            p.batches.push(Box::new(Vec::with_capacity(BATCH_CAPACITY)));
        }
    });
}

/// Frees every idle object in the calling thread's pool (counters are kept;
/// the depot is left alone).
pub fn clear() {
    let taken = with_pool(|p| {
        p.attached = 0;
        (
            std::mem::take(&mut p.headers),
            std::mem::take(&mut p.spare),
            std::mem::take(&mut p.batches),
            (
                p.header_shell.take(),
                p.spare_shell.take(),
                p.batch_shell.take(),
            ),
        )
    });
    drop(taken);
}

/// Numbers of idle objects in the process-wide depot: `(headers, spare
/// buffers, batch vectors)`. Each kind holds at most [`MAX_DEPOT_CHUNKS`]
/// × [`DEPOT_CHUNK`]; headers there may carry buffers too.
///
/// A thread that ends leaves its pool's whole chunks there for others:
///
/// ```
/// use rclick_packet::{pool, Packet};
/// std::thread::spawn(|| {
///     let v: Vec<Packet> = (0..pool::DEPOT_CHUNK).map(|_| Packet::with_len(60)).collect();
///     drop(v); // this thread's pool now holds DEPOT_CHUNK headers with buffers
/// })
/// .join()
/// .unwrap();
/// assert_eq!(pool::depot_idle().0, pool::DEPOT_CHUNK);
/// let before = pool::stats();
/// let v: Vec<Packet> = (0..pool::DEPOT_CHUNK).map(|_| Packet::with_len(60)).collect();
/// let d = pool::stats().since(&before);
/// assert_eq!((d.allocations(), d.header_chunks_taken), (0, 1));
/// assert_eq!(pool::depot_idle(), (0, 0, 0));
/// # drop(v);
/// ```
pub fn depot_idle() -> (usize, usize, usize) {
    DEPOT.held()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Packet, PacketBatch};
    use std::sync::mpsc;

    #[test]
    fn steady_state_allocates_nothing() {
        let round = |r: u32| {
            let mut b = PacketBatch::new();
            for i in 0..64u8 {
                let mut p = Packet::make(28, &[i; 60], 0);
                p.set_network_header(14, 20);
                p.anno_mut().paint = i;
                let q = p.clone();
                p.data_mut()[0] = 1; // copy-on-write: takes a pooled buffer
                b.push(p);
                b.push(q);
            }
            let (evens, odds) = b.partition(|p| p.anno().paint % 2 == 0);
            assert_eq!(evens.len() + odds.len(), 128, "round {r}");
        };
        round(0); // warm up
        let before = stats();
        for r in 0..1000u32 {
            round(r);
        }
        let d = stats().since(&before);
        assert_eq!(d.allocations(), 0, "{d:?}");
        assert!(d.reuses() > 0);
        assert_eq!(d.header_frees + d.buffer_frees + d.batch_frees, 0, "{d:?}");
    }

    #[test]
    fn pool_is_bounded() {
        clear();
        let many: Vec<Packet> = (0..MAX_POOLED_HEADERS + 10)
            .map(|_| Packet::with_len(10))
            .collect();
        let before = stats();
        drop(many);
        let (h, b, _) = idle();
        assert_eq!(h, MAX_POOLED_HEADERS);
        assert_eq!(b, MAX_POOLED_BUFFERS);
        let d = stats().since(&before);
        assert_eq!(d.header_frees, 10);
        assert_eq!(d.buffer_frees, 10);
        clear();
        assert_eq!(idle(), (0, 0, 0));
    }

    #[test]
    fn large_buffers_are_not_pooled() {
        clear();
        let before = stats();
        let p = Packet::make(0, &[7; 5000], 0);
        assert_eq!(p.len(), 5000);
        drop(p);
        let d = stats().since(&before);
        assert_eq!(d.buffer_allocs, 1);
        assert_eq!(d.buffer_frees, 1);
        assert_eq!(idle().1, 0);
    }

    #[test]
    fn preallocate_then_no_allocs() {
        clear();
        preallocate(100, 10);
        assert_eq!(idle(), (100, 100, 10));
        let before = stats();
        let v: Vec<Packet> = (0..100).map(|_| Packet::with_len(64)).collect();
        let mut b = PacketBatch::new();
        b.extend(v);
        assert_eq!(stats().since(&before).allocations(), 0);
    }

    #[test]
    fn cross_thread_drop_recycles_in_dropping_thread() {
        let p = Packet::from_slice(b"hello");
        let q = p.clone();
        let t = std::thread::spawn(move || {
            let before = stats();
            drop(p);
            let d = stats().since(&before);
            (idle(), d)
        });
        let ((h, b, _), _) = t.join().unwrap();
        assert_eq!(h, 1);
        assert_eq!(b, 0, "buffer still shared with q");
        assert_eq!(q.data(), b"hello");
        assert!(!q.is_shared());
    }

    /// Points the calling thread's pool at `depot` (or at none).
    fn use_depot(depot: Option<&Arc<Depot>>) {
        with_pool(|p| p.depot = depot.cloned()).unwrap();
    }

    enum Msg {
        Batch(PacketBatch),
        /// Answer with the consumer's counters once every earlier batch is
        /// dropped.
        Sync(mpsc::SyncSender<PoolStats>),
    }

    /// Sends `Sync` and waits for the consumer's answer.
    fn sync(tx: &mpsc::SyncSender<Msg>) -> PoolStats {
        let (ack_tx, ack_rx) = mpsc::sync_channel(1);
        tx.send(Msg::Sync(ack_tx)).unwrap();
        ack_rx.recv().unwrap()
    }

    /// Headers the steady phase of `pipeline` may have in flight: batches
    /// in the channel, plus one being made and one being dropped.
    const IN_FLIGHT: usize = (CHANNEL_BOUND + 2) * BATCH;
    const CHANNEL_BOUND: usize = 4;
    const BATCH: usize = 32;

    /// Counters of a `pipeline` run.
    struct PipelineRun {
        /// The producer's, during the steady phase.
        producer: PoolStats,
        /// The consumer's, during the steady phase.
        consumer: PoolStats,
        /// The consumer's, over the whole run.
        consumer_total: PoolStats,
    }

    /// A producer thread makes batches with `fill(batch, n)` and sends them
    /// over a bounded channel to a consumer thread that drops them; both
    /// use `depot`. Warm-up: `warm_batches` batches of `warm_size` packets,
    /// all made before the first is sent, so that afterwards the producer's
    /// and consumer's pools plus the depot hold at least
    /// `warm_batches * warm_size` headers and `warm_batches` vectors. Then
    /// `steady` batches of [`BATCH`].
    fn pipeline(
        depot: &Arc<Depot>,
        warm_batches: usize,
        warm_size: usize,
        steady: usize,
        fill: impl Fn(&mut PacketBatch, usize) + Send + 'static,
    ) -> PipelineRun {
        let (tx, rx) = mpsc::sync_channel::<Msg>(CHANNEL_BOUND);
        let d = depot.clone();
        let consumer_thread = std::thread::spawn(move || {
            use_depot(Some(&d));
            for m in rx {
                match m {
                    Msg::Batch(b) => drop(b),
                    Msg::Sync(ack) => ack.send(stats()).unwrap(),
                }
            }
            stats()
        });
        let d = depot.clone();
        let producer = std::thread::spawn(move || {
            use_depot(Some(&d));
            let warm: Vec<PacketBatch> = (0..warm_batches)
                .map(|_| {
                    let mut b = PacketBatch::new();
                    fill(&mut b, warm_size);
                    b
                })
                .collect();
            for b in warm {
                tx.send(Msg::Batch(b)).unwrap();
            }
            let consumer_before = sync(&tx);
            let before = stats();
            for _ in 0..steady {
                let mut b = PacketBatch::new();
                fill(&mut b, BATCH);
                assert_eq!(b.len(), BATCH);
                tx.send(Msg::Batch(b)).unwrap();
            }
            let consumer = sync(&tx).since(&consumer_before);
            (stats().since(&before), consumer)
        });
        let (producer, consumer) = producer.join().unwrap();
        let consumer_total = consumer_thread.join().unwrap();
        PipelineRun {
            producer,
            consumer,
            consumer_total,
        }
    }

    /// Warm-up batches that leave more headers than the consumer's pool
    /// bound plus two chunks plus what can be in flight, and more vectors
    /// than its batch bound plus two chunks (see `pipeline`).
    const WARM_BATCHES: usize = MAX_POOLED_BATCHES + 2 * DEPOT_CHUNK + CHANNEL_BOUND + 2;
    const WARM_SIZE: usize =
        (MAX_POOLED_HEADERS + 2 * DEPOT_CHUNK + IN_FLIGHT).div_ceil(WARM_BATCHES);

    #[test]
    fn pipeline_allocates_nothing_after_warm_up() {
        // Once the objects made during warm-up circulate (consumer's pool
        // -> depot -> producer's pool -> packets -> consumer), neither side
        // allocates: whenever the producer's list is empty, the depot holds
        // what the consumer's bounded pool and the bounded channel cannot.
        let depot = Arc::new(Depot::new());
        let frame = [0x45u8; 60];
        let run = pipeline(&depot, WARM_BATCHES, WARM_SIZE, 1000, move |b, n| {
            for _ in 0..n {
                b.push(Packet::make(28, &frame, 0));
            }
        });
        let (p, c) = (run.producer, run.consumer);
        assert_eq!(p.allocations(), 0, "producer {p:?}");
        assert_eq!(c.allocations(), 0, "consumer {c:?}");
        assert_eq!(run.consumer_total.allocations(), 0);
        assert_eq!(p.header_reuses, 32_000);
        assert_eq!(p.buffer_reuses, 32_000, "buffers travel attached");
        assert_eq!(p.batch_reuses, 1000);
        // Whole chunks flowed both ways; nothing was freed.
        assert!(
            p.header_chunks_taken >= 32_000 / DEPOT_CHUNK as u64 - 1,
            "{p:?}"
        );
        assert!(
            c.header_chunks_given >= 32_000 / DEPOT_CHUNK as u64 - 1,
            "{c:?}"
        );
        assert!(p.batch_chunks_taken >= 1, "{p:?}");
        assert_eq!(p.chunks_given() + c.chunks_taken(), 0);
        assert_eq!(p.frees() + run.consumer_total.frees(), 0);
        // Both threads have ended: their pools' whole chunks are in the
        // depot, within its bound.
        let (h, b, v) = depot.held();
        assert!(h > 0 && h <= MAX_DEPOT_CHUNKS * DEPOT_CHUNK);
        assert_eq!(b, 0);
        assert!(v > 0 && v <= MAX_DEPOT_CHUNKS * DEPOT_CHUNK);
    }

    #[test]
    fn template_clones_cross_threads() {
        // A source's template, interned process-wide, cloned on the
        // producer thread and dropped on the consumer thread: headers
        // circulate through the depot, the buffer never enters a pool.
        let t = Packet::make_template(28, b"template across threads", 0).unwrap();
        let depot = Arc::new(Depot::new());
        let src = t.clone();
        let run = pipeline(&depot, WARM_BATCHES, WARM_SIZE, 1000, move |b, n| {
            b.push_clones(&src, n)
        });
        let (p, c) = (run.producer, run.consumer);
        assert_eq!(p.allocations() + c.allocations(), 0, "{p:?} {c:?}");
        assert_eq!(p.header_reuses, 32_000);
        assert_eq!(p.buffer_reuses + p.buffer_frees + c.buffer_frees, 0);
        assert!(p.header_chunks_taken > 0 && c.header_chunks_given > 0);
        assert_eq!(depot.held().1, 0, "no buffer reached the depot");
        assert_eq!(t.data(), b"template across threads");
        let mut u = t.clone();
        u.data_mut()[0] = b'T';
        assert_eq!(t.data()[0], b't');
    }

    /// Runs `f` on a new thread whose pool uses `depot`, and waits for the
    /// thread to end.
    fn on_thread(depot: &Arc<Depot>, f: impl FnOnce(&Depot) + Send + 'static) {
        let d = depot.clone();
        std::thread::spawn(move || {
            use_depot(Some(&d));
            f(&d)
        })
        .join()
        .unwrap();
    }

    #[test]
    fn depot_is_bounded() {
        // Fresh threads offer MAX_DEPOT_CHUNKS + 3 chunks of each kind
        // beyond their pool bound: the depot keeps MAX_DEPOT_CHUNKS, the
        // rest is freed, the pools stay at their bounds.
        let depot = Arc::new(Depot::new());
        let extra = (MAX_DEPOT_CHUNKS + 3) * DEPOT_CHUNK;
        let bound = MAX_DEPOT_CHUNKS * DEPOT_CHUNK;
        let freed = 3 * DEPOT_CHUNK as u64;
        on_thread(&depot, move |d| {
            // Headers, with their buffers.
            let v: Vec<Packet> = (0..MAX_POOLED_HEADERS + extra)
                .map(|_| Packet::with_len(60))
                .collect();
            let before = stats();
            drop(v);
            let s = stats().since(&before);
            assert_eq!(s.header_chunks_given, MAX_DEPOT_CHUNKS as u64);
            assert_eq!((s.header_frees, s.buffer_frees), (freed, freed));
            assert_eq!(idle(), (MAX_POOLED_HEADERS, MAX_POOLED_BUFFERS, 0));
            assert_eq!(d.held(), (bound, 0, 0));
        });
        on_thread(&depot, move |d| {
            // Spare buffers.
            let bufs: Vec<BufArc> = (0..MAX_POOLED_BUFFERS + extra)
                .map(|_| take_buffer(100))
                .collect();
            let before = stats();
            for b in bufs {
                release_buffer(b);
            }
            let s = stats().since(&before);
            assert_eq!(s.buffer_chunks_given, MAX_DEPOT_CHUNKS as u64);
            assert_eq!(s.buffer_frees, freed);
            assert_eq!(idle(), (0, MAX_POOLED_BUFFERS, 0));
            assert_eq!(d.held(), (bound, bound, 0));
        });
        on_thread(&depot, move |d| {
            // Batch vectors.
            let vecs: Vec<Box<Vec<Packet>>> = (0..MAX_POOLED_BATCHES + extra)
                .map(|_| take_batch_vec())
                .collect();
            let before = stats();
            for v in vecs {
                recycle_batch_vec(v);
            }
            let s = stats().since(&before);
            assert_eq!(s.batch_chunks_given, MAX_DEPOT_CHUNKS as u64);
            assert_eq!(s.batch_frees, freed);
            assert_eq!(idle(), (0, 0, MAX_POOLED_BATCHES));
            assert_eq!(d.held(), (bound, bound, bound));
        });
        // The exiting threads' pools found the depot full: freed.
        assert_eq!(depot.held(), (bound, bound, bound));
        // Several threads at once: still within bounds.
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let d = depot.clone();
                std::thread::spawn(move || {
                    use_depot(Some(&d));
                    let many: Vec<Packet> = (0..MAX_POOLED_HEADERS + 4 * DEPOT_CHUNK)
                        .map(|_| Packet::with_len(60))
                        .collect();
                    drop(many);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // (They took chunks of headers and spare buffers to make their
        // packets, and gave back headers with the buffers attached.)
        let (h, b, v) = depot.held();
        assert!(h <= bound && b <= bound && v <= bound, "{:?}", depot.held());
        let l = depot.headers.lock();
        assert!(l.full.len() <= MAX_DEPOT_CHUNKS && l.empty.len() <= MAX_DEPOT_CHUNKS);
        assert!(l.full.iter().all(|c| c.len() == DEPOT_CHUNK));
    }

    /// The address of `p`'s (heap) buffer, to recognise it when it is
    /// taken again; `p` is dropped as usual.
    fn watch_buffer(p: Packet) -> usize {
        let h = p.into_header().unwrap();
        let Buf::Heap(b) = &h.buf else {
            panic!("not a heap buffer")
        };
        let w = b[..].as_ptr() as usize;
        recycle_header(h);
        w
    }

    #[test]
    fn thread_exit_returns_whole_chunks_and_frees_the_rest() {
        let depot = Arc::new(Depot::new());
        let d = depot.clone();
        let n = 3 * DEPOT_CHUNK + 10;
        let watched = std::thread::spawn(move || {
            use_depot(Some(&d));
            let v: Vec<Packet> = (0..n).map(|_| Packet::with_len(60)).collect();
            recycle_batch_vec(take_batch_vec()); // one idle vector
            let w: Vec<usize> = v.into_iter().map(watch_buffer).collect();
            assert_eq!(idle(), (n, n, 1));
            assert_eq!(d.held(), (0, 0, 0));
            w
        })
        .join()
        .unwrap();
        // The thread's pool went to the depot in whole chunks; the 10
        // headers and buffers beyond them, and the lone vector, were freed.
        assert_eq!(depot.held(), (3 * DEPOT_CHUNK, 0, 0));
        // Another thread picks them up without allocating, and gives them
        // back when it ends.
        let d = depot.clone();
        let taken = std::thread::spawn(move || {
            use_depot(Some(&d));
            let before = stats();
            // What `Packet::make` takes, without writing to the watched
            // buffers.
            let v: Vec<Box<Header>> = (0..3 * DEPOT_CHUNK)
                .map(|_| take_header_and_buffer(60))
                .collect();
            let s = stats().since(&before);
            assert_eq!(s.allocations(), 0, "{s:?}");
            assert_eq!(s.header_chunks_taken, 3);
            assert_eq!(s.buffer_reuses, 3 * DEPOT_CHUNK as u64);
            assert_eq!(d.held(), (0, 0, 0));
            let taken: Vec<usize> = v
                .iter()
                .map(|h| match &h.buf {
                    Buf::Heap(b) => b[..].as_ptr() as usize,
                    _ => 0,
                })
                .collect();
            for h in v {
                recycle_header(h);
            }
            taken
        })
        .join()
        .unwrap();
        assert_eq!(depot.held(), (3 * DEPOT_CHUNK, 0, 0));
        // The buffers taken are the first thread's.
        let watched: std::collections::HashSet<usize> = watched.into_iter().collect();
        assert!(taken.iter().all(|t| watched.contains(t)));
        // Dropping the depot frees everything it held, once (leak checkers
        // see it).
        drop(depot);
    }

    #[test]
    fn depot_chunk_vectors_are_recycled() {
        // Emptied chunk vectors go back and forth with the chunks: after
        // the first round trip, moving chunks allocates no vector.
        let depot = Arc::new(Depot::new());
        let shelf = &depot.batches;
        let mut giver: Vec<Box<Vec<Packet>>> = vec![];
        let mut taker: Vec<Box<Vec<Packet>>> = vec![];
        let (mut gshell, mut tshell) = (None, None);
        let mut ptrs = std::collections::HashSet::new();
        for round in 0..10 {
            giver.extend((0..DEPOT_CHUNK).map(|_| Box::default()));
            assert!(shelf.give(&mut giver, &mut gshell));
            assert!(giver.is_empty() && gshell.is_none());
            assert!(shelf.take(&mut taker, &mut tshell));
            assert_eq!(taker.len(), DEPOT_CHUNK);
            taker.clear();
            let shell = tshell.as_ref().unwrap();
            assert!(shell.is_empty() && shell.capacity() >= DEPOT_CHUNK);
            ptrs.insert(shell.as_ptr());
            assert!(!shelf.take(&mut taker, &mut tshell), "round {round}");
        }
        assert!(ptrs.len() <= 2, "{} chunk vectors", ptrs.len());
    }
}
