//! A small open-addressing hash map from `u64` keys to copyable values,
//! for the classifier's tables: linear probing in a power-of-two array kept
//! at most half full, backward-shift deletion (no tombstones), one
//! multiply to hash. Written here rather than taken from `std` because the
//! lookups are the classifier's inner loop: std's SipHash costs more than
//! the rest of a probe.

/// The empty-slot marker; the key `u64::MAX` itself is kept aside in
/// `max_key`.
const EMPTY: u64 = u64::MAX;

/// Fibonacci hashing: the top bits of `k * 2^64/phi`.
#[inline(always)]
pub fn hash64(k: u64) -> u64 {
    (k ^ (k >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The map; see the module documentation.
#[derive(Clone, Debug)]
pub struct U64Map<V: Copy> {
    keys: Vec<u64>,
    vals: Vec<V>,
    len: usize,
    shift: u32,
    /// The value of key `u64::MAX`, which cannot sit in the array.
    max_key: Option<V>,
}

impl<V: Copy + Default> Default for U64Map<V> {
    fn default() -> Self {
        U64Map::new()
    }
}

impl<V: Copy + Default> U64Map<V> {
    /// An empty map (8 slots).
    pub fn new() -> U64Map<V> {
        U64Map {
            keys: vec![EMPTY; 8],
            vals: vec![V::default(); 8],
            len: 0,
            shift: 64 - 3,
            max_key: None,
        }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes of heap it uses.
    pub fn heap_bytes(&self) -> usize {
        self.keys.capacity() * 8 + self.vals.capacity() * std::mem::size_of::<V>()
    }

    #[inline(always)]
    fn home(&self, k: u64) -> usize {
        (hash64(k) >> self.shift) as usize
    }

    /// The value of `k`.
    #[inline(always)]
    pub fn get(&self, k: u64) -> Option<V> {
        if k == EMPTY {
            return self.max_key;
        }
        let m = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            let kk = self.keys[i];
            if kk == k {
                return Some(self.vals[i]);
            }
            if kk == EMPTY {
                return None;
            }
            i = (i + 1) & m;
        }
    }

    /// Inserts or replaces; returns the old value.
    pub fn insert(&mut self, k: u64, v: V) -> Option<V> {
        if k == EMPTY {
            let old = self.max_key.replace(v);
            self.len += old.is_none() as usize;
            return old;
        }
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let m = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            if self.keys[i] == k {
                return Some(std::mem::replace(&mut self.vals[i], v));
            }
            if self.keys[i] == EMPTY {
                self.keys[i] = k;
                self.vals[i] = v;
                self.len += 1;
                return None;
            }
            i = (i + 1) & m;
        }
    }

    /// Removes `k`; returns its value.
    pub fn remove(&mut self, k: u64) -> Option<V> {
        if k == EMPTY {
            let old = self.max_key.take();
            self.len -= old.is_some() as usize;
            return old;
        }
        let m = self.keys.len() - 1;
        let mut i = self.home(k);
        loop {
            if self.keys[i] == EMPTY {
                return None;
            }
            if self.keys[i] == k {
                break;
            }
            i = (i + 1) & m;
        }
        let v = self.vals[i];
        // Backward shift: move later members of the run into the hole when
        // their home is not between the hole and them.
        let mut hole = i;
        let mut j = (i + 1) & m;
        while self.keys[j] != EMPTY {
            let h = self.home(self.keys[j]);
            let between = if hole <= j {
                hole < h && h <= j
            } else {
                hole < h || h <= j
            };
            if !between {
                self.keys[hole] = self.keys[j];
                self.vals[hole] = self.vals[j];
                hole = j;
            }
            j = (j + 1) & m;
        }
        self.keys[hole] = EMPTY;
        self.len -= 1;
        Some(v)
    }

    /// Every key.
    pub fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.keys
            .iter()
            .copied()
            .filter(|&k| k != EMPTY)
            .chain(self.max_key.map(|_| EMPTY))
    }

    fn grow(&mut self) {
        let n = self.keys.len() * 2;
        let keys = std::mem::replace(&mut self.keys, vec![EMPTY; n]);
        let vals = std::mem::replace(&mut self.vals, vec![V::default(); n]);
        self.shift -= 1;
        self.len = self.max_key.is_some() as usize;
        for (k, v) in keys.into_iter().zip(vals) {
            if k != EMPTY {
                self.insert(k, v);
            }
        }
    }
}

/// A Bloom filter with one hash over `u64` keys, sized to about 16 bits
/// a key, so that most probes for absent keys cost one load from a table
/// small enough to stay in cache, instead of a probe into a large map.
/// Keys are never removed: removals are counted, and the owner rebuilds
/// it ([`Bloom::wants_rebuild`]) when stale or grown keys make it weak.
#[derive(Clone, Debug)]
pub struct Bloom {
    bits: Vec<u64>,
    shift: u32,
    keys: usize,
    stale: usize,
}

impl Default for Bloom {
    fn default() -> Self {
        Bloom::with_keys(0)
    }
}

impl Bloom {
    /// An empty filter for about `n` keys.
    pub fn with_keys(n: usize) -> Bloom {
        let bits = (n.max(256) * 16).next_power_of_two();
        Bloom {
            bits: vec![0; bits / 64],
            shift: 64 - bits.trailing_zeros(),
            keys: 0,
            stale: 0,
        }
    }

    #[inline(always)]
    fn bit(&self, k: u64) -> usize {
        (hash64(k ^ 0x5851_F42D_4C95_7F2D) >> self.shift) as usize
    }

    /// Adds `k`.
    pub fn add(&mut self, k: u64) {
        let b = self.bit(k);
        self.bits[b / 64] |= 1 << (b % 64);
        self.keys += 1;
    }

    /// Notes that a key was removed (its bit stays).
    pub fn removed(&mut self) {
        self.stale += 1;
    }

    /// Whether `k` may have been added (false: certainly not).
    #[inline(always)]
    pub fn may_contain(&self, k: u64) -> bool {
        let b = self.bit(k);
        self.bits[b / 64] & (1 << (b % 64)) != 0
    }

    /// Whether it has outgrown its size or holds many removed keys.
    pub fn wants_rebuild(&self) -> bool {
        self.keys * 16 > self.bits.len() * 64 * 2
            || (self.stale > 1024 && self.stale * 2 > self.keys)
    }

    /// Bytes of heap it uses.
    pub fn heap_bytes(&self) -> usize {
        self.bits.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn bloom_has_no_false_negatives_and_few_false_positives() {
        let mut b = Bloom::with_keys(1000);
        for k in 0..1000u64 {
            b.add(k * 7919);
        }
        assert!((0..1000u64).all(|k| b.may_contain(k * 7919)));
        let fp = (0..10_000u64)
            .filter(|k| b.may_contain(k * 7919 + 1))
            .count();
        assert!(fp < 1000, "false positives {fp} of 10000");
        assert!(!b.wants_rebuild());
        for _ in 0..2000 {
            b.add(3);
        }
        assert!(b.wants_rebuild(), "outgrown");
    }

    #[test]
    fn agrees_with_std_under_random_inserts_and_removes() {
        let mut m = U64Map::<u32>::new();
        let mut r = HashMap::new();
        let mut x: u64 = 12345;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A small key space so removes and replaces hit.
            let k = x % 3000;
            if x & 3 == 0 {
                assert_eq!(m.remove(k), r.remove(&k), "remove {k}");
            } else {
                assert_eq!(m.insert(k, i), r.insert(k, i), "insert {k}");
            }
            assert_eq!(m.len(), r.len());
        }
        for k in 0..3000 {
            assert_eq!(m.get(k), r.get(&k).copied(), "get {k}");
        }
        assert_eq!(m.get(u64::MAX), None);
        assert_eq!(m.insert(u64::MAX, 1), None);
        assert_eq!(m.get(u64::MAX), Some(1));
        assert_eq!(m.len(), r.len() + 1);
        assert_eq!(m.keys().count(), r.len() + 1);
        assert_eq!(m.remove(u64::MAX), Some(1));
        assert_eq!(m.len(), r.len());
        let mut keys: Vec<u64> = m.keys().collect();
        keys.sort_unstable();
        let mut want: Vec<u64> = r.keys().copied().collect();
        want.sort_unstable();
        assert_eq!(keys, want);
    }
}
