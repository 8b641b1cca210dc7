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
//! `table` (read), `lookup` (read with parameter), `add`, `set`, `remove`
//! and `ctrl` (write), as for RadixIPLookup.
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

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

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
