//! # TimedUnqueue
//!
//! `TimedUnqueue(INTERVAL, [BURST])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets in bursts
//! at regular intervals.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Every INTERVAL, pulls up to BURST packets from its input and pushes them
//! out. When the input is empty and every queue upstream says so, it
//! stops its timer and sleeps until a queue upstream receives a packet.
//!
//! Keywords:
//!
//! * `INTERVAL` (time, millisecond precision): time between bursts.
//!   Required.
//! * `BURST` (integer ≥ 1): packets per burst. Default 1.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `interval` (read): INTERVAL.
//! * `burst` (read): BURST.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> Queue -> TimedUnqueue(1s, 10) -> Discard;
//! ```
//!
//! ## See also
//!
//! Unqueue, RatedUnqueue, TimedSource

use rclick_core::args::{Args, Interval};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId, Timestamp,
};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Interval = read("interval"),
        Burst = read("burst"),
    }
}

/// The TimedUnqueue element.
pub struct TimedUnqueue {
    /// The class name: TimedUnqueue, or Burster (a TimedUnqueue with
    /// another default BURST).
    class: &'static str,
    /// BURST when not given.
    default_burst: i32,
    interval_ms: i64,
    burst: i32,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
}

impl Default for TimedUnqueue {
    fn default() -> Self {
        TimedUnqueue::with_class("TimedUnqueue", 1)
    }
}

impl TimedUnqueue {
    /// A TimedUnqueue named `class`, whose BURST defaults to
    /// `default_burst`.
    pub(crate) fn with_class(class: &'static str, default_burst: i32) -> Self {
        TimedUnqueue {
            class,
            default_burst,
            interval_ms: 0,
            burst: 1,
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
        }
    }
}

impl Element for TimedUnqueue {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut interval = Interval::ZERO;
        let mut burst: i32 = self.default_burst;
        Args::new(conf)
            .read_mp("INTERVAL", &mut interval)
            .read_p("BURST", &mut burst)
            .complete()
            .map_err(|e| e.to_string())?;
        if burst <= 0 {
            return Err("bad BURST".into());
        }
        self.interval_ms = (interval.as_nanos() + 500_000) / 1_000_000;
        self.burst = burst;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_task(true);
        self.task = Some(t);
        self.timer = Some(cx.new_timer());
        self.signal = cx.upstream_empty_signal(0, Some(t));
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let Some(timer) = self.timer else {
            return false;
        };
        // an upstream queue woke us while we wait for the timer: ignore
        if cx.timer_expiry(timer).is_some() {
            return false;
        }
        let b = cx.pull(0, self.burst as usize);
        if b.is_empty() && !self.signal.active() {
            cx.unschedule_timer(timer);
            return false;
        }
        if !b.is_empty() {
            cx.push(0, b);
        }
        cx.schedule_timer_after(timer, Timestamp::from_msec(self.interval_ms));
        true
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
            Some(H::Interval) => Interval::from_millis(self.interval_ms).to_string(),
            Some(H::Burst) => self.burst.to_string(),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn bursts_per_interval() {
        let r = testing::run(
            "InfiniteSource(LIMIT 100) -> Queue -> u :: TimedUnqueue(100ms, 3) -> c :: Counter -> Discard;
             StopAfter(1.05s);",
            &test_registry(),
        )
        .unwrap();
        // bursts at 0, 0.1, ..., 1.0 s (the first may find only one packet)
        let n: u64 = testing::read(&r, "c.count").parse().unwrap();
        assert!((31..=33).contains(&n), "{n}");
        assert_eq!(testing::read(&r, "u.interval"), "100ms");
    }

    #[test]
    fn sleeps_when_empty() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2) -> Queue -> TimedUnqueue(10ms) -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
    }

    #[test]
    fn bad_burst() {
        assert!(testing::build(
            "Idle -> TimedUnqueue(1s, 0) -> Discard;",
            &test_registry(),
            true
        )
        .is_err());
        assert!(
            testing::build("Idle -> TimedUnqueue -> Discard;", &test_registry(), true).is_err()
        );
    }
}
