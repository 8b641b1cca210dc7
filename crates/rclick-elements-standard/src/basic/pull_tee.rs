//! # PullTee
//!
//! `PullTee([N])`
//!
//! **Category:** basic. Duplicates packets.
//!
//! **Ports:** one pull input; pull output 0 and push outputs 1 and up.
//!
//! ## Description
//!
//! When output 0 is pulled, pulls a packet from the input, pushes a clone
//! of it out each of outputs 1 to N-1, and returns the original.
//!
//! Keywords: `N` (unsigned): the number of outputs; if given it must equal
//! the number of outputs used.
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
//! Queue -> t :: PullTee -> ToDevice(eth0);
//! t[1] -> Print(sent) -> Discard;
//! ```
//!
//! ## See also
//!
//! Tee

use rclick_core::{ConfigureCx, Ctx, Element, PacketBatch};

/// The PullTee element.
#[derive(Default)]
pub struct PullTee;

impl Element for PullTee {
    fn class_name(&self) -> &'static str {
        "PullTee"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "l/lh"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        super::tee::configure_arms(conf, cx.noutputs())
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        if !batch.is_empty() {
            for i in 1..cx.noutputs() {
                let copy: PacketBatch = batch.iter().cloned().collect();
                cx.push(i, copy);
            }
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn copies_on_pull() {
        let r = testing::run(
            "InfiniteSource(LIMIT 5, STOP true) -> t :: PullTee -> a :: Counter -> Discard; t[1] -> b :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "5");
        assert_eq!(testing::read(&r, "b.count"), "5");
    }
}
