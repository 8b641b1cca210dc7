//! # ChatterSocket
//!
//! `ChatterSocket(TCP, PORT [, KEYWORDS])`
//! `ChatterSocket(UNIX, FILENAME [, KEYWORDS])`
//!
//! **Category:** control. Sends the router's messages to programs that
//! connect (user-level).
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Listens on TCP port PORT (on 127.0.0.1 unless LOCALHOST is false) or on
//! the Unix-domain socket FILENAME, and sends every connected client a
//! copy of each message the router prints while it runs (Print, Message,
//! Script's `print` to the log, error messages: Click's chatter), each
//! followed by a newline. It reads nothing from its clients: what they
//! send is read and thrown away, and their closing is noticed.
//!
//! A client is first greeted with `Click::ChatterSocket/1.0` and CRLF
//! (unless GREETING is false). Messages printed while no client is
//! connected are not kept. The messages a slow client has not read are
//! kept for it up to 500,000 bytes; a client further behind is
//! disconnected (counted by `dropped_clients`), as in Click. At most 128
//! clients are served at once; more are closed as soon as accepted.
//! Messages reach the element through a queue of at most 1 MiB; lines
//! beyond that (a router printing faster than its ChatterSocket runs)
//! are counted by `dropped_messages`. Messages printed while the
//! configuration is built (before the router runs) are not sent.
//!
//! Keywords:
//!
//! * `CHANNEL` (string): the chatter channel to listen to. Default
//!   `default`, the channel everything prints to; rclick has no element
//!   that prints to another channel, so any other name listens to
//!   silence.
//! * `QUIET_CHANNEL` (boolean): in Click, whether a non-default channel's
//!   messages also go to standard error. Accepted; without effect here
//!   (see CHANNEL). Default true.
//! * `GREETING` (boolean): greet new clients. Default true.
//! * `LOCALHOST` (boolean): a TCP socket listens on 127.0.0.1 only.
//!   Default true (an rclick keyword: Click listens on every address;
//!   the messages may tell more than a stranger should know).
//! * `RETRIES`, `RETRY_WARNINGS`: Click retries a socket it cannot open;
//!   not supported (giving them is an error).
//!
//! A Unix socket file is created with mode 0600 (replacing any file of
//! that name) and removed when the router stops.
//!
//! ## Handlers
//!
//! * `port` (read): the TCP port bound (the kernel's choice for port 0).
//! * `clients` (read): clients connected now.
//! * `dropped_clients` (read): clients disconnected for falling more than
//!   500,000 bytes behind, or refused because 128 were connected.
//! * `dropped_messages` (read): messages lost because the queue to the
//!   element was full.
//!
//! ## Examples
//!
//! ```text
//! ChatterSocket(TCP, 7778);
//! ChatterSocket(UNIX, /tmp/click-chatter);
//! ```
//!
//! ## See also
//!
//! ControlSocket, Print, Message

use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rclick_core::args::{Args, Word};
use rclick_core::router::{ChatterTap, Select};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, TaskId};

use super::listen::{strerror, Listener, Stream};

/// Bytes kept for a client before it is disconnected (Click's bound).
const MAX_BEHIND: usize = 500_000;
/// Bytes of messages waiting for the element's task.
const MAX_QUEUED: usize = 1 << 20;
/// Clients served at once.
const MAX_CLIENTS: usize = 128;
const GREETING: &[u8] = b"Click::ChatterSocket/1.0\r\n";

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Port = read("port"),
        Clients = read("clients"),
        DroppedClients = read("dropped_clients"),
        DroppedMessages = read("dropped_messages"),
    }
}

/// The queue between the threads that print and the element's task. A
/// line wakes the task through a socket pair the router watches.
struct Tap {
    queue: Mutex<(VecDeque<String>, usize)>,
    wake: UnixStream,
    dropped: AtomicU64,
}

impl ChatterTap for Tap {
    fn message(&self, line: &str) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        if q.1 + line.len() + 1 > MAX_QUEUED {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        q.1 += line.len() + 1;
        q.0.push_back(line.to_string());
        if q.0.len() == 1 {
            // Full socket buffer: a wake-up is already pending.
            let _ = (&self.wake).write(&[1]);
        }
    }
}

struct Client {
    stream: Stream,
    /// Bytes not yet sent, from `sent` on.
    out: Vec<u8>,
    sent: usize,
    /// Watched for room (while bytes wait).
    writing: bool,
}

/// Click's ChatterSocket. See the module documentation.
pub struct ChatterSocket {
    unix: bool,
    /// The port (bound once open) or the file name.
    target: String,
    channel: String,
    greeting: bool,
    localhost: bool,
    listener: Option<Listener>,
    /// The Unix socket file to remove.
    bound_path: Option<String>,
    wake: Option<UnixStream>,
    tap: Option<Arc<Tap>>,
    tapped: bool,
    clients: Vec<Client>,
    dropped_clients: u64,
    task: Option<TaskId>,
}

impl Default for ChatterSocket {
    fn default() -> Self {
        ChatterSocket {
            unix: false,
            target: String::new(),
            channel: "default".into(),
            greeting: true,
            localhost: true,
            listener: None,
            bound_path: None,
            wake: None,
            tap: None,
            tapped: false,
            clients: Vec::new(),
            dropped_clients: 0,
            task: None,
        }
    }
}

impl ChatterSocket {
    fn open(&mut self) -> Result<(), String> {
        if self.unix {
            match Listener::unix(&self.target) {
                Ok(l) => {
                    self.bound_path = Some(self.target.clone());
                    self.listener = Some(l);
                }
                Err(e) => {
                    if e.call != "bind" {
                        // The file exists: removed at cleanup.
                        self.bound_path = Some(self.target.clone());
                    }
                    return Err(e.to_string());
                }
            }
        } else {
            let port: u16 = self.target.parse().unwrap_or(0);
            let l = Listener::tcp(self.localhost, port).map_err(|e| e.to_string())?;
            if let Some(p) = l.port() {
                self.target = p.to_string();
            }
            self.listener = Some(l);
        }
        Ok(())
    }

    fn accept(&mut self, cx: &mut Ctx) {
        loop {
            let got = match &self.listener {
                Some(l) => l.accept().map(|(s, _)| s),
                None => return,
            };
            let stream = match got {
                Ok(s) => s,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                // ECONNABORTED and friends: that client is gone; resource
                // errors: try again when the listener is next readable.
                Err(_) => return,
            };
            if self.clients.len() >= MAX_CLIENTS {
                self.dropped_clients += 1;
                continue;
            }
            if stream.set_nonblocking(true).is_err() {
                continue;
            }
            let Some(t) = self.task else { return };
            if cx.add_select(stream.fd(), Select::Read, t).is_err() {
                continue;
            }
            let out = if self.greeting {
                GREETING.to_vec()
            } else {
                Vec::new()
            };
            self.clients.push(Client {
                stream,
                out,
                sent: 0,
                writing: false,
            });
        }
    }

    /// Takes the queued lines and appends them to every client's output.
    fn distribute(&mut self) {
        let Some(tap) = &self.tap else { return };
        if let Some(w) = &self.wake {
            let mut sink = [0u8; 256];
            while matches!((&*w).read(&mut sink), Ok(n) if n > 0) {}
        }
        let lines = {
            let mut q = tap.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.1 = 0;
            std::mem::take(&mut q.0)
        };
        if self.channel != "default" {
            return;
        }
        for line in lines {
            for c in &mut self.clients {
                c.out.extend_from_slice(line.as_bytes());
                c.out.push(b'\n');
            }
        }
    }

    /// Reads (and discards) what clients send, writes what waits for them;
    /// drops the closed, the failed and those too far behind.
    fn serve(&mut self, cx: &mut Ctx) {
        let task = self.task;
        let mut i = 0;
        while i < self.clients.len() {
            let c = &mut self.clients[i];
            let mut gone = false;
            let mut buf = [0u8; 512];
            loop {
                match c.stream.read(&mut buf) {
                    Ok(0) => {
                        gone = true;
                        break;
                    }
                    Ok(_) => continue,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(_) => {
                        gone = true;
                        break;
                    }
                }
            }
            while !gone && c.sent < c.out.len() {
                match c.stream.write(&c.out[c.sent..]) {
                    Ok(n) => c.sent += n,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(_) => gone = true,
                }
            }
            if c.sent == c.out.len() {
                c.out.clear();
                c.sent = 0;
            } else if c.sent > 0 && c.sent >= c.out.len() / 2 {
                c.out.drain(..c.sent);
                c.sent = 0;
            }
            if !gone && c.out.len() - c.sent > MAX_BEHIND {
                self.dropped_clients += 1;
                gone = true;
            }
            let fd = c.stream.fd();
            if gone {
                cx.remove_select(fd, Select::Read);
                if c.writing {
                    cx.remove_select(fd, Select::Write);
                }
                self.clients.swap_remove(i);
                continue;
            }
            let want_write = c.sent < c.out.len();
            if want_write != c.writing {
                if want_write {
                    if let Some(t) = task {
                        c.writing = cx.add_select(fd, Select::Write, t).is_ok();
                    }
                } else {
                    cx.remove_select(fd, Select::Write);
                    c.writing = false;
                }
            }
            i += 1;
        }
    }
}

impl Element for ChatterSocket {
    fn class_name(&self) -> &'static str {
        "ChatterSocket"
    }

    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ty = Word::default();
        let mut channel = String::from("default");
        let mut quiet = true;
        let mut greeting = true;
        let mut localhost = true;
        let mut retries: i32 = 0;
        let mut retries_given = false;
        let mut retry_warnings = true;
        let mut retry_warnings_given = false;
        let rest = Args::new(conf)
            .read_mp("TYPE", &mut ty)
            .read("CHANNEL", &mut channel)
            .read("QUIET_CHANNEL", &mut quiet)
            .read("GREETING", &mut greeting)
            .read("LOCALHOST", &mut localhost)
            .read("RETRIES", &mut retries)
            .read_status(&mut retries_given)
            .read("RETRY_WARNINGS", &mut retry_warnings)
            .read_status(&mut retry_warnings_given)
            .consume()
            .map_err(|e| e.to_string())?;
        if retries_given || retry_warnings_given {
            return Err("RETRIES and RETRY_WARNINGS are not supported".into());
        }
        let (unix, target) = match ty.0.to_ascii_uppercase().as_str() {
            "TCP" => {
                let mut port: u16 = 0;
                Args::new(&rest)
                    .read_mp("PORT", &mut port)
                    .complete()
                    .map_err(|e| e.to_string())?;
                (false, port.to_string())
            }
            "UNIX" => {
                let mut file = String::new();
                Args::new(&rest)
                    .read_mp("FILENAME", &mut file)
                    .complete()
                    .map_err(|e| e.to_string())?;
                if file.is_empty() || file.len() >= 108 || file.contains('\0') {
                    return Err("FILENAME: bad Unix socket file name (1 to 107 bytes)".into());
                }
                (true, file)
            }
            _ => return Err(format!("unknown socket type '{}'", ty.0)),
        };
        self.unix = unix;
        self.target = target;
        self.channel = channel;
        self.greeting = greeting;
        self.localhost = localhost;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.open()?;
        let (r, w) = UnixStream::pair().map_err(|e| format!("socketpair: {}", strerror(&e)))?;
        r.set_nonblocking(true)
            .and_then(|_| w.set_nonblocking(true))
            .map_err(|e| format!("fcntl: {}", strerror(&e)))?;
        let t = cx.new_task(true);
        self.task = Some(t);
        if let Some(l) = &self.listener {
            cx.add_select(l.fd(), Select::Read, t);
        }
        cx.add_select(r.as_raw_fd(), Select::Read, t);
        self.tap = Some(Arc::new(Tap {
            queue: Mutex::new((VecDeque::new(), 0)),
            wake: w,
            dropped: AtomicU64::new(0),
        }));
        self.wake = Some(r);
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.tapped {
            if let Some(tap) = &self.tap {
                cx.add_chatter_tap(tap.clone());
                self.tapped = true;
            }
        }
        self.accept(cx);
        self.distribute();
        self.serve(cx);
        true
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        if let (Some(tap), true) = (&self.tap, self.tapped) {
            let tap: Arc<dyn ChatterTap> = tap.clone();
            cx.remove_chatter_tap(&tap);
        }
        self.tapped = false;
        // What is queued goes out to the clients before they are closed.
        self.distribute();
        for c in &mut self.clients {
            while c.sent < c.out.len() {
                match c.stream.write(&c.out[c.sent..]) {
                    Ok(n) if n > 0 => c.sent += n,
                    _ => break,
                }
            }
        }
        self.clients.clear();
        self.listener = None;
        if let Some(p) = self.bound_path.take() {
            let _ = std::fs::remove_file(p);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Port) if !self.unix => Ok(self.target.clone()),
            Some(H::Port) => Err("not a TCP socket".into()),
            Some(H::Clients) => Ok(self.clients.len().to_string()),
            Some(H::DroppedClients) => Ok(self.dropped_clients.to_string()),
            Some(H::DroppedMessages) => Ok(self
                .tap
                .as_ref()
                .map_or(0, |t| t.dropped.load(Ordering::Relaxed))
                .to_string()),
            _ => Err("no such handler".into()),
        }
    }
}

impl Drop for ChatterSocket {
    fn drop(&mut self) {
        if let Some(p) = self.bound_path.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::device::test_util::{build_err, registry};
    use rclick_core::testing;
    use std::io::Read;
    use std::time::Duration;

    /// Checked against Click: the greeting, then each printed line.
    #[test]
    fn clients_get_the_greeting_and_the_messages() {
        let conf = "cs :: ChatterSocket(TCP, 0);
            s :: Script(wait 50ms, label l, wait 2ms, goto l $(lt $(cs.clients) 1), wait 20ms, write src.active true);
            src :: TimedSource(0.01, \"ab\", LIMIT 3, STOP true, ACTIVE false) -> Print(x) -> Discard;
            Script(wait 20s, stop);";
        let r = testing::build(conf, &registry(), false).unwrap();
        let port = testing::read(&r, "cs.port");
        let client = std::thread::spawn(move || {
            let mut s =
                std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut got = Vec::new();
            let _ = s.read_to_end(&mut got);
            String::from_utf8(got).unwrap()
        });
        r.run();
        assert_eq!(testing::read(&r, "cs.dropped_messages"), "0");
        assert_eq!(testing::read(&r, "cs.dropped_clients"), "0");
        // Cleaning up closes the connection.
        drop(r);
        let got = client.join().unwrap();
        assert_eq!(
            got,
            "Click::ChatterSocket/1.0\r\nx:    2 | 6162\nx:    2 | 6162\nx:    2 | 6162\n"
        );
    }

    /// Without GREETING, over a Unix socket, which is removed at the end.
    #[test]
    fn unix_socket_without_greeting() {
        let dir = std::env::temp_dir().join(format!("rclick-usr-chatter-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sock");
        let conf = format!(
            "cs :: ChatterSocket(UNIX, {}, GREETING false);
             Script(label l, wait 2ms, goto l $(lt $(cs.clients) 1), wait 20ms, write m.active true);
             m :: TimedSource(0.01, \"z\", LIMIT 1, STOP true, ACTIVE false) -> Print(hi) -> Discard;
             Script(wait 20s, stop);",
            path.display()
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let p2 = path.clone();
        let client = std::thread::spawn(move || {
            let mut s = std::os::unix::net::UnixStream::connect(&p2).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut got = String::new();
            let _ = s.read_to_string(&mut got);
            got
        });
        r.run();
        drop(r);
        assert_eq!(client.join().unwrap(), "hi:    1 | 7a\n");
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Checked against Click: the errors for a bad type and a missing port.
    #[test]
    fn configuration_errors() {
        let e = build_err("ChatterSocket(UDP, 7000)");
        assert!(e.contains("unknown socket type 'UDP'"), "{e}");
        let e = build_err("ChatterSocket(TCP)");
        assert!(e.contains("PORT: required argument missing"), "{e}");
        let e = build_err("ChatterSocket(TCP, 7000, RETRIES 2)");
        assert!(e.contains("RETRIES"), "{e}");
        let e = build_err("ChatterSocket(TCP, 7000, FOO 2)");
        assert!(e.contains("unknown argument"), "{e}");
    }

    /// Checked against Click: a port in use fails the router at
    /// initialization, naming `bind`.
    #[test]
    fn port_in_use() {
        let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = held.local_addr().unwrap().port();
        let e = build_err(&format!("cs2 :: ChatterSocket(TCP, {port})"));
        assert!(
            e.contains("While initializing 'cs2 :: ChatterSocket'"),
            "{e}"
        );
        assert!(e.contains("bind: Address already in use"), "{e}");
    }
}
