//! # FrontDropQueue
//!
//! `FrontDropQueue([CAPACITY])`
//!
//! **Category:** storage. Stores packets in a drop-from-front FIFO queue.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores incoming packets in a first-in-first-out queue. When the queue
//! already holds CAPACITY packets, the oldest packet (at the head) is
//! dropped to make room for the incoming one; dropped packets leave on
//! output 1 if it exists. Provides an "empty" notifier like NotifierQueue.
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
//! * `length`, `highwater_length`, `drops`, `reset_counts`, `reset`: as for
//!   SimpleQueue.
//! * `capacity` (read/write): CAPACITY. Writing a smaller capacity discards
//!   the oldest packets.
//!
//! ## See also
//!
//! Queue, SimpleQueue, MixedQueue, RED

use rclick_core::Element;

use super::storage::{QueueElement, QueueKind};

/// Makes a FrontDropQueue.
pub fn new() -> Box<dyn Element> {
    Box::new(QueueElement::new(QueueKind::FrontDrop))
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn drops_the_oldest() {
        let r = testing::run(
            "InfiniteSource(LIMIT 8, STOP true) -> q :: FrontDropQueue(3) -> Idle; q[1] -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "5");
        assert_eq!(testing::read(&r, "q.length"), "3");
        assert_eq!(testing::read(&r, "q.drops"), "5");
    }

    #[test]
    fn live_reconfigure_does_not_crash() {
        let r = testing::run("Idle -> q :: FrontDropQueue -> Discard;", &test_registry()).unwrap();
        r.write_handler("q.capacity", "100").unwrap();
        assert_eq!(testing::read(&r, "q.capacity"), "100");
        r.write_handler("q.capacity", "0").unwrap();
        assert_eq!(testing::read(&r, "q.length"), "0");
    }
}
