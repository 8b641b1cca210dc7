//! # DriverManager
//!
//! `DriverManager(INSTRUCTIONS...)`
//!
//! **Category:** control. A Script that manages the router's stop events.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! DriverManager is a Script whose TYPE defaults to `DRIVER`: it takes
//! charge of the router's stop events. Any element can ask for a stop
//! (sources do so with `STOP true` when they are done, Script with `stop`,
//! and so does a write to the global `stop` handler). Without a
//! DriverManager the first stop event ends the router. With one, each stop
//! event moves the DriverManager's script on by one step, and the router
//! ends only when the script runs `stop` or runs off its end (a driver
//! script's implicit last instruction is `stop`). A DriverManager with no
//! instructions waits for one stop event.
//!
//! It accepts every Script instruction (see Script), and these names from
//! Click's older DriverManager:
//!
//! * `wait_stop [N]`, `wait_pause [N]`: wait for N stop events (as `pause`).
//! * `wait TIME`, `wait_time TIME`: wait TIME seconds, or for a stop event.
//! * `call H [ARG]`: the same as `write H [ARG]`.
//! * `write_skip H [ARG]`: writes a handler; a handler that does not exist
//!   is skipped without an error.
//! * `quit`: the same as `stop`.
//!
//! The script starts with the router: instructions before the first
//! blocking one run before any task.
//!
//! Keyword arguments:
//!
//! * TYPE: the script type (see Script); default `DRIVER`.
//!
//! A router may hold one driver script (a DriverManager or a Script with
//! TYPE DRIVER).
//!
//! ## Handlers
//!
//! * `step` (write): moves the script past its current blocking
//!   instruction (see Script).
//!
//! Every other handler is Script's, and behaves as in Script's manual.
//!
//! ## Examples
//!
//! Waits for the first stop event, calls `k.cleanup`, waits a tenth of a
//! second so that `k` can send its last packets, and stops:
//!
//! ```text
//! DriverManager(pause, write k.cleanup, wait 0.1s, stop);
//! ```
//!
//! Prints a count once the source is done:
//!
//! ```text
//! InfiniteSource(LIMIT 100, STOP true) -> c :: Counter -> Discard;
//! DriverManager(wait_stop, print c.count);
//! ```
//!
//! ## See also
//!
//! Script

use super::script::{Script, ScriptType};
use rclick_core::Element;

/// A new DriverManager: a Script of class `DriverManager` and default type
/// DRIVER.
pub fn new() -> Box<dyn Element> {
    Box::new(Script::new("DriverManager", ScriptType::Driver))
}

#[cfg(test)]
mod tests {
    use rclick_core::{testing, Registry};

    fn registry() -> Registry {
        let mut r = Registry::new();
        crate::register(&mut r);
        r
    }

    #[test]
    fn counts_then_prints_at_stop() {
        let r = testing::run(
            "InfiniteSource(LIMIT 100, STOP true) -> c :: Counter -> Discard;
             DriverManager(wait_stop, print c.count)",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_stdout(), "100\n");
        assert_eq!(testing::read(&r, "c.count"), "100");
    }

    #[test]
    fn class_name_and_handlers() {
        let r = testing::build("d :: DriverManager(wait 1)", &registry(), true).unwrap();
        assert_eq!(testing::read(&r, "d.class"), "DriverManager");
        assert_eq!(r.read_handler("d.add", "1 2").unwrap(), "3");
    }

    #[test]
    fn wait_then_stop() {
        let r = testing::build("DriverManager(wait 0.1s, stop)", &registry(), true).unwrap();
        let start = r.clock().now();
        r.run();
        assert_eq!((r.clock().now() - start).as_msec(), 100);
    }
}
