//! # NotifierQueue
//!
//! `NotifierQueue([CAPACITY])`
//!
//! **Category:** storage. Stores packets in a FIFO queue and says when it
//! has packets.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores incoming packets in a first-in-first-out queue, dropping incoming
//! packets when it already holds CAPACITY packets (they leave on output 1
//! if it exists). Unlike SimpleQueue it provides an "empty" notifier:
//! pullers downstream (Unqueue, schedulers, ToDevice) sleep while the queue
//! is empty and are woken when a packet arrives. The notifier goes to
//! sleep only after several pulls in a row find the queue empty, so queues
//! that hover around one or two packets do not thrash.
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
//! * `length` (read), `highwater_length` (read), `capacity` (read/write),
//!   `drops` (read), `reset_counts` (write), `reset` (write): as for
//!   SimpleQueue.
//!
//! ## Examples
//!
//! ```text
//! src :: FromDevice(eth0) -> NotifierQueue(100) -> Unqueue -> Discard;
//! ```
//!
//! ## See also
//!
//! Queue, SimpleQueue, QuickNoteQueue, FrontDropQueue, MixedQueue

use rclick_core::Element;

use super::storage::{QueueElement, QueueKind};

/// Makes a NotifierQueue.
pub fn new() -> Box<dyn Element> {
    Box::new(QueueElement::new(QueueKind::Notifier))
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn source_is_not_throttled() {
        // NotifierQueue has no "full" notifier: the source keeps pushing.
        let r = testing::run(
            "i :: InfiniteSource(LIMIT 15, STOP true) -> c :: Counter -> q :: NotifierQueue(5) -> Idle;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "15");
        assert_eq!(testing::read(&r, "q.drops"), "10");
    }

    #[test]
    fn feeds_unqueue() {
        let r = testing::run(
            "InfiniteSource(LIMIT 7) -> q :: NotifierQueue -> Unqueue -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "7");
        assert_eq!(testing::read(&r, "q.length"), "0");
    }
}
