//! # Shaper
//!
//! `Shaper(RATE)`
//!
//! **Category:** shaping. Shapes traffic to a maximum rate (packets/s).
//!
//! **Ports:** one pull input; pull output 0, optional pull output 1.
//!
//! ## Description
//!
//! Shaper lets at most RATE packets per second through output 0: a pull on
//! output 0 is passed upstream only when another packet is due, so traffic
//! is shaped to RATE packets per second with low burstiness if pulls come
//! often and evenly. Shaper depends on the timing of its pulls; sporadic
//! pulls produce sporadic packets. If output 1 is connected, a pull on it
//! succeeds only when output 0 would not: it passes the packets that are
//! *not* due, so a scheduler downstream (RoundRobinSched) can send the
//! excess elsewhere.
//!
//! Arguments:
//!
//! * `RATE` (unsigned integer, packets per second). Required.
//!
//! Very high rates are implemented in steps (Click's GapRate granularity);
//! the effect is negligible below about 10^6 packets per second.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE; writing reconfigures.
//! * `reset` (write): forgets the history, as if the shaper just started.
//!
//! ## Examples
//!
//! ```text
//! Queue -> Shaper(1000) -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! BandwidthShaper, RatedUnqueue, RatedSplitter

use rclick_core::args::{unparse_bandwidth, Args, Bandwidth};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, NotifierSignal, PacketBatch, TaskId,
    TimerId,
};

use super::gap_rate::GapRate;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        /// Written by reconfiguring RATE.
        Rate = reconfigure_read("rate", "RATE").positional(0),
        Reset = write("reset"),
    }
}

/// Shaper, and BandwidthShaper when `bandwidth` is set.
pub struct Shaper {
    bandwidth: bool,
    rate: GapRate,
    /// With one output: an empty notifier that sleeps while the rate
    /// forbids a packet (timer) or the input is empty (upstream signal), so
    /// pullers do not spin -- and simulated time can advance.
    notifier: Option<Notifier>,
    upstream: NotifierSignal,
    timer: Option<TimerId>,
    task: Option<TaskId>,
}

impl Shaper {
    /// A Shaper (`bandwidth` false) or BandwidthShaper.
    pub fn new(bandwidth: bool) -> Shaper {
        Shaper {
            bandwidth,
            rate: GapRate::default(),
            notifier: None,
            upstream: NotifierSignal::Busy,
            timer: None,
            task: None,
        }
    }
}

impl Default for Shaper {
    fn default() -> Self {
        Shaper::new(false)
    }
}

impl Element for Shaper {
    fn class_name(&self) -> &'static str {
        if self.bandwidth {
            "BandwidthShaper"
        } else {
            "Shaper"
        }
    }
    fn port_count(&self) -> &'static str {
        if self.bandwidth {
            "1/1"
        } else {
            "1/1-2"
        }
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let rate = if self.bandwidth {
            let mut bw = Bandwidth(0.0);
            Args::new(conf)
                .read_mp("RATE", &mut bw)
                .complete()
                .map_err(|e| e.to_string())?;
            if bw.bytes_per_sec() > f64::from(u32::MAX) {
                return Err("RATE: out of range".into());
            }
            bw.bytes_per_sec() as u32
        } else {
            let mut r: u32 = 0;
            Args::new(conf)
                .read_mp("RATE", &mut r)
                .complete()
                .map_err(|e| e.to_string())?;
            r
        };
        self.rate.set_rate(rate);
        Ok(())
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if cx.noutputs() == 1 {
            self.notifier = Some(Notifier::new(true));
            self.timer = Some(cx.new_timer());
            let t = cx.new_task(false);
            self.task = Some(t);
            self.upstream = cx.upstream_empty_signal(0, Some(t));
        }
        Ok(())
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        self.notifier.clone()
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(n) = self.notifier.clone() {
            cx.wake_notifier(&n);
        }
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if let Some(n) = self.notifier.clone() {
            cx.wake_notifier(&n);
        }
        false
    }

    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let now = cx.now();
        if port == 1 {
            return if self.rate.need_update(now) {
                PacketBatch::new()
            } else {
                cx.pull(0, max)
            };
        }
        let mut out = PacketBatch::new();
        while out.len() < max && self.rate.need_update(now) {
            let Some(p) = cx.pull_one(0) else {
                break;
            };
            if self.bandwidth {
                self.rate
                    .update_with(u32::try_from(p.len()).unwrap_or(u32::MAX));
            } else {
                self.rate.update();
            }
            out.push(p);
        }
        if out.len() < max {
            if let Some(n) = &self.notifier {
                if !self.rate.need_update(now) {
                    if let (Some(t), Some(when)) = (self.timer, self.rate.expiry()) {
                        cx.schedule_timer_at(t, when);
                    }
                    n.set_active(false);
                } else if !self.upstream.active() {
                    n.set_active(false);
                }
            }
        }
        out
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Rate) if self.bandwidth => Ok(unparse_bandwidth(f64::from(self.rate.rate()))),
            Some(H::Rate) => Ok(self.rate.rate().to_string()),
            Some(H::Reset) | None => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => {
                self.rate.reset();
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn shapes_output_0_and_spills_to_output_1() {
        let r = testing::run(
            "is :: InfiniteSource(LIMIT 100) -> s :: Shaper(1000)
             => ( [0] -> shaped :: Counter -> [0]; [1] -> [1] )
             => RoundRobinSched -> total :: Counter -> TimedSink(1ms);
             StopAfter(150ms);",
            &test_registry(),
        );
        let Ok(r) = r else {
            return; // TimedSink not available yet
        };
        let shaped: u64 = testing::read(&r, "shaped.count").parse().unwrap();
        assert!((98..=100).contains(&shaped), "{shaped}");
        assert_eq!(testing::read(&r, "total.count"), "100");
    }

    #[test]
    fn puller_sleeps_while_shaped() {
        // A notifier-driven puller behind a Shaper must not spin: in
        // simulated time that would stop the clock.
        let r = testing::run(
            "RatedSource(RATE 1000) -> Queue(200) -> Shaper(100) -> c :: Counter
               -> RatedUnqueue(400) -> Discard;
             StopAfter(2s);",
            &test_registry(),
        )
        .unwrap();
        let n: u64 = testing::read(&r, "c.count").parse().unwrap();
        assert!((195..=205).contains(&n), "{n}");
    }

    #[test]
    fn rate_limits_pulls() {
        let r = testing::run(
            "InfiniteSource -> Queue(10) -> s :: Shaper(100) -> TimedUnqueue(1ms, 4) -> c :: Counter -> Discard; StopAfter(1s);",
            &test_registry(),
        )
        .unwrap();
        let n: u64 = testing::read(&r, "c.count").parse().unwrap();
        assert!((95..=105).contains(&n), "{n}");
        r.write_handler("s.rate", "10").unwrap();
        assert_eq!(testing::read(&r, "s.rate"), "10");
        r.write_handler("s.reset", "").unwrap();
        assert!(r.write_handler("s.rate", "x").is_err());
    }
}
