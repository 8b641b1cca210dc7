//! # StripIPHeader
//!
//! `StripIPHeader`
//!
//! **Category:** ip. Strips everything up to the transport header.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Removes the IP header, and anything before it, from each packet, using
//! the IP header annotation (which must be set, by CheckIPHeader or
//! MarkIPHeader; packets without it pass unchanged). The header stays in
//! the headroom, and the annotation still points to it, so
//! UnstripIPHeader can restore it.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> StripIPHeader -> ...
//! ```
//!
//! ## See also
//!
//! UnstripIPHeader, StripToNetworkHeader, CheckIPHeader, Strip

use rclick_core::Packet;

use super::each_packet::{EachPacket, EachPacketElement};

/// StripIPHeader's own part; the element is [`StripIPHeader`].
pub(crate) struct StripIPHeaderClass;

impl EachPacket for StripIPHeaderClass {
    const CLASS: &'static str = "StripIPHeader";

    /// Strips the packet up to the end of its IP header (the annotation's
    /// offset and length, at most the data); leaves a packet without an
    /// IP header annotation, or with it before the data, alone.
    #[inline]
    fn apply(p: &mut Packet) {
        if let (Some(off), Some(h)) = (p.ip_header_offset(), p.ip_header()) {
            if off >= 0 {
                let n = (off as usize + p.ip_header_len()).min(off as usize + h.len());
                p.pull(n);
            }
        }
    }
}

/// The StripIPHeader element: its own part in an [`EachPacketElement`].
pub(crate) type StripIPHeader = EachPacketElement<StripIPHeaderClass>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_unstrips() {
        let mut p = Packet::from_slice(&[0u8; 40]);
        p.set_ip_header(4, 24);
        StripIPHeaderClass::apply(&mut p);
        assert_eq!(p.len(), 12);
        assert_eq!(p.ip_header_offset(), Some(-24));
        crate::ip::unstrip_ip_header::UnstripIPHeaderClass::apply(&mut p);
        assert_eq!(p.len(), 36);
        assert_eq!(p.ip_header_offset(), Some(0));
    }
}
