//! The DIR-24-8 longest-prefix-match table behind DirectIPLookup (not an
//! element).
//!
//! Lookups read one 16-bit entry of a 2^24-entry first-level table indexed
//! by the top 24 address bits; an entry is either a next-hop index or, for
//! /24s holding longer prefixes, the number of a 256-entry second-level
//! group indexed by the low 8 bits. So a lookup costs one or two memory
//! reads and no branches on prefix lengths.
//!
//! Updates are incremental: each table entry remembers the length of the
//! prefix that set it, so adding a prefix overwrites only entries set by
//! shorter (or, when replacing, equal) prefixes, and removing one restores
//! its parent's next hop on exactly the entries it had set. The default
//! route never touches the tables (a 0 entry means "use the default"), and
//! the first-level table is allocated zeroed on the first non-default route,
//! so its untouched pages cost nothing.
//!
//! Next hops (gateway, output) are shared: a table with 100,000 routes to
//! four outputs has four next hops. Up to 32,767 distinct next hops and
//! 32,768 /24s holding prefixes longer than /24 are supported.

use super::iproute::{AddError, Route, RouteEngine};
use super::route_store::{self, PrefixTable, RouteStore};

const GROUP_FLAG: u16 = 0x8000;
const MAX_NEXTHOPS: usize = 0x7fff;
const MAX_GROUPS: usize = 0x8000;

/// A DIR-24-8 route table. See the module documentation.
pub struct Dir248 {
    tbl24: Vec<u16>,
    len24: Vec<u8>,
    tbl8: Vec<u16>,
    len8: Vec<u8>,
    free_groups: Vec<u16>,
    ngroups_used: usize,
    store: RouteStore,
}

impl Default for Dir248 {
    fn default() -> Self {
        Dir248 {
            tbl24: Vec::new(),
            len24: Vec::new(),
            tbl8: Vec::new(),
            len8: Vec::new(),
            free_groups: Vec::new(),
            ngroups_used: 0,
            store: RouteStore::new(MAX_NEXTHOPS),
        }
    }
}

impl Dir248 {
    fn ensure_tables(&mut self) {
        if self.tbl24.is_empty() {
            self.tbl24 = vec![0; 1 << 24];
            self.len24 = vec![0; 1 << 24];
        }
    }

    fn alloc_group(&mut self, fill: u16, fill_len: u8) -> Result<u16, String> {
        let g = if let Some(g) = self.free_groups.pop() {
            g
        } else {
            if self.ngroups_used >= MAX_GROUPS {
                return Err("too many prefixes longer than /24 in routing table".into());
            }
            self.ngroups_used += 1;
            self.tbl8.resize(self.ngroups_used * 256, 0);
            self.len8.resize(self.ngroups_used * 256, 0);
            (self.ngroups_used - 1) as u16
        };
        let base = g as usize * 256;
        self.tbl8[base..base + 256].fill(fill);
        self.len8[base..base + 256].fill(fill_len);
        Ok(g)
    }

    /// Writes `(v, l)` over every entry of prefix `addr/len` whose stored
    /// length satisfies `pred`.
    fn paint_where(&mut self, addr: u32, len: u32, v: u16, l: u8, pred: impl Fn(u8) -> bool) {
        if len <= 24 {
            let start = (addr >> 8) as usize;
            let n = 1usize << (24 - len);
            for i in start..start + n {
                let e = self.tbl24[i];
                if e & GROUP_FLAG != 0 {
                    let base = ((e & !GROUP_FLAG) as usize) << 8;
                    for j in base..base + 256 {
                        if pred(self.len8[j]) {
                            self.tbl8[j] = v;
                            self.len8[j] = l;
                        }
                    }
                } else if pred(self.len24[i]) {
                    self.tbl24[i] = v;
                    self.len24[i] = l;
                }
            }
        } else {
            let e = self.tbl24[(addr >> 8) as usize];
            debug_assert!(e & GROUP_FLAG != 0);
            let base = ((e & !GROUP_FLAG) as usize) << 8;
            let start = base + (addr & 0xff) as usize;
            let n = 1usize << (32 - len);
            for j in start..start + n {
                if pred(self.len8[j]) {
                    self.tbl8[j] = v;
                    self.len8[j] = l;
                }
            }
        }
    }

    /// Folds a second-level group back into its first-level entry when no
    /// prefix longer than /24 is left in it.
    fn maybe_collapse(&mut self, addr: u32) {
        let i = (addr >> 8) as usize;
        let e = self.tbl24[i];
        if e & GROUP_FLAG == 0 {
            return;
        }
        let g = e & !GROUP_FLAG;
        let base = (g as usize) << 8;
        if self.len8[base..base + 256].iter().all(|&l| l <= 25) {
            self.tbl24[i] = self.tbl8[base];
            self.len24[i] = self.len8[base];
            self.free_groups.push(g);
        }
    }

    /// Approximate bytes used by the lookup structures.
    pub fn memory_bytes(&self) -> usize {
        self.tbl24.len() * 3 + self.tbl8.len() * 3 + self.store.bytes() + self.store.index_bytes()
    }

    /// Bytes the packet path reads from (first- and second-level tables).
    pub fn lookup_table_bytes(&self) -> usize {
        self.tbl24.len() * 2 + self.tbl8.len() * 2
    }

    /// Looks up `addr` (host order): the next hop's (gateway, output).
    #[inline]
    pub fn lookup_nh(&self, addr: u32) -> Option<(u32, i32)> {
        let mut v = 0;
        if let Some(&e) = self.tbl24.get((addr >> 8) as usize) {
            v = e;
            if e & GROUP_FLAG != 0 {
                let j = (((e & !GROUP_FLAG) as usize) << 8) | (addr & 0xff) as usize;
                v = self.tbl8.get(j).copied().unwrap_or(0);
            }
        }
        if v == 0 {
            v = self.store.default_nh;
        }
        if v == 0 {
            return None;
        }
        self.store.nexthop(v)
    }
}

impl PrefixTable for Dir248 {
    fn store(&self) -> &RouteStore {
        &self.store
    }

    fn store_mut(&mut self) -> &mut RouteStore {
        &mut self.store
    }

    /// Allocates the first-level table, and a second-level group for a
    /// prefix longer than /24 whose /24 has none.
    fn prepare(&mut self, addr: u32, len: u32) -> Result<(), String> {
        self.ensure_tables();
        if len > 24 {
            let i = (addr >> 8) as usize;
            if self.tbl24[i] & GROUP_FLAG == 0 {
                let (fill, fill_len) = (self.tbl24[i], self.len24[i]);
                let g = self.alloc_group(fill, fill_len)?;
                self.tbl24[i] = GROUP_FLAG | g;
            }
        }
        Ok(())
    }

    fn paint(&mut self, addr: u32, len: u32, nh: u16, l: u8) {
        self.paint_where(addr, len, nh, l, |cur| cur <= l);
    }

    fn unpaint(&mut self, addr: u32, len: u32, l: u8) {
        let (pv, pl) = self.store.parent(addr, len);
        self.paint_where(addr, len, pv, pl, |cur| cur == l);
        if len > 24 {
            self.maybe_collapse(addr);
        }
    }
}

impl RouteEngine for Dir248 {
    fn needs_prefix_masks(&self) -> bool {
        true
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

    fn memory(&self) -> Option<(usize, usize)> {
        Some((self.lookup_table_bytes(), self.memory_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::route_store::mask_of;
    use super::super::route_store::testing::{nested_prefixes_add_remove, reference, xorshift};
    use super::*;

    #[test]
    fn nested_prefixes() {
        let t = nested_prefixes_add_remove::<Dir248>();
        // The /24 that held the /25 and the /32 folded back.
        assert_eq!(t.free_groups.len(), 1);
    }

    #[test]
    fn random_against_reference() {
        let mut rnd = xorshift(0x1234_5678_9abc_def0);
        let mut t = Dir248::default();
        let mut live: Vec<Route> = Vec::new();
        for step in 0..3000 {
            let x = rnd();
            if step % 4 == 3 && !live.is_empty() {
                let i = (x as usize >> 8) % live.len();
                let r = live.swap_remove(i);
                t.remove(&r).unwrap();
            } else {
                // Prefixes in a small region so they nest often.
                let len = 8 + (x % 25) as u32;
                let addr = (0x0a00_0000 | ((x >> 16) as u32 & 0x0003_ffff)) & mask_of(len);
                let r = Route {
                    addr,
                    mask: mask_of(len),
                    gw: 0,
                    port: ((x >> 40) % 8) as i32,
                };
                if live.iter().any(|o| o.addr == r.addr && o.mask == r.mask) {
                    continue;
                }
                t.add(&r, false).unwrap();
                live.push(r);
            }
            if step % 100 == 0 {
                for _ in 0..200 {
                    let a = 0x0a00_0000 | (rnd() as u32 & 0x0003_ffff);
                    assert_eq!(t.lookup(a), reference(&live, a), "addr {a:x}");
                }
            }
        }
    }
}
