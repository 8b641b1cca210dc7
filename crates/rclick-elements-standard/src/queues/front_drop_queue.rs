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
//! * `length` (read): packets now queued.
//! * `highwater_length` (read): the most packets ever queued at once.
//! * `capacity` (read/write): CAPACITY. Writing a smaller capacity discards
//!   the oldest packets past it.
//! * `drops` (read): packets dropped so far.
//! * `reset_counts` (write): resets `drops` and `highwater_length`.
//! * `reset` (write): empties the queue.
//!
//! ## See also
//!
//! Queue, SimpleQueue, MixedQueue, RED

use rclick_core::{Ctx, Element, PacketBatch};

use super::notifier_queue::NotifierQueue;
use super::storage::{QueueClass, QueueElement, Store};

/// FrontDropQueue: NotifierQueue that drops the oldest packet to make room.
#[derive(Default)]
pub struct FrontDropQueue;

impl QueueClass for FrontDropQueue {
    const CLASS: &'static str = "FrontDropQueue";
    const KEEP_NEWEST: bool = true;
    const EMPTY_NOTE: bool = true;
    const FULL_NOTE: bool = false;

    #[inline]
    fn push(s: &mut Store, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let dropped = s.enqueue_front_drop(batch);
        s.wake_empty(cx);
        s.emit_drops(dropped, cx);
    }

    /// NotifierQueue's (Click's FrontDropQueue and MixedQueue inherit it).
    #[inline]
    fn pull(s: &mut Store, max: usize, cx: &mut Ctx) -> PacketBatch {
        NotifierQueue::pull(s, max, cx)
    }
}

/// Makes a FrontDropQueue.
pub fn new() -> Box<dyn Element> {
    QueueElement::<FrontDropQueue>::boxed()
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
