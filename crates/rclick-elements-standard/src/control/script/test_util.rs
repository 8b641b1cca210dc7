//! What the tests of Script's parts share: a registry of this crate's
//! classes, and running a configuration to its end in simulated time.

use rclick_core::{testing, Registry, Router};

/// A registry of this crate's classes.
pub(super) fn registry() -> Registry {
    let mut r = Registry::new();
    crate::register(&mut r);
    r
}

/// Runs `conf` to its end: the router, its standard output and its log.
pub(super) fn run(conf: &str) -> (Router, String, Vec<String>) {
    let r = testing::run(conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
    let out = r.take_stdout();
    let log = r.take_log();
    (r, out, log)
}

/// Runs `conf` to its end; returns what it printed.
pub(super) fn prints(conf: &str) -> String {
    run(conf).1
}

/// Runs `conf`; returns the router, its output and the simulated seconds
/// it ran.
pub(super) fn run_timed(conf: &str) -> (Router, String, f64) {
    let r = testing::build(conf, &registry(), true).unwrap_or_else(|e| panic!("{e}"));
    let start = r.clock().now();
    r.run();
    let secs = (r.clock().now() - start).as_secs_f64();
    let out = r.take_stdout();
    (r, out, secs)
}

/// The error building `conf` gives.
pub(super) fn build_error(conf: &str) -> String {
    match testing::build(conf, &registry(), true) {
        Ok(_) => panic!("{conf}: built"),
        Err(e) => e,
    }
}
