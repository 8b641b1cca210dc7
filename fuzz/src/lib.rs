//! Shared code of the fuzz targets (`fuzz_targets/*.rs`, run with
//! `cargo +nightly fuzz run TARGET`; see docs/RELIABILITY.md).
//!
//! The router targets build a whole router in-process, in simulated time,
//! whose packets come from [`FuzzSource`]: the fuzz input, cut into frames
//! by [`frames`], each with the output it leaves on and a delay before it.
//! A router run must end without a panic (libFuzzer's panic hook aborts
//! even when the router catches the panic, and [`run_router`] checks the
//! router's own panic count as well).
//!
//! The router targets build their router once per process and feed it
//! input after input ([`feed_router`]): building one took three quarters
//! of the time per input. State carries over from one input to the next
//! (ARP tables, NAT mappings, aggregates, simulated time), as in a router
//! that runs for long; `RCLICK_FUZZ_FRESH=1` in the environment builds a
//! fresh router per input instead (to see whether a crash replays alone).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rclick_core::args::{Args, Word};
use rclick_core::{
    BuildOptions, ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, Registry,
    Router, TimerId, Timestamp,
};
use rclick_lang::FlatConfig;

/// One frame of a router target's input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The source output it leaves on (taken modulo the output count).
    pub port: u8,
    /// Simulated milliseconds to wait before it is sent.
    pub delay_ms: u8,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// At most this many frames are taken from one input.
pub const MAX_FRAMES: usize = 64;

/// Cuts a router target's input into frames: each is a 4-byte head (port,
/// delay in ms, length as a big-endian u16) and that many bytes (fewer if
/// the input ends first).
pub fn frames(mut data: &[u8]) -> Vec<Frame> {
    let mut v = Vec::new();
    while data.len() >= 4 && v.len() < MAX_FRAMES {
        let len = usize::from(u16::from_be_bytes([data[2], data[3]]));
        let end = (4 + len).min(data.len());
        v.push(Frame {
            port: data[0],
            delay_ms: data[1],
            bytes: data[4..end].to_vec(),
        });
        data = &data[end..];
    }
    v
}

/// Writes frames in the form [`frames`] reads (for tests and seeds).
pub fn encode_frames(fs: &[Frame]) -> Vec<u8> {
    let mut v = Vec::new();
    for f in fs {
        let len = f.bytes.len().min(usize::from(u16::MAX));
        v.extend_from_slice(&[f.port, f.delay_ms]);
        v.extend_from_slice(&(len as u16).to_be_bytes());
        v.extend_from_slice(&f.bytes[..len]);
    }
    v
}

thread_local! {
    static PENDING: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// `FuzzSource`: pushes the frames given to [`run_router`], one per timer
/// expiry (the frame's delay after the previous one, 1 ms for the first),
/// each out of output `port % noutputs`; 10 ms after the last it asks the
/// router to stop. Takes no configuration. Writing its `go` handler takes
/// the frames given to [`feed_router`] and starts again (1 ms later).
#[derive(Default)]
pub struct FuzzSource {
    frames: std::vec::IntoIter<Frame>,
    timer: Option<TimerId>,
    done: bool,
}

impl Element for FuzzSource {
    fn class_name(&self) -> &'static str {
        "FuzzSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut w = Word::default();
        Args::new(conf)
            .read("NAME", &mut w)
            .complete()
            .map_err(|e| e.to_string())?;
        Ok(())
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        vec![HandlerDef::write("go", 0)]
    }
    fn write_handler(&mut self, _id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        let t = self.timer.ok_or("not initialized")?;
        self.frames = PENDING
            .with(|p| std::mem::take(&mut *p.borrow_mut()))
            .into_iter();
        self.done = false;
        cx.schedule_timer_after(t, Timestamp::from_nsec(1_000_000));
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.frames = PENDING
            .with(|p| std::mem::take(&mut *p.borrow_mut()))
            .into_iter();
        let t = cx.new_timer();
        cx.schedule_timer_after(t, Timestamp::from_nsec(1_000_000));
        self.timer = Some(t);
        Ok(())
    }
    fn run_timer(&mut self, t: TimerId, cx: &mut Ctx) {
        loop {
            let Some(f) = self.frames.next() else {
                // Stop 10 ms after the last frame, so queues drain.
                if self.done {
                    cx.request_stop();
                } else {
                    self.done = true;
                    cx.schedule_timer_after(t, Timestamp::from_nsec(10_000_000));
                }
                return;
            };
            let mut p = Packet::from_slice(&f.bytes);
            p.set_timestamp_anno(cx.now());
            let mut b = PacketBatch::new();
            b.push(p);
            cx.checked_push(usize::from(f.port) % cx.noutputs().max(1), b);
            match self.frames.as_slice().first() {
                Some(next) if next.delay_ms > 0 => {
                    let ns = u64::from(next.delay_ms) * 1_000_000;
                    cx.schedule_timer_after(t, Timestamp::from_nsec(ns as i64));
                    return;
                }
                _ => {}
            }
        }
    }
}

/// The element classes the fuzz targets use: every group except the
/// plugins and the web view, plus [`FuzzSource`].
pub fn registry() -> Registry {
    let mut r = Registry::new();
    rclick_elements_standard::register(&mut r);
    rclick_elements_ip::register(&mut r);
    rclick_elements_ethernet::register(&mut r);
    rclick_elements_analysis::register(&mut r);
    rclick_elements_nat::register(&mut r);
    rclick_elements_userlevel::register(&mut r);
    r.add("FuzzSource", || Box::<FuzzSource>::default(), "");
    r
}

thread_local! {
    static REGISTRY: Arc<Registry> = Arc::new(registry());
    /// Configurations parsed so far (the targets build one or two
    /// configurations over and over; parsing took a fifth of a build).
    static PARSED: RefCell<HashMap<String, FlatConfig>> = RefCell::new(HashMap::new());
}

/// Builds `config` in simulated time, one thread, log captured. The
/// parsed configuration is kept for the next build of the same text.
pub fn build(config: &str) -> Result<Router, String> {
    let flat = PARSED.with(|p| {
        if let Some(f) = p.borrow().get(config) {
            return Ok(f.clone());
        }
        let opts = rclick_lang::Options {
            file_name: "config".into(),
            defines: Vec::new(),
        };
        let f = rclick_lang::parse(config, &opts).map_err(|errs| {
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        p.borrow_mut().insert(config.to_string(), f.clone());
        Ok::<_, String>(f)
    })?;
    let opts = BuildOptions {
        simtime: true,
        threads: 1,
        capture_log: true,
        source_text: config.to_string(),
        ..Default::default()
    };
    let reg = REGISTRY.with(Arc::clone);
    Router::build(flat, reg, opts).map_err(|e| e.messages.join("\n"))
}

/// Builds `config` (which must build: a fixed configuration), runs it with
/// `frames` coming out of its `FuzzSource`, and returns the router after
/// it stopped. Panics if any element panicked.
pub fn run_router(config: &str, frames: Vec<Frame>) -> Router {
    PENDING.with(|p| *p.borrow_mut() = frames);
    let r = build(config).unwrap_or_else(|e| panic!("configuration does not build:\n{e}"));
    r.run();
    let panics = r.stats().panics.load(Ordering::Relaxed);
    assert_eq!(panics, 0, "{:?}", r.read_handler("router_drops", ""));
    r
}

/// A router built once and fed frames in rounds: [`FedRouter::new`]
/// builds `config` (which must build, and whose `FuzzSource` is named
/// `fs`) and runs it once without frames; each [`FedRouter::feed`]
/// restarts it ([`Router::restart`]), writes `fs.go` and runs it until the
/// source stops it again.
pub struct FedRouter {
    /// The router.
    pub router: Router,
}

impl FedRouter {
    /// Builds and runs `config` once, without frames.
    pub fn new(config: &str) -> FedRouter {
        let router = run_router(config, Vec::new());
        let _ = (router.take_log(), router.take_stdout());
        FedRouter { router }
    }

    /// Runs the router on `frames`. Panics if any element ever panicked.
    pub fn feed(&self, frames: Vec<Frame>) {
        let r = &self.router;
        PENDING.with(|p| *p.borrow_mut() = frames);
        r.restart();
        r.write_handler("fs.go", "")
            .unwrap_or_else(|e| panic!("fs.go: {e}"));
        r.run();
        let panics = r.stats().panics.load(Ordering::Relaxed);
        assert_eq!(panics, 0, "{:?}", r.read_handler("router_drops", ""));
        // What elements printed would pile up over millions of inputs.
        let _ = (r.take_log(), r.take_stdout());
    }
}

thread_local! {
    /// The router [`feed_router`] feeds, with its configuration's text.
    static FED: RefCell<Option<(String, FedRouter)>> = const { RefCell::new(None) };
    static FRESH: bool = std::env::var_os("RCLICK_FUZZ_FRESH").is_some_and(|v| v != "0");
}

/// Feeds `frames` to a [`FedRouter`] of `config` built once per process
/// (per thread). With `RCLICK_FUZZ_FRESH=1` in the environment it is
/// [`run_router`] instead (a fresh router per call).
pub fn feed_router(config: &str, frames: Vec<Frame>) {
    if FRESH.with(|f| *f) {
        run_router(config, frames);
        return;
    }
    FED.with(|fed| {
        let mut fed = fed.borrow_mut();
        if fed.as_ref().is_none_or(|(c, _)| c != config) {
            *fed = Some((config.to_string(), FedRouter::new(config)));
        }
        fed.as_ref().expect("built above").1.feed(frames);
    });
}

/// A file for a target's input in a directory of this process's own
/// (in `/dev/shm` when there is one, so that runs do not write to disk).
pub fn scratch_file(name: &str) -> std::path::PathBuf {
    let base = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("rclick-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir.join(name)
}

/// Like [`run_router`] for configurations that may fail to build (a file
/// reader refusing its file at initialization): `None` then.
pub fn try_run_router(config: &str, frames: Vec<Frame>) -> Option<Router> {
    PENDING.with(|p| *p.borrow_mut() = frames);
    let r = build(config).ok()?;
    r.run();
    let panics = r.stats().panics.load(Ordering::Relaxed);
    assert_eq!(panics, 0, "{:?}", r.read_handler("router_drops", ""));
    Some(r)
}

/// The IP router of the Click paper's Figure 8 with two interfaces
/// (`conf/iprouter-2if.click`, made by `scripts/make-iprouter 2`), its two
/// device stand-ins replaced by one `FuzzSource` (output 0 is interface
/// 0, output 1 interface 1) and its DriverManager by one that fills the
/// ARP tables and stops when the source does.
pub fn iprouter_config() -> String {
    let text = include_str!("../../conf/iprouter-2if.click");
    let dm = text
        .find("DriverManager(")
        .expect("DriverManager in iprouter-2if");
    let mut out = String::with_capacity(text.len());
    out.push_str("fs :: FuzzSource;\n");
    for line in text[..dm].lines() {
        let t = line.trim_start();
        if t.starts_with("src0 ::") || t.starts_with("src1 ::") {
            continue;
        }
        match t {
            "src0 -> c0;" => out.push_str("fs[0] -> c0;"),
            "src1 -> c1;" => out.push_str("fs[1] -> c1;"),
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out.push_str(
        "DriverManager(write arpq0.insert 1.0.0.2 00:00:c0:00:01:02,\n\
         \x20   write arpq1.insert 2.0.0.2 00:00:c0:00:02:02, wait_stop, stop);\n",
    );
    out
}

/// A NAT between an inside network (output 0 of the source, 10.0.0.0/8)
/// and the outside (output 1) in the style of Click's `mazu-nat.click`:
/// Ethernet classification, ARP answered, CheckIPHeader, IPRewriter with
/// a dynamic pattern and FTPPortMapper for FTP control connections,
/// ICMPPingRewriter, ICMPRewriter for errors about mapped flows, and
/// TCPRewriter, UDPRewriter and IPAddrRewriter paths that TCP and UDP
/// packets take by the low byte of their destination port (HashSwitch).
pub const NAT_CONFIG: &str = r#"
fs :: FuzzSource;
AddressInfo(intern 10.0.0.1 10.0.0.0/8 00:00:c0:00:0a:01,
            extern 192.0.2.1 00:00:c0:00:c0:01);
ic :: Classifier(12/0806 20/0001, 12/0800, -);
oc :: Classifier(12/0806 20/0001, 12/0800, -);
fs[0] -> ic; fs[1] -> oc;
in_q :: Queue(64) -> in_out :: Counter -> Discard;
out_q :: Queue(64) -> out_out :: Counter -> Discard;
ic[0] -> ARPResponder(intern) -> in_q;
oc[0] -> ARPResponder(extern) -> out_q;
ic[2] -> Discard; oc[2] -> Discard;

rw :: IPRewriter(pattern extern 50000-60000 - - 0 1, drop);
ftp :: FTPPortMapper(rw, rw, 0);
prw :: ICMPPingRewriter(pattern extern - 0-65535# 0 1, drop);
irw :: ICMPRewriter(rw prw);
trw :: TCPRewriter(pattern extern 30000-39999 - - 0 1);
urw :: UDPRewriter(pattern extern 20000-29999 - - 0 1);
arw :: IPAddrRewriter(pattern extern - 0 1, drop);

inside :: Strip(14) -> CheckIPHeader(VERBOSE false) -> ipc :: IPClassifier(
    tcp dst port 21, icmp type echo, icmp type echo-reply,
    icmp type unreachable or icmp type timeexceeded or icmp type parameterproblem,
    tcp, udp, -);
ic[1] -> inside;
outside :: Strip(14) -> CheckIPHeader(VERBOSE false) -> opc :: IPClassifier(
    icmp type echo-reply, icmp type echo,
    icmp type unreachable or icmp type timeexceeded or icmp type parameterproblem, -);
oc[1] -> outside;

ipc[0] -> ftp -> [0]rw;
ipc[1] -> [0]prw;
ipc[2] -> [1]prw;
ipc[3] -> [0]irw;
ipc[4] -> ps :: HashSwitch(22, 1);
ipc[5] -> ps;
ipc[6] -> [1]arw;
ps[0] -> [0]rw;
ps[1] -> [0]trw;
ps[2] -> [0]urw;
ps[3] -> [0]arw;
opc[0] -> [1]prw;
opc[1] -> [0]prw;
opc[2] -> irw;
opc[3] -> [1]rw;

to_out :: EtherEncap(0x0800, extern, 00:00:c0:00:c0:02) -> out_q;
to_in :: EtherEncap(0x0800, intern, 00:00:c0:00:0a:02) -> in_q;
rw[0] -> to_out; rw[1] -> to_in;
prw[0] -> to_out; prw[1] -> to_in;
irw[0] -> to_out; irw[1] -> to_in;
trw[0] -> to_out; trw[1] -> to_in;
urw[0] -> to_out; urw[1] -> to_in;
arw[0] -> to_out; arw[1] -> to_in;
DriverManager(wait_stop, stop);
"#;

/// The analysis elements on a stream of IP packets: the frames are IP
/// packets (no link header) marked by MarkIPHeader on output 0 and checked
/// by CheckIPHeader on output 1, then go through the aggregates,
/// anonymization, sampling, time filters and ToIPSummaryDump with every
/// field it knows.
pub const ANALYSIS_CONFIG: &str = r#"
fs :: FuzzSource;
m :: MarkIPHeader; c :: CheckIPHeader(VERBOSE false);
fs[0] -> m; fs[1] -> c; c[1] -> Discard;
j :: Null;
m -> j; c[0] -> j;
j -> AggregateIP(ip dst)
  -> AggregateIPFlows(TCP_TIMEOUT 1, UDP_TIMEOUT 1, FRAGMENTS true, ICMP true)
  -> agc :: AggregateCounter
  -> AggregateLength(IP true)
  -> AggregatePaint
  -> af :: AggregateFirst
  -> AggregateFilter(allow 0-1000000000)
  -> AnonymizeIPAddr(CLASS 4, SEED false)
  -> EraseIPPayload
  -> TruncateIPPayload(8)
  -> SetTimestampDelta
  -> AdjustTimestamp(0.001)
  -> StoreTimestamp(TAIL true)
  -> RandomSample(0.9)
  -> TimeFilter(START 0, INTERVAL 100000)
  -> TimeRange
  -> ToIPSummaryDump(/dev/null, FIELDS timestamp ts_sec ts_usec ip_src ip_dst ip_len ip_proto ip_id
       ip_frag ip_fragoff ip_tos ip_dscp ip_ecn ip_ttl ip_hl ip_capture_len ip_opt ip_sum
       sport dport tcp_seq tcp_ack tcp_flags tcp_off tcp_window tcp_urp tcp_opt tcp_ntopt
       tcp_sack udp_len icmp_type icmp_code icmp_type_name icmp_code_name icmp_flowid
       icmp_seq icmp_nextmtu payload_len payload payload_md5 payload_md5_hex count link
       direction aggregate first_timestamp ntimestamp ts_usec1 wire_len,
       BAD_PACKETS true,
       BINARY false);
DriverManager(wait_stop, stop);
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let fs = vec![
            Frame {
                port: 1,
                delay_ms: 3,
                bytes: vec![1, 2, 3],
            },
            Frame {
                port: 0,
                delay_ms: 0,
                bytes: vec![],
            },
        ];
        assert_eq!(frames(&encode_frames(&fs)), fs);
        // A short last frame keeps what there is.
        assert_eq!(frames(&[0, 0, 0, 9, 7])[0].bytes, vec![7]);
    }

    /// The three router configurations build, and a frame goes through
    /// each one (so the targets fuzz routers that work).
    #[test]
    fn router_configurations_build_and_forward() {
        // A UDP packet from host 1.0.0.2 to 2.0.0.2 (iprouter-2if's frame).
        let frame = rclick_core::confparse::unquote_bytes(
            "\\<00 00 c0 00 01 01 00 00 c0 00 01 02 08 00 45 00 00 32 00 00 00 00 40 11 77 b8 01 00 00 02 02 00 00 02 04 d2 16 2e 00 1e 00 00 52 6f 75 74 65 64 20 62 79 20 72 63 6c 69 63 6b 20 46 69 67 20 38>",
        );
        let f = |port: u8, bytes: &[u8]| Frame {
            port,
            delay_ms: 1,
            bytes: bytes.to_vec(),
        };
        let r = run_router(&iprouter_config(), vec![f(0, &frame), f(0, &frame)]);
        assert_eq!(r.read_handler("todev1.count", "").unwrap(), "2");

        let mut inside = frame.clone();
        inside[26..30].copy_from_slice(&[10, 0, 0, 2]);
        // The IP checksum changes with the source address; fix it.
        inside[24..26].copy_from_slice(&[0, 0]);
        let sum = rclick_wire::checksum::internet_checksum(&inside[14..34]);
        inside[24..26].copy_from_slice(&sum.to_be_bytes());
        let r = run_router(NAT_CONFIG, vec![f(0, &inside)]);
        assert_eq!(r.read_handler("out_out.count", "").unwrap(), "1");

        let r = run_router(
            ANALYSIS_CONFIG,
            vec![f(0, &frame[14..]), f(1, &frame[14..])],
        );
        assert_eq!(r.read_handler("agc.count", "").unwrap(), "2");
    }

    /// A router fed in rounds forwards each round's frames, as a fresh
    /// one does (what the router targets rely on).
    #[test]
    fn a_fed_router_forwards_every_round() {
        let frame = rclick_core::confparse::unquote_bytes(
            "\\<00 00 c0 00 01 01 00 00 c0 00 01 02 08 00 45 00 00 32 00 00 00 00 40 11 77 b8 01 00 00 02 02 00 00 02 04 d2 16 2e 00 1e 00 00 52 6f 75 74 65 64 20 62 79 20 72 63 6c 69 63 6b 20 46 69 67 20 38>",
        );
        let f = Frame {
            port: 0,
            delay_ms: 1,
            bytes: frame.clone(),
        };
        let fed = FedRouter::new(&iprouter_config());
        for round in 1..=4 {
            fed.feed(vec![f.clone(); round]);
            let sent = fed.router.read_handler("todev1.count", "").unwrap();
            assert_eq!(sent, (round * (round + 1) / 2).to_string());
        }
        let ip = |b: &[u8]| Frame {
            port: 1,
            delay_ms: 0,
            bytes: b.to_vec(),
        };
        let fed = FedRouter::new(ANALYSIS_CONFIG);
        fed.feed(vec![ip(&frame[14..])]);
        fed.feed(vec![ip(&frame[14..]), ip(&frame[14..])]);
        assert_eq!(fed.router.read_handler("agc.count", "").unwrap(), "3");
    }
}
