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

use rclick_core::args::{Args, Data};
use rclick_core::{Ctx, Element, HandlerDef, InitCx, Notifier, PacketBatch, TaskId};
use rclick_packet::Packet;

use super::source::{LengthArgs, Source, SourceArgs};
use super::{parse_int, sized_data, template_packet, DEFAULT_DATA};

/// The InfiniteSource element.
pub struct InfiniteSource {
    data: Vec<u8>,
    length: i64,
    src: Source,
    packet: Packet,
}

impl Default for InfiniteSource {
    fn default() -> Self {
        InfiniteSource {
            data: DEFAULT_DATA.to_vec(),
            length: -1,
            src: Source::default(),
            packet: Packet::from_slice(DEFAULT_DATA),
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Data = read_write("data").raw(),
        Limit = read_write("limit"),
        Burst = read_write("burst"),
        Active = read_write("active"),
        Count = read("count"),
        Reset = write("reset"),
        Length = read_write("length"),
        BurstSize = read_write("burstsize"),
        DataSize = read_write("datasize"),
    }
}

impl InfiniteSource {
    /// Builds the template packet every emitted packet is cloned from. Its
    /// buffer is interned (see `Packet::make_template`), so clones share it
    /// without reference counting; writes downstream copy as usual.
    fn setup_packet(&mut self) {
        let data = sized_data(&self.data, self.length);
        self.packet = Packet::make_template(rclick_packet::DEFAULT_HEADROOM, &data, 0)
            .unwrap_or_else(|_| template_packet(rclick_packet::DEFAULT_HEADROOM, &data));
    }

    /// `n` (≥ 1) clones of the template, each timestamped unless
    /// TIMESTAMP is false.
    #[inline]
    fn make_batch(&self, n: usize, cx: &Ctx) -> PacketBatch {
        if n == 1 {
            // BURST 1 (the default): no vector at all.
            let mut p = self.packet.clone();
            if self.src.timestamp {
                p.set_timestamp_anno(cx.now());
            }
            return PacketBatch::from(p);
        }
        let mut b = PacketBatch::with_capacity(n);
        b.push_clones(&self.packet, n);
        if self.src.timestamp {
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
        let n = self.src.take_runs(runs, cx);
        if n == 0 {
            return 0;
        }
        let b = self.make_batch(n as usize, cx);
        cx.push(0, b);
        cx.reschedule();
        // Whole runs, and the last (partial) one that reached the limit.
        if runs == 1 {
            1
        } else {
            n.div_ceil(u64::from(self.src.burst.max(1))) as u32
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
        let mut src = SourceArgs::default();
        let mut length = LengthArgs::default();
        src.read(Args::new(conf).read_p("DATA", &mut data), |a| {
            length.read(a)
        })
        .complete()
        .map_err(|e| e.to_string())?;
        let length = length.get()?;
        self.src.configure(src)?;
        self.data = data.0;
        self.length = length;
        self.setup_packet();
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.src.initialize(cx);
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.src.may_send() && self.emit_runs(1, cx) > 0
    }

    /// `runs` runs of BURST packets each, pushed as one batch (the
    /// scheduler offers this only when nothing downstream could tell).
    fn run_task_runs(&mut self, _task: TaskId, runs: u32, cx: &mut Ctx) -> u32 {
        if self.src.may_send() {
            self.emit_runs(runs, cx).max(1)
        } else {
            1
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        match self.src.take_pull(max, cx) {
            0 => PacketBatch::new(),
            n => self.make_batch(n as usize, cx),
        }
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.src.empty_notifier())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Data) => String::from_utf8_lossy(&self.data).into_owned(),
            Some(H::Limit) => self.src.limit.to_string(),
            Some(H::Burst | H::BurstSize) => self.src.burst.to_string(),
            Some(H::Active) => self.src.active.to_string(),
            Some(H::Count) => self.src.count.to_string(),
            Some(H::Length | H::DataSize) => self.length.to_string(),
            Some(H::Reset) | None => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Data) => {
                self.data = value.as_bytes().to_vec();
                self.setup_packet();
            }
            Some(H::Limit) => self.src.write_limit(value)?,
            Some(H::Burst | H::BurstSize) => self.src.write_burst("burstsize", value)?,
            Some(H::Active) => self.src.write_active(value)?,
            Some(H::Reset) => self.src.count = 0,
            Some(H::Length | H::DataSize) => {
                let l = parse_int::<i64>(value).ok_or("length must be integer")?;
                self.length = super::check_length(l)?;
                self.setup_packet();
            }
            Some(H::Count) | None => return Err("no such handler".into()),
        }
        self.src.resume(cx);
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
