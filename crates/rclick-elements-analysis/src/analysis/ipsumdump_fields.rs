//! The IP summary dump field table shared by FromIPSummaryDump and
//! ToIPSummaryDump: field names and synonyms, parsing a field's text and
//! injecting it into a packet under construction, and extracting a field
//! from a packet and printing it (Click's `ipsumdump_*.cc`).

use std::fmt::Write as _;
use std::net::Ipv4Addr;

use rclick_packet::{Packet, Timestamp};
use rclick_wire::checksum;
use rclick_wire::icmp;

/// The dump format's major version.
pub const MAJOR_VERSION: i32 = 1;
/// The dump format's minor version.
pub const MINOR_VERSION: i32 = 3;

const PROTO_ICMP: u8 = 1;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_DCCP: u8 = 33;
const PROTO_UDPLITE: u8 = 136;

/// One summary dump field.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    None,
    Timestamp,
    NTimestamp,
    TsSec,
    TsUsec,
    TsUsec1,
    FirstTimestamp,
    FirstNTimestamp,
    Count,
    Link,
    Paint,
    Direction,
    Aggregate,
    WireLen,
    IpSrc,
    IpDst,
    IpTos,
    IpDscp,
    IpEcn,
    IpTtl,
    IpFrag,
    IpFragoff,
    IpId,
    IpSum,
    IpProto,
    IpHl,
    IpLen,
    IpCaptureLen,
    IpOpt,
    Sport,
    Dport,
    TcpSeq,
    TcpAck,
    TcpOff,
    TcpFlags,
    TcpWindow,
    TcpUrp,
    TcpOpt,
    TcpNtopt,
    TcpSack,
    UdpLen,
    IcmpType,
    IcmpCode,
    IcmpTypeName,
    IcmpCodeName,
    IcmpFlowid,
    IcmpSeq,
    IcmpNextmtu,
    PayloadLen,
    Payload,
    PayloadMd5,
    PayloadMd5Hex,
}

/// (name, field, reader order or `None` when the field cannot be read)
const TABLE: &[(&str, Field, Option<i32>)] = &[
    ("timestamp", Field::Timestamp, Some(100)),
    ("ntimestamp", Field::NTimestamp, Some(100)),
    ("ts_sec", Field::TsSec, Some(100)),
    ("ts_usec", Field::TsUsec, Some(100)),
    ("ts_usec1", Field::TsUsec1, Some(100)),
    ("first_timestamp", Field::FirstTimestamp, Some(100)),
    ("first_ntimestamp", Field::FirstNTimestamp, Some(100)),
    ("count", Field::Count, Some(100)),
    ("link", Field::Link, Some(100)),
    ("paint", Field::Paint, Some(100)),
    ("direction", Field::Direction, Some(100)),
    ("aggregate", Field::Aggregate, Some(100)),
    ("wire_len", Field::WireLen, Some(100)),
    ("ip_src", Field::IpSrc, Some(300)),
    ("ip_dst", Field::IpDst, Some(300)),
    ("ip_tos", Field::IpTos, Some(300)),
    ("ip_dscp", Field::IpDscp, Some(300)),
    ("ip_ecn", Field::IpEcn, Some(300)),
    ("ip_ttl", Field::IpTtl, Some(300)),
    ("ip_frag", Field::IpFrag, Some(298)),
    ("ip_fragoff", Field::IpFragoff, Some(299)),
    ("ip_id", Field::IpId, Some(300)),
    ("ip_sum", Field::IpSum, Some(302)),
    ("ip_proto", Field::IpProto, Some(300)),
    ("ip_hl", Field::IpHl, Some(299)),
    ("ip_len", Field::IpLen, Some(301)),
    ("ip_capture_len", Field::IpCaptureLen, Some(502)),
    ("ip_opt", Field::IpOpt, Some(300)),
    ("sport", Field::Sport, Some(400)),
    ("dport", Field::Dport, Some(400)),
    ("tcp_seq", Field::TcpSeq, Some(400)),
    ("tcp_ack", Field::TcpAck, Some(400)),
    ("tcp_off", Field::TcpOff, Some(399)),
    ("tcp_flags", Field::TcpFlags, Some(400)),
    ("tcp_window", Field::TcpWindow, Some(400)),
    ("tcp_urp", Field::TcpUrp, Some(400)),
    ("tcp_opt", Field::TcpOpt, Some(403)),
    ("tcp_ntopt", Field::TcpNtopt, Some(402)),
    ("tcp_sack", Field::TcpSack, Some(401)),
    ("udp_len", Field::UdpLen, Some(400)),
    ("icmp_type", Field::IcmpType, Some(400)),
    ("icmp_code", Field::IcmpCode, Some(401)),
    ("icmp_type_name", Field::IcmpTypeName, Some(400)),
    ("icmp_code_name", Field::IcmpCodeName, Some(401)),
    ("icmp_flowid", Field::IcmpFlowid, Some(402)),
    ("icmp_seq", Field::IcmpSeq, Some(402)),
    ("icmp_nextmtu", Field::IcmpNextmtu, Some(402)),
    ("payload_len", Field::PayloadLen, Some(501)),
    ("payload", Field::Payload, Some(500)),
    ("payload_md5", Field::PayloadMd5, None),
    ("payload_md5_hex", Field::PayloadMd5Hex, None),
];

const SYNONYMS: &[(&str, &str)] = &[
    ("length", "ip_len"),
    ("ip_p", "ip_proto"),
    ("tcp_seqno", "tcp_seq"),
    ("tcp_ackno", "tcp_ack"),
    ("tcp_win", "tcp_window"),
    ("utimestamp", "timestamp"),
    ("ts", "utimestamp"),
    ("sec", "ts_sec"),
    ("usec", "ts_usec"),
    ("usec1", "ts_usec1"),
    ("first_utimestamp", "first_timestamp"),
    ("first_ts", "first_utimestamp"),
    ("pkt_count", "count"),
    ("packet_count", "count"),
    ("agg", "aggregate"),
    ("wire_length", "wire_len"),
    ("payload_length", "payload_len"),
];

impl Field {
    /// The field called `name` (synonyms, `X` for `ip_X`, and spaces for
    /// underscores accepted, as Click does).
    pub fn find(name: &str) -> Option<Field> {
        Self::find_depth(name, 0)
    }

    fn find_depth(name: &str, depth: u32) -> Option<Field> {
        if depth > 8 {
            return None;
        }
        if let Some(&(_, syn)) = SYNONYMS.iter().find(|(n, _)| *n == name) {
            return Self::find_depth(syn, depth + 1);
        }
        if let Some(&(_, f, _)) = TABLE.iter().find(|(n, _, _)| *n == name) {
            return Some(f);
        }
        if let Some(i) = name.find(' ') {
            let n = format!("{}_{}", &name[..i], &name[i + 1..]);
            return Self::find_depth(&n, depth + 1);
        }
        if !name.contains('_') && !name.is_empty() {
            return Self::find_depth(&format!("ip_{name}"), depth + 1);
        }
        None
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(_, f, _)| *f == self)
            .map(|(n, _, _)| *n)
            .unwrap_or("none")
    }

    /// The reader order (fields are injected in increasing order), or
    /// `None` if the field is ignored on input.
    pub fn read_order(self) -> Option<i32> {
        TABLE
            .iter()
            .find(|(_, f, _)| *f == self)
            .and_then(|(_, _, o)| *o)
    }

    /// Whether writing the field looks at the IP headers.
    pub fn needs_ip(self) -> bool {
        !matches!(
            self,
            Field::None
                | Field::Timestamp
                | Field::NTimestamp
                | Field::TsSec
                | Field::TsUsec
                | Field::TsUsec1
                | Field::FirstTimestamp
                | Field::FirstNTimestamp
                | Field::Count
                | Field::Link
                | Field::Paint
                | Field::Direction
                | Field::Aggregate
                | Field::WireLen
        )
    }
}

/// A default flow identifier (`!flowid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowId {
    /// Source address.
    pub src: Ipv4Addr,
    /// Source port.
    pub sport: u16,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Destination port.
    pub dport: u16,
}

// ---------------------------------------------------------------------------
// Small parsers

/// Click's `IntArg` for unsigned 32-bit values.
pub fn parse_u32(s: &str) -> Option<u32> {
    parse_u64(s).and_then(|v| u32::try_from(v).ok())
}

/// Click's `IntArg` for unsigned 64-bit values (decimal, `0x`, leading-0 octal).
pub fn parse_u64(s: &str) -> Option<u64> {
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(&digits, radix).ok()
}

/// Click's `cp_integer` prefix parse: reads digits at the start of `s` in
/// `base` (0 means detect); returns the value (saturated) and the rest.
fn prefix_int(s: &[u8], base: u32) -> (Option<u32>, &[u8]) {
    let (mut p, radix) = if base == 0 {
        if s.len() > 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') && s[2].is_ascii_hexdigit()
        {
            (2, 16)
        } else if s.len() > 1 && s[0] == b'0' && s[1].is_ascii_digit() {
            (1, 8)
        } else {
            (0, 10)
        }
    } else {
        (0, base)
    };
    let start = p;
    let mut v: u64 = 0;
    while p < s.len() {
        match (s[p] as char).to_digit(radix) {
            Some(d) => {
                v = (v * radix as u64 + d as u64).min(u64::from(u32::MAX) + 1);
                p += 1;
            }
            None => break,
        }
    }
    if p == start {
        if start > 0 {
            // "0" followed by something: the zero itself
            return (Some(0), &s[1..]);
        }
        return (None, s);
    }
    (Some(v.min(u64::from(u32::MAX)) as u32), &s[p..])
}

/// Parses a Click time value (`SEC[.FRAC]`, possibly negative).
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    s.parse::<Timestamp>().ok()
}

/// Prints a timestamp as Click does: six fraction digits, nine when the
/// value has sub-microsecond precision.
pub fn write_timestamp(out: &mut String, t: Timestamp) {
    if !t.subsec_nsec().is_multiple_of(1000) {
        let _ = write!(out, "{}", t.display_nsec());
    } else {
        let _ = write!(out, "{t}");
    }
}

/// Click's `cp_quote` over bytes.
pub fn quote_bytes(out: &mut String, s: &[u8]) {
    out.push('"');
    for &c in s {
        match c {
            b'\\' | b'"' | b'$' => {
                out.push('\\');
                out.push(c as char);
            }
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'\n' => out.push_str("\\n"),
            c if !(32..127).contains(&c) => {
                let _ = write!(out, "\\{:03o}", c);
            }
            c => out.push(c as char),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------
// Injection: building packets from text

/// A parsed field value.
#[derive(Clone, Debug)]
pub enum Val {
    /// A number.
    U(u32),
    /// A 64-bit number.
    U64(u64),
    /// A time.
    Ts(Timestamp),
    /// Bytes (options, payload); empty means "none".
    Bytes(Vec<u8>),
}

/// A packet under construction (Click's `PacketOdesc`). The network header,
/// when present, starts at offset 0.
pub struct Odesc<'a> {
    /// Packet bytes.
    pub buf: Vec<u8>,
    /// Whether an IP header exists.
    pub has_ip: bool,
    /// Transport header offset.
    pub th: usize,
    /// Wanted total length.
    pub want_len: u32,
    have_icmp_type: bool,
    have_icmp_code: bool,
    have_ip_hl: bool,
    have_tcp_hl: bool,
    default_proto: u8,
    /// The `!flowid` default.
    pub flowid: Option<&'a FlowId>,
    minor_version: i32,
    /// Timestamp annotation.
    pub ts: Timestamp,
    /// First timestamp annotation.
    pub first_ts: Timestamp,
    /// Paint annotation.
    pub paint: Option<u8>,
    /// Aggregate annotation.
    pub aggregate: Option<u32>,
    /// Packet count (`count` field).
    pub count: Option<u32>,
}

fn get16(b: &[u8], at: usize) -> u16 {
    match b.get(at..at + 2) {
        Some(x) => u16::from_be_bytes([x[0], x[1]]),
        None => 0,
    }
}
fn get32(b: &[u8], at: usize) -> u32 {
    match b.get(at..at + 4) {
        Some(x) => u32::from_be_bytes([x[0], x[1], x[2], x[3]]),
        None => 0,
    }
}
fn put16(b: &mut [u8], at: usize, v: u16) {
    if let Some(x) = b.get_mut(at..at + 2) {
        x.copy_from_slice(&v.to_be_bytes());
    }
}
fn put32(b: &mut [u8], at: usize, v: u32) {
    if let Some(x) = b.get_mut(at..at + 4) {
        x.copy_from_slice(&v.to_be_bytes());
    }
}

fn has_ports(p: u8) -> bool {
    matches!(p, PROTO_TCP | PROTO_UDP | PROTO_DCCP | PROTO_UDPLITE)
}

fn icmp_header_len(t: u8) -> usize {
    match t {
        icmp::types::TIMESTAMP | icmp::types::TIMESTAMP_REPLY => 20,
        icmp::types::MASK_REQUEST | icmp::types::MASK_REPLY => 12,
        _ => 8,
    }
}

fn icmp_has_flow(t: u8) -> bool {
    matches!(t, 0 | 8 | 13 | 14 | 15 | 16)
}

impl<'a> Odesc<'a> {
    /// A new, empty packet.
    pub fn new(default_proto: u8, flowid: Option<&'a FlowId>, minor_version: i32) -> Odesc<'a> {
        Odesc {
            buf: Vec::new(),
            has_ip: false,
            th: 0,
            want_len: 0,
            have_icmp_type: false,
            have_icmp_code: false,
            have_ip_hl: false,
            have_tcp_hl: false,
            default_proto,
            flowid,
            minor_version,
            ts: Timestamp::ZERO,
            first_ts: Timestamp::ZERO,
            paint: None,
            aggregate: None,
            count: None,
        }
    }

    fn ip_off(&self) -> u16 {
        get16(&self.buf, 6)
    }
    fn first_frag(&self) -> bool {
        self.ip_off() & 0x1FFF == 0
    }
    fn proto(&self) -> u8 {
        self.buf.get(9).copied().unwrap_or(0)
    }
    fn ip_hl_bytes(&self) -> usize {
        usize::from(self.buf.first().copied().unwrap_or(0) & 0xF) * 4
    }
    fn tlen(&self) -> usize {
        self.buf.len().saturating_sub(self.th)
    }
    fn grow_to(&mut self, n: usize) {
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
    }

    /// Makes sure an IP header exists; returns whether its protocol is
    /// compatible with `ip_p` (0 = any).
    pub fn make_ip(&mut self, ip_p: u8) -> bool {
        if !self.has_ip || self.buf.len() < 20 {
            if !self.has_ip {
                self.has_ip = true;
                self.th = 0;
            }
            if self.buf.len() < 20 {
                self.grow_to(20);
                self.th = 20;
                self.buf[0] = 0x45;
                self.buf[9] = self.default_proto;
                put16(&mut self.buf, 2, 0);
                put16(&mut self.buf, 6, 0);
                self.buf[8] = 100;
                if let Some(f) = self.flowid {
                    self.buf[12..16].copy_from_slice(&f.src.octets());
                    self.buf[16..20].copy_from_slice(&f.dst.octets());
                }
            }
        }
        ip_p == 0 || self.proto() == 0 || self.proto() == ip_p
    }

    /// Makes sure a transport header exists (first fragments only).
    pub fn make_transp(&mut self) -> bool {
        if !self.has_ip || !self.first_frag() {
            return false;
        }
        if self.tlen() >= 8 {
            return true;
        }
        let mut len: i64 = match self.proto() {
            PROTO_TCP => 20,
            PROTO_UDP | PROTO_UDPLITE => 8,
            PROTO_DCCP => 12,
            PROTO_ICMP => 8,
            _ => return true,
        };
        if self.want_len > 0 && i64::from(self.want_len) < self.th as i64 + len {
            len = i64::from(self.want_len) - self.th as i64;
        }
        if (self.tlen() as i64) < len {
            let xlen = len.max(4) as usize;
            self.grow_to(self.th + xlen);
            if self.proto() == PROTO_TCP && len >= 13 {
                let th = self.th;
                self.buf[th + 12] = (self.buf[th + 12] & 0x0F) | (5 << 4);
            }
            if let Some(f) = self.flowid {
                let th = self.th;
                put16(&mut self.buf, th, f.sport);
                put16(&mut self.buf, th + 2, f.dport);
            }
            if xlen as i64 > len {
                let newlen = (self.th as i64 + len).max(0) as usize;
                self.buf.truncate(newlen);
            }
        }
        true
    }

    fn payload_info(&self) -> (usize, u32) {
        if self.has_ip {
            let ip_len = u32::from(get16(&self.buf, 2));
            let mut off = self.th;
            if self.first_frag() {
                match self.proto() {
                    PROTO_TCP => {
                        let doff =
                            usize::from(self.buf.get(self.th + 12).copied().unwrap_or(0) >> 4) * 4;
                        if self.tlen() >= 13 && doff >= 20 {
                            off += doff;
                        } else {
                            off += 20;
                        }
                    }
                    PROTO_UDP | PROTO_UDPLITE => off += 8,
                    _ => {}
                }
            }
            (off, ip_len.wrapping_sub(off as u32))
        } else {
            (0, self.buf.len() as u32)
        }
    }

    fn account_payload_len(&mut self, off: usize, plen: u32) {
        let ip_len_field = u32::from(get16(&self.buf, 2));
        if !self.has_ip || (ip_len_field == 0 && self.want_len == 0) {
            self.want_len = (off as u32).wrapping_add(plen);
            return;
        }
        let ip_len = if ip_len_field != 0 {
            ip_len_field
        } else {
            self.want_len
        };
        let mut delta = i64::from(ip_len) - (off as i64 + i64::from(plen));
        if delta > 0
            && self.first_frag()
            && self.proto() == PROTO_TCP
            && !self.have_tcp_hl
            && self.tlen() >= 13
            && self.buf[self.th + 12] >> 4 == 5
        {
            let th_delta = ((delta - (delta & 3)) as usize).min(40);
            let at = self.th + 20;
            self.buf.splice(at..at, std::iter::repeat_n(0u8, th_delta));
            let th = self.th;
            self.buf[th + 12] = (self.buf[th + 12] & 0x0F) | ((((20 + th_delta) >> 2) as u8) << 4);
            delta -= th_delta as i64;
        }
        if delta > 0 && !self.have_ip_hl && self.ip_hl_bytes() == 20 {
            let ip_delta = ((delta - (delta & 3)) as usize).min(40);
            self.buf.splice(20..20, std::iter::repeat_n(0u8, ip_delta));
            self.buf[0] = 0x40 | (((20 + ip_delta) >> 2) as u8 & 0xF);
            self.th = 20 + ip_delta;
        }
    }

    /// Parses `s` as a value of field `f`.
    pub fn parse(&self, f: Field, s: &str) -> Option<Val> {
        let num = |max: u32| parse_u32(s).filter(|&v| v <= max).map(Val::U);
        match f {
            Field::None => None,
            Field::Timestamp
            | Field::NTimestamp
            | Field::FirstTimestamp
            | Field::FirstNTimestamp => parse_timestamp(s).map(Val::Ts),
            Field::TsUsec1 => parse_u64(s).map(Val::U64),
            Field::Link | Field::Paint | Field::Direction => match s {
                ">" => Some(Val::U(0)),
                "<" => Some(Val::U(1)),
                _ => parse_u32(s).map(Val::U),
            },
            Field::IpSrc | Field::IpDst => rclick_core::args::parse_ip_addr(s)
                .ok()
                .map(|a| Val::U(u32::from(a))),
            Field::IpFrag | Field::IpFragoff => self.parse_fragoff(s).map(Val::U),
            Field::IpProto => match s {
                "T" => Some(Val::U(6)),
                "U" => Some(Val::U(17)),
                "I" => Some(Val::U(1)),
                _ => num(255),
            },
            Field::IpEcn => match s {
                "0" | "1" | "2" | "3" => Some(Val::U(u32::from(s.as_bytes()[0] - b'0'))),
                "no" | "-" => Some(Val::U(0)),
                "ect1" | "ECT(1)" => Some(Val::U(1)),
                "ect2" | "ECT(0)" => Some(Val::U(2)),
                "ce" | "CE" => Some(Val::U(3)),
                _ => None,
            },
            Field::IpTos | Field::IpDscp | Field::IpTtl | Field::IpHl | Field::TcpOff => num(255),
            Field::IpId
            | Field::IpSum
            | Field::Sport
            | Field::Dport
            | Field::TcpWindow
            | Field::TcpUrp => num(65535),
            Field::IcmpFlowid | Field::IcmpSeq | Field::IcmpNextmtu => num(65535),
            Field::IpOpt => parse_ip_opt(s).map(Val::Bytes),
            Field::TcpOpt | Field::TcpNtopt | Field::TcpSack => {
                let mask = match f {
                    Field::TcpSack => TCPOPT_SACK,
                    Field::TcpNtopt => TCPOPT_NTALL,
                    _ => TCPOPT_ALL,
                };
                parse_tcp_opt(s, mask).map(Val::Bytes)
            }
            Field::TcpFlags => {
                if s == "." {
                    Some(Val::U(0))
                } else if s.is_empty() {
                    None
                } else if s.as_bytes()[0].is_ascii_digit() {
                    parse_u32(s).filter(|&v| v < 0x1000).map(Val::U)
                } else {
                    let mut v = 0u32;
                    for c in s.bytes() {
                        let bit = match c {
                            b'F' => 0,
                            b'S' => 1,
                            b'R' => 2,
                            b'P' => 3,
                            b'A' => 4,
                            b'U' => 5,
                            b'E' | b'X' => 6,
                            b'C' | b'W' | b'Y' => 7,
                            b'N' => 8,
                            _ => return None,
                        };
                        v |= 1 << bit;
                    }
                    Some(Val::U(v))
                }
            }
            Field::IcmpType | Field::IcmpTypeName => icmp::type_from_name(s)
                .map(u32::from)
                .or_else(|| parse_u32(s).filter(|&v| v < 256))
                .map(Val::U),
            Field::IcmpCode | Field::IcmpCodeName => {
                if self.have_icmp_type {
                    let t = self.buf.get(self.th).copied().unwrap_or(0);
                    icmp::code_from_name(t, s)
                        .map(u32::from)
                        .or_else(|| parse_u32(s).filter(|&v| v < 256))
                        .map(Val::U)
                } else {
                    num(255)
                }
            }
            Field::Payload => Some(Val::Bytes(rclick_core::confparse::unquote_bytes(s))),
            Field::PayloadMd5 | Field::PayloadMd5Hex => None,
            _ => parse_u32(s).map(Val::U),
        }
    }

    fn parse_fragoff(&self, s: &str) -> Option<u32> {
        match s {
            "." => return Some(0),
            "!" => return Some(0x4000),
            "F" => return Some(0x2000),
            "f" => return Some(100),
            _ => {}
        }
        let (v, mut rest) = prefix_int(s.as_bytes(), 0);
        let mut v = v.unwrap_or(0);
        if self.minor_version > 0 {
            v >>= 3;
        }
        while let Some((&c, r)) = rest.split_first() {
            match c {
                b'!' => v |= 0x4000,
                b'+' => v |= 0x2000,
                _ => break,
            }
            rest = r;
        }
        (rest.is_empty() && !s.is_empty()).then_some(v)
    }

    /// Injects a parsed value of field `f`.
    pub fn inject(&mut self, f: Field, v: Val) {
        let u = match &v {
            Val::U(u) => *u,
            Val::U64(x) => *x as u32,
            _ => 0,
        };
        match f {
            Field::None | Field::PayloadMd5 | Field::PayloadMd5Hex | Field::IpCaptureLen => {}
            Field::Timestamp | Field::NTimestamp => {
                if let Val::Ts(t) = v {
                    self.ts = t;
                }
            }
            Field::FirstTimestamp | Field::FirstNTimestamp => {
                if let Val::Ts(t) = v {
                    self.first_ts = t;
                }
            }
            Field::TsSec => {
                let sub = i64::from(self.ts.subsec_nsec());
                self.ts = Timestamp::from_sec_nsec(i64::from(u), sub);
            }
            Field::TsUsec => {
                let sec = self.ts.sec();
                self.ts = Timestamp::from_sec_usec(sec, i64::from(u % 1_000_000));
            }
            Field::TsUsec1 => {
                if let Val::U64(x) = v {
                    self.ts =
                        Timestamp::from_sec_usec((x / 1_000_000) as i64, (x % 1_000_000) as i64);
                }
            }
            Field::Count => self.count = Some(u),
            Field::Link | Field::Paint | Field::Direction => self.paint = Some(u as u8),
            Field::Aggregate => self.aggregate = Some(u),
            Field::WireLen => self.want_len = u,
            Field::IpSrc
            | Field::IpDst
            | Field::IpTos
            | Field::IpDscp
            | Field::IpEcn
            | Field::IpTtl
            | Field::IpFrag
            | Field::IpFragoff
            | Field::IpId
            | Field::IpSum
            | Field::IpProto
            | Field::IpHl
            | Field::IpLen
            | Field::IpOpt => self.inject_ip(f, u, v),
            Field::Sport | Field::Dport => {
                if !self.make_ip(0) || !self.make_transp() {
                    return;
                }
                let p = self.proto();
                if p != 0 && !has_ports(p) {
                    return;
                }
                let at = self.th + if f == Field::Sport { 0 } else { 2 };
                put16(&mut self.buf, at, u as u16);
            }
            Field::TcpSeq
            | Field::TcpAck
            | Field::TcpOff
            | Field::TcpFlags
            | Field::TcpWindow
            | Field::TcpUrp
            | Field::TcpOpt
            | Field::TcpNtopt
            | Field::TcpSack => self.inject_tcp(f, u, v),
            Field::UdpLen => {
                if !self.make_ip(0) || !self.make_transp() {
                    return;
                }
                let p = self.proto();
                if p != 0 && p != PROTO_UDP && p != PROTO_UDPLITE {
                    return;
                }
                self.grow_to(self.th + 8);
                put16(&mut self.buf, self.th + 4, u as u16);
            }
            Field::IcmpType
            | Field::IcmpCode
            | Field::IcmpTypeName
            | Field::IcmpCodeName
            | Field::IcmpFlowid
            | Field::IcmpSeq
            | Field::IcmpNextmtu => self.inject_icmp(f, u),
            Field::Payload | Field::PayloadLen => {
                if self.make_ip(0) {
                    self.make_transp();
                }
                let (off, _) = self.payload_info();
                if f == Field::Payload {
                    let Val::Bytes(b) = v else { return };
                    if b.is_empty() {
                        return;
                    }
                    self.account_payload_len(off, b.len() as u32);
                    let (off, _) = self.payload_info();
                    self.grow_to(off + b.len());
                    self.buf[off..off + b.len()].copy_from_slice(&b);
                } else {
                    self.account_payload_len(off, u);
                }
            }
        }
    }

    fn inject_ip(&mut self, f: Field, u: u32, v: Val) {
        if !self.make_ip(0) {
            return;
        }
        let b = &mut self.buf;
        match f {
            Field::IpSrc => b[12..16].copy_from_slice(&u.to_be_bytes()),
            Field::IpDst => b[16..20].copy_from_slice(&u.to_be_bytes()),
            Field::IpTos => b[1] = u as u8,
            Field::IpDscp => b[1] = (b[1] & 3) | ((u << 2) as u8 & 0xFC),
            Field::IpEcn => b[1] = (b[1] & 0xFC) | (u as u8 & 3),
            Field::IpTtl => b[8] = u as u8,
            Field::IpFrag | Field::IpFragoff => put16(b, 6, u as u16),
            Field::IpId => put16(b, 4, u as u16),
            Field::IpSum => put16(b, 10, u as u16),
            Field::IpProto => b[9] = u as u8,
            Field::IpLen => self.want_len = u,
            Field::IpHl => {
                self.have_ip_hl = true;
                let want = ((u + 3) & !3) as usize;
                let cur = self.ip_hl_bytes();
                if want > cur {
                    let more = want - cur;
                    let len = self.buf.len();
                    self.grow_to(len + more);
                    self.th = want;
                    for x in &mut self.buf[want.saturating_sub(more)..want.min(len + more)] {
                        *x = 0;
                    }
                }
                self.buf[0] = (self.buf[0] & 0xF0) | ((want >> 2) as u8 & 0xF);
            }
            Field::IpOpt => {
                self.have_ip_hl = true;
                let Val::Bytes(opt) = v else { return };
                if opt.is_empty() {
                    return;
                }
                let olen = opt.len();
                let ip_hl = (20 + olen + 3) & !3;
                self.grow_to(ip_hl);
                if ip_hl > self.ip_hl_bytes() {
                    self.th = ip_hl;
                    self.buf[0] = (self.buf[0] & 0xF0) | ((ip_hl >> 2) as u8 & 0xF);
                }
                self.buf[20..20 + olen].copy_from_slice(&opt);
                for x in &mut self.buf[20 + olen..ip_hl] {
                    *x = 0;
                }
            }
            _ => {}
        }
    }

    fn inject_tcp(&mut self, f: Field, u: u32, v: Val) {
        if !self.make_ip(PROTO_TCP) || !self.make_transp() {
            return;
        }
        let th = self.th;
        let need = match f {
            Field::TcpSeq => 8,
            Field::TcpAck => 12,
            Field::TcpFlags | Field::TcpOff => 14,
            Field::TcpWindow => 16,
            _ => 20,
        };
        if self.buf.len() < th + need {
            return;
        }
        match f {
            Field::TcpSeq => put32(&mut self.buf, th + 4, u),
            Field::TcpAck => put32(&mut self.buf, th + 8, u),
            Field::TcpFlags => {
                self.buf[th + 13] = u as u8;
                self.buf[th + 12] = (self.buf[th + 12] & 0xF0) | ((u >> 8) as u8 & 0xF);
            }
            Field::TcpOff => {
                let want = ((u + 3) & !3) as usize;
                let cur = usize::from(self.buf[th + 12] >> 4) * 4;
                if want > cur {
                    let more = want - cur;
                    let len = self.buf.len();
                    self.grow_to(len + more);
                }
                self.buf[th + 12] = (self.buf[th + 12] & 0x0F) | (((want >> 2) as u8 & 0xF) << 4);
            }
            Field::TcpWindow => put16(&mut self.buf, th + 14, u as u16),
            Field::TcpUrp => put16(&mut self.buf, th + 18, u as u16),
            _ => {
                self.have_tcp_hl = true;
                let Val::Bytes(opt) = v else { return };
                if opt.is_empty() {
                    return;
                }
                let olen = opt.len();
                let th_off = (20 + olen + 3) & !3;
                self.grow_to(th + th_off);
                if th_off > usize::from(self.buf[th + 12] >> 4) * 4 {
                    self.buf[th + 12] =
                        (self.buf[th + 12] & 0x0F) | (((th_off >> 2) as u8 & 0xF) << 4);
                }
                self.buf[th + 20..th + 20 + olen].copy_from_slice(&opt);
                for x in &mut self.buf[th + 20 + olen..th + th_off] {
                    *x = 0;
                }
            }
        }
    }

    fn inject_icmp(&mut self, f: Field, u: u32) {
        if !self.make_ip(PROTO_ICMP) || !self.make_transp() {
            return;
        }
        let th = self.th;
        self.grow_to(th + 8);
        match f {
            Field::IcmpType | Field::IcmpTypeName => {
                self.buf[th] = u as u8;
                self.have_icmp_type = true;
                self.grow_to(th + icmp_header_len(u as u8));
            }
            Field::IcmpCode | Field::IcmpCodeName => {
                self.buf[th + 1] = u as u8;
                self.have_icmp_code = true;
            }
            Field::IcmpFlowid | Field::IcmpSeq => {
                let t = self.buf[th];
                if !self.have_icmp_type || icmp_has_flow(t) {
                    let at = th + if f == Field::IcmpFlowid { 4 } else { 6 };
                    put16(&mut self.buf, at, u as u16);
                }
            }
            Field::IcmpNextmtu => {
                let (t, c) = (self.buf[th], self.buf[th + 1]);
                if (!self.have_icmp_type || t == 3) && (!self.have_icmp_code || c == 4) {
                    put16(&mut self.buf, th + 6, u as u16);
                }
            }
            _ => {}
        }
    }

    /// Finishes the packet (lengths, destination annotation, checksums
    /// when `checksum`) and makes it.
    pub fn finish(mut self, checksum: bool) -> Packet {
        if self.flowid.is_some() {
            self.make_ip(0);
        }
        if self.has_ip {
            self.make_transp();
            let mut ip_len = u32::from(get16(&self.buf, 2));
            if ip_len == 0 {
                ip_len = self.want_len;
                if ip_len > 0xFFFF {
                    ip_len = 0xFFFF;
                } else if ip_len == 0 {
                    ip_len = self.buf.len() as u32;
                }
                put16(&mut self.buf, 2, ip_len as u16);
            }
            let hl = self.th;
            if self.proto() == PROTO_UDP
                && self.first_frag()
                && self.buf.len() >= hl + 6
                && get16(&self.buf, hl + 4) == 0
            {
                put16(&mut self.buf, hl + 4, ip_len.wrapping_sub(hl as u32) as u16);
            }
            if checksum {
                if (ip_len as usize) > self.buf.len() {
                    self.grow_to(ip_len as usize);
                }
                self.set_checksums();
            }
        }
        let want = self.want_len as usize;
        let len = self.buf.len();
        let mut p = Packet::make(16, &self.buf, 8);
        if self.has_ip {
            p.set_ip_header(0, self.th);
            if self.buf.len() >= 20 {
                let dst = Ipv4Addr::new(self.buf[16], self.buf[17], self.buf[18], self.buf[19]);
                p.set_dst_ip_anno(dst);
            }
        }
        p.set_timestamp_anno(self.ts);
        if !self.first_ts.is_zero() {
            p.set_first_timestamp_anno(self.first_ts);
        }
        if let Some(x) = self.paint {
            p.set_paint_anno(x);
        }
        if let Some(a) = self.aggregate {
            p.set_aggregate_anno(a);
        }
        if let Some(c) = self.count.filter(|&c| c > 1) {
            p.set_anno_u32(super::EXTRA_PACKETS_ANNO, c - 1);
        }
        if want > len {
            p.set_extra_length_anno((want - len) as u32);
        }
        p
    }

    fn set_checksums(&mut self) {
        let hl = self.ip_hl_bytes().min(self.buf.len());
        put16(&mut self.buf, 10, 0);
        let s = checksum::internet_checksum(&self.buf[..hl]);
        put16(&mut self.buf, 10, s);
        if self.ip_off() & 0x3FFF != 0 || self.buf.len() < self.th {
            return;
        }
        let src = Ipv4Addr::new(self.buf[12], self.buf[13], self.buf[14], self.buf[15]);
        let dst = Ipv4Addr::new(self.buf[16], self.buf[17], self.buf[18], self.buf[19]);
        let th = self.th;
        let tl = self.buf.len() - th;
        let proto = self.proto();
        let at = match proto {
            PROTO_TCP => 16,
            PROTO_UDP => 6,
            PROTO_ICMP => 2,
            _ => return,
        };
        if tl < at + 2 {
            return;
        }
        put16(&mut self.buf, th + at, 0);
        let body = checksum::sum(&self.buf[th..]);
        let csum = if proto == PROTO_ICMP {
            !body
        } else {
            let ph = checksum::pseudo_header_v4(src, dst, proto, tl as u16);
            !checksum::combine(&[body, ph])
        };
        put16(&mut self.buf, th + at, csum);
    }
}

// ---------------------------------------------------------------------------
// Option parsing and unparsing

const IPOPT_EOL: u8 = 0;
const IPOPT_NOP: u8 = 1;
const IPOPT_RR: u8 = 7;
const IPOPT_TS: u8 = 68;
const IPOPT_LSRR: u8 = 131;
const IPOPT_SSRR: u8 = 137;

const TCPOPT_PADDING: u32 = 1;
const TCPOPT_MSS: u32 = 2;
const TCPOPT_WSCALE: u32 = 4;
const TCPOPT_SACK: u32 = 8;
const TCPOPT_TIMESTAMP: u32 = 16;
const TCPOPT_UNKNOWN: u32 = 32;
const TCPOPT_ALL: u32 = 0xFFFF_FFFF;
const TCPOPT_ALL_NOPAD: u32 = 0xFFFF_FFFE;
const TCPOPT_NTALL: u32 = 0xFFFF_FFEE;

fn parse_quad(s: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    let mut p = 0;
    for i in 0..4 {
        let (v, rest) = prefix_int(&s[p..], 10);
        let v = v.filter(|&v| v <= 255)?;
        p = s.len() - rest.len();
        out.push(v as u8);
        if i < 3 {
            if s.get(p) != Some(&b'.') {
                return None;
            }
            p += 1;
        }
    }
    Some(p)
}

/// Parses Click's IP option text (`rr{...}`, `ssrr{...}`, `ts{...}`,
/// `nop`, `eol`, `N=a:b`). `.` means none (empty result).
pub fn parse_ip_opt(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() || text == "." {
        return Some(Vec::new());
    }
    let s = text.as_bytes();
    let end = s.len();
    let mut p = 0usize;
    let mut sa: Vec<u8> = Vec::new();
    loop {
        let rest = &s[p..];
        let route = if rest.len() > 3 && rest.starts_with(b"rr{") {
            Some((IPOPT_RR, 3))
        } else if rest.len() > 5 && rest.starts_with(b"ssrr{") {
            Some((IPOPT_SSRR, 5))
        } else if rest.len() > 5 && rest.starts_with(b"lsrr{") {
            Some((IPOPT_LSRR, 5))
        } else {
            None
        };
        if let Some((kind, skip)) = route {
            sa.push(kind);
            p += skip;
            let sa_pos = sa.len() - 1;
            let mut pointer: i64 = -1;
            sa.push(0);
            sa.push(0);
            loop {
                if p < end && s[p] == b'^' && pointer < 0 {
                    pointer = (sa.len() - sa_pos + 1) as i64;
                    p += 1;
                }
                if p >= end || !s[p].is_ascii_digit() {
                    break;
                }
                p += parse_quad(&s[p..], &mut sa)?;
                if p < end && s[p] == b',' {
                    p += 1;
                }
            }
            if p >= end || s[p] != b'}' {
                return None;
            }
            sa[sa_pos + 2] = if pointer >= 0 {
                pointer as u8
            } else {
                (sa.len() - sa_pos + 1) as u8
            };
            if p + 2 < end && s[p + 1] == b'+' && s[p + 2].is_ascii_digit() {
                let (v, r) = prefix_int(&s[p + 2..], 10);
                p = end - r.len();
                let v = v.unwrap_or(0);
                if v < 64 {
                    sa.extend(std::iter::repeat_n(0u8, v as usize * 4));
                }
            } else {
                p += 1;
            }
            if sa.len() - sa_pos > 255 {
                return None;
            }
            sa[sa_pos + 1] = (sa.len() - sa_pos) as u8;
        } else if rest.len() > 3 && (rest.starts_with(b"ts{") || rest.starts_with(b"ts.")) {
            let sa_pos = sa.len();
            sa.extend_from_slice(&[IPOPT_TS, 0, 0, 0]);
            let mut flag: i64 = -1;
            if rest[2] == b'.' {
                if rest.len() > 6 && rest[3..].starts_with(b"ip{") {
                    flag = 1;
                    p += 6;
                } else if rest.len() > 9 && rest[3..].starts_with(b"preip{") {
                    flag = 3;
                    p += 9;
                } else if rest.len() > 3 && rest[3].is_ascii_digit() {
                    let (v, r) = prefix_int(&rest[3..], 0);
                    let v = v.unwrap_or(99);
                    if v > 15 || r.first() != Some(&b'{') {
                        return None;
                    }
                    flag = i64::from(v);
                    p = end - r.len() + 1;
                } else {
                    return None;
                }
            } else {
                p += 3;
            }
            let mut pointer: i64 = -1;
            loop {
                if p < end && s[p] == b'^' && pointer < 0 {
                    pointer = (sa.len() - sa_pos + 1) as i64;
                    p += 1;
                }
                if p >= end || (!s[p].is_ascii_digit() && s[p] != b'!') {
                    break;
                }
                let entry = p;
                let entry_len = sa.len();
                'retry: loop {
                    if flag == 1 || flag == 3 || flag == -2 {
                        p += parse_quad(&s[p..], &mut sa)?;
                        if pointer >= 0 && flag == -2 {
                            flag = 3;
                        }
                        if p + 1 < end && s[p] == b'=' {
                            if s[p + 1].is_ascii_digit() || s[p + 1] == b'!' {
                                p += 1;
                            } else if s[p + 1] == b'?' && pointer >= 0 {
                                sa.extend_from_slice(&[0, 0, 0, 0]);
                                p += 2;
                                break 'retry;
                            } else {
                                return None;
                            }
                        } else if pointer >= 0 {
                            sa.extend_from_slice(&[0, 0, 0, 0]);
                            break 'retry;
                        } else {
                            return None;
                        }
                    }
                    let mut top = 0u32;
                    if p < end && s[p] == b'!' {
                        top = 0x8000_0000;
                        p += 1;
                    }
                    if p >= end || !s[p].is_ascii_digit() {
                        return None;
                    }
                    let (v, r) = prefix_int(&s[p..], 0);
                    p = end - r.len();
                    if p < end && s[p] == b'.' && flag == -1 {
                        flag = -2;
                        p = entry;
                        sa.truncate(entry_len);
                        continue 'retry;
                    } else if flag == -1 {
                        flag = 0;
                    }
                    sa.extend_from_slice(&(v.unwrap_or(0) | top).to_be_bytes());
                    break 'retry;
                }
                if p < end && s[p] == b',' {
                    p += 1;
                }
            }
            if p < end {
                if s[p] != b'}' {
                    return None;
                }
                p += 1;
            }
            if flag == -2 {
                flag = 1;
            }
            if flag < 0 {
                flag = 0;
            }
            sa[sa_pos + 2] = if pointer >= 0 {
                pointer as u8
            } else {
                (sa.len() - sa_pos + 1) as u8
            };
            if p + 1 < end && s[p] == b'+' && s[p + 1].is_ascii_digit() {
                let (v, r) = prefix_int(&s[p + 1..], 0);
                p = end - r.len();
                let v = v.unwrap_or(99);
                if v < 64 {
                    let per = if flag == 1 || flag == 3 { 8 } else { 4 };
                    sa.extend(std::iter::repeat_n(0u8, v as usize * per));
                }
            }
            let mut overflow = 0u8;
            if p + 2 < end && s[p] == b'+' && s[p + 1] == b'+' && s[p + 2].is_ascii_digit() {
                let (v, r) = prefix_int(&s[p + 2..], 0);
                p = end - r.len();
                let v = v.unwrap_or(99);
                if v < 16 {
                    overflow = v as u8;
                }
            }
            sa[sa_pos + 3] = (overflow << 4) | (flag as u8 & 0xF);
            if sa.len() - sa_pos > 255 {
                return None;
            }
            sa[sa_pos + 1] = (sa.len() - sa_pos) as u8;
        } else if !rest.is_empty() && rest[0].is_ascii_digit() {
            parse_unknown_opt(s, &mut p, &mut sa)?;
        } else if rest.starts_with(b"nop") {
            sa.push(IPOPT_NOP);
            p += 3;
        } else if rest.starts_with(b"eol") && (rest.len() == 3 || rest[3] != b',') {
            sa.push(IPOPT_EOL);
            p += 3;
        } else {
            return None;
        }
        if p >= end {
            while sa.len() > 40 && sa[0] == IPOPT_NOP {
                sa.remove(0);
            }
            if sa.len() > 40 {
                return None;
            }
            return Some(sa);
        } else if s[p] != b',' && s[p] != b';' {
            return None;
        }
        p += 1;
    }
}

fn parse_unknown_opt(s: &[u8], p: &mut usize, sa: &mut Vec<u8>) -> Option<()> {
    let end = s.len();
    let (v, r) = prefix_int(&s[*p..], 0);
    *p = end - r.len();
    let v = v.filter(|&v| v < 256)?;
    sa.push(v as u8);
    if *p + 1 < end && s[*p] == b'=' && s[*p + 1].is_ascii_digit() {
        let pos0 = sa.len();
        sa.push(0);
        loop {
            let (v, r) = prefix_int(&s[*p + 1..], 0);
            *p = end - r.len();
            let v = v.filter(|&v| v < 256)?;
            sa.push(v as u8);
            if !(*p + 1 < end && s[*p] == b':' && s[*p + 1].is_ascii_digit()) {
                break;
            }
        }
        if sa.len() > pos0 + 254 {
            return None;
        }
        sa[pos0] = (sa.len() - pos0 + 1) as u8;
    }
    Some(())
}

/// Parses Click's TCP option text restricted to `mask`.
fn parse_tcp_opt(text: &str, mask: u32) -> Option<Vec<u8>> {
    if text.is_empty() || text == "." {
        return Some(Vec::new());
    }
    let s = text.as_bytes();
    let end = s.len();
    let mut p = 0usize;
    let mut sa: Vec<u8> = Vec::new();
    loop {
        let rest = &s[p..];
        if rest.len() > 3 && rest.starts_with(b"mss") && mask & TCPOPT_MSS != 0 {
            let (v, r) = prefix_int(&rest[3..], 0);
            p = end - r.len();
            let v = v.filter(|&v| v <= 0xFFFF)?;
            sa.extend_from_slice(&[2, 4, (v >> 8) as u8, v as u8]);
        } else if rest.len() > 6 && rest.starts_with(b"wscale") && mask & TCPOPT_WSCALE != 0 {
            let (v, r) = prefix_int(&rest[6..], 0);
            p = end - r.len();
            let v = v.filter(|&v| v <= 255)?;
            sa.extend_from_slice(&[3, 3, v as u8]);
        } else if rest.starts_with(b"sackok") && mask & TCPOPT_SACK != 0 {
            sa.extend_from_slice(&[4, 2]);
            p += 6;
        } else if rest.len() > 4 && rest.starts_with(b"sack") && mask & TCPOPT_SACK != 0 {
            let sa_pos = sa.len();
            sa.extend_from_slice(&[5, 0]);
            p += 4;
            loop {
                let start = p;
                let (a, r) = prefix_int(&s[p..], 0);
                let t = end - r.len();
                if t >= end || (s[t] != b':' && s[t] != b'-') {
                    return None;
                }
                let (b, r2) = prefix_int(&s[t + 1..], 0);
                let t2 = end - r2.len();
                sa.extend_from_slice(&a.unwrap_or(0).to_be_bytes());
                sa.extend_from_slice(&b.unwrap_or(0).to_be_bytes());
                if t2 < start + 3 {
                    return None;
                }
                p = t2;
                if p + 5 >= end || &s[p..p + 5] != b",sack" {
                    break;
                }
                p += 5;
            }
            sa[sa_pos + 1] = (sa.len() - sa_pos) as u8;
        } else if rest.len() > 2 && rest.starts_with(b"ts") && mask & TCPOPT_TIMESTAMP != 0 {
            let start = p;
            let (a, r) = prefix_int(&rest[2..], 0);
            let t = end - r.len();
            if t >= end || s[t] != b':' {
                return None;
            }
            let (b, r2) = prefix_int(&s[t + 1..], 0);
            let t2 = end - r2.len();
            if sa.is_empty() {
                sa.extend_from_slice(&[1, 1]);
            }
            sa.extend_from_slice(&[8, 10]);
            sa.extend_from_slice(&a.unwrap_or(0).to_be_bytes());
            sa.extend_from_slice(&b.unwrap_or(0).to_be_bytes());
            if t2 < start + 5 {
                return None;
            }
            p = t2;
        } else if !rest.is_empty() && rest[0].is_ascii_digit() && mask & TCPOPT_UNKNOWN != 0 {
            parse_unknown_opt(s, &mut p, &mut sa)?;
        } else if rest.starts_with(b"nop") && mask & TCPOPT_PADDING != 0 {
            sa.push(1);
            p += 3;
        } else if rest.starts_with(b"eol")
            && mask & TCPOPT_PADDING != 0
            && (rest.len() == 3 || rest[3] != b',')
        {
            sa.push(0);
            p += 3;
        } else {
            return None;
        }
        if p >= end || s[p].is_ascii_whitespace() {
            while sa.len() > 40 && sa[0] == 1 {
                sa.remove(0);
            }
            if sa.len() > 40 {
                return None;
            }
            return Some(sa);
        } else if s[p] != b',' && s[p] != b';' {
            return None;
        }
        p += 1;
    }
}

fn write_quad(out: &mut String, o: &[u8]) {
    let _ = write!(out, "{}.{}.{}.{}", o[0], o[1], o[2], o[3]);
}

/// Prints IP options in Click's text form, without padding.
pub fn unparse_ip_opt(out: &mut String, opts: &[u8]) {
    let start_len = out.len();
    let end = opts.len();
    let mut i = 0usize;
    let mut sep = "";
    let bad = |out: &mut String| {
        out.truncate(start_len);
        out.push('?');
    };
    while i < end {
        let kind = opts[i];
        match kind {
            IPOPT_EOL => break,
            IPOPT_NOP => i += 1,
            IPOPT_RR | IPOPT_LSRR | IPOPT_SSRR => {
                if i + 2 >= end
                    || i + usize::from(opts[i + 1]) > end
                    || opts[i + 1] < 3
                    || opts[i + 2] < 4
                {
                    return bad(out);
                }
                out.push_str(sep);
                out.push_str(match kind {
                    IPOPT_RR => "rr",
                    IPOPT_LSRR => "lsrr",
                    _ => "ssrr",
                });
                let ol = i + usize::from(opts[i + 1]);
                let op = i + usize::from(opts[i + 2]) - 1;
                let mut o = i + 3;
                let mut s2 = "";
                out.push('{');
                while o + 4 <= ol {
                    if o == op {
                        if kind == IPOPT_RR {
                            break;
                        }
                        s2 = "^";
                    }
                    out.push_str(s2);
                    write_quad(out, &opts[o..o + 4]);
                    s2 = ",";
                    o += 4;
                }
                if o == ol && o == op && kind != IPOPT_RR {
                    out.push('^');
                }
                out.push('}');
                if o + 4 <= ol && o == op && kind == IPOPT_RR {
                    let _ = write!(out, "+{}", (ol - o) / 4);
                }
                i = ol;
                sep = ";";
            }
            IPOPT_TS => {
                if i + 3 >= end
                    || i + usize::from(opts[i + 1]) > end
                    || opts[i + 1] < 4
                    || opts[i + 2] < 5
                {
                    return bad(out);
                }
                let ol = i + usize::from(opts[i + 1]);
                let op = i + usize::from(opts[i + 2]) - 1;
                let flag = opts[i + 3] & 0xF;
                let size = if (1..=3).contains(&flag) { 8 } else { 4 };
                out.push_str(sep);
                out.push_str("ts");
                match flag {
                    0 => {}
                    1 => out.push_str(".ip"),
                    3 => out.push_str(".preip"),
                    f => {
                        let _ = write!(out, ".{f}");
                    }
                }
                out.push('{');
                let mut s2 = "";
                let mut o = i + 4;
                while o + size <= ol {
                    if o == op {
                        if flag != 3 {
                            break;
                        }
                        s2 = "^";
                    }
                    if flag != 0 {
                        // Undefined flags (2, 4-15) step by 4 bytes but
                        // still print an address and a stamp: an entry cut
                        // short by the option's end stops the list (Click
                        // reads on past the option).
                        if o + 8 > ol {
                            break;
                        }
                        out.push_str(s2);
                        write_quad(out, &opts[o..o + 4]);
                        out.push('=');
                        o += 4;
                    } else {
                        out.push_str(s2);
                    }
                    if flag == 3 && o > op {
                        out.pop();
                    } else {
                        let v =
                            u32::from_be_bytes([opts[o], opts[o + 1], opts[o + 2], opts[o + 3]]);
                        if v & 0x8000_0000 != 0 {
                            out.push('!');
                        }
                        let _ = write!(out, "{}", v & 0x7FFF_FFFF);
                    }
                    s2 = ",";
                    o += 4;
                }
                if o == ol && o == op {
                    out.push('^');
                }
                out.push('}');
                if o + size <= ol && o == op {
                    let _ = write!(out, "+{}", (ol - o) / size);
                }
                if opts[i + 3] & 0xF0 != 0 {
                    let _ = write!(out, "++{}", opts[i + 3] >> 4);
                }
                i = ol;
                sep = ";";
            }
            _ => {
                if i + 1 >= end || i + usize::from(opts[i + 1]) > end || opts[i + 1] < 2 {
                    return bad(out);
                }
                out.push_str(sep);
                let _ = write!(out, "{}", kind);
                let e = i + usize::from(opts[i + 1]);
                let mut c = '=';
                for &b in &opts[i + 2..e] {
                    let _ = write!(out, "{c}{b}");
                    c = ':';
                }
                i = e;
                sep = ";";
            }
        }
    }
    if out.len() == start_len {
        out.push('.');
    }
}

/// Prints TCP options in Click's text form, keeping the kinds in `mask`.
fn unparse_tcp_opt(out: &mut String, opts: &[u8], mask: u32) {
    let start_len = out.len();
    let end = opts.len();
    let mut i = 0usize;
    let mut sep = "";
    let bad = |out: &mut String| {
        out.truncate(start_len);
        out.push('?');
    };
    while i < end {
        let kind = opts[i];
        if kind == 0 {
            if mask & TCPOPT_PADDING != 0 {
                out.push_str(sep);
                out.push_str("eol");
            }
            break;
        }
        if kind == 1 {
            if mask & TCPOPT_PADDING != 0 {
                out.push_str(sep);
                out.push_str("nop");
                sep = ";";
            }
            i += 1;
            continue;
        }
        if i + 1 >= end {
            return bad(out);
        }
        let olen = usize::from(opts[i + 1]);
        let (valid, bit) = match kind {
            2 => (olen == 4, TCPOPT_MSS),
            3 => (olen == 3, TCPOPT_WSCALE),
            4 => (olen == 2, TCPOPT_SACK),
            5 => (olen % 8 == 2, TCPOPT_SACK),
            8 => (olen == 10, TCPOPT_TIMESTAMP),
            _ => (olen >= 2, TCPOPT_UNKNOWN),
        };
        if i + olen > end || !valid {
            return bad(out);
        }
        if mask & bit == 0 {
            i += if olen >= 2 { olen } else { 128 };
            continue;
        }
        let o = &opts[i..i + olen];
        match kind {
            2 => {
                let _ = write!(out, "{sep}mss{}", u16::from_be_bytes([o[2], o[3]]));
            }
            3 => {
                let _ = write!(out, "{sep}wscale{}", o[2]);
            }
            4 => {
                let _ = write!(out, "{sep}sackok");
            }
            5 => {
                let mut k = 2;
                while k + 8 <= olen {
                    let a = u32::from_be_bytes([o[k], o[k + 1], o[k + 2], o[k + 3]]);
                    let b = u32::from_be_bytes([o[k + 4], o[k + 5], o[k + 6], o[k + 7]]);
                    let _ = write!(out, "{sep}sack{a}-{b}");
                    sep = ";";
                    k += 8;
                }
            }
            8 => {
                let a = u32::from_be_bytes([o[2], o[3], o[4], o[5]]);
                let b = u32::from_be_bytes([o[6], o[7], o[8], o[9]]);
                let _ = write!(out, "{sep}ts{a}:{b}");
            }
            _ => {
                let _ = write!(out, "{sep}{kind}");
                let mut c = '=';
                for &b in &o[2..] {
                    let _ = write!(out, "{c}{b}");
                    c = ':';
                }
            }
        }
        sep = ";";
        i += olen;
    }
    if out.len() == start_len {
        out.push('.');
    }
}

// ---------------------------------------------------------------------------
// Extraction: printing packets

/// A packet being summarized (Click's `PacketDesc`).
pub struct Desc<'a> {
    p: &'a Packet,
    /// Network header bytes (to the end of the data, minus tail padding).
    ip: Option<&'a [u8]>,
    tailpad: usize,
    tcp: bool,
    udp: bool,
    icmp: bool,
    force_extra_length: bool,
    /// Where "!bad" explanations go, if wanted.
    pub bad: Option<String>,
}

/// Click's `ip_prepare`: checks the IP header, adjusts the extra length
/// annotation, and returns the description.
pub fn prepare<'a>(
    p: &'a mut Packet,
    careful_trunc: bool,
    force_extra_length: bool,
    want_bad: bool,
    needs_ip: bool,
) -> Desc<'a> {
    let mut bad: Option<String> = want_bad.then(String::new);
    let note = |bad: &mut Option<String>, msg: String| {
        if let Some(b) = bad {
            if b.is_empty() {
                b.push_str("!bad ");
                b.push_str(&msg);
                b.push('\n');
            }
        }
    };
    let mut ip_ok = false;
    let mut tailpad = 0usize;
    if needs_ip {
        if let Some(nh) = p.network_header() {
            let nl = nh.len();
            if nl < 4 {
                note(&mut bad, "truncated IP header".into());
            } else if nh[0] >> 4 != 4 {
                note(&mut bad, format!("IP version {}", nh[0] >> 4));
            } else if nh[0] & 0xF < 5 {
                note(&mut bad, format!("IP header length {}", nh[0] & 0xF));
            } else if usize::from(get16(nh, 2)) < usize::from(nh[0] & 0xF) * 4 {
                note(&mut bad, format!("IP length {}", get16(nh, 2)));
            } else {
                ip_ok = true;
                let ip_len = usize::from(get16(nh, 2));
                let extra = p.extra_length_anno() as usize;
                if nl > ip_len {
                    tailpad = nl - ip_len;
                    p.set_extra_length_anno((extra + tailpad) as u32);
                } else if careful_trunc && nl + extra < ip_len {
                    note(
                        &mut bad,
                        format!("truncated IP missing {}", ip_len - nl - extra),
                    );
                }
            }
        } else {
            // no IP header: "bad" is reported when a field is missing
        }
        if ip_ok {
            let nh = p.network_header().unwrap_or(&[]);
            let nl = nh.len() - tailpad;
            let extra = p.extra_length_anno();
            if extra > 0 {
                let full = nl as u32 + extra;
                if get16(nh, 2) != 0xFFFF || full <= 0xFFFF {
                    p.set_extra_length_anno(0);
                } else {
                    p.set_extra_length_anno(full - 0xFFFF);
                }
            }
        }
    }
    let p: &'a Packet = p;
    let ip = if ip_ok {
        p.network_header().map(|nh| &nh[..nh.len() - tailpad])
    } else {
        None
    };
    let mut d = Desc {
        p,
        ip,
        tailpad,
        tcp: false,
        udp: false,
        icmp: false,
        force_extra_length,
        bad,
    };
    if let Some(ip) = ip {
        let hl = usize::from(ip[0] & 0xF) * 4;
        let first = get16(ip, 6) & 0x1FFF == 0;
        let has_th = p.transport_header().is_some();
        let proto = ip.get(9).copied();
        let nl = ip.len();
        if has_th && nl > hl && proto == Some(PROTO_TCP) && first {
            d.tcp = true;
            let tl = d.transport_len();
            let th = d.transport();
            if tl > 12 && th.get(12).is_some_and(|&b| b >> 4 < 5) {
                let off = th[12] >> 4;
                d.note(format!("TCP header length {off}"));
                d.tcp = false;
            }
        }
        if has_th && nl.saturating_sub(tailpad) > hl && proto == Some(PROTO_UDP) && first {
            d.udp = true;
        }
        if has_th && nl > hl && proto == Some(PROTO_ICMP) && first {
            d.icmp = true;
        }
    }
    d
}

impl Desc<'_> {
    fn note(&mut self, msg: String) {
        if let Some(b) = &mut self.bad {
            if b.is_empty() {
                b.push_str("!bad ");
                b.push_str(&msg);
                b.push('\n');
            }
        }
    }

    fn transport(&self) -> &[u8] {
        match self.p.transport_header() {
            Some(t) => &t[..t.len().saturating_sub(self.tailpad)],
            None => &[],
        }
    }

    fn transport_len(&self) -> usize {
        self.transport().len()
    }

    fn length(&self) -> usize {
        self.p.len().saturating_sub(self.tailpad)
    }

    /// Click's `field_missing`: records why a field is absent; returns false.
    fn missing(&mut self, proto: i32, l: usize) -> bool {
        if self.bad.as_ref().is_none_or(|b| !b.is_empty()) {
            return false;
        }
        let name = match proto {
            6 => "TCP",
            17 => "UDP",
            1 => "ICMP",
            -1 => "TCP/UDP",
            _ => "?",
        };
        let msg = match self.ip {
            None => "no IP header".to_string(),
            Some(_) if proto == 0 => "truncated IP header capture".to_string(),
            Some(ip) => {
                let p = ip.get(9).copied().unwrap_or(0);
                if ip.len() > 9
                    && ((proto > 0 && i32::from(p) != proto)
                        || (proto == -1 && p != PROTO_TCP && p != PROTO_UDP))
                {
                    return false;
                } else if get16(ip, 6) & 0x1FFF != 0 {
                    format!("fragmented {name} header")
                } else if self.transport_len() + self.p.extra_length_anno() as usize >= l {
                    format!("truncated {name} header capture")
                } else {
                    format!("truncated {name} header")
                }
            }
        };
        self.note(msg);
        false
    }

    /// Appends field `f` to `out`; returns false (and appends nothing) if
    /// the field is unavailable.
    pub fn write(&mut self, f: Field, out: &mut String) -> bool {
        let p = self.p;
        macro_rules! num {
            ($v:expr) => {{
                let _ = write!(out, "{}", $v);
                return true;
            }};
        }
        match f {
            Field::None | Field::Count => {
                if f == Field::Count {
                    num!(1 + u64::from(p.anno_u32(super::EXTRA_PACKETS_ANNO)));
                }
                false
            }
            Field::Timestamp | Field::NTimestamp => {
                write_timestamp(out, p.timestamp_anno());
                true
            }
            Field::FirstTimestamp | Field::FirstNTimestamp => {
                write_timestamp(out, p.first_timestamp_anno());
                true
            }
            Field::TsSec => num!(p.timestamp_anno().sec() as u32),
            Field::TsUsec => num!(p.timestamp_anno().subsec_usec()),
            Field::TsUsec1 => {
                let t = p.timestamp_anno();
                num!((t.sec() as u64)
                    .wrapping_mul(1_000_000)
                    .wrapping_add(u64::from(t.subsec_usec())))
            }
            Field::Link | Field::Paint => num!(p.paint_anno()),
            Field::Direction => {
                match p.paint_anno() {
                    0 => out.push('>'),
                    1 => out.push('<'),
                    v => {
                        let _ = write!(out, "{v}");
                    }
                }
                true
            }
            Field::Aggregate => num!(p.aggregate_anno()),
            Field::WireLen => num!(p.len()),
            Field::IpLen => {
                let mut v = match self.ip {
                    Some(ip) => u32::from(get16(ip, 2)),
                    None => self.length() as u32,
                };
                if self.force_extra_length {
                    v = v.wrapping_add(p.extra_length_anno());
                }
                num!(v)
            }
            Field::IpCaptureLen => {
                let v = match self.ip {
                    Some(ip) => ip.len().min(usize::from(get16(ip, 2))),
                    None => self.length(),
                };
                num!(v)
            }
            Field::IpSrc
            | Field::IpDst
            | Field::IpTos
            | Field::IpDscp
            | Field::IpEcn
            | Field::IpTtl
            | Field::IpFrag
            | Field::IpFragoff
            | Field::IpId
            | Field::IpSum
            | Field::IpProto
            | Field::IpHl => {
                let need = match f {
                    Field::IpSrc => 16,
                    Field::IpDst => 20,
                    Field::IpTos | Field::IpDscp | Field::IpEcn => 2,
                    Field::IpTtl => 9,
                    Field::IpFrag | Field::IpFragoff => 8,
                    Field::IpId => 6,
                    Field::IpSum => 12,
                    Field::IpProto => 10,
                    _ => 1,
                };
                let Some(ip) = self.ip.filter(|ip| ip.len() >= need) else {
                    return self.missing(0, need);
                };
                match f {
                    Field::IpSrc => write_quad(out, &ip[12..16]),
                    Field::IpDst => write_quad(out, &ip[16..20]),
                    Field::IpTos => num!(ip[1]),
                    Field::IpDscp => num!(ip[1] >> 2),
                    Field::IpEcn => {
                        out.push_str(["no", "ect1", "ect2", "ce"][usize::from(ip[1] & 3)])
                    }
                    Field::IpTtl => num!(ip[8]),
                    Field::IpFrag => {
                        let off = get16(ip, 6);
                        out.push(if off & 0x3FFF != 0 {
                            if off & 0x1FFF == 0 {
                                'F'
                            } else {
                                'f'
                            }
                        } else if off & 0x4000 != 0 {
                            '!'
                        } else {
                            '.'
                        });
                    }
                    Field::IpFragoff => {
                        let v = get16(ip, 6);
                        let _ = write!(out, "{}", u32::from(v & 0x1FFF) << 3);
                        if v & 0x2000 != 0 {
                            out.push('+');
                        }
                        if v & 0x4000 != 0 {
                            out.push('!');
                        }
                    }
                    Field::IpId => num!(get16(ip, 4)),
                    Field::IpSum => num!(get16(ip, 10)),
                    Field::IpProto => match ip[9] {
                        6 => out.push('T'),
                        17 => out.push('U'),
                        1 => out.push('I'),
                        v => num!(v),
                    },
                    _ => num!(u32::from(ip[0] & 0xF) << 2),
                }
                true
            }
            Field::IpOpt => {
                let Some(ip) = self.ip else {
                    return self.missing(0, 20);
                };
                let hl = usize::from(ip[0] & 0xF) * 4;
                if hl > 20 && ip.len() < hl {
                    return self.missing(0, hl);
                }
                if hl <= 20 {
                    out.push('.');
                } else {
                    unparse_ip_opt(out, &ip[20..hl]);
                }
                true
            }
            Field::Sport | Field::Dport => {
                let need = if f == Field::Dport { 4 } else { 2 };
                if let Some(ip) = self.ip {
                    let hl = usize::from(ip[0] & 0xF) * 4;
                    let t = self.transport();
                    if ip.len() > hl
                        && get16(ip, 6) & 0x1FFF == 0
                        && has_ports(ip[9])
                        && t.len() >= need
                    {
                        num!(get16(t, need - 2));
                    }
                }
                self.missing(-1, need)
            }
            Field::TcpSeq
            | Field::TcpAck
            | Field::TcpFlags
            | Field::TcpOff
            | Field::TcpWindow
            | Field::TcpUrp => {
                let need = match f {
                    Field::TcpSeq => 8,
                    Field::TcpAck => 12,
                    Field::TcpFlags => 14,
                    Field::TcpOff => 13,
                    Field::TcpWindow => 16,
                    _ => 20,
                };
                if !self.tcp || self.transport_len() < need {
                    return self.missing(6, need);
                }
                let t = self.transport();
                match f {
                    Field::TcpSeq => num!(get32(t, 4)),
                    Field::TcpAck => num!(get32(t, 8)),
                    Field::TcpOff => num!(u32::from(t[12] >> 4) << 2),
                    Field::TcpWindow => num!(get16(t, 14)),
                    Field::TcpUrp => num!(get16(t, 18)),
                    _ => {
                        let v = u32::from(t[13]) | (u32::from(t[12] & 0xF) << 8);
                        if v == 0x18 {
                            out.push_str("PA");
                        } else if v == 0x10 {
                            out.push('A');
                        } else if v == 0 {
                            out.push('.');
                        } else {
                            for (bit, c) in "FSRPAUECN".chars().enumerate() {
                                if v & (1 << bit) != 0 {
                                    out.push(c);
                                }
                            }
                        }
                        true
                    }
                }
            }
            Field::TcpOpt | Field::TcpNtopt | Field::TcpSack => {
                let tl = self.transport_len();
                if !self.tcp || tl < 13 {
                    return self.missing(6, tl + 1);
                }
                let t = self.transport();
                let off = usize::from(t[12] >> 4) * 4;
                let none = if f == Field::TcpOpt {
                    off <= 20
                } else {
                    off <= 20 || (off == 32 && tl >= 24 && get32(t, 20) == 0x0101_080A)
                };
                if !none && tl < off {
                    return self.missing(6, tl + 1);
                }
                if none {
                    out.push('.');
                } else {
                    let mask = match f {
                        Field::TcpOpt => TCPOPT_ALL_NOPAD,
                        Field::TcpNtopt => TCPOPT_NTALL,
                        _ => TCPOPT_SACK,
                    };
                    unparse_tcp_opt(out, &t[20..off], mask);
                }
                true
            }
            Field::UdpLen => {
                if !self.udp || self.transport_len() < 6 {
                    return self.missing(17, 6);
                }
                num!(get16(self.transport(), 4))
            }
            Field::IcmpType | Field::IcmpTypeName | Field::IcmpCode | Field::IcmpCodeName => {
                let need = if matches!(f, Field::IcmpType | Field::IcmpTypeName) {
                    1
                } else {
                    2
                };
                if !self.icmp || self.transport_len() < need {
                    return self.missing(1, need);
                }
                let t = self.transport();
                match f {
                    Field::IcmpType => num!(t[0]),
                    Field::IcmpCode => num!(t[1]),
                    Field::IcmpTypeName => match icmp::type_name(t[0]) {
                        Some(n) => out.push_str(n),
                        None => num!(t[0]),
                    },
                    _ => match icmp::code_name(t[0], t[1]) {
                        Some(n) => out.push_str(n),
                        None => num!(t[1]),
                    },
                }
                true
            }
            Field::IcmpFlowid | Field::IcmpSeq | Field::IcmpNextmtu => {
                if !self.icmp || self.transport_len() < 2 {
                    return self.missing(1, 2);
                }
                let t = self.transport();
                let ok = if f == Field::IcmpNextmtu {
                    t[0] == 3 && t[1] == 4
                } else {
                    icmp_has_flow(t[0])
                };
                if !ok {
                    return false;
                }
                let need = if f == Field::IcmpFlowid { 6 } else { 8 };
                if t.len() < need {
                    return self.missing(1, need);
                }
                num!(get16(t, need - 2))
            }
            Field::PayloadLen | Field::Payload | Field::PayloadMd5 | Field::PayloadMd5Hex => {
                let (off, mut len) = self.payload_info();
                if f == Field::PayloadLen {
                    if self.ip.is_none() || self.force_extra_length {
                        len = len.wrapping_add(p.extra_length_anno());
                    }
                    num!(len);
                }
                if !(len == 0 || (off >= 0 && (off as usize) < p.len())) {
                    return false;
                }
                let dl = self.length() as i64;
                let mut l = i64::from(len);
                if off + l > dl {
                    l = dl - off;
                }
                let bytes: &[u8] = if l <= 0 || off < 0 {
                    &[]
                } else {
                    p.data()
                        .get(off as usize..(off + l) as usize)
                        .unwrap_or(&[])
                };
                match f {
                    Field::Payload => quote_bytes(out, bytes),
                    Field::PayloadMd5Hex => {
                        for b in md5(bytes) {
                            let _ = write!(out, "{b:02x}");
                        }
                    }
                    _ => md5_text(out, &md5(bytes)),
                }
                true
            }
        }
    }

    fn payload_info(&self) -> (i64, u32) {
        match self.ip {
            Some(ip) => {
                let mut len = u32::from(get16(ip, 2));
                let nh_off = self.p.network_header_offset().unwrap_or(0) as i64;
                let mut off = self.p.transport_header_offset().unwrap_or(nh_off as isize) as i64;
                if get16(ip, 6) & 0x1FFF == 0 {
                    match ip.get(9).copied().unwrap_or(0) {
                        PROTO_TCP => {
                            let t = self.transport();
                            let doff = t.get(12).map(|b| usize::from(b >> 4) * 4).unwrap_or(0);
                            if t.len() >= 13 && doff >= 20 {
                                off += doff as i64;
                            } else {
                                off += 20;
                            }
                        }
                        PROTO_UDP | PROTO_UDPLITE => off += 8,
                        _ => {}
                    }
                }
                len = len.wrapping_sub((off - nh_off) as u32);
                (off, len)
            }
            None => (0, self.length() as u32),
        }
    }
}

// ---------------------------------------------------------------------------
// Binary dumps (`!binary`): per-field encodings, as Click's `outb`/`inb`

/// How a field is encoded in a binary dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinKind {
    /// No bytes.
    Zero,
    /// One byte.
    B1,
    /// Two bytes, big-endian.
    B2,
    /// Four bytes, big-endian.
    B4,
    /// Four bytes in network order (addresses).
    B4Net,
    /// Eight bytes.
    B8,
    /// Sixteen bytes (MD5 digests).
    B16,
    /// Length-prefixed (options).
    Special,
    /// The field cannot appear in binary dumps.
    NotAllowed,
}

impl Field {
    /// The field's binary encoding.
    pub fn binary_kind(self) -> BinKind {
        use Field::*;
        match self {
            None => BinKind::Zero,
            Timestamp | NTimestamp | TsUsec1 | FirstTimestamp | FirstNTimestamp => BinKind::B8,
            TsSec | TsUsec | Count | Aggregate | WireLen | IpLen | IpCaptureLen | TcpSeq
            | TcpAck | PayloadLen => BinKind::B4,
            Link | Paint | Direction | IpTos | IpDscp | IpEcn | IpTtl | IpFrag | IpProto | IpHl
            | TcpOff | TcpFlags | IcmpType | IcmpCode | IcmpTypeName | IcmpCodeName => BinKind::B1,
            IpFragoff | IpId | IpSum | Sport | Dport | TcpWindow | TcpUrp | UdpLen | IcmpFlowid
            | IcmpSeq | IcmpNextmtu => BinKind::B2,
            IpSrc | IpDst => BinKind::B4Net,
            IpOpt | TcpOpt | TcpNtopt | TcpSack => BinKind::Special,
            PayloadMd5 | PayloadMd5Hex => BinKind::B16,
            Payload => BinKind::NotAllowed,
        }
    }

    /// Whether a binary dump reader can decode the field.
    pub fn binary_readable(self) -> bool {
        self.binary_kind() != BinKind::NotAllowed
            && (self == Field::None || self.read_order().is_some())
    }
}

/// Appends IP options in binary form: the raw options with a length byte,
/// then (as Click does) the copied options up to the end-of-list marker.
fn ip_opt_binary(out: &mut Vec<u8>, opts: &[u8]) {
    out.push(opts.len() as u8);
    out.extend_from_slice(opts);
    let start = out.len();
    out.push(0);
    let mut i = 0;
    while i < opts.len() {
        match opts[i] {
            IPOPT_EOL => {
                out.push(IPOPT_EOL);
                break;
            }
            IPOPT_NOP => {
                out.push(IPOPT_NOP);
                i += 1;
                continue;
            }
            _ => {}
        }
        let l = opts.get(i + 1).copied().map_or(0, usize::from);
        if l < 2 || i + l > opts.len() {
            break;
        }
        // Click writes IP options with the full mask: every kind is kept
        out.extend_from_slice(&opts[i..i + l]);
        i += l;
    }
    out[start] = (out.len() - start - 1) as u8;
}

/// Appends TCP options in binary form for `mask` (Click's
/// `unparse_tcp_opt_binary`).
fn tcp_opt_binary(out: &mut Vec<u8>, opts: &[u8], mask: u32) {
    if mask == TCPOPT_ALL {
        out.push(opts.len() as u8);
        out.extend_from_slice(opts);
    }
    let start = out.len();
    out.push(0);
    let mut i = 0;
    while i < opts.len() {
        match opts[i] {
            0 => {
                if mask & TCPOPT_PADDING != 0 {
                    out.push(0);
                }
                break;
            }
            1 => {
                if mask & TCPOPT_PADDING != 0 {
                    out.push(1);
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        let l = opts.get(i + 1).copied().map_or(0, usize::from);
        if l < 2 || i + l > opts.len() {
            break;
        }
        let content = match opts[i] {
            2 => TCPOPT_MSS,
            3 => TCPOPT_WSCALE,
            4 | 5 => TCPOPT_SACK,
            8 => TCPOPT_TIMESTAMP,
            _ => TCPOPT_UNKNOWN,
        };
        if mask & content != 0 {
            out.extend_from_slice(&opts[i..i + l]);
        }
        i += l;
    }
    out[start] = (out.len() - start - 1) as u8;
}

impl Desc<'_> {
    /// Appends field `f` in binary form. `scratch` is a work buffer; a
    /// missing field is written as zeros (one zero byte for options).
    pub fn write_binary(&mut self, f: Field, out: &mut Vec<u8>, scratch: &mut String) {
        scratch.clear();
        let ok = self.write(f, scratch);
        let p = self.p;
        let kind = f.binary_kind();
        let ip = if ok { self.ip } else { None };
        let t = self.transport();
        let v: u64 = if !ok {
            0
        } else {
            match f {
                Field::Timestamp | Field::FirstTimestamp => {
                    let ts = if f == Field::Timestamp {
                        p.timestamp_anno()
                    } else {
                        p.first_timestamp_anno()
                    };
                    ((ts.sec() as u32 as u64) << 32) | u64::from(ts.subsec_nsec() / 1000)
                }
                Field::NTimestamp | Field::FirstNTimestamp => {
                    let ts = if f == Field::NTimestamp {
                        p.timestamp_anno()
                    } else {
                        p.first_timestamp_anno()
                    };
                    (u64::from(ts.subsec_nsec()) << 32) | (ts.sec() as u32 as u64)
                }
                Field::TsUsec1 => {
                    let ts = p.timestamp_anno();
                    let v3 = (ts.sec() as u64)
                        .wrapping_mul(1_000_000)
                        .wrapping_add(u64::from(ts.subsec_usec()));
                    // Click writes the low word first
                    v3.rotate_right(32)
                }
                Field::Link | Field::Paint | Field::Direction => u64::from(p.paint_anno()),
                Field::IpSrc => ip.map_or(0, |ip| u64::from(get32(ip, 12))),
                Field::IpDst => ip.map_or(0, |ip| u64::from(get32(ip, 16))),
                Field::IpTos => ip.map_or(0, |ip| u64::from(ip[1])),
                Field::IpDscp => ip.map_or(0, |ip| u64::from(ip[1] >> 2)),
                Field::IpEcn => ip.map_or(0, |ip| u64::from(ip[1] & 3)),
                Field::IpTtl => ip.map_or(0, |ip| u64::from(ip[8])),
                Field::IpFrag => u64::from(scratch.as_bytes().first().copied().unwrap_or(0)),
                Field::IpFragoff => ip.map_or(0, |ip| u64::from(get16(ip, 6))),
                Field::IpId => ip.map_or(0, |ip| u64::from(get16(ip, 4))),
                Field::IpSum => ip.map_or(0, |ip| u64::from(get16(ip, 10))),
                Field::IpProto => ip.map_or(0, |ip| u64::from(ip[9])),
                Field::Sport => u64::from(get16(t, 0)),
                Field::Dport => u64::from(get16(t, 2)),
                Field::TcpSeq => u64::from(get32(t, 4)),
                Field::TcpAck => u64::from(get32(t, 8)),
                Field::TcpFlags => u64::from(t.get(13).copied().unwrap_or(0)),
                Field::TcpWindow => u64::from(get16(t, 14)),
                Field::TcpUrp => u64::from(get16(t, 18)),
                Field::UdpLen => u64::from(get16(t, 4)),
                Field::IcmpType | Field::IcmpTypeName => u64::from(t.first().copied().unwrap_or(0)),
                Field::IcmpCode | Field::IcmpCodeName => u64::from(t.get(1).copied().unwrap_or(0)),
                Field::IcmpFlowid => u64::from(get16(t, 4)),
                Field::IcmpSeq | Field::IcmpNextmtu => u64::from(get16(t, 6)),
                _ => {
                    // numeric fields whose text is the value
                    scratch.parse::<u64>().unwrap_or(0)
                }
            }
        };
        match kind {
            BinKind::Zero | BinKind::NotAllowed => {}
            BinKind::B1 => out.push(v as u8),
            BinKind::B2 => out.extend_from_slice(&(v as u16).to_be_bytes()),
            BinKind::B4 | BinKind::B4Net => out.extend_from_slice(&(v as u32).to_be_bytes()),
            BinKind::B8 => {
                out.extend_from_slice(&((v >> 32) as u32).to_be_bytes());
                out.extend_from_slice(&(v as u32).to_be_bytes());
            }
            BinKind::B16 => {
                let digest = if ok {
                    let (off, len) = self.payload_info();
                    let dl = self.length() as i64;
                    let mut l = i64::from(len);
                    if off + l > dl {
                        l = dl - off;
                    }
                    let bytes: &[u8] = if l <= 0 || off < 0 {
                        &[]
                    } else {
                        p.data()
                            .get(off as usize..(off + l) as usize)
                            .unwrap_or(&[])
                    };
                    md5(bytes)
                } else {
                    md5(&[])
                };
                out.extend_from_slice(&digest);
            }
            BinKind::Special => {
                if !ok {
                    out.push(0);
                    return;
                }
                if f == Field::IpOpt {
                    let opts = match self.ip {
                        Some(ip) => {
                            let hl = usize::from(ip[0] & 0xF) * 4;
                            ip.get(20..hl).unwrap_or(&[])
                        }
                        None => &[],
                    };
                    ip_opt_binary(out, opts);
                    return;
                }
                let off = t.get(12).map_or(0, |b| usize::from(b >> 4) * 4);
                let tl = t.len();
                let none = if f == Field::TcpOpt {
                    off <= 20
                } else {
                    off <= 20 || (off == 32 && tl >= 24 && get32(t, 20) == 0x0101_080A)
                };
                match t.get(20..off) {
                    Some(opts) if !none && !opts.is_empty() => {
                        let mask = match f {
                            Field::TcpOpt => TCPOPT_ALL,
                            Field::TcpNtopt => TCPOPT_NTALL,
                            _ => TCPOPT_SACK,
                        };
                        tcp_opt_binary(out, opts, mask);
                    }
                    _ => out.push(0),
                }
            }
        }
    }
}

/// Splits a binary record's body into each field's start offset (Click's
/// argument scan); `None` marks a field that cannot be decoded.
pub fn binary_args(fields: &[Field], data: &[u8]) -> Vec<Option<usize>> {
    let mut args = Vec::with_capacity(fields.len());
    let mut pos = 0usize;
    for &f in fields {
        let n = match f.binary_kind() {
            _ if !f.binary_readable() => {
                args.push(None);
                pos = data.len();
                continue;
            }
            BinKind::Zero => 0,
            BinKind::B1 => 1,
            BinKind::B2 => 2,
            BinKind::B4 | BinKind::B4Net => 4,
            BinKind::B8 => 8,
            BinKind::B16 => 16,
            BinKind::Special => {
                args.push(Some(pos));
                pos = match data.get(pos) {
                    Some(&l) if pos + usize::from(l) < data.len() => pos + usize::from(l) + 1,
                    _ => data.len(),
                };
                continue;
            }
            BinKind::NotAllowed => 0,
        };
        if pos + n <= data.len() {
            args.push(Some(pos));
            pos += n;
        } else {
            args.push(None);
            pos = data.len();
        }
    }
    args
}

/// Decodes field `f` starting at `data[at..]` (Click's `inb`); `None`
/// means there is nothing to inject.
pub fn decode_binary(f: Field, data: &[u8], at: usize) -> Option<Val> {
    let s = data.get(at..).unwrap_or(&[]);
    let be = |n: usize| -> u64 {
        s.get(..n)
            .map_or(0, |b| b.iter().fold(0u64, |a, &x| (a << 8) | u64::from(x)))
    };
    match f {
        Field::None | Field::Payload | Field::PayloadMd5 | Field::PayloadMd5Hex => None,
        Field::Timestamp | Field::FirstTimestamp => {
            let (sec, usec) = if s.len() >= 8 {
                (get32(s, 0), get32(s, 4).wrapping_mul(1000))
            } else {
                (0, 0)
            };
            Some(Val::Ts(Timestamp::from_sec_nsec(
                i64::from(sec),
                i64::from(usec),
            )))
        }
        Field::NTimestamp | Field::FirstNTimestamp => {
            let (nsec, sec) = if s.len() >= 8 {
                (get32(s, 0), get32(s, 4))
            } else {
                (0, 0)
            };
            Some(Val::Ts(Timestamp::from_sec_nsec(
                i64::from(sec),
                i64::from(nsec),
            )))
        }
        Field::TsUsec1 => {
            // Click reads the first word as the high half
            Some(Val::U64(if s.len() >= 8 { be(8) } else { 0 }))
        }
        Field::IpOpt | Field::TcpOpt | Field::TcpNtopt | Field::TcpSack => {
            let l = usize::from(*s.first()?);
            let opts = s.get(1..1 + l)?;
            Some(Val::Bytes(opts.to_vec()))
        }
        _ => {
            let n = match f.binary_kind() {
                BinKind::B1 => 1,
                BinKind::B2 => 2,
                _ => 4,
            };
            Some(Val::U(if s.len() >= n { be(n) as u32 } else { 0 }))
        }
    }
}

// ---------------------------------------------------------------------------
// MD5 (RFC 1321), for the payload_md5 fields

/// The MD5 digest of `data`.
pub fn md5(data: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32)
        .collect();
    let mut a0: u32 = 0x6745_2301;
    let mut b0: u32 = 0xefcd_ab89;
    let mut c0: u32 = 0x98ba_dcfe;
    let mut d0: u32 = 0x1032_5476;
    let mut msg = data.to_vec();
    let bitlen = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bitlen.to_le_bytes());
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk
            .chunks(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f2 = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f2.rotate_left(S[i]));
        }
        a0 = a0.wrapping_add(a);
        b0 = b0.wrapping_add(b);
        c0 = c0.wrapping_add(c);
        d0 = d0.wrapping_add(d);
    }
    let mut out = [0u8; 16];
    out[0..4].copy_from_slice(&a0.to_le_bytes());
    out[4..8].copy_from_slice(&b0.to_le_bytes());
    out[8..12].copy_from_slice(&c0.to_le_bytes());
    out[12..16].copy_from_slice(&d0.to_le_bytes());
    out
}

/// Click's `md5_finish_text` encoding (22 characters, `@` allowed).
pub fn md5_text(out: &mut String, digest: &[u8; 16]) {
    const ALPHABET: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@";
    let mut emitted = 0;
    for chunk in digest.chunks(3) {
        let mut v: u32 = 0;
        for (i, &b) in chunk.iter().enumerate() {
            v |= u32::from(b) << (8 * i);
        }
        let nchars = if chunk.len() == 3 { 4 } else { chunk.len() + 1 };
        for k in 0..nchars {
            out.push(ALPHABET[((v >> (6 * k)) & 63) as usize] as char);
            emitted += 1;
        }
    }
    debug_assert_eq!(emitted, 22);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_names() {
        assert_eq!(Field::find("src"), Some(Field::IpSrc));
        assert_eq!(Field::find("ts"), Some(Field::Timestamp));
        assert_eq!(Field::find("proto"), Some(Field::IpProto));
        assert_eq!(Field::find("ip len"), Some(Field::IpLen));
        assert_eq!(Field::find("bogus_field"), None);
        assert_eq!(Field::find("src").map(Field::name), Some("ip_src"));
    }

    #[test]
    fn md5_known() {
        let mut s = String::new();
        md5_text(&mut s, &md5(b""));
        assert_eq!(s, "u3bJz@iaYsq6aMaMSJVq_b");
        let hex: String = md5(b"hi there\n")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, "12f6bb1941df66b8f138a446d4e8670c");
        let mut s = String::new();
        md5_text(&mut s, &md5(b"hi there\n"));
        assert_eq!(s, "sy@Uze03MHB84qQruJ_zma");
    }

    #[test]
    fn ip_opt_round_trip() {
        let cases = [
            (
                "ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}",
                "ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}",
            ),
            (
                "ssrr{128.4.45.60,128.4.49.61,^1.1.1.1,2.2.2.2}",
                "ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}",
            ),
            ("rr{2.3.4.5}+3", "rr{2.3.4.5}+3"),
            ("rr{}+1", "rr{}+1"),
            (
                "ts{1.0.0.1=!8320,1.0.0.2=8321}++5",
                "ts.ip{1.0.0.1=!8320,1.0.0.2=8321^}++5",
            ),
            (
                "ts.3{1.0.0.1=1,^1.0.0.3,1.0.0.4=?}+1",
                "ts.preip{1.0.0.1=1^1.0.0.3,1.0.0.4,0.0.0.0}",
            ),
            ("ts{1,10000,!45}+2", "ts{1,10000,!45}+2"),
            ("ts{1,10000,!45^0,0};rr{}+1", "ts{1,10000,!45}+2;rr{}+1"),
            ("nop;nop;eol", "."),
        ];
        for (input, want) in cases {
            let b = parse_ip_opt(input).unwrap_or_else(|| panic!("parse {input}"));
            let mut s = String::new();
            unparse_ip_opt(&mut s, &b);
            assert_eq!(s, want, "{input}");
        }
    }

    #[test]
    fn tcp_opt_round_trip() {
        let b = parse_tcp_opt("mss1460,sackok,wscale10,ts1:2,sack1-2", TCPOPT_ALL).unwrap();
        let mut s = String::new();
        unparse_tcp_opt(&mut s, &b, TCPOPT_ALL_NOPAD);
        assert_eq!(s, "mss1460;sackok;wscale10;ts1:2;sack1-2");
    }

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Every field of `data`, marked as MarkIPHeader marks it (header
    /// length from the first byte, unchecked).
    fn summarize_all(data: &[u8]) -> String {
        let mut out = String::new();
        for want_bad in [false, true] {
            let mut p = Packet::from_slice(data);
            let hl = data.first().map_or(20, |b| usize::from(b & 0xF) * 4);
            p.set_ip_header(0, hl);
            let mut d = prepare(&mut p, true, false, want_bad, true);
            for &(_, f, _) in TABLE {
                d.write(f, &mut out);
                out.push(' ');
            }
        }
        out
    }

    /// IP (with a timestamp option), TCP with options, UDP and ICMP
    /// packets; each cut at every length and each byte set to 0x00, 0x0F,
    /// 0x44 and 0xFF, through every field: nothing may panic.
    #[test]
    fn truncated_and_mutated_packets_never_panic() {
        let packets = [
            // IP, ts option with flag 15 whose one entry ends the header
            "4700 0020 0000 0000 4011 0000 0a000001 0a000002 4408090f01020304 00000000",
            // IP with rr and ts options, then TCP with mss, sackok, ts, sack
            "4800 0048 0001 0000 4006 0000 0a000001 0a000002 0707040102030400 44080d01
             0400 0050 00000001 00000002 a012 ffff 0000 0000 0204 05b4 0402 080a 00000001 00000002
             0101 050a 00000003 00000004 6869",
            // UDP with 4 payload bytes
            "4500 0020 0002 0000 4011 0000 0a000001 0a000002 0035 0035 000c 0000 61626364",
            // ICMP fragmentation needed (next MTU)
            "4500 0024 0003 0000 4001 0000 0a000001 0a000002 0304 0000 0000 05dc 45000014 00000000",
            // ICMP echo, non-first fragment
            "4500 0020 0004 0010 4001 0000 0a000001 0a000002 0800 0000 1234 0001 00000000",
        ];
        for text in packets {
            let base = hex(text);
            for cut in 0..=base.len() {
                summarize_all(&base[..cut]);
            }
            for i in 0..base.len() {
                for v in [0x00, 0x0F, 0x44, 0xFF] {
                    let mut m = base.clone();
                    m[i] = v;
                    summarize_all(&m);
                    summarize_all(&m[..m.len() - 2]);
                }
            }
        }
    }

    #[test]
    fn timestamp_option_with_undefined_flag() {
        // flag 15, one 4-byte entry: the address fits, its stamp does not
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("4408090f01020304"));
        assert_eq!(s, "ts.15{}");
        // room for address and stamp: printed as Click does
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("440c090f0102030405060708"));
        assert_eq!(s, "ts.15{1.2.3.4=84281096}");
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("440c050f0102030405060708"));
        assert_eq!(s, "ts.15{}+2");
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("440c0d0f0102030405060708"));
        assert_eq!(s, "ts.15{1.2.3.4=84281096^}");
    }
}
