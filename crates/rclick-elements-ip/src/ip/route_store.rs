//! Route bookkeeping shared by the fast lookup tables ([`super::dir248`],
//! [`super::dxr`]): the routes in Click's table order, and the next hops
//! (gateway, output) they share, reference-counted, so that a table with
//! 100,000 routes to four outputs stores four next hops and its lookup
//! structure holds small next-hop indices.

use std::collections::HashMap;

use super::iproute::Route;

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
        }
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

/// Helpers for the lookup tables' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::mask_of;
    use crate::ip::iproute::Route;

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

    /// The reference: linear longest-prefix match.
    pub(crate) fn reference(routes: &[Route], a: u32) -> Option<(u32, i32)> {
        routes
            .iter()
            .filter(|r| a & r.mask == r.addr)
            .max_by_key(|r| r.mask.count_ones())
            .map(|r| (r.gw, r.port))
    }
}
