//! IPv6 elements (Click's `elements/ip6`): header checks, hop limit, the
//! destination IPv6 annotation, DSCP marking, mirroring, printing and the
//! route table.
//!
//! One element class per file. Headers are read and written only through
//! [`rclick_wire::Ipv6Packet`]; the destination annotation is the packet's
//! `dst_ip6_anno` (which shares its first four bytes with the IPv4 one, as
//! Click's `DST_IP6_ANNO` does).

use std::net::Ipv6Addr;

use rclick_core::{Packet, Registry};
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::Ipv6Packet;

pub mod check_ip6_header;
pub mod d16r;
pub mod dec_ip6_hlim;
pub mod get_ip6_address;
pub mod icmp6_error;
pub mod ip6_encap;
pub mod ip6_fragmenter;
pub mod ip6_mirror;
pub mod ip6_nd_advertiser;
pub mod ip6_nd_solicitor;
pub mod ip6_print;
pub mod lookup_ip6_route;
pub mod mark_ip6_header;
pub mod set_ip6_address;
pub mod set_ip6_dscp;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "CheckIP6Header",
        || Box::<check_ip6_header::CheckIP6Header>::default(),
        include_str!("check_ip6_header.rs"),
    );
    r.add(
        "DecIP6HLIM",
        || Box::<dec_ip6_hlim::DecIP6HLIM>::default(),
        include_str!("dec_ip6_hlim.rs"),
    );
    r.add(
        "GetIP6Address",
        || Box::<get_ip6_address::GetIP6Address>::default(),
        include_str!("get_ip6_address.rs"),
    );
    r.add(
        "SetIP6Address",
        || Box::<set_ip6_address::SetIP6Address>::default(),
        include_str!("set_ip6_address.rs"),
    );
    r.add(
        "ICMP6Error",
        || Box::<icmp6_error::ICMP6Error>::default(),
        include_str!("icmp6_error.rs"),
    );
    r.add(
        "IP6Encap",
        || Box::<ip6_encap::IP6Encap>::default(),
        include_str!("ip6_encap.rs"),
    );
    r.add(
        "IP6Fragmenter",
        || Box::<ip6_fragmenter::IP6Fragmenter>::default(),
        include_str!("ip6_fragmenter.rs"),
    );
    r.add(
        "IP6Mirror",
        || Box::<ip6_mirror::IP6Mirror>::default(),
        include_str!("ip6_mirror.rs"),
    );
    r.add(
        "IP6NDAdvertiser",
        || Box::<ip6_nd_advertiser::IP6NDAdvertiser>::default(),
        include_str!("ip6_nd_advertiser.rs"),
    );
    r.add(
        "IP6NDSolicitor",
        || Box::<ip6_nd_solicitor::IP6NDSolicitor>::default(),
        include_str!("ip6_nd_solicitor.rs"),
    );
    r.add(
        "IP6Print",
        || Box::<ip6_print::IP6Print>::default(),
        include_str!("ip6_print.rs"),
    );
    r.add(
        "LookupIP6Route",
        || Box::<lookup_ip6_route::LookupIP6Route>::default(),
        include_str!("lookup_ip6_route.rs"),
    );
    r.add(
        "MarkIP6Header",
        || Box::<mark_ip6_header::MarkIP6Header>::default(),
        include_str!("mark_ip6_header.rs"),
    );
    r.add(
        "SetIP6DSCP",
        || Box::<set_ip6_dscp::SetIP6DSCP>::default(),
        include_str!("set_ip6_dscp.rs"),
    );
}

/// Parses an IPv6 address as Click's `IP6AddressArg` does (RFC 4291 text
/// forms, including an embedded IPv4 tail such as `::ffff:1.2.3.4`).
pub(crate) fn parse_ip6(s: &str) -> Result<Ipv6Addr, String> {
    s.trim()
        .parse::<Ipv6Addr>()
        .map_err(|_| format!("expected IPv6 address, not '{}'", s.trim()))
}

/// Parses `ADDR/LEN` (LEN 0 to 128) or a bare address (a /128); the
/// address is returned masked to the prefix.
pub(crate) fn parse_ip6_prefix(s: &str) -> Result<(Ipv6Addr, u8), String> {
    let s = s.trim();
    let (a, len) = match s.split_once('/') {
        Some((a, l)) => {
            let len = l
                .parse::<u8>()
                .ok()
                .filter(|&l| l <= 128)
                .ok_or_else(|| format!("expected IPv6 prefix length 0-128, not '{l}'"))?;
            (a, len)
        }
        None => (s, 128),
    };
    let a = parse_ip6(a)?;
    Ok((Ipv6Addr::from(u128::from(a) & prefix_mask(len)), len))
}

/// The netmask of a prefix length (0 to 128) as a `u128`.
#[inline]
pub(crate) fn prefix_mask(len: u8) -> u128 {
    match len {
        0 => 0,
        l => u128::MAX << (128 - u32::from(l.min(128))),
    }
}

/// A view of the 40-byte fixed header at `p`'s network header annotation,
/// if the 40 bytes are there. The payload length is not checked (Click's
/// elements past CheckIP6Header do not check it either, and truncated
/// captures are common), so use it for header fields only: its
/// `payload()` would panic.
#[inline]
pub(crate) fn fixed_header(p: &Packet) -> Option<Ipv6Packet<&[u8; HEADER_LEN]>> {
    p.ip_header()?.first_chunk().map(Ipv6Packet::new_unchecked)
}

/// [`fixed_header`] for writing (copies a shared buffer first).
#[inline]
pub(crate) fn fixed_header_mut(p: &mut Packet) -> Option<Ipv6Packet<&mut [u8; HEADER_LEN]>> {
    p.ip_header_mut()?
        .first_chunk_mut()
        .map(Ipv6Packet::new_unchecked)
}

/// A neighbour discovery message (RFC 4861) found in an Ethernet frame.
pub(crate) struct NdMessage<'a> {
    /// The frame's Ethernet source.
    pub eth_src: [u8; 6],
    /// The IPv6 source and destination.
    pub src: Ipv6Addr,
    pub dst: Ipv6Addr,
    /// The 32-bit field after the checksum (flags of an advertisement).
    pub data_field: u32,
    /// The target address.
    pub target: Ipv6Addr,
    /// The options after the target.
    pub options: &'a [u8],
}

/// The neighbour discovery message of ICMPv6 type `msg_type` in the
/// Ethernet frame `data`, if it passes the checks RFC 4861 sections 7.1.1
/// and 7.1.2 share: Ethernet type IPv6, next header 58, hop limit 255, at
/// least 24 bytes of message within the payload length, the ICMPv6
/// checksum, code 0, a target that is not multicast.
pub(crate) fn nd_message(data: &[u8], msg_type: u8) -> Option<NdMessage<'_>> {
    use rclick_wire::{EtherType, EthernetFrame, Icmpv6Packet, IpProtocol};
    let eth = EthernetFrame::new_checked(data).ok()?;
    if eth.ethertype() != EtherType::IPV6 {
        return None;
    }
    let ip = Ipv6Packet::new_checked(&data[14..]).ok()?;
    if ip.version() != 6
        || ip.next_header() != IpProtocol(58)
        || ip.hop_limit() != rclick_wire::icmpv6::nd::HOP_LIMIT
    {
        return None;
    }
    let (src, dst) = (ip.src_addr(), ip.dst_addr());
    let msg = data.get(14 + HEADER_LEN..14 + HEADER_LEN + usize::from(ip.payload_len()))?;
    if msg.len() < 24 {
        return None;
    }
    let icmp = Icmpv6Packet::new_unchecked(msg);
    if icmp.msg_type() != msg_type || icmp.code() != 0 || !icmp.verify_checksum(src, dst) {
        return None;
    }
    use rclick_wire::icmpv6::nd;
    let target = Ipv6Addr::from(*msg[nd::TARGET..].first_chunk::<16>()?);
    if target.is_multicast() {
        return None;
    }
    Some(NdMessage {
        eth_src: eth.src_addr().0,
        src,
        dst,
        data_field: icmp.data_field(),
        target,
        options: &msg[nd::OPTIONS..],
    })
}

/// Walks neighbour discovery options: `None` if one has length 0 or runs
/// past the end (the message is then invalid), else the body of the last
/// option of type `kind`, if any.
pub(crate) fn nd_option(mut opts: &[u8], kind: u8) -> Option<Option<&[u8]>> {
    let mut found = None;
    while !opts.is_empty() {
        let len = usize::from(*opts.get(1)?) * 8;
        if len == 0 || len > opts.len() {
            return None;
        }
        if opts[0] == kind {
            found = Some(&opts[2..len]);
        }
        opts = &opts[len..];
    }
    Some(found)
}

#[cfg(test)]
pub(crate) mod test_util {
    /// An IPv6 packet from `src` to `dst`, next header `nh`, hop limit
    /// `hlim`, with `payload`, as hex for `InfiniteSource(DATA \<..>)`.
    pub fn ip6_hex(src: &str, dst: &str, nh: u8, hlim: u8, payload: &[u8]) -> String {
        let mut v = vec![0x60u8, 0, 0, 0];
        v.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        v.push(nh);
        v.push(hlim);
        v.extend_from_slice(&src.parse::<std::net::Ipv6Addr>().unwrap().octets());
        v.extend_from_slice(&dst.parse::<std::net::Ipv6Addr>().unwrap().octets());
        v.extend_from_slice(payload);
        hex(&v)
    }

    /// Bytes as hex.
    pub fn hex(v: &[u8]) -> String {
        v.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Runs `conf` and returns its log lines.
    pub fn run_log(conf: &str) -> Vec<String> {
        let r = rclick_core::testing::run(conf, &crate::ip::test_util::registry())
            .unwrap_or_else(|e| panic!("{conf}: {e}"));
        r.take_log()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes() {
        assert_eq!(
            parse_ip6_prefix("2001:db8::ff/32").unwrap(),
            ("2001:db8::".parse().unwrap(), 32)
        );
        assert_eq!(
            parse_ip6_prefix("::/0").unwrap(),
            (Ipv6Addr::UNSPECIFIED, 0)
        );
        assert_eq!(parse_ip6_prefix("fe80::1").unwrap().1, 128);
        assert!(parse_ip6_prefix("::/129").is_err());
        assert!(parse_ip6_prefix("1.2.3.4/8").is_err());
        assert_eq!(prefix_mask(128), u128::MAX);
        assert_eq!(prefix_mask(1), 1 << 127);
    }

    /// Every prefix of IPv6 packets (UDP, TCP, ICMPv6 error and echo),
    /// with bad versions and payload lengths, with and without the header
    /// annotation, through every class here: nothing may panic.
    #[test]
    fn garbage_never_panics() {
        use super::test_util::{hex, ip6_hex};
        let elems = [
            "CheckIP6Header",
            "CheckIP6Header(OFFSET 3)",
            "DecIP6HLIM",
            "IP6Print(x, CONTENTS true, NBYTES 8)",
            "SetIP6DSCP(5)",
            "GetIP6Address(24)",
            "IP6Mirror",
            "IP6Encap(17, ::1, DST_ANNO)",
            "LookupIP6Route(::/0 ::1 0)",
            "LookupIP6Route(LOOKUP d16r, 2001:db8::/32 0, ::/0 ::1 0)",
            "ICMP6Error(::1, 3, 0)",
            "ICMP6Error(::1, 2, 0)",
            "IP6Fragmenter(48)",
            "IP6Fragmenter(56)",
            "IP6NDAdvertiser(::/0 0:0:0:0:0:1)",
            "IP6NDSolicitor(::1, 0:0:0:0:0:1)",
        ];
        let mut seeds: Vec<String> = Vec::new();
        for (nh, payload) in [
            (
                17u8,
                &[0x12u8, 0x34, 0x56, 0x78, 0, 12, 0, 0, 1, 2, 3, 4][..],
            ),
            (6, &[0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1][..]),
            (58, &[1, 0, 0, 0, 0, 0, 0, 0][..]),
            (58, &[128, 0, 0, 0][..]),
        ] {
            let full = ip6_hex("2001:db8::1", "2001:db8::2", nh, 1, payload);
            for n in (0..=full.len()).step_by(2) {
                seeds.push(full[..n].to_string());
            }
            let mut v = full.clone();
            v.replace_range(0..1, "4");
            seeds.push(v);
            let mut v = full.clone();
            v.replace_range(8..12, "ffff");
            seeds.push(v);
        }
        seeds.push(hex(&[0x60]));
        let reg = crate::ip::test_util::registry();
        for e in elems {
            let mut conf = format!("r :: {e}; r[0] -> Discard;\n");
            if e.starts_with("CheckIP6Header") || e.starts_with("DecIP6HLIM") {
                conf.push_str("r[1] -> Discard;\n");
            }
            if e.starts_with("IP6NDSolicitor") {
                // Every seed as an advertisement too, and to a known
                // neighbour.
                conf.push_str("Script(write r.insert 2001:db8::2 0:0:0:0:0:2);\n");
                for s in &seeds {
                    conf.push_str(&format!(
                        "InfiniteSource(DATA \\<{s}>, LIMIT 2, STOP true) -> [1]r;\n"
                    ));
                }
            }
            for (i, s) in seeds.iter().enumerate() {
                let mark = if i % 2 == 0 { "MarkIP6Header" } else { "Null" };
                conf.push_str(&format!(
                    "InfiniteSource(DATA \\<{s}>, LIMIT 2, STOP true) -> {mark} -> r;\n"
                ));
            }
            rclick_core::testing::run(&conf, &reg).unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }
}
