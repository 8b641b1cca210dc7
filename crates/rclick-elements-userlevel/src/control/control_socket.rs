//! # ControlSocket
//!
//! `ControlSocket("TCP", PORT [, KEYWORDS])`
//! `ControlSocket("UNIX", FILENAME [, KEYWORDS])`
//!
//! **Category:** control. Opens control sockets for other programs.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Listens on TCP port PORT, or on the Unix-domain socket FILENAME, and lets
//! the programs that connect call the router's read and write handlers
//! through a simple line-based text protocol. PORT may end in `+`
//! (`41900+`): if the port is taken, the next ones are tried, up to ten
//! more; the `port` handler tells which one was bound. The router watches
//! the sockets (Click's `add_select`) and runs ControlSocket's task on the
//! driver thread when a client connects or sends, so handler calls run
//! exactly as calls from other elements do, and an idle ControlSocket
//! costs nothing. A router with a ControlSocket keeps running until it is
//! stopped.
//!
//! Keywords:
//!
//! * READONLY: boolean. If true, write handlers and LLRPCs are refused.
//!   Default false.
//! * PROXY: not supported (an element name; giving it is an error).
//! * VERBOSE: boolean. If true, print a message for each connection opened
//!   and closed. Default false.
//! * LOCALHOST: boolean. If true, a TCP socket accepts connections only on
//!   the loopback address 127.0.0.1. Default true (Click's default is
//!   false: the protocol has no authentication, so listening on every
//!   address must be asked for with `LOCALHOST false`).
//! * TOKEN: string (an rclick extension). If given, a connection must
//!   send `AUTH TOKEN` before any other command; until then every command
//!   but QUIT is refused (`530 Authentication required (AUTH TOKEN)`) and
//!   ends the connection's input, and a wrong token is refused (`530 Wrong
//!   token`) with the same end. For a TCP socket that others can reach
//!   (`LOCALHOST false`); the token travels in clear text. Without TOKEN,
//!   `AUTH` is an unknown command, as in Click.
//! * RETRIES: integer. If the socket cannot be opened, try again once a
//!   second, at most RETRIES times, then stop the router. Default 0
//!   (fail at once).
//! * RETRY_WARNINGS: boolean. Whether to warn at each failed attempt.
//!   Default true.
//!
//! ## Server commands
//!
//! A connection is greeted by `Click::ControlSocket/1.3`. Commands are
//! lines of words (ended by CR, LF or CRLF; command names are
//! case-insensitive). Each reply is one or more lines `CODE text` (`CODE-text`
//! for all but the last line of a reply), ended by CRLF, sometimes followed
//! by a line `DATA N` and N bytes of data. A *handler* is `element.handler`,
//! `number.handler` (elements numbered from 1) or a global `handler`;
//! private handlers are invisible.
//!
//! * `READ handler [params...]`: calls a read handler; replies with `DATA`.
//! * `READDATA handler N`: the same, with the N bytes after the line as
//!   parameters.
//! * `READUNTIL handler [TERM]`: the same, with the lines up to one equal to
//!   TERM (default: an empty line; trailing spaces ignored) as parameters.
//! * `WRITE handler [value...]`, `WRITEDATA handler N`, `WRITEUNTIL handler
//!   [TERM]`: call a write handler with the value given the same ways.
//! * `CHECKREAD handler`, `CHECKWRITE handler`: whether the handler exists
//!   and is readable (writable).
//! * `LLRPC element#HEX [N]`: calls a flat low-level RPC by its portable
//!   number, with N bytes of input; replies with `DATA`.
//! * `QUIT` (or `CLOSE`): closes the connection.
//! * `HELP`: lists the commands.
//!
//! Reply codes: 200 OK; 220 OK with warnings; 500 syntax error; 501
//! unimplemented command; 510 no such element; 511 no such handler; 520
//! handler error; 521 data too big; 522 LLRPC error; 530 permission denied;
//! 540 no router; 590 read handler error.
//!
//! Bounds (docs/RELIABILITY.md): a command line of at most 64 KiB; at
//! most 64 MiB of `...DATA` (more is answered 521 and skipped unread); at
//! most 1 MiB gathered by `...UNTIL` before its terminator; no command of a
//! connection runs while more than 1 MiB of its replies wait to be sent (a
//! client that does not read stops only itself); at most 128 connections
//! at once (more are closed at once and counted by `refused`). A Unix
//! socket is created with mode 0600.
//!
//! Hot swap: a ControlSocket replacing one of the same name, type and port
//! (or a `+` port) takes over its listening socket and open connections,
//! so clients are not interrupted.
//!
//! ## Handlers
//!
//! * `port` (read): the TCP port actually bound (TCP sockets only).
//! * `filename` (read): the socket's file name (Unix sockets only).
//! * `refused` (read): connections closed at once because 128 were open.
//!
//! ## Examples
//!
//! ```text
//! ControlSocket(unix, /tmp/clicksocket);
//! ControlSocket(tcp, 41900+, LOCALHOST true);
//! ```
//!
//! ## See also
//!
//! DriverManager, Script; the `click` driver's `-p` and `-u` options.

use std::io::{ErrorKind, Read, Write};

use rclick_core::args::{Args, Word};
use rclick_core::router::Select;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, TaskId, TimerId, Timestamp};

use super::listen::{strerror, Listener, Stream};
use super::protocol::{Progress, Session};
use super::router_handlers::RouterHandlers;

/// Bytes read from one connection per pass.
const READ_CHUNK: usize = 2048;
/// A connection with more replies than this waiting to be sent runs no
/// command (and reads nothing) until they are sent.
const MAX_PENDING_OUTPUT: usize = 1 << 20;
/// Connections open at once; more are closed as soon as accepted.
const MAX_CONNECTIONS: usize = 128;

rclick_core::handlers! {
    /// The handlers (the manual's list; `port` for TCP sockets only,
    /// `filename` for Unix sockets only).
    enum H {
        Port = read("port"),
        Filename = read("filename"),
        Refused = read("refused"),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Tcp,
    Unix,
}

struct Conn {
    stream: Stream,
    session: Session,
    /// Watched for reading (until the client closes its side).
    reading: bool,
    /// Watched for writing (while replies wait for room).
    writing: bool,
}

impl Conn {
    /// Watches the connection for what it waits for now: input until the
    /// client closes its side, room while replies wait; `done`: nothing.
    fn update_selects(&mut self, task: Option<TaskId>, done: bool, cx: &mut Ctx) {
        let fd = self.stream.fd();
        let s = &self.session;
        let want_read = !done && !s.in_closed && s.output.len() <= MAX_PENDING_OUTPUT;
        let want_write = !done && !s.out_closed && !s.output.is_empty();
        for (want, have, what) in [
            (want_read, &mut self.reading, Select::Read),
            (want_write, &mut self.writing, Select::Write),
        ] {
            if want == *have {
                continue;
            }
            if want {
                let Some(t) = task else { continue };
                *have = cx.add_select(fd, what, t).is_ok();
            } else {
                cx.remove_select(fd, what);
                *have = false;
            }
        }
    }
}

/// Click's ControlSocket. See the module documentation.
pub struct ControlSocket {
    kind: Kind,
    /// The port (`41900`, `41900+`; the bound port once open) or file name.
    target: String,
    read_only: bool,
    verbose: bool,
    retry_warnings: bool,
    localhost: bool,
    /// TOKEN: what `AUTH` must give before any other command.
    token: Option<String>,
    /// Connections closed at once because `MAX_CONNECTIONS` were open.
    refused: u64,
    retries: i32,
    listener: Option<Listener>,
    conns: Vec<Conn>,
    retry_timer: Option<TimerId>,
    task: Option<TaskId>,
}

impl Default for ControlSocket {
    fn default() -> Self {
        ControlSocket {
            kind: Kind::Tcp,
            target: String::new(),
            read_only: false,
            verbose: false,
            retry_warnings: true,
            localhost: true,
            token: None,
            refused: 0,
            retries: 0,
            listener: None,
            conns: Vec::new(),
            retry_timer: None,
            task: None,
        }
    }
}

/// Parses a TCP port argument: `N` or `N+`.
fn parse_port(s: &str) -> Option<String> {
    if let Ok(p) = s.parse::<u16>() {
        return Some(p.to_string());
    }
    let base = s.strip_suffix('+')?;
    let n: u32 = base.parse().ok()?;
    (1..65536).contains(&n).then(|| format!("{n}+"))
}

impl ControlSocket {
    /// Opens the listening socket. Errors name the failing system call.
    fn open(&mut self, hotswap: bool) -> Result<(), String> {
        match self.kind {
            Kind::Tcp => {
                let plus = self.target.ends_with('+');
                let mut port: u32 = self.target.trim_end_matches('+').parse().unwrap_or(0);
                let mut tries = 0;
                loop {
                    match Listener::tcp(self.localhost, port as u16) {
                        Ok(l) => {
                            self.target = port.to_string();
                            self.listener = Some(l);
                            return Ok(());
                        }
                        Err(e) => {
                            if e.call != "bind"
                                || tries > 10
                                || !plus
                                || port >= 65534
                                || (self.retries >= 0 && hotswap)
                            {
                                return Err(e.to_string());
                            }
                            port += 1;
                            tries += 1;
                        }
                    }
                }
            }
            Kind::Unix => {
                // Only the router's user may call its handlers (mode 0600).
                self.listener = Some(Listener::unix(&self.target).map_err(|e| e.to_string())?);
                Ok(())
            }
        }
    }

    /// Click's `initialize_socket`: one attempt, counting down RETRIES.
    /// `Ok(false)` means "failed, but retry later" (after a warning).
    fn try_open(&mut self, hotswap: bool) -> Result<bool, (String, bool)> {
        self.retries -= 1;
        match self.open(hotswap) {
            Ok(()) => Ok(true),
            Err(msg) if self.retries >= 0 => {
                let left = self.retries + 1;
                let msg = format!(
                    "{msg} ({left} {} left)",
                    if left == 1 { "try" } else { "tries" }
                );
                Err((msg, self.retry_warnings))
            }
            Err(msg) => Err((msg, true)),
        }
    }

    /// Whether this socket may take over `old_conf`'s socket in a hot swap
    /// (same type, and same port or file, or a `+` port).
    fn compatible_with(&self, old_conf: &str) -> bool {
        let args = rclick_core::confparse::split_args(old_conf);
        let Some(ty) = args.first() else {
            return false;
        };
        let same_type = matches!(
            (ty.to_ascii_uppercase().as_str(), &self.kind),
            ("TCP", Kind::Tcp) | ("UNIX", Kind::Unix)
        );
        let same_target = args
            .get(1)
            .is_some_and(|t| rclick_core::confparse::unquote(t) == self.target);
        same_type && (same_target || (self.kind == Kind::Tcp && self.target.ends_with('+')))
    }

    /// Runs the task when a client connects.
    fn watch_listener(&self, cx: &mut Ctx) {
        if let (Some(l), Some(t)) = (&self.listener, self.task) {
            if let Err(e) = cx.add_select(l.fd(), Select::Read, t) {
                cx.log(format!("{}: {e}", cx.declaration()));
            }
        }
    }

    /// Accepts new connections.
    fn accept(&mut self, cx: &mut Ctx) {
        loop {
            let r = match &self.listener {
                None => return,
                Some(l) => l.accept(),
            };
            match r {
                Ok((stream, addr)) => {
                    if self.conns.len() >= MAX_CONNECTIONS {
                        self.refused += 1;
                        continue;
                    }
                    if stream.set_nonblocking(true).is_err() {
                        continue;
                    }
                    if self.verbose {
                        let fd = stream.fd();
                        match addr {
                            Some(a) => cx.log(format!(
                                "{}: opened connection {fd} from {}.{}",
                                cx.declaration(),
                                a.ip(),
                                a.port()
                            )),
                            None => cx.log(format!("{}: opened connection {fd}", cx.declaration())),
                        }
                    }
                    let mut c = Conn {
                        stream,
                        session: Session {
                            token: self.token.clone(),
                            ..Session::new()
                        },
                        reading: false,
                        writing: false,
                    };
                    c.update_selects(self.task, false, cx);
                    self.conns.push(c);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    cx.log(format!("{}: accept: {}", cx.declaration(), strerror(&e)));
                    return;
                }
            }
        }
    }

    /// One pass over every connection: read, run at most one command each,
    /// write. Returns whether commands are still waiting.
    fn poll(&mut self, cx: &mut Ctx) -> bool {
        self.accept(cx);
        let mut conns = std::mem::take(&mut self.conns);
        let mut more = false;
        for c in &mut conns {
            if c.session.output.len() > MAX_PENDING_OUTPUT {
                // A client that does not read its replies waits alone.
                flush(c);
                let done = c.session.finished();
                c.update_selects(self.task, done, cx);
                continue;
            }
            if !c.session.in_closed {
                let mut buf = [0u8; READ_CHUNK];
                match c.stream.read(&mut buf) {
                    Ok(0) => c.session.in_closed = true,
                    Ok(n) => c.session.receive(&buf[..n]),
                    Err(e)
                        if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                    Err(_) => c.session.in_closed = true,
                }
            }
            if !cx.is_quitting() {
                let (kind, target) = (&self.kind, &self.target);
                let own = |h: &str| match (h, kind) {
                    ("port", Kind::Tcp) | ("filename", Kind::Unix) => Some(target.clone()),
                    _ => None,
                };
                let mut h = RouterHandlers::new(cx, own, true);
                if c.session.step(&mut h, self.read_only) == Progress::Ran
                    && c.session.has_command()
                {
                    more = true;
                }
            }
            flush(c);
            let done = c.session.finished();
            c.update_selects(self.task, done, cx);
        }
        conns.retain(|c| {
            let done = c.session.finished();
            if done && self.verbose {
                cx.log(format!(
                    "{}: closed connection {}",
                    cx.declaration(),
                    c.stream.fd()
                ));
            }
            !done
        });
        conns.append(&mut self.conns);
        self.conns = conns;
        more && !cx.is_quitting()
    }

    /// Closes everything (Click's `cleanup`).
    fn close_all(&mut self) {
        for c in &mut self.conns {
            flush(c);
        }
        self.conns.clear();
        if let Some(Listener::Unix(_)) = self.listener.take() {
            let _ = std::fs::remove_file(&self.target);
        }
    }
}

/// Writes as much pending output as the socket takes.
fn flush(c: &mut Conn) {
    let s = &mut c.session;
    let mut written = 0;
    while !s.out_closed && written < s.output.len() {
        match c.stream.write(&s.output[written..]) {
            Ok(0) => break,
            Ok(n) => written += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(_) => s.out_closed = true,
        }
    }
    s.output.drain(..written.min(s.output.len()));
    if s.out_closed {
        s.output.clear();
    }
}

impl Element for ControlSocket {
    fn class_name(&self) -> &'static str {
        "ControlSocket"
    }

    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ty = Word::default();
        let mut read_only = false;
        let mut proxy = String::new();
        let mut proxy_given = false;
        let mut verbose = false;
        let mut retries: i32 = 0;
        let mut retry_warnings = true;
        let mut localhost = true;
        let mut token = String::new();
        let mut token_given = false;
        let rest = Args::new(conf)
            .read_mp("TYPE", &mut ty)
            .read("READONLY", &mut read_only)
            .read("PROXY", &mut proxy)
            .read_status(&mut proxy_given)
            .read("VERBOSE", &mut verbose)
            .read("RETRIES", &mut retries)
            .read("RETRY_WARNINGS", &mut retry_warnings)
            .read("LOCALHOST", &mut localhost)
            .read("TOKEN", &mut token)
            .read_status(&mut token_given)
            .consume()
            .map_err(|e| e.to_string())?;
        if proxy_given {
            return Err("PROXY is not supported".into());
        }
        let (kind, target) = match ty.0.to_ascii_uppercase().as_str() {
            "TCP" => {
                let mut port = Word::default();
                Args::new(&rest)
                    .read_mp("PORT", &mut port)
                    .complete()
                    .map_err(|e| e.to_string())?;
                let p = parse_port(&port.0).ok_or("PORT requires TCP port")?;
                (Kind::Tcp, p)
            }
            "UNIX" => {
                let mut file = String::new();
                Args::new(&rest)
                    .read_mp("FILENAME", &mut file)
                    .complete()
                    .map_err(|e| e.to_string())?;
                if file.len() >= 108 {
                    return Err("filename too long".into());
                }
                (Kind::Unix, file)
            }
            _ => return Err(format!("unknown socket type '{}'", ty.0)),
        };
        self.kind = kind;
        self.target = target;
        self.read_only = read_only;
        self.verbose = verbose;
        self.retries = retries;
        self.retry_warnings = retry_warnings;
        self.localhost = localhost;
        if token_given && token.is_empty() {
            return Err("TOKEN must not be empty".into());
        }
        self.token = token_given.then_some(token);
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let retry = cx.new_timer();
        self.retry_timer = Some(retry);
        let task = cx.new_task(false);
        self.task = Some(task);
        let hotswap = cx
            .hotswap_element()
            .is_some_and(|conf| self.compatible_with(&conf));
        if hotswap {
            // The old socket holds the port: take it over (take_state);
            // try on our own a second later if that does not happen.
            // (Click does this only with RETRIES, and otherwise fails the
            // swap with "bind: Address already in use".)
            if self.retries > 0 {
                self.retries -= 1;
            }
            cx.schedule_timer_after(retry, Timestamp::from_sec(1));
            return Ok(());
        }
        match self.try_open(hotswap) {
            Ok(_) => {
                if let Some(l) = &self.listener {
                    cx.add_select(l.fd(), Select::Read, task);
                }
                Ok(())
            }
            Err((msg, warn)) if self.retries >= 0 => {
                if warn {
                    cx.warning(msg);
                }
                cx.schedule_timer_after(retry, Timestamp::from_sec(1));
                Ok(())
            }
            Err((msg, _)) => Err(msg),
        }
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        if Some(timer) == self.retry_timer {
            if self.listener.is_some() {
                return;
            }
            match self.try_open(false) {
                Ok(_) => self.watch_listener(cx),
                Err((msg, warn)) => {
                    if warn || self.retries < 0 {
                        cx.log(format!("{}: {msg}", cx.declaration()));
                    }
                    if self.retries >= 0 {
                        cx.schedule_timer_after(timer, Timestamp::from_sec(1));
                    } else {
                        cx.request_stop();
                    }
                }
            }
        }
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if self.poll(cx) {
            cx.reschedule();
        }
        true
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.close_all();
    }

    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let Some(o) = old.downcast_mut::<ControlSocket>() else {
            return;
        };
        if self.listener.is_some() {
            cx.log(format!(
                "{}: already initialized, can't take state",
                cx.declaration()
            ));
            return;
        }
        if o.kind != self.kind
            || !(o.target == self.target || (self.kind == Kind::Tcp && self.target.ends_with('+')))
        {
            return;
        }
        self.listener = o.listener.take();
        self.target = o.target.clone();
        self.conns = std::mem::take(&mut o.conns);
        // The old router's watches end with it: watch them here.
        self.watch_listener(cx);
        for c in &mut self.conns {
            c.reading = false;
            c.writing = false;
            let done = c.session.finished();
            c.update_selects(self.task, done, cx);
        }
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v = match self.kind {
            Kind::Tcp => H::Port.defs(),
            Kind::Unix => H::Filename.defs(),
        };
        v.extend(H::Refused.defs());
        v
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Port | H::Filename) => Ok(self.target.clone()),
            Some(H::Refused) => Ok(self.refused.to_string()),
            _ => Err("no such handler".into()),
        }
    }
}

impl Drop for ControlSocket {
    fn drop(&mut self) {
        self.close_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader};
    use std::net::{Ipv4Addr, TcpStream};
    use std::os::unix::net::UnixStream;
    use std::sync::Arc;

    fn registry() -> rclick_core::Registry {
        let mut r = rclick_core::Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r.add("HandlerBomb", || Box::new(HandlerBomb), "");
        r
    }

    /// A test class (this test's registry only) whose `boom` read handler
    /// panics.
    struct HandlerBomb;

    impl Element for HandlerBomb {
        fn class_name(&self) -> &'static str {
            "HandlerBomb"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("boom", 0)]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            panic!("deliberate failure in a handler")
        }
    }

    /// A handler that panics ends neither the router nor the connection:
    /// the client gets an error, and its next command is answered.
    #[test]
    fn a_panicking_handler_is_an_error_for_the_client() {
        let r = build("cs :: ControlSocket(tcp, 46900+); hb :: HandlerBomb;");
        let port: u16 = r.read_handler("cs.port", "").unwrap().parse().unwrap();
        let client = std::thread::spawn(move || {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(b"read hb.boom\nread hb.failed\nwrite stop true\n")
                .unwrap();
            let mut out = Vec::new();
            let _ = s.read_to_end(&mut out);
            String::from_utf8_lossy(&out).into_owned()
        });
        r.run();
        let drops = r.read_handler("router_drops", "").unwrap();
        assert!(drops.contains("panics 1\n"), "{drops}");
        // The connection closes with the router.
        drop(r);
        let out = client.join().unwrap();
        assert!(
            out.contains("590 'hb.boom' panicked: deliberate failure in a handler (at "),
            "{out}"
        );
        assert!(
            out.contains("200 Read handler 'hb.failed' OK\r\nDATA 5\r\nfalse"),
            "{out}"
        );
        assert!(out.ends_with("200 Write handler 'stop' OK\r\n"), "{out}");
    }

    fn build(text: &str) -> rclick_core::Router {
        let flat = rclick_lang_parse(text);
        rclick_core::Router::build(
            flat,
            Arc::new(registry()),
            rclick_core::BuildOptions {
                threads: 1,
                capture_log: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn rclick_lang_parse(text: &str) -> rclick_lang::FlatConfig {
        rclick_lang::parse(
            text,
            &rclick_lang::Options {
                file_name: "config".into(),
                defines: vec![],
            },
        )
        .unwrap()
    }

    #[test]
    fn configuration_errors() {
        let r = registry();
        let e = rclick_core::testing::build("ControlSocket(tcp, 70000)", &r, false).unwrap_err();
        assert!(e.contains("PORT requires TCP port"), "{e}");
        let e = rclick_core::testing::build("ControlSocket(udp, 1)", &r, false).unwrap_err();
        assert!(e.contains("unknown socket type 'udp'"), "{e}");
        let e = rclick_core::testing::build("ControlSocket(tcp)", &r, false).unwrap_err();
        assert!(e.contains("PORT"), "{e}");
        assert_eq!(parse_port("41900+").as_deref(), Some("41900+"));
        assert_eq!(parse_port("0+"), None);
    }

    #[test]
    fn serves_handlers_over_tcp_and_stops_the_router() {
        let r = build(
            "cs :: ControlSocket(tcp, 42900+, LOCALHOST true);\n\
             Idle -> s :: Switch(0) -> Idle; s[1] -> Idle;",
        );
        let port: u16 = r.read_handler("cs.port", "").unwrap().parse().unwrap();
        let client = std::thread::spawn(move || {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(b"read s.switch\nwrite s.switch 1\nread 3.switch\nread cs.port\nread s.nope\nwrite stop true\n")
                .unwrap();
            let mut out = Vec::new();
            let _ = s.read_to_end(&mut out);
            String::from_utf8_lossy(&out).into_owned()
        });
        r.run();
        drop(r);
        let out = client.join().unwrap();
        assert_eq!(
            out,
            format!(
                "Click::ControlSocket/1.3\r\n\
                 200 Read handler 's.switch' OK\r\nDATA 1\r\n0\
                 200 Write handler 's.switch' OK\r\n\
                 200 Read handler '3.switch' OK\r\nDATA 1\r\n1\
                 200 Read handler 'cs.port' OK\r\nDATA {}\r\n{port}\
                 511 No handler named 's.nope'\r\n\
                 200 Write handler 'stop' OK\r\n",
                port.to_string().len()
            )
        );
    }

    /// With TOKEN, a client must AUTH first: without it the write is
    /// refused and the router keeps running; with it the write runs.
    #[test]
    fn token_guards_a_tcp_control_socket() {
        let r = build("cs :: ControlSocket(tcp, 45900+, TOKEN \"k y\");");
        let port: u16 = r.read_handler("cs.port", "").unwrap().parse().unwrap();
        let talk = move |text: &str| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(text.as_bytes()).unwrap();
            let mut out = Vec::new();
            let _ = s.read_to_end(&mut out);
            String::from_utf8_lossy(&out).into_owned()
        };
        // One client after the other while the router runs; the second
        // stops it.
        let client =
            std::thread::spawn(move || (talk("write stop\n"), talk("auth k y\nwrite stop\n")));
        r.run();
        drop(r);
        let (bad, good) = client.join().unwrap();
        assert!(
            bad.ends_with("530 Authentication required (AUTH TOKEN)\r\n"),
            "{bad}"
        );
        assert!(good.contains("200 Authenticated\r\n"), "{good}");
        assert!(good.ends_with("200 Write handler 'stop' OK\r\n"), "{good}");
    }

    /// An idle ControlSocket lets the router sleep: the listening socket
    /// wakes it when a client connects (it used to poll every millisecond).
    #[test]
    fn idle_control_socket_sleeps_until_a_client_connects() {
        let r = build("cs :: ControlSocket(tcp, 43900+, LOCALHOST true);");
        let port: u16 = r.read_handler("cs.port", "").unwrap().parse().unwrap();
        let client = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.write_all(b"write stop\n").unwrap();
            let mut out = Vec::new();
            let _ = s.read_to_end(&mut out);
            String::from_utf8_lossy(&out).into_owned()
        });
        let switches = || {
            let st = std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default();
            st.lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        let before = switches();
        r.run();
        let sleeps = switches() - before;
        drop(r);
        let out = client.join().unwrap();
        assert!(out.ends_with("200 Write handler 'stop' OK\r\n"), "{out}");
        assert!(sleeps < 50, "the router slept {sleeps} times in 300 ms");
    }

    fn local_address(r: &rclick_core::Router) -> std::net::SocketAddr {
        let e = r.find("cs").unwrap();
        r.with_element(e, |el| {
            let cs = el.downcast_ref::<ControlSocket>().unwrap();
            match &cs.listener {
                Some(Listener::Tcp(l)) => l.local_addr().unwrap(),
                _ => panic!("no TCP listener"),
            }
        })
        .unwrap()
    }

    /// Without LOCALHOST a TCP ControlSocket listens on the loopback
    /// address only (it used to listen on every address); `LOCALHOST
    /// false` asks for every address.
    #[test]
    fn tcp_listens_on_loopback_unless_told_otherwise() {
        let r = build("cs :: ControlSocket(tcp, 44900+);");
        assert_eq!(local_address(&r).ip(), Ipv4Addr::LOCALHOST);
        drop(r);
        let r = build("cs :: ControlSocket(tcp, 44900+, LOCALHOST false);");
        assert_eq!(local_address(&r).ip(), Ipv4Addr::UNSPECIFIED);
    }

    /// A hot swap to a configuration with the same ControlSocket takes
    /// over its socket (it used to fail: "bind: Address already in use").
    #[test]
    fn hot_swap_takes_over_the_socket() {
        let parse = rclick_lang::Options {
            file_name: "config".into(),
            defines: vec![],
        };
        let opts = rclick_core::BuildOptions {
            threads: 1,
            capture_log: true,
            ..Default::default()
        };
        let h = rclick_core::HotConfig::new(parse.clone(), opts, None);
        let reg = Arc::new(registry());
        // A port free now (a fixed one may be held by another test run on
        // the same machine).
        let free = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap();
        let text = format!("cs :: ControlSocket(tcp, {free});");
        let text = text.as_str();
        let old = h
            .build(
                rclick_lang::parse(text, &parse).unwrap(),
                text,
                reg.clone(),
                None,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        let port = old.read_handler("cs.port", "").unwrap();
        let new = h
            .build(
                rclick_lang::parse(text, &parse).unwrap(),
                text,
                reg,
                Some(old.clone()),
            )
            .unwrap_or_else(|e| panic!("{e}"));
        rclick_core::router::hotswap::transfer_state(&old, &new);
        assert_eq!(new.read_handler("cs.port", "").unwrap(), port);
        assert_eq!(local_address(&new).port().to_string(), port);
    }

    /// A Unix control socket is created for its owner only.
    #[test]
    fn unix_socket_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let path = std::env::temp_dir().join(format!("rclick-cs-mode-{}.sock", std::process::id()));
        let r = build(&format!(
            "cs :: ControlSocket(unix, \"{}\");",
            path.display()
        ));
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(r);
    }

    #[test]
    fn unix_socket_file_is_removed() {
        let path = std::env::temp_dir().join(format!("rclick-cs-{}.sock", std::process::id()));
        let p = path.display().to_string();
        let r = build(&format!("cs :: ControlSocket(unix, \"{p}\");"));
        assert_eq!(r.read_handler("cs.filename", "").unwrap(), p);
        let client = std::thread::spawn(move || {
            let s = UnixStream::connect(&path).unwrap();
            let mut w = s.try_clone().unwrap();
            let mut lines = BufReader::new(s).lines();
            let hello = lines.next().unwrap().unwrap();
            w.write_all(b"checkread cs.filename\r\nquit\r\n").unwrap();
            let a = lines.next().unwrap().unwrap();
            let b = lines.next().unwrap().unwrap();
            w.write_all(b"").unwrap();
            let s2 = UnixStream::connect(&path).unwrap();
            let mut w2 = s2.try_clone().unwrap();
            w2.write_all(b"write stop\n").unwrap();
            let mut out = String::new();
            let _ = BufReader::new(s2).read_to_string(&mut out);
            (hello, a, b, out, path)
        });
        r.run();
        drop(r);
        let (hello, a, b, out, path) = client.join().unwrap();
        assert_eq!(hello, "Click::ControlSocket/1.3");
        assert_eq!(a, "200 Read handler 'cs.filename' OK");
        assert_eq!(b, "200 Goodbye!");
        assert!(out.ends_with("200 Write handler 'stop' OK\r\n"), "{out}");
        assert!(!path.exists());
    }
}
