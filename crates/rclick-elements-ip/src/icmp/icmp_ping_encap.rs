//! # ICMPPingEncap
//!
//! `ICMPPingEncap(SRC, DST [, IDENTIFIER id])`
//!
//! **Category:** icmp. Encapsulates packets in ICMP ping headers.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends to each packet a 20-byte IP header (source SRC, destination
//! DST, TTL 255, protocol ICMP) and an 8-byte ICMP echo request header.
//! The ICMP sequence number starts at 1 and advances by one for each packet
//! (skipping 0 when it wraps); the IP ID field carries the same value. Both
//! checksums are computed. The packet's data becomes the echo payload.
//!
//! Keywords:
//!
//! * `SRC` (IP address, mandatory): source address.
//! * `DST` (IP address, mandatory): destination address.
//! * `IDENTIFIER` (16-bit integer): the ICMP identifier. Default 0.
//!
//! The identifier and sequence number are written in network byte order.
//!
//! ## Annotations
//!
//! Sets the destination IP annotation to DST and the IP header annotation.
//!
//! ## Handlers
//!
//! * `src` (read/write): SRC.
//! * `dst` (read/write): DST.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource(LIMIT 2) -> ICMPPingEncap(1.0.0.1, 2.0.0.2, IDENTIFIER 3) -> ...
//! ```
//!
//! ## See also
//!
//! ICMPIPEncap, ICMPPingResponder

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef};
use rclick_packet::Packet;
use rclick_wire::icmp::types;

use super::icmp_ip_encap::{AddrH, IcmpEncapState};

/// The ICMPPingEncap element.
#[derive(Default)]
pub struct IcmpPingEncap {
    state: IcmpEncapState,
}

impl Element for IcmpPingEncap {
    fn class_name(&self) -> &'static str {
        "ICMPPingEncap"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut src, mut dst, mut ident) = (Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED, 0u16);
        Args::new_with(conf, cx.arg_context())
            .read_mp("SRC", &mut src)
            .read_mp("DST", &mut dst)
            .read("IDENTIFIER", &mut ident)
            .complete()
            .map_err(|e| e.to_string())?;
        self.state.src = src;
        self.state.dst = dst;
        self.state.ident = ident;
        Ok(())
    }

    /// An echo request, code 0.
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.state.encap_next(p, types::ECHO, 0)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        AddrH::all_defs()
    }

    fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        self.state.read_handler(id)
    }

    fn write_handler(&mut self, id: u32, value: &str, _: &mut Ctx) -> Result<(), String> {
        self.state.write_handler(id, value)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use rclick_wire::{IcmpPacket, Ipv4Packet};

    #[test]
    fn encapsulates_echo_requests() {
        let conf = "InfiniteSource(DATA \\<0102>, LIMIT 2, STOP true) -> e :: ICMPPingEncap(1.0.0.1, 2.0.0.2, IDENTIFIER 3) -> s :: TestSink;";
        let r = rclick_core::testing::run(conf, &reg()).unwrap();
        let out = rclick_core::testing::read(&r, "s.data");
        let pkts: Vec<Vec<u8>> = out.lines().map(unhex).collect();
        assert_eq!(pkts.len(), 2);
        for (i, q) in pkts.iter().enumerate() {
            let ip = Ipv4Packet::new_checked(&q[..]).unwrap();
            assert!(ip.verify_checksum());
            assert_eq!(ip.total_len(), 30);
            assert_eq!(ip.ttl(), 255);
            assert_eq!(ip.ident() as usize, i + 1);
            assert_eq!(ip.src_addr().octets(), [1, 0, 0, 1]);
            let ic = IcmpPacket::new_checked(ip.payload()).unwrap();
            assert!(ic.verify_checksum());
            assert_eq!(
                (ic.icmp_type(), ic.echo_ident(), ic.echo_seq_no() as usize),
                (8, 3, i + 1)
            );
            assert_eq!(ic.data(), &[1, 2]);
        }
        assert_eq!(rclick_core::testing::read(&r, "e.dst"), "2.0.0.2");
        r.write_handler("e.dst", "3.0.0.3").unwrap();
        assert_eq!(rclick_core::testing::read(&r, "e.dst"), "3.0.0.3");
        assert!(r.write_handler("e.src", "bogus").is_err());
    }
}
