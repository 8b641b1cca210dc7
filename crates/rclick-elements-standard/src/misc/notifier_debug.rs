//! # NotifierDebug
//!
//! `NotifierDebug()`
//!
//! **Category:** debugging. Shows the notifier signal an element at its
//! position would see.
//!
//! **Ports:** one input, one output; agnostic.
//!
//! ## Description
//!
//! Passes packets through unchanged. When its input is push, it looks up
//! the "full" (has room) signal of the notifiers downstream of its output;
//! when pull, the "empty" (has packets) signal of those upstream of its
//! input. The `signal` handler prints that signal in Click's format:
//!
//! * `busy*`: something cannot notify, so the signal is always on;
//! * `idle`: nothing can ever produce (or accept) packets;
//! * otherwise one `NAME.WORD/MASK:VALUE` term per group of 32 basic
//!   signals, joined by `+`: NAME is the signal kind (`empty`, `full`),
//!   WORD the group number, MASK (hex) the signals of that group included,
//!   VALUE (hex) those now active, and `*` follows a term with any active.
//!   Basic signals are numbered per kind in element initialization order.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `signal` (read): the signal, as above.
//!
//! ## Examples
//!
//! ```text
//! q :: Queue -> d :: NotifierDebug -> Unqueue -> Discard;
//! // "read d.signal" prints e.g. empty.0/1:0
//! ```
//!
//! ## See also
//!
//! Queue, QuickNoteQueue, PullSwitch

use rclick_core::{Ctx, Element, HandlerDef, InitCx, NotifierSignal, PacketBatch};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Signal = read("signal"),
    }
}

/// The NotifierDebug element.
pub struct NotifierDebug {
    signal: NotifierSignal,
}

impl Default for NotifierDebug {
    fn default() -> Self {
        NotifierDebug {
            signal: NotifierSignal::Busy,
        }
    }
}

impl Element for NotifierDebug {
    fn class_name(&self) -> &'static str {
        "NotifierDebug"
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.signal = if cx.input_is_push(0) {
            cx.downstream_full_signal(0, None)
        } else {
            cx.upstream_empty_signal(0, None)
        };
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        cx.push(0, batch);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        cx.pull(0, max)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Signal) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.signal.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn prints_click_signal_names() {
        let r = testing::run(
            "i :: InfiniteSource(LIMIT 1, ACTIVE false) -> d1 :: NotifierDebug -> q :: Queue
               -> d2 :: NotifierDebug -> Discard;
             q2 :: Queue; q3 :: Queue;
             Idle -> q2 -> [0]rr :: RoundRobinSched; Idle -> q3 -> [1]rr;
             rr -> d3 :: NotifierDebug -> Discard;
             i2 :: InfiniteSource(ACTIVE false) -> d4 :: NotifierDebug -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "d1.signal"), "full.0/1:1*");
        let d2 = testing::read(&r, "d2.signal");
        assert!(d2.starts_with("empty.0/") && d2.ends_with(":0"), "{d2}");
        let d3 = testing::read(&r, "d3.signal");
        assert!(d3.starts_with("empty.0/") && d3.ends_with(":0"), "{d3}");
        assert_eq!(testing::read(&r, "d4.signal"), "busy*");
    }
}
