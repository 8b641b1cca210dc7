//! # PullSwitch
//!
//! `PullSwitch([INPUT])`
//!
//! **Category:** scheduling. Pulls from one input, chosen at run time.
//!
//! **Ports:** any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! On every pull, pulls from input INPUT and returns the result. A negative
//! INPUT, or one that is not an input, returns nothing.
//!
//! PullSwitch provides an "empty" notifier for pullers downstream: it is
//! active while the selected input may have packets. It turns inactive
//! when a pull finds nothing and the selected input's own upstream
//! notifiers are inactive, or when the switch selects no input; it turns
//! active again when the selected input's upstream wakes up, or when the
//! switch selects an input whose upstream is active.
//!
//! Keywords: `INPUT` (integer): default 0.
//!
//! ## Handlers
//!
//! * `switch` (read/write): the current input; -1 means none.
//! * `config` (read/write): the configuration; writing it reconfigures.
//!
//! ## Examples
//!
//! ```text
//! q1 :: Queue -> [0]ps :: PullSwitch; q2 :: Queue -> [1]ps; ps -> ToDevice(eth0);
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## See also
//!
//! SimplePullSwitch, Switch, PrioSched

use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, NotifierSignal, PacketBatch, TaskId,
};

use super::pull_input::{self, pull_input, read_input, PassedNotifier};

/// The PullSwitch element.
#[derive(Default)]
pub struct PullSwitch {
    input: i64,
    notifier: PassedNotifier,
    signals: Vec<NotifierSignal>,
}

impl PullSwitch {
    fn input_signal_active(&self) -> bool {
        self.input >= 0 && !matches!(self.signals.get(self.input as usize), Some(s) if !s.active())
    }
}

impl Element for PullSwitch {
    fn class_name(&self) -> &'static str {
        "PullSwitch"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.input = read_input(conf, false, cx)?;
        Ok(())
    }
    fn live_reconfigure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        // The notifier catches up on the next pull or wake-up.
        self.configure(conf, cx)?;
        if self.input < 0 {
            self.notifier.notifier().set_active(false);
        }
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.notifier.notifier().set_active(self.input >= 0);
        // Woken by the inputs' upstream notifiers; passes the wake-up on.
        let t = cx.new_task(false);
        self.signals = (0..cx.ninputs())
            .map(|i| cx.upstream_empty_signal(i, Some(t)))
            .collect();
        Ok(())
    }
    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.notifier.wake_if(self.input_signal_active(), cx);
        false
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.input < 0 {
            return PacketBatch::new();
        }
        let b = pull_input(self.input, max, cx);
        self.notifier
            .after_pull(b.len(), self.input_signal_active());
        b
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.notifier.notifier().clone())
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        pull_input::handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        pull_input::read_switch(id, self.input)
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.input = pull_input::write_switch(id, value, cx.ninputs())?;
        if self.input < 0 {
            self.notifier.notifier().set_active(false);
        } else if self.input_signal_active() {
            let n = self.notifier.notifier().clone();
            cx.wake_notifier(&n);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn sleeps_on_idle_input_and_wakes_on_switch() {
        let r = testing::run(
            "a :: InfiniteSource(\\<aa>, LIMIT 3) -> [1]s :: PullSwitch(0) -> c :: Counter -> d :: Discard; Idle -> [0]s;\
             TimedSource(1s, LIMIT 1) -> Counter(COUNT_CALL 1 s.switch 1) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "d.scheduled"), "false");
        assert_eq!(testing::read(&r, "s.switch"), "1");
        r.write_handler("s.switch", "5").unwrap();
        assert_eq!(testing::read(&r, "s.switch"), "-1");
    }
}
