//! # LookupIPRouteMP
//!
//! `LookupIPRouteMP(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
//!
//! **Category:** iproute. Static IP routing table for several threads.
//!
//! **Ports:** one input, agnostic; any number of outputs.
//!
//! ## Description
//!
//! Click's multiprocessor version of LookupIPRoute (StaticIPLookup): the
//! same static table of routes (`ADDR/MASK [GATEWAY] OUTPUT`), looked up
//! by the destination IP address annotation; a match sends the packet to
//! its output with the annotation set to the gateway, when there is one.
//! Click gives each processor its own cache of the last lookup; here
//! every route table is safe to share between threads, so this class is
//! StaticIPLookup under another name.
//!
//! ## Handlers
//!
//! * `table` (read), `lookup` (read with parameter ADDR): StaticIPLookup's
//!   (Click's LookupIPRouteMP has none).
//!
//! ## Examples
//!
//! ```text
//! rt :: LookupIPRouteMP(18.26.4.24/32 0, 18.26.4.0/24 1, 0/0 18.26.4.1 1);
//! ```
//!
//! ## See also
//!
//! StaticIPLookup, LinearIPLookup, RadixIPLookup

use std::net::Ipv4Addr;

use super::iproute::LookupClass;
use super::linear_ip_lookup::Linear;

/// LookupIPRouteMP's part of the route table element: a static linear
/// table (one table serves every thread).
pub struct LookupIPRouteMP;

impl LookupClass for LookupIPRouteMP {
    const NAME: &'static str = "LookupIPRouteMP";
    const DYNAMIC: bool = false;
    type Engine = Linear;
    fn no_route_message(a: Ipv4Addr) -> Option<String> {
        Some(format!("LookupIPRouteMP: no route for {a}"))
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
        use super::LookupIPRouteMP;
        use crate::ip::iproute::LookupClass;
        assert_eq!(
            LookupIPRouteMP::no_route_message(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            Some("LookupIPRouteMP: no route for 10.0.0.2".to_string())
        );
    }

    /// Checked against Click: a route with a gateway.
    #[test]
    fn routes_like_static() {
        let r = testing::run(
            "InfiniteSource(DATA \\<45000014 00000000 40110000 01000001 01010203>, LIMIT 1, STOP true)
             -> MarkIPHeader -> GetIPAddress(16)
             -> rt :: LookupIPRouteMP(1.0.0.0/8 0, 1.1.0.0/16 1.1.1.1 1, 0/0 2);
             rt[0] -> Print(o0) -> Discard; rt[1] -> StoreIPAddress(4) -> Print(o1) -> Discard;
             rt[2] -> Print(o2) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["o1:   20 | 45000014 01010101 40110000 01000001 01010203"]
        );
        assert!(r.write_handler("rt.add", "2.0.0.0/8 0").is_err());
    }
}
