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
//! Implements the Random Early Detection packet dropping algorithm (by
//! default its "gentle" variant). RED watches one or more queues (Storage elements),
//! keeps an exponentially weighted average of the sum of their lengths,
//! and drops each packet with a probability that grows with that average:
//! never below MIN_THRESH, up to MAX_P at MAX_THRESH, rising to 1 at twice
//! MAX_THRESH (only GENTLE), and always above that. Each packet is decided
//! after the packets before it went into the queue. Dropped packets leave
//! on output 1 if it exists. The arithmetic (fixed point) and the random
//! numbers are Click's: under `RandomSeed` the same packets are dropped.
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
//! * `STABILITY` (unsigned integer 0 to 16): how slowly the average moves;
//!   each new length gets weight 2^-STABILITY. Default 4. It should be about
//!   -log2(1 - e^(-1/K)) for a link of K packets per second. 0 uses the
//!   current length instead of an average.
//! * `GENTLE` (boolean): whether the drop probability rises from MAX_P to
//!   1 between MAX_THRESH and twice MAX_THRESH ("gentle" RED), rather than
//!   jumping to 1 above MAX_THRESH. Default true. A MAX_P of 1 is never
//!   gentle.
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

use rclick_core::args::{AnyArg, Args};
use rclick_core::HandlerDef;

use super::red_core::{queues_arg, Params, RedClass, RedElement};

/// The RED element.
pub(crate) type Red = RedElement<RedRule>;

/// RED's own part: its arguments and handlers.
#[derive(Default)]
pub(crate) struct RedRule;

impl RedClass for RedRule {
    const CLASS: &'static str = "RED";

    fn default_params() -> Params {
        Params::new(0, 0, 0.0, 4, true, None).expect("valid defaults")
    }

    /// RED's arguments (Click's `RED::configure`; QUEUES may also be the
    /// fourth positional argument).
    fn parse_params(conf: &[String]) -> Result<Params, String> {
        let (mut min, mut max, mut p, mut stability, mut gentle) = (0u32, 0u32, 0f64, 4u32, true);
        let mut queues = AnyArg(String::new());
        let mut queues_given = false;
        Args::new(conf)
            .read_mp("MIN_THRESH", &mut min)
            .read_mp("MAX_THRESH", &mut max)
            .read_mp("MAX_P", &mut p)
            .read_p("QUEUES", &mut queues)
            .read_status(&mut queues_given)
            .read("STABILITY", &mut stability)
            .read("GENTLE", &mut gentle)
            .complete()
            .map_err(|e| e.to_string())?;
        Params::new(
            min,
            max,
            p,
            stability,
            gentle,
            queues_arg(queues, queues_given),
        )
    }

    fn handlers() -> Vec<HandlerDef> {
        RedH::all_defs()
    }
}

rclick_core::handlers! {
    /// RED's handlers (the manual's list): [`H`]'s but for `config`, which
    /// stays the standard one (a write reconfigures), and with the
    /// thresholds and MAX_P written by reconfiguring their arguments. The
    /// ids are [`H`]'s, which `read_handler` dispatches on (checked by a
    /// test).
    ///
    /// [`H`]: super::red_core::H
    enum RedH {
        MinThresh = reconfigure_read("min_thresh", "MIN_THRESH").positional(0),
        MaxThresh = reconfigure_read("max_thresh", "MAX_THRESH").positional(1),
        MaxP = reconfigure_read("max_p", "MAX_P").positional(2),
        Drops = read("drops"),
        Queues = read("queues"),
        Avg = read("avg_queue_size"),
        Stats = read("stats"),
    }
}

#[cfg(test)]
mod tests {
    use super::{RedH, RedRule};
    use crate::queues::red_core::RedClass;
    use crate::queues::red_core::H;

    fn parse_params(conf: &[String]) -> Result<super::Params, String> {
        RedRule::parse_params(conf)
    }
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
        assert!(parse_params(&conf(&["5", "50", "0.1", "STABILITY 17"])).is_err());
        assert!(parse_params(&conf(&["5", "50", "0.1", "STABILITY 0"])).is_ok());
        assert!(
            !parse_params(&conf(&["5", "50", "0.1", "GENTLE false"]))
                .unwrap()
                .gentle
        );
        assert!(parse_params(&conf(&["5", "50", "0.1", "GENTLE x"])).is_err());
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
        assert_eq!(testing::read(&r, "red.queues"), "q\n");
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
        assert_eq!(testing::read(&r, "red.queues"), "q\n");
        assert_eq!(testing::read(&r, "c.count"), "10");
    }

    /// The reference Click's numbers for the same run (clickdiff): the
    /// same drops and the same fixed-point average.
    #[test]
    fn drops_as_click_under_random_seed() {
        let _g = rclick_core::random::test_lock();
        let r = testing::run(
            "RandomSeed(1);
             InfiniteSource(LIMIT 2000, STOP true) -> red :: RED(5, 50, 0.02)
               -> q :: SimpleQueue(2000) -> Idle;
             red[1] -> d :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(
            testing::read(&r, "red.stats"),
            "101 current queue\n100.993 avg queue\n1899 drops\n"
        );
        assert_eq!(testing::read(&r, "d.count"), "1899");
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

    #[test]
    fn red_table_shares_the_core_ids() {
        // RedH is H without `config`, in H's order: dispatch on H sees
        // RED's ids as the same handlers.
        assert_eq!(RedH::ALL.len() + 1, H::ALL.len());
        assert_eq!(H::ALL.last(), Some(&H::Config));
        for h in RedH::ALL {
            let core = H::from_id(h.id()).unwrap();
            let names = |d: Vec<rclick_core::HandlerDef>| -> Vec<String> {
                d.into_iter().map(|d| d.name.into_owned()).collect()
            };
            assert_eq!(names(h.defs()), names(core.defs()));
        }
    }
}
