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
//! itself (or a compound nested deeper). A thread number past the last thread means
//! the last thread; a negative number leaves the element where it is.
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
//! ScheduleInfo

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
            let mut thread: i32 = 0;
            let ok = parts.len() == 2
                && Args::new(&[parts[1]])
                    .read_mp("THREAD", &mut thread)
                    .complete()
                    .is_ok();
            if !ok {
                errs.push("expected 'ELEMENTNAME THREADID'".to_string());
                continue;
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
        assert!(testing::build(
            "Idle -> Discard; StaticThreadSched(x);",
            &test_registry(),
            true
        )
        .is_err());
    }
}
