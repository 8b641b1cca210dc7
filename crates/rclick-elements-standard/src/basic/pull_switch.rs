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

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, NotifierSignal, PacketBatch, TaskId,
};

use super::parse_int;
use super::switch::clamp_port;

/// The PullSwitch element.
pub struct PullSwitch {
    input: i64,
    notifier: Notifier,
    signals: Vec<NotifierSignal>,
    /// Woken by the inputs' upstream notifiers; passes the wake-up on.
    task: Option<TaskId>,
}

impl Default for PullSwitch {
    fn default() -> Self {
        PullSwitch {
            input: 0,
            notifier: Notifier::new(false),
            signals: Vec::new(),
            task: None,
        }
    }
}

impl PullSwitch {
    fn input_signal_active(&self) -> bool {
        self.input >= 0 && !matches!(self.signals.get(self.input as usize), Some(s) if !s.active())
    }

    fn set_input(&mut self, n: i64, nports: usize, cx: &mut Ctx) {
        self.input = clamp_port(n, nports);
        if self.input < 0 {
            self.notifier.set_active(false);
        } else if self.input_signal_active() {
            let n = self.notifier.clone();
            cx.wake_notifier(&n);
        }
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
        let mut input: i64 = 0;
        Args::new(conf)
            .read_p("INPUT", &mut input)
            .complete()
            .map_err(|e| e.to_string())?;
        self.input = clamp_port(input, cx.ninputs());
        Ok(())
    }
    fn live_reconfigure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        // The notifier catches up on the next pull or wake-up.
        self.configure(conf, cx)?;
        if self.input < 0 {
            self.notifier.set_active(false);
        }
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.notifier.set_active(self.input >= 0);
        let t = cx.new_task(false);
        self.task = Some(t);
        self.signals = (0..cx.ninputs())
            .map(|i| cx.upstream_empty_signal(i, Some(t)))
            .collect();
        Ok(())
    }
    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if self.input_signal_active() && !self.notifier.active() {
            let n = self.notifier.clone();
            cx.wake_notifier(&n);
        }
        false
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.input < 0 {
            return PacketBatch::new();
        }
        let b = cx.pull(self.input as usize, max);
        if !b.is_empty() {
            self.notifier.set_active(true);
        } else if !self.input_signal_active() {
            self.notifier.set_active(false);
        }
        b
    }
    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.notifier.clone())
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        vec![HandlerDef::read_write("switch", 0)]
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.input.to_string())
    }
    fn write_handler(&mut self, _id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let n = parse_int::<i64>(value).ok_or("PullSwitch input must be integer")?;
        let nports = cx.ninputs();
        self.set_input(n, nports, cx);
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
