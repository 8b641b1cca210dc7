//! Handler calls with ControlSocket's codes and messages.
//!
//! A call runs ControlSocket's own protocol code: one `READDATA` or
//! `WRITEDATA` command through a [`Session`], whose reply lines are read
//! back into a [`Reply`]. So an HTTP client and a ControlSocket client get
//! the same codes (510 no element, 511 no handler, 530 permission, 520
//! write error, 590 read error...) and the same sentences.

use rclick_elements_userlevel::control::protocol::{Handlers, Progress, Session};
use serde::Serialize;

/// Reply codes: ControlSocket's, and one of HTTPServer's own.
pub mod code {
    pub use rclick_elements_userlevel::control::protocol::code::*;
    /// Too many requests wait for the router (HTTP 503).
    pub const BUSY: u16 = 541;
}

/// A handler call's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reply {
    /// ControlSocket's reply code.
    pub code: u16,
    /// Its message lines, joined by newlines.
    pub message: String,
    /// A read handler's value (empty otherwise).
    pub value: String,
}

impl Reply {
    /// Success.
    pub fn ok(message: &str, value: String) -> Reply {
        Reply {
            code: code::OK,
            message: message.to_string(),
            value,
        }
    }

    /// A failure.
    pub fn error(code: u16, message: &str) -> Reply {
        Reply {
            code,
            message: message.to_string(),
            value: String::new(),
        }
    }

    /// ControlSocket's 540.
    pub fn no_router() -> Reply {
        Reply::error(code::NO_ROUTER, "No router installed")
    }

    /// Whether the call succeeded (200 or 220).
    pub fn is_ok(&self) -> bool {
        self.code / 100 == 2
    }

    /// The HTTP status for this reply.
    pub fn status(&self) -> u16 {
        match self.code {
            code::OK | code::OK_WARNING => 200,
            code::SYNTAX | code::HANDLER_ERROR => 400,
            code::PERMISSION => 403,
            code::NO_SUCH_ELEMENT | code::NO_SUCH_HANDLER => 404,
            code::DATA_TOO_BIG => 413,
            code::UNIMPLEMENTED => 501,
            code::NO_ROUTER | code::BUSY => 503,
            _ => 500,
        }
    }
}

/// Whether `name` can be a handler name on a protocol line (no spaces or
/// control characters, not empty, bounded).
fn plausible_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 1024 && name.bytes().all(|b| b > b' ' && b != 0x7f)
}

/// Calls handler `name` through ControlSocket's protocol.
pub fn call(h: &mut dyn Handlers, write: bool, name: &str, data: &str, read_only: bool) -> Reply {
    if !plausible_name(name) {
        return Reply::error(
            code::SYNTAX,
            &format!("Bad handler name '{}'", printable(name)),
        );
    }
    let mut s = Session::new();
    s.output.clear();
    let verb = if write { "WRITEDATA" } else { "READDATA" };
    s.receive(format!("{verb} {name} {}\r\n", data.len()).as_bytes());
    s.receive(data.as_bytes());
    if s.step(h, read_only) != Progress::Ran {
        return Reply::error(code::SYNTAX, "Syntax error");
    }
    parse_reply(&s.output)
}

fn printable(s: &str) -> String {
    rclick_elements_userlevel::control::protocol::printable(
        &s.chars().take(100).collect::<String>(),
    )
}

/// Reads one ControlSocket reply: lines `CODE-text` then `CODE text`,
/// then maybe `DATA N` and N bytes.
pub fn parse_reply(out: &[u8]) -> Reply {
    let mut code = code::UNSPECIFIED;
    let mut lines = Vec::new();
    let mut value = String::new();
    let mut rest = out;
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let line = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 2..];
        if let Some(n) = line.strip_prefix("DATA ") {
            let n = n.trim().parse::<usize>().unwrap_or(0).min(rest.len());
            value = String::from_utf8_lossy(&rest[..n]).into_owned();
            rest = &rest[n..];
            continue;
        }
        if line.len() >= 4 {
            if let Ok(c) = line[..3].parse::<u16>() {
                code = c;
                lines.push(line[4..].to_string());
            }
        }
    }
    Reply {
        code,
        message: lines.join("\n"),
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::HandlerFlags;
    use rclick_elements_userlevel::control::protocol::Lookup;

    /// `c.count` reads 5, `c.reset` is write-only, `s.switch` is
    /// read-write and refuses values other than digits.
    struct Fake {
        switch: String,
    }

    impl Handlers for Fake {
        fn lookup(&mut self, name: &str) -> Lookup {
            let rw = |read, write| HandlerFlags {
                read,
                write,
                ..Default::default()
            };
            match name {
                "c.count" => Lookup::Found(name.into(), rw(true, false)),
                "c.reset" => Lookup::Found(name.into(), rw(false, true)),
                "s.switch" => Lookup::Found(name.into(), rw(true, true)),
                "version" => Lookup::Found(name.into(), rw(true, false)),
                n if n.starts_with("c.") || n.starts_with("s.") => Lookup::NoHandler,
                n => Lookup::NoElement(n.split('.').next().unwrap_or("").into()),
            }
        }
        fn read(&mut self, spec: &str, _param: &str) -> Result<String, String> {
            Ok(match spec {
                "c.count" => "5\n".into(),
                "s.switch" => self.switch.clone(),
                _ => "1.0".into(),
            })
        }
        fn write(&mut self, _spec: &str, value: &str) -> Result<(), String> {
            if value.bytes().all(|b| b.is_ascii_digit()) && !value.is_empty() {
                self.switch = value.into();
                Ok(())
            } else {
                Err("expected integer\nsecond line".into())
            }
        }
        fn llrpc(&mut self, _: &str, _: u32, _: &mut [u8]) -> Result<(), i32> {
            Err(22)
        }
    }

    #[test]
    fn replies_carry_control_socket_codes_and_messages() {
        let mut f = Fake { switch: "0".into() };
        let r = call(&mut f, false, "c.count", "", false);
        assert_eq!(r, Reply::ok("Read handler 'c.count' OK", "5\n".into()));
        let r = call(&mut f, false, "c.nope", "", false);
        assert_eq!(
            (r.code, r.message.as_str()),
            (511, "No handler named 'c.nope'")
        );
        assert_eq!(r.status(), 404);
        let r = call(&mut f, false, "x.count", "", false);
        assert_eq!((r.code, r.message.as_str()), (510, "No element named 'x'"));
        let r = call(&mut f, false, "c.reset", "", false);
        assert_eq!(
            (r.code, r.message.as_str()),
            (530, "Handler 'c.reset' write-only")
        );
        assert_eq!(r.status(), 403);
        let r = call(&mut f, true, "s.switch", "1", true);
        assert_eq!(
            (r.code, r.message.as_str()),
            (530, "Permission denied for 's.switch'")
        );
        let r = call(&mut f, true, "s.switch", "oops", false);
        assert_eq!(r.code, 520);
        assert_eq!(
            r.message,
            "Write handler 's.switch' error:\nexpected integer\nsecond line"
        );
        assert_eq!(r.status(), 400);
        let r = call(&mut f, true, "s.switch", "1", false);
        assert_eq!(
            (r.code, r.message.as_str()),
            (200, "Write handler 's.switch' OK")
        );
        assert_eq!(call(&mut f, false, "s.switch", "", false).value, "1");
    }

    #[test]
    fn values_with_line_breaks_and_odd_names_are_safe() {
        let mut f = Fake { switch: "0".into() };
        // A value with CR LF is data, not a second command.
        let r = call(&mut f, true, "s.switch", "1\r\nwrite s.switch 2", false);
        assert_eq!(r.code, 520);
        assert_eq!(f.switch, "0");
        for bad in ["", "c.count extra", "c.count\r\nread c.count", "a\u{7f}"] {
            let r = call(&mut f, false, bad, "", false);
            assert_eq!(r.code, 500, "{bad:?}");
        }
        let long = "x".repeat(5000);
        assert_eq!(call(&mut f, false, &long, "", false).code, 500);
    }

    #[test]
    fn parses_multi_line_replies_and_data() {
        let r = parse_reply(b"520-Write handler 'a' error:\r\n520 bad\r\n");
        assert_eq!(
            (r.code, r.message.as_str()),
            (520, "Write handler 'a' error:\nbad")
        );
        let r = parse_reply(b"200 Read handler 'a' OK\r\nDATA 4\r\nab\r\n");
        assert_eq!(r.value, "ab\r\n");
        // A short DATA block is cut, not a panic.
        let r = parse_reply(b"200 x\r\nDATA 99\r\nab");
        assert_eq!(r.value, "ab");
        assert_eq!(parse_reply(b"garbage").code, 590);
    }
}
