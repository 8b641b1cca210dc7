//! Six-tuple flow keys and filters (Router Plugins, section 3).
//!
//! A *flow key* is the six-tuple of one packet: source and destination
//! address, protocol, source and destination port, incoming interface (the
//! paint annotation, which Click configurations set per interface). A
//! *filter* is a six-tuple in which each field may be wildcarded: addresses
//! are prefixes, ports are ranges, protocol and interface are a value or `*`.
//!
//! # Syntax
//!
//! Six fields, separated by spaces or commas, optionally inside `<...>` as
//! the paper writes them:
//!
//! ```text
//! SRC DST PROTO SPORT DPORT IIF
//! 192.0.2.0/24  *  tcp  *  80  *
//! <129.*.*.*, 192.94.233.10, TCP, *, *, *>
//! ```
//!
//! * addresses: `*`, `A.B.C.D`, `A.B.C.D/LEN`, or trailing `*` octets
//!   (`129.*.*.*` is `129.0.0.0/8`); host bits beyond the prefix are cleared;
//! * protocol: `*`, `tcp`, `udp`, `icmp` or a number 0-255;
//! * ports: `*`, `N` or `N-M` (inclusive);
//! * incoming interface: `*` or the paint value 0-255.
//!
//! # Most specific
//!
//! The paper's DAG resolves one field after another, in the six-tuple's
//! order, taking at each level the most specific edge that still leads to a
//! match (a set-pruning trie). So of several matching filters the winner is
//! the greatest in *lexicographic* order of per-field specificity: longer
//! source prefix first, then longer destination prefix, then a protocol
//! over `*`, then the narrower source-port range, then the narrower
//! destination-port range, then an interface over `*`. Filters that tie on
//! every field (overlapping ranges of the same width) go to the one
//! installed first. [`Filter::specificity`] packs that order into a `u64`.

use std::fmt;

/// The six-tuple of one packet: every field fully specified.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FlowKey {
    /// Source address, host byte order (`10.0.0.1` is `0x0a000001`).
    pub src: u32,
    /// Destination address.
    pub dst: u32,
    /// IP protocol.
    pub proto: u8,
    /// Source port (0 for protocols without ports and later fragments).
    pub sport: u16,
    /// Destination port (0 likewise).
    pub dport: u16,
    /// Incoming interface: the packet's paint annotation.
    pub iif: u8,
}

impl FlowKey {
    /// The key as two words (addresses; the rest), for hashing and
    /// comparing in two loads.
    #[inline(always)]
    pub fn words(&self) -> (u64, u64) {
        (
            ((self.src as u64) << 32) | self.dst as u64,
            ((self.proto as u64) << 40)
                | ((self.iif as u64) << 32)
                | ((self.sport as u64) << 16)
                | self.dport as u64,
        )
    }

    /// Reads the six-tuple of an IPv4 packet: `ip` starts at the IP header,
    /// `iif` is the paint annotation. `None` when the bytes are not a
    /// well-formed IPv4 header. Ports are read for TCP, UDP, SCTP and
    /// DCCP first fragments with four bytes of transport header present,
    /// else they are 0.
    #[inline]
    pub fn from_ipv4(ip: &[u8], iif: u8) -> Option<FlowKey> {
        let v = rclick_wire::Ipv4Packet::new_checked(ip).ok()?;
        let proto = v.protocol().0;
        let (mut sport, mut dport) = (0, 0);
        if matches!(proto, 6 | 17 | 33 | 132) && v.frag_offset() == 0 {
            let l4 = v.payload();
            if l4.len() >= 4 {
                sport = u16::from_be_bytes([l4[0], l4[1]]);
                dport = u16::from_be_bytes([l4[2], l4[3]]);
            }
        }
        Some(FlowKey {
            src: u32::from(v.src_addr()),
            dst: u32::from(v.dst_addr()),
            proto,
            sport,
            dport,
            iif,
        })
    }
}

impl fmt::Display for FlowKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {} {} {}",
            std::net::Ipv4Addr::from(self.src),
            std::net::Ipv4Addr::from(self.dst),
            self.proto,
            self.sport,
            self.dport,
            self.iif
        )
    }
}

/// An address prefix: `addr/len`, host bits clear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Prefix {
    /// The address, host bits zero.
    pub addr: u32,
    /// Prefix length 0-32 (0 is `*`).
    pub len: u8,
}

/// The mask of a prefix length (`mask(24)` is `0xffffff00`).
#[inline(always)]
pub fn mask(len: u8) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - len.min(32) as u32)
    }
}

impl Prefix {
    /// `addr/len` with host bits cleared.
    pub fn new(addr: u32, len: u8) -> Prefix {
        let len = len.min(32);
        Prefix {
            addr: addr & mask(len),
            len,
        }
    }

    /// Whether `a` is inside.
    #[inline(always)]
    pub fn contains(&self, a: u32) -> bool {
        a & mask(self.len) == self.addr
    }
}

/// An inclusive port range; `0-65535` is `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortRange {
    /// Lowest port.
    pub lo: u16,
    /// Highest port.
    pub hi: u16,
}

impl PortRange {
    /// Every port.
    pub const ANY: PortRange = PortRange { lo: 0, hi: 65535 };

    /// Whether `p` is inside.
    #[inline(always)]
    pub fn contains(&self, p: u16) -> bool {
        self.lo <= p && p <= self.hi
    }

    /// 65535 minus the width: larger is narrower.
    pub fn narrowness(&self) -> u16 {
        65535 - (self.hi - self.lo)
    }
}

impl Default for PortRange {
    fn default() -> PortRange {
        PortRange::ANY
    }
}

/// A six-tuple filter; see the module documentation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Source prefix.
    pub src: Prefix,
    /// Destination prefix.
    pub dst: Prefix,
    /// Protocol, `None` for `*`.
    pub proto: Option<u8>,
    /// Source ports.
    pub sport: PortRange,
    /// Destination ports.
    pub dport: PortRange,
    /// Incoming interface (paint), `None` for `*`.
    pub iif: Option<u8>,
}

/// Why a filter did not parse: which field and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterError(pub String);

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FilterError {}

const FIELDS: [&str; 6] = ["SRC", "DST", "PROTO", "SPORT", "DPORT", "IIF"];

impl Filter {
    /// Whether `k` matches.
    #[inline]
    pub fn matches(&self, k: &FlowKey) -> bool {
        self.src.contains(k.src) && self.dst.contains(k.dst) && self.rest_matches(k)
    }

    /// Whether `k` matches the fields after the addresses.
    #[inline(always)]
    pub fn rest_matches(&self, k: &FlowKey) -> bool {
        self.proto.is_none_or(|p| p == k.proto)
            && self.sport.contains(k.sport)
            && self.dport.contains(k.dport)
            && self.iif.is_none_or(|i| i == k.iif)
    }

    /// The paper's specificity order as a number: of two matching filters
    /// the one with the larger value wins (module documentation).
    pub fn specificity(&self) -> u64 {
        ((self.src.len as u64) << 40)
            | ((self.dst.len as u64) << 34)
            | ((self.proto.is_some() as u64) << 33)
            | ((self.sport.narrowness() as u64) << 17)
            | ((self.dport.narrowness() as u64) << 1)
            | self.iif.is_some() as u64
    }

    /// Parses the six-field syntax of the module documentation.
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let t = text.trim();
        let t = t.strip_prefix('<').unwrap_or(t);
        let t = t.strip_suffix('>').unwrap_or(t);
        let fields: Vec<&str> = t
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect();
        if fields.len() != 6 {
            return Err(FilterError(format!(
                "filter '{}': expected 6 fields (SRC DST PROTO SPORT DPORT IIF), found {}",
                text.trim(),
                fields.len()
            )));
        }
        let err = |i: usize, what: &str| {
            FilterError(format!(
                "filter '{}': {}: expected {what}, found '{}'",
                text.trim(),
                FIELDS[i],
                fields[i]
            ))
        };
        let src = parse_prefix(fields[0]).ok_or_else(|| err(0, "address prefix or '*'"))?;
        let dst = parse_prefix(fields[1]).ok_or_else(|| err(1, "address prefix or '*'"))?;
        let proto = parse_proto(fields[2]).ok_or_else(|| err(2, "tcp, udp, icmp, 0-255 or '*'"))?;
        let sport = parse_ports(fields[3]).ok_or_else(|| err(3, "port, LO-HI or '*'"))?;
        let dport = parse_ports(fields[4]).ok_or_else(|| err(4, "port, LO-HI or '*'"))?;
        let iif = parse_opt_u8(fields[5]).ok_or_else(|| err(5, "paint value 0-255 or '*'"))?;
        Ok(Filter {
            src,
            dst,
            proto,
            sport,
            dport,
            iif,
        })
    }
}

fn parse_prefix(s: &str) -> Option<Prefix> {
    if s == "*" {
        return Some(Prefix::default());
    }
    if let Some((a, l)) = s.split_once('/') {
        let addr: std::net::Ipv4Addr = a.parse().ok()?;
        let len: u8 = l.parse().ok().filter(|&l| l <= 32)?;
        return Some(Prefix::new(u32::from(addr), len));
    }
    if s.contains('*') {
        // 129.*.*.* or 129.*: leading octets, then only '*'.
        let mut addr = 0u32;
        let mut len = 0u8;
        let mut wild = false;
        let parts: Vec<&str> = s.split('.').collect();
        if parts.len() > 4 {
            return None;
        }
        for (i, part) in parts.iter().enumerate() {
            if *part == "*" {
                wild = true;
            } else if wild {
                return None;
            } else {
                let o: u8 = part.parse().ok()?;
                addr |= (o as u32) << (24 - 8 * i);
                len += 8;
            }
        }
        return Some(Prefix::new(addr, len));
    }
    let addr: std::net::Ipv4Addr = s.parse().ok()?;
    Some(Prefix::new(u32::from(addr), 32))
}

fn parse_proto(s: &str) -> Option<Option<u8>> {
    match s.to_ascii_lowercase().as_str() {
        "*" => Some(None),
        "icmp" => Some(Some(1)),
        "tcp" => Some(Some(6)),
        "udp" => Some(Some(17)),
        n => n.parse().ok().map(Some),
    }
}

fn parse_ports(s: &str) -> Option<PortRange> {
    if s == "*" {
        return Some(PortRange::ANY);
    }
    let (lo, hi) = match s.split_once('-') {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => {
            let p = s.parse().ok()?;
            (p, p)
        }
    };
    (lo <= hi).then_some(PortRange { lo, hi })
}

fn parse_opt_u8(s: &str) -> Option<Option<u8>> {
    if s == "*" {
        Some(None)
    } else {
        s.parse().ok().map(Some)
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pfx = |p: Prefix| {
            if p.len == 0 {
                "*".to_string()
            } else if p.len == 32 {
                std::net::Ipv4Addr::from(p.addr).to_string()
            } else {
                format!("{}/{}", std::net::Ipv4Addr::from(p.addr), p.len)
            }
        };
        let ports = |r: PortRange| {
            if r == PortRange::ANY {
                "*".to_string()
            } else if r.lo == r.hi {
                r.lo.to_string()
            } else {
                format!("{}-{}", r.lo, r.hi)
            }
        };
        let proto = match self.proto {
            None => "*".to_string(),
            Some(1) => "icmp".into(),
            Some(6) => "tcp".into(),
            Some(17) => "udp".into(),
            Some(n) => n.to_string(),
        };
        let iif = self.iif.map_or("*".to_string(), |i| i.to_string());
        write!(
            f,
            "{} {} {} {} {} {}",
            pfx(self.src),
            pfx(self.dst),
            proto,
            ports(self.sport),
            ports(self.dport),
            iif
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(src: &str, dst: &str, proto: u8, sport: u16, dport: u16, iif: u8) -> FlowKey {
        FlowKey {
            src: u32::from(src.parse::<std::net::Ipv4Addr>().unwrap()),
            dst: u32::from(dst.parse::<std::net::Ipv4Addr>().unwrap()),
            proto,
            sport,
            dport,
            iif,
        }
    }

    #[test]
    fn parses_both_spellings_and_round_trips() {
        let a = Filter::parse("<129.*.*.*, 192.94.233.10, TCP, *, *, *>").unwrap();
        assert_eq!(a.src, Prefix::new(0x8100_0000, 8));
        assert_eq!(a.dst.len, 32);
        assert_eq!(a.proto, Some(6));
        assert_eq!(a.to_string(), "129.0.0.0/8 192.94.233.10 tcp * * *");
        let b = Filter::parse("192.0.2.77/24 * udp 1000-2000 53 3").unwrap();
        assert_eq!(b.src.addr, 0xc000_0200, "host bits cleared");
        assert_eq!(b.sport, PortRange { lo: 1000, hi: 2000 });
        assert_eq!(b.iif, Some(3));
        assert_eq!(Filter::parse(&b.to_string()).unwrap(), b);
        let all = Filter::parse("* * * * * *").unwrap();
        assert_eq!(all, Filter::default());
        assert_eq!(all.specificity(), 0);
    }

    #[test]
    fn rejects_each_bad_field_by_name() {
        for (text, field) in [
            ("1.2.3.4 * tcp * *", "expected 6 fields"),
            ("1.2.3.4/33 * tcp * * *", "SRC"),
            ("* 1.*.3.* tcp * * *", "DST"),
            ("* * tcpx * * *", "PROTO"),
            ("* * 256 * * *", "PROTO"),
            ("* * * 5-4 * *", "SPORT"),
            ("* * * * 70000 *", "DPORT"),
            ("* * * * * eth0", "IIF"),
        ] {
            let e = Filter::parse(text).unwrap_err().to_string();
            assert!(e.contains(field), "{text}: {e}");
        }
    }

    #[test]
    fn matches_every_field() {
        let f = Filter::parse("10.0.0.0/8 192.0.2.1 udp 1000-2000 53 2").unwrap();
        let k = key("10.1.2.3", "192.0.2.1", 17, 1500, 53, 2);
        assert!(f.matches(&k));
        assert!(!f.matches(&FlowKey {
            src: 0x0b00_0000,
            ..k
        }));
        assert!(!f.matches(&FlowKey {
            dst: k.dst + 1,
            ..k
        }));
        assert!(!f.matches(&FlowKey { proto: 6, ..k }));
        assert!(!f.matches(&FlowKey { sport: 999, ..k }));
        assert!(!f.matches(&FlowKey { sport: 2001, ..k }));
        assert!(!f.matches(&FlowKey { dport: 54, ..k }));
        assert!(!f.matches(&FlowKey { iif: 1, ..k }));
    }

    #[test]
    fn specificity_is_the_papers_field_order() {
        // Table 1 of the paper: filter 2 is more specific than filter 4.
        let f2 = Filter::parse("128.252.153.1 128.252.153.7 udp * * *").unwrap();
        let f4 = Filter::parse("128.252.153.* * udp * * *").unwrap();
        assert!(f2.specificity() > f4.specificity());
        // A longer source prefix beats anything in later fields.
        let long_src = Filter::parse("10.0.0.0/9 * * * * *").unwrap();
        let rest = Filter::parse("10.0.0.0/8 1.2.3.4 tcp 80 80 1").unwrap();
        assert!(long_src.specificity() > rest.specificity());
        // Narrower port range wins over a wider one.
        let narrow = Filter::parse("* * * 10-11 * *").unwrap();
        let wide = Filter::parse("* * * 10-12 * *").unwrap();
        assert!(narrow.specificity() > wide.specificity());
        let iif = Filter::parse("* * * * * 0").unwrap();
        assert!(wide.specificity() > iif.specificity());
        assert!(iif.specificity() > 0);
    }

    #[test]
    fn reads_keys_from_ipv4_headers() {
        // UDP 1.0.0.1:4969 -> 2.0.0.2:4969, the benchmark packet.
        let ip = [
            0x45, 0, 0, 0x1c, 0, 0, 0, 0, 0x40, 0x11, 0x77, 0xc3, 1, 0, 0, 1, 2, 0, 0, 2, 0x13,
            0x69, 0x13, 0x6a, 0, 8, 0, 0,
        ];
        let k = FlowKey::from_ipv4(&ip, 7).unwrap();
        assert_eq!(k, key("1.0.0.1", "2.0.0.2", 17, 0x1369, 0x136a, 7));
        // A later fragment has no ports.
        let mut frag = ip;
        frag[7] = 1;
        assert_eq!(FlowKey::from_ipv4(&frag, 0).unwrap().sport, 0);
        // Short or bad headers are not keys.
        assert!(FlowKey::from_ipv4(&ip[..19], 0).is_none());
        let mut bad = ip;
        bad[0] = 0x44;
        assert!(FlowKey::from_ipv4(&bad, 0).is_none());
    }
}
