//! # IPEncap
//!
//! `IPEncap(PROTO, SRC, DST [, keywords TOS, DSCP, ECT, CE, TTL, DF])`
//!
//! **Category:** ip. Encapsulates packets in a static IP header.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends a 20-byte IP header to each packet: protocol PROTO (a number
//! or a name such as `tcp`, `udp`, `icmp`, `gre`), source SRC, destination
//! DST (`DST_ANNO` means the packet's destination annotation), total length
//! the packet length, an identifier that increments with each packet
//! (starting at 0), and a correct checksum. Sets the IP header annotation
//! and the destination IP address annotation to the header's destination.
//!
//! Keywords:
//!
//! * `TOS` (byte, default 0): the TOS byte; or give `DSCP` (0-63), `ECT`
//!   (boolean or `1`/`2`: ECN-capable transport codepoint) and `CE`
//!   (boolean: congestion experienced) separately.
//! * `TTL` (byte, default 250).
//! * `DF` (boolean, default false): set the don't-fragment flag.
//!
//! ## Annotations
//!
//! Sets the IP header and destination IP address annotations; uses the
//! destination annotation when DST is `DST_ANNO`.
//!
//! ## Handlers
//!
//! * `src`, `dst` (read/write): SRC and DST.
//!
//! ## Examples
//!
//! ```text
//! ... -> IPEncap(4, 18.26.4.1, 140.247.60.147) -> ...   // IP-in-IP
//! ```
//!
//! ## See also
//!
//! UDPIPEncap, StripIPHeader, CheckIPHeader

use std::net::Ipv4Addr;

use rclick_core::args::{Args, FromArg};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::ipv4::FLAG_DF;
use rclick_wire::{IpProtocol, Ipv4Packet};

/// An IP protocol number or name.
pub(crate) fn parse_proto(s: &str) -> Result<u8, String> {
    let v = match s.to_ascii_lowercase().as_str() {
        "icmp" => 1,
        "igmp" => 2,
        "ipip" => 4,
        "tcp" => 6,
        "udp" => 17,
        "ipv6" => 41,
        "gre" => 47,
        "esp" => 50,
        "ah" => 51,
        "icmp6" | "ipv6-icmp" => 58,
        "sctp" => 132,
        n => n
            .parse::<u8>()
            .map_err(|_| "expected IP protocol".to_string())?,
    };
    Ok(v)
}

/// An address argument that may be `DST_ANNO`: `None` for the annotation.
pub(crate) fn parse_addr_or_anno(
    s: &str,
    ctx: &dyn rclick_core::args::ArgContext,
) -> Result<Option<Ipv4Addr>, String> {
    if s == "DST_ANNO" {
        Ok(None)
    } else {
        Ipv4Addr::from_arg(s, ctx).map(Some)
    }
}

/// The IPEncap element.
pub struct IPEncap {
    proto: u8,
    src: Ipv4Addr,
    dst: Option<Ipv4Addr>,
    tos: u8,
    ttl: u8,
    df: bool,
    id: u16,
}

impl Default for IPEncap {
    fn default() -> Self {
        IPEncap {
            proto: 0,
            src: Ipv4Addr::UNSPECIFIED,
            dst: Some(Ipv4Addr::UNSPECIFIED),
            tos: 0,
            ttl: 250,
            df: false,
            id: 0,
        }
    }
}

rclick_core::handlers! {
    /// IPEncap's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Src = reconfigure_config("src", "SRC").positional(1),
        Dst = reconfigure_config("dst", "DST").positional(2),
    }
}

impl Element for IPEncap {
    fn class_name(&self) -> &'static str {
        "IPEncap"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let mut proto = 0u8;
        let mut src = Ipv4Addr::UNSPECIFIED;
        let mut dst: Option<Ipv4Addr> = None;
        let mut tos: Option<u8> = None;
        let mut dscp: Option<u8> = None;
        let mut ect: Option<u8> = None;
        let mut ce = false;
        let mut ttl = 250u8;
        let mut df = false;
        Args::new_with(conf, ctx)
            .read_mp_with("PROTO", &mut proto, parse_proto)
            .read_mp("SRC", &mut src)
            .read_mp_with("DST", &mut dst, |s| parse_addr_or_anno(s, ctx))
            .read_with("TOS", &mut tos, |s| u8::from_arg(s, ctx).map(Some))
            .read_with("DSCP", &mut dscp, |s| match u8::from_arg(s, ctx) {
                Ok(v) if v <= 63 => Ok(Some(v)),
                _ => Err("expected DSCP value (0-63)".into()),
            })
            .read_with("ECT", &mut ect, |s| match s {
                "1" => Ok(Some(1)),
                "2" => Ok(Some(2)),
                _ => bool::from_arg(s, ctx).map(|b| b.then_some(2)),
            })
            .read("CE", &mut ce)
            .read("TTL", &mut ttl)
            .read("DF", &mut df)
            .complete()
            .map_err(|e| e.to_string())?;
        let tos = match tos {
            Some(t) => {
                if dscp.is_some() || ect.is_some() || ce {
                    return Err("cannot specify both TOS and DSCP or ECN bits".into());
                }
                t
            }
            None => {
                let ecn = if ce { 3 } else { ect.unwrap_or(0) };
                (dscp.unwrap_or(0) << 2) | ecn
            }
        };
        self.proto = proto;
        self.src = src;
        self.dst = dst;
        self.tos = tos;
        self.ttl = ttl;
        self.df = df;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let dst = self.dst.unwrap_or_else(|| p.dst_ip_anno());
        let total = p.len() + 20;
        if p.push(20).is_err() {
            return None;
        }
        let id = self.id;
        self.id = self.id.wrapping_add(1);
        let mut h = Ipv4Packet::new_unchecked(&mut p.data_mut()[..20]);
        h.set_version(4);
        h.set_header_len(20);
        h.set_tos(self.tos);
        h.set_total_len(total.min(0xffff) as u16);
        h.set_ident(id);
        h.set_flags_frag_offset(if self.df { FLAG_DF } else { 0 });
        h.set_ttl(self.ttl);
        h.set_protocol(IpProtocol(self.proto));
        h.set_src_addr(self.src);
        h.set_dst_addr(dst);
        h.fill_checksum();
        p.set_ip_header(0, 20);
        p.set_dst_ip_anno(dst);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn encapsulates() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 2, STOP true) -> IPEncap(udp, 1.0.0.1, 2.0.0.2, DF true, TTL 64)
             -> c :: CheckIPHeader -> Print(x, 30) -> n :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "n.count"), "2");
        let log = r.take_log().join("\n");
        assert!(log.contains("x:   22 | 45000016 00004000 4011"), "{log}");
        assert!(log.contains("x:   22 | 45000016 00014000 4011"), "{log}");
    }
}
