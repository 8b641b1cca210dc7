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

use rclick_core::{Ctx, Element, Packet, PacketBatch};

/// The StripIPHeader element.
#[derive(Default)]
pub struct StripIPHeader;

#[inline]
fn strip(p: &mut Packet) {
    if let (Some(off), Some(h)) = (p.ip_header_offset(), p.ip_header()) {
        if off >= 0 {
            let n = (off as usize + p.ip_header_len()).min(off as usize + h.len());
            p.pull(n);
        }
    }
}

impl Element for StripIPHeader {
    fn class_name(&self) -> &'static str {
        "StripIPHeader"
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
    fn strips_and_unstrips() {
        let mut p = Packet::from_slice(&[0u8; 40]);
        p.set_ip_header(4, 24);
        strip(&mut p);
        assert_eq!(p.len(), 12);
        assert_eq!(p.ip_header_offset(), Some(-24));
        crate::ip::unstrip_ip_header::unstrip(&mut p);
        assert_eq!(p.len(), 36);
        assert_eq!(p.ip_header_offset(), Some(0));
    }
}
