//! # BandwidthRatedSplitter
//!
//! `BandwidthRatedSplitter(RATE, [KEYWORDS])`
//!
//! **Category:** shaping. Splits a packet flow at a given bandwidth.
//!
//! **Ports:** one push input; push output 0 and optional push output 1.
//!
//! ## Description
//!
//! Packets up to RATE (a bandwidth such as `384kbps` or `2000Bps`) leave
//! on output 0; the others leave on output 1 (or are dropped when it is
//! not connected). Unlike BandwidthMeter, RATE goes to output 0 even when
//! more arrives.
//!
//! The token bucket counts bytes. As in Click, a packet goes to output 0
//! while the bucket holds at least 131072 bytes beyond its burst capacity,
//! whatever the packet's length, and then costs its length.
//!
//! Keywords:
//!
//! * `RATE` (bandwidth): the split rate. Required.
//! * `BURST_DURATION` (time, millisecond precision): bucket capacity as
//!   RATE × BURST_DURATION. Default 20ms.
//! * `BURST_BYTES` (unsigned integer): bucket capacity in bytes. Not
//!   together with BURST_DURATION.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE, printed as a bandwidth; writing
//!   reconfigures.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> s :: BandwidthRatedSplitter(1Mbps) -> Queue -> ToDevice(eth1);
//! s[1] -> Discard;
//! ```
//!
//! ## See also
//!
//! RatedSplitter, BandwidthMeter, BandwidthShaper, BandwidthRatedUnqueue

use rclick_core::Element;

use super::rated_splitter::RatedSplitter;

/// Makes a BandwidthRatedSplitter.
pub fn new() -> Box<dyn Element> {
    Box::new(RatedSplitter::new(true))
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn splits_bytes() {
        let r = testing::run(
            "InfiniteSource(LENGTH 100) -> Queue(10) -> BandwidthRatedUnqueue(RATE 2000Bps)
               -> s1 :: BandwidthRatedSplitter(RATE 200Bps) -> c1 :: Counter -> Discard;
             InfiniteSource(LENGTH 100) -> Queue(10) -> BandwidthRatedUnqueue(RATE 2000Bps)
               -> s2 :: BandwidthRatedSplitter(RATE 200Bps, BURST_BYTES 5000) -> c2 :: Counter -> Discard;
             InfiniteSource(LENGTH 100) -> Queue(10) -> BandwidthRatedUnqueue(RATE 20000Bps)
               -> s4 :: BandwidthRatedSplitter(RATE 10000Bps, BURST_BYTES 100) -> c4 :: Counter -> Discard;
             Script(wait 10, stop);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "20");
        assert_eq!(testing::read(&r, "c2.count"), "70");
        assert_eq!(testing::read(&r, "c4.count"), "1001");
        assert_eq!(testing::read(&r, "s1.rate"), "1.6kbps");
    }
}
