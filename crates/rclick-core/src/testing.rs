//! Helpers for tests of whole configurations: parse, build, run, and read
//! handlers and the element log, in one call each.

use std::sync::Arc;

use crate::registry::Registry;
use crate::router::{BuildOptions, Router};

/// Parses and builds `text` with the classes in `registry`, capturing the
/// element log. Errors come back as one string, one message a line.
pub fn build(text: &str, registry: &Registry, simtime: bool) -> Result<Router, String> {
    build_with(
        text,
        registry,
        BuildOptions {
            simtime,
            threads: 1,
            capture_log: true,
            ..Default::default()
        },
    )
}

/// Parses and builds `text` with the given options (`threads`,
/// `simtime`, ...); the options' `source_text` is set to `text`.
pub fn build_with(
    text: &str,
    registry: &Registry,
    options: BuildOptions,
) -> Result<Router, String> {
    let opts = rclick_lang::Options {
        file_name: "config".into(),
        defines: Vec::new(),
    };
    let flat = rclick_lang::parse(text, &opts).map_err(|errs| {
        errs.iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let bopts = BuildOptions {
        source_text: text.to_string(),
        ..options
    };
    Router::build(flat, Arc::new(registry.clone()), bopts).map_err(|e| e.messages.join("\n"))
}

/// Builds `text` in simulated time and runs it until it stops.
pub fn run(text: &str, registry: &Registry) -> Result<Router, String> {
    let r = build(text, registry, true)?;
    r.run();
    Ok(r)
}

/// Reads handler `spec`, panicking with the error text if it fails
/// (for tests).
pub fn read(r: &Router, spec: &str) -> String {
    r.read_handler(spec, "")
        .unwrap_or_else(|e| panic!("read {spec}: {e}"))
}
