//! # TimedSink
//!
//! `TimedSink([INTERVAL])`
//!
//! **Category:** basic sources and sinks. Pulls one packet periodically
//! and drops it.
//!
//! **Ports:** one pull input, no outputs.
//!
//! ## Description
//!
//! Every INTERVAL, pulls one packet from its input and drops it. The
//! timer keeps a regular beat (each expiry is the previous one plus
//! INTERVAL), however long a pull takes.
//!
//! Keywords:
//!
//! * `INTERVAL` (time): the pull period. Default 0.5s.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `interval` (read/write): INTERVAL. Writing a zero or malformed time
//!   fails with `bad interval`; the new period takes effect after the
//!   pending pull.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> Queue -> Shaper(1000) -> TimedSink(1ms);
//! ```
//!
//! ## See also
//!
//! Discard, TimedSource

use rclick_core::args::{parse_interval, Args, Interval};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, TimerId, Timestamp};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Interval = read_write("interval"),
    }
}

/// The TimedSink element.
pub struct TimedSink {
    interval: Interval,
    timer: Option<TimerId>,
    next: Timestamp,
}

impl Default for TimedSink {
    fn default() -> Self {
        TimedSink {
            interval: Interval::from_millis(500),
            timer: None,
            next: Timestamp::ZERO,
        }
    }
}

impl TimedSink {
    fn step(&self) -> Timestamp {
        Timestamp::from_nsec(self.interval.as_nanos().max(1))
    }
}

impl Element for TimedSink {
    fn class_name(&self) -> &'static str {
        "TimedSink"
    }
    fn port_count(&self) -> &'static str {
        "1/0"
    }
    fn processing(&self) -> &'static str {
        "l"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut interval = Interval::from_millis(500);
        Args::new(conf)
            .read_p("INTERVAL", &mut interval)
            .complete()
            .map_err(|e| e.to_string())?;
        self.interval = interval;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_timer();
        self.timer = Some(t);
        self.next = cx.now().saturating_add(self.step());
        cx.schedule_timer_at(t, self.next);
        Ok(())
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        let _ = cx.pull_one(0);
        self.next = self.next.saturating_add(self.step());
        cx.schedule_timer_at(timer, self.next);
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Interval) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.interval.to_string())
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Interval) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        match parse_interval(value.trim()) {
            Ok(i) if i.as_nanos() > 0 => {
                self.interval = i;
                Ok(())
            }
            _ => Err("bad interval".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn pulls_periodically() {
        let r = testing::run(
            "InfiniteSource(LIMIT 100) -> c :: Counter -> t :: TimedSink(10ms);
             Script(wait 105ms, stop);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "10");
        assert_eq!(testing::read(&r, "t.interval"), "10ms");
        assert!(r.write_handler("t.interval", "0").is_err());
        assert!(r.write_handler("t.interval", "x").is_err());
        r.write_handler("t.interval", "1s").unwrap();
        assert_eq!(testing::read(&r, "t.interval"), "1.000000s");
    }
}
