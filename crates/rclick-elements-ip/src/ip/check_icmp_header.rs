//! # CheckICMPHeader
//!
//! `CheckICMPHeader([keywords VERBOSE, DETAILS])`
//!
//! **Category:** icmp. Checks ICMP header validity.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Expects ICMP packets with the IP header annotation set (by CheckIPHeader).
//! Checks that the packet is ICMP and an unfragmented or first fragment, that
//! the ICMP header and its length fields fit within the IP total length, and
//! that the ICMP checksum is correct. Good packets leave on output 0;
//! others are dropped, or sent out output 1 if it exists. The first drop
//! (every drop when VERBOSE) is reported as
//! `NAME :: CheckICMPHeader: ICMP header check failed: REASON`.
//!
//! Keywords:
//!
//! * `VERBOSE` (boolean, default false): report every drop, not just the first.
//! * `DETAILS` (boolean, default false): count drops per reason.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped.
//! * `drop_details` (read, when DETAILS is true): `COUNT<TAB>REASON`
//!   lines for `not ICMP`, `bad packet length` and `bad ICMP checksum`.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> CheckICMPHeader -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, CheckTCPHeader, CheckUDPHeader, CheckICMPHeader

use std::net::Ipv4Addr;

use rclick_wire::checksum;

use super::transport::Checked;

rclick_core::drop_reasons! {
    /// Why CheckICMPHeader drops (`drop_details`).
    pub(crate) enum Why {
        NotIcmp = "not ICMP",
        BadLength = "bad packet length",
        BadChecksum = "bad ICMP checksum",
    }
}

impl Checked for Why {
    const CLASS: &'static str = "CheckICMPHeader";
    const PROTO: u8 = 1;
    const WHAT: &'static str = "ICMP header";
    const HAS_CHECKSUM_KEYWORD: bool = false;
    const NOT_PROTO: Why = Why::NotIcmp;
    /// At least the 8-byte header, and a right checksum over the segment
    /// (no pseudo-header).
    #[inline]
    fn check_segment(
        seg: &[u8],
        _src: Ipv4Addr,
        _dst: Ipv4Addr,
        _checksum: bool,
    ) -> Result<(), Why> {
        if seg.len() < 8 {
            return Err(Why::BadLength);
        }
        if !checksum::verify(seg) {
            return Err(Why::BadChecksum);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Checked, Why};
    use rclick_wire::IcmpPacket;
    use std::net::Ipv4Addr;

    /// The segment check alone: 8 bytes, the checksum over the segment.
    #[test]
    fn check_segment_names_each_failure() {
        let a = Ipv4Addr::UNSPECIFIED;
        let mut seg = [8u8, 0, 0, 0, 0, 1, 0, 2, 0xab];
        IcmpPacket::new_unchecked(&mut seg[..]).fill_checksum();
        assert_eq!(Why::check_segment(&seg, a, a, true), Ok(()));
        assert_eq!(
            Why::check_segment(&seg[..7], a, a, true),
            Err(Why::BadLength)
        );
        seg[8] = 0xac;
        assert_eq!(Why::check_segment(&seg, a, a, true), Err(Why::BadChecksum));
    }

    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// ICMPPingEncap's echo requests pass; one with a changed byte is a bad
    /// ICMP checksum, and a UDP packet is not ICMP.
    #[test]
    fn accepts_echoes_and_names_each_failure() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 2, STOP true) -> ICMPPingEncap(1.0.0.1, 2.0.0.2)
             -> i :: CheckICMPHeader(DETAILS true) -> ok :: Counter -> StoreData(29, \\<ff>)
             -> i2 :: CheckICMPHeader -> Discard; i[1] -> Discard; i2[1] -> Discard;
             InfiniteSource(DATA \\<0102>, LIMIT 1) -> UDPIPEncap(1.0.0.1, 1, 2.0.0.2, 2) -> i;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        assert_eq!(
            testing::read(&r, "i.drop_details"),
            "1\tnot ICMP\n0\tbad packet length\n0\tbad ICMP checksum\n"
        );
        assert_eq!(testing::read(&r, "i2.drops"), "2");
    }
}
