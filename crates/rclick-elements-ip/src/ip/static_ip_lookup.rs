//! # StaticIPLookup
//!
//! `StaticIPLookup(ADDR1/MASK1 [GW1] OUT1, ADDR2/MASK2 [GW2] OUT2, ...)`
//!
//! **Category:** iproute. Simple static IP routing table.
//!
//! **Ports:** one push input; any number of push outputs.
//!
//! ## Description
//!
//! Acts like LinearIPLookup, but its routes cannot be added or removed at
//! run time: it has no `add`, `set`, `remove` or `ctrl` handlers.
//! `LookupIPRoute` is another name for this class. Lookups are linear;
//! prefer RadixIPLookup for anything but small tables.
//!
//! ## Handlers
//!
//! * `table` (read): the routing table.
//! * `lookup` (read with parameter ADDR): `OUT GW`, `OUT`, or `-1`.
//!
//! ## Examples
//!
//! ```text
//! rt :: StaticIPLookup(18.26.4.24/32 0, 18.26.4.0/24 1, 0/0 18.26.4.1 1);
//! ```
//!
//! ## See also
//!
//! LinearIPLookup, RadixIPLookup, DirectIPLookup, RangeIPLookup

use std::net::Ipv4Addr;

use super::iproute::LookupClass;
use super::linear_ip_lookup::Linear;

/// StaticIPLookup's part of the route table element: Click's
/// LinearIPLookup without run-time changes.
pub struct StaticIPLookup;

impl LookupClass for StaticIPLookup {
    const NAME: &'static str = "StaticIPLookup";
    const DYNAMIC: bool = false;
    type Engine = Linear;
    fn no_route_message(a: Ipv4Addr) -> Option<String> {
        Some(format!("LinearIPLookup: no route for {a}"))
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
        use super::StaticIPLookup;
        use crate::ip::iproute::LookupClass;
        assert_eq!(
            StaticIPLookup::no_route_message(std::net::Ipv4Addr::new(10, 0, 0, 2)),
            Some("LinearIPLookup: no route for 10.0.0.2".to_string())
        );
    }

    #[test]
    fn static_has_no_update_handlers() {
        let r = testing::build(
            "Idle -> rt :: LookupIPRoute(10.0.0.0/8 0, 0/0 9.9.9.9 1) -> Idle; rt[1] -> Idle",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(r.read_handler("rt.lookup", "10.9.9.9").unwrap(), "0");
        assert_eq!(
            r.read_handler("rt.lookup", "11.9.9.9").unwrap(),
            "1 9.9.9.9"
        );
        assert!(r.write_handler("rt.add", "11.0.0.0/8 0").is_err());
    }
}
