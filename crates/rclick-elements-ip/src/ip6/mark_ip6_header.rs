//! # MarkIP6Header
//!
//! `MarkIP6Header([OFFSET])`
//!
//! **Category:** ip6. Sets the IPv6 header annotation.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Marks each packet's IPv6 header as starting OFFSET bytes into its data
//! (default 0) and its transport header 40 bytes later, without checking
//! anything (CheckIP6Header checks). Elements that read the header through
//! the annotation check its length themselves, so a short packet is safe.
//!
//! ## Annotations
//!
//! Sets the IPv6 (network) and transport header annotations.
//!
//! ## See also
//!
//! CheckIP6Header, MarkIPHeader

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::ipv6::HEADER_LEN;

/// The MarkIP6Header element.
#[derive(Default)]
pub struct MarkIP6Header {
    offset: usize,
}

impl Element for MarkIP6Header {
    fn class_name(&self) -> &'static str {
        "MarkIP6Header"
    }
    fn is_simple(&self) -> bool {
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
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.set_ip_header(self.offset, HEADER_LEN);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip6::test_util::{ip6_hex, run_log};

    /// Compared with the reference Click: a header two bytes in, marked
    /// with OFFSET 2, prints from there.
    #[test]
    fn marks_at_offset() {
        let d = ip6_hex("2001:db8::1", "2001:db8:1::2", 17, 64, &[0; 8]);
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<0000{d}>, LIMIT 1, STOP true) -> MarkIP6Header(2)
               -> IP6Print(a) -> MarkIP6Header(OFFSET 0) -> IP6Print(b) -> Discard"
        ));
        assert_eq!(
            log[0],
            "a: 2001:db8::1 -> 2001:db8:1::2 plen 8, next 17, hlim 64"
        );
        assert!(log[1].starts_with("b: 1140:2001:db8:: -> "), "{log:?}");
    }
}
