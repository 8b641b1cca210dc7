//! # ToDevice
//!
//! `ToDevice(DEVNAME [, KEYWORDS])`
//!
//! **Category:** netdevices. Sends packets to a network device (user-level, Linux).
//!
//! **Ports:** one pull input; zero, one or two push outputs.
//!
//! ## Description
//!
//! Pulls packets and sends them out the interface DEVNAME through a Linux
//! packet socket. Packets must already carry their link-level (Ethernet)
//! header: ARP, for example, must be done upstream (ARPQuerier).
//!
//! METHOD chooses how packets reach the kernel:
//!
//! * `LINUX` (the default): a task pulls up to BURST packets per run and
//!   hands them to the kernel with one `sendmmsg` call. When the socket is
//!   full (`EAGAIN`, `ENOBUFS`) ToDevice keeps the packets it could not send
//!   and retries them before pulling more (see below).
//! * `MMAP`: a transmit ring shared with the kernel (`PACKET_TX_RING`,
//!   TPACKET_V2 slots sized for the device's MTU). A task pulls only as
//!   many packets as the ring has free slots (at most BURST), copies them
//!   in, and one `send(MSG_DONTWAIT)` makes the kernel transmit them all.
//!   When no slot is free it counts `ring_full` and retries (see below)
//!   without pulling.
//! * `XDP`: the TX ring of an AF_XDP socket in copy mode, bound to queue 0
//!   (shared with a FromDevice on the same device, which also attaches the
//!   XDP program; a ToDevice alone attaches none). Like MMAP, it pulls
//!   only as many packets as there are free transmit frames.
//!
//! Either way a full device pushes back on its queue: packets wait
//! upstream (a Queue fills, and counts its own drops), and none is silently
//! lost. As Click's ToDevice does, the first time the device has no room
//! the task sleeps until the socket is writable (the router watches it,
//! `add_select`); if there is still no room when it wakes, it retries on a
//! timer after 1 µs, then 2, 4... up to 256 µs, until a packet goes. The
//! task sleeps while its upstream is empty (a Queue's empty notifier):
//! an idle ToDevice costs nothing.
//!
//! Packets sent successfully go to output 0 if it exists (else they are
//! freed); packets the kernel refuses (too long for the device, device
//! down) are counted in `drops` and go to output 1 if it exists. With
//! METHOD MMAP or XDP ToDevice checks lengths itself: a packet shorter than an
//! Ethernet header or longer than the device's MTU (read when the router
//! starts) plus its Ethernet header (and a VLAN tag, if it has one) is
//! counted in `drops` and `oversize` and goes to output 1.
//!
//! Opening a packet socket needs CAP_NET_RAW (root); a missing interface or
//! privilege fails initialization with a message saying what to do.
//!
//! Keywords:
//!
//! * `BURST` (unsigned): most packets sent per task run, 1 to 64. Default
//!   32 (Click's is 1; rclick moves packets in batches).
//! * `METHOD` (word): `LINUX` (packet socket with `sendmmsg`, the
//!   default), `MMAP` (memory-mapped transmit ring) or `XDP` (AF_XDP, copy
//!   mode). `PCAP` and `NETMAP` are refused.
//! * `RING_SIZE` (bytes): with METHOD MMAP, the transmit ring's memory.
//!   Default 1048576 (1 MB: 512 slots at MTU 1500).
//! * `QUEUE` (unsigned): accepted for compatibility with ToDevice(n); ignored.
//! * `DEBUG` (boolean): print every send error. Default false (the first
//!   few are printed).
//!
//! ## Handlers
//!
//! * `count` (read): packets sent.
//! * `drops` (read): packets the kernel refused.
//! * `pulls` (read): task runs that pulled packets.
//! * `q` (read): packets waiting for room in the socket (METHOD MMAP: ring
//!   slots the kernel has not finished sending).
//! * `oversize` (read): packets dropped as too long (or too short) for the
//!   device (METHOD MMAP and XDP).
//! * `ring_full` (read): task runs that found no free ring slot (METHOD
//!   MMAP and XDP).
//! * `method` (read): the METHOD in use.
//! * `signal` (read): the upstream notifier signal (`true` when packets
//!   may be waiting).
//! * `debug` (read/write): the DEBUG setting.
//! * `reset_counts` (write): sets `count`, `drops` and `pulls` to 0.
//!
//! ## Examples
//!
//! ```text
//! ... -> Queue(1000) -> ToDevice(veth0);
//! ... -> Queue(1000) -> ToDevice(veth0, METHOD MMAP);
//! ```
//!
//! ## See also
//!
//! FromDevice, Queue, ARPQuerier, `rclick testbed`

use std::os::fd::{AsRawFd, RawFd};

use rclick_core::args::{Args, Word};
use rclick_core::router::Select;
use rclick_core::{
    phase, ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId,
};
use rclick_packet::{PacketBatch, Timestamp};

use super::ring::{RingConfig, RxVersion, TxRefused, TxRing};
use super::sys::{self, PacketSocket, MAX_BATCH};
use super::xdp::{self, Xsk};
use super::Method;
use std::sync::{Arc, Mutex};

/// Where packets go.
enum Sink {
    /// Not initialized (or cleaned up).
    Closed,
    /// METHOD LINUX: `sendmmsg` on a packet socket.
    Socket(PacketSocket),
    /// METHOD MMAP: a transmit ring.
    Ring(TxRing),
    /// METHOD XDP: the interface's AF_XDP socket (shared with FromDevice).
    Xdp(Arc<Mutex<Xsk>>),
}

fn lock(x: &Mutex<Xsk>) -> std::sync::MutexGuard<'_, Xsk> {
    x.lock().unwrap_or_else(|p| p.into_inner())
}

impl Sink {
    /// Frames the ring can take now (at most `max`).
    fn room(&mut self, max: usize) -> usize {
        match self {
            Sink::Ring(r) => r.free_slots(max),
            Sink::Xdp(x) => lock(x).tx_room(max),
            _ => 0,
        }
    }

    /// Copies a frame into the ring.
    fn put(&mut self, frame: &[u8]) -> Result<(), TxRefused> {
        match self {
            Sink::Ring(r) => r.push(frame),
            Sink::Xdp(x) => {
                let mut x = lock(x);
                if frame.len() > x.max_frame() {
                    Err(TxRefused::TooLong)
                } else if x.send(frame) {
                    Ok(())
                } else {
                    Err(TxRefused::Full)
                }
            }
            _ => Err(TxRefused::Full),
        }
    }

    /// Makes the kernel send what the ring holds.
    fn kick(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Ring(r) => r.kick(),
            Sink::Xdp(x) => lock(x).kick(),
            _ => Ok(()),
        }
    }

    /// The descriptor that becomes writable when there is room.
    fn raw_fd(&self) -> Option<RawFd> {
        match self {
            Sink::Socket(s) => Some(s.fd().as_raw_fd()),
            Sink::Ring(r) => Some(r.socket().fd().as_raw_fd()),
            Sink::Xdp(x) => Some(lock(x).raw_fd()),
            Sink::Closed => None,
        }
    }

    /// Whether frames wait for a kick that the kernel refused for now.
    fn needs_kick(&self) -> bool {
        match self {
            Sink::Ring(r) => r.needs_kick(),
            Sink::Xdp(x) => lock(x).tx_in_flight() > 0,
            _ => false,
        }
    }
}

/// The ToDevice element.
pub struct ToDevice {
    ifname: String,
    burst: usize,
    debug: bool,
    method: Method,
    ring_size: usize,
    /// Longest frame the device takes (MTU + Ethernet header), read at
    /// initialization; a VLAN-tagged frame may be 4 bytes longer.
    max_len: usize,
    sink: Sink,
    /// Packets pulled but not yet accepted by the kernel, oldest first.
    pending: PacketBatch,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
    /// Microseconds to wait before the next retry for room; 0 after a
    /// packet went.
    backoff_us: u32,
    /// Whether the router watches the socket for room.
    write_selected: bool,
    count: u64,
    drops: u64,
    pulls: u64,
    oversize: u64,
    ring_full: u64,
    errors_reported: u32,
}

impl Default for ToDevice {
    fn default() -> Self {
        ToDevice {
            ifname: String::new(),
            burst: 32,
            debug: false,
            method: Method::Linux,
            ring_size: 1 << 20,
            max_len: 1514,
            sink: Sink::Closed,
            pending: PacketBatch::new(),
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
            backoff_us: 0,
            write_selected: false,
            count: 0,
            drops: 0,
            pulls: 0,
            oversize: 0,
            ring_full: 0,
            errors_reported: 0,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
        Drops = read("drops"),
        Pulls = read("pulls"),
        Q = read("q"),
        Oversize = read("oversize"),
        RingFull = read("ring_full"),
        Method = read("method"),
        Signal = read("signal"),
        Debug = read_write("debug"),
        Reset = write("reset_counts"),
    }
}

/// What one send attempt did.
enum Sent {
    /// The kernel took this many of the pending packets (maybe 0 when full).
    Some(usize),
    /// The first pending packet was refused for good.
    Refused(std::io::Error),
}

impl ToDevice {
    /// The interface name.
    pub fn ifname(&self) -> &str {
        &self.ifname
    }

    fn try_send(&self) -> Sent {
        let Sink::Socket(sock) = &self.sink else {
            return Sent::Some(0);
        };
        let mut frames: [&[u8]; MAX_BATCH] = [&[]; MAX_BATCH];
        let n = self.pending.len().min(MAX_BATCH);
        for (f, p) in frames.iter_mut().zip(self.pending.iter()) {
            *f = p.data();
        }
        match sock.send_batch(&frames[..n]) {
            Ok(k) => Sent::Some(k),
            Err(e) if sys::would_block(&e) => Sent::Some(0),
            Err(e) => Sent::Refused(e),
        }
    }

    /// Removes the first `k` pending packets into a batch.
    fn take_front(&mut self, k: usize) -> PacketBatch {
        let mut rest = PacketBatch::with_capacity(self.pending.len().saturating_sub(k));
        let mut front = PacketBatch::with_capacity(k);
        for (i, p) in self.pending.drain().enumerate() {
            if i < k {
                front.push(p);
            } else {
                rest.push(p);
            }
        }
        self.pending = rest;
        front
    }

    /// Sends as much of `pending` as the kernel takes. Returns whether
    /// everything went (false: the socket is full, retry later).
    fn flush(&mut self, cx: &mut Ctx) -> bool {
        while !self.pending.is_empty() {
            match self.try_send() {
                Sent::Some(0) => return false,
                Sent::Some(k) => {
                    self.backoff_us = 0;
                    self.count += k as u64;
                    let sent = self.take_front(k);
                    cx.checked_push(0, sent);
                }
                Sent::Refused(e) => {
                    self.drops += 1;
                    let bad = self.take_front(1);
                    if self.debug || self.errors_reported < 5 {
                        self.errors_reported += 1;
                        let len = bad.first().map_or(0, |p| p.len());
                        cx.log(format!(
                            "ToDevice({}): sendmmsg ({len} bytes): {}",
                            self.ifname,
                            sys::strerror(&e)
                        ));
                    }
                    cx.checked_push(1, bad);
                }
            }
        }
        true
    }
}

impl Element for ToDevice {
    fn class_name(&self) -> &'static str {
        "ToDevice"
    }
    fn port_count(&self) -> &'static str {
        "1/0-2"
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }
    fn configure_phase(&self) -> i32 {
        phase::PRIVILEGED
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ifname = String::new();
        let mut burst: u32 = 32;
        let mut method = Word::default();
        let mut queue: u32 = 0;
        let mut debug = false;
        let mut allow_nonexistent = false;
        let mut ring_size: u32 = 1 << 20;
        Args::new(conf)
            .read_mp("DEVNAME", &mut ifname)
            .read("BURST", &mut burst)
            .read("METHOD", &mut method)
            .read("QUEUE", &mut queue)
            .read("DEBUG", &mut debug)
            .read("ALLOW_NONEXISTENT", &mut allow_nonexistent)
            .read("RING_SIZE", &mut ring_size)
            .complete()
            .map_err(|e| e.to_string())?;
        if ifname.is_empty() {
            return Err("DEVNAME: interface not set".into());
        }
        let method = super::parse_method(&method.0)?;
        if !(1..=MAX_BATCH as u32).contains(&burst) {
            return Err(format!("BURST must be between 1 and {MAX_BATCH}"));
        }
        if !((64 << 10)..=(1 << 30)).contains(&ring_size) {
            return Err("RING_SIZE must be between 65536 and 1073741824 bytes".into());
        }
        self.method = method;
        self.ring_size = ring_size as usize;
        self.ifname = ifname;
        self.burst = burst as usize;
        self.debug = debug;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let sock = super::open_socket("ToDevice", &self.ifname, false)?;
        // The frame limit the kernel applies (the Ethernet header on top of the MTU).
        self.max_len = super::max_frame(&self.ifname) - 8;
        self.sink = match self.method {
            Method::Linux => Sink::Socket(sock),
            Method::Mmap => {
                let cfg = RingConfig {
                    version: RxVersion::V2,
                    max_frame: self.max_len + 4,
                    ring_bytes: self.ring_size,
                    block_timeout_ms: 1,
                };
                Sink::Ring(TxRing::new(sock, &cfg).map_err(|e| {
                    format!(
                        "ToDevice({}): PACKET_TX_RING: {}",
                        self.ifname,
                        sys::strerror(&e)
                    )
                })?)
            }
            Method::Xdp => {
                drop(sock);
                Sink::Xdp(
                    xdp::open(&self.ifname, super::max_frame(&self.ifname), false)
                        .map_err(|e| format!("ToDevice({}): METHOD XDP: {e}", self.ifname))?,
                )
            }
        };
        let t = cx.new_task(true);
        self.task = Some(t);
        // Only for backing off while the device has no room.
        self.timer = Some(cx.new_timer());
        self.signal = cx.upstream_empty_signal(0, Some(t));
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.pending.clear();
        // Frames already in the ring go out.
        let _ = self.sink.kick();
        self.sink = Sink::Closed;
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if self.write_selected {
            // Woken because the socket became writable (or for another
            // reason): stop watching; wait_for_room watches again if needed.
            self.write_selected = false;
            if let Some(fd) = self.sink.raw_fd() {
                cx.remove_select(fd, Select::Write);
            }
        }
        if matches!(self.sink, Sink::Ring(_) | Sink::Xdp(_)) {
            return self.run_ring(cx);
        }
        let mut worked = false;
        if !self.pending.is_empty() && !self.flush(cx) {
            // Still full.
            self.wait_for_room(cx);
            return false;
        }
        let batch = cx.pull(0, self.burst);
        if !batch.is_empty() {
            worked = true;
            self.pulls += 1;
            self.pending = batch;
            if !self.flush(cx) {
                self.wait_for_room(cx);
                return true;
            }
        }
        if worked || self.signal.active() {
            cx.reschedule();
        }
        worked
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Count) => Ok(self.count.to_string()),
            Some(H::Drops) => Ok(self.drops.to_string()),
            Some(H::Pulls) => Ok(self.pulls.to_string()),
            Some(H::Q) => Ok(match &self.sink {
                Sink::Ring(r) => r.in_flight(),
                Sink::Xdp(x) => lock(x).tx_in_flight(),
                _ => self.pending.len(),
            }
            .to_string()),
            Some(H::Oversize) => Ok(self.oversize.to_string()),
            Some(H::RingFull) => Ok(self.ring_full.to_string()),
            Some(H::Method) => Ok(super::method_name(self.method).into()),
            Some(H::Signal) => Ok(self.signal.active().to_string()),
            Some(H::Debug) => Ok(self.debug.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Debug) => {
                let mut d = false;
                Args::new(&[value.to_string()])
                    .read_mp("DEBUG", &mut d)
                    .complete()
                    .map_err(|e| e.to_string())?;
                self.debug = d;
                Ok(())
            }
            Some(H::Reset) => {
                self.count = 0;
                self.drops = 0;
                self.pulls = 0;
                self.oversize = 0;
                self.ring_full = 0;
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

impl ToDevice {
    /// Whether the kernel would refuse `frame` as too long for the device
    /// (a VLAN tag may add 4 bytes to the MTU).
    fn too_long(&self, frame: &[u8]) -> bool {
        let tagged =
            frame.len() >= 14 && matches!([frame[12], frame[13]], [0x81, 0x00] | [0x88, 0xa8]);
        frame.len() > self.max_len + if tagged { 4 } else { 0 }
    }

    fn log_error(&mut self, cx: &mut Ctx, msg: String) {
        if self.debug || self.errors_reported < 5 {
            self.errors_reported += 1;
            cx.log(format!("ToDevice({}): {msg}", self.ifname));
        }
    }

    /// One task run with a transmit ring: pull only as many packets as the
    /// ring has free slots (a full ring leaves them in the upstream queue),
    /// copy them in, and kick the kernel.
    fn run_ring(&mut self, cx: &mut Ctx) -> bool {
        if let Err(e) = self.sink.kick() {
            let msg = format!("send: {}", sys::strerror(&e));
            self.log_error(cx, msg);
        }
        let free = self.sink.room(self.burst);
        if free == 0 {
            self.ring_full += 1;
            self.wait_for_room(cx);
            return false;
        }
        let batch = cx.pull(0, free);
        if batch.is_empty() {
            if self.signal.active() {
                cx.reschedule();
            } else if self.sink.needs_kick() {
                // The kernel's socket buffer was full, or frames are still
                // in flight: look again when there is room.
                self.wait_for_room(cx);
            }
            return false;
        }
        self.pulls += 1;
        let mut sent = PacketBatch::with_capacity(batch.len());
        let mut refused = PacketBatch::new();
        let mut errors = Vec::new();
        for p in batch {
            let why = if p.len() < 14 {
                Some("shorter than an Ethernet header")
            } else if self.too_long(p.data()) {
                Some("longer than the device MTU")
            } else {
                match self.sink.put(p.data()) {
                    Ok(()) => None,
                    Err(TxRefused::TooLong) => Some("longer than a ring slot"),
                    // room() said there was room; nothing else fills the ring.
                    Err(TxRefused::Full) => Some("ring full"),
                }
            };
            match why {
                None => sent.push(p),
                Some(why) => {
                    if why.starts_with("ring") {
                        self.ring_full += 1;
                    } else {
                        self.oversize += 1;
                    }
                    self.drops += 1;
                    errors.push(format!("dropped a {}-byte packet: {why}", p.len()));
                    refused.push(p);
                }
            }
        }
        if let Err(e) = self.sink.kick() {
            errors.push(format!("send: {}", sys::strerror(&e)));
        }
        for e in errors {
            self.log_error(cx, e);
        }
        self.count += sent.len() as u64;
        if !sent.is_empty() {
            self.backoff_us = 0;
            cx.checked_push(0, sent);
        }
        if !refused.is_empty() {
            cx.checked_push(1, refused);
        }
        cx.reschedule();
        true
    }

    /// The device has no room (Click's ToDevice backoff): the first time,
    /// sleep until the socket is writable; if there is still no room when
    /// that wakes the task, retry on the timer after 1, 2, 4... 256 µs
    /// (some waits, such as a full device queue behind `ENOBUFS` or AF_XDP
    /// frames not yet completed, are not what makes a socket writable).
    fn wait_for_room(&mut self, cx: &mut Ctx) {
        if self.backoff_us == 0 {
            self.backoff_us = 1;
            if let (Some(fd), Some(t)) = (self.sink.raw_fd(), self.task) {
                if cx.add_select(fd, Select::Write, t).is_ok() {
                    self.write_selected = true;
                    return;
                }
            }
        }
        if let Some(t) = self.timer {
            cx.schedule_timer_after(t, Timestamp::from_nsec(i64::from(self.backoff_us) * 1000));
        }
        self.backoff_us = (self.backoff_us * 2).min(256);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{build_err, registry};
    use rclick_core::testing;

    #[test]
    fn configuration_errors() {
        let q = "InfiniteSource(LIMIT 1) -> Queue -> ";
        assert!(build_err(&format!("{q} ToDevice()")).contains("DEVNAME"));
        assert!(build_err(&format!("{q} ToDevice(lo, METHOD PCAP)")).contains("not supported"));
        assert!(build_err(&format!("{q} ToDevice(lo, BURST 0)")).contains("BURST"));
        assert!(
            build_err(&format!("{q} ToDevice(lo, METHOD MMAP, RING_SIZE 10)"))
                .contains("RING_SIZE")
        );
        let e = build_err(&format!("{q} ToDevice(rclick-nonexistent0)"));
        assert!(e.contains("no such network interface"), "{e}");
    }

    /// Sends frames with an unused EtherType on loopback; a FromDevice on
    /// the same interface sees them (as incoming, after the loop).
    #[test]
    fn loopback_send_and_receive_when_privileged() {
        // 60-byte frame: broadcast destination, EtherType 0x88b5 (local experimental).
        let frame = "ffffffffffff 020000000001 88b5 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000";
        // Skip where loopback is down (some sandboxes): IFF_UP is bit 0.
        let flags = std::fs::read_to_string("/sys/class/net/lo/flags").unwrap_or_default();
        let flags = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16).unwrap_or(0);
        if flags & 1 == 0 {
            eprintln!("skipping: lo is down");
            return;
        }
        // The same frame with a VLAN tag (VID 5): the kernel strips it on
        // receive and FromDevice must put it back, with every method.
        let tagged = "ffffffffffff 020000000001 8100 0005 88b5 0000000000000000000000000000000000000000000000000000000000000000000000000000000000";
        for (td, fd) in [
            ("", ""),
            (", METHOD MMAP", ", METHOD MMAP"),
            (", METHOD MMAP", ", METHOD MMAP, TPACKET 3"),
        ] {
            let conf = format!(
                "InfiniteSource(DATA \\<{tagged}>, LIMIT 10, BURST 5, STOP false) -> Queue(100) -> t :: ToDevice(lo{td});
                 f :: FromDevice(lo{fd}) -> c :: Classifier(12/8100 14/0005 16/88b5, -) -> n :: Counter -> Discard; c[1] -> Discard;
                 Script(wait 200ms, stop);"
            );
            let Ok(r) = testing::build(&conf, &registry(), false) else {
                eprintln!("skipping: no CAP_NET_RAW");
                return;
            };
            r.run();
            assert_eq!(testing::read(&r, "t.count"), "10", "{td}");
            let n: u64 = testing::read(&r, "n.count").parse().unwrap();
            assert!(n >= 10, "received {n} tagged frames with{fd}");
        }
        for (td, fd) in [
            ("", ""),
            (", METHOD MMAP", ", METHOD MMAP"),
            (", METHOD MMAP", ", METHOD MMAP, TPACKET 3"),
        ] {
            let conf = format!(
                "src :: InfiniteSource(DATA \\<{frame}>, LIMIT 20, BURST 5, STOP false) -> Queue(100) -> t :: ToDevice(lo, BURST 8{td});
                 f :: FromDevice(lo{fd}) -> c :: Classifier(12/88b5, -) -> n :: Counter -> Discard; c[1] -> Discard;
                 Script(wait 200ms, stop);"
            );
            let r = match testing::build(&conf, &registry(), false) {
                Ok(r) => r,
                Err(e) => {
                    assert!(e.contains("CAP_NET_RAW"), "{e}");
                    eprintln!("skipping: no CAP_NET_RAW");
                    return;
                }
            };
            r.run();
            assert_eq!(testing::read(&r, "t.count"), "20", "{td}");
            assert_eq!(testing::read(&r, "t.drops"), "0");
            assert_eq!(testing::read(&r, "t.q"), "0");
            assert_eq!(testing::read(&r, "f.oversize"), "0");
            // Other processes' loopback traffic may add frames, never remove ours.
            let n: u64 = testing::read(&r, "n.count").parse().unwrap();
            assert!(n >= 20, "received {n} with{fd}");
        }
    }

    /// With a transmit ring, packets longer than the device's MTU are
    /// dropped with a count, and go to output 1.
    #[test]
    fn ring_drops_oversize_packets_when_privileged() {
        let mtu = super::super::sys::if_mtu("lo").unwrap_or(65536);
        let conf = format!(
            "InfiniteSource(LENGTH {}, LIMIT 3, STOP false) -> Queue(10) -> t :: ToDevice(lo, METHOD MMAP);
             t[0] -> Discard; t[1] -> bad :: Counter -> Discard;
             Script(wait 100ms, stop);",
            mtu + 15
        );
        let r = match testing::build(&conf, &registry(), false) {
            Ok(r) => r,
            Err(e) => {
                assert!(e.contains("CAP_NET_RAW") || e.contains("LENGTH"), "{e}");
                eprintln!("skipping: {e}");
                return;
            }
        };
        r.run();
        assert_eq!(testing::read(&r, "t.count"), "0");
        assert_eq!(testing::read(&r, "t.oversize"), "3");
        assert_eq!(testing::read(&r, "t.drops"), "3");
        assert_eq!(testing::read(&r, "bad.count"), "3");
        assert_eq!(testing::read(&r, "t.method"), "MMAP");
    }
}
