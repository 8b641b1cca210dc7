//! # CheckTCPHeader
//!
//! `CheckTCPHeader([keywords VERBOSE, DETAILS, CHECKSUM])`
//!
//! **Category:** tcp. Checks TCP header validity.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Expects TCP packets with the IP header annotation set (by CheckIPHeader).
//! Checks that the packet is TCP and an unfragmented or first fragment, that
//! the TCP header and its length fields fit within the IP total length, and
//! that the TCP checksum is correct. Good packets leave on output 0;
//! others are dropped, or sent out output 1 if it exists. The first drop
//! (every drop when VERBOSE) is reported as
//! `NAME :: CheckTCPHeader: TCP header check failed: REASON`.
//!
//! Keywords:
//!
//! * `VERBOSE` (boolean, default false): report every drop, not just the first.
//! * `DETAILS` (boolean, default false): count drops per reason.
//! * `CHECKSUM` (boolean, default true): verify the TCP checksum.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped.
//! * `drop_details` (read, when DETAILS is true): `COUNT<TAB>REASON`
//!   lines for `not TCP`, `bad packet length` and `bad TCP checksum`.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> CheckTCPHeader -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, CheckTCPHeader, CheckUDPHeader, CheckICMPHeader

use rclick_core::Element;

use super::transport::{Checked, Fail, HeaderChecker};

rclick_core::drop_reasons! {
    /// Why CheckTCPHeader drops (`drop_details`).
    pub(crate) enum Why {
        NotTcp = "not TCP",
        BadLength = "bad packet length",
        BadChecksum = "bad TCP checksum",
    }
}

impl Checked for Why {
    const CLASS: &'static str = "CheckTCPHeader";
    const PROTO: u8 = 6;
    const WHAT: &'static str = "TCP header";
    const HAS_CHECKSUM_KEYWORD: bool = true;
    fn reason(f: Fail) -> Why {
        match f {
            Fail::NotProto => Why::NotTcp,
            Fail::BadLength => Why::BadLength,
            Fail::BadChecksum => Why::BadChecksum,
        }
    }
}

/// Creates a CheckTCPHeader.
pub fn make() -> Box<dyn Element> {
    Box::<HeaderChecker<Why>>::default()
}
