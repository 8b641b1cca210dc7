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
//! User-level FromDevice is a sniffer: the kernel also receives and handles
//! every frame FromDevice reads. To run a router, give the interface no IP
//! address in the kernel (as `rclick testbed` does for its router
//! namespace), or filter the kernel's traffic. Frames sent on DEVNAME (by
//! the kernel or by a ToDevice) are not emitted unless OUTBOUND is true.
//!
//! FromDevice polls its non-blocking socket from a task, reading up to
//! BURST frames per run with one `recvmmsg` call. When no frame is waiting
//! it sleeps on a short timer (50 µs, growing to 500 µs while the device
//! stays idle) instead of spinning.
//!
//! Frames from virtual devices (veth, tap) may carry a partial TCP/UDP
//! checksum, which the kernel marks `TP_STATUS_CSUMNOTREADY`; FromDevice
//! completes those checksums (TCP and UDP over IPv4). VLAN tags the kernel
//! stripped are put back into the frame. The socket's receive buffer is
//! 4 MB (beyond `net.core.rmem_max` when the process has CAP_NET_ADMIN),
//! so bursts wait there while the router is busy or descheduled; frames
//! that still do not fit are counted in `kernel_drops`. Receive slots are
//! 64 KB, so frames larger than the MTU (GRO/GSO aggregates) arrive whole;
//! turning offloads off (`ethtool -K DEV tso off gso off gro off`) keeps
//! frames MTU-sized, which a router needs anyway.
//!
//! Opening a packet socket needs CAP_NET_RAW (root). A missing interface
//! or a missing privilege fails initialization with a message saying what
//! to do.
//!
//! Keywords:
//!
//! * `SNIFFER` (boolean): sniffer mode. Default true. `SNIFFER false`
//!   (Click installs KernelFilter rules) is accepted with a warning: keep
//!   the kernel away from DEVNAME by giving it no address.
//! * `PROMISC` (boolean): put the device in promiscuous mode while the
//!   router runs. Default false.
//! * `SNAPLEN` (unsigned): keep at most this many bytes of each frame; the
//!   rest is counted in the extra length annotation. Default 65535 (whole
//!   frames; Click's default is 2046, which GSO frames exceed).
//! * `FORCE_IP` (boolean): emit only IPv4 frames, with the IP header
//!   annotation set; others go to output 1 if it exists, else are dropped.
//!   Default false.
//! * `METHOD` (word): capture method. Only `LINUX` (packet sockets, the
//!   default) is implemented; `PCAP` and `NETMAP` are refused.
//! * `BPF_FILTER` (string): ignored with a warning (needs METHOD PCAP).
//! * `ENCAP` (word): ignored unless `ETHER` (needs METHOD PCAP).
//! * `OUTBOUND` (boolean): also emit frames sent on DEVNAME. Default false.
//! * `HEADROOM` (unsigned): bytes of headroom before each packet's data.
//!   Default 28.
//! * `BURST` (unsigned): most frames read per task run, 1 to 64. Default
//!   32 (Click's is 1; rclick moves frames in batches).
//! * `TIMESTAMP` (boolean): set the timestamp annotation to the time of
//!   reading. Default true.
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
//!   read them (its socket buffer was full), from `PACKET_STATISTICS`.
//! * `drops` (read): same as `kernel_drops`.
//! * `encap` (read): the link encapsulation, `ETHER`.
//! * `reset_counts` (write): sets `count` and the drop counters to 0.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(veth0) -> c :: Classifier(12/0806, 12/0800, -) ...
//! FromDevice(eth0, PROMISC true) -> ToDump(capture.pcap);
//! ```
//!
//! ## See also
//!
//! ToDevice, FromDump, ToDump, `rclick testbed`

use rclick_core::args::{Args, Word};
use rclick_core::{phase, ConfigureCx, Ctx, Element, HandlerDef, InitCx, TaskId, TimerId};
use rclick_packet::{Packet, PacketBatch, PacketType, Timestamp};

use super::sys::{self, PacketSocket, RecvInfo, MAX_BATCH};

/// Bytes per receive slot: a whole 64 KB GSO frame plus a VLAN tag.
const SLOT: usize = 65536 + 64;

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
    sock: Option<PacketSocket>,
    buf: Vec<u8>,
    infos: Vec<RecvInfo>,
    poller: super::Poller,
    count: u64,
    kernel_drops: u64,
    errors_reported: u32,
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
            sock: None,
            buf: Vec::new(),
            infos: Vec::new(),
            poller: super::Poller::default(),
            count: 0,
            kernel_drops: 0,
            errors_reported: 0,
        }
    }
}

const H_COUNT: u32 = 0;
const H_KERNEL_DROPS: u32 = 1;
const H_ENCAP: u32 = 2;
const H_RESET: u32 = 3;

impl FromDevice {
    /// The interface name.
    pub fn ifname(&self) -> &str {
        &self.ifname
    }

    fn update_drops(&mut self) {
        if let Some(s) = &self.sock {
            if let Ok((_, drops)) = s.statistics() {
                self.kernel_drops += u64::from(drops);
            }
        }
    }

    /// Turns received slot `i` into a packet, or `None` to skip it.
    fn make_packet(&mut self, i: usize, now: Timestamp) -> Option<Packet> {
        let info = self.infos[i];
        if info.pkttype == libc::PACKET_OUTGOING && !self.outbound {
            return None;
        }
        let start = i * SLOT;
        let len = info.len.min(SLOT);
        let frame = &mut self.buf[start..start + len];
        if info.csum_not_ready {
            super::complete_checksum(frame);
        }
        let keep = len.min(self.snaplen);
        let mut p = match info.vlan {
            Some((tpid, tci)) if keep >= 12 => {
                let mut p = Packet::try_make(self.headroom, &frame[..keep], 0).ok()?;
                // Put the stripped tag back after the two MAC addresses.
                p.push(4).ok()?;
                let d = p.data_mut();
                d.copy_within(4..16, 0);
                d[12..14].copy_from_slice(&tpid.to_be_bytes());
                d[14..16].copy_from_slice(&tci.to_be_bytes());
                p
            }
            _ => Packet::try_make(self.headroom, &frame[..keep], 0).ok()?,
        };
        let extra = info.wire_len.saturating_sub(keep);
        if extra > 0 {
            p.set_extra_length_anno(u32::try_from(extra).unwrap_or(u32::MAX));
        }
        p.set_packet_type_anno(PacketType::from_u8(info.pkttype).unwrap_or_default());
        if self.timestamp {
            p.set_timestamp_anno(now);
        }
        p.set_mac_header(0);
        Some(p)
    }

    /// Sets the IP header annotation of an Ethernet IPv4 frame.
    fn force_ip(p: &mut Packet) -> bool {
        let d = p.data();
        if d.len() < 34 || d[12] != 0x08 || d[13] != 0x00 || d[14] >> 4 != 4 {
            return false;
        }
        let ihl = usize::from(d[14] & 0x0f) * 4;
        if ihl < 20 || 14 + ihl > d.len() {
            return false;
        }
        p.set_ip_header(14, ihl);
        true
    }

    /// Reads one batch and pushes it; returns how many frames were read.
    fn poll(&mut self, cx: &mut Ctx) -> usize {
        let Some(sock) = &self.sock else {
            return 0;
        };
        let n = match sock.recv_batch(&mut self.buf, SLOT, &mut self.infos[..self.burst]) {
            Ok(n) => n,
            Err(e) => {
                if self.errors_reported < 5 {
                    self.errors_reported += 1;
                    cx.log(format!(
                        "FromDevice({}): recvmmsg: {}",
                        self.ifname,
                        sys::strerror(&e)
                    ));
                }
                return 0;
            }
        };
        if n == 0 {
            return 0;
        }
        let now = if self.timestamp {
            cx.now()
        } else {
            Timestamp::ZERO
        };
        let mut out = PacketBatch::with_capacity(n);
        let mut other = PacketBatch::new();
        for i in 0..n {
            if let Some(mut p) = self.make_packet(i, now) {
                if self.force_ip && !Self::force_ip(&mut p) {
                    other.push(p);
                } else {
                    out.push(p);
                }
            }
        }
        self.count += out.len() as u64;
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !other.is_empty() {
            cx.checked_push(1, other);
        }
        n
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
            .complete()
            .map_err(|e| e.to_string())?;
        if ifname.is_empty() {
            return Err("DEVNAME: interface not set".into());
        }
        super::parse_method(if method.0.is_empty() {
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
        if !bpf.is_empty() {
            cx.warning("BPF_FILTER ignored: it requires METHOD PCAP");
        }
        if !sniffer {
            cx.warning(
                "SNIFFER false is not implemented: the kernel also handles these packets \
                 (give the interface no IP address, or filter it in the kernel)",
            );
        }
        self.ifname = ifname;
        self.promisc = promisc;
        self.snaplen = snaplen as usize;
        self.force_ip = force_ip;
        self.outbound = outbound;
        self.headroom = headroom as usize;
        self.burst = burst as usize;
        self.timestamp = timestamp;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let sock = super::open_socket("FromDevice", &self.ifname, true)?;
        if self.promisc {
            sock.set_promiscuous().map_err(|e| {
                format!(
                    "FromDevice({}): cannot enable promiscuous mode: {}",
                    self.ifname,
                    sys::strerror(&e)
                )
            })?;
        }
        // Without auxdata, partial checksums would go out unrepaired.
        sock.enable_auxdata().map_err(|e| {
            format!(
                "FromDevice({}): PACKET_AUXDATA: {}",
                self.ifname,
                sys::strerror(&e)
            )
        })?;
        if !self.outbound {
            // Older kernels lack it; outgoing frames are then skipped here.
            let _ = sock.ignore_outgoing();
        }
        let _ = sock.set_rcvbuf(4 << 20);
        // Discard the statistics of frames queued before we start.
        let _ = sock.statistics();
        self.sock = Some(sock);
        // Zeroed pages are mapped lazily: only touched slot bytes cost memory.
        self.buf = vec![0u8; SLOT * self.burst];
        self.infos = vec![RecvInfo::default(); self.burst];
        self.poller.init(cx);
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.sock = None;
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let worked = self.poll(cx) > 0;
        self.poller.after_run(worked, false, cx);
        worked
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        self.poller.on_timer(cx);
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::read("count", H_COUNT),
            HandlerDef::read("kernel_drops", H_KERNEL_DROPS),
            HandlerDef::read("drops", H_KERNEL_DROPS),
            HandlerDef::read("encap", H_ENCAP),
            HandlerDef::write("reset_counts", H_RESET),
        ]
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match id {
            H_COUNT => Ok(self.count.to_string()),
            H_KERNEL_DROPS => {
                self.update_drops();
                Ok(self.kernel_drops.to_string())
            }
            H_ENCAP => Ok("ETHER".into()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match id {
            H_RESET => {
                self.update_drops();
                self.count = 0;
                self.kernel_drops = 0;
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
                assert_eq!(testing::read(&r, "f.encap"), "ETHER");
                assert_eq!(testing::read(&r, "f.kernel_drops"), "0");
            }
            Err(e) => assert!(e.to_string().contains("CAP_NET_RAW"), "{e}"),
        }
    }
}
