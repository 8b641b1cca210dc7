//! # PullNull
//!
//! `PullNull`
//!
//! **Category:** basic. Passes packets unchanged, in pull mode.
//!
//! **Ports:** one pull input, one pull output.
//!
//! ## Description
//!
//! Answers each pull request by pulling from its input and returning what
//! it got, unchanged. It keeps no packets, so notifier searches pass
//! through it.
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
//! Queue -> PullNull -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! Null, PushNull

use rclick_core::{Ctx, Element, PacketBatch};

/// The PullNull element.
#[derive(Default)]
pub struct PullNull;

impl Element for PullNull {
    fn class_name(&self) -> &'static str {
        "PullNull"
    }
    fn processing(&self) -> &'static str {
        "l/l"
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
    fn pull_only() {
        let r = testing::run(
            "InfiniteSource(LIMIT 4, STOP true) -> PullNull -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "4");
    }
}
