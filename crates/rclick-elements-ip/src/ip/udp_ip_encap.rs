//! # UDPIPEncap
//!
//! `UDPIPEncap(SRC, SPORT, DST, DPORT [, CHECKSUM])`
//!
//! **Category:** udp. Encapsulates packets in static UDP/IP headers.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends a 20-byte IP header and an 8-byte UDP header to each packet:
//! source SRC:SPORT, destination DST:DPORT, TTL 250, an IP identifier that
//! increments with each packet (starting at 0), correct IP checksum, and a
//! UDP checksum when CHECKSUM is true (the default). SRC and DST are IP
//! addresses or AddressInfo names (DST may be `DST_ANNO`: the packet's
//! destination annotation); SPORT and DPORT are port numbers or names
//! (PortInfo names, or well-known services like `ssh`). Sets the IP header
//! annotation and the destination IP address annotation.
//!
//! Keywords: `SRC`, `SPORT`, `DST`, `DPORT` (mandatory), `CHECKSUM`
//! (boolean, default true).
//!
//! ## Annotations
//!
//! Sets the IP header and destination IP address annotations.
//!
//! ## Handlers
//!
//! * `src`, `sport`, `dst`, `dport` (read/write): the arguments.
//!
//! ## Examples
//!
//! ```text
//! ... -> UDPIPEncap(1.0.0.1, 1234, 2.0.0.2, 1234) -> EtherEncap(0x0800, ...)
//! ```
//!
//! ## See also
//!
//! IPEncap, StripIPHeader, PortInfo

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::{IpProtocol, Ipv4Packet, UdpPacket};

use super::ip_encap::parse_addr_or_anno;
use super::port_info::parse_port;

/// The UDPIPEncap element.
pub struct UDPIPEncap {
    src: Ipv4Addr,
    sport: u16,
    dst: Option<Ipv4Addr>,
    dport: u16,
    checksum: bool,
    id: u16,
}

impl Default for UDPIPEncap {
    fn default() -> Self {
        UDPIPEncap {
            src: Ipv4Addr::UNSPECIFIED,
            sport: 0,
            dst: Some(Ipv4Addr::UNSPECIFIED),
            dport: 0,
            checksum: true,
            id: 0,
        }
    }
}

rclick_core::handlers! {
    /// UDPIPEncap's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Src = reconfigure_config("src", "SRC").positional(0),
        SPort = reconfigure_config("sport", "SPORT").positional(1),
        Dst = reconfigure_config("dst", "DST").positional(2),
        DPort = reconfigure_config("dport", "DPORT").positional(3),
    }
}

impl Element for UDPIPEncap {
    fn class_name(&self) -> &'static str {
        "UDPIPEncap"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let name = cx.name().to_string();
        let ccx: &ConfigureCx = cx;
        let mut src = Ipv4Addr::UNSPECIFIED;
        let mut dst: Option<Ipv4Addr> = None;
        let mut sport = 0u16;
        let mut dport = 0u16;
        let mut csum = true;
        let port = |s: &str| {
            parse_port(s, "udp", &name, ccx).ok_or_else(|| "expected port number".to_string())
        };
        Args::new_with(conf, ctx)
            .read_mp("SRC", &mut src)
            .read_mp_with("SPORT", &mut sport, port)
            .read_mp_with("DST", &mut dst, |s| parse_addr_or_anno(s, ctx))
            .read_mp_with("DPORT", &mut dport, port)
            .read_p("CHECKSUM", &mut csum)
            .complete()
            .map_err(|e| e.to_string())?;
        self.src = src;
        self.sport = sport;
        self.dst = dst;
        self.dport = dport;
        self.checksum = csum;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let dst = self.dst.unwrap_or_else(|| p.dst_ip_anno());
        let ulen = p.len() + 8;
        let total = ulen + 20;
        if p.push(28).is_err() {
            return None;
        }
        let id = self.id;
        self.id = self.id.wrapping_add(1);
        let d = p.data_mut();
        {
            let mut h = Ipv4Packet::new_unchecked(&mut d[..20]);
            h.set_version(4);
            h.set_header_len(20);
            h.set_tos(0);
            h.set_total_len(total.min(0xffff) as u16);
            h.set_ident(id);
            h.set_flags_frag_offset(0);
            h.set_ttl(250);
            h.set_protocol(IpProtocol::UDP);
            h.set_src_addr(self.src);
            h.set_dst_addr(dst);
            h.fill_checksum();
        }
        {
            let u = &mut d[20..];
            let mut v = UdpPacket::new_unchecked(&mut *u);
            v.set_src_port(self.sport);
            v.set_dst_port(self.dport);
            v.set_len(ulen.min(0xffff) as u16);
            v.set_checksum(0);
            if self.checksum && ulen <= 0xffff {
                let mut v = UdpPacket::new_unchecked(&mut u[..ulen]);
                v.fill_checksum(self.src, dst);
            }
        }
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
    fn encapsulates_with_port_names() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 1, STOP true) -> UDPIPEncap(1.0.0.1, foo, 2.0.0.2, ssh)
             -> CheckIPHeader -> CheckUDPHeader -> Print(x, 40) -> n :: Counter -> Discard;
             PortInfo(foo 79/udp # ssh 25/udp comment);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "n.count"), "1");
        let log = r.take_log().join("\n");
        assert!(log.contains("004f0016 000a"), "{log}");
    }
}
