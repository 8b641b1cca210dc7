//! Thread-local recycling of packet headers, data buffers and batch vectors.
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
//! [`MAX_POOLED_BATCHES`]); surplus objects are freed. A packet made on one
//! thread and dropped on another is recycled into the dropping thread's pool,
//! which is what a pipeline stage that consumes packets wants.
//!
//! [`stats`] reports, for the calling thread, how many objects were freshly
//! allocated versus reused, so tests can assert that a steady loop allocates
//! nothing after warm-up:
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

use std::cell::RefCell;
use std::sync::Arc;

use crate::packet::{Buf, Header, Packet};

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

/// Allocation counters of the calling thread's pool.
///
/// `*_allocs` count fresh heap allocations, `*_reuses` count objects taken
/// from the pool, `*_frees` count objects freed because the pool was full
/// (or the object was not poolable, e.g. an oversized buffer).
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

    /// Counter differences `self - earlier` (saturating).
    pub fn since(&self, earlier: &PoolStats) -> PoolStats {
        PoolStats {
            header_allocs: self.header_allocs.saturating_sub(earlier.header_allocs),
            header_reuses: self.header_reuses.saturating_sub(earlier.header_reuses),
            header_frees: self.header_frees.saturating_sub(earlier.header_frees),
            buffer_allocs: self.buffer_allocs.saturating_sub(earlier.buffer_allocs),
            buffer_reuses: self.buffer_reuses.saturating_sub(earlier.buffer_reuses),
            buffer_frees: self.buffer_frees.saturating_sub(earlier.buffer_frees),
            batch_allocs: self.batch_allocs.saturating_sub(earlier.batch_allocs),
            batch_reuses: self.batch_reuses.saturating_sub(earlier.batch_reuses),
            batch_frees: self.batch_frees.saturating_sub(earlier.batch_frees),
        }
    }
}

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
    spare: Vec<Arc<[u8]>>,
    batches: Vec<Vec<Packet>>,
    stats: PoolStats,
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
};

thread_local! {
    static POOL: RefCell<Pool> = const {
        RefCell::new(Pool {
            headers: Vec::new(),
            attached: 0,
            spare: Vec::new(),
            batches: Vec::new(),
            stats: ZERO_STATS,
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
fn new_buffer(len: usize) -> Arc<[u8]> {
    if len <= STD_BUFFER_LEN {
        Arc::from(&ZEROS[..])
    } else {
        (0..len).map(|_| 0u8).collect()
    }
}

#[inline]
fn is_poolable(b: &Arc<[u8]>) -> bool {
    // We never create `Weak` references, so a strong count of 1 means this
    // is the last reference to the buffer.
    b.len() == STD_BUFFER_LEN && Arc::strong_count(b) == 1
}

impl Pool {
    #[inline]
    fn idle_buffers(&self) -> usize {
        self.attached + self.spare.len()
    }

    /// A header, possibly with an attached buffer.
    #[inline]
    fn pop_header(&mut self) -> Box<Header> {
        match self.headers.pop() {
            Some(h) => {
                self.stats.header_reuses += 1;
                if h.buf.is_heap() {
                    self.attached -= 1;
                }
                h
            }
            None => {
                self.stats.header_allocs += 1;
                new_header()
            }
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

    /// A unique buffer of at least `len` bytes from the spare list, or new.
    #[inline]
    fn spare_buffer(&mut self, len: usize) -> Arc<[u8]> {
        if len <= STD_BUFFER_LEN {
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
    fn stash(&mut self, b: Arc<[u8]>) {
        if !is_poolable(&b) {
            if Arc::strong_count(&b) == 1 {
                self.stats.buffer_frees += 1;
            }
        } else if self.idle_buffers() < MAX_POOLED_BUFFERS {
            self.spare.push(b);
        } else {
            self.stats.buffer_frees += 1;
        }
    }

    /// Takes back a dropped packet's header, keeping its buffer attached if
    /// this was the buffer's last user.
    #[inline(always)]
    fn put_header(&mut self, mut h: Box<Header>) {
        match &h.buf {
            Buf::Heap(b) => {
                if !is_poolable(b) || self.idle_buffers() >= MAX_POOLED_BUFFERS {
                    if Arc::strong_count(b) == 1 {
                        self.stats.buffer_frees += 1;
                    }
                    h.buf = Buf::None;
                }
            }
            // Template buffers are immortal: nothing to release.
            Buf::Static(_) => h.buf = Buf::None,
            Buf::None => {}
        }
        if self.headers.len() < MAX_POOLED_HEADERS {
            if h.buf.is_heap() {
                self.attached += 1;
            }
            self.headers.push(h);
        } else {
            self.stats.header_frees += 1;
            if h.buf.is_heap() {
                self.stats.buffer_frees += 1;
            }
        }
    }

    /// A header with a unique buffer of at least `len` bytes.
    #[inline]
    fn header_with_buffer(&mut self, len: usize) -> Box<Header> {
        let mut h = self.pop_header();
        // Idle headers carry a heap buffer or none.
        match &h.buf {
            // Attached buffers are all STD_BUFFER_LEN long.
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
pub(crate) fn take_buffer(len: usize) -> Arc<[u8]> {
    with_pool(|p| p.spare_buffer(len)).unwrap_or_else(|| new_buffer(len))
}

/// Releases one reference to `b`, pooling the buffer if it was the last.
#[inline]
pub(crate) fn release_buffer(b: Arc<[u8]>) {
    // If the pool is unavailable the closure, and `b` with it, is dropped.
    with_pool(move |p| p.stash(b));
}

/// Returns a dropped packet's header (and its buffer, if no other packet
/// shares it) to the pool.
#[inline]
pub(crate) fn recycle_header(h: Box<Header>) {
    with_pool(move |p| p.put_header(h));
}

/// An empty vector for a batch: pooled, or freshly allocated with
/// [`BATCH_CAPACITY`].
#[inline]
pub(crate) fn take_batch_vec() -> Vec<Packet> {
    with_pool(|p| match p.batches.pop() {
        Some(v) => {
            p.stats.batch_reuses += 1;
            v
        }
        None => {
            p.stats.batch_allocs += 1;
            Vec::with_capacity(BATCH_CAPACITY)
        }
    })
    .unwrap_or_else(|| Vec::with_capacity(BATCH_CAPACITY))
}

/// Returns an allocated batch vector to the pool, its packets' headers (and
/// buffers no other packet uses) with it. Out of line, so that dropping a
/// batch of one packet (no vector) stays small.
#[inline(never)]
pub(crate) fn recycle_batch_vec(mut v: Vec<Packet>) {
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
        if v.capacity() <= MAX_POOLED_BATCH_CAPACITY && p.batches.len() < MAX_POOLED_BATCHES {
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
            p.batches.push(Vec::with_capacity(BATCH_CAPACITY));
        }
    });
}

/// Frees every idle object in the calling thread's pool (counters are kept).
pub fn clear() {
    let taken = with_pool(|p| {
        p.attached = 0;
        (
            std::mem::take(&mut p.headers),
            std::mem::take(&mut p.spare),
            std::mem::take(&mut p.batches),
        )
    });
    drop(taken);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Packet, PacketBatch};

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
}
