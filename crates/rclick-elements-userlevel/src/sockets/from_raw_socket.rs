//! # FromRawSocket
//!
//! `FromRawSocket(TYPE [, PORT, KEYWORDS])`, TYPE one of `TCP`, `UDP`, `GRE`,
//! `ICMP`
//!
//! **Category:** comm. Reads IP packets from a raw socket (user-level, Linux); deprecated.
//!
//! **Ports:** at most one pull input; at most one push output.
//!
//! ## Description
//!
//! The form of [RawSocket](super::raw_socket) old configurations use
//! with no input: every packet of the protocol the host receives comes out of the output. FromRawSocket *is* RawSocket under another class name: the same
//! arguments, keywords, defaults and handlers (see RawSocket). When the
//! router initializes it prints
//! `warning: FromRawSocket is deprecated, use RawSocket instead`.
//!
//! ## Handlers
//!
//! As RawSocket's (see there):
//!
//! * `received`, `sent`, `drops`, `drop_details` (read).
//!
//! ## See also
//!
//! RawSocket, Socket

use super::raw_socket::RawSocket;

/// A new FromRawSocket: a RawSocket named FromRawSocket.
pub fn from_raw_socket() -> RawSocket {
    RawSocket::with_class("FromRawSocket")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sockets::raw_socket::deprecated_form_tests as shared;

    /// RawSocket's ports, handlers, configuration errors; used as old
    /// configurations use it, with an output only.
    #[test]
    fn a_raw_socket_by_another_name() {
        shared::is_raw_socket(&from_raw_socket(), "FromRawSocket");
        shared::configuration_errors(
            |args| format!("FromRawSocket({args}) -> Discard"),
            "FromRawSocket@1 :: FromRawSocket",
        );
        shared::opens_or_says_why_not("t :: FromRawSocket(ICMP) -> Discard", "FromRawSocket");
    }
}
