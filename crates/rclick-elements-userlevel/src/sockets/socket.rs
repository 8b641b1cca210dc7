//! # Socket
//!
//! `Socket(TCP, ADDR, PORT [, LOCAL_ADDR, LOCAL_PORT, KEYWORDS])`
//! `Socket(UDP, ADDR, PORT [, LOCAL_ADDR, LOCAL_PORT, KEYWORDS])`
//! `Socket(UNIX, FILENAME [, LOCAL_FILENAME, KEYWORDS])`
//! `Socket(UNIX_DGRAM, FILENAME [, LOCAL_FILENAME, KEYWORDS])`
//!
//! **Category:** comm. A socket transport (user-level).
//!
//! **Ports:** at most one input (agnostic: push or pull); at most one push
//! output.
//!
//! ## Description
//!
//! Carries packets over a socket. Packets do not flow through Socket: the
//! data of each input packet is sent to the remote end, and the data
//! received from it is emitted on the output as new packets.
//!
//! A `TCP` or `UNIX` (stream) Socket is a server unless CLIENT is true. A
//! server binds ADDR:PORT (or FILENAME) and accepts one connection at a
//! time; when that client disconnects, it accepts the next one. A client
//! connects to ADDR:PORT (or FILENAME) when the router initializes, after
//! binding LOCAL_ADDR:LOCAL_PORT (LOCAL_FILENAME) if given. Stream data is
//! a byte stream: each packet's bytes are written in order, and received
//! bytes are emitted in packets of at most SNAPLEN bytes, cut wherever the
//! reads fall.
//!
//! A `UDP` or `UNIX_DGRAM` Socket sends one datagram per packet and emits
//! one packet per datagram. A datagram server binds ADDR:PORT (FILENAME),
//! receives from anyone, and sends to the last host that sent to it
//! (packets before anyone has sent are dropped: `no destination`). A
//! datagram client sends to ADDR:PORT (FILENAME); if ADDR is 0.0.0.0, to
//! each packet's destination IP annotation at PORT. Datagrams longer than
//! SNAPLEN are truncated, with the rest counted in the extra length
//! annotation (up to 64 KB datagrams).
//!
//! CLIENT defaults to false, except that a Socket without outputs is a
//! client, and so is one given LOCAL_ADDR/LOCAL_PORT or LOCAL_FILENAME.
//!
//! Everything is non-blocking and driven by one task, which reads up to 32
//! times per run. The router watches the sockets (Click's `add_select`):
//! the task runs when the socket is readable (a server's listening socket
//! while it has no client), and, while packets wait for room, writable;
//! otherwise it sleeps. A pull input is pulled only while there is a
//! connection and the socket takes data, so a full socket leaves packets
//! waiting in the upstream queue; the task sleeps while that queue is
//! empty. Pushed packets wait in an internal queue of 1024 packets while
//! the socket is full (Click blocks the whole router instead); beyond
//! that, and while a stream has no connection, they are dropped and
//! counted. A server forgets a client that disconnects or fails (`ECONNRESET`,
//! `EPIPE`) and waits for the next one; packets waiting for the old
//! client are dropped and counted. A client whose connection ends stays
//! unconnected (as in Click): restart the router to reconnect.
//!
//! A Unix server removes its socket file when the router stops. A stale
//! file from an earlier run makes `bind` fail: remove it first.
//!
//! Keywords:
//!
//! * `CLIENT` (boolean): connect (streams) or send to ADDR (datagrams)
//!   instead of binding it. Default: see above.
//! * `LOCAL_ADDR`, `LOCAL_PORT` (IP address, port; also positional after
//!   PORT): the local address a client binds first. `LOCAL_FILENAME`
//!   (string; positional after FILENAME): the same for Unix sockets.
//! * `SNAPLEN` (unsigned): most bytes per emitted packet. Default 2048.
//! * `HEADROOM` (unsigned): headroom of emitted packets. Default 28.
//! * `NODELAY` (boolean): TCP only; disable Nagle's algorithm, so
//!   segments go out at once. Default true.
//! * `SNDBUF`, `RCVBUF` (unsigned): the socket's send and receive buffer
//!   sizes in bytes. Default: the kernel's.
//! * `TIMESTAMP` (boolean): set emitted packets' timestamp annotation to
//!   the time of reading. Default true.
//! * `VERBOSE` (boolean): log connections opened and closed, and socket
//!   errors. Default false.
//! * `PROPER` (boolean): PlanetLab's Proper; accepted and ignored (with a
//!   warning when true).
//! * `ALLOW`, `DENY` (IPRouteTable elements): not supported; giving them
//!   is an error.
//!
//! ## Annotations
//!
//! Sets the timestamp annotation (TIMESTAMP) and the extra length
//! annotation of truncated datagrams. A UDP client with ADDR 0.0.0.0 uses
//! the destination IP annotation.
//!
//! ## Handlers
//!
//! * `received` (read): packets emitted (reads or datagrams).
//! * `sent` (read): packets sent whole.
//! * `connections` (read): connections accepted (server) or opened
//!   (client).
//! * `connected` (read): whether a stream Socket has a connection now (a
//!   datagram Socket: whether it has somewhere to send).
//! * `local_address` (read): the address bound (`127.0.0.1:4000`, with the
//!   port the kernel chose for port 0; or the file name); empty for an
//!   unbound client.
//! * `queue` (read): packets waiting for room in the socket.
//! * `drops` (read): packets dropped, all reasons.
//! * `drop_details` (read): one line per reason, `COUNT<TAB>REASON`;
//!   reasons are `not connected`, `no destination`, `send queue full`,
//!   `connection lost`, `send error`, `no output`.
//! * `reset_counts` (write): sets `received`, `sent`, `connections` and
//!   the drop counters to 0.
//!
//! ## Examples
//!
//! ```text
//! // A server: what clients send to port 4000 comes out here.
//! Socket(TCP, 0.0.0.0, 4000) -> ...
//! // A client.
//! ... -> Socket(TCP, 192.0.2.7, 4000)
//! // An echo server for UDP datagrams.
//! s :: Socket(UDP, 127.0.0.1, 4000); s -> s;
//! // A client bound to a local port.
//! ... -> Socket(TCP, 192.0.2.7, 4000, 0.0.0.0, 54321) -> ...
//! ```
//!
//! ## See also
//!
//! ControlSocket, KernelTun, FromDevice

// Why this file is long: over 1,000 lines with its manual (120) and tests
// (about 300, each on real sockets): the code is about 670 lines of one job,
// a Socket's run-time state machine (accepting, receiving, the send queue and
// its back-off, hot swap). Its configuration is in settings.rs, the sockets
// in conn.rs.

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::PathBuf;

use std::os::fd::RawFd;

use rclick_core::router::Select;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId, Timestamp,
};
use rclick_packet::{Packet, PacketBatch};

use super::conn::{self, Addr, Dgram, Kind, Listener, Opened, Options, Peer, Stream};
use super::settings::{Settings, RECV_BUF};
use rclick_core::drops::Drops;

rclick_core::drop_reasons! {
    /// Why Socket dropped a packet (the manual's `drop_details` list).
    enum Why {
        NotConnected = "not connected",
        NoDestination = "no destination",
        QueueFull = "send queue full",
        ConnectionLost = "connection lost",
        SendError = "send error",
        NoOutput = "no output",
    }
}

/// Most reads (and pulled packets) per task run.
const BURST: usize = 32;
/// Most pushed packets waiting for room in the socket.
const MAX_QUEUE: usize = 1024;

/// The socket's state at run time.
#[derive(Debug)]
enum State {
    /// A stream server, with the connection it serves (if any).
    Server {
        listener: Listener,
        active: Option<Stream>,
    },
    /// A stream client; `None` once the connection is gone.
    Client(Option<Stream>),
    /// A datagram socket; `peer` is the last sender (server).
    Dgram { sock: Dgram, peer: Option<Peer> },
}

/// The Socket element.
pub struct Socket {
    /// The class this element was made as: `Socket`, or one of the
    /// deprecated forms `FromSocket` and `ToSocket`.
    class: &'static str,
    cfg: Settings,
    state: Option<State>,
    /// Packets waiting for room in the socket, oldest first; the first
    /// may be partly written (`offset` bytes) on a stream.
    queue: VecDeque<Packet>,
    offset: usize,
    buf: Vec<u8>,
    local_address: String,
    /// The Unix socket file this element bound, removed when it goes.
    bound_path: Option<PathBuf>,
    task: Option<TaskId>,
    /// The descriptor the router watches for room while packets wait.
    write_selected: Option<RawFd>,
    signal: NotifierSignal,
    pull_input: bool,
    received: u64,
    sent: u64,
    connections: u64,
    drops: Drops<Why>,
    /// A hot swap from a Socket bound to the same address: its socket is
    /// taken over (`take_state`); this timer opens our own if that did not
    /// happen.
    takeover_timer: Option<TimerId>,
}

impl Default for Socket {
    fn default() -> Self {
        Socket {
            class: "Socket",
            cfg: Settings {
                kind: Kind::Tcp,
                remote: Addr::Inet(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0)),
                local: None,
                client: false,
                snaplen: 2048,
                headroom: rclick_packet::DEFAULT_HEADROOM,
                timestamp: true,
                verbose: false,
                opts: Options::default(),
            },
            state: None,
            queue: VecDeque::new(),
            offset: 0,
            buf: Vec::new(),
            local_address: String::new(),
            bound_path: None,
            task: None,
            write_selected: None,
            signal: NotifierSignal::Busy,
            pull_input: false,
            received: 0,
            sent: 0,
            connections: 0,
            takeover_timer: None,
            drops: Drops::default(),
        }
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.remove_socket_file();
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Received = read("received"),
        Sent = read("sent"),
        Connections = read("connections"),
        Connected = read("connected"),
        Local = read("local_address"),
        Queue = read("queue"),
        Drops = read("drops"),
        DropDetails = read("drop_details"),
        Reset = write("reset_counts"),
    }
}

impl Socket {
    /// A Socket made as `class` (`FromSocket`, `ToSocket`): the same
    /// element under the name Click keeps for compatibility.
    pub(crate) fn with_class(class: &'static str) -> Self {
        let mut s = Socket::default();
        s.class = class;
        s
    }

    fn count_drop(&mut self, why: Why, n: u64, detail: Option<&str>, cx: &Ctx) {
        if n == 0 {
            return;
        }
        let who = cx.declaration();
        let verbose = self.cfg.verbose;
        crate::drops::count(&mut self.drops, why, n, detail, verbose, &who, cx);
    }

    /// Whether there is somewhere to send to now.
    fn connected(&self) -> bool {
        match &self.state {
            Some(State::Server { active, .. }) => active.is_some(),
            Some(State::Client(s)) => s.is_some(),
            Some(State::Dgram { peer, .. }) => self.cfg.client || peer.is_some(),
            None => false,
        }
    }

    /// The descriptor packets are read from and written to now.
    fn data_fd(&self) -> Option<RawFd> {
        match &self.state {
            Some(State::Server {
                active: Some(s), ..
            })
            | Some(State::Client(Some(s))) => Some(s.raw_fd()),
            Some(State::Dgram { sock, .. }) => Some(sock.raw_fd()),
            _ => None,
        }
    }

    /// Watches `fd` for `what` on behalf of the task.
    fn select(&self, fd: RawFd, what: Select, cx: &mut Ctx) {
        if let Some(t) = self.task {
            if let Err(e) = cx.add_select(fd, what, t) {
                cx.log(format!("{}: {e}", cx.declaration()));
            }
        }
    }

    /// Watches the data socket for room while packets wait, and stops
    /// once they have gone.
    fn update_write_select(&mut self, cx: &mut Ctx) {
        let want = if self.queue.is_empty() {
            None
        } else {
            self.data_fd()
        };
        if want == self.write_selected {
            return;
        }
        if let Some(fd) = self.write_selected.take() {
            cx.remove_select(fd, Select::Write);
        }
        if let Some(fd) = want {
            self.select(fd, Select::Write, cx);
            self.write_selected = Some(fd);
        }
    }

    /// Forgets the current connection, dropping what waited for it. A
    /// server watches its listening socket again.
    fn close_active(&mut self, why: &str, cx: &mut Ctx) {
        let old = match &mut self.state {
            Some(State::Server { active, .. }) => active.take(),
            Some(State::Client(s)) => s.take(),
            _ => None,
        };
        let was = old.is_some();
        if let Some(s) = old {
            let fd = s.raw_fd();
            cx.remove_select(fd, Select::Read);
            if self.write_selected == Some(fd) {
                cx.remove_select(fd, Select::Write);
                self.write_selected = None;
            }
        }
        if let (true, Some(State::Server { listener, .. })) = (was, &self.state) {
            let fd = listener.raw_fd();
            self.select(fd, Select::Read, cx);
        }
        if was && self.cfg.verbose {
            cx.log(format!("{}: closed connection ({why})", cx.declaration()));
        }
        let n = self.queue.len() as u64;
        self.queue.clear();
        self.offset = 0;
        self.count_drop(Why::ConnectionLost, n, Some(why), cx);
    }

    /// Accepts a waiting client when a server has none, then watches the
    /// connection instead of the listening socket (one client at a time).
    fn accept(&mut self, cx: &mut Ctx) {
        let opts = self.cfg.opts;
        let Some(State::Server { listener, active }) = &mut self.state else {
            return;
        };
        if active.is_some() {
            return;
        }
        match listener.accept(&opts) {
            Ok((s, from)) => {
                let (lfd, sfd) = (listener.raw_fd(), s.raw_fd());
                *active = Some(s);
                self.connections += 1;
                cx.remove_select(lfd, Select::Read);
                self.select(sfd, Select::Read, cx);
                if self.cfg.verbose {
                    cx.log(format!(
                        "{}: opened connection from {from}",
                        cx.declaration()
                    ));
                }
            }
            Err(e) if conn::would_block(&e) => {}
            Err(e) => {
                if self.cfg.verbose {
                    cx.log(format!("{}: accept: {e}", cx.declaration()));
                }
            }
        }
    }

    /// Reads what is waiting (up to [`BURST`] reads) and emits it.
    /// Returns how many reads returned data.
    fn receive(&mut self, cx: &mut Ctx) -> usize {
        let mut out = PacketBatch::new();
        let mut closed: Option<String> = None;
        let snap = self.cfg.snaplen;
        for _ in 0..BURST {
            let (n, wire) = match &mut self.state {
                Some(State::Server {
                    active: Some(s), ..
                })
                | Some(State::Client(Some(s))) => match s.read(&mut self.buf[..snap]) {
                    Ok(0) => {
                        closed = Some("closed by peer".into());
                        break;
                    }
                    Ok(n) => (n, n),
                    Err(e) if conn::would_block(&e) => break,
                    Err(e) => {
                        closed = Some(e.to_string());
                        break;
                    }
                },
                Some(State::Dgram { sock, peer }) => match sock.recv_from(&mut self.buf) {
                    Ok((n, from)) => {
                        if !self.cfg.client {
                            *peer = from;
                        }
                        (n.min(snap), n)
                    }
                    Err(e) if conn::would_block(&e) => break,
                    Err(e) => {
                        // ICMP errors from earlier sends (ECONNREFUSED) land here.
                        if self.cfg.verbose {
                            cx.log(format!("{}: recvfrom: {e}", cx.declaration()));
                        }
                        continue;
                    }
                },
                _ => break,
            };
            let Ok(mut p) = Packet::try_make(self.cfg.headroom, &self.buf[..n], 0) else {
                continue;
            };
            if wire > n {
                p.set_extra_length_anno(u32::try_from(wire - n).unwrap_or(u32::MAX));
            }
            if self.cfg.timestamp {
                p.set_timestamp_anno(cx.now());
            }
            out.push(p);
        }
        let n = out.len();
        if n > 0 {
            if cx.noutputs() > 0 {
                self.received += n as u64;
                cx.push(0, out);
            } else {
                self.count_drop(Why::NoOutput, n as u64, None, cx);
            }
        }
        if let Some(why) = closed {
            self.close_active(&why, cx);
        }
        n
    }

    /// Sends queued packets until the socket is full. Returns how many
    /// packets went whole.
    fn flush(&mut self, cx: &mut Ctx) -> usize {
        let mut done = 0;
        while let Some(p) = self.queue.front() {
            let res = match &self.state {
                Some(State::Server {
                    active: Some(s), ..
                })
                | Some(State::Client(Some(s))) => Ok(s.write(&p.data()[self.offset..])),
                Some(State::Dgram { sock, peer }) => {
                    let to = if self.cfg.client {
                        Some(conn::client_peer(&self.cfg.remote, p.dst_ip_anno()))
                    } else {
                        peer.clone()
                    };
                    match to {
                        Some(to) => Ok(sock.send_to(p.data(), &to)),
                        None => Err(Why::NoDestination),
                    }
                }
                _ => Err(Why::NotConnected),
            };
            let plen = p.len();
            let res = match res {
                Ok(r) => r,
                Err(Why::NoDestination) => {
                    self.queue.pop_front();
                    self.count_drop(Why::NoDestination, 1, None, cx);
                    continue;
                }
                Err(why) => {
                    let n = self.queue.len() as u64;
                    self.queue.clear();
                    self.offset = 0;
                    self.count_drop(why, n, None, cx);
                    break;
                }
            };
            match res {
                Ok(n) if self.cfg.kind.is_stream() && self.offset + n < plen => {
                    self.offset += n;
                }
                Ok(_) => {
                    self.queue.pop_front();
                    self.offset = 0;
                    self.sent += 1;
                    done += 1;
                }
                Err(e) if conn::would_block(&e) => break,
                Err(e) if self.cfg.kind.is_stream() => {
                    self.close_active(&e.to_string(), cx);
                    break;
                }
                Err(e) => {
                    self.queue.pop_front();
                    let detail = e.to_string();
                    self.count_drop(Why::SendError, 1, Some(&detail), cx);
                }
            }
        }
        done
    }

    /// Queues `batch` for sending (dropping what does not fit, or
    /// everything when a stream has no connection).
    fn enqueue(&mut self, batch: PacketBatch, cx: &Ctx) {
        if !self.connected() && !matches!(self.state, Some(State::Dgram { .. })) {
            self.count_drop(Why::NotConnected, batch.len() as u64, None, cx);
            return;
        }
        let mut over = 0u64;
        for p in batch {
            if self.queue.len() < MAX_QUEUE {
                self.queue.push_back(p);
            } else {
                over += 1;
            }
        }
        self.count_drop(Why::QueueFull, over, None, cx);
    }

    /// Removes the Unix socket file this element bound, as Click does.
    fn remove_socket_file(&mut self) {
        if let Some(p) = self.bound_path.take() {
            let _ = std::fs::remove_file(p);
        }
    }

    fn open_error(&self, e: conn::OpenError) -> String {
        let why = crate::device::sys::strerror(&e.err);
        let hint = match (e.call, e.err.raw_os_error()) {
            ("bind", Some(libc::EADDRINUSE)) if self.cfg.kind.is_unix() => {
                " (the socket file exists: if no program uses it, remove it)"
            }
            ("bind", Some(libc::EADDRINUSE)) => {
                " (another program uses this port: choose another PORT)"
            }
            ("bind", Some(libc::EACCES)) => {
                " (ports below 1024 need root or CAP_NET_BIND_SERVICE; Unix sockets need a writable directory)"
            }
            ("bind", Some(libc::EADDRNOTAVAIL)) => " (no interface has this address)",
            ("connect", Some(libc::ECONNREFUSED)) | ("connect", Some(libc::ENOENT)) => {
                " (is the server running? start it before this router, or make this Socket the server)"
            }
            _ => "",
        };
        format!("Socket({}): {}: {why}{hint}", self.cfg.remote, e.call)
    }
}

impl Element for Socket {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn port_count(&self) -> &'static str {
        "0-1/0-1"
    }
    fn processing(&self) -> &'static str {
        "a/h"
    }
    fn flow_code(&self) -> &'static str {
        "x/y"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let (cfg, warnings) = Settings::parse(conf, cx.noutputs(), cx.arg_context())?;
        for w in warnings {
            cx.warning(w);
        }
        self.cfg = cfg;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if self.class != "Socket" {
            // Click's own words, printed once per element.
            cx.log(format!(
                "warning: {} is deprecated, use Socket instead",
                self.class
            ));
        }
        if !self.cfg.client && cx.hotswap_element().is_some() {
            // The old router's Socket of this name holds the address:
            // take its socket over (Click fails the swap with "bind:
            // Address already in use").
            let t = cx.new_task(true);
            self.task = Some(t);
            self.buf = vec![0u8; RECV_BUF];
            let timer = cx.new_timer();
            cx.schedule_timer_after(timer, Timestamp::from_sec(1));
            self.takeover_timer = Some(timer);
            if cx.ninputs() > 0 && !cx.input_is_push(0) {
                self.pull_input = true;
                self.signal = cx.upstream_empty_signal(0, Some(t));
            }
            return Ok(());
        }
        let state = self.open_state()?;
        if self.cfg.verbose {
            let what = match &state {
                State::Server { .. } => format!("listening on {}", self.local_address),
                State::Client(_) => format!("connected to {}", self.cfg.remote),
                State::Dgram { .. } => format!("bound to {}", self.local_address),
            };
            cx.log(format!("{}: {what}", cx.name()));
        }
        self.state = Some(state);
        self.buf = vec![0u8; RECV_BUF];
        let t = cx.new_task(true);
        self.task = Some(t);
        if let Some(fd) = self.watched_fd() {
            cx.add_select(fd, Select::Read, t);
        }
        if cx.ninputs() > 0 && !cx.input_is_push(0) {
            self.pull_input = true;
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        Ok(())
    }

    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let Some(o) = old.downcast_mut::<Socket>() else {
            return;
        };
        let (a, b) = (&self.cfg, &o.cfg);
        if self.state.is_some()
            || a.kind != b.kind
            || a.client != b.client
            || a.remote != b.remote
            || a.local != b.local
        {
            return;
        }
        let Some(state) = o.state.take() else { return };
        self.state = Some(state);
        self.local_address = o.local_address.clone();
        self.bound_path = o.bound_path.take();
        self.queue = std::mem::take(&mut o.queue);
        self.offset = std::mem::take(&mut o.offset);
        if let (Some(fd), Some(t)) = (self.watched_fd(), self.task) {
            let _ = cx.add_select(fd, Select::Read, t);
        }
        self.update_write_select(cx);
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        if Some(timer) != self.takeover_timer || self.state.is_some() {
            return;
        }
        match self.open_state() {
            Ok(state) => {
                self.state = Some(state);
                if let (Some(fd), Some(t)) = (self.watched_fd(), self.task) {
                    let _ = cx.add_select(fd, Select::Read, t);
                }
            }
            Err(e) => cx.log(format!("{}: {e}", cx.declaration())),
        }
    }
    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.state = None;
        self.queue.clear();
        self.remove_socket_file();
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.enqueue(batch, cx);
        self.flush(cx);
        // The socket is full: its becoming writable wakes the task.
        self.update_write_select(cx);
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        self.accept(cx);
        let got = self.receive(cx);
        let mut sent = self.flush(cx);
        let mut pulled = 0;
        if self.pull_input && self.queue.is_empty() && self.connected() {
            let batch = cx.pull(0, BURST);
            pulled = batch.len();
            if pulled > 0 {
                self.enqueue(batch, cx);
                sent += self.flush(cx);
            }
        }
        self.update_write_select(cx);
        // A short read drained the socket; readiness wakes the task again.
        let more_to_pull =
            self.pull_input && self.queue.is_empty() && self.connected() && self.signal.active();
        if got >= BURST || more_to_pull {
            cx.reschedule();
        }
        got > 0 || sent > 0 || pulled > 0
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Received) => Ok(self.received.to_string()),
            Some(H::Sent) => Ok(self.sent.to_string()),
            Some(H::Connections) => Ok(self.connections.to_string()),
            Some(H::Connected) => Ok(self.connected().to_string()),
            Some(H::Local) => Ok(self.local_address.clone()),
            Some(H::Queue) => Ok(self.queue.len().to_string()),
            Some(H::Drops) => Ok(self.drops.total().to_string()),
            Some(H::DropDetails) => Ok(self.drops.details()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => {
                self.received = 0;
                self.sent = 0;
                self.connections = 0;
                self.drops.reset();
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

impl Socket {
    /// Opens the configured socket (Click's `initialize_socket`).
    fn open_state(&mut self) -> Result<State, String> {
        let c = &self.cfg;
        let opened = conn::open(c.kind, c.client, &c.remote, c.local.as_ref(), &c.opts)
            .map_err(|e| self.open_error(e))?;
        let state = match opened {
            Opened::Listener(l) => {
                self.local_address = l.local();
                State::Server {
                    listener: l,
                    active: None,
                }
            }
            Opened::Stream(s) => {
                self.connections = 1;
                self.local_address = match &c.local {
                    Some(a) => a.to_string(),
                    None => String::new(),
                };
                State::Client(Some(s))
            }
            Opened::Dgram(d) => {
                self.local_address = d.local();
                State::Dgram {
                    sock: d,
                    peer: None,
                }
            }
        };
        let c = &self.cfg;
        self.bound_path = match (&c.remote, &c.local) {
            (Addr::Path(p), _) if !c.client => Some(p.clone()),
            (_, Some(Addr::Path(p))) => Some(p.clone()),
            _ => None,
        };
        Ok(state)
    }

    /// The descriptor watched for input: the listener of a server, else
    /// the data socket.
    fn watched_fd(&self) -> Option<RawFd> {
        match &self.state {
            Some(State::Server { listener, .. }) => Some(listener.raw_fd()),
            _ => self.data_fd(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::device::test_util::{build_err, registry};
    use rclick_core::testing;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream, UdpSocket};
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    /// A Script that stops the router once `cond` holds, or after 20 s.
    fn stop_when(cond: &str) -> String {
        format!("Script(label l, wait 2ms, goto l $(not {cond}), stop); Script(wait 20s, stop);")
    }

    #[test]
    fn open_errors_say_what_to_do() {
        // A port someone holds.
        let held = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = held.local_addr().unwrap().port();
        let e = build_err(&format!("Socket(TCP, 127.0.0.1, {port}) -> Discard"));
        assert!(
            e.contains("bind") && e.contains("choose another PORT"),
            "{e}"
        );
        // Nobody listening.
        drop(held);
        let e = build_err(&format!(
            "Idle -> Socket(TCP, 127.0.0.1, {port}, CLIENT true)"
        ));
        assert!(e.contains("connect") && e.contains("server running"), "{e}");
    }

    #[test]
    fn udp_server_echoes_to_the_last_sender() {
        let conf = format!(
            "s :: Socket(UDP, 127.0.0.1, 0, SNAPLEN 4); s -> c :: Counter -> s; {}",
            stop_when("$(ge $(s.sent) 3)")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        let addr = testing::read(&r, "s.local_address");
        assert!(addr.starts_with("127.0.0.1:"), "{addr}");
        let peer = std::thread::spawn(move || {
            let u = UdpSocket::bind("127.0.0.1:0").unwrap();
            u.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut got = Vec::new();
            for msg in [&b"one"[..], b"two", b"three!"] {
                u.send_to(msg, &addr).unwrap();
                let mut buf = [0u8; 100];
                let (n, _) = u.recv_from(&mut buf).unwrap();
                got.push(buf[..n].to_vec());
            }
            got
        });
        r.run();
        let got = peer.join().unwrap();
        // SNAPLEN 4 cuts the third datagram.
        assert_eq!(
            got,
            vec![b"one".to_vec(), b"two".to_vec(), b"thre".to_vec()]
        );
        assert_eq!(testing::read(&r, "s.received"), "3");
        assert_eq!(testing::read(&r, "s.sent"), "3");
        assert_eq!(testing::read(&r, "s.drops"), "0");
    }

    /// A hot swap to a configuration with the same server Socket takes
    /// over its bound socket (it used to fail with "bind: Address already
    /// in use", as Click does).
    #[test]
    fn hot_swap_takes_over_a_bound_socket() {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = probe.local_addr().unwrap().port();
        drop(probe);
        let parse = rclick_lang::Options::default();
        let opts = rclick_core::BuildOptions {
            threads: 1,
            capture_log: true,
            ..Default::default()
        };
        let h = rclick_core::HotConfig::new(parse.clone(), opts, None);
        let reg = std::sync::Arc::new(registry());
        let text = format!("s :: Socket(TCP, 127.0.0.1, {port}) -> Discard;");
        let build = |from| {
            h.build(
                rclick_lang::parse(&text, &parse).unwrap(),
                &text,
                reg.clone(),
                from,
            )
            .unwrap_or_else(|e| panic!("{e}"))
        };
        let old = build(None);
        let addr = testing::read(&old, "s.local_address");
        let new = build(Some(old.clone()));
        rclick_core::router::hotswap::transfer_state(&old, &new);
        assert_eq!(testing::read(&new, "s.local_address"), addr);
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    }

    #[test]
    fn udp_client_sends_and_server_without_peer_drops() {
        let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
        peer.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let port = peer.local_addr().unwrap().port();
        let conf = format!(
            "InfiniteSource(DATA \"hello\", LIMIT 5, STOP false) -> Queue -> out :: Socket(UDP, 127.0.0.1, {port}, CLIENT true);
             InfiniteSource(DATA \"x\", LIMIT 2, STOP false) -> srv :: Socket(UDP, 127.0.0.1, 0) -> Discard;
             {}",
            stop_when("$(and $(ge $(out.sent) 5) $(ge $(srv.drops) 2))")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        r.run();
        for _ in 0..5 {
            let mut buf = [0u8; 16];
            let (n, _) = peer.recv_from(&mut buf).unwrap();
            assert_eq!(&buf[..n], b"hello");
        }
        assert_eq!(testing::read(&r, "out.sent"), "5");
        // The server has heard from nobody: nowhere to send.
        assert_eq!(testing::read(&r, "srv.drops"), "2");
        assert!(testing::read(&r, "srv.drop_details").contains("2\tno destination\n"));
    }

    #[test]
    fn tcp_server_serves_one_client_after_another() {
        let conf = format!(
            "s :: Socket(TCP, 127.0.0.1, 0, VERBOSE false) -> s; {}",
            stop_when("$(ge $(s.connections) 2)")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        let addr = testing::read(&r, "s.local_address");
        let client = std::thread::spawn(move || {
            let mut replies = Vec::new();
            for msg in ["first client", "second client"] {
                let mut c = TcpStream::connect(&addr).unwrap();
                c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                c.write_all(msg.as_bytes()).unwrap();
                let mut buf = vec![0u8; msg.len()];
                c.read_exact(&mut buf).unwrap();
                replies.push(String::from_utf8(buf).unwrap());
                // Closing ends this connection; the server takes the next.
            }
            replies
        });
        r.run();
        let replies = client.join().unwrap();
        assert_eq!(replies, vec!["first client", "second client"]);
        assert_eq!(testing::read(&r, "s.connections"), "2");
    }

    #[test]
    fn tcp_client_streams_pulled_packets() {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = server.local_addr().unwrap().port();
        let reader = std::thread::spawn(move || {
            let (mut c, _) = server.accept().unwrap();
            c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut all = Vec::new();
            let mut buf = [0u8; 4096];
            while all.len() < 100 * 10 {
                let n = c.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                all.extend_from_slice(&buf[..n]);
            }
            all
        });
        let conf = format!(
            "InfiniteSource(DATA \"0123456789\", LIMIT 100, BURST 7, STOP false) -> Queue(200)
               -> s :: Socket(TCP, 127.0.0.1, {port});
             {}",
            stop_when("$(ge $(s.sent) 100)")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        assert_eq!(testing::read(&r, "s.connected"), "true");
        r.run();
        let all = reader.join().unwrap();
        assert_eq!(all.len(), 1000);
        assert!(all.chunks(10).all(|c| c == b"0123456789"));
        assert_eq!(testing::read(&r, "s.drops"), "0");
    }

    #[test]
    fn unix_stream_server_and_client() {
        let dir = std::env::temp_dir().join(format!("rclick-socket-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.sock");
        let conf = format!(
            "s :: Socket(UNIX, {}) -> Strip(1) -> s; {}",
            path.display(),
            stop_when("$(ge $(s.sent) 2)")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        assert!(path.exists());
        let p2 = path.clone();
        let client = std::thread::spawn(move || {
            let mut c = UnixStream::connect(&p2).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            c.write_all(b"xab").unwrap();
            let mut buf = [0u8; 2];
            c.read_exact(&mut buf).unwrap();
            // A second write: a new packet, one byte stripped again.
            std::thread::sleep(Duration::from_millis(20));
            c.write_all(b"ycd").unwrap();
            let mut buf2 = [0u8; 2];
            c.read_exact(&mut buf2).unwrap();
            [buf, buf2]
        });
        r.run();
        let got = client.join().unwrap();
        assert_eq!(&got[0], b"ab");
        assert_eq!(&got[1], b"cd");
        drop(r);
        assert!(!path.exists(), "the server removes its socket file");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unix_datagram_server_answers_named_senders() {
        use std::os::unix::net::UnixDatagram;
        let dir = std::env::temp_dir().join(format!("rclick-socket-dgram-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("srv.sock");
        let conf = format!(
            "s :: Socket(UNIX_DGRAM, {}) -> s; {}",
            path.display(),
            stop_when("$(ge $(s.sent) 2)")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        let (p2, me) = (path.clone(), dir.join("client.sock"));
        let client = std::thread::spawn(move || {
            let u = UnixDatagram::bind(&me).unwrap();
            u.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut got = Vec::new();
            for msg in [&b"ping"[..], b"again"] {
                u.send_to(msg, &p2).unwrap();
                let mut buf = [0u8; 64];
                let n = u.recv(&mut buf).unwrap();
                got.push(buf[..n].to_vec());
            }
            got
        });
        r.run();
        assert_eq!(
            client.join().unwrap(),
            vec![b"ping".to_vec(), b"again".to_vec()]
        );
        assert_eq!(testing::read(&r, "s.received"), "2");
        drop(r);
        assert!(!path.exists(), "the server removes its socket file");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Times the calling thread has gone to sleep (the router runs its
    /// thread 0 on the caller's thread).
    fn voluntary_switches() -> u64 {
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    /// An idle Socket sleeps until its socket is readable: no timer wakes
    /// the router meanwhile (polling every 50-500 µs would wake it
    /// hundreds of times in 300 ms), and a datagram that arrives after a
    /// long quiet spell is answered at once.
    #[test]
    fn idle_socket_sleeps_until_readable() {
        let conf = "s :: Socket(UDP, 127.0.0.1, 0) -> s; Script(wait 300ms, stop);";
        let r = testing::build(conf, &registry(), false).unwrap();
        let addr = testing::read(&r, "s.local_address");
        let peer = std::thread::spawn(move || {
            let u = UdpSocket::bind("127.0.0.1:0").unwrap();
            u.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            std::thread::sleep(Duration::from_millis(150));
            let t0 = std::time::Instant::now();
            u.send_to(b"late", &addr).unwrap();
            let mut buf = [0u8; 16];
            let n = u.recv(&mut buf).unwrap();
            (buf[..n].to_vec(), t0.elapsed())
        });
        let before = voluntary_switches();
        r.run();
        let sleeps = voluntary_switches() - before;
        let (got, rtt) = peer.join().unwrap();
        assert_eq!(got, b"late");
        assert!(sleeps < 50, "the router slept {sleeps} times in 300 ms");
        // Generous: a loaded machine may delay any wake-up.
        assert!(rtt < Duration::from_millis(100), "{rtt:?}");
    }

    #[test]
    fn stream_without_connection_drops_pushed_packets() {
        let conf = format!(
            "InfiniteSource(LIMIT 3, STOP false) -> s :: Socket(TCP, 127.0.0.1, 0) -> Discard; {}",
            stop_when("$(ge $(s.drops) 3)")
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        r.run();
        assert_eq!(testing::read(&r, "s.drops"), "3");
        assert!(testing::read(&r, "s.drop_details").starts_with("3\tnot connected\n"));
        assert_eq!(testing::read(&r, "s.connected"), "false");
    }
}
