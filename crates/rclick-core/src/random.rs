//! The router process's shared pseudo-random generator (Click's
//! `click_random` / `click_srandom`): elements that make random choices
//! draw from it, and RandomSeed seeds it so runs can be repeated.
//!
//! It reproduces what Click's user-level driver uses: the C library's
//! `random()` (glibc's additive feedback generator, `TYPE_3`), and Click's
//! `click_random(low, high)` reduction. So `RandomSeed(1)` makes the same
//! choices here as in Click (its tests depend on them). The state sits
//! behind a mutex; a draw is a few nanoseconds uncontended.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

/// glibc's `random_r` state for `TYPE_3` (degree 31, separation 3).
struct Glibc {
    r: [u32; 31],
    /// Front pointer (glibc's `fptr`), index into `r`.
    f: usize,
    /// Rear pointer (glibc's `rptr`).
    b: usize,
}

impl Glibc {
    const fn unseeded() -> Glibc {
        Glibc {
            r: [0; 31],
            f: 3,
            b: 0,
        }
    }

    fn seed(&mut self, seed: u32) {
        let seed = if seed == 0 { 1 } else { seed };
        self.r[0] = seed;
        let mut word = seed as i32;
        for i in 1..31 {
            // 16807 * word % 2147483647 without overflow (Schrage)
            let hi = word / 127_773;
            let lo = word % 127_773;
            word = 16_807i32
                .wrapping_mul(lo)
                .wrapping_sub(2_836i32.wrapping_mul(hi));
            if word < 0 {
                word = word.wrapping_add(2_147_483_647);
            }
            self.r[i] = word as u32;
        }
        self.f = 3;
        self.b = 0;
        for _ in 0..310 {
            self.next();
        }
    }

    fn next(&mut self) -> u32 {
        let v = self.r[self.f].wrapping_add(self.r[self.b]);
        self.r[self.f] = v;
        self.f = (self.f + 1) % 31;
        self.b = (self.b + 1) % 31;
        v >> 1
    }
}

static STATE: Mutex<(bool, Glibc)> = Mutex::new((false, Glibc::unseeded()));

/// Whether the generator has been seeded, and the generator.
type State = (bool, Glibc);

thread_local! {
    /// A generator private to this thread, set while a test holds
    /// [`test_lock`]'s guard, so other tests' draws cannot shift its own.
    static PRIVATE: std::cell::RefCell<Option<State>> =
        const { std::cell::RefCell::new(None) };
}

/// Guards held by [`test_lock`] callers: while none is, a draw does not
/// look at the thread-local generator (one relaxed load, not a
/// thread-local access, on the draws some elements make per packet).
static PRIVATE_IN_USE: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` on this thread's private generator if it has one, else on
/// the shared one.
fn with_any<R>(f: impl FnOnce(&mut State) -> R) -> R {
    if PRIVATE_IN_USE.load(Ordering::Relaxed) > 0 {
        return PRIVATE.with(|p| match p.borrow_mut().as_mut() {
            Some(private) => f(private),
            None => f(&mut STATE.lock().unwrap_or_else(PoisonError::into_inner)),
        });
    }
    f(&mut STATE.lock().unwrap_or_else(PoisonError::into_inner))
}

fn with_state<R>(f: impl FnOnce(&mut Glibc) -> R) -> R {
    with_any(|g| {
        if !g.0 {
            g.0 = true;
            g.1.seed(1);
        }
        f(&mut g.1)
    })
}

/// Seeds the generator with `seed` (Click's `click_srandom`).
pub fn srandom(seed: u32) {
    with_any(|g| {
        g.0 = true;
        g.1.seed(seed);
    })
}

/// Seeds the generator from the clock and process id (Click's
/// `click_random_srandom`).
pub fn srandom_from_entropy() {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let pid = u64::from(std::process::id());
    let x = t ^ (pid << 32) ^ (t >> 32);
    srandom((x as u32) ^ ((x >> 32) as u32));
}

/// The next 64 random bits.
pub fn next_u64() -> u64 {
    with_state(|g| {
        let a = u64::from(g.next());
        let b = u64::from(g.next());
        let c = u64::from(g.next());
        (a << 33) ^ (b << 2) ^ (c >> 29)
    })
}

/// A random number in `0..=0x7FFF_FFFF` (Click's `click_random()`).
pub fn random() -> u32 {
    with_state(|g| g.next())
}

/// A random number in `lo..=hi` (Click's `click_random(lo, hi)`, which
/// returns `lo` when `lo >= hi`).
pub fn random_range(lo: u32, hi: u32) -> u32 {
    if hi <= lo {
        return lo;
    }
    const RAND_MAX: u32 = 0x7FFF_FFFF;
    let span = hi - lo;
    with_state(|g| {
        if span > RAND_MAX {
            loop {
                let r = (g.next() << 17) ^ (g.next() >> 14);
                if r <= span {
                    return lo + r;
                }
            }
        } else if span == 1 {
            lo + ((g.next() >> 14) & 1)
        } else {
            let n = span + 1;
            let count = ((u64::from(RAND_MAX) + 1) / u64::from(n)) as u32;
            let max = count * n;
            loop {
                let r = g.next();
                if r < max {
                    return r / count + lo;
                }
            }
        }
    })
}

/// For tests that seed the generator and check what it draws: until the
/// guard drops, this thread draws from a generator of its own (unseeded,
/// as at process start), so the tests of one binary, which run on
/// parallel threads, cannot shift each other's draws. The guard also
/// serializes such tests. Elements that run on other threads (a
/// multithreaded router) still draw from the shared generator.
#[doc(hidden)]
pub fn test_lock() -> TestGuard {
    static LOCK: Mutex<()> = Mutex::new(());
    let lock = LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    PRIVATE.with(|p| *p.borrow_mut() = Some((false, Glibc::unseeded())));
    PRIVATE_IN_USE.fetch_add(1, Ordering::Relaxed);
    TestGuard { _lock: lock }
}

/// What [`test_lock`] returns: the thread's private generator and the
/// lock, both given up on drop.
#[doc(hidden)]
pub struct TestGuard {
    _lock: std::sync::MutexGuard<'static, ()>,
}

impl Drop for TestGuard {
    fn drop(&mut self) {
        PRIVATE.with(|p| *p.borrow_mut() = None);
        PRIVATE_IN_USE.fetch_sub(1, Ordering::Relaxed);
    }
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

    #[test]
    fn matches_glibc_and_click() {
        let mut g = Glibc::unseeded();
        g.seed(1);
        assert_eq!(g.next(), 1_804_289_383);
        assert_eq!(g.next(), 846_930_886);
        assert_eq!(g.next(), 1_681_692_777);
        // Click's click_random(0, 64510) after srandom(1) (UDPRewriter-11)
        let mut g = Glibc::unseeded();
        g.seed(1);
        let n = 64_511u64;
        let count = ((0x8000_0000u64) / n) as u32;
        assert_eq!(g.next() / count, 54_202);
    }

    // The guard's generator follows only this thread's seed and draws:
    // another thread drawing meanwhile (another test) changes nothing.
    #[test]
    fn test_guard_is_private_to_the_thread() {
        let mut want = Glibc::unseeded();
        want.seed(7);
        let _g = test_lock();
        srandom(7);
        assert_eq!(random(), want.next());
        std::thread::spawn(|| {
            for _ in 0..100 {
                random();
            }
            srandom(3);
        })
        .join()
        .unwrap();
        assert_eq!(random(), want.next());
        assert_eq!(random(), want.next());
    }
}
