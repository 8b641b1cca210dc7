//! # Unqueue
//!
//! `Unqueue([BURST, KEYWORDS])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets whenever
//! they are available and pushes them out.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Each time its task runs, Unqueue pulls up to BURST packets from its
//! input and pushes them to its output. When nothing is available it
//! sleeps on the "empty" notifiers of the queues upstream (it polls when
//! something upstream cannot notify), so an idle Unqueue costs nothing.
//!
//! Keywords:
//!
//! * `BURST` (integer): the most packets moved each time the task runs; a
//!   negative value means no limit. Default 1.
//! * `ACTIVE` (boolean): if false, Unqueue moves no packets. Default true.
//! * `LIMIT` (integer): if non-negative, Unqueue stops after moving this
//!   many packets (until `reset`). Default -1.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `count` (read): packets moved so far.
//! * `reset` (write), `reset_counts` (write): sets `count` to 0, letting a
//!   LIMITed Unqueue resume.
//! * `active` (read/write), `burst` (read/write), `limit` (read/write): the
//!   keywords of the same names. Writes reschedule the task when it may
//!   move packets again.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Queue -> Unqueue(BURST 8) -> Print -> Discard;
//! ```
//!
//! ## See also
//!
//! RatedUnqueue, BandwidthRatedUnqueue, TimedUnqueue, Queue

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, PacketBatch, TaskId,
};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Active = read_write("active"),
        Count = read("count"),
        Burst = read_write("burst"),
        Limit = read_write("limit"),
        Reset = write("reset", "reset_counts"),
    }
}

/// The Unqueue element.
pub struct Unqueue {
    burst: i64,
    active: bool,
    limit: i64,
    count: u64,
    task: Option<TaskId>,
    signal: NotifierSignal,
}

impl Default for Unqueue {
    fn default() -> Self {
        Unqueue {
            burst: 1,
            active: true,
            limit: -1,
            count: 0,
            task: None,
            signal: NotifierSignal::Busy,
        }
    }
}

impl Unqueue {
    fn effective_burst(&self) -> u64 {
        if self.burst < 0 {
            0x7FFF_FFFF
        } else {
            self.burst as u64
        }
    }

    fn resume(&mut self, cx: &mut Ctx) {
        if self.active && (self.limit < 0 || self.count < self.limit as u64) {
            if let Some(t) = self.task {
                cx.schedule_task(t);
            }
        }
    }
}

fn parse_bool(v: &str) -> Result<bool, String> {
    let mut b = false;
    Args::new(&[v.trim()])
        .read_mp("VALUE", &mut b)
        .complete()
        .map_err(|_| "syntax error".to_string())?;
    Ok(b)
}

fn parse_i64(v: &str) -> Result<i64, String> {
    let mut n = 0i64;
    Args::new(&[v.trim()])
        .read_mp("VALUE", &mut n)
        .complete()
        .map_err(|_| "syntax error".to_string())?;
    Ok(n)
}

impl Element for Unqueue {
    fn class_name(&self) -> &'static str {
        "Unqueue"
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut burst, mut active, mut limit) = (1i64, true, -1i64);
        Args::new(conf)
            .read_p("BURST", &mut burst)
            .read("ACTIVE", &mut active)
            .read("LIMIT", &mut limit)
            .complete()
            .map_err(|e| e.to_string())?;
        self.burst = burst;
        self.active = active;
        self.limit = limit;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if self.burst == 0 {
            cx.warning("BURST size 0, no packets will be pulled");
        }
        self.count = 0;
        let t = cx.new_task(self.active);
        self.task = Some(t);
        self.signal = cx.upstream_empty_signal(0, Some(t));
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.active {
            return false;
        }
        let mut limit = self.effective_burst();
        if self.limit >= 0 && self.count + limit >= self.limit as u64 {
            limit = (self.limit as u64).saturating_sub(self.count);
            if limit == 0 {
                return false;
            }
        }
        let mut worked = 0u64;
        while worked < limit && self.active {
            let want = usize::try_from(limit - worked)
                .unwrap_or(usize::MAX)
                .min(rclick_packet::pool::BATCH_CAPACITY);
            let b: PacketBatch = cx.pull(0, want);
            if b.is_empty() {
                if !self.signal.active() {
                    return worked > 0;
                }
                break;
            }
            let n = b.len() as u64;
            worked += n;
            self.count += n;
            cx.push(0, b);
        }
        cx.reschedule();
        worked > 0
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Active) => self.active.to_string(),
            Some(H::Count) => self.count.to_string(),
            Some(H::Burst) => self.burst.to_string(),
            Some(H::Limit) => self.limit.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Active) => self.active = parse_bool(value)?,
            Some(H::Reset) => self.count = 0,
            Some(H::Limit) => self.limit = parse_i64(value)?,
            Some(H::Burst) => {
                let b = parse_i64(value)?;
                self.burst = if b < 0 { 0x7FFF_FFFF } else { b };
            }
            _ => return Err("no such handler".into()),
        }
        self.resume(cx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn moves_everything() {
        let r = testing::run(
            "InfiniteSource(LIMIT 20) -> q :: Queue(5) -> u :: Unqueue(BURST 4) -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "20");
        assert_eq!(testing::read(&r, "u.count"), "20");
        assert_eq!(testing::read(&r, "u.burst"), "4");
        assert_eq!(testing::read(&r, "q.drops"), "0");
        // it sleeps once the queue's notifier does
        assert_eq!(testing::read(&r, "u.scheduled"), "false");
    }

    #[test]
    fn limit_and_reset() {
        let r = testing::run(
            "InfiniteSource(LIMIT 10) -> Queue -> u :: Unqueue(LIMIT 3) -> c :: Counter -> Discard;
             At(1, read c.count, write u.reset);
             At(2, read c.count, write u.limit -1);
             At(3, read c.count, read u.limit);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            ["c.count: 3", "c.count: 6", "c.count: 10", "u.limit: -1"]
        );
    }

    #[test]
    fn inactive_until_written() {
        let r = testing::run(
            "InfiniteSource(LIMIT 4) -> Queue -> u :: Unqueue(ACTIVE false) -> c :: Counter -> Discard;
             At(1, read c.count, write u.active maybe, write u.active true);
             At(2, read c.count, read u.active);",
            &test_registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert_eq!(log[0], "c.count: 0");
        assert!(log[1].starts_with("error"), "{log:?}");
        assert_eq!(&log[2..], ["c.count: 4", "u.active: true"]);
    }

    /// Click warns at initialization (checked with clickdiff).
    #[test]
    fn burst_zero_warns() {
        let r = testing::build(
            "Idle -> Queue -> u :: Unqueue(0) -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            [
                "config:1: While initializing 'u :: Unqueue':",
                "  warning: BURST size 0, no packets will be pulled"
            ]
        );
    }

    #[test]
    fn bad_config() {
        assert!(testing::build(
            "Idle -> Unqueue(LIMIT x) -> Discard;",
            &test_registry(),
            true
        )
        .is_err());
    }
}
