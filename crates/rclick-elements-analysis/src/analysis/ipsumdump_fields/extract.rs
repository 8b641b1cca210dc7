//! Extraction: describing a packet and printing its fields (Click's
//! `PacketDesc` and the fields' `extract`/`outa` functions).

use std::fmt::Write as _;

use rclick_packet::Packet;
use rclick_wire::{icmp, tcp};
use rclick_wire::{IcmpPrefix, Ipv4Prefix, TcpPrefix, UdpPrefix};

use super::*;

/// The IP header's total length field, 0 if the header is cut off before it.
pub(crate) fn ip_total_len(ip: &[u8]) -> u16 {
    Ipv4Prefix::new(ip).total_len().unwrap_or(0)
}

/// The IP header's flags and fragment offset word, 0 if the header is cut
/// off before it.
pub(crate) fn ip_frag_word(ip: &[u8]) -> u16 {
    Ipv4Prefix::new(ip).flags_frag_offset().unwrap_or(0)
}

/// Whether TCP options `o` (from the header's byte 20) start with two
/// NOPs and a timestamp option, the common padding a summary's `tcp_ntopt`
/// leaves out.
pub(crate) fn starts_nop_nop_timestamp(o: &[u8]) -> bool {
    use tcp::option::{NOP, TIMESTAMP};
    o.starts_with(&[NOP, NOP, TIMESTAMP, 10])
}

/// A packet being summarized (Click's `PacketDesc`).
pub struct Desc<'a> {
    pub(crate) p: &'a Packet,
    /// Network header bytes (to the end of the data, minus tail padding).
    pub(crate) ip: Option<&'a [u8]>,
    pub(crate) tailpad: usize,
    pub(crate) tcp: bool,
    pub(crate) udp: bool,
    pub(crate) icmp: bool,
    pub(crate) force_extra_length: bool,
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
            } else if usize::from(ip_total_len(nh)) < usize::from(nh[0] & 0xF) * 4 {
                note(&mut bad, format!("IP length {}", ip_total_len(nh)));
            } else {
                ip_ok = true;
                let ip_len = usize::from(ip_total_len(nh));
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
                if ip_total_len(nh) != 0xFFFF || full <= 0xFFFF {
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
        let first = ip_frag_word(ip) & 0x1FFF == 0;
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
    pub(crate) fn note(&mut self, msg: String) {
        if let Some(b) = &mut self.bad {
            if b.is_empty() {
                b.push_str("!bad ");
                b.push_str(&msg);
                b.push('\n');
            }
        }
    }

    pub(crate) fn transport(&self) -> &[u8] {
        match self.p.transport_header() {
            Some(t) => &t[..t.len().saturating_sub(self.tailpad)],
            None => &[],
        }
    }

    pub(crate) fn transport_len(&self) -> usize {
        self.transport().len()
    }

    pub(crate) fn length(&self) -> usize {
        self.p.len().saturating_sub(self.tailpad)
    }

    /// Click's `field_missing`: records why a field is absent; returns false.
    pub(crate) fn missing(&mut self, proto: i32, l: usize) -> bool {
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
                } else if ip_frag_word(ip) & 0x1FFF != 0 {
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
                    num!(1 + u64::from(p.anno_u32(super::super::EXTRA_PACKETS_ANNO)));
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
                    Some(ip) => u32::from(ip_total_len(ip)),
                    None => self.length() as u32,
                };
                if self.force_extra_length {
                    v = v.wrapping_add(p.extra_length_anno());
                }
                num!(v)
            }
            Field::IpCaptureLen => {
                let v = match self.ip {
                    Some(ip) => ip.len().min(usize::from(ip_total_len(ip))),
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
                        let off = ip_frag_word(ip);
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
                        let v = ip_frag_word(ip);
                        let _ = write!(out, "{}", u32::from(v & 0x1FFF) << 3);
                        if v & 0x2000 != 0 {
                            out.push('+');
                        }
                        if v & 0x4000 != 0 {
                            out.push('!');
                        }
                    }
                    Field::IpId => num!(Ipv4Prefix::new(ip).ident().unwrap_or(0)),
                    Field::IpSum => num!(Ipv4Prefix::new(ip).checksum().unwrap_or(0)),
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
                        && ip_frag_word(ip) & 0x1FFF == 0
                        && has_ports(ip[9])
                        && t.len() >= need
                    {
                        let ports = UdpPrefix::new(t);
                        num!(if f == Field::Sport {
                            ports.src_port()
                        } else {
                            ports.dst_port()
                        }
                        .unwrap_or(0));
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
                    Field::TcpSeq => num!(TcpPrefix::new(t).seq_number().unwrap_or(0)),
                    Field::TcpAck => num!(TcpPrefix::new(t).ack_number().unwrap_or(0)),
                    Field::TcpOff => num!(u32::from(t[12] >> 4) << 2),
                    Field::TcpWindow => num!(TcpPrefix::new(t).window_len().unwrap_or(0)),
                    Field::TcpUrp => num!(TcpPrefix::new(t).urgent_at().unwrap_or(0)),
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
                    off <= 20 || (off == 32 && starts_nop_nop_timestamp(&t[20..]))
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
                num!(UdpPrefix::new(self.transport()).length().unwrap_or(0))
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
                let t = IcmpPrefix::new(t);
                num!(match f {
                    Field::IcmpFlowid => t.echo_ident(),
                    Field::IcmpSeq => t.echo_seq_no(),
                    _ => t.next_hop_mtu(),
                }
                .unwrap_or(0))
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
                let bytes = self.payload_bytes(off, len);
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

    /// The `len` payload bytes at `off`, cut at the packet's length.
    pub(crate) fn payload_bytes(&self, off: i64, len: u32) -> &[u8] {
        let dl = self.length() as i64;
        let l = i64::from(len).min(dl - off);
        if l <= 0 || off < 0 {
            &[]
        } else {
            self.p
                .data()
                .get(off as usize..(off + l) as usize)
                .unwrap_or(&[])
        }
    }

    pub(crate) fn payload_info(&self) -> (i64, u32) {
        match self.ip {
            Some(ip) => {
                let mut len = u32::from(ip_total_len(ip));
                let nh_off = self.p.network_header_offset().unwrap_or(0) as i64;
                let mut off = self.p.transport_header_offset().unwrap_or(nh_off as isize) as i64;
                if ip_frag_word(ip) & 0x1FFF == 0 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
