//! Numbers with units: time intervals (Click's `SecondsArg`) and bandwidths
//! (Click's `BandwidthArg`).

use std::fmt;
use std::time::Duration;

use super::basic::FromArg;
use super::context::ArgContext;

/// A non-negative decimal number `mantissa * 10^exp10`, as Click's
/// `preparse_fraction` reads it: optional `+`, digits with at most one `.`
/// and `_` between digits, optional exponent `e[+-]digits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    mantissa: u128,
    exp10: i32,
}

/// Keeps at most this many significant digits; later digits only move the
/// exponent (they are below any precision we report).
const MAX_MANTISSA: u128 = 10u128.pow(37);

fn parse_decimal(s: &str) -> Option<Decimal> {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && b[i] == b'+' {
        i += 1;
    }
    let first = i;
    let mut last_digit_end: Option<usize> = None;
    let mut point = false;
    let mut d = Decimal {
        mantissa: 0,
        exp10: 0,
    };
    while i < b.len() {
        let c = b[i];
        if c == b'_' && last_digit_end == Some(i) {
            // allowed between digits
        } else if c == b'.' && !point && (last_digit_end == Some(i) || i == first) {
            point = true;
        } else if c.is_ascii_digit() {
            if d.mantissa < MAX_MANTISSA {
                d.mantissa = d.mantissa * 10 + u128::from(c - b'0');
                if point {
                    d.exp10 -= 1;
                }
            } else if !point {
                d.exp10 += 1;
            }
            last_digit_end = Some(i + 1);
        } else {
            break;
        }
        i += 1;
    }
    last_digit_end?;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') && i + 1 < b.len() {
        let mut j = i + 1;
        let negative = b[j] == b'-';
        if b[j] == b'-' || b[j] == b'+' {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            let mut e: i32 = 0;
            while j < b.len() && b[j].is_ascii_digit() {
                e = e.saturating_mul(10).saturating_add(i32::from(b[j] - b'0'));
                j += 1;
            }
            d.exp10 = d
                .exp10
                .saturating_add(if negative { e.saturating_neg() } else { e });
            i = j;
        }
    }
    (i == b.len()).then_some(d)
}

/// A unit suffix: text, power of ten, and integer factor.
type Unit = (&'static str, i32, u32);

/// Splits a unit suffix off `s`, as Click's `UnitArg`: the first suffix in
/// `units` that ends `s` wins; then one metric prefix character may precede
/// it; then spaces before the unit are dropped.  Returns the number text,
/// power of ten, factor, and whether a unit was found.
fn split_unit<'s>(s: &'s str, units: &[Unit], prefixes: &[(u8, i32)]) -> (&'s str, i32, u32, bool) {
    for &(suffix, power, factor) in units {
        if let Some(mut rest) = s.strip_suffix(suffix) {
            let mut power = power;
            if let Some(&last) = rest.as_bytes().last() {
                if let Some(&(_, p)) = prefixes.iter().find(|&&(c, _)| c == last) {
                    power += p;
                    rest = &rest[..rest.len() - 1];
                }
            }
            return (rest.trim_end(), power, factor, true);
        }
    }
    (s, 0, 1, false)
}

const SECONDS_UNITS: &[Unit] = &[
    ("s", 0, 1),
    ("sec", 0, 1),
    ("m", 1, 6),
    ("min", 1, 6),
    ("h", 2, 36),
    ("hr", 2, 36),
    ("d", 2, 864),
    ("day", 2, 864),
];
const SECONDS_PREFIXES: &[(u8, i32)] = &[(b'm', -3), (b'u', -6), (b'n', -9)];

const BANDWIDTH_UNITS: &[Unit] = &[
    ("baud", -3, 125),
    ("bps", -3, 125),
    ("b/s", -3, 125),
    ("Bps", 0, 1),
    ("B/s", 0, 1),
];
const BANDWIDTH_PREFIXES: &[(u8, i32)] = &[(b'k', 3), (b'K', 3), (b'M', 6), (b'G', 9)];

/// A time interval with nanosecond resolution.
///
/// Parsed like Click's `SecondsArg`: a non-negative decimal number of
/// seconds (`1`, `0.5`, `1e-3`) with an optional unit: `s`/`sec`, `m`/`min`,
/// `h`/`hr`, `d`/`day`, where `s` and `sec` (and the others) take a metric
/// prefix `m`, `u` or `n` (`10ms`, `250us`, `100nsec`).  Note that a bare
/// `m` means minutes.  Values are rounded to the nearest nanosecond.
///
/// Displayed like Click's `Timestamp::unparse_interval`: `10ms`, `250us`,
/// `100ns` below one second, else `1.500000s`.
///
/// ```
/// use rclick_core::args::parse_interval;
/// assert_eq!(parse_interval("1.5s").unwrap().as_nanos(), 1_500_000_000);
/// assert_eq!(parse_interval("2min").unwrap().to_string(), "120.000000s");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Interval(pub i64);

impl Interval {
    /// Zero seconds.
    pub const ZERO: Interval = Interval(0);

    /// An interval of `ns` nanoseconds.
    pub const fn from_nanos(ns: i64) -> Self {
        Interval(ns)
    }

    /// An interval of `us` microseconds.
    pub const fn from_micros(us: i64) -> Self {
        Interval(us * 1_000)
    }

    /// An interval of `ms` milliseconds.
    pub const fn from_millis(ms: i64) -> Self {
        Interval(ms * 1_000_000)
    }

    /// An interval of `s` seconds.
    pub const fn from_secs(s: i64) -> Self {
        Interval(s * 1_000_000_000)
    }

    /// The interval in nanoseconds.
    pub const fn as_nanos(self) -> i64 {
        self.0
    }

    /// The interval in seconds, as a real number.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// The interval as a `Duration` (negative intervals become zero).
    pub fn to_duration(self) -> Duration {
        Duration::from_nanos(u64::try_from(self.0).unwrap_or(0))
    }

    /// True if the interval is zero.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl From<Duration> for Interval {
    /// Saturates at `i64::MAX` nanoseconds (about 292 years).
    fn from(d: Duration) -> Self {
        Interval(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if (0..1_000_000_000).contains(&ns) {
            if ns % 1_000_000 == 0 {
                write!(f, "{}ms", ns / 1_000_000)
            } else if ns % 1_000 == 0 {
                write!(f, "{}us", ns / 1_000)
            } else {
                write!(f, "{ns}ns")
            }
        } else {
            let sign = if ns < 0 { "-" } else { "" };
            let abs = ns.unsigned_abs();
            let (sec, sub) = (abs / 1_000_000_000, abs % 1_000_000_000);
            if sub % 1_000 == 0 {
                write!(f, "{sign}{sec}.{:06}s", sub / 1_000)
            } else {
                write!(f, "{sign}{sec}.{sub:09}s")
            }
        }
    }
}

/// Parses a time interval without context; see [`Interval`] for the syntax.
///
/// Errors: `expected time in seconds`, or `out of range` past `i64::MAX`
/// nanoseconds.
pub fn parse_interval(s: &str) -> Result<Interval, String> {
    let invalid = || "expected time in seconds".to_string();
    let (num, power, factor, _) = split_unit(s, SECONDS_UNITS, SECONDS_PREFIXES);
    let d = parse_decimal(num).ok_or_else(invalid)?;
    let scaled = d.mantissa * u128::from(factor); // < 10^37 * 864: fits
    let exp = d.exp10.saturating_add(power).saturating_add(9);
    let ns: Option<u128> = if scaled == 0 {
        Some(0)
    } else if exp >= 0 {
        u32::try_from(exp)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .and_then(|m| scaled.checked_mul(m))
    } else {
        let div = 10u128.checked_pow(exp.unsigned_abs());
        Some(match div {
            // round half up, as Click does
            Some(div) => scaled / div + u128::from(scaled % div >= div.div_ceil(2)),
            None => 0,
        })
    };
    ns.and_then(|ns| i64::try_from(ns).ok())
        .map(Interval)
        .ok_or_else(|| "out of range".to_string())
}

impl FromArg for Interval {
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        parse_interval(s)
    }
}

/// A bandwidth in bytes per second.
///
/// Parsed like Click's `BandwidthArg`: a non-negative decimal number with an
/// optional unit: bits per second `bps`, `b/s` or `baud`, or bytes per
/// second `Bps` or `B/s`, each with an optional prefix `k`/`K` (10^3),
/// `M` (10^6) or `G` (10^9): `10Mbps`, `1MBps`, `100kbps`.  A number without
/// a unit means bytes per second (Click elements may warn about it: see
/// [`Bandwidth::parse_with_units`]).  A prefix without a unit (`56k`) is an
/// error, as in Click.
///
/// Displayed as Click's `BandwidthArg::unparse`: `8kbps`, `10Mbps`, `1Gbps`,
/// or `MBps` above 2^29 bytes per second.
///
/// ```
/// use rclick_core::args::parse_bandwidth;
/// assert_eq!(parse_bandwidth("10Mbps").unwrap().0, 1_250_000.0);
/// assert_eq!(parse_bandwidth("1250000").unwrap().to_string(), "10Mbps");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Bandwidth(pub f64);

impl Bandwidth {
    /// Bytes per second.
    pub fn bytes_per_sec(self) -> f64 {
        self.0
    }

    /// Bits per second.
    pub fn bits_per_sec(self) -> f64 {
        self.0 * 8.0
    }

    /// Parses `s`, also saying whether it had a unit (`false` for a bare
    /// number, which Click elements sometimes warn about).
    pub fn parse_with_units(s: &str) -> Result<(Bandwidth, bool), String> {
        let (num, power, factor, has_unit) = split_unit(s, BANDWIDTH_UNITS, BANDWIDTH_PREFIXES);
        let d = parse_decimal(num).ok_or_else(|| "expected bandwidth".to_string())?;
        let exp = d.exp10.saturating_add(power);
        let base = d.mantissa as f64 * f64::from(factor);
        // divide by an exact power of ten rather than multiply by an inexact one
        let v = if exp >= 0 {
            base * 10f64.powi(exp)
        } else {
            base / 10f64.powi(exp.saturating_neg())
        };
        if v.is_finite() {
            Ok((Bandwidth(v), has_unit))
        } else {
            Err("out of range".into())
        }
    }
}

/// Parses a bandwidth in bytes per second; see [`Bandwidth`] for the
/// syntax.  Errors: `expected bandwidth`, `out of range`.
pub fn parse_bandwidth(s: &str) -> Result<Bandwidth, String> {
    Bandwidth::parse_with_units(s).map(|(b, _)| b)
}

impl FromArg for Bandwidth {
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        parse_bandwidth(s)
    }
}

/// Formats `v` with at most `digits` decimals, dropping trailing zeros.
fn trim_real(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Unparses a bandwidth (bytes per second) as Click's
/// `BandwidthArg::unparse` does: `MBps` from 2^29 bytes/s, `Gbps` from
/// 125000000, `Mbps` from 125000, else `kbps`.
pub fn unparse_bandwidth(bytes_per_sec: f64) -> String {
    let x = bytes_per_sec;
    if x >= f64::from(0x2000_0000u32) {
        format!("{}MBps", trim_real(x / 1e6, 6))
    } else if x >= 125_000_000.0 {
        format!("{}Gbps", trim_real(x * 8.0 / 1e9, 9))
    } else if x >= 125_000.0 {
        format!("{}Mbps", trim_real(x * 8.0 / 1e6, 6))
    } else {
        format!("{}kbps", trim_real(x * 8.0 / 1e3, 3))
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&unparse_bandwidth(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::super::context::NoContext;
    use super::*;

    fn ns(s: &str) -> Result<i64, String> {
        parse_interval(s).map(Interval::as_nanos)
    }

    #[test]
    fn decimals() {
        let d = |s| parse_decimal(s).map(|d| (d.mantissa, d.exp10));
        assert_eq!(d("1"), Some((1, 0)));
        assert_eq!(d("+1.50"), Some((150, -2)));
        assert_eq!(d(".5"), Some((5, -1)));
        assert_eq!(d("5."), Some((5, 0)));
        assert_eq!(d("1_000"), Some((1000, 0)));
        assert_eq!(d("1e3"), Some((1, 3)));
        assert_eq!(d("1E-3"), Some((1, -3)));
        assert_eq!(d("1.5e+2"), Some((15, 1)));
        for bad in [
            "", ".", "+", "-1", "1..2", "1.2.3", "1e", "1e+", "_1", "1__0", "x", "1 ",
        ] {
            assert_eq!(d(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn intervals_accept() {
        assert_eq!(ns("1"), Ok(1_000_000_000));
        assert_eq!(ns("0.5"), Ok(500_000_000));
        assert_eq!(ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(ns("1sec"), Ok(1_000_000_000));
        assert_eq!(ns("10ms"), Ok(10_000_000));
        assert_eq!(ns("10msec"), Ok(10_000_000));
        assert_eq!(ns("250us"), Ok(250_000));
        assert_eq!(ns("100ns"), Ok(100));
        assert_eq!(ns("2min"), Ok(120_000_000_000));
        assert_eq!(ns("1m"), Ok(60_000_000_000));
        assert_eq!(ns("1h"), Ok(3_600_000_000_000));
        assert_eq!(ns("1hr"), Ok(3_600_000_000_000));
        assert_eq!(ns("1d"), Ok(86_400_000_000_000));
        assert_eq!(ns("1day"), Ok(86_400_000_000_000));
        assert_eq!(ns("10 ms"), Ok(10_000_000));
        assert_eq!(ns("1e-3"), Ok(1_000_000));
        assert_eq!(ns("0"), Ok(0));
        assert_eq!(ns("0.0000000015"), Ok(2)); // rounds half up
        assert_eq!(ns("0.0000000014"), Ok(1));
        assert_eq!(ns("1e-30"), Ok(0));
        assert_eq!(ns("0e999"), Ok(0));
        assert_eq!(
            ns("1.000000000000000000000000000000000000000001"),
            Ok(1_000_000_000)
        );
    }

    #[test]
    fn intervals_reject() {
        for bad in ["", "s", "-1", "1x", "1 s s", "1ks", "ms", "1.2.3s", "abc"] {
            assert_eq!(ns(bad), Err("expected time in seconds".into()), "{bad:?}");
        }
        assert_eq!(ns("1e20"), Err("out of range".into()));
        assert_eq!(ns("1e99999"), Err("out of range".into()));
        assert_eq!(
            Interval::from_arg("x", &NoContext),
            Err("expected time in seconds".into())
        );
    }

    #[test]
    fn interval_unparse() {
        let u = |n: i64| Interval(n).to_string();
        assert_eq!(u(0), "0ms");
        assert_eq!(u(10_000_000), "10ms");
        assert_eq!(u(250_000), "250us");
        assert_eq!(u(100), "100ns");
        assert_eq!(u(1_000_000_000), "1.000000s");
        assert_eq!(u(1_500_000_000), "1.500000s");
        assert_eq!(u(1_000_000_001), "1.000000001s");
        assert_eq!(u(-1_500_000_000), "-1.500000s");
        assert_eq!(u(-5), "-0.000000005s");
        for s in ["10ms", "250us", "100ns", "1.500000s", "1.000000001s"] {
            assert_eq!(parse_interval(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn interval_conversions() {
        assert_eq!(Interval::from_secs(2).as_nanos(), 2_000_000_000);
        assert_eq!(Interval::from_millis(2).as_nanos(), 2_000_000);
        assert_eq!(Interval::from_micros(2).as_nanos(), 2_000);
        assert_eq!(Interval::from_nanos(2).as_nanos(), 2);
        assert_eq!(Interval::from_millis(1500).as_secs_f64(), 1.5);
        assert_eq!(
            Interval::from_millis(3).to_duration(),
            Duration::from_millis(3)
        );
        assert_eq!(Interval(-1).to_duration(), Duration::ZERO);
        assert_eq!(Interval::from(Duration::from_micros(7)), Interval(7_000));
        assert_eq!(Interval::from(Duration::MAX), Interval(i64::MAX));
        assert!(Interval::ZERO.is_zero());
    }

    #[test]
    fn bandwidths() {
        let bw = |s: &str| parse_bandwidth(s).map(|b| b.0);
        assert_eq!(bw("10Mbps"), Ok(1_250_000.0));
        assert_eq!(bw("1MBps"), Ok(1_000_000.0));
        assert_eq!(bw("100kbps"), Ok(12_500.0));
        assert_eq!(bw("100Kbps"), Ok(12_500.0));
        assert_eq!(bw("1Gbps"), Ok(125_000_000.0));
        assert_eq!(bw("8bps"), Ok(1.0));
        assert_eq!(bw("8b/s"), Ok(1.0));
        assert_eq!(bw("8baud"), Ok(1.0));
        assert_eq!(bw("2B/s"), Ok(2.0));
        assert_eq!(bw("1.5 kBps"), Ok(1500.0));
        assert_eq!(bw("1000"), Ok(1000.0));
        assert_eq!(
            Bandwidth::parse_with_units("1000"),
            Ok((Bandwidth(1000.0), false))
        );
        assert_eq!(
            Bandwidth::parse_with_units("1kBps"),
            Ok((Bandwidth(1000.0), true))
        );
        for bad in ["", "56k", "10Mbit", "-1Bps", "Mbps", "x", "1 0Bps"] {
            assert_eq!(bw(bad), Err("expected bandwidth".into()), "{bad:?}");
        }
        assert_eq!(bw("1e400Bps"), Err("out of range".into()));
        let b = Bandwidth::from_arg("16kbps", &NoContext).unwrap();
        assert_eq!(b.bytes_per_sec(), 2000.0);
        assert_eq!(b.bits_per_sec(), 16000.0);
    }

    #[test]
    fn bandwidth_unparse() {
        assert_eq!(unparse_bandwidth(1000.0), "8kbps");
        assert_eq!(unparse_bandwidth(1500.0), "12kbps");
        assert_eq!(unparse_bandwidth(12.5), "0.1kbps");
        assert_eq!(unparse_bandwidth(1_250_000.0), "10Mbps");
        assert_eq!(unparse_bandwidth(125_000_000.0), "1Gbps");
        assert_eq!(unparse_bandwidth(1_000_000_000.0), "1000MBps");
        assert_eq!(Bandwidth(125_000.0).to_string(), "1Mbps");
        for s in ["8kbps", "10Mbps", "1Gbps", "1000MBps"] {
            assert_eq!(parse_bandwidth(s).unwrap().to_string(), s);
        }
    }
}
