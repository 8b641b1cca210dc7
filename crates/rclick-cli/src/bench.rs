//! `rclick bench`: times benchmark configurations in this process.
//!
//! Each configuration is parsed once with `N` set to the packet count, then
//! built and run (the same path `rclick run` takes) once to warm up and
//! `runs` more times with the clock running around [`Router::run`] only.
//! After every run the packets are accounted for through handlers: the
//! checks given with `--check ELEMENT.HANDLER=VALUE`, or the convention of
//! Click's benchmark files (see [`default_checks`]). A failed check stops
//! the benchmark with a message and a non-zero status, so a fast number
//! that lost packets is never reported.

use std::io::Write;
use std::time::Instant;

use rclick_core::{BuildOptions, Router};
use rclick_lang::FlatConfig;

/// What `rclick bench` was asked to do (its command-line options).
#[derive(Clone, Debug, clap::Args)]
pub struct BenchOptions {
    /// Configuration files (each takes `N`, the packet count), and
    /// NAME=value definitions.
    #[arg(value_name = "FILE | NAME=VALUE", required = true)]
    pub rest: Vec<String>,
    /// Packets per run (the configuration's `$N`).
    #[arg(short = 'n', long, default_value_t = 2_000_000)]
    pub packets: u64,
    /// Timed runs per configuration, after one warm-up run.
    #[arg(short = 'r', long, default_value_t = 5)]
    pub runs: usize,
    /// After each run, handler ELEMENT.HANDLER must read VALUE (`$N`: the
    /// packet count). Repeatable. Without it: the sink `d` counted N, or the
    /// sinks `d0`, `d1`... together, every `cnt_*` Counter counted N, and no
    /// queue dropped.
    #[arg(long = "check", value_name = "ELEMENT.HANDLER=VALUE")]
    pub checks: Vec<String>,
    /// Check nothing.
    #[arg(long, conflicts_with = "checks")]
    pub no_check: bool,
    /// Also print WORKLOAD minus BASELINE (workload names are file names
    /// without `.click`). Repeatable. Without it, each workload is paired
    /// with a benchmarked `..._baseline...` file named like it.
    #[arg(long, value_name = "WORKLOAD=BASELINE")]
    pub subtract: Vec<String>,
    /// After the timed runs, one more run with profiling on; print its
    /// per-element cost table.
    #[arg(long)]
    pub profile: bool,
    /// Run every task once per scheduling, as Click's driver does, even
    /// where several runs could be done in one call with the same results.
    #[arg(long)]
    pub no_coalesce: bool,
    /// Call every element of a run of simple elements through its own
    /// push, instead of fusing the run into one dispatch.
    #[arg(long)]
    pub no_fuse: bool,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
}

impl BenchOptions {
    /// The configuration files, and the `NAME=value` definitions.
    fn files_and_defines(&self) -> (Vec<String>, Vec<(String, String)>) {
        let mut files = Vec::new();
        let mut defines = Vec::new();
        for a in &self.rest {
            match crate::parse_define(a) {
                Some(d) => defines.push(d),
                None => files.push(a.clone()),
            }
        }
        (files, defines)
    }
}

/// One handler check: `spec` must read `expected`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// `element.handler`.
    pub spec: String,
    /// The value it must have.
    pub expected: String,
    /// Several handlers whose values must add up to `expected`.
    pub sum_of: Vec<String>,
}

impl Check {
    fn label(&self, n: u64) -> String {
        let lhs = if self.sum_of.is_empty() {
            self.spec.clone()
        } else {
            self.sum_of.join("+")
        };
        let rhs = if self.expected == n.to_string() {
            "N".to_string()
        } else {
            self.expected.clone()
        };
        format!("{lhs}={rhs}")
    }
}

/// Parses `ELEMENT.HANDLER=VALUE`, replacing `$N` in VALUE by `n`.
pub fn parse_check(s: &str, n: u64) -> Result<Check, String> {
    let (spec, value) = s
        .split_once('=')
        .ok_or_else(|| format!("--check '{s}': expected ELEMENT.HANDLER=VALUE"))?;
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(format!("--check '{s}': no handler before '='"));
    }
    Ok(Check {
        spec: spec.to_string(),
        expected: value.trim().replace("$N", &n.to_string()),
        sum_of: Vec::new(),
    })
}

/// The checks Click's benchmark files (`bench/*.click`) are written for,
/// derived from the element names and classes of a built router:
///
/// * a sink named `d`: `d.count` is N;
/// * otherwise sinks named `d0`, `d1`... that have a `count` handler: their
///   counts add up to N (the IP router configurations);
/// * every Counter named `cnt_*` counted N (`c_iprouter_verify`);
/// * every queue (a class whose name ends in `Queue`) dropped nothing.
///
/// Empty when the configuration follows none of these conventions.
pub fn default_checks(router: &Router, n: u64) -> Vec<Check> {
    let mut checks = Vec::new();
    let names: Vec<(String, String)> = (0..router.nelements())
        .map(|e| {
            let i = router.element_info(e);
            (i.name.clone(), i.class.clone())
        })
        .collect();
    let readable = |spec: &str| router.handler_flags(spec).is_some_and(|f| f.read);
    if readable("d.count") {
        checks.push(Check {
            spec: "d.count".into(),
            expected: n.to_string(),
            sum_of: Vec::new(),
        });
    } else {
        let sinks: Vec<String> = names
            .iter()
            .filter(|(name, _)| {
                name.strip_prefix('d')
                    .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
            })
            .map(|(name, _)| format!("{name}.count"))
            .filter(|spec| readable(spec))
            .collect();
        if !sinks.is_empty() {
            checks.push(Check {
                spec: "sinks".into(),
                expected: n.to_string(),
                sum_of: sinks,
            });
        }
    }
    for (name, class) in &names {
        if name.starts_with("cnt_") && class == "Counter" {
            checks.push(Check {
                spec: format!("{name}.count"),
                expected: n.to_string(),
                sum_of: Vec::new(),
            });
        }
    }
    if checks.is_empty() {
        return checks;
    }
    for (name, class) in &names {
        let spec = format!("{name}.drops");
        if class.ends_with("Queue") && readable(&spec) {
            checks.push(Check {
                spec,
                expected: "0".into(),
                sum_of: Vec::new(),
            });
        }
    }
    checks
}

fn read_number(router: &Router, spec: &str) -> Result<String, String> {
    router
        .read_handler(spec, "")
        .map(|v| v.trim().to_string())
        .map_err(|e| format!("cannot read {spec}: {e}"))
}

/// Whether two handler values are equal: as numbers when both are, else as
/// text.
fn same_value(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Runs the checks on a router that has run; the first failure as a sentence.
pub fn run_checks(router: &Router, checks: &[Check]) -> Result<(), String> {
    for c in checks {
        if c.sum_of.is_empty() {
            let v = read_number(router, &c.spec)?;
            if !same_value(&v, &c.expected) {
                return Err(format!("{} is {v}, expected {}", c.spec, c.expected));
            }
        } else {
            let mut total = 0u64;
            let mut parts = Vec::new();
            for s in &c.sum_of {
                let v = read_number(router, s)?;
                let x: u64 = v
                    .parse()
                    .map_err(|_| format!("{s} is '{v}', expected a count"))?;
                parts.push(format!("{s} = {v}"));
                total += x;
            }
            if !same_value(&total.to_string(), &c.expected) {
                return Err(format!(
                    "{} add up to {total}, expected {} ({})",
                    c.sum_of.join(" + "),
                    c.expected,
                    parts.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// Timings of one workload.
#[derive(Clone, Debug)]
pub struct Row {
    /// The file name without directory and `.click`.
    pub name: String,
    /// Wall-clock ns/packet of each timed run, sorted.
    pub ns: Vec<f64>,
    /// CPU ns/packet (the driver thread's CPU time) of each run, sorted.
    pub cpu_ns: Vec<f64>,
    /// The checks each run passed, as labels.
    pub checked: Vec<String>,
    /// Peak resident set size while this workload ran, in bytes (Linux).
    pub max_rss: Option<u64>,
    /// The element cost table of the profiled run.
    pub profile: Option<String>,
    /// ns/packet of the profiled run.
    pub profiled_ns: Option<f64>,
}

impl Row {
    /// The median run (the lower middle one for an even count).
    pub fn median(&self) -> f64 {
        self.ns[(self.ns.len() - 1) / 2]
    }
    /// The fastest run.
    pub fn min(&self) -> f64 {
        self.ns[0]
    }
    /// The slowest run.
    pub fn max(&self) -> f64 {
        self.ns[self.ns.len() - 1]
    }
    /// The median CPU time per packet.
    pub fn cpu_median(&self) -> f64 {
        self.cpu_ns[(self.cpu_ns.len() - 1) / 2]
    }
}

/// The workload name of a file: its name without directory and `.click`.
pub fn workload_name(file: &str) -> String {
    let base = file.rsplit('/').next().unwrap_or(file);
    base.strip_suffix(".click").unwrap_or(base).to_string()
}

/// Peak resident set size of this process (`VmHWM`), in bytes.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resets the peak resident set size to the current one (Linux 4.0+), so
/// that each workload's peak is its own.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Builds a router for one run, printing build errors.
fn build_router(flat: &FlatConfig, text: &str, opts: &BenchOptions) -> Result<Router, String> {
    crate::build(
        flat.clone(),
        text,
        BuildOptions {
            no_coalesce: opts.no_coalesce,
            no_fuse: opts.no_fuse,
            ..Default::default()
        },
    )
    .map_err(|crate::Reported| "configuration error".to_string())
}

/// Builds, runs and checks once; returns the seconds the run took, on the
/// wall clock and on the driver thread's CPU clock.
fn one_run(
    flat: &FlatConfig,
    text: &str,
    checks: &[Check],
    profile: bool,
    opts: &BenchOptions,
) -> Result<(f64, f64, Router), String> {
    let router = build_router(flat, text, opts)?;
    if profile {
        router.write_handler("profile", "true")?;
    }
    // One driver thread: the router runs on this one.
    let cpu = cpu_time::ThreadTime::try_now().ok();
    let start = Instant::now();
    router.run();
    let secs = start.elapsed().as_secs_f64();
    let cpu_secs = cpu
        .and_then(|c| c.try_elapsed().ok())
        .map_or(secs, |d| d.as_secs_f64());
    if profile {
        router.write_handler("profile", "false")?;
    }
    run_checks(&router, checks)?;
    Ok((secs, cpu_secs, router))
}

/// Benchmarks one file.
fn bench_file(
    opts: &BenchOptions,
    defines: &[(String, String)],
    file: &str,
) -> Result<Row, String> {
    let (text, name) = crate::Source::File(file.to_string()).read()?;
    let mut defines = defines.to_vec();
    defines.push(("N".to_string(), opts.packets.to_string()));
    let flat = crate::parse(&text, &name, &defines)
        .map_err(|crate::Reported| "parse error".to_string())?;
    reset_peak_rss();
    let n = opts.packets;
    let mut checks = Vec::new();
    for c in &opts.checks {
        checks.push(parse_check(c, n)?);
    }
    if checks.is_empty() && !opts.no_check {
        let router = build_router(&flat, &text, opts)?;
        checks = default_checks(&router, n);
        if checks.is_empty() {
            return Err(
                "no sink to check (no element 'd', 'd0'... or 'cnt_*' Counter): \
                 give --check ELEMENT.HANDLER=VALUE, or --no-check"
                    .to_string(),
            );
        }
    }
    let label = |i: usize| {
        if i == 0 {
            "warm-up run".to_string()
        } else {
            format!("run {i}")
        }
    };
    let (mut ns, mut cpu_ns) = (Vec::new(), Vec::new());
    for i in 0..=opts.runs {
        let (secs, cpu, _) = one_run(&flat, &text, &checks, false, opts)
            .map_err(|e| format!("{}: {e}", label(i)))?;
        if i > 0 {
            ns.push(secs * 1e9 / n as f64);
            cpu_ns.push(cpu * 1e9 / n as f64);
        }
    }
    ns.sort_by(f64::total_cmp);
    cpu_ns.sort_by(f64::total_cmp);
    let max_rss = peak_rss();
    let (profile, profiled_ns) = if opts.profile {
        let (secs, _, router) =
            one_run(&flat, &text, &checks, true, opts).map_err(|e| format!("profiled run: {e}"))?;
        let report = router
            .element_costs()
            .ok_or("profiled run: no element costs")?;
        // Scaled to the median run's CPU time.
        let reference = cpu_ns[(cpu_ns.len() - 1) / 2] * n as f64;
        (
            Some(report.table_scaled(Some(reference))),
            Some(secs * 1e9 / n as f64),
        )
    } else {
        (None, None)
    };
    Ok(Row {
        name: workload_name(file),
        ns,
        cpu_ns,
        checked: checks.iter().map(|c| c.label(n)).collect(),
        max_rss,
        profile,
        profiled_ns,
    })
}

/// A `WORKLOAD - BASELINE` row.
#[derive(Clone, Debug)]
pub struct Difference {
    /// The workload.
    pub name: String,
    /// Its baseline.
    pub baseline: String,
    /// Difference of the medians, ns/packet.
    pub median: f64,
    /// Difference of the fastest runs.
    pub min: f64,
    /// Difference of the slowest runs.
    pub max: f64,
    /// Difference of the median CPU times.
    pub cpu_median: f64,
    /// Difference of the peak resident set sizes, bytes.
    pub rss: Option<i64>,
}

/// The pairs to subtract: those asked for, or, when none, each workload
/// with a benchmarked baseline named like it (`d_radix_baseline_nots` for
/// `d_radix_1k_nots`: the baseline's name with `_baseline` taken out is a
/// prefix, and what follows `baseline` a suffix, of the workload's).
pub fn subtraction_pairs(
    names: &[String],
    asked: &[String],
) -> Result<Vec<(String, String)>, String> {
    if !asked.is_empty() {
        return asked
            .iter()
            .map(|s| {
                let (a, b) = s
                    .split_once('=')
                    .ok_or_else(|| format!("--subtract '{s}': expected WORKLOAD=BASELINE"))?;
                for w in [a, b] {
                    if !names.iter().any(|n| n == w) {
                        return Err(format!(
                            "--subtract '{s}': '{w}' is not one of the benchmarked workloads ({})",
                            names.join(", ")
                        ));
                    }
                }
                Ok((a.to_string(), b.to_string()))
            })
            .collect();
    }
    let mut pairs = Vec::new();
    for base in names {
        let Some((pre, suf)) = base.split_once("baseline") else {
            continue;
        };
        let pre = pre.trim_end_matches('_');
        for w in names {
            if w != base && w.starts_with(pre) && w.ends_with(suf) && !w.contains("baseline") {
                pairs.push((w.clone(), base.clone()));
            }
        }
    }
    Ok(pairs)
}

fn differences(rows: &[Row], pairs: &[(String, String)]) -> Vec<Difference> {
    let find = |n: &str| rows.iter().find(|r| r.name == n);
    pairs
        .iter()
        .filter_map(|(a, b)| {
            let (ra, rb) = (find(a)?, find(b)?);
            Some(Difference {
                name: a.clone(),
                baseline: b.clone(),
                median: ra.median() - rb.median(),
                min: ra.min() - rb.min(),
                max: ra.max() - rb.max(),
                cpu_median: ra.cpu_median() - rb.cpu_median(),
                rss: match (ra.max_rss, rb.max_rss) {
                    (Some(x), Some(y)) => Some(x as i64 - y as i64),
                    _ => None,
                },
            })
        })
        .collect()
}

fn mb(bytes: f64) -> String {
    format!("{:.1}", bytes / (1024.0 * 1024.0))
}

const HEADER: &str = "| workload | ns/packet median | min | max | CPU ns/packet median | Mpps median | min | max | max RSS MB | checked |";
const RULE: &str = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|";

fn row_line(r: &Row) -> String {
    format!(
        "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} |",
        r.name,
        r.median(),
        r.min(),
        r.max(),
        r.cpu_median(),
        1e3 / r.median(),
        1e3 / r.max(),
        1e3 / r.min(),
        r.max_rss
            .map(|b| mb(b as f64))
            .unwrap_or_else(|| "-".into()),
        if r.checked.len() > 3 {
            format!("{} handlers", r.checked.len())
        } else if r.checked.is_empty() {
            "nothing".into()
        } else {
            r.checked.join(", ")
        }
    )
}

fn difference_line(d: &Difference) -> String {
    format!(
        "| {} − {} | {:.2} | {:.2} | {:.2} | {:.2} | | | | {} | |",
        d.name,
        d.baseline,
        d.median,
        d.min,
        d.max,
        d.cpu_median,
        d.rss.map(|b| mb(b as f64)).unwrap_or_else(|| "-".into())
    )
}

fn json(opts: &BenchOptions, rows: &[Row], diffs: &[Difference]) -> serde_json::Value {
    serde_json::json!({
        "packets": opts.packets,
        "runs": opts.runs,
        "workloads": rows.iter().map(|r| serde_json::json!({
            "name": r.name,
            "ns_per_packet": { "median": r.median(), "min": r.min(), "max": r.max(), "runs": r.ns },
            "cpu_ns_per_packet": { "median": r.cpu_median(), "runs": r.cpu_ns },
            "mpps": { "median": 1e3 / r.median(), "min": 1e3 / r.max(), "max": 1e3 / r.min() },
            "max_rss_bytes": r.max_rss,
            "checked": r.checked,
            "profiled_ns_per_packet": r.profiled_ns,
            "element_costs": r.profile,
        })).collect::<Vec<_>>(),
        "differences": diffs.iter().map(|d| serde_json::json!({
            "workload": d.name,
            "baseline": d.baseline,
            "ns_per_packet": { "median": d.median, "min": d.min, "max": d.max },
            "cpu_ns_per_packet": { "median": d.cpu_median },
            "max_rss_bytes": d.rss,
        })).collect::<Vec<_>>(),
    })
}

/// Runs `rclick bench`; returns the exit status.
pub fn bench(opts: &BenchOptions) -> i32 {
    let (files, defines) = opts.files_and_defines();
    if files.is_empty() {
        eprintln!("rclick bench: no configuration files");
        return 1;
    }
    if opts.runs == 0 || opts.packets == 0 {
        eprintln!("rclick bench: --runs and --packets must be at least 1");
        return 1;
    }
    if defines.iter().any(|(k, _)| k == "N") {
        eprintln!("rclick bench: set the packet count with -n, not N=");
        return 1;
    }
    for c in &opts.checks {
        if let Err(e) = parse_check(c, opts.packets) {
            eprintln!("rclick bench: {e}");
            return 1;
        }
    }
    let names: Vec<String> = files.iter().map(|f| workload_name(f)).collect();
    let pairs = match subtraction_pairs(&names, &opts.subtract) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("rclick bench: {e}");
            return 1;
        }
    };
    let stdout = std::io::stdout();
    if !opts.json {
        let mut out = stdout.lock();
        let _ = writeln!(
            out,
            "{} packets per run, median of {} runs after a warm-up run",
            opts.packets, opts.runs
        );
        let _ = writeln!(out);
        let _ = writeln!(out, "{HEADER}");
        let _ = writeln!(out, "{RULE}");
        let _ = out.flush();
    }
    let mut rows = Vec::new();
    for f in &files {
        match bench_file(opts, &defines, f) {
            Ok(r) => {
                if !opts.json {
                    let mut out = stdout.lock();
                    let _ = writeln!(out, "{}", row_line(&r));
                    let _ = out.flush();
                }
                rows.push(r);
            }
            Err(e) => {
                eprintln!("rclick bench: {f}: {e}");
                return 1;
            }
        }
    }
    let diffs = differences(&rows, &pairs);
    let mut out = stdout.lock();
    if opts.json {
        let _ = writeln!(out, "{:#}", json(opts, &rows, &diffs));
        return 0;
    }
    for d in &diffs {
        let _ = writeln!(out, "{}", difference_line(d));
    }
    for r in &rows {
        if let (Some(t), Some(ns)) = (&r.profile, r.profiled_ns) {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "{}: element costs (one more run with profiling on: {ns:.2} ns/packet)",
                r.name
            );
            let _ = writeln!(out);
            let _ = writeln!(out, "{}", t.trim_end());
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_parse() {
        let c = parse_check("d.count=$N", 1000).unwrap();
        assert_eq!(c.spec, "d.count");
        assert_eq!(c.expected, "1000");
        assert_eq!(c.label(1000), "d.count=N");
        assert!(parse_check("d.count", 1).is_err());
        assert!(parse_check("=5", 1).is_err());
        assert!(same_value("5", "5.0"));
        assert!(!same_value("5", "6"));
        assert!(same_value("true", "true"));
    }

    #[test]
    fn baseline_pairs_follow_the_file_names() {
        let names: Vec<String> = [
            "d_ipclassifier10_nots",
            "d_ipclassifier_baseline_nots",
            "d_radix_1k_nots",
            "d_radix_baseline_nots",
            "a_infsrc_discard_nots",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let p = subtraction_pairs(&names, &[]).unwrap();
        assert_eq!(
            p,
            vec![
                (
                    "d_ipclassifier10_nots".to_string(),
                    "d_ipclassifier_baseline_nots".to_string()
                ),
                (
                    "d_radix_1k_nots".to_string(),
                    "d_radix_baseline_nots".to_string()
                ),
            ]
        );
        let asked = subtraction_pairs(&names, &["d_radix_1k_nots=a_infsrc_discard_nots".into()]);
        assert_eq!(asked.unwrap().len(), 1);
        assert!(subtraction_pairs(&names, &["x=a_infsrc_discard_nots".into()]).is_err());
    }

    fn built(text: &str) -> Router {
        let flat = crate::parse(text, "config", &[]).unwrap();
        crate::build(flat, text, BuildOptions::default()).unwrap()
    }

    #[test]
    fn default_checks_follow_the_bench_conventions() {
        let r =
            built("InfiniteSource(LIMIT 10, STOP true) -> q :: Queue -> Unqueue -> d :: Discard;");
        let labels: Vec<String> = default_checks(&r, 10).iter().map(|c| c.label(10)).collect();
        assert_eq!(labels, vec!["d.count=N", "q.drops=0"]);
        r.run();
        assert_eq!(run_checks(&r, &default_checks(&r, 10)), Ok(()));
        assert!(run_checks(&r, &default_checks(&r, 11))
            .unwrap_err()
            .contains("d.count is 10, expected 11"));

        let r = built(
            "s :: InfiniteSource(LIMIT 7, STOP true) -> cnt_a :: Counter -> t :: Tee;
             t[0] -> d0 :: Discard; t[1] -> d1 :: Discard;",
        );
        let labels: Vec<String> = default_checks(&r, 7).iter().map(|c| c.label(7)).collect();
        assert_eq!(labels, vec!["d0.count+d1.count=N", "cnt_a.count=N"]);
        r.run();
        let e = run_checks(&r, &default_checks(&r, 7)).unwrap_err();
        assert!(e.contains("add up to 14, expected 7"), "{e}");

        let r = built("Idle -> Discard;");
        assert!(default_checks(&r, 1).is_empty());
    }
}
