//! # SetIPChecksum
//!
//! `SetIPChecksum`
//!
//! **Category:** ip. Sets the IP header checksum.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Computes the checksum of each packet's IP header and stores it in the
//! header. Needs the IP header annotation. Packets without one, or whose
//! header length is under 20 or runs past the packet's end, are dropped
//! (the first reported as `SetIPChecksum: bad input packet`).
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
//! ... -> SetIPChecksum -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, DecIPTTL, SetTCPChecksum, SetUDPChecksum

use rclick_core::{Ctx, PacketBatch};
use rclick_wire::Ipv4Packet;

use super::fix_in_place::{retain_logging_first, FixElement, FixInPlace};

/// The SetIPChecksum element: [`SetIPChecksumClass`] in a [`FixElement`]
/// (push and pull, the `drops` handler).
pub(crate) type SetIPChecksum = FixElement<SetIPChecksumClass>;

/// SetIPChecksum's own part. It takes no configuration.
#[derive(Default)]
pub(crate) struct SetIPChecksumClass;

impl FixInPlace for SetIPChecksumClass {
    const CLASS: &'static str = "SetIPChecksum";

    /// Sums the header the IP header annotation covers; drops packets
    /// without one of at least 20 bytes.
    #[inline]
    fn fix(&mut self, batch: &mut PacketBatch, drops: &mut u64, cx: &Ctx) {
        retain_logging_first(batch, drops, cx, Self::CLASS, |p| {
            let hlen = p.ip_header_len();
            match p.ip_header_mut() {
                Some(h) if hlen >= 20 && hlen <= h.len() => {
                    Ipv4Packet::new_unchecked(&mut h[..hlen]).fill_checksum_over(hlen);
                    true
                }
                _ => false,
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// A header with a wrong checksum comes out right; a packet without an
    /// IP header annotation is dropped and counted.
    #[test]
    fn fixes_checksums_and_drops_unmarked() {
        let bad_sum = "4500001c 00000000 4011 0000 0a000002 0a000102 04d2162e 000c0000";
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{bad_sum}>, LIMIT 2, STOP true) -> MarkIPHeader
                 -> s :: SetIPChecksum -> c :: CheckIPHeader -> ok :: Counter -> Discard;
                 c[1] -> Discard;
                 InfiniteSource(DATA \\<{bad_sum}>, LIMIT 1) -> s;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        assert_eq!(testing::read(&r, "s.drops"), "1");
    }
}
