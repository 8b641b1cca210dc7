//! # Idle
//!
//! `Idle`
//!
//! **Category:** basic sources and sinks. Never pushes or pulls; drops what
//! it is given.
//!
//! **Ports:** any number of inputs and outputs, agnostic; no packet flows
//! from an input to an output.
//!
//! ## Description
//!
//! Idle never pushes packets and returns nothing when pulled; packets pushed
//! to it are dropped. It has no task. It is useful to fill unused ports.
//! Its "empty" notifier is never active, so pullers downstream of an Idle
//! sleep instead of polling it.
//!
//! ## Examples
//!
//! ```text
//! Idle -> [1]rr :: RoundRobinSched;
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## See also
//!
//! Discard

use rclick_core::{Ctx, Element, Notifier, PacketBatch};

/// The Idle element.
pub struct Idle {
    notifier: Notifier,
}

impl Default for Idle {
    fn default() -> Self {
        Idle {
            notifier: Notifier::new(false),
        }
    }
}

impl Element for Idle {
    fn class_name(&self) -> &'static str {
        "Idle"
    }
    fn port_count(&self) -> &'static str {
        "-/-"
    }
    fn flow_code(&self) -> &'static str {
        "x/y"
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, _cx: &mut Ctx) {
        drop(batch);
    }
    fn pull(&mut self, _port: usize, _max: usize, _cx: &mut Ctx) -> PacketBatch {
        PacketBatch::new()
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.notifier.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn inline_ports() {
        let r = testing::build(
            "i, j :: Idle; i[0] -> [0]j; i[1] -> [1]j; i[2] -> [2]j;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(r.nelements(), 2);
    }

    #[test]
    fn puller_sleeps() {
        let r = testing::run("Idle -> PullNull -> d :: Discard;", &registry()).unwrap();
        assert_eq!(testing::read(&r, "d.scheduled"), "false");
        assert_eq!(testing::read(&r, "d.count"), "0");
    }
}
