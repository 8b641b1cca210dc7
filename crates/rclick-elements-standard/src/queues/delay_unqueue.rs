//! # DelayUnqueue
//!
//! `DelayUnqueue(DELAY)`
//!
//! **Category:** shaping (pull-to-push converter). Delays packets by a
//! fixed time after their timestamps.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Pulls packets from its input and pushes each one out once the current
//! time is at least its timestamp annotation plus DELAY. A packet whose
//! timestamp is unset (its whole-seconds part is zero, as for a zero or
//! trace-relative timestamp under one second) is stamped with the time it
//! was pulled. Only
//! one packet is held at a time, so packets leave in order. While waiting
//! it sleeps on a timer; while the input is empty it sleeps on the
//! upstream "empty" notifiers.
//!
//! Keywords:
//!
//! * `DELAY` (time): the delay. Required.
//!
//! ## Annotations
//!
//! Uses the timestamp annotation and sets it to the packet's due time
//! (timestamp, or pull time if unset, plus DELAY).
//!
//! ## Handlers
//!
//! * `delay` (read/write): DELAY.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Queue -> DelayUnqueue(50ms) -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! Unqueue, RatedUnqueue, Queue

use rclick_core::args::{Args, Interval};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId, Timestamp,
};
use rclick_packet::Packet;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Delay = read_write("delay"),
    }
}

/// The DelayUnqueue element.
pub struct DelayUnqueue {
    delay: Interval,
    held: Option<Packet>,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
}

impl Default for DelayUnqueue {
    fn default() -> Self {
        DelayUnqueue {
            delay: Interval::ZERO,
            held: None,
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
        }
    }
}

impl Element for DelayUnqueue {
    fn class_name(&self) -> &'static str {
        "DelayUnqueue"
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut d = Interval::ZERO;
        Args::new(conf)
            .read_mp("DELAY", &mut d)
            .complete()
            .map_err(|e| e.to_string())?;
        self.delay = d;
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
        let mut worked = false;
        let delay = Timestamp::from_nsec(self.delay.as_nanos());
        loop {
            if self.held.is_none() {
                if let Some(mut p) = cx.pull_one(0) {
                    // Like Click, any timestamp within the first second
                    // of the epoch counts as unset (e.g. dump-relative
                    // times such as 0.12 s).
                    if p.timestamp_anno().sec() == 0 {
                        p.set_timestamp_anno(cx.now());
                    }
                    let due = p.timestamp_anno().saturating_add(delay);
                    p.set_timestamp_anno(due);
                    self.held = Some(p);
                }
            }
            let Some(p) = self.held.as_ref() else {
                if !self.signal.active() {
                    return worked;
                }
                break;
            };
            let now = cx.now();
            let due = p.timestamp_anno();
            if due <= now {
                if let Some(p) = self.held.take() {
                    cx.push_one(0, p);
                }
                worked = true;
                continue;
            }
            if let Some(t) = self.timer {
                cx.schedule_timer_at(t, due);
            }
            return worked;
        }
        cx.reschedule();
        worked
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.held = None;
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Delay) => Ok(self.delay.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Delay) => {
                let mut d = Interval::ZERO;
                Args::new(&[value.trim()])
                    .read_mp("DELAY", &mut d)
                    .complete()
                    .map_err(|e| e.to_string())?;
                self.delay = d;
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
    fn holds_packets_for_the_delay() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3) -> Queue -> d :: DelayUnqueue(0.5) -> c :: Counter -> Discard;
             At(0.4, read c.count); At(0.6, read c.count, read d.delay);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["c.count: 0", "c.count: 3", "d.delay: 500ms"]);
        assert!(
            testing::build("Idle -> DelayUnqueue -> Discard;", &test_registry(), true).is_err()
        );
    }
}
