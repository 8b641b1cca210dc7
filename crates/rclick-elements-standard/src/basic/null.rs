//! # Null
//!
//! `Null`
//!
//! **Category:** basic. Passes packets unchanged.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Responds to each pushed packet by pushing it unchanged out its output,
//! and to each pull request by pulling a packet from its input and
//! returning it unchanged.
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
//! ... -> Null -> ...
//! ```
//!
//! ## See also
//!
//! PushNull, PullNull

use rclick_core::{Ctx, Element, PacketBatch};

/// The Null element.
#[derive(Default)]
pub struct Null;

impl Element for Null {
    fn class_name(&self) -> &'static str {
        "Null"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
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
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn passes() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> Null -> Null -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
    }
}
