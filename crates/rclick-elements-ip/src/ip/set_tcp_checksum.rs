//! # SetTCPChecksum
//!
//! `SetTCPChecksum([FIXOFF])`
//!
//! **Category:** tcp. Sets the TCP checksum.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Computes the checksum of each TCP packet (over the pseudo-header and the
//! segment as bounded by the IP total length) and stores it in the TCP
//! header. Needs the IP header annotation. If FIXOFF is true (the default),
//! a TCP data offset pointing past the segment is first clamped to the
//! segment. Packets that are not whole TCP first fragments are dropped.
//!
//! Keywords: `FIXOFF` (boolean, default true).
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
//! ... -> SetTCPChecksum -> SetIPChecksum -> ...
//! ```
//!
//! ## See also
//!
//! SetUDPChecksum, SetIPChecksum, CheckTCPHeader

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{Ctx, PacketBatch};
use rclick_wire::TcpPacket;

use super::fix_in_place::{retain_logging_first, FixElement, FixInPlace};
use super::transport::segment_info;

/// The SetTCPChecksum element: [`SetTCPChecksumClass`] in a
/// [`FixElement`] (push and pull, the `drops` handler).
pub(crate) type SetTCPChecksum = FixElement<SetTCPChecksumClass>;

/// SetTCPChecksum's own part: its FIXOFF keyword.
pub(crate) struct SetTCPChecksumClass {
    fixoff: bool,
}

impl Default for SetTCPChecksumClass {
    fn default() -> Self {
        SetTCPChecksumClass { fixoff: true }
    }
}

impl FixInPlace for SetTCPChecksumClass {
    const CLASS: &'static str = "SetTCPChecksum";

    fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        let mut fixoff = true;
        Args::new(conf)
            .read_p("FIXOFF", &mut fixoff)
            .complete()
            .map_err(|e| e.to_string())?;
        self.fixoff = fixoff;
        Ok(())
    }

    /// Fixes a bad data offset when FIXOFF, and the checksum; drops what
    /// is not the first fragment of a TCP segment.
    #[inline]
    fn fix(&mut self, batch: &mut PacketBatch, drops: &mut u64, cx: &Ctx) {
        let fixoff = self.fixoff;
        retain_logging_first(batch, drops, cx, Self::CLASS, |p| {
            let Some((src, dst, proto, hlen, tlen, first)) = segment_info(p) else {
                return false;
            };
            if proto != 6 || !first || tlen < 20 {
                return false;
            }
            let Some(h) = p.ip_header_mut() else {
                return false;
            };
            let mut t = TcpPacket::new_unchecked(&mut h[hlen..hlen + tlen]);
            let off = usize::from(t.header_len());
            if off < 20 || off > tlen {
                if !fixoff {
                    return false;
                }
                t.set_header_len((tlen.min(60) as u8).max(20));
            }
            t.fill_checksum(Ipv4Addr::from(src), Ipv4Addr::from(dst));
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// 10.0.0.1 -> 10.0.0.2, TCP, a 20-byte TCP header whose data offset
    /// is 0 (bad) and whose checksum is zero.
    const BAD_OFF: &str = "45000028 00000000 4006 66ce 0a000001 0a000002
                           04d20050 00000001 00000000 00020200 00000000";

    /// With FIXOFF (the default) a bad data offset is fixed and the
    /// checksum made; with FIXOFF false the packet is dropped.
    #[test]
    fn fixes_offset_and_checksum() {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{BAD_OFF}>, LIMIT 2, STOP true) -> MarkIPHeader
                 -> Tee -> s :: SetTCPChecksum -> t :: CheckTCPHeader -> ok :: Counter -> Discard;
                 t[1] -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{BAD_OFF}>, LIMIT 2, STOP true) -> MarkIPHeader
                 -> s :: SetTCPChecksum(FIXOFF false) -> ok :: Counter -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "0");
        assert_eq!(testing::read(&r, "s.drops"), "2");
    }
}
