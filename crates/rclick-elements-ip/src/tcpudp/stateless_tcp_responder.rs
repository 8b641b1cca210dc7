//! # StatelessTCPResponder
//!
//! `StatelessTCPResponder(DATA [, keywords])`
//!
//! **Category:** tcpudp. Serves fixed data over TCP without keeping state.
//!
//! **Ports:** one push input; output 0 push (responses), optional output 1
//! push (packets that are not TCP).
//!
//! ## Description
//!
//! Answers TCP connections by sending DATA and closing, remembering
//! nothing between packets: everything it needs is in the sequence number
//! it chose, which the client's acknowledgments carry back. Its initial
//! sequence number for a connection is `(MSS << 16) + (SPORT << 8)`
//! (wrapping), where MSS is the client's maximum segment size (536 when
//! the SYN has no MSS option; at least 20) and SPORT the client's port; an
//! acknowledgment number minus `SPORT << 8` gives back MSS (high 16 bits)
//! and the position in the stream (low 16 bits: 1 is DATA's first byte,
//! the byte after DATA is the FIN).
//!
//! * A SYN gets a SYN-ACK with an MSS option of 1460.
//! * An ACK acknowledging position P gets the segment starting at P, at
//!   most MSS bytes (and at most the client's window), with FIN when it
//!   reaches DATA's end; the FIN itself once DATA is acknowledged; a bare
//!   ACK once the FIN is.
//! * A FIN is acknowledged (position unchanged).
//! * RST segments are absorbed (counted in `resets`); other segments
//!   (SYN-ACK, no ACK flag, an acknowledgment that does not decode) are
//!   dropped and counted in `bad`.
//!
//! Input packets need their IP header annotation (CheckIPHeader or
//! MarkIPHeader). Packets that are not TCP, later fragments and truncated
//! TCP headers go to output 1 if it exists, else are dropped and counted in
//! `drops`. Responses are bare IP packets (TTL 200, IP IDs counting up by
//! 2, window 65535) with their IP header annotation set and their
//! destination annotation set to the client.
//!
//! This class exists in Click's source only as an unfinished sketch (not
//! built, with no manual); this one follows the sketch's design: the
//! sequence-number encoding, the MSS option, TTL and IP ID. Where the sketch
//! acknowledges the client's sequence number itself, this one acknowledges
//! the client's SYN, data and FIN as RFC 9293 requires, so real TCP stacks
//! can talk to it.
//!
//! Keywords:
//!
//! * `DATA` (string): what to send, at most 65533 bytes. Required.
//!
//! ## Handlers
//!
//! * `data` (read): DATA.
//! * `responses`, `resets`, `bad`, `drops` (read): counters. `drops`
//!   counts every packet that left on no output: absorbed segments (RSTs,
//!   which `resets` also counts; bad ones, which `bad` also counts; bare
//!   acknowledgments that need no answer) and packets that are not TCP
//!   when there is no output 1.
//!
//! ## Example
//!
//! ```text
//! FromDevice(eth0) -> Strip(14) -> CheckIPHeader -> IPClassifier(tcp dst port 80)
//!   -> StatelessTCPResponder("HTTP/1.0 200 OK\r\n\r\nhello\n")
//!   -> EtherEncap(0x0800, 00:00:5e:00:53:01, 00:00:5e:00:53:02) -> ToDevice(eth0)
//! ```
//!
//! ## See also
//!
//! TCPIPSend, ICMPPingResponder

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::{tcp, IpProtocol, Ipv4Packet, Ipv4Repr, TcpPacket};

const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const FIN: u8 = 0x01;
const ACK: u8 = 0x10;

/// The longest DATA: positions are 16 bits and two are taken by SYN and
/// FIN.
const MAX_DATA: usize = 0xFFFF - 2;

rclick_core::handlers! {
    /// StatelessTCPResponder's handlers (the manual's list).
    enum H {
        Data = read("data"),
        Responses = read("responses"),
        Resets = read("resets"),
        Bad = read("bad"),
        Drops = read("drops"),
    }
}

/// The StatelessTCPResponder element.
#[derive(Default)]
pub struct StatelessTCPResponder {
    data: Vec<u8>,
    ip_id: u16,
    responses: u64,
    resets: u64,
    bad: u64,
    drops: u64,
}

/// What a client segment says.
struct Segment {
    src: Ipv4Addr,
    dst: Ipv4Addr,
    sport: u16,
    dport: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
    payload_len: u32,
    mss: Option<u16>,
}

/// Reads the TCP segment of `p` (IP header annotation set); `None` if it is
/// not a first-fragment TCP segment with a whole header.
fn parse(p: &Packet) -> Option<Segment> {
    let ip = Ipv4Packet::new_checked(p.ip_header()?).ok()?;
    if ip.protocol() != IpProtocol::TCP || ip.frag_offset() != 0 {
        return None;
    }
    let hl = usize::from(ip.header_len());
    let ip_bytes = p.ip_header()?;
    let total = usize::from(ip.total_len()).min(ip_bytes.len());
    let tcp_bytes = ip_bytes.get(hl..total)?;
    let tcp = TcpPacket::new_checked(tcp_bytes).ok()?;
    let thl = usize::from(tcp.header_len());
    let options = tcp_bytes.get(20..thl.min(tcp_bytes.len())).unwrap_or(&[]);
    Some(Segment {
        src: ip.src_addr(),
        dst: ip.dst_addr(),
        sport: tcp.src_port(),
        dport: tcp.dst_port(),
        seq: tcp.seq_number(),
        ack: tcp.ack_number(),
        flags: tcp.flags(),
        window: tcp.window_len(),
        payload_len: tcp_bytes.len().saturating_sub(thl) as u32,
        mss: tcp::mss_option(options),
    })
}

impl StatelessTCPResponder {
    /// The response to `s`, or `None` to absorb it (counted).
    fn respond(&mut self, s: &Segment) -> Option<Packet> {
        if s.flags & RST != 0 {
            self.resets += 1;
            return None;
        }
        let sport_part = u32::from(s.sport) << 8;
        let end = self.data.len() as u32 + 2; // the position after the FIN
        let (our_seq, mss, pos, syn) = if s.flags & (SYN | ACK) == SYN {
            let mss = u32::from(s.mss.unwrap_or(536).max(20));
            ((mss << 16).wrapping_add(sport_part), 0, 0, true)
        } else if s.flags & (SYN | ACK) == ACK {
            let base = s.ack.wrapping_sub(sport_part);
            let (mss, pos) = (base >> 16, base & 0xFFFF);
            if mss < 20 || pos == 0 || pos > end {
                self.bad += 1;
                return None;
            }
            let mss = mss.min(u32::from(s.window));
            (s.ack, mss.min(end - pos), pos, false)
        } else {
            self.bad += 1;
            return None;
        };
        // what we acknowledge: everything the client sent, SYN and FIN
        // counting one
        let their_len = s.payload_len + u32::from(s.flags & (SYN | FIN) != 0);
        let our_ack = s.seq.wrapping_add(their_len);
        let mut flags = if syn { SYN | ACK } else { ACK };
        let mut nbytes = mss;
        if !syn && pos < end && pos + mss == end {
            flags |= FIN;
            nbytes -= 1;
        }
        // a pure acknowledgment of nothing new needs no answer
        if !syn && nbytes == 0 && flags & FIN == 0 && their_len == 0 {
            return None;
        }
        let from = (pos.saturating_sub(1) as usize).min(self.data.len());
        let to = (from + nbytes as usize).min(self.data.len());
        Some(self.packet(s, our_seq, our_ack, flags, syn, from..to))
    }

    fn packet(
        &mut self,
        s: &Segment,
        seq: u32,
        ack: u32,
        flags: u8,
        syn: bool,
        payload: std::ops::Range<usize>,
    ) -> Packet {
        let thl = if syn { 24 } else { 20 };
        let tcp_len = thl + payload.len();
        let payload = &self.data[payload];
        let mut p = Packet::make_zeroed(0, 20 + tcp_len, 0);
        let (ip, tcp) = p.data_mut().split_at_mut(20);
        Ipv4Repr {
            src_addr: s.dst,
            dst_addr: s.src,
            protocol: IpProtocol::TCP,
            payload_len: tcp_len,
            ttl: 200,
            tos: 0,
            ident: self.ip_id,
            dont_frag: false,
            more_frags: false,
            frag_offset: 0,
        }
        .emit(&mut Ipv4Packet::new_unchecked(ip));
        tcp[thl..].copy_from_slice(payload);
        if syn {
            tcp[20..24].copy_from_slice(&[2, 4, (1460u16 >> 8) as u8, (1460 & 0xFF) as u8]);
        }
        let mut t = TcpPacket::new_unchecked(tcp);
        t.set_src_port(s.dport);
        t.set_dst_port(s.sport);
        t.set_seq_number(seq);
        t.set_ack_number(ack);
        t.set_header_len(thl as u8);
        t.set_flags(flags);
        t.set_window_len(0xFFFF);
        t.fill_checksum(s.dst, s.src);
        p.set_ip_header(0, 20);
        p.set_dst_ip_anno(s.src);
        self.ip_id = self.ip_id.wrapping_add(2);
        self.responses += 1;
        p
    }
}

impl Element for StatelessTCPResponder {
    fn class_name(&self) -> &'static str {
        "StatelessTCPResponder"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut data = String::new();
        Args::new(conf)
            .read_mp("DATA", &mut data)
            .complete()
            .map_err(|e| e.to_string())?;
        if data.len() > MAX_DATA {
            return Err(format!("DATA: longer than {MAX_DATA} bytes"));
        }
        self.data = data.into_bytes();
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mut out = PacketBatch::new();
        let mut other = PacketBatch::new();
        for p in batch {
            match parse(&p) {
                Some(s) => match self.respond(&s) {
                    Some(r) => out.push(r),
                    // Absorbed: counted in `drops` (and by reason).
                    None => self.drops += 1,
                },
                None => other.push(p),
            }
        }
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !other.is_empty() {
            if cx.noutputs() > 1 {
                cx.push(1, other);
            } else {
                self.drops += other.len() as u64;
            }
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Data) => String::from_utf8_lossy(&self.data).into_owned(),
            Some(H::Responses) => self.responses.to_string(),
            Some(H::Resets) => self.resets.to_string(),
            Some(H::Bad) => self.bad.to_string(),
            Some(H::Drops) => self.drops.to_string(),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{parse, Segment, StatelessTCPResponder};
    use rclick_core::Packet;
    use rclick_wire::tcp::mss_option as find_mss;
    use rclick_wire::{IpProtocol, Ipv4Packet, Ipv4Repr, TcpPacket};
    use std::net::Ipv4Addr;

    const CLIENT: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
    const SERVER: Ipv4Addr = Ipv4Addr::new(198, 51, 100, 1);

    /// A client segment from port 40000 to 80.
    fn seg(seq: u32, ack: u32, flags: u8, opts: &[u8], payload: &[u8]) -> Packet {
        let thl = 20 + opts.len();
        let len = 20 + thl + payload.len();
        let mut p = Packet::make_zeroed(0, len, 0);
        let (ip, tcp) = p.data_mut().split_at_mut(20);
        Ipv4Repr {
            src_addr: CLIENT,
            dst_addr: SERVER,
            protocol: IpProtocol::TCP,
            payload_len: thl + payload.len(),
            ttl: 64,
            tos: 0,
            ident: 1,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
        }
        .emit(&mut Ipv4Packet::new_unchecked(ip));
        tcp[20..thl].copy_from_slice(opts);
        tcp[thl..].copy_from_slice(payload);
        let mut t = TcpPacket::new_unchecked(tcp);
        t.set_src_port(40000);
        t.set_dst_port(80);
        t.set_seq_number(seq);
        t.set_ack_number(ack);
        t.set_header_len(thl as u8);
        t.set_flags(flags);
        t.set_window_len(1000);
        t.fill_checksum(CLIENT, SERVER);
        p.set_ip_header(0, 20);
        p
    }

    fn reply(r: &mut StatelessTCPResponder, p: &Packet) -> Option<Segment> {
        let s = parse(p).expect("a TCP segment");
        r.respond(&s).map(|q| {
            let ip = Ipv4Packet::new_checked(q.data()).unwrap();
            assert!(ip.verify_checksum());
            assert_eq!(ip.ttl(), 200);
            let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
            assert!(tcp.verify_checksum(SERVER, CLIENT));
            parse(&q).unwrap()
        })
    }

    fn responder(data: &str) -> StatelessTCPResponder {
        StatelessTCPResponder {
            data: data.as_bytes().to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn serves_data_then_fin() {
        // 45 bytes
        let mut r = responder("The quick brown fox jumps over the lazy dog..");
        // SYN with MSS 20
        let sa = reply(&mut r, &seg(1000, 0, 0x02, &[2, 4, 0, 20], &[])).unwrap();
        assert_eq!(sa.flags, 0x12);
        assert_eq!(sa.ack, 1001);
        assert_eq!(sa.seq, (20 << 16) + (40000 << 8));
        assert_eq!(sa.mss, Some(1460));
        assert_eq!(
            (sa.src, sa.dst, sa.sport, sa.dport),
            (SERVER, CLIENT, 80, 40000)
        );
        // ACK of the SYN: the first 20 bytes
        let d1 = reply(&mut r, &seg(1001, sa.seq + 1, 0x10, &[], &[])).unwrap();
        assert_eq!((d1.seq, d1.flags, d1.payload_len), (sa.seq + 1, 0x10, 20));
        let d2 = reply(&mut r, &seg(1001, sa.seq + 21, 0x10, &[], &[])).unwrap();
        assert_eq!((d2.flags, d2.payload_len), (0x10, 20));
        // the last 5 bytes and the FIN
        let d3 = reply(&mut r, &seg(1001, sa.seq + 41, 0x10, &[], &[])).unwrap();
        assert_eq!((d3.flags, d3.payload_len), (0x11, 5));
        // the client's FIN, acknowledging ours: a bare ACK of it
        let last = reply(&mut r, &seg(1001, sa.seq + 47, 0x11, &[], &[])).unwrap();
        assert_eq!((last.flags, last.ack, last.payload_len), (0x10, 1002, 0));
        // a pure ACK of everything: no answer
        assert!(reply(&mut r, &seg(1002, sa.seq + 47, 0x10, &[], &[])).is_none());
        // a MSS option below 20 counts as 20
        let sa = reply(&mut r, &seg(1000, 0, 0x02, &[2, 4, 0, 5], &[])).unwrap();
        assert_eq!(sa.seq, (20 << 16) + (40000 << 8));
        assert_eq!(r.responses, 6);
    }

    #[test]
    fn data_from_client_is_acknowledged() {
        let mut r = responder("ok");
        let sa = reply(&mut r, &seg(7, 0, 0x02, &[], &[])).unwrap();
        assert_eq!(sa.seq, (536 << 16) + (40000 << 8));
        let d = reply(&mut r, &seg(8, sa.seq + 1, 0x18, &[], b"GET /\r\n")).unwrap();
        assert_eq!((d.ack, d.flags, d.payload_len), (15, 0x11, 2));
    }

    #[test]
    fn resets_and_bad_segments() {
        let mut r = responder("x");
        assert!(reply(&mut r, &seg(1, 0, 0x04, &[], &[])).is_none());
        assert!(reply(&mut r, &seg(1, 5, 0x12, &[], &[])).is_none());
        assert!(reply(&mut r, &seg(1, 5, 0x00, &[], &[])).is_none());
        // an acknowledgment that decodes to MSS < 20
        assert!(reply(&mut r, &seg(1, 40000 << 8, 0x10, &[], &[])).is_none());
        assert_eq!((r.resets, r.bad, r.responses), (1, 3, 0));
    }

    #[test]
    fn options() {
        assert_eq!(find_mss(&[1, 1, 2, 4, 5, 0xb4]), Some(1460));
        assert_eq!(find_mss(&[0, 2, 4, 5, 0xb4]), None);
        assert_eq!(find_mss(&[3, 3, 7, 2, 4, 1, 0]), Some(256));
        assert_eq!(find_mss(&[3, 9, 7]), None);
        assert_eq!(find_mss(&[3]), None);
    }

    #[test]
    fn end_to_end_and_non_tcp() {
        use crate::ip::test_util::registry;
        use rclick_core::testing;
        let mut reg = registry();
        crate::tcpudp::register(&mut reg);
        let r = testing::run(
            "t :: TCPIPSend -> s :: StatelessTCPResponder(DATA hi)
               -> CheckIPHeader -> c :: CheckTCPHeader -> n :: Counter -> Discard;
             InfiniteSource(LIMIT 2, STOP true) -> MarkIPHeader -> s;
             s[1] -> o :: Counter -> Discard;
             DriverManager(write t.send 192.0.2.1 4000 198.51.100.1 80 5 0 2, wait 0.1, stop);",
            &reg,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "n.count"), "1");
        assert_eq!(testing::read(&r, "o.count"), "2");
        assert_eq!(testing::read(&r, "s.data"), "hi");
    }
}
