//! (being written)
use rclick_core::Registry;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    let _ = r;
}
