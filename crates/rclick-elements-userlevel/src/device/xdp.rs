//! AF_XDP sockets in copy mode: Click-style `METHOD XDP` for FromDevice and
//! ToDevice. With [`sys`](super::sys) and [`ring`](super::ring), the only
//! modules of this crate with `unsafe`: here the `bpf()` system calls and
//! the AF_XDP socket options. The rings and the packet memory (UMEM) are
//! [`Mapping`]s, read and written through their bounds-checked accessors.
//!
//! Setting up one interface:
//!
//! 1. an `XSKMAP` with one entry per receive queue;
//! 2. a five-instruction XDP program, assembled here, that redirects every
//!    frame to the socket of its receive queue in that map (and passes it
//!    to the kernel's stack when the queue has none):
//!    `r2 = ctx->rx_queue_index; r1 = map; r3 = XDP_PASS;
//!    return bpf_redirect_map(r1, r2, r3)`;
//! 3. the program attached to the interface in generic (SKB) mode through a
//!    BPF link, which detaches it when the link's descriptor closes (when
//!    the router exits, however it exits);
//! 4. an AF_XDP socket with its UMEM (frames of 2 or 4 KB), fill,
//!    completion, RX and TX rings, bound to queue 0 in copy mode
//!    (`XDP_COPY`), and put in the map.
//!
//! An interface has one AF_XDP socket per queue, so FromDevice and ToDevice
//! on the same interface share it: [`open`] returns the process's socket
//! for an interface, creating it on first use.

use std::io;
use std::mem::size_of;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

use super::ring::Mapping;
use super::sys;

/// Frames in the UMEM; half receive, half transmit.
const FRAMES: usize = 4096;
/// Entries in each of the four rings (a power of two).
const RING: u32 = 2048;
/// Bytes the kernel leaves before received data in copy mode
/// (`XDP_PACKET_HEADROOM`).
const RX_HEADROOM: usize = 256;

const BPF_MAP_CREATE: libc::c_int = 0;
const BPF_MAP_UPDATE_ELEM: libc::c_int = 2;
const BPF_PROG_LOAD: libc::c_int = 5;
const BPF_LINK_CREATE: libc::c_int = 28;
const BPF_MAP_TYPE_XSKMAP: u32 = 17;
const BPF_PROG_TYPE_XDP: u32 = 6;
const BPF_XDP: u32 = 37;
const XDP_FLAGS_SKB_MODE: u32 = 1 << 1;
const XDP_PASS: i32 = 2;
const BPF_FUNC_REDIRECT_MAP: i32 = 51;

/// One eBPF instruction (`struct bpf_insn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
struct Insn {
    code: u8,
    /// dst_reg in the low nibble, src_reg in the high one.
    regs: u8,
    off: i16,
    imm: i32,
}

const fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
    Insn {
        code,
        regs: (src << 4) | dst,
        off,
        imm,
    }
}

/// The redirect program for XSKMAP descriptor `map_fd`.
fn program(map_fd: i32) -> [Insn; 6] {
    [
        // r2 = *(u32 *)(r1 + offsetof(struct xdp_md, rx_queue_index))
        insn(0x61, 2, 1, 16, 0),
        // r1 = map (ld_imm64, src_reg BPF_PSEUDO_MAP_FD), two slots
        insn(0x18, 1, 1, 0, map_fd),
        insn(0, 0, 0, 0, 0),
        // r3 = XDP_PASS: the action when the queue has no socket
        insn(0xb7, 3, 0, 0, XDP_PASS),
        // call bpf_redirect_map
        insn(0x85, 0, 0, 0, BPF_FUNC_REDIRECT_MAP),
        // exit
        insn(0x95, 0, 0, 0, 0),
    ]
}

#[repr(C)]
#[derive(Default)]
struct MapCreateAttr {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
}

#[repr(C)]
#[derive(Default)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
}

#[repr(C)]
#[derive(Default)]
struct LinkCreateAttr {
    prog_fd: u32,
    target_ifindex: u32,
    attach_type: u32,
    flags: u32,
}

#[repr(C)]
#[derive(Default)]
struct MapUpdateAttr {
    map_fd: u32,
    _pad: u32,
    key: u64,
    value: u64,
    flags: u64,
}

/// `bpf(cmd, attr, sizeof attr)`, returning a new descriptor (or 0).
fn bpf<T>(cmd: libc::c_int, attr: &mut T) -> io::Result<libc::c_long> {
    // SAFETY: `attr` is a valid, initialized `T` (a prefix of `union
    // bpf_attr`) for the whole call, and the size passed is its size; the
    // kernel zero-extends the rest. Pointers inside it (instructions,
    // license, log, key, value) point at live buffers the caller owns.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            (attr as *mut T).cast::<libc::c_void>(),
            size_of::<T>() as libc::c_uint,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Turns an `io::Error` into "WHAT: reason".
fn failed(what: &'static str) -> impl Fn(io::Error) -> String {
    move |err| format!("{what}: {}", sys::strerror(&err))
}

fn owned(fd: libc::c_long) -> io::Result<OwnedFd> {
    let fd = i32::try_from(fd).map_err(|_| io::ErrorKind::InvalidData)?;
    // SAFETY: `fd` was just returned by the kernel as a new descriptor that
    // nothing else owns; the OwnedFd closes it exactly once.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One of the four AF_XDP rings: a producer index, a consumer index and
/// `RING` entries of `E`, mapped from the socket.
#[derive(Debug)]
struct XskRing {
    map: Mapping,
    producer: usize,
    consumer: usize,
    desc: usize,
    /// This side's copy of its own index (producer or consumer).
    local: u32,
}

impl XskRing {
    fn new(
        sock: &OwnedFd,
        off: &libc::xdp_ring_offset,
        entry: usize,
        pgoff: i64,
    ) -> io::Result<XskRing> {
        let len = off.desc as usize + RING as usize * entry;
        let map = Mapping::map(Some(sock.as_raw_fd()), len, pgoff)?;
        Ok(XskRing {
            map,
            producer: off.producer as usize,
            consumer: off.consumer as usize,
            desc: off.desc as usize,
            local: 0,
        })
    }

    fn slot(&self, idx: u32, entry: usize) -> usize {
        self.desc + (idx & (RING - 1)) as usize * entry
    }

    /// Producer side: entries this side may still produce.
    fn free(&self) -> u32 {
        let cons = self.map.status(self.consumer).load(Ordering::Acquire);
        RING - self.local.wrapping_sub(cons)
    }

    /// Producer side: publishes everything produced so far.
    fn publish(&self) {
        self.map
            .status(self.producer)
            .store(self.local, Ordering::Release);
    }

    /// Consumer side: entries waiting.
    fn available(&self) -> u32 {
        let prod = self.map.status(self.producer).load(Ordering::Acquire);
        prod.wrapping_sub(self.local)
    }

    /// Consumer side: releases everything consumed so far.
    fn release(&self) {
        self.map
            .status(self.consumer)
            .store(self.local, Ordering::Release);
    }
}

/// What the kernel counted for a socket (`XDP_STATISTICS`).
#[derive(Clone, Copy, Debug, Default)]
pub struct XskStats {
    /// Frames dropped: RX ring full, no free UMEM frame, or other reasons.
    pub rx_dropped: u64,
}

/// The XDP program that steers an interface's frames to a socket, and its
/// map. Field order is drop order: detach the program first.
#[derive(Debug)]
struct Steering {
    _link: OwnedFd,
    _prog: OwnedFd,
    _map: OwnedFd,
}

/// An AF_XDP socket bound to queue 0 of one interface, with its program
/// once something receives.
#[derive(Debug)]
pub struct Xsk {
    // Field order is drop order: detach the program before the socket closes.
    steering: Option<Steering>,
    ifindex: i32,
    rx: XskRing,
    tx: XskRing,
    fill: XskRing,
    comp: XskRing,
    sock: OwnedFd,
    umem: Mapping,
    frame_size: usize,
    /// Transmit frames (UMEM offsets) not in the kernel's hands.
    tx_free: Vec<u64>,
    /// Frames whose descriptors pointed outside the UMEM (never expected).
    pub bad: u64,
}

impl Xsk {
    fn open(ifindex: i32, max_frame: usize) -> Result<Xsk, String> {
        let frame_size = if max_frame + RX_HEADROOM <= 2048 {
            2048
        } else if max_frame + RX_HEADROOM <= 4096 {
            4096
        } else {
            return Err(format!(
                "a {max_frame}-byte frame does not fit a 4096-byte AF_XDP frame \
                 (lower the device's MTU to 3818 or less, or use METHOD MMAP)"
            ));
        };
        // The socket, its UMEM and rings.
        // SAFETY: plain system call with integer arguments.
        let raw = unsafe { libc::socket(libc::AF_XDP, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        let sock = owned(sys::check(raw).map_err(failed("AF_XDP socket"))?.into())
            .map_err(failed("AF_XDP socket"))?;
        let umem = Mapping::map(None, FRAMES * frame_size, 0).map_err(failed("UMEM"))?;
        let reg = libc::xdp_umem_reg {
            addr: umem.addr(),
            len: umem.len() as u64,
            chunk_size: frame_size as u32,
            headroom: 0,
            flags: 0,
            tx_metadata_len: 0,
        };
        sys::setsockopt(&sock, libc::SOL_XDP, libc::XDP_UMEM_REG, &reg)
            .map_err(failed("XDP_UMEM_REG"))?;
        for opt in [
            libc::XDP_UMEM_FILL_RING,
            libc::XDP_UMEM_COMPLETION_RING,
            libc::XDP_RX_RING,
            libc::XDP_TX_RING,
        ] {
            sys::setsockopt(&sock, libc::SOL_XDP, opt, &RING)
                .map_err(failed("AF_XDP ring size"))?;
        }
        // SAFETY: xdp_mmap_offsets is plain old data; all-zero is valid.
        let mut off: libc::xdp_mmap_offsets = unsafe { std::mem::zeroed() };
        sys::getsockopt(&sock, libc::SOL_XDP, libc::XDP_MMAP_OFFSETS, &mut off)
            .map_err(failed("XDP_MMAP_OFFSETS"))?;
        let d = size_of::<libc::xdp_desc>();
        let rx =
            XskRing::new(&sock, &off.rx, d, libc::XDP_PGOFF_RX_RING).map_err(failed("RX ring"))?;
        let tx =
            XskRing::new(&sock, &off.tx, d, libc::XDP_PGOFF_TX_RING).map_err(failed("TX ring"))?;
        let fill = XskRing::new(&sock, &off.fr, 8, libc::XDP_UMEM_PGOFF_FILL_RING as i64)
            .map_err(failed("fill ring"))?;
        let comp = XskRing::new(
            &sock,
            &off.cr,
            8,
            libc::XDP_UMEM_PGOFF_COMPLETION_RING as i64,
        )
        .map_err(failed("completion ring"))?;
        let mut x = Xsk {
            steering: None,
            ifindex,
            rx,
            tx,
            fill,
            comp,
            sock,
            umem,
            frame_size,
            tx_free: (FRAMES / 2..FRAMES)
                .map(|i| (i * frame_size) as u64)
                .collect(),
            bad: 0,
        };
        // Every receive frame goes to the kernel before traffic starts.
        for i in 0..FRAMES / 2 {
            let at = x.fill.slot(x.fill.local, 8);
            x.fill.map.write(at, (i * frame_size) as u64);
            x.fill.local = x.fill.local.wrapping_add(1);
        }
        x.fill.publish();
        // SAFETY: sockaddr_xdp is plain old data; all-zero is valid.
        let mut sa: libc::sockaddr_xdp = unsafe { std::mem::zeroed() };
        sa.sxdp_family = libc::AF_XDP as u16;
        sa.sxdp_flags = libc::XDP_COPY;
        sa.sxdp_ifindex = ifindex as u32;
        sa.sxdp_queue_id = 0;
        // SAFETY: `sa` is a valid sockaddr_xdp and the length says so.
        let r = unsafe {
            libc::bind(
                x.sock.as_raw_fd(),
                (&sa as *const libc::sockaddr_xdp).cast::<libc::sockaddr>(),
                size_of::<libc::sockaddr_xdp>() as libc::socklen_t,
            )
        };
        sys::check(r).map_err(failed("binding the AF_XDP socket to queue 0 (copy mode)"))?;
        Ok(x)
    }

    /// Attaches the program that steers the interface's received frames
    /// (queue 0) to this socket, unless already done. Only a receiver does
    /// this: without one, the frames would be taken from the kernel and
    /// never read.
    fn steer(&mut self) -> Result<(), String> {
        if self.steering.is_some() {
            return Ok(());
        }
        let ifindex = self.ifindex;
        // The map.
        let mut mc = MapCreateAttr {
            map_type: BPF_MAP_TYPE_XSKMAP,
            key_size: 4,
            value_size: 4,
            max_entries: 64,
            map_flags: 0,
        };
        let map = owned(bpf(BPF_MAP_CREATE, &mut mc).map_err(failed("creating the XSKMAP (bpf)"))?)
            .map_err(failed("XSKMAP"))?;
        // The program.
        let insns = program(map.as_raw_fd());
        let license = b"Dual MIT/GPL\0";
        let mut log = vec![0u8; 4096];
        let mut pl = ProgLoadAttr {
            prog_type: BPF_PROG_TYPE_XDP,
            insn_cnt: insns.len() as u32,
            insns: insns.as_ptr() as u64,
            license: license.as_ptr() as u64,
            log_level: 1,
            log_size: log.len() as u32,
            log_buf: log.as_mut_ptr() as u64,
            expected_attach_type: BPF_XDP,
            ..ProgLoadAttr::default()
        };
        pl.prog_name[..10].copy_from_slice(b"rclick_xsk");
        let prog = match bpf(BPF_PROG_LOAD, &mut pl) {
            Ok(fd) => owned(fd).map_err(failed("program"))?,
            Err(err) => {
                let n = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                return Err(format!(
                    "loading the XDP program (bpf): {}; verifier: {}",
                    sys::strerror(&err),
                    String::from_utf8_lossy(&log[..n]).trim()
                ));
            }
        };
        let key: u32 = 0;
        let val: u32 = self.sock.as_raw_fd() as u32;
        let mut mu = MapUpdateAttr {
            map_fd: map.as_raw_fd() as u32,
            key: &key as *const u32 as u64,
            value: &val as *const u32 as u64,
            ..MapUpdateAttr::default()
        };
        bpf(BPF_MAP_UPDATE_ELEM, &mut mu).map_err(failed("adding the socket to the XSKMAP"))?;
        // Attach last, once the socket is ready to receive.
        let mut lc = LinkCreateAttr {
            prog_fd: prog.as_raw_fd() as u32,
            target_ifindex: ifindex as u32,
            attach_type: BPF_XDP,
            flags: XDP_FLAGS_SKB_MODE,
        };
        let link = owned(bpf(BPF_LINK_CREATE, &mut lc).map_err(|err| {
            let why = sys::strerror(&err);
            if err.raw_os_error() == Some(libc::EBUSY) || err.raw_os_error() == Some(libc::EEXIST) {
                format!("attaching the XDP program: {why} (the interface already has an XDP program: `ip link set DEV xdp off`)")
            } else {
                format!("attaching the XDP program (generic mode): {why}")
            }
        })?)
        .map_err(failed("link"))?;
        self.steering = Some(Steering {
            _link: link,
            _prog: prog,
            _map: map,
        });
        Ok(())
    }

    /// Hands up to `max` received frames to `f`, then gives their buffers
    /// back to the kernel. Returns how many were handed.
    pub fn recv(&mut self, max: usize, mut f: impl FnMut(&mut [u8])) -> usize {
        let n = self.rx.available().min(max as u32);
        if n == 0 {
            return 0;
        }
        let d = size_of::<libc::xdp_desc>();
        for _ in 0..n {
            let desc: libc::xdp_desc = self.rx.map.read(self.rx.slot(self.rx.local, d));
            self.rx.local = self.rx.local.wrapping_add(1);
            let (addr, len) = (desc.addr as usize, desc.len as usize);
            if addr.checked_add(len).is_some_and(|e| e <= self.umem.len()) {
                f(self.umem.bytes_mut(addr, len));
            } else {
                self.bad += 1;
            }
            // Back to the fill ring: the frame's base (aligned chunks).
            let base = (addr - addr % self.frame_size) as u64;
            let at = self.fill.slot(self.fill.local, 8);
            self.fill.map.write(at, base);
            self.fill.local = self.fill.local.wrapping_add(1);
        }
        self.rx.release();
        self.fill.publish();
        n as usize
    }

    /// Takes back transmit frames the kernel has finished with.
    fn reap(&mut self) {
        let n = self.comp.available();
        for _ in 0..n {
            let addr: u64 = self.comp.map.read(self.comp.slot(self.comp.local, 8));
            self.comp.local = self.comp.local.wrapping_add(1);
            self.tx_free.push(addr - addr % self.frame_size as u64);
        }
        if n > 0 {
            self.comp.release();
        }
    }

    /// How many frames [`send`](Self::send) could take now (at most `max`).
    pub fn tx_room(&mut self, max: usize) -> usize {
        self.reap();
        max.min(self.tx_free.len()).min(self.tx.free() as usize)
    }

    /// Longest frame one UMEM frame holds.
    pub fn max_frame(&self) -> usize {
        self.frame_size - RX_HEADROOM
    }

    /// Queues `frame` for transmission; false when there is no room or it
    /// is too long. Call [`kick`](Self::kick) after a batch.
    pub fn send(&mut self, frame: &[u8]) -> bool {
        if frame.len() > self.frame_size || self.tx.free() == 0 {
            return false;
        }
        let Some(addr) = self.tx_free.pop() else {
            return false;
        };
        self.umem
            .bytes_mut(addr as usize, frame.len())
            .copy_from_slice(frame);
        let d = size_of::<libc::xdp_desc>();
        let at = self.tx.slot(self.tx.local, d);
        self.tx.map.write(
            at,
            libc::xdp_desc {
                addr,
                len: frame.len() as u32,
                options: 0,
            },
        );
        self.tx.local = self.tx.local.wrapping_add(1);
        true
    }

    /// Publishes queued frames and asks the kernel to send them (copy mode
    /// always needs the system call). A full socket is not an error.
    pub fn kick(&mut self) -> io::Result<()> {
        self.tx.publish();
        // SAFETY: a zero-length send with no buffer or address: the kernel
        // reads only the TX ring and UMEM it was given.
        let r = unsafe {
            libc::sendto(
                self.sock.as_raw_fd(),
                std::ptr::null(),
                0,
                libc::MSG_DONTWAIT,
                std::ptr::null(),
                0,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            if sys::would_block(&e) || e.raw_os_error() == Some(libc::EBUSY) {
                return Ok(());
            }
            return Err(e);
        }
        Ok(())
    }

    /// The socket's descriptor (to wait until it is readable or writable).
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        self.sock.as_raw_fd()
    }

    /// Frames given to the kernel for sending and not yet completed.
    pub fn tx_in_flight(&self) -> usize {
        FRAMES / 2 - self.tx_free.len()
    }

    /// The kernel's counters for this socket.
    pub fn stats(&self) -> XskStats {
        // SAFETY: xdp_statistics is plain old data; all-zero is valid.
        let mut s: libc::xdp_statistics = unsafe { std::mem::zeroed() };
        if sys::getsockopt(&self.sock, libc::SOL_XDP, libc::XDP_STATISTICS, &mut s).is_err() {
            return XskStats::default();
        }
        XskStats {
            // A frame dropped for want of a fill buffer is counted in both
            // rx_dropped and rx_fill_ring_empty_descs: count it once.
            rx_dropped: s.rx_dropped + s.rx_ring_full,
        }
    }
}

const BPF_PROG_TYPE_SCHED_CLS: u32 = 3;
const BPF_TCX_INGRESS: u32 = 46;
const TCX_DROP: i32 = 2;

/// A program on an interface's ingress (tcx) that drops every frame after
/// the packet sockets got their copy: the kernel's own stack no longer
/// handles the frames a user-level router reads (FromDevice's `SNIFFER
/// false`). The program is attached through a BPF link: it goes when this
/// is dropped or the process ends, however it ends.
#[derive(Debug)]
pub struct KernelBypass {
    _link: OwnedFd,
    _prog: OwnedFd,
}

/// Attaches a [`KernelBypass`] to `ifname` (Linux 6.6 or later, CAP_BPF
/// and CAP_NET_ADMIN).
pub fn bypass_kernel(ifname: &str) -> Result<KernelBypass, String> {
    let Some(ifindex) = sys::if_index(ifname) else {
        return Err(format!("no such network interface '{ifname}'"));
    };
    // r0 = TCX_DROP; exit
    let insns = [insn(0xb7, 0, 0, 0, TCX_DROP), insn(0x95, 0, 0, 0, 0)];
    let license = b"Dual MIT/GPL\0";
    let mut pl = ProgLoadAttr {
        prog_type: BPF_PROG_TYPE_SCHED_CLS,
        insn_cnt: insns.len() as u32,
        insns: insns.as_ptr() as u64,
        license: license.as_ptr() as u64,
        expected_attach_type: BPF_TCX_INGRESS,
        ..ProgLoadAttr::default()
    };
    pl.prog_name[..13].copy_from_slice(b"rclick_bypass");
    let prog = owned(bpf(BPF_PROG_LOAD, &mut pl).map_err(failed("loading the tc program (bpf)"))?)
        .map_err(failed("program"))?;
    let mut lc = LinkCreateAttr {
        prog_fd: prog.as_raw_fd() as u32,
        target_ifindex: ifindex as u32,
        attach_type: BPF_TCX_INGRESS,
        flags: 0,
    };
    let link = owned(bpf(BPF_LINK_CREATE, &mut lc).map_err(failed(
        "attaching the tc program to ingress (tcx, Linux 6.6+)",
    ))?)
    .map_err(failed("link"))?;
    Ok(KernelBypass {
        _link: link,
        _prog: prog,
    })
}

/// The process's AF_XDP sockets by interface index, shared by the
/// FromDevice and ToDevice of an interface.
static SOCKETS: Mutex<Vec<(i32, Weak<Mutex<Xsk>>)>> = Mutex::new(Vec::new());

/// The AF_XDP socket of interface `ifname`, opened (with its XDP program
/// attached) on first use; the last user's drop detaches and closes it.
pub fn open(ifname: &str, max_frame: usize, receive: bool) -> Result<Arc<Mutex<Xsk>>, String> {
    let Some(ifindex) = sys::if_index(ifname) else {
        return Err(format!(
            "no such network interface '{ifname}' (check `ip link`; to use an interface \
             in a network namespace, run the router with `ip netns exec NAMESPACE`)"
        ));
    };
    let queues = std::fs::read_dir(format!("/sys/class/net/{ifname}/queues"))
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("rx-"))
                .count()
        })
        .unwrap_or(1);
    if queues > 1 {
        return Err(format!(
            "METHOD XDP reads receive queue 0 only, and {ifname} has {queues}: \
             use one queue (`ethtool -L {ifname} combined 1`) or METHOD MMAP"
        ));
    }
    let mut all = SOCKETS.lock().unwrap_or_else(|p| p.into_inner());
    all.retain(|(_, w)| w.strong_count() > 0);
    let perm = |e: String| {
        if e.contains("Operation not permitted") {
            format!("{e} (AF_XDP and BPF need CAP_NET_ADMIN, CAP_NET_RAW and CAP_BPF: run as root)")
        } else {
            e
        }
    };
    let found = all
        .iter()
        .find(|(i, _)| *i == ifindex)
        .and_then(|(_, w)| w.upgrade());
    let x = match found {
        Some(x) => x,
        None => {
            let x = Arc::new(Mutex::new(Xsk::open(ifindex, max_frame).map_err(perm)?));
            all.push((ifindex, Arc::downgrade(&x)));
            x
        }
    };
    if receive {
        x.lock()
            .unwrap_or_else(|p| p.into_inner())
            .steer()
            .map_err(perm)?;
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_encoding() {
        let p = program(7);
        // ldxw r2, [r1 + 16]
        assert_eq!((p[0].code, p[0].regs, p[0].off), (0x61, 0x12, 16));
        // lddw r1, map fd 7 (src_reg 1 = BPF_PSEUDO_MAP_FD)
        assert_eq!((p[1].code, p[1].regs, p[1].imm), (0x18, 0x11, 7));
        assert_eq!(p[2], insn(0, 0, 0, 0, 0));
        assert_eq!((p[3].code, p[3].regs, p[3].imm), (0xb7, 0x03, XDP_PASS));
        assert_eq!((p[4].code, p[4].imm), (0x85, BPF_FUNC_REDIRECT_MAP));
        assert_eq!(p[5].code, 0x95);
        assert_eq!(size_of::<Insn>(), 8);
    }
}
