//! # DiscardNoFree
//!
//! `DiscardNoFree`
//!
//! **Category:** basic sources and sinks. Drops all packets.
//!
//! **Ports:** one input, agnostic; no outputs.
//!
//! ## Description
//!
//! Takes every packet it is given, or in pull mode pulls one each time its
//! task runs (sleeping while the queues upstream are empty), and drops it.
//! Click's DiscardNoFree does not free the packets, so that a benchmark
//! does not count the cost of freeing; here they go back to the packet
//! pool as usual, since leaking them would grow memory without bound (the
//! pool makes freeing cheap). Takes no arguments.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `count` (read): packets dropped (not in Click).
//! * In pull mode, the task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> DiscardNoFree;
//! ```
//!
//! ## See also
//!
//! Discard

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, PacketBatch, TaskId,
};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
    }
}

/// The DiscardNoFree element.
pub struct DiscardNoFree {
    count: u64,
    task: Option<TaskId>,
    signal: NotifierSignal,
}

impl Default for DiscardNoFree {
    fn default() -> Self {
        DiscardNoFree {
            count: 0,
            task: None,
            signal: NotifierSignal::Busy,
        }
    }
}

impl Element for DiscardNoFree {
    fn class_name(&self) -> &'static str {
        "DiscardNoFree"
    }
    fn port_count(&self) -> &'static str {
        "1/0"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if !cx.input_is_push(0) {
            let t = cx.new_task(true);
            self.task = Some(t);
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, _cx: &mut Ctx) {
        self.count += batch.len() as u64;
    }
    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let b = cx.pull(0, 1);
        let got = !b.is_empty();
        self.count += b.len() as u64;
        if got || self.signal.active() {
            cx.reschedule();
        }
        got
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Count) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.count.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn push_and_pull() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3) -> d :: DiscardNoFree;
             InfiniteSource(LIMIT 4) -> Queue -> e :: DiscardNoFree;
             DriverManager(wait 0.1s);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "d.count"), "3");
        assert_eq!(testing::read(&r, "e.count"), "4");
        assert_eq!(testing::read(&r, "e.scheduled"), "false");
        let e = testing::build("Idle -> DiscardNoFree(1);", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
    }
}
