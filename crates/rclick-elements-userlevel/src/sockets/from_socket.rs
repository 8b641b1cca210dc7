//! # FromSocket
//!
//! `FromSocket(TCP, ADDR, PORT [, KEYWORDS])`
//! `FromSocket(UDP, ADDR, PORT [, KEYWORDS])`
//! `FromSocket(UNIX, FILENAME [, KEYWORDS])`
//! `FromSocket(UNIX_DGRAM, FILENAME [, KEYWORDS])`
//!
//! **Category:** comm. Receives data from a socket (user-level);
//! deprecated.
//!
//! **Ports:** at most one input (agnostic); at most one push output.
//!
//! ## Description
//!
//! The receiving form of [Socket](super::socket), kept because old
//! configurations use it: data the remote end sends comes out of the
//! output as packets. FromSocket *is* Socket under another class name;
//! it takes the same arguments and keywords, has the same defaults (a
//! FromSocket with an output is a server unless CLIENT is true) and the
//! same handlers. Like Click, it accepts an input as well, whose packets
//! are sent to the remote end.
//!
//! When the router initializes it prints
//! `warning: FromSocket is deprecated, use Socket instead`, as Click
//! does (Click prints it before configuring, so also for a configuration
//! that then fails; rclick only for one that is built).
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
//! // Whatever arrives on UDP port 4000 of the loopback, as packets.
//! FromSocket(UDP, 127.0.0.1, 4000) -> Print(got) -> Discard;
//! ```
//!
//! ## See also
//!
//! Socket, ToSocket

use super::Socket;

/// A new FromSocket: a Socket named FromSocket.
pub fn from_socket() -> Socket {
    Socket::with_class("FromSocket")
}

#[cfg(test)]
mod tests {
    use crate::device::test_util::{build_err, registry};
    use rclick_core::testing;
    use std::net::UdpSocket;
    use std::time::Duration;

    /// Checked against Click: a UDP FromSocket is a server that emits
    /// each datagram and warns once that the class is deprecated.
    #[test]
    fn receives_datagrams_and_warns() {
        let conf = "f :: FromSocket(UDP, 127.0.0.1, 0) -> c :: Counter -> Discard;
             Script(label l, wait 2ms, goto l $(lt $(c.count) 2), stop);
             Script(wait 20s, stop);";
        let r = testing::build(conf, &registry(), false).unwrap();
        let log = r.take_log();
        assert_eq!(
            log,
            vec!["warning: FromSocket is deprecated, use Socket instead".to_string()]
        );
        let addr = testing::read(&r, "f.local_address");
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        let peer = std::thread::spawn(move || {
            let u = UdpSocket::bind("127.0.0.1:0").unwrap();
            for _ in 0..50 {
                u.send_to(b"abc", &addr).unwrap();
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        r.run();
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert_eq!(r.read_handler("f.class", "").unwrap(), "FromSocket");
        assert!(testing::read(&r, "f.received").parse::<u64>().unwrap() >= 2);
        drop(peer);
    }

    /// Checked against Click: the arguments are Socket's, and so are the
    /// errors (an unknown type; a client with nobody to connect to).
    #[test]
    fn errors_are_sockets() {
        let e = build_err("FromSocket(FOO, 127.0.0.1, 4000) -> Discard");
        assert!(
            e.contains("While configuring 'FromSocket@1 :: FromSocket'"),
            "{e}"
        );
        assert!(e.contains("unknown socket type 'FOO'"), "{e}");
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = probe.local_addr().unwrap().port();
        drop(probe);
        // No output: a client, as in Click.
        let e = match testing::build(
            &format!("f :: FromSocket(TCP, 127.0.0.1, {port})"),
            &registry(),
            false,
        ) {
            Ok(_) => panic!("built"),
            Err(e) => e,
        };
        assert!(e.contains("connect") && e.contains("refused"), "{e}");
    }
}
