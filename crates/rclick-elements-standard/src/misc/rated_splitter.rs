//! # RatedSplitter
//!
//! `RatedSplitter(RATE, [KEYWORDS])`
//!
//! **Category:** shaping. Splits a packet flow at a given rate.
//!
//! **Ports:** one push input; push output 0 and optional push output 1.
//!
//! ## Description
//!
//! Packets up to RATE packets per second leave on output 0; the others
//! leave on output 1 (or are dropped when it is not connected). Unlike
//! Meter, RATE packets per second go to output 0 even when more arrive.
//!
//! Like RatedUnqueue, RatedSplitter uses a token bucket (Click's, with
//! millisecond ticks) holding 20 milliseconds' worth of tokens unless a
//! burst keyword says otherwise; the bucket starts full.
//!
//! Keywords:
//!
//! * `RATE` (unsigned integer, packets per second): the split rate.
//!   Required.
//! * `BURST_DURATION` (time, millisecond precision): bucket capacity as
//!   RATE × BURST_DURATION. Default 20ms.
//! * `BURST_SIZE` (unsigned integer): bucket capacity in packets. Not
//!   together with BURST_DURATION.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE; writing reconfigures.
//!
//! ## Examples
//!
//! ```text
//! rs :: RatedSplitter(2000);    // 2000 packets/s on output 0
//!
//! elementclass RatedSampler {
//!   input -> rs :: RatedSplitter(2000);
//!   rs[0] -> t :: Tee; t[0] -> [0]output; t[1] -> [1]output;
//!   rs[1] -> [0]output;
//! }
//! ```
//!
//! ## See also
//!
//! BandwidthRatedSplitter, ProbSplitter, Meter, Shaper, RatedUnqueue, Tee

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use crate::queues::rated::RateBucket;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Rate = reconfigure_read("rate", "RATE").positional(0),
    }
}

/// RatedSplitter, and BandwidthRatedSplitter when `bandwidth` is set.
pub struct RatedSplitter {
    rate: RateBucket,
}

impl RatedSplitter {
    /// A RatedSplitter (`bandwidth` false) or BandwidthRatedSplitter.
    pub fn new(bandwidth: bool) -> RatedSplitter {
        RatedSplitter {
            rate: RateBucket::new(bandwidth),
        }
    }
}

impl Default for RatedSplitter {
    fn default() -> Self {
        RatedSplitter::new(false)
    }
}

impl Element for RatedSplitter {
    fn class_name(&self) -> &'static str {
        if self.rate.bandwidth() {
            "BandwidthRatedSplitter"
        } else {
            "RatedSplitter"
        }
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.rate.configure(conf)
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.rate.refill(cx.now());
        let (pass, rest) = batch.partition(|p| self.rate.take(p));
        if !pass.is_empty() {
            cx.push(0, pass);
        }
        if !rest.is_empty() {
            cx.checked_push(1, rest);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Rate) => Ok(self.rate.rate_text()),
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn splits_at_rate() {
        let r = testing::run(
            "InfiniteSource -> Queue(10) -> RatedUnqueue(10)
               -> rs1 :: RatedSplitter(RATE 2) -> c1 :: Counter -> Discard;
             rs1[1] -> o1 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> RatedUnqueue(10)
               -> rs2 :: RatedSplitter(RATE 2, BURST_SIZE 50) -> c2 :: Counter -> Discard;
             rs2[1] -> Discard;
             InfiniteSource -> Queue(10) -> RatedUnqueue(10)
               -> rs3 :: RatedSplitter(RATE 2, BURST_DURATION 25) -> c3 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> RatedUnqueue(200)
               -> rs4 :: RatedSplitter(RATE 100, BURST_SIZE 2) -> c4 :: Counter -> Discard;
             rs4[1] -> Discard;
             Script(wait 10, stop);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "20");
        assert_eq!(testing::read(&r, "c2.count"), "69");
        assert_eq!(testing::read(&r, "c3.count"), "69");
        assert_eq!(testing::read(&r, "c4.count"), "1001");
        let o1: u64 = testing::read(&r, "o1.count").parse().unwrap();
        assert!(o1 > 70, "{o1}");
        assert_eq!(testing::read(&r, "rs1.rate"), "2");
        r.write_handler("rs1.rate", "5").unwrap();
        assert_eq!(testing::read(&r, "rs1.rate"), "5");
        assert!(r.write_handler("rs1.rate", "x").is_err());
        assert!(testing::run("Idle -> RatedSplitter -> Discard;", &test_registry()).is_err());
    }
}
