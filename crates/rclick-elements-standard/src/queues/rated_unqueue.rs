//! # RatedUnqueue
//!
//! `RatedUnqueue(RATE, [KEYWORDS])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets at a
//! given rate and pushes them out.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Pulls packets at RATE packets per second and pushes them to its output.
//! It is implemented with a token bucket (Click's, with millisecond ticks
//! and 32-bit fixed-point tokens, so achieved rates match Click's). The
//! bucket holds 20 milliseconds' worth of tokens unless BURST_DURATION or
//! BURST_SIZE says otherwise (at least one token); it starts full. While
//! the bucket is short of a token, a timer wakes the task when the next
//! token is due; while the input is empty, the task sleeps on the upstream
//! "empty" notifiers.
//!
//! Keywords:
//!
//! * `RATE` (unsigned integer, packets per second): the fill rate.
//!   Required. 0 lets no packet through.
//! * `BURST_DURATION` (time, millisecond precision): bucket capacity as
//!   RATE × BURST_DURATION. Default 20ms.
//! * `BURST_SIZE` (unsigned integer): bucket capacity in packets. Not
//!   together with BURST_DURATION.
//! * `ACTIVE` is not a keyword; use the `active` handler.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE; writing reconfigures.
//! * `active` (read/write): whether packets move. Default true.
//! * `calls` (read): task statistics (runs, empty runs, pushes, failed
//!   pulls), one per line.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> Queue(10) -> RatedUnqueue(100, BURST_SIZE 5) -> Discard;
//! ```
//!
//! ## See also
//!
//! BandwidthRatedUnqueue, Unqueue, Shaper, RatedSplitter

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId, Timestamp,
};

use super::rated::RateBucket;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Rate = reconfigure_read("rate", "RATE").positional(0),
        Active = read_write("active"),
        Calls = read("calls"),
    }
}

/// RatedUnqueue, and BandwidthRatedUnqueue when `bandwidth` is set.
pub struct RatedUnqueue {
    rate: RateBucket,
    active: bool,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
    runs: u64,
    pushes: u64,
    failed_pulls: u64,
    empty_runs: u64,
}

impl RatedUnqueue {
    /// A RatedUnqueue (`bandwidth` false) or BandwidthRatedUnqueue.
    pub fn new(bandwidth: bool) -> RatedUnqueue {
        RatedUnqueue {
            rate: RateBucket::new(bandwidth),
            active: true,
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
            runs: 0,
            pushes: 0,
            failed_pulls: 0,
            empty_runs: 0,
        }
    }
}

impl Default for RatedUnqueue {
    fn default() -> Self {
        RatedUnqueue::new(false)
    }
}

impl Element for RatedUnqueue {
    fn class_name(&self) -> &'static str {
        if self.rate.bandwidth() {
            "BandwidthRatedUnqueue"
        } else {
            "RatedUnqueue"
        }
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.rate.configure(conf)
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn reconfigured(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_task(true);
        self.task = Some(t);
        self.signal = cx.upstream_empty_signal(0, Some(t));
        self.timer = Some(cx.new_timer());
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.runs += 1;
        if !self.active {
            return false;
        }
        self.rate.refill(cx.now());
        let mut worked = false;
        if self.rate.ready() {
            if let Some(p) = cx.pull_one(0) {
                self.rate.charge(&p);
                self.pushes += 1;
                worked = true;
                cx.push_one(0, p);
            } else {
                self.failed_pulls += 1;
                if !self.signal.active() {
                    return false;
                }
            }
        } else {
            let wait = self.rate.time_until_ready();
            if let (Some(t), true) = (self.timer, wait != u64::MAX) {
                let ms = i64::try_from(wait).unwrap_or(i64::MAX / 1_000_000);
                cx.schedule_timer_after(t, Timestamp::from_msec(ms));
            }
            self.empty_runs += 1;
            return false;
        }
        cx.reschedule();
        if !worked {
            self.empty_runs += 1;
        }
        worked
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Rate) => self.rate.rate_text(),
            Some(H::Active) => self.active.to_string(),
            Some(H::Calls) => format!(
                "{} calls to run_task()\n{} empty runs\n{} pushes\n{} failed pulls\n",
                self.runs, self.empty_runs, self.pushes, self.failed_pulls
            ),
            None => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Active) => {
                let mut b = false;
                Args::new(&[value.trim()])
                    .read_mp("ACTIVE", &mut b)
                    .complete()
                    .map_err(|_| "expected boolean".to_string())?;
                self.active = b;
                if b {
                    if let Some(t) = self.task {
                        cx.schedule_task(t);
                    }
                }
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
    fn rate_over_ten_seconds() {
        let r = testing::run(
            "InfiniteSource -> Queue(10) -> u1 :: RatedUnqueue(RATE 2) -> c1 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> u2 :: RatedUnqueue(RATE 2, BURST_SIZE 50) -> c2 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> u3 :: RatedUnqueue(RATE 2, BURST_DURATION 25) -> c3 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> u4 :: RatedUnqueue(RATE 100, BURST_SIZE 1) -> c4 :: Counter -> Discard;
             StopAfter(10);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "20");
        assert_eq!(testing::read(&r, "c2.count"), "69");
        assert_eq!(testing::read(&r, "c3.count"), "69");
        let c4: u64 = testing::read(&r, "c4.count").parse().unwrap();
        assert!((909..=910).contains(&c4), "{c4}");
        assert_eq!(testing::read(&r, "u1.rate"), "2");
        assert!(testing::read(&r, "u1.calls").contains("pushes"));
    }

    #[test]
    fn rate_zero_passes_nothing_and_rate_is_writable() {
        let r = testing::run(
            "InfiniteSource -> Queue(10) -> u :: RatedUnqueue(0) -> c :: Counter -> Discard; StopAfter(1);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        r.write_handler("u.rate", "5").unwrap();
        assert_eq!(testing::read(&r, "u.rate"), "5");
        assert_eq!(testing::read(&r, "u.config"), "5");
        assert!(r.write_handler("u.rate", "fast").is_err());
    }
}
