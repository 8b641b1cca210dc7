//! D16R: an IPv6 longest-prefix-match table after DXR (Zec, Rizzo and
//! Mikuc, "DXR: towards a billion routing lookups per second in software",
//! 2012), the structure `ip/dxr.rs` uses for IPv4, cut at 16 bits.
//!
//! The routes are flattened into the ranges of addresses that share one
//! longest match (a route or none), sorted by their first address. A
//! direct table of 2^16 entries, one per value of an address's first 16
//! bits, holds either the answer itself, when one range covers that whole
//! /16, or where the /16's ranges start in the range arrays and how many
//! there are; a lookup is then one read of the direct table and, at most,
//! a binary search over that /16's ranges. A /16 with more than 256 ranges
//! also gets a second level of 2^12 entries, one per /28 in it, each
//! giving the ranges that meet that /28, so the search covers only those
//! (100,000 routes in one /16: about 50 ranges a /28, 6 steps, instead of
//! 18 over all). No lookup depends on the number of distinct prefix
//! lengths, which is what the hash-per-length table pays.
//!
//! Memory: 256 KiB for the direct table (4 bytes an entry), plus, per
//! /16 that needs them, 12 bytes of descriptor and 20 bytes per range (a
//! 16-byte first address and a 4-byte answer), and 32 KiB per second
//! level. A table of N routes has at most 2N + 1 ranges, so at most 40
//! bytes per route on top of the direct table and the second levels.
//!
//! The table is rebuilt whole when the routes change (LookupIP6Route's
//! routes are fixed by its configuration).

/// No route: the answer for addresses no prefix covers.
pub const NONE: u32 = u32::MAX;

/// A direct-table entry with this bit set holds the answer (the other
/// bits; [`NONE`] is kept as all ones); without it, a descriptor index.
const LEAF: u32 = 1 << 31;

/// A /16 with more ranges than this gets a second level.
const SUB_MIN: usize = 256;
/// The second level's width in bits (after the first 16).
const SUB_BITS: u32 = 12;

/// The D16R table. Answers are the `u32` values given with the routes
/// (indices into the caller's route list, below 2^31 - 1).
pub struct D16r {
    direct: Vec<u32>,
    /// (first range, number of ranges, second level or [`NONE`]) for each
    /// /16 with more than one range.
    chunks: Vec<(u32, u32, u32)>,
    /// Second levels, 2^[`SUB_BITS`] entries each: (first range, number of
    /// ranges) of the ranges meeting each /28 of a /16 with many ranges.
    subs: Vec<(u32, u32)>,
    starts: Vec<u128>,
    values: Vec<u32>,
}

impl D16r {
    /// Builds the table for `routes`: (prefix, length, value); the prefix
    /// has no bits set past its length, and no two routes have the same
    /// prefix and length. Values must be below 2^31 - 1.
    pub fn new(routes: &[(u128, u8, u32)]) -> D16r {
        let ranges = flatten(routes);
        let mut d = D16r {
            direct: vec![NONE; 1 << 16],
            chunks: Vec::new(),
            subs: Vec::new(),
            starts: Vec::new(),
            values: Vec::new(),
        };
        // `ranges` covers the whole space in order; walk it chunk by chunk.
        let mut i = 0;
        for c in 0..(1u32 << 16) {
            let lo = u128::from(c) << 112;
            let hi = lo | (u128::MAX >> 16);
            // The range holding `lo` is the last one starting at or before it.
            while i + 1 < ranges.len() && ranges[i + 1].0 <= lo {
                i += 1;
            }
            let mut j = i;
            while j + 1 < ranges.len() && ranges[j + 1].0 <= hi {
                j += 1;
            }
            if i == j {
                d.direct[c as usize] = leaf(ranges[i].1);
            } else {
                d.direct[c as usize] = d.chunks.len() as u32;
                let base = d.starts.len();
                d.starts.push(lo);
                d.values.push(ranges[i].1);
                for r in &ranges[i + 1..=j] {
                    d.starts.push(r.0);
                    d.values.push(r.1);
                }
                let n = j - i + 1;
                let sub = if n > SUB_MIN {
                    d.add_sub(base, n, lo)
                } else {
                    NONE
                };
                d.chunks.push((base as u32, n as u32, sub));
            }
            i = j;
        }
        d.subs.shrink_to_fit();
        d.starts.shrink_to_fit();
        d.values.shrink_to_fit();
        d.chunks.shrink_to_fit();
        d
    }

    /// The value of the longest prefix holding `a`, or [`NONE`].
    #[inline]
    pub fn lookup(&self, a: u128) -> u32 {
        let e = self.direct[(a >> 112) as usize];
        if e & LEAF != 0 {
            return if e == NONE { NONE } else { e & !LEAF };
        }
        let (mut first, mut n, sub) = self.chunks[e as usize];
        if sub != NONE {
            let k = (a >> (112 - SUB_BITS)) as usize & ((1 << SUB_BITS) - 1);
            (first, n) = self.subs[((sub as usize) << SUB_BITS) + k];
        }
        let (first, n) = (first as usize, n as usize);
        let starts = &self.starts[first..first + n];
        // The last range starting at or before `a` (the first starts at or
        // before the chunk's, or the slice's, first address, so there is
        // one).
        let k = starts.partition_point(|&s| s <= a).saturating_sub(1);
        self.values[first + k]
    }

    /// Adds the second level of the /16 starting at `lo` whose `n` ranges
    /// start at `base`; returns its number.
    fn add_sub(&mut self, base: usize, n: usize, lo: u128) -> u32 {
        let starts = &self.starts[base..base + n];
        let width = 112 - SUB_BITS;
        let (mut i, mut j) = (0, 0);
        for k in 0..(1u128 << SUB_BITS) {
            let lo2 = lo | k << width;
            let hi2 = lo2 | ((1u128 << width) - 1);
            while i + 1 < n && starts[i + 1] <= lo2 {
                i += 1;
            }
            j = j.max(i);
            while j + 1 < n && starts[j + 1] <= hi2 {
                j += 1;
            }
            self.subs.push(((base + i) as u32, (j - i + 1) as u32));
        }
        ((self.subs.len() >> SUB_BITS) - 1) as u32
    }

    /// Bytes the table holds.
    pub fn memory(&self) -> usize {
        self.direct.len() * 4
            + self.chunks.len() * 12
            + self.subs.len() * 8
            + self.starts.len() * 16
            + self.values.len() * 4
    }

    /// How many ranges the range arrays hold.
    pub fn ranges(&self) -> usize {
        self.starts.len()
    }
}

fn leaf(v: u32) -> u32 {
    if v == NONE {
        NONE
    } else {
        v | LEAF
    }
}

/// The ranges of the whole address space by longest match: (first
/// address, value), sorted, neighbours with the same value merged, the
/// first starting at 0.
fn flatten(routes: &[(u128, u8, u32)]) -> Vec<(u128, u32)> {
    let mut sorted: Vec<(u128, u8, u32)> = routes.to_vec();
    // Outer prefixes before the prefixes they hold: by first address, then
    // shorter first.
    sorted.sort_unstable_by_key(|&(p, l, _)| (p, l));
    let last = |p: u128, l: u8| p | if l >= 128 { 0 } else { u128::MAX >> l };
    let mut out: Vec<(u128, u32)> = Vec::with_capacity(2 * sorted.len() + 1);
    let push = |out: &mut Vec<(u128, u32)>, start: u128, v: u32| {
        if let Some(&(s, pv)) = out.last() {
            if s == start {
                out.pop();
                if out.last().is_some_and(|&(_, q)| q == v) {
                    return;
                }
            } else if pv == v {
                return;
            }
        }
        out.push((start, v));
    };
    // Stack of open prefixes: (last address, value).
    let mut stack: Vec<(u128, u32)> = Vec::new();
    push(&mut out, 0, NONE);
    for &(p, l, v) in &sorted {
        // Close the prefixes that end before `p`.
        while let Some(&(end, _)) = stack.last() {
            if end >= p {
                break;
            }
            stack.pop();
            if end != u128::MAX {
                let under = stack.last().map_or(NONE, |s| s.1);
                push(&mut out, end + 1, under);
            }
        }
        push(&mut out, p, v);
        stack.push((last(p, l), v));
    }
    while let Some((end, _)) = stack.pop() {
        if end != u128::MAX {
            let under = stack.last().map_or(NONE, |s| s.1);
            push(&mut out, end + 1, under);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ip::test_util::Rng;

    fn mask(l: u8) -> u128 {
        if l == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(l))
        }
    }

    fn linear(routes: &[(u128, u8, u32)], a: u128) -> u32 {
        routes
            .iter()
            .filter(|r| a & mask(r.1) == r.0)
            .max_by_key(|r| r.1)
            .map_or(NONE, |r| r.2)
    }

    fn rand128(rng: &mut Rng) -> u128 {
        (0..4).fold(0u128, |a, _| {
            a << 32 | u128::from(rng.below(1 << 32) as u32)
        })
    }

    /// Random tables (nested and neighbouring prefixes, /0 to /128, many in
    /// one /16 and some spread over all of them): every address tried,
    /// random and at each route's edges, gets the linear scan's answer.
    #[test]
    fn matches_linear_scan() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut second_levels = 0;
        for round in 0..30 {
            let n = 1 + rng.below(if round < 20 { 40 } else { 1500 }) as usize;
            let mut routes: Vec<(u128, u8, u32)> = Vec::new();
            for i in 0..n {
                let len = match rng.below(6) {
                    0 => rng.below(129) as u8,
                    1 => 128,
                    2 => 64,
                    _ => 16 + rng.below(49) as u8,
                };
                let mut a = rand128(&mut rng);
                if rng.below(4) != 0 {
                    // Most under 2001:db8::/32 (one /16, nested often).
                    a = (0x2001_0db8u128 << 96) | (a & (u128::MAX >> 32));
                }
                let p = a & mask(len);
                if routes.iter().any(|r| r.0 == p && r.1 == len) {
                    continue;
                }
                routes.push((p, len, i as u32));
            }
            let t = D16r::new(&routes);
            let mut probes: Vec<u128> = (0..300).map(|_| rand128(&mut rng)).collect();
            for r in &routes {
                let end = r.0 | !mask(r.1);
                probes.extend([r.0, end, r.0.wrapping_sub(1), end.wrapping_add(1)]);
                probes.push(r.0 | (rand128(&mut rng) & !mask(r.1)));
            }
            for a in probes {
                assert_eq!(t.lookup(a), linear(&routes, a), "round {round} {a:#x}");
            }
            assert!(t.ranges() <= 2 * routes.len() + 1 + t.chunks.len());
            second_levels += t.subs.len() >> SUB_BITS;
        }
        assert!(second_levels > 0, "no table had a second level");
        // 300 /48s in one /16: one chunk of 601 ranges with a second level.
        let routes: Vec<(u128, u8, u32)> = (0..300u32)
            .map(|i| ((0x2001_0db8u128 << 96) | u128::from(i) << 81, 48, i))
            .collect();
        let t = D16r::new(&routes);
        assert_eq!(t.ranges(), 601);
        assert_eq!(t.memory(), (1 << 18) + 12 + (8 << SUB_BITS) + 601 * 20);
        assert_eq!(t.lookup((0x2001_0db8u128 << 96) | 7u128 << 81 | 5), 7);
    }

    #[test]
    fn empty_default_and_host_routes() {
        let t = D16r::new(&[]);
        assert_eq!(t.lookup(0), NONE);
        assert_eq!(t.lookup(u128::MAX), NONE);
        assert_eq!(t.memory(), 1 << 18);
        let t = D16r::new(&[(0, 0, 7), (u128::MAX, 128, 8), (0, 128, 9)]);
        assert_eq!(t.lookup(0), 9);
        assert_eq!(t.lookup(1), 7);
        assert_eq!(t.lookup(u128::MAX), 8);
        assert_eq!(t.lookup(u128::MAX - 1), 7);
    }
}
