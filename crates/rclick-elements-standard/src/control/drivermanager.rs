//! =c
//!
//! DriverManager(INSTRUCTIONS...)
//!
//! =s control
//!
//! a Script that manages driver stop events
//!
//! =io
//!
//! None
//!
//! =d
//!
//! DriverManager is a Script whose TYPE defaults to `DRIVER`: it takes
//! charge of the router's driver stop events. Any element can request a stop
//! event (sources do so with `STOP true` when they are done; Script does with
//! `stop`; writing the global `stop` handler does too). Without a
//! DriverManager the first stop event ends the router. With one, each stop
//! event steps the DriverManager's script once, and the router ends only
//! when the script executes `stop` or runs off its end (a driver script's
//! implicit last instruction is `stop`). A DriverManager with no
//! instructions waits for one stop event.
//!
//! It accepts every Script instruction (see Script), plus these names from
//! Click's older DriverManager: `wait_stop [N]` and `wait_pause [N]` wait
//! for N stop events (like `pause`); `wait TIME` and `wait_time TIME` wait
//! for TIME seconds (or a stop event); `call H [ARG]` is `write H [ARG]`;
//! `write_skip H [ARG]` writes a handler, silently skipping a handler that
//! does not exist; `quit` is `stop`. `print`, `read`, `write`, `save`,
//! `append`, `set`, `goto`, `label` and `loop` work as in Script.
//!
//! The script starts as soon as the router does: instructions before the
//! first blocking one run before any task.
//!
//! Keyword arguments:
//!
//! * TYPE: the script type (see Script); default `DRIVER`.
//!
//! Only one driver script (DriverManager or Script TYPE DRIVER) may be in a
//! router.
//!
//! =h step write-only
//!
//! Steps the script past its current blocking instruction (see Script).
//!
//! Every other Script handler is also available.
//!
//! =e
//!
//! Waits for the first stop event, calls `k.cleanup`, waits a tenth of a
//! second so that `k` can emit its last packets, and stops:
//!
//!   DriverManager(pause, write k.cleanup, wait 0.1s, stop);
//!
//! Prints a count once the source is done:
//!
//!   InfiniteSource(LIMIT 100, STOP true) -> c :: Counter -> Discard;
//!   DriverManager(wait_stop, print c.count);
//!
//! =a Script

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
