//! # DirectIPLookup
//!
//! `DirectIPLookup(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
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
//! no route is dropped (the first five are reported as `DirectIPLookup: no
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
//! hold longer prefixes), as Click's DirectIPLookup: a lookup is one or two
//! memory reads, but the 32 MB first level misses the TLB and the caches on
//! nearly every random lookup. Measured on a shared 2-core VM with random
//! addresses (`cargo bench -p rclick-elements-ip --bench lookup`): 6 ns a
//! lookup with 1,000 routes and 22 ns with 100,000 (16 and 170 ns when each
//! lookup waits for the previous one); in a whole configuration, one packet
//! a batch, the lookup adds 48 ns a packet with 1,000 routes and 180 ns
//! with 100,000. RadixIPLookup answers the same lookups faster from 25
//! times less memory. Updates are incremental and run with the element
//! locked, so a routing daemon can change the table through the handlers
//! while packets flow (about 1 µs for a typical route, 70 µs for a /8, 8 ms
//! for a /1 in a 100,000-route table). Memory: the lookup tables take 32 MB
//! once any non-default route exists (untouched pages are never paged in)
//! plus 512 bytes per /24 holding longer prefixes, and the update
//! bookkeeping about half as much again: 61 MB in all for 100,000 random
//! routes (79 MB maximum resident size for the `d_radix_100k_nots`
//! benchmark with DirectIPLookup, against 24 MB with RadixIPLookup; Click's
//! takes 54 MB). Up to 32,767 distinct (gateway, output) next hops and
//! 32,768 such /24s.
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
//! rt :: DirectIPLookup(18.26.4.24/32 0,
//!                     18.26.4.255/32 0,
//!                     18.26.4.0/24 1,
//!                     0.0.0.0/0 18.26.4.1 1);
//! ```
//!
//! ## See also
//!
//! RadixIPLookup, RangeIPLookup, LinearIPLookup, StaticIPLookup,
//! AddressInfo

use std::net::Ipv4Addr;

use super::dir248::Dir248;
use super::iproute::LookupClass;

/// DirectIPLookup's part of the route table element.
pub struct DirectIPLookup;

impl LookupClass for DirectIPLookup {
    const NAME: &'static str = "DirectIPLookup";
    type Engine = Dir248;
    /// Click's DirectIPLookup says nothing (misses are still counted).
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
        use super::DirectIPLookup;
        use crate::ip::iproute::LookupClass;
        assert_eq!(
            DirectIPLookup::no_route_message(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            None
        );
    }
}
