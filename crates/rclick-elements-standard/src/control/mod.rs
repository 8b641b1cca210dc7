//! Router control elements: Script and DriverManager.
use rclick_core::Registry;

pub mod drivermanager;
pub mod script;
pub mod signals;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "Script",
        || Box::<script::Script>::default(),
        include_str!("script/mod.rs"),
    );
    r.add(
        "DriverManager",
        drivermanager::new,
        include_str!("drivermanager.rs"),
    );
}
