//! Memory-mapped packet rings (`PACKET_RX_RING`, `PACKET_TX_RING`): Click's
//! `METHOD MMAP` for FromDevice and ToDevice. One of the few modules of this
//! crate allowed `unsafe` (see the crate's top): the mapping itself, and the
//! few accessors below that read and write it with bounds checks, only as
//! [`Pod`] types. All ring logic above those accessors is safe code.
//!
//! The kernel and the process share the ring's memory. Each slot (a frame
//! in TPACKET_V2, a block of frames in TPACKET_V3) has a status word that
//! says who owns it: the side that owns a slot may touch its bytes, and
//! hands it to the other side with a release store of the status word,
//! which the other side reads with an acquire load.
//!
//! - Receive, TPACKET_V2: one frame per slot, handed back one at a time (no
//!   added latency).
//! - Receive, TPACKET_V3: variable-length frames packed into blocks; the
//!   kernel hands over a block when it is full or when its retire timer
//!   (BLOCK_TIMEOUT milliseconds) expires, so a quiet link adds up to that
//!   much latency. Fewer status handovers per frame at high rates.
//! - Transmit, TPACKET_V2: the process copies frames into free slots, marks
//!   them `TP_STATUS_SEND_REQUEST`, and one `send(MSG_DONTWAIT)` makes the
//!   kernel transmit every marked slot; a slot is free again when the
//!   kernel has finished with it (`TP_STATUS_AVAILABLE`).

use std::io;
use std::mem::{offset_of, size_of};
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use super::sys::{self, PacketSocket, RecvInfo};

/// `TPACKET_ALIGN`: ring headers and frames are aligned to 16 bytes.
const fn tpacket_align(x: usize) -> usize {
    (x + 15) & !15
}

/// Where the kernel puts a received frame's link-level header in a V2 or V3
/// slot, at most: `TPACKET_ALIGN(hdrlen + 16)` (the kernel reserves 16
/// bytes for the MAC header, then aligns the network header).
const fn rx_data_room(hdr: usize) -> usize {
    tpacket_align(tpacket_align(hdr) + size_of::<libc::sockaddr_ll>() + 16)
}

/// Where a transmitted frame's data starts in a V2 slot:
/// `TPACKET2_HDRLEN - sizeof(struct sockaddr_ll)`.
const TX_DATA_OFF: usize = tpacket_align(size_of::<libc::tpacket2_hdr>());

/// The offset of `block_status` in a V3 block descriptor.
const BLOCK_STATUS_OFF: usize = offset_of!(libc::tpacket_block_desc, hdr);

/// The receive ring format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxVersion {
    /// TPACKET_V2: fixed-size frames, each handed over at once.
    V2,
    /// TPACKET_V3: blocks of packed frames, handed over when full or when
    /// the block timer expires.
    V3,
}

/// How to size a ring.
#[derive(Clone, Copy, Debug)]
pub struct RingConfig {
    /// Receive format (ignored for transmit rings, which are always V2).
    pub version: RxVersion,
    /// The largest link-level frame a slot must hold (MTU + Ethernet and
    /// VLAN headers).
    pub max_frame: usize,
    /// Bytes of ring memory to map (rounded to whole blocks).
    pub ring_bytes: usize,
    /// TPACKET_V3 block retire timeout, in milliseconds (at least 1).
    pub block_timeout_ms: u32,
}

/// The shape of a ring: blocks of `block_size` bytes, each holding
/// `frames_per_block` frames of `frame_size` bytes (frames never cross a
/// block boundary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub block_size: usize,
    pub block_nr: usize,
    pub frame_size: usize,
    pub frames_per_block: usize,
}

impl Geometry {
    /// A geometry for frames of `frame_need` bytes (headers included) in
    /// about `ring_bytes` of memory, with blocks of at least `min_block`
    /// bytes. Blocks are a power-of-two number of pages (the kernel
    /// allocates them that way) and there are at least `min_blocks`.
    pub fn new(
        frame_need: usize,
        ring_bytes: usize,
        min_block: usize,
        min_blocks: usize,
    ) -> Geometry {
        let frame_size = tpacket_align(frame_need.max(1));
        let block_size = frame_size
            .max(min_block)
            .max(page_size())
            .next_power_of_two();
        let frames_per_block = block_size / frame_size;
        let block_nr = (ring_bytes / block_size).max(min_blocks).max(1);
        Geometry {
            block_size,
            block_nr,
            frame_size,
            frames_per_block,
        }
    }

    /// Frames in the ring.
    pub fn frame_nr(&self) -> usize {
        self.frames_per_block * self.block_nr
    }

    /// Bytes mapped.
    pub fn bytes(&self) -> usize {
        self.block_size * self.block_nr
    }

    /// The offset of frame `i` from the start of the mapping.
    pub fn frame_off(&self, i: usize) -> usize {
        (i / self.frames_per_block) * self.block_size
            + (i % self.frames_per_block) * self.frame_size
    }

    fn req(&self) -> io::Result<libc::tpacket_req> {
        let c = |v: usize| libc::c_uint::try_from(v).map_err(|_| io::ErrorKind::InvalidInput);
        Ok(libc::tpacket_req {
            tp_block_size: c(self.block_size)?,
            tp_block_nr: c(self.block_nr)?,
            tp_frame_size: c(self.frame_size)?,
            tp_frame_nr: c(self.frame_nr())?,
        })
    }
}

/// The system page size.
fn page_size() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// Plain data: a type for which every byte pattern is a valid value, so it
/// may be copied out of (or into) memory the kernel writes. Sealed: only
/// this module implements it, for the kernel structs and integers the rings
/// carry (C structs of integer fields and byte arrays, no padding invariants,
/// no pointers, no enums, no `bool`).
///
/// # Safety
///
/// An implementor must be `Copy`, contain no references, pointers, `bool`,
/// `char`, enums or other types with invalid bit patterns, and be valid for
/// any bytes.
pub(crate) unsafe trait Pod: Copy + pod::Sealed {}

mod pod {
    /// Keeps [`Pod`](super::Pod) implemented only in `ring.rs`.
    pub trait Sealed {}
}

macro_rules! pod {
    ($($t:ty),+ $(,)?) => {
        $(
            impl pod::Sealed for $t {}
            // SAFETY: integers, or libc's `#[repr(C)]` mirrors of the
            // kernel's ring structs, whose fields are all integers or
            // arrays of integers: every byte pattern is a valid value.
            unsafe impl Pod for $t {}
        )+
    };
}

pod!(
    u32,
    u64,
    libc::tpacket2_hdr,
    libc::tpacket_hdr_v1,
    libc::tpacket3_hdr,
    libc::sockaddr_ll,
    libc::xdp_desc,
);

/// A shared mapping of a socket's ring (or of anonymous memory), unmapped
/// on drop. Every access goes through the bounds-checked methods below.
/// Also used by [`xdp`](super::xdp) for AF_XDP rings and UMEM.
#[derive(Debug)]
pub(crate) struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value alone
// (nothing else in the process holds its address); moving it to another
// thread moves that ownership. The kernel's concurrent access is ordered
// through the atomic status words.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps `len` bytes of the ring(s) of socket `sock`.
    fn new(sock: &PacketSocket, len: usize) -> io::Result<Mapping> {
        Mapping::map(Some(sock.fd().as_raw_fd()), len, 0)
    }

    /// Maps `len` bytes of descriptor `fd` at `offset` (shared), or of
    /// zeroed anonymous memory when `fd` is `None`.
    pub(crate) fn map(
        fd: Option<std::os::fd::RawFd>,
        len: usize,
        offset: i64,
    ) -> io::Result<Mapping> {
        let (flags, fd) = match fd {
            Some(fd) => (libc::MAP_SHARED | libc::MAP_POPULATE, fd),
            None => (
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_POPULATE,
                -1,
            ),
        };
        // SAFETY: a fresh mapping chosen by the kernel (no address hint);
        // for a descriptor, the kernel checks length and offset against the
        // ring it maps.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                fd,
                offset,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(p.cast::<u8>()).ok_or(io::ErrorKind::AddrNotAvailable)?;
        Ok(Mapping { ptr, len })
    }

    /// The address of the first byte (to hand to the kernel, e.g. as UMEM).
    pub(crate) fn addr(&self) -> u64 {
        self.ptr.as_ptr() as u64
    }

    /// The mapping's length.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The status word at `off` (4-byte aligned, inside the mapping).
    pub(crate) fn status(&self, off: usize) -> &AtomicU32 {
        assert!(
            off & 3 == 0 && off + 4 <= self.len,
            "ring status offset {off}"
        );
        // SAFETY: in bounds and aligned (checked above; the mapping is page
        // aligned); the kernel only accesses this word atomically (its
        // smp_load_acquire/smp_store_release), so an AtomicU32 view is
        // sound for the mapping's lifetime, which `&self` bounds.
        unsafe { &*self.ptr.as_ptr().add(off).cast::<AtomicU32>() }
    }

    /// Copies a `T` (a plain C header) out of the mapping at `off`.
    pub(crate) fn read<T: Pod>(&self, off: usize) -> T {
        assert!(off + size_of::<T>() <= self.len, "ring read at {off}");
        // SAFETY: in bounds (checked above); `T: Pod`, so any bytes are a
        // valid `T`; read_unaligned needs no alignment.
        // The slot is owned by this side (its status was loaded with
        // Acquire), so the kernel is not writing it.
        unsafe { std::ptr::read_unaligned(self.ptr.as_ptr().add(off).cast::<T>()) }
    }

    /// Writes a `T` into the mapping at `off`.
    pub(crate) fn write<T: Pod>(&mut self, off: usize, v: T) {
        assert!(off + size_of::<T>() <= self.len, "ring write at {off}");
        // SAFETY: in bounds (checked above); the slot is owned by this side.
        unsafe { std::ptr::write_unaligned(self.ptr.as_ptr().add(off).cast::<T>(), v) }
    }

    /// The bytes `off..off + len` of a slot this side owns.
    pub(crate) fn bytes_mut(&mut self, off: usize, len: usize) -> &mut [u8] {
        assert!(
            off.checked_add(len).is_some_and(|e| e <= self.len),
            "ring bytes {off}+{len}"
        );
        // SAFETY: in bounds (checked above); `&mut self` makes this the only
        // view into the mapping from this process, and the slot's status
        // says the kernel is not using it.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(off), len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned; no reference
        // into the mapping outlives `self`.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast::<libc::c_void>(), self.len);
        }
    }
}

fn set_version(sock: &PacketSocket, v: libc::c_int) -> io::Result<()> {
    sys::setsockopt(sock.fd(), libc::SOL_PACKET, libc::PACKET_VERSION, &v)
}

/// What a ring frame's header (V2's or V3's) says of its packet: `snap`
/// bytes captured of `len` on the wire, of type `pkttype`, received at
/// `sec`.`nsec`.
#[inline]
fn frame_info(snap: usize, len: u32, pkttype: u8, sec: u32, nsec: u32) -> RecvInfo {
    RecvInfo {
        len: snap,
        wire_len: (len as usize).max(snap),
        pkttype,
        tstamp_ns: u64::from(sec) * 1_000_000_000 + u64::from(nsec),
        ..RecvInfo::default()
    }
}

/// Fills the checksum and VLAN parts of `info` from a frame status word.
fn status_info(status: u32, vlan_tci: u16, vlan_tpid: u16, info: &mut RecvInfo) {
    info.csum_not_ready = status & libc::TP_STATUS_CSUMNOTREADY != 0;
    if status & libc::TP_STATUS_VLAN_VALID != 0 {
        let tpid = if status & libc::TP_STATUS_VLAN_TPID_VALID != 0 {
            vlan_tpid
        } else {
            0x8100
        };
        info.vlan = Some((tpid, vlan_tci));
    }
}

/// Where the V3 reader is.
#[derive(Debug, Default)]
struct V3Cursor {
    /// The block being read, owned by this side (its status was USER).
    open: bool,
    /// Packets left in the open block.
    left: u32,
    /// Offset of the next packet inside the open block.
    next: usize,
}

/// A receive ring on a packet socket.
#[derive(Debug)]
pub struct RxRing {
    // Dropped before the socket: unmap, then close.
    map: Mapping,
    sock: PacketSocket,
    version: RxVersion,
    geo: Geometry,
    /// V2: the next frame; V3: the current block.
    cur: usize,
    v3: V3Cursor,
    /// Frames whose headers pointed outside their slot (never expected).
    bad: u64,
}

impl RxRing {
    /// Sets up a receive ring on `sock` (bound, not yet reading).
    pub fn new(sock: PacketSocket, cfg: &RingConfig) -> io::Result<RxRing> {
        let (version, geo) = match cfg.version {
            RxVersion::V2 => {
                set_version(&sock, libc::tpacket_versions::TPACKET_V2 as libc::c_int)?;
                let need = rx_data_room(size_of::<libc::tpacket2_hdr>()) + cfg.max_frame;
                let geo = Geometry::new(need, cfg.ring_bytes, 0, 1);
                sys::setsockopt(
                    sock.fd(),
                    libc::SOL_PACKET,
                    libc::PACKET_RX_RING,
                    &geo.req()?,
                )?;
                (RxVersion::V2, geo)
            }
            RxVersion::V3 => {
                set_version(&sock, libc::tpacket_versions::TPACKET_V3 as libc::c_int)?;
                let need = tpacket_align(size_of::<libc::tpacket_block_desc>())
                    + rx_data_room(size_of::<libc::tpacket3_hdr>())
                    + cfg.max_frame;
                // Blocks of at least 64 KiB (many small frames per handover),
                // at least 8 of them so the kernel can fill one while the
                // process reads others.
                let mut geo = Geometry::new(need, cfg.ring_bytes, 1 << 16, 8);
                // In V3 the frame size only bounds the frame count.
                geo.frame_size = tpacket_align(rx_data_room(size_of::<libc::tpacket3_hdr>()) + 64);
                geo.frames_per_block = geo.block_size / geo.frame_size;
                let r = geo.req()?;
                let req = libc::tpacket_req3 {
                    tp_block_size: r.tp_block_size,
                    tp_block_nr: r.tp_block_nr,
                    tp_frame_size: r.tp_frame_size,
                    tp_frame_nr: r.tp_frame_nr,
                    tp_retire_blk_tov: cfg.block_timeout_ms.max(1),
                    tp_sizeof_priv: 0,
                    tp_feature_req_word: 0,
                };
                sys::setsockopt(sock.fd(), libc::SOL_PACKET, libc::PACKET_RX_RING, &req)?;
                (RxVersion::V3, geo)
            }
        };
        let map = Mapping::new(&sock, geo.bytes())?;
        Ok(RxRing {
            map,
            sock,
            version,
            geo,
            cur: 0,
            v3: V3Cursor::default(),
            bad: 0,
        })
    }

    /// The socket (for statistics and options).
    pub fn socket(&self) -> &PacketSocket {
        &self.sock
    }

    /// The ring's shape.
    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// The largest frame a slot holds whole: longer frames arrive
    /// truncated (`RecvInfo::len < wire_len`).
    pub fn max_frame(&self) -> usize {
        match self.version {
            RxVersion::V2 => self.geo.frame_size - rx_data_room(size_of::<libc::tpacket2_hdr>()),
            RxVersion::V3 => {
                self.geo.block_size
                    - tpacket_align(size_of::<libc::tpacket_block_desc>())
                    - rx_data_room(size_of::<libc::tpacket3_hdr>())
            }
        }
    }

    /// Frames whose ring headers were inconsistent and were skipped.
    pub fn bad_frames(&self) -> u64 {
        self.bad
    }

    /// Hands up to `max` waiting frames to `f` (bytes in the ring, which
    /// `f` may modify in place, and what the kernel said about them), then
    /// returns their slots to the kernel. Returns how many were handed.
    pub fn recv(&mut self, max: usize, f: impl FnMut(&mut [u8], RecvInfo)) -> usize {
        match self.version {
            RxVersion::V2 => self.recv_v2(max, f),
            RxVersion::V3 => self.recv_v3(max, f),
        }
    }

    fn recv_v2(&mut self, max: usize, mut f: impl FnMut(&mut [u8], RecvInfo)) -> usize {
        let mut n = 0;
        while n < max {
            let off = self.geo.frame_off(self.cur);
            if self.map.status(off).load(Ordering::Acquire) & libc::TP_STATUS_USER == 0 {
                break;
            }
            let h: libc::tpacket2_hdr = self.map.read(off);
            let sll: libc::sockaddr_ll = self
                .map
                .read(off + tpacket_align(size_of::<libc::tpacket2_hdr>()));
            let (mac, snap) = (usize::from(h.tp_mac), h.tp_snaplen as usize);
            if mac + snap <= self.geo.frame_size {
                let mut info = frame_info(snap, h.tp_len, sll.sll_pkttype, h.tp_sec, h.tp_nsec);
                status_info(h.tp_status, h.tp_vlan_tci, h.tp_vlan_tpid, &mut info);
                f(self.map.bytes_mut(off + mac, snap), info);
            } else {
                self.bad += 1;
            }
            self.map
                .status(off)
                .store(libc::TP_STATUS_KERNEL, Ordering::Release);
            self.cur = (self.cur + 1) % self.geo.frame_nr();
            n += 1;
        }
        n
    }

    fn recv_v3(&mut self, max: usize, mut f: impl FnMut(&mut [u8], RecvInfo)) -> usize {
        let bs = self.geo.block_size;
        let mut n = 0;
        while n < max {
            let block = self.cur * bs;
            if !self.v3.open {
                let st = self
                    .map
                    .status(block + BLOCK_STATUS_OFF)
                    .load(Ordering::Acquire);
                if st & libc::TP_STATUS_USER == 0 {
                    break;
                }
                let bh: libc::tpacket_hdr_v1 = self.map.read(block + BLOCK_STATUS_OFF);
                self.v3 = V3Cursor {
                    open: true,
                    left: bh.num_pkts,
                    next: bh.offset_to_first_pkt as usize,
                };
            }
            let hl = size_of::<libc::tpacket3_hdr>();
            let at = self.v3.next;
            if self.v3.left > 0 && at + hl <= bs {
                let h: libc::tpacket3_hdr = self.map.read(block + at);
                let sll: libc::sockaddr_ll = self.map.read(block + at + tpacket_align(hl));
                let (mac, snap) = (usize::from(h.tp_mac), h.tp_snaplen as usize);
                if at + mac + snap <= bs {
                    let mut info = frame_info(snap, h.tp_len, sll.sll_pkttype, h.tp_sec, h.tp_nsec);
                    // The V3 header's TCI field is 32 bits wide; tags are 16.
                    let tci = (h.hv1.tp_vlan_tci & 0xffff) as u16;
                    status_info(h.tp_status, tci, h.hv1.tp_vlan_tpid, &mut info);
                    f(self.map.bytes_mut(block + at + mac, snap), info);
                } else {
                    self.bad += 1;
                }
                n += 1;
                self.v3.left -= 1;
                if h.tp_next_offset == 0 {
                    self.v3.left = 0;
                }
                self.v3.next = at + h.tp_next_offset as usize;
            } else if self.v3.left > 0 {
                self.bad += u64::from(self.v3.left);
                self.v3.left = 0;
            }
            if self.v3.left == 0 {
                self.map
                    .status(block + BLOCK_STATUS_OFF)
                    .store(libc::TP_STATUS_KERNEL, Ordering::Release);
                self.v3 = V3Cursor::default();
                self.cur = (self.cur + 1) % self.geo.block_nr;
            }
        }
        n
    }
}

/// Why a frame did not go into the transmit ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxRefused {
    /// No free slot (the kernel has not finished with the next one).
    Full,
    /// Longer than a slot holds.
    TooLong,
}

/// A transmit ring (TPACKET_V2) on a packet socket.
#[derive(Debug)]
pub struct TxRing {
    // Dropped before the socket: unmap, then close.
    map: Mapping,
    sock: PacketSocket,
    geo: Geometry,
    /// The next slot to fill.
    cur: usize,
    /// Slots marked for sending since the last successful kick.
    unsent: usize,
}

impl TxRing {
    /// Sets up a transmit ring on `sock` (a bound, send-only socket).
    pub fn new(sock: PacketSocket, cfg: &RingConfig) -> io::Result<TxRing> {
        set_version(&sock, libc::tpacket_versions::TPACKET_V2 as libc::c_int)?;
        // Skip, rather than stall on, a frame the kernel refuses (checked
        // here first, so it should not happen).
        sys::setsockopt(sock.fd(), libc::SOL_PACKET, libc::PACKET_LOSS, &1i32)?;
        let geo = Geometry::new(TX_DATA_OFF + cfg.max_frame, cfg.ring_bytes, 0, 1);
        sys::setsockopt(
            sock.fd(),
            libc::SOL_PACKET,
            libc::PACKET_TX_RING,
            &geo.req()?,
        )?;
        let map = Mapping::new(&sock, geo.bytes())?;
        Ok(TxRing {
            map,
            sock,
            geo,
            cur: 0,
            unsent: 0,
        })
    }

    /// The socket (to wait until it is writable).
    pub fn socket(&self) -> &PacketSocket {
        &self.sock
    }

    /// The ring's shape.
    pub fn geometry(&self) -> Geometry {
        self.geo
    }

    /// The longest frame a slot holds.
    pub fn max_frame(&self) -> usize {
        self.geo.frame_size - TX_DATA_OFF
    }

    /// How many of the next slots (at most `max`) are free, in order.
    pub fn free_slots(&self, max: usize) -> usize {
        let nr = self.geo.frame_nr();
        (0..max.min(nr))
            .take_while(|&k| {
                let off = self.geo.frame_off((self.cur + k) % nr);
                self.map.status(off).load(Ordering::Acquire) == libc::TP_STATUS_AVAILABLE
            })
            .count()
    }

    /// Slots that hold frames the kernel has not finished with.
    pub fn in_flight(&self) -> usize {
        let nr = self.geo.frame_nr();
        nr - (0..nr)
            .filter(|&i| {
                self.map
                    .status(self.geo.frame_off(i))
                    .load(Ordering::Acquire)
                    == libc::TP_STATUS_AVAILABLE
            })
            .count()
    }

    /// Copies `frame` into the next free slot and marks it for sending
    /// (sent at the next [`kick`](Self::kick)).
    pub fn push(&mut self, frame: &[u8]) -> Result<(), TxRefused> {
        if frame.len() > self.max_frame() {
            return Err(TxRefused::TooLong);
        }
        let off = self.geo.frame_off(self.cur);
        if self.map.status(off).load(Ordering::Acquire) != libc::TP_STATUS_AVAILABLE {
            return Err(TxRefused::Full);
        }
        self.map
            .bytes_mut(off + TX_DATA_OFF, frame.len())
            .copy_from_slice(frame);
        let mut h: libc::tpacket2_hdr = self.map.read(off);
        h.tp_len = frame.len() as u32;
        h.tp_snaplen = frame.len() as u32;
        h.tp_status = libc::TP_STATUS_AVAILABLE;
        self.map.write(off, h);
        self.map
            .status(off)
            .store(libc::TP_STATUS_SEND_REQUEST, Ordering::Release);
        self.cur = (self.cur + 1) % self.geo.frame_nr();
        self.unsent += 1;
        Ok(())
    }

    /// Whether marked frames wait for a kick.
    pub fn needs_kick(&self) -> bool {
        self.unsent > 0
    }

    /// Asks the kernel to send every marked slot, without blocking. A full
    /// socket buffer (`EAGAIN`, `ENOBUFS`) is not an error: the frames stay
    /// marked and the next kick sends them.
    pub fn kick(&mut self) -> io::Result<()> {
        if self.unsent == 0 {
            return Ok(());
        }
        // SAFETY: a zero-length send with a null buffer: the kernel reads
        // no user memory but the ring, which it owns for marked slots.
        let r = unsafe {
            libc::send(
                self.sock.fd().as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            if sys::would_block(&e) {
                return Ok(());
            }
            return Err(e);
        }
        self.unsent = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_values_round_trip_through_an_anonymous_mapping() {
        let mut m = Mapping::map(None, page_size(), 0).expect("anonymous mapping");
        m.write(8, 0xdead_beef_u32);
        assert_eq!(m.read::<u32>(8), 0xdead_beef);
        let d = libc::xdp_desc {
            addr: 4096,
            len: 60,
            options: 0,
        };
        m.write(64, d);
        let back: libc::xdp_desc = m.read(64);
        assert_eq!((back.addr, back.len, back.options), (4096, 60, 0));
        // Fresh anonymous memory is zeroes, a valid header like any bytes.
        let h: libc::tpacket2_hdr = m.read(256);
        assert_eq!(h.tp_status, 0);
    }

    #[test]
    fn geometry_holds_frames_in_power_of_two_blocks() {
        let g = Geometry::new(80 + 1518, 4 << 20, 0, 1);
        assert_eq!(g.frame_size % 16, 0);
        assert!(g.frame_size >= 1598);
        assert!(g.block_size.is_power_of_two() && g.block_size >= page_size());
        assert!(g.frames_per_block * g.frame_size <= g.block_size);
        assert_eq!(g.bytes(), 4 << 20);
        // The last frame ends inside the mapping.
        let last = g.frame_off(g.frame_nr() - 1);
        assert!(last + g.frame_size <= g.bytes());
        // Frames larger than a page get whole blocks.
        let big = Geometry::new(65536 + 96, 1 << 20, 0, 1);
        assert_eq!(big.frames_per_block, 1);
        assert_eq!(big.block_nr, 1 << 20 >> 17);
        // Too little memory still gives the minimum number of blocks.
        let tiny = Geometry::new(2000, 1, 1 << 16, 8);
        assert_eq!(tiny.block_nr, 8);
        assert_eq!(tiny.block_size, 1 << 16);
    }

    #[test]
    fn header_offsets_match_the_kernel() {
        // TPACKET2_HDRLEN - sizeof(sockaddr_ll) in <linux/if_packet.h>.
        assert_eq!(
            TX_DATA_OFF,
            libc::TPACKET2_HDRLEN - size_of::<libc::sockaddr_ll>()
        );
        assert_eq!(TX_DATA_OFF, 32);
        // block_status is the first word of the V3 block header, at 8.
        assert_eq!(BLOCK_STATUS_OFF, 8);
        // netoff = TPACKET_ALIGN(TPACKET2_HDRLEN + 16).
        assert_eq!(rx_data_room(size_of::<libc::tpacket2_hdr>()), 80);
    }

    /// A frame cut to its snap length keeps its wire length; the time is
    /// in nanoseconds.
    #[test]
    fn frame_header_info() {
        let i = frame_info(60, 1514, libc::PACKET_OUTGOING, 2, 5);
        assert_eq!(
            (i.len, i.wire_len, i.pkttype),
            (60, 1514, libc::PACKET_OUTGOING)
        );
        assert_eq!(i.tstamp_ns, 2_000_000_005);
        assert_eq!(frame_info(60, 40, 0, 0, 0).wire_len, 60);
    }

    #[test]
    fn status_bits() {
        let mut i = RecvInfo::default();
        status_info(
            libc::TP_STATUS_USER | libc::TP_STATUS_CSUMNOTREADY,
            0,
            0,
            &mut i,
        );
        assert!(i.csum_not_ready);
        assert_eq!(i.vlan, None);
        let mut i = RecvInfo::default();
        status_info(libc::TP_STATUS_VLAN_VALID, 7, 0x88a8, &mut i);
        assert_eq!(i.vlan, Some((0x8100, 7)));
        let mut i = RecvInfo::default();
        let s = libc::TP_STATUS_VLAN_VALID | libc::TP_STATUS_VLAN_TPID_VALID;
        status_info(s, 7, 0x88a8, &mut i);
        assert_eq!(i.vlan, Some((0x88a8, 7)));
    }

    /// Sends frames through a TX ring on loopback and reads them back
    /// through V2 and V3 receive rings.
    #[test]
    fn loopback_round_trip_when_privileged() {
        let flags = std::fs::read_to_string("/sys/class/net/lo/flags").unwrap_or_default();
        let flags = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16).unwrap_or(0);
        let Some(lo) = sys::if_index("lo") else {
            return;
        };
        if flags & 1 == 0 {
            eprintln!("skipping: lo is down");
            return;
        }
        for version in [RxVersion::V2, RxVersion::V3] {
            let rx_sock = match PacketSocket::open(lo, true) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("skipping: {e}");
                    return;
                }
            };
            rx_sock.ignore_outgoing().unwrap();
            let cfg = RingConfig {
                version,
                max_frame: 1518,
                ring_bytes: 1 << 20,
                block_timeout_ms: 1,
            };
            let mut rx = RxRing::new(rx_sock, &cfg).expect("rx ring");
            let mut tx =
                TxRing::new(PacketSocket::open(lo, false).unwrap(), &cfg).expect("tx ring");
            assert!(tx.free_slots(64) == 64);
            let mut frame = vec![0u8; 100];
            frame[..6].copy_from_slice(&[0xff; 6]);
            frame[6..12].copy_from_slice(&[2, 0, 0, 0, 0, 0x42]);
            frame[12..14].copy_from_slice(&[0x88, 0xb5]);
            for k in 0..10u8 {
                frame[14] = k;
                tx.push(&frame).unwrap();
            }
            assert!(tx.needs_kick());
            tx.kick().unwrap();
            assert_eq!(
                tx.push(&vec![0u8; tx.max_frame() + 1]),
                Err(TxRefused::TooLong)
            );
            let mut seen = Vec::new();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
            while seen.len() < 10 && std::time::Instant::now() < deadline {
                rx.recv(64, |d, info| {
                    if d.len() == 100 && d[6..14] == frame[6..14] {
                        assert_eq!(info.wire_len, 100);
                        assert!(
                            info.tstamp_ns > 1_600_000_000 * 1_000_000_000,
                            "a realtime stamp"
                        );
                        seen.push(d[14]);
                    }
                });
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            assert_eq!(seen, (0..10).collect::<Vec<u8>>(), "{version:?}");
            assert_eq!(rx.bad_frames(), 0);
            // Every slot comes back once the kernel is done.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
            while tx.in_flight() > 0 && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            assert_eq!(tx.in_flight(), 0);
        }
    }
}
