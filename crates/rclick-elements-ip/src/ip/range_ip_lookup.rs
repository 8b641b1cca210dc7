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
//! The table is a DXR structure (after Zec, Rizzo and Mikuc): a 2^16-entry
//! direct table indexed by the top 16 address bits says, for each /16,
//! either its next hop or where its sorted array of address ranges starts,
//! which a lookup then binary-searches. It stays small enough for the CPU
//! caches: with 100,000 random routes the lookup structures take 0.94 MB
//! and the whole table, update bookkeeping included, about 6.4 MB (the
//! `memory` handler tells). Measured on a shared 2-core VM with random
//! addresses (`cargo bench -p rclick-elements-ip --bench lookup`): 2 ns a
//! lookup with 1,000 routes and 16 ns with 100,000 (10 and 36 ns when each
//! lookup waits for the previous one); DIR-24-8 (DirectIPLookup) takes 6
//! and 22 ns (16 and 170 ns) and 37 MB. In a whole configuration, one
//! packet a batch from InfiniteSource with random destinations, the lookup
//! adds 10 ns a packet with 1,000 routes and 44 ns with 100,000 (DIR-24-8:
//! 48 and 180 ns; medians of 5 runs of the `d_radix_*_nots` benchmarks);
//! with 100,000 routes the table no longer fits the 512 KB per-core
//! second-level cache, so most lookups wait on the third-level cache.
//! (Click's RangeIPLookup keeps the same kind of range table, beside a
//! DIR-24-8 table it rebuilds from; here the range table is updated in
//! place.) Updates are incremental: only the /16s a prefix covers are
//! rebuilt, about 0.7 µs for an `add` or `remove` of a typical route in a
//! 100,000-route table and 25 µs for a /1. They run with the element
//! locked, so a routing daemon can change the table through the handlers
//! while packets flow; a `ctrl` batch rebuilds each /16 once. Up to 65,535
//! distinct (gateway, output) next hops.
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
//! * `memory` (read): bytes used, `lookup N` (what the packet path reads)
//!   and `total N` (update bookkeeping included); an rclick extension.
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

use std::net::Ipv4Addr;

use super::dxr::Dxr;
use super::iproute::LookupClass;

/// RangeIPLookup's part of the route table element.
pub struct RangeIPLookup;

impl LookupClass for RangeIPLookup {
    const NAME: &'static str = "RangeIPLookup";
    type Engine = Dxr;
    /// Click's RangeIPLookup says nothing (misses are still counted).
    fn no_route_message(_a: Ipv4Addr) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    /// The miss message, as the reference Click prints it (checked with
    /// clickdiff for one miss of 10.0.0.2).
    #[test]
    fn no_route_message_like_click() {
        use super::RangeIPLookup;
        use crate::ip::iproute::LookupClass;
        assert_eq!(
            RangeIPLookup::no_route_message(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            None
        );
    }
}
