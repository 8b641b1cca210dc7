//! # SetUDPChecksum
//!
//! `SetUDPChecksum`
//!
//! **Category:** udp. Sets the UDP checksum.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Computes the checksum of each UDP packet (pseudo-header plus the bytes
//! the UDP length covers) and stores it in the UDP header; a computed 0 is
//! stored as 0xFFFF. Needs the IP header annotation. Packets that are not
//! UDP first fragments, or whose UDP length is inconsistent, are dropped.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): bad packets dropped.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetUDPChecksum -> SetIPChecksum -> ...
//! ```
//!
//! ## See also
//!
//! SetTCPChecksum, SetIPChecksum, CheckUDPHeader

use std::net::Ipv4Addr;

use rclick_core::{Ctx, PacketBatch};
use rclick_wire::UdpPacket;

use super::fix_in_place::{retain_logging_first, FixElement, FixInPlace};
use super::transport::segment_info;

/// The SetUDPChecksum element: [`SetUDPChecksumClass`] in a
/// [`FixElement`] (push and pull, the `drops` handler).
pub(crate) type SetUDPChecksum = FixElement<SetUDPChecksumClass>;

/// SetUDPChecksum's own part. It takes no configuration.
#[derive(Default)]
pub(crate) struct SetUDPChecksumClass;

impl FixInPlace for SetUDPChecksumClass {
    const CLASS: &'static str = "SetUDPChecksum";

    /// Sums the datagram over its UDP length; drops what is not the first
    /// fragment of a UDP datagram with a length that fits.
    #[inline]
    fn fix(&mut self, batch: &mut PacketBatch, drops: &mut u64, cx: &Ctx) {
        retain_logging_first(batch, drops, cx, Self::CLASS, |p| {
            let Some((src, dst, proto, hlen, tlen, first)) = segment_info(p) else {
                return false;
            };
            if proto != 17 || !first || tlen < 8 {
                return false;
            }
            let Some(h) = p.ip_header_mut() else {
                return false;
            };
            let seg = &mut h[hlen..hlen + tlen];
            let ulen = usize::from(UdpPacket::new_unchecked(&*seg).len());
            if ulen < 8 || ulen > tlen {
                return false;
            }
            let mut u = UdpPacket::new_unchecked(&mut seg[..ulen]);
            u.fill_checksum(Ipv4Addr::from(src), Ipv4Addr::from(dst));
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// A datagram whose payload changed after its checksum was made gets a
    /// right one again; a TCP packet is dropped.
    #[test]
    fn recomputes_and_drops_non_udp() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 2, STOP true) -> UDPIPEncap(1.0.0.1, 1, 2.0.0.2, 2)
             -> StoreData(28, \\<ffff>) -> s :: SetUDPChecksum
             -> u :: CheckUDPHeader -> ok :: Counter -> Discard; u[1] -> Discard;
             InfiniteSource(DATA \\<45000028 00000000 4006 66ce 0a000001 0a000002
                                    04d20050 00000001 00000000 50020200 00000000>, LIMIT 1)
             -> MarkIPHeader -> s;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        assert_eq!(testing::read(&r, "u.drops"), "0");
        assert_eq!(testing::read(&r, "s.drops"), "1");
    }
}
