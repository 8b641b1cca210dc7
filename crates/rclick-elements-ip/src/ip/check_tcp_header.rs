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

use std::net::Ipv4Addr;

use rclick_wire::TcpPacket;

use super::transport::Checked;

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
    const NOT_PROTO: Why = Why::NotTcp;
    /// A whole header (data offset of 5 to 15 words, inside the segment)
    /// and, unless CHECKSUM is false, the right checksum.
    #[inline]
    fn check_segment(seg: &[u8], src: Ipv4Addr, dst: Ipv4Addr, checksum: bool) -> Result<(), Why> {
        if seg.len() < 20 {
            return Err(Why::BadLength);
        }
        let tcp = TcpPacket::new_unchecked(seg);
        let off = usize::from(tcp.header_len());
        if off < 20 || off > seg.len() {
            return Err(Why::BadLength);
        }
        if checksum && !tcp.verify_checksum(src, dst) {
            return Err(Why::BadChecksum);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Checked, TcpPacket, Why};
    use std::net::Ipv4Addr;

    /// The segment check alone: length, data offset, checksum (CHECKSUM
    /// false skips it).
    #[test]
    fn check_segment_names_each_failure() {
        let (s, d) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
        let mut seg = [0u8; 24];
        seg[12] = 0x60;
        TcpPacket::new_unchecked(&mut seg[..]).fill_checksum(s, d);
        assert_eq!(Why::check_segment(&seg, s, d, true), Ok(()));
        assert_eq!(
            Why::check_segment(&seg[..19], s, d, true),
            Err(Why::BadLength)
        );
        assert_eq!(
            Why::check_segment(&seg[..20], s, d, true),
            Err(Why::BadLength)
        );
        seg[23] = 1;
        assert_eq!(Why::check_segment(&seg, s, d, true), Err(Why::BadChecksum));
        assert_eq!(Why::check_segment(&seg, s, d, false), Ok(()));
        seg[12] = 0x40;
        assert_eq!(Why::check_segment(&seg, s, d, false), Err(Why::BadLength));
    }

    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// 10.0.0.1 -> 10.0.0.2, TCP, total length 40, header checksum right;
    /// a 20-byte TCP header with a zero checksum.
    const TCP: &str = "45000028 00000000 4006 66ce 0a000001 0a000002
                       04d20050 00000001 00000000 50020200 00000000";

    /// SetTCPChecksum makes the checksum CheckTCPHeader accepts; a byte
    /// changed afterwards is a bad TCP checksum; a short header is a bad
    /// length.
    #[test]
    fn accepts_good_and_names_each_failure() {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{TCP}>, LIMIT 3, STOP true) -> MarkIPHeader -> SetTCPChecksum
                 -> t :: CheckTCPHeader(DETAILS true) -> ok :: Counter -> StoreData(37, \\<ff>)
                 -> t2 :: CheckTCPHeader(DETAILS true) -> Discard;
                 t[1] -> Discard; t2[1] -> Discard;
                 InfiniteSource(DATA \\<45000018 00000000 4006 66de 0a000001 0a000002 04d20050>, LIMIT 1)
                 -> MarkIPHeader -> t;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "3");
        assert_eq!(testing::read(&r, "t.drops"), "1");
        assert_eq!(
            testing::read(&r, "t.drop_details"),
            "0\tnot TCP\n1\tbad packet length\n0\tbad TCP checksum\n"
        );
        assert_eq!(
            testing::read(&r, "t2.drop_details"),
            "0\tnot TCP\n0\tbad packet length\n3\tbad TCP checksum\n"
        );
    }
}
