//! `rclick pmgr`: the Router Plugins paper's plugin manager program, for
//! a running router. It speaks Click's ControlSocket protocol (a
//! `ControlSocket` element in the configuration, TCP or Unix) and calls the
//! handlers of the configuration's `PluginManager` element:
//!
//! ```text
//! rclick pmgr -s SOCKET load PACKAGE|FILE          prints NAME: CLASS...
//! rclick pmgr -s SOCKET unload PACKAGE
//! rclick pmgr -s SOCKET packages
//! rclick pmgr -s SOCKET create CLASS [CONFIG...]   prints the instance's name
//! rclick pmgr -s SOCKET bind GATE INSTANCE FILTER...
//! rclick pmgr -s SOCKET unbind INSTANCE [FILTER...]
//! rclick pmgr -s SOCKET free INSTANCE
//! rclick pmgr -s SOCKET list | gates
//! rclick pmgr -s SOCKET call INSTANCE.HANDLER [ARG...]
//! rclick pmgr -s SOCKET callwrite INSTANCE.HANDLER [VALUE...]
//! ```
//!
//! Arguments after the command are joined with spaces (so a filter may be
//! one quoted word or six). Requests go as `READDATA`/`WRITEDATA`, so
//! their text arrives byte for byte. The manager element is found by class
//! (the global `list` handler, then each element's `class`) unless
//! `--manager NAME` names it. A refused request prints the router's reason
//! and exits 1. `load` with a file path makes a relative path absolute
//! here first (the router resolves it in its own working directory).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// The largest handler reply read (a `list` of many bindings stays far
/// below it).
const MAX_REPLY: usize = 64 << 20;

/// `rclick pmgr`'s options.
#[derive(clap::Args, Debug)]

pub struct PmgrOptions {
    /// The router's ControlSocket: a Unix socket path.
    #[arg(short = 's', long, value_name = "PATH", conflicts_with = "tcp")]
    pub socket: Option<String>,
    /// The router's ControlSocket: HOST:PORT of a TCP one.
    #[arg(long, value_name = "HOST:PORT")]
    pub tcp: Option<String>,
    /// The PluginManager element's name (found by class if not given).
    #[arg(short = 'm', long, value_name = "NAME")]
    pub manager: Option<String>,
    /// The command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

enum Conn {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.read(buf),
            Conn::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Unix(s) => s.write(buf),
            Conn::Tcp(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Unix(s) => s.flush(),
            Conn::Tcp(s) => s.flush(),
        }
    }
}

/// A ControlSocket connection.
pub struct Client {
    io: BufReader<Conn>,
}

impl Client {
    fn open(o: &PmgrOptions) -> Result<Client, String> {
        let timeout = Some(Duration::from_secs(30));
        let conn = match (&o.socket, &o.tcp) {
            (Some(p), _) => {
                let s = UnixStream::connect(p).map_err(|e| format!("{p}: {e}"))?;
                s.set_read_timeout(timeout).map_err(|e| e.to_string())?;
                Conn::Unix(s)
            }
            (None, Some(a)) => {
                let s = TcpStream::connect(a).map_err(|e| format!("{a}: {e}"))?;
                s.set_read_timeout(timeout).map_err(|e| e.to_string())?;
                Conn::Tcp(s)
            }
            (None, None) => {
                return Err(
                    "pmgr: give the router's ControlSocket: -s PATH or --tcp HOST:PORT".into(),
                )
            }
        };
        let mut c = Client {
            io: BufReader::new(conn),
        };
        let greeting = c.line()?;
        if !greeting.starts_with("Click::ControlSocket/") {
            return Err(format!("not a ControlSocket: '{greeting}'"));
        }
        Ok(c)
    }

    fn line(&mut self) -> Result<String, String> {
        let mut l = String::new();
        match self.io.read_line(&mut l) {
            Ok(0) => Err("the router closed the connection".into()),
            Ok(_) => Ok(l.trim_end_matches(['\r', '\n']).to_string()),
            Err(e) => Err(format!("reading from the router: {e}")),
        }
    }

    /// Reads a reply: its code and message lines.
    fn reply(&mut self) -> Result<(u16, Vec<String>), String> {
        let mut msgs = Vec::new();
        loop {
            let l = self.line()?;
            let code: u16 = l
                .get(..3)
                .and_then(|c| c.parse().ok())
                .ok_or_else(|| format!("bad reply line '{l}'"))?;
            msgs.push(l.get(4..).unwrap_or("").to_string());
            if l.as_bytes().get(3) != Some(&b'-') {
                return Ok((code, msgs));
            }
        }
    }

    /// Calls a handler with `data` (`READDATA` or `WRITEDATA`); returns
    /// the data a read gave, or the router's messages as the error.
    pub fn call(&mut self, read: bool, handler: &str, data: &str) -> Result<String, String> {
        let verb = if read { "READDATA" } else { "WRITEDATA" };
        let req = format!("{verb} {handler} {}\r\n{data}", data.len());
        let w = self.io.get_mut();
        w.write_all(req.as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| format!("writing to the router: {e}"))?;
        let (code, msgs) = self.reply()?;
        if code != 200 {
            // Click's messages: a head line ("Write handler 'x' error:"),
            // then the handler's own lines.
            let body: Vec<&String> = if msgs.len() > 1 {
                msgs[1..].iter().collect()
            } else {
                msgs.iter().collect()
            };
            return Err(body
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n"));
        }
        if !read {
            return Ok(String::new());
        }
        let l = self.line()?;
        let n: usize = l
            .strip_prefix("DATA ")
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("expected DATA, got '{l}'"))?;
        if n > MAX_REPLY {
            return Err(format!(
                "the router announced {n} bytes of data; more than {MAX_REPLY} is refused"
            ));
        }
        let mut buf = vec![0u8; n];
        self.io
            .read_exact(&mut buf)
            .map_err(|e| format!("reading from the router: {e}"))?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// The name of the router's PluginManager element.
    fn find_manager(&mut self) -> Result<String, String> {
        let list = self.call(true, "list", "")?;
        for name in list.lines().skip(1) {
            if self.call(true, &format!("{name}.class"), "")?.trim() == "PluginManager" {
                return Ok(name.to_string());
            }
        }
        Err("the router has no PluginManager element".into())
    }
}

/// Runs one pmgr command; returns what to print.
pub fn run(o: &PmgrOptions) -> Result<String, String> {
    let (cmd, args) = o
        .command
        .split_first()
        .ok_or_else(|| "pmgr: expected a command".to_string())?;
    let arg = args.join(" ");
    // (handler, read?) for each command.
    let (handler, read) = match cmd.as_str() {
        "create" | "call" | "load" => (cmd.as_str(), true),
        "list" | "gates" | "packages" => (cmd.as_str(), true),
        "bind" | "unbind" | "free" | "callwrite" | "unload" => (cmd.as_str(), false),
        other => {
            return Err(format!(
                "pmgr: unknown command '{other}' (load, unload, packages, create, bind, unbind, \
                 free, list, gates, call, callwrite)"
            ))
        }
    };
    // A package file named by a relative path is the one here, not in the
    // router's working directory.
    let arg = if cmd == "load" && (arg.contains('/') || arg.ends_with(".so")) {
        std::fs::canonicalize(&arg)
            .map(|p| p.display().to_string())
            .unwrap_or(arg)
    } else {
        arg
    };
    let mut c = Client::open(o)?;
    let manager = match &o.manager {
        Some(m) => m.clone(),
        None => c.find_manager()?,
    };
    let out = c.call(read, &format!("{manager}.{handler}"), &arg)?;
    Ok(out)
}
