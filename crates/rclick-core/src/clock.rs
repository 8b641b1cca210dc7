//! The router's clock: real time, optionally sped up or slowed down
//! (`timewarp`), or simulated time (`--simtime`) that only moves when the
//! router has nothing to do and jumps to the next timer.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

use rclick_packet::Timestamp;

/// See the module documentation.
#[derive(Debug)]
pub struct Clock {
    simulated: bool,
    sim_now: AtomicI64,
    warped: AtomicBool,
    warp_factor: AtomicU64,
    warp_real_base: AtomicI64,
    warp_virtual_base: AtomicI64,
}

impl Clock {
    /// A real-time clock.
    pub fn real() -> Clock {
        Clock::build(false)
    }

    /// A simulated clock, starting where Click's `--simtime` starts:
    /// 1,000,000,000 seconds after the epoch.
    pub fn simulated() -> Clock {
        Clock::simulated_from(Timestamp::from_sec(1_000_000_000))
    }

    /// A simulated clock starting at `start` (`--simtime=SEC`).
    pub fn simulated_from(start: Timestamp) -> Clock {
        let c = Clock::build(true);
        c.sim_now.store(start.as_nsec(), Ordering::Release);
        c
    }

    fn build(simulated: bool) -> Clock {
        let now = Timestamp::now_realtime().as_nsec();
        Clock {
            simulated,
            sim_now: AtomicI64::new(now),
            warped: AtomicBool::new(false),
            warp_factor: AtomicU64::new(1f64.to_bits()),
            warp_real_base: AtomicI64::new(now),
            warp_virtual_base: AtomicI64::new(now),
        }
    }

    /// Whether this is simulated time.
    pub fn is_simulated(&self) -> bool {
        self.simulated
    }

    /// The current time.
    #[inline]
    pub fn now(&self) -> Timestamp {
        Timestamp::from_nsec(self.now_nsec())
    }

    /// The current time in nanoseconds since the epoch.
    #[inline]
    pub fn now_nsec(&self) -> i64 {
        if self.simulated {
            return self.sim_now.load(Ordering::Acquire);
        }
        let real = Timestamp::now_realtime().as_nsec();
        if !self.warped.load(Ordering::Relaxed) {
            return real;
        }
        let f = f64::from_bits(self.warp_factor.load(Ordering::Relaxed));
        let rb = self.warp_real_base.load(Ordering::Relaxed);
        let vb = self.warp_virtual_base.load(Ordering::Relaxed);
        vb + ((real - rb) as f64 * f) as i64
    }

    /// Simulated time: jumps forward to `t` (never backward).
    pub fn warp_to(&self, t: i64) {
        self.sim_now.fetch_max(t, Ordering::AcqRel);
    }

    /// The timewarp factor (1 = real speed).
    pub fn warp_factor(&self) -> f64 {
        f64::from_bits(self.warp_factor.load(Ordering::Relaxed))
    }

    /// Sets the timewarp factor: time now runs `factor` times as fast.
    pub fn set_warp_factor(&self, factor: f64) -> Result<(), String> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err("timewarp factor must be positive".into());
        }
        if self.simulated {
            self.warp_factor.store(factor.to_bits(), Ordering::Relaxed);
            return Ok(());
        }
        let virt = self.now_nsec();
        self.warp_real_base
            .store(Timestamp::now_realtime().as_nsec(), Ordering::Relaxed);
        self.warp_virtual_base.store(virt, Ordering::Relaxed);
        self.warp_factor.store(factor.to_bits(), Ordering::Relaxed);
        self.warped.store(
            factor != 1.0 || self.warped.load(Ordering::Relaxed),
            Ordering::Relaxed,
        );
        Ok(())
    }

    /// How long to really wait for `virtual_ns` of router time to pass.
    pub fn real_delay(&self, virtual_ns: i64) -> i64 {
        if !self.warped.load(Ordering::Relaxed) {
            return virtual_ns;
        }
        (virtual_ns as f64 / self.warp_factor()) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulated_only_moves_forward() {
        let c = Clock::simulated();
        let t0 = c.now_nsec();
        assert_eq!(c.now_nsec(), t0);
        c.warp_to(t0 + 1000);
        assert_eq!(c.now_nsec(), t0 + 1000);
        c.warp_to(t0);
        assert_eq!(c.now_nsec(), t0 + 1000);
    }

    #[test]
    fn warp_factor_validation() {
        let c = Clock::real();
        assert!(c.set_warp_factor(0.0).is_err());
        assert!(c.set_warp_factor(-1.0).is_err());
        assert!(c.set_warp_factor(2.0).is_ok());
        assert_eq!(c.real_delay(1000), 500);
    }
}
