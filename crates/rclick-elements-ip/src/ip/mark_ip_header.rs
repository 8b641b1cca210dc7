//! # MarkIPHeader
//!
//! `MarkIPHeader([OFFSET])`
//!
//! **Category:** ip. Sets the IP header annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Marks each packet as an IP packet whose header starts OFFSET bytes in
//! (unsigned, default 0), with the header length taken from the header's
//! IHL field. Checks nothing: use CheckIPHeader to validate. Packets too
//! short to hold the first header byte are passed on unmarked.
//!
//! Keywords: `OFFSET` (unsigned, default 0).
//!
//! ## Annotations
//!
//! Sets the IP header annotation (and the transport header annotation after
//! it).
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> MarkIPHeader(14) -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, CheckIPHeader2, StripIPHeader

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};

/// The MarkIPHeader element.
#[derive(Default)]
pub struct MarkIPHeader {
    offset: usize,
}

impl MarkIPHeader {
    #[inline]
    fn mark(&self, p: &mut Packet) {
        if let Some(&b) = p.data().get(self.offset) {
            p.set_ip_header(self.offset, usize::from(b & 0x0f) * 4);
        }
    }
}

impl Element for MarkIPHeader {
    fn class_name(&self) -> &'static str {
        "MarkIPHeader"
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut offset = 0usize;
        Args::new(conf)
            .read_p("OFFSET", &mut offset)
            .complete()
            .map_err(|e| e.to_string())?;
        self.offset = offset;
        Ok(())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        for p in batch.iter_mut() {
            self.mark(p);
        }
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        for p in batch.iter_mut() {
            self.mark(p);
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_header() {
        let m = MarkIPHeader { offset: 2 };
        let mut p = Packet::from_slice(&[0, 0, 0x46, 0, 0, 0]);
        m.mark(&mut p);
        assert_eq!(p.ip_header_offset(), Some(2));
        assert_eq!(p.ip_header_len(), 24);
        let mut q = Packet::from_slice(&[0]);
        m.mark(&mut q);
        assert!(!q.has_network_header());
    }
}
