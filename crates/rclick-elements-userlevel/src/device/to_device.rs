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
//! A task pulls up to BURST packets per run and hands them to the kernel
//! with one `sendmmsg` call. When the socket is full (`EAGAIN`, `ENOBUFS`)
//! ToDevice keeps the packets it could not send and retries them on a short
//! timer before pulling more: a full device pushes back on its queue, and
//! no packet is silently lost. The task sleeps while its upstream is empty
//! (a Queue's empty notifier).
//!
//! Packets sent successfully go to output 0 if it exists (else they are
//! freed); packets the kernel refuses (too long for the device, device
//! down) are counted in `drops` and go to output 1 if it exists.
//!
//! Opening a packet socket needs CAP_NET_RAW (root); a missing interface or
//! privilege fails initialization with a message saying what to do.
//!
//! Keywords:
//!
//! * `BURST` (unsigned): most packets sent per task run, 1 to 64. Default
//!   32 (Click's is 1; rclick moves packets in batches).
//! * `METHOD` (word): only `LINUX` (packet sockets, the default) is
//!   implemented; `PCAP` and `NETMAP` are refused.
//! * `QUEUE` (unsigned): accepted for compatibility with ToDevice(n); ignored.
//! * `DEBUG` (boolean): print every send error. Default false (the first
//!   few are printed).
//!
//! ## Handlers
//!
//! * `count` (read): packets sent.
//! * `drops` (read): packets the kernel refused.
//! * `pulls` (read): task runs that pulled packets.
//! * `q` (read): packets waiting for room in the socket.
//! * `signal` (read): the upstream notifier signal (`true` when packets
//!   may be waiting).
//! * `debug` (read/write): the DEBUG setting.
//! * `reset_counts` (write): sets `count`, `drops` and `pulls` to 0.
//!
//! ## Examples
//!
//! ```text
//! ... -> Queue(1000) -> ToDevice(veth0);
//! ```
//!
//! ## See also
//!
//! FromDevice, Queue, ARPQuerier, `rclick testbed`

use rclick_core::args::{Args, Word};
use rclick_core::{
    phase, ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId, TimerId,
};
use rclick_packet::{PacketBatch, Timestamp};

use super::sys::{self, PacketSocket, MAX_BATCH};

/// The ToDevice element.
pub struct ToDevice {
    ifname: String,
    burst: usize,
    debug: bool,
    sock: Option<PacketSocket>,
    /// Packets pulled but not yet accepted by the kernel, oldest first.
    pending: PacketBatch,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
    backoff_ns: i64,
    count: u64,
    drops: u64,
    pulls: u64,
    errors_reported: u32,
}

impl Default for ToDevice {
    fn default() -> Self {
        ToDevice {
            ifname: String::new(),
            burst: 32,
            debug: false,
            sock: None,
            pending: PacketBatch::new(),
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
            backoff_ns: super::IDLE_POLL_MIN_NS,
            count: 0,
            drops: 0,
            pulls: 0,
            errors_reported: 0,
        }
    }
}

const H_COUNT: u32 = 0;
const H_DROPS: u32 = 1;
const H_PULLS: u32 = 2;
const H_Q: u32 = 3;
const H_SIGNAL: u32 = 4;
const H_DEBUG: u32 = 5;
const H_RESET: u32 = 6;

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
        let Some(sock) = &self.sock else {
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
        Args::new(conf)
            .read_mp("DEVNAME", &mut ifname)
            .read("BURST", &mut burst)
            .read("METHOD", &mut method)
            .read("QUEUE", &mut queue)
            .read("DEBUG", &mut debug)
            .read("ALLOW_NONEXISTENT", &mut allow_nonexistent)
            .complete()
            .map_err(|e| e.to_string())?;
        if ifname.is_empty() {
            return Err("DEVNAME: interface not set".into());
        }
        super::parse_method(&method.0)?;
        if !(1..=MAX_BATCH as u32).contains(&burst) {
            return Err(format!("BURST must be between 1 and {MAX_BATCH}"));
        }
        self.ifname = ifname;
        self.burst = burst as usize;
        self.debug = debug;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.sock = Some(super::open_socket("ToDevice", &self.ifname, false)?);
        let t = cx.new_task(true);
        self.task = Some(t);
        self.timer = Some(cx.new_timer());
        self.signal = cx.upstream_empty_signal(0, Some(t));
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.pending.clear();
        self.sock = None;
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let mut worked = false;
        if !self.pending.is_empty() && !self.flush(cx) {
            // Still full: back off; the timer reschedules the task.
            self.retry_later(cx);
            return false;
        }
        let batch = cx.pull(0, self.burst);
        if !batch.is_empty() {
            worked = true;
            self.pulls += 1;
            self.pending = batch;
            if !self.flush(cx) {
                self.retry_later(cx);
                return true;
            }
            self.backoff_ns = super::IDLE_POLL_MIN_NS;
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
        vec![
            HandlerDef::read("count", H_COUNT),
            HandlerDef::read("drops", H_DROPS),
            HandlerDef::read("pulls", H_PULLS),
            HandlerDef::read("q", H_Q),
            HandlerDef::read("signal", H_SIGNAL),
            HandlerDef::read_write("debug", H_DEBUG),
            HandlerDef::write("reset_counts", H_RESET),
        ]
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match id {
            H_COUNT => Ok(self.count.to_string()),
            H_DROPS => Ok(self.drops.to_string()),
            H_PULLS => Ok(self.pulls.to_string()),
            H_Q => Ok(self.pending.len().to_string()),
            H_SIGNAL => Ok(self.signal.active().to_string()),
            H_DEBUG => Ok(self.debug.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match id {
            H_DEBUG => {
                let mut d = false;
                Args::new(&[value.to_string()])
                    .read_mp("DEBUG", &mut d)
                    .complete()
                    .map_err(|e| e.to_string())?;
                self.debug = d;
                Ok(())
            }
            H_RESET => {
                self.count = 0;
                self.drops = 0;
                self.pulls = 0;
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

impl ToDevice {
    fn retry_later(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.timer {
            cx.schedule_timer_after(t, Timestamp::from_nsec(self.backoff_ns));
        }
        self.backoff_ns = (self.backoff_ns * 2).min(super::IDLE_POLL_MAX_NS);
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
        let e = build_err(&format!("{q} ToDevice(rclick-nonexistent0)"));
        assert!(e.contains("no such network interface"), "{e}");
    }

    /// Sends frames with an unused EtherType on loopback; a FromDevice on
    /// the same interface sees them (as incoming, after the loop).
    #[test]
    fn loopback_send_and_receive_when_privileged() {
        // 60-byte frame: broadcast destination, EtherType 0x88b5 (local experimental).
        let frame = "ffffffffffff 020000000001 88b5 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000";
        let conf = format!(
            "src :: InfiniteSource(DATA \\<{frame}>, LIMIT 20, BURST 5, STOP false) -> Queue(100) -> t :: ToDevice(lo, BURST 8);
             f :: FromDevice(lo) -> c :: Classifier(12/88b5, -) -> n :: Counter -> Discard; c[1] -> Discard;
             Script(wait 200ms, stop);"
        );
        // Skip where loopback is down (some sandboxes): IFF_UP is bit 0.
        let flags = std::fs::read_to_string("/sys/class/net/lo/flags").unwrap_or_default();
        let flags = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16).unwrap_or(0);
        if flags & 1 == 0 {
            eprintln!("skipping: lo is down");
            return;
        }
        let r = match testing::build(&conf, &registry(), false) {
            Ok(r) => r,
            Err(e) => {
                assert!(e.contains("CAP_NET_RAW"), "{e}");
                eprintln!("skipping: no CAP_NET_RAW");
                return;
            }
        };
        r.run();
        assert_eq!(testing::read(&r, "t.count"), "20");
        assert_eq!(testing::read(&r, "t.drops"), "0");
        assert_eq!(testing::read(&r, "t.q"), "0");
        // Other processes' loopback traffic may add frames, never remove ours.
        let n: u64 = testing::read(&r, "n.count").parse().unwrap();
        assert!(n >= 20, "received {n}");
    }
}
