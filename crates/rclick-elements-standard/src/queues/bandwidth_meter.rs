//! # BandwidthMeter
//!
//! `BandwidthMeter(RATE1, ..., RATEN)`
//!
//! **Category:** classification. Sends packets out one of several outputs
//! according to the recent bandwidth.
//!
//! **Ports:** one push input; N+1 push outputs.
//!
//! ## Description
//!
//! Keeps an exponentially weighted moving average of the bandwidth of the
//! packets it sees (in bytes per millisecond, averaged with weight 1/16
//! per millisecond). Each packet goes to output 0 if the average is below
//! RATE1, to output 1 if it is at least RATE1 but below RATE2, and so on;
//! to output N if it is at least RATEN. The rates must increase.
//!
//! Arguments: bandwidths (`10Mbps`, `125kBps`...; bare numbers mean bytes
//! per second), one less than the number of outputs.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read): the current average, in bytes per second.
//! * `meters` (read): the configured rates, in bytes per second.
//!
//! ## Examples
//!
//! ```text
//! ... -> m :: BandwidthMeter(1Mbps); m[0] -> slow; m[1] -> fast;
//! ```
//!
//! ## See also
//!
//! Meter, BandwidthShaper, RatedSplitter

use rclick_core::args::{parse_bandwidth, Bandwidth};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_packet::Packet;

use super::token_bucket::ticks;
use super::unparse_fixed;

const STABILITY_SHIFT: u32 = 4;
/// Fixed-point bits of the average.
pub const SCALE: u32 = 10;
const FREQ: u64 = 1000;

/// Click's `RateEWMA`: an average of units per millisecond, scaled by
/// 2^SCALE, updated once per millisecond.
#[derive(Clone, Debug, Default)]
pub struct RateEwma {
    avg: u64,
    current: u64,
    now: u64,
}

impl RateEwma {
    fn decay(&mut self, v: u64, n: u64) {
        let target = v << SCALE;
        for _ in 0..n.min(200) {
            let delta = (target as i64 - self.avg as i64) >> STABILITY_SHIFT;
            self.avg = (self.avg as i64 + delta).max(0) as u64;
        }
        if n > 200 {
            self.avg = target;
        }
    }

    /// Adds `delta` units at tick `now`.
    pub fn update(&mut self, now: u64, delta: u64) {
        if now != self.now {
            let passed = now.saturating_sub(self.now);
            let cur = self.current;
            self.decay(cur, 1);
            if passed > 1 {
                self.decay(0, passed - 1);
            }
            self.current = 0;
            self.now = now;
        }
        self.current += delta;
    }

    /// The scaled average (units per millisecond × 2^SCALE).
    pub fn scaled_average(&self) -> u64 {
        self.avg
    }
}

/// BandwidthMeter, and Meter when `packets` is set.
#[derive(Default)]
pub struct BandwidthMeter {
    packets: bool,
    meters: Vec<u64>,
    rate: RateEwma,
}

impl BandwidthMeter {
    /// A BandwidthMeter (`packets` false) or Meter.
    pub fn new(packets: bool) -> BandwidthMeter {
        BandwidthMeter {
            packets,
            meters: Vec::new(),
            rate: RateEwma::default(),
        }
    }

    fn output_for(&self, r: u64) -> usize {
        self.meters
            .iter()
            .position(|&m| r < m)
            .unwrap_or(self.meters.len())
    }

    fn unparse_rate(&self, scaled_per_tick: u64) -> String {
        unparse_fixed(scaled_per_tick * FREQ, SCALE)
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Rate = read("rate"),
        Meters = read("meters"),
    }
}

impl Element for BandwidthMeter {
    fn class_name(&self) -> &'static str {
        if self.packets {
            "Meter"
        } else {
            "BandwidthMeter"
        }
    }
    fn port_count(&self) -> &'static str {
        "1/2-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        if conf.is_empty() {
            return Err(format!(
                "too few arguments to {}(rate, ...)",
                self.class_name()
            ));
        }
        let mut vals: Vec<u64> = Vec::with_capacity(conf.len());
        for (i, a) in conf.iter().enumerate() {
            let v = if self.packets {
                a.trim()
                    .parse::<u32>()
                    .map(u64::from)
                    .map_err(|_| format!("argument {} syntax error", i + 1))?
            } else {
                let b: Bandwidth = parse_bandwidth(a.trim())
                    .map_err(|_| format!("argument {} syntax error", i + 1))?;
                b.bytes_per_sec() as u64
            };
            if i > 0 && v <= vals[i - 1] {
                return Err(format!("rate {} must be > rate {}", i + 1, i));
            }
            vals.push(v);
        }
        let max_value = u64::from(u32::MAX >> SCALE);
        let mut meters = Vec::with_capacity(vals.len());
        for (i, v) in vals.iter().enumerate() {
            if *v > max_value {
                return Err(format!("rate {} too large (max {max_value})", i + 1));
            }
            meters.push((v << SCALE) / FREQ);
        }
        if meters.len() + 1 != cx.noutputs() {
            return Err(format!(
                "need {} arguments, one less than the number of output ports",
                cx.noutputs().saturating_sub(1)
            ));
        }
        self.meters = meters;
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let now = ticks(cx.now());
        let n = self.meters.len() + 1;
        if n == 2 {
            // common case: split into two batches
            let mut outs = [PacketBatch::new(), PacketBatch::new()];
            batch.split_into(&mut outs, |p| {
                self.rate
                    .update(now, if self.packets { 1 } else { p.len() as u64 });
                self.output_for(self.rate.scaled_average())
            });
            let [a, b] = outs;
            if !a.is_empty() {
                cx.push(0, a);
            }
            if !b.is_empty() {
                cx.push(1, b);
            }
            return;
        }
        for p in batch {
            let p: Packet = p;
            self.rate
                .update(now, if self.packets { 1 } else { p.len() as u64 });
            let o = self.output_for(self.rate.scaled_average());
            cx.push_one(o, p);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Rate) => {
                self.rate.update(ticks(cx.now()), 0);
                Ok(self.unparse_rate(self.rate.scaled_average()))
            }
            Some(H::Meters) => Ok(self
                .meters
                .iter()
                .map(|&m| self.unparse_rate(m))
                .collect::<Vec<_>>()
                .join(" ")),
            _ => Err("no such handler".into()),
        }
    }
}

/// Makes a BandwidthMeter.
pub fn new() -> Box<dyn Element> {
    Box::new(BandwidthMeter::new(false))
}

#[cfg(test)]
mod tests {
    use super::RateEwma;
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn ewma_converges() {
        let mut e = RateEwma::default();
        for t in 1..500u64 {
            e.update(t, 100);
        }
        // 100 units per tick, scaled by 1024
        let avg = e.scaled_average();
        assert!((100 * 1024 - 200..=100 * 1024).contains(&avg), "{avg}");
        e.update(10_000, 0);
        assert!(e.scaled_average() < 1024);
    }

    #[test]
    fn splits_by_rate() {
        // 1000 packets of 100 bytes a second is far above 1kBps
        let r = testing::run(
            "RatedSource(LENGTH 100, RATE 1000, LIMIT 2000, STOP true) -> m :: BandwidthMeter(1kBps);
             m[0] -> lo :: Counter -> Discard; m[1] -> hi :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        let lo: u64 = testing::read(&r, "lo.count").parse().unwrap();
        let hi: u64 = testing::read(&r, "hi.count").parse().unwrap();
        assert_eq!(lo + hi, 2000);
        assert!(hi > 1900, "{hi}");
        assert_eq!(testing::read(&r, "m.meters"), "1000");
    }

    #[test]
    fn configuration_errors() {
        let reg = test_registry();
        let e = testing::build("Idle -> m :: BandwidthMeter(2kBps, 1kBps); m[0] -> Discard; m[1] -> Discard; m[2] -> Discard;", &reg, true)
            .unwrap_err();
        assert!(e.contains("rate 2 must be > rate 1"), "{e}");
        let e = testing::build("Idle -> m :: BandwidthMeter(1kBps); m[0] -> Discard; m[1] -> Discard; m[2] -> Discard;", &reg, true)
            .unwrap_err();
        assert!(
            e.contains("one less than the number of output ports"),
            "{e}"
        );
    }
}
