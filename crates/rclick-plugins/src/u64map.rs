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
    #[cfg(test)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

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
        assert_eq!(m.remove(u64::MAX), Some(1));
        assert_eq!(m.len(), r.len());
    }
}
