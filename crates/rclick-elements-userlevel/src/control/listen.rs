//! The listening sockets of ControlSocket and ChatterSocket and the
//! connections they accept: TCP on one port (the loopback address or every
//! address) or a Unix-domain socket file, both non-blocking; a socket file
//! is made with mode 0600, so only the router's user may connect.
//! Errors name the failing system call (`bind: Address already in use`).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};

/// Why a listening socket could not be opened: the system call and its
/// error.
#[derive(Debug)]
pub(crate) struct OpenError {
    /// `bind`, `chmod` or `fcntl`.
    pub call: &'static str,
    pub err: io::Error,
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.call, strerror(&self.err))
    }
}

/// An error's text without Rust's ` (os error N)`, as Click prints it.
pub(crate) fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

fn failed(call: &'static str) -> impl FnOnce(io::Error) -> OpenError {
    move |err| OpenError { call, err }
}

/// A non-blocking listening socket.
pub(crate) enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

impl Listener {
    /// Listens on TCP `port` (0: one the kernel picks) of the loopback
    /// address, or of every address unless `localhost`.
    pub(crate) fn tcp(localhost: bool, port: u16) -> Result<Listener, OpenError> {
        let ip = if localhost {
            Ipv4Addr::LOCALHOST
        } else {
            Ipv4Addr::UNSPECIFIED
        };
        let l = TcpListener::bind(SocketAddr::from((ip, port))).map_err(failed("bind"))?;
        l.set_nonblocking(true).map_err(failed("fcntl"))?;
        Ok(Listener::Tcp(l))
    }

    /// Listens on the Unix-domain socket file `path` (removing what was
    /// there), made with mode 0600.
    pub(crate) fn unix(path: &str) -> Result<Listener, OpenError> {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::remove_file(path);
        let l = UnixListener::bind(path).map_err(failed("bind"))?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(failed("chmod"))?;
        l.set_nonblocking(true).map_err(failed("fcntl"))?;
        Ok(Listener::Unix(l))
    }

    /// The TCP port bound (`None` for a Unix socket).
    pub(crate) fn port(&self) -> Option<u16> {
        match self {
            Listener::Tcp(l) => l.local_addr().ok().map(|a| a.port()),
            Listener::Unix(_) => None,
        }
    }

    /// The descriptor to watch for connections.
    pub(crate) fn fd(&self) -> RawFd {
        match self {
            Listener::Tcp(l) => l.as_raw_fd(),
            Listener::Unix(l) => l.as_raw_fd(),
        }
    }

    /// The next waiting connection (still blocking: see
    /// [`Stream::set_nonblocking`]) and, for TCP, its peer's address.
    pub(crate) fn accept(&self) -> io::Result<(Stream, Option<SocketAddr>)> {
        match self {
            Listener::Tcp(l) => l.accept().map(|(s, a)| (Stream::Tcp(s), Some(a))),
            Listener::Unix(l) => l.accept().map(|(s, _)| (Stream::Unix(s), None)),
        }
    }
}

/// An accepted connection.
pub(crate) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    /// The descriptor to watch.
    pub(crate) fn fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        }
    }

    pub(crate) fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_nonblocking(on),
            Stream::Unix(s) => s.set_nonblocking(on),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_listener_accepts_a_connection_that_carries_bytes() {
        let l = Listener::tcp(true, 0).unwrap();
        let port = l.port().unwrap();
        assert_ne!(port, 0);
        assert!(matches!(l.accept(), Err(e) if e.kind() == io::ErrorKind::WouldBlock));
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        client.write_all(b"hi").unwrap();
        let (mut s, peer) = loop {
            match l.accept() {
                Ok(x) => break x,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(peer.unwrap().ip(), Ipv4Addr::LOCALHOST);
        let mut buf = [0u8; 2];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"hi");
        s.set_nonblocking(true).unwrap();
        assert!(s.fd() >= 0);
    }

    #[test]
    fn unix_listener_is_private_and_errors_name_the_call() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("rclick-listen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s");
        let path = path.to_str().unwrap();
        let l = Listener::unix(path).unwrap();
        assert_eq!(l.port(), None);
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(l);
        let e = Listener::unix("/nonexistent-dir/s").err().unwrap();
        assert_eq!(e.call, "bind");
        assert!(e.to_string().starts_with("bind: "), "{e}");
        assert!(!e.to_string().contains("os error"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
