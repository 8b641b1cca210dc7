//! # PrioSched
//!
//! `PrioSched`
//!
//! **Category:** scheduling. Pulls from priority-scheduled inputs.
//!
//! **Ports:** any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! Each time a pull comes in on the output, PrioSched pulls from input 0,
//! then input 1 if input 0 had nothing, and so on: lower-numbered inputs
//! have strictly higher priority. Inputs whose upstream queues say they
//! are empty are skipped without being pulled. PrioSched passes
//! notification through: a puller downstream sleeps until some queue
//! upstream of any input has packets.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! None besides the standard ones.
//!
//! ## Examples
//!
//! ```text
//! hi :: Queue -> [0] p :: PrioSched; lo :: Queue -> [1] p; p -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! RoundRobinSched, StrideSched, Queue

use rclick_core::{Ctx, Element, InitCx, PacketBatch};

use super::inputs::InputSignals;

/// The PrioSched element.
#[derive(Default)]
pub struct PrioSched {
    inputs: InputSignals,
}

impl Element for PrioSched {
    fn class_name(&self) -> &'static str {
        "PrioSched"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.inputs.initialize(cx);
        Ok(())
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut out = PacketBatch::new();
        for i in 0..self.inputs.len() {
            if out.len() >= max {
                break;
            }
            self.inputs.pull_into(i, max - out.len(), &mut out, cx);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn higher_priority_first() {
        let r = testing::run(
            "a :: InfiniteSource(LIMIT 5) -> qa :: Queue -> [0] p :: PrioSched;
             b :: InfiniteSource(LIMIT 5) -> qb :: Queue -> [1] p;
             p -> u :: Unqueue(LIMIT 6) -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "6");
        assert_eq!(testing::read(&r, "qa.length"), "0");
        assert_eq!(testing::read(&r, "qb.length"), "4");
    }

    #[test]
    fn notifier_passes_through() {
        // notifier-02: the Unqueue sleeps, then wakes when the source starts
        let r = testing::run(
            "i :: InfiniteSource(ACTIVE false, LIMIT 5) -> q :: Queue -> p :: PrioSched -> u :: Unqueue -> c :: Counter -> Discard;
             Idle -> [1]p;
             At(0.1, read u.scheduled, write i.active true);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["u.scheduled: false"]);
        assert_eq!(testing::read(&r, "c.count"), "5");
    }
}
