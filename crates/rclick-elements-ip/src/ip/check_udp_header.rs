//! # CheckUDPHeader
//!
//! `CheckUDPHeader([keywords VERBOSE, DETAILS])`
//!
//! **Category:** udp. Checks UDP header validity.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Expects UDP packets with the IP header annotation set (by CheckIPHeader).
//! Checks that the packet is UDP and an unfragmented or first fragment, that
//! the UDP header and its length fields fit within the IP total length, and
//! that the UDP checksum is correct (unless it is 0, meaning none). Good packets leave on output 0;
//! others are dropped, or sent out output 1 if it exists. The first drop
//! (every drop when VERBOSE) is reported as
//! `UDP header check failed: REASON` (no element name, as in Click).
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
//!   lines for `not UDP`, `bad packet length` and `bad UDP checksum`.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> CheckUDPHeader -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, CheckTCPHeader, CheckUDPHeader, CheckICMPHeader

use std::net::Ipv4Addr;

use rclick_wire::UdpPacket;

use super::transport::Checked;

rclick_core::drop_reasons! {
    /// Why CheckUDPHeader drops (`drop_details`).
    pub(crate) enum Why {
        NotUdp = "not UDP",
        BadLength = "bad packet length",
        BadChecksum = "bad UDP checksum",
    }
}

impl Checked for Why {
    const CLASS: &'static str = "CheckUDPHeader";
    const PROTO: u8 = 17;
    const WHAT: &'static str = "UDP header";
    const HAS_CHECKSUM_KEYWORD: bool = false;
    const NOT_PROTO: Why = Why::NotUdp;
    /// A UDP length of at least 8 inside the segment, and a right checksum
    /// over that length unless the checksum is 0 (none sent).
    #[inline]
    fn check_segment(seg: &[u8], src: Ipv4Addr, dst: Ipv4Addr, _checksum: bool) -> Result<(), Why> {
        if seg.len() < 8 {
            return Err(Why::BadLength);
        }
        let ulen = usize::from(UdpPacket::new_unchecked(seg).len());
        if ulen < 8 || ulen > seg.len() {
            return Err(Why::BadLength);
        }
        let u = UdpPacket::new_unchecked(&seg[..ulen]);
        if u.checksum() != 0 && !u.verify_checksum(src, dst) {
            return Err(Why::BadChecksum);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Checked, UdpPacket, Why};
    use std::net::Ipv4Addr;

    /// The segment check alone: UDP length, checksum (0 is none).
    #[test]
    fn check_segment_names_each_failure() {
        let (s, d) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        let mut seg = [0u8; 12];
        seg[5] = 10; // UDP length 10 of the 12 bytes
        assert_eq!(Why::check_segment(&seg, s, d, true), Ok(()), "no checksum");
        UdpPacket::new_unchecked(&mut seg[..10]).fill_checksum(s, d);
        assert_eq!(Why::check_segment(&seg, s, d, true), Ok(()));
        seg[11] = 1; // past the UDP length: not summed
        assert_eq!(Why::check_segment(&seg, s, d, true), Ok(()));
        seg[9] = 1;
        assert_eq!(Why::check_segment(&seg, s, d, true), Err(Why::BadChecksum));
        assert_eq!(
            Why::check_segment(&seg[..7], s, d, true),
            Err(Why::BadLength)
        );
        seg[5] = 13;
        assert_eq!(Why::check_segment(&seg, s, d, true), Err(Why::BadLength));
        seg[5] = 7;
        assert_eq!(Why::check_segment(&seg, s, d, true), Err(Why::BadLength));
    }

    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn checks_udp_and_tcp() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 2, STOP true) -> UDPIPEncap(1.0.0.1, 1, 2.0.0.2, 2)
             -> u :: CheckUDPHeader -> c :: Counter -> t :: CheckTCPHeader(DETAILS true) -> Discard;
             u[1] -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert_eq!(testing::read(&r, "u.drops"), "0");
        assert_eq!(testing::read(&r, "t.drops"), "2");
        assert!(testing::read(&r, "t.drop_details").starts_with("2\tnot TCP\n"));
    }

    /// The first-drop messages in Click's words (checked with clickdiff):
    /// no prefix for UDP, `NAME :: CLASS` for TCP and ICMP.
    #[test]
    fn drop_messages_like_click() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 1, STOP true) -> UDPIPEncap(1.0.0.1, 1, 2.0.0.2, 2)
             -> t :: CheckTCPHeader -> Discard; t[1] -> i :: CheckICMPHeader -> Discard;
             i[1] -> StoreData(26, \\<ffff>) -> u :: CheckUDPHeader -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            [
                "t :: CheckTCPHeader: TCP header check failed: not TCP",
                "i :: CheckICMPHeader: ICMP header check failed: not ICMP",
                "UDP header check failed: bad UDP checksum"
            ]
        );
    }
}
