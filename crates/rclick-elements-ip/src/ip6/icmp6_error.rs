//! # ICMP6Error
//!
//! `ICMP6Error(SRC, TYPE, CODE [, keywords MTU])`
//!
//! **Category:** ip6. Makes ICMPv6 error messages (RFC 4443).
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Each input packet is an IPv6 packet (with the IPv6 header annotation)
//! that could not be delivered; the element emits, in its place, an
//! ICMPv6 error message of TYPE and CODE to the packet's source, from SRC,
//! hop limit 255, quoting as much of the packet as fits in the minimum
//! IPv6 MTU of 1280 bytes (RFC 4443 section 2.4 (c)). The 32-bit field
//! after the checksum is MTU for packet too big (type 2), the parameter
//! problem annotation for parameter problem (type 4), and zero otherwise.
//!
//! TYPE is one of 1 (destination unreachable), 2 (packet too big), 3 (time
//! exceeded), 4 (parameter problem); CODE 0 to 255.
//!
//! No message is made (the packet is dropped and counted by reason) for a
//! packet without a whole IPv6 header; one whose source is unspecified or
//! multicast; an ICMPv6 error message (RFC 4443 section 2.4 (e.1)); or,
//! unless the message is packet too big or parameter problem code 2, one
//! sent to a multicast address or received as a link-layer broadcast or
//! multicast (e.2, e.3).
//!
//! Keywords:
//!
//! * `MTU` (unsigned, default 1500): the MTU a packet too big message
//!   reports.
//!
//! ## Annotations
//!
//! Uses the IPv6 header annotation, the packet type annotation and the
//! parameter problem annotation; the message gets the IPv6 header
//! annotation and its destination as the destination IPv6 annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets that got no message.
//! * `drop_details` (read): those by reason.
//!
//! ## Examples
//!
//! ```text
//! dh :: DecIP6HLIM;
//! dh[1] -> ICMP6Error(2001:db8::1, 3, 0) -> rt;
//! ```
//!
//! ## See also
//!
//! DecIP6HLIM, ICMPError

use std::net::Ipv6Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_packet::PacketType;
use rclick_wire::icmpv6::{self, types, Icmpv6Packet};
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::{IpProtocol, Ipv6Packet, Ipv6Repr};

use super::{fixed_header, parse_ip6};
use crate::ip::{read_drops, CheckH};
use rclick_core::drops::Drops;

/// The minimum IPv6 MTU (RFC 8200 section 5), the bound on a message.
const MIN_MTU: usize = 1280;

rclick_core::drop_reasons! {
    /// Why no message answers a packet (the `drop_details` handler's
    /// lines).
    enum Why {
        /// No IPv6 header annotation (or no message could be made).
        NoHeader = "no IPv6 header",
        BadSource = "unspecified or multicast source",
        /// RFC 4443 section 2.4 (e.1): no error about an error.
        AboutError = "ICMPv6 error message",
        /// RFC 4443 section 2.4 (e.3 and e.4), except Packet Too Big and
        /// parameter problem code 2.
        MulticastDestination = "multicast or broadcast destination",
    }
}

/// The ICMP6Error element.
pub struct ICMP6Error {
    src: Ipv6Addr,
    msg_type: u8,
    code: u8,
    mtu: u32,
    drops: Drops<Why>,
}

impl Default for ICMP6Error {
    fn default() -> Self {
        ICMP6Error {
            src: Ipv6Addr::UNSPECIFIED,
            msg_type: types::TIME_EXCEEDED,
            code: 0,
            mtu: 1500,
            drops: Drops::default(),
        }
    }
}

impl ICMP6Error {
    /// Why no message may answer `p`.
    fn refuse(&self, p: &Packet) -> Option<Why> {
        let Some(h) = fixed_header(p) else {
            return Some(Why::NoHeader);
        };
        let src = h.src_addr();
        if src.is_unspecified() || src.is_multicast() {
            return Some(Why::BadSource);
        }
        if h.next_header() == IpProtocol(icmpv6::NEXT_HEADER) {
            let quoted = p.ip_header().and_then(|d| d.get(HEADER_LEN..));
            match quoted.and_then(|q| q.first()) {
                Some(&t) if types::is_error(t) => return Some(Why::AboutError),
                // A truncated ICMPv6 header: its type is unknown.
                None => return Some(Why::AboutError),
                _ => {}
            }
        }
        let exempt = self.msg_type == types::PACKET_TOO_BIG
            || (self.msg_type == types::PARAM_PROBLEM && self.code == 2);
        let link_multi = matches!(
            p.packet_type_anno(),
            PacketType::Broadcast | PacketType::Multicast
        );
        if !exempt && (h.dst_addr().is_multicast() || link_multi) {
            return Some(Why::MulticastDestination);
        }
        None
    }

    /// The error message answering `p` (which has passed [`Self::refuse`]).
    fn message(&self, p: &Packet) -> Option<Packet> {
        let quoted = p.ip_header()?;
        let quoted = &quoted[..quoted.len().min(MIN_MTU - HEADER_LEN - icmpv6::HEADER_LEN)];
        let to = fixed_header(p)?.src_addr();
        let icmp_len = icmpv6::HEADER_LEN + quoted.len();
        let mut bytes = vec![0u8; HEADER_LEN + icmp_len];
        let (ip, icmp) = bytes.split_at_mut(HEADER_LEN);
        Ipv6Repr {
            src_addr: self.src,
            dst_addr: to,
            next_header: IpProtocol(icmpv6::NEXT_HEADER),
            payload_len: icmp_len,
            hop_limit: 255,
            traffic_class: 0,
            flow_label: 0,
        }
        .emit(&mut Ipv6Packet::new_unchecked(ip));
        let mut m = Icmpv6Packet::new_checked(icmp).ok()?;
        m.set_msg_type(self.msg_type);
        m.set_code(self.code);
        m.set_data_field(match self.msg_type {
            types::PACKET_TOO_BIG => self.mtu,
            types::PARAM_PROBLEM => u32::from(p.icmp_param_prob_anno()),
            _ => 0,
        });
        m.body_mut().copy_from_slice(quoted);
        m.fill_checksum(self.src, to);
        let mut q = Packet::from_slice(&bytes);
        q.set_ip_header(0, HEADER_LEN);
        q.set_dst_ip6_anno(to);
        q.set_timestamp_anno(p.timestamp_anno());
        Some(q)
    }
}

impl Element for ICMP6Error {
    fn class_name(&self) -> &'static str {
        "ICMP6Error"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut src = Ipv6Addr::UNSPECIFIED;
        let mut msg_type = 0u8;
        let mut code = 0u8;
        let mut mtu = 1500u32;
        Args::new(conf)
            .read_mp_with("SRC", &mut src, parse_ip6)
            .read_mp_with("TYPE", &mut msg_type, |s| match s.trim().parse::<u8>() {
                Ok(t @ 1..=4) => Ok(t),
                _ => Err("expected ICMPv6 error type 1 to 4".to_string()),
            })
            .read_mp("CODE", &mut code)
            .read("MTU", &mut mtu)
            .complete()
            .map_err(|e| e.to_string())?;
        *self = ICMP6Error {
            src,
            msg_type,
            code,
            mtu,
            drops: self.drops.clone(),
        };
        Ok(())
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let reason = self.refuse(&p);
        let out = match reason {
            Some(_) => None,
            None => self.message(&p),
        };
        if out.is_none() {
            // A message that cannot be made counts as no IPv6 header.
            self.drops.count(reason.unwrap_or(Why::NoHeader), 1);
        }
        out
    }
    /// `drops` and `drop_details` (the manual's list).
    fn handlers(&self) -> Vec<HandlerDef> {
        CheckH::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        read_drops(&self.drops, id)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::{ip6_hex, run_log};
    use rclick_core::testing;

    const UDP: [u8; 8] = [0x12, 0x34, 0x56, 0x78, 0, 16, 0, 0];

    fn error_for(data: &str, args: &str) -> Vec<String> {
        run_log(&format!(
            "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> MarkIP6Header
               -> ICMP6Error({args}) -> IP6Print(e, CONTENTS true) -> Discard"
        ))
    }

    /// Byte for byte what the reference Click makes (clickdiff), for time
    /// exceeded and destination unreachable; packet too big differs only
    /// in the MTU's byte order (Click stores it in host order).
    #[test]
    fn matches_reference() {
        let d = ip6_hex("2001:db8::1", "2001:db8:1::2", 17, 64, &UDP);
        let quoted = "  60000000 00081140 20010db8 00000000 00000000 00000001\n  \
                      20010db8 00010000 00000000 00000002 12345678 00100000\n  ";
        let head = "e: 2001:db8::fe -> 2001:db8::1 plen 56, next 58, hlim 255\n  \
                    60000000 00383aff 20010db8 00000000 00000000 000000fe\n  \
                    20010db8 00000000 00000000 00000001 ";
        assert_eq!(
            error_for(&d, "2001:db8::fe, 3, 0"),
            [format!("{head}03006aa1 00000000\n{quoted}")]
        );
        assert_eq!(
            error_for(&d, "2001:db8::fe, 2, 0"),
            [format!("{head}020065c5 000005dc\n{quoted}")]
        );
        // An ICMPv6 echo request is answered.
        let echo = ip6_hex(
            "2001:db8::1",
            "2001:db8:1::2",
            58,
            64,
            &[0x80, 0, 0x56, 0x78, 0, 16, 0, 0],
        );
        let log = error_for(&echo, "2001:db8::fe, 1, 0");
        assert!(log[0].contains(" 0100d5d4 00000000\n"), "{log:?}");
    }

    /// RFC 4443 section 2.4 (e): no error for an error, a multicast
    /// destination (except packet too big), a multicast or unspecified
    /// source, a short packet; each counted.
    #[test]
    fn refusals_are_counted() {
        let cases = [
            (
                ip6_hex(
                    "2001:db8::1",
                    "2001:db8::2",
                    58,
                    64,
                    &[1, 0, 0, 0, 0, 0, 0, 0],
                ),
                "1",
                "ICMPv6 error message",
            ),
            (
                ip6_hex("2001:db8::1", "2001:db8::2", 58, 64, &[]),
                "1",
                "ICMPv6 error message",
            ),
            (
                ip6_hex("2001:db8::1", "ff02::1", 17, 64, &UDP),
                "1",
                "multicast or broadcast",
            ),
            (
                ip6_hex("::", "2001:db8::2", 17, 64, &UDP),
                "1",
                "unspecified or multicast source",
            ),
            (
                ip6_hex("ff02::1", "2001:db8::2", 17, 64, &UDP),
                "1",
                "unspecified or multicast source",
            ),
            ("6000000000081140".to_string(), "1", "no IPv6 header"),
        ];
        for (data, drops, why) in cases {
            let conf = format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> MarkIP6Header
                   -> e :: ICMP6Error(2001:db8::fe, 1, 0) -> Print(out) -> Discard"
            );
            let r = testing::run(&conf, &registry()).unwrap();
            assert!(r.take_log().is_empty(), "{data}");
            assert_eq!(testing::read(&r, "e.drops"), drops, "{data}");
            let details = testing::read(&r, "e.drop_details");
            assert!(details.contains(&format!("1\t{why}")), "{data}: {details}");
        }
        // Packet too big goes to a multicast destination too.
        let d = ip6_hex("2001:db8::1", "ff02::1", 17, 64, &UDP);
        assert_eq!(error_for(&d, "2001:db8::fe, 2, 0, MTU 1280").len(), 1);
    }

    #[test]
    fn quotes_at_most_the_minimum_mtu() {
        let d = ip6_hex("2001:db8::1", "2001:db8::2", 17, 64, &[7; 1400]);
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> MarkIP6Header
               -> ICMP6Error(2001:db8::fe, 3, 1) -> IP6Print(e) -> Print(p, 0) -> Discard"
        ));
        assert_eq!(
            log,
            [
                "e: 2001:db8::fe -> 2001:db8::1 plen 1240, next 58, hlim 255",
                "p: 1280"
            ]
        );
        config_errors(
            &registry(),
            |a| format!("Idle -> ICMP6Error({a}) -> Discard"),
            &[
                ("2001:db8::1, 5, 0", "TYPE"),
                ("2001:db8::1, 3", "CODE"),
                ("10.0.0.1, 3, 0", "expected IPv6 address"),
                ("::1, 3, 256", "CODE"),
            ],
        );
    }
}
