//! # TCPIPSend
//!
//! `TCPIPSend()`
//!
//! **Category:** tcp. Sends a TCP/IP packet when told to.
//!
//! **Ports:** no inputs, one push output.
//!
//! ## Description
//!
//! Each write to the `send` handler pushes one 40-byte TCP/IP packet: no
//! options, no data, identification 0, don't-fragment set, TTL 255, window
//! 32120, both checksums filled in, and the IP header annotation set.
//! The handler takes seven space-separated words, `SRC SPORT DST DPORT
//! SEQNO ACKNO FLAGS`: the addresses, the ports (numbers or well-known
//! service names such as `www`), the sequence and acknowledgment numbers
//! (unsigned 32-bit), and the TCP flags byte (0 to 255; 2 is SYN, 18
//! SYN-ACK).
//!
//! An address is an IP address, or, as Click reads it, an unsigned
//! integer whose bytes in little-endian order are the address's
//! (16777217 is 1.0.0.1).
//!
//! ## Handlers
//!
//! * `send` (write): sends a packet.
//!
//! ## Differences from Click
//!
//! Click takes the addresses only as integers (its argument parser reads
//! them as numbers and copies the machine's bytes); dotted addresses are
//! accepted here too. PortInfo names are not looked up by the handler.
//!
//! ## Examples
//!
//! ```text
//! t :: TCPIPSend -> ToDump(out.pcap);
//! // write t.send 1.0.0.1 1234 2.0.0.2 80 1 0 2
//! ```
//!
//! ## See also
//!
//! FastTCPFlows, IPEncap

use std::net::Ipv4Addr;

use rclick_core::args::{FromArg, NoContext};
use rclick_core::confparse::split_space;
use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::{IpProtocol, Ipv4Packet, Ipv4Repr, TcpPacket};

use crate::ip::port_info::well_known_port;

/// The TCPIPSend element.
#[derive(Default)]
pub struct TCPIPSend;

/// What a `send` write asks for.
struct Segment {
    src: Ipv4Addr,
    sport: u16,
    dst: Ipv4Addr,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
}

/// An address: dotted, or Click's integer.
fn parse_addr(s: &str) -> Result<Ipv4Addr, String> {
    if let Ok(a) = Ipv4Addr::from_arg(s, &NoContext) {
        return Ok(a);
    }
    u32::from_arg(s, &NoContext)
        .map(|v| Ipv4Addr::from(v.to_le_bytes()))
        .map_err(|_| "expected IP address".to_string())
}

fn parse_port(s: &str) -> Result<u16, String> {
    u16::from_arg(s, &NoContext)
        .ok()
        .or_else(|| well_known_port(s, "tcp"))
        .ok_or_else(|| "expected port number".to_string())
}

impl Segment {
    fn parse(text: &str) -> Result<Segment, String> {
        let words = split_space(text.trim());
        let names = ["SRC", "SPORT", "DST", "DPORT", "SEQNO", "ACKNO", "FLAGS"];
        let mut errors = Vec::new();
        for name in names.iter().skip(words.len()) {
            errors.push(format!("{name}: required argument missing"));
        }
        if words.len() > names.len() {
            errors.push("too many arguments".to_string());
        }
        let word = |i: usize| words.get(i).map(String::as_str).unwrap_or("0");
        let mut check = |i: usize, r: Result<(), String>| {
            if let (Err(e), true) = (r, i < words.len()) {
                errors.push(format!("{}: {e}", names[i]));
            }
        };
        let src = parse_addr(word(0));
        check(0, src.as_ref().map(|_| ()).map_err(Clone::clone));
        let sport = parse_port(word(1));
        check(1, sport.as_ref().map(|_| ()).map_err(Clone::clone));
        let dst = parse_addr(word(2));
        check(2, dst.as_ref().map(|_| ()).map_err(Clone::clone));
        let dport = parse_port(word(3));
        check(3, dport.as_ref().map(|_| ()).map_err(Clone::clone));
        let seq = u32::from_arg(word(4), &NoContext);
        check(4, seq.as_ref().map(|_| ()).map_err(Clone::clone));
        let ack = u32::from_arg(word(5), &NoContext);
        check(5, ack.as_ref().map(|_| ()).map_err(Clone::clone));
        let flags = u8::from_arg(word(6), &NoContext);
        check(6, flags.as_ref().map(|_| ()).map_err(Clone::clone));
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        Ok(Segment {
            src: src?,
            sport: sport?,
            dst: dst?,
            dport: dport?,
            seq: seq?,
            ack: ack?,
            flags: flags?,
        })
    }

    fn packet(&self) -> Packet {
        let mut p = Packet::make_zeroed(0, 40, 0);
        let (ip, tcp) = p.data_mut().split_at_mut(20);
        Ipv4Repr {
            src_addr: self.src,
            dst_addr: self.dst,
            protocol: IpProtocol::TCP,
            payload_len: 20,
            ttl: 255,
            tos: 0,
            ident: 0,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
        }
        .emit(&mut Ipv4Packet::new_unchecked(ip));
        let mut t = TcpPacket::new_unchecked(tcp);
        t.set_src_port(self.sport);
        t.set_dst_port(self.dport);
        t.set_seq_number(self.seq);
        t.set_ack_number(self.ack);
        t.set_header_len(20);
        t.set_flags(self.flags);
        t.set_window_len(32120);
        t.fill_checksum(self.src, self.dst);
        p.set_ip_header(0, 20);
        p
    }
}

rclick_core::handlers! {
    /// TCPIPSend's handlers (the manual's list).
    enum H {
        Send = write("send"),
    }
}

impl Element for TCPIPSend {
    fn class_name(&self) -> &'static str {
        "TCPIPSend"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn write_handler(&mut self, _id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let seg = Segment::parse(value)?;
        cx.push(0, PacketBatch::from(seg.packet()));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click (with its integer addresses).
    #[test]
    fn sends_packets_like_click() {
        let r = testing::run(
            "t :: TCPIPSend -> Print(m, 40) -> CheckIPHeader -> c :: CheckTCPHeader -> Discard;
             DriverManager(write t.send 16777217 1234 33554434 80 7 9 18,
                           write t.send 1.0.0.1 www 2.0.0.2 80 1 2 255, stop);",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "m:   40 | 45000028 00004000 ff0678cd 01000001 02000002 04d20050 00000007 00000009 50127d78 2a260000",
                "m:   40 | 45000028 00004000 ff0678cd 01000001 02000002 00500050 00000001 00000002 50ff7d78 2dc80000",
            ]
        );
        assert_eq!(testing::read(&r, "c.drops"), "0");
    }

    /// Checked against Click: the missing words and the flag range.
    #[test]
    fn bad_writes() {
        let r = testing::build("t :: TCPIPSend -> Discard;", &registry(), true).unwrap();
        let e = r.write_handler("t.send", "1.0.0.1 1").unwrap_err();
        for missing in ["DST", "DPORT", "SEQNO", "ACKNO", "FLAGS"] {
            assert!(
                e.contains(&format!("{missing}: required argument missing")),
                "{e}"
            );
        }
        let e = r
            .write_handler("t.send", "1.0.0.1 1 2.0.0.2 2 3 4 300")
            .unwrap_err();
        assert!(e.contains("FLAGS"), "{e}");
        assert!(r.write_handler("t.send", "x 1 2.0.0.2 2 3 4 5").is_err());
        assert!(testing::build("TCPIPSend(1) -> Discard;", &registry(), true).is_err());
    }
}
