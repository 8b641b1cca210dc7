//! # MixedQueue
//!
//! `MixedQueue([CAPACITY])`
//!
//! **Category:** storage. Stores packets in a FIFO/LIFO queue.
//!
//! **Ports:** two push inputs; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores incoming packets in a queue that is first-in-first-out for input
//! 0 and last-in-first-out for input 1: packets arriving on input 0 join
//! the tail, packets arriving on input 1 go to the head and leave first.
//! When the queue holds CAPACITY packets, it drops incoming input-0 packets,
//! but drops the packet at the tail to make room for incoming input-1
//! packets. Dropped packets leave on output 1 if it exists. Provides an
//! "empty" notifier like NotifierQueue.
//!
//! After pushes of A on 0, B on 0, C on 1, D on 0 and E on 1, the queue
//! holds, head first, E C A B D.
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
//!   the newest packets past it.
//! * `drops` (read): packets dropped so far.
//! * `reset_counts` (write): resets `drops` and `highwater_length`.
//! * `reset` (write): empties the queue.
//!
//! ## See also
//!
//! Queue, SimpleQueue, FrontDropQueue

use rclick_core::{Ctx, Element, PacketBatch};

use super::notifier_queue::NotifierQueue;
use super::storage::{QueueClass, QueueElement, Store};

/// MixedQueue: NotifierQueue with a second, LIFO input.
#[derive(Default)]
pub struct MixedQueue;

impl QueueClass for MixedQueue {
    const CLASS: &'static str = "MixedQueue";
    const PORTS: &'static str = "2/1-2";
    const EMPTY_NOTE: bool = true;
    const FULL_NOTE: bool = false;

    #[inline]
    fn push(s: &mut Store, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let dropped = if port == 1 {
            s.enqueue_head(batch)
        } else {
            s.enqueue_tail_drop(batch)
        };
        s.wake_empty(cx);
        s.emit_drops(dropped, cx);
    }

    /// NotifierQueue's (Click's FrontDropQueue and MixedQueue inherit it).
    #[inline]
    fn pull(s: &mut Store, max: usize, cx: &mut Ctx) -> PacketBatch {
        NotifierQueue::pull(s, max, cx)
    }
}

/// Makes a MixedQueue.
pub fn new() -> Box<dyn Element> {
    QueueElement::<MixedQueue>::boxed()
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn lifo_input_goes_first_and_evicts_tail() {
        let reg = test_registry();
        let r = testing::run(
            "a :: InfiniteSource(\\<01>, LIMIT 3, STOP true) -> m :: MixedQueue(4) -> Idle;
             b :: InfiniteSource(\\<02>, LIMIT 3) -> [1] m;
             m[1] -> d :: Counter -> Discard;",
            &reg,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "m.length"), "4");
        assert_eq!(testing::read(&r, "m.drops"), "2");
        assert_eq!(testing::read(&r, "d.count"), "2");
    }

    #[test]
    fn two_inputs_required() {
        assert!(testing::build("Idle -> MixedQueue -> Idle;", &test_registry(), true).is_err());
    }
}
