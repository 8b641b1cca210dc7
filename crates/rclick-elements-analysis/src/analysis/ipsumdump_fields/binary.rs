//! Binary dumps (`!binary`): each field's encoding, as Click's
//! `outb`/`inb`.

use rclick_packet::Timestamp;
use rclick_wire::{IcmpPrefix, Ipv4Prefix, TcpPrefix, UdpPrefix};

use super::*;

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
pub(crate) fn ip_opt_binary(out: &mut Vec<u8>, opts: &[u8]) {
    out.push(opts.len() as u8);
    out.extend_from_slice(opts);
    // Click writes IP options with the full mask: every kind is kept
    copy_options(out, opts, true, |_| true);
}

/// Appends TCP options in binary form for `mask` (Click's
/// `unparse_tcp_opt_binary`).
pub(crate) fn tcp_opt_binary(out: &mut Vec<u8>, opts: &[u8], mask: u32) {
    if mask == TCPOPT_ALL {
        out.push(opts.len() as u8);
        out.extend_from_slice(opts);
    }
    copy_options(out, opts, mask & TCPOPT_PADDING != 0, |kind| {
        let content = match kind {
            2 => TCPOPT_MSS,
            3 => TCPOPT_WSCALE,
            4 | 5 => TCPOPT_SACK,
            8 => TCPOPT_TIMESTAMP,
            _ => TCPOPT_UNKNOWN,
        };
        mask & content != 0
    });
}

/// Appends a length byte and the options of `opts` (IP's or TCP's: kind 0
/// ends the list, kind 1 is one byte of padding, any other kind is followed
/// by its length) that `keep` keeps by kind, up to the end of the list or
/// the first option whose length is bad; the padding kinds only when
/// `padding`.
fn copy_options(out: &mut Vec<u8>, opts: &[u8], padding: bool, keep: impl Fn(u8) -> bool) {
    let start = out.len();
    out.push(0);
    let mut i = 0;
    while i < opts.len() {
        match opts[i] {
            IPOPT_EOL => {
                if padding {
                    out.push(IPOPT_EOL);
                }
                break;
            }
            IPOPT_NOP => {
                if padding {
                    out.push(IPOPT_NOP);
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
        if keep(opts[i]) {
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
                Field::IpSrc => ip
                    .and_then(|ip| Ipv4Prefix::new(ip).src_addr())
                    .map_or(0, |a| u64::from(u32::from(a))),
                Field::IpDst => ip
                    .and_then(|ip| Ipv4Prefix::new(ip).dst_addr())
                    .map_or(0, |a| u64::from(u32::from(a))),
                Field::IpTos => ip.map_or(0, |ip| u64::from(ip[1])),
                Field::IpDscp => ip.map_or(0, |ip| u64::from(ip[1] >> 2)),
                Field::IpEcn => ip.map_or(0, |ip| u64::from(ip[1] & 3)),
                Field::IpTtl => ip.map_or(0, |ip| u64::from(ip[8])),
                Field::IpFrag => u64::from(scratch.as_bytes().first().copied().unwrap_or(0)),
                Field::IpFragoff => ip.map_or(0, |ip| u64::from(ip_frag_word(ip))),
                Field::IpId => {
                    ip.map_or(0, |ip| u64::from(Ipv4Prefix::new(ip).ident().unwrap_or(0)))
                }
                Field::IpSum => ip.map_or(0, |ip| {
                    u64::from(Ipv4Prefix::new(ip).checksum().unwrap_or(0))
                }),
                Field::IpProto => ip.map_or(0, |ip| u64::from(ip[9])),
                Field::Sport => u64::from(UdpPrefix::new(t).src_port().unwrap_or(0)),
                Field::Dport => u64::from(UdpPrefix::new(t).dst_port().unwrap_or(0)),
                Field::TcpSeq => u64::from(TcpPrefix::new(t).seq_number().unwrap_or(0)),
                Field::TcpAck => u64::from(TcpPrefix::new(t).ack_number().unwrap_or(0)),
                Field::TcpFlags => u64::from(t.get(13).copied().unwrap_or(0)),
                Field::TcpWindow => u64::from(TcpPrefix::new(t).window_len().unwrap_or(0)),
                Field::TcpUrp => u64::from(TcpPrefix::new(t).urgent_at().unwrap_or(0)),
                Field::UdpLen => u64::from(UdpPrefix::new(t).length().unwrap_or(0)),
                Field::IcmpType | Field::IcmpTypeName => u64::from(t.first().copied().unwrap_or(0)),
                Field::IcmpCode | Field::IcmpCodeName => u64::from(t.get(1).copied().unwrap_or(0)),
                Field::IcmpFlowid => u64::from(IcmpPrefix::new(t).echo_ident().unwrap_or(0)),
                Field::IcmpSeq | Field::IcmpNextmtu => {
                    u64::from(IcmpPrefix::new(t).echo_seq_no().unwrap_or(0))
                }
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
                    md5(self.payload_bytes(off, len))
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
                    off <= 20 || (off == 32 && tl >= 24 && starts_nop_nop_timestamp(&t[20..]))
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
            // the record's two words, seconds then microseconds
            let (sec, usec) = if s.len() >= 8 {
                let w = be(8);
                ((w >> 32) as u32, (w as u32).wrapping_mul(1000))
            } else {
                (0, 0)
            };
            Some(Val::Ts(Timestamp::from_sec_nsec(
                i64::from(sec),
                i64::from(usec),
            )))
        }
        Field::NTimestamp | Field::FirstNTimestamp => {
            // the record's two words, nanoseconds then seconds
            let (nsec, sec) = if s.len() >= 8 {
                let w = be(8);
                ((w >> 32) as u32, w as u32)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Options are copied whole up to the end-of-list marker, padding and
    /// kinds as asked, after the raw bytes when those are written; a bad
    /// length ends the copy.
    #[test]
    fn options_copied_by_kind_up_to_the_end() {
        let tcp = [1, 2, 4, 5, 0xb4, 3, 3, 7, 0, 9];
        let mut out = Vec::new();
        tcp_opt_binary(&mut out, &tcp, TCPOPT_ALL);
        let mut want = vec![10];
        want.extend_from_slice(&tcp);
        want.extend_from_slice(&[9, 1, 2, 4, 5, 0xb4, 3, 3, 7, 0]);
        assert_eq!(out, want);
        out.clear();
        tcp_opt_binary(&mut out, &tcp, TCPOPT_MSS);
        assert_eq!(out, [4, 2, 4, 5, 0xb4]);
        out.clear();
        ip_opt_binary(&mut out, &[1, IPOPT_RR, 3, 4, 0]);
        assert_eq!(out, [5, 1, IPOPT_RR, 3, 4, 0, 5, 1, IPOPT_RR, 3, 4, 0]);
        out.clear();
        tcp_opt_binary(&mut out, &[2, 9, 1], TCPOPT_NTALL);
        assert_eq!(out, [0]);
    }

    /// A packet's fields written in binary are found again by
    /// `binary_args` and decoded by `decode_binary`.
    #[test]
    fn binary_fields_round_trip() {
        let mut o = Odesc::new(0, None, MINOR_VERSION);
        for (f, text) in [
            (Field::IpSrc, "1.2.3.4"),
            (Field::IpDst, "5.6.7.8"),
            (Field::IpProto, "T"),
            (Field::Sport, "80"),
            (Field::Dport, "1024"),
            (Field::TcpSeq, "123456"),
        ] {
            let v = o.parse(f, text).unwrap();
            o.inject(f, v);
        }
        let mut p = o.finish(true);
        p.set_ip_header(0, 20);
        let fields = [Field::IpSrc, Field::Sport, Field::IpProto, Field::TcpSeq];
        let mut d = prepare(&mut p, true, false, false, true);
        let (mut out, mut scratch) = (Vec::new(), String::new());
        for f in fields {
            d.write_binary(f, &mut out, &mut scratch);
        }
        assert_eq!(out.len(), 4 + 2 + 1 + 4);
        let args = binary_args(&fields, &out);
        assert_eq!(args, vec![Some(0), Some(4), Some(6), Some(7)]);
        let got: Vec<String> = fields
            .iter()
            .zip(&args)
            .map(|(&f, a)| format!("{:?}", decode_binary(f, &out, a.unwrap())))
            .collect();
        assert_eq!(
            got,
            [
                format!("{:?}", Some(Val::U(0x0102_0304))),
                format!("{:?}", Some(Val::U(80))),
                format!("{:?}", Some(Val::U(6))),
                format!("{:?}", Some(Val::U(123_456))),
            ]
        );
        // a record cut short: the fields past the end are not decodable
        let args = binary_args(&fields, &out[..5]);
        assert_eq!(args, vec![Some(0), None, None, None]);
    }
}
