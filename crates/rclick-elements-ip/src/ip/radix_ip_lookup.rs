//! # RadixIPLookup
//!
//! `RadixIPLookup(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
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
//! no route is dropped (the first five are reported as `RadixIPLookup: no
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
//! either its ranges of addresses and their next hops, when they are few
//! enough to fit the 32-bit entry (a whole /16 of one next hop, or one or
//! two prefixes of length /17../24 inside it, for tables with a few
//! distinct next hops), or where its sorted array of address ranges
//! starts, which a lookup then binary-searches. It stays small enough for
//! the CPU caches: with 100,000 random routes 87 % of the /16s need only
//! their direct entry, the lookup structures take 0.42 MB and the whole
//! table, update bookkeeping included, about 5.8 MB (the `memory` handler
//! tells). In a whole configuration, one packet a batch from
//! InfiniteSource with random destinations (the `d_radix_*_nots`
//! benchmarks, CPU medians on a shared 2-core VM at load average 7-8,
//! side by side), the lookup adds about 15 ns a packet with 1,000 routes
//! and 29 ns with 100,000, against 16 and 43 ns before the direct entries
//! held ranges (DIR-24-8: 48 and 180 ns on a quieter machine); about 6 ns
//! of each is the cost of one more element on the path.
//! (Click's RadixIPLookup is a radix trie, about 150 ns a lookup and 54 MB
//! for 100,000 routes; rclick answers the same lookups from a faster
//! structure.) Updates are incremental: only the /16s a prefix covers are
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
//! rt :: RadixIPLookup(18.26.4.24/32 0,
//!                     18.26.4.255/32 0,
//!                     18.26.4.0/24 1,
//!                     0.0.0.0/0 18.26.4.1 1);
//! ```
//!
//! ## See also
//!
//! DirectIPLookup, RangeIPLookup, LinearIPLookup, StaticIPLookup,
//! AddressInfo

use std::net::Ipv4Addr;

use super::dxr::Dxr;
use super::iproute::LookupClass;

/// RadixIPLookup's part of the route table element.
pub struct RadixIPLookup;

impl LookupClass for RadixIPLookup {
    const NAME: &'static str = "RadixIPLookup";
    type Engine = Dxr;
    /// Click's RadixIPLookup is an IPRouteTable and speaks as one.
    fn no_route_message(a: Ipv4Addr) -> Option<String> {
        Some(format!("IPRouteTable: no route for {a}"))
    }
}

#[cfg(test)]
mod tests {
    /// The miss message, as the reference Click prints it (checked with
    /// clickdiff for one miss of 10.0.0.2).
    #[test]
    fn no_route_message_like_click() {
        use super::RadixIPLookup;
        use crate::ip::iproute::LookupClass;
        assert_eq!(
            RadixIPLookup::no_route_message(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            Some("IPRouteTable: no route for 10.0.0.2".to_string())
        );
    }
}
