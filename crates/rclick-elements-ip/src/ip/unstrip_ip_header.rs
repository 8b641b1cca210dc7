//! # UnstripIPHeader
//!
//! `UnstripIPHeader`
//!
//! **Category:** ip. Restores the IP header to the packet.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Puts back the IP header that StripIPHeader removed: if the IP header
//! annotation points before the packet data, the data is extended back to
//! it. Packets whose data already starts at or before the IP header, or
//! that have no IP header annotation, pass unchanged.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> StripIPHeader -> ... -> UnstripIPHeader -> ...
//! ```
//!
//! ## See also
//!
//! StripIPHeader, Unstrip

use rclick_core::Packet;

use super::each_packet::{EachPacket, EachPacketElement};

/// UnstripIPHeader's own part; the element is [`UnstripIPHeader`].
pub(crate) struct UnstripIPHeaderClass;

impl EachPacket for UnstripIPHeaderClass {
    const CLASS: &'static str = "UnstripIPHeader";

    /// Puts back what lies between the IP header and the data, when the
    /// header is before the data.
    #[inline]
    fn apply(p: &mut Packet) {
        if let Some(off) = p.ip_header_offset() {
            if off < 0 {
                let _ = p.push_keep(off.unsigned_abs());
            }
        }
    }
}

/// The UnstripIPHeader element: its own part in an [`EachPacketElement`].
pub(crate) type UnstripIPHeader = EachPacketElement<UnstripIPHeaderClass>;

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn restores_the_stripped_header() {
        // The header comes back as it was (Click: the headroom is exposed,
        // not zeroed), also on a clone sharing the buffer.
        let r = testing::run(
            "InfiniteSource(DATA \\<45000018 00000000 40110000 c0000201 c0000202 aabbccdd>,
                            LIMIT 1, STOP true)
             -> MarkIPHeader -> StripIPHeader -> t :: Tee -> UnstripIPHeader
             -> Print(x, 24) -> Discard;
             t[1] -> Print(y) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "x:   24 | 45000018 00000000 40110000 c0000201 c0000202 aabbccdd",
                "y:    4 | aabbccdd"
            ]
        );
    }
}
