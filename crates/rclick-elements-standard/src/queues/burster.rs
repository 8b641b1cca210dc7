//! # Burster
//!
//! `Burster(INTERVAL [, BURST])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets in bursts
//! at regular intervals.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! TimedUnqueue with a default BURST of 8 instead of 1, as in Click: every
//! INTERVAL it pulls up to BURST packets from its input and pushes them
//! out, and sleeps while every queue upstream is empty. Click's first
//! Burster (1999) pulled exactly N packets every I seconds on a 10 ms
//! timer; the current one, which this follows, is the TimedUnqueue variant.
//!
//! Keywords:
//!
//! * `INTERVAL` (time, millisecond precision): time between bursts.
//!   Required; a negative time is a parse error.
//! * `BURST` (integer ≥ 1): packets per burst. Default 8; 0 or less is
//!   `bad BURST`.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `interval`, `burst` (read): the keywords (not in Click, which has
//!   only the standard handlers here).
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Queue -> Burster(10ms) -> Queue -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! TimedUnqueue, Unqueue, RatedUnqueue

use rclick_core::Element;

use super::timed_unqueue::TimedUnqueue;

/// A Burster: a TimedUnqueue whose BURST defaults to 8.
pub fn new() -> Box<dyn Element> {
    Box::new(TimedUnqueue::with_class("Burster", 8))
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn bursts_of_eight_by_default() {
        // As the reference Click after 0.25 s: the first burst finds one
        // packet, then two full bursts.
        let r = testing::run(
            "InfiniteSource(LIMIT 20) -> Queue -> x :: Burster(0.1) -> c :: Counter -> Discard;
             DriverManager(wait 0.25s);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "17");
        assert_eq!(testing::read(&r, "x.burst"), "8");
        assert_eq!(testing::read(&r, "x.class"), "Burster");
        let r = testing::run(
            "InfiniteSource(LIMIT 20) -> Queue -> Burster(0.1, 3) -> c :: Counter -> Discard;
             DriverManager(wait 0.25s);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "7");
    }

    #[test]
    fn bad_arguments() {
        let err = |c: &str| testing::build(c, &test_registry(), true).err().unwrap();
        assert!(err("Idle -> Queue -> Burster(1, 0) -> Discard;").contains("bad BURST"));
        assert!(err("Idle -> Queue -> Burster() -> Discard;")
            .contains("INTERVAL: required argument missing"));
        assert!(err("Idle -> Queue -> Burster(-1) -> Discard;").contains("INTERVAL"));
    }
}
