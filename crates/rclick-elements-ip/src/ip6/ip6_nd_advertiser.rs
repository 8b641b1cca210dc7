//! # IP6NDAdvertiser
//!
//! `IP6NDAdvertiser(IP6/LEN ETH, ...)`
//!
//! **Category:** ip6. Answers IPv6 neighbour solicitations (RFC 4861).
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Expects Ethernet frames holding ICMPv6 Neighbor Solicitations. Each
//! argument is a space-separated list of IPv6 addresses or prefixes
//! (`ADDR/LEN`; a bare address is a /128) and one Ethernet address. A
//! solicitation whose target address matches a configured prefix (the
//! longest match wins) is answered with a Neighbor Advertisement, an
//! 86-byte Ethernet frame emitted on the output:
//!
//! * Ethernet: from the matching Ethernet address, to the solicitation's
//!   Ethernet source; type 0x86dd.
//! * IPv6: from the target address, to the solicitation's source, hop limit
//!   255.
//! * ICMPv6 type 136, code 0, flags Router and Solicited (0xC0, as in
//!   Click; Override clear), the target, and a Target Link-Layer Address
//!   option (type 2) with the Ethernet address.
//!
//! A solicitation from the unspecified address (duplicate address
//! detection, RFC 4862) is answered to all-nodes (`ff02::1`, Ethernet
//! `33:33:00:00:00:01`) with the Solicited flag clear (RFC 4861 section
//! 7.2.4).
//!
//! Solicitations are validated as RFC 4861 section 7.1.1 asks: Ethernet
//! type IPv6, an IPv6 header with next header 58 and hop limit 255, an
//! ICMPv6 message of at least 24 bytes within the payload length with a
//! correct checksum, type 135 and code 0, a target that is not multicast,
//! options of non-zero length within the message, and, from the unspecified
//! address, a solicited-node multicast destination and no Source
//! Link-Layer Address option. Every input packet is consumed; those that
//! are not valid solicitations or whose target matches nothing are counted
//! in `drops`.
//!
//! ## Handlers
//!
//! * `drops` (read): input packets not answered.
//! * `responses` (read): advertisements sent.
//!
//! ## Examples
//!
//! ```text
//! c :: Classifier(12/86dd 20/3aff 54/87, -);
//! FromDevice(eth0) -> c;
//! c[0] -> IP6NDAdvertiser(2001:db8::1 00:00:c0:ae:67:ef) -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! IP6NDSolicitor, ARPResponder

use std::net::Ipv6Addr;

use rclick_core::args::parse_ether;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_packet::DEFAULT_HEADROOM;
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::{
    EtherType, EthernetAddress, EthernetFrame, Icmpv6Packet, IpProtocol, Ipv6Packet,
};

use super::{nd_message, nd_option, parse_ip6_prefix, prefix_mask};

use rclick_wire::icmpv6::{nd, types::NEIGHBOR_ADVERT as NA, types::NEIGHBOR_SOLICIT as NS};

/// An Ethernet header's length.
const ETH_LEN: usize = 14;
/// A Neighbor Advertisement with its target link-layer address option.
const NA_LEN: usize = 32;

/// The IP6NDAdvertiser element.
#[derive(Default)]
pub struct IP6NDAdvertiser {
    /// (address as u128, prefix length, Ethernet address).
    map: Vec<(u128, u8, [u8; 6])>,
    drops: u64,
    responses: u64,
}

/// A valid solicitation's Ethernet source, IPv6 source and target.
fn solicitation(data: &[u8]) -> Option<([u8; 6], Ipv6Addr, Ipv6Addr)> {
    let m = nd_message(data, NS)?;
    let slla = nd_option(m.options, nd::OPT_SOURCE_LL_ADDR)?.is_some();
    if m.src.is_unspecified() {
        let solicited_node =
            u128::from(m.dst) & prefix_mask(104) == 0xff02_0000_0000_0000_0000_0001_ff00_0000;
        if !solicited_node || slla {
            return None;
        }
    }
    Some((m.eth_src, m.src, m.target))
}

impl IP6NDAdvertiser {
    /// The Ethernet address for `a`, by longest prefix.
    fn lookup(&self, a: Ipv6Addr) -> Option<[u8; 6]> {
        let a = u128::from(a);
        self.map
            .iter()
            .filter(|(p, len, _)| a & prefix_mask(*len) == *p)
            .max_by_key(|(_, len, _)| *len)
            .map(|e| e.2)
    }

    /// The advertisement answering `p`, if any.
    fn respond(&self, p: &Packet) -> Option<Packet> {
        let (eth_src, src, target) = solicitation(p.data())?;
        let mac = self.lookup(target)?;
        let (eth_dst, dst, flags) = if src.is_unspecified() {
            (
                [0x33, 0x33, 0, 0, 0, 1],
                Ipv6Addr::from(0xff02_u128 << 112 | 1),
                nd::FLAG_ROUTER,
            )
        } else {
            (eth_src, src, nd::FLAG_ROUTER | nd::FLAG_SOLICITED)
        };
        let mut q = Packet::make_zeroed(DEFAULT_HEADROOM, ETH_LEN + HEADER_LEN + NA_LEN, 0);
        let d = q.data_mut();
        let mut e = EthernetFrame::new_unchecked(&mut *d);
        e.set_dst_addr(EthernetAddress(eth_dst));
        e.set_src_addr(EthernetAddress(mac));
        e.set_ethertype(EtherType::IPV6);
        let mut ip = Ipv6Packet::new_unchecked(&mut d[ETH_LEN..ETH_LEN + HEADER_LEN]);
        ip.set_version(6);
        ip.set_payload_len(NA_LEN as u16);
        ip.set_next_header(IpProtocol(58));
        ip.set_hop_limit(nd::HOP_LIMIT);
        ip.set_src_addr(target);
        ip.set_dst_addr(dst);
        let mut icmp = Icmpv6Packet::new_unchecked(&mut d[ETH_LEN + HEADER_LEN..]);
        icmp.set_msg_type(NA);
        icmp.set_code(0);
        icmp.set_data_field(flags);
        let body = icmp.body_mut();
        body[..16].copy_from_slice(&target.octets());
        nd::write_ll_addr_option(&mut body[16..], nd::OPT_TARGET_LL_ADDR, mac);
        icmp.fill_checksum(target, dst);
        Some(q)
    }
}

rclick_core::handlers! {
    /// IP6NDAdvertiser's handlers (the manual's list).
    enum H {
        Drops = read("drops"),
        Responses = read("responses"),
    }
}

impl Element for IP6NDAdvertiser {
    fn class_name(&self) -> &'static str {
        "IP6NDAdvertiser"
    }

    fn port_count(&self) -> &'static str {
        "1/1"
    }

    fn is_simple(&self) -> bool {
        true
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut map = Vec::new();
        for (i, arg) in conf.iter().enumerate() {
            let mut prefixes = Vec::new();
            let mut mac = None;
            for w in arg.split_whitespace() {
                if let Ok((a, len)) = parse_ip6_prefix(w) {
                    prefixes.push((u128::from(a), len));
                } else if let Ok(m) = parse_ether(w) {
                    if mac.replace(m.0).is_some() {
                        return Err(format!("argument {i} has more than one Ethernet address"));
                    }
                } else {
                    return Err(format!("argument {i} should be `IP6/MASK ETHADDR'"));
                }
            }
            if prefixes.is_empty() {
                return Err(format!("argument {i} had no IP6 address and masks"));
            }
            let Some(mac) = mac else {
                return Err(format!("argument {i} has no Ethernet address"));
            };
            map.extend(prefixes.into_iter().map(|(a, l)| (a, l, mac)));
        }
        self.map = map;
        Ok(())
    }

    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let q = self.respond(&p);
        match q {
            Some(_) => self.responses += 1,
            None => self.drops += 1,
        }
        q
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        Ok(if H::from_id(id) == Some(H::Drops) {
            self.drops
        } else {
            self.responses
        }
        .to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::run_log;

    /// A solicitation from `fe80::1` (00:00:00:00:00:01) for 2001:db8::2,
    /// as built by a script and checked with the reference Click.
    const NS: &str = "3333ff000002000000000001\
86dd6000000000203aff\
fe800000000000000000000000000001ff0200000000000000000001ff000002\
87004d5f00000000\
20010db8000000000000000000000002\
0101000000000001";

    /// Compared with the reference Click: the /128 wins over the /32; the
    /// advertisement is byte for byte Click's.
    #[test]
    fn answers_like_click() {
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{NS}>, LIMIT 1, STOP true)
               -> a :: IP6NDAdvertiser(2001:db8::2 00:00:00:00:00:aa, 2001:db8::/32 00:00:00:00:00:bb)
               -> Print(na, 100) -> Discard;"
        ));
        assert_eq!(
            log,
            ["na:   86 | 00000000 00010000 000000aa 86dd6000 00000020 3aff2001 0db80000 00000000 00000000 0002fe80 00000000 00000000 00000000 00018800 5b01c000 00002001 0db80000 00000000 00000000 00020201 00000000 00aa"]
        );
    }

    /// Compared with the reference Click (no output from either): a bad
    /// checksum, hop limit 64, a target matching nothing, a multicast
    /// target. A target in the /32 only gets the /32's address.
    #[test]
    fn rejects_and_prefixes() {
        let bad = "3333ff00000200000000000186dd6000000000203afffe800000000000000000000000000001ff0200000000000000000001ff00000287004d5e0000000020010db80000000000000000000000020101000000000001";
        let h64 = "3333ff00000200000000000186dd6000000000203a40fe800000000000000000000000000001ff0200000000000000000001ff00000287004d5f0000000020010db80000000000000000000000020101000000000001";
        let miss = "3333ff00000200000000000186dd6000000000203afffe800000000000000000000000000001ff0200000000000000000001ff00000287004d5e0000000020010db90000000000000000000000020101000000000001";
        let mc = "3333ff00000200000000000186dd6000000000203afffe800000000000000000000000000001ff0200000000000000000001ff00000287007c1500000000ff0200000000000000000000000000020101000000000001";
        let b32 = "3333ff00000200000000000186dd6000000000203afffe800000000000000000000000000001ff0200000000000000000001ff00000287004d5a0000000020010db80000000000000000000000070101000000000001";
        let mut sources = String::new();
        for p in [bad, h64, miss, mc, b32, &NS[..40]] {
            sources.push_str(&format!(
                "InfiniteSource(DATA \\<{p}>, LIMIT 1, STOP false) -> a;\n"
            ));
        }
        let conf = format!(
            "a :: IP6NDAdvertiser(2001:db8::2 00:00:00:00:00:aa, 2001:db8::/32 00:00:00:00:00:bb)
               -> Print(na, 100) -> Discard;
             {sources} DriverManager(wait 0.1s);"
        );
        let r = rclick_core::testing::run(&conf, &registry()).unwrap();
        assert_eq!(
            r.take_log(),
            ["na:   86 | 00000000 00010000 000000bb 86dd6000 00000020 3aff2001 0db80000 00000000 00000000 0007fe80 00000000 00000000 00000000 00018800 5ae6c000 00002001 0db80000 00000000 00000000 00070201 00000000 00bb"]
        );
        assert_eq!(rclick_core::testing::read(&r, "a.drops"), "5");
        assert_eq!(rclick_core::testing::read(&r, "a.responses"), "1");
    }

    /// Duplicate address detection (RFC 4861 section 7.2.4): from ::, the
    /// answer goes to all-nodes with Solicited clear. The reference drops
    /// it (it wants the 86-byte form); with a source link-layer option it
    /// is invalid here too.
    #[test]
    fn duplicate_address_detection() {
        let dad = "3333ff00000200000000000186dd6000000000183aff00000000000000000000000000000000ff0200000000000000000001ff00000287004ceb0000000020010db8000000000000000000000002";
        let dadopt = "3333ff00000200000000000186dd6000000000203aff00000000000000000000000000000000ff0200000000000000000001ff00000287004be10000000020010db80000000000000000000000020101000000000001";
        let conf = format!(
            "a :: IP6NDAdvertiser(2001:db8::2 00:00:00:00:00:aa) -> Print(na, 100) -> Discard;
             InfiniteSource(DATA \\<{dad}>, LIMIT 1, STOP false) -> a;
             InfiniteSource(DATA \\<{dadopt}>, LIMIT 1, STOP false) -> a;
             DriverManager(wait 0.1s);"
        );
        let r = rclick_core::testing::run(&conf, &registry()).unwrap();
        assert_eq!(
            r.take_log(),
            ["na:   86 | 33330000 00010000 000000aa 86dd6000 00000020 3aff2001 0db80000 00000000 00000000 0002ff02 00000000 00000000 00000000 00018800 9a7f8000 00002001 0db80000 00000000 00000000 00020201 00000000 00aa"]
        );
        assert_eq!(rclick_core::testing::read(&r, "a.drops"), "1");
    }

    #[test]
    fn config() {
        config_errors(
            &registry(),
            |a| format!("Idle -> IP6NDAdvertiser({a}) -> Discard"),
            &[
                (
                    "00:00:00:00:00:01",
                    "argument 0 had no IP6 address and masks",
                ),
                ("::1 foo", "argument 0 should be `IP6/MASK ETHADDR'"),
                (
                    "::1 0:0:0:0:0:1 0:0:0:0:0:2",
                    "more than one Ethernet address",
                ),
                ("::1", "argument 0 has no Ethernet address"),
            ],
        );
    }
}
