//! # FromDevice
//!
//! `FromDevice(DEVNAME [, KEYWORDS])`
//!
//! **Category:** netdevices. Reads packets from a network device (user-level, Linux).
//!
//! **Ports:** no inputs; one or two outputs; push.
//!
//! ## Description
//!
//! Reads the Ethernet frames the kernel receives on the interface DEVNAME
//! through a Linux packet socket and pushes them to output 0.
//!
//! By default FromDevice is a sniffer: the kernel also receives and handles
//! every frame FromDevice reads. A router should say `SNIFFER false`:
//! FromDevice then attaches a program to the interface's ingress (tcx)
//! that drops every frame after the packet sockets have their copy, so the
//! kernel's own stack does not handle them as well (at high rates that work
//! costs about as much as handing the frames to FromDevice, on the same
//! processor: its IP input, a route lookup and a route entry made and freed
//! for every frame). The program goes when the router stops, however it
//! stops. Frames sent on DEVNAME (by the kernel or by a ToDevice) are not
//! emitted unless OUTBOUND is true.
//!
//! A task reads up to BURST frames per run and pushes them. The router
//! watches the socket (Click's `add_select`) and runs the task as soon as
//! a frame waits; after a full burst the task runs again at once, after a
//! partial one it sleeps until the socket is readable again. An idle
//! FromDevice costs nothing, and a lone frame is pushed within
//! microseconds of its arrival.
//!
//! With several router threads (`click -j N`, N > 1), FromDevice opens one
//! socket per thread, all in one `PACKET_FANOUT_HASH` group, each read by
//! its own task on its own thread: the kernel spreads the interface's
//! flows over the sockets by a hash of addresses and ports, so each
//! flow's frames stay in order, and the threads receive at the same time.
//! The elements downstream are then reached from several threads and
//! taken one caller at a time (a compare-and-swap per call), so threads
//! wait for each other where their paths meet; see docs/E2E-DEVICES.md
//! for what that gives. FANOUT false keeps one socket and task. Thread
//! `i` reads socket `i` whatever StaticThreadSched says about FromDevice.
//!
//! METHOD chooses how frames come from the kernel:
//!
//! * `LINUX` (the default): a packet socket read with `recvmmsg`, one
//!   system call per batch. The socket's receive buffer is 4 MB (beyond
//!   `net.core.rmem_max` when the process has CAP_NET_ADMIN), so bursts
//!   wait there while the router is busy or descheduled. Receive slots are
//!   64 KB, so frames larger than the MTU arrive whole. A host with its
//!   segmentation offloads on (TSO/GSO, the default on a veth) hands over
//!   runs of TCP segments or UDP datagrams as one frame of up to 64 KB,
//!   often with DF set; forwarded as they are, they would exceed the MTU
//!   and, with DF, be answered with "fragmentation needed" for ever while
//!   the sender's TCP never sends smaller. The socket asks for the
//!   virtio-net header (`PACKET_VNET_HDR`), which says how the frame was
//!   meant to be cut, and FromDevice cuts it as the sender's network card
//!   would: TCP over IPv4 and IPv6 and UDP segmentation, each segment with
//!   its own lengths, IPv4 identification, TCP sequence number, flags
//!   (FIN and PSH on the last, CWR on the first) and complete checksums
//!   (`gso_frames`, `gso_segments`; what cannot be cut is dropped and
//!   counted in `gso_drops`).
//! * `MMAP`: a receive ring shared with the kernel (`PACKET_RX_RING`): no
//!   system call per frame or batch, the kernel copies each frame into a
//!   slot and FromDevice copies it out and hands the slot back. Slots are
//!   sized for the device's MTU (read when the router starts) plus the
//!   Ethernet header and two VLAN tags. A longer frame (a GRO aggregate, or
//!   an MTU raised after start, a GSO frame: turn segmentation offloads
//!   off on the hosts or use METHOD LINUX) does not fit: it is dropped and
//!   counted in `oversize`, with a message the first time. With `TPACKET 2` (the
//!   default) each slot holds one frame and is handed over at once. With
//!   `TPACKET 3` the kernel packs frames into 64 KB blocks and hands over a
//!   block when it is full or BLOCK_TIMEOUT milliseconds after its first
//!   frame: fewer handovers at high rates, but up to BLOCK_TIMEOUT of added
//!   latency on a quiet link (a ping's round trip grows by about 1 ms
//!   per router hop with the default).
//! * `XDP`: an AF_XDP socket in copy mode. FromDevice attaches a small XDP
//!   program to DEVNAME in generic (SKB) mode that redirects every frame of
//!   receive queue 0 to the socket (and passes frames of other queues to
//!   the kernel); it is detached when the router exits, however it exits.
//!   The kernel copies each frame into shared memory (UMEM frames of 2 KB
//!   for MTUs up to 1770, 4 KB up to 3818; larger MTUs are refused). Unlike the
//!   other methods the kernel's stack does *not* also see the frames (no
//!   sniffing), and outgoing frames are never seen (OUTBOUND has no
//!   effect). The device must have a single receive queue, and no other
//!   XDP program. XDP gives no checksum status: a TCP or UDP checksum whose
//!   field holds exactly the pseudo-header sum (what a sender leaves for
//!   offload) is completed, any other is left as it is. The packet type
//!   annotation comes from the destination address (broadcast, multicast,
//!   else HOST). FromDevice and ToDevice with METHOD XDP on the same device
//!   share one socket.
//!
//! Frames from virtual devices (veth, tap) may carry a partial TCP/UDP
//! checksum, which the kernel marks `TP_STATUS_CSUMNOTREADY` (in the
//! auxiliary data with LINUX, in the ring slot's status with MMAP);
//! FromDevice completes those checksums (TCP and UDP over IPv4). VLAN tags
//! the kernel stripped are put back into the frame. Frames the kernel
//! cannot queue (the socket buffer, ring or UMEM is full) are counted in
//! `kernel_drops`. Turning offloads off (`ethtool -K DEV tso off gso off
//! gro off`) keeps frames MTU-sized, which a router needs anyway.
//!
//! Opening a packet socket needs CAP_NET_RAW (root). A missing interface
//! or a missing privilege fails initialization with a message saying what
//! to do.
//!
//! Keywords:
//!
//! * `SNIFFER` (boolean): sniffer mode. Default true. With false, the
//!   kernel's stack no longer handles frames that arrive on DEVNAME while
//!   the router runs (see above; Linux 6.6 or later, else a warning and
//!   the frames reach the kernel as well). Click installs iptables rules
//!   (KernelFilter) instead, which the kernel meets only after its IP input
//!   and route lookup. Every frame arriving on DEVNAME is affected, also
//!   those of programs other than the router: use it on interfaces the
//!   router owns.
//! * `PROMISC` (boolean): put the device in promiscuous mode while the
//!   router runs. Default false.
//! * `SNAPLEN` (unsigned): keep at most this many bytes of each frame; the
//!   rest is counted in the extra length annotation. Default 65535 (whole
//!   frames; Click's default is 2046, which GSO frames exceed).
//! * `FORCE_IP` (boolean): emit only IPv4 frames, with the IP header
//!   annotation set; others go to output 1 if it exists, else are dropped.
//!   Default false.
//! * `METHOD` (word): capture method, `LINUX` (packet socket, the
//!   default), `MMAP` (memory-mapped receive ring) or `XDP` (AF_XDP, copy
//!   mode). `PCAP` and `NETMAP` are refused.
//! * `TPACKET` (2 or 3): with METHOD MMAP, the ring format. Default 2.
//! * `BLOCK_TIMEOUT` (milliseconds, 1 to 1000): with TPACKET 3, how long
//!   the kernel waits before handing over a block that is not full.
//!   Default 1.
//! * `RING_SIZE` (bytes): with METHOD MMAP, the receive ring's memory.
//!   Default 4194304 (4 MB: 2048 slots at MTU 1500).
//! * `BPF_FILTER` (string): ignored with a warning (needs METHOD PCAP).
//! * `ENCAP` (word): ignored unless `ETHER` (needs METHOD PCAP).
//! * `OUTBOUND` (boolean): also emit frames sent on DEVNAME. Default false.
//! * `HEADROOM` (unsigned): bytes of headroom before each packet's data.
//!   Default 28.
//! * `BURST` (unsigned): most frames read per task run, 1 to 64. Default
//!   32 (Click's is 1; rclick moves frames in batches).
//! * `TIMESTAMP` (boolean): set the timestamp annotation to the time of
//!   reading. Default true.
//! * `FANOUT` (boolean): with several router threads, one socket and task
//!   per thread in a fanout group (see above). Default true when the
//!   router has more than one thread and METHOD is LINUX or MMAP; METHOD
//!   XDP has one socket per receive queue, and refuses FANOUT true. Not in
//!   Click.
//!
//! ## Annotations
//!
//! Sets the packet type annotation (HOST, BROADCAST, MULTICAST, OTHERHOST,
//! OUTGOING), the timestamp annotation, the extra length annotation of
//! truncated frames, and (with FORCE_IP) the IP header annotation.
//!
//! ## Handlers
//!
//! * `count` (read): frames emitted.
//! * `kernel_drops` (read): frames the kernel dropped before FromDevice
//!   read them (its socket buffer or ring was full), from
//!   `PACKET_STATISTICS` (METHOD XDP: `XDP_STATISTICS`, frames dropped with
//!   the RX ring full or no free UMEM frame); with FANOUT, over every
//!   socket.
//! * `drops` (read): same as `kernel_drops`.
//! * `oversize` (read): with METHOD MMAP, frames dropped because they were
//!   longer than a ring slot.
//! * `gso_frames`, `gso_segments` (read): with METHOD LINUX, GSO frames cut
//!   into segments, and the segments they gave.
//! * `gso_drops` (read): GSO frames that could not be cut (a GSO type other
//!   than TCP or UDP segmentation, headers that do not match it) and were
//!   dropped; the first is also logged.
//! * `method` (read): the METHOD in use.
//! * `sniffer` (read): whether the kernel also handles the frames (false
//!   with SNIFFER false once its program is attached, and with METHOD XDP).
//! * `ring` (read): with METHOD MMAP, the ring's shape (format, blocks,
//!   slot size, longest frame it holds).
//! * `fanout` (read): how many sockets (and tasks, one per thread) read
//!   the device: 1 without FANOUT.
//! * `fanout_counts` (read): frames emitted from each socket, in thread
//!   order, separated by spaces (how the kernel spread the flows).
//! * `encap` (read): the link encapsulation, `ETHER`.
//! * `reset_counts` (write): sets `count` and the drop counters to 0.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(veth0) -> c :: Classifier(12/0806, 12/0800, -) ...
//! FromDevice(eth0, PROMISC true) -> ToDump(capture.pcap);
//! FromDevice(veth0, METHOD MMAP) -> ...
//! FromDevice(veth1, METHOD MMAP, TPACKET 3, BLOCK_TIMEOUT 2) -> ...
//! ```
//!
//! ## See also
//!
//! ToDevice, FromDump, ToDump, `rclick testbed`

// Why this file is long: over 1,000 lines with its manual (190): the code is
// about 830 lines of one job, receiving from a device by each METHOD (packet
// socket, rings, AF_XDP) on one or several threads (FANOUT). The system calls
// are in sys.rs, ring.rs and xdp.rs, GSO segmentation in gso.rs.

use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rclick_core::args::{Args, Word};
use rclick_core::router::Select;
use rclick_core::{phase, ConcurrentPorts, ConfigureCx, Ctx, Element, HandlerDef, InitCx, TaskId};
use rclick_packet::{Packet, PacketBatch, PacketType, Timestamp};
use rclick_wire::ethernet::{EtherType, EthernetFrame};
use rclick_wire::vlan::VlanTag;

use super::gso::{self, Gso};
use super::ring::{RingConfig, RxRing, RxVersion};
use super::sys::{self, PacketSocket, RecvInfo, MAX_BATCH};
use super::xdp::{self, Xsk};
use super::Method;

/// Bytes per receive slot: a whole 64 KB GSO frame plus a VLAN tag.
const SLOT: usize = 65536 + 64;

/// Where frames come from.
enum Source {
    /// Not initialized (or cleaned up).
    Closed,
    /// METHOD LINUX: `recvmmsg` into `buf`, `SLOT` bytes per frame.
    Socket {
        sock: PacketSocket,
        buf: Vec<u8>,
        infos: Vec<RecvInfo>,
    },
    /// METHOD MMAP: a receive ring.
    Ring(RxRing),
    /// METHOD XDP: the interface's AF_XDP socket (shared with ToDevice),
    /// and with PROMISC the packet socket that holds promiscuous mode (XDP
    /// takes the frames before it would see them).
    Xdp {
        xsk: Arc<Mutex<Xsk>>,
        _promisc: Option<PacketSocket>,
    },
}

impl Source {
    /// The descriptor that becomes readable when frames wait.
    fn raw_fd(&self) -> Option<RawFd> {
        match self {
            Source::Socket { sock, .. } => Some(sock.fd().as_raw_fd()),
            Source::Ring(r) => Some(r.socket().fd().as_raw_fd()),
            Source::Xdp { xsk, .. } => Some(lock(xsk).raw_fd()),
            Source::Closed => None,
        }
    }

    /// The packet socket, for its statistics.
    fn socket(&self) -> Option<&PacketSocket> {
        match self {
            Source::Socket { sock, .. } => Some(sock),
            Source::Ring(r) => Some(r.socket()),
            Source::Xdp { .. } | Source::Closed => None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What turning a received frame into a packet needs.
#[derive(Clone, Copy)]
struct RxOpts {
    outbound: bool,
    snaplen: usize,
    headroom: usize,
    timestamp: bool,
}

/// Turns a received frame into a packet, or `None` to skip it.
fn make_packet(o: RxOpts, frame: &mut [u8], info: RecvInfo, now: Timestamp) -> Option<Packet> {
    if info.pkttype == libc::PACKET_OUTGOING && !o.outbound {
        return None;
    }
    let len = info.len.min(frame.len());
    let frame = &mut frame[..len];
    if info.csum_not_ready {
        super::complete_checksum(frame);
    }
    let keep = len.min(o.snaplen);
    let mut p = match info.vlan {
        Some((tpid, tci)) if keep >= 12 => {
            let mut p = Packet::try_make(o.headroom, &frame[..keep], 0).ok()?;
            // Put the stripped tag back after the two MAC addresses.
            p.push(4).ok()?;
            let d = p.data_mut();
            d.copy_within(4..16, 0);
            let mut eth = EthernetFrame::new_unchecked(d);
            eth.set_ethertype(EtherType(tpid));
            VlanTag::new_unchecked(eth.payload_mut()).set_tci(tci);
            p
        }
        _ => Packet::try_make(o.headroom, &frame[..keep], 0).ok()?,
    };
    let extra = info.wire_len.saturating_sub(keep);
    if extra > 0 {
        p.set_extra_length_anno(u32::try_from(extra).unwrap_or(u32::MAX));
    }
    p.set_packet_type_anno(PacketType::from_u8(info.pkttype).unwrap_or_default());
    if o.timestamp {
        p.set_timestamp_anno(now);
    }
    p.set_mac_header(0);
    Some(p)
}

/// Sets the IP header annotation of an Ethernet IPv4 frame.
fn force_ip(p: &mut Packet) -> bool {
    match super::ipv4_header_in_frame(p.data()) {
        Some((ihl, _)) => {
            p.set_ip_header(rclick_wire::ethernet::HEADER_LEN, ihl);
            true
        }
        None => false,
    }
}

/// One receive socket (ring, AF_XDP socket) and the task that reads it.
/// Aligned to a cache line: with FANOUT each is written by its own thread.
#[repr(align(64))]
struct Member {
    task: TaskId,
    /// Taken by the member's task (one thread) and by handlers; never
    /// held while packets are pushed.
    rx: Mutex<Rx>,
    /// Frames emitted.
    count: AtomicU64,
}

/// A member's receiving state.
struct Rx {
    source: Source,
    /// Scratch space for cutting GSO frames into segments.
    seg_buf: Vec<u8>,
    errors_reported: u32,
    /// XDP_STATISTICS drops already counted (the kernel's are cumulative).
    xdp_drops_seen: u64,
}

/// What the members share. With FANOUT, also the element's thread-safe
/// ports: each thread runs its own member's task through
/// [`ConcurrentPorts::run_task`], at the same time as the others.
struct Receiver {
    ifname: String,
    opts: RxOpts,
    burst: usize,
    force_ip: bool,
    members: Vec<Member>,
    oversize: AtomicU64,
    /// GSO frames cut into segments, and the segments they gave.
    gso_frames: AtomicU64,
    gso_segments: AtomicU64,
    /// GSO frames that could not be cut (dropped).
    gso_drops: AtomicU64,
}

impl Receiver {
    /// One run of `task`: reads up to BURST frames from its member's
    /// source and pushes them. Runs again at once only after a full
    /// burst; otherwise the router wakes the task when the descriptor is
    /// readable again.
    fn run(&self, task: TaskId, cx: &mut Ctx) -> bool {
        let Some(m) = self.members.iter().find(|m| m.task == task) else {
            return false;
        };
        let now = if self.opts.timestamp {
            cx.now()
        } else {
            Timestamp::ZERO
        };
        let mut out = PacketBatch::with_capacity(self.burst);
        let mut other = PacketBatch::new();
        let n = self.receive(&mut lock(&m.rx), now, &mut out, &mut other, cx);
        if n == 0 {
            return false;
        }
        m.count.fetch_add(out.len() as u64, Ordering::Relaxed);
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !other.is_empty() {
            cx.checked_push(1, other);
        }
        if n >= self.burst {
            cx.reschedule();
        }
        true
    }

    /// Reads up to BURST frames into `out` (and, with FORCE_IP, non-IP
    /// frames into `other`); returns how many frames were read.
    fn receive(
        &self,
        rx: &mut Rx,
        now: Timestamp,
        out: &mut PacketBatch,
        other: &mut PacketBatch,
        cx: &Ctx,
    ) -> usize {
        let opts = self.opts;
        let force = self.force_ip;
        let mut emit = |p: Option<Packet>| {
            if let Some(mut p) = p {
                if force && !force_ip(&mut p) {
                    other.push(p);
                } else {
                    out.push(p);
                }
            }
        };
        let Rx {
            source, seg_buf, ..
        } = rx;
        match source {
            Source::Closed => 0,
            Source::Socket { sock, buf, infos } => {
                let n = match sock.recv_batch(buf, SLOT, &mut infos[..self.burst]) {
                    Ok(n) => n,
                    Err(e) => {
                        if rx.errors_reported < 5 {
                            rx.errors_reported += 1;
                            cx.log(format!(
                                "FromDevice({}): recvmmsg: {}",
                                self.ifname,
                                sys::strerror(&e)
                            ));
                        }
                        return 0;
                    }
                };
                for (i, info) in infos[..n].iter().enumerate() {
                    let start = i * SLOT;
                    let len = info.len.min(SLOT);
                    let frame = &mut buf[start..start + len];
                    match info.gso {
                        None => emit(make_packet(opts, frame, *info, now)),
                        Some(g) => self.cut(frame, g, *info, now, seg_buf, &mut emit, cx),
                    }
                }
                n
            }
            Source::Ring(ring) => {
                let max_frame = ring.max_frame();
                let mut oversize = 0u64;
                let n = ring.recv(self.burst, |frame, info| {
                    // Cut short by the ring's slot size, not by SNAPLEN.
                    if info.len < info.wire_len && info.len < opts.snaplen {
                        oversize += 1;
                        return;
                    }
                    emit(make_packet(opts, frame, info, now));
                });
                if oversize > 0 && self.oversize.fetch_add(oversize, Ordering::Relaxed) == 0 {
                    cx.log(format!(
                        "FromDevice({}): dropped a frame longer than the ring's \
                         {max_frame}-byte slots (turn off GRO/LRO on the device, \
                         or raise its MTU before starting the router); counted in `oversize`",
                        self.ifname
                    ));
                }
                n
            }
            Source::Xdp { xsk: x, .. } => lock(x).recv(self.burst, |frame| {
                // XDP says nothing about the frame: its type comes from
                // the destination address.
                let pkttype = match frame.first() {
                    Some(_) if frame[..6.min(frame.len())] == [0xff; 6] => libc::PACKET_BROADCAST,
                    Some(b) if b & 1 == 1 => libc::PACKET_MULTICAST,
                    _ => libc::PACKET_HOST,
                };
                super::complete_checksum_if_partial(frame);
                let info = RecvInfo {
                    len: frame.len(),
                    wire_len: frame.len(),
                    pkttype,
                    ..RecvInfo::default()
                };
                emit(make_packet(opts, frame, info, now));
            }),
        }
    }

    /// Cuts a GSO frame into the segments a host's offload left whole
    /// and emits each as a packet of its own; a frame that cannot be cut
    /// is dropped and counted in `gso_drops`.
    #[allow(clippy::too_many_arguments)]
    fn cut(
        &self,
        frame: &[u8],
        g: Gso,
        info: RecvInfo,
        now: Timestamp,
        seg_buf: &mut Vec<u8>,
        emit: &mut impl FnMut(Option<Packet>),
        cx: &Ctx,
    ) {
        if info.pkttype == libc::PACKET_OUTGOING && !self.opts.outbound {
            return;
        }
        let r = gso::segment(frame, g, seg_buf, |seg| {
            let seg_info = RecvInfo {
                len: seg.len(),
                wire_len: seg.len(),
                csum_not_ready: false,
                gso: None,
                ..info
            };
            emit(make_packet(self.opts, seg, seg_info, now));
        });
        match r {
            Ok(n) => {
                self.gso_frames.fetch_add(1, Ordering::Relaxed);
                self.gso_segments.fetch_add(n as u64, Ordering::Relaxed);
            }
            Err(e) => {
                if self.gso_drops.fetch_add(1, Ordering::Relaxed) == 0 {
                    cx.log(format!(
                        "FromDevice({}): dropped a {}-byte GSO frame: {e}; counted in `gso_drops`",
                        self.ifname,
                        frame.len()
                    ));
                }
            }
        }
    }

    /// Frames emitted, over every member.
    fn count(&self) -> u64 {
        self.members
            .iter()
            .map(|m| m.count.load(Ordering::Relaxed))
            .sum()
    }

    /// Frames the kernel dropped since the last call, over every member.
    fn take_kernel_drops(&self) -> u64 {
        let mut drops = 0;
        for m in &self.members {
            let mut rx = lock(&m.rx);
            if let Source::Xdp { xsk, .. } = &rx.source {
                let now = lock(xsk).stats().rx_dropped;
                drops += now.saturating_sub(rx.xdp_drops_seen);
                rx.xdp_drops_seen = now;
            }
            if let Some(s) = rx.source.socket() {
                if let Ok((_, d)) = s.statistics() {
                    drops += u64::from(d);
                }
            }
        }
        drops
    }
}

impl ConcurrentPorts for Receiver {
    fn runs_tasks(&self) -> bool {
        true
    }

    fn run_task(&self, task: TaskId, cx: &mut Ctx) -> bool {
        self.run(task, cx)
    }
}

/// A fanout group id for this process: groups are per network namespace,
/// so the id mixes the process id with a counter (each FromDevice with
/// FANOUT takes its own group).
fn next_fanout_group() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let pid = std::process::id();
    let base = (pid ^ (pid >> 16)).wrapping_mul(0x9e37) as u16;
    base.wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x61))
}

/// The FromDevice element.
pub struct FromDevice {
    ifname: String,
    promisc: bool,
    snaplen: usize,
    force_ip: bool,
    outbound: bool,
    headroom: usize,
    burst: usize,
    timestamp: bool,
    method: Method,
    ring_size: usize,
    tpacket: RxVersion,
    block_timeout_ms: u32,
    /// FANOUT as given (`None`: on when the router has several threads).
    fanout: Option<bool>,
    recv: Option<Arc<Receiver>>,
    kernel_drops: u64,
    /// SNIFFER as given.
    sniffer: bool,
    /// With SNIFFER false: the program that keeps the kernel's stack away
    /// from DEVNAME's frames (detached when dropped).
    bypass: Option<xdp::KernelBypass>,
}

impl Default for FromDevice {
    fn default() -> Self {
        FromDevice {
            ifname: String::new(),
            promisc: false,
            snaplen: 65535,
            force_ip: false,
            outbound: false,
            headroom: rclick_packet::DEFAULT_HEADROOM,
            burst: 32,
            timestamp: true,
            method: Method::Linux,
            ring_size: 4 << 20,
            tpacket: RxVersion::V2,
            block_timeout_ms: 1,
            fanout: None,
            recv: None,
            kernel_drops: 0,
            sniffer: true,
            bypass: None,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
        KernelDrops = read("kernel_drops", "drops"),
        Oversize = read("oversize"),
        GsoFrames = read("gso_frames"),
        GsoSegments = read("gso_segments"),
        GsoDrops = read("gso_drops"),
        Method = read("method"),
        Sniffer = read("sniffer"),
        Ring = read("ring"),
        Fanout = read("fanout"),
        FanoutCounts = read("fanout_counts"),
        Encap = read("encap"),
        Reset = write("reset_counts"),
    }
}

impl FromDevice {
    /// The interface name.
    pub fn ifname(&self) -> &str {
        &self.ifname
    }

    fn update_drops(&mut self) {
        if let Some(r) = &self.recv {
            self.kernel_drops += r.take_kernel_drops();
        }
    }

    fn opts(&self) -> RxOpts {
        RxOpts {
            outbound: self.outbound,
            snaplen: self.snaplen,
            headroom: self.headroom,
            timestamp: self.timestamp,
        }
    }

    /// Opens one receive source; with `group`, its socket joins that
    /// fanout group.
    fn open(&self, group: Option<u16>) -> Result<Source, String> {
        let mut sock = super::open_socket("FromDevice", &self.ifname, true)?;
        let fail = |what: &str, e: std::io::Error| {
            format!("FromDevice({}): {what}: {}", self.ifname, sys::strerror(&e))
        };
        let join = |s: &PacketSocket| match group {
            Some(g) => s.join_fanout(g).map_err(|e| fail("PACKET_FANOUT", e)),
            None => Ok(()),
        };
        if self.promisc {
            sock.set_promiscuous()
                .map_err(|e| fail("cannot enable promiscuous mode", e))?;
        }
        if !self.outbound {
            // Older kernels lack it; outgoing frames are then skipped here.
            let _ = sock.ignore_outgoing();
        }
        match self.method {
            Method::Linux => {
                // GSO frames come whole; the header says how to cut them.
                sock.enable_vnet_hdr()
                    .map_err(|e| fail("PACKET_VNET_HDR", e))?;
                // Without auxdata, partial checksums would go out unrepaired.
                sock.enable_auxdata()
                    .map_err(|e| fail("PACKET_AUXDATA", e))?;
                let _ = sock.set_rcvbuf(4 << 20);
                join(&sock)?;
                // Discard the statistics of frames queued before we start.
                let _ = sock.statistics();
                Ok(Source::Socket {
                    sock,
                    // Zeroed pages are mapped lazily: only touched slot bytes cost memory.
                    buf: vec![0u8; SLOT * self.burst],
                    infos: vec![RecvInfo::default(); self.burst],
                })
            }
            Method::Mmap => {
                let cfg = RingConfig {
                    version: self.tpacket,
                    max_frame: super::max_frame(&self.ifname),
                    ring_bytes: self.ring_size,
                    block_timeout_ms: self.block_timeout_ms,
                };
                let ring = RxRing::new(sock, &cfg).map_err(|e| fail("PACKET_RX_RING", e))?;
                join(ring.socket())?;
                let _ = ring.socket().statistics();
                Ok(Source::Ring(ring))
            }
            Method::Xdp => {
                let x = xdp::open(&self.ifname, super::max_frame(&self.ifname), true)
                    .map_err(|e| format!("FromDevice({}): METHOD XDP: {e}", self.ifname))?;
                Ok(Source::Xdp {
                    xsk: x,
                    _promisc: self.promisc.then_some(sock),
                })
            }
        }
    }

    /// Opens `n` sources, in one new fanout group when `n > 1`. A group id
    /// that another program's group holds with other settings is refused
    /// by the kernel: the next one is tried.
    fn open_all(&self, n: usize) -> Result<Vec<Source>, String> {
        if n <= 1 {
            return Ok(vec![self.open(None)?]);
        }
        let mut first = Err(String::new());
        let mut group = 0;
        for _ in 0..8 {
            group = next_fanout_group();
            first = self.open(Some(group));
            if first.is_ok() {
                break;
            }
        }
        let mut v = vec![first?];
        for _ in 1..n {
            v.push(self.open(Some(group))?);
        }
        Ok(v)
    }

    fn ring_description(&self) -> String {
        let Some(r) = &self.recv else {
            return String::new();
        };
        let Some(m) = r.members.first() else {
            return String::new();
        };
        match &lock(&m.rx).source {
            Source::Ring(ring) => {
                let g = ring.geometry();
                format!(
                    "TPACKET_V{} blocks {} x {} frame {} max_frame {}",
                    if self.tpacket == RxVersion::V2 { 2 } else { 3 },
                    g.block_nr,
                    g.block_size,
                    g.frame_size,
                    ring.max_frame()
                )
            }
            _ => String::new(),
        }
    }
}

impl Element for FromDevice {
    fn class_name(&self) -> &'static str {
        "FromDevice"
    }
    fn port_count(&self) -> &'static str {
        "0/1-2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure_phase(&self) -> i32 {
        phase::PRIVILEGED - 1
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ifname = String::new();
        let mut sniffer = true;
        let mut promisc = false;
        let mut snaplen: u32 = 65535;
        let mut force_ip = false;
        let mut method = Word::default();
        let mut capture = Word::default();
        let mut bpf = String::new();
        let mut encap = Word::default();
        let mut outbound = false;
        let mut headroom: u32 = rclick_packet::DEFAULT_HEADROOM as u32;
        let mut burst: u32 = 32;
        let mut timestamp = true;
        let mut allow_nonexistent = false;
        let mut ring_size: u32 = 4 << 20;
        let mut tpacket: u32 = 2;
        let mut block_timeout: u32 = 1;
        let mut fanout = false;
        let mut fanout_given = false;
        Args::new(conf)
            .read_mp("DEVNAME", &mut ifname)
            .read("SNIFFER", &mut sniffer)
            .read("PROMISC", &mut promisc)
            .read("SNAPLEN", &mut snaplen)
            .read("FORCE_IP", &mut force_ip)
            .read("METHOD", &mut method)
            .read("CAPTURE", &mut capture)
            .read("BPF_FILTER", &mut bpf)
            .read("ENCAP", &mut encap)
            .read("OUTBOUND", &mut outbound)
            .read("HEADROOM", &mut headroom)
            .read("BURST", &mut burst)
            .read("TIMESTAMP", &mut timestamp)
            .read("ALLOW_NONEXISTENT", &mut allow_nonexistent)
            .read("RING_SIZE", &mut ring_size)
            .read("TPACKET", &mut tpacket)
            .read("BLOCK_TIMEOUT", &mut block_timeout)
            .read("FANOUT", &mut fanout)
            .read_status(&mut fanout_given)
            .complete()
            .map_err(|e| e.to_string())?;
        if ifname.is_empty() {
            return Err("DEVNAME: interface not set".into());
        }
        let method = super::parse_method(if method.0.is_empty() {
            &capture.0
        } else {
            &method.0
        })?;
        if !encap.0.is_empty() && !encap.0.eq_ignore_ascii_case("ETHER") {
            return Err(format!(
                "ENCAP {} requires METHOD PCAP; METHOD LINUX reads Ethernet frames",
                encap.0
            ));
        }
        if !(1..=MAX_BATCH as u32).contains(&burst) {
            return Err(format!("BURST must be between 1 and {MAX_BATCH}"));
        }
        if snaplen == 0 {
            return Err("SNAPLEN must be positive".into());
        }
        if headroom > 4096 {
            return Err("HEADROOM too large (at most 4096)".into());
        }
        let tpacket = match tpacket {
            2 => RxVersion::V2,
            3 => RxVersion::V3,
            _ => return Err("TPACKET must be 2 or 3".into()),
        };
        if !(1..=1000).contains(&block_timeout) {
            return Err("BLOCK_TIMEOUT must be between 1 and 1000 (milliseconds)".into());
        }
        if !((64 << 10)..=(1 << 30)).contains(&ring_size) {
            return Err("RING_SIZE must be between 65536 and 1073741824 bytes".into());
        }
        if fanout && method == Method::Xdp {
            return Err(
                "FANOUT requires METHOD LINUX or MMAP (METHOD XDP reads one receive queue \
                 through one socket)"
                    .into(),
            );
        }
        if !bpf.is_empty() {
            cx.warning("BPF_FILTER ignored: it requires METHOD PCAP");
        }
        self.ifname = ifname;
        self.sniffer = sniffer;
        self.promisc = promisc;
        self.snaplen = snaplen as usize;
        self.force_ip = force_ip;
        self.outbound = outbound;
        self.headroom = headroom as usize;
        self.burst = burst as usize;
        self.timestamp = timestamp;
        self.method = method;
        self.ring_size = ring_size as usize;
        self.tpacket = tpacket;
        self.block_timeout_ms = block_timeout;
        self.fanout = fanout_given.then_some(fanout);
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let fanout = self
            .fanout
            .unwrap_or(cx.nthreads() > 1 && self.method != Method::Xdp);
        let n = if fanout { cx.nthreads() } else { 1 };
        let sources = self.open_all(n)?;
        // XDP takes the frames before the kernel's stack sees them anyway.
        if !self.sniffer && self.method != Method::Xdp && self.bypass.is_none() {
            match xdp::bypass_kernel(&self.ifname) {
                Ok(b) => self.bypass = Some(b),
                Err(e) => cx.warning(format!(
                    "SNIFFER false: {e}; the kernel also handles the frames read here"
                )),
            }
        }
        let mut members = Vec::with_capacity(n);
        for (i, source) in sources.into_iter().enumerate() {
            let task = cx.new_task(true);
            if n > 1 {
                cx.set_task_thread(task, i);
            }
            if let Some(fd) = source.raw_fd() {
                cx.add_select(fd, Select::Read, task);
            }
            members.push(Member {
                task,
                rx: Mutex::new(Rx {
                    source,
                    seg_buf: Vec::new(),
                    errors_reported: 0,
                    xdp_drops_seen: 0,
                }),
                count: AtomicU64::new(0),
            });
        }
        self.recv = Some(Arc::new(Receiver {
            ifname: self.ifname.clone(),
            opts: self.opts(),
            burst: self.burst,
            force_ip: self.force_ip,
            members,
            oversize: AtomicU64::new(0),
            gso_frames: AtomicU64::new(0),
            gso_segments: AtomicU64::new(0),
            gso_drops: AtomicU64::new(0),
        }));
        // Count only what the kernel drops from now on.
        self.update_drops();
        self.kernel_drops = 0;
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.bypass = None;
        if let Some(r) = &self.recv {
            for m in &r.members {
                lock(&m.rx).source = Source::Closed;
            }
        }
    }

    fn run_task(&mut self, task: TaskId, cx: &mut Ctx) -> bool {
        match &self.recv {
            Some(r) => r.run(task, cx),
            None => false,
        }
    }

    fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
        let r = self.recv.as_ref()?;
        (r.members.len() > 1).then(|| r.clone() as Arc<dyn ConcurrentPorts>)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let recv = self.recv.as_deref();
        match H::from_id(id) {
            Some(H::Count) => Ok(recv.map_or(0, Receiver::count).to_string()),
            Some(H::KernelDrops) => {
                self.update_drops();
                Ok(self.kernel_drops.to_string())
            }
            Some(H::Oversize) => Ok(recv
                .map_or(0, |r| r.oversize.load(Ordering::Relaxed))
                .to_string()),
            Some(H::GsoFrames) => Ok(recv
                .map_or(0, |r| r.gso_frames.load(Ordering::Relaxed))
                .to_string()),
            Some(H::GsoSegments) => Ok(recv
                .map_or(0, |r| r.gso_segments.load(Ordering::Relaxed))
                .to_string()),
            Some(H::GsoDrops) => Ok(recv
                .map_or(0, |r| r.gso_drops.load(Ordering::Relaxed))
                .to_string()),
            Some(H::Method) => Ok(super::method_name(self.method).into()),
            Some(H::Sniffer) => {
                Ok((self.bypass.is_none() && self.method != Method::Xdp).to_string())
            }
            Some(H::Ring) => Ok(self.ring_description()),
            Some(H::Fanout) => Ok(recv.map_or(1, |r| r.members.len()).to_string()),
            Some(H::FanoutCounts) => Ok(recv.map_or(String::new(), |r| {
                let c: Vec<String> = r
                    .members
                    .iter()
                    .map(|m| m.count.load(Ordering::Relaxed).to_string())
                    .collect();
                c.join(" ")
            })),
            Some(H::Encap) => Ok("ETHER".into()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => {
                self.update_drops();
                self.kernel_drops = 0;
                if let Some(r) = &self.recv {
                    for m in &r.members {
                        m.count.store(0, Ordering::Relaxed);
                    }
                    r.oversize.store(0, Ordering::Relaxed);
                    r.gso_frames.store(0, Ordering::Relaxed);
                    r.gso_segments.store(0, Ordering::Relaxed);
                    r.gso_drops.store(0, Ordering::Relaxed);
                }
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{build_err, registry};
    use rclick_core::testing;

    #[test]
    fn configuration_errors() {
        assert!(build_err("FromDevice() -> Discard").contains("DEVNAME"));
        assert!(build_err("FromDevice(lo, METHOD PCAP) -> Discard").contains("not supported"));
        assert!(build_err("FromDevice(lo, METHOD BOGUS) -> Discard").contains("METHOD"));
        assert!(build_err("FromDevice(lo, BURST 0) -> Discard").contains("BURST"));
        assert!(build_err("FromDevice(lo, METHOD MMAP, TPACKET 1) -> Discard").contains("TPACKET"));
        assert!(
            build_err("FromDevice(lo, TPACKET 3, BLOCK_TIMEOUT 0) -> Discard")
                .contains("BLOCK_TIMEOUT")
        );
        assert!(build_err("FromDevice(lo, RING_SIZE 4096) -> Discard").contains("RING_SIZE"));
        assert!(build_err("FromDevice(lo, BURST 65) -> Discard").contains("BURST"));
        assert!(build_err("FromDevice(lo, ENCAP IP) -> Discard").contains("PCAP"));
        assert!(build_err("FromDevice(lo, PROMISC maybe) -> Discard").contains("PROMISC"));
    }

    #[test]
    fn missing_interface_says_what_to_do() {
        let e = build_err("FromDevice(rclick-nonexistent0) -> Discard");
        assert!(e.contains("no such network interface"), "{e}");
        assert!(e.contains("ip netns exec"), "{e}");
    }

    /// METHOD XDP is never tried on a real interface here: unit tests run in
    /// the caller's namespace, and the program would take every frame of
    /// the device from the kernel. tests/e2e/device-methods.sh runs it in
    /// namespaces of its own.
    #[test]
    fn xdp_missing_interface_says_so() {
        let e = build_err("FromDevice(rclick-nonexistent0, METHOD XDP) -> Discard");
        assert!(e.contains("no such network interface"), "{e}");
        let e = build_err(
            "InfiniteSource(LIMIT 1) -> Queue -> ToDevice(rclick-nonexistent0, METHOD XDP)",
        );
        assert!(e.contains("no such network interface"), "{e}");
    }

    #[test]
    fn opens_ring_on_loopback_when_privileged() {
        match testing::build(
            "f :: FromDevice(lo, METHOD MMAP, TPACKET 3) -> Discard",
            &registry(),
            true,
        ) {
            Ok(r) => {
                assert_eq!(testing::read(&r, "f.method"), "MMAP");
                let ring = testing::read(&r, "f.ring");
                assert!(ring.starts_with("TPACKET_V3 blocks"), "{ring}");
                assert_eq!(testing::read(&r, "f.oversize"), "0");
            }
            Err(e) => assert!(e.to_string().contains("CAP_NET_RAW"), "{e}"),
        }
    }

    #[test]
    fn opens_loopback_when_privileged() {
        // Needs CAP_NET_RAW; without it, the message must say so.
        match testing::build(
            "f :: FromDevice(lo, BURST 4, SNIFFER true) -> Discard",
            &registry(),
            true,
        ) {
            Ok(r) => {
                assert_eq!(testing::read(&r, "f.count"), "0");
                assert_eq!(testing::read(&r, "f.method"), "LINUX");
                assert_eq!(testing::read(&r, "f.encap"), "ETHER");
                assert_eq!(testing::read(&r, "f.kernel_drops"), "0");
            }
            Err(e) => assert!(e.to_string().contains("CAP_NET_RAW"), "{e}"),
        }
    }
}
