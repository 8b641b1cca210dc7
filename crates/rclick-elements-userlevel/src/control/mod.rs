//! The control plane: ControlSocket, which lets other programs call the
//! router's handlers over TCP or Unix-domain sockets.

pub mod control_socket;
pub mod protocol;

use rclick_core::Registry;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ControlSocket",
        || Box::<control_socket::ControlSocket>::default(),
        include_str!("control_socket.rs"),
    );
}
