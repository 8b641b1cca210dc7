//! The IP router of the Click paper's Figure 8 (conf/iprouter-2if.click,
//! two interfaces) fed the input's frames (see `rclick_fuzz::frames`) on
//! its two interfaces, in simulated time: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

thread_local! {
    static CONFIG: String = rclick_fuzz::iprouter_config();
}

fuzz_target!(|data: &[u8]| {
    let frames = rclick_fuzz::frames(data);
    CONFIG.with(|c| rclick_fuzz::feed_router(c, frames));
});
