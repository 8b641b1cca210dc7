//! Queues, unqueuers, packet schedulers, shapers, meters, RED and
//! ScheduleInfo (Click's storage, shaping and scheduling elements). The
//! queues for several threads are in [`crate::threads`].
//!
//! One element class per file; each file opens with the class's manual.
//! The queue classes share one implementation ([`storage`]) as Click's
//! queue classes share SimpleQueue's; [`token_bucket`] and [`gap_rate`]
//! reproduce Click's rate-limiting arithmetic.

use rclick_core::Registry;

pub mod adaptive_red;
pub mod bandwidth_meter;
pub mod bandwidth_rated_unqueue;
pub mod bandwidth_shaper;
pub mod burster;
pub mod codel;
pub mod delay_unqueue;
pub mod drr_sched;
pub mod front_drop_queue;
pub mod gap_rate;
pub(crate) mod inputs;
pub mod meter;
pub mod mixed_queue;
pub mod notifier_queue;
pub mod prio_sched;
pub mod queue;
pub mod quick_note_queue;
pub(crate) mod rated;
pub mod rated_unqueue;
pub mod red;
pub mod red_core;
pub mod round_robin_sched;
pub mod schedule_info;
pub mod shaper;
pub mod simple_queue;
pub mod storage;
pub mod stride_sched;
pub mod timed_unqueue;
pub mod token_bucket;
pub mod unqueue;
pub mod unqueue2;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "SimpleQueue",
        simple_queue::new,
        include_str!("simple_queue.rs"),
    );
    r.add(
        "NotifierQueue",
        notifier_queue::new,
        include_str!("notifier_queue.rs"),
    );
    r.add("Queue", queue::new, include_str!("queue.rs"));
    r.add("CoDel", codel::new, include_str!("codel.rs"));
    r.alias("FullNoteQueue", "Queue");
    r.add(
        "QuickNoteQueue",
        quick_note_queue::new,
        include_str!("quick_note_queue.rs"),
    );
    r.add(
        "FrontDropQueue",
        front_drop_queue::new,
        include_str!("front_drop_queue.rs"),
    );
    r.add(
        "MixedQueue",
        mixed_queue::new,
        include_str!("mixed_queue.rs"),
    );
    r.add("Burster", burster::new, include_str!("burster.rs"));
    r.add(
        "Unqueue2",
        || Box::<unqueue2::Unqueue2>::default(),
        include_str!("unqueue2.rs"),
    );
    r.add(
        "Unqueue",
        || Box::<unqueue::Unqueue>::default(),
        include_str!("unqueue.rs"),
    );
    r.add(
        "RatedUnqueue",
        || Box::<rated_unqueue::RatedUnqueue>::default(),
        include_str!("rated_unqueue.rs"),
    );
    r.add(
        "BandwidthRatedUnqueue",
        bandwidth_rated_unqueue::new,
        include_str!("bandwidth_rated_unqueue.rs"),
    );
    r.add(
        "TimedUnqueue",
        || Box::<timed_unqueue::TimedUnqueue>::default(),
        include_str!("timed_unqueue.rs"),
    );
    r.add(
        "DelayUnqueue",
        || Box::<delay_unqueue::DelayUnqueue>::default(),
        include_str!("delay_unqueue.rs"),
    );
    r.add(
        "PrioSched",
        || Box::<prio_sched::PrioSched>::default(),
        include_str!("prio_sched.rs"),
    );
    r.add(
        "RoundRobinSched",
        || Box::<round_robin_sched::RoundRobinSched>::default(),
        include_str!("round_robin_sched.rs"),
    );
    r.alias("RRSched", "RoundRobinSched");
    r.add(
        "DRRSched",
        || Box::<drr_sched::DRRSched>::default(),
        include_str!("drr_sched.rs"),
    );
    r.add(
        "StrideSched",
        || Box::<stride_sched::StrideSched>::default(),
        include_str!("stride_sched.rs"),
    );
    r.add(
        "Shaper",
        || Box::<shaper::Shaper>::default(),
        include_str!("shaper.rs"),
    );
    r.add(
        "BandwidthShaper",
        bandwidth_shaper::new,
        include_str!("bandwidth_shaper.rs"),
    );
    r.add("Meter", meter::new, include_str!("meter.rs"));
    r.add(
        "BandwidthMeter",
        bandwidth_meter::new,
        include_str!("bandwidth_meter.rs"),
    );
    r.add("RED", || Box::<red::Red>::default(), include_str!("red.rs"));
    r.add(
        "AdaptiveRED",
        adaptive_red::new,
        include_str!("adaptive_red.rs"),
    );
    r.add(
        "ScheduleInfo",
        || Box::<schedule_info::ScheduleInfo>::default(),
        include_str!("schedule_info.rs"),
    );
}

/// A registry with every class of the crate plus two test-only elements:
/// `StopAfter(TIME)` ends the driver after TIME (simulated time), and
/// `At(TIME, ACTION...)` performs each ACTION (`write H VALUE`, or `read H`,
/// which logs `H: VALUE`) at TIME.
#[cfg(test)]
pub(crate) fn test_registry() -> Registry {
    let mut r = Registry::new();
    crate::register(&mut r);
    r.add(
        "StopAfter",
        || Box::<test_support::StopAfter>::default(),
        "",
    );
    r.add("At", || Box::<test_support::At>::default(), "");
    r
}

/// Checks every push-to-pull queue class passes (Queue and
/// ThreadSafeQueue), run by each class's tests.
#[cfg(test)]
pub(crate) mod queue_checks {
    use rclick_core::{testing, Router};

    /// A full queue of class `class` and capacity 5 puts its source to
    /// sleep; returns the router (`i`, `c`, `q`) for the class's checks.
    pub(crate) fn full_queue_puts_source_to_sleep(class: &str) -> Router {
        let r = testing::run(
            &format!("i :: InfiniteSource(LIMIT 15) -> c :: Counter -> q :: {class}(5) -> Idle;"),
            &super::test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "5");
        assert_eq!(testing::read(&r, "q.drops"), "0");
        assert_eq!(testing::read(&r, "i.scheduled"), "false");
        r
    }

    /// Click's Queue-notifiers-01: a smaller capacity drops, a larger one
    /// wakes the source.
    pub(crate) fn capacity_changes_wake_and_drop(class: &str) {
        let r = testing::run(
            &format!(
                "i :: InfiniteSource -> q :: {class} -> Idle;
                 At(0.02, read i.count, write q.capacity 10, read q.config, read q.length);
                 At(0.04, read i.count, write q.capacity 1000, read q.config);
                 At(0.06, read i.count, read q.capacity);
                 StopAfter(0.1);"
            ),
            &super::test_registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            [
                "i.count: 1000",
                "q.config: CAPACITY 10",
                "q.length: 10",
                "i.count: 1000",
                "q.config: CAPACITY 1000",
                "i.count: 1990",
                "q.capacity: 1000"
            ]
        );
    }
}

#[cfg(test)]
mod test_support {
    use rclick_core::args::{Args, Interval};
    use rclick_core::{ConfigureCx, Ctx, Element, InitCx, TimerId, Timestamp};

    #[derive(Default)]
    pub struct StopAfter {
        after: Interval,
    }

    impl Element for StopAfter {
        fn class_name(&self) -> &'static str {
            "StopAfter"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            Args::new(conf)
                .read_mp("TIME", &mut self.after)
                .complete()
                .map_err(|e| e.to_string())
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            let t = cx.new_timer();
            cx.schedule_timer_after(t, Timestamp::from_nsec(self.after.as_nanos()));
            Ok(())
        }
        fn run_timer(&mut self, _t: TimerId, cx: &mut Ctx) {
            cx.quit();
        }
    }

    #[derive(Default)]
    pub struct At {
        at: Interval,
        actions: Vec<String>,
    }

    impl Element for At {
        fn class_name(&self) -> &'static str {
            "At"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            let mut rest = Vec::new();
            Args::new(conf)
                .read_mp("TIME", &mut self.at)
                .rest(&mut rest)
                .complete()
                .map_err(|e| e.to_string())?;
            self.actions = rest;
            Ok(())
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            let t = cx.new_timer();
            cx.schedule_timer_after(t, Timestamp::from_nsec(self.at.as_nanos()));
            Ok(())
        }
        fn run_timer(&mut self, _t: TimerId, cx: &mut Ctx) {
            for a in self.actions.clone() {
                let mut w = a.splitn(3, ' ');
                match (w.next(), w.next(), w.next()) {
                    (Some("write"), Some(h), v) => {
                        if let Err(e) = cx.call_write(h, v.unwrap_or("")) {
                            cx.log(format!("error: {e}"));
                        }
                    }
                    (Some("read"), Some(h), _) => {
                        let v = cx
                            .call_read(h, "")
                            .unwrap_or_else(|e| format!("error: {e}"));
                        cx.log(format!("{h}: {v}"));
                    }
                    _ => cx.log(format!("bad action {a}")),
                }
            }
        }
    }
}

/// Click's `cp_unparse_real2`: the fixed-point number `v / 2^bits` in
/// decimal, with the fewest fractional digits that read back as `v`.
pub(crate) fn unparse_fixed(v: u64, bits: u32) -> String {
    let one = 1u64 << bits;
    let int = v >> bits;
    let frac = v & (one - 1);
    if frac == 0 {
        return int.to_string();
    }
    let mut pow = 1u64;
    for digits in 1..=12u32 {
        pow *= 10;
        // decimal digits nearest to frac / 2^bits
        let d = ((u128::from(frac) * u128::from(pow) * 2 + u128::from(one)) / (2 * u128::from(one)))
            as u64;
        let back = ((u128::from(d) * u128::from(one) * 2 + u128::from(pow)) / (2 * u128::from(pow)))
            as u64;
        if back == frac || digits == 12 {
            if d >= pow {
                return (int + 1).to_string();
            }
            let s = format!("{d:0width$}", width = digits as usize);
            let s = s.trim_end_matches('0');
            return if s.is_empty() {
                int.to_string()
            } else {
                format!("{int}.{s}")
            };
        }
    }
    int.to_string()
}

#[cfg(test)]
mod unparse_tests {
    #[test]
    fn fixed_point_text() {
        use super::unparse_fixed;
        assert_eq!(unparse_fixed(3 << 10, 10), "3");
        assert_eq!(unparse_fixed(512, 10), "0.5");
        assert_eq!(unparse_fixed(1311, 16), "0.02");
        assert_eq!(unparse_fixed(6554, 16), "0.1");
        assert_eq!(unparse_fixed(0x10000, 16), "1");
    }
}
