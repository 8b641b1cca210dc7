//! # Meter
//!
//! `Meter(RATE1, ..., RATEN)`
//!
//! **Category:** classification. Sends packets out one of several outputs
//! according to the recent packet rate.
//!
//! **Ports:** one push input; N+1 push outputs.
//!
//! ## Description
//!
//! Like BandwidthMeter, but measures packets per second: keeps an
//! exponentially weighted moving average of the packet rate and sends each
//! packet to output 0 if the average is below RATE1, to output I if it is
//! at least RATEI but below RATEI+1, and to output N if it is at least
//! RATEN. The rates must increase.
//!
//! Arguments: unsigned integers (packets per second), one less than the
//! number of outputs.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read): the current average, in packets per second.
//! * `meters` (read): the configured rates.
//!
//! ## Examples
//!
//! ```text
//! ... -> m :: Meter(1000); m[0] -> normal; m[1] -> Discard;
//! ```
//!
//! ## See also
//!
//! BandwidthMeter, Shaper, RatedSplitter

use rclick_core::Element;

use super::bandwidth_meter::BandwidthMeter;

/// Makes a Meter.
pub fn new() -> Box<dyn Element> {
    Box::new(BandwidthMeter::new(true))
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn fast_traffic_goes_to_output_1() {
        let r = testing::run(
            "RatedSource(RATE 5000, LIMIT 500, STOP true) -> m :: Meter(1000);
             m[0] -> lo :: Counter -> Discard; m[1] -> hi :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        let hi: u64 = testing::read(&r, "hi.count").parse().unwrap();
        let lo: u64 = testing::read(&r, "lo.count").parse().unwrap();
        assert_eq!(hi + lo, 500);
        assert!(hi > 400, "{hi}");
        assert_eq!(testing::read(&r, "m.meters"), "1000");
        assert!(testing::build(
            "Idle -> m :: Meter(x); m[0] -> Discard; m[1] -> Discard;",
            &test_registry(),
            true
        )
        .is_err());
    }
}
