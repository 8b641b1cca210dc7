//! # AggregateIP
//!
//! ## Synopsis
//!
//! `AggregateIP(FIELD [, keywords INCREMENTAL])`
//!
//! ## Category
//!
//! analysis — sets the aggregate annotation from an IP or transport header
//! field.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs. Agnostic; output 1 is push.
//!
//! ## Description
//!
//! Sets each packet's aggregate annotation to the value of a header field,
//! in host byte order. `FIELD` is one of:
//!
//! * a field name: `ip vers`, `ip hl`, `ip tos`, `ip dscp`, `ip ecn`,
//!   `ip len`, `ip id`, `ip off` (the whole 16-bit word), `ip rf`, `ip df`,
//!   `ip mf`, `ip fragoff` (the 13-bit offset), `ip ttl`, `ip proto`,
//!   `ip sum`, `ip src`, `ip dst`; `tcp sport`, `tcp dport`, `tcp seq`
//!   (or `seqno`), `tcp ackno`, `tcp hl`, `tcp flags` (the 8-bit flags
//!   byte), `tcp fin`, `tcp syn`, `tcp rst`, `tcp psh`, `tcp ack` (the ACK
//!   flag), `tcp urg`, `tcp win`, `tcp sum`, `tcp urp`; `udp sport`,
//!   `udp dport`, `udp len`, `udp sum`; `icmp type`, `icmp code`,
//!   `icmp sum`;
//! * `ip[OFFSET:LENGTH]` or `ip[OFFSET]` (one byte): bytes relative to the
//!   IP header, which must lie within one aligned 4-byte word.
//!
//! Either form may be followed by `/PREFIX` (keep the top PREFIX bits of
//! the field, shifted down) and then `& MASK` (a contiguous bit mask; the
//! masked bits are shifted down to bit 0). So `ip src/8` gives the first
//! octet of the source address, and `ip[8:2] & 0x3F0` six bits of it.
//!
//! Packets that lack the field go to output 1 if it exists, and are
//! dropped otherwise (counted in `drops`): non-IP packets; for transport
//! fields, packets of another protocol, later fragments, and packets whose
//! aligned word holding the field is cut short.
//!
//! * `INCREMENTAL` (boolean, default false): accepted for Click
//!   compatibility (Click uses it to tell aggregate listeners about new
//!   values); refused for 32-bit fields, as Click does.
//!
//! ## Annotations
//!
//! Reads the network header; sets the aggregate annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets without the field that were dropped because
//!   output 1 does not exist (an rclick addition).
//!
//! ## Example
//!
//! `AggregateIP(ip src/24) -> AggregateCounter`
//!
//! ## See also
//!
//! AggregateIPFlows, AggregateLength, AggregateCounter

use rclick_core::args::{AnyArg, Args};
use rclick_core::drops::simple::divert_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::ipv4::Ipv4Packet;

/// Which header a field is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Header {
    Ip,
    /// A transport header of this IP protocol.
    Transport(u8),
}

/// A parsed field: `len` bits starting `bit` bits into the header, then
/// shifted right by `shift` after masking with `mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Field {
    header: Header,
    bit: u32,
    len: u32,
    mask: u32,
    shift: u32,
}

const SYNTAX: &str = "expected 'HEADER [NAME] [{OFFSET:LENGTH}] [/PREFIX] [& MASK]'";
const BAD_MASK: &str = "bad prefix or mask in TCP/IP field";

/// Bit offset and length of each named field.
fn named(header: &str, name: &str) -> Option<(Header, u32, u32)> {
    let (h, table): (Header, &[(&str, u32, u32)]) = match header {
        "ip" => (
            Header::Ip,
            &[
                ("vers", 0, 4),
                ("hl", 4, 4),
                ("tos", 8, 8),
                ("dscp", 8, 6),
                ("ecn", 14, 2),
                ("len", 16, 16),
                ("id", 32, 16),
                ("off", 48, 16),
                ("rf", 48, 1),
                ("df", 49, 1),
                ("mf", 50, 1),
                ("fragoff", 51, 13),
                ("ttl", 64, 8),
                ("proto", 72, 8),
                ("sum", 80, 16),
                ("src", 96, 32),
                ("dst", 128, 32),
            ],
        ),
        "tcp" => (
            Header::Transport(6),
            &[
                ("sport", 0, 16),
                ("dport", 16, 16),
                ("seq", 32, 32),
                ("seqno", 32, 32),
                ("ackno", 64, 32),
                ("hl", 96, 4),
                ("flags", 104, 8),
                ("urg", 106, 1),
                ("ack", 107, 1),
                ("psh", 108, 1),
                ("rst", 109, 1),
                ("syn", 110, 1),
                ("fin", 111, 1),
                ("win", 112, 16),
                ("sum", 128, 16),
                ("urp", 144, 16),
            ],
        ),
        "udp" => (
            Header::Transport(17),
            &[
                ("sport", 0, 16),
                ("dport", 16, 16),
                ("len", 32, 16),
                ("sum", 48, 16),
            ],
        ),
        "icmp" => (
            Header::Transport(1),
            &[("type", 0, 8), ("code", 8, 8), ("sum", 16, 16)],
        ),
        _ => return None,
    };
    table
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, b, l)| (h, b, l))
}

fn parse_num(s: &str) -> Option<u32> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

impl Field {
    /// Parses Click's field syntax.
    fn parse(spec: &str) -> Result<Field, String> {
        let (base, mask) = match spec.split_once('&') {
            Some((b, m)) => (b.trim(), Some(parse_num(m).ok_or(SYNTAX)?)),
            None => (spec.trim(), None),
        };
        let (base, prefix) = match base.split_once('/') {
            Some((b, p)) => (b.trim(), Some(parse_num(p).ok_or(SYNTAX)?)),
            None => (base, None),
        };
        let (header, bit, mut len) = if let Some(open) = base.find('[') {
            if base[..open].trim() != "ip" {
                return Err(SYNTAX.into());
            }
            let inner = base[open + 1..].strip_suffix(']').ok_or(SYNTAX)?;
            let (off, n) = match inner.split_once(':') {
                Some((o, n)) => (parse_num(o).ok_or(SYNTAX)?, parse_num(n).ok_or(SYNTAX)?),
                None => (parse_num(inner).ok_or(SYNTAX)?, 1),
            };
            if n == 0 || n > 4 || off / 4 != (off + n - 1) / 4 {
                return Err("field specification does not fit within a single word".into());
            }
            (Header::Ip, off * 8, n * 8)
        } else {
            let mut words = base.split_whitespace();
            let (Some(h), Some(n), None) = (words.next(), words.next(), words.next()) else {
                return Err(SYNTAX.into());
            };
            named(h, n).ok_or(SYNTAX)?
        };
        if let Some(p) = prefix {
            if p == 0 || p > len {
                return Err(BAD_MASK.into());
            }
            len = p;
        }
        let mut shift = 0;
        let mut field_mask = if len == 32 { u32::MAX } else { (1 << len) - 1 };
        if let Some(m) = mask {
            let contiguous = m != 0 && (m >> m.trailing_zeros()).wrapping_add(1).is_power_of_two();
            if !contiguous || m & !field_mask != 0 {
                return Err(BAD_MASK.into());
            }
            shift = m.trailing_zeros();
            field_mask = m;
        }
        Ok(Field {
            header,
            bit,
            len,
            mask: field_mask,
            shift,
        })
    }

    /// Width in bits of the values this field gives.
    fn width(&self) -> u32 {
        32 - (self.mask >> self.shift).leading_zeros()
    }

    /// The field's value in `p`, or `None` when the packet lacks it.
    #[inline]
    fn extract(&self, p: &Packet) -> Option<u32> {
        let hl = p.ip_header_len();
        let ip = p.network_header().filter(|h| hl >= 20 && h.len() >= hl)?;
        let hdr = match self.header {
            Header::Ip => ip,
            Header::Transport(proto) => {
                let v = Ipv4Packet::new_unchecked(ip);
                if v.protocol().0 != proto || v.frag_offset() != 0 {
                    return None;
                }
                &ip[hl..]
            }
        };
        // the 32-bit word of the header holding the field (a bit
        // position, not a named field: AggregateIP takes any)
        let w = (self.bit / 32 * 4) as usize;
        let word = u32::from_be_bytes(hdr.get(w..w + 4)?.try_into().ok()?);
        let end = self.bit % 32 + self.len;
        let v = word >> (32 - end);
        Some((v & self.mask) >> self.shift)
    }
}

/// The AggregateIP element.
pub struct AggregateIP {
    field: Field,
    drops: u64,
}

impl Default for AggregateIP {
    fn default() -> Self {
        AggregateIP {
            field: Field {
                header: Header::Ip,
                bit: 96,
                len: 32,
                mask: u32::MAX,
                shift: 0,
            },
            drops: 0,
        }
    }
}

impl Element for AggregateIP {
    fn class_name(&self) -> &'static str {
        "AggregateIP"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut spec = AnyArg(String::new());
        let mut incremental = false;
        Args::new(conf)
            .read_mp("FIELD", &mut spec)
            .read("INCREMENTAL", &mut incremental)
            .complete()
            .map_err(|e| e.to_string())?;
        let field = Field::parse(&spec.0)?;
        if incremental && field.width() >= 32 {
            return Err(format!(
                "'INCREMENTAL' is incompatible with field length {}",
                field.width()
            ));
        }
        self.field = field;
        Ok(())
    }

    fn is_simple(&self) -> bool {
        true
    }

    #[inline]
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        match self.field.extract(&p) {
            Some(v) => {
                p.set_aggregate_anno(v);
                Some(p)
            }
            None => {
                divert_or_count(&mut self.drops, p, cx);
                None
            }
        }
    }

    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{registry, run_dump};
    use super::Field;
    use rclick_core::testing;

    /// TCP, first fragment: tos a1, id 1234, DF, ttl 64, sum abcd,
    /// 1.2.3.4:1 -> 5.6.7.8:2, seq 0x11, ack 0x22, data offset 5 (NS set),
    /// flags 3f, win 0102, sum 0304, urp 0506, then 4 data bytes.
    const TCP: &str = "45 a1 00 30 12 34 40 00 40 06 ab cd 01 02 03 04 05 06 07 08 00 01 00 02 00 00 00 11 00 00 00 22 51 3f 01 02 03 04 05 06 aa bb cc dd";
    const UDP: &str =
        "45 00 00 30 12 34 00 00 40 11 ab cd 01 02 03 04 05 06 07 08 00 01 00 02 00 1c 99 88";
    const ICMP: &str = "45 00 00 30 12 34 00 00 40 01 ab cd 01 02 03 04 05 06 07 08 03 04 12 34";

    /// The aggregate AggregateIP(`args`) gives `hex`, or "no" when the
    /// packet leaves on output 1.
    fn agg(hex: &str, args: &str) -> String {
        let conf = format!(
            "InfiniteSource(DATA \\<{hex}>, LIMIT 1, STOP true) -> MarkIPHeader
             -> a :: AggregateIP({args}) -> ToIPSummaryDump(OUT, FIELDS aggregate);
             a[1] -> c :: Counter -> Discard;"
        );
        let name = format!("aggip-{:x}", fxhash(&(hex.to_string() + args)));
        let (r, lines) = run_dump(&name, &conf);
        if testing::read(&r, "c.count") == "1" {
            assert!(lines.is_empty());
            "no".into()
        } else {
            lines.join(" ")
        }
    }

    fn fxhash(s: &str) -> u64 {
        s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100000001b3)
        })
    }

    // Every expected value below is what Click gave for the same packet and
    // FIELD (clickdiff, ToIPSummaryDump's aggregate field).
    #[test]
    fn ip_fields() {
        let want = [
            ("ip vers", "4"),
            ("ip hl", "5"),
            ("ip tos", "161"),
            ("ip dscp", "40"),
            ("ip ecn", "1"),
            ("ip len", "48"),
            ("ip id", "4660"),
            ("ip off", "16384"),
            ("ip df", "1"),
            ("ip mf", "0"),
            ("ip rf", "0"),
            ("ip fragoff", "0"),
            ("ip ttl", "64"),
            ("ip proto", "6"),
            ("ip sum", "43981"),
            ("ip src", "16909060"),
            ("ip dst", "84281096"),
            ("ip  ttl", "64"),
        ];
        for (f, v) in want {
            assert_eq!(agg(TCP, f), v, "{f}");
        }
        let frag = TCP.replacen("12 34 40 00", "12 34 a0 05", 1);
        assert_eq!(agg(&frag, "ip rf"), "1");
        assert_eq!(agg(&frag, "ip mf"), "1");
        assert_eq!(agg(&frag, "ip off"), "40965");
        assert_eq!(agg(&frag, "ip fragoff"), "5");
    }

    #[test]
    fn transport_fields() {
        let want = [
            ("tcp sport", "1"),
            ("tcp dport", "2"),
            ("tcp seq", "17"),
            ("tcp seqno", "17"),
            ("tcp ackno", "34"),
            ("tcp ack", "1"),
            ("tcp fin", "1"),
            ("tcp urg", "1"),
            ("tcp hl", "5"),
            ("tcp flags", "63"),
            ("tcp win", "258"),
            ("tcp sum", "772"),
            ("tcp urp", "1286"),
            ("udp sport", "no"),
            ("icmp type", "no"),
        ];
        for (f, v) in want {
            assert_eq!(agg(TCP, f), v, "{f}");
        }
        for (f, v) in [
            ("udp sport", "1"),
            ("udp dport", "2"),
            ("udp len", "28"),
            ("udp sum", "39304"),
            ("tcp sport", "no"),
        ] {
            assert_eq!(agg(UDP, f), v, "{f}");
        }
        for (f, v) in [("icmp type", "3"), ("icmp code", "4"), ("icmp sum", "4660")] {
            assert_eq!(agg(ICMP, f), v, "{f}");
        }
        // a later fragment has no transport header
        let frag = TCP.replacen("12 34 40 00", "12 34 a0 05", 1);
        assert_eq!(agg(&frag, "tcp sport"), "no");
        // the word holding the field is cut short
        let short = "45 00 00 30 12 34 00 00 40 11 ab cd 01 02 03 04 05 06 07 08 00 01 00";
        assert_eq!(agg(short, "udp sport"), "no");
    }

    #[test]
    fn offsets_prefixes_and_masks() {
        for (f, v) in [
            ("ip[8:2]", "16390"),
            ("ip[8:3]", "4196011"),
            ("ip[12:4]", "16909060"),
            ("ip[1]", "161"),
            ("ip[40:4]", "2864434397"),
            ("ip[43:1]", "221"),
            ("ip[44:1]", "no"),
            ("ip src/8", "1"),
            ("ip dst/24", "329223"),
            ("ip ttl/4", "4"),
            ("ip dscp/3", "5"),
            ("ip src & 0xFF00", "3"),
            ("ip[8:2] & 0x3F0", "0"),
            ("ip sum/4 & 0x0F", "10"),
            ("ip[8:2], INCREMENTAL true", "16390"),
        ] {
            assert_eq!(agg(TCP, f), v, "{f}");
        }
    }

    #[test]
    fn non_ip_dropped_or_output_1() {
        let r = testing::run(
            "InfiniteSource(DATA \\<00 11 22>, LIMIT 2, STOP true) -> a :: AggregateIP(ip ttl) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.drops"), "2");
        assert_eq!(agg("00 11 22", "ip ttl"), "no");
    }

    #[test]
    fn configuration_errors_like_click() {
        for (spec, err) in [
            ("foo", "expected 'HEADER"),
            ("ip foo", "expected 'HEADER"),
            ("IP TTL", "expected 'HEADER"),
            ("tcp ackf", "expected 'HEADER"),
            ("tcp[0:2]", "expected 'HEADER"),
            ("ip[0:5]", "does not fit within a single word"),
            ("ip[41:4]", "does not fit within a single word"),
            ("ip src/33", "bad prefix or mask"),
            ("ip src & 0", "bad prefix or mask"),
            ("ip src & 0xFF00FF", "bad prefix or mask"),
        ] {
            let e = Field::parse(spec).unwrap_err();
            assert!(e.contains(err), "{spec}: {e}");
        }
        let e = testing::build(
            "Idle -> AggregateIP(ip src, INCREMENTAL true) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(
            e.contains("'INCREMENTAL' is incompatible with field length 32"),
            "{e}"
        );
        assert!(testing::build("Idle -> AggregateIP -> Discard;", &registry(), true).is_err());
    }
}
