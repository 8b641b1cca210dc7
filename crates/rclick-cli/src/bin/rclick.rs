//! `rclick`: the project's own command line.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use rclick_cli::{drive, flatten, registry, ConfigArgs, DriverRequest, Source};

/// A modular software router: Click's language and elements, in Rust.
#[derive(Parser, Debug)]
#[command(name = "rclick", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `ConfigArgs::resolve` with standard input when no configuration is
/// given.
fn split(config: ConfigArgs) -> Result<(Source, Vec<(String, String)>), String> {
    let (source, defines) = config.resolve()?;
    Ok((source.unwrap_or(Source::File("-".into())), defines))
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a configuration.
    Run {
        #[command(flatten)]
        config: ConfigArgs,
        /// Print handler ELEMENT.H after the router stops (repeatable).
        #[arg(short = 'H', long = "handler", value_name = "ELEMENT.H")]
        handlers: Vec<String>,
        /// Run in simulated time.
        #[arg(long)]
        simtime: bool,
        /// Number of threads.
        #[arg(short = 'j', long, default_value_t = 1)]
        threads: usize,
        /// Pin thread i to processor N + i (N defaults to 0), as Click's
        /// `--affinity`.
        #[arg(
            short = 'a',
            long,
            value_name = "N",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "0"
        )]
        affinity: Option<usize>,
        /// Measure each element's cost per packet and print the table
        /// (the `element_costs` handler) after the router stops.
        #[arg(long)]
        profile: bool,
        /// Run every task once per scheduling, as Click's driver does, even
        /// where several runs could be done in one call with the same results.
        #[arg(long)]
        no_coalesce: bool,
        /// Never sleep when idle: threads look at their descriptors and
        /// timers in a loop (lowest latency, a busy processor per thread).
        #[arg(long)]
        busy_poll: bool,
        /// Call every element of a run of simple elements through its own
        /// push, instead of fusing the run into one dispatch (to measure
        /// what fusion saves; results are the same either way).
        #[arg(long)]
        no_fuse: bool,
        #[command(flatten)]
        http: rclick_cli::HttpArgs,
    },
    /// Time benchmark configurations (Click's `bench/*.click`): a warm-up
    /// run, then timed runs of N packets each, every run checked through
    /// handlers; prints ns/packet and Mpps (median, min, max).
    Bench(rclick_cli::bench::BenchOptions),
    /// Check a configuration: parse, build and initialize it without running.
    Check {
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Print a configuration with compound elements expanded.
    Flatten {
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Print a configuration's graph in Graphviz's DOT language: ports,
    /// push (solid) and pull (dashed), compound elements as clusters.
    Dot {
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Draw a configuration's graph as SVG (through Graphviz's `dot`).
    Svg {
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Print an element class's manual.
    Doc {
        /// The class name (for example Counter).
        class: String,
        /// Load this element package first (a name on CLICKPATH or
        /// RCLICK_PACKAGE_PATH, or a file); may be repeated.
        #[arg(short = 'p', long = "package", value_name = "PACKAGE")]
        packages: Vec<String>,
    },
    /// List the element classes.
    Elements {
        /// Load this element package first; may be repeated.
        #[arg(short = 'p', long = "package", value_name = "PACKAGE")]
        packages: Vec<String>,
    },
    /// The plugin manager: load element packages into a running router,
    /// create plugin instances and bind them to filters at its FlowGates,
    /// through its ControlSocket (`load PACKAGE|FILE`, `unload PACKAGE`,
    /// `packages`, `create CLASS [CONFIG]`, `bind GATE INSTANCE FILTER`,
    /// `unbind INSTANCE [FILTER]`, `free INSTANCE`, `list`, `gates`,
    /// `call INSTANCE.HANDLER`, `callwrite INSTANCE.HANDLER VALUE`).
    Pmgr(rclick_cli::pmgr::PmgrOptions),
    /// Benchmark routers by RFC 2544 on a namespace testbed of their own:
    /// throughput (NDR/PDR), latency, frame loss, back-to-back, overload
    /// and recovery, restart and hot-swap, single frames, HTTP/FTP; for
    /// rclick, Linux kernel forwarding and a Click driver side by side,
    /// with a Markdown/HTML/JSON report (needs root).
    Rfc2544(rclick_cli::rfc2544::Rfc2544Options),
    /// Create or remove a virtual test network in network namespaces
    /// (hosts rclick-h0.. and a router namespace rclick-r; needs root).
    Testbed {
        /// `up` or `down`.
        #[arg(value_parser = ["up", "down"])]
        action: String,
        /// Number of hosts (each on its own subnet and router interface).
        #[arg(long, default_value_t = 2)]
        hosts: usize,
        /// With `up`: let the Linux kernel route instead of a user-level
        /// router (the router interfaces get their addresses, and
        /// ip_forward is on), to compare against.
        #[arg(long)]
        kernel_forwarding: bool,
        /// Name the namespaces PREFIX-h0.. and PREFIX-r (a testbed of its
        /// own beside the default one).
        #[arg(long, default_value = rclick_cli::testbed::DEFAULT_PREFIX)]
        prefix: String,
    },
}

fn main() {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Run {
            config,
            handlers,
            simtime,
            threads,
            affinity,
            profile,
            no_coalesce,
            busy_poll,
            no_fuse,
            http,
        } => match split(config) {
            Ok((source, defines)) => drive(DriverRequest {
                source: Some(source),
                defines,
                handlers,
                simtime,
                threads,
                affinity,
                profile,
                no_coalesce,
                busy_poll,
                no_fuse,
                http,
                ..Default::default()
            }),
            Err(e) => {
                eprintln!("rclick: {e}");
                1
            }
        },
        Command::Bench(opts) => rclick_cli::bench::bench(&opts),
        Command::Rfc2544(opts) => rclick_cli::rfc2544::run(&opts),
        Command::Check { config } => match split(config) {
            Ok((source, defines)) => check(source, &defines),
            Err(e) => {
                eprintln!("rclick: {e}");
                1
            }
        },
        Command::Flatten { config } => match split(config) {
            Ok((source, defines)) => flatten(source, &defines, None),
            Err(e) => {
                eprintln!("rclick: {e}");
                1
            }
        },
        Command::Dot { config } => match split(config) {
            Ok((source, defines)) => rclick_cli::dot::dot(source, &defines),
            Err(e) => {
                eprintln!("rclick: {e}");
                1
            }
        },
        Command::Svg { config } => match split(config) {
            Ok((source, defines)) => rclick_cli::dot::svg(source, &defines),
            Err(e) => {
                eprintln!("rclick: {e}");
                1
            }
        },
        Command::Doc { class, packages } => {
            let Some(reg) = registry_with(&packages) else {
                std::process::exit(1)
            };
            match reg.get(&class) {
                Some(c) => {
                    print!("{}", c.manual());
                    0
                }
                None => {
                    eprintln!("rclick: no element class '{class}' (see `rclick elements`)");
                    1
                }
            }
        }
        Command::Testbed {
            action,
            hosts,
            kernel_forwarding,
            prefix,
        } => testbed(&action, &prefix, hosts, kernel_forwarding),
        Command::Pmgr(opts) => match rclick_cli::pmgr::run(&opts) {
            Ok(out) => {
                print!("{out}");
                if !out.is_empty() && !out.ends_with('\n') {
                    println!();
                }
                0
            }
            Err(e) => {
                eprintln!("rclick pmgr: {e}");
                1
            }
        },
        Command::Elements { packages } => match registry_with(&packages) {
            Some(reg) => {
                for n in reg.names() {
                    println!("{n}");
                }
                0
            }
            None => 1,
        },
    };
    std::process::exit(status);
}

/// The registry with `packages` loaded; `None` (after printing why) if
/// one fails to load.
fn registry_with(packages: &[String]) -> Option<rclick_core::Registry> {
    let reg = registry();
    for p in packages {
        if let Err(e) = reg.load_package(p) {
            eprintln!("{e}");
            return None;
        }
    }
    Some(reg)
}

fn check(source: Source, defines: &[(String, String)]) -> i32 {
    let Ok(rclick_cli::Loaded { text, name, flat }) = rclick_cli::load(&source, defines) else {
        return 1;
    };
    match rclick_cli::build(flat, &text, Default::default()) {
        Ok(r) => {
            println!(
                "{name}: ok ({} elements, {} connections)",
                r.nelements(),
                r.connections().len()
            );
            0
        }
        Err(rclick_cli::Reported) => 1,
    }
}

fn testbed(action: &str, prefix: &str, hosts: usize, kernel_forwarding: bool) -> i32 {
    use rclick_cli::testbed;
    let r = if action == "up" {
        testbed::up_in(prefix, hosts, kernel_forwarding).map(|warnings| {
            for w in warnings {
                eprintln!("rclick testbed: warning: {w}");
            }
            print!("{}", testbed::describe_in(prefix, hosts, kernel_forwarding));
        })
    } else {
        testbed::down_in(prefix)
    };
    match r {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("rclick testbed: {e}");
            1
        }
    }
}
