//! Segmentation of the large frames a Linux host hands over with its
//! segmentation offloads on (TSO/GSO/USO): one frame holds a run of TCP
//! segments or UDP datagrams, described by the virtio-net header that a
//! packet socket with `PACKET_VNET_HDR` puts before each frame.
//!
//! A router must not forward such a frame as one packet: it exceeds the
//! MTU, and with DF set the router would answer "fragmentation needed"
//! for ever while the sender's TCP never sends smaller (it already did,
//! as far as it knows). [`segment`] does what the sending host's
//! hardware would have done: it cuts the payload into `gso_size` pieces
//! and gives each its own headers, IPv4 identification, TCP sequence
//! number, lengths and checksums (RFC 9293 segmentation as Linux's
//! `tcp_gso_segment` and `udp4_ufo_fragment`/USO do it: FIN and PSH only
//! on the last segment, CWR only on the first).

use rclick_wire::ethernet::EtherType;
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::ipv6::Ipv6Packet;
use rclick_wire::tcp::TcpPacket;
use rclick_wire::udp::UdpPacket;

/// Length of the virtio-net header (`struct virtio_net_hdr`).
pub const VNET_HDR_LEN: usize = 10;

/// `VIRTIO_NET_HDR_GSO_*` types.
pub mod gso_type {
    /// Not a GSO frame.
    pub const NONE: u8 = 0;
    /// TCP over IPv4.
    pub const TCPV4: u8 = 1;
    /// UDP fragmentation offload (IPv4 fragments; not segmented here).
    pub const UDP: u8 = 3;
    /// TCP over IPv6.
    pub const TCPV6: u8 = 4;
    /// UDP segmentation (datagrams of `gso_size`), IPv4 or IPv6.
    pub const UDP_L4: u8 = 5;
    /// Flag: the TCP segments carry ECN (CWR on the first only).
    pub const ECN: u8 = 0x80;
}

/// What the virtio-net header says about a frame's segmentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gso {
    /// `gso_type`, with the ECN flag.
    pub kind: u8,
    /// Payload bytes per segment.
    pub size: u16,
}

impl Gso {
    /// Reads a virtio-net header (legacy layout, the host's byte order,
    /// as packet sockets write it). `None` for a frame that is not GSO.
    pub fn from_vnet_hdr(h: &[u8; VNET_HDR_LEN]) -> Option<Gso> {
        let kind = h[1];
        if kind & !gso_type::ECN == gso_type::NONE {
            return None;
        }
        Some(Gso {
            kind,
            size: u16::from_ne_bytes([h[4], h[5]]),
        })
    }
}

/// Why a GSO frame could not be segmented (the frame is dropped and
/// counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GsoError {
    /// A GSO type this router does not segment (UFO's IPv4 fragments).
    Unsupported(u8),
    /// `gso_size` is 0.
    ZeroSize,
    /// The headers are not Ethernet/IP/TCP or UDP as the type says, or
    /// are cut short, or an IPv6 extension header sits before the
    /// transport header.
    Malformed,
    /// A segment would not fit in 65,535 bytes of IP.
    TooLong,
}

impl std::fmt::Display for GsoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GsoError::Unsupported(t) => write!(f, "GSO type {t} is not segmented"),
            GsoError::ZeroSize => f.write_str("gso_size is 0"),
            GsoError::Malformed => f.write_str("headers do not match the GSO type"),
            GsoError::TooLong => f.write_str("segment longer than IP allows"),
        }
    }
}

/// Where the headers are.
struct Layout {
    /// Offset of the IP header (after Ethernet and VLAN tags).
    ip: usize,
    /// IPv4 (else IPv6).
    v4: bool,
    /// Offset of the transport header.
    l4: usize,
    /// Offset of the payload.
    payload: usize,
    /// End of the IP packet: the IP length field's when it is set and
    /// within the frame (anything after it is link padding), else the
    /// frame's end.
    end: usize,
}

fn layout(frame: &[u8], tcp: bool) -> Result<Layout, GsoError> {
    let (ethertype, off) = super::past_vlan_tags(frame).ok_or(GsoError::Malformed)?;
    let proto = if tcp { 6 } else { 17 };
    let (v4, l4, ip_len) = match ethertype {
        EtherType::IPV4 => {
            let ip = Ipv4Packet::new_checked(frame.get(off..).ok_or(GsoError::Malformed)?)
                .map_err(|_| GsoError::Malformed)?;
            if u8::from(ip.protocol()) != proto || ip.is_fragment() {
                return Err(GsoError::Malformed);
            }
            (
                true,
                off + usize::from(ip.header_len()),
                usize::from(ip.total_len()),
            )
        }
        EtherType::IPV6 => {
            let ip = Ipv6Packet::new_checked(frame.get(off..).ok_or(GsoError::Malformed)?)
                .map_err(|_| GsoError::Malformed)?;
            if u8::from(ip.next_header()) != proto {
                return Err(GsoError::Malformed);
            }
            let pl = usize::from(ip.payload_len());
            (false, off + 40, if pl == 0 { 0 } else { 40 + pl })
        }
        _ => return Err(GsoError::Malformed),
    };
    let rest = frame.get(l4..).ok_or(GsoError::Malformed)?;
    let payload = if tcp {
        l4 + usize::from(
            TcpPacket::new_checked(rest)
                .map_err(|_| GsoError::Malformed)?
                .header_len(),
        )
    } else {
        if rest.len() < 8 {
            return Err(GsoError::Malformed);
        }
        l4 + 8
    };
    let end = match off + ip_len {
        e if ip_len > 0 && e >= payload && e <= frame.len() => e,
        _ => frame.len(),
    };
    Ok(Layout {
        ip: off,
        v4,
        l4,
        payload,
        end,
    })
}

/// Cuts `frame` (an Ethernet frame of the GSO type `gso`) into frames of
/// at most `gso.size` payload bytes each, with complete headers and
/// checksums, and hands each to `emit` in order. `buf` is scratch space
/// reused between segments. Returns the number of segments.
///
/// The payload is everything after the transport header up to the end
/// of the IP packet (its length field, when set and within the frame;
/// else the frame's end).
pub fn segment(
    frame: &[u8],
    gso: Gso,
    buf: &mut Vec<u8>,
    mut emit: impl FnMut(&mut [u8]),
) -> Result<usize, GsoError> {
    // TCP or UDP, and the IP version the type requires (UDP_L4: either).
    let (tcp, v4) = match gso.kind & !gso_type::ECN {
        gso_type::TCPV4 => (true, Some(true)),
        gso_type::TCPV6 => (true, Some(false)),
        gso_type::UDP_L4 => (false, None),
        other => return Err(GsoError::Unsupported(other)),
    };
    if gso.size == 0 {
        return Err(GsoError::ZeroSize);
    }
    let l = layout(frame, tcp)?;
    if v4.is_some_and(|v4| v4 != l.v4) {
        return Err(GsoError::Malformed);
    }
    let headers = &frame[..l.payload];
    let payload = &frame[l.payload..l.end];
    let ip_hdr_len = l.l4 - l.ip;
    let l4_hdr_len = l.payload - l.l4;
    let size = usize::from(gso.size);
    if ip_hdr_len + l4_hdr_len + size > 65535 {
        return Err(GsoError::TooLong);
    }
    let n = payload.len().div_ceil(size).max(1);
    for i in 0..n {
        let chunk = payload
            .get(i * size..((i + 1) * size).min(payload.len()))
            .unwrap_or(&[]);
        buf.clear();
        buf.extend_from_slice(headers);
        buf.extend_from_slice(chunk);
        let l4_len = l4_hdr_len + chunk.len();
        let (ip, l4) = buf.split_at_mut(l.l4);
        let ip = &mut ip[l.ip..];
        // The views were checked on `frame` by `layout`; the copies have
        // the same headers, so these succeed.
        let last = i + 1 == n;
        if l.v4 {
            let mut v = Ipv4Packet::new_unchecked(&mut *ip);
            let (src, dst) = (v.src_addr(), v.dst_addr());
            v.set_total_len((ip_hdr_len + l4_len) as u16);
            v.set_ident(v.ident().wrapping_add(i as u16));
            v.fill_checksum();
            fill_l4(l4, tcp, i, last, gso, src, dst);
        } else {
            let mut v = Ipv6Packet::new_unchecked(&mut *ip);
            let (src, dst) = (v.src_addr(), v.dst_addr());
            v.set_payload_len(l4_len as u16);
            fill_l4(l4, tcp, i, last, gso, src, dst);
        }
        emit(buf.as_mut_slice());
    }
    Ok(n)
}

/// Sets segment `i`'s transport header: TCP sequence number and flags,
/// or UDP length; then its checksum.
fn fill_l4<A: rclick_wire::checksum::PseudoHeader>(
    l4: &mut [u8],
    tcp: bool,
    i: usize,
    last: bool,
    gso: Gso,
    src: A,
    dst: A,
) {
    if tcp {
        let mut t = TcpPacket::new_unchecked(l4);
        let step = u32::from(gso.size).wrapping_mul(i as u32);
        t.set_seq_number(t.seq_number().wrapping_add(step));
        if !last {
            t.set_fin(false);
            t.set_psh(false);
        }
        if i > 0 {
            t.set_cwr(false);
        }
        t.fill_checksum(src, dst);
    } else {
        let len = l4.len() as u16;
        let mut u = UdpPacket::new_unchecked(l4);
        u.set_len(len);
        u.fill_checksum(src, dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_wire::ipv4::IpProtocol;
    use std::net::{Ipv4Addr, Ipv6Addr};

    /// An Ethernet/IPv4/TCP frame with `payload`, DF set, flags as given.
    fn tcp4(payload: &[u8], flags: u8) -> Vec<u8> {
        let mut f = vec![0u8; 14 + 20 + 20];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f.extend_from_slice(payload);
        let total = (f.len() - 14) as u16;
        {
            let mut ip = Ipv4Packet::new_unchecked(&mut f[14..]);
            ip.set_version(4);
            ip.set_header_len(20);
            ip.set_total_len(total);
            ip.set_ident(0xfffe);
            ip.set_dont_frag(true);
            ip.set_ttl(64);
            ip.set_protocol(IpProtocol::from(6));
            ip.set_src_addr(Ipv4Addr::new(192, 0, 2, 2));
            ip.set_dst_addr(Ipv4Addr::new(198, 51, 100, 2));
            ip.fill_checksum();
        }
        let mut t = TcpPacket::new_unchecked(&mut f[34..]);
        t.set_src_port(40000);
        t.set_dst_port(80);
        t.set_seq_number(0xffff_ff00);
        t.set_header_len(20);
        t.set_flags(flags);
        t.set_window_len(500);
        t.fill_checksum(Ipv4Addr::new(192, 0, 2, 2), Ipv4Addr::new(198, 51, 100, 2));
        f
    }

    fn tcp6(payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 14 + 40 + 20];
        f[12..14].copy_from_slice(&[0x86, 0xdd]);
        f.extend_from_slice(payload);
        let src: Ipv6Addr = "2001:db8::2".parse().unwrap();
        let dst: Ipv6Addr = "2001:db8:1::2".parse().unwrap();
        {
            let ip = &mut f[14..54];
            ip[0] = 0x60;
            ip[6] = 6;
            ip[7] = 64;
            ip[8..24].copy_from_slice(&src.octets());
            ip[24..40].copy_from_slice(&dst.octets());
        }
        let plen = (f.len() - 54) as u16;
        Ipv6Packet::new_unchecked(&mut f[14..]).set_payload_len(plen);
        let mut t = TcpPacket::new_unchecked(&mut f[54..]);
        t.set_header_len(20);
        t.set_seq_number(7);
        t.set_flags(0x18);
        f
    }

    fn udp4(payload: &[u8]) -> Vec<u8> {
        let mut f = tcp4(&[], 0);
        f.truncate(34);
        f.extend_from_slice(&[0x30, 0x39, 0x00, 0x35, 0, 0, 0, 0]);
        f.extend_from_slice(payload);
        let total = (f.len() - 14) as u16;
        let mut ip = Ipv4Packet::new_unchecked(&mut f[14..]);
        ip.set_protocol(IpProtocol::from(17));
        ip.set_total_len(total);
        f
    }

    fn cut(frame: &[u8], kind: u8, size: u16) -> Result<Vec<Vec<u8>>, GsoError> {
        let mut out = Vec::new();
        let mut buf = Vec::new();
        let n = segment(frame, Gso { kind, size }, &mut buf, |s| {
            out.push(s.to_vec())
        })?;
        assert_eq!(n, out.len());
        Ok(out)
    }

    #[test]
    fn tcp4_is_cut_into_mss_sized_segments_with_right_headers() {
        let payload: Vec<u8> = (0..2896u32).map(|i| i as u8).collect();
        // FIN|PSH|ACK|CWR on the big frame.
        let big = tcp4(&payload, 0x80 | 0x10 | 0x08 | 0x01);
        let segs = cut(&big, gso_type::TCPV4 | gso_type::ECN, 1000).unwrap();
        assert_eq!(segs.len(), 3);
        let mut data = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            let ip = Ipv4Packet::new_checked(&s[14..]).unwrap();
            assert!(ip.verify_checksum(), "segment {i}: IP checksum");
            assert_eq!(usize::from(ip.total_len()), s.len() - 14);
            assert_eq!(ip.ident(), 0xfffeu16.wrapping_add(i as u16));
            assert!(ip.dont_frag());
            let t = TcpPacket::new_checked(ip.payload()).unwrap();
            assert!(
                t.verify_checksum(ip.src_addr(), ip.dst_addr()),
                "segment {i}: TCP checksum"
            );
            assert_eq!(t.seq_number(), 0xffff_ff00u32.wrapping_add(1000 * i as u32));
            let last = i == 2;
            assert_eq!(t.fin(), last, "FIN only on the last");
            assert_eq!(t.psh(), last, "PSH only on the last");
            assert_eq!(t.cwr(), i == 0, "CWR only on the first");
            assert!(t.ack());
            data.extend_from_slice(t.payload());
        }
        assert_eq!(segs[0].len(), 14 + 40 + 1000);
        assert_eq!(segs[2].len(), 14 + 40 + 896);
        assert_eq!(data, payload, "the payload, in order, nothing lost");
    }

    #[test]
    fn tcp6_segments_carry_their_payload_length() {
        let payload = vec![0xab; 2500];
        let segs = cut(&tcp6(&payload), gso_type::TCPV6, 1220).unwrap();
        assert_eq!(segs.len(), 3);
        for (i, s) in segs.iter().enumerate() {
            let ip = Ipv6Packet::new_checked(&s[14..]).unwrap();
            assert_eq!(usize::from(ip.payload_len()), s.len() - 54);
            let t = TcpPacket::new_checked(ip.payload()).unwrap();
            assert!(t.verify_checksum(ip.src_addr(), ip.dst_addr()));
            assert_eq!(t.seq_number(), 7 + 1220 * i as u32);
            assert_eq!(t.psh(), i == 2);
        }
    }

    #[test]
    fn udp_l4_gives_datagrams_of_their_own() {
        let payload: Vec<u8> = (0..3000u32).map(|i| (i * 7) as u8).collect();
        let segs = cut(&udp4(&payload), gso_type::UDP_L4, 1400).unwrap();
        assert_eq!(segs.len(), 3);
        let mut data = Vec::new();
        for s in &segs {
            let ip = Ipv4Packet::new_checked(&s[14..]).unwrap();
            assert!(ip.verify_checksum());
            let u = UdpPacket::new_checked(ip.payload()).unwrap();
            assert_eq!(usize::from(u.len()), ip.payload().len());
            assert!(u.verify_checksum(ip.src_addr(), ip.dst_addr()));
            data.extend_from_slice(u.payload());
        }
        assert_eq!(data, payload);
    }

    #[test]
    fn a_frame_within_one_segment_comes_out_whole() {
        let big = tcp4(&[1, 2, 3], 0x18);
        let segs = cut(&big, gso_type::TCPV4, 1448).unwrap();
        assert_eq!(segs.len(), 1);
        assert_eq!(segs[0].len(), big.len());
        // A pure ACK (no payload) too.
        assert_eq!(
            cut(&tcp4(&[], 0x10), gso_type::TCPV4, 1448).unwrap().len(),
            1
        );
    }

    #[test]
    fn link_padding_after_the_ip_packet_is_not_payload() {
        let mut f = tcp4(&[5; 10], 0x18);
        f.extend_from_slice(&[0xee; 6]);
        let segs = cut(&f, gso_type::TCPV4, 1448).unwrap();
        assert_eq!(segs.len(), 1);
        assert_eq!(segs[0].len(), f.len() - 6);
    }

    #[test]
    fn vlan_tagged_frames_are_segmented_behind_the_tag() {
        let mut f = tcp4(&[9; 3000], 0x10);
        f.splice(12..12, [0x81, 0x00, 0x00, 0x05]);
        let segs = cut(&f, gso_type::TCPV4, 1448).unwrap();
        assert_eq!(segs.len(), 3);
        for s in &segs {
            assert_eq!(&s[12..16], &[0x81, 0x00, 0x00, 0x05]);
            let ip = Ipv4Packet::new_checked(&s[18..]).unwrap();
            assert!(ip.verify_checksum());
        }
    }

    #[test]
    fn what_cannot_be_segmented_is_refused_not_panicked_on() {
        let big = tcp4(&[0; 3000], 0x10);
        assert_eq!(
            cut(&big, gso_type::UDP, 1000),
            Err(GsoError::Unsupported(3))
        );
        assert_eq!(cut(&big, gso_type::TCPV4, 0), Err(GsoError::ZeroSize));
        // The type says UDP, the frame is TCP; IPv6 type on IPv4.
        assert_eq!(cut(&big, gso_type::UDP_L4, 1000), Err(GsoError::Malformed));
        assert_eq!(cut(&big, gso_type::TCPV6, 1000), Err(GsoError::Malformed));
        // Every truncation of the headers.
        for len in 0..54 {
            assert!(
                cut(&big[..len], gso_type::TCPV4, 1000).is_err(),
                "cut at {len}"
            );
        }
        // An IPv6 extension header before TCP.
        let mut f = tcp6(&[0; 100]);
        f[14 + 6] = 0; // hop-by-hop
        assert_eq!(cut(&f, gso_type::TCPV6, 50), Err(GsoError::Malformed));
        // Not IP at all.
        let mut arp = big.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(cut(&arp, gso_type::TCPV4, 1000), Err(GsoError::Malformed));
    }

    #[test]
    fn reads_the_virtio_net_header() {
        let mut h = [0u8; VNET_HDR_LEN];
        assert_eq!(Gso::from_vnet_hdr(&h), None);
        h[1] = gso_type::TCPV4;
        h[4..6].copy_from_slice(&1448u16.to_ne_bytes());
        assert_eq!(
            Gso::from_vnet_hdr(&h),
            Some(Gso {
                kind: gso_type::TCPV4,
                size: 1448
            })
        );
        // ECN alone is not GSO.
        h[1] = gso_type::ECN;
        assert_eq!(Gso::from_vnet_hdr(&h), None);
    }
}
