//! # Queue
//!
//! `Queue([CAPACITY])`, also `FullNoteQueue([CAPACITY])`
//!
//! **Category:** storage. Stores packets in a FIFO queue.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores incoming packets in a first-in-first-out queue. Drops incoming
//! packets if the queue already holds CAPACITY packets; dropped packets
//! leave on output 1 when it exists.
//!
//! Queue notifies in both directions. Its "empty" notifier is active while
//! it holds packets: pullers downstream sleep on it and are woken when a
//! packet arrives in an empty queue (the notifier goes to sleep some pulls
//! after the queue empties, as NotifierQueue's). Its "full" notifier is
//! active while it has room: pushers upstream, such as InfiniteSource,
//! sleep while the queue is full and are woken as soon as a pull (or a
//! larger capacity, or `reset`) makes room. In every other respect Queue
//! behaves like SimpleQueue. `FullNoteQueue` is the old name of the same
//! class.
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
//!   the newest packets past it; a larger one wakes sleeping pushers.
//! * `drops` (read): packets dropped so far.
//! * `reset_counts` (write): resets `drops` and `highwater_length`.
//! * `reset` (write): empties the queue.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> Queue(10) -> RatedUnqueue(100) -> Discard;
//! ```
//!
//! ## See also
//!
//! SimpleQueue, NotifierQueue, QuickNoteQueue, FrontDropQueue, MixedQueue,
//! RED, Unqueue

use rclick_core::{Ctx, Element, PacketBatch};

use super::storage::{QueueClass, QueueElement, Store};

/// Queue (FullNoteQueue): NotifierQueue with a "full" notifier that puts
/// the pushers to sleep while the queue is full.
#[derive(Default)]
pub struct Queue;

impl QueueClass for Queue {
    const CLASS: &'static str = "Queue";
    const EMPTY_NOTE: bool = true;
    const FULL_NOTE: bool = true;

    #[inline]
    fn push(s: &mut Store, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let dropped = s.enqueue_tail_drop(batch);
        s.wake_empty(cx);
        s.sleep_full_if_full();
        s.emit_drops(dropped, cx);
    }

    #[inline]
    fn pull(s: &mut Store, max: usize, cx: &mut Ctx) -> PacketBatch {
        let out = s.dequeue(max);
        s.note_pull(!out.is_empty());
        if !out.is_empty() {
            s.wake_full(cx);
        }
        out
    }
}

/// Makes a Queue (FullNoteQueue).
pub fn new() -> Box<dyn Element> {
    QueueElement::<Queue>::boxed()
}

#[cfg(test)]
mod tests {
    use crate::queues::{queue_checks, test_registry};
    use rclick_core::testing;

    #[test]
    fn full_queue_puts_source_to_sleep() {
        queue_checks::full_queue_puts_source_to_sleep("Queue");
    }

    #[test]
    fn capacity_zero_drops_everything_and_keeps_the_source_running() {
        // Click: `InfiniteSource(LIMIT 5, STOP true) -> q :: Queue(0) -> Idle`
        // gives q.drops 5, no overflow message (checked with clickdiff).
        let r = testing::run(
            "InfiniteSource(LIMIT 5, STOP true) -> q :: Queue(0) -> Idle;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.drops"), "5");
        assert_eq!(testing::read(&r, "q.length"), "0");
        assert!(r.take_log().is_empty());
    }

    #[test]
    fn capacity_changes_wake_and_drop() {
        queue_checks::capacity_changes_wake_and_drop("Queue");
    }

    #[test]
    fn pulls_wake_the_pusher() {
        let r = testing::run(
            "InfiniteSource(LIMIT 50, STOP true) -> q :: FullNoteQueue(1) -> c :: Counter -> Unqueue -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.drops"), "0");
        assert_eq!(testing::read(&r, "q.class"), "FullNoteQueue");
    }

    #[test]
    fn shared_length_follows_queue() {
        let r = testing::run(
            "InfiniteSource(LIMIT 4, STOP true) -> q :: Queue -> Idle;",
            &test_registry(),
        )
        .unwrap();
        let q = r.find("q").unwrap();
        let len = r
            .with_element(q, |e| crate::queues::storage::storage_length(e).unwrap())
            .unwrap();
        assert_eq!(len.load(std::sync::atomic::Ordering::Relaxed), 4);
    }
}
