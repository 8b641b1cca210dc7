//! # InfiniteSource
//!
//! `InfiniteSource([DATA, LIMIT, BURST, ACTIVE, KEYWORDS])`
//!
//! **Category:** sources. Generates packets whenever scheduled.
//!
//! **Ports:** no inputs, one output, agnostic.
//!
//! ## Description
//!
//! Creates packets consisting of DATA. In push mode a task pushes BURST
//! packets each time it is scheduled; it sleeps while everything
//! downstream is full (it listens to the downstream "nonfull" notifiers) and
//! while ACTIVE is false. In pull mode it hands out a packet on every pull
//! and provides an "empty" notifier that turns inactive once it stops
//! producing. After LIMIT packets it stops; with STOP true it then asks the
//! driver to stop.
//!
//! Keywords:
//!
//! * `DATA` (string): packet contents. Default is a 70-byte text.
//! * `LENGTH` (integer): packet length; DATA is cut or repeated to fit.
//!   Default is DATA's length. `DATASIZE` is a deprecated synonym.
//! * `LIMIT` (integer): total packets to send; negative means no limit.
//!   Default -1.
//! * `BURST` (integer ≥ 1): packets sent each time the task runs. Default 1.
//! * `ACTIVE` (boolean): whether to send packets at all. Default true.
//! * `STOP` (boolean): stop the driver when LIMIT is reached. Default false.
//! * `END_CALL` (handler call, `HANDLER [VALUE]`): write VALUE to HANDLER
//!   when LIMIT is reached. May not be given together with STOP.
//! * `TIMESTAMP` (boolean): set each packet's timestamp annotation to the
//!   current time. Default true. The packets of one task run (a BURST, or
//!   the runs the scheduler coalesces) are made together and get the time
//!   of one clock read.
//!
//! ## Annotations
//!
//! Sets the timestamp annotation (unless TIMESTAMP is false).
//!
//! ## Handlers
//!
//! * `count` (read): packets sent so far.
//! * `reset` (write): sets the count to 0, so sending resumes.
//! * `data` (read/write): DATA. Written raw (no unquoting).
//! * `length`, `datasize` (read/write): LENGTH.
//! * `limit` (read/write), `burst`, `burstsize` (read/write), `active`
//!   (read/write): the keywords of the same names.
//! * In push mode, the task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource(\<0800>, LIMIT 5, STOP true) -> Print -> Discard;
//! ```
//!
//! ## See also
//!
//! RatedSource, TimedSource, Discard

use rclick_core::args::{AnyArg, Args, Data};
use rclick_core::{
    Ctx, Element, HandlerDef, InitCx, Notifier, NotifierSignal, PacketBatch, TaskId,
};
use rclick_packet::Packet;

use super::{parse_bool, parse_int, sized_data, template_packet, DEFAULT_DATA};

/// The InfiniteSource element.
pub struct InfiniteSource {
    data: Vec<u8>,
    length: i64,
    limit: i64,
    burst: u32,
    active: bool,
    end: super::SourceEnd,
    timestamp: bool,
    count: u64,
    packet: Packet,
    task: Option<TaskId>,
    nonfull: NotifierSignal,
    notifier: Notifier,
}

impl Default for InfiniteSource {
    fn default() -> Self {
        InfiniteSource {
            data: DEFAULT_DATA.to_vec(),
            length: -1,
            limit: -1,
            burst: 1,
            active: true,
            end: super::SourceEnd::default(),
            timestamp: true,
            count: 0,
            packet: Packet::from_slice(DEFAULT_DATA),
            task: None,
            nonfull: NotifierSignal::Busy,
            notifier: Notifier::new(true),
        }
    }
}

const H_DATA: u32 = 0;
const H_LIMIT: u32 = 1;
const H_BURST: u32 = 2;
const H_ACTIVE: u32 = 3;
const H_COUNT: u32 = 4;
const H_RESET: u32 = 5;
const H_LENGTH: u32 = 6;

impl InfiniteSource {
    /// Builds the template packet every emitted packet is cloned from. Its
    /// buffer is interned (see `Packet::make_template`), so clones share it
    /// without reference counting; writes downstream copy as usual.
    fn setup_packet(&mut self) {
        let data = sized_data(&self.data, self.length);
        self.packet = Packet::make_template(rclick_packet::DEFAULT_HEADROOM, &data, 0)
            .unwrap_or_else(|_| template_packet(rclick_packet::DEFAULT_HEADROOM, &data));
    }

    fn below_limit(&self) -> bool {
        self.limit < 0 || self.count < self.limit as u64
    }

    /// `n` (≥ 1) clones of the template, each timestamped unless
    /// TIMESTAMP is false.
    #[inline]
    fn make_batch(&self, n: usize, cx: &Ctx) -> PacketBatch {
        if n == 1 {
            // BURST 1 (the default): no vector at all.
            let mut p = self.packet.clone();
            if self.timestamp {
                p.set_timestamp_anno(cx.now());
            }
            return PacketBatch::from(p);
        }
        let mut b = PacketBatch::with_capacity(n);
        b.push_clones(&self.packet, n);
        if self.timestamp {
            // The packets of one batch are made in the same instant: one
            // clock read for all of them. A read per packet (the vDSO's
            // clock_gettime and its conversions) made this function 160
            // instructions per packet at BURST 32, now 73 (callgrind), and
            // took about a third of the IP router's time under KVM.
            let now = cx.now();
            for p in b.iter_mut() {
                p.set_timestamp_anno(now);
            }
        }
        b
    }

    /// Pushes the packets of `runs` task runs (BURST each, fewer at the
    /// limit) as one batch and reschedules; returns the runs used, 0 when
    /// the limit had been reached (then stops or calls END_CALL).
    fn emit_runs(&mut self, runs: u32, cx: &mut Ctx) -> u32 {
        let burst = u64::from(self.burst.max(1));
        let mut n = burst.saturating_mul(u64::from(runs));
        if self.limit >= 0 {
            n = n.min((self.limit as u64).saturating_sub(self.count));
        }
        if n == 0 {
            if !self.below_limit() {
                self.at_end(cx);
            }
            return 0;
        }
        let b = self.make_batch(n as usize, cx);
        self.count += n;
        cx.push(0, b);
        cx.reschedule();
        // Whole runs, and the last (partial) one that reached the limit.
        if runs == 1 {
            1
        } else {
            n.div_ceil(burst) as u32
        }
    }

    /// The limit was reached: stop the driver or call END_CALL.
    fn at_end(&mut self, cx: &mut Ctx) {
        self.end.fire(cx);
    }

    /// Resumes after a handler changed something (Click's change_param tail).
    fn resume(&mut self, cx: &mut Ctx) {
        if self.active && self.below_limit() {
            super::wake_source(self.task, &self.notifier, cx);
        }
    }
}

impl Element for InfiniteSource {
    fn class_name(&self) -> &'static str {
        "InfiniteSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }

    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut data = Data(DEFAULT_DATA.to_vec());
        let mut limit: i64 = -1;
        let mut burst: i64 = 1;
        let mut active = true;
        let mut timestamp = true;
        let mut length: i64 = -1;
        let mut datasize: i64 = i64::MIN;
        let mut stop = false;
        let mut end_call = AnyArg::default();
        Args::new(conf)
            .read_p("DATA", &mut data)
            .read_p("LIMIT", &mut limit)
            .read_p("BURST", &mut burst)
            .read_p("ACTIVE", &mut active)
            .read("TIMESTAMP", &mut timestamp)
            .read("LENGTH", &mut length)
            .read("DATASIZE", &mut datasize)
            .read("STOP", &mut stop)
            .read("END_CALL", &mut end_call)
            .complete()
            .map_err(|e| e.to_string())?;
        if datasize != i64::MIN {
            length = datasize;
        }
        let length = super::check_length(length)?;
        if burst < 1 {
            return Err("burst size must be >= 1".into());
        }
        let end = super::SourceEnd::new(stop, &end_call.0)?;
        self.data = data.0;
        self.limit = limit;
        self.burst = u32::try_from(burst).unwrap_or(u32::MAX);
        self.active = active;
        self.timestamp = timestamp;
        self.length = length;
        self.end = end;
        self.count = 0;
        self.setup_packet();
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if cx.output_is_push(0) {
            let t = cx.new_task(true);
            self.task = Some(t);
            self.nonfull = cx.downstream_full_signal(0, Some(t));
        }
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.active && self.nonfull.active() && self.emit_runs(1, cx) > 0
    }

    /// `runs` runs of BURST packets each, pushed as one batch (the
    /// scheduler offers this only when nothing downstream could tell).
    fn run_task_runs(&mut self, _task: TaskId, runs: u32, cx: &mut Ctx) -> u32 {
        if self.active && self.nonfull.active() {
            self.emit_runs(runs, cx).max(1)
        } else {
            1
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if !self.active {
            self.notifier.set_active(false);
            return PacketBatch::new();
        }
        let mut n = max.max(1) as u64;
        if self.limit >= 0 {
            n = n.min((self.limit as u64).saturating_sub(self.count));
        }
        if n == 0 {
            self.at_end(cx);
            self.notifier.set_active(false);
            return PacketBatch::new();
        }
        let b = self.make_batch(n as usize, cx);
        self.count += n;
        b
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.notifier.clone())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::read_write("data", H_DATA).raw(),
            HandlerDef::read_write("limit", H_LIMIT),
            HandlerDef::read_write("burst", H_BURST),
            HandlerDef::read_write("active", H_ACTIVE),
            HandlerDef::read("count", H_COUNT),
            HandlerDef::write("reset", H_RESET),
            HandlerDef::read_write("length", H_LENGTH),
            HandlerDef::read_write("burstsize", H_BURST),
            HandlerDef::read_write("datasize", H_LENGTH),
        ]
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match id {
            H_DATA => String::from_utf8_lossy(&self.data).into_owned(),
            H_LIMIT => self.limit.to_string(),
            H_BURST => self.burst.to_string(),
            H_ACTIVE => self.active.to_string(),
            H_COUNT => self.count.to_string(),
            H_LENGTH => self.length.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match id {
            H_DATA => {
                self.data = value.as_bytes().to_vec();
                self.setup_packet();
            }
            H_LIMIT => {
                self.limit = parse_int::<i64>(value).ok_or("limit parameter must be integer")?
            }
            H_BURST => {
                let b = parse_int::<u32>(value).filter(|&b| b >= 1);
                self.burst = b.ok_or("burstsize parameter must be integer >= 1")?;
            }
            H_ACTIVE => {
                self.active = parse_bool(value).ok_or("active parameter must be boolean")?
            }
            H_RESET => self.count = 0,
            H_LENGTH => {
                let l = parse_int::<i64>(value).ok_or("length must be integer")?;
                self.length = super::check_length(l)?;
                self.setup_packet();
            }
            _ => return Err("no such handler".into()),
        }
        self.resume(cx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn limit_and_stop() {
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 5, STOP true) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "5");
        assert_eq!(testing::read(&r, "s.count"), "5");
        assert_eq!(testing::read(&r, "c.byte_count"), "345");
    }

    #[test]
    fn coalesced_runs_keep_the_limit_and_counter_calls() {
        // Counter and Discard are batch-transparent: runs are coalesced, and
        // the limit (not a multiple of BURST) still holds exactly.
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 1003, BURST 3, STOP true) -> c :: Counter -> d :: Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "1003");
        assert_eq!(testing::read(&r, "s.count"), "1003");
        // A COUNT_CALL could fire in the middle of a batch: no coalescing,
        // so the router stops after exactly the run Click's stops after.
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 1000) -> c :: Counter(COUNT_CALL 500 stop) -> d :: Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "d.count"), "500");
        assert_eq!(testing::read(&r, "s.count"), "500");
    }

    #[test]
    fn burst_length_and_data() {
        let r = testing::run(
            "s :: InfiniteSource(\\<0102>, LIMIT 7, BURST 3, LENGTH 5, STOP true) -> Print(x) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "7");
        assert_eq!(testing::read(&r, "c.byte_count"), "35");
        let log = r.take_log();
        assert_eq!(log[0], "x:    5 | 01020102 01");
    }

    #[test]
    fn bad_burst() {
        let e = testing::build("InfiniteSource(BURST 0) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("burst size must be >= 1"), "{e}");
    }

    #[test]
    fn pull_mode() {
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 3, STOP true) -> PullNull -> c :: Counter -> d :: Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
    }

    #[test]
    fn end_call() {
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 3, END_CALL c.reset) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.count"), "3");
        assert_eq!(testing::read(&r, "c.count"), "0");
        let e = testing::build(
            "InfiniteSource(STOP true, END_CALL stop) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(
            e.contains("END_CALL and STOP are mutually exclusive"),
            "{e}"
        );
    }

    #[test]
    fn timestamps_per_packet_in_bursts() {
        for (burst, ts) in [(1, true), (3, true), (3, false)] {
            let r = testing::run(
                &format!(
                    "InfiniteSource(\\<0a0b>, LIMIT 5, BURST {burst}, TIMESTAMP {ts}, STOP true) \
                     -> Print(x, TIMESTAMP true) -> Discard;"
                ),
                &registry(),
            )
            .unwrap();
            let log = r.take_log();
            assert_eq!(log.len(), 5, "{log:?}");
            for line in &log {
                let stamp = line.split_whitespace().nth(1).unwrap();
                assert_eq!(stamp.starts_with("0.000000"), !ts, "{line}");
                assert!(line.ends_with("0a0b"), "{line}");
            }
        }
    }

    #[test]
    fn template_is_shared_and_writes_downstream_copy() {
        // Downstream writes (Clipboard pastes zeros) must not change the
        // template.
        let r = testing::run(
            "s :: InfiniteSource(\\<0102>, LIMIT 3, BURST 2, STOP true) -> Print(a) \
             -> [1]cb :: Clipboard(0/1); cb[1] -> Print(b) -> Discard; Idle -> cb -> Discard;",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert_eq!(log.len(), 6, "{log:?}");
        let count = |line: &str| log.iter().filter(|l| *l == line).count();
        assert_eq!(count("a:    2 | 0102"), 3, "{log:?}");
        assert_eq!(count("b:    2 | 0002"), 3, "{log:?}");
    }
}
