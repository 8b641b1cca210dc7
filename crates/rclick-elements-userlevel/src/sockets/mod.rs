//! Sockets as packet transports: the Socket element (and its deprecated
//! forms FromSocket and ToSocket), and RawSocket (with FromRawSocket and
//! ToRawSocket) (TCP, UDP and Unix
//! stream or datagram sockets, client or server), built on the standard
//! library's socket types and `socket2` for the options and the
//! bind-before-connect the standard types lack. No `unsafe` here.

mod conn;
pub mod from_raw_socket;
pub mod from_socket;
pub mod raw_socket;
mod settings;
pub mod socket;
pub mod to_raw_socket;
pub mod to_socket;

use rclick_core::Registry;

pub use socket::Socket;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "Socket",
        || Box::new(Socket::default()),
        include_str!("socket.rs"),
    );
    r.add(
        "FromSocket",
        || Box::new(from_socket::from_socket()),
        include_str!("from_socket.rs"),
    );
    r.add(
        "ToSocket",
        || Box::new(to_socket::to_socket()),
        include_str!("to_socket.rs"),
    );
    r.add(
        "RawSocket",
        || Box::new(raw_socket::RawSocket::with_class("RawSocket")),
        include_str!("raw_socket.rs"),
    );
    r.add(
        "FromRawSocket",
        || Box::new(from_raw_socket::from_raw_socket()),
        include_str!("from_raw_socket.rs"),
    );
    r.add(
        "ToRawSocket",
        || Box::new(to_raw_socket::to_raw_socket()),
        include_str!("to_raw_socket.rs"),
    );
}
