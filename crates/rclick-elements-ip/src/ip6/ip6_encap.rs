//! # IP6Encap
//!
//! `IP6Encap(keywords PROTO, SRC, DST, HLIM, CLASS)`
//!
//! **Category:** ip6. Encapsulates packets in a static IPv6 header.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Prepends a 40-byte IPv6 header to each packet: next header PROTO,
//! source SRC, destination DST, hop limit HLIM, traffic class CLASS, flow
//! label 0, payload length the packet's length. The packet gets the IPv6
//! header annotation and DST as its destination IPv6 annotation. If DST is
//! `DST_ANNO`, the destination is the packet's destination IPv6
//! annotation.
//!
//! A packet longer than 65535 bytes (a payload length IPv6 cannot state
//! without a jumbogram option, RFC 2675), or one whose buffer cannot grow,
//! is dropped and counted.
//!
//! Arguments (positional in this order, or keywords):
//!
//! * `PROTO` (protocol number or name such as `udp`, `tcp`, `icmp6`).
//! * `SRC` (IPv6 address).
//! * `DST` (IPv6 address or `DST_ANNO`).
//! * `HLIM` (byte, default 250).
//! * `CLASS` (byte, default 0): the traffic class (DSCP and ECN).
//!
//! ## Annotations
//!
//! Sets the IPv6 header annotation and the destination IPv6 annotation;
//! uses the latter with `DST_ANNO`.
//!
//! ## Handlers
//!
//! * `src`, `dst` (read/write): SRC and DST.
//! * `drops` (read): packets dropped.
//!
//! ## Examples
//!
//! ```text
//! IP6Encap(PROTO udp, SRC 2001:db8::1, DST 2001:db8::2)
//! ```
//!
//! ## See also
//!
//! IPEncap, UDPIP6Encap, Strip

use std::net::Ipv6Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::{IpProtocol, Ipv6Packet, Ipv6Repr};

use super::parse_ip6;
use crate::ip::ip_encap::parse_proto;

/// The IP6Encap element.
pub struct IP6Encap {
    proto: u8,
    src: Ipv6Addr,
    /// `None`: the destination annotation.
    dst: Option<Ipv6Addr>,
    hlim: u8,
    class: u8,
    drops: u64,
}

impl Default for IP6Encap {
    fn default() -> Self {
        IP6Encap {
            proto: 0,
            src: Ipv6Addr::UNSPECIFIED,
            dst: None,
            hlim: 250,
            class: 0,
            drops: 0,
        }
    }
}

rclick_core::handlers! {
    /// IP6Encap's handlers (the manual's list): `src` and `dst` read their
    /// argument's text and are written by reconfiguring it.
    enum H {
        Src = reconfigure_config("src", "SRC").positional(1),
        Dst = reconfigure_config("dst", "DST").positional(2),
        Drops = read("drops"),
    }
}

impl Element for IP6Encap {
    fn class_name(&self) -> &'static str {
        "IP6Encap"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut proto = 0u8;
        let mut src = Ipv6Addr::UNSPECIFIED;
        let mut dst = None;
        let mut hlim = 250u8;
        let mut class = 0u8;
        Args::new(conf)
            .read_mp_with("PROTO", &mut proto, parse_proto)
            .read_mp_with("SRC", &mut src, parse_ip6)
            .read_mp_with("DST", &mut dst, |s| {
                if s.trim() == "DST_ANNO" {
                    Ok(None)
                } else {
                    parse_ip6(s).map(Some)
                }
            })
            .read("HLIM", &mut hlim)
            .read("CLASS", &mut class)
            .complete()
            .map_err(|e| e.to_string())?;
        *self = IP6Encap {
            proto,
            src,
            dst,
            hlim,
            class,
            drops: self.drops,
        };
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let dst = self.dst.unwrap_or_else(|| p.dst_ip6_anno());
        let payload_len = p.len();
        if payload_len > usize::from(u16::MAX) || p.push(HEADER_LEN).is_err() {
            self.drops += 1;
            return None;
        }
        let Some(h) = p.data_mut().first_chunk_mut::<HEADER_LEN>() else {
            self.drops += 1;
            return None;
        };
        Ipv6Repr {
            src_addr: self.src,
            dst_addr: dst,
            next_header: IpProtocol(self.proto),
            payload_len,
            hop_limit: self.hlim,
            traffic_class: self.class,
            flow_label: 0,
        }
        .emit(&mut Ipv6Packet::new_unchecked(h));
        p.set_ip_header(0, HEADER_LEN);
        p.set_dst_ip6_anno(dst);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Drops) => Ok(self.drops.to_string()),
            // read as the configuration's text by the router
            Some(H::Src | H::Dst) | None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::run_log;
    use rclick_core::testing;

    /// Compared with the reference Click (its stderr also has an
    /// "expensive Packet::push" note, for want of headroom, not here).
    #[test]
    fn matches_reference() {
        let log = run_log(
            "InfiniteSource(DATA \\<41424344>, LIMIT 1, STOP true)
               -> IP6Encap(17, 2001:db8::1, 2001:db8::2) -> IP6Print(a, CONTENTS true)
               -> Strip(40) -> IP6Encap(PROTO udp, SRC 2001:db8::1, DST 2001:db8::2, HLIM 9, CLASS 5)
               -> IP6Print(b, CONTENTS true) -> Discard",
        );
        let tail = "20010db8 00000000 00000000 00000001\n  \
                    20010db8 00000000 00000000 00000002 41424344 ";
        assert_eq!(
            log,
            [
                format!("a: 2001:db8::1 -> 2001:db8::2 plen 4, next 17, hlim 250\n  60000000 000411fa {tail}"),
                format!("b: 2001:db8::1 -> 2001:db8::2 plen 4, next 17, hlim 9\n  60500000 00041109 {tail}"),
            ]
        );
        // DST_ANNO, and the annotation set for routing.
        let log = run_log(
            "InfiniteSource(DATA \\<41424344>, LIMIT 1, STOP true) -> SetIP6Address(fe80::5)
               -> IP6Encap(PROTO 17, SRC 2001:db8::1, DST DST_ANNO) -> IP6Print(e)
               -> IP6Encap(41, ::1, 2001:db8::2) -> rt :: LookupIP6Route(2001:db8::2 0)
               -> Print(r, 0) -> Discard",
        );
        assert_eq!(
            log,
            [
                "e: 2001:db8::1 -> fe80::5 plen 4, next 17, hlim 250",
                "r:   84"
            ]
        );
    }

    #[test]
    fn handlers_and_errors() {
        let r = testing::build(
            "Idle -> i :: IP6Encap(17, 2001:db8::1, 2001:db8::2) -> Idle",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "i.src"), "2001:db8::1");
        assert_eq!(testing::read(&r, "i.dst"), "2001:db8::2");
        assert_eq!(testing::read(&r, "i.drops"), "0");
        config_errors(
            &registry(),
            |a| format!("Idle -> IP6Encap({a}) -> Discard"),
            &[
                ("PROTO 17, SRC ::1, DST ::2, FLOW 7", "FLOW"),
                ("17, ::1", "DST"),
                ("foo, ::1, ::2", "PROTO"),
                ("17, 1.2.3.4, ::2", "expected IPv6 address"),
                ("17, ::1, ::2, HLIM 256", "HLIM"),
            ],
        );
    }
}
