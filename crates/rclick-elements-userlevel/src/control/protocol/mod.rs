//! The ControlSocket text protocol (Click's `Click::ControlSocket/1.3`),
//! independent of sockets: a [`Session`] holds one connection's input and
//! output bytes and runs commands against a [`Handlers`] back end, so the
//! protocol can be tested without a router or a socket.
//!
//! By job: this file holds the protocol's types and a session's framing
//! (lines, `...DATA` and `...UNTIL` payloads, bounds, authentication);
//! `commands.rs` runs each command against the [`Handlers`]; `words.rs`
//! holds the text helpers (word splitting, numbers, Click's `printable`).

mod commands;
mod words;

use words::{is_space, same_secret};
pub use words::{printable, strerror};

use rclick_core::HandlerFlags;

/// The protocol version in the greeting line.
pub const PROTOCOL_VERSION: &str = "1.3";

/// Reply codes.
pub mod code {
    /// Success.
    pub const OK: u16 = 200;
    /// Success, with warnings.
    pub const OK_WARNING: u16 = 220;
    /// Syntax error.
    pub const SYNTAX: u16 = 500;
    /// Unimplemented command.
    pub const UNIMPLEMENTED: u16 = 501;
    /// No such element.
    pub const NO_SUCH_ELEMENT: u16 = 510;
    /// No such handler.
    pub const NO_SUCH_HANDLER: u16 = 511;
    /// Handler error.
    pub const HANDLER_ERROR: u16 = 520;
    /// Data too big.
    pub const DATA_TOO_BIG: u16 = 521;
    /// LLRPC error.
    pub const LLRPC_ERROR: u16 = 522;
    /// Permission denied.
    pub const PERMISSION: u16 = 530;
    /// No router installed.
    pub const NO_ROUTER: u16 = 540;
    /// Unspecified error (a read handler failed).
    pub const UNSPECIFIED: u16 = 590;
}

/// Longest command line kept while waiting for its end; a longer one is
/// answered `500 Command line too long` and the connection's input closed.
pub const MAX_LINE: usize = 64 << 10;
/// Most data a `READDATA`, `WRITEDATA`, `SETDATA` or `LLRPC` command may
/// announce; more is answered `521` and its bytes are skipped unread
/// (never buffered).
pub const MAX_DATA: usize = 64 << 20;
/// Most data `READUNTIL`/`WRITEUNTIL` may gather before its terminator
/// line; more is answered `521` and the connection's input closed (the
/// stream cannot be resynchronised). Small because each new chunk is
/// searched from the start: use `WRITEDATA` for big values.
pub const MAX_UNTIL_DATA: usize = 1 << 20;

/// What a handler name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// A visible handler: its router-level name (`e.h` or `h`) and flags.
    Found(String, HandlerFlags),
    /// No element has this name (nor this 1-based number).
    NoElement(String),
    /// The element exists but has no such visible handler.
    NoHandler,
}

/// The router as ControlSocket sees it.
pub trait Handlers {
    /// Resolves `element.handler` or a global `handler` name, already
    /// stripped of a leading `.` or `0.`; elements may be given by 1-based
    /// number. Private handlers count as missing.
    fn lookup(&mut self, name: &str) -> Lookup;
    /// Calls a read handler found by `lookup`.
    fn read(&mut self, spec: &str, param: &str) -> Result<String, String>;
    /// Calls a write handler found by `lookup`.
    fn write(&mut self, spec: &str, value: &str) -> Result<(), String>;
    /// Calls LLRPC `command` on the element whose `name` handler is `spec`.
    fn llrpc(&mut self, spec: &str, command: u32, data: &mut [u8]) -> Result<(), i32>;
}

/// Whether a command ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// No complete command was waiting.
    Idle,
    /// One command ran.
    Ran,
    /// A command waits for more input (its data is incomplete).
    Blocked,
}

/// One connection's protocol state.
#[derive(Debug, Default)]
pub struct Session {
    /// Bytes received and not yet consumed (from `inpos`).
    pub input: Vec<u8>,
    /// Where unconsumed input starts.
    pub inpos: usize,
    /// Bytes waiting to be sent.
    pub output: Vec<u8>,
    /// The peer will send no more (end of stream, error, or QUIT).
    pub in_closed: bool,
    /// Nothing more can be sent.
    pub out_closed: bool,
    /// Bytes still to skip of a too big `...DATA` command's data.
    pub discard: usize,
    /// The secret a client must give with `AUTH` before any other command
    /// (ControlSocket's TOKEN); `None`: no authentication.
    pub token: Option<String>,
    /// Whether `AUTH` gave the token.
    pub authenticated: bool,
}

/// A command's outcome: run, or wait for more input.
enum Cmd {
    Done,
    NeedMore,
}

impl Session {
    /// A new connection: the greeting is queued.
    pub fn new() -> Session {
        let mut s = Session::default();
        s.output
            .extend_from_slice(format!("Click::ControlSocket/{PROTOCOL_VERSION}\r\n").as_bytes());
        s
    }

    /// Adds received bytes.
    pub fn receive(&mut self, mut bytes: &[u8]) {
        if self.discard > 0 {
            let k = self.discard.min(bytes.len());
            self.discard -= k;
            bytes = &bytes[k..];
        }
        if self.inpos > 0 && self.inpos == self.input.len() {
            self.input.clear();
            self.inpos = 0;
        }
        self.input.extend_from_slice(bytes);
    }

    /// Unconsumed input.
    pub fn pending_input(&self) -> &[u8] {
        &self.input[self.inpos..]
    }

    /// Whether the connection is finished: the peer closed, everything
    /// was consumed and sent, or nothing more can be sent.
    pub fn finished(&self) -> bool {
        self.out_closed
            || (self.in_closed && self.pending_input().is_empty() && self.output.is_empty())
    }

    /// Whether a command line is complete (or the input is closed).
    pub fn has_command(&self) -> bool {
        let rest = self.pending_input();
        !rest.is_empty() && (self.in_closed || rest.iter().any(|&b| b == b'\r' || b == b'\n'))
    }

    fn message(&mut self, code: u16, text: &str, more: bool) {
        if self.out_closed {
            return;
        }
        let sep = if more { '-' } else { ' ' };
        self.output
            .extend_from_slice(format!("{code}{sep}{}\r\n", printable(text)).as_bytes());
    }

    /// Click's `transfer_messages`: `head` (with `:` when messages
    /// follow), then each message line, all with `code`.
    fn messages(&mut self, code: u16, head: &str, msgs: &str) {
        let lines: Vec<&str> = msgs.lines().collect();
        if !head.is_empty() {
            if lines.is_empty() {
                self.message(code, head, false);
            } else {
                self.message(code, &format!("{head}:"), true);
            }
        }
        for (i, l) in lines.iter().enumerate() {
            self.message(code, l, i + 1 < lines.len());
        }
    }

    fn data(&mut self, bytes: &[u8]) {
        if self.out_closed {
            return;
        }
        self.output
            .extend_from_slice(format!("DATA {}\r\n", bytes.len()).as_bytes());
        self.output.extend_from_slice(bytes);
    }

    /// `AUTH TOKEN` (only with a token; without one it is an unknown
    /// command, as in Click): 200 when TOKEN (the rest of the line, spaces
    /// around it ignored) is the session's token; else 530 and the input is
    /// closed (one guess per connection).
    fn auth(&mut self, rest: &[u8]) {
        let token = self.token.as_deref().unwrap_or_default();
        if same_secret(token.as_bytes(), rest.trim_ascii()) {
            self.authenticated = true;
            self.message(code::OK, "Authenticated", false);
        } else {
            self.message(code::PERMISSION, "Wrong token", false);
            self.close_input();
        }
    }

    /// Runs at most one command.
    pub fn step(&mut self, h: &mut dyn Handlers, read_only: bool) -> Progress {
        let rest = self.pending_input();
        if rest.is_empty() {
            return Progress::Idle;
        }
        let Some(mut end) = rest.iter().position(|&b| b == b'\r' || b == b'\n') else {
            if rest.len() > MAX_LINE {
                self.message(code::SYNTAX, "Command line too long", false);
                self.close_input();
                return Progress::Ran;
            }
            if !self.in_closed {
                return Progress::Blocked;
            }
            let line = rest.to_vec();
            let old = self.inpos;
            self.inpos = self.input.len();
            return match self.command(&line, h, read_only) {
                Cmd::Done => Progress::Ran,
                Cmd::NeedMore => {
                    self.inpos = old;
                    Progress::Blocked
                }
            };
        };
        let line = rest[..end].to_vec();
        if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
            end += 2;
        } else {
            end += 1;
        }
        let old = self.inpos;
        self.inpos += end;
        match self.command(&line, h, read_only) {
            Cmd::Done => {
                if self.inpos == self.input.len() {
                    self.input.clear();
                    self.inpos = 0;
                }
                Progress::Ran
            }
            Cmd::NeedMore => {
                self.inpos = old;
                Progress::Blocked
            }
        }
    }

    /// Reads no more input (after an error the stream cannot recover
    /// from); replies already queued are still sent.
    fn close_input(&mut self) {
        self.in_closed = true;
        self.input.clear();
        self.inpos = 0;
        self.discard = 0;
    }

    /// Takes `n` bytes of input following the command line; more than
    /// [`MAX_DATA`] are answered 521 and skipped as they arrive.
    fn take_data(&mut self, n: usize, what: &str) -> Result<Vec<u8>, Cmd> {
        if n > MAX_DATA {
            let k = n.min(self.pending_input().len());
            self.inpos += k;
            self.discard = n - k;
            self.message(
                code::DATA_TOO_BIG,
                &format!("Data too large for {what} ({n} bytes, at most {MAX_DATA})"),
                false,
            );
            return Err(Cmd::Done);
        }
        if self.pending_input().len() < n {
            if self.in_closed {
                self.message(code::SYNTAX, "Not enough data", false);
                return Err(Cmd::Done);
            }
            return Err(Cmd::NeedMore);
        }
        let d = self.input[self.inpos..self.inpos + n].to_vec();
        self.inpos += n;
        Ok(d)
    }

    /// Takes input lines up to one equal to `until` (trailing spaces
    /// ignored); the terminator line is consumed, not returned.
    fn take_until(&mut self, until: &[u8]) -> Result<Vec<u8>, Cmd> {
        let buf = &self.input[self.inpos..];
        let mut s = 0;
        loop {
            let line_begin = s;
            let mut line_end = s;
            while s < buf.len() && buf[s] != b'\n' && buf[s] != b'\r' {
                if !is_space(buf[s]) {
                    line_end = s + 1;
                }
                s += 1;
            }
            if s == buf.len() {
                if buf.len() > MAX_UNTIL_DATA {
                    self.message(
                        code::DATA_TOO_BIG,
                        &format!("Data too large (no terminator in {MAX_UNTIL_DATA} bytes)"),
                        false,
                    );
                    self.close_input();
                    return Err(Cmd::Done);
                }
                if self.in_closed {
                    self.message(code::SYNTAX, "Not enough data", false);
                    return Err(Cmd::Done);
                }
                return Err(Cmd::NeedMore);
            }
            if buf[s] == b'\r' && s + 1 < buf.len() && buf[s + 1] == b'\n' {
                s += 2;
            } else {
                s += 1;
            }
            if &buf[line_begin..line_end] == until {
                let data = buf[..line_begin].to_vec();
                self.inpos += s;
                return Ok(data);
            }
        }
    }
}

/// A fake router and a driver for the tests of every part.
#[cfg(test)]
pub(super) mod fake {
    use super::*;

    /// A fake router: `s.switch` (rw), `s.secret` (private), `w.only`
    /// (write-only), global `version`; element 1 is `s`.
    #[derive(Default)]
    pub(crate) struct Fake {
        pub(crate) switch: i32,
        pub(crate) writes: Vec<(String, String)>,
    }

    impl Handlers for Fake {
        fn lookup(&mut self, name: &str) -> Lookup {
            let (e, hname) = match name.split_once('.') {
                Some((e, h)) => (Some(if e == "1" { "s" } else { e }), h),
                None => (None, name),
            };
            let f = |r, w| HandlerFlags {
                read: r,
                write: w,
                ..HandlerFlags::default()
            };
            match (e, hname) {
                (Some("s"), "switch") => Lookup::Found("s.switch".into(), f(true, true)),
                (Some("s"), "name") => Lookup::Found("s.name".into(), f(true, false)),
                (Some("s"), _) => Lookup::NoHandler,
                (Some("w"), "only") => Lookup::Found("w.only".into(), f(false, true)),
                (Some("w"), _) => Lookup::NoHandler,
                (Some(e), _) => Lookup::NoElement(e.into()),
                (None, "version") => Lookup::Found("version".into(), f(true, false)),
                (None, _) => Lookup::NoHandler,
            }
        }
        fn read(&mut self, spec: &str, param: &str) -> Result<String, String> {
            match spec {
                "s.switch" if param.is_empty() => Ok(self.switch.to_string()),
                "s.switch" => Err("no parameters\nat all".into()),
                _ => Ok("1.0".into()),
            }
        }
        fn write(&mut self, spec: &str, value: &str) -> Result<(), String> {
            self.writes.push((spec.into(), value.into()));
            match value.trim().parse() {
                Ok(n) if spec == "s.switch" => {
                    self.switch = n;
                    Ok(())
                }
                _ if spec == "s.switch" => Err("expected integer".into()),
                _ => Ok(()),
            }
        }
        fn llrpc(&mut self, spec: &str, command: u32, data: &mut [u8]) -> Result<(), i32> {
            assert_eq!(spec, "s.name");
            match command {
                0x4004_C005 => {
                    data.copy_from_slice(&self.switch.to_ne_bytes());
                    Ok(())
                }
                0x8004_4006 => {
                    let mut b = [0u8; 4];
                    b.copy_from_slice(data);
                    self.switch = i32::from_ne_bytes(b);
                    Ok(())
                }
                _ => Err(22),
            }
        }
    }

    pub(crate) fn run(input: &[u8], read_only: bool) -> (String, Fake) {
        let mut s = Session::new();
        let mut f = Fake::default();
        s.receive(input);
        s.in_closed = true;
        while s.step(&mut f, read_only) == Progress::Ran {}
        (String::from_utf8_lossy(&s.output).into_owned(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::fake::{run, Fake};
    use super::*;

    #[test]
    fn data_and_until_framing() {
        let (out, f) = run(
            b"writedata s.switch 2\n12writeuntil w.only END\nline 1\nline 2\nEND  \nREADDATA s.switch x\n",
            false,
        );
        assert_eq!(
            f.writes[1],
            ("w.only".to_string(), "line 1\nline 2\n".to_string())
        );
        assert!(out.contains("200 Write handler 's.switch' OK\r\n"), "{out}");
        assert!(out.contains("200 Write handler 'w.only' OK\r\n"), "{out}");
        assert!(out.ends_with("500 Syntax error in 'READDATA'\r\n"), "{out}");
        assert_eq!(f.switch, 12);
    }

    #[test]
    fn incomplete_data_waits_for_more() {
        let mut s = Session::new();
        let mut f = Fake::default();
        s.receive(b"writedata s.switch 3\n4");
        assert_eq!(s.step(&mut f, false), Progress::Blocked);
        assert_eq!(s.pending_input(), b"writedata s.switch 3\n4");
        s.receive(b"2");
        assert_eq!(s.step(&mut f, false), Progress::Blocked);
        s.receive(b"1read s.switch");
        assert_eq!(s.step(&mut f, false), Progress::Ran);
        assert_eq!(f.switch, 421);
        // An unterminated line waits, unless the input is closed.
        assert_eq!(s.step(&mut f, false), Progress::Blocked);
        s.in_closed = true;
        assert_eq!(s.step(&mut f, false), Progress::Ran);
        assert!(s.finished() || !s.output.is_empty());
        let out = String::from_utf8_lossy(&s.output).into_owned();
        assert!(out.ends_with("DATA 3\r\n421"), "{out}");
    }

    /// A `WRITEDATA` announcing more than `MAX_DATA` is answered 521 and
    /// its bytes are skipped as they arrive, never kept; the command after
    /// them runs.
    #[test]
    fn token_is_required_before_any_command() {
        let run = |input: &str| {
            let mut s = Session::new();
            s.token = Some("s3cret".into());
            let mut f = Fake::default();
            s.receive(input.as_bytes());
            s.in_closed = true;
            while s.step(&mut f, false) == Progress::Ran {}
            (String::from_utf8_lossy(&s.output).into_owned(), f.switch)
        };
        let (out, sw) = run("write s.switch 5\nwrite s.switch 6\n");
        assert!(
            out.ends_with("530 Authentication required (AUTH TOKEN)\r\n"),
            "{out}"
        );
        assert_eq!(sw, 0);
        let (out, sw) = run("AUTH wrong\nwrite s.switch 5\n");
        assert!(out.ends_with("530 Wrong token\r\n"), "{out}");
        assert_eq!(sw, 0);
        let (out, sw) = run("auth  s3cret \nwrite s.switch 5\n");
        assert!(out.contains("200 Authenticated\r\n"), "{out}");
        assert_eq!(sw, 5);
        // Without a token, AUTH is an unknown command, as in Click.
        let mut s = Session::new();
        let mut f = Fake::default();
        s.receive(b"AUTH x\n");
        s.step(&mut f, false);
        assert!(String::from_utf8_lossy(&s.output).contains("501"));
    }

    #[test]
    fn too_big_data_is_refused_and_skipped() {
        let mut s = Session::new();
        let mut f = Fake::default();
        let n = MAX_DATA + 10;
        s.receive(format!("writedata s.switch {n}\n").as_bytes());
        s.receive(&[b'x'; 1000]);
        assert_eq!(s.step(&mut f, false), Progress::Ran);
        let out = String::from_utf8_lossy(&s.output).into_owned();
        assert!(
            out.ends_with(&format!(
                "521 Data too large for handler 's.switch' ({n} bytes, at most {MAX_DATA})\r\n"
            )),
            "{out}"
        );
        let chunk = vec![b'y'; 1 << 20];
        let mut left = n - 1000;
        while left > 0 {
            let k = left.min(chunk.len());
            s.receive(&chunk[..k]);
            left -= k;
            assert!(s.input.len() < 4096, "kept {}", s.input.len());
        }
        s.receive(b"write s.switch 5\n");
        s.in_closed = true;
        while s.step(&mut f, false) == Progress::Ran {}
        assert_eq!(f.switch, 5);
        assert!(f.writes.iter().all(|(_, v)| v.len() < 10));
    }

    /// `WRITEUNTIL` without its terminator and a command line without its
    /// end stop at their bounds: 521 / 500, and no more input is taken.
    #[test]
    fn unterminated_data_and_lines_are_bounded() {
        let mut s = Session::new();
        let mut f = Fake::default();
        s.receive(b"writeuntil s.switch END\n");
        let chunk = vec![b'z'; 64 << 10];
        let mut sent = 0;
        while !s.in_closed && sent < 4 * MAX_UNTIL_DATA {
            s.receive(&chunk);
            sent += chunk.len();
            s.step(&mut f, false);
        }
        assert!(
            s.in_closed && sent <= MAX_UNTIL_DATA + 2 * chunk.len(),
            "{sent}"
        );
        assert!(String::from_utf8_lossy(&s.output).contains("\r\n521 Data too large"));
        assert!(f.writes.is_empty());

        let mut s = Session::new();
        let mut sent = 0;
        while !s.in_closed && sent < 4 * MAX_LINE {
            s.receive(&[b'r'; 1000]);
            sent += 1000;
            s.step(&mut f, false);
        }
        assert!(s.in_closed && sent <= MAX_LINE + 1000, "{sent}");
        assert!(String::from_utf8_lossy(&s.output).ends_with("500 Command line too long\r\n"));
    }
}
