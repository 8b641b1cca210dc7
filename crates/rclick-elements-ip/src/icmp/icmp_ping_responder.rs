//! # ICMPPingResponder
//!
//! `ICMPPingResponder()`
//!
//! **Category:** icmp. Responds to ICMP echo requests.
//!
//! **Ports:** one input, one or two outputs. Input and output 0 agnostic,
//! output 1 push.
//!
//! ## Description
//!
//! Turns each ICMP echo request into the matching echo reply, in place:
//! swaps the IP source and destination, clears the fragment field, sets
//! the TTL to 255, changes the ICMP type to echo-reply (code 0), and
//! updates both checksums. The reply leaves on output 0.
//!
//! Input packets must have their IP header annotation set (for example by
//! CheckIPHeader or MarkIPHeader). Packets that are not ICMP echo requests
//! (or are too short to be one) leave on output 1 if it exists, and are
//! dropped otherwise.
//!
//! ## Annotations
//!
//! Sets the reply's destination IP annotation to its new destination, its
//! timestamp to now, and clears its paint annotation; other annotations
//! are kept.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> ICMPPingResponder -> ... ;
//! ```
//!
//! ## See also
//!
//! ICMPPingEncap, ICMPError

use rclick_core::{Ctx, Element, PacketBatch};
use rclick_packet::Packet;
use std::net::Ipv4Addr;

use rclick_wire::checksum::update_u16;
use rclick_wire::icmp::types;
use rclick_wire::{IcmpPacket, Ipv4Packet};

/// The ICMPPingResponder element.
#[derive(Default)]
pub struct IcmpPingResponder;

impl IcmpPingResponder {
    /// Whether `p` is an ICMP echo request with a full 8-byte ICMP header.
    fn is_echo(p: &Packet) -> bool {
        let Some(h) = p.network_header() else {
            return false;
        };
        let Some(th) = p.transport_header() else {
            return false;
        };
        h.len() >= 20 && h[9] == 1 && th.len() >= 8 && th[0] == types::ECHO
    }

    /// Rewrites an echo request (already checked) into its reply.
    fn respond(mut q: Packet, now: rclick_packet::Timestamp) -> Packet {
        let mut new_dst = Ipv4Addr::UNSPECIFIED;
        if let Some(iph) = q.network_header_mut() {
            let mut ip = Ipv4Packet::new_unchecked(iph);
            let mut sum = ip.checksum();
            // Swapping the addresses keeps the checksum valid.
            let (src, dst) = (ip.src_addr(), ip.dst_addr());
            ip.set_src_addr(dst);
            ip.set_dst_addr(src);
            new_dst = src;
            sum = update_u16(sum, ip.flags_frag_offset(), 0);
            ip.set_flags_frag_offset(0);
            // TTL and protocol share a checksum word.
            let proto = u16::from(ip.protocol().0);
            sum = update_u16(sum, u16::from(ip.ttl()) << 8 | proto, 255 << 8 | proto);
            ip.set_ttl(255);
            ip.set_checksum(sum);
        }
        if let Some(th) = q.transport_header_mut() {
            let mut icmp = IcmpPacket::new_unchecked(th);
            let old = u16::from(icmp.icmp_type()) << 8 | u16::from(icmp.code());
            icmp.set_icmp_type(types::ECHO_REPLY);
            icmp.set_code(0);
            let sum = update_u16(icmp.checksum(), old, u16::from(types::ECHO_REPLY) << 8);
            // The incremental update cannot tell 0x0000 from 0xffff (both
            // are zero in one's complement); recompute in those cases.
            if sum == 0 || sum == 0xffff {
                icmp.fill_checksum();
            } else {
                icmp.set_checksum(sum);
            }
        }
        q.set_dst_ip_anno(new_dst);
        q.set_timestamp_anno(now);
        q.set_paint_anno(0);
        q
    }
}

impl Element for IcmpPingResponder {
    fn class_name(&self) -> &'static str {
        "ICMPPingResponder"
    }

    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let now = cx.now();
        let mut out = PacketBatch::with_capacity(batch.len());
        let mut other = PacketBatch::new();
        for p in batch {
            if Self::is_echo(&p) {
                out.push(Self::respond(p, now));
            } else {
                other.push(p);
            }
        }
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !other.is_empty() && cx.noutputs() > 1 {
            cx.push(1, other);
        }
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if Self::is_echo(&p) {
            Some(Self::respond(p, cx.now()))
        } else {
            if cx.noutputs() > 1 {
                cx.push_one(1, p);
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use rclick_wire::{IcmpPacket, Ipv4Packet};

    #[test]
    fn replies_to_echo() {
        let mut icmp = [8, 0, 0, 0, 0, 3, 0, 0, 9, 9];
        let c = rclick_wire::checksum::internet_checksum(&icmp);
        icmp[2..4].copy_from_slice(&c.to_be_bytes());
        let echo = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &icmp);
        let out = run_one(&echo, "", "ICMPPingResponder");
        assert_eq!(out.len(), 1);
        let q = unhex(&out[0]);
        let ip = Ipv4Packet::new_checked(&q[..]).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!(ip.src_addr().octets(), [2, 0, 0, 2]);
        assert_eq!(ip.dst_addr().octets(), [1, 0, 0, 1]);
        assert_eq!(ip.ttl(), 255);
        let ic = IcmpPacket::new_checked(ip.payload()).unwrap();
        assert_eq!(ic.icmp_type(), 0);
        assert!(ic.verify_checksum());
    }

    #[test]
    fn others_to_output_1_or_dropped() {
        let udp = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 17, &[0; 8]);
        assert!(run_one(&udp, "", "ICMPPingResponder").is_empty());
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 2, STOP true) -> TestMarkIP -> r :: ICMPPingResponder -> Discard; r[1] -> c :: Counter -> Discard;",
            hex_data(&udp)
        );
        let r = rclick_core::testing::run(&conf, &reg()).unwrap();
        assert_eq!(rclick_core::testing::read(&r, "c.count"), "2");
        // Too short to be an echo.
        let short = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &[8, 0, 0]);
        assert!(run_one(&short, "", "ICMPPingResponder").is_empty());
    }
}
