//! # CPUSwitch
//!
//! `CPUSwitch()`
//!
//! **Category:** threads. Classifies packets by the thread pushing them.
//!
//! **Ports:** one push input; one or more push outputs.
//!
//! ## Description
//!
//! Sends each packet to output T mod N, where T is the number of the
//! router thread pushing it (from 0) and N the number of outputs. Paths
//! that start on different threads can so be kept apart after a shared
//! element, for example to give each thread its own queue. CPUSwitch has
//! no state: any number of threads may push through it at once (the
//! router calls its thread-safe ports, never taking the element).
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
//! a :: InfiniteSource -> s :: CPUSwitch;  b :: InfiniteSource -> s;
//! s[0] -> Queue -> ToDevice(eth0);  s[1] -> Queue -> ToDevice(eth1);
//! StaticThreadSched(a 0, b 1);
//! ```
//!
//! ## See also
//!
//! CPUQueue, RoundRobinSwitch, HashSwitch, StaticThreadSched

use std::sync::Arc;

use rclick_core::{ConcurrentPorts, Ctx, Element, PacketBatch};

/// The output for the calling thread.
#[inline]
fn push_by_thread(batch: PacketBatch, cx: &mut Ctx) {
    let n = cx.noutputs();
    if n > 0 {
        cx.push(cx.thread_id() % n, batch);
    }
}

/// CPUSwitch's ports: no state, so nothing to take.
struct Ports;

impl ConcurrentPorts for Ports {
    fn push(&self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_by_thread(batch, cx);
    }
}

/// The CPUSwitch element.
pub struct CpuSwitch;

/// Makes a CPUSwitch.
pub fn new() -> Box<dyn Element> {
    Box::new(CpuSwitch)
}

impl Element for CpuSwitch {
    fn class_name(&self) -> &'static str {
        "CPUSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_by_thread(batch, cx);
    }
    fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
        Some(Arc::new(Ports))
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use crate::threads::build_threads;
    use rclick_core::testing;

    #[test]
    fn output_of_the_pushing_thread() {
        let r = build_threads(
            "a :: InfiniteSource(LIMIT 7, STOP true) -> s :: CPUSwitch;
             b :: InfiniteSource(LIMIT 5, STOP true) -> s;
             s[0] -> c0 :: Counter -> Discard;
             s[1] -> c1 :: Counter -> Discard;
             StaticThreadSched(a 1, b 0);
             DriverManager(wait_stop, wait_stop, stop);",
            2,
        );
        r.run();
        assert_eq!(testing::read(&r, "c0.count"), "5");
        assert_eq!(testing::read(&r, "c1.count"), "7");
        // One thread: everything to output 0; thread 2 of 3 on 2 outputs: 0.
        let r = build_threads(
            "a :: InfiniteSource(LIMIT 4, STOP true) -> s :: CPUSwitch;
             s[0] -> c0 :: Counter -> Discard; s[1] -> c1 :: Counter -> Discard;
             StaticThreadSched(a 2);
             DriverManager(wait_stop, stop);",
            3,
        );
        r.run();
        assert_eq!(testing::read(&r, "c0.count"), "4");
        assert_eq!(testing::read(&r, "c1.count"), "0");
    }

    #[test]
    fn takes_no_arguments() {
        assert!(
            testing::build("Idle -> CPUSwitch(1) -> Discard;", &test_registry(), true).is_err()
        );
    }
}
