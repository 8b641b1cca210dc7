//! # ToRawSocket
//!
//! `ToRawSocket(TYPE [, PORT, KEYWORDS])`, TYPE one of `TCP`, `UDP`, `GRE`,
//! `ICMP`
//!
//! **Category:** comm. Sends IP packets through a raw socket (user-level, Linux); deprecated.
//!
//! **Ports:** at most one pull input; at most one push output.
//!
//! ## Description
//!
//! The form of [RawSocket](super::raw_socket) old configurations use
//! with no output: packets pulled from the input are sent to their IP destination. ToRawSocket *is* RawSocket under another class name: the same
//! arguments, keywords, defaults and handlers (see RawSocket). When the
//! router initializes it prints
//! `warning: ToRawSocket is deprecated, use RawSocket instead`.
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

/// A new ToRawSocket: a RawSocket named ToRawSocket.
pub fn to_raw_socket() -> RawSocket {
    RawSocket::with_class("ToRawSocket")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sockets::raw_socket::deprecated_form_tests as shared;

    /// RawSocket's ports, handlers, configuration errors; used as old
    /// configurations use it, with an input only.
    #[test]
    fn a_raw_socket_by_another_name() {
        shared::is_raw_socket(&to_raw_socket(), "ToRawSocket");
        shared::configuration_errors(
            |args| format!("Idle -> ToRawSocket({args})"),
            "ToRawSocket@2 :: ToRawSocket",
        );
        shared::opens_or_says_why_not("Idle -> t :: ToRawSocket(ICMP)", "ToRawSocket");
    }
}
