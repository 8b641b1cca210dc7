//! `rclick rfc2544`: benchmarks routers by RFC 2544 on the namespace
//! testbed, with the generator and receiver of [`traffic`] and the
//! search, histograms and report of the `rclick-rfc2544` crate.
//!
//! A run: measure the generator's own ceiling back to back (its transmit
//! ring on `P-h0/eth0`, its receive ring on the other end of that veth,
//! `P-r/eth0`, with nothing forwarding); then, for each device under test
//! in turn, build the testbed (`P-h0 — P-r — P-h1`, P = `--prefix`), start
//! the device in `P-r` pinned to its own processor, and run the tests:
//! restart (process start to first forwarded frame), throughput (NDR and
//! PDR search), latency at the NDR, frame loss rate at 10–100 % of the
//! ceiling, back-to-back bursts, single frames, overload and recovery,
//! a hot-swap, file transfers. Then tear the testbed down and write the
//! report (JSON, Markdown, HTML). Everything it starts is stopped, and
//! the testbed removed, on every exit: a [`Cleanup`] guard does it on
//! return, on error and on panic, and SIGINT/SIGTERM end the current
//! trial at once so the guard runs.

pub mod dut;
pub mod sys;
pub mod traffic;
mod trials;

pub use trials::recovery_ms;

use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rclick_rfc2544::frame::Template;
use rclick_rfc2544::report::{
    BackToBack, Ceiling, DutReport, Latency, LossCurve, LossPoint, LossSplit, Machine, Method,
    Overload, Report, Restart, SingleFrame, Target, Throughput, Transfer,
};
use rclick_rfc2544::search::{search, Device, SearchParams, SearchResult, TrialOutcome};

use crate::testbed;
use dut::{Dut, DutKind};
use traffic::{stop_flag, Ports, TrialResult, TrialSpec};

/// `rclick rfc2544` options.
#[derive(clap::Args, Debug, Clone)]
pub struct Rfc2544Options {
    /// The short profile (3 frame sizes, 0.5 s trials, 2 % resolution):
    /// under two minutes for three devices.
    #[arg(long)]
    pub quick: bool,
    /// Where to write report.json, report.md and report.html.
    #[arg(long, default_value = "rfc2544-report")]
    pub out: PathBuf,
    /// Devices to test, of rclick, kernel, click (default: all found).
    #[arg(long, value_delimiter = ',')]
    pub dut: Vec<String>,
    /// A Click-compatible driver to test as `click` (default: the
    /// reference Click at ../shared/reference/click/bin/click, if there).
    #[arg(long, value_name = "PATH")]
    pub dut_click: Option<PathBuf>,
    /// Our driver (default: `click` next to this program).
    #[arg(long, value_name = "PATH")]
    pub rclick_click: Option<PathBuf>,
    /// The router configuration (default: conf/iprouter-linux.click).
    #[arg(long, value_name = "FILE")]
    pub conf: Option<PathBuf>,
    /// Frame sizes, bytes with the FCS (default 64..1518, --quick 64,512,1518).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<usize>,
    /// Trial length, seconds (default 2, --quick 0.5).
    #[arg(long)]
    pub trial: Option<f64>,
    /// Search resolution, relative (default 0.01, --quick 0.02).
    #[arg(long)]
    pub resolution: Option<f64>,
    /// Loss ratio of the partial-drop rate.
    #[arg(long, default_value_t = 0.005)]
    pub pdr: f64,
    /// Flows (UDP source ports) per trial.
    #[arg(long, default_value_t = 16)]
    pub flows: u16,
    /// Namespace name prefix of the testbed.
    #[arg(long, default_value = "rclick-rfc")]
    pub prefix: String,
    /// Processor of the generator.
    #[arg(long, default_value_t = 0)]
    pub generator_cpu: usize,
    /// Processor of the device under test.
    #[arg(long, default_value_t = 1)]
    pub dut_cpu: usize,
    /// Skip the HTTP and FTP transfers.
    #[arg(long)]
    pub no_transfers: bool,
    /// Niceness of the generator and of router processes (-20..19): below
    /// 0, other work on a shared machine takes less of their processors.
    #[arg(long, default_value_t = -10, allow_hyphen_values = true)]
    pub nice: i32,
}

/// The parameters a run uses, from the options and the profile.
#[derive(Clone, Debug)]
struct Profile {
    quick: bool,
    sizes: Vec<usize>,
    trial_s: f64,
    drain: Duration,
    params: SearchParams,
    loss_percents: Vec<f64>,
    b2b_all_sizes: bool,
    b2b_s: f64,
    single_reps: u64,
    single_idle: Duration,
    transfer_mb: u64,
    flows: u16,
}

impl Profile {
    fn new(o: &Rfc2544Options) -> Result<Profile, String> {
        let q = o.quick;
        let sizes = if o.sizes.is_empty() {
            if q {
                vec![64, 512, 1518]
            } else {
                rclick_rfc2544::frame::RFC2544_SIZES.to_vec()
            }
        } else {
            o.sizes.clone()
        };
        for &s in &sizes {
            if !(rclick_rfc2544::frame::MIN_FRAME..=rclick_rfc2544::frame::MAX_FRAME).contains(&s) {
                return Err(rclick_rfc2544::frame::FrameError::BadSize(s).to_string());
            }
        }
        let trial_s = o.trial.unwrap_or(if q { 0.5 } else { 2.0 });
        if !(0.05..=60.0).contains(&trial_s) {
            return Err(format!("--trial {trial_s}: between 0.05 and 60 seconds"));
        }
        let resolution = o.resolution.unwrap_or(if q { 0.02 } else { 0.01 });
        if !(0.001..=0.5).contains(&resolution) {
            return Err(format!("--resolution {resolution}: between 0.001 and 0.5"));
        }
        if !(0.0..0.5).contains(&o.pdr) {
            return Err(format!("--pdr {}: below 0.5", o.pdr));
        }
        if o.flows == 0 || o.flows > 1024 {
            return Err("--flows: 1 to 1024".into());
        }
        Ok(Profile {
            quick: q,
            sizes,
            trial_s,
            drain: Duration::from_millis(if q { 100 } else { 500 }),
            params: SearchParams {
                max_rate: 0.0,
                min_rate: 0.0,
                resolution,
                pdr_loss_ratio: o.pdr,
                max_trials: if q { 8 } else { 14 },
            },
            loss_percents: if q {
                vec![10.0, 25.0, 50.0, 75.0, 100.0]
            } else {
                (1..=10).map(|k| k as f64 * 10.0).collect()
            },
            b2b_all_sizes: !q,
            b2b_s: if q { 0.1 } else { 1.0 },
            single_reps: if q { 3 } else { 10 },
            single_idle: Duration::from_millis(if q { 100 } else { 1000 }),
            transfer_mb: if q { 10 } else { 50 },
            flows: o.flows,
        })
    }
}

/// Stops the router process and removes the testbed when dropped: on
/// return, on error, on panic.
struct Cleanup {
    prefix: String,
    child: Arc<Mutex<Option<Child>>>,
}

impl Cleanup {
    fn stop_child(&self) {
        if let Some(mut c) = self.child.lock().ok().and_then(|mut g| g.take()) {
            dut::stop(&mut c);
        }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        self.stop_child();
        if let Err(e) = testbed::down_in(&self.prefix) {
            eprintln!("rclick rfc2544: removing the testbed: {e}");
        }
    }
}

/// Progress lines on standard error, with the time since the start.
struct Progress(Instant);

impl Progress {
    fn say(&self, msg: &str) {
        eprintln!("[{:6.1}s] {msg}", self.0.elapsed().as_secs_f64());
    }
}

/// The router namespace's receiving (`eth0`) and transmitting (`eth1`)
/// interfaces' counters, if `ip` can read them.
fn router_counters(rns: &str) -> Option<(dut::LinkCounters, dut::LinkCounters)> {
    Some((
        dut::link_counters(rns, "eth0").ok()?,
        dut::link_counters(rns, "eth1").ok()?,
    ))
}

/// Runs one trial and finds where its lost frames were lost, from the
/// counters of the router namespace's interfaces before and after.
fn run_split(
    ports: &mut Ports,
    rns: &str,
    spec: TrialSpec,
) -> Result<(TrialResult, Option<LossSplit>), String> {
    let before = router_counters(rns);
    let r = ports.run(spec)?;
    let split = before
        .zip(router_counters(rns))
        .map(|((b0, b1), (a0, a1))| {
            let (input, output) = (a0.since(&b0), a1.since(&b1));
            LossSplit::from_counts(
                r.totals.sent,
                input.rx_packets,
                output.tx_packets.saturating_add(output.tx_dropped),
                r.totals.unique,
            )
        });
    Ok((r, split))
}

/// A live device as the search sees it: each trial runs on the ports.
struct Live<'a> {
    ports: &'a mut Ports,
    template: Template,
    flows: u16,
    trial_s: f64,
    drain: Duration,
    error: Option<String>,
    last: Option<TrialResult>,
}

impl Device for Live<'_> {
    fn trial(&mut self, rate: f64) -> TrialOutcome {
        let mut spec = TrialSpec::paced(self.template, self.flows, rate, self.trial_s);
        spec.drain = self.drain;
        match self.ports.run(spec) {
            Ok(r) => {
                let o = r.outcome();
                self.last = Some(r);
                o
            }
            Err(e) => {
                self.error.get_or_insert(e);
                TrialOutcome {
                    rate,
                    sent: 0,
                    lost: 0,
                }
            }
        }
    }
}

/// Searches NDR and PDR for `template` on live `ports` between `min_rate`
/// and `max_rate` frames per second, with the profile's flows, trial
/// length, drain and search settings. The first trial that could not run
/// ends the search with its error.
fn search_live(
    ports: &mut Ports,
    template: Template,
    prof: &Profile,
    max_rate: f64,
    min_rate: f64,
) -> Result<SearchResult, String> {
    let mut live = Live {
        ports,
        template,
        flows: prof.flows,
        trial_s: prof.trial_s,
        drain: prof.drain,
        error: None,
        last: None,
    };
    let params = SearchParams {
        max_rate,
        min_rate,
        ..prof.params
    };
    let s = search(&mut live, &params);
    match live.error {
        Some(e) => Err(e),
        None => Ok(s),
    }
}

fn fmt_rate(fps: f64) -> String {
    if fps >= 1e6 {
        format!("{:.3} Mfps", fps / 1e6)
    } else if fps >= 1e3 {
        format!("{:.1} kfps", fps / 1e3)
    } else {
        format!("{fps:.0} fps")
    }
}

fn read_loadavg() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .filter_map(|x| x.parse().ok())
        .collect()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, m)| m.trim().to_string())
        .unwrap_or_default()
}

fn utc_now() -> String {
    dut::run(&["date", "-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Looks for `rel` in the working directory, then above this program
/// (`target/release/rclick` → the repository), then beside the repository.
fn find_file(rel: &str) -> Option<PathBuf> {
    let mut bases = vec![PathBuf::from(".")];
    if let Ok(exe) = std::env::current_exe() {
        if let Some(repo) = exe
            .parent()
            .and_then(|d| d.parent())
            .and_then(|d| d.parent())
        {
            bases.push(repo.to_path_buf());
        }
    }
    bases
        .iter()
        .map(|b| b.join(rel))
        .find(|p| p.exists())
        .map(|p| p.canonicalize().unwrap_or(p))
}

/// The devices to test, and why others are not.
fn choose_duts(o: &Rfc2544Options, not_run: &mut Vec<String>) -> Result<Vec<Dut>, String> {
    for d in &o.dut {
        if !["rclick", "kernel", "click"].contains(&d.as_str()) {
            return Err(format!("--dut {d}: expected rclick, kernel or click"));
        }
    }
    let conf = match &o.conf {
        Some(c) => c.clone(),
        None => find_file("conf/iprouter-linux.click")
            .ok_or("conf/iprouter-linux.click not found: run from the repository or give --conf")?,
    };
    if !conf.exists() {
        return Err(format!("{}: no such file", conf.display()));
    }
    let ours = match &o.rclick_click {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|d| d.join("click")))
            .unwrap_or_else(|| PathBuf::from("click")),
    };
    let reference = o
        .dut_click
        .clone()
        .or_else(|| find_file("../shared/reference/click/bin/click"));
    let wanted = |n: &str| o.dut.is_empty() || o.dut.iter().any(|d| d == n);
    let mut v = Vec::new();
    if wanted("rclick") {
        if ours.exists() {
            v.push(Dut {
                name: "rclick".into(),
                description: format!(
                    "rclick's click driver ({}) running {}",
                    ours.display(),
                    conf.display()
                ),
                kind: DutKind::Process {
                    bin: ours,
                    conf: conf.clone(),
                    clickpath: None,
                },
            });
        } else {
            not_run.push(format!(
                "rclick: {} not found (cargo build --release, or --rclick-click PATH)",
                ours.display()
            ));
        }
    }
    if wanted("kernel") {
        v.push(Dut {
            name: "kernel".into(),
            description: "Linux kernel forwarding in the router namespace (ip_forward=1)".into(),
            kind: DutKind::Kernel,
        });
    }
    if wanted("click") {
        match reference {
            Some(bin) if bin.exists() => {
                let share = bin
                    .parent()
                    .and_then(|d| d.parent())
                    .map(|d| d.join("share"));
                v.push(Dut {
                    name: "click".into(),
                    description: format!(
                        "the Click driver {} running {}",
                        bin.display(),
                        conf.display()
                    ),
                    kind: DutKind::Process {
                        bin,
                        conf,
                        clickpath: share.filter(|s| s.exists()),
                    },
                });
            }
            Some(bin) => {
                if o.dut_click.is_some() {
                    return Err(format!("--dut-click {}: no such file", bin.display()));
                }
            }
            None => not_run.push(
                "click: skipped: the reference Click was not found at \
                 ../shared/reference/click/bin/click; give --dut-click PATH"
                    .into(),
            ),
        }
    }
    if v.is_empty() {
        return Err("no device to test".into());
    }
    Ok(v)
}

/// Entry point: returns the exit status.
pub fn run(o: &Rfc2544Options) -> i32 {
    match run_inner(o) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rclick rfc2544: {e}");
            1
        }
    }
}

fn run_inner(o: &Rfc2544Options) -> Result<(), String> {
    let profile = Profile::new(o)?;
    testbed::check_prefix(&o.prefix)?;
    if !testbed::is_root() {
        return Err(
            "needs root (network namespaces, packet sockets): run `sudo rclick rfc2544`".into(),
        );
    }
    let cpus = sys::online_cpus();
    if o.generator_cpu >= cpus || o.dut_cpu >= cpus {
        return Err(format!(
            "--generator-cpu {} / --dut-cpu {}: this machine has processors 0..{}",
            o.generator_cpu,
            o.dut_cpu,
            cpus - 1
        ));
    }
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(stop_flag())).map_err(|e| e.to_string())?;
    }
    let mut report = Report {
        tool: format!("rclick rfc2544 {}", env!("CARGO_PKG_VERSION")),
        started: utc_now(),
        profile: if profile.quick { "quick" } else { "full" }.into(),
        machine: Machine {
            cpus,
            cpu_model: cpu_model(),
            kernel: dut::run(&["uname", "-r"])
                .unwrap_or_default()
                .trim()
                .to_string(),
            load_before: read_loadavg(),
            load_after: Vec::new(),
        },
        ..Report::default()
    };
    let duts = choose_duts(o, &mut report.not_run)?;
    std::fs::create_dir_all(&o.out).map_err(|e| format!("{}: {e}", o.out.display()))?;
    let previous = std::fs::read_to_string(o.out.join("report.json"))
        .ok()
        .and_then(|s| Report::from_json(&s).ok());
    let scratch = std::env::temp_dir().join(format!("rclick-rfc2544-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let _scratch_guard = ScratchDir(scratch.clone());
    let p = Progress(Instant::now());
    for n in &report.not_run {
        p.say(n);
    }
    sys::pin_to(o.generator_cpu)?;
    if !(-20..=19).contains(&o.nice) {
        return Err(format!("--nice {}: -20 to 19", o.nice));
    }
    // The generator is this (main) thread: renice it, as the router
    // processes are started with `nice`.
    dut::run(&[
        "renice",
        "-n",
        &o.nice.to_string(),
        "-p",
        &std::process::id().to_string(),
    ])?;
    report.method = Method {
        trial_s: profile.trial_s,
        drain_s: profile.drain.as_secs_f64(),
        resolution: profile.params.resolution,
        pdr_loss_ratio: profile.params.pdr_loss_ratio,
        max_trials: profile.params.max_trials,
        flows: profile.flows,
        sizes: profile.sizes.clone(),
        generator_cpu: o.generator_cpu,
        dut_cpu: o.dut_cpu,
        notes: method_notes(o, cpus),
    };
    let cleanup = Cleanup {
        prefix: o.prefix.clone(),
        child: Arc::new(Mutex::new(None)),
    };
    let _ = testbed::down_in(&o.prefix);

    // The generator's ceiling, back to back.
    p.say(&format!(
        "generator ceiling: back to back over {}-h0/eth0 -> {}-r/eth0, generator on CPU {}",
        o.prefix, o.prefix, o.generator_cpu
    ));
    report.generator = ceilings(o, &profile, &p)?;
    for d in &duts {
        if stop_flag().load(Ordering::Relaxed) {
            return Err("interrupted".into());
        }
        p.say(&format!("== {}: {}", d.name, d.description));
        let r = run_dut(DutRun {
            o,
            prof: &profile,
            d,
            ceil: &report.generator,
            cleanup: &cleanup,
            scratch: &scratch,
            p: &p,
        });
        cleanup.stop_child();
        let _ = testbed::down_in(&o.prefix);
        if stop_flag().load(Ordering::Relaxed) {
            return Err("interrupted".into());
        }
        report.duts.push(r);
    }
    drop(cleanup);
    report.machine.load_after = read_loadavg();
    report.elapsed_s = p.0.elapsed().as_secs_f64();
    report.targets = targets(&report, previous.as_ref());
    let files = [
        ("report.json", report.to_json()),
        ("report.md", rclick_rfc2544::render::markdown(&report)),
        ("report.html", rclick_rfc2544::render::html(&report)),
    ];
    for (name, text) in files {
        let path = o.out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    p.say(&format!(
        "report written to {}/report.{{md,html,json}}",
        o.out.display()
    ));
    print!("{}", rclick_rfc2544::render::summary(&report));
    Ok(())
}

/// Removes the scratch directory when dropped.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn method_notes(o: &Rfc2544Options, cpus: usize) -> Vec<String> {
    let mut v = vec![
        format!(
            "Testbed: network namespaces {p}-h0 (generator, 192.0.2.2) — {p}-r (device under test) — {p}-h1 \
             (receiver, 198.51.100.2), joined by veth pairs with offloads off (`rclick testbed --prefix {p}`).",
            p = o.prefix
        ),
        format!(
            "The generator and receiver are one thread of this program pinned to CPU {}: frames leave through a \
             memory-mapped TX ring (TPACKET_V2) on h0/eth0 and come back through a memory-mapped RX ring on \
             h1/eth0. Latency is the kernel's receive stamp minus the transmit stamp in the frame (one clock).",
            o.generator_cpu
        ),
        format!(
            "The generator and router processes run at niceness {} (`renice`, `nice -n`), so that other \
             work on a shared machine takes less of their processors; the kernel's own forwarding runs in \
             softirq context, ahead of any process, either way.",
            o.nice
        ),
        format!(
            "Router processes run under `taskset -c {}`. Receive processing (RPS) of the router namespace's \
             interfaces is steered to CPU {} and that of h1/eth0 to CPU {}, so the kernel's work for the device \
             under test (including all of Linux forwarding) is charged to the device's processor and the \
             receiver's to the generator's.",
            o.dut_cpu, o.dut_cpu, o.generator_cpu
        ),
        "Every figure is bounded by the generator's own ceiling for its frame size (measured back to back, \
         no device in between, at the start of the run): a figure at the ceiling is a generator limit, not the \
         device's."
            .into(),
    ];
    if cpus < 2 || o.generator_cpu == o.dut_cpu {
        v.push(
            "Generator and device share a processor: figures are much lower than with two.".into(),
        );
    }
    v
}

fn template(size: usize, dst_mac: [u8; 6]) -> Template {
    Template {
        src_mac: [2, 0, 0, 0, 0, 2],
        dst_mac,
        src_ip: std::net::Ipv4Addr::new(192, 0, 2, 2),
        dst_ip: std::net::Ipv4Addr::new(198, 51, 100, 2),
        frame_size: size,
    }
}

/// The router's eth0 address: where the generator sends.
const ROUTER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];

fn ceilings(o: &Rfc2544Options, prof: &Profile, p: &Progress) -> Result<Vec<Ceiling>, String> {
    testbed::up_in(&o.prefix, 2, false)?;
    let r = testbed::router_ns(&o.prefix);
    let h0 = format!("{}-h0", o.prefix);
    dut::steer_rps(&r, "eth0", 1 << o.generator_cpu)?;
    let mut ports = Ports::open((&h0, "eth0"), (&r, "eth0"))?;
    let mut out = Vec::new();
    for &size in &prof.sizes {
        let t = template(size, ROUTER_MAC);
        let mut spec = TrialSpec::paced(t, prof.flows, f64::INFINITY, prof.trial_s);
        spec.drain = prof.drain;
        let full = ports.run(spec)?;
        let send_fps = full.rate;
        let fps = if full.totals.lost == 0 {
            send_fps
        } else {
            let s = search_live(&mut ports, t, prof, send_fps, send_fps * 0.01)?;
            s.ndr.rate.max(full.delivered_rate().min(send_fps) * 0.5)
        };
        p.say(&format!(
            "  {size:4} B: ceiling {} (sends {} flat out, {} lost of {})",
            fmt_rate(fps),
            fmt_rate(send_fps),
            full.totals.lost,
            full.totals.sent
        ));
        out.push(Ceiling {
            size,
            fps,
            send_fps,
        });
    }
    drop(ports);
    testbed::down_in(&o.prefix)?;
    Ok(out)
}

/// `text` with absolute paths under the current directory `here` (and its
/// parent) written relative to it, so a report names no machine's paths.
fn relative_paths(text: &str, here: Option<&Path>) -> String {
    let Some(here) = here else {
        return text.to_string();
    };
    let mut out = text.replace(&format!("{}/", here.display()), "");
    if let Some(up) = here.parent().filter(|u| u.parent().is_some()) {
        out = out.replace(&format!("{}/", up.display()), "../");
    }
    out
}

/// What the trials on one device under test need: the options, the
/// profile, the device, the generator's ceilings, what to clean up, a
/// scratch directory and the progress printer.
#[derive(Clone, Copy)]
struct DutRun<'a> {
    o: &'a Rfc2544Options,
    prof: &'a Profile,
    d: &'a Dut,
    ceil: &'a [Ceiling],
    cleanup: &'a Cleanup,
    scratch: &'a Path,
    p: &'a Progress,
}

fn run_dut(run: DutRun) -> DutReport {
    let DutRun { o, d, p, .. } = run;
    let here = std::env::current_dir().ok();
    let mut rep = DutReport {
        name: d.name.clone(),
        description: relative_paths(&d.description, here.as_deref()),
        command: relative_paths(
            &d.argv(&testbed::router_ns(&o.prefix), o.dut_cpu, o.nice, None)
                .map(|v| v[4..].join(" "))
                .unwrap_or_else(|| "ip_forward=1 in the router namespace".into()),
            here.as_deref(),
        ),
        ..DutReport::default()
    };
    if let Err(e) = trials::dut_tests(run, &mut rep) {
        p.say(&format!("  {}: {e}", d.name));
        rep.error = Some(e);
    }
    rep
}

/// The issue's targets, checked against this run (and the previous
/// run's report in the same directory, for repeatability).
fn targets(r: &Report, previous: Option<&Report>) -> Vec<Target> {
    let size = r.method.sizes.first().copied().unwrap_or(64);
    let ours = r.dut("rclick");
    let ndr = |n: &str| r.dut(n).and_then(|d| d.ndr(size));
    let mut v = Vec::new();
    let ceiling = r.ceiling(size).unwrap_or(0.0);
    match (ndr("rclick"), ndr("click")) {
        (Some(a), Some(b)) => v.push(Target {
            name: format!("{size}-byte NDR: rclick vs the reference Click"),
            goal: "at least equal (goal: 3x)".into(),
            value: format!(
                "{} vs {}{}{}",
                fmt_rate(a),
                fmt_rate(b),
                if b > 0.0 {
                    format!(" = {:.1}x", a / b)
                } else {
                    " (the reference lost frames at every rate tried)".into()
                },
                if a >= ceiling * 0.98 {
                    " (rclick at the generator's ceiling)"
                } else {
                    ""
                }
            ),
            met: Some(a >= b),
        }),
        _ => v.push(Target {
            name: format!("{size}-byte NDR: rclick vs the reference Click"),
            goal: "at least equal (goal: 3x)".into(),
            value: "not measured in this run".into(),
            met: None,
        }),
    }
    match (ndr("rclick"), ndr("kernel")) {
        (Some(a), Some(b)) => v.push(Target {
            name: format!("{size}-byte NDR: rclick vs Linux kernel forwarding"),
            goal: "at least equal".into(),
            value: format!(
                "{} vs {}{}",
                fmt_rate(a),
                fmt_rate(b),
                if b >= ceiling * 0.98 {
                    " (the kernel at the generator's ceiling)"
                } else {
                    ""
                }
            ),
            met: Some(a >= b * 0.98),
        }),
        _ => v.push(Target {
            name: format!("{size}-byte NDR: rclick vs Linux kernel forwarding"),
            goal: "at least equal".into(),
            value: "not measured in this run".into(),
            met: None,
        }),
    }
    let start = ours
        .and_then(|d| d.restart.as_ref())
        .and_then(|x| x.start_ms);
    v.push(Target {
        name: "rclick restart: process start to first forwarded frame".into(),
        goal: "at most 50 ms (the paper's Click: 1990 ms)".into(),
        value: start.map_or("not measured".into(), |s| format!("{s:.1} ms")),
        met: start.map(|s| s <= 50.0),
    });
    let ov = ours.and_then(|d| d.overload.as_ref());
    // The point offered at twice the NDR, if the generator reached it.
    let p2 = ov.and_then(|o| {
        o.points
            .iter()
            .find(|p| (199.0..=201.0).contains(&p.percent))
            .map(|p| (p, o.ndr_fps))
    });
    let reached = p2.filter(|(p, ndr)| p.offered_fps >= 1.9 * ndr);
    v.push(Target {
        name: "rclick overload: delivered rate at 2x the NDR".into(),
        goal: "at least 95 % of the NDR".into(),
        value: match (reached, p2, ov) {
            (Some((p, ndr)), _, _) => format!(
                "{} delivered of {} offered: {:.1} % of the NDR",
                fmt_rate(p.delivered_fps),
                fmt_rate(p.offered_fps),
                p.delivered_fps / ndr * 100.0
            ),
            (None, Some((p, ndr)), _) => format!(
                "the generator offered only {} ({:.2}x the NDR): not measured",
                fmt_rate(p.offered_fps),
                p.offered_fps / ndr
            ),
            (None, None, Some(_)) => {
                "2x the NDR is above the generator's ceiling: not offered".into()
            }
            (None, None, None) => "not measured".into(),
        },
        met: reached.map(|(p, ndr)| p.delivered_fps >= 0.95 * ndr),
    });
    let prev = previous.filter(|p| p.profile == r.profile).and_then(|p| {
        let a = p.dut("rclick")?.ndr(size)?;
        let b = ours?.ndr(size)?;
        Some((a, b))
    });
    v.push(Target {
        name: format!("repeatability: rclick's {size}-byte NDR, this run vs the previous one in the same directory"),
        goal: "within 10 %".into(),
        value: match prev {
            Some((a, b)) => format!(
                "{} then {} ({:+.1} %)",
                fmt_rate(a),
                fmt_rate(b),
                if a > 0.0 { (b - a) / a * 100.0 } else { 0.0 }
            ),
            None => "no previous report of the same profile in the output directory".into(),
        },
        met: prev.map(|(a, b)| a > 0.0 && ((b - a) / a).abs() <= 0.10),
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_name_paths_relative_to_the_current_directory() {
        let here = Path::new("/srv/x/rclick");
        assert_eq!(
            relative_paths(
                "nice taskset /srv/x/rclick/target/release/click /srv/x/rclick/conf/a.click \
                 /srv/x/shared/reference/click/bin/click /opt/y",
                Some(here)
            ),
            "nice taskset target/release/click conf/a.click \
                 ../shared/reference/click/bin/click /opt/y"
        );
        // At the top of the tree, nothing becomes "../".
        assert_eq!(relative_paths("/a/b /c", Some(Path::new("/a"))), "b /c");
        assert_eq!(relative_paths("/a/b", None), "/a/b");
    }

    #[test]
    fn recovery_is_the_first_bin_from_which_nothing_is_lost() {
        // 5 ms bins; overload until 50 ms; losses until 65 ms.
        let mut tl = vec![(100, 50); 13];
        tl.extend(vec![(100, 100); 20]);
        assert_eq!(recovery_ms(&tl, 5.0, 50.0, 165.0), Some(15.0));
        // No loss at all after the overload: recovered at once.
        let tl = vec![(100, 100); 30];
        assert_eq!(recovery_ms(&tl, 5.0, 50.0, 150.0), Some(0.0));
        // Still losing at the end: never.
        let tl = vec![(100, 10); 30];
        assert_eq!(recovery_ms(&tl, 5.0, 50.0, 150.0), None);
    }

    fn with_ndrs(ndrs: &[(&str, f64)]) -> Report {
        Report {
            method: Method {
                sizes: vec![64],
                ..Method::default()
            },
            generator: vec![Ceiling {
                size: 64,
                fps: 400_000.0,
                send_fps: 400_000.0,
            }],
            duts: ndrs
                .iter()
                .map(|&(name, ndr)| DutReport {
                    name: name.into(),
                    throughput: vec![Throughput {
                        size: 64,
                        ndr_fps: ndr,
                        ..Throughput::default()
                    }],
                    ..DutReport::default()
                })
                .collect(),
            ..Report::default()
        }
    }

    #[test]
    fn ndr_targets_compare_with_the_reference_and_the_kernel() {
        let t = targets(
            &with_ndrs(&[
                ("rclick", 200_000.0),
                ("click", 50_000.0),
                ("kernel", 300_000.0),
            ]),
            None,
        );
        assert_eq!(t[0].met, Some(true));
        assert!(t[0].value.contains("= 4.0x"), "{}", t[0].value);
        assert_eq!(t[1].met, Some(false));
        // A reference that lost frames at every rate has an NDR of 0: no
        // ratio to print.
        let t = targets(&with_ndrs(&[("rclick", 20_000.0), ("click", 0.0)]), None);
        assert!(!t[0].value.contains("inf"), "{}", t[0].value);
        assert!(
            t[0].value.contains("lost frames at every rate"),
            "{}",
            t[0].value
        );
        assert_eq!(t[1].met, None);
    }

    #[test]
    fn profiles() {
        let mut o = Rfc2544Options {
            quick: true,
            out: "x".into(),
            dut: vec![],
            dut_click: None,
            rclick_click: None,
            conf: None,
            sizes: vec![],
            trial: None,
            resolution: None,
            pdr: 0.005,
            flows: 16,
            prefix: "rclick-rfc".into(),
            generator_cpu: 0,
            dut_cpu: 1,
            no_transfers: false,
            nice: -10,
        };
        let q = Profile::new(&o).unwrap();
        assert_eq!(q.sizes, vec![64, 512, 1518]);
        assert_eq!(q.trial_s, 0.5);
        o.quick = false;
        let f = Profile::new(&o).unwrap();
        assert_eq!(f.sizes.len(), 7);
        assert_eq!(f.loss_percents.len(), 10);
        o.sizes = vec![63];
        assert!(Profile::new(&o).unwrap_err().contains("63"));
        o.sizes = vec![];
        o.trial = Some(0.0);
        assert!(Profile::new(&o).is_err());
        o.trial = None;
        o.dut = vec!["netfpga".into()];
        assert!(choose_duts(&o, &mut Vec::new())
            .unwrap_err()
            .contains("netfpga"));
    }
}
