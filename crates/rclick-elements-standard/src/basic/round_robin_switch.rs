//! # RoundRobinSwitch
//!
//! `RoundRobinSwitch`
//!
//! **Category:** classification. Sends packets to its outputs in turn.
//!
//! **Ports:** one push input, one or more push outputs.
//!
//! ## Description
//!
//! Sends the first packet out output 0, the next out output 1, and so on,
//! wrapping around after the last output. `RRSwitch` is another name for
//! it.
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
//! ... -> s :: RoundRobinSwitch;
//! s[0] -> Queue -> ToDevice(eth0);
//! s[1] -> Queue -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! Switch, HashSwitch, RoundRobinSched

use rclick_core::{Ctx, Element, PacketBatch};

/// The RoundRobinSwitch element.
#[derive(Default)]
pub struct RoundRobinSwitch {
    next: usize,
}

impl Element for RoundRobinSwitch {
    fn class_name(&self) -> &'static str {
        "RoundRobinSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs().max(1);
        if n == 1 {
            cx.push(0, batch);
            return;
        }
        for p in batch {
            let i = self.next % n;
            self.next = (i + 1) % n;
            cx.push_one(i, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn rotates() {
        let r = testing::run(
            "InfiniteSource(LIMIT 7, BURST 3, STOP true) -> s :: RoundRobinSwitch -> a :: Counter -> Discard; s[1] -> b :: Counter -> Discard; s[2] -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "3");
        assert_eq!(testing::read(&r, "b.count"), "2");
        assert_eq!(testing::read(&r, "c.count"), "2");
    }
}
