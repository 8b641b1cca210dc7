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

use rclick_core::Element;

use super::iproute::{IpRouteTable, Linear};

/// Creates a LookupIPRouteMP.
pub fn make() -> Box<dyn Element> {
    Box::new(IpRouteTable::<Linear>::new("LookupIPRouteMP", false))
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

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
