//! # SourceIPHashMapper
//!
//! `SourceIPHashMapper(NNODES SEED, PATTERN1 ID1, ..., PATTERNn IDn)`
//!
//! **Category:** nat. Source-address hash mapper for IPRewriter(n).
//!
//! ## Ports and processing
//!
//! No ports.
//!
//! ## Description
//!
//! Works with IPRewriter-like elements, as RoundRobinIPMapper does: an
//! input spec naming this element asks it for each new flow's mapping. The
//! pattern is chosen by a consistent hash of the flow's source address, so
//! that one client always reaches the same server, and adding or removing a
//! server moves only the clients that hashed to it.
//!
//! The first argument is `NNODES SEED`: each server gets NNODES points on
//! the hash ring, drawn from the shared random generator after seeding it
//! with SEED (as Click does; this reseeds the generator other elements
//! use). Each other argument is a pattern, `SADDR SPORT DADDR DPORT
//! FOUTPUT ROUTPUT` as in IPRewriter's `pattern` input spec, followed by a
//! server ID (a non-negative integer). The source address picks the ring
//! point at or after its hash; that point's server, counted by increasing
//! ID, picks the pattern counted in the order given. If that pattern has no
//! free port the flow fails (no other pattern is tried).
//!
//! The hash of address A.B.C.D is the 32-bit number with A in the low
//! byte, multiplied by `(A << 24) | 1` and taken modulo 2^31 - 1, so
//! Click's choices for a seed are reproduced.
//!
//! ## Handlers
//!
//! None beyond the standard ones.
//!
//! ## Example
//!
//! ```text
//! m :: SourceIPHashMapper(64 0xbadbeef,
//!        - - 192.0.2.10 - 0 1 1, - - 192.0.2.11 - 0 1 2);
//! rw :: IPRewriter(m, drop);
//! ```
//!
//! ## See also
//!
//! IPRewriter, RoundRobinIPMapper, IPRewriterPatterns

use std::sync::Arc;

use rclick_core::{phase, ConfigureCx, Element};

use super::pattern::parse_int;
use super::round_robin_ip_mapper::mapper_pattern;
use super::spec::MapperShared;

/// A consistent-hash ring (Click's `chash_t` over its `jvtree_t`): points
/// in a binary search tree laid out in an array, each naming a server's
/// index (servers counted by increasing ID).
#[derive(Debug, Default)]
pub struct ConsistentHash {
    /// (key, index) in the tree's array order.
    tree: Vec<(i32, usize)>,
}

impl ConsistentHash {
    /// Draws `nnodes` points for each ID of `ids` from the shared generator
    /// seeded with `seed`.
    pub fn new(ids: &[u32], nnodes: usize, seed: u32) -> ConsistentHash {
        rclick_core::random::srandom(seed);
        let max_id = ids.iter().copied().max().map_or(0, |m| m as usize + 1);
        let mut present = vec![false; max_id];
        for &i in ids {
            present[i as usize] = true;
        }
        // every ID up to the largest draws its points, used or not
        let mut points = Vec::with_capacity(ids.len() * nnodes);
        let mut index = 0usize;
        for &here in &present {
            for _ in 0..nnodes {
                let key = rclick_core::random::random() as i32;
                if here {
                    points.push((key, index));
                }
            }
            if here {
                index += 1;
            }
        }
        // Click pads the ring to one point per configured pattern and
        // node; repeated IDs leave those slots zero
        points.resize(ids.len() * nnodes, (0, 0));
        points.sort_by_key(|&(k, _)| k);
        ConsistentHash {
            tree: tree_layout(&points),
        }
    }

    /// The server index for key `k`: the point with the smallest key at or
    /// above `k`, or the tree's root when there is none.
    pub fn index(&self, k: i32) -> usize {
        let mut i = 0;
        let mut found = None;
        while let Some(&(key, idx)) = self.tree.get(i) {
            if k == key {
                return idx;
            } else if k > key {
                i = 2 * i + 2;
            } else {
                found = Some(idx);
                i = 2 * i + 1;
            }
        }
        found
            .or_else(|| self.tree.first().map(|t| t.1))
            .unwrap_or(0)
    }

    /// Click's hash of a source address (`saddr` as a number, A.B.C.D being
    /// A << 24 | ...).
    pub fn key(saddr: u32) -> i32 {
        let raw = saddr.swap_bytes();
        let low = raw & 0xFF;
        (raw.wrapping_mul((low << 24) | 1) % 0x7FFF_FFFF) as i32
    }
}

/// Lays sorted `points` out as Click's balanced binary tree (children of
/// slot i at 2i+1 and 2i+2).
fn tree_layout(points: &[(i32, usize)]) -> Vec<(i32, usize)> {
    let sz = points.len();
    if sz == 0 {
        return Vec::new();
    }
    // the power of two above sz (Click's next2pow)
    let n = 1usize << (usize::BITS - sz.leading_zeros());
    let h = n - 1;
    let first_odd = 2 * sz.div_ceil(2) as isize - 2 * ((h - sz) / 2) as isize + 1;
    let mut tree = Vec::with_capacity(sz);
    let (mut d, mut s) = (n, n >> 1);
    while s > 0 && tree.len() < sz {
        let mut x = s;
        while x < n && tree.len() < sz {
            let xi = x as isize;
            let from = if xi < first_odd {
                xi
            } else {
                (xi + first_odd - 1) / 2
            };
            let at = usize::try_from(from - 1).unwrap_or(0).min(sz - 1);
            tree.push(points[at]);
            x += d;
        }
        d = s;
        s >>= 1;
    }
    tree
}

/// The SourceIPHashMapper element.
#[derive(Default)]
pub struct SourceIPHashMapper {
    shared: Arc<MapperShared>,
}

impl SourceIPHashMapper {
    /// The patterns and ring, shared with the rewriters that use this
    /// mapper.
    pub fn shared(&self) -> Arc<MapperShared> {
        self.shared.clone()
    }
}

impl Element for SourceIPHashMapper {
    fn class_name(&self) -> &'static str {
        "SourceIPHashMapper"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::DEFAULT - 1
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        match conf.len() {
            0 => return Err("no hash seed given".into()),
            1 => return Err("no patterns given".into()),
            2 => cx.warning("only one pattern given"),
            _ => {}
        }
        let params: Vec<&str> = conf[0].split_whitespace().collect();
        if params.len() != 2 {
            return Err("requires 2 config params: numnodes seed".into());
        }
        let nnodes = match parse_int(params[0]) {
            Some(n) if n > 0 && n <= 65536 => n as usize,
            _ => return Err("number of nodes must be an integer".into()),
        };
        let Some(seed) = parse_int(params[1]).filter(|s| i32::try_from(*s).is_ok()) else {
            return Err("hash seed must be an integer".into());
        };
        let mut pats = Vec::new();
        let mut ids = Vec::new();
        let mut errors = Vec::new();
        for c in &conf[1..] {
            let words: Vec<&str> = c.split_whitespace().collect();
            let id = match words.split_last() {
                Some((last, rest)) if !rest.is_empty() => {
                    parse_int(last).filter(|&i| (0..=0xFFFF).contains(&i))
                }
                _ => None,
            };
            let Some(id) = id else {
                errors.push("bad server ID in pattern spec".to_string());
                continue;
            };
            let spec = words[..words.len() - 1].join(" ");
            match mapper_pattern(&spec, cx) {
                Ok(p) => {
                    pats.push(p);
                    ids.push(id as u32);
                }
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        let hash = ConsistentHash::new(&ids, nnodes, seed as i32 as u32);
        self.shared = Arc::new(MapperShared {
            patterns: pats,
            last: Default::default(),
            hash: Some(hash),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ConsistentHash;
    use crate::rewriter::testutil::*;

    #[test]
    fn key_as_click() {
        // 10.0.0.1: raw 0x0100000a, times (0x0a << 24 | 1), mod 2^31 - 1
        let raw: u32 = 0x0100_000a;
        let want = (raw.wrapping_mul(0x0a00_0001) % 0x7FFF_FFFF) as i32;
        assert_eq!(ConsistentHash::key(0x0a00_0001), want);
    }

    #[test]
    fn ring_lookup_finds_next_point() {
        let h = ConsistentHash {
            tree: super::tree_layout(&[(10, 0), (20, 1), (30, 0), (40, 1), (50, 2)]),
        };
        assert_eq!(h.index(5), 0);
        assert_eq!(h.index(20), 1);
        assert_eq!(h.index(21), 0);
        assert_eq!(h.index(45), 2);
        // past the last point: the root (Click's fallback)
        assert_eq!(h.index(60), h.tree[0].1);
    }

    #[test]
    fn same_source_same_server() {
        let pkts = [
            udp(ip(192, 0, 2, 1), 1, ip(198, 51, 100, 1), 80),
            udp(ip(192, 0, 2, 1), 2, ip(198, 51, 100, 1), 80),
            udp(ip(192, 0, 2, 7), 1, ip(198, 51, 100, 1), 80),
            udp(ip(192, 0, 2, 1), 3, ip(198, 51, 100, 1), 80),
        ];
        let out = run_ports(
            "m :: SourceIPHashMapper(16 7, - - - - 0 0 1, - - - - 1 0 2, - - - - 2 0 3);
             rw :: IPRewriter(m);",
            3,
            &pkts,
        );
        assert_eq!(out[0], out[1]);
        assert_eq!(out[0], out[3]);
    }

    // The reference Click's choices for these sources (the same patterns,
    // NNODES 16, seed 0xbadbeef, server IDs out of order), through clickdiff.
    #[test]
    fn same_choices_as_click() {
        let srcs = [
            (ip(10, 130, 183, 204), 1),
            (ip(10, 14, 238, 199), 2),
            (ip(10, 127, 26, 231), 1),
            (ip(10, 80, 57, 96), 2),
            (ip(10, 240, 126, 98), 0),
            (ip(10, 52, 127, 4), 0),
            (ip(10, 110, 208, 72), 2),
            (ip(10, 93, 199, 41), 2),
            (ip(10, 36, 71, 159), 2),
            (ip(10, 227, 64, 34), 2),
        ];
        let pkts: Vec<Vec<u8>> = srcs
            .iter()
            .enumerate()
            .map(|(i, &(s, _))| udp(s, 1000 + i as u16, ip(192, 0, 2, 1), 80))
            .collect();
        let _g = rclick_core::random::test_lock();
        let out = run_ports(
            "m :: SourceIPHashMapper(16 0xbadbeef, - - 198.51.100.10 - 0 0 5,
                 - - 198.51.100.11 - 1 0 2, - - 198.51.100.12 - 2 0 9);
             rw :: IPRewriter(m);",
            3,
            &pkts,
        );
        let want: Vec<usize> = srcs.iter().map(|s| s.1).collect();
        assert_eq!(out, want);
    }

    #[test]
    fn errors_as_click() {
        let e = |c: &str| {
            rclick_core::testing::build(c, &registry(), true)
                .err()
                .unwrap_or_default()
        };
        assert!(e("m :: SourceIPHashMapper();").contains("no hash seed given"));
        assert!(e("m :: SourceIPHashMapper(4 1);").contains("no patterns given"));
        assert!(
            e("m :: SourceIPHashMapper(4, - - - - 0 0 1, - - - - 0 0 2);")
                .contains("requires 2 config params: numnodes seed")
        );
        assert!(
            e("m :: SourceIPHashMapper(0 1, - - - - 0 0 1, - - - - 0 0 2);")
                .contains("number of nodes must be an integer")
        );
        assert!(
            e("m :: SourceIPHashMapper(4 x, - - - - 0 0 1, - - - - 0 0 2);")
                .contains("hash seed must be an integer")
        );
        assert!(
            e("m :: SourceIPHashMapper(4 1, - - - - 0 0 x, - - - - 0 0 2);")
                .contains("bad server ID in pattern spec")
        );
    }
}
