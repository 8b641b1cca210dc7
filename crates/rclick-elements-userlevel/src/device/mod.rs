//! Network devices: FromDevice and ToDevice read and write Ethernet frames
//! on Linux interfaces through packet sockets (Click's `METHOD LINUX`),
//! memory-mapped packet rings (`METHOD MMAP`) or AF_XDP (`METHOD XDP`);
//! KernelTun and KernelTap create TUN/TAP devices that connect the router
//! to the host's own network stack.
//!
//! All system calls are in [`sys`], [`ring`] and [`xdp`], the modules of
//! this crate with `unsafe`. The elements read and write non-blocking
//! descriptors from tasks and never poll on timers: the router watches
//! each descriptor (Click's `add_select`) and schedules the element's task
//! when it becomes readable (or, while a device has no room, writable).
//! A task reads at most a burst per run and runs again at once only after
//! a full burst; otherwise it sleeps until the descriptor is ready again,
//! so a lone frame is handled as soon as the kernel queues it.

pub mod from_device;
pub mod from_host;
pub mod gso;
pub mod kernel_filter;
pub mod kernel_tap;
pub mod kernel_tun;
#[allow(unsafe_code)]
pub mod ring;
#[allow(unsafe_code)]
pub mod sys;
pub mod to_device;
pub mod to_host;
#[allow(unsafe_code)]
pub mod xdp;

use rclick_core::Registry;

pub use from_device::FromDevice;
pub use kernel_tun::KernelTun;
pub use to_device::ToDevice;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "FromDevice",
        || Box::new(FromDevice::default()),
        include_str!("from_device.rs"),
    );
    r.add(
        "ToDevice",
        || Box::new(ToDevice::default()),
        include_str!("to_device.rs"),
    );
    r.add(
        "KernelTun",
        || Box::new(KernelTun::new(false)),
        include_str!("kernel_tun.rs"),
    );
    r.add(
        "KernelTap",
        || Box::new(kernel_tap::kernel_tap()),
        include_str!("kernel_tap.rs"),
    );
    r.add(
        "FromHost",
        || Box::new(from_host::from_host()),
        include_str!("from_host.rs"),
    );
    r.add(
        "KernelFilter",
        || Box::<kernel_filter::KernelFilter>::default(),
        include_str!("kernel_filter.rs"),
    );
    r.add(
        "ToHost",
        || Box::<to_host::ToHost>::default(),
        include_str!("to_host.rs"),
    );
}

/// How a device element moves frames (the METHOD keyword).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// Packet sockets with `recvmmsg`/`sendmmsg` (Click's `LINUX`).
    #[default]
    Linux,
    /// Memory-mapped packet rings (`PACKET_RX_RING`/`PACKET_TX_RING`).
    Mmap,
    /// AF_XDP sockets (copy mode).
    Xdp,
}

/// Parses METHOD.
pub(crate) fn parse_method(m: &str) -> Result<Method, String> {
    match m.to_ascii_uppercase().as_str() {
        "" | "LINUX" | "DEFAULT" => Ok(Method::Linux),
        "MMAP" | "RING" | "PACKET_MMAP" => Ok(Method::Mmap),
        "XDP" | "AF_XDP" => Ok(Method::Xdp),
        "PCAP" | "NETMAP" | "DPDK" => Err(format!(
            "METHOD {m} is not supported by this build; use METHOD LINUX (packet sockets), \
             MMAP (memory-mapped rings) or XDP (AF_XDP)"
        )),
        _ => Err(format!("bad METHOD '{m}' (expected LINUX, MMAP or XDP)")),
    }
}

/// METHOD's canonical spelling.
pub(crate) fn method_name(m: Method) -> &'static str {
    match m {
        Method::Linux => "LINUX",
        Method::Mmap => "MMAP",
        Method::Xdp => "XDP",
    }
}

/// The largest link-level frame of interface `ifname`: its MTU plus an
/// Ethernet header and two VLAN tags (1500 when the MTU cannot be read).
pub(crate) fn max_frame(ifname: &str) -> usize {
    sys::if_mtu(ifname).unwrap_or(1500) + 14 + 8
}

/// Opens a packet socket on `ifname` for `class`, with an error message
/// that says what to do when the interface is missing or the process lacks
/// the privilege.
pub(crate) fn open_socket(
    class: &str,
    ifname: &str,
    receive: bool,
) -> Result<sys::PacketSocket, String> {
    let Some(ifindex) = sys::if_index(ifname) else {
        return Err(format!(
            "{class}({ifname}): no such network interface '{ifname}' \
             (check `ip link`; to use an interface in a network namespace, \
             run the router with `ip netns exec NAMESPACE`)"
        ));
    };
    sys::PacketSocket::open(ifindex, receive).map_err(|e| {
        let why = sys::strerror(&e);
        match e.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => format!(
                "{class}({ifname}): packet socket: {why} (reading and writing \
                 network devices needs CAP_NET_RAW: run as root, or give the \
                 program the capability with `setcap cap_net_raw,cap_net_admin+ep PROGRAM`)"
            ),
            _ => format!("{class}({ifname}): packet socket: {why}"),
        }
    })
}

/// Completes the partial transport checksum of an Ethernet frame read from
/// a packet socket with `TP_STATUS_CSUMNOTREADY` (veth and other virtual
/// devices leave checksums to "hardware" that never runs). Handles TCP and
/// UDP over IPv4, behind an optional VLAN tag; returns whether it fixed one.
pub(crate) fn complete_checksum(frame: &mut [u8]) -> bool {
    fix_checksum(frame, false)
}

/// Like [`complete_checksum`], for frames that come with no checksum
/// status (AF_XDP): completes the checksum only if its field holds exactly
/// the pseudo-header sum, which is what a sender that left the checksum
/// to offload put there. A frame whose checksum is already right is never
/// changed (recomputing it would give the same value anyway).
pub(crate) fn complete_checksum_if_partial(frame: &mut [u8]) -> bool {
    fix_checksum(frame, true)
}

fn fix_checksum(frame: &mut [u8], only_if_partial: bool) -> bool {
    use rclick_wire::checksum;
    use rclick_wire::ethernet::EtherType;
    use rclick_wire::ipv4::{IpProtocol, Ipv4Packet};
    use rclick_wire::tcp::{self, TcpPacket};
    use rclick_wire::udp::{self, UdpPacket};
    let Some((EtherType::IPV4, off)) = past_vlan_tags(frame) else {
        return false;
    };
    let ip = &frame[off.min(frame.len())..];
    let ip_len = ip.len();
    if ip_len < rclick_wire::ipv4::HEADER_LEN {
        return false;
    }
    let ip = Ipv4Packet::new_unchecked(ip);
    if ip.version() != 4 {
        return false;
    }
    let ihl = usize::from(ip.header_len());
    let total = usize::from(ip.total_len());
    // Fragments other than the first carry no transport header.
    if ihl < 20 || total < ihl || total > ip_len || ip.frag_offset() != 0 {
        return false;
    }
    let proto = ip.protocol();
    let (is_tcp, csum_at) = match proto {
        IpProtocol::TCP => (true, tcp::field::CHECKSUM),
        IpProtocol::UDP => (false, udp::field::CHECKSUM),
        _ => return false,
    };
    let (src, dst) = (ip.src_addr(), ip.dst_addr());
    let l4_len = total - ihl;
    if l4_len < csum_at + 2 || l4_len > usize::from(u16::MAX) {
        return false;
    }
    let l4 = &mut frame[off + ihl..off + total];
    let ph = checksum::pseudo_header_v4(src, dst, proto.0, l4_len as u16);
    let old = if is_tcp {
        TcpPacket::new_unchecked(&*l4).checksum()
    } else {
        UdpPacket::new_unchecked(&*l4).checksum()
    };
    if only_if_partial && old != ph {
        return false;
    }
    let set = |l4: &mut [u8], c: u16| {
        if is_tcp {
            TcpPacket::new_unchecked(l4).set_checksum(c)
        } else {
            UdpPacket::new_unchecked(l4).set_checksum(c)
        }
    };
    set(l4, 0);
    let mut c = !checksum::combine(&[ph, checksum::sum(l4)]);
    if !is_tcp && c == 0 {
        c = 0xffff;
    }
    set(l4, c);
    true
}

/// An Ethernet frame's EtherType past its 802.1Q and 802.1ad tags, and
/// where the payload it names starts; `None` when the frame ends first.
pub(crate) fn past_vlan_tags(frame: &[u8]) -> Option<(rclick_wire::ethernet::EtherType, usize)> {
    use rclick_wire::ethernet::{EtherType, EthernetFrame, HEADER_LEN};
    use rclick_wire::vlan::{VlanTag, HEADER_LEN as TAG_LEN};
    if frame.len() < HEADER_LEN {
        return None;
    }
    let mut off = HEADER_LEN;
    let mut ethertype = EthernetFrame::new_unchecked(frame).ethertype();
    while ethertype == EtherType::VLAN || ethertype == EtherType::QINQ {
        ethertype = VlanTag::new_unchecked(frame.get(off..off + TAG_LEN)?).ethertype();
        off += TAG_LEN;
    }
    Some((ethertype, off))
}

/// The IPv4 header of an Ethernet frame, as (its length, the destination
/// address): when the frame's EtherType is IPv4, its version 4 and its
/// header (at least 20 bytes) fits in the frame.
pub(crate) fn ipv4_header_in_frame(d: &[u8]) -> Option<(usize, std::net::Ipv4Addr)> {
    use rclick_wire::ethernet::{EtherType, EthernetFrame, HEADER_LEN};
    use rclick_wire::ipv4::Ipv4Packet;
    if d.len() < HEADER_LEN + rclick_wire::ipv4::HEADER_LEN {
        return None;
    }
    let eth = EthernetFrame::new_unchecked(d);
    if eth.ethertype() != EtherType::IPV4 {
        return None;
    }
    let ip = Ipv4Packet::new_unchecked(eth.payload());
    if ip.version() != 4 {
        return None;
    }
    let ihl = usize::from(ip.header_len());
    if ihl < 20 || HEADER_LEN + ihl > d.len() {
        return None;
    }
    Some((ihl, ip.dst_addr()))
}

#[cfg(test)]
pub(crate) mod test_util {
    use rclick_core::Registry;

    /// This crate's classes and the standard ones.
    pub(crate) fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r
    }

    /// The error of building `conf` (simulated time), which must fail.
    pub(crate) fn build_err(conf: &str) -> String {
        match rclick_core::testing::build(conf, &registry(), true) {
            Ok(_) => panic!("built: {conf}"),
            Err(e) => e.to_string(),
        }
    }

    /// Whether this process may open raw IP sockets (root or CAP_NET_RAW).
    pub(crate) fn raw_sockets_allowed() -> bool {
        socket2::Socket::new(
            socket2::Domain::IPV4,
            socket2::Type::RAW,
            Some(socket2::Protocol::ICMPV4),
        )
        .is_ok()
    }

    /// Building `conf`, whose element `decl` of class `class` asks for
    /// the existing non-TUN interface `lo`, fails at initialization in
    /// every environment (no driver, no privilege, or root), with an error
    /// that says what to do; nothing is created.
    pub(crate) fn tun_open_fails(conf: &str, decl: &str, class: &str) {
        let e = build_err(conf);
        assert!(e.contains(&format!("While initializing '{decl}'")), "{e}");
        assert!(e.contains(&format!("{class}: /dev/net/tun: ")), "{e}");
        assert!(
            e.contains("choose another DEVNAME") || e.contains("modprobe tun"),
            "{e}"
        );
    }

    /// The names of `e`'s handlers, in order.
    pub(crate) fn handler_names(e: &dyn rclick_core::Element) -> Vec<String> {
        e.handlers().iter().map(|h| h.name.to_string()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_wire::checksum;

    /// An Ethernet frame with IPv4 and UDP (or TCP), payload "hello!".
    fn frame(proto: u8) -> Vec<u8> {
        let mut v = vec![2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00];
        let l4len: usize = if proto == 6 { 20 + 6 } else { 8 + 6 };
        let total = 20 + l4len;
        let mut ip = vec![0x45, 0, 0, total as u8, 0, 1, 0, 0, 64, proto, 0, 0];
        ip.extend_from_slice(&[192, 0, 2, 2, 198, 51, 100, 2]);
        let c = checksum::internet_checksum(&ip);
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        v.extend_from_slice(&ip);
        if proto == 6 {
            let mut tcp = vec![0u8; 20];
            tcp[0..4].copy_from_slice(&[0x30, 0x39, 0, 80]);
            tcp[12] = 0x50;
            tcp[13] = 0x18;
            v.extend_from_slice(&tcp);
        } else {
            v.extend_from_slice(&[0x30, 0x39, 0, 53, 0, l4len as u8, 0, 0]);
        }
        v.extend_from_slice(b"hello!");
        v
    }

    #[test]
    fn steps_over_vlan_tags() {
        use rclick_wire::ethernet::EtherType;
        let f = frame(17);
        assert_eq!(past_vlan_tags(&f), Some((EtherType::IPV4, 14)));
        // Two tags (802.1ad outside 802.1Q).
        let mut g = f[..12].to_vec();
        g.extend_from_slice(&[0x88, 0xa8, 0, 7, 0x81, 0x00, 0, 5]);
        g.extend_from_slice(&f[12..]);
        assert_eq!(past_vlan_tags(&g), Some((EtherType::IPV4, 22)));
        assert_eq!(past_vlan_tags(&g[..17]), None);
        assert_eq!(past_vlan_tags(&f[..13]), None);
    }

    #[test]
    fn finds_the_ipv4_header_of_a_frame_or_nothing() {
        let f = frame(17);
        assert_eq!(
            ipv4_header_in_frame(&f),
            Some((20, std::net::Ipv4Addr::new(198, 51, 100, 2)))
        );
        // Too short, not IPv4, version 6 in an IPv4 frame, IHL below 5,
        // header longer than the frame: nothing.
        assert_eq!(ipv4_header_in_frame(&f[..33]), None);
        let mut g = f.clone();
        g[12..14].copy_from_slice(&[0x86, 0xdd]);
        assert_eq!(ipv4_header_in_frame(&g), None);
        let mut g = f.clone();
        g[14] = 0x65;
        assert_eq!(ipv4_header_in_frame(&g), None);
        let mut g = f.clone();
        g[14] = 0x44;
        assert_eq!(ipv4_header_in_frame(&g), None);
        let mut g = f[..40].to_vec();
        g[14] = 0x47;
        assert_eq!(ipv4_header_in_frame(&g), None);
    }

    fn l4_verifies(f: &[u8], proto: u8) -> bool {
        let l4 = &f[34..];
        let ph = checksum::pseudo_header_v4(
            [192, 0, 2, 2].into(),
            [198, 51, 100, 2].into(),
            proto,
            l4.len() as u16,
        );
        checksum::combine(&[ph, checksum::sum(l4)]) == 0xffff
    }

    #[test]
    fn completes_partial_udp_and_tcp_checksums() {
        for proto in [6u8, 17] {
            let mut f = frame(proto);
            // What a veth delivers: the pseudo-header sum only.
            let at = 34 + if proto == 6 { 16 } else { 6 };
            let ph = checksum::pseudo_header_v4(
                [192, 0, 2, 2].into(),
                [198, 51, 100, 2].into(),
                proto,
                (f.len() - 34) as u16,
            );
            f[at..at + 2].copy_from_slice(&ph.to_be_bytes());
            assert!(!l4_verifies(&f, proto));
            assert!(complete_checksum(&mut f));
            assert!(l4_verifies(&f, proto), "proto {proto}");
        }
    }

    #[test]
    fn completes_only_partial_checksums_when_told_so() {
        for proto in [6u8, 17] {
            let at = 34 + if proto == 6 { 16 } else { 6 };
            let ph = checksum::pseudo_header_v4(
                [192, 0, 2, 2].into(),
                [198, 51, 100, 2].into(),
                proto,
                (frame(proto).len() - 34) as u16,
            );
            // Partial: completed.
            let mut f = frame(proto);
            f[at..at + 2].copy_from_slice(&ph.to_be_bytes());
            assert!(complete_checksum_if_partial(&mut f));
            assert!(l4_verifies(&f, proto));
            // Already complete: untouched.
            let done = f.clone();
            assert!(!complete_checksum_if_partial(&mut f));
            assert_eq!(f, done);
            // Corrupt (neither complete nor partial): left for the router to see.
            let mut bad = frame(proto);
            bad[at..at + 2].copy_from_slice(&(ph ^ 0x0101).to_be_bytes());
            let copy = bad.clone();
            assert!(!complete_checksum_if_partial(&mut bad));
            assert_eq!(bad, copy);
        }
    }

    #[test]
    fn leaves_other_frames_alone() {
        // ARP, short frames, ICMP, non-first fragments: untouched.
        let mut arp = vec![0xff; 12];
        arp.extend_from_slice(&[0x08, 0x06]);
        arp.resize(42, 0);
        let copy = arp.clone();
        assert!(!complete_checksum(&mut arp));
        assert_eq!(arp, copy);
        for n in 0..40 {
            let mut f = frame(17);
            f.truncate(n);
            assert!(!complete_checksum(&mut f));
        }
        let mut icmp = frame(1);
        assert!(!complete_checksum(&mut icmp));
        let mut frag = frame(17);
        frag[14 + 7] = 1;
        assert!(!complete_checksum(&mut frag));
        // A lying total length is ignored.
        let mut bad = frame(17);
        bad[14 + 3] = 200;
        assert!(!complete_checksum(&mut bad));
    }

    #[test]
    fn methods() {
        assert_eq!(parse_method("LINUX"), Ok(Method::Linux));
        assert_eq!(parse_method("linux"), Ok(Method::Linux));
        assert_eq!(parse_method(""), Ok(Method::Linux));
        assert_eq!(parse_method("MMAP"), Ok(Method::Mmap));
        assert_eq!(parse_method("xdp"), Ok(Method::Xdp));
        assert!(parse_method("PCAP").unwrap_err().contains("not supported"));
        assert!(parse_method("FOO").is_err());
    }
}
