//! # DynamicUDPIPEncap
//!
//! `DynamicUDPIPEncap(SRC, SPORT, DST, DPORT [, CHECKSUM, INTERVAL])`
//!
//! **Category:** udp. Encapsulates packets in UDP/IP headers whose ports
//! change.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends a UDP header and a 20-byte IP header to each packet, as
//! UDPIPEncap does: source SRC and port SPORT, destination DST and port
//! DPORT (ports by number or PortInfo name), TTL 250, identification
//! counting from 0, UDP checksum filled in when CHECKSUM is true (the
//! default), else zero. After every INTERVAL packets (default 0: never)
//! both ports grow by one, so the packets form a new flow.
//!
//! A packet whose buffer cannot grow by 28 bytes, or that would be longer
//! than 65535 bytes with its headers, is dropped and counted.
//!
//! ## Annotations
//!
//! Sets the IP header and destination IP address annotations.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped (not in Click).
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource(LENGTH 22) -> DynamicUDPIPEncap(1.0.0.1, 1234, 2.0.0.2, 1234, 1, 10)
//!   -> EtherEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2) -> ...
//! ```
//!
//! ## See also
//!
//! UDPIPEncap, FastUDPFlows

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::drops::simple::keep_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{IpProtocol, Ipv4Packet, Ipv4Repr, UdpPacket};

use crate::ip::port_info::parse_port;

/// The DynamicUDPIPEncap element.
pub struct DynamicUDPIPEncap {
    src: Ipv4Addr,
    dst: Ipv4Addr,
    sport: u16,
    dport: u16,
    checksum: bool,
    interval: u32,
    count: u32,
    id: u16,
    drops: u64,
}

impl Default for DynamicUDPIPEncap {
    fn default() -> Self {
        DynamicUDPIPEncap {
            src: Ipv4Addr::UNSPECIFIED,
            dst: Ipv4Addr::UNSPECIFIED,
            sport: 0,
            dport: 0,
            checksum: true,
            interval: 0,
            count: 0,
            id: 0,
            drops: 0,
        }
    }
}

impl DynamicUDPIPEncap {
    fn encap(&mut self, p: &mut Packet) -> bool {
        let ulen = p.len() + 8;
        if ulen + 20 > usize::from(u16::MAX) || p.push(28).is_err() {
            return false;
        }
        let ip = Ipv4Repr {
            src_addr: self.src,
            dst_addr: self.dst,
            protocol: IpProtocol::UDP,
            payload_len: ulen,
            ttl: 250,
            tos: 0,
            ident: self.id,
            dont_frag: false,
            more_frags: false,
            frag_offset: 0,
        };
        self.id = self.id.wrapping_add(1);
        let (h, u) = p.data_mut().split_at_mut(20);
        ip.emit(&mut Ipv4Packet::new_unchecked(h));
        let mut udp = UdpPacket::new_unchecked(u);
        udp.set_src_port(self.sport);
        udp.set_dst_port(self.dport);
        udp.set_len(ulen as u16);
        udp.set_checksum(0);
        if self.checksum {
            udp.fill_checksum(self.src, self.dst);
        }
        p.set_ip_header(0, 20);
        p.set_dst_ip_anno(self.dst);
        self.count += 1;
        if self.interval > 0 && self.count == self.interval {
            self.sport = self.sport.wrapping_add(1);
            self.dport = self.dport.wrapping_add(1);
            self.count = 0;
        }
        true
    }
}

impl Element for DynamicUDPIPEncap {
    fn class_name(&self) -> &'static str {
        "DynamicUDPIPEncap"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let name = cx.name().to_string();
        let ccx: &ConfigureCx = cx;
        let (mut src, mut dst) = (Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED);
        let (mut sport, mut dport) = (0u16, 0u16);
        let mut checksum = true;
        let mut interval = 0u32;
        let port = |s: &str| {
            parse_port(s, "udp", &name, ccx).ok_or_else(|| "expected port number".to_string())
        };
        Args::new_with(conf, ctx)
            .read_mp("SRC", &mut src)
            .read_mp_with("SPORT", &mut sport, port)
            .read_mp("DST", &mut dst)
            .read_mp_with("DPORT", &mut dport, port)
            .read_p("CHECKSUM", &mut checksum)
            .read_p("INTERVAL", &mut interval)
            .complete()
            .map_err(|e| e.to_string())?;
        *self = DynamicUDPIPEncap {
            src,
            dst,
            sport,
            dport,
            checksum,
            interval,
            ..DynamicUDPIPEncap::default()
        };
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let ok = self.encap(&mut p);
        keep_or_count(&mut self.drops, p, ok)
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click: headers, identification, checksums, and the
    /// ports stepping every INTERVAL packets.
    #[test]
    fn encapsulates_with_moving_ports() {
        let r = testing::run(
            "InfiniteSource(DATA \\<61626364>, LIMIT 5, STOP true)
             -> DynamicUDPIPEncap(1.0.0.1, 1234, 2.0.0.2, 5678, true, 2)
             -> Print(m, 32) -> c :: CheckIPHeader -> u :: CheckUDPHeader -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "m:   32 | 45000020 00000000 fa11bdca 01000001 02000002 04d2162e 000c1d0d 61626364",
                "m:   32 | 45000020 00010000 fa11bdc9 01000001 02000002 04d2162e 000c1d0d 61626364",
                "m:   32 | 45000020 00020000 fa11bdc8 01000001 02000002 04d3162f 000c1d0b 61626364",
                "m:   32 | 45000020 00030000 fa11bdc7 01000001 02000002 04d3162f 000c1d0b 61626364",
                "m:   32 | 45000020 00040000 fa11bdc6 01000001 02000002 04d41630 000c1d09 61626364",
            ]
        );
        assert_eq!(testing::read(&r, "c.drops"), "0");
        assert_eq!(testing::read(&r, "u.drops"), "0");
    }

    /// Checked against Click: CHECKSUM false leaves zero; errors.
    #[test]
    fn no_checksum_and_errors() {
        let r = testing::run(
            "InfiniteSource(DATA \\<61626364>, LIMIT 1, STOP true)
             -> DynamicUDPIPEncap(1.0.0.1, 1234, 2.0.0.2, 5678, false) -> Print(m, 32) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "m:   32 | 45000020 00000000 fa11bdca 01000001 02000002 04d2162e 000c0000 61626364"
            ]
        );
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> DynamicUDPIPEncap({conf}) -> Idle;"),
            &[
                ("1.0.0.1, 1234, 2.0.0.2", "DPORT: required argument missing"),
                ("1.0.0.1, x, 2.0.0.2, 1", "SPORT"),
                ("1.0.0.1, 70000, 2.0.0.2, 1", "SPORT"),
                ("1.0.0.1, 1, 2.0.0.2, 1, false, -1", "INTERVAL"),
            ],
        );
    }
}
