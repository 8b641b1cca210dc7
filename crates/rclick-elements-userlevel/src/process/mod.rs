//! The process itself: ChangeUID, which gives up set-user-ID privileges.

#[allow(unsafe_code)]
pub mod change_uid;

use rclick_core::Registry;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ChangeUID",
        || Box::<change_uid::ChangeUid>::default(),
        include_str!("change_uid.rs"),
    );
}
