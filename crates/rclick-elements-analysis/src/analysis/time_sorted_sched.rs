//! # TimeSortedSched
//!
//! ## Synopsis
//!
//! `TimeSortedSched([keywords STOP, BUFFER])`
//!
//! ## Category
//!
//! analysis — merges sorted packet streams by timestamp.
//!
//! ## Ports and processing
//!
//! Any number of pull inputs, one pull output.
//!
//! ## Description
//!
//! Keeps up to BUFFER packets from each input and, on each pull, emits the
//! buffered packet with the smallest timestamp annotation. If the inputs
//! are each sorted by timestamp, the output is sorted too.
//!
//! * `STOP` (boolean, default false): stop the driver when every input is
//!   empty and idle.
//! * `BUFFER` (integer, default 1): packets buffered per input.
//!
//! ## Annotations
//!
//! Reads the timestamp annotation.
//!
//! ## Handlers
//!
//! * `well_ordered` (read): whether the output so far has been sorted.
//!
//! ## Example
//!
//! `a -> t :: TimeSortedSched(STOP true); b -> [1] t;`
//!
//! ## See also
//!
//! FromDump, FromIPSummaryDump

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, Packet, PacketBatch, Timestamp,
};

/// The TimeSortedSched element.
pub struct TimeSortedSched {
    stop: bool,
    buffer: usize,
    /// (timestamp, arrival sequence, input, packet), kept unsorted.
    pkts: Vec<(Timestamp, u64, usize, Packet)>,
    space: Vec<usize>,
    signals: Vec<NotifierSignal>,
    seq: u64,
    last: Option<Timestamp>,
    well_ordered: bool,
}

impl Default for TimeSortedSched {
    fn default() -> Self {
        TimeSortedSched {
            stop: false,
            buffer: 1,
            pkts: Vec::new(),
            space: Vec::new(),
            signals: Vec::new(),
            seq: 0,
            last: None,
            well_ordered: true,
        }
    }
}

impl TimeSortedSched {
    fn pull_one(&mut self, cx: &mut Ctx) -> Option<Packet> {
        let mut signals_on = false;
        for i in (0..self.space.len()).rev() {
            if self.space[i] == 0 || !self.signals[i].active() {
                if self.space[i] == 0 && self.signals[i].active() {
                    signals_on = true;
                }
                continue;
            }
            signals_on = true;
            let b = cx.pull(i, self.space[i]);
            for p in b {
                self.space[i] = self.space[i].saturating_sub(1);
                self.pkts.push((p.timestamp_anno(), self.seq, i, p));
                self.seq += 1;
            }
        }
        let best = self
            .pkts
            .iter()
            .enumerate()
            .min_by_key(|(_, (t, s, _, _))| (*t, *s))
            .map(|(k, _)| k);
        match best {
            Some(k) => {
                let (t, _, i, p) = self.pkts.swap_remove(k);
                if !t.is_zero() {
                    if let Some(l) = self.last {
                        if !l.is_zero() && t < l {
                            self.well_ordered = false;
                        }
                    }
                    self.last = Some(t);
                }
                self.space[i] += 1;
                Some(p)
            }
            None => {
                if self.stop && !signals_on {
                    cx.request_stop();
                }
                None
            }
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        WellOrdered = read("well_ordered"),
    }
}

impl Element for TimeSortedSched {
    fn class_name(&self) -> &'static str {
        "TimeSortedSched"
    }
    fn port_count(&self) -> &'static str {
        "-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn flow_code(&self) -> &'static str {
        "x/x"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut stop = false;
        let mut buffer: i64 = 1;
        Args::new(conf)
            .read("STOP", &mut stop)
            .read("BUFFER", &mut buffer)
            .complete()
            .map_err(|e| e.to_string())?;
        if buffer <= 0 {
            return Err("BUFFER must be at least 1".into());
        }
        self.stop = stop;
        self.buffer = buffer as usize;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let n = cx.ninputs();
        self.space = vec![self.buffer; n];
        self.signals = (0..n).map(|i| cx.upstream_empty_signal(i, None)).collect();
        self.pkts.clear();
        self.well_ordered = true;
        self.last = None;
        Ok(())
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut out = PacketBatch::new();
        while out.len() < max.max(1) {
            match self.pull_one(cx) {
                Some(p) => out.push(p),
                None => break,
            }
        }
        out
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        if !matches!(H::from_id(id), Some(H::WellOrdered)) {
            return Err("no such handler".into());
        }
        Ok(self.well_ordered.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};
    use rclick_core::testing;

    /// Two sorted inputs come out merged in timestamp order.
    #[test]
    fn merges_sorted_inputs() {
        let d = dir("tss");
        std::fs::write(d.join("a"), "!data timestamp\n1\n3\n5\n").unwrap();
        std::fs::write(d.join("b"), "!data timestamp\n2\n4\n6\n").unwrap();
        let (r, lines) = run_dump(
            "tss",
            &format!(
                "s :: TimeSortedSched(STOP true);
                 FromIPSummaryDump({}, STOP false) -> [0]s;
                 FromIPSummaryDump({}, STOP false) -> [1]s;
                 s -> ToIPSummaryDump(OUT, FIELDS timestamp);",
                d.join("a").display(),
                d.join("b").display()
            ),
        );
        let ts: Vec<&str> = lines.iter().map(|l| &l[..1]).collect();
        assert_eq!(ts, ["1", "2", "3", "4", "5", "6"]);
        assert_eq!(testing::read(&r, "s.well_ordered"), "true");
    }
}
