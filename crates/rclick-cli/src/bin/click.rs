//! `click`: runs a router configuration with Click's driver flags, so that
//! Click's users, scripts and regression tests work unchanged.
#![forbid(unsafe_code)]

use clap::{ArgAction, Parser};
use rclick_cli::{drive, ConfigArgs, DriverRequest};

/// Runs a Click router configuration.
#[derive(Parser, Debug)]
#[command(
    name = "click",
    version,
    disable_help_flag = true,
    disable_version_flag = true
)]
struct Cli {
    #[command(flatten)]
    config: ConfigArgs,
    /// Print the value of read handler ELEMENT.H after running the driver.
    #[arg(short = 'h', long = "handler", value_name = "ELEMENT.H")]
    handlers: Vec<String>,
    /// Use the value of handler ELEMENT.H as the exit status.
    #[arg(short = 'x', long = "exit-handler", value_name = "ELEMENT.H")]
    exit_handler: Option<String>,
    /// Write the flattened configuration to FILE (`-` for standard output).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<String>,
    /// Do not run the driver.
    #[arg(short = 'q', long = "quit")]
    quit: bool,
    /// Run in simulated time.
    #[arg(long = "simtime")]
    simtime: bool,
    /// Run every task once per scheduling, as Click's driver does, even
    /// where several runs could be done in one call with the same results.
    #[arg(long = "no-coalesce")]
    no_coalesce: bool,
    /// Never sleep when idle: threads look at their descriptors and timers
    /// in a loop (lowest latency, a busy processor per thread).
    #[arg(long = "busy-poll")]
    busy_poll: bool,
    /// Call every element of a run of simple elements through its own
    /// push, instead of fusing the run into one dispatch (to measure what
    /// fusion saves; results are the same either way).
    #[arg(long = "no-fuse")]
    no_fuse: bool,
    /// Start N threads.
    #[arg(short = 'j', long = "threads", value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Pin threads to processors starting at #N (default 0).
    #[arg(
        short = 'a',
        long = "affinity",
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "0"
    )]
    affinity: Option<usize>,
    /// Listen for ControlSocket connections on TCP port PORT.
    #[arg(short = 'p', long = "port", value_name = "PORT")]
    ports: Vec<String>,
    /// Listen for ControlSocket connections on Unix socket FILE.
    #[arg(short = 'u', long = "unix-socket", value_name = "FILE")]
    unix_sockets: Vec<String>,
    /// Provide a writable `hotconfig` handler.
    #[arg(short = 'R', long = "allow-reconfigure")]
    allow_reconfigure: bool,
    /// Print how long the driver ran.
    #[arg(short = 't', long = "time")]
    time: bool,
    /// Do not print warnings.
    #[arg(short = 'w', long = "no-warnings")]
    no_warnings: bool,
    /// Use PATH for CLICKPATH (accepted for compatibility; classes are built in).
    #[arg(short = 'C', long = "clickpath", value_name = "PATH")]
    clickpath: Option<String>,
    /// Print this message and exit.
    #[arg(long = "help", action = ArgAction::Help)]
    help: Option<bool>,
    /// Print the version and exit.
    #[arg(short = 'v', long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    #[command(flatten)]
    http: rclick_cli::HttpArgs,
}

/// Click's option parser takes an optional value attached to a short
/// option (`-a1`); clap wants `-a=1`. Rewrites the first form to
/// `--affinity=1` (and leaves `-a 1`, where Click reads `1` as the
/// configuration file, alone).
fn attached_affinity(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut options = true;
    for a in args {
        let rewritten = match a.to_str() {
            Some("--") => {
                options = false;
                None
            }
            Some(s) if options => s
                .strip_prefix("-a")
                .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .map(|n| format!("--affinity={n}").into()),
            _ => None,
        };
        out.push(rewritten.unwrap_or(a));
    }
    out
}

fn main() {
    let cli = Cli::parse_from(attached_affinity(std::env::args_os()));
    let mut req = DriverRequest {
        defines: Vec::new(),
        handlers: cli.handlers,
        exit_handler: cli.exit_handler,
        output: cli.output,
        quit: cli.quit,
        simtime: cli.simtime,
        threads: cli.threads,
        affinity: cli.affinity,
        report_time: cli.time,
        source: None,
        ports: Vec::new(),
        unix_sockets: cli.unix_sockets,
        allow_reconfigure: cli.allow_reconfigure,
        profile: false,
        no_coalesce: cli.no_coalesce,
        busy_poll: cli.busy_poll,
        no_fuse: cli.no_fuse,
        http: cli.http,
    };
    for p in &cli.ports {
        match rclick_cli::parse_port_arg(p) {
            Some(p) => req.ports.push(p),
            None => {
                eprintln!("click: '--port' expects a TCP port number, not '{p}'");
                eprintln!("Usage: click [OPTION]... [ROUTERFILE]\nTry 'click --help' for more information.");
                std::process::exit(1);
            }
        }
    }
    match cli.config.resolve() {
        Ok((source, defines)) => {
            req.source = source;
            req.defines.extend(defines);
        }
        Err(e) => {
            eprintln!("click: {e}");
            std::process::exit(1);
        }
    }
    let _ = (cli.no_warnings, cli.clickpath);
    std::process::exit(drive(req));
}
