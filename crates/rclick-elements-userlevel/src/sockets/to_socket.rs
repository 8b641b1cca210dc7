//! # ToSocket
//!
//! `ToSocket(TCP, ADDR, PORT [, KEYWORDS])`
//! `ToSocket(UDP, ADDR, PORT [, KEYWORDS])`
//! `ToSocket(UNIX, FILENAME [, KEYWORDS])`
//! `ToSocket(UNIX_DGRAM, FILENAME [, KEYWORDS])`
//!
//! **Category:** comm. Sends data to a socket (user-level); deprecated.
//!
//! **Ports:** at most one input (agnostic: push or pull); at most one push
//! output.
//!
//! ## Description
//!
//! The sending form of [Socket](super::socket), kept because old
//! configurations use it: each input packet's data goes to the remote
//! end. ToSocket *is* Socket under another class name; it takes the same
//! arguments and keywords, has the same defaults (a ToSocket without
//! outputs is a client, one with an output a server unless CLIENT is
//! true) and the same handlers. Data received is emitted on the output
//! when there is one.
//!
//! When the router initializes it prints
//! `warning: ToSocket is deprecated, use Socket instead`, as Click does
//! (Click prints it before configuring, so also for a configuration that
//! then fails; rclick only for one that is built).
//!
//! ## Handlers
//!
//! As Socket's (see there):
//!
//! * `received`, `sent`, `connections`, `connected` (read).
//! * `local_address`, `queue`, `drops`, `drop_details` (read).
//! * `reset_counts` (write).
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource(DATA "ping", LIMIT 3) -> Queue -> ToSocket(UDP, 127.0.0.1, 4000);
//! ```
//!
//! ## See also
//!
//! Socket, FromSocket

use super::Socket;

/// A new ToSocket: a Socket named ToSocket.
pub fn to_socket() -> Socket {
    Socket::with_class("ToSocket")
}

#[cfg(test)]
mod tests {
    use crate::device::test_util::{build_err, registry};
    use rclick_core::testing;
    use std::net::UdpSocket;
    use std::time::Duration;

    /// Checked against Click: a ToSocket without outputs is a client;
    /// pushed and pulled packets both go out, one datagram each.
    #[test]
    fn sends_pushed_and_pulled_packets() {
        let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
        peer.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let port = peer.local_addr().unwrap().port();
        let conf = format!(
            "InfiniteSource(DATA \"push\", LIMIT 2, STOP false) -> a :: ToSocket(UDP, 127.0.0.1, {port});
             InfiniteSource(DATA \"pull\", LIMIT 3, STOP false) -> Queue -> b :: ToSocket(UDP, 127.0.0.1, {port});
             Script(label l, wait 2ms, goto l $(lt $(add $(a.sent) $(b.sent)) 5), stop);
             Script(wait 20s, stop);"
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "warning: ToSocket is deprecated, use Socket instead".to_string(),
                "warning: ToSocket is deprecated, use Socket instead".to_string(),
            ]
        );
        r.run();
        let mut got = Vec::new();
        for _ in 0..5 {
            let mut buf = [0u8; 16];
            let (n, _) = peer.recv_from(&mut buf).unwrap();
            got.push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        got.sort();
        assert_eq!(got, ["pull", "pull", "pull", "push", "push"]);
        assert_eq!(testing::read(&r, "a.sent"), "2");
        assert_eq!(testing::read(&r, "b.sent"), "3");
        assert_eq!(r.read_handler("a.class", "").unwrap(), "ToSocket");
    }

    /// Checked against Click: a TCP ToSocket connects when the router
    /// initializes, and fails to when nobody listens.
    #[test]
    fn tcp_client_needs_a_server() {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = probe.local_addr().unwrap().port();
        drop(probe);
        let e = build_err(&format!("Idle -> t :: ToSocket(TCP, 127.0.0.1, {port})"));
        assert!(e.contains("While initializing 't :: ToSocket'"), "{e}");
        assert!(e.contains("connect") && e.contains("refused"), "{e}");
    }
}
