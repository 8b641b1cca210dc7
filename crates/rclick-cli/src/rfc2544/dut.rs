//! Devices under test and what is done to them: starting and stopping a
//! router process (pinned with `taskset`), a hot-swap through its
//! ControlSocket's `hotconfig` handler, steering receive processing with
//! RPS, and file transfers through it (HTTP with Python's http.server
//! and curl, FTP with pyftpdlib and curl, as `scripts/e2e-compare`).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// What forwards the frames.
#[derive(Clone, Debug)]
pub enum DutKind {
    /// A Click-compatible driver running a configuration: ours, or any
    /// other (`--dut-click`).
    Process {
        /// The driver.
        bin: PathBuf,
        /// The configuration file.
        conf: PathBuf,
        /// `CLICKPATH` to set, if any.
        clickpath: Option<PathBuf>,
    },
    /// The Linux kernel of the router namespace (`ip_forward=1`).
    Kernel,
}

/// A device under test.
#[derive(Clone, Debug)]
pub struct Dut {
    /// Short name for tables (`rclick`, `kernel`, `click`).
    pub name: String,
    /// What it is.
    pub description: String,
    /// How it forwards.
    pub kind: DutKind,
}

impl Dut {
    /// Whether the testbed's router namespace must forward by itself.
    pub fn kernel_forwarding(&self) -> bool {
        matches!(self.kind, DutKind::Kernel)
    }

    /// The command line that starts it in namespace `ns` on processor
    /// `cpu` at niceness `nice`, with a ControlSocket on `sock` and
    /// `hotconfig` if given.
    pub fn argv(
        &self,
        ns: &str,
        cpu: usize,
        nice: i32,
        sock: Option<&Path>,
    ) -> Option<Vec<String>> {
        let DutKind::Process { bin, conf, .. } = &self.kind else {
            return None;
        };
        let mut v: Vec<String> = ["ip", "netns", "exec", ns, "nice", "-n"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.push(nice.to_string());
        v.extend(["taskset".to_string(), "-c".to_string(), cpu.to_string()]);
        v.push(bin.display().to_string());
        if let Some(s) = sock {
            v.extend(["-R".to_string(), "-u".to_string(), s.display().to_string()]);
        }
        v.push(conf.display().to_string());
        Some(v)
    }

    /// Starts the router process (output to `log`).
    pub fn spawn(
        &self,
        ns: &str,
        cpu: usize,
        nice: i32,
        sock: Option<&Path>,
        log: &Path,
    ) -> Result<Child, String> {
        let argv = self
            .argv(ns, cpu, nice, sock)
            .ok_or("the kernel has no process")?;
        let out = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        if let DutKind::Process {
            clickpath: Some(p), ..
        } = &self.kind
        {
            cmd.env("CLICKPATH", p);
        }
        cmd.spawn().map_err(|e| format!("{}: {e}", argv.join(" ")))
    }
}

/// Stops a router process: SIGTERM, then SIGKILL after a second.
pub fn stop(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs a program, returning its standard output or a sentence.
pub fn run(argv: &[&str]) -> Result<String, String> {
    let out = Command::new(argv[0])
        .args(&argv[1..])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", argv[0]))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "`{}` failed: {}",
            argv.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Packet counters of one interface, as the kernel keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    pub rx_packets: u64,
    pub rx_dropped: u64,
    pub tx_packets: u64,
    pub tx_dropped: u64,
}

impl LinkCounters {
    /// What changed from `before` to `self` (wrapping, as counters do).
    pub fn since(&self, before: &LinkCounters) -> LinkCounters {
        LinkCounters {
            rx_packets: self.rx_packets.wrapping_sub(before.rx_packets),
            rx_dropped: self.rx_dropped.wrapping_sub(before.rx_dropped),
            tx_packets: self.tx_packets.wrapping_sub(before.tx_packets),
            tx_dropped: self.tx_dropped.wrapping_sub(before.tx_dropped),
        }
    }
}

/// The counters of `dev` in namespace `ns` (`ip -s -j link`).
pub fn link_counters(ns: &str, dev: &str) -> Result<LinkCounters, String> {
    let out = run(&["ip", "-n", ns, "-s", "-j", "link", "show", "dev", dev])?;
    parse_link_counters(&out).ok_or_else(|| format!("{ns}/{dev}: no counters in `ip -s -j link`"))
}

/// The counters in the JSON `ip -s -j link show dev DEV` prints.
pub fn parse_link_counters(json: &str) -> Option<LinkCounters> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let st = v.get(0)?.get("stats64")?;
    let n = |dir: &str, k: &str| st.get(dir)?.get(k)?.as_u64();
    Some(LinkCounters {
        rx_packets: n("rx", "packets")?,
        rx_dropped: n("rx", "dropped")?,
        tx_packets: n("tx", "packets")?,
        tx_dropped: n("tx", "dropped")?,
    })
}

/// Sends receive processing of `dev` in `ns` to the processors of
/// `mask` (RPS), so a device's kernel-side receive work is charged to
/// the processor of whoever receives.
pub fn steer_rps(ns: &str, dev: &str, mask: u64) -> Result<(), String> {
    let path = format!("/sys/class/net/{dev}/queues/rx-0/rps_cpus");
    run(&[
        "ip",
        "netns",
        "exec",
        ns,
        "sh",
        "-c",
        &format!("echo {mask:x} > {path}"),
    ])
    .map(|_| ())
}

/// Replaces the running configuration through the ControlSocket at
/// `sock` (`WRITEDATA hotconfig`); returns how long the write took.
pub fn hotswap(sock: &Path, config: &str) -> Result<Duration, String> {
    let t = Instant::now();
    let mut s = UnixStream::connect(sock).map_err(|e| format!("{}: {e}", sock.display()))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    let mut greeting = [0u8; 64];
    let _ = s.read(&mut greeting).map_err(|e| e.to_string())?;
    s.write_all(format!("WRITEDATA hotconfig {}\r\n", config.len()).as_bytes())
        .and_then(|_| s.write_all(config.as_bytes()))
        .map_err(|e| e.to_string())?;
    let mut reply = Vec::new();
    let mut buf = [0u8; 512];
    while !reply.windows(2).any(|w| w == b"\r\n") {
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        reply.extend_from_slice(&buf[..n]);
    }
    let reply = String::from_utf8_lossy(&reply).into_owned();
    if reply.starts_with("200") {
        Ok(t.elapsed())
    } else {
        Err(format!("hotconfig: {}", reply.trim()))
    }
}

/// Waits up to 5 s for `path` to exist.
pub fn wait_for(path: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if path.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// The python3 that has pyftpdlib (Debian's package installs it for
/// /usr/bin/python3, which may not be the python3 first on PATH).
fn python_with_pyftpdlib() -> Option<&'static str> {
    ["/usr/bin/python3", "python3"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import pyftpdlib"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// A background program in a namespace, stopped on drop.
struct Background(Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn background(ns: &str, argv: &[&str]) -> Result<Background, String> {
    Command::new("ip")
        .args(["netns", "exec", ns])
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(Background)
        .map_err(|e| format!("{}: {e}", argv[0]))
}

/// Waits up to 5 s until something listens on TCP `port` in `ns`.
fn listening(ns: &str, port: u16) -> bool {
    for _ in 0..100 {
        if run(&[
            "ip",
            "netns",
            "exec",
            ns,
            "ss",
            "-H",
            "-ltn",
            &format!("sport = :{port}"),
        ])
        .is_ok_and(|o| !o.trim().is_empty())
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Fetches `url` with curl in `ns` into `got`; checks it equals `want`
/// byte for byte; returns curl's transfer time.
fn fetch(ns: &str, url: &str, got: &Path, want: &Path) -> Result<f64, String> {
    let _ = std::fs::remove_file(got);
    let g = got.display().to_string();
    let t = run(&[
        "ip",
        "netns",
        "exec",
        ns,
        "curl",
        "-sS",
        "--connect-timeout",
        "5",
        "--max-time",
        "60",
        "-o",
        &g,
        "-w",
        "%{time_total}",
        url,
    ])?;
    let a = std::fs::read(got).map_err(|e| format!("{g}: {e}"))?;
    let b = std::fs::read(want).map_err(|e| format!("{}: {e}", want.display()))?;
    if a != b {
        return Err(format!(
            "{url}: {} bytes received differ from the {} sent",
            a.len(),
            b.len()
        ));
    }
    t.trim().parse().map_err(|_| format!("curl printed '{t}'"))
}

/// HTTP from `server` (h1) to `client` (h0), then FTP from h0 to h1, of
/// the file `file`, through the router; `(protocol, seconds or error)`.
pub fn transfers(
    h0: (&str, &str),
    h1: (&str, &str),
    file: &Path,
    scratch: &Path,
) -> Vec<(String, Result<f64, String>)> {
    let dir = file
        .parent()
        .unwrap_or(Path::new("/"))
        .display()
        .to_string();
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let got = scratch.join("fetched");
    let mut out = Vec::new();
    let http = (|| {
        let _srv = background(
            h1.0,
            &[
                "python3",
                "-m",
                "http.server",
                "8080",
                "--bind",
                h1.1,
                "--directory",
                &dir,
            ],
        )?;
        if !listening(h1.0, 8080) {
            return Err("http.server did not start".to_string());
        }
        fetch(h0.0, &format!("http://{}:8080/{name}", h1.1), &got, file)
    })();
    out.push(("HTTP".to_string(), http));
    let ftp = (|| {
        let py = python_with_pyftpdlib()
            .ok_or("pyftpdlib is missing (apt-get install python3-pyftpdlib)")?;
        let _srv = background(
            h0.0,
            &[py, "-m", "pyftpdlib", "-i", h0.1, "-p", "2121", "-d", &dir],
        )?;
        if !listening(h0.0, 2121) {
            return Err("pyftpdlib did not start".to_string());
        }
        fetch(h1.0, &format!("ftp://{}:2121/{name}", h0.1), &got, file)
    })();
    out.push(("FTP".to_string(), ftp));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_counters_ip_prints() {
        let json = r#"[{"ifindex":7,"ifname":"eth0","stats64":{"rx":{"bytes":640,"packets":10,"errors":0,"dropped":2,"over_errors":0,"multicast":0},"tx":{"bytes":1280,"packets":20,"errors":0,"dropped":3,"carrier_errors":0,"collisions":0}}}]"#;
        let c = parse_link_counters(json).expect("counters");
        assert_eq!(
            c,
            LinkCounters {
                rx_packets: 10,
                rx_dropped: 2,
                tx_packets: 20,
                tx_dropped: 3
            }
        );
        let later = LinkCounters {
            rx_packets: 15,
            ..c
        };
        assert_eq!(later.since(&c).rx_packets, 5);
        assert_eq!(later.since(&c).tx_packets, 0);
        assert_eq!(parse_link_counters("[]"), None);
        assert_eq!(parse_link_counters("not json"), None);
        assert_eq!(parse_link_counters(r#"[{"ifname":"x"}]"#), None);
    }
}
