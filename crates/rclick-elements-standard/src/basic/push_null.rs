//! # PushNull
//!
//! `PushNull`
//!
//! **Category:** basic. Passes packets unchanged, in push mode.
//!
//! **Ports:** one push input, one push output.
//!
//! ## Description
//!
//! Pushes each packet it receives out its output, unchanged.
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
//! FromDevice(eth0) -> PushNull -> Queue -> ...
//! ```
//!
//! ## See also
//!
//! Null, PullNull

use rclick_core::{Ctx, Element, PacketBatch};

/// The PushNull element.
#[derive(Default)]
pub struct PushNull;

impl Element for PushNull {
    fn class_name(&self) -> &'static str {
        "PushNull"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        cx.push(0, batch);
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn push_only() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> PushNull -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        let e = testing::build(
            "Idle -> PushNull -> PullNull -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("push output 0 connected to"), "{e}");
    }
}
