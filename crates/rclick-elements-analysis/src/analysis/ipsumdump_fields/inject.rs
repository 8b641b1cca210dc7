//! Injection: building a packet from a line's field texts (Click's
//! `PacketOdesc` and the fields' `inject` functions).

use std::net::Ipv4Addr;

use rclick_packet::{Packet, Timestamp};
use rclick_wire::checksum;
use rclick_wire::icmp;
use rclick_wire::{tcp, udp};
use rclick_wire::{IcmpPrefix, IpProtocol, Ipv4Packet, Ipv4Prefix, TcpPrefix, UdpPrefix};

use super::*;

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
    pub(crate) have_icmp_type: bool,
    pub(crate) have_icmp_code: bool,
    pub(crate) have_ip_hl: bool,
    pub(crate) have_tcp_hl: bool,
    pub(crate) default_proto: u8,
    /// The `!flowid` default.
    pub flowid: Option<&'a FlowId>,
    pub(crate) minor_version: i32,
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

pub(crate) fn has_ports(p: u8) -> bool {
    matches!(p, PROTO_TCP | PROTO_UDP | PROTO_DCCP | PROTO_UDPLITE)
}

pub(crate) fn icmp_header_len(t: u8) -> usize {
    match t {
        icmp::types::TIMESTAMP | icmp::types::TIMESTAMP_REPLY => 20,
        icmp::types::MASK_REQUEST | icmp::types::MASK_REPLY => 12,
        _ => 8,
    }
}

pub(crate) fn icmp_has_flow(t: u8) -> bool {
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

    pub(crate) fn ip_off(&self) -> u16 {
        self.ip_prefix().flags_frag_offset().unwrap_or(0)
    }
    /// The IP header's total length field, 0 while it is not there.
    fn ip_len(&self) -> u16 {
        self.ip_prefix().total_len().unwrap_or(0)
    }
    pub(crate) fn first_frag(&self) -> bool {
        self.ip_off() & 0x1FFF == 0
    }
    pub(crate) fn proto(&self) -> u8 {
        self.buf.get(9).copied().unwrap_or(0)
    }
    pub(crate) fn ip_hl_bytes(&self) -> usize {
        usize::from(self.buf.first().copied().unwrap_or(0) & 0xF) * 4
    }
    pub(crate) fn tlen(&self) -> usize {
        self.buf.len().saturating_sub(self.th)
    }
    /// The IP header's view: only once `make_ip` has made it (20 bytes at
    /// least).
    fn ip_view(&mut self) -> Ipv4Packet<&mut [u8]> {
        Ipv4Packet::new_unchecked(&mut self.buf[..])
    }
    /// The IP header as far as it is there.
    fn ip_prefix(&self) -> Ipv4Prefix<&[u8]> {
        Ipv4Prefix::new(&self.buf[..])
    }
    /// The transport header's bytes so far (a header built from text may
    /// be cut short: the transport views write only the fields that fit).
    fn transport(&self) -> &[u8] {
        self.buf.get(self.th..).unwrap_or_default()
    }
    fn transport_mut(&mut self) -> &mut [u8] {
        self.buf.get_mut(self.th..).unwrap_or_default()
    }
    fn tcp(&mut self) -> TcpPrefix<&mut [u8]> {
        TcpPrefix::new(self.transport_mut())
    }
    /// The ports, at the same place in TCP, UDP, UDP-Lite and DCCP, and
    /// UDP's length field.
    fn udp(&mut self) -> UdpPrefix<&mut [u8]> {
        UdpPrefix::new(self.transport_mut())
    }
    fn icmp(&mut self) -> IcmpPrefix<&mut [u8]> {
        IcmpPrefix::new(self.transport_mut())
    }
    /// The TCP header length field, 0 while it is not there.
    fn tcp_header_len(&self) -> usize {
        usize::from(TcpPrefix::new(self.transport()).header_len().unwrap_or(0))
    }
    pub(crate) fn grow_to(&mut self, n: usize) {
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
                let (proto, flowid) = (self.default_proto, self.flowid);
                let mut ip = self.ip_view();
                ip.set_version(4);
                ip.set_header_len(20);
                ip.set_protocol(IpProtocol(proto));
                ip.set_total_len(0);
                ip.set_flags_frag_offset(0);
                ip.set_ttl(100);
                if let Some(f) = flowid {
                    ip.set_src_addr(f.src);
                    ip.set_dst_addr(f.dst);
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
                self.tcp().set_header_len(tcp::HEADER_LEN as u8);
            }
            if let Some(f) = self.flowid {
                let mut ports = self.udp();
                ports.set_src_port(f.sport);
                ports.set_dst_port(f.dport);
            }
            if xlen as i64 > len {
                let newlen = (self.th as i64 + len).max(0) as usize;
                self.buf.truncate(newlen);
            }
        }
        true
    }

    pub(crate) fn payload_info(&self) -> (usize, u32) {
        if self.has_ip {
            let ip_len = u32::from(self.ip_len());
            let mut off = self.th;
            if self.first_frag() {
                match self.proto() {
                    PROTO_TCP => {
                        let doff = self.tcp_header_len();
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

    pub(crate) fn account_payload_len(&mut self, off: usize, plen: u32) {
        let ip_len_field = u32::from(self.ip_len());
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
            && self.tcp_header_len() == tcp::HEADER_LEN
        {
            let th_delta = ((delta - (delta & 3)) as usize).min(40);
            let at = self.th + 20;
            self.buf.splice(at..at, std::iter::repeat_n(0u8, th_delta));
            self.tcp().set_header_len((20 + th_delta) as u8);
            delta -= th_delta as i64;
        }
        if delta > 0 && !self.have_ip_hl && self.ip_hl_bytes() == 20 {
            let ip_delta = ((delta - (delta & 3)) as usize).min(40);
            self.buf.splice(20..20, std::iter::repeat_n(0u8, ip_delta));
            let mut ip = self.ip_view();
            ip.set_version(4);
            ip.set_header_len((20 + ip_delta) as u8);
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
                    let t = IcmpPrefix::new(self.transport()).icmp_type().unwrap_or(0);
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

    pub(crate) fn parse_fragoff(&self, s: &str) -> Option<u32> {
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
                let mut ports = self.udp();
                if f == Field::Sport {
                    ports.set_src_port(u as u16);
                } else {
                    ports.set_dst_port(u as u16);
                }
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
                self.grow_to(self.th + udp::HEADER_LEN);
                self.udp().set_length(u as u16);
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

    pub(crate) fn inject_ip(&mut self, f: Field, u: u32, v: Val) {
        if !self.make_ip(0) {
            return;
        }
        let mut ip = self.ip_view();
        match f {
            Field::IpSrc => ip.set_src_addr(Ipv4Addr::from(u)),
            Field::IpDst => ip.set_dst_addr(Ipv4Addr::from(u)),
            Field::IpTos => ip.set_tos(u as u8),
            Field::IpDscp => ip.set_dscp(u as u8),
            Field::IpEcn => ip.set_ecn(u as u8),
            Field::IpTtl => ip.set_ttl(u as u8),
            Field::IpFrag | Field::IpFragoff => ip.set_flags_frag_offset(u as u16),
            Field::IpId => ip.set_ident(u as u16),
            Field::IpSum => ip.set_checksum(u as u16),
            Field::IpProto => ip.set_protocol(IpProtocol(u as u8)),
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
                // the length field's four bits of `want`, as Click's do
                self.ip_view().set_header_len((want & 0x3C) as u8);
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
                    self.ip_view().set_header_len((ip_hl & 0x3C) as u8);
                }
                self.buf[20..20 + olen].copy_from_slice(&opt);
                for x in &mut self.buf[20 + olen..ip_hl] {
                    *x = 0;
                }
            }
            _ => {}
        }
    }

    pub(crate) fn inject_tcp(&mut self, f: Field, u: u32, v: Val) {
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
            Field::TcpSeq => {
                self.tcp().set_seq_number(u);
            }
            Field::TcpAck => {
                self.tcp().set_ack_number(u);
            }
            Field::TcpFlags => {
                self.tcp().set_flags_ext(u as u16);
            }
            Field::TcpOff => {
                let want = ((u + 3) & !3) as usize;
                let cur = self.tcp_header_len();
                if want > cur {
                    let more = want - cur;
                    let len = self.buf.len();
                    self.grow_to(len + more);
                }
                // the field's four bits of `want`, as Click's do
                self.tcp().set_header_len((want & 0x3C) as u8);
            }
            Field::TcpWindow => {
                self.tcp().set_window_len(u as u16);
            }
            Field::TcpUrp => {
                self.tcp().set_urgent_at(u as u16);
            }
            _ => {
                self.have_tcp_hl = true;
                let Val::Bytes(opt) = v else { return };
                if opt.is_empty() {
                    return;
                }
                let olen = opt.len();
                let th_off = (20 + olen + 3) & !3;
                self.grow_to(th + th_off);
                if th_off > self.tcp_header_len() {
                    self.tcp().set_header_len((th_off & 0x3C) as u8);
                }
                self.buf[th + 20..th + 20 + olen].copy_from_slice(&opt);
                for x in &mut self.buf[th + 20 + olen..th + th_off] {
                    *x = 0;
                }
            }
        }
    }

    pub(crate) fn inject_icmp(&mut self, f: Field, u: u32) {
        if !self.make_ip(PROTO_ICMP) || !self.make_transp() {
            return;
        }
        let th = self.th;
        self.grow_to(th + icmp::HEADER_LEN);
        let (t, c) = {
            let h = self.icmp();
            (h.icmp_type().unwrap_or(0), h.code().unwrap_or(0))
        };
        match f {
            Field::IcmpType | Field::IcmpTypeName => {
                self.icmp().set_icmp_type(u as u8);
                self.have_icmp_type = true;
                self.grow_to(th + icmp_header_len(u as u8));
            }
            Field::IcmpCode | Field::IcmpCodeName => {
                self.icmp().set_code(u as u8);
                self.have_icmp_code = true;
            }
            // the flow fields only where the type has them, the MTU only
            // in "fragmentation needed" (when type and code are known)
            Field::IcmpFlowid if !self.have_icmp_type || icmp_has_flow(t) => {
                self.icmp().set_echo_ident(u as u16);
            }
            Field::IcmpSeq if !self.have_icmp_type || icmp_has_flow(t) => {
                self.icmp().set_echo_seq_no(u as u16);
            }
            Field::IcmpNextmtu
                if (!self.have_icmp_type || t == 3) && (!self.have_icmp_code || c == 4) =>
            {
                self.icmp().set_next_hop_mtu(u as u16);
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
            let mut ip_len = u32::from(self.ip_len());
            if ip_len == 0 {
                ip_len = self.want_len;
                if ip_len > 0xFFFF {
                    ip_len = 0xFFFF;
                } else if ip_len == 0 {
                    ip_len = self.buf.len() as u32;
                }
                Ipv4Prefix::new(&mut self.buf[..]).set_total_len(ip_len as u16);
            }
            let hl = self.th;
            if self.proto() == PROTO_UDP
                && self.first_frag()
                && UdpPrefix::new(self.transport()).length() == Some(0)
            {
                self.udp().set_length(ip_len.wrapping_sub(hl as u32) as u16);
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
            if let Some(dst) = self.ip_prefix().dst_addr() {
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
            p.set_anno_u32(super::super::EXTRA_PACKETS_ANNO, c - 1);
        }
        if want > len {
            p.set_extra_length_anno((want - len) as u32);
        }
        p
    }

    pub(crate) fn set_checksums(&mut self) {
        let hl = self.ip_hl_bytes().min(self.buf.len());
        self.ip_view().set_checksum(0);
        let s = checksum::internet_checksum(&self.buf[..hl]);
        self.ip_view().set_checksum(s);
        if self.ip_off() & 0x3FFF != 0 || self.buf.len() < self.th {
            return;
        }
        let ip = self.ip_prefix();
        let (Some(src), Some(dst)) = (ip.src_addr(), ip.dst_addr()) else {
            return;
        };
        let tl = self.tlen();
        let proto = self.proto();
        // The transport checksum, if the header reaches it.
        let set = |t: &mut [u8], v: u16| match proto {
            PROTO_TCP => TcpPrefix::new(t).set_checksum(v),
            PROTO_UDP => UdpPrefix::new(t).set_checksum(v),
            _ => IcmpPrefix::new(t).set_checksum(v),
        };
        let at = match proto {
            PROTO_TCP => tcp::field::CHECKSUM,
            PROTO_UDP => udp::field::CHECKSUM,
            PROTO_ICMP => icmp::field::CHECKSUM,
            _ => return,
        };
        if tl < at + 2 {
            return;
        }
        set(self.transport_mut(), 0);
        let body = checksum::sum(self.transport());
        let csum = if proto == PROTO_ICMP {
            !body
        } else {
            let ph = checksum::pseudo_header_v4(src, dst, proto, tl as u16);
            !checksum::combine(&[body, ph])
        };
        set(self.transport_mut(), csum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields of a UDP packet injected one by one, then extracted again:
    /// the text round-trips and the checksums are right.
    #[test]
    fn injected_fields_extract_again() {
        let fields = [
            (Field::IpSrc, "1.2.3.4"),
            (Field::IpDst, "5.6.7.8"),
            (Field::IpProto, "U"),
            (Field::Sport, "53"),
            (Field::Dport, "1024"),
            (Field::IpTtl, "9"),
            (Field::IpId, "77"),
            (Field::PayloadLen, "4"),
        ];
        let mut o = Odesc::new(0, None, MINOR_VERSION);
        for (f, text) in fields {
            let v = o.parse(f, text).unwrap_or_else(|| panic!("{f:?} {text}"));
            o.inject(f, v);
        }
        let mut p = o.finish(true);
        p.set_ip_header(0, 20);
        let ip = rclick_wire::ipv4::Ipv4Packet::new_checked(p.data()).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!(usize::from(ip.total_len()), p.len());
        let mut d = prepare(&mut p, true, false, false, true);
        let mut out = String::new();
        for (f, _) in fields {
            d.write(f, &mut out);
            out.push(' ');
        }
        assert_eq!(out, "1.2.3.4 5.6.7.8 U 53 1024 9 77 4 ");
    }

    fn build(fields: &[(Field, &str)]) -> Packet {
        let mut o = Odesc::new(0, None, MINOR_VERSION);
        for &(f, text) in fields {
            let v = o.parse(f, text).unwrap_or_else(|| panic!("{f:?} {text}"));
            o.inject(f, v);
        }
        o.finish(true)
    }

    /// An IP length that leaves room for 4 bytes of TCP header: the ports
    /// are written, the sequence number (past the end) is not, and the
    /// packet is not grown for it.
    #[test]
    fn cut_short_tcp_header_keeps_the_fields_that_fit() {
        let mut p = build(&[
            (Field::IpLen, "24"),
            (Field::IpProto, "T"),
            (Field::Sport, "80"),
            (Field::Dport, "1024"),
            (Field::TcpSeq, "7"),
            (Field::TcpWindow, "9"),
        ]);
        assert_eq!(p.len(), 24);
        assert_eq!(&p.data()[20..], &[0, 80, 4, 0]);
        let ip = Ipv4Packet::new_checked(p.data()).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!(ip.total_len(), 24);
        p.set_ip_header(0, 20);
        let mut d = prepare(&mut p, true, false, false, true);
        let mut out = String::new();
        assert!(d.write(Field::Dport, &mut out));
        assert_eq!(out, "1024");
        assert!(
            !d.write(Field::TcpSeq, &mut out),
            "no sequence number there"
        );

        // 13 bytes: the data offset fits (a 20-byte header), the flags
        // byte after it does not.
        let p = build(&[
            (Field::IpLen, "33"),
            (Field::IpProto, "T"),
            (Field::TcpFlags, "S"),
        ]);
        assert_eq!(p.len(), 33);
        assert_eq!(p.data()[32], 0x50);
        assert_eq!(&p.data()[20..32], &[0; 12]);
    }

    /// A UDP header cut after its ports gets no length field, and no
    /// checksum; a whole one gets both.
    #[test]
    fn cut_short_udp_header_gets_no_length() {
        let p = build(&[
            (Field::IpLen, "24"),
            (Field::IpProto, "U"),
            (Field::Sport, "53"),
        ]);
        assert_eq!(&p.data()[20..], &[0, 53, 0, 0]);
        let p = build(&[
            (Field::IpLen, "28"),
            (Field::IpProto, "U"),
            (Field::Sport, "53"),
        ]);
        let udp = rclick_wire::UdpPacket::new_checked(&p.data()[20..]).unwrap();
        assert_eq!(udp.len(), 8);
        assert!(udp.verify_checksum(
            std::net::Ipv4Addr::UNSPECIFIED,
            std::net::Ipv4Addr::UNSPECIFIED
        ));
    }

    /// ICMP fields land where the type has them, and nowhere else.
    #[test]
    fn icmp_fields_by_type() {
        let icmp = |fields: &[(Field, &str)]| build(fields).data()[20..].to_vec();
        let echo = icmp(&[
            (Field::IcmpType, "8"),
            (Field::IcmpFlowid, "258"),
            (Field::IcmpSeq, "3"),
            (Field::IcmpNextmtu, "1500"),
        ]);
        assert_eq!((echo[0], &echo[4..8]), (8, &[1, 2, 0, 3][..]));
        let frag = icmp(&[
            (Field::IcmpType, "3"),
            (Field::IcmpCode, "4"),
            (Field::IcmpFlowid, "258"),
            (Field::IcmpNextmtu, "1500"),
        ]);
        assert_eq!((frag[0], frag[1], &frag[4..8]), (3, 4, &[0, 0, 5, 220][..]));
        let ts = icmp(&[(Field::IpProto, "I"), (Field::IcmpType, "13")]);
        assert_eq!(ts.len(), 20, "a timestamp request's header");
        assert!(rclick_wire::IcmpPacket::new_checked(&ts[..])
            .unwrap()
            .verify_checksum());
    }

    #[test]
    fn bad_texts_do_not_parse() {
        let o = Odesc::new(0, None, MINOR_VERSION);
        assert!(o.parse(Field::IpSrc, "1.2.3").is_none());
        assert!(o.parse(Field::IpTtl, "256").is_none());
        assert!(o.parse(Field::Sport, "65536").is_none());
        assert!(o.parse(Field::Timestamp, "soon").is_none());
        assert!(matches!(o.parse(Field::Direction, "<"), Some(Val::U(1))));
    }
}
