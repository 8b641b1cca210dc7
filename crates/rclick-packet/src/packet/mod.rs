//! [`Packet`]: a contiguous byte buffer with headroom and tailroom,
//! header offsets and annotations.
//!
//! Why this file is long: its tests. About 860 lines of code,
//! construction, data and copy-on-write, and 520 lines of tests; header
//! offsets are in `headers.rs`, annotations in `annotations.rs`.
//!
//! # Layout
//!
//! A packet is one pointer to a pooled *header* holding a reference-counted
//! *buffer* plus offsets into it:
//!
//! ```text
//!  buffer:  [ headroom | data ........................ | tailroom ]
//!           0          start                          end        buf_end
//!                      ^mac    ^network   ^transport
//! ```
//!
//! `headroom() == start`, `len() == end - start`, `tailroom() == buf_end - end`.
//! Header offsets (MAC, network, transport) are stored relative to the
//! buffer, so [`pull`](Packet::pull) / [`push`](Packet::push) move the data
//! start without invalidating them; the offsets seen through
//! [`network_header_offset`](Packet::network_header_offset) and friends are
//! relative to the current data start and may become negative after a pull,
//! exactly as in Click. Reallocation shifts them along with the bytes.
//!
//! # Sharing and copy-on-write
//!
//! [`Clone`] is Click's `clone()`: the new packet shares the buffer (one
//! atomic increment) and copies offsets and annotations. Reads never copy.
//! Every operation that writes bytes ([`data_mut`](Packet::data_mut),
//! [`push`](Packet::push), [`put`](Packet::put), the `*_mut` header
//! accessors) first makes the buffer unique, copying the whole buffer
//! (headroom and tailroom included, so header offsets stay valid) if another
//! packet shares it. So a write through one packet is never visible through
//! another. [`pull`](Packet::pull) and [`take`](Packet::take) only move
//! offsets and never copy.
//!
//! # Errors instead of panics
//!
//! Click's `pull(n)`/`take(n)` with `n > length()` complain and clamp; so do
//! [`pull`](Packet::pull) and [`take`](Packet::take) here (silently), while
//! [`try_pull`](Packet::try_pull) / [`try_take`](Packet::try_take) return an
//! error and leave the packet unchanged. [`push`](Packet::push) and
//! [`put`](Packet::put) return an error (packet unchanged) only if the
//! buffer would exceed [`MAX_BUFFER_LEN`]. Only the `make` constructors panic,
//! on sizes above [`MAX_BUFFER_LEN`] (use [`Packet::try_make`] to avoid that).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Mutex;

use crate::anno::Anno;
use crate::pool;

mod annotations;
mod headers;

/// Headroom given to packets made without an explicit headroom (Click's
/// `Packet::DEFAULT_HEADROOM`).
pub const DEFAULT_HEADROOM: usize = 28;

/// Largest buffer (headroom + length + tailroom) a packet may have: 2 GiB.
pub const MAX_BUFFER_LEN: usize = 1 << 31;

/// Extra room added beyond what is needed when `push`/`put` must reallocate
/// (Click adds 128 bytes too).
const REALLOC_SLACK: usize = 128;

/// Sentinel for "no header offset".
const NONE: u32 = u32::MAX;

/// Error from a fallible packet operation. The packet is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketError {
    /// The buffer would exceed [`MAX_BUFFER_LEN`].
    TooLarge {
        /// Buffer size that was needed.
        requested: usize,
    },
    /// Removing more bytes than the packet holds.
    TooShort {
        /// Bytes asked to remove.
        requested: usize,
        /// Bytes in the packet.
        available: usize,
    },
}

impl fmt::Display for PacketError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PacketError::TooLarge { requested } => write!(
                f,
                "packet buffer of {requested} bytes exceeds the maximum of {MAX_BUFFER_LEN}"
            ),
            PacketError::TooShort {
                requested,
                available,
            } => write!(
                f,
                "cannot remove {requested} bytes from a {available}-byte packet"
            ),
        }
    }
}

impl std::error::Error for PacketError {}

/// A shared packet buffer: reference counted without weak references
/// (`triomphe`), so that asking whether it is unique before a write is one
/// load, where `std::sync::Arc::get_mut` is a locked compare-and-swap
/// (about 14 ns a packet on Click's IP router with batches, which writes
/// each packet twice).
pub(crate) type BufArc = triomphe::Arc<[u8]>;

/// A packet's data buffer.
#[derive(Clone)]
pub(crate) enum Buf {
    /// No buffer (idle headers only).
    None,
    /// A reference-counted heap buffer; writable when the count is 1.
    Heap(BufArc),
    /// An interned, immortal buffer (see [`Packet::make_template`]): shared
    /// by definition, never written, cloned without reference counting.
    Static(&'static [u8]),
}

impl Buf {
    /// Takes the buffer out, leaving `Buf::None`.
    #[inline(always)]
    pub(crate) fn take(&mut self) -> Buf {
        std::mem::replace(self, Buf::None)
    }

    /// The buffer's bytes.
    ///
    /// `None` (an idle header's) has no bytes, so any access through it
    /// fails its bounds check; there is no separate panic path to keep
    /// (10 fewer instructions per packet on Click's IP router at BURST 32,
    /// callgrind).
    #[inline(always)]
    fn bytes(&self) -> &[u8] {
        match self {
            Buf::Heap(b) => b,
            Buf::Static(b) => b,
            Buf::None => &[],
        }
    }

    /// Whether this is a heap buffer.
    #[inline(always)]
    pub(crate) fn is_heap(&self) -> bool {
        matches!(self, Buf::Heap(_))
    }
}

/// The pooled part of a packet: buffer reference, offsets, annotations.
///
/// Invariants while owned by a live [`Packet`]: `buf` is not `Buf::None`,
/// `start <= end <= buf_end <= buf.len()`. Header offsets are either `NONE`
/// or buffer positions (which may lie outside `start..end`, or even beyond
/// `end` if the packet was trimmed; accessors check).
pub(crate) struct Header {
    pub(crate) buf: Buf,
    start: u32,
    end: u32,
    buf_end: u32,
    mac: u32,
    nh: u32,
    th: u32,
    anno: Anno,
}

impl Header {
    pub(crate) const EMPTY: Header = Header {
        buf: Buf::None,
        start: 0,
        end: 0,
        buf_end: 0,
        mac: NONE,
        nh: NONE,
        th: NONE,
        anno: Anno::DEFAULT,
    };

    /// Makes this idle header (`buf == Buf::None`) a clone of `src`: shares
    /// the buffer, copies offsets and annotations.
    #[inline(always)]
    fn clone_from_hdr(&mut self, src: &Header) {
        self.buf = src.buf.clone();
        self.start = src.start;
        self.end = src.end;
        self.buf_end = src.buf_end;
        self.mac = src.mac;
        self.nh = src.nh;
        self.th = src.th;
        self.anno = src.anno;
    }

    #[inline(always)]
    fn buf(&self) -> &[u8] {
        self.buf.bytes()
    }

    #[inline(always)]
    fn is_unique(&self) -> bool {
        // We never create `Weak` references, so a strong count of 1 means no
        // other packet can see (or start sharing) this buffer.
        match &self.buf {
            Buf::Heap(b) => BufArc::count(b) == 1,
            Buf::Static(_) => false,
            Buf::None => invalid(),
        }
    }

    /// The whole buffer, mutable, copying it first if it is shared.
    ///
    /// `Arc::get_mut` is a locked compare-and-swap (about 10 ns back to
    /// back on the development machine), so each write access pays one,
    /// and a copy-on-write pays no second one: [`unshare_mut`] copies into
    /// the new buffer through the same `&mut` it returns.
    ///
    /// [`unshare_mut`]: Header::unshare_mut
    #[inline]
    fn buf_mut(&mut self) -> &mut [u8] {
        if !self.is_unique() {
            return self.unshare_mut();
        }
        match &mut self.buf {
            Buf::Heap(b) => match BufArc::get_mut(b) {
                Some(b) => b,
                None => invalid(),
            },
            _ => invalid(),
        }
    }

    /// Copies the buffer (headroom, data and tailroom: `..buf_end`) into a
    /// new unique one, offsets unchanged, and returns it, mutable: the
    /// copy-on-write of a shared packet's first write. `reallocate(0, 0)`
    /// without the offset arithmetic and with one `Arc::get_mut` for the
    /// copy and the write that asked for it: 144 instructions plus the
    /// write's own `get_mut` before, 109 now, for a 126-byte buffer
    /// (callgrind), most of it the pool and the copy itself. One locked
    /// instruction fewer per packet took Click's IP router (BURST 32) from
    /// 77 to 68 ns per packet on a loaded machine.
    #[inline(never)]
    fn unshare_mut(&mut self) -> &mut [u8] {
        let n = self.buf_end as usize;
        let old = std::mem::replace(&mut self.buf, Buf::Heap(pool::take_buffer(n)));
        let dst = match &mut self.buf {
            Buf::Heap(b) => BufArc::get_mut(b),
            _ => None,
        };
        match (dst, old.bytes().get(..n)) {
            (Some(dst), Some(src)) => {
                dst[..n].copy_from_slice(src);
                if let Buf::Heap(old) = old {
                    pool::release_buffer(old);
                }
                dst
            }
            _ => invalid(),
        }
    }

    /// Moves the contents to a new unique buffer with `extra_head` more
    /// headroom and `extra_tail` more tailroom. The caller has checked that
    /// `buf_end + extra_head + extra_tail <= MAX_BUFFER_LEN`.
    #[cold]
    #[inline(never)]
    fn reallocate(&mut self, extra_head: usize, extra_tail: usize) {
        let old_end = self.buf_end as usize;
        let new_end = old_end + extra_head + extra_tail;
        let mut nb = pool::take_buffer(new_end);
        match BufArc::get_mut(&mut nb) {
            Some(dst) => {
                dst[extra_head..extra_head + old_end].copy_from_slice(&self.buf()[..old_end]);
            }
            None => invalid(),
        }
        if let Buf::Heap(old) = std::mem::replace(&mut self.buf, Buf::Heap(nb)) {
            pool::release_buffer(old);
        }
        let shift = extra_head as u32;
        self.start += shift;
        self.end += shift;
        self.buf_end = new_end as u32;
        for off in [&mut self.mac, &mut self.nh, &mut self.th] {
            if *off != NONE {
                *off = off.saturating_add(shift).min(NONE - 1);
            }
        }
    }

    /// Buffer position for a data-relative offset, kept below the sentinel.
    #[inline]
    fn pos(&self, offset: usize) -> u32 {
        (self.start as usize)
            .saturating_add(offset)
            .min((NONE - 1) as usize) as u32
    }

    #[inline]
    fn rel(&self, pos: u32) -> Option<isize> {
        (pos != NONE).then(|| pos as isize - self.start as isize)
    }

    #[inline]
    fn slice_from(&self, pos: u32) -> Option<&[u8]> {
        if pos == NONE {
            return None;
        }
        self.buf().get(pos as usize..self.end as usize)
    }

    #[inline]
    fn slice_from_mut(&mut self, pos: u32) -> Option<&mut [u8]> {
        if pos == NONE || pos > self.end {
            return None;
        }
        let end = self.end as usize;
        self.buf_mut().get_mut(pos as usize..end)
    }
}

#[cold]
#[inline(never)]
fn invalid() -> ! {
    unreachable!("rclick-packet: packet header without buffer (internal invariant broken)")
}

/// Most bytes of [template](Packet::make_template) buffers a process keeps
/// interned (1 MiB). Beyond that, templates get ordinary buffers.
pub const MAX_INTERNED_BYTES: usize = 1 << 20;

/// The interned template buffers and their total size.
static INTERNED: Mutex<(BTreeSet<&'static [u8]>, usize)> = Mutex::new((BTreeSet::new(), 0));

/// The interned copy of `bytes`, leaked on first use; `None` if that would
/// exceed [`MAX_INTERNED_BYTES`].
fn intern(bytes: Vec<u8>) -> Option<&'static [u8]> {
    let mut table = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    let (set, total) = &mut *table;
    if let Some(&b) = set.get(&bytes[..]) {
        return Some(b);
    }
    let new_total = total.checked_add(bytes.len())?;
    if new_total > MAX_INTERNED_BYTES {
        return None;
    }
    *total = new_total;
    let b: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    set.insert(b);
    Some(b)
}

/// The buffer length a new packet needs, `headroom + len + tailroom`,
/// checked against [`MAX_BUFFER_LEN`] (an overflowing sum is too large).
#[inline]
fn buffer_len(headroom: usize, len: usize, tailroom: usize) -> Result<usize, PacketError> {
    let total = headroom
        .checked_add(len)
        .and_then(|t| t.checked_add(tailroom))
        .unwrap_or(usize::MAX);
    check_len(total)?;
    Ok(total)
}

#[inline]
fn check_len(total: usize) -> Result<(), PacketError> {
    if total > MAX_BUFFER_LEN {
        Err(PacketError::TooLarge { requested: total })
    } else {
        Ok(())
    }
}

/// A network packet: data bytes in a (possibly shared) buffer with headroom
/// and tailroom, header offsets and [`Anno`] annotations.
///
/// A `Packet` is one pointer wide; moving it is free. See the
/// [module docs](self) for the layout, copy-on-write and error model, and
/// [`pool`] for how headers and buffers are recycled.
pub struct Packet {
    /// Always `Some` except inside `Drop` and in the batch code's hollow
    /// packets, which never reach users.
    h: Option<Box<Header>>,
}

impl Packet {
    /// Moves this packet out, leaving a hollow packet (no header) whose
    /// drop does nothing. Only the batch code uses hollow packets, and only
    /// to drop them.
    #[inline(always)]
    pub(crate) fn take_out(&mut self) -> Packet {
        Packet { h: self.h.take() }
    }

    /// Consumes the packet without running its `Drop`, returning its header
    /// (`None` for a hollow packet). For the pool's bulk recycling of a
    /// batch.
    #[inline(always)]
    pub(crate) fn into_header(self) -> Option<Box<Header>> {
        std::mem::ManuallyDrop::new(self).h.take()
    }

    /// Appends `n` clones of this packet to `v` (see [`Clone`]), taking
    /// their headers from the pool in one access.
    #[inline]
    pub(crate) fn clone_n_into(&self, n: usize, v: &mut Vec<Packet>) {
        let src = self.hdr();
        pool::extend_with_headers(v, n, |mut h| {
            h.clone_from_hdr(src);
            Packet { h: Some(h) }
        });
    }

    /// A hollow packet: no header, nothing to drop. Batches use one as their
    /// empty inline slot; it never leaves the batch code.
    pub(crate) const HOLLOW: Packet = Packet { h: None };

    /// Whether this is a hollow packet (see `take_out`).
    #[inline(always)]
    pub(crate) fn is_hollow(&self) -> bool {
        self.h.is_none()
    }

    /// The header's address, 0 for a hollow packet (no branch: the
    /// `None` of the boxed header is the null pointer).
    #[inline(always)]
    pub(crate) fn header_addr(&self) -> usize {
        self.h.as_deref().map_or(0, |h| h as *const Header as usize)
    }

    #[inline(always)]
    fn hdr(&self) -> &Header {
        match &self.h {
            Some(h) => h,
            None => invalid(),
        }
    }

    #[inline(always)]
    fn hdr_mut(&mut self) -> &mut Header {
        match &mut self.h {
            Some(h) => h,
            None => invalid(),
        }
    }

    /// A packet with the given headroom, `len` bytes of unspecified content
    /// (the caller overwrites them) and tailroom. Zeroed annotations, no
    /// header offsets.
    #[inline]
    fn alloc(headroom: usize, len: usize, tailroom: usize) -> Result<Packet, PacketError> {
        let total = buffer_len(headroom, len, tailroom)?;
        Ok(Self::fresh(
            pool::take_header_and_buffer(total),
            headroom,
            len,
            total,
        ))
    }

    /// Wraps a header whose buffer of `total` bytes is in place: data at
    /// `headroom..headroom + len`, zeroed annotations, no header offsets.
    /// The one place a new packet's bounds are set (`alloc` and
    /// `make_template`).
    #[inline(always)]
    fn fresh(mut h: Box<Header>, headroom: usize, len: usize, total: usize) -> Packet {
        h.start = headroom as u32;
        h.end = (headroom + len) as u32;
        h.buf_end = total as u32;
        h.mac = NONE;
        h.nh = NONE;
        h.th = NONE;
        h.anno = Anno::DEFAULT;
        Packet { h: Some(h) }
    }

    /// Makes a packet holding a copy of `data`, with at least `headroom`
    /// bytes before it and exactly `tailroom` bytes after it (Click's
    /// `Packet::make(headroom, data, length, tailroom)`). Annotations are
    /// zero, header offsets unset.
    ///
    /// # Panics
    ///
    /// If `headroom + data.len() + tailroom` exceeds [`MAX_BUFFER_LEN`]; see
    /// [`try_make`](Self::try_make).
    #[inline]
    pub fn make(headroom: usize, data: &[u8], tailroom: usize) -> Packet {
        match Self::try_make(headroom, data, tailroom) {
            Ok(p) => p,
            Err(e) => panic!("Packet::make: {e}"),
        }
    }

    /// Like [`make`](Self::make), but returns an error instead of panicking
    /// on oversized requests.
    #[inline]
    pub fn try_make(headroom: usize, data: &[u8], tailroom: usize) -> Result<Packet, PacketError> {
        let mut p = Self::alloc(headroom, data.len(), tailroom)?;
        let h = p.hdr_mut();
        let (s, e) = (h.start as usize, h.end as usize);
        h.buf_mut()[s..e].copy_from_slice(data);
        Ok(p)
    }

    /// Makes a *template* packet: like [`try_make`](Self::try_make), for a
    /// packet that a source clones for every packet it emits and never
    /// writes itself.
    ///
    /// The buffer (headroom, `data`, tailroom) is interned process-wide
    /// and never freed: templates with the same bytes share one buffer, so
    /// re-creating a source (a hot-swapped configuration) leaks nothing
    /// new. Clones of a template share its buffer without reference
    /// counting, which makes cloning and dropping them cheaper. A template
    /// buffer counts as shared: writing to the template or to a clone
    /// copies first, as for any shared buffer. If interning would take the
    /// process's interned bytes above [`MAX_INTERNED_BYTES`], this returns
    /// an ordinary packet, as [`try_make`](Self::try_make) would.
    pub fn make_template(
        headroom: usize,
        data: &[u8],
        tailroom: usize,
    ) -> Result<Packet, PacketError> {
        let total = buffer_len(headroom, data.len(), tailroom)?;
        if total > MAX_INTERNED_BYTES {
            return Self::try_make(headroom, data, tailroom);
        }
        let mut bytes = vec![0u8; total];
        bytes[headroom..headroom + data.len()].copy_from_slice(data);
        let Some(buf) = intern(bytes) else {
            return Self::try_make(headroom, data, tailroom);
        };
        let mut h = pool::take_header();
        h.buf = Buf::Static(buf);
        Ok(Self::fresh(h, headroom, data.len(), total))
    }

    /// Makes a packet of `len` zero bytes with the given headroom and
    /// tailroom.
    ///
    /// # Panics
    ///
    /// If `headroom + len + tailroom` exceeds [`MAX_BUFFER_LEN`].
    #[inline]
    pub fn make_zeroed(headroom: usize, len: usize, tailroom: usize) -> Packet {
        let mut p = match Self::alloc(headroom, len, tailroom) {
            Ok(p) => p,
            Err(e) => panic!("Packet::make_zeroed: {e}"),
        };
        p.data_mut().fill(0);
        p
    }

    /// Makes a packet holding a copy of `data` with [`DEFAULT_HEADROOM`] and
    /// no tailroom (Click's `Packet::make(data, length)`).
    #[inline]
    pub fn from_slice(data: &[u8]) -> Packet {
        Self::make(DEFAULT_HEADROOM, data, 0)
    }

    /// Makes a packet of `len` zero bytes with [`DEFAULT_HEADROOM`] and no
    /// tailroom (Click's `Packet::make(length)`).
    #[inline]
    pub fn with_len(len: usize) -> Packet {
        Self::make_zeroed(DEFAULT_HEADROOM, len, 0)
    }

    // ----- data -------------------------------------------------------------

    /// The packet's bytes.
    #[inline]
    pub fn data(&self) -> &[u8] {
        let h = self.hdr();
        &h.buf()[h.start as usize..h.end as usize]
    }

    /// The packet's bytes, mutable. Copies the buffer first if it is shared
    /// with a clone (headroom, tailroom and header offsets are preserved).
    #[inline]
    pub fn data_mut(&mut self) -> &mut [u8] {
        let h = self.hdr_mut();
        let (s, e) = (h.start as usize, h.end as usize);
        &mut h.buf_mut()[s..e]
    }

    /// Number of data bytes (Click's `length()`).
    #[inline]
    pub fn len(&self) -> usize {
        let h = self.hdr();
        (h.end - h.start) as usize
    }

    /// True if the packet has no data bytes.
    #[inline]
    pub fn is_empty(&self) -> bool {
        let h = self.hdr();
        h.end == h.start
    }

    /// Bytes available in front of the data without reallocating.
    #[inline]
    pub fn headroom(&self) -> usize {
        self.hdr().start as usize
    }

    /// Bytes available after the data without reallocating.
    #[inline]
    pub fn tailroom(&self) -> usize {
        let h = self.hdr();
        (h.buf_end - h.end) as usize
    }

    /// Headroom + length + tailroom (Click's `buffer_length()`).
    #[inline]
    pub fn buffer_len(&self) -> usize {
        self.hdr().buf_end as usize
    }

    // ----- sharing ----------------------------------------------------------

    /// True if another packet shares this packet's buffer (Click's
    /// `shared()`); writing will then copy.
    #[inline]
    pub fn is_shared(&self) -> bool {
        !self.hdr().is_unique()
    }

    /// Number of packets sharing this buffer, this one included (Click's
    /// `use_count()`). A [template](Self::make_template) buffer is shared
    /// by every packet made from the template and is not counted: it
    /// reports `usize::MAX`.
    #[inline]
    pub fn share_count(&self) -> usize {
        match &self.hdr().buf {
            Buf::Heap(b) => BufArc::count(b),
            Buf::Static(_) => usize::MAX,
            Buf::None => invalid(),
        }
    }

    /// Makes the buffer unique, copying it if shared (Click's
    /// `uniqueify()`). Writes do this automatically; call it to pay the copy
    /// at a chosen point.
    #[inline]
    pub fn uniqueify(&mut self) {
        let h = self.hdr_mut();
        if !h.is_unique() {
            h.unshare_mut();
        }
    }

    // ----- push / pull / put / take -----------------------------------------

    /// Adds `n` zero bytes in front of the data (Click's `push()`). Uses the
    /// headroom if there is enough, otherwise reallocates with
    /// `(n + 128) & !3` bytes of extra headroom, as Click does. Copies first
    /// if the buffer is shared. Header offsets keep pointing at the same
    /// bytes.
    ///
    /// Errors (packet unchanged) only if the buffer would exceed
    /// [`MAX_BUFFER_LEN`].
    #[inline]
    pub fn push(&mut self, n: usize) -> Result<(), PacketError> {
        let h = self.hdr_mut();
        let start = h.start as usize;
        if n > start {
            let extra = n.saturating_add(REALLOC_SLACK) & !3;
            check_len((h.buf_end as usize).saturating_add(extra))?;
            h.reallocate(extra, 0);
        }
        let start = h.start as usize;
        let new_start = start - n;
        h.buf_mut()[new_start..start].fill(0);
        h.start = new_start as u32;
        Ok(())
    }

    /// Like [`push`](Self::push), but when the headroom is large enough
    /// the new bytes keep whatever the buffer held there (Click's
    /// `nonunique_push`, whose new bytes are uninitialized; Resize shows
    /// them). Never copies a shared buffer just to do this; bytes of a
    /// reallocated buffer are zero.
    #[inline]
    pub fn push_keep(&mut self, n: usize) -> Result<(), PacketError> {
        let h = self.hdr_mut();
        let start = h.start as usize;
        if n > start {
            return self.push(n);
        }
        h.start = (start - n) as u32;
        Ok(())
    }

    /// Adds a copy of `bytes` in front of the data; see [`push`](Self::push).
    ///
    /// The same as `push` then a copy into the new bytes, in one pass: the
    /// bytes are copied where `push` would have zeroed them, with one
    /// uniqueness check (EtherEncap's per-packet work: 126 → 52
    /// instructions, callgrind).
    #[inline]
    pub fn push_slice(&mut self, bytes: &[u8]) -> Result<(), PacketError> {
        let n = bytes.len();
        let h = self.hdr_mut();
        if n > h.start as usize {
            let extra = n.saturating_add(REALLOC_SLACK) & !3;
            check_len((h.buf_end as usize).saturating_add(extra))?;
            h.reallocate(extra, 0);
        }
        let start = h.start as usize;
        let new_start = start - n;
        h.buf_mut()[new_start..start].copy_from_slice(bytes);
        h.start = new_start as u32;
        Ok(())
    }

    /// Removes `n` bytes from the front of the data (Click's `pull()`).
    /// If `n > len()`, removes everything (Click clamps too). Never copies.
    #[inline]
    pub fn pull(&mut self, n: usize) {
        let h = self.hdr_mut();
        let n = n.min((h.end - h.start) as usize);
        h.start += n as u32;
    }

    /// Like [`pull`](Self::pull), but fails (packet unchanged) if
    /// `n > len()`.
    #[inline]
    pub fn try_pull(&mut self, n: usize) -> Result<(), PacketError> {
        let len = self.len();
        if n > len {
            return Err(PacketError::TooShort {
                requested: n,
                available: len,
            });
        }
        self.pull(n);
        Ok(())
    }

    /// Adds `n` zero bytes after the data (Click's `put()`). Uses the
    /// tailroom if there is enough (or unused space in a unique pooled
    /// buffer), otherwise reallocates with `n + 128` bytes of extra tailroom.
    /// Copies first if the buffer is shared.
    ///
    /// Errors (packet unchanged) only if the buffer would exceed
    /// [`MAX_BUFFER_LEN`].
    #[inline]
    pub fn put(&mut self, n: usize) -> Result<(), PacketError> {
        let h = self.hdr_mut();
        let end = h.end as usize;
        let need = end.saturating_add(n);
        if need > h.buf_end as usize {
            // Unused space at the end of a unique (pooled) buffer can be
            // claimed without copying.
            if h.is_unique() && need <= h.buf().len() {
                h.buf_end = need as u32;
            } else {
                let extra = n.saturating_add(REALLOC_SLACK);
                check_len((h.buf_end as usize).saturating_add(extra))?;
                h.reallocate(0, extra);
            }
        }
        h.buf_mut()[end..need].fill(0);
        h.end = need as u32;
        Ok(())
    }

    /// Adds a copy of `bytes` after the data; see [`put`](Self::put).
    #[inline]
    pub fn put_slice(&mut self, bytes: &[u8]) -> Result<(), PacketError> {
        let old = self.len();
        self.put(bytes.len())?;
        self.data_mut()[old..].copy_from_slice(bytes);
        Ok(())
    }

    /// Removes `n` bytes from the end of the data (Click's `take()`).
    /// If `n > len()`, removes everything (Click clamps too). Never copies.
    #[inline]
    pub fn take(&mut self, n: usize) {
        let h = self.hdr_mut();
        let n = n.min((h.end - h.start) as usize);
        h.end -= n as u32;
    }

    /// Like [`take`](Self::take), but fails (packet unchanged) if
    /// `n > len()`.
    #[inline]
    pub fn try_take(&mut self, n: usize) -> Result<(), PacketError> {
        let len = self.len();
        if n > len {
            return Err(PacketError::TooShort {
                requested: n,
                available: len,
            });
        }
        self.take(n);
        Ok(())
    }
}

impl Clone for Packet {
    /// Click's `clone()`: shares the buffer (no byte copy), copies header
    /// offsets and annotations. The header comes from the pool.
    #[inline]
    fn clone(&self) -> Packet {
        let mut h = pool::take_header();
        h.clone_from_hdr(self.hdr());
        Packet { h: Some(h) }
    }
}

impl Drop for Packet {
    /// Returns the header (and the buffer, if this was its last user) to
    /// the thread's pool.
    ///
    /// Only the test for a hollow packet is inlined: dropping the hollow
    /// packets that batch code leaves behind (a queue's drain of the
    /// packets it handed out) then costs a test each instead of an
    /// out-of-line `drop_in_place` call (22 instructions per packet in a
    /// queue's pull; callgrind).
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(h) = self.h.take() {
            recycle(h);
        }
    }
}

/// The out-of-line part of dropping a packet.
#[inline(never)]
fn recycle(h: Box<Header>) {
    pool::recycle_header(h);
}

impl From<&[u8]> for Packet {
    /// Same as [`Packet::from_slice`].
    fn from(data: &[u8]) -> Packet {
        Packet::from_slice(data)
    }
}

impl fmt::Debug for Packet {
    /// Shows sizes, header offsets, annotations and at most the first 32
    /// data bytes (hex).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Hex<'a>(&'a [u8], usize);
        impl fmt::Debug for Hex<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for (i, b) in self.0.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{b:02x}")?;
                }
                if self.1 > self.0.len() {
                    write!(f, " ... ({} more)", self.1 - self.0.len())?;
                }
                Ok(())
            }
        }
        let data = self.data();
        let mut d = f.debug_struct("Packet");
        d.field("len", &data.len())
            .field("headroom", &self.headroom())
            .field("tailroom", &self.tailroom())
            .field("shared", &self.is_shared());
        if let Some(o) = self.mac_header_offset() {
            d.field("mac_header", &o);
        }
        if let Some(o) = self.network_header_offset() {
            d.field("network_header", &o);
        }
        if let Some(o) = self.transport_header_offset() {
            d.field("transport_header", &o);
        }
        d.field("anno", self.anno())
            .field("data", &Hex(&data[..data.len().min(32)], data.len()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(n: usize) -> Vec<u8> {
        (0..n).map(|i| i as u8).collect()
    }

    /// The length check both constructors share: the exact limit passes,
    /// one more byte or an overflowing sum is too large.
    #[test]
    fn buffer_len_sums_and_checks() {
        assert_eq!(buffer_len(2, 3, 4).unwrap(), 9);
        assert_eq!(
            buffer_len(MAX_BUFFER_LEN - 1, 1, 0).unwrap(),
            MAX_BUFFER_LEN
        );
        assert!(matches!(
            buffer_len(MAX_BUFFER_LEN, 0, 1),
            Err(PacketError::TooLarge { requested }) if requested == MAX_BUFFER_LEN + 1
        ));
        assert!(matches!(
            buffer_len(usize::MAX, 1, 0),
            Err(PacketError::TooLarge {
                requested: usize::MAX
            })
        ));
    }

    /// An ordinary and a template packet get the same bounds, no header
    /// offsets and zeroed annotations from `fresh`.
    #[test]
    fn ordinary_and_template_packets_start_alike() {
        for p in [
            Packet::make(7, b"abcd", 3),
            Packet::make_template(7, b"abcd", 3).unwrap(),
        ] {
            assert_eq!(p.data(), b"abcd");
            assert_eq!((p.headroom(), p.tailroom()), (7, 3));
            assert!(!p.has_mac_header() && !p.has_network_header());
            assert_eq!(p.anno(), &Anno::DEFAULT);
        }
    }

    #[test]
    fn packet_is_one_word_and_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Packet>();
        assert_eq!(std::mem::size_of::<Packet>(), std::mem::size_of::<usize>());
    }

    #[test]
    fn make_and_sizes() {
        let p = Packet::make(10, b"abc", 5);
        assert_eq!(p.data(), b"abc");
        assert_eq!((p.headroom(), p.len(), p.tailroom()), (10, 3, 5));
        assert_eq!(p.buffer_len(), 18);
        assert!(!p.is_empty());
        let q = Packet::from_slice(b"xyz");
        assert_eq!((q.headroom(), q.tailroom()), (DEFAULT_HEADROOM, 0));
        let z = Packet::with_len(100);
        assert_eq!(z.len(), 100);
        assert!(z.data().iter().all(|&b| b == 0));
        let e = Packet::from_slice(&[]);
        assert!(e.is_empty());
        let big = Packet::make_zeroed(0, 10_000, 7);
        assert_eq!((big.len(), big.tailroom()), (10_000, 7));
        assert!(Packet::try_make(usize::MAX, b"x", 1).is_err());
        assert!(matches!(
            Packet::try_make(MAX_BUFFER_LEN, b"x", 0),
            Err(PacketError::TooLarge { .. })
        ));
    }

    #[test]
    fn reused_buffer_is_zeroed_for_with_len() {
        drop(Packet::from_slice(&[0xff; 500]));
        let p = Packet::with_len(500);
        assert!(p.data().iter().all(|&b| b == 0));
    }

    #[test]
    fn cow_write_to_clone_does_not_change_original() {
        let mut p = Packet::from_slice(b"hello");
        p.set_network_header(1, 2);
        let mut q = p.clone();
        assert!(p.is_shared() && q.is_shared());
        assert_eq!(p.share_count(), 2);
        q.data_mut()[0] = b'J';
        assert_eq!(p.data(), b"hello");
        assert_eq!(q.data(), b"Jello");
        assert!(!p.is_shared() && !q.is_shared());
        // Layout preserved by the copy.
        assert_eq!(q.headroom(), p.headroom());
        assert_eq!(q.tailroom(), p.tailroom());
        assert_eq!(q.network_header_offset(), Some(1));
        assert_eq!(q.network_header_len(), 2);
    }

    #[test]
    fn cow_write_to_original_does_not_change_clone() {
        let mut p = Packet::from_slice(b"hello");
        let q = p.clone();
        let r = q.clone();
        p.data_mut()[4] = b'!';
        assert_eq!(p.data(), b"hell!");
        assert_eq!(q.data(), b"hello");
        assert_eq!(r.data(), b"hello");
        assert!(q.is_shared());
        drop(r);
        assert!(!q.is_shared());
    }

    #[test]
    fn cow_through_push_put_and_header_mut() {
        let mut p = Packet::make(4, b"data", 4);
        p.set_network_header(0, 2);
        let mut q = p.clone();
        q.push(2).unwrap();
        q.put(2).unwrap();
        assert_eq!(q.data(), b"\0\0data\0\0");
        assert_eq!(p.data(), b"data");
        assert_eq!((p.headroom(), p.tailroom()), (4, 4));
        let mut r = p.clone();
        r.network_header_mut().unwrap()[0] = b'D';
        assert_eq!(r.data(), b"Data");
        assert_eq!(p.data(), b"data");
        // pull/take on a shared packet never copies or affects the other.
        let mut s = p.clone();
        s.pull(1);
        s.take(1);
        assert_eq!(s.data(), b"at");
        assert_eq!(p.data(), b"data");
        assert!(s.is_shared());
        p.uniqueify();
        assert!(!p.is_shared() && !s.is_shared());
        assert_eq!(p.data(), b"data");
    }

    #[test]
    fn cow_copy_keeps_pulled_headers_in_headroom() {
        let frame: Vec<u8> = (0..40u8).collect();
        let mut p = Packet::from_slice(&frame);
        p.set_mac_header_len(0, 14);
        p.pull(14);
        let mut q = p.clone();
        q.data_mut()[0] = 0xff;
        assert!(!q.is_shared());
        assert_eq!(q.mac_header_offset(), Some(-14));
        assert_eq!(&q.mac_header().unwrap()[..14], &frame[..14]);
        assert_eq!(q.ip_header().unwrap()[0], 0xff);
        assert_eq!(p.ip_header().unwrap()[0], 14);
    }

    /// A small deterministic generator for the randomised tests.
    pub(super) struct Rng(pub(super) u64);

    impl Rng {
        pub(super) fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Bytes, buffer bytes, (headroom, length, tailroom), header offsets,
    /// sharing.
    type Observed = (Vec<u8>, Vec<u8>, [usize; 3], [Option<isize>; 3], bool);

    /// Everything about a packet a user can see: its bytes, the bytes of
    /// its whole buffer (headroom and tailroom, which `push_keep` and `put`
    /// would show), sizes, header offsets and sharing.
    fn observe(p: &Packet) -> Observed {
        let h = p.hdr();
        (
            p.data().to_vec(),
            h.buf()[..h.buf_end as usize].to_vec(),
            [p.headroom(), p.len(), p.tailroom()],
            [
                p.mac_header_offset(),
                p.network_header_offset(),
                p.transport_header_offset(),
            ],
            p.is_shared(),
        )
    }

    /// A packet of one of the kinds `push_slice` and copy-on-write meet:
    /// unique, shared with a clone (returned alongside), a template clone;
    /// with bytes left in its headroom by an earlier push and pull, and
    /// header offsets set.
    fn some_packet(rng: &mut Rng) -> (Packet, Option<Packet>) {
        let headroom = [0usize, 3, 14, 28, 100][rng.below(5) as usize];
        let len = rng.below(80) as usize;
        let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(7)).collect();
        let mut p = match rng.below(3) {
            0 => Packet::make_template(headroom, &data, rng.below(4) as usize).unwrap(),
            _ => Packet::make(headroom, &data, rng.below(4) as usize),
        };
        if rng.below(2) == 0 && p.headroom() >= 4 && !p.is_shared() {
            p.push_slice(&[0xa5; 4]).unwrap();
            p.pull(4);
        }
        if len >= 8 {
            p.set_mac_header_len(0, 4);
            p.set_network_header(4, 4);
        }
        match rng.below(3) {
            0 => (p, None),
            _ => {
                let q = p.clone();
                (q, Some(p))
            }
        }
    }

    /// `push_slice` gives what `push` then a copy into the new bytes gives,
    /// on unique, shared and template packets, within the headroom and
    /// beyond it (reallocating), and leaves a clone alone.
    #[test]
    fn push_slice_matches_push_then_copy() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..3000 {
            let (p, other) = some_packet(&mut rng);
            let before = other.as_ref().map(observe);
            let n = rng.below(40) as usize;
            let bytes: Vec<u8> = (0..n).map(|i| 0x80 | i as u8).collect();
            let headroom = p.headroom();
            let mut a = p.clone();
            let mut b = p;
            a.push_slice(&bytes).unwrap();
            b.push(n).unwrap();
            b.data_mut()[..n].copy_from_slice(&bytes);
            let (oa, ob) = (observe(&a), observe(&b));
            // Compare all but the sharing flag (`a`, a clone of `b`, shared
            // its buffer until one of them wrote) and, when the push
            // reallocated, the bytes in front of the new headroom's pushed
            // part, which the pool's reused buffers leave unspecified for
            // `push` as well.
            let from = if n > headroom { oa.2[0] } else { 0 };
            let whole = (&oa.1[from..], &ob.1[from..]);
            assert_eq!(
                (&oa.0, whole.0, oa.2, oa.3),
                (&ob.0, whole.1, ob.2, ob.3),
                "round {round}"
            );
            assert_eq!(&a.data()[..n], &bytes[..], "round {round}");
            if let (Some(o), Some(before)) = (other, before) {
                assert_eq!(observe(&o).0, before.0, "round {round}");
            }
        }
    }

    /// Copy-on-write (the first write to a shared or template packet)
    /// copies the whole buffer, headroom and tailroom bytes included, and
    /// keeps every offset, as `reallocate(0, 0)` does, leaving the other
    /// sharers unchanged.
    #[test]
    fn copy_on_write_matches_reallocate() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for round in 0..3000 {
            let (p, other) = some_packet(&mut rng);
            if !p.is_shared() || p.is_empty() {
                continue;
            }
            let before = other.as_ref().map(observe);
            let mut a = p.clone();
            let mut b = p;
            a.data_mut()[0] ^= 0xff;
            b.hdr_mut().reallocate(0, 0);
            b.data_mut()[0] ^= 0xff;
            let (oa, ob) = (observe(&a), observe(&b));
            assert_eq!(oa, ob, "round {round}");
            assert!(!oa.4, "round {round}");
            // The other sharer's bytes and offsets are as they were (it
            // may now be the buffer's only user).
            if let (Some(o), Some(before)) = (other, before) {
                let now = observe(&o);
                assert_eq!(
                    (now.0, now.1, now.2, now.3),
                    (before.0, before.1, before.2, before.3)
                );
            }
        }
    }

    /// `network_length` is `network_header().map(len)` for offsets unset,
    /// inside the data, at its end, beyond it and in the headroom.

    #[test]
    fn push_within_headroom() {
        let mut p = Packet::make(10, b"abc", 0);
        p.push(10).unwrap();
        assert_eq!(p.headroom(), 0);
        assert_eq!(&p.data()[..10], &[0; 10]);
        assert_eq!(&p.data()[10..], b"abc");
        p.push(0).unwrap();
        assert_eq!(p.len(), 13);
    }

    #[test]
    fn push_reallocates_when_headroom_short() {
        let mut p = Packet::make(2, b"abc", 3);
        p.set_mac_header(0);
        p.set_network_header(1, 1);
        p.push(5).unwrap();
        assert_eq!(p.data(), b"\0\0\0\0\0abc");
        // Click: extra headroom (n + 128) & !3 = 132; after push: 2 + 132 - 5.
        assert_eq!(p.headroom(), 129);
        assert_eq!(p.tailroom(), 3);
        assert_eq!(p.mac_header_offset(), Some(5));
        assert_eq!(p.network_header_offset(), Some(6));
        assert_eq!(p.transport_header_offset(), Some(7));
        assert_eq!(p.network_header().unwrap(), b"bc");
        // Huge push fails and leaves the packet alone.
        assert!(matches!(
            p.push(MAX_BUFFER_LEN),
            Err(PacketError::TooLarge { .. })
        ));
        assert!(p.push(usize::MAX).is_err());
        assert_eq!(p.len(), 8);
    }

    #[test]
    fn push_realloc_beyond_std_buffer() {
        let mut p = Packet::make(0, &seq(2000), 0);
        p.push(100).unwrap();
        assert_eq!(p.len(), 2100);
        assert_eq!(&p.data()[100..], &seq(2000)[..]);
    }

    #[test]
    fn put_and_take_at_limits() {
        let mut p = Packet::make(0, b"ab", 2);
        p.put(2).unwrap();
        assert_eq!(p.data(), b"ab\0\0");
        assert_eq!(p.tailroom(), 0);
        // Beyond the tailroom: grows into the pooled buffer or reallocates.
        p.put(3).unwrap();
        assert_eq!(p.data(), b"ab\0\0\0\0\0");
        p.put_slice(b"XY").unwrap();
        assert_eq!(&p.data()[7..], b"XY");
        p.take(2);
        assert_eq!(p.len(), 7);
        p.take(100); // clamps like Click
        assert!(p.is_empty());
        assert_eq!(
            p.try_take(1),
            Err(PacketError::TooShort {
                requested: 1,
                available: 0
            })
        );
        assert!(p.put(usize::MAX).is_err());
        assert!(p.put(MAX_BUFFER_LEN).is_err());
        assert!(p.is_empty());
    }

    #[test]
    fn put_reallocates_large() {
        let mut p = Packet::make(28, &seq(100), 0);
        p.set_network_header(14, 20);
        p.put(3000).unwrap();
        assert_eq!(p.len(), 3100);
        assert_eq!(&p.data()[..100], &seq(100)[..]);
        assert!(p.data()[100..].iter().all(|&b| b == 0));
        assert_eq!(p.headroom(), 28);
        assert!(p.tailroom() >= 128);
        assert_eq!(p.network_header_offset(), Some(14));
    }

    #[test]
    fn put_on_shared_with_tailroom_copies() {
        let mut p = Packet::make(0, b"ab", 10);
        let q = p.clone();
        p.put(1).unwrap();
        assert_eq!(p.data(), b"ab\0");
        assert_eq!(q.data(), b"ab");
        assert_eq!(q.tailroom(), 10);
        assert_eq!(p.tailroom(), 9);
    }

    #[test]
    fn pull_clamps_and_try_pull_errors() {
        let mut p = Packet::from_slice(b"abcdef");
        p.pull(2);
        assert_eq!(p.data(), b"cdef");
        assert_eq!(p.headroom(), DEFAULT_HEADROOM + 2);
        assert!(p.try_pull(5).is_err());
        assert_eq!(p.data(), b"cdef");
        p.try_pull(4).unwrap();
        assert!(p.is_empty());
        p.pull(usize::MAX);
        assert!(p.is_empty());
        assert_eq!(p.headroom(), DEFAULT_HEADROOM + 6);
    }

    #[test]
    fn push_pull_round_trip_preserves_headers() {
        let mut frame = seq(60);
        frame[12] = 0x08;
        let mut p = Packet::from_slice(&frame);
        p.set_mac_header_len(0, 14);
        p.set_transport_header(34);
        assert_eq!(p.network_header_offset(), Some(14));
        assert_eq!(p.mac_header_len(), 14);
        assert_eq!(p.network_header_len(), 20);
        // Strip(14)
        p.pull(14);
        assert_eq!(p.mac_header_offset(), Some(-14));
        assert_eq!(p.network_header_offset(), Some(0));
        assert_eq!(p.ip_header_offset(), Some(0));
        assert_eq!(p.transport_header_offset(), Some(20));
        assert_eq!(p.ip_header_len(), 20);
        assert_eq!(p.mac_header().unwrap(), &frame[..]);
        assert_eq!(p.ip_header().unwrap(), &frame[14..]);
        assert_eq!(p.transport_header().unwrap(), &frame[34..]);
        // Unstrip(14) restores the same view.
        p.push(14).unwrap_or_else(|e| panic!("{e}"));
        // push zeroes the bytes it exposes, so rewrite the MAC header.
        p.data_mut()[..14].copy_from_slice(&frame[..14]);
        assert_eq!(p.data(), &frame[..]);
        assert_eq!(p.mac_header_offset(), Some(0));
        assert_eq!(p.network_header_offset(), Some(14));
        // Big push: reallocation shifts every header.
        p.push(200).unwrap();
        assert_eq!(p.mac_header_offset(), Some(200));
        assert_eq!(p.network_header_offset(), Some(214));
        assert_eq!(p.transport_header_offset(), Some(234));
        assert_eq!(p.ip_header().unwrap(), &frame[14..]);
    }

    #[test]
    fn recycled_header_starts_clean() {
        let mut p = Packet::from_slice(b"abc");
        p.set_paint_anno(5);
        p.set_network_header(0, 1);
        drop(p);
        let q = Packet::from_slice(b"def");
        assert_eq!(*q.anno(), Anno::DEFAULT);
        assert!(!q.has_network_header());
        let c = q.clone();
        drop(c);
        let r = Packet::from_slice(b"g");
        assert!(!r.has_mac_header());
    }

    #[test]
    fn debug_is_short() {
        let mut p = Packet::make(28, &[0xab; 1500], 0);
        p.set_network_header(14, 20);
        let s = format!("{p:?}");
        assert!(s.len() < 600, "{s}");
        assert!(s.contains("len: 1500"), "{s}");
        assert!(s.contains("network_header: 14"), "{s}");
        assert!(s.contains("1468 more"), "{s}");
    }

    #[test]
    fn packets_cross_threads() {
        let p = Packet::from_slice(b"abc");
        let q = p.clone();
        let h = std::thread::spawn(move || {
            let mut p = p;
            p.data_mut()[0] = b'X';
            p
        });
        let p = h.join().unwrap();
        assert_eq!(p.data(), b"Xbc");
        assert_eq!(q.data(), b"abc");
    }

    #[test]
    fn template_clones_share_an_interned_buffer() {
        let data = b"template-clones-share-an-interned-buffer";
        let mut t = Packet::make_template(28, data, 3).unwrap();
        t.set_network_header(2, 4);
        t.anno_mut().paint = 7;
        assert_eq!(t.data(), data);
        assert_eq!((t.headroom(), t.tailroom()), (28, 3));
        assert!(t.is_shared(), "a template buffer always counts as shared");
        assert_eq!(t.share_count(), usize::MAX);
        // Same bytes, same buffer; other bytes, another buffer.
        let u = Packet::make_template(28, data, 3).unwrap();
        assert_eq!(u.data().as_ptr(), t.data().as_ptr());
        let w = Packet::make_template(27, data, 3).unwrap();
        assert_ne!(w.data().as_ptr(), t.data().as_ptr());
        let c = t.clone();
        assert_eq!(c.data().as_ptr(), t.data().as_ptr());
        assert_eq!(c.network_header_offset(), Some(2));
        assert_eq!(c.anno().paint, 7);
        assert_eq!(c.share_count(), usize::MAX);
    }

    #[test]
    fn template_writes_copy_first() {
        let data = b"template-writes-copy-first";
        let mut t = Packet::make_template(28, data, 0).unwrap();
        t.set_network_header(1, 2);
        let mut c = t.clone();
        c.data_mut()[0] = b'T';
        assert_eq!(c.data(), b"Template-writes-copy-first");
        assert_eq!(t.data(), data);
        assert!(!c.is_shared() && c.share_count() == 1);
        assert_eq!(c.network_header_offset(), Some(1));
        assert_eq!(c.headroom(), 28);
        // push/put on a clone copy too (no claiming of "unused" room).
        let mut d = t.clone();
        d.put(2).unwrap();
        d.push(1).unwrap();
        assert_eq!(d.len(), data.len() + 3);
        assert_eq!(&d.data()[1..data.len() + 1], data);
        // Writing to the template itself leaves the interned bytes intact.
        t.data_mut()[1] = b'E';
        assert!(!t.is_shared());
        let again = Packet::make_template(28, data, 0).unwrap();
        assert_eq!(again.data(), data);
        let mut e = again.clone();
        e.uniqueify();
        assert!(!e.is_shared());
        assert_eq!(e.data(), data);
    }

    #[test]
    fn template_clones_recycle_headers_not_buffers() {
        let t = Packet::make_template(28, b"template-clones-recycle", 0).unwrap();
        drop(t.clone()); // warm up
        let before = pool::stats();
        let (_, idle_bufs, _) = pool::idle();
        for _ in 0..100 {
            drop(t.clone());
        }
        let d = pool::stats().since(&before);
        assert_eq!(d.allocations(), 0, "{d:?}");
        assert_eq!(d.header_reuses, 100);
        assert_eq!(d.buffer_frees + d.buffer_reuses, 0, "{d:?}");
        assert_eq!(
            pool::idle().1,
            idle_bufs,
            "template buffers never enter the pool"
        );
    }

    #[test]
    fn template_limits() {
        assert!(matches!(
            Packet::make_template(MAX_BUFFER_LEN, b"x", 0),
            Err(PacketError::TooLarge { .. })
        ));
        // Larger than the interning budget: an ordinary packet.
        let big = Packet::make_template(0, &vec![9; MAX_INTERNED_BYTES + 1], 0).unwrap();
        assert_eq!(big.len(), MAX_INTERNED_BYTES + 1);
        assert_eq!(big.share_count(), 1);
        let empty = Packet::make_template(0, &[], 0).unwrap();
        assert!(empty.is_empty());
        assert_eq!(empty.clone().len(), 0);
    }
}
