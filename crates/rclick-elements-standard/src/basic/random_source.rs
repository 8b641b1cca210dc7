//! # RandomSource
//!
//! `RandomSource(LENGTH [, LIMIT, BURST, ACTIVE, KEYWORDS])`
//!
//! **Category:** sources. Generates packets of random bytes whenever
//! scheduled.
//!
//! **Ports:** no inputs, one output, agnostic.
//!
//! ## Description
//!
//! Makes packets of LENGTH bytes filled with random data from the router's
//! shared generator (so `RandomSeed` makes runs repeatable, with the same
//! bytes as Click's: each four bytes, and the last one to three, come from
//! one draw, least significant byte first). Otherwise it behaves as
//! InfiniteSource: in push mode a task pushes BURST packets each time it is
//! scheduled, sleeping while everything downstream is full or ACTIVE is
//! false; in pull mode every pull returns a packet. After LIMIT packets it
//! stops; with STOP true it then stops the driver.
//!
//! LENGTH is read first, on its own, as Click does: a configuration that
//! leaves it out and starts with a keyword (`RandomSource(LIMIT 1)`) is
//! reported as `LENGTH: invalid number`.
//!
//! Keywords:
//!
//! * `LENGTH` (integer 0 to 65535, mandatory): packet length. Outside that
//!   range: `bad length N`.
//! * `LIMIT` (integer): total packets to send; negative means no limit.
//!   Default -1.
//! * `BURST` (integer ≥ 1): packets sent each time the task runs. Default 1.
//! * `ACTIVE` (boolean): whether to send packets at all. Default true.
//! * `STOP` (boolean): stop the driver when LIMIT is reached. Default false.
//! * `END_CALL` (handler call, `HANDLER [VALUE]`): write VALUE to HANDLER
//!   when LIMIT is reached. May not be given together with STOP.
//! * `TIMESTAMP` (boolean): set each packet's timestamp annotation to the
//!   current time. Default true.
//!
//! ## Annotations
//!
//! Sets the timestamp annotation (unless TIMESTAMP is false).
//!
//! ## Handlers
//!
//! * `count` (read): packets sent so far.
//! * `reset` (write): sets the count to 0, so sending resumes.
//! * `length` (read/write): LENGTH.
//! * `limit`, `burst`, `active` (read/write): the keywords of the same
//!   names.
//! * In push mode, the task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! RandomSeed(1);
//! RandomSource(64, LIMIT 10, STOP true) -> Queue -> ...
//! ```
//!
//! ## See also
//!
//! InfiniteSource, RandomSeed

use rclick_core::args::{AnyArg, Args};
use rclick_core::{
    random, ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, NotifierSignal, PacketBatch,
    TaskId,
};
use rclick_packet::Packet;

use super::{parse_bool, parse_int};

/// The longest packet RandomSource makes (Click's bound).
const MAX_LENGTH: i64 = 65535;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Length = read_write("length"),
        Reset = write("reset"),
        Count = read("count"),
        Active = read_write("active"),
        Burst = read_write("burst"),
        Limit = read_write("limit"),
    }
}

/// The RandomSource element.
pub struct RandomSource {
    length: usize,
    limit: i64,
    burst: u32,
    active: bool,
    end: super::SourceEnd,
    timestamp: bool,
    count: u64,
    task: Option<TaskId>,
    nonfull: NotifierSignal,
    notifier: Notifier,
}

impl Default for RandomSource {
    fn default() -> Self {
        RandomSource {
            length: 0,
            limit: -1,
            burst: 1,
            active: true,
            end: super::SourceEnd::default(),
            timestamp: true,
            count: 0,
            task: None,
            nonfull: NotifierSignal::Busy,
            notifier: Notifier::new(true),
        }
    }
}

/// `len` random bytes: one draw for each four bytes (little-endian), and
/// one for the last partial word, as Click fills them.
fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len.next_multiple_of(4));
    while v.len() < len {
        v.extend_from_slice(&random::random().to_le_bytes());
    }
    v.truncate(len);
    v
}

/// Takes LENGTH out of the arguments as Click does, before the source
/// keywords are known: the `LENGTH` keyword if given (the last one wins),
/// else the first argument, whatever it looks like.
fn split_length(conf: &[String]) -> Result<(i64, Vec<String>), String> {
    let is_kw = |a: &String| {
        let t = a.trim_start();
        t.strip_prefix("LENGTH")
            .is_some_and(|r| r.starts_with(char::is_whitespace))
    };
    let (text, rest): (String, Vec<String>) = match conf.iter().rposition(is_kw) {
        Some(i) => (
            conf[i].trim_start()["LENGTH".len()..].trim().to_string(),
            conf.iter().filter(|a| !is_kw(a)).cloned().collect(),
        ),
        None => match conf.split_first() {
            Some((first, rest)) if !first.trim().is_empty() => {
                (first.trim().to_string(), rest.to_vec())
            }
            _ => return Err("LENGTH: required argument missing".into()),
        },
    };
    let l = parse_int::<i64>(&text).ok_or("LENGTH: invalid number")?;
    Ok((l, rest))
}

fn check_length(l: i64) -> Result<usize, String> {
    if (0..=MAX_LENGTH).contains(&l) {
        Ok(l as usize)
    } else {
        Err(format!("bad length {l}"))
    }
}

impl RandomSource {
    fn below_limit(&self) -> bool {
        self.limit < 0 || self.count < self.limit as u64
    }

    fn make_batch(&self, n: usize, cx: &Ctx) -> PacketBatch {
        let now = self.timestamp.then(|| cx.now());
        let mut b = PacketBatch::with_capacity(n);
        for _ in 0..n {
            let data = random_bytes(self.length);
            let mut p = Packet::try_make(rclick_packet::DEFAULT_HEADROOM, &data, 0)
                .unwrap_or_else(|_| Packet::from_slice(&data));
            if let Some(t) = now {
                p.set_timestamp_anno(t);
            }
            b.push(p);
        }
        b
    }

    /// Packets left to send now, at most `want`.
    fn quota(&self, want: u64) -> u64 {
        if self.limit >= 0 {
            want.min((self.limit as u64).saturating_sub(self.count))
        } else {
            want
        }
    }

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

impl Element for RandomSource {
    fn class_name(&self) -> &'static str {
        "RandomSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (length, rest) = split_length(conf)?;
        let mut limit: i64 = -1;
        let mut burst: i64 = 1;
        let mut active = true;
        let mut timestamp = true;
        let mut stop = false;
        let mut end_call = AnyArg::default();
        Args::new(&rest)
            .read_p("LIMIT", &mut limit)
            .read_p("BURST", &mut burst)
            .read_p("ACTIVE", &mut active)
            .read("TIMESTAMP", &mut timestamp)
            .read("STOP", &mut stop)
            .read("END_CALL", &mut end_call)
            .complete()
            .map_err(|e| e.to_string())?;
        let length = check_length(length)?;
        if burst < 1 {
            return Err("burst size must be >= 1".into());
        }
        let end = super::SourceEnd::new(stop, &end_call.0)?;
        self.length = length;
        self.limit = limit;
        self.burst = u32::try_from(burst).unwrap_or(u32::MAX);
        self.active = active;
        self.timestamp = timestamp;
        self.end = end;
        self.count = 0;
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
        if !self.active || !self.nonfull.active() {
            return false;
        }
        let n = self.quota(u64::from(self.burst));
        if n == 0 {
            self.at_end(cx);
            return false;
        }
        let b = self.make_batch(n as usize, cx);
        self.count += n;
        cx.push(0, b);
        cx.reschedule();
        true
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if !self.active {
            self.notifier.set_active(false);
            return PacketBatch::new();
        }
        let n = self.quota(max.max(1) as u64);
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
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Length) => self.length.to_string(),
            Some(H::Limit) => self.limit.to_string(),
            Some(H::Burst) => self.burst.to_string(),
            Some(H::Active) => self.active.to_string(),
            Some(H::Count) => self.count.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Length) => {
                let l = parse_int::<i64>(value).ok_or("length must be integer")?;
                self.length = check_length(l)?;
            }
            Some(H::Limit) => {
                self.limit = parse_int::<i64>(value).ok_or("limit parameter must be integer")?
            }
            Some(H::Burst) => {
                let b = parse_int::<u32>(value).filter(|&b| b >= 1);
                self.burst = b.ok_or("burst parameter must be integer >= 1")?;
            }
            Some(H::Active) => {
                self.active = parse_bool(value).ok_or("active parameter must be boolean")?
            }
            Some(H::Reset) => self.count = 0,
            _ => return Err("no such handler".into()),
        }
        self.resume(cx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::{random_lock, registry};
    use rclick_core::testing;

    #[test]
    fn same_bytes_as_click_after_random_seed() {
        let _g = random_lock();
        // Checked against the reference Click: glibc random() seeded with
        // 1, one draw per word and one for the tail.
        let r = testing::run(
            "RandomSeed(1); s :: RandomSource(10, LIMIT 2, STOP true) -> Print(x, 20) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "x:   10 | 67458b6b c6237b32 6998",
                "x:   10 | 73483366 51dcb074 ff5c"
            ]
        );
        assert_eq!(testing::read(&r, "s.count"), "2");
        assert_eq!(testing::read(&r, "s.length"), "10");
        assert_eq!(testing::read(&r, "s.limit"), "2");
        assert_eq!(testing::read(&r, "s.burst"), "1");
        assert_eq!(testing::read(&r, "s.active"), "true");
    }

    #[test]
    fn positional_forms_and_pull() {
        let _g = random_lock();
        let r = testing::run(
            "RandomSeed(1); RandomSource(7, 2, 1, true, STOP true) -> Print(x, 20) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["x:    7 | 67458b6b c6237b", "x:    7 | 69983c64 734833"]
        );
        let r = testing::run(
            "RandomSeed(1); RandomSource(8, LIMIT 1, STOP true) -> Queue -> Print(x, 20) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["x:    8 | 67458b6b c6237b32"]);
        // pull mode: the puller drains LIMIT packets, then STOP ends the run
        let r = testing::run(
            "RandomSeed(1); s :: RandomSource(4, LIMIT 2, STOP true) -> Unqueue -> Print(x, 20) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["x:    4 | 67458b6b", "x:    4 | c6237b32"]
        );
        assert_eq!(testing::read(&r, "s.count"), "2");
        let r = testing::run(
            "RandomSource(LENGTH 0, LIMIT 1, STOP true) -> Print(x, 20) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["x:    0"]);
        // the LENGTH keyword wins over a positional LENGTH, anywhere
        let r = testing::run(
            "RandomSource(LIMIT 2, LENGTH 4, STOP true) -> Print(x, 0) -> Discard;
             RandomSource(4, LENGTH 5, LIMIT 1) -> Print(y, 0) -> Discard;",
            &registry(),
        )
        .unwrap();
        let mut log = r.take_log();
        log.sort();
        assert_eq!(log, vec!["x:    4", "x:    4", "y:    5"]);
    }

    #[test]
    fn bad_configurations_as_click_reports_them() {
        let err = |c: &str| testing::build(c, &registry(), true).err().unwrap();
        assert!(err("RandomSource(-1) -> Discard;").contains("bad length -1"));
        assert!(err("RandomSource(65536) -> Discard;").contains("bad length 65536"));
        assert!(err("RandomSource(LIMIT 1) -> Discard;").contains("LENGTH: invalid number"));
        assert!(err("RandomSource(x) -> Discard;").contains("LENGTH: invalid number"));
        assert!(err("RandomSource() -> Discard;").contains("LENGTH: required argument missing"));
        assert!(err("RandomSource(10, BURST 0) -> Discard;").contains("burst size must be >= 1"));
        assert!(err("RandomSource(10, DATA \\<00>) -> Discard;").contains("DATA: unknown argument"));
        assert!(err("RandomSource(10, STOP true, END_CALL x.y) -> Discard;")
            .contains("END_CALL and STOP are mutually exclusive"));
        assert!(testing::build("RandomSource(65535) -> Discard;", &registry(), true).is_ok());
    }

    #[test]
    fn end_call_and_handlers() {
        let _g = random_lock();
        let r = testing::run(
            "s :: RandomSource(10, LIMIT 3, END_CALL c.reset) -> c :: Counter -> Discard; DriverManager(wait 0.1s);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        assert!(r.write_handler("s.length", "70000").is_err());
        assert!(r.write_handler("s.burst", "0").is_err());
        r.write_handler("s.length", "3").unwrap();
        assert_eq!(testing::read(&r, "s.length"), "3");
    }
}
