//! The operating-system side of Socket: opening, accepting, reading and
//! writing TCP, UDP and Unix-domain sockets without blocking.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::{UnixDatagram, UnixListener, UnixStream};
use std::path::PathBuf;
use std::time::Duration;

use socket2::{Domain, SockAddr, Socket as RawSocket, Type};

/// Socket families and types Socket supports (its TYPE argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tcp,
    Udp,
    Unix,
    UnixDgram,
}

impl Kind {
    pub(crate) fn parse(s: &str) -> Option<Kind> {
        match s.to_ascii_uppercase().as_str() {
            "TCP" => Some(Kind::Tcp),
            "UDP" => Some(Kind::Udp),
            "UNIX" => Some(Kind::Unix),
            "UNIX_DGRAM" => Some(Kind::UnixDgram),
            _ => None,
        }
    }

    pub(crate) fn is_stream(self) -> bool {
        matches!(self, Kind::Tcp | Kind::Unix)
    }

    pub(crate) fn is_unix(self) -> bool {
        matches!(self, Kind::Unix | Kind::UnixDgram)
    }
}

/// An address: IPv4 with a port, or a Unix socket file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Addr {
    Inet(SocketAddrV4),
    Path(PathBuf),
}

impl Addr {
    fn sockaddr(&self) -> io::Result<SockAddr> {
        match self {
            Addr::Inet(a) => Ok(SockAddr::from(*a)),
            Addr::Path(p) => SockAddr::unix(p),
        }
    }
}

impl std::fmt::Display for Addr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Addr::Inet(a) => write!(f, "{a}"),
            Addr::Path(p) => write!(f, "{}", p.display()),
        }
    }
}

/// Socket options set before binding.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Options {
    pub(crate) sndbuf: Option<usize>,
    pub(crate) rcvbuf: Option<usize>,
    pub(crate) nodelay: bool,
}

/// A connected stream.
#[derive(Debug)]
pub(crate) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    pub(crate) fn raw_fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        }
    }

    pub(crate) fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => (&*s).read(buf),
            Stream::Unix(s) => (&*s).read(buf),
        }
    }

    pub(crate) fn write(&self, data: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => (&*s).write(data),
            Stream::Unix(s) => (&*s).write(data),
        }
    }
}

/// A listening stream socket.
#[derive(Debug)]
pub(crate) enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

impl Listener {
    pub(crate) fn raw_fd(&self) -> RawFd {
        match self {
            Listener::Tcp(l) => l.as_raw_fd(),
            Listener::Unix(l) => l.as_raw_fd(),
        }
    }

    /// Accepts one waiting connection (non-blocking); returns the stream
    /// and a description of the peer.
    pub(crate) fn accept(&self, opts: &Options) -> io::Result<(Stream, String)> {
        match self {
            Listener::Tcp(l) => {
                let (s, from) = l.accept()?;
                s.set_nonblocking(true)?;
                if opts.nodelay {
                    s.set_nodelay(true)?;
                }
                Ok((Stream::Tcp(s), from.to_string()))
            }
            Listener::Unix(l) => {
                let (s, from) = l.accept()?;
                s.set_nonblocking(true)?;
                let from = from.as_pathname().map_or_else(
                    || "an unnamed socket".to_string(),
                    |p| p.display().to_string(),
                );
                Ok((Stream::Unix(s), from))
            }
        }
    }

    /// The address actually bound (the port the kernel chose for port 0).
    pub(crate) fn local(&self) -> String {
        match self {
            Listener::Tcp(l) => l
                .local_addr()
                .map_or_else(|_| "?".into(), |a| a.to_string()),
            Listener::Unix(l) => l
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(|p| p.display().to_string()))
                .unwrap_or_default(),
        }
    }
}

/// Where a datagram came from, or goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Peer {
    Inet(SocketAddr),
    Path(PathBuf),
}

/// A datagram socket.
#[derive(Debug)]
pub(crate) enum Dgram {
    Udp(UdpSocket),
    Unix(UnixDatagram),
}

impl Dgram {
    pub(crate) fn raw_fd(&self) -> RawFd {
        match self {
            Dgram::Udp(s) => s.as_raw_fd(),
            Dgram::Unix(s) => s.as_raw_fd(),
        }
    }

    /// Receives one datagram (non-blocking). The sender is `None` for an
    /// unnamed Unix socket, which cannot be answered.
    pub(crate) fn recv_from(&self, buf: &mut [u8]) -> io::Result<(usize, Option<Peer>)> {
        match self {
            Dgram::Udp(s) => {
                let (n, from) = s.recv_from(buf)?;
                Ok((n, Some(Peer::Inet(from))))
            }
            Dgram::Unix(s) => {
                let (n, from) = s.recv_from(buf)?;
                Ok((n, from.as_pathname().map(|p| Peer::Path(p.to_path_buf()))))
            }
        }
    }

    pub(crate) fn send_to(&self, data: &[u8], to: &Peer) -> io::Result<usize> {
        match (self, to) {
            (Dgram::Udp(s), Peer::Inet(a)) => s.send_to(data, a),
            (Dgram::Unix(s), Peer::Path(p)) => s.send_to(data, p),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "address family mismatch",
            )),
        }
    }

    pub(crate) fn local(&self) -> String {
        match self {
            Dgram::Udp(s) => s
                .local_addr()
                .map_or_else(|_| "?".into(), |a| a.to_string()),
            Dgram::Unix(s) => s
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(|p| p.display().to_string()))
                .unwrap_or_default(),
        }
    }
}

/// An opened socket, in the shape its kind and role give it.
#[derive(Debug)]
pub(crate) enum Opened {
    Listener(Listener),
    Stream(Stream),
    Dgram(Dgram),
}

/// How long a client waits for its connection at initialization.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Names the system call that failed, for messages.
pub(crate) struct OpenError {
    pub(crate) call: &'static str,
    pub(crate) err: io::Error,
}

fn at(call: &'static str) -> impl FnOnce(io::Error) -> OpenError {
    move |err| OpenError { call, err }
}

/// Opens a socket of `kind`: a server binds `remote` (and listens, for a
/// stream); a client binds `local` if given, then connects a stream to
/// `remote`. The result is non-blocking.
pub(crate) fn open(
    kind: Kind,
    client: bool,
    remote: &Addr,
    local: Option<&Addr>,
    opts: &Options,
) -> Result<Opened, OpenError> {
    let (domain, ty) = match kind {
        Kind::Tcp => (Domain::IPV4, Type::STREAM),
        Kind::Udp => (Domain::IPV4, Type::DGRAM),
        Kind::Unix => (Domain::UNIX, Type::STREAM),
        Kind::UnixDgram => (Domain::UNIX, Type::DGRAM),
    };
    let s = RawSocket::new(domain, ty.cloexec(), None).map_err(at("socket"))?;
    if let Some(n) = opts.sndbuf {
        s.set_send_buffer_size(n)
            .map_err(at("setsockopt(SO_SNDBUF)"))?;
    }
    if let Some(n) = opts.rcvbuf {
        s.set_recv_buffer_size(n)
            .map_err(at("setsockopt(SO_RCVBUF)"))?;
    }
    if kind == Kind::Tcp && opts.nodelay {
        s.set_nodelay(true).map_err(at("setsockopt(TCP_NODELAY)"))?;
    }
    if !client && kind == Kind::Tcp {
        // Lets a restarted server bind while old connections linger in TIME_WAIT.
        s.set_reuse_address(true)
            .map_err(at("setsockopt(SO_REUSEADDR)"))?;
    }
    let bind_to = if client { local } else { Some(remote) };
    if let Some(a) = bind_to {
        let sa = a.sockaddr().map_err(at("bind"))?;
        s.bind(&sa).map_err(at("bind"))?;
    }
    if client && kind.is_stream() {
        let sa = remote.sockaddr().map_err(at("connect"))?;
        match remote {
            Addr::Inet(_) => s.connect_timeout(&sa, CONNECT_TIMEOUT),
            Addr::Path(_) => s.connect(&sa),
        }
        .map_err(at("connect"))?;
    }
    if !client && kind.is_stream() {
        s.listen(16).map_err(at("listen"))?;
    }
    s.set_nonblocking(true).map_err(at("fcntl(O_NONBLOCK)"))?;
    Ok(match (kind, client) {
        (Kind::Tcp, false) => Opened::Listener(Listener::Tcp(s.into())),
        (Kind::Unix, false) => Opened::Listener(Listener::Unix(s.into())),
        (Kind::Tcp, true) => Opened::Stream(Stream::Tcp(s.into())),
        (Kind::Unix, true) => Opened::Stream(Stream::Unix(s.into())),
        (Kind::Udp, _) => Opened::Dgram(Dgram::Udp(s.into())),
        (Kind::UnixDgram, _) => Opened::Dgram(Dgram::Unix(s.into())),
    })
}

/// The peer of a datagram client: `remote`, whose IPv4 address may be
/// 0.0.0.0 (then each packet's destination IP annotation is used).
pub(crate) fn client_peer(remote: &Addr, dst_anno: Ipv4Addr) -> Peer {
    match remote {
        Addr::Inet(a) if a.ip().is_unspecified() => {
            Peer::Inet(SocketAddr::V4(SocketAddrV4::new(dst_anno, a.port())))
        }
        Addr::Inet(a) => Peer::Inet(SocketAddr::V4(*a)),
        Addr::Path(p) => Peer::Path(p.clone()),
    }
}

/// Whether `e` means "try again later".
pub(crate) fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
        || e.kind() == io::ErrorKind::Interrupted
        || e.raw_os_error() == Some(libc::ENOBUFS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_client_peers() {
        assert_eq!(Kind::parse("udp"), Some(Kind::Udp));
        assert_eq!(Kind::parse("Unix_Dgram"), Some(Kind::UnixDgram));
        assert_eq!(Kind::parse("RAW"), None);
        assert!(Kind::Unix.is_stream() && Kind::Unix.is_unix());
        assert!(!Kind::Udp.is_stream() && !Kind::Udp.is_unix());
        let fixed = Addr::Inet("192.0.2.7:53".parse().unwrap());
        let any = Addr::Inet("0.0.0.0:53".parse().unwrap());
        let anno = Ipv4Addr::new(198, 51, 100, 9);
        assert_eq!(
            client_peer(&fixed, anno),
            Peer::Inet("192.0.2.7:53".parse().unwrap())
        );
        // ADDR 0.0.0.0: the destination IP annotation, at PORT.
        assert_eq!(
            client_peer(&any, anno),
            Peer::Inet("198.51.100.9:53".parse().unwrap())
        );
        let path = Addr::Path("/tmp/x.sock".into());
        assert_eq!(client_peer(&path, anno), Peer::Path("/tmp/x.sock".into()));
        assert_eq!(path.to_string(), "/tmp/x.sock");
    }
}
