//! # RoundRobinSched
//!
//! `RoundRobinSched`
//!
//! **Category:** scheduling. Pulls from round-robin-scheduled inputs.
//!
//! **Ports:** any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! Each time a pull comes in on the output, RoundRobinSched pulls from its
//! inputs in turn, starting with the input after the one that produced the
//! last packet, until one produces a packet or all have been tried.
//! Inputs whose upstream queues say they are empty are skipped. Passes
//! notification through, like PrioSched.
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
//! q1 :: Queue -> [0] rr :: RoundRobinSched; q2 :: Queue -> [1] rr;
//! rr -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! PrioSched, StrideSched, RoundRobinSwitch

use rclick_core::{Ctx, Element, InitCx, PacketBatch};

use super::inputs::InputSignals;

/// The RoundRobinSched element.
#[derive(Default)]
pub struct RoundRobinSched {
    next: usize,
    inputs: InputSignals,
}

impl Element for RoundRobinSched {
    fn class_name(&self) -> &'static str {
        "RoundRobinSched"
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
        let n = self.inputs.len();
        let mut out = PacketBatch::new();
        if n == 0 {
            return out;
        }
        'packets: while out.len() < max {
            let mut i = self.next % n;
            for _ in 0..n {
                let got = self.inputs.pull_one(i, cx);
                i = (i + 1) % n;
                if let Some(p) = got {
                    self.next = i;
                    out.push(p);
                    continue 'packets;
                }
            }
            break;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn alternates() {
        let r = testing::run(
            "a :: InfiniteSource(LIMIT 5) -> qa :: Queue -> [0] s :: RoundRobinSched;
             b :: InfiniteSource(LIMIT 5) -> qb :: Queue -> [1] s;
             s -> u :: Unqueue(LIMIT 6, BURST 6) -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "6");
        assert_eq!(testing::read(&r, "qa.length"), "2");
        assert_eq!(testing::read(&r, "qb.length"), "2");
    }
}
