//! # RED
//!
//! `RED(MIN_THRESH, MAX_THRESH, MAX_P, [QUEUES, KEYWORDS])`
//!
//! **Category:** dropping. Drops packets according to Random Early
//! Detection.
//!
//! **Ports:** one input, agnostic; output 0 agnostic, optional output 1
//! push (dropped packets).
//!
//! ## Description
//!
//! Implements the Random Early Detection packet dropping algorithm (in its
//! "gentle" variant). RED watches one or more queues (Storage elements),
//! keeps an exponentially weighted average of the sum of their lengths,
//! and drops each packet with a probability that grows with that average:
//! never below MIN_THRESH, up to MAX_P at MAX_THRESH, rising to 1 at twice
//! MAX_THRESH, and always above that. Dropped packets leave on output 1 if
//! it exists.
//!
//! By default the queues are found by flow: a push RED uses the nearest
//! queues downstream, a pull RED the nearest queues upstream. QUEUES, a
//! space-separated list of element names, names them instead.
//!
//! Keywords:
//!
//! * `MIN_THRESH` (unsigned integer, packets). Required.
//! * `MAX_THRESH` (unsigned integer, packets, ≥ MIN_THRESH). Required.
//! * `MAX_P` (real between 0 and 1): drop probability at MAX_THRESH.
//!   Required.
//! * `QUEUES` (space-separated element names): the queues to watch.
//! * `STABILITY` (unsigned integer 1 to 16): how slowly the average moves;
//!   each new length gets weight 2^-STABILITY. Default 4. It should be about
//!   -log2(1 - e^(-1/K)) for a link of K packets per second.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `min_thresh`, `max_thresh`, `max_p` (read/write): the parameters;
//!   writing reconfigures.
//! * `drops` (read): packets dropped so far.
//! * `queues` (read): the queues watched, one per line.
//! * `avg_queue_size` (read): the current average length.
//! * `stats` (read): current length, average length and drops, one per line.
//!
//! ## Examples
//!
//! ```text
//! ... -> RED(5, 50, 0.02) -> Queue(200) -> ...
//! ```
//!
//! ## See also
//!
//! Queue, SimpleQueue
//!
//! Sally Floyd and Van Jacobson. Random Early Detection Gateways for
//! Congestion Avoidance. ACM Transactions on Networking 1(4), August 1993.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rclick_core::args::{AnyArg, Args};
use rclick_core::{ConfigureCx, Ctx, Element, ElementId, HandlerDef, InitCx, PacketBatch};
use rclick_packet::Packet;

use super::adaptive_red::{find_queues, resolve_queue_names};
use super::token_bucket::ticks;
use super::unparse_fixed;

/// Queue lengths are kept scaled by 2^QUEUE_SCALE.
const QUEUE_SCALE: u32 = 10;
const MAX_ALLOW_THRESH: u32 = u32::MAX >> QUEUE_SCALE;
const ONE_P: u64 = 0x10000;

const H_MIN: u32 = 0;
const H_MAX: u32 = 1;
const H_MAXP: u32 = 2;
const H_DROPS: u32 = 3;
const H_QUEUES: u32 = 4;
const H_AVG: u32 = 5;
const H_STATS: u32 = 6;

#[derive(Clone, Debug, PartialEq)]
struct Params {
    min_thresh: u32,
    max_thresh: u32,
    max_p: u64,
    stability: u32,
    queues: Option<Vec<String>>,
}

/// The RED element.
pub struct Red {
    p: Params,
    queue_ids: Vec<ElementId>,
    queue_names: Vec<String>,
    lengths: Vec<Arc<AtomicUsize>>,
    avg: u64,
    count: i64,
    random_value: u64,
    last_jiffies: u64,
    drops: u64,
    rng: u32,
}

impl Default for Red {
    fn default() -> Self {
        Red {
            p: Params {
                min_thresh: 0,
                max_thresh: 0,
                max_p: 0,
                stability: 4,
                queues: None,
            },
            queue_ids: Vec::new(),
            queue_names: Vec::new(),
            lengths: Vec::new(),
            avg: 0,
            count: -1,
            random_value: 0,
            last_jiffies: 0,
            drops: 0,
            rng: 0x2545_F491,
        }
    }
}

fn parse_params(conf: &[String]) -> Result<Params, String> {
    let (mut min, mut max, mut p, mut stability) = (0u32, 0u32, 0f64, 4u32);
    let mut queues = AnyArg(String::new());
    let mut queues_given = false;
    Args::new(conf)
        .read_mp("MIN_THRESH", &mut min)
        .read_mp("MAX_THRESH", &mut max)
        .read_mp("MAX_P", &mut p)
        .read_p("QUEUES", &mut queues)
        .read_status(&mut queues_given)
        .read("STABILITY", &mut stability)
        .complete()
        .map_err(|e| e.to_string())?;
    if !(1..=16).contains(&stability) {
        return Err("STABILITY parameter must be between 1 and 16".into());
    }
    if min > MAX_ALLOW_THRESH {
        return Err(format!("MIN_THRESH too large (max {MAX_ALLOW_THRESH})"));
    }
    if max > MAX_ALLOW_THRESH {
        return Err(format!("MAX_THRESH too large (max {MAX_ALLOW_THRESH})"));
    }
    if min > max {
        return Err("MIN_THRESH must be <= MAX_THRESH".into());
    }
    if !(0.0..=1.0).contains(&p) {
        return Err("MAX_P must be between 0 and 1".into());
    }
    let queues = (queues_given && !queues.0.trim().is_empty())
        .then(|| queues.0.split_whitespace().map(str::to_string).collect());
    Ok(Params {
        min_thresh: min,
        max_thresh: max,
        max_p: (p * ONE_P as f64).round() as u64,
        stability,
        queues,
    })
}

impl Red {
    fn queue_size(&self) -> usize {
        self.lengths.iter().map(|l| l.load(Ordering::Relaxed)).sum()
    }

    fn random(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        u64::from((x >> 5) & 0xFFFF)
    }

    fn ewma_step(&mut self, sample_scaled: u64) {
        let delta = (sample_scaled as i64 - self.avg as i64) >> self.p.stability;
        self.avg = (self.avg as i64 + delta).max(0) as u64;
    }

    /// Click's `should_drop`, with gentle RED above MAX_THRESH.
    fn should_drop(&mut self, now_ticks: u64) -> bool {
        let s = self.queue_size() as u64;
        if s > 0 {
            self.ewma_step(s << QUEUE_SCALE);
            self.last_jiffies = 0;
        } else {
            // empty periods decay the average once per 20ms
            let j = now_ticks / 20;
            let n = if self.last_jiffies != 0 {
                j.saturating_sub(self.last_jiffies)
            } else {
                1
            };
            if n > 200 {
                self.avg = 0;
            } else {
                for _ in 0..n {
                    self.ewma_step(0);
                }
            }
            self.last_jiffies = j;
        }
        let avg = self.avg;
        let min = u64::from(self.p.min_thresh) << QUEUE_SCALE;
        let max = u64::from(self.p.max_thresh) << QUEUE_SCALE;
        if avg <= min {
            self.count = -1;
            return false;
        }
        if avg > 2 * max {
            self.count = -1;
            return true;
        }
        self.count += 1;
        let p_b = if avg <= max {
            if max > min {
                self.p.max_p * (avg - min) / (max - min)
            } else {
                self.p.max_p
            }
        } else {
            self.p.max_p + (ONE_P - self.p.max_p) * (avg - max) / max.max(1)
        };
        if self.count > 0 && p_b > 0 && self.count as u64 > self.random_value / p_b {
            self.count = 0;
            self.random_value = self.random();
            true
        } else {
            if self.count == 0 {
                self.random_value = self.random();
            }
            false
        }
    }
}

impl Element for Red {
    fn class_name(&self) -> &'static str {
        "RED"
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
        self.p = p;
        self.queue_ids = ids;
        Ok(())
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn live_reconfigure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut p = parse_params(conf)?;
        // the queues are fixed once running
        p.queues = self.p.queues.clone();
        self.p = p;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let (ids, names, lengths) = find_queues(cx, &self.queue_ids, "no nearby Queues")?;
        self.queue_ids = ids;
        self.queue_names = names;
        self.lengths = lengths;
        self.avg = 0;
        self.count = -1;
        self.drops = 0;
        self.last_jiffies = 0;
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let now = ticks(cx.now());
        let mut out = PacketBatch::with_capacity(batch.len());
        let mut dropped = PacketBatch::new();
        for p in batch {
            let p: Packet = p;
            if self.should_drop(now) {
                self.drops += 1;
                dropped.push(p);
            } else {
                out.push(p);
            }
        }
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !dropped.is_empty() {
            cx.checked_push(1, dropped);
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let now = ticks(cx.now());
        loop {
            let batch = cx.pull(0, max);
            if batch.is_empty() {
                return batch;
            }
            let mut out = PacketBatch::with_capacity(batch.len());
            let mut dropped = PacketBatch::new();
            for p in batch {
                if self.should_drop(now) {
                    self.drops += 1;
                    dropped.push(p);
                } else {
                    out.push(p);
                }
            }
            if !dropped.is_empty() {
                cx.checked_push(1, dropped);
            }
            if !out.is_empty() {
                return out;
            }
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::reconfigure_positional("min_thresh", "MIN_THRESH", 0).with_read(H_MIN),
            HandlerDef::reconfigure_positional("max_thresh", "MAX_THRESH", 1).with_read(H_MAX),
            HandlerDef::reconfigure_positional("max_p", "MAX_P", 2).with_read(H_MAXP),
            HandlerDef::read("drops", H_DROPS),
            HandlerDef::read("queues", H_QUEUES),
            HandlerDef::read("avg_queue_size", H_AVG),
            HandlerDef::read("stats", H_STATS),
        ]
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match id {
            H_MIN => self.p.min_thresh.to_string(),
            H_MAX => self.p.max_thresh.to_string(),
            H_MAXP => unparse_fixed(self.p.max_p, 16),
            H_DROPS => self.drops.to_string(),
            H_QUEUES => self.queue_names.join("\n"),
            H_AVG => unparse_fixed(self.avg, QUEUE_SCALE),
            H_STATS => format!(
                "{} current queue\n{} avg queue\n{} drops\n",
                self.queue_size(),
                unparse_fixed(self.avg, QUEUE_SCALE),
                self.drops
            ),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_params;
    use crate::queues::test_registry;
    use rclick_core::testing;

    fn conf(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parameters() {
        let p = parse_params(&conf(&["5", "50", "0.02"])).unwrap();
        assert_eq!(
            (p.min_thresh, p.max_thresh, p.max_p, p.stability),
            (5, 50, 1311, 4)
        );
        assert!(parse_params(&conf(&["50", "5", "0.02"]))
            .unwrap_err()
            .contains("MIN_THRESH must be <= MAX_THRESH"));
        assert!(parse_params(&conf(&["5", "50", "2"])).is_err());
        assert!(parse_params(&conf(&["5", "50", "0.1", "STABILITY 0"])).is_err());
        let p = parse_params(&conf(&[
            "MIN_THRESH 1",
            "MAX_THRESH 2",
            "MAX_P 1",
            "QUEUES a b",
        ]))
        .unwrap();
        assert_eq!(p.queues, Some(vec!["a".to_string(), "b".to_string()]));
    }

    #[test]
    fn finds_queue_downstream_and_drops_when_full() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2000, STOP true) -> red :: RED(5, 50, 0.02) -> q :: SimpleQueue(2000) -> Idle;
             red[1] -> d :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "red.queues"), "q");
        let drops: u64 = testing::read(&r, "red.drops").parse().unwrap();
        assert!(drops > 0);
        assert_eq!(testing::read(&r, "d.count"), drops.to_string());
        let qlen: u64 = testing::read(&r, "q.length").parse().unwrap();
        assert_eq!(qlen + drops, 2000);
        assert_eq!(testing::read(&r, "red.max_p"), "0.02");
        assert!(testing::read(&r, "red.stats").contains("current queue"));
        r.write_handler("red.max_thresh", "60").unwrap();
        assert_eq!(testing::read(&r, "red.max_thresh"), "60");
        assert!(r.write_handler("red.max_thresh", "1").is_err());
    }

    #[test]
    fn pull_red_finds_queue_upstream() {
        let r = testing::run(
            "InfiniteSource(LIMIT 10) -> q :: Queue -> red :: RED(5, 50, 0.02) -> Unqueue -> c :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "red.queues"), "q");
        assert_eq!(testing::read(&r, "c.count"), "10");
    }

    /// Configuration errors in Click's words (checked with clickdiff).
    #[test]
    fn argument_errors_like_click() {
        for (conf, want) in [
            ("RED(50, 5, 0.02)", "MIN_THRESH must be <= MAX_THRESH"),
            ("RED(5, 50, 2)", "MAX_P must be between 0 and 1"),
        ] {
            let e = testing::build(
                &format!("Idle -> {conf} -> Queue -> Discard;"),
                &test_registry(),
                true,
            )
            .unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn needs_a_queue() {
        let e = testing::build(
            "Idle -> RED(5, 50, 0.02) -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap_err();
        assert!(e.contains("no nearby Queues"), "{e}");
        let e = testing::build(
            "Idle -> RED(5, 50, 0.02, QUEUES nope) -> Queue -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap_err();
        assert!(e.contains("nope"), "{e}");
    }
}
