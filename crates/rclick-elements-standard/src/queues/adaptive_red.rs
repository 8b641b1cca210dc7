//! # AdaptiveRED
//!
//! `AdaptiveRED(TARGET, MAX_P [, KEYWORDS])`
//!
//! **Category:** dropping. Drops packets according to Adaptive RED.
//!
//! **Ports:** one input, agnostic; output 0 agnostic, optional output 1
//! push (dropped packets).
//!
//! ## Description
//!
//! Random Early Detection (as RED) whose drop probability at MAX_THRESH
//! tunes itself (Floyd, Gummadi and Shenker's Adaptive RED). TARGET is the
//! queue length to aim for: MIN_THRESH is TARGET/2 and MAX_THRESH is
//! TARGET + TARGET/2 (a TARGET below 10 counts as 10).
//!
//! The element keeps an exponentially weighted average of the total length
//! of its queues (Storage elements: the nearest downstream for a push
//! AdaptiveRED, upstream for a pull one, or those named by QUEUES) and
//! drops each packet as RED does: never while the average is at most
//! MIN_THRESH, with a probability rising from 0 to MAX_P between the two
//! thresholds, then from MAX_P to 1 up to twice MAX_THRESH ("gentle" RED,
//! unless MAX_P is 1), and always above. Drops are spread out: after a
//! drop the next comes after a random number of packets whose mean is
//! 1/probability.
//!
//! Every 500 milliseconds MAX_P is adapted to keep the average between the
//! two thresholds' middle half: below MIN_THRESH + (MAX_THRESH -
//! MIN_THRESH)/2 it is multiplied by 0.9 (while above 0.01); above
//! MAX_THRESH - (MAX_THRESH - MIN_THRESH)/2 it grows by 0.01 or MAX_P/4,
//! whichever is smaller (while under 0.5).
//!
//! Dropped packets leave on output 1 if there is one, and are counted in
//! `drops`.
//!
//! Keywords:
//!
//! * `TARGET` (unsigned integer, packets): the target average queue
//!   length. Required.
//! * `MAX_P` (real between 0 and 1, 16 bits of fraction): the starting
//!   drop probability at MAX_THRESH. Required.
//! * `QUEUES` (space-separated element names): the queues to watch, instead
//!   of the nearest ones.
//! * `STABILITY` (unsigned integer 0 to 16): the average gives each new
//!   length a weight of 2^-STABILITY. 0 uses the current length instead of
//!   an average. Default 4.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `min_thresh`, `max_thresh` (read/write): the thresholds. As in Click
//!   these write handlers replace the first or second argument of `config`
//!   (three positional arguments), which AdaptiveRED refuses (`too many
//!   arguments`); write `config` to change TARGET.
//! * `max_p` (read/write): the current MAX_P (after adaptation); writing
//!   sets it.
//! * `drops` (read): packets dropped so far.
//! * `queues` (read): the queues watched, one per line.
//! * `avg_queue_size` (read): the current average length.
//! * `stats` (read): current length, average length and drops, one per
//!   line.
//! * `config` (read/write): `MIN, MAX, MAX_P, QUEUES names, STABILITY n`;
//!   writing takes AdaptiveRED's arguments and reconfigures (the queues
//!   stay).
//!
//! ## Examples
//!
//! ```text
//! ... -> AdaptiveRED(40, 0.02) -> Queue(200) -> ...
//! ```
//!
//! ## See also
//!
//! RED, Queue
//!
//! Sally Floyd, Ramakrishna Gummadi and Scott Shenker. Adaptive RED: An
//! Algorithm for Increasing the Robustness of RED's Active Queue
//! Management. ICSI technical report, August 2001.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rclick_core::args::{AnyArg, Args};
use rclick_core::{
    ConfigureCx, Ctx, Element, ElementId, HandlerDef, InitCx, PacketBatch, TimerId, Timestamp,
};

use super::storage::storage_length;
use super::token_bucket::ticks;
use super::unparse_fixed;

/// The average holds queue lengths with this many bits of fraction.
const QUEUE_SCALE: u32 = 10;
/// Probability one, with 16 bits of fraction.
const ONE_P: u32 = 0x10000;
/// 0.01 and 0.9 with 16 bits of fraction (Click's constants).
const ONE_HUNDREDTH: u32 = 655;
const NINE_TENTHS: u32 = 58982;
/// How often MAX_P adapts.
const ADAPT_INTERVAL_MS: i64 = 500;

const H_MIN: u32 = 0;
const H_MAX: u32 = 1;
const H_MAXP: u32 = 2;
const H_DROPS: u32 = 3;
const H_QUEUES: u32 = 4;
const H_AVG: u32 = 5;
const H_STATS: u32 = 6;
const H_CONFIG: u32 = 7;

/// Parsed arguments.
#[derive(Clone, Debug, PartialEq)]
struct Params {
    min_thresh: u32,
    max_thresh: u32,
    max_p: u32,
    stability: u32,
    queues: Option<Vec<String>>,
}

fn parse_max_p(v: f64) -> Result<u32, String> {
    if v < 0.0 || v.is_nan() {
        // Click's unsigned fixed-point parser refuses a sign
        return Err("MAX_P: parse error".into());
    }
    if v > 1.0 {
        return Err("MAX_P must be between 0 and 1".into());
    }
    Ok((v * f64::from(ONE_P)).round() as u32)
}

fn parse_params(conf: &[String]) -> Result<Params, String> {
    let (mut target, mut p, mut stability) = (0u32, 0f64, 4u32);
    let mut queues = AnyArg(String::new());
    let mut queues_given = false;
    Args::new(conf)
        .read_mp("TARGET", &mut target)
        .read_mp("MAX_P", &mut p)
        .read("QUEUES", &mut queues)
        .read_status(&mut queues_given)
        .read("STABILITY", &mut stability)
        .complete()
        .map_err(|e| e.to_string())?;
    let target = target.max(10);
    let min_thresh = target / 2;
    let max_thresh = target.saturating_add(min_thresh);
    if max_thresh > 0xFFFF {
        return Err("MAX_THRESH must be <= 65535".into());
    }
    let max_p = parse_max_p(p)?;
    if stability > 16 {
        return Err("STABILITY must be between 0 and 16".into());
    }
    let queues = (queues_given && !queues.0.trim().is_empty())
        .then(|| queues.0.split_whitespace().map(str::to_string).collect());
    Ok(Params {
        min_thresh,
        max_thresh,
        max_p,
        stability,
        queues,
    })
}

/// Click's RED arithmetic: thresholds in packets, probabilities with 16
/// bits of fraction, the average with [`QUEUE_SCALE`] bits.
#[derive(Clone, Debug)]
pub(crate) struct RedState {
    min_thresh: u32,
    max_thresh: u32,
    kill_thresh: u32,
    max_p: u32,
    stability: u32,
    c1: u32,
    c2: u32,
    g1: u32,
    g2: u32,
    /// The scaled average.
    avg: u64,
    count: i32,
    random_value: i32,
    last_jiffies: u64,
}

impl RedState {
    fn new(p: &Params) -> RedState {
        let mut s = RedState {
            min_thresh: 0,
            max_thresh: 0,
            kill_thresh: 0,
            max_p: 0,
            stability: 4,
            c1: 0,
            c2: 0,
            g1: 0,
            g2: 0,
            avg: 0,
            count: -1,
            random_value: 0,
            last_jiffies: 0,
        };
        s.set_params(p);
        s
    }

    fn set_params(&mut self, p: &Params) {
        self.min_thresh = p.min_thresh;
        self.max_thresh = p.max_thresh;
        // gentle RED, unless MAX_P is one
        self.kill_thresh = if p.max_p != ONE_P {
            p.max_thresh * 2
        } else {
            p.max_thresh
        };
        self.max_p = p.max_p;
        self.stability = p.stability;
        self.set_coefficients();
    }

    /// The slopes of the drop probability (Click's `set_C1_and_C2`).
    fn set_coefficients(&mut self) {
        if self.min_thresh >= self.max_thresh {
            self.c1 = 0;
            self.c2 = 1;
        } else {
            let d = self.max_thresh - self.min_thresh;
            self.c1 = self.max_p / d;
            self.c2 = self.max_p.wrapping_mul(self.min_thresh) / d;
        }
        self.g1 = ONE_P.wrapping_sub(self.max_p) / self.max_thresh.max(1);
        self.g2 = ONE_P.wrapping_sub(self.max_p.wrapping_mul(2));
    }

    fn update_avg(&mut self, x: u64, n: u64) {
        let x_scaled = x << QUEUE_SCALE;
        if n >= 100 {
            self.avg = x_scaled;
            return;
        }
        let x_scaled = x_scaled + (1u64 << (self.stability.max(1) - 1));
        for _ in 0..n {
            let delta = (x_scaled.wrapping_sub(self.avg) as i64) >> self.stability;
            self.avg = self.avg.wrapping_add(delta as u64);
        }
    }

    fn unscaled_avg(&self) -> u64 {
        (self.avg + (1 << (QUEUE_SCALE - 1))) >> QUEUE_SCALE
    }

    /// Whether to drop the next packet, the queues holding `size` packets
    /// at `now_ms`.
    fn should_drop(&mut self, size: usize, now_ms: u64) -> bool {
        let avg = if self.stability == 0 {
            size as u64
        } else if size > 0 {
            self.update_avg(size as u64, 1);
            self.last_jiffies = 0;
            self.unscaled_avg()
        } else {
            // empty: one zero sample per 20 ms gone by
            let j = now_ms / 20;
            let n = if self.last_jiffies != 0 {
                j.wrapping_sub(self.last_jiffies)
            } else {
                1
            };
            self.update_avg(0, n);
            self.last_jiffies = j;
            self.unscaled_avg()
        };
        if avg <= u64::from(self.min_thresh) {
            self.count = -1;
            return false;
        }
        if avg > u64::from(self.kill_thresh) {
            self.count = -1;
            return true;
        }
        // Click computes this in 64 bits and keeps the low 32, signed
        let p_b = if avg <= u64::from(self.max_thresh) {
            (u64::from(self.c1).wrapping_mul(self.avg) >> QUEUE_SCALE)
                .wrapping_sub(u64::from(self.c2))
        } else {
            (u64::from(self.g1).wrapping_mul(self.avg) >> QUEUE_SCALE)
                .wrapping_sub(u64::from(self.g2))
        } as u32 as i32;
        self.count = self.count.saturating_add(1);
        if self.count > 0 && p_b > 0 && self.count > self.random_value / p_b {
            self.count = 0;
            self.random_value = next_random_value();
            return true;
        }
        if self.count == 0 {
            self.random_value = next_random_value();
        }
        false
    }

    /// One adaptation step of MAX_P; `avg` is the average queue length in
    /// packets.
    fn adapt(&mut self, avg: u64) {
        let part = (self.max_thresh - self.min_thresh) / 2;
        if avg < u64::from(self.min_thresh + part) && self.max_p > ONE_HUNDREDTH {
            self.max_p = (self.max_p * NINE_TENTHS) >> 16;
        } else if avg > u64::from(self.max_thresh - part) && self.max_p < 0x8000 {
            self.max_p += ONE_HUNDREDTH.min(self.max_p / 4);
        }
        self.set_coefficients();
    }
}

fn next_random_value() -> i32 {
    ((rclick_core::random::random() >> 5) & 0xFFFF) as i32
}

/// The AdaptiveRED element.
pub struct AdaptiveRed {
    p: Params,
    st: RedState,
    queue_ids: Vec<ElementId>,
    queue_names: Vec<String>,
    lengths: Vec<Arc<AtomicUsize>>,
    drops: u64,
    timer: Option<TimerId>,
    next_adapt: Timestamp,
}

impl Default for AdaptiveRed {
    fn default() -> Self {
        let p = Params {
            min_thresh: 5,
            max_thresh: 15,
            max_p: 0,
            stability: 4,
            queues: None,
        };
        AdaptiveRed {
            st: RedState::new(&p),
            p,
            queue_ids: Vec::new(),
            queue_names: Vec::new(),
            lengths: Vec::new(),
            drops: 0,
            timer: None,
            next_adapt: Timestamp::ZERO,
        }
    }
}

/// A new AdaptiveRED.
pub fn new() -> Box<dyn Element> {
    Box::<AdaptiveRed>::default()
}

impl AdaptiveRed {
    fn queue_size(&self) -> usize {
        self.lengths.iter().map(|l| l.load(Ordering::Relaxed)).sum()
    }

    fn decide(&mut self, cx: &Ctx) -> bool {
        let size = self.queue_size();
        let drop = self.st.should_drop(size, ticks(cx.now()));
        if drop {
            self.drops += 1;
        }
        drop
    }

    fn config_text(&self) -> String {
        let mut s = format!(
            "{}, {}, {}, QUEUES",
            self.st.min_thresh,
            self.st.max_thresh,
            unparse_fixed(u64::from(self.st.max_p), 16)
        );
        for n in &self.queue_names {
            s.push(' ');
            s.push_str(n);
        }
        s.push_str(&format!(", STABILITY {}", self.st.stability));
        s
    }
}

impl Element for AdaptiveRed {
    fn class_name(&self) -> &'static str {
        "AdaptiveRED"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let p = parse_params(conf)?;
        let ids = match &p.queues {
            Some(names) => resolve_queue_names(names, cx)?,
            None => Vec::new(),
        };
        self.st = RedState::new(&p);
        self.p = p;
        self.queue_ids = ids;
        Ok(())
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn live_reconfigure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut p = parse_params(conf)?;
        // the queues stay as found (as in Click, once known)
        p.queues = self.p.queues.clone();
        self.st.set_params(&p);
        self.p = p;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let (ids, names, lengths) = find_queues(cx, &self.queue_ids, "no nearby Queues")?;
        self.queue_ids = ids;
        self.queue_names = names;
        self.lengths = lengths;
        self.st = RedState::new(&self.p);
        self.drops = 0;
        let t = cx.new_timer();
        self.next_adapt = cx.now() + Timestamp::from_msec(ADAPT_INTERVAL_MS);
        cx.schedule_timer_at(t, self.next_adapt);
        self.timer = Some(t);
        Ok(())
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        let avg = if self.st.stability == 0 {
            self.queue_size() as u64
        } else {
            self.st.unscaled_avg()
        };
        self.st.adapt(avg);
        // as Click: relative to the last expiry, so no drift
        self.next_adapt += Timestamp::from_msec(ADAPT_INTERVAL_MS);
        cx.schedule_timer_at(timer, self.next_adapt);
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        // one packet at a time: each decision sees the queue after the
        // packets before it went in
        for p in batch {
            if self.decide(cx) {
                if cx.noutputs() > 1 {
                    cx.push_one(1, p);
                }
            } else {
                cx.push_one(0, p);
            }
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut out = PacketBatch::new();
        while out.len() < max.max(1) {
            let Some(p) = cx.pull_one(0) else {
                break;
            };
            if self.decide(cx) {
                if cx.noutputs() > 1 {
                    cx.push_one(1, p);
                }
            } else {
                out.push(p);
            }
        }
        out
    }

    fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
        if let Some(o) = old.downcast_ref::<AdaptiveRed>() {
            self.st.avg = o.st.avg;
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::read_write("min_thresh", H_MIN),
            HandlerDef::read_write("max_thresh", H_MAX),
            HandlerDef::read_write("max_p", H_MAXP),
            HandlerDef::read("drops", H_DROPS),
            HandlerDef::read("queues", H_QUEUES),
            HandlerDef::read("avg_queue_size", H_AVG),
            HandlerDef::read("stats", H_STATS),
            HandlerDef::read("config", H_CONFIG),
        ]
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match id {
            H_MIN => self.st.min_thresh.to_string(),
            H_MAX => self.st.max_thresh.to_string(),
            H_MAXP => unparse_fixed(u64::from(self.st.max_p), 16),
            H_DROPS => self.drops.to_string(),
            H_QUEUES => self.queue_names.iter().map(|n| format!("{n}\n")).collect(),
            H_AVG => unparse_fixed(self.st.avg, QUEUE_SCALE),
            H_STATS => format!(
                "{} current queue\n{} avg queue\n{} drops\n",
                self.queue_size(),
                unparse_fixed(self.st.avg, QUEUE_SCALE),
                self.drops
            ),
            H_CONFIG => self.config_text(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match id {
            H_MAXP => {
                let mut v = 0f64;
                Args::new(&[value.trim().to_string()])
                    .read_mp("MAX_P", &mut v)
                    .complete()
                    .map_err(|e| e.to_string())?;
                let max_p = parse_max_p(v)?;
                self.p.max_p = max_p;
                self.st.max_p = max_p;
                self.st.kill_thresh = if max_p != ONE_P {
                    self.st.max_thresh * 2
                } else {
                    self.st.max_thresh
                };
                self.st.set_coefficients();
                Ok(())
            }
            // Click replaces a positional argument of a three-argument
            // `config`, which AdaptiveRED's two arguments never take
            H_MIN | H_MAX => Err("too many arguments".into()),
            _ => Err("no such handler".into()),
        }
    }
}

/// Finds the elements named in QUEUES (RED's and AdaptiveRED's argument).
pub(crate) fn resolve_queue_names(
    names: &[String],
    cx: &ConfigureCx,
) -> Result<Vec<ElementId>, String> {
    let mut ids = Vec::new();
    let mut errs = Vec::new();
    for n in names {
        match cx.find(n) {
            Some(id) => ids.push(id),
            None => errs.push(format!("no element named '{n}'")),
        }
    }
    if errs.is_empty() {
        Ok(ids)
    } else {
        Err(errs.join("\n"))
    }
}

/// The queues a RED watches: `ids` if given, else the nearest Storage
/// elements downstream (push output) or upstream (pull); their names and
/// shared lengths. `none` is the error when there are none.
#[allow(clippy::type_complexity)]
pub(crate) fn find_queues(
    cx: &mut InitCx,
    ids: &[ElementId],
    none: &str,
) -> Result<(Vec<ElementId>, Vec<String>, Vec<Arc<AtomicUsize>>), String> {
    let mut ids = ids.to_vec();
    if ids.is_empty() {
        let mut is_storage = |e: &dyn Element| storage_length(e).is_some();
        let found = if cx.output_is_push(0) {
            cx.downstream_elements(Some(0), &mut is_storage)
        } else {
            cx.upstream_elements(Some(0), &mut is_storage)
        };
        ids = found
            .into_iter()
            .filter(|&e| {
                cx.with_element(e, |el| storage_length(el))
                    .flatten()
                    .is_some()
            })
            .collect();
        if ids.is_empty() {
            return Err(none.into());
        }
    }
    let (mut lengths, mut names, mut errs) = (Vec::new(), Vec::new(), Vec::new());
    for &e in &ids {
        let name = cx.element_info(e).name.clone();
        match cx.with_element(e, |el| storage_length(el)).flatten() {
            Some(l) => lengths.push(l),
            None => errs.push(format!("'{name}' is not a Storage element")),
        }
        names.push(name);
    }
    if !errs.is_empty() {
        return Err(errs.join("\n"));
    }
    Ok((ids, names, lengths))
}

#[cfg(test)]
mod tests {
    use super::{parse_params, RedState};
    use crate::basic::test_util::random_lock;
    use crate::queues::test_registry;
    use rclick_core::testing;

    fn conf(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    fn err(c: &str) -> String {
        testing::build(
            &format!("Idle -> red :: {c} -> q :: Queue -> Discard;"),
            &test_registry(),
            true,
        )
        .err()
        .unwrap_or_default()
    }

    #[test]
    fn thresholds_from_target() {
        // Click: AdaptiveRED(5, 0.02) reads `5, 15, 0.02` (TARGET at least 10)
        let p = parse_params(&conf(&["5", "0.02"])).unwrap();
        assert_eq!((p.min_thresh, p.max_thresh, p.max_p), (5, 15, 1311));
        let p = parse_params(&conf(&["41", "1", "QUEUES q"])).unwrap();
        assert_eq!((p.min_thresh, p.max_thresh, p.max_p), (20, 61, 65536));
        let p = parse_params(&conf(&["TARGET 40", "MAX_P 0.1", "STABILITY 0"])).unwrap();
        assert_eq!((p.min_thresh, p.max_thresh, p.stability), (20, 60, 0));
    }

    #[test]
    fn configuration_errors_as_click() {
        assert!(err("AdaptiveRED(50)").contains("MAX_P: required argument missing"));
        assert!(err("AdaptiveRED(50, 2)").contains("MAX_P must be between 0 and 1"));
        assert!(err("AdaptiveRED(50, 0.5, STABILITY 17)")
            .contains("STABILITY must be between 0 and 16"));
        assert!(err("AdaptiveRED(200000, 0.5)").contains("MAX_THRESH must be <= 65535"));
        assert!(err("AdaptiveRED(41, 0.1, GENTLE false)").contains("GENTLE"));
        assert!(err("AdaptiveRED(41, -0.1)").contains("MAX_P: parse error"));
        assert!(err("AdaptiveRED(41, 0.1, QUEUES nope)").contains("no element named 'nope'"));
        let e = testing::build(
            "Idle -> AdaptiveRED(5, 0.1) -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap_err();
        assert!(e.contains("no nearby Queues"), "{e}");
    }

    #[test]
    fn config_handler_as_click() {
        let r = testing::run(
            "Idle -> red :: AdaptiveRED(TARGET 40, MAX_P 0.1, STABILITY 0) -> q :: Queue -> Discard;
             DriverManager(stop);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(
            testing::read(&r, "red.config"),
            "20, 60, 0.1, QUEUES q, STABILITY 0"
        );
        assert_eq!(testing::read(&r, "red.min_thresh"), "20");
        assert_eq!(testing::read(&r, "red.max_thresh"), "60");
        assert_eq!(testing::read(&r, "red.queues"), "q\n");
        assert!(r.write_handler("red.min_thresh", "40").is_err());
        r.write_handler("red.max_p", "0.25").unwrap();
        assert_eq!(testing::read(&r, "red.max_p"), "0.25");
        assert!(r.write_handler("red.max_p", "2").is_err());
        assert_eq!(testing::read(&r, "red.max_p"), "0.25");
    }

    #[test]
    fn adaptation_steps() {
        // a queue held above MAX_THRESH: MAX_P grows by min(0.01, MAX_P/4)
        // per step; Click reads 0.04878 after four steps from 0.02
        let p = parse_params(&conf(&["20", "0.02"])).unwrap();
        let mut s = RedState::new(&p);
        for _ in 0..4 {
            s.adapt(62);
        }
        assert_eq!(s.max_p, 3197);
        // an empty queue: times 0.9 while above 0.01
        let p = parse_params(&conf(&["20", "0.5"])).unwrap();
        let mut s = RedState::new(&p);
        s.adapt(0);
        s.adapt(0);
        assert_eq!(s.max_p, 26541);
        let p = parse_params(&conf(&["20", "0.01"])).unwrap();
        let mut s = RedState::new(&p);
        s.adapt(0);
        assert_eq!(s.max_p, 655);
    }

    #[test]
    fn adapts_every_half_second() {
        // Click, with `Script(wait 2.2, ...)`: max_p 0.04878 after four
        // steps, 40 drops, 60 queued
        let _g = random_lock();
        let r = testing::run(
            "RandomSeed(1);
             InfiniteSource(LIMIT 100, STOP false) -> red :: AdaptiveRED(20, 0.02)
               -> q :: Queue(1000) -> Idle;
             red[1] -> d :: Counter -> Discard;
             StopAfter(2.2);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "red.max_p"), "0.04878");
        assert_eq!(
            testing::read(&r, "red.config"),
            "10, 30, 0.04878, QUEUES q, STABILITY 4"
        );
        assert_eq!(testing::read(&r, "red.drops"), "40");
        assert_eq!(testing::read(&r, "q.length"), "60");
    }

    fn run_stats(conf: &str, extra: &[&str]) -> Vec<String> {
        let _g = random_lock();
        let r = testing::run(conf, &test_registry()).unwrap();
        let mut v = vec![testing::read(&r, "red.stats")];
        v.extend(extra.iter().map(|h| testing::read(&r, h)));
        v
    }

    // Each expected value below is the reference Click's for the same
    // configuration (the drop decisions follow the seeded generator).
    #[test]
    fn click_runs_with_random_seed() {
        let v = run_stats(
            "RandomSeed(1);
             InfiniteSource(LIMIT 2000, STOP true) -> red :: AdaptiveRED(20, 0.02)
               -> q :: SimpleQueue(2000) -> Idle;
             red[1] -> d :: Counter -> Discard;",
            &["d.count", "red.config", "red.avg_queue_size"],
        );
        assert_eq!(
            v,
            [
                "61 current queue\n60.993 avg queue\n1939 drops\n",
                "1939",
                "10, 30, 0.02, QUEUES q, STABILITY 4",
                "60.993"
            ]
        );
        let v = run_stats(
            "RandomSeed(7);
             InfiniteSource(LIMIT 3000, STOP true) -> red :: AdaptiveRED(40, 0.1, STABILITY 2)
               -> q :: SimpleQueue(3000) -> Idle;
             red[1] -> d :: Counter -> Discard;",
            &["d.count"],
        );
        assert_eq!(
            v,
            ["120 current queue\n119.999 avg queue\n2880 drops\n", "2880"]
        );
        // STABILITY 0: the current length, never a random drop (Click's
        // slope is computed from the unused average)
        let v = run_stats(
            "RandomSeed(3);
             InfiniteSource(LIMIT 400, STOP true)
               -> red :: AdaptiveRED(TARGET 30, MAX_P 0.2, STABILITY 0)
               -> q :: SimpleQueue(3000) -> Idle;",
            &["q.length"],
        );
        assert_eq!(v, ["91 current queue\n0 avg queue\n309 drops\n", "91"]);
        // two queues named, packets alternating between them
        let v = run_stats(
            "RandomSeed(5);
             InfiniteSource(LIMIT 600, STOP true) -> red :: AdaptiveRED(30, 0.05, QUEUES q1 q2)
               -> rr :: RoundRobinSwitch;
             rr[0] -> q1 :: Queue(1000) -> Idle; rr[1] -> q2 :: Queue(1000) -> Idle;",
            &["red.queues", "q1.length", "q2.length"],
        );
        assert_eq!(
            v,
            [
                "91 current queue\n90.993 avg queue\n509 drops\n",
                "q1\nq2\n",
                "46",
                "45"
            ]
        );
        // pull: the queue upstream, drained as fast as it fills
        let v = run_stats(
            "RandomSeed(3);
             InfiniteSource(LIMIT 500, STOP true) -> q :: Queue(1000)
               -> red :: AdaptiveRED(100, 0.3) -> c :: Counter -> Discard;
             red[1] -> d :: Counter -> Discard;",
            &["c.count", "red.queues"],
        );
        assert_eq!(v, ["0 current queue\n0 avg queue\n0 drops\n", "500", "q\n"]);
    }
}
