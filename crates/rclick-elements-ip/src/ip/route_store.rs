//! Route bookkeeping shared by the fast lookup tables ([`super::dir248`],
//! [`super::dxr`]): the routes in Click's table order, the next hops
//! (gateway, output) they share, reference-counted, so that a table with
//! 100,000 routes to four outputs stores four next hops and its lookup
//! structure holds small next-hop indices, and the index of prefixes.
//!
//! A table is a [`PrefixTable`]: what differs between them is how a
//! prefix is painted into and out of the lookup structure; [`add`] and
//! [`remove`], the route bookkeeping around that, are written once here.

use std::collections::{BTreeMap, HashMap};

use super::iproute::{AddError, Route};

/// The netmask of a prefix length (0 to 32).
pub(crate) fn mask_of(len: u32) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - len)
    }
}

#[derive(Clone, Copy)]
struct NextHop {
    gw: u32,
    port: i32,
    refs: u32,
}

/// Routes and next hops. Next-hop index 0 means "no route".
pub struct RouteStore {
    nexthops: Vec<NextHop>,
    nh_index: HashMap<(u32, i32), u16>,
    free_nexthops: Vec<u16>,
    max_nexthops: usize,
    /// Route slots in Click's order: freed slots are reused, newest first.
    slots: Vec<Option<(Route, u16)>>,
    free_slots: Vec<usize>,
    /// Every route but the default: (address, length) → slot, sorted by
    /// address then length.
    prefixes: BTreeMap<(u32, u8), u32>,
    /// The default route's next hop (0: none) and slot.
    pub(crate) default_nh: u16,
    default_slot: Option<usize>,
}

impl RouteStore {
    /// An empty store for at most `max_nexthops` distinct next hops.
    pub fn new(max_nexthops: usize) -> Self {
        RouteStore {
            nexthops: vec![NextHop {
                gw: 0,
                port: -1,
                refs: u32::MAX,
            }],
            nh_index: HashMap::new(),
            free_nexthops: Vec::new(),
            max_nexthops,
            slots: Vec::new(),
            free_slots: Vec::new(),
            prefixes: BTreeMap::new(),
            default_nh: 0,
            default_slot: None,
        }
    }

    /// The slot of the route stored for `r`'s prefix, if any.
    pub fn existing(&self, r: &Route) -> Option<usize> {
        let len = r.prefix_len()?;
        if len == 0 {
            self.default_slot
        } else {
            self.prefixes.get(&(r.addr, len as u8)).map(|&s| s as usize)
        }
    }

    /// The longest route strictly shorter than `len` (and not the default)
    /// covering `addr`: (next hop, length + 1), or (0, 0) for none.
    pub fn parent(&self, addr: u32, len: u32) -> (u16, u8) {
        for l in (1..len).rev() {
            if let Some(&s) = self.prefixes.get(&(addr & mask_of(l), l as u8)) {
                if let Some((_, nh)) = self.slot(s as usize) {
                    return (nh, (l + 1) as u8);
                }
            }
        }
        (0, 0)
    }

    /// The prefixes from `from` to `to` (inclusive, as (address, length)),
    /// in order, with their next hops.
    pub fn prefixes_in(
        &self,
        from: (u32, u8),
        to: (u32, u8),
    ) -> impl Iterator<Item = ((u32, u8), u16)> + '_ {
        self.prefixes
            .range(from..=to)
            .map(|(&k, &slot)| (k, self.slot(slot as usize).map_or(0, |(_, nh)| nh)))
    }

    /// Approximate bytes of the prefix index (the B-tree counted at its
    /// typical two-thirds fill).
    pub fn index_bytes(&self) -> usize {
        self.prefixes.len() * 3 / 2 * 12
    }

    /// The index of next hop (gw, port), taking a reference on it.
    pub fn nexthop_ref(&mut self, gw: u32, port: i32) -> Result<u16, String> {
        if let Some(&i) = self.nh_index.get(&(gw, port)) {
            self.nexthops[i as usize].refs += 1;
            return Ok(i);
        }
        let nh = NextHop { gw, port, refs: 1 };
        let i = if let Some(i) = self.free_nexthops.pop() {
            self.nexthops[i as usize] = nh;
            i
        } else {
            if self.nexthops.len() > self.max_nexthops {
                return Err("too many distinct next hops in routing table".into());
            }
            self.nexthops.push(nh);
            (self.nexthops.len() - 1) as u16
        };
        self.nh_index.insert((gw, port), i);
        Ok(i)
    }

    /// Drops a reference on next hop `i`, freeing it with the last one.
    pub fn nexthop_unref(&mut self, i: u16) {
        let nh = &mut self.nexthops[i as usize];
        nh.refs -= 1;
        if nh.refs == 0 {
            self.nh_index.remove(&(nh.gw, nh.port));
            self.free_nexthops.push(i);
        }
    }

    /// Next hop `i`: (gateway, output).
    #[inline]
    pub fn nexthop(&self, i: u16) -> Option<(u32, i32)> {
        self.nexthops.get(i as usize).map(|h| (h.gw, h.port))
    }

    /// References held on next hops other than "no route".
    #[cfg(test)]
    pub fn nexthop_refs(&self) -> usize {
        self.nexthops[1..]
            .iter()
            .filter(|h| h.refs > 0)
            .map(|h| h.refs as usize)
            .sum()
    }

    /// Stores route `r` with next hop `nh`: its slot.
    pub fn take_slot(&mut self, r: Route, nh: u16) -> usize {
        if let Some(s) = self.free_slots.pop() {
            self.slots[s] = Some((r, nh));
            s
        } else {
            self.slots.push(Some((r, nh)));
            self.slots.len() - 1
        }
    }

    /// Frees slot `s`.
    pub fn free_slot(&mut self, s: usize) {
        self.slots[s] = None;
        self.free_slots.push(s);
    }

    /// The route in slot `s` and its next hop.
    #[inline]
    pub fn slot(&self, s: usize) -> Option<(Route, u16)> {
        self.slots.get(s).copied().flatten()
    }

    /// The routes, in table order.
    pub fn routes(&self) -> Vec<Route> {
        self.slots.iter().flatten().map(|(r, _)| *r).collect()
    }

    /// Bytes the next hops take (read by the packet path).
    pub fn nexthop_bytes(&self) -> usize {
        self.nexthops.len() * std::mem::size_of::<NextHop>()
    }

    /// Approximate bytes used in all.
    pub fn bytes(&self) -> usize {
        self.nexthop_bytes()
            + self.nh_index.capacity() * 16
            + self.slots.capacity() * std::mem::size_of::<Option<(Route, u16)>>()
            + self.free_slots.capacity() * 8
    }
}

/// A longest-prefix-match structure over a [`RouteStore`]: what differs
/// between the fast tables. Prefix lengths given here are 1..=32 (the
/// default route lives in the store and never touches the structure), and
/// a stored length `l` is a prefix length + 1 (0: no route set the entry).
pub trait PrefixTable {
    /// The routes and next hops.
    fn store(&self) -> &RouteStore;
    /// The same, to change.
    fn store_mut(&mut self) -> &mut RouteStore;
    /// Makes room for prefix `addr/len` before anything changes; on an
    /// error nothing did.
    fn prepare(&mut self, _addr: u32, _len: u32) -> Result<(), String> {
        Ok(())
    }
    /// Sets next hop `nh` with stored length `l` on the entries of
    /// `addr/len` set by shorter or equal prefixes (or by none).
    fn paint(&mut self, addr: u32, len: u32, nh: u16, l: u8);
    /// Gives the entries of `addr/len` that its route (stored length `l`)
    /// set back to the route's parent ([`RouteStore::parent`]); the route
    /// is already out of the index.
    fn unpaint(&mut self, addr: u32, len: u32, l: u8);
}

/// Adds `r` to `t` (see [`RouteEngine::add`](super::iproute::RouteEngine::add)).
pub fn add<T: PrefixTable>(t: &mut T, r: &Route, set: bool) -> Result<Option<Route>, AddError> {
    let Some(len) = r.prefix_len() else {
        return Err(AddError::Other(format!(
            "route '{}' has a non-prefix mask",
            r.unparse(false)
        )));
    };
    let old = t.store().existing(r);
    if let Some(s) = old {
        if !set {
            let old_route = t.store().slot(s).map(|(o, _)| o).unwrap_or(*r);
            return Err(AddError::Exists(old_route));
        }
    }
    let nh = t
        .store_mut()
        .nexthop_ref(r.gw, r.port)
        .map_err(AddError::Other)?;
    if len > 0 {
        if let Err(e) = t.prepare(r.addr, len) {
            t.store_mut().nexthop_unref(nh);
            return Err(AddError::Other(e));
        }
    }
    let store = t.store_mut();
    let slot = store.take_slot(*r, nh);
    let mut replaced = None;
    if let Some(s) = old {
        if let Some((o, onh)) = store.slot(s) {
            replaced = Some(o);
            store.nexthop_unref(onh);
        }
        store.free_slot(s);
    }
    if len == 0 {
        store.default_nh = nh;
        store.default_slot = Some(slot);
    } else {
        store.prefixes.insert((r.addr, len as u8), slot as u32);
        t.paint(r.addr, len, nh, (len + 1) as u8);
    }
    Ok(replaced)
}

/// Removes the route matching `r` from `t` (see
/// [`RouteEngine::remove`](super::iproute::RouteEngine::remove)).
pub fn remove<T: PrefixTable>(t: &mut T, r: &Route) -> Result<Route, Option<Route>> {
    let store = t.store_mut();
    let Some(s) = store.existing(r) else {
        return Err(None);
    };
    let Some((old, onh)) = store.slot(s) else {
        return Err(None);
    };
    if !r.matches(&old) {
        return Err(Some(old));
    }
    let len = r.prefix_len().unwrap_or(0);
    if len == 0 {
        store.default_nh = 0;
        store.default_slot = None;
    } else {
        store.prefixes.remove(&(r.addr, len as u8));
        t.unpaint(r.addr, len, (len + 1) as u8);
    }
    let store = t.store_mut();
    store.nexthop_unref(onh);
    store.free_slot(s);
    Ok(old)
}

/// Helpers for the lookup tables' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::mask_of;
    use crate::ip::iproute::{AddError, Route, RouteEngine};

    /// The route `ADDR/LEN` via `gw` (host order, 0 for none) to `port`.
    pub(crate) fn route(a: &str, gw: u32, port: i32) -> Route {
        let (addr, len) = a.split_once('/').unwrap();
        let addr: std::net::Ipv4Addr = addr.parse().unwrap();
        let len: u32 = len.parse().unwrap();
        Route {
            addr: u32::from(addr) & mask_of(len),
            mask: mask_of(len),
            gw,
            port,
        }
    }

    /// An address in host order.
    pub(crate) fn ip(s: &str) -> u32 {
        u32::from(s.parse::<std::net::Ipv4Addr>().unwrap())
    }

    /// A deterministic pseudo-random sequence (xorshift64) from `seed`.
    pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Nested prefixes added, looked up, removed, replaced, as every
    /// prefix table must handle them; returns the table for the caller's
    /// own checks.
    pub(crate) fn nested_prefixes_add_remove<T: RouteEngine>() -> T {
        let mut t = T::default();
        assert_eq!(t.lookup(ip("10.0.0.1")), None);
        for (r, gw, port) in [
            ("10.0.0.0/8", 0, 1),
            ("10.1.0.0/16", 0, 2),
            ("10.1.2.128/25", 0, 3),
            ("10.1.2.130/32", 7, 4),
        ] {
            t.add(&route(r, gw, port), false).unwrap();
        }
        for (a, want) in [
            ("10.2.3.4", Some((0, 1))),
            ("10.1.3.4", Some((0, 2))),
            ("10.1.2.129", Some((0, 3))),
            ("10.1.2.130", Some((7, 4))),
            ("10.1.2.131", Some((0, 3))),
            ("10.1.2.1", Some((0, 2))),
            ("11.0.0.0", None),
        ] {
            assert_eq!(t.lookup(ip(a)), want, "{a}");
        }
        t.remove(&route("10.1.0.0/16", 0, 2)).unwrap();
        assert_eq!(t.lookup(ip("10.1.2.1")), Some((0, 1)));
        assert_eq!(t.lookup(ip("10.1.2.129")), Some((0, 3)));
        t.remove(&route("10.1.2.128/25", 0, 3)).unwrap();
        t.remove(&route("10.1.2.130/32", 7, 4)).unwrap();
        assert_eq!(t.lookup(ip("10.1.2.130")), Some((0, 1)));
        t.add(&route("0.0.0.0/0", 0, 9), false).unwrap();
        assert_eq!(t.lookup(ip("11.0.0.0")), Some((0, 9)));
        assert!(matches!(
            t.add(&route("10.0.0.0/8", 0, 5), false),
            Err(AddError::Exists(_))
        ));
        let old = t.add(&route("10.0.0.0/8", 0, 5), true).unwrap();
        assert_eq!(old.map(|r| r.port), Some(1));
        assert_eq!(t.lookup(ip("10.2.3.4")), Some((0, 5)));
        // A removal must name the stored gateway and output, if any.
        assert_eq!(
            t.remove(&route("10.0.0.0/8", 0, 1)).unwrap_err(),
            Some(route("10.0.0.0/8", 0, 5))
        );
        assert_eq!(t.routes().len(), 2);
        t
    }

    /// The reference: linear longest-prefix match.
    pub(crate) fn reference(routes: &[Route], a: u32) -> Option<(u32, i32)> {
        routes
            .iter()
            .filter(|r| a & r.mask == r.addr)
            .max_by_key(|r| r.mask.count_ones())
            .map(|r| (r.gw, r.port))
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{ip, route};
    use super::*;

    /// A table that only records what it was asked to paint.
    struct Recorder {
        store: RouteStore,
        log: Vec<String>,
        fail_prepare: bool,
    }

    impl PrefixTable for Recorder {
        fn store(&self) -> &RouteStore {
            &self.store
        }
        fn store_mut(&mut self) -> &mut RouteStore {
            &mut self.store
        }
        fn prepare(&mut self, _addr: u32, len: u32) -> Result<(), String> {
            if self.fail_prepare {
                return Err(format!("no room for /{len}"));
            }
            Ok(())
        }
        fn paint(&mut self, addr: u32, len: u32, nh: u16, l: u8) {
            self.log.push(format!("paint {addr:x}/{len} nh {nh} l {l}"));
        }
        fn unpaint(&mut self, addr: u32, len: u32, l: u8) {
            let (pnh, pl) = self.store.parent(addr, len);
            self.log
                .push(format!("unpaint {addr:x}/{len} l {l} -> nh {pnh} l {pl}"));
        }
    }

    fn recorder() -> Recorder {
        Recorder {
            store: RouteStore::new(4),
            log: Vec::new(),
            fail_prepare: false,
        }
    }

    #[test]
    fn add_and_remove_keep_the_index_and_next_hops() {
        let mut t = recorder();
        assert!(add(&mut t, &route("0.0.0.0/0", 0, 3), false)
            .unwrap()
            .is_none());
        assert!(add(&mut t, &route("10.0.0.0/8", 0, 1), false)
            .unwrap()
            .is_none());
        assert!(add(&mut t, &route("10.1.0.0/16", 0, 1), false)
            .unwrap()
            .is_none());
        // the default never touches the structure; 10/8 and 10.1/16 share a next hop
        assert_eq!(
            t.log,
            ["paint a000000/8 nh 2 l 9", "paint a010000/16 nh 2 l 17"]
        );
        assert_eq!(t.store.default_nh, 1);
        assert_eq!(t.store.nexthop_refs(), 3);
        assert!(matches!(
            add(&mut t, &route("10.0.0.0/8", 0, 2), false),
            Err(AddError::Exists(_))
        ));
        let old = add(&mut t, &route("10.0.0.0/8", 0, 2), true).unwrap();
        assert_eq!(old, Some(route("10.0.0.0/8", 0, 1)));
        assert_eq!(t.store.parent(ip("10.1.2.3"), 16), (3, 9));
        t.log.clear();
        assert_eq!(
            remove(&mut t, &route("10.1.0.0/16", 0, -1)),
            Ok(route("10.1.0.0/16", 0, 1))
        );
        assert_eq!(t.log, ["unpaint a010000/16 l 17 -> nh 3 l 9"]);
        assert_eq!(remove(&mut t, &route("10.1.0.0/16", 0, -1)), Err(None));
        assert_eq!(
            remove(&mut t, &route("10.0.0.0/8", 0, 1)),
            Err(Some(route("10.0.0.0/8", 0, 2)))
        );
        assert_eq!(t.store.routes().len(), 2);
        assert_eq!(t.store.nexthop_refs(), 2);
    }

    #[test]
    fn a_failed_prepare_changes_nothing() {
        let mut t = recorder();
        t.fail_prepare = true;
        match add(&mut t, &route("10.0.0.0/8", 0, 1), false) {
            Err(AddError::Other(e)) => assert_eq!(e, "no room for /8"),
            other => panic!("{other:?}"),
        }
        assert!(t.store.routes().is_empty());
        assert_eq!(t.store.nexthop_refs(), 0);
        assert!(t.store.existing(&route("10.0.0.0/8", 0, 1)).is_none());
    }

    #[test]
    fn non_prefix_masks_and_too_many_next_hops_are_refused() {
        let mut t = recorder();
        let odd = Route {
            addr: 0x0a00_0000,
            mask: 0xff00_ff00,
            gw: 0,
            port: 0,
        };
        assert!(matches!(add(&mut t, &odd, false), Err(AddError::Other(_))));
        for port in 0..4 {
            add(&mut t, &route(&format!("10.{port}.0.0/16"), 0, port), false).unwrap();
        }
        assert!(matches!(
            add(&mut t, &route("11.0.0.0/8", 0, 9), false),
            Err(AddError::Other(_))
        ));
    }
}
