//! Two-piece linear service curves and their run-time form (H-FSC, Stoica,
//! Zhang and Ng, SIGCOMM 1997, section 4).
//!
//! A [`ServiceCurve`] `(m1, d, m2)` promises `m1` bytes per second for the
//! first `d` nanoseconds of a backlogged period and `m2` after: *concave*
//! when `m1 > m2` (a burst, the curve that decouples delay from rate),
//! *convex* when `m1 < m2` (a start delay), linear when `d` is 0 or the
//! slopes are equal. A [`RuntimeCurve`] is a curve anchored at a point
//! `(x, y)` (time in nanoseconds, service in bytes); when a class becomes
//! backlogged again the scheduler takes the minimum of the old anchored
//! curve and the curve anchored anew ([`RuntimeCurve::min_with`]), which is
//! what makes H-FSC's guarantees hold across backlogged periods.
//!
//! Arithmetic is exact integer arithmetic in `u128` intermediates: time to
//! service rounds down, service to time rounds up (a deadline is never
//! earlier than the curve says), and everything saturates, so no input
//! can overflow or panic. A zero slope maps any further service to
//! [`NEVER`].

use std::fmt;

use rclick_core::args::{parse_bandwidth, parse_interval, unparse_bandwidth};

/// Nanoseconds per second.
const NS: u128 = 1_000_000_000;

/// "Never": the time of service a zero slope cannot give. Far enough below
/// `u64::MAX` that sums of a few of them do not wrap (they saturate anyway).
pub const NEVER: u64 = u64::MAX / 4;

/// Service (bytes) at slope `m` (bytes/s) over `dx` nanoseconds, rounded down.
pub fn seg_x2y(dx: u64, m: u64) -> u64 {
    let y = dx as u128 * m as u128 / NS;
    u64::try_from(y).unwrap_or(u64::MAX)
}

/// Time (ns) slope `m` needs to give `dy` bytes, rounded up; [`NEVER`] for
/// a zero slope and a positive `dy`.
pub fn seg_y2x(dy: u64, m: u64) -> u64 {
    if dy == 0 {
        return 0;
    }
    if m == 0 {
        return NEVER;
    }
    let x = (dy as u128 * NS).div_ceil(m as u128);
    u64::try_from(x).unwrap_or(u64::MAX).min(NEVER)
}

/// A two-piece linear service curve: `m1` bytes/s for `d` ns, then `m2`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServiceCurve {
    /// First slope, bytes per second.
    pub m1: u64,
    /// Length of the first piece, nanoseconds.
    pub d: u64,
    /// Second slope, bytes per second.
    pub m2: u64,
}

impl ServiceCurve {
    /// The linear curve of slope `m2`.
    pub fn linear(m2: u64) -> ServiceCurve {
        ServiceCurve { m1: m2, d: 0, m2 }
    }

    /// Bytes the curve promises by `t` ns after the start of a backlogged
    /// period.
    pub fn at(&self, t: u64) -> u64 {
        if t <= self.d {
            seg_x2y(t, self.m1)
        } else {
            seg_x2y(self.d, self.m1).saturating_add(seg_x2y(t - self.d, self.m2))
        }
    }

    /// Whether the first slope is above the second (a burst first).
    pub fn is_concave(&self) -> bool {
        self.m1 > self.m2
    }

    /// The first piece's extent in bytes.
    fn dy(&self) -> u64 {
        seg_x2y(self.d, self.m1)
    }

    /// Parses the words after `rt`, `ls`, `sc` or `ul` (see the HFSC
    /// manual): `BW`, `rate BW`, `m1 BW d TIME m2 BW` (m1 and d together,
    /// any order), or `umax BYTES dmax TIME rate BW`. Consumes words from
    /// `words` while they belong to the curve.
    pub fn parse<'a>(
        words: &mut std::iter::Peekable<impl Iterator<Item = &'a str>>,
    ) -> Result<ServiceCurve, String> {
        let (mut m1, mut d, mut m2, mut umax, mut dmax) = (None, None, None, None, None);
        let bw = |w: Option<&str>, what: &str| -> Result<u64, String> {
            let w = w.ok_or_else(|| format!("{what}: missing bandwidth"))?;
            let b = parse_bandwidth(w).map_err(|e| format!("{what}: {e} ({w:?})"))?;
            let b = b.bytes_per_sec();
            if !(0.0..=1e15).contains(&b) {
                return Err(format!("{what}: out of range ({w:?})"));
            }
            Ok(b.round() as u64)
        };
        let time = |w: Option<&str>, what: &str| -> Result<u64, String> {
            let w = w.ok_or_else(|| format!("{what}: missing time"))?;
            let t = parse_interval(w).map_err(|e| format!("{what}: {e} ({w:?})"))?;
            u64::try_from(t.as_nanos()).map_err(|_| format!("{what}: negative time ({w:?})"))
        };
        let mut any = false;
        while let Some(&w) = words.peek() {
            match w {
                "m1" | "d" | "m2" | "rate" | "umax" | "dmax" => {
                    words.next();
                    let v = words.next();
                    match w {
                        "m1" => m1 = Some(bw(v, "m1")?),
                        "m2" | "rate" => m2 = Some(bw(v, w)?),
                        "d" => d = Some(time(v, "d")?),
                        "dmax" => dmax = Some(time(v, "dmax")?),
                        _ => {
                            let v = v.ok_or("umax: missing size")?;
                            let n: u64 = v
                                .parse()
                                .map_err(|_| format!("umax: expected bytes ({v:?})"))?;
                            umax = Some(n);
                        }
                    }
                    any = true;
                }
                _ if !any => {
                    // a bare bandwidth: the linear curve
                    words.next();
                    m2 = Some(bw(Some(w), "rate")?);
                    break;
                }
                _ => break,
            }
        }
        let m2 = m2.ok_or("missing m2 (or rate)")?;
        match (m1, d, umax, dmax) {
            (None, None, None, None) => Ok(ServiceCurve::linear(m2)),
            (Some(m1), Some(d), None, None) => Ok(ServiceCurve { m1, d, m2 }),
            (Some(_), None, None, None) | (None, Some(_), None, None) => {
                Err("m1 and d go together".into())
            }
            (None, None, Some(umax), Some(dmax)) => {
                if dmax == 0 {
                    return Err("dmax: must be positive".into());
                }
                // tc-hfsc's conversion: umax bytes within dmax.
                let m1 = u64::try_from(umax as u128 * NS / dmax as u128).unwrap_or(u64::MAX);
                if m1 > m2 {
                    Ok(ServiceCurve { m1, d: dmax, m2 })
                } else {
                    // convex: nothing until the packet's time at m2 fits in dmax
                    let d = dmax.saturating_sub(seg_y2x(umax, m2));
                    Ok(ServiceCurve { m1: 0, d, m2 })
                }
            }
            (None, None, Some(_), None) | (None, None, None, Some(_)) => {
                Err("umax and dmax go together".into())
            }
            _ => Err("give either m1 and d, or umax and dmax".into()),
        }
    }
}

impl fmt::Display for ServiceCurve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bw = |m: u64| unparse_bandwidth(m as f64);
        if self.d == 0 || self.m1 == self.m2 {
            write!(f, "{}", bw(self.m2))
        } else {
            let d = rclick_core::args::Interval::from_nanos(self.d as i64);
            write!(f, "m1 {} d {} m2 {}", bw(self.m1), d, bw(self.m2))
        }
    }
}

/// A service curve anchored at `(x, y)`: service `y` at time `x`, then the
/// curve's first piece over `(dx, dy)`, then the second slope.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuntimeCurve {
    x: u64,
    y: u64,
    dx: u64,
    dy: u64,
    m1: u64,
    m2: u64,
}

impl RuntimeCurve {
    /// `sc` anchored at `(x, y)`.
    pub fn new(sc: &ServiceCurve, x: u64, y: u64) -> RuntimeCurve {
        RuntimeCurve {
            x,
            y,
            dx: sc.d,
            dy: sc.dy(),
            m1: sc.m1,
            m2: sc.m2,
        }
    }

    /// The same curve without its first piece: slope m2 from the anchor
    /// (the eligible curve of a convex real-time curve).
    pub fn linear_part(&self) -> RuntimeCurve {
        RuntimeCurve {
            dx: 0,
            dy: 0,
            ..*self
        }
    }

    /// Service by time `x`.
    pub fn x2y(&self, x: u64) -> u64 {
        if x <= self.x {
            self.y
        } else if x <= self.x.saturating_add(self.dx) {
            self.y.saturating_add(seg_x2y(x - self.x, self.m1))
        } else {
            self.y
                .saturating_add(self.dy)
                .saturating_add(seg_x2y(x - self.x - self.dx, self.m2))
        }
    }

    /// The earliest time by which the curve reaches service `y`.
    pub fn y2x(&self, y: u64) -> u64 {
        if y <= self.y {
            self.x
        } else if y <= self.y.saturating_add(self.dy) {
            if self.dy == 0 {
                self.x.saturating_add(self.dx)
            } else {
                self.x.saturating_add(seg_y2x(y - self.y, self.m1))
            }
        } else {
            self.x
                .saturating_add(self.dx)
                .saturating_add(seg_y2x(y - self.y - self.dy, self.m2))
        }
    }

    /// Replaces the curve by the minimum of itself and `sc` anchored at
    /// `(x, y)`, as a new backlogged period starting at `x` with `y` bytes
    /// served so far requires. The result is again one two-piece curve
    /// (for a convex `sc`, the minimum is one or the other; for a concave
    /// one, the new curve's first piece is cut where the two cross).
    pub fn min_with(&mut self, sc: &ServiceCurve, x: u64, y: u64) {
        let y1 = self.x2y(x);
        if !sc.is_concave() {
            // Convex or linear: the old curve is below from x on if it
            // is below at x (both end with slope m2).
            if y1 < y {
                return;
            }
            *self = RuntimeCurve::new(sc, x, y);
            return;
        }
        if y1 <= y {
            // the old curve is below the new one at x, and so after
            return;
        }
        let y2 = self.x2y(x.saturating_add(sc.d));
        if y2 >= y.saturating_add(sc.dy()) {
            // the old curve is above the new one everywhere from x
            *self = RuntimeCurve::new(sc, x, y);
            return;
        }
        // They cross: the new curve's first piece runs until it meets the
        // old curve's (parallel) second piece, y1 - y bytes later at rate
        // m1 - m2; if x lies in the old curve's first piece, the crossing
        // is later by what is left of that piece.
        let mut dx = seg_y2x(y1 - y, sc.m1 - sc.m2);
        let old_end = self.x.saturating_add(self.dx);
        if old_end > x {
            dx = dx.saturating_add(old_end - x);
        }
        *self = RuntimeCurve {
            x,
            y,
            dx,
            dy: seg_x2y(dx, sc.m1),
            m1: sc.m1,
            m2: sc.m2,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<ServiceCurve, String> {
        let mut w = s.split_whitespace().peekable();
        let c = ServiceCurve::parse(&mut w)?;
        assert!(w.next().is_none(), "left over in {s:?}");
        Ok(c)
    }

    #[test]
    fn segments_round_and_saturate() {
        // 1 MB/s: 1 ms gives 1000 bytes, 1 byte takes 1 us
        assert_eq!(seg_x2y(1_000_000, 1_000_000), 1000);
        assert_eq!(seg_y2x(1, 1_000_000), 1000);
        // rounding: 3 bytes at 2 B/s take 1.5 s, rounded up in ns
        assert_eq!(seg_y2x(3, 2), 1_500_000_000);
        assert_eq!(seg_y2x(1, 3), 333_333_334);
        assert_eq!(seg_x2y(333_333_334, 3), 1);
        assert_eq!(seg_y2x(5, 0), NEVER);
        assert_eq!(seg_y2x(0, 0), 0);
        assert_eq!(seg_x2y(u64::MAX, u64::MAX), u64::MAX);
        assert!(seg_y2x(u64::MAX, 1) <= NEVER);
    }

    #[test]
    fn parses_tc_forms() {
        assert_eq!(parse("1Mbps").unwrap(), ServiceCurve::linear(125_000));
        assert_eq!(parse("rate 8kbps").unwrap(), ServiceCurve::linear(1000));
        assert_eq!(
            parse("m1 2Mbps d 10ms m2 1Mbps").unwrap(),
            ServiceCurve {
                m1: 250_000,
                d: 10_000_000,
                m2: 125_000
            }
        );
        assert_eq!(
            parse("m2 1Mbps d 10ms m1 0").unwrap(),
            ServiceCurve {
                m1: 0,
                d: 10_000_000,
                m2: 125_000
            }
        );
        // umax/dmax: 1500 bytes in 5 ms at 1 Mbps long term: concave,
        // m1 = 300 kB/s for 5 ms
        assert_eq!(
            parse("umax 1500 dmax 5ms rate 1Mbps").unwrap(),
            ServiceCurve {
                m1: 300_000,
                d: 5_000_000,
                m2: 125_000
            }
        );
        // 1500 bytes in 20 ms at 1 Mbps (12 ms for the packet): convex,
        // nothing for 8 ms then 1 Mbps
        assert_eq!(
            parse("umax 1500 dmax 20ms rate 1Mbps").unwrap(),
            ServiceCurve {
                m1: 0,
                d: 8_000_000,
                m2: 125_000
            }
        );
        for (bad, why) in [
            ("", "missing m2"),
            ("m1 1Mbps m2 1Mbps", "m1 and d go together"),
            ("m1 fast d 1ms m2 1Mbps", "m1"),
            ("m1 1Mbps d -1ms m2 1Mbps", "d"),
            ("m1 1Mbps d 1ms", "missing m2"),
            ("umax 1500 rate 1Mbps", "umax and dmax"),
            ("umax x dmax 1ms rate 1Mbps", "umax"),
            ("m1 1Mbps d 1ms umax 1 dmax 1ms m2 1Mbps", "either"),
            ("m2", "missing bandwidth"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
        // a curve stops at the first word that is not its own
        let mut w = "1Mbps ul 2Mbps".split_whitespace().peekable();
        ServiceCurve::parse(&mut w).unwrap();
        assert_eq!(w.next(), Some("ul"));
    }

    #[test]
    fn display_round_trips() {
        for s in ["1Mbps", "m1 2Mbps d 10ms m2 1Mbps"] {
            assert_eq!(parse(s).unwrap().to_string(), s);
        }
    }

    #[test]
    fn curve_values() {
        let sc = ServiceCurve {
            m1: 2000,
            d: 1_000_000_000,
            m2: 1000,
        };
        assert_eq!(sc.at(500_000_000), 1000);
        assert_eq!(sc.at(2_000_000_000), 3000);
        let rc = RuntimeCurve::new(&sc, 10, 100);
        assert_eq!(rc.x2y(0), 100);
        assert_eq!(rc.x2y(10 + 500_000_000), 1100);
        assert_eq!(rc.x2y(10 + 2_000_000_000), 3100);
        assert_eq!(rc.y2x(100), 10);
        assert_eq!(rc.y2x(1100), 10 + 500_000_000);
        assert_eq!(rc.y2x(3100), 10 + 2_000_000_000);
        // inverse pairs
        for x in [10u64, 77, 400_000_000, 1_000_000_010, 7_000_000_000] {
            let y = rc.x2y(x);
            assert!(rc.y2x(y) <= x, "{x}");
        }
        let lin = rc.linear_part();
        assert_eq!(lin.x2y(10 + 1_000_000_000), 1100);
        // a zero slope never delivers more
        let z = RuntimeCurve::new(&ServiceCurve::linear(0), 5, 0);
        assert_eq!(z.y2x(1), 5 + NEVER);
    }

    #[test]
    fn min_of_concave_curves() {
        let sc = ServiceCurve {
            m1: 2000,
            d: 1_000_000_000,
            m2: 1000,
        };
        let sec = 1_000_000_000u64;
        // Old period started at 0 with nothing served; the class was
        // served 2000 bytes by t = 1 s and goes idle, back at 2 s with
        // 2000 served. The old curve is at 3000 at 2 s, above 2000: the
        // curves cross where 2000 + 2000 t' = 3000 + 1000 t' (t' = 1 s).
        let mut rc = RuntimeCurve::new(&sc, 0, 0);
        rc.min_with(&sc, 2 * sec, 2000);
        assert_eq!(rc.x2y(2 * sec), 2000);
        assert_eq!(rc.x2y(3 * sec), 4000);
        assert_eq!(rc.x2y(4 * sec), 5000);
        // pointwise: the minimum of the two
        let old = RuntimeCurve::new(&sc, 0, 0);
        let new = RuntimeCurve::new(&sc, 2 * sec, 2000);
        for t in (2 * sec..6 * sec).step_by(100_000_000) {
            assert_eq!(rc.x2y(t), old.x2y(t).min(new.x2y(t)), "{t}");
        }
        // Fully above: replaced; fully below: kept.
        let mut rc = RuntimeCurve::new(&sc, 0, 0);
        rc.min_with(&sc, 10 * sec, 0);
        assert_eq!(rc, RuntimeCurve::new(&sc, 10 * sec, 0));
        let mut rc = RuntimeCurve::new(&sc, 0, 0);
        rc.min_with(&sc, sec, 5000);
        assert_eq!(rc, RuntimeCurve::new(&sc, 0, 0));
        // Every case, including real crossings (back at 2 s with 2500
        // served: the new burst meets the old curve at 2.5 s) and a
        // return while the old curve is still in its first piece: the
        // result is the pointwise minimum.
        for (x, y) in [
            (2 * sec, 2500),
            (sec / 2, 500),
            (sec / 2, 800),
            (sec / 4, 100),
            (3 * sec, 3900),
            (5 * sec, 1000),
        ] {
            let old = RuntimeCurve::new(&sc, 0, 0);
            let new = RuntimeCurve::new(&sc, x, y);
            let mut rc = old;
            rc.min_with(&sc, x, y);
            for t in (x..x + 4 * sec).step_by(10_000_000) {
                let want = old.x2y(t).min(new.x2y(t));
                let got = rc.x2y(t);
                assert!(got.abs_diff(want) <= 1, "({x}, {y}) at {t}: {got} {want}");
            }
        }
        let mut rc = RuntimeCurve::new(&sc, 0, 0);
        rc.min_with(&sc, 2 * sec, 2500);
        assert_eq!(rc.x2y(2 * sec + sec / 2), 3500);
        assert_eq!(rc.y2x(3500), 2 * sec + sec / 2);
    }

    #[test]
    fn min_of_convex_curves() {
        let sc = ServiceCurve {
            m1: 0,
            d: 1_000_000_000,
            m2: 1000,
        };
        let sec = 1_000_000_000u64;
        let mut rc = RuntimeCurve::new(&sc, 0, 0);
        // at 3 s the old curve promises 2000; with 1500 served the new
        // anchored curve is lower from then on (it starts with a delay)
        rc.min_with(&sc, 3 * sec, 1500);
        assert_eq!(rc, RuntimeCurve::new(&sc, 3 * sec, 1500));
        // with 2500 served (more than promised) the old stays
        let mut rc = RuntimeCurve::new(&sc, 0, 0);
        rc.min_with(&sc, 3 * sec, 2500);
        assert_eq!(rc, RuntimeCurve::new(&sc, 0, 0));
    }
}
