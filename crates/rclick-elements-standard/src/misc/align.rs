//! # Align
//!
//! `Align(MODULUS, OFFSET)`
//!
//! **Category:** basic modification. Aligns packet data (a no-op here).
//!
//! **Ports:** one input, one output; agnostic.
//!
//! ## Description
//!
//! In Click, Align moves each packet's data so that its first byte lies
//! OFFSET bytes past a MODULUS-byte boundary, copying the packet if needed,
//! for machines that cannot load unaligned words. rclick reads headers
//! with byte-order-safe, alignment-free accessors, so Align passes packets
//! through unchanged; it checks its configuration as Click does, so
//! configurations written for (or by) click-align still load.
//!
//! Arguments:
//!
//! * `MODULUS` (unsigned integer): 2, 4 or 8. Required.
//! * `OFFSET` (integer): smaller than MODULUS. Required.
//!
//! Errors: `MODULUS must be 2, 4, or 8`, `OFFSET must be smaller than
//! MODULUS`.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! ... -> Align(4, 2) -> ...
//! ```
//!
//! ## See also
//!
//! AlignmentInfo

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, PacketBatch};

/// The Align element.
#[derive(Default)]
pub struct Align {
    modulus: u32,
    offset: i32,
}

impl Element for Align {
    fn class_name(&self) -> &'static str {
        "Align"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut modulus, mut offset) = (0u32, 0i32);
        Args::new(conf)
            .read_mp("MODULUS", &mut modulus)
            .read_mp("OFFSET", &mut offset)
            .complete()
            .map_err(|e| e.to_string())?;
        if !matches!(modulus, 2 | 4 | 8) {
            return Err("MODULUS must be 2, 4, or 8".into());
        }
        if i64::from(offset) >= i64::from(modulus) {
            return Err("OFFSET must be smaller than MODULUS".into());
        }
        self.modulus = modulus;
        self.offset = offset;
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        cx.push(0, batch);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        cx.pull(0, max)
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn passes_and_checks() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> Align(4, 2) -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        let e = testing::run("Idle -> Align(3, 0) -> Discard;", &test_registry()).unwrap_err();
        assert!(e.contains("MODULUS must be 2, 4, or 8"), "{e}");
        let e = testing::run("Idle -> Align(4, 4) -> Discard;", &test_registry()).unwrap_err();
        assert!(e.contains("OFFSET must be smaller than MODULUS"), "{e}");
        assert!(testing::run("Idle -> Align(4) -> Discard;", &test_registry()).is_err());
    }
}
