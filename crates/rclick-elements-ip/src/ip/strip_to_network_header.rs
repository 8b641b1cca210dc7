//! # StripToNetworkHeader
//!
//! `StripToNetworkHeader`
//!
//! **Category:** basic. Strips everything before the network header.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Removes everything before the network header annotation (an Ethernet
//! header, say) from each packet. Packets without a network header
//! annotation, or whose data already starts at or after it, pass
//! unchanged.
//!
//! ## Annotations
//!
//! Uses the network header annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader(14) -> StripToNetworkHeader -> ...
//! ```
//!
//! ## See also
//!
//! Strip, StripIPHeader, MarkIPHeader

use rclick_core::Packet;

use super::each_packet::{EachPacket, EachPacketElement};

/// StripToNetworkHeader's own part; the element is [`StripToNetworkHeader`].
pub(crate) struct StripToNetworkHeaderClass;

impl EachPacket for StripToNetworkHeaderClass {
    const CLASS: &'static str = "StripToNetworkHeader";

    /// Strips the packet up to its network header; leaves a packet
    /// without one, or with it at or before the data's start, alone.
    #[inline]
    fn apply(p: &mut Packet) {
        if let Some(off) = p.network_header_offset() {
            if off > 0 {
                p.pull((off as usize).min(p.len()));
            }
        }
    }
}

/// The StripToNetworkHeader element: its own part in an [`EachPacketElement`].
pub(crate) type StripToNetworkHeader = EachPacketElement<StripToNetworkHeaderClass>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_to_header() {
        let mut p = Packet::from_slice(&[0u8; 40]);
        p.set_network_header(14, 20);
        StripToNetworkHeaderClass::apply(&mut p);
        assert_eq!(p.len(), 26);
        assert_eq!(p.network_header_offset(), Some(0));
    }
}
