//! Helpers shared by this module's tests: a registry with the standard and
//! IP groups, and a runner that returns the data lines a ToIPSummaryDump
//! wrote.

use rclick_core::{testing, Registry, Router};

/// The analysis, standard and IP groups.
pub(crate) fn registry() -> Registry {
    let mut r = Registry::new();
    crate::register(&mut r);
    rclick_elements_standard::register(&mut r);
    rclick_elements_ip::register(&mut r);
    r
}

/// A fresh directory for test `name`.
pub(crate) fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rclick-analysis-{}-{name}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Runs `conf`, in which `OUT` stands for a summary-dump file name, and
/// returns the router and the dump's data lines (comments left out).
pub(crate) fn run_dump(name: &str, conf: &str) -> (Router, Vec<String>) {
    let out = dir(name).join("out");
    let _ = std::fs::remove_file(&out);
    let conf = conf.replace("OUT", &out.display().to_string());
    let r = testing::run(&conf, &registry()).unwrap();
    let lines = std::fs::read_to_string(&out)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('!'))
        .map(String::from)
        .collect();
    (r, lines)
}

/// A 28-byte IPv4/UDP packet 1.2.3.4:1 -> 5.6.7.8:2 whose length field
/// says 48, as `DATA` hex for InfiniteSource, with `prefix` bytes before it.
pub(crate) const UDP28: &str =
    "45 00 00 30 00 00 00 00 40 11 00 00 01 02 03 04 05 06 07 08 00 01 00 02 00 08 00 00";
