//! The DXR longest-prefix-match table behind RadixIPLookup and
//! RangeIPLookup (not an element), after Zec, Rizzo and Mikuc, "DXR:
//! towards a billion routing lookups per second in software" (CCR 2012),
//! the structure Click's RangeIPLookup also uses.
//!
//! The address space is cut into 2^16 chunks, one per /16. A direct table
//! of 2^16 32-bit entries (256 KB) says, for each chunk, either "the whole
//! chunk has next hop N", or the chunk's ranges themselves (the inline
//! forms below), or where the chunk's range array starts. A range array
//! lists, in address order, the first address (low 16 bits) of each run of
//! addresses that share a next hop, with that next hop, packed in one
//! 32-bit word (`start << 16 | next hop`), after a header word holding the
//! count. Chunks whose ranges all start on /24 boundaries and whose next
//! hops are below 256 (the usual case) use the short form instead: 16-bit
//! `start | next hop` words, with the count in the direct entry.
//!
//! Most chunks need no array at all: the direct entry holds their ranges
//! when they start on /24 boundaries and have small next-hop indices (a
//! table's next hops are numbered from 1 in order of first use, so a
//! router with a few outputs has a few): either up to three ranges
//! (starts and next hops below 16), which covers a whole chunk of one next
//! hop and a chunk holding one prefix of length /17../24, or a background
//! next hop with up to two "islands", aligned power-of-two runs of /24s
//! with their own next hops (below 8), which covers a chunk holding one or
//! two such prefixes on a covering route. A lookup branches on the form:
//! decoding both and picking one with a conditional move cost 1,000-route
//! tables (nearly all three-range entries) 4 ns a packet and gained
//! nothing measurable with 100,000 routes.
//! With `d_radix_100k_nots`'s 100,000 routes, 87 % of the chunks are
//! inline, so 87 % of random lookups read one 32-bit word.
//!
//! For the other chunks a lookup binary-searches the chunk's ranges (with
//! conditional moves, not branches; 32 short words a cache line, so a
//! small chunk costs one line). With 100,000 random routes the lookup
//! structures take 0.42 MB (0.66 MB before the inline forms), small
//! enough to stay in the 512 KB second-level cache of the machine this was
//! measured on, where DIR-24-8's 32 MB first level misses the TLB and the
//! caches on nearly every random lookup. Simulated (callgrind) with a
//! 512 KB last-level cache, `d_radix_100k_nots` misses the first-level
//! cache 1.05 times a packet in the lookup and the 512 KB cache almost
//! never (1.59 and 0.22 times before the inline forms).
//!
//! Updates rebuild only the chunks a prefix touches: a prefix of length
//! /17../32 lies in one chunk; a shorter one (/1../16) covers 2^(16-len)
//! chunks, and changes only those where it is the longest covering prefix
//! of length at most 16 (each chunk remembers that "background" route's
//! next hop and length, as DIR-24-8 remembers the length behind each
//! entry). Rebuilding a chunk walks its routes longer than /16, kept
//! sorted in a B-tree, once. A chunk's new range array is written in place
//! when it fits its old block, else appended; the range store is compacted
//! when more than half of it is garbage. Between [`RouteEngine::batch`]
//! calls (configuration, `ctrl`) chunks are only marked and are rebuilt
//! once at the end. The default route lives outside the tables (next hop
//! 0 means "use the default"), so changing it rebuilds nothing.
//!
//! Next hops (gateway, output) are shared: a table with 100,000 routes to
//! four outputs has four next hops. Up to 65,535 distinct next hops.

use super::iproute::{AddError, Route, RouteEngine};
use super::route_store::{self, PrefixTable, RouteStore};

/// Direct-table flag: the low 16 bits are the whole chunk's next hop
/// (with SHORT clear; both set: INLINE).
const DIRECT: u32 = 0x8000_0000;
/// Direct-table form (DIRECT and SHORT set): up to three ranges starting on
/// /24 boundaries with next hops below 16, held in the entry itself:
/// bits 20..28 the second range's start (bits 8..16 of the address), bits
/// 12..20 the third's, then the three next hops, 4 bits each (bits 8..12,
/// 4..8, 0..4). Fewer ranges repeat the last start and next hop; a chunk
/// with one next hop below 16 has both starts 0. No second memory access.
const INLINE: u32 = 0xc000_0000;
const INLINE_NH_LIMIT: u16 = 16;
/// With INLINE: the entry is in the islands form instead: a background
/// next hop (bits 0..3) and up to two "islands", aligned power-of-two
/// runs of /24s inside the chunk, each with its own next hop (bits 3..6
/// and 6..9; next hops below 8), as a chunk holding one or two prefixes of
/// length /17../24 on a covering route looks. An island of 2^k /24s
/// starting at /24 number `a` is held as the 9-bit number
/// `1 << (8 - k) | a >> k` (bits 18..27 and 9..18): its leading one gives
/// k, and the address's /24 number `key` lies in it exactly when
/// `(key | 0x100) >> k` equals it.
const ISLANDS: u32 = 0x2000_0000;
const ISLANDS_NH_LIMIT: u16 = 8;
/// Direct-table flag (with DIRECT clear): the chunk's ranges are in the
/// short store; bits 21..30 hold their count - 1, bits 0..21 the offset.
const SHORT: u32 = 0x4000_0000;
const SHORT_COUNT_SHIFT: u32 = 21;
const SHORT_OFF_MASK: u32 = (1 << SHORT_COUNT_SHIFT) - 1;
const CHUNKS: usize = 1 << 16;
const MAX_NEXTHOPS: usize = 0xffff;

/// A DXR route table. See the module documentation.
pub struct Dxr {
    /// Per chunk: `DIRECT | next hop`, or the offset of its range array
    /// in `ranges`. Empty until the first non-default route.
    direct: Vec<u32>,
    /// Long range arrays: a count word, then `start << 16 | next hop`
    /// words.
    ranges: Vec<u32>,
    /// Short range arrays, for chunks whose ranges all start on a /24
    /// boundary and whose next hops are below 256: `start | next hop`
    /// halfwords (the start's low 8 bits are 0), the count in the direct
    /// entry.
    short: Vec<u16>,
    /// Per chunk: the entries its block in its store occupies (0: none).
    block: Vec<u32>,
    /// Entries of `ranges` and of `short` no chunk uses any more.
    garbage: usize,
    garbage_short: usize,
    /// Per chunk: the next hop of the longest route of length 1..=16
    /// covering it, and that length + 1 (0: none).
    bg_nh: Vec<u16>,
    bg_len: Vec<u8>,
    /// Chunks to rebuild, and a bitmap of them.
    dirty: Vec<u16>,
    dirty_map: Vec<u64>,
    /// Inside a batch: rebuilds wait for its end.
    in_batch: bool,
    store: RouteStore,
    /// Scratch for rebuilds: the ranges being built, the open routes.
    scratch: Vec<(u32, u16)>,
    stack: Vec<(u32, u16)>,
}

impl Default for Dxr {
    fn default() -> Self {
        Dxr {
            direct: Vec::new(),
            ranges: Vec::new(),
            short: Vec::new(),
            block: Vec::new(),
            garbage: 0,
            garbage_short: 0,
            bg_nh: Vec::new(),
            bg_len: Vec::new(),
            dirty: Vec::new(),
            dirty_map: Vec::new(),
            in_batch: false,
            store: RouteStore::new(MAX_NEXTHOPS),
            scratch: Vec::new(),
            stack: Vec::new(),
        }
    }
}

/// Appends range `(start, nh)` to `out`, merging with its neighbours: a
/// range starting where the last one starts replaces it, and one with the
/// last one's next hop extends it. Starts past the chunk are dropped.
fn emit(out: &mut Vec<(u32, u16)>, start: u32, nh: u16) {
    if start >= CHUNKS as u32 {
        return;
    }
    if out.last().is_some_and(|l| l.0 == start) {
        out.pop();
    }
    if out.last().is_some_and(|l| l.1 == nh) {
        return;
    }
    out.push((start, nh));
}

/// The INLINE direct entry for ranges `out` (sorted, the first starting
/// at 0; none: next hop 0), if they fit one.
fn inline_entry(out: &[(u32, u16)]) -> Option<u32> {
    if out.len() > 3
        || out
            .iter()
            .any(|&(start, nh)| start & 0xff != 0 || nh >= INLINE_NH_LIMIT)
    {
        return None;
    }
    let (_, n0) = out.first().copied().unwrap_or((0, 0));
    let (s1, n1) = out.get(1).copied().unwrap_or((0, n0));
    let (s2, n2) = out.get(2).copied().unwrap_or((s1, n1));
    Some(
        INLINE
            | (s1 >> 8) << 20
            | (s2 >> 8) << 12
            | u32::from(n0) << 8
            | u32::from(n1) << 4
            | u32::from(n2),
    )
}

/// The islands-form INLINE entry for ranges `out` (sorted, the first
/// starting at 0), if they fit one.
fn islands_entry(out: &[(u32, u16)]) -> Option<u32> {
    if out
        .iter()
        .any(|&(start, nh)| start & 0xff != 0 || nh >= ISLANDS_NH_LIMIT)
    {
        return None;
    }
    // (first /24, end /24, next hop) of each range.
    let runs = || {
        out.iter().enumerate().map(|(i, &(start, nh))| {
            let end = out.get(i + 1).map_or(CHUNKS as u32, |r| r.0);
            (start >> 8, end >> 8, nh)
        })
    };
    'background: for &(_, bg) in out {
        let mut islands = [(0u32, bg); 2];
        let mut found = 0;
        for (a, end, nh) in runs() {
            if nh == bg {
                continue;
            }
            let len = end - a;
            if found == 2 || !len.is_power_of_two() || a % len != 0 || len > 128 {
                continue 'background;
            }
            let k = len.trailing_zeros();
            islands[found] = (1 << (8 - k) | a >> k, nh);
            found += 1;
        }
        if found == 0 {
            return None;
        }
        if found == 1 {
            islands[1] = islands[0];
        }
        let [(p1, n1), (p2, n2)] = islands;
        return Some(
            INLINE
                | ISLANDS
                | p1 << 18
                | p2 << 9
                | u32::from(n2) << 6
                | u32::from(n1) << 3
                | u32::from(bg),
        );
    }
    None
}

/// The next hop of INLINE entry `e` (either form) for address `addr`.
#[inline]
fn inline_nh(e: u32, addr: u32) -> u16 {
    let key = (addr >> 8) & 0xff;
    if e & ISLANDS != 0 {
        // Islands: the first island's next hop at bit 3, the second's at
        // 6, the background's at 0. Both islands are nonzero (at least
        // 0x100 >> 7 = 2).
        let key = key | 0x100;
        let p1 = (e >> 18) & 0x1ff;
        let p2 = (e >> 9) & 0x1ff;
        let in1 = key >> (p1.leading_zeros().wrapping_sub(23) & 7) == p1;
        let in2 = key >> (p2.leading_zeros().wrapping_sub(23) & 7) == p2;
        let shift = if in1 {
            3
        } else if in2 {
            6
        } else {
            0
        };
        return ((e >> shift) & 7) as u16;
    }
    // Three ranges: n0 at bit 8, n1 at 4, n2 at 0; a start of 0 means
    // "from the chunk's start", so a one-range entry always answers n2
    // (= n0).
    let s1 = (e >> 20) & 0xff;
    let s2 = (e >> 12) & 0xff;
    let shift = 8 - 4 * u32::from(key >= s1) - 4 * u32::from(key >= s2);
    ((e >> shift) & 0xf) as u16
}

impl Dxr {
    fn ensure_tables(&mut self) {
        if self.direct.is_empty() {
            self.direct = vec![INLINE; CHUNKS];
            self.block = vec![0; CHUNKS];
            self.bg_nh = vec![0; CHUNKS];
            self.bg_len = vec![0; CHUNKS];
            self.dirty_map = vec![0; CHUNKS / 64];
        }
    }

    fn mark(&mut self, c: usize) {
        let (w, b) = (c / 64, 1u64 << (c % 64));
        if self.dirty_map[w] & b == 0 {
            self.dirty_map[w] |= b;
            self.dirty.push(c as u16);
        }
    }

    /// Sets the background of each chunk of `addr/len` (len 1..=16) whose
    /// background length satisfies `pred` to `(v, l)`, marking it.
    fn paint_bg(&mut self, addr: u32, len: u32, v: u16, l: u8, pred: impl Fn(u8) -> bool) {
        let start = (addr >> 16) as usize;
        for c in start..start + (1usize << (16 - len)) {
            if pred(self.bg_len[c]) {
                self.bg_nh[c] = v;
                self.bg_len[c] = l;
                self.mark(c);
            }
        }
    }

    /// Rebuilds the marked chunks, unless inside a batch.
    fn flush(&mut self) {
        if self.in_batch {
            return;
        }
        let dirty = std::mem::take(&mut self.dirty);
        for &c in &dirty {
            self.dirty_map[c as usize / 64] = 0;
            self.rebuild(c as usize);
        }
        self.dirty = dirty;
        self.dirty.clear();
        if (self.garbage > 4096 && self.garbage * 2 > self.ranges.len())
            || (self.garbage_short > 8192 && self.garbage_short * 2 > self.short.len())
        {
            self.compact();
        }
    }

    /// Recomputes chunk `c`'s ranges from its background and its routes
    /// longer than /16, and installs them.
    fn rebuild(&mut self, c: usize) {
        let mut out = std::mem::take(&mut self.scratch);
        let mut stack = std::mem::take(&mut self.stack);
        out.clear();
        stack.clear();
        let bg = self.bg_nh[c];
        let lo = (c as u32) << 16;
        // Routes come sorted by address, then length: each starts inside
        // the routes still open on the stack, or after them.
        stack.push((CHUNKS as u32, bg));
        emit(&mut out, 0, bg);
        for ((addr, len), nh) in self.store.prefixes_in((lo, 17), (lo | 0xffff, 32)) {
            let s = addr & 0xffff;
            while let Some(&(end, _)) = stack.last().filter(|t| t.0 <= s) {
                stack.pop();
                emit(&mut out, end, stack.last().map_or(bg, |t| t.1));
            }
            emit(&mut out, s, nh);
            stack.push((s + (1u32 << (32 - u32::from(len))), nh));
        }
        while stack.len() > 1 {
            let (end, _) = stack.pop().unwrap_or((CHUNKS as u32, bg));
            emit(&mut out, end, stack.last().map_or(bg, |t| t.1));
        }
        self.install(c, &out);
        self.scratch = out;
        self.stack = stack;
    }

    /// Gives up chunk `c`'s block in its store.
    fn free_block(&mut self, c: usize) {
        if self.block[c] != 0 {
            if self.direct[c] & SHORT != 0 {
                self.garbage_short += self.block[c] as usize;
            } else {
                self.garbage += self.block[c] as usize;
            }
            self.block[c] = 0;
        }
    }

    /// Makes `out` chunk `c`'s ranges: a direct entry for one range, else
    /// a short array when every range allows, else a long one. A block is
    /// reused in place when it is of the same form and large enough.
    fn install(&mut self, c: usize, out: &[(u32, u16)]) {
        let n = out.len();
        if let Some(e) = inline_entry(out).or_else(|| islands_entry(out)) {
            self.free_block(c);
            self.direct[c] = e;
            return;
        }
        if n <= 1 {
            self.free_block(c);
            self.direct[c] = DIRECT | u32::from(out.first().map_or(0, |r| r.1));
            return;
        }
        let has_block = self.block[c] != 0;
        let is_short = self.direct[c] & SHORT != 0;
        if out.iter().all(|&(start, nh)| start & 0xff == 0 && nh < 256) {
            let off = if has_block && is_short && self.block[c] as usize >= n {
                Some((self.direct[c] & SHORT_OFF_MASK) as usize)
            } else if self.short.len() + n <= SHORT_OFF_MASK as usize + 1 {
                self.free_block(c);
                let off = self.short.len();
                self.short.resize(off + n, 0);
                self.block[c] = n as u32;
                Some(off)
            } else {
                None
            };
            if let Some(off) = off {
                for (w, &(start, nh)) in self.short[off..off + n].iter_mut().zip(out) {
                    *w = (start | u32::from(nh)) as u16;
                }
                self.direct[c] = SHORT | ((n as u32 - 1) << SHORT_COUNT_SHIFT) | off as u32;
                return;
            }
        }
        let need = n + 1;
        let off = if has_block && !is_short && self.block[c] as usize >= need {
            self.direct[c] as usize
        } else {
            self.free_block(c);
            let off = self.ranges.len();
            self.ranges.resize(off + need, 0);
            self.block[c] = need as u32;
            off
        };
        self.ranges[off] = n as u32;
        for (w, &(start, nh)) in self.ranges[off + 1..off + need].iter_mut().zip(out) {
            *w = start << 16 | u32::from(nh);
        }
        self.direct[c] = off as u32;
    }

    /// Copies every live range array into fresh stores, in chunk order.
    fn compact(&mut self) {
        let mut long = Vec::with_capacity(self.ranges.len() - self.garbage);
        let mut short = Vec::with_capacity(self.short.len() - self.garbage_short);
        for c in 0..CHUNKS {
            if self.block[c] == 0 {
                continue;
            }
            let e = self.direct[c];
            if e & SHORT != 0 {
                let off = (e & SHORT_OFF_MASK) as usize;
                let n = (e >> SHORT_COUNT_SHIFT & 0x1ff) as usize + 1;
                self.direct[c] = e & !SHORT_OFF_MASK | short.len() as u32;
                self.block[c] = n as u32;
                short.extend_from_slice(&self.short[off..off + n]);
            } else {
                let off = e as usize;
                let n = self.ranges[off] as usize + 1;
                self.direct[c] = long.len() as u32;
                self.block[c] = n as u32;
                long.extend_from_slice(&self.ranges[off..off + n]);
            }
        }
        self.ranges = long;
        self.short = short;
        self.garbage = 0;
        self.garbage_short = 0;
    }

    /// Bytes the packet path reads from (direct table, range arrays, next
    /// hops).
    pub fn lookup_table_bytes(&self) -> usize {
        (self.direct.len() + self.ranges.len()) * 4
            + self.short.len() * 2
            + self.store.nexthop_bytes()
    }

    /// Approximate bytes used in all, update bookkeeping included (the
    /// B-tree counted at its typical two-thirds fill).
    pub fn memory_bytes(&self) -> usize {
        self.lookup_table_bytes()
            + self.block.len() * 4
            + self.bg_nh.len() * 3
            + self.dirty_map.len() * 8
            + self.store.bytes()
            - self.store.nexthop_bytes()
            + self.store.index_bytes()
    }

    /// Looks up `addr` (host order): the next hop's (gateway, output).
    #[inline]
    pub fn lookup_nh(&self, addr: u32) -> Option<(u32, i32)> {
        let mut nh = 0;
        if let Some(&e) = self.direct.get((addr >> 16) as usize) {
            nh = if e >= INLINE {
                inline_nh(e, addr)
            } else if e & DIRECT != 0 {
                e as u16
            } else if e & SHORT != 0 {
                self.search_short(e, addr)
            } else {
                self.search(e as usize, addr & 0xffff)
            };
        }
        if nh == 0 {
            nh = self.store.default_nh;
        }
        if nh == 0 {
            return None;
        }
        self.store.nexthop(nh)
    }

    /// Binary search of the short range array of direct entry `e` for the
    /// last range starting at or before `addr`: its next hop.
    #[inline]
    fn search_short(&self, e: u32, addr: u32) -> u16 {
        let off = (e & SHORT_OFF_MASK) as usize;
        let n = (e >> SHORT_COUNT_SHIFT & 0x1ff) as usize + 1;
        let Some(r) = self.short.get(off..off + n) else {
            return 0;
        };
        let key = (addr & 0xff00) as u16 | 0xff;
        let base = r.partition_point(|&w| w <= key).wrapping_sub(1);
        r.get(base).map_or(0, |&w| w & 0xff)
    }

    /// Binary search of the long range array at `off` for the last range
    /// starting at or before `low`: its next hop.
    #[inline]
    fn search(&self, off: usize, low: u32) -> u16 {
        let n = self.ranges.get(off).map_or(0, |&n| n as usize);
        let Some(r) = self.ranges.get(off + 1..off + 1 + n) else {
            return 0;
        };
        // A range word is `start << 16 | nh`: it starts at or before `low`
        // exactly when it is at most `low << 16 | 0xffff`.
        let key = low << 16 | 0xffff;
        // The standard library's search compiles to conditional moves, not
        // branches: the outcome is random, so a branch would mispredict
        // half the time. The first range starts at 0, so `base` is at
        // least 1.
        let base = r.partition_point(|&w| w <= key).wrapping_sub(1);
        r.get(base).map_or(0, |&w| w as u16)
    }
}

impl PrefixTable for Dxr {
    fn store(&self) -> &RouteStore {
        &self.store
    }

    fn store_mut(&mut self) -> &mut RouteStore {
        &mut self.store
    }

    fn prepare(&mut self, _addr: u32, _len: u32) -> Result<(), String> {
        self.ensure_tables();
        Ok(())
    }

    /// A prefix of /16 or shorter is the background of the chunks it
    /// covers where no longer one is; a longer one marks its chunk.
    fn paint(&mut self, addr: u32, len: u32, nh: u16, l: u8) {
        if len <= 16 {
            self.paint_bg(addr, len, nh, l, |cur| cur <= l);
        } else {
            self.mark((addr >> 16) as usize);
        }
        self.flush();
    }

    fn unpaint(&mut self, addr: u32, len: u32, l: u8) {
        if len <= 16 {
            let (pv, pl) = self.store.parent(addr, len);
            self.paint_bg(addr, len, pv, pl, |cur| cur == l);
        } else {
            self.mark((addr >> 16) as usize);
        }
        self.flush();
    }
}

impl RouteEngine for Dxr {
    fn needs_prefix_masks(&self) -> bool {
        true
    }

    fn batch(&mut self, on: bool) {
        self.in_batch = on;
        if !on {
            self.flush();
        }
    }

    fn memory(&self) -> Option<(usize, usize)> {
        Some((self.lookup_table_bytes(), self.memory_bytes()))
    }

    fn add(&mut self, r: &Route, set: bool) -> Result<Option<Route>, AddError> {
        route_store::add(self, r, set)
    }

    fn remove(&mut self, r: &Route) -> Result<Route, Option<Route>> {
        route_store::remove(self, r)
    }

    #[inline]
    fn lookup(&self, addr: u32) -> Option<(u32, i32)> {
        self.lookup_nh(addr)
    }

    fn routes(&self) -> Vec<Route> {
        self.store.routes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::route_store::mask_of;
    use super::super::route_store::testing::{
        ip, nested_prefixes_add_remove, reference, route, xorshift,
    };
    use super::*;

    #[test]
    fn nested_prefixes() {
        let mut t = nested_prefixes_add_remove::<Dxr>();
        // The last address of a chunk.
        t.add(&route("10.1.255.255/32", 0, 5), false).unwrap();
        assert_eq!(t.lookup(ip("10.1.255.255")), Some((0, 5)));
        assert_eq!(t.lookup(ip("10.1.255.254")), Some((0, 5)));
        t.remove(&route("10.0.0.0/8", 0, 5)).unwrap();
        assert_eq!(t.lookup(ip("10.1.255.254")), Some((0, 9)));
        assert_eq!(t.lookup(ip("10.1.255.255")), Some((0, 5)));
    }

    #[test]
    fn whole_chunk_routes_and_edges() {
        let mut t = Dxr::default();
        t.add(&route("255.255.255.255/32", 0, 1), false).unwrap();
        t.add(&route("0.0.0.0/32", 0, 2), false).unwrap();
        t.add(&route("128.0.0.0/1", 0, 3), false).unwrap();
        assert_eq!(t.lookup(u32::MAX), Some((0, 1)));
        assert_eq!(t.lookup(u32::MAX - 1), Some((0, 3)));
        assert_eq!(t.lookup(0), Some((0, 2)));
        assert_eq!(t.lookup(1), None);
        assert_eq!(t.lookup(0x8000_0000), Some((0, 3)));
        // Chunks without longer routes take no range array.
        assert_eq!(t.direct[0x9000], INLINE | 3 << 8 | 3 << 4 | 3);
        // /24 boundaries: short form (three islands are too many for the
        // islands form); a /25 forces the long form, and removing it
        // brings the short form back.
        t.add(&route("144.0.1.0/24", 0, 4), false).unwrap();
        t.add(&route("144.0.3.0/24", 0, 5), false).unwrap();
        assert!(t.direct[0x9000] >= INLINE | ISLANDS);
        t.add(&route("144.0.9.0/24", 0, 7), false).unwrap();
        assert_eq!(t.direct[0x9000] & (DIRECT | SHORT), SHORT);
        t.add(&route("144.0.3.128/25", 0, 6), false).unwrap();
        assert_eq!(t.direct[0x9000] & (DIRECT | SHORT), 0);
        assert_eq!(t.lookup(ip("144.0.3.127")), Some((0, 5)));
        assert_eq!(t.lookup(ip("144.0.3.128")), Some((0, 6)));
        t.remove(&route("144.0.3.128/25", 0, 6)).unwrap();
        assert_eq!(t.direct[0x9000] & (DIRECT | SHORT), SHORT);
        for (a, port) in [("144.0.0.255", 3), ("144.0.1.0", 4), ("144.0.2.9", 3)] {
            assert_eq!(t.lookup(ip(a)), Some((0, port)), "{a}");
        }
        assert_eq!(t.lookup(ip("144.0.3.255")), Some((0, 5)));
        assert_eq!(t.lookup(ip("144.0.4.0")), Some((0, 3)));
    }

    fn live_with(live: &[Route], r: Route) -> Vec<Route> {
        let mut v = live.to_vec();
        v.push(r);
        v
    }

    #[test]
    fn inline_form() {
        let mut t = Dxr::default();
        let form = |t: &Dxr, c: usize| match t.direct[c] {
            e if e >= INLINE | ISLANDS => "islands",
            e if e >= INLINE => "inline",
            e if e & DIRECT != 0 => "direct",
            e if e & SHORT != 0 => "short",
            _ => "long",
        };
        // Untouched chunks: inline, no route.
        t.add(&route("10.0.0.0/8", 0, 1), false).unwrap();
        assert_eq!(form(&t, 0), "inline");
        assert_eq!(form(&t, 0x0a00), "inline");
        // One /24 inside a chunk: three ranges, inline.
        t.add(&route("10.1.7.0/24", 0, 2), false).unwrap();
        assert_eq!(form(&t, 0x0a01), "inline");
        // Two ranges: at the chunk's start, and reaching its end.
        t.add(&route("10.2.0.0/17", 0, 3), false).unwrap();
        t.add(&route("10.3.255.0/24", 0, 3), false).unwrap();
        assert_eq!(form(&t, 0x0a02), "inline");
        assert_eq!(form(&t, 0x0a03), "inline");
        // A second /24 makes five ranges: two islands on a background.
        t.add(&route("10.1.9.0/24", 0, 3), false).unwrap();
        assert_eq!(form(&t, 0x0a01), "islands");
        let check = |t: &Dxr, live: &[Route]| {
            for c in [
                0u32, 0x0a00, 0x0a01, 0x0a02, 0x0a03, 0x0a04, 0x0a06, 0x0a07, 0x0a08, 0xffff,
            ] {
                for low in (0..0x10000u32).step_by(0x80).chain([0xff, 0x100, 0xffff]) {
                    let a = c << 16 | low;
                    assert_eq!(t.lookup(a), reference(live, a), "{a:#x}");
                }
            }
        };
        let mut live = vec![
            route("10.0.0.0/8", 0, 1),
            route("10.1.7.0/24", 0, 2),
            route("10.2.0.0/17", 0, 3),
            route("10.3.255.0/24", 0, 3),
            route("10.1.9.0/24", 0, 3),
        ];
        check(&t, &live);
        t.remove(&live.pop().unwrap()).unwrap();
        assert_eq!(form(&t, 0x0a01), "inline");
        check(&t, &live);
        // Islands at the chunk's edges: a /17 at its start and a /24; a
        // /24 and a /23 at its end; then a /22 holding a /24 of another
        // next hop (not an island: short), and a third island (short).
        let more = [
            route("10.6.0.0/17", 0, 2),
            route("10.6.200.0/24", 0, 0),
            route("10.8.7.0/24", 0, 2),
            route("10.8.254.0/23", 0, 3),
            route("10.7.4.0/22", 0, 2),
            route("10.7.8.0/21", 0, 3),
        ];
        for r in &more {
            t.add(r, false).unwrap();
            live.push(*r);
        }
        assert_eq!(form(&t, 0x0a06), "islands");
        assert_eq!(form(&t, 0x0a07), "islands");
        assert_eq!(form(&t, 0x0a08), "islands");
        check(&t, &live);
        for (r, form7) in [
            (route("10.7.5.0/24", 0, 3), "short"),
            (route("10.7.200.0/24", 0, 3), "short"),
        ] {
            t.add(&r, false).unwrap();
            assert_eq!(form(&t, 0x0a07), form7);
            check(&t, &live_with(&live, r));
            t.remove(&r).unwrap();
            assert_eq!(form(&t, 0x0a07), "islands");
        }
        // A /32 (not on a /24 boundary): long form.
        live.push(route("10.1.7.9/32", 0, 4));
        t.add(&live[live.len() - 1], false).unwrap();
        assert_eq!(form(&t, 0x0a01), "long");
        check(&t, &live);
        // Next hops of 16 and more do not fit: direct, short.
        for port in 5..=20 {
            let r = route(&format!("10.4.{port}.0/24"), 0, port);
            t.add(&r, false).unwrap();
            live.push(r);
        }
        live.push(route("10.5.0.0/16", 0, 20));
        t.add(&live[live.len() - 1], false).unwrap();
        assert_eq!(form(&t, 0x0a05), "direct");
        assert_eq!(form(&t, 0x0a04), "short");
        check(&t, &live);
        // The default route and /0../32 edges.
        live.push(route("0.0.0.0/0", 0, 7));
        t.add(&live[live.len() - 1], false).unwrap();
        live.push(route("255.255.255.255/32", 0, 2));
        t.add(&live[live.len() - 1], false).unwrap();
        check(&t, &live);
        // Everything removed: every chunk inline with no route.
        for r in live.drain(..) {
            t.remove(&r).unwrap();
        }
        check(&t, &live);
        assert!(t.direct.iter().all(|&e| e == INLINE));
        assert!(t.ranges.len() == t.garbage && t.short.len() == t.garbage_short);
    }

    /// Random /17../32 prefixes in a few chunks on covering routes, few
    /// next hops: every form arises; each chunk's every /26 and range
    /// edge checked against the reference after each update, removals
    /// back to empty included.
    #[test]
    fn random_chunks_every_form() {
        let mut rnd = xorshift(0x0005_eed0_f151_0dd5);
        let mut t = Dxr::default();
        let mut live: Vec<Route> = vec![route("20.0.0.0/8", 0, 1), route("20.3.0.0/16", 0, 2)];
        for r in &live {
            t.add(r, false).unwrap();
        }
        let mut seen = std::collections::BTreeSet::new();
        for step in 0..3000u32 {
            let x = rnd();
            if step % 5 >= 3 && !live.is_empty() || live.len() > 40 {
                let r = live.swap_remove((x as usize >> 8) % live.len());
                t.remove(&r).unwrap();
            } else {
                let len = match x % 10 {
                    0..=5 => 24,
                    6..=8 => 17 + (x >> 4) as u32 % 7,
                    _ => 25 + (x >> 4) as u32 % 8,
                };
                let a = 0x1400_0000 | ((x >> 16) as u32 & 0x3_ffff);
                let r = Route {
                    addr: a & mask_of(len),
                    mask: mask_of(len),
                    gw: 0,
                    port: (x >> 40) as i32 % if step < 1500 { 4 } else { 12 },
                };
                if t.add(&r, false).is_ok() {
                    live.push(r);
                }
            }
            for c in 0x1400..0x1404u32 {
                seen.insert(match t.direct[c as usize] {
                    e if e >= INLINE | ISLANDS => 3,
                    e if e >= INLINE => 2,
                    e if e & DIRECT != 0 => 1,
                    e if e & SHORT != 0 => 4,
                    _ => 5,
                });
                let edges = live
                    .iter()
                    .flat_map(|r| [r.addr, r.addr | !r.mask, (r.addr | !r.mask).wrapping_add(1)]);
                for a in (0..0x10000u32)
                    .step_by(0x40)
                    .map(|l| c << 16 | l)
                    .chain(edges)
                {
                    assert_eq!(t.lookup(a), reference(&live, a), "{a:#x} step {step}");
                }
            }
        }
        // Every form but the plain direct entry (next hops of 16 and more
        // in a whole chunk).
        assert_eq!(seen.into_iter().collect::<Vec<_>>(), [2, 3, 4, 5]);
        for r in live.drain(..) {
            t.remove(&r).unwrap();
        }
        assert!(t.direct[0x1400..0x1404].iter().all(|&e| e == INLINE));
        assert_eq!(t.lookup(0x1403_0201), None);
    }

    /// Thousands of random prefixes of every length 0..=32, nested and
    /// overlapping, added, replaced and removed interleaved (some inside
    /// batches), checked against a linear scan at random and edge
    /// addresses after every burst of updates.
    #[test]
    fn random_against_reference() {
        let mut rnd = xorshift(0x0dd5_eed5_1234_5678);
        let mut t = Dxr::default();
        let mut live: Vec<Route> = Vec::new();
        let mut checked = 0;
        for step in 0..12_000u32 {
            let x = rnd();
            if step % 500 == 0 {
                t.batch(step % 1000 == 0);
            }
            if step % 3 == 2 && !live.is_empty() {
                let i = (x as usize >> 8) % live.len();
                let r = live.swap_remove(i);
                assert_eq!(t.remove(&r).unwrap(), r);
            } else {
                let len = (x % 33) as u32;
                // Half the prefixes fall in one /12 so they nest and
                // share chunks; the rest anywhere.
                let a = (x >> 33) as u32;
                let a = if x & 0x100 != 0 {
                    0x0a00_0000 | (a & 0x000f_ffff)
                } else {
                    a
                };
                let r = Route {
                    addr: a & mask_of(len),
                    mask: mask_of(len),
                    gw: (x >> 20) as u32 & 3,
                    port: ((x >> 24) % 5) as i32,
                };
                let set = x & 0x200 != 0;
                match live
                    .iter()
                    .position(|o| o.addr == r.addr && o.mask == r.mask)
                {
                    Some(i) if set => {
                        assert_eq!(t.add(&r, true).unwrap(), Some(live[i]));
                        live[i] = r;
                    }
                    Some(_) => assert!(matches!(t.add(&r, false), Err(AddError::Exists(_)))),
                    None => {
                        assert_eq!(t.add(&r, set).unwrap(), None);
                        live.push(r);
                    }
                }
            }
            if step % 50 == 49 && !t.in_batch {
                let mut addrs: Vec<u32> = vec![0, u32::MAX, 0x0a00_0000, 0x0a0f_ffff];
                for r in live.iter().rev().take(20) {
                    let end = r.addr | !r.mask;
                    addrs.extend([r.addr, end, r.addr.wrapping_sub(1), end.wrapping_add(1)]);
                }
                for _ in 0..200 {
                    let y = rnd();
                    addrs.push(y as u32);
                    addrs.push(0x0a00_0000 | ((y >> 32) as u32 & 0x000f_ffff));
                }
                for a in addrs {
                    assert_eq!(t.lookup(a), reference(&live, a), "addr {a:#x} step {step}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 50_000, "{checked}");
        let mut routes = t.routes();
        routes.sort_by_key(|r| (r.addr, r.mask));
        live.sort_by_key(|r| (r.addr, r.mask));
        assert_eq!(routes, live);
        // Every next hop reference is accounted for.
        assert_eq!(t.store.nexthop_refs(), live.len());
    }

    #[test]
    fn compaction_keeps_lookups() {
        let mut t = Dxr::default();
        let mut live = Vec::new();
        // Grow one chunk's ranges route by route: each growth moves its
        // block, leaving garbage until the store is compacted.
        for i in 0..3000u32 {
            let r = Route {
                addr: 0x0a0b_0000 | (i << 4),
                mask: mask_of(28),
                gw: 0,
                port: (i % 3) as i32,
            };
            t.add(&r, false).unwrap();
            live.push(r);
        }
        assert!(t.ranges.len() < 3 * 4 * 3000, "{}", t.ranges.len());
        // The same in the short form, /24 by /24 across 64 chunks.
        for i in 0..64 * 256u32 {
            let r = Route {
                addr: 0x1400_0000 | (i << 8),
                mask: mask_of(24),
                gw: 0,
                port: (i % 3) as i32,
            };
            t.add(&r, false).unwrap();
            live.push(r);
        }
        assert!(t.garbage_short < t.short.len(), "{}", t.garbage_short);
        for i in 0..0x10000u32 {
            let a = 0x0a0b_0000 | i;
            assert_eq!(t.lookup(a), reference(&live, a));
            let a = 0x1400_0000 | i << 6;
            assert_eq!(t.lookup(a), reference(&live, a));
        }
    }
}
