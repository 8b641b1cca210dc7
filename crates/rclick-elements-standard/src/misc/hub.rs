//! # Hub
//!
//! `Hub()`
//!
//! **Category:** basic transfer. Duplicates packets like an Ethernet hub.
//!
//! **Ports:** any number of push inputs, the same number of push outputs.
//!
//! ## Description
//!
//! A packet arriving on input N is sent out every output except output N:
//! the last of those outputs gets the packet itself, the others get clones
//! (which share its data). With a single port pair the packet is dropped.
//! It is not Ethernet specific.
//!
//! ## Annotations
//!
//! None used or set; clones carry the original's annotations.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! h :: Hub;
//! FromDevice(eth0) -> [0]h[0] -> Queue -> ToDevice(eth0);
//! FromDevice(eth1) -> [1]h[1] -> Queue -> ToDevice(eth1);
//! FromDevice(eth2) -> [2]h[2] -> Queue -> ToDevice(eth2);
//! ```
//!
//! ## See also
//!
//! Tee, EtherSwitch

use rclick_core::{Ctx, Element, PacketBatch};

/// The Hub element.
#[derive(Default)]
pub struct Hub;

impl Element for Hub {
    fn class_name(&self) -> &'static str {
        "Hub"
    }
    fn port_count(&self) -> &'static str {
        "-/="
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn flow_code(&self) -> &'static str {
        "#/[^#]"
    }

    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let nout = cx.noutputs();
        let Some(last) = (0..nout).rev().find(|&i| i != port) else {
            return; // nowhere to go: dropped
        };
        for i in (0..nout).filter(|&i| i != port && i != last) {
            let mut copy = PacketBatch::with_capacity(batch.len());
            for p in batch.iter() {
                copy.push(p.clone());
            }
            cx.push(i, copy);
        }
        cx.push(last, batch);
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn floods_all_but_arrival_port() {
        let r = testing::run(
            "h :: Hub;
             InfiniteSource(LIMIT 2) -> [0]h;
             InfiniteSource(LIMIT 3) -> [2]h;
             Idle -> [1]h;
             h[0] -> c0 :: Counter -> Discard;
             h[1] -> c1 :: Counter -> Discard;
             h[2] -> c2 :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c0.count"), "3");
        assert_eq!(testing::read(&r, "c1.count"), "5");
        assert_eq!(testing::read(&r, "c2.count"), "2");
    }
}
