//! Network address parsers: IPv4 addresses and prefixes (Click's
//! `IPAddressArg`, `IPPrefixArg`) and Ethernet addresses
//! (`EtherAddressArg`).

use std::fmt;
use std::net::Ipv4Addr;
use std::str::FromStr;

use super::basic::FromArg;
use super::context::{AddrKind, ArgContext, NoContext};

/// Reads up to four dotted decimal bytes from the start of `b`, as Click's
/// `IPAddressArg::basic_parse`.  Returns the bytes, how many were read, and
/// how much of `b` they took.
fn basic_parse(b: &[u8]) -> ([u8; 4], usize, usize) {
    let mut value = [0u8; 4];
    let mut d = 0;
    let mut s = 0;
    while d < 4 && s < b.len() && (d == 0 || b[s] == b'.') {
        let mut t = s + usize::from(d > 0);
        if t >= b.len() || !b[t].is_ascii_digit() {
            break;
        }
        let mut part = u32::from(b[t] - b'0');
        t += 1;
        while t < b.len() && b[t].is_ascii_digit() && part <= 255 {
            part = part * 10 + u32::from(b[t] - b'0');
            t += 1;
        }
        let Ok(byte) = u8::try_from(part) else { break };
        value[d] = byte;
        s = t;
        d += 1;
    }
    (value, d, s)
}

/// A literal dotted quad `a.b.c.d` (each part decimal, at most 255).
fn ip_literal(s: &str) -> Option<Ipv4Addr> {
    let (v, n, used) = basic_parse(s.as_bytes());
    (n == 4 && used == s.len()).then(|| Ipv4Addr::from(v))
}

fn ip_with_context(s: &str, ctx: &dyn ArgContext) -> Option<Ipv4Addr> {
    ip_literal(s).or_else(|| {
        ctx.lookup_address(s, AddrKind::Ip)
            .and_then(|t| ip_literal(&t))
    })
}

/// Parses a literal IPv4 address `a.b.c.d` (no names).
///
/// Error: `expected IP address`.
pub fn parse_ip_addr(s: &str) -> Result<Ipv4Addr, String> {
    ip_literal(s).ok_or_else(|| "expected IP address".into())
}

impl FromArg for Ipv4Addr {
    /// Click's `IPAddressArg`: `a.b.c.d`, or a name the context knows
    /// (`eth0`, `eth0:ip`).
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String> {
        ip_with_context(s, ctx).ok_or_else(|| "expected IP address".into())
    }
}

/// The netmask with the top `len` bits set (`len` at most 32).
fn mask_of_len(len: u32) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - len.min(32))
    }
}

/// An IPv4 address with a netmask, as Click's `IPPrefixArg` produces.  The
/// address keeps any host bits the user wrote (`10.0.0.1/8` stays
/// `10.0.0.1`); use [`network`](IpPrefix::network) to clear them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IpPrefix {
    /// The address as written.
    pub addr: Ipv4Addr,
    /// The netmask (normally contiguous, but Click accepts any mask).
    pub mask: Ipv4Addr,
}

impl IpPrefix {
    /// The prefix `addr/len`; `len` is clamped to 32.
    pub fn new(addr: Ipv4Addr, len: u8) -> Self {
        IpPrefix {
            addr,
            mask: Ipv4Addr::from(mask_of_len(u32::from(len))),
        }
    }

    /// The prefix length, if the mask is contiguous.
    pub fn prefix_len(&self) -> Option<u8> {
        let m = u32::from(self.mask);
        let len = m.leading_ones();
        (mask_of_len(len) == m).then_some(len as u8)
    }

    /// The address with host bits cleared.
    pub fn network(&self) -> Ipv4Addr {
        Ipv4Addr::from(u32::from(self.addr) & u32::from(self.mask))
    }

    /// True if `ip` lies in this prefix.
    pub fn contains(&self, ip: Ipv4Addr) -> bool {
        let m = u32::from(self.mask);
        u32::from(ip) & m == u32::from(self.addr) & m
    }
}

impl fmt::Display for IpPrefix {
    /// `a.b.c.d/len`, or `a.b.c.d/m.m.m.m` for a non-contiguous mask (Click's
    /// `IPAddress::unparse_with_mask`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.prefix_len() {
            Some(len) => write!(f, "{}/{}", self.addr, len),
            None => write!(f, "{}/{}", self.addr, self.mask),
        }
    }
}

/// `addr/mask` where `slash` indexes the `/`.
fn prefix_with_slash(s: &str, slash: usize, ctx: &dyn ArgContext) -> Option<IpPrefix> {
    let head = &s[..slash];
    let tail = &s[slash + 1..];
    let (bytes, nbytes, used) = basic_parse(head.as_bytes());
    let (addr, nbytes) = if used == head.len() && nbytes > 0 {
        (Ipv4Addr::from(bytes), nbytes)
    } else {
        let t = ctx.lookup_address(head, AddrKind::Ip)?;
        (ip_literal(&t)?, 4)
    };
    let mask = match tail.parse::<u32>() {
        Ok(len) if len <= 32 && tail.bytes().all(|c| c.is_ascii_digit()) => mask_of_len(len),
        _ => u32::from(ip_with_context(tail, ctx)?),
    };
    // The mask may not cover bytes the user left out ("10/16" is an error).
    let given = mask_of_len(8 * nbytes as u32);
    if mask & given != mask {
        return None;
    }
    Some(IpPrefix {
        addr,
        mask: Ipv4Addr::from(mask),
    })
}

/// Parses an IPv4 prefix, as Click's `IPPrefixArg(allow_bare)`:
///
/// * `a.b.c.d/len` or `a.b.c.d/m.m.m.m`; the address may be abbreviated
///   (`10/8`, `192.168/16`) if the mask covers only the bytes given;
/// * a bare address `a.b.c.d` (mask /32) if `allow_bare`;
/// * a name the context knows, before the slash (`eth0/24`) or alone: as a
///   prefix if the context knows it as one (`eth0` → `10.0.0.1/8`), else,
///   if `allow_bare`, as an address with mask /32.  (Click's `IPPrefixArg`
///   tries the address meaning first; preferring the prefix is deliberate.)
///
/// Error: `expected IP prefix`.
pub fn parse_ip_prefix_with(
    s: &str,
    allow_bare: bool,
    ctx: &dyn ArgContext,
) -> Result<IpPrefix, String> {
    if let Some(slash) = s.rfind('/') {
        if slash != 0 && slash + 1 != s.len() {
            if let Some(p) = prefix_with_slash(s, slash, ctx) {
                return Ok(p);
            }
        }
    }
    let bare = |addr| IpPrefix {
        addr,
        mask: Ipv4Addr::BROADCAST,
    };
    if let (true, Some(addr)) = (allow_bare, ip_literal(s)) {
        return Ok(bare(addr));
    }
    if let Some(p) = ctx
        .lookup_address(s, AddrKind::IpPrefix)
        .and_then(|t| parse_ip_prefix_with(&t, true, &NoContext).ok())
    {
        return Ok(p);
    }
    match (allow_bare, ctx.lookup_address(s, AddrKind::Ip)) {
        (true, Some(t)) => ip_literal(&t).map(bare),
        _ => None,
    }
    .ok_or_else(|| "expected IP prefix".into())
}

/// Parses an IPv4 prefix without names; a bare address means /32.
/// See [`parse_ip_prefix_with`].
pub fn parse_ip_prefix(s: &str) -> Result<IpPrefix, String> {
    parse_ip_prefix_with(s, true, &NoContext)
}

impl FromArg for IpPrefix {
    /// [`parse_ip_prefix_with`] with bare addresses allowed (as /32).
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String> {
        parse_ip_prefix_with(s, true, ctx)
    }
}

impl FromStr for IpPrefix {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_ip_prefix(s)
    }
}

/// An Ethernet (MAC) address.
///
/// Parsed as Click's `EtherAddressArg`: six groups of one or two hex digits
/// separated all by `:` or all by `-` (`00:01:02:0a:0B:ff`,
/// `0-1-2-a-b-ff`), or a name the context knows (`eth0`, `eth0:eth`).
/// Displayed as Click's `EtherAddress::unparse`: upper-case hex with colons,
/// `00:01:02:0A:0B:FF`; see also [`unparse_dash`](EtherAddr::unparse_dash).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EtherAddr(pub [u8; 6]);

impl EtherAddr {
    /// `FF:FF:FF:FF:FF:FF`.
    pub const BROADCAST: EtherAddr = EtherAddr([0xff; 6]);

    /// True for the broadcast address.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }

    /// True for group (multicast and broadcast) addresses.
    pub fn is_group(&self) -> bool {
        self.0[0] & 1 != 0
    }

    /// The IEEE dash form, `00-01-02-0A-0B-FF` (Click's `unparse_dash`).
    pub fn unparse_dash(&self) -> String {
        let b = self.0;
        format!(
            "{:02X}-{:02X}-{:02X}-{:02X}-{:02X}-{:02X}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

impl fmt::Display for EtherAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02X}:{:02X}:{:02X}:{:02X}:{:02X}:{:02X}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

fn ether_literal(s: &str) -> Option<EtherAddr> {
    let mut data = [0u8; 6];
    let (mut d, mut p, mut sep) = (0usize, 0, 0u8);
    for &c in s.as_bytes() {
        match (c as char).to_digit(16) {
            Some(digit) => {
                if p == 2 {
                    return None;
                }
                data[d] = (data[d] << 4) | digit as u8;
                p += 1;
            }
            None => {
                if sep == 0 && (c == b'-' || c == b':') {
                    sep = c;
                }
                if c == sep && (p == 1 || p == 2) && d < 5 {
                    p = 0;
                    d += 1;
                } else {
                    return None;
                }
            }
        }
    }
    (p != 0 && d == 5).then_some(EtherAddr(data))
}

/// Parses a literal Ethernet address (no names); see [`EtherAddr`].
///
/// Error: `expected Ethernet address`.
pub fn parse_ether(s: &str) -> Result<EtherAddr, String> {
    ether_literal(s).ok_or_else(|| "expected Ethernet address".into())
}

impl FromArg for EtherAddr {
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String> {
        ether_literal(s)
            .or_else(|| {
                ctx.lookup_address(s, AddrKind::Ether)
                    .and_then(|t| ether_literal(&t))
            })
            .ok_or_else(|| "expected Ethernet address".into())
    }
}

impl FromStr for EtherAddr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_ether(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Knows `eth0` as 10.0.0.1/8 with 00:01:02:03:04:05.
    struct Names;
    impl ArgContext for Names {
        fn lookup_address(&self, name: &str, kind: AddrKind) -> Option<String> {
            match (name, kind) {
                ("eth0" | "eth0:ip", AddrKind::Ip) => Some("10.0.0.1".into()),
                ("eth0" | "eth0:ipnet", AddrKind::IpPrefix) => Some("10.0.0.1/8".into()),
                ("eth0" | "eth0:eth", AddrKind::Ether) => Some("00:01:02:03:04:05".into()),
                ("broken", _) => Some("junk".into()),
                _ => None,
            }
        }
    }

    fn ip(s: &str) -> Ipv4Addr {
        s.parse().unwrap()
    }

    #[test]
    fn ip_addresses() {
        assert_eq!(parse_ip_addr("1.2.3.4"), Ok(ip("1.2.3.4")));
        assert_eq!(parse_ip_addr("0.0.0.0"), Ok(ip("0.0.0.0")));
        assert_eq!(parse_ip_addr("255.255.255.255"), Ok(Ipv4Addr::BROADCAST));
        assert_eq!(parse_ip_addr("010.001.0.1"), Ok(ip("10.1.0.1")));
        for bad in [
            "",
            "1.2.3",
            "1.2.3.4.5",
            "256.1.1.1",
            "1.2.3.",
            "1..2.3",
            "a.b.c.d",
            " 1.2.3.4",
            "eth0",
        ] {
            assert_eq!(
                parse_ip_addr(bad),
                Err("expected IP address".into()),
                "{bad:?}"
            );
        }
        assert_eq!(Ipv4Addr::from_arg("eth0", &Names), Ok(ip("10.0.0.1")));
        assert_eq!(Ipv4Addr::from_arg("eth0:ip", &Names), Ok(ip("10.0.0.1")));
        assert_eq!(Ipv4Addr::from_arg("1.2.3.4", &Names), Ok(ip("1.2.3.4")));
        assert_eq!(
            Ipv4Addr::from_arg("eth1", &Names),
            Err("expected IP address".into())
        );
        assert_eq!(
            Ipv4Addr::from_arg("broken", &Names),
            Err("expected IP address".into())
        );
        assert_eq!(
            Ipv4Addr::from_arg("eth0", &NoContext),
            Err("expected IP address".into())
        );
    }

    #[test]
    fn ip_prefixes() {
        let pf = |s: &str| parse_ip_prefix(s).map(|p| p.to_string());
        assert_eq!(pf("10.0.0.0/8"), Ok("10.0.0.0/8".into()));
        assert_eq!(pf("10.0.0.1/8"), Ok("10.0.0.1/8".into()));
        assert_eq!(pf("10.0.0.0/255.0.0.0"), Ok("10.0.0.0/8".into()));
        assert_eq!(
            pf("10.0.0.0/255.0.255.0"),
            Ok("10.0.0.0/255.0.255.0".into())
        );
        assert_eq!(pf("10/8"), Ok("10.0.0.0/8".into()));
        assert_eq!(pf("192.168/16"), Ok("192.168.0.0/16".into()));
        assert_eq!(pf("0/0"), Ok("0.0.0.0/0".into()));
        assert_eq!(pf("1.2.3.4"), Ok("1.2.3.4/32".into()));
        assert_eq!(pf("1.2.3.4/32"), Ok("1.2.3.4/32".into()));
        for bad in [
            "",
            "/8",
            "10.0.0.0/",
            "10/16",
            "10.0.0.0/33",
            "10.0.0.0/x",
            "1.2.3",
            "a/8",
            "10.0.0.0/-1",
        ] {
            assert_eq!(pf(bad), Err("expected IP prefix".into()), "{bad:?}");
        }
        assert_eq!(
            parse_ip_prefix_with("1.2.3.4", false, &NoContext),
            Err("expected IP prefix".into())
        );
        let p = IpPrefix::from_arg("eth0", &Names).unwrap();
        assert_eq!(p.to_string(), "10.0.0.1/8");
        assert_eq!(p.network(), ip("10.0.0.0"));
        assert_eq!(
            IpPrefix::from_arg("eth0/24", &Names).unwrap().to_string(),
            "10.0.0.1/24"
        );
        assert_eq!(
            IpPrefix::from_arg("eth0:ipnet", &Names)
                .unwrap()
                .to_string(),
            "10.0.0.1/8"
        );
        assert_eq!(
            IpPrefix::from_arg("1.0.0.0/eth0", &Names).unwrap().mask,
            ip("10.0.0.1")
        );
        assert_eq!(
            IpPrefix::from_arg("eth9", &Names),
            Err("expected IP prefix".into())
        );
        assert_eq!(
            IpPrefix::from_arg("eth0:ip", &Names).unwrap().to_string(),
            "10.0.0.1/32"
        );
        assert_eq!(
            parse_ip_prefix_with("eth0:ip", false, &Names),
            Err("expected IP prefix".into())
        );
        assert_eq!(
            IpPrefix::from_arg("broken", &Names),
            Err("expected IP prefix".into())
        );
        assert_eq!(
            "10/8".parse::<IpPrefix>(),
            Ok(IpPrefix::new(ip("10.0.0.0"), 8))
        );
    }

    #[test]
    fn ip_prefix_helpers() {
        let p = IpPrefix::new(ip("192.168.1.7"), 24);
        assert_eq!(p.prefix_len(), Some(24));
        assert_eq!(p.network(), ip("192.168.1.0"));
        assert!(p.contains(ip("192.168.1.200")));
        assert!(!p.contains(ip("192.168.2.1")));
        assert_eq!(IpPrefix::new(ip("1.2.3.4"), 0).prefix_len(), Some(0));
        assert_eq!(IpPrefix::new(ip("1.2.3.4"), 40).prefix_len(), Some(32));
        let odd = IpPrefix {
            addr: ip("1.2.3.4"),
            mask: ip("255.0.255.0"),
        };
        assert_eq!(odd.prefix_len(), None);
    }

    #[test]
    fn ether_addresses() {
        let e = EtherAddr([0, 1, 2, 0x0a, 0x0b, 0xff]);
        assert_eq!(parse_ether("00:01:02:0a:0B:ff"), Ok(e));
        assert_eq!(parse_ether("00-01-02-0A-0b-FF"), Ok(e));
        assert_eq!(parse_ether("0:1:2:a:b:ff"), Ok(e));
        for bad in [
            "",
            "00:01:02:03:04",
            "00:01:02:03:04:05:06",
            "00:01-02:03:04:05",
            "000:01:02:03:04:05",
            "00::02:03:04:05",
            "00:01:02:03:04:",
            "0g:01:02:03:04:05",
            "000102030405",
            "00.01.02.03.04.05",
        ] {
            assert_eq!(
                parse_ether(bad),
                Err("expected Ethernet address".into()),
                "{bad:?}"
            );
        }
        assert_eq!(e.to_string(), "00:01:02:0A:0B:FF");
        assert_eq!(e.unparse_dash(), "00-01-02-0A-0B-FF");
        assert_eq!(e.to_string().parse::<EtherAddr>(), Ok(e));
        assert!(EtherAddr::BROADCAST.is_broadcast());
        assert!(EtherAddr::BROADCAST.is_group());
        assert!(!e.is_group());
        let eth0 = EtherAddr([0, 1, 2, 3, 4, 5]);
        assert_eq!(EtherAddr::from_arg("eth0", &Names), Ok(eth0));
        assert_eq!(EtherAddr::from_arg("eth0:eth", &Names), Ok(eth0));
        assert_eq!(
            EtherAddr::from_arg("eth0", &NoContext),
            Err("expected Ethernet address".into())
        );
        assert_eq!(
            EtherAddr::from_arg("broken", &Names),
            Err("expected Ethernet address".into())
        );
    }
}
