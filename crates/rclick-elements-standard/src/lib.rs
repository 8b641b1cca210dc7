//! The standard element group (Click's `elements/standard`): sources and
//! sinks, counters, queues, schedulers, switches, classifiers, shapers and
//! the driver's own elements (DriverManager, Script).

pub mod basic;
pub mod control;
pub mod misc;
pub mod queues;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    basic::register(r);
    queues::register(r);
    control::register(r);
    misc::register(r);
}
