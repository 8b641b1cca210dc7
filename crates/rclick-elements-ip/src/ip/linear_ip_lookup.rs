//! # LinearIPLookup
//!
//! `LinearIPLookup(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
//!
//! **Category:** iproute. Simple IP routing table, searched linearly.
//!
//! **Ports:** one push input; any number of push outputs.
//!
//! ## Description
//!
//! Expects a destination IP address annotation on each packet. Finds the
//! most specific route whose prefix contains it, sets the annotation to the
//! route's gateway (if it has one) and sends the packet out the route's
//! output; packets without a route are dropped (the first five reported as
//! `LinearIPLookup: no route for ADDR`).
//!
//! Each argument is a route `ADDR/MASK [GW] OUT` (see RadixIPLookup for the
//! syntax). Masks need not be prefixes: among matching routes, one whose
//! mask includes another's bits is more specific. Lookups examine every
//! route, so prefer RadixIPLookup or DirectIPLookup for large tables. The
//! table keeps routes in the order added; removed routes leave holes that
//! later routes fill.
//!
//! ## Handlers
//!
//! * `table` (read): the routes, one per line, in table order.
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
//! AddressInfo(foo 1.2.3.4/20);
//! rt :: LinearIPLookup(foo 0, foo:ipnet 1, foo:bcast 2);
//! ```
//!
//! ## See also
//!
//! RadixIPLookup, DirectIPLookup, RangeIPLookup, StaticIPLookup

use std::net::Ipv4Addr;

use super::iproute::{AddError, LookupClass, Route, RouteEngine};

/// LinearIPLookup's part of the route table element.
pub struct LinearIPLookup;

impl LookupClass for LinearIPLookup {
    const NAME: &'static str = "LinearIPLookup";
    type Engine = Linear;
    fn no_route_message(a: Ipv4Addr) -> Option<String> {
        Some(format!("LinearIPLookup: no route for {a}"))
    }
}

/// Click's LinearIPLookup table: a vector searched in full. Deleted
/// routes leave holes that later additions fill. As Click's, it remembers
/// the last two addresses looked up and their results (consecutive packets
/// of a flow skip the scan); any change to the table forgets them.
#[derive(Default)]
pub struct Linear {
    t: Vec<Option<Route>>,
    /// The last two lookups, most recent first.
    cache: std::cell::Cell<[Option<CachedLookup>; 2]>,
}

/// A remembered lookup: the address and its result.
type CachedLookup = (u32, Option<(u32, i32)>);

impl RouteEngine for Linear {
    fn add(&mut self, r: &Route, set: bool) -> Result<Option<Route>, AddError> {
        self.cache.set([None, None]);
        for e in self.t.iter_mut().flatten() {
            if e.addr == r.addr && e.mask == r.mask {
                if !set {
                    return Err(AddError::Exists(*e));
                }
                let old = *e;
                e.gw = r.gw;
                e.port = r.port;
                return Ok(Some(old));
            }
        }
        if let Some(hole) = self.t.iter_mut().find(|e| e.is_none()) {
            *hole = Some(*r);
        } else {
            self.t.push(Some(*r));
        }
        Ok(None)
    }

    fn remove(&mut self, r: &Route) -> Result<Route, Option<Route>> {
        self.cache.set([None, None]);
        let mut same_prefix = None;
        for e in self.t.iter_mut() {
            if let Some(x) = *e {
                if r.matches(&x) {
                    *e = None;
                    return Ok(x);
                }
                if x.addr == r.addr && x.mask == r.mask {
                    same_prefix = Some(x);
                }
            }
        }
        Err(same_prefix)
    }

    #[inline]
    fn lookup(&self, a: u32) -> Option<(u32, i32)> {
        let cache = self.cache.get();
        if let Some((addr, result)) = cache[0] {
            if addr == a {
                return result;
            }
        }
        if let Some((addr, result)) = cache[1] {
            if addr == a {
                return result;
            }
        }
        self.lookup_and_remember(a, cache[0])
    }

    fn routes(&self) -> Vec<Route> {
        self.t.iter().flatten().copied().collect()
    }
}

impl Linear {
    /// A lookup that missed the cache: scans, and remembers the answer in
    /// front of the most recent one.
    #[inline(never)]
    fn lookup_and_remember(&self, a: u32, recent: Option<CachedLookup>) -> Option<(u32, i32)> {
        let result = self.scan(a);
        self.cache.set([Some((a, result)), recent]);
        result
    }

    /// The longest match for `a`, scanning every route.
    fn scan(&self, a: u32) -> Option<(u32, i32)> {
        let mut best: Option<&Route> = None;
        for r in self.t.iter().flatten() {
            if r.contains(a) {
                match best {
                    Some(b) if r.mask & b.mask != b.mask => {}
                    _ => best = Some(r),
                }
            }
        }
        best.map(|r| (r.gw, r.port))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ip::iproute::parse_route;
    use crate::ip::test_util::registry;
    use rclick_core::args::NoContext;
    use rclick_core::testing;

    /// The miss message, as the reference Click prints it (checked with
    /// clickdiff for one miss of 10.0.0.2).
    #[test]
    fn no_route_message_like_click() {
        assert_eq!(
            LinearIPLookup::no_route_message(Ipv4Addr::new(10, 0, 0, 2)).unwrap(),
            "LinearIPLookup: no route for 10.0.0.2"
        );
    }

    #[test]
    fn linear_cache_forgets_on_change() {
        let mut t = Linear::default();
        let r = |s: &str| parse_route(s, false, &NoContext).unwrap();
        t.add(&r("10.0.0.0/8 1"), false).unwrap();
        let a = u32::from(Ipv4Addr::new(10, 1, 2, 3));
        let b = u32::from(Ipv4Addr::new(192, 0, 2, 1));
        assert_eq!(t.lookup(a), Some((0, 1)));
        assert_eq!(t.lookup(b), None);
        assert_eq!(t.lookup(a), Some((0, 1)));
        t.add(&r("10.1.0.0/16 192.0.2.9 2"), false).unwrap();
        assert_eq!(
            t.lookup(a),
            Some((u32::from(Ipv4Addr::new(192, 0, 2, 9)), 2))
        );
        t.add(&r("0.0.0.0/0 3"), false).unwrap();
        assert_eq!(t.lookup(b), Some((0, 3)));
        t.remove(&r("10.1.0.0/16 192.0.2.9 2")).unwrap();
        assert_eq!(t.lookup(a), Some((0, 1)));
    }

    #[test]
    fn linear_most_specific() {
        let mut t = Linear::default();
        t.add(
            &parse_route("10.0.0.0/8 1", false, &NoContext).unwrap(),
            false,
        )
        .unwrap();
        t.add(
            &parse_route("10.1.0.0/16 2.2.2.2 2", false, &NoContext).unwrap(),
            false,
        )
        .unwrap();
        assert_eq!(t.lookup(0x0a01_0101), Some((0x0202_0202, 2)));
        assert_eq!(t.lookup(0x0a02_0101), Some((0, 1)));
        assert_eq!(t.lookup(0x0b02_0101), None);
        let r = parse_route("10.1.0.0/16", true, &NoContext).unwrap();
        assert!(t.remove(&r).is_ok());
        assert_eq!(t.lookup(0x0a01_0101), Some((0, 1)));
    }

    #[test]
    fn address_info_names_in_routes() {
        let r = testing::build(
            "AddressInfo(foo 1.2.3.4/20);
             rt :: LinearIPLookup(foo 0, foo:ipnet 1, foo:bcast 2);
             Idle -> rt; rt[0] -> Discard; rt[1] -> Discard; rt[2] -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        let t = r.read_handler("rt.table", "").unwrap();
        let words: Vec<Vec<&str>> = t.lines().map(|l| l.split_whitespace().collect()).collect();
        assert_eq!(
            words,
            vec![
                vec!["1.2.3.4/32", "-", "0"],
                vec!["1.2.0.0/20", "-", "1"],
                vec!["1.2.15.255/32", "-", "2"]
            ]
        );
        assert_eq!(r.read_handler("rt.lookup", "1.2.3.4").unwrap(), "0");
        assert_eq!(r.read_handler("rt.lookup", "1.2.3.5").unwrap(), "1");
        r.write_handler("rt.remove", "foo:ipnet").unwrap();
        r.write_handler("rt.add", "1.2.0.0/255.255.0.255 2.2.2.2 1")
            .unwrap();
        assert_eq!(r.read_handler("rt.lookup", "1.2.9.0").unwrap(), "1 2.2.2.2");
    }
}
