//! # RatedUnqueue
//!
//! `RatedUnqueue(RATE, [KEYWORDS])`
//!
//! **Category:** shaping (pull-to-push converter). Pulls packets at a
//! given rate and pushes them out.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Pulls packets at RATE packets per second and pushes them to its output.
//! It is implemented with a token bucket (Click's, with millisecond ticks
//! and 32-bit fixed-point tokens, so achieved rates match Click's). The
//! bucket holds 20 milliseconds' worth of tokens unless BURST_DURATION or
//! BURST_SIZE says otherwise (at least one token); it starts full. While
//! the bucket is short of a token, a timer wakes the task when the next
//! token is due; while the input is empty, the task sleeps on the upstream
//! "empty" notifiers.
//!
//! Keywords:
//!
//! * `RATE` (unsigned integer, packets per second): the fill rate.
//!   Required. 0 lets no packet through.
//! * `BURST_DURATION` (time, millisecond precision): bucket capacity as
//!   RATE × BURST_DURATION. Default 20ms.
//! * `BURST_SIZE` (unsigned integer): bucket capacity in packets. Not
//!   together with BURST_DURATION.
//! * `ACTIVE` is not a keyword; use the `active` handler.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `rate` (read/write): RATE; writing reconfigures.
//! * `active` (read/write): whether packets move. Default true.
//! * `calls` (read): task statistics (runs, empty runs, pushes, failed
//!   pulls), one per line.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> Queue(10) -> RatedUnqueue(100, BURST_SIZE 5) -> Discard;
//! ```
//!
//! ## See also
//!
//! BandwidthRatedUnqueue, Unqueue, Shaper, RatedSplitter

use rclick_core::args::{parse_interval, unparse_bandwidth, Args, Bandwidth};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId, Timestamp,
};

use super::token_bucket::{ticks, TokenBucket};

/// Extra tokens (bytes) BandwidthRatedUnqueue's bucket holds: it sends
/// while at least this many are available, whatever the packet length.
pub const BANDWIDTH_THRESH: u32 = 131072;

const H_RATE: u32 = 0;
const H_ACTIVE: u32 = 1;
const H_CALLS: u32 = 2;

/// RatedUnqueue, and BandwidthRatedUnqueue when `bandwidth` is set.
pub struct RatedUnqueue {
    bandwidth: bool,
    tb: TokenBucket,
    active: bool,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
    runs: u64,
    pushes: u64,
    failed_pulls: u64,
    empty_runs: u64,
}

impl RatedUnqueue {
    /// A RatedUnqueue (`bandwidth` false) or BandwidthRatedUnqueue.
    pub fn new(bandwidth: bool) -> RatedUnqueue {
        RatedUnqueue {
            bandwidth,
            tb: TokenBucket::default(),
            active: true,
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
            runs: 0,
            pushes: 0,
            failed_pulls: 0,
            empty_runs: 0,
        }
    }

    fn threshold(&self) -> u32 {
        if self.bandwidth {
            BANDWIDTH_THRESH
        } else {
            1
        }
    }
}

impl Default for RatedUnqueue {
    fn default() -> Self {
        RatedUnqueue::new(false)
    }
}

fn parse_msec(s: &str) -> Result<u32, String> {
    let i = parse_interval(s)?;
    // SecondsArg(3): milliseconds, rounded half up
    let ms = (i.as_nanos() + 500_000) / 1_000_000;
    u32::try_from(ms).map_err(|_| "out of range".to_string())
}

/// Parses RATE and the burst keywords into a token bucket rate and
/// capacity (Click's `RatedUnqueue::configure_helper`); shared with
/// BandwidthRatedUnqueue.
pub fn parse_rate_config(conf: &[String], bandwidth: bool) -> Result<(u32, u32), String> {
    let mut rate: u32 = 0;
    let mut bw = Bandwidth(0.0);
    let mut dur_msec: u32 = 20;
    let mut tokens: u32 = 0;
    let (mut dur_given, mut tokens_given) = (false, false);
    let burst_kw = if bandwidth {
        "BURST_BYTES"
    } else {
        "BURST_SIZE"
    };
    let mut args = Args::new(conf);
    args = if bandwidth {
        args.read_mp("RATE", &mut bw)
    } else {
        args.read_mp("RATE", &mut rate)
    };
    args.read_with("BURST_DURATION", &mut dur_msec, parse_msec)
        .read_status(&mut dur_given)
        .read(burst_kw, &mut tokens)
        .read_status(&mut tokens_given)
        .complete()
        .map_err(|e| e.to_string())?;
    if bandwidth {
        let b = bw.bytes_per_sec();
        if b > f64::from(u32::MAX) {
            return Err("RATE: out of range".into());
        }
        rate = b as u32;
    }
    if dur_given && tokens_given {
        return Err(format!("cannot specify both BURST_DURATION and {burst_kw}"));
    }
    if !tokens_given {
        let t = u64::from(rate) * u64::from(dur_msec) / 1000;
        tokens = u32::try_from(t).unwrap_or(u32::MAX);
    }
    if bandwidth {
        tokens = tokens.saturating_add(BANDWIDTH_THRESH);
    }
    Ok((rate, tokens.max(1)))
}

impl Element for RatedUnqueue {
    fn class_name(&self) -> &'static str {
        if self.bandwidth {
            "BandwidthRatedUnqueue"
        } else {
            "RatedUnqueue"
        }
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (rate, capacity) = parse_rate_config(conf, self.bandwidth)?;
        self.tb.assign(rate, capacity);
        Ok(())
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn reconfigured(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_task(true);
        self.task = Some(t);
        self.signal = cx.upstream_empty_signal(0, Some(t));
        self.timer = Some(cx.new_timer());
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.runs += 1;
        if !self.active {
            return false;
        }
        self.tb.refill(ticks(cx.now()));
        let need = self.threshold();
        let mut worked = false;
        if self.tb.contains(need) {
            if let Some(p) = cx.pull_one(0) {
                let cost = if self.bandwidth {
                    u32::try_from(p.len()).unwrap_or(u32::MAX)
                } else {
                    1
                };
                self.tb.remove(cost);
                self.pushes += 1;
                worked = true;
                cx.push_one(0, p);
            } else {
                self.failed_pulls += 1;
                if !self.signal.active() {
                    return false;
                }
            }
        } else {
            let wait = self.tb.time_until_contains(need);
            if let (Some(t), true) = (self.timer, wait != u64::MAX) {
                let ms = i64::try_from(wait).unwrap_or(i64::MAX / 1_000_000);
                cx.schedule_timer_after(t, Timestamp::from_msec(ms));
            }
            self.empty_runs += 1;
            return false;
        }
        cx.reschedule();
        if !worked {
            self.empty_runs += 1;
        }
        worked
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::reconfigure_positional("rate", "RATE", 0).with_read(H_RATE),
            HandlerDef::read_write("active", H_ACTIVE),
            HandlerDef::read("calls", H_CALLS),
        ]
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match id {
            H_RATE if self.bandwidth => unparse_bandwidth(f64::from(self.tb.rate())),
            H_RATE => self.tb.rate().to_string(),
            H_ACTIVE => self.active.to_string(),
            H_CALLS => format!(
                "{} calls to run_task()\n{} empty runs\n{} pushes\n{} failed pulls\n",
                self.runs, self.empty_runs, self.pushes, self.failed_pulls
            ),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match id {
            H_ACTIVE => {
                let mut b = false;
                Args::new(&[value.trim()])
                    .read_mp("ACTIVE", &mut b)
                    .complete()
                    .map_err(|_| "expected boolean".to_string())?;
                self.active = b;
                if b {
                    if let Some(t) = self.task {
                        cx.schedule_task(t);
                    }
                }
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_rate_config;
    use crate::queues::test_registry;
    use rclick_core::testing;

    fn conf(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn burst_parameters() {
        assert_eq!(parse_rate_config(&conf(&["2"]), false), Ok((2, 1)));
        assert_eq!(
            parse_rate_config(&conf(&["RATE 2", "BURST_SIZE 50"]), false),
            Ok((2, 50))
        );
        assert_eq!(
            parse_rate_config(&conf(&["2", "BURST_DURATION 25"]), false),
            Ok((2, 50))
        );
        assert_eq!(parse_rate_config(&conf(&["1000"]), false), Ok((1000, 20)));
        assert!(
            parse_rate_config(&conf(&["2", "BURST_DURATION 1", "BURST_SIZE 3"]), false).is_err()
        );
        assert!(parse_rate_config(&conf(&[]), false).is_err());
        assert_eq!(
            parse_rate_config(&conf(&["200Bps"]), true),
            Ok((200, 131076))
        );
    }

    #[test]
    fn rate_over_ten_seconds() {
        let r = testing::run(
            "InfiniteSource -> Queue(10) -> u1 :: RatedUnqueue(RATE 2) -> c1 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> u2 :: RatedUnqueue(RATE 2, BURST_SIZE 50) -> c2 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> u3 :: RatedUnqueue(RATE 2, BURST_DURATION 25) -> c3 :: Counter -> Discard;
             InfiniteSource -> Queue(10) -> u4 :: RatedUnqueue(RATE 100, BURST_SIZE 1) -> c4 :: Counter -> Discard;
             StopAfter(10);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "20");
        assert_eq!(testing::read(&r, "c2.count"), "69");
        assert_eq!(testing::read(&r, "c3.count"), "69");
        let c4: u64 = testing::read(&r, "c4.count").parse().unwrap();
        assert!((909..=910).contains(&c4), "{c4}");
        assert_eq!(testing::read(&r, "u1.rate"), "2");
        assert!(testing::read(&r, "u1.calls").contains("pushes"));
    }

    #[test]
    fn rate_zero_passes_nothing_and_rate_is_writable() {
        let r = testing::run(
            "InfiniteSource -> Queue(10) -> u :: RatedUnqueue(0) -> c :: Counter -> Discard; StopAfter(1);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        r.write_handler("u.rate", "5").unwrap();
        assert_eq!(testing::read(&r, "u.rate"), "5");
        assert_eq!(testing::read(&r, "u.config"), "5");
        assert!(r.write_handler("u.rate", "fast").is_err());
    }
}
