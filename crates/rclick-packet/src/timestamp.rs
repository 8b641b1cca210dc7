//! [`Timestamp`]: a point in time (or a time difference) with nanosecond
//! resolution, modelled on Click's `Timestamp`.
//!
//! A timestamp is a signed 64-bit count of nanoseconds since the Unix epoch,
//! which covers the years 1678 to 2262. Arithmetic saturates instead of
//! overflowing, so no operation on timestamps panics.
//!
//! Display follows Click's `Timestamp::unparse()`: `sec.usec` with exactly
//! six fractional digits (`1.500000`). Use [`Timestamp::display_nsec`] for nine
//! digits, or a precision (`{:.3}`) for any number of digits between 0 and 9.

use std::fmt;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Nanoseconds per second.
pub const NSEC_PER_SEC: i64 = 1_000_000_000;
/// Nanoseconds per microsecond.
pub const NSEC_PER_USEC: i64 = 1_000;
/// Nanoseconds per millisecond.
pub const NSEC_PER_MSEC: i64 = 1_000_000;

/// A time with nanosecond resolution: signed nanoseconds since the Unix epoch
/// (or a signed interval, when used as a difference).
///
/// `Timestamp` is `Copy`, 8 bytes, and totally ordered. The whole-second part
/// ([`sec`](Self::sec)) is rounded toward negative infinity and the
/// sub-second part ([`subsec_nsec`](Self::subsec_nsec)) is always
/// non-negative, as in Click.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The epoch (or a zero interval).
    pub const ZERO: Timestamp = Timestamp(0);
    /// The largest representable timestamp.
    pub const MAX: Timestamp = Timestamp(i64::MAX);
    /// The smallest representable timestamp.
    pub const MIN: Timestamp = Timestamp(i64::MIN);

    /// Creates a timestamp from nanoseconds since the epoch.
    #[inline]
    pub const fn from_nsec(nsec: i64) -> Self {
        Timestamp(nsec)
    }

    /// Creates a timestamp from microseconds since the epoch (saturating).
    #[inline]
    pub const fn from_usec(usec: i64) -> Self {
        Timestamp(usec.saturating_mul(NSEC_PER_USEC))
    }

    /// Creates a timestamp from milliseconds since the epoch (saturating).
    #[inline]
    pub const fn from_msec(msec: i64) -> Self {
        Timestamp(msec.saturating_mul(NSEC_PER_MSEC))
    }

    /// Creates a timestamp from whole seconds since the epoch (saturating).
    #[inline]
    pub const fn from_sec(sec: i64) -> Self {
        Timestamp(sec.saturating_mul(NSEC_PER_SEC))
    }

    /// Creates a timestamp from seconds and microseconds; `usec` may be
    /// negative or exceed one second, it is simply added (saturating).
    #[inline]
    pub const fn from_sec_usec(sec: i64, usec: i64) -> Self {
        Timestamp(
            sec.saturating_mul(NSEC_PER_SEC)
                .saturating_add(usec.saturating_mul(NSEC_PER_USEC)),
        )
    }

    /// Creates a timestamp from seconds and nanoseconds; `nsec` may be
    /// negative or exceed one second, it is simply added (saturating).
    #[inline]
    pub const fn from_sec_nsec(sec: i64, nsec: i64) -> Self {
        Timestamp(sec.saturating_mul(NSEC_PER_SEC).saturating_add(nsec))
    }

    /// The current wall-clock time (`CLOCK_REALTIME`). A clock set before the
    /// epoch gives a negative timestamp.
    ///
    /// Read with `clock_gettime` directly: `SystemTime::now()` and its
    /// checked subtraction and `Duration` conversion cost about 45
    /// instructions more a read (callgrind), paid for every packet by
    /// sources that timestamp each one (InfiniteSource at BURST 1).
    #[inline]
    pub fn now_realtime() -> Self {
        use nix::time::{clock_gettime, ClockId};
        match clock_gettime(ClockId::CLOCK_REALTIME) {
            Ok(ts) => Timestamp::from_sec_nsec(ts.tv_sec(), ts.tv_nsec()),
            Err(_) => match SystemTime::now().duration_since(UNIX_EPOCH) {
                Ok(d) => Timestamp::from(d),
                Err(e) => -Timestamp::from(e.duration()),
            },
        }
    }

    /// Total nanoseconds since the epoch.
    #[inline]
    pub const fn as_nsec(self) -> i64 {
        self.0
    }

    /// Total microseconds since the epoch, rounded toward negative infinity.
    #[inline]
    pub const fn as_usec(self) -> i64 {
        self.0.div_euclid(NSEC_PER_USEC)
    }

    /// Total milliseconds since the epoch, rounded toward negative infinity.
    #[inline]
    pub const fn as_msec(self) -> i64 {
        self.0.div_euclid(NSEC_PER_MSEC)
    }

    /// Seconds as a floating-point number.
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.sec() as f64 + self.subsec_nsec() as f64 / NSEC_PER_SEC as f64
    }

    /// Whole seconds, rounded toward negative infinity (Click's `sec()`).
    #[inline]
    pub const fn sec(self) -> i64 {
        self.0.div_euclid(NSEC_PER_SEC)
    }

    /// Sub-second part in nanoseconds, always in `0..1_000_000_000`.
    #[inline]
    pub const fn subsec_nsec(self) -> u32 {
        self.0.rem_euclid(NSEC_PER_SEC) as u32
    }

    /// Sub-second part in microseconds (truncated), always in `0..1_000_000`
    /// (Click's `usec()`).
    #[inline]
    pub const fn subsec_usec(self) -> u32 {
        self.subsec_nsec() / 1000
    }

    /// True for the epoch / zero interval (Click uses zero as "unset").
    #[inline]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// Converts a non-negative timestamp to a [`Duration`]; `None` if negative.
    #[inline]
    pub const fn to_duration(self) -> Option<Duration> {
        if self.0 < 0 {
            None
        } else {
            Some(Duration::new(
                (self.0 / NSEC_PER_SEC) as u64,
                (self.0 % NSEC_PER_SEC) as u32,
            ))
        }
    }

    /// Adds, saturating at [`Timestamp::MAX`] / [`Timestamp::MIN`].
    #[inline]
    pub const fn saturating_add(self, rhs: Timestamp) -> Timestamp {
        Timestamp(self.0.saturating_add(rhs.0))
    }

    /// Subtracts, saturating at [`Timestamp::MAX`] / [`Timestamp::MIN`].
    #[inline]
    pub const fn saturating_sub(self, rhs: Timestamp) -> Timestamp {
        Timestamp(self.0.saturating_sub(rhs.0))
    }

    /// Multiplies by an integer, saturating.
    #[inline]
    pub const fn saturating_mul(self, rhs: i64) -> Timestamp {
        Timestamp(self.0.saturating_mul(rhs))
    }

    /// Divides by an integer; `None` when `rhs == 0` (or on overflow).
    #[inline]
    pub const fn checked_div(self, rhs: i64) -> Option<Timestamp> {
        match self.0.checked_div(rhs) {
            Some(v) => Some(Timestamp(v)),
            None => None,
        }
    }

    /// A [`Display`](fmt::Display) adapter printing nine fractional digits
    /// (`sec.nsec`), like Click's `unparse()` in nanosecond builds.
    #[inline]
    pub const fn display_nsec(self) -> NsecDisplay {
        NsecDisplay(self)
    }

    fn fmt_digits(self, f: &mut fmt::Formatter<'_>, digits: usize) -> fmt::Result {
        let neg = self.0 < 0;
        let abs = self.0.unsigned_abs();
        let sec = abs / NSEC_PER_SEC as u64;
        let frac = abs % NSEC_PER_SEC as u64;
        let sign = if neg { "-" } else { "" };
        let digits = digits.min(9);
        if digits == 0 {
            write!(f, "{sign}{sec}")
        } else {
            let scaled = frac / 10u64.pow(9 - digits as u32);
            write!(f, "{sign}{sec}.{scaled:0digits$}")
        }
    }
}

impl fmt::Display for Timestamp {
    /// `sec.usec` with six digits, or `{:.N}` for `N` (0–9) digits. The value
    /// is truncated, not rounded, and negative values print as `-sec.frac`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_digits(f, f.precision().unwrap_or(6))
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({})", self.display_nsec())
    }
}

/// Displays a [`Timestamp`] with nine fractional digits; see
/// [`Timestamp::display_nsec`].
#[derive(Clone, Copy, Debug)]
pub struct NsecDisplay(Timestamp);

impl fmt::Display for NsecDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_digits(f, 9)
    }
}

impl From<Duration> for Timestamp {
    /// Saturates at [`Timestamp::MAX`] for durations beyond year 2262.
    fn from(d: Duration) -> Self {
        let ns = d.as_nanos();
        Timestamp(if ns > i64::MAX as u128 {
            i64::MAX
        } else {
            ns as i64
        })
    }
}

impl Add for Timestamp {
    type Output = Timestamp;
    /// Saturating addition.
    #[inline]
    fn add(self, rhs: Timestamp) -> Timestamp {
        self.saturating_add(rhs)
    }
}

impl Sub for Timestamp {
    type Output = Timestamp;
    /// Saturating subtraction.
    #[inline]
    fn sub(self, rhs: Timestamp) -> Timestamp {
        self.saturating_sub(rhs)
    }
}

impl AddAssign for Timestamp {
    #[inline]
    fn add_assign(&mut self, rhs: Timestamp) {
        *self = *self + rhs;
    }
}

impl SubAssign for Timestamp {
    #[inline]
    fn sub_assign(&mut self, rhs: Timestamp) {
        *self = *self - rhs;
    }
}

impl Add<Duration> for Timestamp {
    type Output = Timestamp;
    /// Saturating addition of a duration.
    #[inline]
    fn add(self, rhs: Duration) -> Timestamp {
        self.saturating_add(Timestamp::from(rhs))
    }
}

impl Sub<Duration> for Timestamp {
    type Output = Timestamp;
    /// Saturating subtraction of a duration.
    #[inline]
    fn sub(self, rhs: Duration) -> Timestamp {
        self.saturating_sub(Timestamp::from(rhs))
    }
}

impl Neg for Timestamp {
    type Output = Timestamp;
    /// Saturating negation (`-MIN == MAX`).
    #[inline]
    fn neg(self) -> Timestamp {
        Timestamp(self.0.saturating_neg())
    }
}

/// Error returned when parsing a [`Timestamp`] fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTimestampError {
    kind: &'static str,
}

impl fmt::Display for ParseTimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid timestamp: {}", self.kind)
    }
}

impl std::error::Error for ParseTimestampError {}

impl FromStr for Timestamp {
    type Err = ParseTimestampError;

    /// Parses `[+-]SEC[.FRAC]` (also `.FRAC` and `SEC.`), e.g. `123.456789`.
    /// Fraction digits beyond nine are truncated.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |kind| ParseTimestampError { kind };
        let (neg, rest) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int_part, frac_part) = match rest.find('.') {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        if int_part.is_empty() && frac_part.unwrap_or("").is_empty() {
            return Err(err("no digits"));
        }
        let mut sec: i64 = 0;
        for b in int_part.bytes() {
            if !b.is_ascii_digit() {
                return Err(err("unexpected character"));
            }
            sec = sec
                .checked_mul(10)
                .and_then(|v| v.checked_add((b - b'0') as i64))
                .ok_or(err("out of range"))?;
        }
        let mut nsec: i64 = 0;
        if let Some(frac) = frac_part {
            let mut scale = NSEC_PER_SEC / 10;
            for b in frac.bytes() {
                if !b.is_ascii_digit() {
                    return Err(err("unexpected character"));
                }
                nsec += (b - b'0') as i64 * scale;
                scale /= 10;
            }
        }
        let total = sec
            .checked_mul(NSEC_PER_SEC)
            .and_then(|v| v.checked_add(nsec))
            .ok_or(err("out of range"))?;
        Ok(Timestamp(if neg { -total } else { total }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_and_parts() {
        let t = Timestamp::from_sec_usec(123, 456_789);
        assert_eq!(t.sec(), 123);
        assert_eq!(t.subsec_usec(), 456_789);
        assert_eq!(t.subsec_nsec(), 456_789_000);
        assert_eq!(t.as_usec(), 123_456_789);
        assert_eq!(
            Timestamp::from_sec_nsec(1, 5),
            Timestamp::from_nsec(1_000_000_005)
        );
        assert_eq!(
            Timestamp::from_msec(1500),
            Timestamp::from_sec_usec(1, 500_000)
        );
        let neg = Timestamp::from_nsec(-500_000_000);
        assert_eq!(neg.sec(), -1);
        assert_eq!(neg.subsec_nsec(), 500_000_000);
        assert_eq!(neg.to_duration(), None);
        assert_eq!(
            Timestamp::from_sec(2).to_duration(),
            Some(Duration::from_secs(2))
        );
    }

    #[test]
    fn display() {
        assert_eq!(
            Timestamp::from_sec_usec(123, 456_789).to_string(),
            "123.456789"
        );
        assert_eq!(Timestamp::from_sec(1).to_string(), "1.000000");
        assert_eq!(Timestamp::ZERO.to_string(), "0.000000");
        assert_eq!(Timestamp::from_nsec(1_999_999_999).to_string(), "1.999999");
        assert_eq!(
            Timestamp::from_nsec(1_000_000_001)
                .display_nsec()
                .to_string(),
            "1.000000001"
        );
        assert_eq!(Timestamp::from_nsec(-500_000_000).to_string(), "-0.500000");
        assert_eq!(
            format!("{:.3}", Timestamp::from_sec_usec(5, 123_456)),
            "5.123"
        );
        assert_eq!(format!("{:.0}", Timestamp::from_sec_usec(5, 123_456)), "5");
        assert_eq!(Timestamp::MIN.to_string(), "-9223372036.854775");
        assert!(format!("{:?}", Timestamp::from_sec(1)).contains("1.000000000"));
    }

    #[test]
    fn parse() {
        let t: Timestamp = "123.456789".parse().unwrap();
        assert_eq!(t, Timestamp::from_sec_usec(123, 456_789));
        assert_eq!("5".parse::<Timestamp>().unwrap(), Timestamp::from_sec(5));
        assert_eq!("5.".parse::<Timestamp>().unwrap(), Timestamp::from_sec(5));
        assert_eq!(
            ".5".parse::<Timestamp>().unwrap(),
            Timestamp::from_msec(500)
        );
        assert_eq!(
            "-0.5".parse::<Timestamp>().unwrap(),
            Timestamp::from_msec(-500)
        );
        assert_eq!(
            "1.0000000019".parse::<Timestamp>().unwrap(),
            Timestamp::from_nsec(1_000_000_001)
        );
        for bad in ["", ".", "-", "1.2.3", "abc", "1e5", "99999999999999999999"] {
            assert!(bad.parse::<Timestamp>().is_err(), "{bad:?} parsed");
        }
        // Round trip.
        let t = Timestamp::from_sec_usec(1_700_000_000, 42);
        assert_eq!(t.to_string().parse::<Timestamp>().unwrap(), t);
    }

    #[test]
    fn arithmetic_saturates() {
        let a = Timestamp::from_sec(3);
        let b = Timestamp::from_msec(500);
        assert_eq!(a - b, Timestamp::from_msec(2500));
        assert_eq!(a + b, Timestamp::from_msec(3500));
        let mut c = a;
        c += b;
        c -= Timestamp::from_sec(1);
        assert_eq!(c, Timestamp::from_msec(2500));
        assert_eq!(a + Duration::from_millis(1), Timestamp::from_msec(3001));
        assert_eq!(a - Duration::from_millis(1), Timestamp::from_msec(2999));
        assert_eq!(Timestamp::MAX + a, Timestamp::MAX);
        assert_eq!(Timestamp::MIN - a, Timestamp::MIN);
        assert_eq!(-Timestamp::MIN, Timestamp::MAX);
        assert_eq!(a.checked_div(0), None);
        assert_eq!(a.checked_div(3), Some(Timestamp::from_sec(1)));
        assert_eq!(a.saturating_mul(2), Timestamp::from_sec(6));
    }

    #[test]
    fn now_is_recent() {
        let t = Timestamp::now_realtime();
        assert!(t.sec() > 1_600_000_000);
        assert!((t.as_secs_f64() - t.sec() as f64) < 1.0);
    }

    #[test]
    fn now_agrees_with_system_time() {
        let since = || Timestamp::from(SystemTime::now().duration_since(UNIX_EPOCH).unwrap());
        let a = since();
        let t = Timestamp::now_realtime();
        let b = since();
        assert!(a <= t && t <= b, "{a:?} {t:?} {b:?}");
    }
}
