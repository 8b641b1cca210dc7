//! Socket's configuration: the socket type and addresses, client or
//! server, and the keywords, parsed and checked once (`Settings::parse`),
//! before anything is opened.

use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;

use rclick_core::args::{ArgContext, Args, Word};

use super::conn::{Addr, Kind, Options};

/// The receive buffer: the largest datagram, and so the largest SNAPLEN.
pub(super) const RECV_BUF: usize = 65536;

/// Socket's configuration.
#[derive(Clone, Debug)]
pub(super) struct Settings {
    pub(super) kind: Kind,
    pub(super) remote: Addr,
    pub(super) local: Option<Addr>,
    pub(super) client: bool,
    pub(super) snaplen: usize,
    pub(super) headroom: usize,
    pub(super) timestamp: bool,
    pub(super) verbose: bool,
    pub(super) opts: Options,
}

impl Settings {
    /// Parses a configuration for an element with `noutputs` outputs;
    /// returns the settings and the warnings.
    pub(super) fn parse(
        conf: &[String],
        noutputs: usize,
        actx: &dyn ArgContext,
    ) -> Result<(Settings, Vec<String>), String> {
        let mut warnings = Vec::new();
        let mut ty = Word::default();
        let mut rest = Vec::new();
        Args::new_with(conf, actx)
            .read_mp("TYPE", &mut ty)
            .rest(&mut rest)
            .complete()
            .map_err(|e| e.to_string())?;
        let kind = Kind::parse(&ty.0).ok_or_else(|| {
            format!(
                "TYPE: unknown socket type '{}' (expected TCP, UDP, UNIX or UNIX_DGRAM)",
                ty.0
            )
        })?;
        let mut client = noutputs == 0;
        let mut client_given = false;
        let mut snaplen: u32 = 2048;
        let mut headroom: u32 = rclick_packet::DEFAULT_HEADROOM as u32;
        let mut timestamp = true;
        let mut verbose = false;
        let mut nodelay = true;
        let mut sndbuf: u32 = 0;
        let mut sndbuf_given = false;
        let mut rcvbuf: u32 = 0;
        let mut rcvbuf_given = false;
        let mut proper = false;
        let mut allow = String::new();
        let mut allow_given = false;
        let mut deny = String::new();
        let mut deny_given = false;
        let mut addr = Ipv4Addr::UNSPECIFIED;
        let mut port: u16 = 0;
        let mut local_addr = Ipv4Addr::UNSPECIFIED;
        let mut local_addr_given = false;
        let mut local_port: u16 = 0;
        let mut local_port_given = false;
        let mut filename = String::new();
        let mut local_filename = String::new();
        let args = Args::new_with(&rest, actx);
        let args = if kind.is_unix() {
            args.read_mp("FILENAME", &mut filename)
                .read_p("LOCAL_FILENAME", &mut local_filename)
        } else {
            args.read_mp("ADDR", &mut addr)
                .read_mp("PORT", &mut port)
                .read_p("LOCAL_ADDR", &mut local_addr)
                .read_status(&mut local_addr_given)
                .read_p("LOCAL_PORT", &mut local_port)
                .read_status(&mut local_port_given)
        };
        args.read("CLIENT", &mut client)
            .read_status(&mut client_given)
            .read("SNAPLEN", &mut snaplen)
            .read("HEADROOM", &mut headroom)
            .read("TIMESTAMP", &mut timestamp)
            .read("VERBOSE", &mut verbose)
            .read("NODELAY", &mut nodelay)
            .read("SNDBUF", &mut sndbuf)
            .read_status(&mut sndbuf_given)
            .read("RCVBUF", &mut rcvbuf)
            .read_status(&mut rcvbuf_given)
            .read("PROPER", &mut proper)
            .read("ALLOW", &mut allow)
            .read_status(&mut allow_given)
            .read("DENY", &mut deny)
            .read_status(&mut deny_given)
            .complete()
            .map_err(|e| e.to_string())?;
        if allow_given || deny_given {
            return Err("ALLOW and DENY (IPRouteTable access lists) are not supported".into());
        }
        if proper {
            warnings.push("PROPER is PlanetLab-specific and ignored".to_string());
        }
        if snaplen == 0 || snaplen as usize > RECV_BUF {
            return Err(format!("SNAPLEN must be between 1 and {RECV_BUF}"));
        }
        if headroom > 8192 {
            return Err("HEADROOM too big (at most 8192)".into());
        }
        let (remote, local) = if kind.is_unix() {
            check_path("FILENAME", &filename)?;
            let local = if local_filename.is_empty() {
                None
            } else {
                check_path("LOCAL_FILENAME", &local_filename)?;
                Some(Addr::Path(PathBuf::from(&local_filename)))
            };
            (Addr::Path(PathBuf::from(&filename)), local)
        } else {
            let local = (local_addr_given || local_port_given)
                .then(|| Addr::Inet(SocketAddrV4::new(local_addr, local_port)));
            (Addr::Inet(SocketAddrV4::new(addr, port)), local)
        };
        // Local arguments imply a client unless CLIENT says otherwise.
        if local.is_some() && !client_given {
            client = true;
        }
        if client && kind.is_stream() && matches!(remote, Addr::Inet(a) if a.port() == 0) {
            return Err("PORT: a client needs a nonzero port to connect to".into());
        }
        let s = Settings {
            kind,
            remote,
            local: if client { local } else { None },
            client,
            snaplen: snaplen as usize,
            headroom: headroom as usize,
            timestamp,
            verbose,
            opts: Options {
                sndbuf: sndbuf_given.then_some(sndbuf as usize),
                rcvbuf: rcvbuf_given.then_some(rcvbuf as usize),
                nodelay,
            },
        };
        Ok((s, warnings))
    }
}

/// Checks a Unix socket file name (`sun_path` holds 107 bytes and a NUL).
fn check_path(what: &str, p: &str) -> Result<(), String> {
    if p.is_empty() {
        return Err(format!("{what}: empty file name"));
    }
    if p.len() >= 108 || p.contains('\0') {
        return Err(format!(
            "{what}: file name '{p}' too long (at most 107 bytes)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::args::NoContext;

    fn parse(conf: &[&str], noutputs: usize) -> Result<Settings, String> {
        let conf: Vec<String> = conf.iter().map(|s| s.to_string()).collect();
        Settings::parse(&conf, noutputs, &NoContext).map(|(s, _)| s)
    }

    #[test]
    fn configuration() {
        let s = parse(&["TCP", "127.0.0.1", "80"], 1).unwrap();
        assert_eq!(s.kind, Kind::Tcp);
        assert!(!s.client, "a TCP Socket with an output is a server");
        assert!(s.opts.nodelay);
        assert_eq!(s.snaplen, 2048);
        assert!(
            parse(&["tcp", "127.0.0.1", "80"], 0).unwrap().client,
            "no output: client"
        );
        let s = parse(&["TCP", "127.0.0.1", "80", "0.0.0.0", "5000"], 1).unwrap();
        assert!(s.client, "LOCAL_* imply a client");
        assert_eq!(s.local, Some(Addr::Inet("0.0.0.0:5000".parse().unwrap())));
        let s = parse(
            &["TCP", "127.0.0.1", "80", "LOCAL_PORT 5000", "CLIENT false"],
            1,
        )
        .unwrap();
        assert!(
            !s.client && s.local.is_none(),
            "CLIENT false ignores LOCAL_*"
        );
        let s = parse(&["UNIX_DGRAM", "/tmp/a", "/tmp/b", "SNAPLEN 100"], 1).unwrap();
        assert_eq!(s.kind, Kind::UnixDgram);
        assert_eq!(s.local, Some(Addr::Path("/tmp/b".into())));
        assert_eq!(s.snaplen, 100);
        let s = parse(
            &["UDP", "0.0.0.0", "53", "SNDBUF 65536", "NODELAY false"],
            1,
        )
        .unwrap();
        assert_eq!(s.opts.sndbuf, Some(65536));
        assert!(!s.opts.nodelay);

        let err = |c: &[&str]| parse(c, 1).unwrap_err();
        assert!(err(&["SCTP", "127.0.0.1", "80"]).contains("unknown socket type"));
        assert!(err(&["TCP", "127.0.0.1"]).contains("PORT"));
        assert!(err(&["TCP", "127.0.0.1", "70000"]).contains("PORT"));
        assert!(err(&["TCP", "127.0.0.1", "80", "BOGUS 1"]).contains("BOGUS: unknown argument"));
        assert!(err(&["TCP", "127.0.0.1", "80", "ALLOW a"]).contains("not supported"));
        assert!(err(&["TCP", "127.0.0.1", "80", "SNAPLEN 0"]).contains("SNAPLEN"));
        assert!(err(&["TCP", "127.0.0.1", "0", "CLIENT true"]).contains("nonzero port"));
        assert!(err(&["UNIX", ""]).contains("FILENAME"));
        assert!(err(&["UNIX", &"x".repeat(200)]).contains("too long"));
    }
}
