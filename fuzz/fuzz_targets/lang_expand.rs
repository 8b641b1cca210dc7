//! `$variable` expansion on its own: lines before the first empty line
//! define variables (`NAME VALUE`), the rest is expanded; no panic, and the
//! result never exceeds the budget.
//!
//! The budget is 64 KiB (it was 1 MiB: inputs that grow to it, which the
//! fuzzer finds at once, took milliseconds each); the bound's code is the
//! same at any size, and production's 128 MiB is tested in rclick-lang.
#![no_main]
use libfuzzer_sys::fuzz_target;

const BUDGET: usize = 64 << 10;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (defs, config) = text.split_once("\n\n").unwrap_or(("", &text));
    let defines: Vec<(String, String)> = defs
        .lines()
        .take(32)
        .map(|l| {
            let (n, v) = l.split_once(' ').unwrap_or((l, ""));
            (n.to_string(), v.to_string())
        })
        .collect();
    if let Some(out) = rclick_lang::stages::expand(config, &defines, BUDGET) {
        assert!(out.len() <= config.len() + BUDGET, "{} bytes", out.len());
    }
});
