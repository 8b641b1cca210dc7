//! # DelayShaper
//!
//! `DelayShaper(DELAY)`
//!
//! **Category:** shaping. Holds packets back until they are DELAY old.
//!
//! **Ports:** one pull input, one pull output.
//!
//! ## Description
//!
//! Pulls packets from its input and returns each no earlier than DELAY
//! after its timestamp annotation (a packet without a timestamp is
//! stamped with the time it is pulled). On output the timestamp is set to
//! the current time. At most one packet waits inside at a time; until it
//! is due, pulls return nothing.
//!
//! Unlike DelayUnqueue, both ports are pull. DelayShaper provides an
//! "empty" notifier to pullers downstream: it sleeps while the waiting
//! packet is not yet due (a timer wakes it when it is) or while nothing is
//! waiting and the upstream notifiers are asleep, and wakes when upstream
//! wakes.
//!
//! Arguments:
//!
//! * `DELAY` (time, microsecond precision or better). Required.
//!
//! ## Annotations
//!
//! Uses and sets the timestamp annotation.
//!
//! ## Handlers
//!
//! * `delay` (read/write): DELAY. Writing a malformed time fails with
//!   `delay must be a timestamp`.
//!
//! ## Examples
//!
//! ```text
//! FromDump(x.pcap) -> Queue -> DelayShaper(50ms) -> ToDump(y.pcap);
//! ```
//!
//! ## See also
//!
//! BandwidthShaper, DelayUnqueue, SetTimestamp, LinkUnqueue

use rclick_core::args::{parse_interval, Args, Interval};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, NotifierSignal, Packet, PacketBatch,
    TaskId, TimerId, Timestamp,
};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Delay = read_write("delay"),
    }
}

/// The DelayShaper element.
pub struct DelayShaper {
    delay: Interval,
    held: Option<Packet>,
    notifier: Notifier,
    upstream: NotifierSignal,
    timer: Option<TimerId>,
    /// Listens to the upstream signal and wakes our notifier.
    task: Option<TaskId>,
}

impl Default for DelayShaper {
    fn default() -> Self {
        DelayShaper {
            delay: Interval::ZERO,
            held: None,
            notifier: Notifier::new(true),
            upstream: NotifierSignal::Busy,
            timer: None,
            task: None,
        }
    }
}

impl DelayShaper {
    fn wake(&self, cx: &mut Ctx) {
        let n = self.notifier.clone();
        cx.wake_notifier(&n);
    }
}

impl Element for DelayShaper {
    fn class_name(&self) -> &'static str {
        "DelayShaper"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut delay = Interval::ZERO;
        Args::new(conf)
            .read_mp("DELAY", &mut delay)
            .complete()
            .map_err(|e| e.to_string())?;
        self.delay = delay;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.timer = Some(cx.new_timer());
        let t = cx.new_task(false);
        self.task = Some(t);
        self.upstream = cx.upstream_empty_signal(0, Some(t));
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.held = None;
    }

    fn pull(&mut self, _port: usize, _max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.held.is_none() {
            if let Some(mut p) = cx.pull_one(0) {
                if p.timestamp_anno().sec() == 0 {
                    p.set_timestamp_anno(cx.now());
                }
                let due = p
                    .timestamp_anno()
                    .saturating_add(Timestamp::from_nsec(self.delay.as_nanos()));
                p.set_timestamp_anno(due);
                self.held = Some(p);
            }
        }
        let mut out = PacketBatch::new();
        if let Some(due) = self.held.as_ref().map(Packet::timestamp_anno) {
            let now = cx.now();
            if due <= now {
                if let Some(mut p) = self.held.take() {
                    p.set_timestamp_anno(now);
                    out.push(p);
                }
            } else {
                if let Some(t) = self.timer {
                    cx.schedule_timer_at(t, due);
                }
                self.notifier.set_active(false);
            }
        } else if !self.upstream.active() {
            self.notifier.set_active(false);
        }
        out
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        self.wake(cx);
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        // Upstream woke up: pass it on, unless a packet is waiting for the
        // timer.
        if self.held.is_none() {
            self.wake(cx);
        }
        false
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.notifier.clone())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Delay) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.delay.to_string())
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Delay) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        self.delay = parse_interval(value.trim()).map_err(|_| "delay must be a timestamp")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn emits_after_delay() {
        let r = testing::run(
            "is :: InfiniteSource(LIMIT 2, ACTIVE false) -> q :: Queue -> s :: DelayShaper(50ms)
               -> u :: Unqueue -> c :: Counter -> Discard;
             Script(write is.active true, wait 40ms, set a $(c.count), wait 20ms,
                    set b $(c.count), wait 100ms, print $a $b $(c.count), stop);",
            &test_registry(),
        )
        .unwrap();
        let out = r.take_stdout();
        // InfiniteSource stamps both packets at creation: both are due at 50ms.
        assert_eq!(out.trim(), "0 2 2", "{out}");
        assert_eq!(testing::read(&r, "u.scheduled"), "false");
        let s = "s";
        assert_eq!(testing::read(&r, &format!("{s}.delay")), "50ms");
        assert!(r.write_handler(&format!("{s}.delay"), "x").is_err());
        r.write_handler(&format!("{s}.delay"), "1ms").unwrap();
        assert_eq!(testing::read(&r, &format!("{s}.delay")), "1ms");
    }
}
