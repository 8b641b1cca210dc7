//! # QuickNoteQueue
//!
//! `QuickNoteQueue([CAPACITY])`
//!
//! **Category:** storage. Stores packets in a FIFO queue; notifies at once.
//!
//! **Ports:** one push input; output 0 pull, optional output 1 push
//! (dropped packets).
//!
//! ## Description
//!
//! Like Queue, with "empty" and "full" notifiers, except that the "empty"
//! notifier goes to sleep as soon as a pull takes the last packet (or
//! finds the queue empty) instead of after several empty pulls. That saves downstream tasks some useless
//! runs, at the price of more notifier traffic for queues that hover around
//! empty.
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
//! ## See also
//!
//! Queue, NotifierQueue, SimpleQueue

use rclick_core::{Ctx, Element, PacketBatch};

use super::queue::Queue;
use super::storage::{QueueClass, QueueElement, Store};

/// QuickNoteQueue: Queue whose "empty" notifier sleeps as soon as the
/// queue empties.
#[derive(Default)]
pub struct QuickNoteQueue;

impl QueueClass for QuickNoteQueue {
    const CLASS: &'static str = "QuickNoteQueue";
    const EMPTY_NOTE: bool = true;
    const FULL_NOTE: bool = true;

    /// Queue's (Click's QuickNoteQueue inherits it).
    #[inline]
    fn push(s: &mut Store, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        Queue::push(s, port, batch, cx)
    }

    #[inline]
    fn pull(s: &mut Store, max: usize, cx: &mut Ctx) -> PacketBatch {
        let out = s.dequeue(max);
        if s.is_empty() {
            s.sleep_empty();
        }
        if !out.is_empty() {
            s.wake_full(cx);
        }
        out
    }
}

/// Makes a QuickNoteQueue.
pub fn new() -> Box<dyn Element> {
    QueueElement::<QuickNoteQueue>::boxed()
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn empty_notifier_sleeps_at_once() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3) -> q :: QuickNoteQueue(2) -> u :: Unqueue -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        let q = r.find("q").unwrap();
        let active = r
            .with_element(q, |e| e.empty_notifier().unwrap().active())
            .unwrap();
        assert!(!active);
    }
}
