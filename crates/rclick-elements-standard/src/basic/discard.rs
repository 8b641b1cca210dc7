//! # Discard
//!
//! `Discard([KEYWORDS])`
//!
//! **Category:** basic sources and sinks. Drops all packets.
//!
//! **Ports:** one input, agnostic; no outputs.
//!
//! ## Description
//!
//! Discards every packet it receives. In pull mode a task pulls packets
//! from upstream and drops them; it sleeps while the upstream "empty"
//! notifiers say there is nothing to pull.
//!
//! Keywords:
//!
//! * `ACTIVE` (boolean): pull mode only; whether to pull at all. Default
//!   true. It is an error to give `ACTIVE false` in push mode.
//! * `BURST` (unsigned): pull mode only; packets pulled each time the task
//!   runs; 0 means as many as there are. Default 1.
//!
//! ## Handlers
//!
//! * `count` (read): packets discarded.
//! * `reset_counts` (write): zeroes the count.
//! * `active` (read/write), pull mode only: ACTIVE.
//! * In pull mode, the task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! ... -> Discard;
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## See also
//!
//! Idle

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, Packet, PacketBatch, TaskId,
};

use super::parse_bool;

/// The Discard element.
pub struct Discard {
    count: u64,
    burst: usize,
    active: bool,
    pull_mode: bool,
    task: Option<TaskId>,
    signal: NotifierSignal,
}

impl Default for Discard {
    fn default() -> Self {
        Discard {
            count: 0,
            burst: 1,
            active: true,
            pull_mode: false,
            task: None,
            signal: NotifierSignal::Busy,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
        Reset = write("reset_counts"),
        /// In pull mode only.
        Active = read_write("active"),
    }
}

impl Element for Discard {
    fn class_name(&self) -> &'static str {
        "Discard"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.count += 1;
        drop(p);
        None
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn port_count(&self) -> &'static str {
        "1/0"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut active = true;
        let mut burst: u32 = 1;
        Args::new(conf)
            .read("ACTIVE", &mut active)
            .read("BURST", &mut burst)
            .complete()
            .map_err(|e| e.to_string())?;
        if !active && cx.input_is_push(0) {
            return Err("ACTIVE is meaningless in push context".into());
        }
        self.active = active;
        self.burst = if burst == 0 {
            usize::MAX
        } else {
            burst as usize
        };
        self.pull_mode = !cx.input_is_push(0);
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if !cx.input_is_push(0) {
            self.pull_mode = true;
            let t = cx.new_task(self.active);
            self.task = Some(t);
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, _cx: &mut Ctx) {
        self.count += batch.len() as u64;
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        // An inactive Discard stays asleep even when upstream notifiers
        // wake its task (Click keeps such a task strongly unscheduled).
        if !self.active {
            return false;
        }
        let want = self.burst.min(1 << 16);
        let mut sent = 0usize;
        while sent < want {
            let b = cx.pull(0, want - sent);
            if b.is_empty() {
                break;
            }
            sent += b.len();
            if self.burst != usize::MAX {
                break;
            }
        }
        self.count += sent as u64;
        if self.active && (sent > 0 || self.signal.active()) {
            cx.reschedule();
        }
        sent > 0
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v = H::Count.defs();
        v.extend(H::Reset.defs());
        if self.pull_mode {
            v.extend(H::Active.defs());
        }
        v
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Count) => Ok(self.count.to_string()),
            Some(H::Active) => Ok(self.active.to_string()),
            Some(H::Reset) | None => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => self.count = 0,
            Some(H::Active) => {
                self.active = parse_bool(value).ok_or("syntax error")?;
                if let Some(t) = self.task {
                    if self.active {
                        cx.schedule_task(t);
                    } else {
                        cx.unschedule_task(t);
                    }
                }
            }
            _ => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn push_counts() {
        let r = testing::run(
            "InfiniteSource(LIMIT 9, BURST 4, STOP true) -> d :: Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "d.count"), "9");
        r.write_handler("d.reset_counts", "").unwrap();
        assert_eq!(testing::read(&r, "d.count"), "0");
        assert!(r.read_handler("d.active", "").is_err());
    }

    #[test]
    fn active_false_in_push_is_an_error() {
        let e = testing::build(
            "InfiniteSource -> Discard(ACTIVE false);",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("ACTIVE is meaningless in push context"), "{e}");
    }

    #[test]
    fn inactive_pull_leaves_packets_queued() {
        let r = testing::run(
            "InfiniteSource(LIMIT 5) -> PullNull -> d :: Discard(ACTIVE false);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "d.count"), "0");
        assert_eq!(testing::read(&r, "d.scheduled"), "false");
    }

    #[test]
    fn pull_burst() {
        let r = testing::run(
            "InfiniteSource(LIMIT 10, STOP true) -> PullNull -> d :: Discard(BURST 0);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "d.count"), "10");
        assert_eq!(testing::read(&r, "d.active"), "true");
    }
}
