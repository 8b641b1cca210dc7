//! The analysis elements (`rclick_fuzz::ANALYSIS_CONFIG`: aggregates,
//! anonymization, timestamps, time filters, ToIPSummaryDump with every
//! field) fed the input's frames as IP packets behind MarkIPHeader
//! (output 0) and CheckIPHeader (output 1), in simulated time: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rclick_fuzz::feed_router(rclick_fuzz::ANALYSIS_CONFIG, rclick_fuzz::frames(data));
});
