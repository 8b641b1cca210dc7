//! The flow table (Router Plugins section 5.2): a bounded cache from a
//! flow's exact six-tuple to what the filter table said for it, so only a
//! flow's first packet pays for classification.
//!
//! Set-associative: a hash of the six-tuple picks a set of [`WAYS`]
//! 32-byte entries (two cache lines); a lookup compares at most that many.
//! The size is fixed when the cache is made (the paper grows its pool up to
//! a configured maximum, then recycles the oldest records; here the
//! maximum is allocated at once and the least recently used entry of the
//! set is recycled). Each entry holds, besides the cached answer, a flow
//! number: per-flow *soft state* a plugin instance can key its own state on
//! (FlowGate hands it over in the packet's aggregate annotation).
//!
//! Time is in *ticks* supplied by the caller (FlowGate counts seconds with
//! a timer, so no packet reads the clock). An entry not used for more than
//! `timeout` ticks is expired: the next lookup misses and counts it.
//! [`FlowCache::invalidate`] forgets every entry in O(1) (a generation
//! number), which is what a change of bindings does.
//!
//! Cost: a hit is one hash, one or two cache lines, about 5 ns (see
//! docs/PLUGINS.md for the measurement).

use crate::filter::FlowKey;

/// Entries per set.
pub const WAYS: usize = 4;

/// Counters a cache keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found a live entry.
    pub hits: u64,
    /// Lookups that did not (including expired entries).
    pub misses: u64,
    /// Live entries pushed out to make room for another flow.
    pub evictions: u64,
    /// Entries found too old by a lookup or an insert.
    pub expired: u64,
    /// Entries added.
    pub inserts: u64,
}

#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
struct Slot {
    a: u64,
    b: u64,
    /// Tick of the last use.
    used: u32,
    /// Generation it was made in; 0 is never current (empty).
    gen: u32,
    flow: u32,
    value: u32,
}

/// The cache; values are `u32` (FlowGate stores a binding index, or
/// `u32::MAX` for "no filter matched": negative answers are cached too).
#[derive(Clone, Debug)]
pub struct FlowCache {
    slots: Vec<Slot>,
    shift: u32,
    timeout: u32,
    gen: u32,
    next_flow: u32,
    /// The counters.
    pub stats: CacheStats,
}

#[inline(always)]
fn hash(a: u64, b: u64) -> u64 {
    (a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

impl FlowCache {
    /// A cache of at least `capacity` entries (rounded up to a power of
    /// two, at least [`WAYS`]), expiring entries idle for more than
    /// `timeout` ticks.
    pub fn new(capacity: usize, timeout: u32) -> FlowCache {
        let n = capacity.clamp(WAYS, 1 << 26).next_power_of_two();
        let sets = n / WAYS;
        FlowCache {
            slots: vec![Slot::default(); n],
            shift: 64 - sets.trailing_zeros(),
            timeout,
            gen: 1,
            next_flow: 0,
            stats: CacheStats::default(),
        }
    }

    /// Entries it can hold.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Bytes of memory it holds.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    /// Live entries (a scan; for handlers).
    pub fn live(&self, now: u32) -> usize {
        self.slots
            .iter()
            .filter(|s| s.gen == self.gen && now.wrapping_sub(s.used) <= self.timeout)
            .count()
    }

    #[inline(always)]
    fn set(&self, a: u64, b: u64) -> usize {
        if self.shift >= 64 {
            return 0;
        }
        (hash(a, b) >> self.shift) as usize * WAYS
    }

    /// The cached value and flow number of `k`, refreshing its entry.
    #[inline]
    pub fn lookup(&mut self, k: &FlowKey, now: u32) -> Option<(u32, u32)> {
        let (a, b) = k.words();
        let base = self.set(a, b);
        let gen = self.gen;
        for s in &mut self.slots[base..base + WAYS] {
            if s.a == a && s.b == b && s.gen == gen {
                if now.wrapping_sub(s.used) > self.timeout {
                    s.gen = 0;
                    self.stats.expired += 1;
                    break;
                }
                s.used = now;
                self.stats.hits += 1;
                return Some((s.value, s.flow));
            }
        }
        self.stats.misses += 1;
        None
    }

    /// Caches `value` for `k` (after a miss); returns the new flow number.
    pub fn insert(&mut self, k: &FlowKey, value: u32, now: u32) -> u32 {
        let (a, b) = k.words();
        let base = self.set(a, b);
        let (gen, timeout) = (self.gen, self.timeout);
        let set = &mut self.slots[base..base + WAYS];
        // An empty or stale way, else an expired one, else the least
        // recently used.
        let mut pick = 0;
        let mut oldest = 0u32;
        let mut evict = true;
        for (i, s) in set.iter().enumerate() {
            if s.gen != gen || (s.a == a && s.b == b) {
                pick = i;
                evict = false;
                break;
            }
            let age = now.wrapping_sub(s.used);
            if age > timeout {
                pick = i;
                evict = false;
                self.stats.expired += 1;
                break;
            }
            if age >= oldest {
                oldest = age;
                pick = i;
            }
        }
        if evict {
            self.stats.evictions += 1;
        }
        self.next_flow = self.next_flow.wrapping_add(1);
        set[pick] = Slot {
            a,
            b,
            used: now,
            gen,
            flow: self.next_flow,
            value,
        };
        self.stats.inserts += 1;
        self.next_flow
    }

    /// Forgets every entry (bindings changed), in O(1).
    pub fn invalidate(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.slots.iter_mut().for_each(|s| s.gen = 0);
            self.gen = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(i: u32) -> FlowKey {
        FlowKey {
            src: i,
            dst: !i,
            proto: 17,
            sport: i as u16,
            dport: 53,
            iif: 0,
        }
    }

    #[test]
    fn hits_misses_and_invalidation() {
        let mut c = FlowCache::new(1024, 10);
        assert_eq!(c.lookup(&k(1), 0), None);
        let flow = c.insert(&k(1), 7, 0);
        assert_eq!(c.lookup(&k(1), 5), Some((7, flow)));
        assert_eq!(c.lookup(&k(2), 5), None);
        assert_eq!(c.stats.hits, 1);
        assert_eq!(c.stats.misses, 2);
        c.invalidate();
        assert_eq!(c.lookup(&k(1), 5), None, "a binding change forgets flows");
        let f2 = c.insert(&k(1), 8, 5);
        assert_ne!(f2, flow, "a new entry is a new flow");
        assert_eq!(c.lookup(&k(1), 6), Some((8, f2)));
    }

    #[test]
    fn idle_entries_expire_used_ones_do_not() {
        let mut c = FlowCache::new(64, 10);
        c.insert(&k(1), 1, 0);
        c.insert(&k(2), 2, 0);
        // k(1) is used every 6 ticks, k(2) never again.
        for t in (6..=30).step_by(6) {
            assert_eq!(c.lookup(&k(1), t).map(|x| x.0), Some(1), "tick {t}");
        }
        assert_eq!(c.lookup(&k(2), 30), None);
        assert_eq!(c.stats.expired, 1);
        assert_eq!(c.live(30), 1);
    }

    #[test]
    fn bounded_and_counts_evictions() {
        let mut c = FlowCache::new(256, 1000);
        for i in 0..10_000 {
            if c.lookup(&k(i), i / 100).is_none() {
                c.insert(&k(i), i, i / 100);
            }
        }
        assert_eq!(c.capacity(), 256);
        assert_eq!(c.stats.inserts, 10_000);
        assert!(c.stats.evictions >= 10_000 - 256, "{:?}", c.stats);
        assert!(c.live(100) <= 256);
        // Recently inserted flows are still there; the first are gone.
        let recent = (9_900..10_000)
            .filter(|&i| c.lookup(&k(i), 100).is_some())
            .count();
        assert!(recent > 60, "least recently used goes first: {recent}");
        assert_eq!(c.lookup(&k(0), 100), None);
    }

    #[test]
    fn tiny_cache_still_works() {
        let mut c = FlowCache::new(1, 5);
        assert_eq!(c.capacity(), WAYS);
        for i in 0..10 {
            c.insert(&k(i), i, 0);
        }
        assert!(c.lookup(&k(9), 0).is_some());
    }
}
