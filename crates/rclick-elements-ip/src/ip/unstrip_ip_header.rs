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

use rclick_core::{Ctx, Element, Packet, PacketBatch};

/// The UnstripIPHeader element.
#[derive(Default)]
pub struct UnstripIPHeader;

#[inline]
pub(crate) fn unstrip(p: &mut Packet) {
    if let Some(off) = p.ip_header_offset() {
        if off < 0 {
            let _ = p.push(off.unsigned_abs());
        }
    }
}

impl Element for UnstripIPHeader {
    fn class_name(&self) -> &'static str {
        "UnstripIPHeader"
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        batch.iter_mut().for_each(unstrip);
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        batch.iter_mut().for_each(unstrip);
        batch
    }
}
