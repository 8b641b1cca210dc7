//! Progress display: ProgressBar, which draws a bar on standard error from
//! other elements' handlers.

#[allow(unsafe_code)]
pub mod progress_bar;

use rclick_core::Registry;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ProgressBar",
        || Box::<progress_bar::ProgressBar>::default(),
        include_str!("progress_bar.rs"),
    );
}
