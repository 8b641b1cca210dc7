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
//! * `length` (read): packets now queued.
//! * `highwater_length` (read): the most packets ever queued at once.
//! * `capacity` (read/write): CAPACITY. Writing a smaller capacity discards
//!   the newest packets past it.
//! * `drops` (read): packets dropped so far.
//! * `reset_counts` (write): resets `drops` and `highwater_length`.
//! * `reset` (write): empties the queue.
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

use rclick_core::{Ctx, Element, PacketBatch};

use super::storage::{QueueClass, QueueElement, Store};

/// NotifierQueue: SimpleQueue with an "empty" notifier that sleeps after
/// several empty pulls.
#[derive(Default)]
pub struct NotifierQueue;

impl QueueClass for NotifierQueue {
    const CLASS: &'static str = "NotifierQueue";
    const EMPTY_NOTE: bool = true;
    const FULL_NOTE: bool = false;

    #[inline]
    fn push(s: &mut Store, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let dropped = s.enqueue_tail_drop(batch);
        s.wake_empty(cx);
        s.emit_drops(dropped, cx);
    }

    #[inline]
    fn pull(s: &mut Store, max: usize, _cx: &mut Ctx) -> PacketBatch {
        let out = s.dequeue(max);
        s.note_pull(!out.is_empty());
        out
    }
}

/// Makes a NotifierQueue.
pub fn new() -> Box<dyn Element> {
    QueueElement::<NotifierQueue>::boxed()
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
