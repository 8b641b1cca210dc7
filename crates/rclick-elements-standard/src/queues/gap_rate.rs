//! Click's `GapRate`: admits events at a steady rate by comparing the
//! number of events this second with the fraction of the second elapsed.
//! Used by Shaper and BandwidthShaper.

use rclick_packet::Timestamp;

const UGAP_SHIFT: u32 = 12;
/// The highest rate representable.
pub const MAX_RATE: u32 = 1_000_000 << UGAP_SHIFT;

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct GapRate {
    ugap: u32,
    sec_count: i32,
    tv_sec: i64,
    rate: u32,
}

impl Default for GapRate {
    fn default() -> Self {
        let mut g = GapRate {
            ugap: 0,
            sec_count: 0,
            tv_sec: -1,
            rate: 0,
        };
        g.set_rate(0);
        g
    }
}

impl GapRate {
    /// The rate (events per second).
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// Sets the rate and restarts.
    pub fn set_rate(&mut self, rate: u32) {
        let rate = rate.min(MAX_RATE);
        self.rate = rate;
        self.ugap = MAX_RATE.checked_div(rate).unwrap_or(MAX_RATE + 1);
        self.reset();
    }

    /// Forgets the history: the next check starts a fresh second.
    pub fn reset(&mut self) {
        self.tv_sec = -1;
    }

    /// Whether another event may happen at `now`.
    pub fn need_update(&mut self, now: Timestamp) -> bool {
        let usec = now.subsec_usec();
        let scaled = usec << UGAP_SHIFT;
        let need = scaled / self.ugap;
        if self.tv_sec < 0 {
            self.tv_sec = now.sec();
            let rem = scaled.wrapping_sub(need.wrapping_mul(self.ugap));
            self.sec_count = need as i32 + i32::from(rem > self.ugap / 2);
        } else if now.sec() > self.tv_sec {
            self.tv_sec = now.sec();
            if self.sec_count > 0 {
                self.sec_count = self.sec_count.wrapping_sub(self.rate as i32);
            }
        }
        need as i32 >= self.sec_count
    }

    /// The earliest time another event may happen, or `None` when the
    /// rate is zero (never). Used to sleep until then.
    pub fn expiry(&self) -> Option<Timestamp> {
        if self.rate == 0 {
            return None;
        }
        if self.tv_sec < 0 || self.sec_count <= 0 {
            return Some(Timestamp::from_sec(self.tv_sec.max(0)));
        }
        let ugap = i64::from(self.ugap);
        let mut sec = self.tv_sec;
        let mut count = i64::from(self.sec_count);
        for _ in 0..64 {
            let usec = (count * ugap + (1 << UGAP_SHIFT) - 1) >> UGAP_SHIFT;
            if usec < 1_000_000 {
                return Some(Timestamp::from_sec_usec(sec, usec));
            }
            sec += 1;
            count -= i64::from(self.rate);
            if count <= 0 {
                break;
            }
        }
        Some(Timestamp::from_sec(sec))
    }

    /// Records one event.
    pub fn update(&mut self) {
        self.sec_count = self.sec_count.wrapping_add(1);
    }

    /// Records `n` events (bytes, for BandwidthShaper).
    pub fn update_with(&mut self, n: u32) {
        self.sec_count = self.sec_count.wrapping_add(n as i32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_rate_events_per_second() {
        let mut g = GapRate::default();
        g.set_rate(1000);
        let mut n = 0;
        // poll every 100us for two seconds
        for i in 0..20_000i64 {
            let t = Timestamp::from_nsec(5_000_000_000 + i * 100_000);
            if g.need_update(t) {
                g.update();
                n += 1;
            }
        }
        assert!((1990..=2010).contains(&n), "{n}");
    }

    #[test]
    fn zero_rate_admits_little() {
        let mut g = GapRate::default();
        let mut n = 0;
        for i in 0..1000i64 {
            if g.need_update(Timestamp::from_nsec(7_000_000_000 + i * 1_000_000)) {
                g.update();
                n += 1;
            }
        }
        assert!(n <= 1, "{n}");
    }
}
