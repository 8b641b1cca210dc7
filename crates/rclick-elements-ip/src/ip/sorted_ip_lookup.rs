//! # SortedIPLookup
//!
//! `SortedIPLookup(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
//!
//! **Category:** iproute. IP routing table searched in a sorted order
//! (deprecated).
//!
//! **Ports:** one push input; any number of push outputs.
//!
//! ## Description
//!
//! A LinearIPLookup whose table is kept sorted so that the first route
//! matching an address is its longest match: every route comes before
//! the routes that contain it (a topological order, recomputed after each
//! change; among unrelated routes, the order of entry). A lookup is a
//! scan to the first match. Routes, handlers and the table format are
//! LinearIPLookup's; `table` lists the routes in the sorted order.
//! Configuring it warns that the class is deprecated, as Click does: use
//! LinearIPLookup or RadixIPLookup.
//!
//! ## Handlers
//!
//! * `table` (read): the routes, one per line, in the sorted order.
//! * `lookup` (read with parameter ADDR): `OUT GW`, `OUT`, or `-1`.
//! * `add` (write): adds the route `ADDR/MASK [GW] OUT`; a route for that
//!   prefix must not exist.
//! * `set` (write): adds a route, replacing one for the same prefix.
//! * `remove` (write): removes the route `ADDR/MASK [GW OUT]`.
//! * `ctrl` (write): `add`, `set` and `remove` lines, all or nothing.
//!
//! ## Examples
//!
//! ```text
//! rt :: SortedIPLookup(18.26.4.0/24 0, 18.26.4.24/32 1, 0/0 18.26.4.1 1);
//! ```
//!
//! ## See also
//!
//! LinearIPLookup, RadixIPLookup

use std::net::Ipv4Addr;

use super::iproute::{AddError, LookupClass, Route, RouteEngine};

/// SortedIPLookup's part of the route table element.
pub struct SortedIPLookup;

impl LookupClass for SortedIPLookup {
    const NAME: &'static str = "SortedIPLookup";
    const WARNING: Option<&'static str> =
        Some("SortedIPLookup is deprecated; use LinearIPLookup or RadixIPLookup instead");
    type Engine = Sorted;
    /// Click's SortedIPLookup prints the address as a host-order
    /// hexadecimal number.
    fn no_route_message(a: Ipv4Addr) -> Option<String> {
        Some(format!(
            "SortedIPLookup: no gw for {:x}",
            u32::from_le_bytes(a.octets())
        ))
    }
}

/// Routes kept with every route before the routes containing it.
#[derive(Default)]
pub struct Sorted {
    t: Vec<Route>,
}

/// Whether route `a`'s addresses all lie within route `b`.
fn within(a: &Route, b: &Route) -> bool {
    a.addr & b.mask == b.addr && a.mask & b.mask == b.mask
}

impl Sorted {
    /// Reorders the table: repeatedly takes the first route no other
    /// route lies within, then, breadth first, each route all of whose
    /// inner routes have been taken (Click's order).
    fn sort(&mut self) {
        let n = self.t.len();
        let mut inner: Vec<i64> = (0..n)
            .map(|j| {
                (0..n)
                    .filter(|&i| i != j && within(&self.t[i], &self.t[j]))
                    .count() as i64
            })
            .collect();
        let mut order: Vec<usize> = Vec::with_capacity(n);
        let (mut first, mut q) = (0, 0);
        while order.len() < n {
            while first < n && inner[first] != 0 {
                first += 1;
            }
            if first == n {
                // Not reachable with a consistent containment relation;
                // keep the rest in their order rather than loop.
                order.extend((0..n).filter(|&i| inner[i] >= 0));
                break;
            }
            order.push(first);
            while q < order.len() {
                let which = order[q];
                inner[which] = -1;
                for (i, count) in inner.iter_mut().enumerate() {
                    if *count > 0 && within(&self.t[which], &self.t[i]) {
                        *count -= 1;
                        if *count == 0 {
                            order.push(i);
                        }
                    }
                }
                q += 1;
            }
        }
        self.t = order.into_iter().map(|i| self.t[i]).collect();
    }
}

impl RouteEngine for Sorted {
    fn add(&mut self, r: &Route, set: bool) -> Result<Option<Route>, AddError> {
        if let Some(e) = self
            .t
            .iter_mut()
            .find(|e| e.addr == r.addr && e.mask == r.mask)
        {
            if !set {
                return Err(AddError::Exists(*e));
            }
            let old = *e;
            (e.gw, e.port) = (r.gw, r.port);
            return Ok(Some(old));
        }
        self.t.push(*r);
        self.sort();
        Ok(None)
    }

    fn remove(&mut self, r: &Route) -> Result<Route, Option<Route>> {
        match self.t.iter().position(|x| r.matches(x)) {
            Some(i) => {
                let old = self.t.remove(i);
                self.sort();
                Ok(old)
            }
            None => Err(self
                .t
                .iter()
                .find(|x| x.addr == r.addr && x.mask == r.mask)
                .copied()),
        }
    }

    fn lookup(&self, addr: u32) -> Option<(u32, i32)> {
        self.t
            .iter()
            .find(|e| addr & e.mask == e.addr)
            .map(|e| (e.gw, e.port))
    }

    fn routes(&self) -> Vec<Route> {
        self.t.clone()
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// The miss message, as the reference Click prints it (checked with
    /// clickdiff for one miss of 10.0.0.2).
    #[test]
    fn no_route_message_like_click() {
        use super::SortedIPLookup;
        use crate::ip::iproute::LookupClass;
        assert_eq!(
            SortedIPLookup::no_route_message(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            Some("SortedIPLookup: no gw for 200000a".to_string())
        );
    }

    /// Checked against Click: the warning, the sorted table, lookups.
    #[test]
    fn sorted_table_and_lookup() {
        let r = testing::run(
            "InfiniteSource(DATA \\<45000014 00000000 40110000 01000001 01010203>, LIMIT 1, STOP true)
             -> MarkIPHeader -> GetIPAddress(16)
             -> rt :: SortedIPLookup(1.0.0.0/8 0, 1.1.0.0/16 1.1.1.1 1, 0/0 2);
             rt[0] -> Print(o0) -> Discard; rt[1] -> StoreIPAddress(4) -> Print(o1) -> Discard;
             rt[2] -> Print(o2) -> Discard;",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert!(log[1].contains("SortedIPLookup is deprecated"), "{log:?}");
        assert_eq!(
            log[2],
            "o1:   20 | 45000014 01010101 40110000 01000001 01010203"
        );
        let rows: Vec<Vec<String>> = testing::read(&r, "rt.table")
            .lines()
            .map(|l| l.split_whitespace().map(String::from).collect())
            .collect();
        assert_eq!(
            rows,
            vec![
                vec!["1.1.0.0/16", "1.1.1.1", "1"],
                vec!["1.0.0.0/8", "-", "0"],
                vec!["0.0.0.0/0", "-", "2"],
            ]
        );
        r.write_handler("rt.add", "1.1.1.0/24 0").unwrap();
        assert_eq!(r.read_handler("rt.lookup", "1.1.1.9").unwrap(), "0");
        assert!(testing::read(&r, "rt.table").starts_with("1.1.1.0/24"));
        r.write_handler("rt.remove", "1.1.0.0/16").unwrap();
        assert_eq!(r.read_handler("rt.lookup", "1.1.2.9").unwrap(), "0");
        assert_eq!(r.read_handler("rt.lookup", "9.1.2.9").unwrap(), "2");
    }

    /// A table sorted after random additions answers as a longest-match
    /// scan does.
    #[test]
    fn first_match_is_longest_match() {
        use super::{Route, RouteEngine, Sorted};
        let mut rng = crate::ip::test_util::Rng(0x5eed_1234_5678_9abc);
        let mut s = Sorted::default();
        let mut all: Vec<Route> = Vec::new();
        for i in 0..60 {
            let len = rng.below(33) as u32;
            let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
            let addr = (rng.below(1 << 8) as u32) << 24 & mask;
            let r = Route {
                addr,
                mask,
                gw: 0,
                port: i,
            };
            if s.add(&r, false).is_ok() {
                all.push(r);
            }
        }
        for _ in 0..2000 {
            let a = (rng.below(1 << 8) as u32) << 24 | rng.below(1 << 24) as u32;
            let best = all
                .iter()
                .filter(|r| a & r.mask == r.addr)
                .max_by_key(|r| r.mask.count_ones())
                .map(|r| r.port);
            let got = s.lookup(a).map(|(_, p)| p);
            let got_len = got
                .and_then(|p| all.iter().find(|r| r.port == p))
                .map(|r| r.mask);
            let best_len = best
                .and_then(|p| all.iter().find(|r| r.port == p))
                .map(|r| r.mask);
            assert_eq!(got_len, best_len, "{a:#x}");
        }
    }
}
