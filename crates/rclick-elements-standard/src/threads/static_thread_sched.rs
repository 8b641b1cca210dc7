//! # StaticThreadSched
//!
//! `StaticThreadSched(ELEMENT THREAD, ...)`
//!
//! **Category:** information (threads). Pins elements' tasks to threads.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Each argument is an element name and a thread number: the element's
//! tasks run on that thread (numbered from 0; the driver runs as many
//! threads as `--threads` says). The name may be a compound element: every
//! element inside it moves, unless a StaticThreadSched names the element
//! itself (or a compound nested deeper). A thread number below -1 or past
//! the last thread draws a warning ("thread preference N out of range") and
//! means thread 0 (or -1, when it is negative), as in Click. Thread -1
//! leaves the element where it is (in Click it makes the element's tasks
//! quiescent: they never run).
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! None besides the standard ones.
//!
//! ## Examples
//!
//! ```text
//! StaticThreadSched(pd0 0, td0 1);
//! ```
//!
//! ## See also
//!
//! BalancedThreadSched, ScheduleInfo

use rclick_core::args::Args;
use rclick_core::{phase, ConfigureCx, Element, ElementId, InitCx};

/// The StaticThreadSched element.
#[derive(Default)]
pub struct StaticThreadSched {
    /// (element, thread, rank): a pin naming the element itself outranks
    /// one naming an enclosing compound, and deeper compounds outrank
    /// shallower ones.
    pins: Vec<(ElementId, i32, usize)>,
}

impl Element for StaticThreadSched {
    fn class_name(&self) -> &'static str {
        "StaticThreadSched"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::INFO
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut pins = Vec::new();
        let mut errs = Vec::new();
        for a in conf {
            let parts: Vec<&str> = a.split_whitespace().collect();
            if parts.is_empty() {
                continue;
            }
            // Click's messages for its `ELEMENT THREAD` arguments.
            let mut thread: i32 = 0;
            if parts.len() < 2 {
                errs.push("THREAD: required argument missing".to_string());
                continue;
            }
            if parts.len() > 2 {
                errs.push("too many arguments".to_string());
                continue;
            }
            if Args::new(&[parts[1]])
                .read_mp("THREAD", &mut thread)
                .complete()
                .is_err()
            {
                errs.push("THREAD: invalid number".to_string());
                continue;
            }
            if thread < -1 || thread as i64 >= cx.nthreads() as i64 {
                cx.warning(format!("thread preference {thread} out of range"));
                thread = if thread < 0 { -1 } else { 0 };
            }
            if let Some(e) = cx.find(parts[0]) {
                pins.push((e, thread, usize::MAX));
            } else if let Some((prefix, members)) = cx.compound_members(parts[0]) {
                let rank = prefix.matches('/').count() + 1;
                pins.extend(members.into_iter().map(|e| (e, thread, rank)));
            } else {
                errs.push(format!("no element named '{}'", parts[0]));
            }
        }
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        self.pins = pins;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        for &(e, t, rank) in &self.pins {
            if t >= 0 {
                cx.set_home_thread_ranked(e, t as usize, rank);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use crate::threads::build_threads;
    use rclick_core::testing;

    #[test]
    fn pins_and_checks_names() {
        let r = testing::build(
            "src :: InfiniteSource(LIMIT 1) -> Discard; StaticThreadSched(src 0);",
            &test_registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "src.home_thread"), "0");
        assert!(testing::build("StaticThreadSched(nope 1);", &test_registry(), true).is_err());
        for (args, msg) in [
            ("d", "THREAD: required argument missing"),
            ("d 1 2", "too many arguments"),
            ("d x", "THREAD: invalid number"),
        ] {
            let e = testing::build(
                &format!("Idle -> d :: Discard; StaticThreadSched({args});"),
                &test_registry(),
                true,
            )
            .unwrap_err();
            assert!(e.contains(&format!("  {msg}")), "{e}");
        }
    }

    #[test]
    fn out_of_range_warns_and_means_thread_0() {
        let conf = "a :: InfiniteSource(LIMIT 1) -> Discard;
                    b :: InfiniteSource(LIMIT 1) -> Discard;
                    c :: InfiniteSource(LIMIT 1) -> Discard;
                    StaticThreadSched(a 1, b 2, c -3);";
        let r = build_threads(conf, 2);
        assert_eq!(
            r.take_log(),
            [
                "config:4: While configuring 'StaticThreadSched@7 :: StaticThreadSched':",
                "  warning: thread preference 2 out of range",
                "  warning: thread preference -3 out of range",
            ]
        );
        assert_eq!(testing::read(&r, "a.home_thread"), "1");
        assert_eq!(testing::read(&r, "b.home_thread"), "0");
        assert_eq!(testing::read(&r, "c.home_thread"), "0");
        // With one thread, thread 1 is out of range too.
        let r = testing::build(conf, &test_registry(), true).unwrap();
        assert_eq!(r.take_log().len(), 4);
        assert_eq!(testing::read(&r, "a.home_thread"), "0");
    }

    /// Click's threads/StaticThreadSched-01 with two sources pinned to two
    /// threads: each path runs on its thread.
    #[test]
    fn paths_run_on_their_threads() {
        let r = build_threads(
            "StaticThreadSched(rs1 0, d1 0, rs2 1, d2 1);
             rs1 :: InfiniteSource(LIMIT 1000, STOP true) -> q1 :: Queue -> d1 :: Discard;
             rs2 :: InfiniteSource(LIMIT 1000, STOP true) -> q2 :: Queue -> d2 :: Discard;
             DriverManager(wait_stop, wait_stop, wait 0.02s, stop);",
            2,
        );
        for (e, t) in [("rs1", "0"), ("d1", "0"), ("rs2", "1"), ("d2", "1")] {
            assert_eq!(testing::read(&r, &format!("{e}.home_thread")), t, "{e}");
        }
        for q in ["q1", "q2"] {
            let id = r.find(q).unwrap();
            assert_eq!(r.element_owner(id), Some(usize::from(q == "q2")), "{q}");
        }
        r.run();
        assert_eq!(testing::read(&r, "d1.count"), "1000");
        assert_eq!(testing::read(&r, "d2.count"), "1000");
    }
}
