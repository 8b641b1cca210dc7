//! Click's token bucket (`TokenBucketX` with jiffy ticks), reproduced in
//! its 32-bit fixed-point arithmetic so rates come out exactly as Click's
//! do (RatedUnqueue at 2 packets/s really emits a packet every 501 ms).
//!
//! Tokens are kept as a fraction of the bucket's capacity: `u32::MAX` means
//! full. A tick is one millisecond (Click's userlevel `CLICK_HZ`).

use rclick_packet::Timestamp;

/// Ticks per second.
pub const FREQUENCY: u64 = 1000;
const MAX_TOKENS: u32 = u32::MAX;

/// A token bucket: rate, capacity, and a counter.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    tokens_per_tick: u32,
    token_scale: u32,
    time_until_full: u64,
    tokens: u32,
    time_point: u64,
}

impl Default for TokenBucket {
    /// An idle bucket (never refills), empty, at time point 0.
    fn default() -> Self {
        TokenBucket {
            tokens_per_tick: 0,
            token_scale: 1,
            time_until_full: u64::MAX,
            tokens: 0,
            time_point: 0,
        }
    }
}

/// The tick (millisecond) of a time.
pub fn ticks(t: Timestamp) -> u64 {
    u64::try_from(t.as_msec()).unwrap_or(0)
}

impl TokenBucket {
    /// Sets rate (tokens per second) and capacity (tokens). A zero rate or
    /// capacity makes the bucket idle. Keeps the fill fraction.
    pub fn assign(&mut self, rate: u32, capacity: u32) {
        let (mut rate, mut capacity) = (rate, capacity);
        if capacity == 0 {
            rate = 0;
            capacity = MAX_TOKENS;
        }
        if rate != 0 {
            let min_capacity = ((u64::from(rate) - 1) / FREQUENCY + 1) as u32;
            capacity = capacity.max(min_capacity);
        }
        self.token_scale = MAX_TOKENS / capacity;
        let l = u64::from(rate) * u64::from(self.token_scale) / FREQUENCY;
        if rate != 0 {
            self.tokens_per_tick = u32::try_from(l).unwrap_or(MAX_TOKENS).max(1);
            self.time_until_full = u64::from((MAX_TOKENS - 1) / self.tokens_per_tick) + 1;
        } else {
            self.tokens_per_tick = 0;
            self.time_until_full = u64::MAX;
        }
    }

    /// The rate in tokens per second, as Click computes it back.
    pub fn rate(&self) -> u32 {
        let t = u64::from(self.tokens_per_tick);
        let v = (t * FREQUENCY + t / 2) / u64::from(self.token_scale);
        u32::try_from(v).unwrap_or(MAX_TOKENS)
    }

    /// The capacity in tokens.
    pub fn capacity(&self) -> u32 {
        MAX_TOKENS / self.token_scale
    }

    /// Whole tokens now in the bucket.
    pub fn size(&self) -> u32 {
        self.tokens / self.token_scale
    }

    /// Fills the bucket completely.
    pub fn set_full(&mut self) {
        self.tokens = MAX_TOKENS;
    }

    fn cvt(&self, t: u32) -> Option<u32> {
        t.checked_mul(self.token_scale)
    }

    /// Refills for the time elapsed up to tick `now`.
    pub fn refill(&mut self, now: u64) {
        let diff = now.saturating_sub(self.time_point);
        if diff >= self.time_until_full {
            self.tokens = MAX_TOKENS;
        } else if diff > 0 {
            let add = diff.saturating_mul(u64::from(self.tokens_per_tick));
            self.tokens = u32::try_from(u64::from(self.tokens) + add).unwrap_or(MAX_TOKENS);
        }
        self.time_point = now;
    }

    /// Whether the bucket holds at least `t` tokens.
    pub fn contains(&self, t: u32) -> bool {
        self.cvt(t).is_some_and(|f| f <= self.tokens)
    }

    /// Removes `t` tokens (emptying the bucket if it holds fewer).
    pub fn remove(&mut self, t: u32) {
        let f = self.cvt(t).unwrap_or(MAX_TOKENS);
        self.tokens = self.tokens.saturating_sub(f);
    }

    /// Removes `t` tokens if the bucket holds them.
    pub fn remove_if(&mut self, t: u32) -> bool {
        match self.cvt(t) {
            Some(f) if f <= self.tokens => {
                self.tokens -= f;
                true
            }
            _ => false,
        }
    }

    /// Ticks until the bucket holds `t` tokens; `u64::MAX` for never.
    pub fn time_until_contains(&self, t: u32) -> u64 {
        let Some(f) = self.cvt(t) else {
            return u64::MAX;
        };
        if f <= self.tokens || self.time_until_full == 0 {
            return 0;
        }
        match (f - self.tokens - 1).checked_div(self.tokens_per_tick) {
            Some(q) => u64::from(q) + 1,
            None => u64::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_rate_rounds_like_click() {
        let mut tb = TokenBucket::default();
        tb.assign(2, 1);
        assert_eq!(tb.capacity(), 1);
        assert_eq!(tb.rate(), 2);
        tb.refill(1_000_000);
        assert!(tb.contains(1));
        tb.remove(1);
        assert!(!tb.contains(1));
        // 2 tokens/s with capacity 1 needs 501 ticks per token
        assert_eq!(tb.time_until_contains(1), 501);
        tb.refill(1_000_500);
        assert!(!tb.contains(1));
        tb.refill(1_000_501);
        assert!(tb.contains(1));
    }

    #[test]
    fn idle_and_overflow() {
        let mut tb = TokenBucket::default();
        tb.refill(5000);
        assert!(!tb.contains(1));
        assert_eq!(tb.time_until_contains(1), u64::MAX);
        tb.assign(100, 10);
        tb.refill(100_000);
        assert!(!tb.contains(11));
        assert!(tb.remove_if(10));
        assert!(!tb.remove_if(1));
    }
}
