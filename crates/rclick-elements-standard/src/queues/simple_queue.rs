//! # SimpleQueue
//!
//! `SimpleQueue([CAPACITY])`
//!
//! **Category:** storage. Stores packets in a FIFO queue.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Stores incoming packets in a first-in-first-out queue and hands them out
//! when pulled. Drops incoming packets when the queue already holds
//! CAPACITY packets; dropped packets leave on output 1 when it exists.
//! SimpleQueue provides no notifiers: pullers downstream poll it. Queue and
//! NotifierQueue add notification.
//!
//! Keywords:
//!
//! * `CAPACITY` (unsigned integer): the most packets held at once.
//!   Default 1000.
//!
//! The first overflow prints `NAME :: CLASS: overflow` once.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `length` (read): packets now queued.
//! * `highwater_length` (read): the most packets ever queued at once (since
//!   the last `reset_counts`).
//! * `capacity` (read/write): CAPACITY. Writing a smaller capacity discards
//!   the packets past the new capacity (the newest ones).
//! * `drops` (read): packets dropped so far.
//! * `reset_counts` (write): resets `drops`, and `highwater_length` to the
//!   current length.
//! * `reset` (write): empties the queue (packets go to output 1 if it
//!   exists).
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> SimpleQueue(200) -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! Queue, NotifierQueue, QuickNoteQueue, FrontDropQueue, MixedQueue, RED

use rclick_core::{Ctx, Element, PacketBatch};

use super::storage::{QueueClass, QueueElement, Store};

/// SimpleQueue: tail drop, no notifiers.
#[derive(Default)]
pub struct SimpleQueue;

impl QueueClass for SimpleQueue {
    const CLASS: &'static str = "SimpleQueue";
    const EMPTY_NOTE: bool = false;
    const FULL_NOTE: bool = false;

    #[inline]
    fn push(s: &mut Store, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let dropped = s.enqueue_tail_drop(batch);
        s.emit_drops(dropped, cx);
    }

    #[inline]
    fn pull(s: &mut Store, max: usize, _cx: &mut Ctx) -> PacketBatch {
        s.dequeue(max)
    }
}

/// Makes a SimpleQueue.
pub fn new() -> Box<dyn Element> {
    QueueElement::<SimpleQueue>::boxed()
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn drops_when_full_and_counts() {
        let r = testing::run(
            "InfiniteSource(LIMIT 8, STOP true) -> q :: SimpleQueue(5) -> Idle;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.length"), "5");
        assert_eq!(testing::read(&r, "q.drops"), "3");
        assert_eq!(testing::read(&r, "q.highwater_length"), "5");
        assert_eq!(testing::read(&r, "q.capacity"), "5");
        let log = r.take_log();
        assert_eq!(
            log.iter().filter(|l| l.contains("overflow")).count(),
            1,
            "{log:?}"
        );
        r.write_handler("q.reset_counts", "").unwrap();
        assert_eq!(testing::read(&r, "q.drops"), "0");
        r.write_handler("q.reset", "").unwrap();
        assert_eq!(testing::read(&r, "q.length"), "0");
    }

    #[test]
    fn dropped_packets_leave_on_output_1() {
        let r = testing::run(
            "InfiniteSource(LIMIT 8, STOP true) -> q :: SimpleQueue(5) -> Idle; q[1] -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
    }

    #[test]
    fn capacity_shrink_discards_newest() {
        let r = testing::run(
            "InfiniteSource(LIMIT 8, STOP true) -> q :: SimpleQueue -> Idle;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q.length"), "8");
        r.write_handler("q.capacity", "3").unwrap();
        assert_eq!(testing::read(&r, "q.length"), "3");
        assert_eq!(testing::read(&r, "q.capacity"), "3");
        assert_eq!(testing::read(&r, "q.config"), "CAPACITY 3");
        assert!(r.write_handler("q.capacity", "-1").is_err());
        assert_eq!(testing::read(&r, "q.capacity"), "3");
    }

    #[test]
    fn bad_configuration() {
        assert!(testing::build("Idle -> SimpleQueue(x) -> Idle;", &test_registry(), true).is_err());
        assert!(
            testing::build("Idle -> SimpleQueue(1, 2) -> Idle;", &test_registry(), true).is_err()
        );
    }
}
