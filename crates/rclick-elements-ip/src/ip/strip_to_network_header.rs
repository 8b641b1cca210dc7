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

use rclick_core::{Ctx, Element, Packet, PacketBatch};

/// The StripToNetworkHeader element.
#[derive(Default)]
pub struct StripToNetworkHeader;

#[inline]
fn strip(p: &mut Packet) {
    if let Some(off) = p.network_header_offset() {
        if off > 0 {
            p.pull((off as usize).min(p.len()));
        }
    }
}

impl Element for StripToNetworkHeader {
    fn class_name(&self) -> &'static str {
        "StripToNetworkHeader"
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        batch.iter_mut().for_each(strip);
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        batch.iter_mut().for_each(strip);
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_to_header() {
        let mut p = Packet::from_slice(&[0u8; 40]);
        p.set_network_header(14, 20);
        strip(&mut p);
        assert_eq!(p.len(), 26);
        assert_eq!(p.network_header_offset(), Some(0));
    }
}
