//! # RangeIPLookup
//!
//! `RangeIPLookup(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
//!
//! **Category:** iproute. IP routing lookup through a fast table.
//!
//! **Ports:** one push input; any number of push outputs.
//!
//! ## Description
//!
//! Expects a destination IP address annotation on each packet. Looks up
//! that address in its routing table, using longest-prefix matching, sets
//! the destination annotation to the matching route's gateway (if it has
//! one), and sends the packet out the route's output. A packet that matches
//! no route is dropped (the first five are reported as `RangeIPLookup: no
//! route for ADDR`).
//!
//! Each argument is a route, `ADDR/MASK [GW] OUT`: ADDR/MASK a prefix
//! (`18.26.4/24`, `10.0.0.0/255.0.0.0`, or an AddressInfo name, which means
//! its address as a /32 or, with `:ipnet`, its prefix), GW an optional
//! gateway address (`-` for none), OUT an output number. A later route for
//! a prefix already present is ignored. Masks must be prefixes.
//!
//! The table is a DIR-24-8 structure (a 2^24-entry first level indexed by
//! the top 24 address bits, 256-entry second-level groups for /24s that
//! hold longer prefixes): a lookup is one or two memory reads, about 10 ns
//! with 100,000 routes (Click's RangeIPLookup keeps a range table beside the same structure; here the DIR-24-8 table answers directly). Updates are
//! incremental and run with the element locked, so a routing daemon can
//! change the table through the handlers while packets flow. Memory: about
//! 48 MB once any non-default route exists (untouched pages of the first
//! level are never paged in), plus 768 bytes for each /24 holding longer
//! prefixes. Up to 32,767 distinct (gateway, output) next hops.
//!
//! ## Handlers
//!
//! * `table` (read): the routing table, one route a line, `ADDR/MASK GW OUT`.
//! * `lookup` (read with parameter ADDR): the output and gateway for ADDR
//!   (`OUT GW`, `OUT` when there is no gateway, `-1` when no route).
//! * `add` (write): adds a route `ADDR/MASK [GW] OUT`; fails with
//!   `conflict with existing route '...'` if one exists for that prefix.
//! * `set` (write): adds a route, replacing any route for that prefix.
//! * `remove` (write): removes `ADDR/MASK [GW OUT]` (all given fields must
//!   match).
//! * `ctrl` (write): a series of lines, each `add ROUTE`, `set ROUTE` or
//!   `remove ROUTE`; all or nothing: if one fails, the earlier ones are
//!   undone.
//!
//! ## Examples
//!
//! ```text
//! rt :: RangeIPLookup(18.26.4.24/32 0,
//!                     18.26.4.255/32 0,
//!                     18.26.4.0/24 1,
//!                     0.0.0.0/0 18.26.4.1 1);
//! ```
//!
//! ## See also
//!
//! RadixIPLookup, DirectIPLookup, LinearIPLookup, StaticIPLookup,
//! AddressInfo

use rclick_core::Element;

use super::dir248::Dir248;
use super::iproute::IpRouteTable;

/// Creates a RangeIPLookup.
pub fn make() -> Box<dyn Element> {
    Box::new(IpRouteTable::<Dir248>::new("RangeIPLookup", true))
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn handlers_drive_the_table() {
        let r = testing::build(
            "i :: Idle -> r :: RangeIPLookup(10.0.0.0/8 1.1.1.1 0, 10.1/16 1) -> i; r[1] -> i;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(r.read_handler("r.lookup", "10.1.2.3").unwrap(), "1");
        assert_eq!(r.read_handler("r.lookup", "10.2.2.3").unwrap(), "0 1.1.1.1");
        assert_eq!(r.read_handler("r.lookup", "11.2.2.3").unwrap(), "-1");
        r.write_handler("r.add", "11.0.0.0/8 1").unwrap();
        assert_eq!(r.read_handler("r.lookup", "11.2.2.3").unwrap(), "1");
        let e = r.write_handler("r.add", "11.0.0.0/8 0").unwrap_err();
        assert!(e.contains("conflict with existing route '11.0.0.0/8 - 1'"), "{e}");
        assert!(r.write_handler("r.add", "11.0.0.0/8 2").is_err());
        r.write_handler("r.remove", "10.1.0.0/16").unwrap();
        assert_eq!(r.read_handler("r.lookup", "10.1.2.3").unwrap(), "0 1.1.1.1");
        assert!(r.write_handler("r.ctrl", "add 12.0.0.0/8 1\nadd 11.0.0.0/8 0\n").is_err());
        assert_eq!(r.read_handler("r.lookup", "12.0.0.1").unwrap(), "-1");
        r.write_handler("r.ctrl", "add 12.0.0.0/8 1\nset 11.0.0.0/8 0\n").unwrap();
        assert_eq!(r.read_handler("r.lookup", "12.0.0.1").unwrap(), "1");
        assert_eq!(r.read_handler("r.lookup", "11.0.0.1").unwrap(), "0");
        let t = r.read_handler("r.table", "").unwrap();
        assert_eq!(t.lines().count(), 3, "{t}");
    }

    #[test]
    fn routes_packets() {
        let r = testing::run(
            "InfiniteSource(LIMIT 5, STOP true) -> SetIPAddress(10.1.2.3)
             -> r :: RangeIPLookup(10.0.0.0/8 1.1.1.1 0, 10.1/16 1);
             r[0] -> c0 :: Counter -> Discard; r[1] -> c1 :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "5");
        assert_eq!(testing::read(&r, "c0.count"), "0");
    }

    #[test]
    fn bad_routes_are_errors() {
        let e = testing::build("Idle -> RangeIPLookup(10/8 5) -> Idle", &registry(), true).unwrap_err();
        assert!(e.contains("argument 1 should be 'ADDR/MASK [GATEWAY] OUTPUT'"), "{e}");
    }
}
