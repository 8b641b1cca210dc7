//! The control plane: ChatterSocket, which sends the router's messages to
//! clients, and ControlSocket, which lets other programs call the
//! router's handlers over TCP or Unix-domain sockets.

pub mod chatter_socket;
pub mod control_socket;
mod listen;
pub mod protocol;
pub mod router_handlers;

use rclick_core::Registry;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ControlSocket",
        || Box::<control_socket::ControlSocket>::default(),
        include_str!("control_socket.rs"),
    );
    r.add(
        "ChatterSocket",
        || Box::<chatter_socket::ChatterSocket>::default(),
        include_str!("chatter_socket.rs"),
    );
}
