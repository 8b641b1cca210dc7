//! # BandwidthRatedUnqueue
//!
//! `BandwidthRatedUnqueue(RATE, [KEYWORDS])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets at a
//! given bandwidth and pushes them out.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Like RatedUnqueue, but RATE is a bandwidth and the token bucket counts
//! bytes: each packet sent removes its length in tokens. A packet is sent
//! whenever the bucket holds at least 131072 bytes' worth of tokens beyond
//! its nominal burst, so packets of any length up to that size pass; the
//! burst keywords add to that reserve.
//!
//! Keywords:
//!
//! * `RATE` (bandwidth, e.g. `200Bps`, `10Mbps`): the fill rate. Required.
//! * `BURST_DURATION` (time): burst as RATE × BURST_DURATION. Default 20ms.
//! * `BURST_BYTES` (unsigned integer): burst in bytes. Not together with
//!   BURST_DURATION.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE, read as Click prints bandwidths (`kbps`,
//!   `Mbps`...).
//! * `active` (read/write), `calls` (read): as for RatedUnqueue.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Queue -> BandwidthRatedUnqueue(1Mbps) -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! RatedUnqueue, BandwidthShaper, Unqueue

use rclick_core::Element;

use super::rated_unqueue::RatedUnqueue;

/// Makes a BandwidthRatedUnqueue.
pub fn new() -> Box<dyn Element> {
    Box::new(RatedUnqueue::new(true))
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn bandwidth_over_ten_seconds() {
        let r = testing::run(
            "InfiniteSource(LENGTH 100) -> Queue(10) -> u1 :: BandwidthRatedUnqueue(RATE 200Bps) -> c1 :: Counter -> Discard;
             InfiniteSource(LENGTH 100) -> Queue(10) -> u2 :: BandwidthRatedUnqueue(RATE 200Bps, BURST_BYTES 5000) -> c2 :: Counter -> Discard;
             InfiniteSource(LENGTH 100) -> Queue(10) -> u3 :: BandwidthRatedUnqueue(RATE 200Bps, BURST_DURATION 25) -> c3 :: Counter -> Discard;
             InfiniteSource(LENGTH 100) -> Queue(10) -> u4 :: BandwidthRatedUnqueue(RATE 10000Bps, BURST_BYTES 100) -> c4 :: Counter -> Discard;
             StopAfter(10);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "21");
        assert_eq!(testing::read(&r, "c2.count"), "71");
        assert_eq!(testing::read(&r, "c3.count"), "71");
        // Click reads 1001: its Script reads before the packet due at exactly 10s
        let c4: u64 = testing::read(&r, "c4.count").parse().unwrap();
        assert!((1001..=1002).contains(&c4), "{c4}");
        assert_eq!(testing::read(&r, "u1.rate"), "1.6kbps");
    }
}
