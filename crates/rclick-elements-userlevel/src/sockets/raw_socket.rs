//! # RawSocket
//!
//! `RawSocket(TYPE [, PORT, KEYWORDS])`, TYPE one of `TCP`, `UDP`, `GRE`,
//! `ICMP`, `SCTP` or an IP protocol number
//!
//! **Category:** comm. Sends and receives IP packets through a raw IPv4
//! socket (user-level, Linux).
//!
//! **Ports:** at most one pull input; at most one push output.
//!
//! ## Description
//!
//! Opens a raw IPv4 socket for the protocol TYPE, with the IP header
//! included (`IP_HDRINCL`). Every packet of that protocol the host
//! receives is emitted on the output, a copy, IP header first (the kernel
//! still answers them itself). Without an output the socket is not read
//! (its receive buffer is made as small as the kernel allows). Packets pulled from the input are IP
//! packets, header first, sent as they are to their IP destination
//! address (the kernel fills in a zero source address, a zero
//! identification, the total length and the header checksum).
//!
//! Opening a raw socket needs root or `CAP_NET_RAW`; without it the
//! router fails to initialize with `socket: Operation not permitted`.
//!
//! PORT (an unsigned number: a TCP or UDP port, a GRE key, an ICMP
//! identifier) is bound on PlanetLab kernels only; elsewhere it is accepted
//! and has no effect, as in Click.
//!
//! The input is pulled while the socket takes packets, up to 32 at a
//! time; those the socket cannot take yet wait until it can. Packets
//! without a valid IPv4 header are dropped (`bad IP header`), as are those
//! the kernel refuses (`send error`, e.g. `EMSGSIZE`), each reason counted.
//! Reads emit up to 32 packets per task run; the task sleeps until the
//! socket is readable.
//!
//! Keywords:
//!
//! * `SNAPLEN` (unsigned): most bytes kept per received packet; the rest
//!   is counted in the extra length annotation. Default 2048.
//! * `HEADROOM` (unsigned): headroom of received packets. Default 28.
//! * `PROPER` (boolean): PlanetLab's Proper; accepted and ignored (with a
//!   warning when true).
//!
//! ## Annotations
//!
//! Received packets get the timestamp annotation (the time of reading)
//! and, when cut by SNAPLEN, the extra length annotation.
//!
//! ## Handlers
//!
//! * `received`, `sent` (read): packets received and sent.
//! * `drops` (read), `drop_details` (read: `COUNT<TAB>REASON` lines;
//!   reasons `bad IP header`, `send error`).
//!
//! ## Examples
//!
//! ```text
//! // Watch the ICMP the host receives.
//! FromRawSocket(ICMP) -> IPPrint(icmp) -> Discard;
//! // Send prepared UDP packets.
//! ... -> Queue -> ToRawSocket(UDP);
//! ```
//!
//! ## See also
//!
//! FromRawSocket, ToRawSocket, Socket, FromDevice

use std::collections::VecDeque;
use std::io::Read;
use std::net::SocketAddrV4;
use std::os::fd::AsRawFd;

use rclick_core::args::{Args, Word};
use rclick_core::router::Select;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId};
use rclick_packet::{Packet, PacketBatch};
use rclick_wire::Ipv4Packet;
use socket2::{Domain, Protocol, SockAddr, Socket as RawSock, Type};

use rclick_core::drops::Drops;

rclick_core::drop_reasons! {
    /// Why RawSocket dropped a packet (the manual's `drop_details` list).
    enum Why {
        BadHeader = "bad IP header",
        SendError = "send error",
    }
}
/// Most reads, and most pulled packets, per task run.
const BURST: usize = 32;
/// The receive buffer: the largest IP packet.
const RECV_BUF: usize = 65536;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Received = read("received"),
        Sent = read("sent"),
        Drops = read("drops"),
        DropDetails = read("drop_details"),
    }
}

/// Click's RawSocket (and, by class name, FromRawSocket and ToRawSocket).
pub struct RawSocket {
    class: &'static str,
    protocol: i32,
    snaplen: usize,
    headroom: usize,
    sock: Option<RawSock>,
    buf: Vec<u8>,
    /// Pulled packets the socket could not take yet (at most [`BURST`]).
    pending: VecDeque<Packet>,
    writing: bool,
    task: Option<TaskId>,
    signal: NotifierSignal,
    pull_input: bool,
    received: u64,
    sent: u64,
    drops: Drops<Why>,
}

impl RawSocket {
    /// A RawSocket made as `class`.
    pub(crate) fn with_class(class: &'static str) -> Self {
        RawSocket {
            class,
            protocol: libc::IPPROTO_ICMP,
            snaplen: 2048,
            headroom: rclick_packet::DEFAULT_HEADROOM,
            sock: None,
            buf: Vec::new(),
            pending: VecDeque::new(),
            writing: false,
            task: None,
            signal: NotifierSignal::Busy,
            pull_input: false,
            received: 0,
            sent: 0,
            drops: Drops::default(),
        }
    }

    fn drop_packet(&mut self, why: Why, detail: Option<&str>, cx: &Ctx) {
        let who = cx.declaration();
        crate::drops::count(&mut self.drops, why, 1, detail, false, &who, cx);
    }

    /// Sends `p`; gives it back if the socket is full.
    fn send(&mut self, p: Packet, cx: &Ctx) -> Option<Packet> {
        let dst = match Ipv4Packet::new_checked(p.data()) {
            Ok(ip) => ip.dst_addr(),
            Err(_) => {
                self.drop_packet(Why::BadHeader, None, cx);
                return None;
            }
        };
        let sock = self.sock.as_ref()?;
        let to = SockAddr::from(SocketAddrV4::new(dst, 0));
        match sock.send_to(p.data(), &to) {
            Ok(_) => {
                self.sent += 1;
                None
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Some(p),
            Err(e) => {
                self.drop_packet(Why::SendError, Some(&e.to_string()), cx);
                None
            }
        }
    }

    fn receive(&mut self, cx: &mut Ctx) -> usize {
        let Some(sock) = &self.sock else { return 0 };
        if cx.noutputs() == 0 {
            return 0;
        }
        let mut out = PacketBatch::new();
        for _ in 0..BURST {
            let n = match (&*sock).read(&mut self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let keep = n.min(self.snaplen);
            let Ok(mut p) = Packet::try_make(self.headroom, &self.buf[..keep], 0) else {
                continue;
            };
            if n > keep {
                p.set_extra_length_anno(u32::try_from(n - keep).unwrap_or(u32::MAX));
            }
            p.set_timestamp_anno(cx.now());
            out.push(p);
        }
        let n = out.len();
        if n > 0 {
            self.received += n as u64;
            cx.push(0, out);
        }
        n
    }
}

impl Element for RawSocket {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn port_count(&self) -> &'static str {
        "0-1/0-1"
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }
    fn flow_code(&self) -> &'static str {
        "x/y"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ty = Word::default();
        let mut port: u16 = 0;
        let mut snaplen: u32 = 2048;
        let mut headroom: u32 = rclick_packet::DEFAULT_HEADROOM as u32;
        let mut proper = false;
        Args::new(conf)
            .read_mp("TYPE", &mut ty)
            .read_p("PORT", &mut port)
            .read("SNAPLEN", &mut snaplen)
            .read("HEADROOM", &mut headroom)
            .read("PROPER", &mut proper)
            .complete()
            .map_err(|e| e.to_string())?;
        self.protocol = match ty.0.to_ascii_uppercase().as_str() {
            "TCP" => libc::IPPROTO_TCP,
            "UDP" => libc::IPPROTO_UDP,
            "GRE" => libc::IPPROTO_GRE,
            "ICMP" => libc::IPPROTO_ICMP,
            "SCTP" => libc::IPPROTO_SCTP,
            w => match w.parse::<u8>() {
                Ok(n) if n > 0 => i32::from(n),
                _ => {
                    return Err(format!(
                        "TYPE: invalid number '{}' (expected TCP, UDP, GRE, ICMP, SCTP or an IP protocol number 1 to 255)",
                        ty.0
                    ))
                }
            },
        };
        if snaplen == 0 || snaplen as usize > RECV_BUF {
            return Err(format!("SNAPLEN must be between 1 and {RECV_BUF}"));
        }
        if headroom > 8192 {
            return Err("HEADROOM too big (at most 8192)".into());
        }
        if proper {
            cx.warning("PROPER is PlanetLab-specific and ignored");
        }
        self.snaplen = snaplen as usize;
        self.headroom = headroom as usize;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if self.class != "RawSocket" {
            cx.log(format!(
                "warning: {} is deprecated, use RawSocket instead",
                self.class
            ));
        }
        let sock = RawSock::new(Domain::IPV4, Type::RAW, Some(Protocol::from(self.protocol)))
            .map_err(|e| {
                let hint = if e.kind() == std::io::ErrorKind::PermissionDenied {
                    " (raw sockets need root or CAP_NET_RAW)"
                } else {
                    ""
                };
                format!("socket: {e}{hint}")
            })?;
        sock.set_header_included_v4(true)
            .map_err(|e| format!("setsockopt(IP_HDRINCL): {e}"))?;
        sock.set_nonblocking(true)
            .map_err(|e| format!("fcntl: {e}"))?;
        let t = cx.new_task(true);
        self.task = Some(t);
        if cx.noutputs() > 0 {
            cx.add_select(sock.as_raw_fd(), Select::Read, t);
        } else {
            // Nothing reads this socket: keep the kernel's copies few.
            let _ = sock.set_recv_buffer_size(1);
        }
        if cx.ninputs() > 0 {
            self.pull_input = true;
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        self.sock = Some(sock);
        self.buf = vec![0u8; RECV_BUF];
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let got = self.receive(cx);
        let mut sent = 0;
        if self.pending.is_empty() && self.pull_input {
            self.pending.extend(cx.pull(0, BURST));
        }
        while let Some(p) = self.pending.pop_front() {
            if let Some(back) = self.send(p, cx) {
                self.pending.push_front(back);
                break;
            }
            sent += 1;
        }
        let want_write = !self.pending.is_empty();
        if let (Some(sock), Some(t)) = (&self.sock, self.task) {
            let fd = sock.as_raw_fd();
            if want_write && !self.writing {
                self.writing = cx.add_select(fd, Select::Write, t).is_ok();
            } else if !want_write && self.writing {
                cx.remove_select(fd, Select::Write);
                self.writing = false;
            }
        }
        if got >= BURST || (self.pull_input && self.pending.is_empty() && self.signal.active()) {
            cx.reschedule();
        }
        got > 0 || sent > 0
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Received) => Ok(self.received.to_string()),
            Some(H::Sent) => Ok(self.sent.to_string()),
            Some(H::Drops) => Ok(self.drops.total().to_string()),
            Some(H::DropDetails) => Ok(self.drops.details()),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::device::test_util::{build_err, raw_sockets_allowed, registry};
    use rclick_core::testing;

    /// An ICMP echo request from 127.0.0.1 to 127.0.0.1, as hex for
    /// InfiniteSource's DATA.
    fn echo_request() -> String {
        let mut p = vec![
            0x45, 0, 0, 28, 0, 0, 0, 0, 64, 1, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1, // IP
            8, 0, 0, 0, 0x52, 0x43, 0, 1, // ICMP echo, id 0x5243, seq 1
        ];
        let c = rclick_wire::checksum::internet_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        let c = rclick_wire::checksum::internet_checksum(&p[20..]);
        p[22..24].copy_from_slice(&c.to_be_bytes());
        p.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// On loopback: ToRawSocket sends an echo request; FromRawSocket sees
    /// it and the kernel's reply.
    #[test]
    fn echo_over_loopback() {
        if !raw_sockets_allowed() {
            eprintln!("skipped: raw sockets need root or CAP_NET_RAW");
            return;
        }
        let conf = format!(
            "InfiniteSource(DATA \\<{}>, LIMIT 1, STOP false) -> Queue -> t :: ToRawSocket(ICMP);
             f :: FromRawSocket(ICMP) -> c :: Counter -> Discard;
             Script(label l, wait 2ms, goto l $(lt $(c.count) 2), stop);
             Script(wait 20s, stop);",
            echo_request()
        );
        let r = testing::build(&conf, &registry(), false).unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "warning: ToRawSocket is deprecated, use RawSocket instead".to_string(),
                "warning: FromRawSocket is deprecated, use RawSocket instead".to_string(),
            ]
        );
        r.run();
        assert_eq!(testing::read(&r, "t.sent"), "1");
        assert!(testing::read(&r, "c.count").parse::<u64>().unwrap() >= 2);
        assert_eq!(testing::read(&r, "t.drops"), "0");
    }

    /// Packets that are not IP are dropped and counted.
    #[test]
    fn bad_packets_are_counted() {
        if !raw_sockets_allowed() {
            eprintln!("skipped: raw sockets need root or CAP_NET_RAW");
            return;
        }
        let r = testing::build(
            "InfiniteSource(DATA \"not an IP packet\", LIMIT 2, STOP false) -> Queue -> t :: RawSocket(UDP);
             Script(label l, wait 2ms, goto l $(lt $(t.drops) 2), stop);
             Script(wait 20s, stop);",
            &registry(),
            false,
        )
        .unwrap();
        r.run();
        assert_eq!(testing::read(&r, "t.drops"), "2");
        assert_eq!(
            testing::read(&r, "t.drop_details"),
            "2\tbad IP header\n0\tsend error\n"
        );
        assert_eq!(testing::read(&r, "t.sent"), "0");
    }

    #[test]
    fn configuration_errors() {
        // Checked against Click: a protocol it cannot name is refused.
        let e = build_err("RawSocket(FOO)");
        assert!(e.contains("TYPE: invalid number 'FOO'"), "{e}");
        let e = build_err("RawSocket(0)");
        assert!(e.contains("TYPE: invalid number"), "{e}");
        let e = build_err("RawSocket");
        assert!(e.contains("TYPE: required argument missing"), "{e}");
        let e = build_err("RawSocket(UDP, 70000)");
        assert!(e.contains("PORT: out of range"), "{e}");
        let e = build_err("RawSocket(UDP, 53, SNAPLEN 0)");
        assert!(e.contains("SNAPLEN"), "{e}");
    }
}

/// Checks shared by the tests of FromRawSocket and ToRawSocket, which are
/// RawSocket under other names.
#[cfg(test)]
pub(crate) mod deprecated_form_tests {
    use crate::device::test_util::{build_err, handler_names, raw_sockets_allowed, registry};
    use rclick_core::{testing, Element};

    /// `e` is a RawSocket made as `class`: its ports, processing and
    /// handlers are RawSocket's.
    pub(crate) fn is_raw_socket(e: &super::RawSocket, class: &str) {
        assert_eq!(e.class_name(), class);
        assert_eq!(e.port_count(), "0-1/0-1");
        assert_eq!(e.processing(), "l/h");
        assert_eq!(
            handler_names(e),
            ["received", "sent", "drops", "drop_details"]
        );
    }

    /// Each bad argument list `args`, put in a configuration by `conf`,
    /// fails to configure element `decl` with Click's message (`TYPE:
    /// required argument missing`, `TYPE: invalid number`, `PORT` out of
    /// range, `X: unknown argument`) or ours.
    pub(crate) fn configuration_errors(conf: impl Fn(&str) -> String, decl: &str) {
        let cases = [
            ("", "TYPE: required argument missing"),
            ("FOO", "TYPE: invalid number 'FOO'"),
            ("UDP, 70000", "PORT: out of range"),
            ("TCP, BOGUS 1", "BOGUS: unknown argument"),
            ("ICMP, SNAPLEN 0", "SNAPLEN must be between 1 and 65536"),
            ("ICMP, HEADROOM 9000", "HEADROOM too big"),
        ];
        for (args, want) in cases {
            let e = build_err(&conf(args));
            let at = format!("While configuring '{decl}'");
            assert!(e.contains(&at), "{args}: {e}");
            assert!(e.contains(want), "{args}: {e}");
        }
    }

    /// `conf` (with element `t` of class `class`) builds where raw sockets
    /// are allowed, logging the deprecation warning, with its counts at
    /// zero; elsewhere initialization fails saying why.
    pub(crate) fn opens_or_says_why_not(conf: &str, class: &str) {
        if raw_sockets_allowed() {
            let r = testing::build(conf, &registry(), true).unwrap();
            let warning = format!("warning: {class} is deprecated, use RawSocket instead");
            assert_eq!(r.take_log(), [warning]);
            assert_eq!(testing::read(&r, "t.sent"), "0");
            assert_eq!(testing::read(&r, "t.received"), "0");
            assert_eq!(testing::read(&r, "t.drops"), "0");
        } else {
            let e = build_err(conf);
            let at = format!("While initializing 't :: {class}'");
            assert!(e.contains(&at), "{e}");
            assert!(e.contains("socket: ") && e.contains("CAP_NET_RAW"), "{e}");
        }
    }
}
