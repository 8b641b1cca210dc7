//! # TimeFilter
//!
//! ## Synopsis
//!
//! `TimeFilter([START, END, keywords START_DELAY, END_DELAY, START_AFTER, END_AFTER, INTERVAL, STOP, END_CALL])`
//!
//! ## Category
//!
//! analysis — filters packets by timestamp.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs, agnostic.
//!
//! ## Description
//!
//! Passes packets whose timestamp annotation lies in `[START, END)` to
//! output 0; others go to output 1 if it exists, and are dropped otherwise.
//!
//! * `START` / `END` (time): absolute bounds.
//! * `START_AFTER` / `END_AFTER` (time): bounds relative to the first
//!   packet's timestamp.
//! * `START_DELAY` / `END_DELAY` (time): bounds relative to the time the
//!   router was initialized.
//! * `INTERVAL` (time): END is START plus this.
//! * `STOP` (boolean, default false): stop the driver at the first packet
//!   at or after END.
//! * `END_CALL` (handler call): called with `$t` set to the packet's
//!   timestamp at the first packet at or after END; it may move END (see
//!   `extend_interval`), in which case the packet is checked again.
//!
//! ## Annotations
//!
//! Reads the timestamp annotation.
//!
//! ## Handlers
//!
//! * `start`, `end` (read/write): the bounds.
//! * `interval` (read): END minus START.
//! * `extend_interval` (write): adds a time to END.
//!
//! ## Example
//!
//! `TimeFilter(0, 1, END_CALL s.run $t)`
//!
//! ## See also
//!
//! TimeRange, Script

use rclick_core::args::{AnyArg, Args};
use std::collections::VecDeque;

use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TaskId, Timestamp,
};

use super::ipsumdump_fields::write_timestamp;
use super::parse_time_arg;

/// The TimeFilter element.
#[derive(Default)]
pub struct TimeFilter {
    first: Timestamp,
    last: Timestamp,
    first_relative: bool,
    first_init_relative: bool,
    last_relative: bool,
    last_init_relative: bool,
    last_interval: bool,
    end_call: Option<(String, String)>,
    stop: bool,
    ready: bool,
    last_h_ready: bool,
    /// Packets waiting for an END_CALL's effects (handler writes to this
    /// element made during the call take effect once it returns).
    pending: VecDeque<Packet>,
    /// END when the END_CALL for the front pending packet was made.
    waiting: Option<Timestamp>,
    task: Option<TaskId>,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Start = read_write("start"),
        End = read_write("end"),
        Interval = read("interval"),
        Extend = write("extend_interval"),
    }
}

fn split_call(s: &str) -> Option<(String, String)> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    match s.find(|c: char| c.is_ascii_whitespace()) {
        Some(i) => Some((s[..i].to_string(), s[i..].trim().to_string())),
        None => Some((s.to_string(), String::new())),
    }
}

fn ts_string(t: Timestamp) -> String {
    let mut s = String::new();
    write_timestamp(&mut s, t);
    s
}

impl TimeFilter {
    fn first_packet(&mut self, t: Timestamp) {
        if self.first_relative {
            self.first += t;
        }
        if self.last_relative {
            self.last += t;
        } else if self.last_interval {
            self.last += self.first;
        }
        self.ready = true;
    }

    fn call_end(&mut self, t: Timestamp, cx: &mut Ctx) {
        let Some((h, v)) = self.end_call.clone() else {
            return;
        };
        let tv = ts_string(t);
        let v = v.replace("${t}", &tv).replace("$t", &tv);
        self.waiting = Some(self.last);
        self.last_h_ready = false;
        if let Err(e) = cx.call_write(&h, &v) {
            cx.log(format!("{}: {e}", cx.name()));
        }
        if let Some(task) = self.task {
            cx.schedule_task(task);
        }
    }

    /// Decides the pending packets, in order, until one needs an END_CALL.
    fn process(&mut self, cx: &mut Ctx) {
        let mut pass = PacketBatch::new();
        let mut fail = PacketBatch::new();
        while let Some(p) = self.pending.front() {
            let t = p.timestamp_anno();
            if let Some(prev) = self.waiting.take() {
                if t >= self.last && self.last_h_ready && self.last > prev {
                    self.call_end(t, cx);
                    break;
                }
            } else {
                if !self.ready {
                    self.first_packet(t);
                }
                if t >= self.first && t >= self.last && self.last_h_ready {
                    if self.stop {
                        self.last_h_ready = false;
                        cx.request_stop();
                    } else if self.end_call.is_some() {
                        self.call_end(t, cx);
                        break;
                    }
                }
            }
            let Some(p) = self.pending.pop_front() else {
                break;
            };
            if t >= self.first && t < self.last {
                pass.push(p);
            } else {
                fail.push(p);
            }
        }
        if !pass.is_empty() {
            cx.push(0, pass);
        }
        if !fail.is_empty() {
            cx.checked_push(1, fail);
        }
    }
}

impl Element for TimeFilter {
    fn class_name(&self) -> &'static str {
        "TimeFilter"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let z = Timestamp::ZERO;
        let (mut first, mut last, mut first_init, mut last_init) = (z, z, z, z);
        let (mut first_delta, mut last_delta, mut interval) = (z, z, z);
        let mut stop = false;
        let mut end_call = AnyArg(String::new());
        Args::new(conf)
            .read_p_with("START", &mut first, parse_time_arg)
            .read_p_with("END", &mut last, parse_time_arg)
            .read_with("START_DELAY", &mut first_init, parse_time_arg)
            .read_with("END_DELAY", &mut last_init, parse_time_arg)
            .read_with("START_AFTER", &mut first_delta, parse_time_arg)
            .read_with("END_AFTER", &mut last_delta, parse_time_arg)
            .read_with("INTERVAL", &mut interval, parse_time_arg)
            .read("STOP", &mut stop)
            .read("END_CALL", &mut end_call)
            .complete()
            .map_err(|e| e.to_string())?;
        let nz = |t: Timestamp| !t.is_zero() as u32;
        *self = TimeFilter::default();
        if nz(first) + nz(first_delta) + nz(first_init) > 1 {
            return Err("START, START_AFTER, and START_AFTER_INIT are mutually exclusive".into());
        } else if nz(first) == 1 {
            self.first = first;
        } else if nz(first_init) == 1 {
            self.first = first_init;
            self.first_init_relative = true;
        } else {
            self.first = first_delta;
            self.first_relative = true;
        }
        if nz(last) + nz(last_delta) + nz(last_init) + nz(interval) > 1 {
            return Err(
                "END, END_AFTER, END_AFTER_INIT, and INTERVAL are mutually exclusive".into(),
            );
        } else if nz(last) == 1 {
            self.last = last;
        } else if nz(last_delta) == 1 {
            self.last = last_delta;
            self.last_relative = true;
        } else if nz(last_init) == 1 {
            self.last = last_init;
            self.last_init_relative = true;
        } else if nz(interval) == 1 {
            self.last = interval;
            self.last_interval = true;
        } else {
            self.last = Timestamp::MAX;
        }
        let call = split_call(&end_call.0);
        if call.is_some() && stop {
            return Err("END_CALL and STOP are mutually exclusive".into());
        }
        self.end_call = call;
        self.stop = stop;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let now = cx.now();
        if self.first_init_relative {
            self.first += now;
        }
        if self.last_init_relative {
            self.last += now;
        }
        self.last_h_ready = self.end_call.is_some() || self.stop;
        if cx.input_is_push(0) {
            self.task = Some(cx.new_task(false));
        }
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.pending.extend(batch);
        if self.waiting.is_none() {
            self.process(cx);
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        let mut out = PacketBatch::with_capacity(batch.len());
        for p in batch {
            let t = p.timestamp_anno();
            if !self.ready {
                self.first_packet(t);
            }
            if t >= self.first && t >= self.last && self.last_h_ready && self.stop {
                self.last_h_ready = false;
                cx.request_stop();
            }
            if t >= self.first && t < self.last {
                out.push(p);
            } else {
                cx.checked_push(1, PacketBatch::from(p));
            }
        }
        out
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if self.waiting.is_some() || !self.pending.is_empty() {
            self.process(cx);
            true
        } else {
            false
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Start) => ts_string(self.first),
            Some(H::End) => ts_string(self.last),
            Some(H::Interval) => ts_string(self.last - self.first),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let t = parse_time_arg(value.trim()).map_err(|_| "expected time".to_string())?;
        match H::from_id(id) {
            Some(H::Start) => {
                if !self.ready {
                    self.first_packet(t);
                }
                self.first = t;
            }
            Some(H::End) => {
                self.last = t;
                self.last_relative = false;
                self.last_init_relative = false;
                self.last_interval = false;
                self.last_h_ready = true;
            }
            Some(H::Extend) => {
                self.last += t;
                self.last_h_ready = true;
            }
            _ => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};
    use rclick_core::testing;

    /// `[START, END)` to output 0, the rest to output 1; the handlers
    /// read the bounds.
    #[test]
    fn passes_the_interval_and_diverts_the_rest() {
        let f = dir("timefilt").join("in");
        std::fs::write(&f, "!data timestamp\n1\n2\n2.5\n3\n4\n").unwrap();
        let (r, lines) = run_dump(
            "timefilt",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> t :: TimeFilter(START 2, END 3)
                 -> ToIPSummaryDump(OUT, FIELDS timestamp); t[1] -> c :: Counter -> Discard;",
                f.display()
            ),
        );
        assert_eq!(lines, ["2.000000", "2.500000"]);
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "t.start"), "2.000000");
        assert_eq!(testing::read(&r, "t.end"), "3.000000");
        assert_eq!(testing::read(&r, "t.interval"), "1.000000");
    }
}
