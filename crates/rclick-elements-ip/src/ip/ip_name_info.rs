//! # IPNameInfo
//!
//! `IPNameInfo()`
//!
//! **Category:** ip. Stands for the IP name databases.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! In Click, loading IPNameInfo fills the name databases with the names
//! of IP protocols (`tcp`, `udp`, `icmp`...), ICMP types and codes
//! (`echo`, `unreachable`, `needfrag`...) and well-known TCP and UDP
//! ports (`www`, `dns`...), which IPClassifier, IPFilter, ICMPError,
//! UDPIPEncap and others accept in place of numbers. Here those names are
//! built into the parsers that read them, so the element has nothing to
//! do: it exists so that configurations naming it keep working. It takes
//! no arguments and has no ports.
//!
//! ## See also
//!
//! AddressInfo, PortInfo, IPFieldInfo
use rclick_core::Element;

/// The IPNameInfo element.
#[derive(Default)]
pub struct IPNameInfo;

impl Element for IPNameInfo {
    fn class_name(&self) -> &'static str {
        "IPNameInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click: no arguments, no ports.
    #[test]
    fn takes_nothing() {
        let r = testing::build("i :: IPNameInfo;", &registry(), true).unwrap();
        assert_eq!(testing::read(&r, "i.config"), "");
        let e = testing::build("IPNameInfo(1);", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
        let e = testing::build("Idle -> IPNameInfo -> Idle;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("input 0"), "{e}");
    }
}
