//! The router process's shared pseudo-random generator (Click's
//! `click_random` / `click_srandom`): elements that make random choices
//! draw from it, and RandomSeed seeds it so runs can be repeated.
//!
//! It is a SplitMix64 generator behind one atomic word: no locking, and
//! with a fixed seed a single-threaded run is reproducible.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

static STATE: AtomicU64 = AtomicU64::new(0x2545_F491_4F6C_DD1D);

/// Seeds the generator with `seed` (Click's `click_srandom`).
pub fn srandom(seed: u32) {
    STATE.store(u64::from(seed).wrapping_mul(GAMMA) ^ 0x5851_F42D_4C95_7F2D, Ordering::Relaxed);
}

/// Seeds the generator from the clock and process id (Click's
/// `click_random_srandom`).
pub fn srandom_from_entropy() {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let pid = u64::from(std::process::id());
    STATE.store(mix(t ^ (pid << 32) ^ GAMMA), Ordering::Relaxed);
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The next 64 random bits.
pub fn next_u64() -> u64 {
    mix(STATE.fetch_add(GAMMA, Ordering::Relaxed).wrapping_add(GAMMA))
}

/// A random number in `0..=0x7FFF_FFFF` (Click's `click_random()`).
pub fn random() -> u32 {
    (next_u64() >> 33) as u32
}

/// A random number in `lo..=hi` (Click's `click_random(lo, hi)`).
pub fn random_range(lo: u32, hi: u32) -> u32 {
    if hi <= lo {
        return lo;
    }
    let span = u64::from(hi - lo) + 1;
    lo + (next_u64() % span) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_and_bounds() {
        for _ in 0..1000 {
            let r = random_range(3, 7);
            assert!((3..=7).contains(&r));
            assert!(random() <= 0x7FFF_FFFF);
        }
        assert_eq!(random_range(5, 5), 5);
        assert_eq!(random_range(9, 2), 9);
    }
}
