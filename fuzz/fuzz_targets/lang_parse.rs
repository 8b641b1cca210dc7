//! The configuration language's parser, compound expansion and flattening
//! on any text: no panic; a configuration that parses prints (unparse) as
//! text that parses again to the same printed form.
//!
//! Expansion runs with smaller bounds than production's (64 KiB of
//! `$variable` expansion, 2,000 elements, 20,000 connections,
//! [`rclick_lang::Limits`]): an input
//! that grows to production's 128 MiB took 0.6 s, and such inputs, which
//! the fuzzer finds at once (`define($a $a$a$a...)`), held the target at
//! about 120 inputs a second. The same code refuses them at the smaller
//! bounds; the production bounds are tested in rclick-lang
//! (`self_referring_expansion_is_bounded`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rclick_lang::{parse_with_limits, stages, Limits, Options};

const LIMITS: Limits = Limits {
    expansion_bytes: 64 << 10,
    elements: 2_000,
    connections: 20_000,
};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = stages::parse_only(&text);
    let opts = Options::default();
    if let Ok(flat) = parse_with_limits(&text, &opts, LIMITS) {
        let printed = flat.unparse();
        let again = parse_with_limits(&printed, &opts, LIMITS)
            .unwrap_or_else(|e| panic!("unparsed text does not parse: {e:?}\n{printed}"));
        assert_eq!(again.unparse(), printed);
    }
});
