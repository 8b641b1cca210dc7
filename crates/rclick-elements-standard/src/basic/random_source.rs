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

use rclick_core::args::Args;
use rclick_core::{
    random, ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, PacketBatch, TaskId,
};
use rclick_packet::Packet;

use super::parse_int;
use super::source::{Source, SourceArgs};

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
#[derive(Default)]
pub struct RandomSource {
    length: usize,
    src: Source,
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
    fn make_batch(&self, n: usize, cx: &Ctx) -> PacketBatch {
        let now = self.src.timestamp.then(|| cx.now());
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
        let mut src = SourceArgs::default();
        src.read(Args::new(&rest), |a| a)
            .complete()
            .map_err(|e| e.to_string())?;
        let length = check_length(length)?;
        self.src.configure(src)?;
        self.length = length;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.src.initialize(cx);
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.src.may_send() {
            return false;
        }
        let n = self.src.take_runs(1, cx);
        if n == 0 {
            return false;
        }
        let b = self.make_batch(n as usize, cx);
        cx.push(0, b);
        cx.reschedule();
        true
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
            Some(H::Length) => self.length.to_string(),
            Some(H::Limit) => self.src.limit.to_string(),
            Some(H::Burst) => self.src.burst.to_string(),
            Some(H::Active) => self.src.active.to_string(),
            Some(H::Count) => self.src.count.to_string(),
            Some(H::Reset) | None => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Length) => {
                let l = parse_int::<i64>(value).ok_or("length must be integer")?;
                self.length = check_length(l)?;
            }
            Some(H::Limit) => self.src.write_limit(value)?,
            Some(H::Burst) => self.src.write_burst("burst", value)?,
            Some(H::Active) => self.src.write_active(value)?,
            Some(H::Reset) => self.src.count = 0,
            Some(H::Count) | None => return Err("no such handler".into()),
        }
        self.src.resume(cx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::random::test_lock as random_lock;
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
