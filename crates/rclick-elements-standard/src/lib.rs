//! The standard element group (Click's `elements/standard`): sources and
//! sinks, counters, queues, schedulers, switches, classifiers, shapers,
//! the driver's own elements (DriverManager, Script), and Click's elements
//! for several threads (`threads/`: thread-safe queues, thread
//! schedulers).
#![forbid(unsafe_code)]

pub mod basic;
pub mod control;
pub mod misc;
pub mod queues;
pub mod threads;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    basic::register(r);
    queues::register(r);
    threads::register(r);
    control::register(r);
    misc::register(r);
}
