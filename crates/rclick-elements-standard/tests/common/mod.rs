//! What the integration tests share: building a configuration with this
//! crate's classes (and a test's own), in simulated time (or real time,
//! for a test that measures what the scheduler does with it), one thread.

use std::sync::Arc;

use rclick_core::{BuildOptions, Registry, Router};

/// Builds `text` with this crate's classes plus those `extra` adds;
/// `no_fuse` turns chain fusion off.
pub fn build_with(text: &str, no_fuse: bool, extra: impl FnOnce(&mut Registry)) -> Router {
    build_timed(text, no_fuse, true, extra)
}

/// As [`build_with`], in simulated time when `simtime`, else real time.
#[allow(dead_code)] // (not every test that includes this module uses it)
pub fn build_timed(
    text: &str,
    no_fuse: bool,
    simtime: bool,
    extra: impl FnOnce(&mut Registry),
) -> Router {
    let mut reg = Registry::new();
    rclick_elements_standard::register(&mut reg);
    extra(&mut reg);
    let flat = rclick_lang::parse(
        text,
        &rclick_lang::Options {
            file_name: "test".into(),
            defines: vec![],
        },
    )
    .unwrap();
    Router::build(
        flat,
        Arc::new(reg),
        BuildOptions {
            simtime,
            threads: 1,
            capture_log: true,
            no_fuse,
            ..Default::default()
        },
    )
    .unwrap()
}
