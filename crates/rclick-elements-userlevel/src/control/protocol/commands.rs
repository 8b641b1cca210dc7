//! Running one ControlSocket command against the router's [`Handlers`]:
//! `READ`, `WRITE` and their `DATA`/`UNTIL` forms, `CHECKREAD`,
//! `CHECKWRITE`, `LLRPC`, `HELP`, `QUIT`, with Click's reply codes and
//! texts. The framing that gathers a command's line and data is the
//! session's (`mod.rs`).

use rclick_core::router::llrpc::{ioc_size, IOC_FLAT, IOC_IN, IOC_OUT};
use rclick_core::HandlerFlags;

use super::words::{canonical, parse_hex, parse_len, strerror, words};
use super::{code, Cmd, Handlers, Lookup, Session};

impl Session {
    /// `530 Permission denied for 'NAME'` (a write or LLRPC to a
    /// READONLY socket).
    fn permission_denied(&mut self, name: &str) {
        self.message(
            code::PERMISSION,
            &format!("Permission denied for '{name}'"),
            false,
        );
    }

    pub(super) fn command(&mut self, line: &[u8], h: &mut dyn Handlers, read_only: bool) -> Cmd {
        let w = words(line);
        if w.is_empty() {
            return Cmd::Done;
        }
        let word = |i: usize| String::from_utf8_lossy(&line[w[i].0..w[i].1]).into_owned();
        let command = word(0).to_ascii_uppercase();
        if command == "AUTH" && self.token.is_some() {
            self.auth(line.get(w[0].1..).unwrap_or(&[]));
            return Cmd::Done;
        }
        if self.token.is_some() && !self.authenticated && command != "QUIT" {
            // Nothing runs before AUTH; the connection's input is closed
            // so that a client that does not know the token cannot go on.
            self.message(
                code::PERMISSION,
                "Authentication required (AUTH TOKEN)",
                false,
            );
            self.close_input();
            return Cmd::Done;
        }
        let rest_from = |i: usize| -> String {
            if w.len() > i {
                String::from_utf8_lossy(&line[w[i].0..w[w.len() - 1].1]).into_owned()
            } else {
                String::new()
            }
        };
        match command.as_str() {
            "READ" | "GET" | "WRITE" | "SET" => {
                if w.len() < 2 {
                    self.message(code::SYNTAX, "Wrong number of arguments", false);
                    return Cmd::Done;
                }
                let data = rest_from(2);
                if command.starts_with('R') || command.starts_with('G') {
                    self.read_command(h, &word(1), &data);
                } else {
                    self.write_command(h, &word(1), &data, read_only);
                }
            }
            "READDATA" | "WRITEDATA" | "SETDATA" => {
                if w.len() != 3 {
                    self.message(code::SYNTAX, "Wrong number of arguments", false);
                    return Cmd::Done;
                }
                let Some(n) = parse_len(&line[w[2].0..w[2].1]) else {
                    self.message(code::SYNTAX, &format!("Syntax error in '{command}'"), false);
                    return Cmd::Done;
                };
                let what = format!("handler '{}'", word(1));
                let data = match self.take_data(n, &what) {
                    Ok(d) => String::from_utf8_lossy(&d).into_owned(),
                    Err(c) => return c,
                };
                self.read_or_write(h, command.starts_with('R'), &word(1), &data, read_only);
            }
            "READUNTIL" | "WRITEUNTIL" => {
                if w.len() < 2 {
                    self.message(code::SYNTAX, "Wrong number of arguments", false);
                    return Cmd::Done;
                }
                let until = rest_from(2);
                let data = match self.take_until(until.as_bytes()) {
                    Ok(d) => String::from_utf8_lossy(&d).into_owned(),
                    Err(c) => return c,
                };
                self.read_or_write(h, command.starts_with('R'), &word(1), &data, read_only);
            }
            "CHECKREAD" | "CHECKWRITE" => {
                if w.len() != 2 {
                    self.message(code::SYNTAX, "Wrong number of arguments", false);
                    return Cmd::Done;
                }
                self.check_command(h, &word(1), command == "CHECKWRITE", read_only);
            }
            "LLRPC" => {
                if w.len() != 2 && w.len() != 3 {
                    self.message(code::SYNTAX, "Wrong number of arguments", false);
                    return Cmd::Done;
                }
                let n = if w.len() == 3 {
                    match parse_len(&line[w[2].0..w[2].1]) {
                        Some(n) => n,
                        None => {
                            self.message(code::SYNTAX, "Syntax error in 'llrpc'", false);
                            return Cmd::Done;
                        }
                    }
                } else {
                    0
                };
                let data = match self.take_data(n, "LLRPC") {
                    Ok(d) => d,
                    Err(c) => return c,
                };
                self.llrpc_command(h, &word(1), data, read_only);
            }
            "CLOSE" | "QUIT" => {
                if w.len() != 1 {
                    self.message(code::SYNTAX, "Bad command syntax", false);
                }
                self.message(code::OK, "Goodbye!", false);
                self.in_closed = true;
                self.input.clear();
                self.inpos = 0;
            }
            "HELP" => {
                const HELP: &[&str] = &[
                    "Commands supported:",
                    "READ handler [arg...]   call read handler, return DATA",
                    "READDATA handler len    call read handler with len data bytes, return DATA",
                    "READUNTIL handler term  call read handler, take data until term, return DATA",
                    "WRITE handler [arg...]  call write handler",
                    "WRITEDATA handler len   call write handler, pass len data bytes",
                    "WRITEUNTIL handler term call write handler, take data until term",
                    "CHECKREAD handler       check if read handler is valid",
                    "CHECKWRITE handler      check if write handler is valid",
                    "LLRPC elt#number [len]  call LLRPC, pass len data bytes, return DATA",
                    "QUIT                    close connection",
                ];
                for (i, l) in HELP.iter().enumerate() {
                    self.message(code::OK, l, i + 1 < HELP.len());
                }
            }
            _ => self.message(
                code::UNIMPLEMENTED,
                &format!("Command '{command}' unimplemented"),
                false,
            ),
        }
        Cmd::Done
    }

    /// Click's `parse_handler`: reports a missing element or handler.
    fn find(&mut self, h: &mut dyn Handlers, full: &str) -> Option<(String, HandlerFlags)> {
        match h.lookup(canonical(full)) {
            Lookup::Found(spec, flags) => Some((spec, flags)),
            Lookup::NoElement(e) => {
                self.message(
                    code::NO_SUCH_ELEMENT,
                    &format!("No element named '{e}'"),
                    false,
                );
                None
            }
            Lookup::NoHandler => {
                self.message(
                    code::NO_SUCH_HANDLER,
                    &format!("No handler named '{full}'"),
                    false,
                );
                None
            }
        }
    }

    /// READDATA/WRITEDATA and READUNTIL/WRITEUNTIL once their data is in.
    fn read_or_write(
        &mut self,
        h: &mut dyn Handlers,
        read: bool,
        name: &str,
        data: &str,
        read_only: bool,
    ) {
        if read {
            self.read_command(h, name, data);
        } else {
            self.write_command(h, name, data, read_only);
        }
    }

    fn read_command(&mut self, h: &mut dyn Handlers, name: &str, param: &str) {
        let Some((spec, flags)) = self.find(h, name) else {
            return;
        };
        if !flags.read {
            self.message(
                code::PERMISSION,
                &format!("Handler '{name}' write-only"),
                false,
            );
            return;
        }
        match h.read(&spec, param) {
            Ok(v) => {
                self.message(code::OK, &format!("Read handler '{name}' OK"), false);
                self.data(v.as_bytes());
            }
            Err(e) => self.messages(
                code::UNSPECIFIED,
                &format!("Read handler '{name}' error"),
                &e,
            ),
        }
    }

    fn write_command(&mut self, h: &mut dyn Handlers, name: &str, value: &str, read_only: bool) {
        let Some((spec, flags)) = self.find(h, name) else {
            return;
        };
        if !flags.write {
            self.message(
                code::PERMISSION,
                &format!("Handler '{name}' read-only"),
                false,
            );
            return;
        }
        if read_only {
            return self.permission_denied(name);
        }
        match h.write(&spec, value) {
            Ok(()) => self.message(code::OK, &format!("Write handler '{name}' OK"), false),
            Err(e) => {
                let e = if e.trim().is_empty() {
                    String::new()
                } else {
                    e
                };
                self.messages(
                    code::HANDLER_ERROR,
                    &format!("Write handler '{name}' error"),
                    &e,
                )
            }
        }
    }

    fn check_command(&mut self, h: &mut dyn Handlers, name: &str, write: bool, read_only: bool) {
        let Some((_, flags)) = self.find(h, name) else {
            return;
        };
        let ok = if write { flags.write } else { flags.read };
        let what = if write { "Write" } else { "Read" };
        if write && read_only && ok {
            self.permission_denied(name);
        } else if ok {
            self.message(code::OK, &format!("{what} handler '{name}' OK"), false);
        } else {
            let not = if write {
                "not writable"
            } else {
                "not readable"
            };
            self.message(
                code::NO_SUCH_HANDLER,
                &format!("Handler '{name}' {not}"),
                false,
            );
        }
    }

    fn llrpc_command(&mut self, h: &mut dyn Handlers, name: &str, data: Vec<u8>, read_only: bool) {
        let (ename, number) = name.split_once('#').unwrap_or((name, name));
        let Some(command) = parse_hex(number) else {
            self.message(
                code::SYNTAX,
                &format!("Syntax error in LLRPC name '{name}'"),
                false,
            );
            return;
        };
        let Some((spec, _)) = self.find(h, &format!("{ename}.name")) else {
            return;
        };
        let size = ioc_size(command);
        if size == 0 || command & (IOC_IN | IOC_OUT) == 0 || command & IOC_FLAT == 0 {
            self.message(
                code::UNIMPLEMENTED,
                &format!("Cannot call LLRPC '{name}' remotely"),
                false,
            );
            return;
        }
        if read_only {
            return self.permission_denied(name);
        }
        let mut data = data;
        if command & IOC_IN != 0 && data.len() != size {
            self.message(
                code::LLRPC_ERROR,
                &format!("LLRPC '{name}' requires {size} bytes input data"),
                false,
            );
            return;
        } else if command & IOC_IN == 0 {
            data = vec![0; size];
        }
        match h.llrpc(&spec, command, &mut data) {
            Ok(()) => {
                self.message(code::OK, &format!("LLRPC '{name}' OK"), false);
                if command & IOC_OUT == 0 {
                    data.clear();
                }
                self.data(&data);
            }
            Err(errno) => self.message(
                code::LLRPC_ERROR,
                &format!("LLRPC '{name}' error: {}", strerror(errno)),
                false,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::run;

    #[test]
    fn read_write_and_errors() {
        let (out, f) = run(
            b"read s.switch\nwrite s.switch  7 \r\nget 1.switch\nread nope.x\nread s.nope\n\
              read w.only\nwrite s.name x\nwrite s.switch bad\nread s.switch a b\nfrob\n\nread version\n",
            false,
        );
        assert_eq!(
            out,
            "Click::ControlSocket/1.3\r\n\
             200 Read handler 's.switch' OK\r\nDATA 1\r\n0\
             200 Write handler 's.switch' OK\r\n\
             200 Read handler '1.switch' OK\r\nDATA 1\r\n7\
             510 No element named 'nope'\r\n\
             511 No handler named 's.nope'\r\n\
             530 Handler 'w.only' write-only\r\n\
             530 Handler 's.name' read-only\r\n\
             520-Write handler 's.switch' error:\r\n520 expected integer\r\n\
             590-Read handler 's.switch' error:\r\n590-no parameters\r\n590 at all\r\n\
             501 Command 'FROB' unimplemented\r\n\
             200 Read handler 'version' OK\r\nDATA 3\r\n1.0"
        );
        assert_eq!(f.writes[0], ("s.switch".to_string(), "7".to_string()));
    }

    #[test]
    fn checks_readonly_quit_and_help() {
        let (out, _) = run(
            b"checkread s.switch\ncheckwrite s.name\ncheckread w.only\ncheckwrite s.switch\nwrite s.switch 1\nquit\nread s.switch\n",
            true,
        );
        assert_eq!(
            out,
            "Click::ControlSocket/1.3\r\n\
             200 Read handler 's.switch' OK\r\n\
             511 Handler 's.name' not writable\r\n\
             511 Handler 'w.only' not readable\r\n\
             530 Permission denied for 's.switch'\r\n\
             530 Permission denied for 's.switch'\r\n\
             200 Goodbye!\r\n"
        );
        let (out, _) = run(b"help\n", false);
        assert!(out.contains("200-Commands supported:\r\n"));
        assert!(out.ends_with("200 QUIT                    close connection\r\n"));
    }

    #[test]
    fn llrpc_commands() {
        let mut input = b"llrpc s#4004C005\nllrpc s#80044006 4\n".to_vec();
        input.extend_from_slice(&5i32.to_ne_bytes());
        input.extend_from_slice(
            b"llrpc s#4004C005\nllrpc s#20000001\nllrpc s#zz\nllrpc s#80044006 2\nab",
        );
        input.extend_from_slice(b"\nllrpc q#4004C005\nllrpc s#4004C0FF\n");
        let (out, f) = run(&input, false);
        assert_eq!(f.switch, 5);
        let mut want =
            b"Click::ControlSocket/1.3\r\n200 LLRPC 's#4004C005' OK\r\nDATA 4\r\n".to_vec();
        want.extend_from_slice(&0i32.to_ne_bytes());
        want.extend_from_slice(b"200 LLRPC 's#80044006' OK\r\nDATA 0\r\n");
        want.extend_from_slice(b"200 LLRPC 's#4004C005' OK\r\nDATA 4\r\n");
        want.extend_from_slice(&5i32.to_ne_bytes());
        want.extend_from_slice(
            b"501 Cannot call LLRPC 's#20000001' remotely\r\n\
              500 Syntax error in LLRPC name 's#zz'\r\n\
              522 LLRPC 's#80044006' requires 4 bytes input data\r\n\
              510 No element named 'q'\r\n\
              522 LLRPC 's#4004C0FF' error: Invalid argument\r\n",
        );
        assert_eq!(out, String::from_utf8_lossy(&want));
    }
}
