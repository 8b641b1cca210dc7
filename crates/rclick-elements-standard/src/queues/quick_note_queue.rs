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
//! * `length`, `highwater_length`, `capacity`, `drops`, `reset_counts`,
//!   `reset`: as for Queue.
//!
//! ## See also
//!
//! Queue, NotifierQueue, SimpleQueue

use rclick_core::Element;

use super::storage::{QueueElement, QueueKind};

/// Makes a QuickNoteQueue.
pub fn new() -> Box<dyn Element> {
    Box::new(QueueElement::new(QueueKind::QuickNote))
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
