//! # StaticPullSwitch
//!
//! `StaticPullSwitch(INPUT)`
//!
//! **Category:** scheduling. Forwards pull requests to a fixed input.
//!
//! **Ports:** any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! Each pull on the output is passed to input INPUT, and whatever that
//! input returns is returned. A negative INPUT, or one that is not an
//! input, makes every pull return nothing. INPUT is fixed at configuration
//! time (PullSwitch's can change). Notification passes through from INPUT:
//! the element is empty when that input is.
//!
//! Keywords: `INPUT` (integer, mandatory).
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! q0 :: Queue -> [0] s :: StaticPullSwitch(1); q1 :: Queue -> [1] s;
//! s -> Unqueue -> ...
//! ```
//!
//! ## See also
//!
//! PullSwitch, StaticSwitch

use rclick_core::{
    ConfigureCx, Ctx, Element, InitCx, Notifier, NotifierSignal, PacketBatch, TaskId,
};

use super::pull_input::{pull_input, read_input, PassedNotifier};

/// The StaticPullSwitch element.
pub struct StaticPullSwitch {
    input: i64,
    /// Active while input INPUT may have packets.
    notifier: PassedNotifier,
    /// INPUT's upstream signal.
    signal: NotifierSignal,
}

impl Default for StaticPullSwitch {
    fn default() -> Self {
        StaticPullSwitch {
            input: 0,
            notifier: PassedNotifier::default(),
            signal: NotifierSignal::Busy,
        }
    }
}

impl Element for StaticPullSwitch {
    fn class_name(&self) -> &'static str {
        "StaticPullSwitch"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.input = read_input(conf, true, cx)?;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        // Only INPUT's queues matter to pullers downstream: a task woken by
        // them passes the wake-up on through this element's own notifier.
        if self.input >= 0 {
            let t = cx.new_task(false);
            self.signal = cx.upstream_empty_signal(self.input as usize, Some(t));
            self.notifier.notifier().set_active(true);
        }
        Ok(())
    }
    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.notifier.wake_if(self.signal.active(), cx);
        false
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.input < 0 {
            return PacketBatch::new();
        }
        let b = pull_input(self.input, max, cx);
        self.notifier.after_pull(b.len(), self.signal.active());
        b
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.notifier.notifier().clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn pulls_only_from_its_input() {
        // As the reference Click: only input 1's packets come out.
        let r = testing::run(
            "InfiniteSource(\\<aa>, LIMIT 2) -> Queue -> [0] s :: StaticPullSwitch(1);
             InfiniteSource(\\<bb>, LIMIT 3) -> Queue -> [1] s;
             s -> Unqueue -> Print(x) -> Discard; DriverManager(wait 0.1s);",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["x:    1 | bb"; 3]);
    }

    #[test]
    fn out_of_range_input_gives_nothing() {
        for conf in ["-1", "5"] {
            let r = testing::run(
                &format!(
                    "InfiniteSource(LIMIT 2) -> Queue -> [0] s :: StaticPullSwitch({conf});
                     Idle -> [1] s; s -> Unqueue -> c :: Counter -> Discard;
                     DriverManager(wait 0.1s);"
                ),
                &registry(),
            )
            .unwrap();
            assert_eq!(testing::read(&r, "c.count"), "0");
        }
    }

    #[test]
    fn arguments() {
        let err = |c: &str| testing::build(c, &registry(), true).err().unwrap();
        assert!(err("Idle -> StaticPullSwitch() -> Discard;")
            .contains("INPUT: required argument missing"));
        assert!(err("Idle -> StaticPullSwitch(x) -> Discard;").contains("INPUT"));
    }
}
