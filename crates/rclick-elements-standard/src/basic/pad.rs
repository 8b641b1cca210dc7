//! # Pad
//!
//! `Pad([LENGTH, KEYWORDS])`
//!
//! **Category:** basic. Extends packets with zero bytes.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! With LENGTH, extends packets shorter than LENGTH bytes to LENGTH bytes.
//! Without it (or with 0), extends each packet by its extra length
//! annotation, restoring bytes a Truncate or a capture removed. In both
//! cases the extra length annotation is then set to 0.
//!
//! Keywords:
//!
//! * `LENGTH` (unsigned): the minimum length. Default 0.
//! * `ZERO` (boolean): fill the new bytes with zeros. Default true (the new
//!   bytes are always zero here).
//!
//! ## Annotations
//!
//! Reads and clears the extra length annotation.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! ... -> Truncate(60) -> ... -> Pad -> ...  // restores the truncated length
//! ... -> Pad(60) -> ToDevice(eth0);  // minimum Ethernet frame
//! ```
//!
//! ## See also
//!
//! Truncate

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, Packet, PacketBatch};

use super::each_packet::{pull_kept, push_kept};

/// The Pad element.
#[derive(Default)]
pub struct Pad {
    n: u32,
}

/// Pads `p` to `n` bytes (by its extra length annotation when `n` is 0);
/// false when there is no room.
#[inline]
fn pad(p: &mut Packet, n: usize) -> bool {
    let add = if n > 0 {
        n.saturating_sub(p.len())
    } else {
        p.extra_length_anno() as usize
    };
    if add > 0 && p.put(add).is_err() {
        return false;
    }
    p.set_extra_length_anno(0);
    true
}

impl Element for Pad {
    fn class_name(&self) -> &'static str {
        "Pad"
    }
    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut n: u32 = 0;
        let mut zero = true;
        Args::new(conf)
            .read_p("LENGTH", &mut n)
            .read("ZERO", &mut zero)
            .complete()
            .map_err(|e| e.to_string())?;
        self.n = n;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = self.n as usize;
        push_kept(batch, cx, |p| pad(p, n));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let n = self.n as usize;
        pull_kept(max, cx, |p| pad(p, n))
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn pads_to_length() {
        let r = testing::run(
            "InfiniteSource(\\<0102>, LIMIT 1, STOP true) -> Pad(4) -> Print(a) -> Pad(3) -> Print(b) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["a:    4 | 01020000", "b:    4 | 01020000"]
        );
    }
}
