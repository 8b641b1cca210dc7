//! # Unqueue2
//!
//! `Unqueue2([BURST])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets whenever
//! they are available and there is room downstream.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Each time its task runs, pulls up to BURST packets from its input and
//! pushes them out; BURST 0 (or less) pulls until the input gives nothing.
//! It does not pull while every queue downstream is full (it sleeps on
//! their "nonfull" notifiers), nor while the queues upstream are empty.
//! Click deprecates the element in favour of Unqueue and says so when it
//! is configured; the same message is printed here.
//!
//! As Click's, it cuts each burst to the free room of the fullest queue
//! downstream (the first queues reached from its output, read through their
//! `capacity` and `length` handlers), so it never makes a queue there drop.
//! While one of them is full and another is not, Click's polls; this one
//! looks again every millisecond (a timer), so that an idle router sleeps.
//!
//! Keywords: `BURST` (integer, default 1).
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `packets` (read): packets moved so far, as `N packets`.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Queue -> Unqueue2 -> Queue -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! Unqueue, RatedUnqueue

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId, Timestamp,
};

/// How long to wait before looking again at a full queue downstream.
const RETRY_MS: i64 = 1;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Packets = read("packets"),
    }
}

/// The Unqueue2 element.
pub struct Unqueue2 {
    burst: i64,
    /// The elements first reached downstream, found at initialization.
    downstream: Vec<String>,
    /// Those of them that are queues (with `capacity` and `length`
    /// handlers), found on the first run.
    queues: Option<Vec<String>>,
    task: Option<TaskId>,
    /// Retries while a queue downstream is full and another is not.
    retry: Option<TimerId>,
    count: u64,
    empty: NotifierSignal,
    nonfull: NotifierSignal,
}

impl Default for Unqueue2 {
    fn default() -> Self {
        Unqueue2 {
            burst: 1,
            downstream: Vec::new(),
            queues: None,
            task: None,
            retry: None,
            count: 0,
            empty: NotifierSignal::Busy,
            nonfull: NotifierSignal::Busy,
        }
    }
}

impl Unqueue2 {
    /// The free room of the fullest queue downstream (`None`: no queue).
    fn room_downstream(&mut self, cx: &mut Ctx) -> Option<u64> {
        let read = |cx: &mut Ctx, q: &str, h: &str| -> Option<u64> {
            cx.call_read(&format!("{q}.{h}"), "")
                .ok()?
                .trim()
                .parse()
                .ok()
        };
        let queues = self.queues.get_or_insert_with(|| {
            self.downstream
                .iter()
                .filter(|q| read(cx, q, "capacity").is_some() && read(cx, q, "length").is_some())
                .cloned()
                .collect()
        });
        queues
            .iter()
            .filter_map(|q| Some(read(cx, q, "capacity")?.saturating_sub(read(cx, q, "length")?)))
            .min()
    }
}

impl Element for Unqueue2 {
    fn class_name(&self) -> &'static str {
        "Unqueue2"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut burst: i64 = 1;
        Args::new(conf)
            .read_p("BURST", &mut burst)
            .complete()
            .map_err(|e| e.to_string())?;
        // after the arguments, as in Click (no message above an error)
        cx.message("Unqueue2 is deprecated, you should probably use Unqueue");
        self.burst = burst;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_task(true);
        self.task = Some(t);
        self.retry = Some(cx.new_timer());
        self.empty = cx.upstream_empty_signal(0, Some(t));
        self.nonfull = cx.downstream_full_signal(0, Some(t));
        let ids = cx.downstream_elements(Some(0), &mut |e| e.full_notifier().is_some());
        self.downstream = ids
            .into_iter()
            .map(|id| cx.element_info(id).name.clone())
            .collect();
        Ok(())
    }
    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.nonfull.active() {
            // woken again when a queue downstream has room
            return false;
        }
        let mut limit = if self.burst <= 0 {
            u64::MAX
        } else {
            self.burst as u64
        };
        if let Some(room) = self.room_downstream(cx) {
            if room == 0 {
                // one queue is full while another has room: look again soon
                if let Some(t) = self.retry {
                    cx.schedule_timer_after(t, Timestamp::from_msec(RETRY_MS));
                }
                return false;
            }
            limit = limit.min(room);
        }
        let mut moved = 0u64;
        while moved < limit {
            let want = usize::try_from(limit - moved)
                .unwrap_or(usize::MAX)
                .min(rclick_packet::pool::BATCH_CAPACITY);
            let b = cx.pull(0, want);
            if b.is_empty() {
                break;
            }
            moved += b.len() as u64;
            cx.push(0, b);
            if !self.nonfull.active() {
                break;
            }
        }
        self.count += moved;
        if moved > 0 || self.empty.active() {
            cx.reschedule();
        }
        moved > 0
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
        let Some(H::Packets) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(format!("{} packets", self.count))
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn moves_and_counts() {
        // As the reference Click: the message, the count, the handler text.
        let r = testing::run(
            "InfiniteSource(LIMIT 3) -> Queue -> x :: Unqueue2(2) -> c :: Counter -> Discard;
             DriverManager(wait 0.1s);",
            &test_registry(),
        )
        .unwrap();
        assert!(r
            .take_log()
            .iter()
            .any(|l| l == "  Unqueue2 is deprecated, you should probably use Unqueue"));
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "x.packets"), "3 packets");
        assert_eq!(testing::read(&r, "x.scheduled"), "false");
    }

    #[test]
    fn waits_for_room_downstream() {
        let r = testing::run(
            "InfiniteSource(LIMIT 5) -> Queue(10) -> x :: Unqueue2(0) -> c :: Counter -> q :: Queue(2) -> Idle;
             DriverManager(wait 0.1s);",
            &test_registry(),
        )
        .unwrap();
        // it stops when the downstream queue fills, and drops nothing
        assert_eq!(testing::read(&r, "q.length"), "2");
        assert_eq!(testing::read(&r, "q.drops"), "0");
        assert_eq!(testing::read(&r, "c.count"), "2");
        // a burst is cut to the room of the fullest queue downstream
        let r = testing::run(
            "InfiniteSource(LIMIT 10) -> Queue(10) -> x :: Unqueue2(8) -> t :: Tee;
             t[0] -> q1 :: Queue(3) -> Idle; t[1] -> q2 :: Queue(5) -> Idle;
             DriverManager(wait 0.1s);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "q1.length"), "3");
        assert_eq!(testing::read(&r, "q1.drops"), "0");
        assert_eq!(testing::read(&r, "q2.length"), "3");
        let e = testing::build("Idle -> Unqueue2(x) -> Discard;", &test_registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("BURST"), "{e}");
        assert!(!e.contains("deprecated"), "{e}");
    }
}
