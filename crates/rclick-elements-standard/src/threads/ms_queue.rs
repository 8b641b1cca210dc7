//! # MSQueue
//!
//! `MSQueue([CAPACITY])`
//!
//! **Category:** storage (threads). Stores packets in a FIFO queue for
//! several producers and one consumer (deprecated: use ThreadSafeQueue).
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! SMP Click's multiple-producer, single-consumer queue: any number of
//! threads push to it at once while one thread pulls. Click has since made
//! it another name for ThreadSafeQueue, which allows several consumers
//! too, and warns that it is deprecated when it is configured; so does
//! this MSQueue, which is a ThreadSafeQueue in every respect but its class
//! name: same keyword, handlers and notifiers.
//!
//! Keywords:
//!
//! * `CAPACITY` (unsigned integer): the most packets held at once.
//!   Default 1000.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `length` (read): packets held now.
//! * `highwater_length` (read): the most packets held at once so far.
//! * `capacity` (read/write): the CAPACITY; written, it changes it.
//! * `drops` (read): packets dropped because the queue was full.
//! * `reset_counts` (write): zeroes `drops` and `highwater_length`.
//! * `reset` (write): drops every packet held.
//!
//! They behave as ThreadSafeQueue's.
//!
//! ## Examples
//!
//! ```text
//! pd0 :: InfiniteSource -> q :: MSQueue;  pd1 :: InfiniteSource -> q;
//! q -> uq :: Unqueue -> Discard;
//! StaticThreadSched(pd0 0, pd1 1, uq 2);
//! ```
//!
//! ## See also
//!
//! ThreadSafeQueue, Queue, CPUQueue

use rclick_core::PacketBatch;
use rclick_core::{ConcurrentPorts, ConfigureCx, Ctx, Element, HandlerDef, Notifier};
use std::sync::Arc;

use super::thread_safe_queue::ThreadSafeQueue;

/// Makes an MSQueue.
pub fn new() -> Box<dyn Element> {
    Box::new(MsQueue(ThreadSafeQueue::with_class("MSQueue")))
}

/// The MSQueue element: a ThreadSafeQueue that warns it is deprecated.
pub struct MsQueue(pub ThreadSafeQueue);

impl Element for MsQueue {
    fn class_name(&self) -> &'static str {
        self.0.class_name()
    }
    fn port_count(&self) -> &'static str {
        self.0.port_count()
    }
    fn processing(&self) -> &'static str {
        self.0.processing()
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.0.configure(conf, cx)?;
        cx.warning("MSQueue is deprecated, use ThreadSafeQueue instead");
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn live_reconfigure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.0.live_reconfigure(conf, cx)
    }
    fn reconfigured(&mut self, cx: &mut Ctx) {
        self.0.reconfigured(cx);
    }
    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.0.push(port, batch, cx);
    }
    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        self.0.pull(port, max, cx)
    }
    fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
        self.0.concurrent_ports()
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        self.0.handlers()
    }
    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        self.0.read_handler(id, param, cx)
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.0.write_handler(id, value, cx)
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        self.0.empty_notifier()
    }
    fn full_notifier(&self) -> Option<Notifier> {
        self.0.full_notifier()
    }
    fn notifier_passthrough(&self) -> bool {
        false
    }
    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        if let Some(old) = old.downcast_mut::<MsQueue>() {
            self.0.take_state(&mut old.0, cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn is_a_thread_safe_queue_that_warns() {
        let r = testing::run(
            "InfiniteSource(LIMIT 12, STOP true) -> q :: MSQueue(5) -> u :: Unqueue -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log()[..2],
            [
                "config:1: While configuring 'q :: MSQueue':",
                "  warning: MSQueue is deprecated, use ThreadSafeQueue instead"
            ]
        );
        assert_eq!(testing::read(&r, "c.count"), "12");
        assert_eq!(testing::read(&r, "q.class"), "MSQueue");
        assert_eq!(testing::read(&r, "q.capacity"), "5");
        assert_eq!(testing::read(&r, "q.drops"), "0");
        assert_eq!(testing::read(&r, "q.length"), "0");
        assert!(testing::build("Idle -> MSQueue(x) -> Discard;", &test_registry(), true).is_err());
    }
}
