//! # QuitWatcher
//!
//! `QuitWatcher(ELEMENT, ...)`
//!
//! **Category:** information. Stops the driver when certain elements are
//! done.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Every 10 milliseconds looks at each ELEMENT's `scheduled` handler; once
//! none of them is scheduled any more, it stops the driver (as a source's
//! `STOP true` does). Useful to end a run when sources or unqueuers that
//! cannot stop it themselves fall silent. Each ELEMENT must name an element
//! (`no element named 'X'` otherwise, at initialization).
//!
//! Click also refuses, at initialization, an element without a task
//! (`no 'X.scheduled' read handler`); here tasks are made while elements
//! initialize, so the check happens on the first look instead: such an
//! element is reported once with the same words and then left out.
//! With no ELEMENT at all Click waits forever; so does this element.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! s :: InfiniteSource(LIMIT 100) -> Queue -> u :: Unqueue -> Discard;
//! QuitWatcher(s, u);
//! ```
//!
//! ## See also
//!
//! DriverManager, Script

use rclick_core::{phase, ConfigureCx, Ctx, Element, InitCx, TimerId, Timestamp};

/// How often the elements are looked at.
const PERIOD_MS: i64 = 10;

/// The QuitWatcher element.
#[derive(Default)]
pub struct QuitWatcher {
    names: Vec<String>,
    timer: Option<TimerId>,
}

impl Element for QuitWatcher {
    fn class_name(&self) -> &'static str {
        "QuitWatcher"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    /// After the watched elements, so their tasks exist.
    fn configure_phase(&self) -> i32 {
        phase::LAST
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.names = conf
            .iter()
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty())
            .collect();
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let missing: Vec<String> = self
            .names
            .iter()
            .filter(|n| cx.find(n).is_none())
            .map(|n| format!("no element named '{n}'"))
            .collect();
        if !missing.is_empty() {
            return Err(missing.join("\n"));
        }
        let t = cx.new_timer();
        cx.schedule_timer_after(t, Timestamp::from_msec(PERIOD_MS));
        self.timer = Some(t);
        Ok(())
    }
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        let mut busy = false;
        let mut gone = Vec::new();
        for n in &self.names {
            match cx.call_read(&format!("{n}.scheduled"), "") {
                Ok(v) => busy |= v.trim() == "true",
                Err(_) => gone.push(n.clone()),
            }
        }
        for n in gone {
            cx.log(format!("{}: no '{n}.scheduled' read handler", cx.name()));
            self.names.retain(|m| *m != n);
        }
        if self.names.is_empty() || busy {
            cx.schedule_timer_after(timer, Timestamp::from_msec(PERIOD_MS));
        } else {
            cx.request_stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn stops_when_sources_are_done() {
        // As the reference Click: the run ends by itself.
        let r = testing::run(
            "s :: InfiniteSource(LIMIT 3) -> Queue -> u :: Unqueue -> c :: Counter -> Discard;
             QuitWatcher(s, u);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
    }

    #[test]
    fn unknown_and_taskless_elements() {
        let e = testing::build("QuitWatcher(nonesuch);", &test_registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("no element named 'nonesuch'"), "{e}");
        let r = testing::build(
            "s :: TimedSource(0.05, LIMIT 3) -> Discard; q :: QuitWatcher(s);
             DriverManager(wait 0.2s);",
            &test_registry(),
            true,
        )
        .unwrap();
        r.run();
        assert!(r
            .take_log()
            .iter()
            .any(|l| l == "q: no 's.scheduled' read handler"));
    }
}
