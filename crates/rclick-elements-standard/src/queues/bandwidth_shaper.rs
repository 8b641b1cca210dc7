//! # BandwidthShaper
//!
//! `BandwidthShaper(RATE)`
//!
//! **Category:** shaping. Shapes traffic to a maximum bandwidth.
//!
//! **Ports:** one pull input, one pull output.
//!
//! ## Description
//!
//! Like Shaper, but RATE is a bandwidth: a pull is passed upstream only
//! while the bytes sent so far this second are below what RATE allows for
//! the part of the second elapsed. Depends on the timing of its pulls.
//!
//! Arguments:
//!
//! * `RATE` (bandwidth, e.g. `1Mbps`, `125000Bps`). Required.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE, read as Click prints bandwidths.
//! * `reset` (write): forgets the history.
//!
//! ## Examples
//!
//! ```text
//! Queue -> BandwidthShaper(1Mbps) -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! Shaper, BandwidthRatedUnqueue, BandwidthMeter

use rclick_core::Element;

use super::shaper::Shaper;

/// Makes a BandwidthShaper.
pub fn new() -> Box<dyn Element> {
    Box::new(Shaper::new(true))
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn bytes_per_second() {
        let r = testing::run(
            "InfiniteSource(LENGTH 100) -> Queue(10) -> s :: BandwidthShaper(10000Bps) -> TimedUnqueue(1ms, 4) -> c :: Counter -> Discard;
             StopAfter(2s);",
            &test_registry(),
        )
        .unwrap();
        let n: u64 = testing::read(&r, "c.count").parse().unwrap();
        assert!((190..=210).contains(&n), "{n}");
        assert_eq!(testing::read(&r, "s.rate"), "80kbps");
    }
}
