//! # MarkMACHeader
//!
//! `MarkMACHeader([OFFSET, LENGTH])`
//!
//! **Category:** ethernet. Sets the MAC header annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Marks the MAC header as starting OFFSET bytes into the packet and
//! LENGTH bytes long; the network header then starts right after it.
//!
//! Keywords:
//!
//! * `OFFSET` (unsigned, positional, default 0).
//! * `LENGTH` (unsigned, positional, default 14).
//!
//! ## Examples
//!
//! ```text
//! FromDump(f.pcap) -> MarkMACHeader -> ...
//! ```
//!
//! ## See also
//!
//! MarkIPHeader, ARPPrint

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};

/// The MarkMACHeader element.
pub struct MarkMacHeader {
    offset: u32,
    length: u32,
}

impl Default for MarkMacHeader {
    fn default() -> Self {
        MarkMacHeader {
            offset: 0,
            length: 14,
        }
    }
}

impl Element for MarkMacHeader {
    fn class_name(&self) -> &'static str {
        "MarkMACHeader"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut offset, mut length) = (0u32, 14u32);
        Args::new(conf)
            .read_p("OFFSET", &mut offset)
            .read_p("LENGTH", &mut length)
            .complete()
            .map_err(|e| e.to_string())?;
        self.offset = offset;
        self.length = length;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.set_mac_header_len(self.offset as usize, self.length as usize);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// EtherRewrite writes where the MAC header annotation says.
    #[test]
    fn marks_at_offset() {
        let r = testing::run(
            "InfiniteSource(DATA \\<ffff 000102030405 0a0b0c0d0e0f 0800>, LIMIT 1, STOP true)
             -> MarkMACHeader(2) -> EtherRewrite(1:1:1:1:1:1, 2:2:2:2:2:2) -> Print(m) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            ["m:   16 | ffff0202 02020202 01010101 01010800"]
        );
    }
}
