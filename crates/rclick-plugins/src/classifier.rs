//! The filter table: which installed filter is the most specific match for
//! a flow key (Router Plugins section 5.1), by tuple-space search.
//!
//! Filters are grouped into *tuples* by their (source length, destination
//! length) pair; each tuple is a hash table from the two masked addresses
//! to a *bucket*, the filters with exactly those two prefixes, sorted by
//! the remaining fields' specificity. Because the paper's order is
//! lexicographic with the source prefix first and the destination second
//! (see [`crate::filter`]), the tuples are visited from the longest source
//! length down, and within it from the longest destination length down,
//! and the first bucket holding a filter that matches the remaining fields
//! is the answer: nothing visited later can beat it.
//!
//! Visiting every tuple would cost one probe per (length, length) pair
//! present, up to 33 x 33. Two per-address steps prune that to the lengths
//! that can match: each address dimension keeps a 4096-entry table indexed
//! by the address's top 12 bits whose word has bit `L` set when a prefix of
//! length `L` covers that /12 (exact for `L` <= 12) or lies inside it (a
//! candidate for `L` > 12, confirmed by one probe of the dimension's prefix
//! set). Only pairs of matching lengths whose tuple exists are probed.
//!
//! Costs (10,000 random filters, see `benches/classify.rs` and
//! docs/PLUGINS.md): about 100 ns for a flow that no filter matches, and
//! about 130 bytes of memory per filter plus 64 KiB of length tables.
//! Removal keeps candidate bits of lengths above 12 (a superset, still
//! confirmed by the probe), so lookups stay exact.

use crate::filter::{mask, Filter, FlowKey};
use crate::u64map::{Bloom, U64Map};

/// Names an installed filter (returned by [`Classifier::insert`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FilterId(pub u32);

/// One installed filter and what it is bound to.
#[derive(Clone, Debug)]
struct Entry<V> {
    filter: Filter,
    value: V,
    /// Install order: ties go to the earlier.
    seq: u64,
}

/// The top-12-bit table of one address dimension, and its prefix set.
#[derive(Clone, Debug)]
struct Dim {
    /// Bit L: a prefix of length L covers (L <= 12) or may lie in (L > 12)
    /// this /12.
    top: Vec<u64>,
    /// Installed prefixes (`len << 32 | addr`) and how many filters use each.
    prefixes: U64Map<u32>,
    /// Which prefixes may be in `prefixes`.
    bloom: Bloom,
}

const TOP_BITS: u32 = 12;

impl Dim {
    fn new() -> Dim {
        Dim {
            top: vec![0; 1 << TOP_BITS],
            prefixes: U64Map::new(),
            bloom: Bloom::default(),
        }
    }

    fn add(&mut self, addr: u32, len: u8) {
        let key = ((len as u64) << 32) | addr as u64;
        let n = self.prefixes.get(key).unwrap_or(0);
        self.prefixes.insert(key, n + 1);
        if n == 0 {
            self.bloom.add(key);
            if self.bloom.wants_rebuild() {
                self.bloom = Bloom::with_keys(self.prefixes.len());
                for k in self.prefixes.keys() {
                    self.bloom.add(k);
                }
            }
            for i in self.top_range(addr, len) {
                self.top[i] |= 1 << len;
            }
        }
    }

    fn sub(&mut self, addr: u32, len: u8) {
        let key = ((len as u64) << 32) | addr as u64;
        match self.prefixes.get(key) {
            Some(1) => {
                self.prefixes.remove(key);
                self.bloom.removed();
                if len as u32 <= TOP_BITS {
                    // Exact bits: only this prefix of this length covers
                    // these entries.
                    for i in self.top_range(addr, len) {
                        self.top[i] &= !(1 << len);
                    }
                }
            }
            Some(n) => {
                self.prefixes.insert(key, n - 1);
            }
            None => {}
        }
    }

    /// The /12 entries a prefix covers (one when it is longer than 12).
    fn top_range(&self, addr: u32, len: u8) -> std::ops::Range<usize> {
        let first = (addr >> (32 - TOP_BITS)) as usize;
        if len as u32 >= TOP_BITS {
            first..first + 1
        } else {
            first..first + (1usize << (TOP_BITS - len as u32))
        }
    }

    /// Bit L set for each installed prefix length L that contains `a`.
    #[inline(always)]
    fn matching(&self, a: u32) -> u64 {
        let w = self.top[(a >> (32 - TOP_BITS)) as usize];
        let exact = w & ((1 << (TOP_BITS + 1)) - 1);
        let mut cand = w >> (TOP_BITS + 1);
        let mut out = exact;
        while cand != 0 {
            let l = cand.trailing_zeros() + TOP_BITS + 1;
            cand &= cand - 1;
            let key = ((l as u64) << 32) | (a & mask(l as u8)) as u64;
            if self.bloom.may_contain(key) && self.prefixes.get(key).is_some() {
                out |= 1 << l;
            }
        }
        out
    }

    fn heap_bytes(&self) -> usize {
        self.top.capacity() * 8 + self.prefixes.heap_bytes() + self.bloom.heap_bytes()
    }
}

/// Buckets longer than this get a [`BucketIndex`].
const INDEX_OVER: usize = 16;

/// Filters with the same two prefixes, most specific first (by the rest
/// of the fields, then install order).
#[derive(Clone, Debug, Default)]
struct Bucket {
    slots: Vec<u32>,
    /// For long buckets (wildcard addresses collect many filters).
    index: Option<Box<BucketIndex>>,
}

/// Bit vectors over a long bucket (the Lucent bit-vector scheme): for each
/// elementary interval of source ports, of destination ports, and for each
/// protocol, the set of the bucket's filters (bit i: `slots[i]`) that
/// allow it. A lookup ANDs three vectors and takes the first set bit whose
/// filter also matches the interface.
#[derive(Clone, Debug)]
struct BucketIndex {
    words: usize,
    sport: PortVectors,
    dport: PortVectors,
    /// (protocol, vector) for each protocol named; and the `*` vector.
    protos: Vec<(u8, Vec<u64>)>,
    any_proto: Vec<u64>,
}

#[derive(Clone, Debug)]
struct PortVectors {
    /// Start of each elementary interval; `bounds[0]` is 0.
    bounds: Vec<u32>,
    /// `words` words per interval.
    bits: Vec<u64>,
    /// The interval holding port `256 * i`: a lookup walks forward from
    /// there (a few steps) instead of a binary search's ten unpredictable
    /// branches.
    coarse: Vec<u16>,
}

impl PortVectors {
    fn build(ranges: &[crate::filter::PortRange], words: usize) -> PortVectors {
        let mut bounds: Vec<u32> = vec![0];
        for r in ranges {
            bounds.push(r.lo as u32);
            bounds.push(r.hi as u32 + 1);
        }
        bounds.sort_unstable();
        bounds.dedup();
        bounds.retain(|&b| b <= 65535);
        let mut bits = vec![0u64; bounds.len() * words];
        for (i, r) in ranges.iter().enumerate() {
            let first = bounds.partition_point(|&b| b < r.lo as u32);
            let end = bounds.partition_point(|&b| b <= r.hi as u32);
            for iv in first..end {
                bits[iv * words + i / 64] |= 1 << (i % 64);
            }
        }
        let coarse = (0..256u32)
            .map(|i| (bounds.partition_point(|&b| b <= i << 8) - 1) as u16)
            .collect();
        PortVectors {
            bounds,
            bits,
            coarse,
        }
    }

    #[inline(always)]
    fn of(&self, port: u16, words: usize) -> &[u64] {
        let mut iv = self.coarse[(port >> 8) as usize] as usize;
        while iv + 1 < self.bounds.len() && self.bounds[iv + 1] <= port as u32 {
            iv += 1;
        }
        &self.bits[iv * words..iv * words + words]
    }
}

impl BucketIndex {
    fn build<V>(slots: &[u32], entries: &[Option<Entry<V>>]) -> BucketIndex {
        let words = slots.len().div_ceil(64);
        let filters: Vec<&Filter> = slots
            .iter()
            .map(|&s| {
                &entries[s as usize]
                    .as_ref()
                    .expect("bucket holds live slots")
                    .filter
            })
            .collect();
        let sports: Vec<_> = filters.iter().map(|f| f.sport).collect();
        let dports: Vec<_> = filters.iter().map(|f| f.dport).collect();
        let mut protos: Vec<(u8, Vec<u64>)> = Vec::new();
        let mut any_proto = vec![0u64; words];
        for (i, f) in filters.iter().enumerate() {
            let v = match f.proto {
                None => &mut any_proto,
                Some(p) => match protos.iter().position(|x| x.0 == p) {
                    Some(j) => &mut protos[j].1,
                    None => {
                        protos.push((p, vec![0u64; words]));
                        &mut protos.last_mut().expect("just pushed").1
                    }
                },
            };
            v[i / 64] |= 1 << (i % 64);
        }
        BucketIndex {
            words,
            sport: PortVectors::build(&sports, words),
            dport: PortVectors::build(&dports, words),
            protos,
            any_proto,
        }
    }

    fn heap_bytes(&self) -> usize {
        (self.sport.bounds.capacity() + self.dport.bounds.capacity()) * 4
            + 2 * 256 * 2
            + (self.sport.bits.capacity() + self.dport.bits.capacity()) * 8
            + self.any_proto.capacity() * 8
            + self
                .protos
                .iter()
                .map(|p| p.1.capacity() * 8 + 32)
                .sum::<usize>()
    }
}

impl Bucket {
    /// The first (most specific) filter of the bucket matching `k`'s
    /// protocol, ports and interface.
    #[inline]
    fn first_match<V: Copy>(
        &self,
        k: &FlowKey,
        entries: &[Option<Entry<V>>],
    ) -> Option<(FilterId, V)> {
        let hit = |s: u32| {
            let e = entries[s as usize].as_ref()?;
            e.filter.rest_matches(k).then_some((FilterId(s), e.value))
        };
        let Some(ix) = &self.index else {
            return self.slots.iter().find_map(|&s| hit(s));
        };
        let w = ix.words;
        let sp = ix.sport.of(k.sport, w);
        let dp = ix.dport.of(k.dport, w);
        let pp = ix.protos.iter().find(|p| p.0 == k.proto).map(|p| &p.1[..]);
        for i in 0..w {
            let mut x = sp[i] & dp[i] & (ix.any_proto[i] | pp.map_or(0, |p| p[i]));
            while x != 0 {
                let b = i * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                if let Some(r) = hit(self.slots[b]) {
                    return Some(r);
                }
            }
        }
        None
    }

    fn reindex<V>(&mut self, entries: &[Option<Entry<V>>]) {
        self.index = (self.slots.len() > INDEX_OVER)
            .then(|| Box::new(BucketIndex::build(&self.slots, entries)));
    }
}

/// Filters with one (source length, destination length) pair.
#[derive(Clone, Debug, Default)]
struct Tuple {
    /// `src << 32 | dst` (masked) to an index into `buckets`.
    map: U64Map<u32>,
    buckets: Vec<Bucket>,
    /// Unused bucket indices.
    free: Vec<u32>,
}

/// A bucket's key in the classifier's Bloom filter: the masked addresses
/// mixed with the tuple's two lengths.
#[inline(always)]
fn bucket_tag(sl: usize, dl: usize, key: u64) -> u64 {
    key ^ ((sl * 33 + dl) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The filter table; `V` is what a filter is bound to.
#[derive(Clone, Debug)]
pub struct Classifier<V: Copy> {
    entries: Vec<Option<Entry<V>>>,
    free_slots: Vec<u32>,
    src: Dim,
    dst: Dim,
    /// Tuple index + 1 by `src_len * 33 + dst_len` (0: none).
    tuple_of: Vec<u32>,
    tuples: Vec<Tuple>,
    /// For each source length, bit L for each destination length with a tuple.
    dst_lens: [u64; 33],
    /// Which (tuple, addresses) pairs may have a bucket ([`bucket_tag`]).
    bloom: Bloom,
    /// Buckets that exist.
    nbuckets: usize,
    seq: u64,
    len: usize,
}

impl<V: Copy> Default for Classifier<V> {
    fn default() -> Self {
        Classifier::new()
    }
}

impl<V: Copy> Classifier<V> {
    /// An empty table.
    pub fn new() -> Classifier<V> {
        Classifier {
            entries: Vec::new(),
            free_slots: Vec::new(),
            src: Dim::new(),
            dst: Dim::new(),
            tuple_of: vec![0; 33 * 33],
            tuples: Vec::new(),
            dst_lens: [0; 33],
            bloom: Bloom::default(),
            nbuckets: 0,
            seq: 0,
            len: 0,
        }
    }

    /// Filters installed.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no filter is installed.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Installs `filter` bound to `value`.
    pub fn insert(&mut self, filter: Filter, value: V) -> FilterId {
        self.seq += 1;
        let e = Entry {
            filter,
            value,
            seq: self.seq,
        };
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.entries[s as usize] = Some(e);
                s
            }
            None => {
                self.entries.push(Some(e));
                (self.entries.len() - 1) as u32
            }
        };
        self.len += 1;
        self.src.add(filter.src.addr, filter.src.len);
        self.dst.add(filter.dst.addr, filter.dst.len);
        let (sl, dl) = (filter.src.len as usize, filter.dst.len as usize);
        let ti = match self.tuple_of[sl * 33 + dl] {
            0 => {
                self.tuples.push(Tuple::default());
                self.tuple_of[sl * 33 + dl] = self.tuples.len() as u32;
                self.dst_lens[sl] |= 1 << dl;
                self.tuples.len() - 1
            }
            t => t as usize - 1,
        };
        let key = ((filter.src.addr as u64) << 32) | filter.dst.addr as u64;
        let t = &mut self.tuples[ti];
        let b = match t.map.get(key) {
            Some(b) => b as usize,
            None => {
                let b = match t.free.pop() {
                    Some(b) => b as usize,
                    None => {
                        t.buckets.push(Bucket::default());
                        t.buckets.len() - 1
                    }
                };
                t.map.insert(key, b as u32);
                self.bloom.add(bucket_tag(sl, dl, key));
                self.nbuckets += 1;
                b
            }
        };
        let entries = &self.entries;
        let rank = |s: u32| {
            let e = entries[s as usize]
                .as_ref()
                .expect("bucket holds live slots");
            (std::cmp::Reverse(e.filter.specificity()), e.seq)
        };
        let bucket = &mut t.buckets[b];
        let at = bucket.slots.partition_point(|&s| rank(s) <= rank(slot));
        bucket.slots.insert(at, slot);
        bucket.reindex(&self.entries);
        if self.bloom.wants_rebuild() {
            self.rebuild_bloom();
        }
        FilterId(slot)
    }

    fn rebuild_bloom(&mut self) {
        let mut bloom = Bloom::with_keys(self.nbuckets);
        for sl in 0..33 {
            for dl in 0..33 {
                if let Some(t) = self.tuple_of[sl * 33 + dl].checked_sub(1) {
                    for key in self.tuples[t as usize].map.keys() {
                        bloom.add(bucket_tag(sl, dl, key));
                    }
                }
            }
        }
        self.bloom = bloom;
    }

    /// Removes filter `id`; returns what it was bound to.
    pub fn remove(&mut self, id: FilterId) -> Option<(Filter, V)> {
        let e = self.entries.get_mut(id.0 as usize)?.take()?;
        self.free_slots.push(id.0);
        self.len -= 1;
        let f = e.filter;
        self.src.sub(f.src.addr, f.src.len);
        self.dst.sub(f.dst.addr, f.dst.len);
        let (sl, dl) = (f.src.len as usize, f.dst.len as usize);
        let ti = self.tuple_of[sl * 33 + dl] as usize - 1;
        let key = ((f.src.addr as u64) << 32) | f.dst.addr as u64;
        let t = &mut self.tuples[ti];
        if let Some(b) = t.map.get(key) {
            let bucket = &mut t.buckets[b as usize];
            bucket.slots.retain(|&s| s != id.0);
            if bucket.slots.is_empty() {
                bucket.index = None;
                t.map.remove(key);
                t.free.push(b);
                self.bloom.removed();
                self.nbuckets -= 1;
            } else {
                bucket.reindex(&self.entries);
            }
        }
        Some((f, e.value))
    }

    /// The filter and value of `id`.
    pub fn get(&self, id: FilterId) -> Option<(&Filter, V)> {
        let e = self.entries.get(id.0 as usize)?.as_ref()?;
        Some((&e.filter, e.value))
    }

    /// Every installed filter, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (FilterId, &Filter, V)> {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|e| (FilterId(i as u32), &e.filter, e.value)))
    }

    /// The most specific filter matching `k`, and its value.
    #[inline]
    pub fn lookup(&self, k: &FlowKey) -> Option<(FilterId, V)> {
        if self.len == 0 {
            return None;
        }
        let mut sm = self.src.matching(k.src);
        let dm = self.dst.matching(k.dst);
        while sm != 0 {
            let sl = 63 - sm.leading_zeros() as usize;
            sm &= !(1u64 << sl);
            let mut d = dm & self.dst_lens[sl];
            while d != 0 {
                let dl = 63 - d.leading_zeros() as usize;
                d &= !(1u64 << dl);
                let ti = self.tuple_of[sl * 33 + dl];
                let t = &self.tuples[ti as usize - 1];
                let key =
                    (((k.src & mask(sl as u8)) as u64) << 32) | (k.dst & mask(dl as u8)) as u64;
                if !self.bloom.may_contain(bucket_tag(sl, dl, key)) {
                    continue;
                }
                if let Some(b) = t.map.get(key) {
                    if let Some(r) = t.buckets[b as usize].first_match(k, &self.entries) {
                        return Some(r);
                    }
                }
            }
        }
        None
    }

    /// The same answer by trying every filter: the reference for tests.
    pub fn lookup_linear(&self, k: &FlowKey) -> Option<(FilterId, V)> {
        let mut best: Option<(u64, std::cmp::Reverse<u64>, u32)> = None;
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(e) = e {
                if e.filter.matches(k) {
                    let r = (e.filter.specificity(), std::cmp::Reverse(e.seq), i as u32);
                    if best.is_none_or(|b| (r.0, r.1) > (b.0, b.1)) {
                        best = Some(r);
                    }
                }
            }
        }
        best.map(|(_, _, i)| {
            let e = self.entries[i as usize].as_ref().expect("live");
            (FilterId(i), e.value)
        })
    }

    /// Heap bytes used (tables, buckets, entries), for the cost per filter.
    pub fn heap_bytes(&self) -> usize {
        let entries = self.entries.capacity() * std::mem::size_of::<Option<Entry<V>>>()
            + self.free_slots.capacity() * 4;
        let tuples: usize = self
            .tuples
            .iter()
            .map(|t| {
                t.map.heap_bytes()
                    + t.free.capacity() * 4
                    + t.buckets.capacity() * std::mem::size_of::<Bucket>()
                    + t.buckets
                        .iter()
                        .map(|b| {
                            b.slots.capacity() * 4
                                + b.index.as_ref().map_or(0, |ix| ix.heap_bytes() + 64)
                        })
                        .sum::<usize>()
            })
            .sum();
        entries
            + tuples
            + self.bloom.heap_bytes()
            + self.src.heap_bytes()
            + self.dst.heap_bytes()
            + self.tuple_of.capacity() * 4
            + self.tuples.capacity() * std::mem::size_of::<Tuple>()
    }
}

/// Random filters and keys for tests and benchmarks (deterministic).
pub mod random {
    use crate::filter::{Filter, FlowKey, PortRange, Prefix};

    /// A xorshift generator.
    #[derive(Clone, Debug)]
    pub struct Rng(pub u64);

    impl Rng {
        /// The next 64 random bits.
        pub fn next_u64(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        /// A number below `n`.
        pub fn below(&mut self, n: u64) -> u64 {
            self.next_u64() % n.max(1)
        }
    }

    /// A random filter: each address `*` one time in four, else a prefix
    /// of length 8-32; protocol `*` one in four, else TCP, UDP or ICMP;
    /// each port `*` half the time, else one port or a range of up to
    /// 1024; interface `*` three in four, else 0-3.
    pub fn filter(r: &mut Rng) -> Filter {
        let pfx = |r: &mut Rng| {
            if r.below(4) == 0 {
                Prefix::default()
            } else {
                Prefix::new(r.next_u64() as u32, 8 + r.below(25) as u8)
            }
        };
        let src = pfx(r);
        let dst = pfx(r);
        let proto = match r.below(4) {
            0 => None,
            1 => Some(6),
            2 => Some(17),
            _ => Some(1),
        };
        let ports = |r: &mut Rng| match r.below(4) {
            0 | 1 => PortRange::ANY,
            2 => {
                let p = r.next_u64() as u16;
                PortRange { lo: p, hi: p }
            }
            _ => {
                let lo = r.next_u64() as u16;
                let hi = lo.saturating_add(r.below(1024) as u16);
                PortRange { lo, hi }
            }
        };
        let sport = ports(r);
        let dport = ports(r);
        let iif = (r.below(4) == 0).then(|| r.below(4) as u8);
        Filter {
            src,
            dst,
            proto,
            sport,
            dport,
            iif,
        }
    }

    /// A key that matches `f` (random inside each field).
    pub fn key_in(f: &Filter, r: &mut Rng) -> FlowKey {
        let addr =
            |p: Prefix, r: &mut Rng| p.addr | (r.next_u64() as u32 & !crate::filter::mask(p.len));
        let port =
            |pr: PortRange, r: &mut Rng| pr.lo + r.below(pr.hi as u64 - pr.lo as u64 + 1) as u16;
        FlowKey {
            src: addr(f.src, r),
            dst: addr(f.dst, r),
            proto: f.proto.unwrap_or(6),
            sport: port(f.sport, r),
            dport: port(f.dport, r),
            iif: f.iif.unwrap_or(0),
        }
    }

    /// A uniformly random key (protocol TCP, UDP or ICMP, interface 0-3).
    pub fn key(r: &mut Rng) -> FlowKey {
        FlowKey {
            src: r.next_u64() as u32,
            dst: r.next_u64() as u32,
            proto: [6, 17, 1][r.below(3) as usize],
            sport: r.next_u64() as u16,
            dport: r.next_u64() as u16,
            iif: r.below(4) as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::random::{self, Rng};
    use super::*;

    fn f(s: &str) -> Filter {
        Filter::parse(s).unwrap()
    }

    #[test]
    fn papers_table_1() {
        let mut c = Classifier::new();
        let f1 = c.insert(f("129.* 192.94.233.10 tcp * * *"), 1);
        let f2 = c.insert(f("128.252.153.1 128.252.153.7 udp * * *"), 2);
        let f3 = c.insert(f("128.252.153.1 128.252.153.7 tcp * * *"), 3);
        let f4 = c.insert(f("128.252.153.* * udp * * *"), 4);
        let k = |s: &str, d: &str, p: u8| FlowKey {
            src: u32::from(s.parse::<std::net::Ipv4Addr>().unwrap()),
            dst: u32::from(d.parse::<std::net::Ipv4Addr>().unwrap()),
            proto: p,
            ..FlowKey::default()
        };
        assert_eq!(
            c.lookup(&k("128.252.153.1", "128.252.153.7", 17)),
            Some((f2, 2))
        );
        assert_eq!(
            c.lookup(&k("128.252.153.1", "128.252.153.7", 6)),
            Some((f3, 3))
        );
        // The paper's example triple <128.252.153.1, 128.252.154.7, UDP>
        // falls back from the host filter to the /24 one.
        assert_eq!(
            c.lookup(&k("128.252.153.1", "128.252.154.7", 17)),
            Some((f4, 4))
        );
        assert_eq!(c.lookup(&k("129.1.2.3", "192.94.233.10", 6)), Some((f1, 1)));
        assert_eq!(c.lookup(&k("129.1.2.3", "192.94.233.10", 17)), None);
        assert_eq!(c.remove(f4).map(|x| x.1), Some(4));
        assert_eq!(c.lookup(&k("128.252.153.1", "128.252.154.7", 17)), None);
        assert_eq!(c.remove(f4), None, "removing twice changes nothing");
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn ties_go_to_the_filter_installed_first() {
        let mut c = Classifier::new();
        let a = c.insert(f("* * * 10-20 * *"), 'a');
        let _b = c.insert(f("* * * 15-25 * *"), 'b');
        let key = FlowKey {
            sport: 17,
            ..FlowKey::default()
        };
        assert_eq!(c.lookup(&key), Some((a, 'a')));
        assert_eq!(c.lookup(&key), c.lookup_linear(&key));
    }

    /// The fast lookup against trying every filter, on random filters
    /// and keys, while filters come and go.
    #[test]
    fn agrees_with_linear_search_on_random_filters() {
        let mut r = Rng(0x1234_5678_9abc_def1);
        let mut c = Classifier::new();
        let mut ids = Vec::new();
        let mut filters = Vec::new();
        for i in 0..3000u32 {
            let fl = random::filter(&mut r);
            ids.push(c.insert(fl, i));
            filters.push(fl);
        }
        let mut matched = 0;
        for round in 0..4 {
            for _ in 0..3000 {
                let k = if r.below(2) == 0 {
                    random::key_in(&filters[r.below(filters.len() as u64) as usize], &mut r)
                } else {
                    random::key(&mut r)
                };
                let fast = c.lookup(&k);
                assert_eq!(fast, c.lookup_linear(&k), "round {round} key {k}");
                matched += fast.is_some() as usize;
            }
            // Remove a third, add as many new ones.
            for _ in 0..1000 {
                let i = r.below(ids.len() as u64) as usize;
                c.remove(ids[i]);
                let fl = random::filter(&mut r);
                ids[i] = c.insert(fl, 10_000 + i as u32);
                filters[i] = fl;
            }
        }
        assert!(matched > 3000, "the test must exercise matches: {matched}");
        assert_eq!(c.len(), 3000);
    }
}
