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

use rclick_core::args::{AnyArg, Args};
use rclick_core::{Ctx, Element, HandlerDef, InitCx, TimerId, Timestamp};

use super::red_core::{parse_max_p, queues_arg, Params, RedClass, RedCore, RedElement, H};

/// 0.01 and 0.9 with 16 bits of fraction (Click's constants).
const ONE_HUNDREDTH: u32 = 655;
const NINE_TENTHS: u32 = 58982;
/// How often MAX_P adapts.
const ADAPT_INTERVAL_MS: i64 = 500;

/// One adaptation step of MAX_P (Click's AIMD rule); `avg` is the average
/// queue length in packets. Returns the new MAX_P.
fn adapt(min_thresh: u32, max_thresh: u32, max_p: u32, avg: u64) -> u32 {
    let part = (max_thresh - min_thresh) / 2;
    if avg < u64::from(min_thresh + part) && max_p > ONE_HUNDREDTH {
        (max_p * NINE_TENTHS) >> 16
    } else if avg > u64::from(max_thresh - part) && max_p < 0x8000 {
        max_p + ONE_HUNDREDTH.min(max_p / 4)
    } else {
        max_p
    }
}

/// The AdaptiveRED element: RED whose MAX_P adapts.
pub(crate) type AdaptiveRed = RedElement<Adaptive>;

/// What AdaptiveRED adds to RED: its arguments, its timer, the writable
/// MAX_P.
#[derive(Default)]
pub(crate) struct Adaptive {
    next_adapt: Timestamp,
}

/// A new AdaptiveRED.
pub fn new() -> Box<dyn Element> {
    Box::<AdaptiveRed>::default()
}

impl RedClass for Adaptive {
    const CLASS: &'static str = "AdaptiveRED";

    fn default_params() -> Params {
        Params::new(5, 15, 0.0, 4, true, None).expect("valid defaults")
    }

    /// AdaptiveRED's arguments: the thresholds follow from TARGET.
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
        Params::new(
            min_thresh,
            max_thresh,
            p,
            stability,
            true,
            queues_arg(queues, queues_given),
        )
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_timer();
        self.next_adapt = cx.now() + Timestamp::from_msec(ADAPT_INTERVAL_MS);
        cx.schedule_timer_at(t, self.next_adapt);
        Ok(())
    }

    fn run_timer(&mut self, core: &mut RedCore, timer: TimerId, cx: &mut Ctx) {
        let st = &core.st;
        let avg = if st.stability == 0 {
            core.watched.size() as u64
        } else {
            st.unscaled_avg()
        };
        let max_p = adapt(st.min_thresh, st.max_thresh, st.max_p, avg);
        core.st.set_max_p(max_p);
        // as Click: relative to the last expiry, so no drift
        self.next_adapt += Timestamp::from_msec(ADAPT_INTERVAL_MS);
        cx.schedule_timer_at(timer, self.next_adapt);
    }

    fn handlers() -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn write(&mut self, core: &mut RedCore, h: Option<H>, value: &str) -> Result<(), String> {
        match h {
            Some(H::MaxP) => {
                let mut v = 0f64;
                Args::new(&[value.trim().to_string()])
                    .read_mp("MAX_P", &mut v)
                    .complete()
                    .map_err(|e| e.to_string())?;
                let max_p = parse_max_p(v)?;
                core.p.max_p = max_p;
                core.st.set_max_p(max_p);
                Ok(())
            }
            // Click replaces a positional argument of a three-argument
            // `config`, which AdaptiveRED's two arguments never take
            Some(H::MinThresh | H::MaxThresh) => Err("too many arguments".into()),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{adapt, Adaptive};
    use crate::queues::red_core::RedClass;

    fn parse_params(conf: &[String]) -> Result<super::Params, String> {
        Adaptive::parse_params(conf)
    }
    use crate::queues::test_registry;
    use rclick_core::random::test_lock as random_lock;
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
        let step = |max_p, avg| adapt(p.min_thresh, p.max_thresh, max_p, avg);
        let mut max_p = p.max_p;
        for _ in 0..4 {
            max_p = step(max_p, 62);
        }
        assert_eq!(max_p, 3197);
        // an empty queue: times 0.9 while above 0.01
        assert_eq!(step(step(32768, 0), 0), 26541);
        assert_eq!(step(655, 0), 655);
        // between the two marks: unchanged
        assert_eq!(step(1000, 20), 1000);
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
