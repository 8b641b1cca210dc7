//! # FromTcpdump
//!
//! `FromTcpdump(FILENAME [, KEYWORDS])`
//!
//! **Category:** traces. Reads packets from the text tcpdump prints.
//!
//! **Ports:** no inputs, one agnostic output. Pushed by a task, or pulled
//! (then it is an empty notifier).
//!
//! ## Description
//!
//! Reads the lines `tcpdump -tt` prints (with `-n` for numeric addresses
//! and ports, or with service names that Click knows) and makes, for each,
//! an IP packet resembling it: a 20-byte IP header, then a TCP header with
//! its options or an 8-byte UDP header (no transport header for other
//! protocols), with the payload left out and counted in the extra length
//! annotation, so the IP length is the original one. FILENAME `-` is the
//! standard input; gzip, bzip2 and xz files are uncompressed through their
//! tools. Lines starting with `#` and empty lines are skipped.
//!
//! Each line is `TIME SRC[.SPORT] > DST[.DPORT]: ...`. What follows the
//! colon decides the protocol: `i...` ICMP, `u...` or `[u...` UDP, `.` or
//! an upper-case letter TCP. TCP lines give flags (`.` for a lone ACK, else
//! letters of `FSRPAUEW`), optionally `[bad hdr ...]`, `[tcp sum ok]` or
//! `[bad tcp ...]`, `SEQ:END(LEN)`, `ack N`, `win N`, `urg N` and options
//! in `<...>` (`nop`, `eol`, `mss N`, `wscale N`, `sackOK`, `timestamp A
//! B`, `sack sack N {A:B}...`); the payload length is END − SEQ. UDP lines
//! give `udp LENGTH`. Parenthesised or bracketed groups at the end of the
//! line give IP fields: `tos 0xN`, `ECT(0)`, `ECT(1)`, `CE`, `DF`, `frag
//! ID:LEN@OFFSET[+]`, `ttl N`, `id N` and `len N` (the IP length; for TCP a
//! longer length than the header and payload account for is taken to be
//! options, filled with EOL).
//!
//! Sequence numbers are made absolute as tcpdump makes them relative: a
//! packet with ACK set starts a flow's record when the flow is new or the
//! packet is a SYN (its sequence number and its acknowledgment minus one);
//! later packets of the flow add the record's initial numbers, unless the
//! first such packet showed the trace already has absolute numbers (an
//! acknowledgment of more than 8000 at or past the initial number). A pure
//! ACK (`SEQ:END` absent) takes the sequence number the flow's last packet
//! in that direction ended at.
//!
//! IP TTL is 2 unless given, the IP ID 0, the header checksums zero unless
//! CHECKSUM. A line that does not parse is skipped; the first one is
//! reported as `FILE:LINE: packet parse error`. At initialization a first
//! line that does not start with a digit gets the warning `first line
//! suspicious; is this a tcpdump output file?`.
//!
//! Keywords:
//!
//! * `STOP` (boolean, default false): stop the driver at the end of the
//!   file.
//! * `ACTIVE` (boolean, default true): emit packets; while false, none.
//! * `ZERO` (boolean, default true): accepted; packet bytes the dump does
//!   not set are always zero here.
//! * `CHECKSUM` (boolean, default false): set the IP, TCP and UDP
//!   checksums (over the bytes present).
//! * `SAMPLE` (real between 0 and 1, default 1, 28 fraction bits): keep
//!   each packet with this probability. More than 1 is reduced to 1 with a
//!   warning; 0 warns that nothing will be emitted.
//!
//! ## Annotations
//!
//! Sets the timestamp, IP header, transport header and extra length
//! annotations.
//!
//! ## Handlers
//!
//! * `sampling_prob` (read): the sampling probability.
//! * `active` (read/write): ACTIVE; a bad value is `syntax error`.
//! * `encap` (read): `IP`.
//! * `filename` (read), `filesize` (read, `-` when unknown), `filepos`
//!   (read): the file, its size and the position read.
//! * `stop` (write): sets `active` false and stops the driver.
//! * `scheduled`, `tickets` (read) with a push output: its task's.
//!
//! ## Differences from Click
//!
//! A flow's last sequence numbers start at zero here (Click leaves them
//! uninitialised, so a pure ACK after a SYN-ACK gets a garbage sequence
//! number there); TCP option space added for a `len` longer than the
//! header is zero past its EOL (Click's holds the previous packet's
//! bytes); ZERO false is not honoured (the bytes are zero).
//!
//! ## Examples
//!
//! ```text
//! FromTcpdump(trace.txt, STOP true) -> ToDump(trace.pcap, ENCAP IP);
//! ```
//!
//! ## See also
//!
//! FromDump, FromIPSummaryDump, tcpdump(1)

// Why this file is long: over 1,000 lines with its manual (90) and tests
// (about 170): the code is about 860 lines, most of it one job, the parser
// that makes a packet of one line of tcpdump's text (its TCP part keeps
// per-flow state to make sequence numbers absolute), which reads as one
// pass over the line and does not divide well.

use std::collections::HashMap;
use std::net::Ipv4Addr;

use rclick_core::args::{parse_ip_addr, parse_real2, service_port, unparse_real2, Args};
use rclick_core::file_source::{FileSource, FileSourceH};
use rclick_core::random::random;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, PacketBatch, TaskId, Timestamp,
};
use rclick_packet::Packet;
use rclick_wire::checksum::{combine, pseudo_header_v4, sum};
use rclick_wire::tcp::option as tcp_option;
use rclick_wire::{IpProtocol, Ipv4Packet, TcpPacket, UdpPacket};

use super::file_input::{print_name, FileInput};

/// Fraction bits of SAMPLE.
const SAMPLING_SHIFT: u32 = 28;
const PROTO_ICMP: u8 = 1;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const TH_FIN: u8 = 0x01;
const TH_SYN: u8 = 0x02;
const TH_ACK: u8 = 0x10;
/// TCP flag letters, bit by bit (Click's IPSummaryDump spelling).
const FLAG_LETTERS: &[u8] = b"FSRPAUEW";

/// Initial and last sequence numbers of a flow, by direction.
#[derive(Default, Clone, Copy)]
struct FlowRecord {
    init_seq: [u32; 2],
    last_seq: [u32; 2],
}

/// A flow: source, source port, destination, destination port.
type FlowKey = (u32, u16, u32, u16);

/// Click's `cp_integer` on a byte string: digits in `base` (0: a `0x`
/// prefix means 16, a leading 0 means 8, else 10) from `i`; returns the
/// value (saturated) and where the digits end (`i` when there are none).
fn integer(s: &[u8], i: usize, base: u32) -> (u32, usize) {
    let mut j = i;
    let mut base = base;
    if base == 0 {
        if s.get(j) == Some(&b'0')
            && matches!(s.get(j + 1), Some(b'x' | b'X'))
            && s.get(j + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            j += 2;
            base = 16;
        } else if s.get(j) == Some(&b'0') {
            base = 8;
        } else {
            base = 10;
        }
    }
    let start = j;
    let mut v: u64 = 0;
    while let Some(d) = s.get(j).and_then(|&c| (c as char).to_digit(base)) {
        v = (v * u64::from(base) + u64::from(d)).min(u64::from(u32::MAX));
        j += 1;
    }
    if j == start {
        return (0, i);
    }
    (v as u32, j)
}

fn digit_at(s: &[u8], i: usize) -> bool {
    s.get(i).is_some_and(u8::is_ascii_digit)
}

fn starts(s: &[u8], i: usize, pat: &[u8]) -> bool {
    s.get(i..).is_some_and(|r| r.starts_with(pat))
}

fn find(s: &[u8], from: usize, c: u8) -> usize {
    s.get(from..)
        .and_then(|r| r.iter().position(|&b| b == c))
        .map_or(s.len(), |k| from + k)
}

/// A port of protocol `proto`: a number up to 65535 or a service name.
fn parse_port(word: &[u8], proto: u8) -> Option<u16> {
    let w = std::str::from_utf8(word).ok()?;
    if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
        return w.parse().ok();
    }
    service_port(w, if proto == PROTO_TCP { "tcp" } else { "udp" })
}

/// The packet under construction: IP header at 0, transport header at 20.
struct Building {
    data: Vec<u8>,
    data_len: i64,
}

impl Building {
    /// The IP header (the packet always has its 20 bytes).
    fn ip(&mut self) -> Ipv4Packet<&mut [u8]> {
        Ipv4Packet::new_unchecked(&mut self.data[..])
    }
    fn ip_ref(&self) -> Ipv4Packet<&[u8]> {
        Ipv4Packet::new_unchecked(&self.data[..])
    }
    /// The TCP header: only while the packet has its first 40 bytes (before
    /// a protocol other than TCP cuts it short). TCP's and UDP's ports are
    /// at the same place, so the ports of both are set through it.
    fn tcp(&mut self) -> TcpPacket<&mut [u8]> {
        TcpPacket::new_unchecked(&mut self.data[20..])
    }
    fn tcp_ref(&self) -> TcpPacket<&[u8]> {
        TcpPacket::new_unchecked(&self.data[20..])
    }
}

/// The FromTcpdump element.
pub struct FromTcpdump {
    filename: String,
    stop: bool,
    checksum: bool,
    sampling_prob: u32,
    input: Option<FileInput>,
    lineno: u64,
    peeked: Option<Vec<u8>>,
    format_complaint: bool,
    dead: bool,
    flows: HashMap<FlowKey, FlowRecord>,
    absolute_seq: Option<bool>,
    /// `active`, `stop` and how the source is woken.
    src: FileSource,
}

impl Default for FromTcpdump {
    fn default() -> Self {
        FromTcpdump {
            filename: String::new(),
            stop: false,
            checksum: false,
            sampling_prob: 1 << SAMPLING_SHIFT,
            input: None,
            lineno: 0,
            peeked: None,
            format_complaint: false,
            dead: false,
            flows: HashMap::new(),
            absolute_seq: None,
            src: FileSource::default(),
        }
    }
}

impl FromTcpdump {
    fn next_line(&mut self) -> Option<Vec<u8>> {
        if let Some(l) = self.peeked.take() {
            self.lineno += 1;
            return Some(l);
        }
        match self.input.as_mut()?.read_line() {
            Ok(Some(l)) => {
                self.lineno += 1;
                Some(l)
            }
            _ => None,
        }
    }

    /// The TCP part, from the flags on; returns where parsing stopped.
    fn read_tcp(&mut self, q: &mut Building, s: &[u8], mut i: usize) -> usize {
        let end = s.len();
        let mut flags: u8 = 0;
        if s.get(i) == Some(&b'.') {
            flags = TH_ACK;
            i += 1;
        } else {
            while let Some(k) = s
                .get(i)
                .and_then(|c| FLAG_LETTERS.iter().position(|l| l == c))
            {
                flags |= 1 << k;
                i += 1;
            }
        }
        q.tcp().set_flags(flags);
        if s.get(i) != Some(&b' ') {
            return i;
        }
        if starts(s, i + 1, b"[bad hdr") {
            let c = find(s, i + 9, b']');
            if c + 1 < end && s[c + 1] == b' ' {
                i = c + 1;
            }
        }
        if starts(s, i + 1, b"[tcp sum ok] ") {
            i += 14;
        } else if starts(s, i + 1, b"[bad tcp") && {
            let c = find(s, i + 9, b']');
            c + 1 < end && s[c + 1] == b' '
        } {
            i = find(s, i + 9, b']') + 2;
        } else {
            i += 1;
        }

        let (mut seq, mut end_seq, mut ack_seq) = (0u32, 0u32, 0u32);
        if i < end && s[i] != b'a' {
            let (v, e) = integer(s, i, 0);
            if e == i || e >= end || s[e] != b':' {
                return i;
            }
            seq = v;
            let (v2, e2) = integer(s, e + 1, 0);
            if e2 == e + 1 || e2 >= end || s[e2] != b'(' {
                return i;
            }
            end_seq = v2;
            let mut k = e2 + 1;
            while digit_at(s, k) {
                k += 1;
            }
            if k >= end || s[k] != b')' {
                return k;
            } else if k + 1 >= end || s[k + 1] != b' ' {
                return k + 1;
            }
            i = k + 2;
        }
        q.data_len = i64::from(end_seq.wrapping_sub(seq) as i32);

        if starts(s, i, b"ack ") && digit_at(s, i + 4) {
            flags |= TH_ACK;
            let (v, e) = integer(s, i + 4, 0);
            ack_seq = v;
            i = e;
            if s.get(i) == Some(&b' ') {
                i += 1;
            }
        }
        q.tcp().set_flags(flags);

        // Sequence numbers made absolute, as tcpdump made them relative.
        let mut record_init: Option<u32> = None;
        if flags & TH_ACK != 0 {
            let (ip, tcp) = (q.ip_ref(), q.tcp_ref());
            let (src, dst) = (u32::from(ip.src_addr()), u32::from(ip.dst_addr()));
            let (sport, dport) = (tcp.src_port(), tcp.dst_port());
            let rev = sport < dport || (sport == dport && src.swap_bytes() < dst.swap_bytes());
            let key = if rev {
                (src, sport, dst, dport)
            } else {
                (dst, dport, src, sport)
            };
            let (r, o) = (usize::from(rev), usize::from(!rev));
            let fresh = !self.flows.contains_key(&key);
            let rec = self.flows.entry(key).or_default();
            if (fresh || (rec.init_seq[0] == 0 && rec.init_seq[1] == 0)) || flags & TH_SYN != 0 {
                rec.init_seq[r] = seq;
                rec.init_seq[o] = ack_seq.wrapping_sub(1);
            } else {
                let absolute = *self.absolute_seq.get_or_insert(
                    (ack_seq.wrapping_sub(rec.init_seq[o]) as i32) >= 0 && ack_seq > 8000,
                );
                if seq == 0 && end_seq == 0 {
                    seq = rec.last_seq[r];
                    end_seq = seq;
                } else if !absolute {
                    seq = seq.wrapping_add(rec.init_seq[r]);
                    end_seq = end_seq.wrapping_add(rec.init_seq[r]);
                }
                if !absolute {
                    ack_seq = ack_seq.wrapping_add(rec.init_seq[o]);
                }
            }
            rec.last_seq[r] = end_seq
                .wrapping_add(u32::from(flags & TH_SYN != 0))
                .wrapping_add(u32::from(flags & TH_FIN != 0));
            if rec.last_seq[o] == 0 {
                rec.last_seq[o] = ack_seq;
            }
            if self.absolute_seq != Some(true) {
                record_init = Some(rec.init_seq[o]);
            }
        }
        q.tcp().set_seq_number(seq);
        q.tcp().set_ack_number(ack_seq);

        if starts(s, i, b"win ") && digit_at(s, i + 4) {
            let (v, e) = integer(s, i + 4, 0);
            q.tcp().set_window_len(v as u16);
            i = e;
            if s.get(i) == Some(&b' ') {
                i += 1;
            }
        }
        if starts(s, i, b"urg ") && digit_at(s, i + 4) {
            let (v, e) = integer(s, i + 4, 0);
            q.tcp().set_urgent_at(v as u16);
            i = e;
            // As Click: steps over a character that is not a space.
            if i < end && s[i] != b' ' {
                i += 1;
            }
        }

        let mut opt: Vec<u8> = Vec::new();
        if s.get(i) == Some(&b'<') {
            i += 1;
            while i < end && s[i] != b'>' {
                let before = opt.len();
                if starts(s, i, b"nop") {
                    opt.push(1);
                    i += 3;
                } else if starts(s, i, b"eol") {
                    opt.push(0);
                    i += 3;
                } else if starts(s, i, b"mss ") && digit_at(s, i + 4) {
                    let (v, e) = integer(s, i + 4, 0);
                    opt.extend_from_slice(&[2, 4, (v >> 8) as u8, v as u8]);
                    i = e;
                } else if starts(s, i, b"wscale ") && digit_at(s, i + 7) {
                    let (v, e) = integer(s, i + 7, 0);
                    opt.extend_from_slice(&[3, 3, v as u8]);
                    i = e;
                } else if starts(s, i, b"sackOK") {
                    opt.extend_from_slice(&[4, 2]);
                    i += 6;
                } else if starts(s, i, b"timestamp ") && digit_at(s, i + 10) {
                    let (a, e) = integer(s, i + 10, 0);
                    i = e;
                    if s.get(i) == Some(&b' ') && digit_at(s, i + 1) {
                        let (b, e) = integer(s, i + 1, 0);
                        i = e;
                        tcp_option::push_timestamps(&mut opt, a, b);
                    }
                } else if starts(s, i, b"sack sack ") && digit_at(s, i + 10) {
                    let (n, e) = integer(s, i + 10, 0);
                    i = e;
                    opt.extend_from_slice(&[5, n.wrapping_mul(8).wrapping_add(2) as u8]);
                    while s.get(i) == Some(&b' ') {
                        i += 1;
                    }
                    while s.get(i) == Some(&b'{') && digit_at(s, i + 1) {
                        let (mut a, e) = integer(s, i + 1, 0);
                        i = e;
                        if s.get(i) == Some(&b':') && digit_at(s, i + 1) {
                            let (mut b, e) = integer(s, i + 1, 0);
                            i = e;
                            if s.get(i) == Some(&b'}') {
                                i += 1;
                                if let Some(init) = record_init {
                                    a = a.wrapping_add(init);
                                    b = b.wrapping_add(init);
                                }
                                tcp_option::push_sack_block(&mut opt, a, b);
                            }
                        }
                    }
                    while s.get(i) == Some(&b' ') {
                        i += 1;
                    }
                }
                if s.get(i) == Some(&b',') {
                    i += 1;
                } else if i < end && s[i] != b'>' {
                    // Not the option it seemed: drop it, skip to the next.
                    opt.truncate(before);
                    while i < end && s[i] != b',' && s[i] != b'>' {
                        i += 1;
                    }
                }
            }
            if s.get(i) == Some(&b'>') {
                i += 1;
            }
            while !opt.len().is_multiple_of(4) {
                opt.push(0);
            }
            // The data offset field has 4 bits: at most 40 option bytes.
            opt.truncate(40);
            q.data.extend_from_slice(&opt);
            q.tcp().set_header_len((20 + opt.len()) as u8);
        } else {
            q.tcp().set_header_len(20);
        }
        i
    }

    /// The UDP part; returns where parsing stopped.
    fn read_udp(q: &mut Building, s: &[u8], mut i: usize) -> usize {
        let end = s.len();
        // As Click, the bracketed notes are looked for one character on.
        if starts(s, i + 1, b"[bad hdr") {
            let c = find(s, i + 9, b']');
            if c + 1 < end && s[c + 1] == b' ' {
                i = c + 1;
            }
        }
        if starts(s, i + 1, b"[udp sum ok] ") {
            i += 14;
        } else if starts(s, i + 1, b"[bad udp") {
            let c = find(s, i + 9, b']');
            if c + 1 < end && s[c + 1] == b' ' {
                i = c + 2;
            }
        }
        if starts(s, i, b"udp ") && digit_at(s, i + 4) {
            let (v, e) = integer(s, i + 4, 0);
            q.data_len = i64::from(v);
            i = e;
        }
        i
    }

    /// Parses one line into a packet; `None` for a line that is not a
    /// packet.
    fn parse_line(&mut self, s: &[u8]) -> Option<Packet> {
        let end = s.len();
        let mut q = Building {
            data: vec![0u8; 40],
            data_len: -1,
        };
        q.ip().set_version(4);
        q.ip().set_header_len(20);
        q.ip().set_ttl(2);

        let sp = find(s, 0, b' ');
        let ts: Timestamp = std::str::from_utf8(&s[..sp]).ok()?.parse().ok()?;
        let mut i = (sp + 1).min(end);

        let mut colon = find(s, i, b':') + 1;
        while colon < end && s[colon] == b' ' {
            colon += 1;
        }
        let mut proto = 0u8;
        if colon < end {
            let c = s[colon];
            if c == b'i' {
                proto = PROTO_ICMP;
            } else if c == b'u' || (c == b'[' && s.get(colon + 1) == Some(&b'u')) {
                proto = PROTO_UDP;
            } else if c == b'.' || c.is_ascii_uppercase() {
                proto = PROTO_TCP;
            }
        }
        q.ip().set_protocol(IpProtocol(proto));
        let ported = proto == PROTO_TCP || proto == PROTO_UDP;

        // Source address and port.
        let s2 = find(s, i, b' ');
        if s2 == i || s2 + 2 >= end || s[s2 + 1] != b'>' || s[s2 + 2] != b' ' {
            return None;
        }
        let (src, sport) = Self::addr_port(&s[i..s2], ported, proto)?;
        q.ip().set_src_addr(Ipv4Addr::from(src));
        q.tcp().set_src_port(sport);
        i = s2 + 3;

        // Destination address and port.
        let s2 = find(s, i, b':');
        let (dst, dport) = Self::addr_port(&s[i..s2.min(end)], ported, proto)?;
        q.ip().set_dst_addr(Ipv4Addr::from(dst));
        q.tcp().set_dst_port(dport);

        let first_frag = true;
        let mut i = if proto == PROTO_TCP && first_frag {
            self.read_tcp(&mut q, s, colon.min(end))
        } else if proto == PROTO_UDP && first_frag {
            let k = Self::read_udp(&mut q, s, colon.min(end));
            q.data.truncate(28);
            k
        } else {
            q.data.truncate(20);
            colon.min(end)
        };

        // IP fields in the groups at the end of the line.
        let mut s2 = end;
        while s2 > i {
            let mut k = s2 - 1;
            while k > i && s[k].is_ascii_whitespace() {
                k -= 1;
            }
            if k <= i || (s[k] != b')' && s[k] != b']') {
                break;
            }
            let opener = if s[k] == b')' { b'(' } else { b'[' };
            let close = k;
            let mut open = close;
            let mut found = false;
            while open > i {
                open -= 1;
                if s[open] == opener {
                    found = true;
                    break;
                }
            }
            if !found {
                break;
            }
            s2 = open;
            self.ip_items(&mut q, s, open + 1, close);
        }
        i = i.min(end);
        let _ = i;

        let data_len = u32::try_from(q.data_len.max(0)).unwrap_or(0);
        let total = (q.data.len() as u32).wrapping_add(data_len);
        q.ip().set_total_len(total as u16);
        if proto == PROTO_UDP && q.data.len() >= 28 {
            UdpPacket::new_unchecked(&mut q.data[20..]).set_len((total as u16).wrapping_sub(20));
        }
        if self.checksum {
            set_checksums(&mut q.data);
        }
        let mut p = Packet::make(0, &q.data, 0);
        p.set_ip_header(0, 20);
        if q.data.len() > 20 {
            p.set_transport_header(20);
        }
        p.set_timestamp_anno(ts);
        p.set_extra_length_anno(data_len);
        Some(p)
    }

    /// `ADDR` or, for TCP and UDP, `ADDR.PORT` (the port after the last
    /// `.` or `:`).
    fn addr_port(w: &[u8], ported: bool, proto: u8) -> Option<(u32, u16)> {
        let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_string);
        if !ported {
            let a = parse_ip_addr(&text(w)?).ok()?;
            return Some((u32::from(a), 0));
        }
        let mut m = w.len().checked_sub(1)?;
        while m > 0 && w[m] != b'.' && w[m] != b':' {
            m -= 1;
        }
        let a = parse_ip_addr(&text(&w[..m])?).ok()?;
        let port = parse_port(w.get(m + 1..)?, proto)?;
        Some((u32::from(a), port))
    }

    /// One parenthesised group of IP fields, `s[from..close]`.
    fn ip_items(&self, q: &mut Building, s: &[u8], from: usize, close: usize) {
        let mut it = from;
        while it < close {
            let left = close - it;
            if left >= 7 && starts(s, it, b"tos 0x") {
                let (v, e) = integer(&s[..close], it + 6, 16);
                q.ip().set_tos(v as u8);
                it = e.max(it + 6);
            } else if left >= 6
                && starts(s, it, b"ECT(")
                && matches!(s[it + 4], b'0' | b'1')
                && s[it + 5] == b')'
            {
                q.ip().set_ecn(if s[it + 4] == b'0' { 1 } else { 2 });
                it += 6;
            } else if left >= 2 && starts(s, it, b"CE") {
                q.ip().set_ecn(3);
                it += 2;
            } else if left >= 2 && starts(s, it, b"DF") {
                q.ip().set_dont_frag(true);
                it += 2;
            } else if left >= 10 && starts(s, it, b"frag ") && digit_at(s, it + 5) {
                let c = &s[..close];
                let (id, e) = integer(c, it + 5, 0);
                q.ip().set_ident(id as u16);
                it = e;
                if it + 2 > close || c[it] != b':' || !digit_at(c, it + 1) {
                    break;
                }
                let (len, e) = integer(c, it + 1, 0);
                q.data_len = i64::from(len);
                it = e;
                if it + 2 > close || c[it] != b'@' || !digit_at(c, it + 1) {
                    break;
                }
                let (off, e) = integer(c, it + 1, 0);
                let flags = q.ip_ref().flags_frag_offset() & !0x1fff;
                q.ip().set_flags_frag_offset(flags | (off as u16 & 0x1fff));
                it = e;
                if it < close && c[it] == b'+' {
                    q.ip().set_more_frags(true);
                    it += 1;
                }
            } else if left >= 5 && starts(s, it, b"ttl ") && digit_at(s, it + 4) {
                let (v, e) = integer(&s[..close], it + 4, 0);
                q.ip().set_ttl(v as u8);
                it = e;
            } else if left >= 4 && starts(s, it, b"id ") && digit_at(s, it + 3) {
                let (v, e) = integer(&s[..close], it + 3, 0);
                q.ip().set_ident(v as u16);
                it = e;
            } else if left >= 5 && starts(s, it, b"len ") && digit_at(s, it + 4) {
                let (u, e) = integer(&s[..close], it + 4, 0);
                it = e;
                let have = q.data.len() as i64;
                let u = i64::from(u);
                if q.data_len < 0 || u == have + q.data_len {
                    q.data_len = u - have;
                } else if q.ip_ref().protocol() == IpProtocol(PROTO_TCP) {
                    // The difference must be TCP options.
                    let header = (u - q.data_len).clamp(40, 60) as usize;
                    let delta = header as i64 - have;
                    q.data.resize(header, 0);
                    q.tcp().set_header_len((header - 20) as u8);
                    if delta > 0 {
                        q.data[header - delta as usize] = 0;
                    }
                }
            } else {
                break;
            }
            while it < close && (s[it] == b',' || s[it].is_ascii_whitespace()) {
                it += 1;
            }
        }
    }

    /// Reads lines until one makes a packet, or the end of the file.
    fn read_packet(&mut self, cx: &Ctx) -> Option<Packet> {
        loop {
            let Some(line) = self.next_line() else {
                self.dead = true;
                return None;
            };
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            if line[0].is_ascii_digit() {
                if let Some(p) = self.parse_line(&line) {
                    return Some(p);
                }
            }
            if !self.format_complaint && !line.iter().all(|c| c.is_ascii_whitespace()) {
                cx.log(format!(
                    "{}:{}: packet parse error",
                    print_name(&self.filename),
                    self.lineno
                ));
                self.format_complaint = true;
            }
            return None;
        }
    }

    fn sampled(&self) -> bool {
        self.sampling_prob >= 1 << SAMPLING_SHIFT
            || (random() & ((1 << SAMPLING_SHIFT) - 1)) < self.sampling_prob
    }

    /// The next packet to emit: `Ok(Some)`, `Ok(None)` for a skipped line,
    /// `Err(())` at the end of the file.
    fn next_packet(&mut self, cx: &mut Ctx) -> Result<Option<Packet>, ()> {
        loop {
            let p = self.read_packet(cx);
            if self.dead {
                if self.stop {
                    cx.request_stop();
                }
                return Err(());
            }
            if self.sampled() {
                return Ok(p);
            }
        }
    }
}

/// Click's `set_checksums`: the IP header, then TCP or UDP over the bytes
/// present (not for fragments).
fn set_checksums(d: &mut [u8]) {
    if d.len() < 20 {
        return;
    }
    let (d, th) = d.split_at_mut(20);
    let mut ip = Ipv4Packet::new_unchecked(d);
    ip.fill_checksum_over(20);
    let frag = ip.flags_frag_offset() & 0x3fff != 0;
    let proto = ip.protocol().0;
    let tcp = match proto {
        PROTO_TCP if th.len() >= 20 => true,
        PROTO_UDP if th.len() >= 8 => false,
        _ => return,
    };
    if frag {
        return;
    }
    // the transport checksum, 0 while summing
    let set = |th: &mut [u8], c: u16| {
        if tcp {
            TcpPacket::new_unchecked(th).set_checksum(c);
        } else {
            UdpPacket::new_unchecked(th).set_checksum(c);
        }
    };
    set(th, 0);
    let ph = pseudo_header_v4(ip.src_addr(), ip.dst_addr(), proto, th.len() as u16);
    let s = combine(&[ph, sum(th)]);
    set(th, !s);
}

impl Element for FromTcpdump {
    fn class_name(&self) -> &'static str {
        "FromTcpdump"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut filename = String::new();
        let (mut stop, mut active, mut zero, mut checksum) = (false, true, true, false);
        let mut sample: u32 = 1 << SAMPLING_SHIFT;
        Args::new(conf)
            .read_mp("FILENAME", &mut filename)
            .read("STOP", &mut stop)
            .read("ACTIVE", &mut active)
            .read("ZERO", &mut zero)
            .read("CHECKSUM", &mut checksum)
            .read_with("SAMPLE", &mut sample, |s| parse_real2(s, SAMPLING_SHIFT))
            .complete()
            .map_err(|e| e.to_string())?;
        if sample > 1 << SAMPLING_SHIFT {
            cx.warning("SAMPLE probability reduced to 1");
            sample = 1 << SAMPLING_SHIFT;
        } else if sample == 0 {
            cx.warning("SAMPLE probability is 0; emitting no packets");
        }
        let _ = zero;
        self.filename = filename;
        self.stop = stop;
        self.src.active = active;
        self.checksum = checksum;
        self.sampling_prob = sample;
        self.dead = false;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let mut input = FileInput::open(&self.filename)?;
        let first = input.read_line().map_err(|e| input.error(&e.to_string()))?;
        self.input = Some(input);
        if !first
            .as_ref()
            .is_some_and(|l| l.first().is_some_and(u8::is_ascii_digit))
        {
            // Click's wording: the file name as the warning's landmark.
            let info = cx.element_info(cx.id());
            let head = format!(
                "{}: While initializing '{}':",
                info.landmark,
                info.declaration()
            );
            cx.log(head);
            cx.log(format!(
                "{}:   warning: first line suspicious; is this a tcpdump output file?",
                print_name(&self.filename)
            ));
        }
        self.peeked = first;
        self.lineno = 0;
        self.format_complaint = false;
        self.src.initialize(cx);
        Ok(())
    }
    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.input = None;
    }
    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.src.active {
            return false;
        }
        match self.next_packet(cx) {
            Err(()) => false,
            Ok(p) => {
                if let Some(p) = p {
                    cx.push(0, PacketBatch::from(p));
                }
                cx.reschedule();
                true
            }
        }
    }
    fn pull(&mut self, _port: usize, _max: usize, cx: &mut Ctx) -> PacketBatch {
        if !self.src.active {
            return PacketBatch::new();
        }
        match self.next_packet(cx) {
            Err(()) => {
                self.src.notifier.set_active(false);
                PacketBatch::new()
            }
            Ok(p) => {
                let n = self.src.notifier.clone();
                cx.wake_notifier(&n);
                p.map(PacketBatch::from).unwrap_or_default()
            }
        }
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        self.src.pull_mode.then(|| self.src.notifier.clone())
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        FileSourceH::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let h = FileSourceH::from_id(id).ok_or("no such handler")?;
        if let Some(v) = self.src.read(h) {
            return Ok(v);
        }
        Ok(match h {
            FileSourceH::SamplingProb => {
                unparse_real2(u64::from(self.sampling_prob), SAMPLING_SHIFT)
            }
            FileSourceH::Encap => "IP".into(),
            FileSourceH::Filename => self.filename.clone(),
            FileSourceH::Filesize => self
                .input
                .as_ref()
                .and_then(FileInput::size)
                .map_or_else(|| "-".into(), |s| s.to_string()),
            FileSourceH::Filepos => self
                .input
                .as_ref()
                .map_or(0, FileInput::position)
                .to_string(),
            FileSourceH::Active | FileSourceH::Stop => return Err("no such handler".into()),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let h = FileSourceH::from_id(id).ok_or("no such handler")?;
        self.src.write(h, value, "syntax error", cx)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::registry;
    use rclick_core::testing;

    fn with_ip() -> rclick_core::Registry {
        let mut r = registry();
        rclick_elements_ip::register(&mut r);
        r
    }

    fn file(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("rclick-fromtcpdump-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    const TRACE: &str = "\
1000000000.000001 10.0.0.1.1234 > 10.0.0.2.80: S 1000:1000(0) win 8192 <mss 1460,nop,wscale 2,sackOK,timestamp 10 0> (DF)
1000000000.000100 10.0.0.2.80 > 10.0.0.1.1234: S 5000:5000(0) ack 1001 win 8192
1000000000.000300 10.0.0.1.1234 > 10.0.0.2.80: P 1:101(100) ack 1 win 8192 (ttl 64, id 7)
# a comment
1000000000.000350 10.0.0.2.80 > 10.0.0.1.1234: . ack 101 win 8192 <nop,nop,sack sack 1 {1:50} >
1000000000.000400 10.0.0.1.53 > 10.0.0.2.53: udp 40 (ttl 64, id 5)
1000000000.000450 10.0.0.1.53 > 10.0.0.2.53: [udp sum ok] udp 12 [tos 0x10,ECT(0)]
1000000000.000500 10.0.0.1 > 10.0.0.2: icmp: echo request (ttl 64, id 7, len 84)
1000000000.000600 10.0.0.1.1234 > 10.0.0.2.80: F 101:101(0) ack 1 win 8192 (frag 99:20@0+)
1000000000.000800 10.0.0.1.http > 10.0.0.2.domain: udp 4
1000000000.000900 10.0.0.1.www > 10.0.0.2.domain: udp 4
";

    /// The packets the reference Click makes of these lines, byte for
    /// byte (Print with TIMESTAMP), and its one parse-error line.
    #[test]
    fn packets_as_the_reference() {
        let f = file("t1", TRACE);
        let r = testing::run(
            &format!("FromTcpdump({f}, STOP true) -> Print(a, 80, TIMESTAMP true) -> Discard;"),
            &registry(),
        )
        .unwrap();
        let mut log = r.take_log();
        // `http` is a TCP service only (in the usual /etc/services).
        let err = log.iter().position(|l| l.contains("packet parse error"));
        if let Some(e) = err {
            assert_eq!(log.remove(e), format!("{f}:10: packet parse error"));
        }
        let want = [
            "a: 1000000000.000001:   60 | 4500003c 00004000 02060000 0a000001 0a000002 04d20050 000003e8 00000000 a0022000 00000000 020405b4 01030302 0402080a 0000000a 00000000",
            "a: 1000000000.000100:   40 | 45000028 00000000 02060000 0a000002 0a000001 005004d2 00001388 000003e9 50122000 00000000",
            "a: 1000000000.000300:   40 | 4500008c 00070000 40060000 0a000001 0a000002 04d20050 000003e9 00001389 50182000 00000000",
            "a: 1000000000.000350:   52 | 45000034 00000000 02060000 0a000002 0a000001 005004d2 00001389 0000044d 80102000 00000000 0101050a 000003e9 0000041a",
            "a: 1000000000.000400:   28 | 45000044 00050000 40110000 0a000001 0a000002 00350035 00300000",
            "a: 1000000000.000450:   28 | 4511001c 00000000 02110000 0a000001 0a000002 00350035 00080000",
            "a: 1000000000.000500:   20 | 45000054 00070000 40010000 0a000001 0a000002",
            "a: 1000000000.000600:   40 | 4500003c 00632000 02060000 0a000001 0a000002 04d20050 0000044d 00001389 50112000 00000000",
        ];
        assert_eq!(&log[..want.len()], want);
        assert_eq!(
            log.last().unwrap(),
            "a: 1000000000.000900:   28 | 45000020 00000000 02110000 0a000001 0a000002 00500035 000c0000"
        );
    }

    /// Checksums verify; `len` longer than the TCP header and payload
    /// becomes EOL-filled options; a pure ACK after a SYN-ACK takes the
    /// flow's last sequence number (zero-initialised here).
    #[test]
    fn checksums_options_and_pure_acks() {
        let f = file(
            "t2",
            "1.5 10.0.0.1.1234 > 10.0.0.2.80: R 102:102(0) win 0 urg 5 (DF, ttl 3, len 52)\n\
             2.5 10.0.0.2.80 > 10.0.0.1.1234: S 5000:5000(0) ack 1001 win 8192\n\
             3.5 10.0.0.1.1234 > 10.0.0.2.80: . ack 1 win 8192\n",
        );
        let r = testing::run(
            &format!(
                "FromTcpdump({f}, STOP true, CHECKSUM true) -> Print(a, 60) -> c :: CheckIPHeader -> t :: CheckTCPHeader -> Discard;"
            ),
            &with_ip(),
        )
        .unwrap();
        let log = r.take_log();
        // The reference's: its bytes past the EOL are left from the
        // previous packet (zero here), so only the IP checksum can agree.
        assert!(
            log[0].starts_with(
                "a:   52 | 45000034 00004000 030663c2 0a000001 0a000002 04d20050 00000066 00000000 80040000 "
            ),
            "{}",
            log[0]
        );
        assert!(
            log[0].ends_with(" 0005 00000000 00000000 00000000")
                || log[0].contains("0005 00000000 00000000 00000000"),
            "{}",
            log[0]
        );
        assert_eq!(
            log[1],
            "a:   40 | 45000028 00000000 0206a4ce 0a000002 0a000001 005004d2 00001388 000003e9 50122000 5f3d0000"
        );
        // The pure ACK: the flow's last sequence number, 1001 (Click's is
        // uninitialised memory).
        assert!(
            log[2].contains("04d20050 000003e9 00001389 5010"),
            "{}",
            log[2]
        );
        assert_eq!(testing::read(&r, "c.drops"), "0");
        assert_eq!(testing::read(&r, "t.drops"), "0");
    }

    /// Bad lines: the first is reported with its line number, the others
    /// silently skipped; a suspicious first line warns at initialization;
    /// SAMPLE and handlers.
    #[test]
    fn bad_lines_warnings_and_handlers() {
        let f = file(
            "t3",
            "1.0 10.0.0.1.1 > 10.0.0.2.2: S 1:1(0) win 1\nnot tcpdump\n2.0 10.0.0.1.1 > 10.0.0.2.2: S 1:1(0) win 1\n3.0 garbage > : .\n",
        );
        let r = testing::run(
            &format!("s :: FromTcpdump({f}, STOP true) -> c :: Counter -> Discard;"),
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), [format!("{f}:2: packet parse error")]);
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert_eq!(testing::read(&r, "s.encap"), "IP");
        assert_eq!(testing::read(&r, "s.sampling_prob"), "1");
        let size = std::fs::metadata(&f).unwrap().len().to_string();
        assert_eq!(testing::read(&r, "s.filesize"), size);
        assert!(r
            .write_handler("s.active", "maybe")
            .unwrap_err()
            .contains("syntax error"));
        let g = file("t4", "hello\n1.0 10.0.0.1.1 > 10.0.0.2.2: S 1:1(0) win 1\n");
        let r = testing::run(
            &format!("s :: FromTcpdump({g}, STOP true, SAMPLE 0.5) -> c :: Counter -> Discard;"),
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert!(
            log.iter()
                .any(|l| l.contains("first line suspicious; is this a tcpdump output file?")),
            "{log:?}"
        );
        assert_eq!(testing::read(&r, "s.sampling_prob"), "0.5");
        let e = testing::build("FromTcpdump(/nonexistent/x) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("No such file or directory"), "{e}");
        let e = testing::build("FromTcpdump() -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("FILENAME: required argument missing"), "{e}");
    }

    /// Pulled: one packet a pull, then the notifier sleeps.
    #[test]
    fn pull_mode() {
        let f = file("t5", TRACE);
        let r = testing::run(
            &format!("FromTcpdump({f}, STOP true) -> Unqueue -> c :: Counter -> Discard;"),
            &registry(),
        )
        .unwrap();
        assert!(testing::read(&r, "c.count").parse::<u32>().unwrap() >= 9);
    }
}
