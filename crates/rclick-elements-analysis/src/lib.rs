//! The analysis element group (Click's `elements/analysis` and the timestamp
//! elements): IP summary dumps (the text format of Click's test suite),
//! aggregates, and time-based filtering and scheduling.
#![forbid(unsafe_code)]

pub mod analysis;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    analysis::register(r);
}
