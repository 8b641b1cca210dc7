//! # IPFieldInfo
//!
//! `IPFieldInfo()`
//!
//! **Category:** ip. Stands for the IP header field names.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! In Click, loading IPFieldInfo registers names for IP, TCP, UDP and
//! ICMP header fields (`ip src`, `tcp sport`...), for elements that take
//! a header field as an argument (AggregateIP's FIELD). Here those
//! elements read field names themselves, so IPFieldInfo has nothing to
//! do: it exists so that configurations naming it keep working. It takes
//! no arguments and has no ports.
//!
//! ## See also
//!
//! IPNameInfo, AggregateIP
use rclick_core::Element;

/// The IPFieldInfo element.
#[derive(Default)]
pub struct IPFieldInfo;

impl Element for IPFieldInfo {
    fn class_name(&self) -> &'static str {
        "IPFieldInfo"
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
        assert!(testing::build("i :: IPFieldInfo;", &registry(), true).is_ok());
        let e = testing::build("IPFieldInfo(x);", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
    }
}
