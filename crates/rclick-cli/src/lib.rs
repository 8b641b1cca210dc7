//! The command-line drivers: `rclick` (subcommands), `click` (Click's own
//! driver flags, for Click's tests and users) and `click-flatten`.
//!
//! This is the only crate that knows every element group: [`registry`]
//! collects them.
#![forbid(unsafe_code)]

pub mod bench;
pub mod dot;
pub mod pmgr;
pub mod rfc2544;
pub mod testbed;

use std::io::{Read, Write};
use std::sync::Arc;

use rclick_core::{BuildOptions, HotConfig, Registry, Router};
use rclick_lang::{Diagnostic, FlatConfig, Options};

/// Every element class this build knows, and the loader of element
/// packages (`require(package "NAME")`, the PluginManager's `load`).
pub fn registry() -> Registry {
    let mut r = Registry::new();
    rclick_elements_standard::register(&mut r);
    rclick_elements_ip::register(&mut r);
    rclick_elements_ethernet::register(&mut r);
    rclick_elements_analysis::register(&mut r);
    rclick_elements_nat::register(&mut r);
    rclick_elements_userlevel::register(&mut r);
    rclick_plugins::register(&mut r);
    rclick_plugins::package::install_loader(&mut r);
    rclick_observe::register(&mut r);
    rclick_elements_ipsec::register(&mut r);
    r
}

/// Where a configuration comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A file (`-` for standard input).
    File(String),
    /// An expression given with `-e`.
    Expr(String),
}

impl Source {
    /// Reads the text and the name used in error messages.
    pub fn read(&self) -> Result<(String, String), String> {
        match self {
            Source::Expr(e) => Ok((e.clone(), "config".to_string())),
            Source::File(f) if f == "-" => {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .map_err(|e| format!("<stdin>: {e}"))?;
                Ok((s, "<stdin>".to_string()))
            }
            Source::File(f) => {
                let bytes = std::fs::read(f).map_err(|e| format!("{f}: {}", io_error_text(&e)))?;
                Ok((String::from_utf8_lossy(&bytes).into_owned(), f.clone()))
            }
        }
    }
}

fn io_error_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}

/// `NAME=value` definitions, in the order given.
pub type Defines = Vec<(String, String)>;

/// The configuration arguments Click's tools share: `-f FILE`, `-e EXPR`,
/// and a ROUTERFILE among `NAME=value` definitions.
#[derive(clap::Args, Debug, Default)]
pub struct ConfigArgs {
    /// Read the router configuration from FILE.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<String>,
    /// Use EXPR as the router configuration.
    #[arg(
        short = 'e',
        long = "expression",
        visible_alias = "expr",
        value_name = "EXPR"
    )]
    pub expr: Option<String>,
    /// The configuration file, and NAME=value definitions.
    #[arg(value_name = "ROUTERFILE | NAME=VALUE")]
    pub rest: Vec<String>,
}

impl ConfigArgs {
    /// The configuration's source (`None`: none given) and the
    /// definitions, in order; an error when the configuration is given
    /// twice.
    pub fn resolve(self) -> Result<(Option<Source>, Defines), String> {
        let mut sources = Vec::new();
        let mut defines = Vec::new();
        sources.extend(self.file.map(Source::File));
        sources.extend(self.expr.map(Source::Expr));
        for a in self.rest {
            match parse_define(&a) {
                Some(d) => defines.push(d),
                None => sources.push(Source::File(a)),
            }
        }
        if sources.len() > 1 {
            return Err("router configuration specified twice".into());
        }
        Ok((sources.pop(), defines))
    }
}

/// Splits `NAME=value` command-line definitions from other arguments.
pub fn parse_define(arg: &str) -> Option<(String, String)> {
    let (name, value) = arg.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    if (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        Some((name.to_string(), value.to_string()))
    } else {
        None
    }
}

/// An error already printed to standard error: the caller only has to exit
/// with a failure status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reported;

/// Parses a configuration; prints every error to standard error.
pub fn parse(text: &str, file: &str, defines: &[(String, String)]) -> Result<FlatConfig, Reported> {
    let opts = Options {
        file_name: file.to_string(),
        defines: defines.to_vec(),
    };
    rclick_lang::parse(text, &opts).map_err(|errs| {
        print_diagnostics(&errs);
        Reported
    })
}

/// A loaded configuration: its text, the name its errors give, and the
/// flat configuration parsed from it.
pub struct Loaded {
    /// The configuration's text.
    pub text: String,
    /// The name used in error messages (the file, or `config`).
    pub name: String,
    /// The parsed, flattened configuration.
    pub flat: FlatConfig,
}

/// Reads `source` and parses it with `defines`: the first step of every
/// command that takes a configuration. A read or parse error is printed
/// here.
pub fn load(source: &Source, defines: &[(String, String)]) -> Result<Loaded, Reported> {
    let (text, name) = source.read().map_err(|e| {
        eprintln!("{e}");
        Reported
    })?;
    let flat = parse(&text, &name, defines)?;
    Ok(Loaded { text, name, flat })
}

fn print_diagnostics(errs: &[Diagnostic]) {
    let stderr = std::io::stderr();
    let mut h = stderr.lock();
    for e in errs {
        let _ = writeln!(h, "{e}");
    }
}

/// What the `click` driver was asked to do.
#[derive(Clone, Debug, Default)]
pub struct DriverRequest {
    /// The configuration.
    pub source: Option<Source>,
    /// `NAME=value` definitions.
    pub defines: Vec<(String, String)>,
    /// `-h` handlers to print at exit.
    pub handlers: Vec<String>,
    /// `-x` handler whose value is the exit status.
    pub exit_handler: Option<String>,
    /// `-o FILE`: write the flat configuration.
    pub output: Option<String>,
    /// `-q`: do not run.
    pub quit: bool,
    /// `--simtime`.
    pub simtime: bool,
    /// `-j N`.
    pub threads: usize,
    /// `-a`/`--affinity[=N]`: pin thread `i` to processor `N + i`.
    pub affinity: Option<usize>,
    /// `-t`: report time.
    pub report_time: bool,
    /// `-p`: TCP ports for ControlSockets (`41900`, `41900+`).
    pub ports: Vec<String>,
    /// `-u`: Unix socket files for ControlSockets.
    pub unix_sockets: Vec<String>,
    /// `-R`: offer the `hotconfig` handler.
    pub allow_reconfigure: bool,
    /// Profile per-element costs and print them after the run.
    pub profile: bool,
    /// `--no-coalesce`: run every task once per scheduling, never several
    /// runs in one call (`BuildOptions::no_coalesce`).
    pub no_coalesce: bool,
    /// `--busy-poll`: idle threads never sleep (`BuildOptions::busy_poll`).
    pub busy_poll: bool,
    /// `--no-fuse`: no fused chains of simple elements
    /// (`BuildOptions::no_fuse`).
    pub no_fuse: bool,
    /// `--http`: the web view, metrics and HTTP API.
    pub http: HttpArgs,
}

/// The drivers' `--http` options: an HTTPServer added to the
/// configuration (docs/OBSERVE.md).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct HttpArgs {
    /// Serve a live web view of the router, Prometheus metrics (/metrics)
    /// and an HTTP/JSON API to its handlers on ADDR:PORT (or PORT, on
    /// 127.0.0.1); also offers the `hotconfig` handler, for hot swaps from
    /// the page.
    #[arg(long = "http", value_name = "ADDR:PORT")]
    pub http: Option<String>,
    /// Require TOKEN on every HTTP request (`Authorization: Bearer TOKEN`
    /// or `?token=TOKEN`).
    #[arg(long = "http-token", value_name = "TOKEN", requires = "http")]
    pub http_token: Option<String>,
    /// Allow a non-loopback `--http` address (needs `--http-token`).
    #[arg(long = "http-remote", requires = "http")]
    pub http_remote: bool,
}

impl HttpArgs {
    /// The HTTPServer configuration string these options ask for.
    pub fn config(&self) -> Option<String> {
        let addr = self.http.as_ref()?;
        let mut c = format!("{}, VERBOSE true", rclick_core::confparse::quote(addr));
        if self.http_remote {
            c.push_str(", REMOTE true");
        }
        if let Some(t) = &self.http_token {
            c.push_str(&format!(", TOKEN {}", rclick_core::confparse::quote(t)));
        }
        Some(c)
    }
}

/// Adds the `--http` HTTPServer to a configuration.
fn add_http_server(flat: &mut FlatConfig, http: &HttpArgs) {
    if let Some(config) = http.config() {
        flat.elements.push(rclick_lang::FlatElement {
            name: "click_driver@@HTTPServer".into(),
            class: "HTTPServer".into(),
            config,
            landmark: rclick_lang::Landmark {
                file: "click".into(),
                line: 0,
            },
        });
    }
}

impl DriverRequest {
    /// The build options this request asks for.
    pub fn build_options(&self) -> BuildOptions {
        BuildOptions {
            simtime: self.simtime,
            threads: self.threads.max(1),
            no_coalesce: self.no_coalesce,
            no_fuse: self.no_fuse,
            busy_poll: self.busy_poll,
            affinity: self.affinity,
            ..Default::default()
        }
    }
}

/// Click's `-p` argument: a port number, or a number and `+` (try
/// successive ports).
pub fn parse_port_arg(s: &str) -> Option<String> {
    if let Ok(p) = s.parse::<u16>() {
        return Some(p.to_string());
    }
    let n: u32 = s.strip_suffix('+')?.parse().ok()?;
    (1..65536).contains(&n).then(|| format!("{n}+"))
}

/// The name Click gives the driver's `N`th ControlSocket.
fn control_socket_name(n: usize) -> String {
    if n == 0 {
        "click_driver@@ControlSocket".to_string()
    } else {
        format!("click_driver@@ControlSocket@{n}")
    }
}

/// Adds the `-p`/`-u` ControlSockets to a configuration, as Click does; a
/// configuration replacing a running one gets `RETRIES 1` so that its
/// sockets can take over the old ones.
fn add_control_sockets(
    flat: &mut FlatConfig,
    ports: &[String],
    unix_sockets: &[String],
    hotswap: bool,
) {
    let retries = if hotswap {
        ", RETRIES 1, RETRY_WARNINGS false"
    } else {
        ""
    };
    let landmark = rclick_lang::Landmark {
        file: "click".into(),
        line: 0,
    };
    let configs = ports.iter().map(|p| format!("TCP, {p}{retries}")).chain(
        unix_sockets
            .iter()
            .map(|u| format!("UNIX, {}{retries}", rclick_core::confparse::quote(u))),
    );
    for (n, config) in configs.enumerate() {
        flat.elements.push(rclick_lang::FlatElement {
            name: control_socket_name(n),
            class: "ControlSocket".into(),
            config,
            landmark: landmark.clone(),
        });
    }
}

/// Builds a router with `opts` (its `source_text` set to `text`), printing
/// errors Click's way.
pub fn build(flat: FlatConfig, text: &str, opts: BuildOptions) -> Result<Router, Reported> {
    let opts = BuildOptions {
        threads: opts.threads.max(1),
        source_text: text.to_string(),
        capture_log: false,
        ..opts
    };
    Router::build(flat, Arc::new(registry()), opts).map_err(|e| {
        let stderr = std::io::stderr();
        let mut h = stderr.lock();
        let _ = writeln!(h, "{e}");
        Reported
    })
}

/// Runs the `click` driver; returns the process exit status.
pub fn drive(req: DriverRequest) -> i32 {
    let source = req.source.clone().unwrap_or(Source::File("-".into()));
    let Ok(Loaded {
        text,
        name,
        mut flat,
    }) = load(&source, &req.defines)
    else {
        return 1;
    };
    // Click's driver: SIGINT and SIGTERM stop the router cleanly (unless a
    // Script TYPE SIGNAL listens for them).
    let _ = rclick_elements_standard::control::signals::stop_router_on(&[2, 15]);
    let hot = (req.allow_reconfigure || req.http.http.is_some()).then(|| {
        let (ports, unix) = (req.ports.clone(), req.unix_sockets.clone());
        let http = req.http.clone();
        let prepare: rclick_core::router::hotswap::Prepare = Box::new(move |flat, hotswap| {
            add_control_sockets(flat, &ports, &unix, hotswap);
            add_http_server(flat, &http);
        });
        HotConfig::new(
            Options {
                file_name: "config".into(),
                defines: req.defines.clone(),
            },
            req.build_options(),
            Some(prepare),
        )
    });
    let built = match &hot {
        Some(h) => h
            .build(flat, &text, Arc::new(registry()), None)
            .map_err(|e| {
                eprintln!("{e}");
                Reported
            }),
        None => {
            add_control_sockets(&mut flat, &req.ports, &req.unix_sockets, false);
            add_http_server(&mut flat, &req.http);
            build(flat, &text, req.build_options())
        }
    };
    let Ok(mut router) = built else {
        return 1;
    };
    let mut status = 0;
    if let Some(out) = &req.output {
        let s = router.flat_config().unparse();
        if out == "-" {
            print!("{s}");
            let _ = std::io::stdout().flush();
        } else if let Err(e) = std::fs::write(out, s) {
            eprintln!("{out}: {e}");
            status = 1;
        }
    }
    if req.profile {
        if let Err(e) = router.write_handler("profile", "true") {
            eprintln!("{e}");
            return 1;
        }
    }
    let started = std::time::Instant::now();
    if !req.quit && router.nelements() > 0 {
        match &hot {
            Some(h) => router = h.run(router),
            None => router.run(),
        }
    } else if !req.quit {
        eprintln!("{name}: configuration has no elements, exiting");
    }
    if req.report_time {
        let d = started.elapsed();
        println!("{:.3}s", d.as_secs_f64());
    }
    if req.profile {
        let _ = router.write_handler("profile", "false");
        match router.read_handler("element_costs", "") {
            Ok(t) => println!("{}", t.trim_end()),
            Err(e) => {
                eprintln!("{e}");
                status = 1;
            }
        }
    }
    if !req.handlers.is_empty() && print_handlers(&router, &req.handlers).is_err() {
        status = 1;
    }
    if let Some(h) = &req.exit_handler {
        match router.read_handler(h, "") {
            Ok(v) => {
                let v = v.trim();
                status = match (v.parse::<i32>(), v) {
                    (Ok(n), _) => n,
                    (_, "true") => 0,
                    (_, "false") => 1,
                    _ => {
                        eprintln!("exit handler value should be integer");
                        -1
                    }
                }
            }
            Err(e) => {
                eprintln!("{e}");
                status = -1;
            }
        }
    }
    // Click's teardown: elements release what outlives the process
    // (KernelFilter's firewall rules), after the handlers were read
    router.cleanup();
    let _ = std::io::stdout().flush();
    status
}

/// Prints `-h` handlers the way Click does: values alone for one handler,
/// `name:` headers and blank lines between several.
pub fn print_handlers(router: &Router, specs: &[String]) -> Result<(), Reported> {
    let mut ok = true;
    let many = specs.len() > 1;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for spec in specs {
        let Some((ename, hname)) = spec.split_once('.') else {
            ok &= print_one(&mut out, router, spec, many);
            continue;
        };
        let elems = router.elements_matching(ename);
        if elems.is_empty() {
            let is_glob = ename.contains(['*', '?', '[']);
            eprintln!(
                "{}",
                if is_glob {
                    format!("no element matching '{ename}'")
                } else {
                    format!("no element '{ename}'")
                }
            );
            ok = false;
            continue;
        }
        let expanded = elems.len() > 1 || router.find(ename).is_none();
        for e in elems {
            let full = format!("{}.{hname}", router.element_info(e).name);
            if expanded && !router.handler_flags(&full).is_some_and(|f| f.read) {
                continue;
            }
            ok &= print_one(&mut out, router, &full, many || expanded);
        }
    }
    if ok {
        Ok(())
    } else {
        Err(Reported)
    }
}

fn print_one(out: &mut impl Write, router: &Router, full: &str, header: bool) -> bool {
    match router.handler_flags(full) {
        None => {
            eprintln!("no '{full}' handler");
            return false;
        }
        Some(f) if !f.read => {
            eprintln!("'{full}' is a write handler");
            return false;
        }
        _ => {}
    }
    match router.read_handler(full, "") {
        Ok(v) => {
            if header {
                let _ = writeln!(out, "{full}:");
            }
            let _ = out.write_all(v.as_bytes());
            if !v.is_empty() && !v.ends_with('\n') {
                let _ = out.write_all(b"\n");
            }
            if header {
                let _ = out.write_all(b"\n");
            }
            true
        }
        Err(e) => {
            eprintln!("{full}: {e}");
            false
        }
    }
}

/// `click-flatten`: prints the flat configuration; returns the exit status.
pub fn flatten(source: Source, defines: &[(String, String)], output: Option<&str>) -> i32 {
    let Ok(Loaded { flat, .. }) = load(&source, defines) else {
        return 1;
    };
    let s = flat.unparse();
    match output {
        None | Some("-") => {
            print!("{s}");
            let _ = std::io::stdout().flush();
        }
        Some(f) => {
            if let Err(e) = std::fs::write(f, s) {
                eprintln!("{f}: {e}");
                return 1;
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `load` reads and parses with the definitions; a parse error or an
    /// unreadable file is reported (and printed), not returned as text.
    #[test]
    fn load_reads_and_parses() {
        let defs = [("N".to_string(), "3".to_string())];
        let l = load(&Source::Expr("Idle -> Discard;".into()), &defs).unwrap();
        assert_eq!(l.text, "Idle -> Discard;");
        assert_eq!(l.name, "config");
        assert_eq!(l.flat.elements.len(), 2);
        assert!(load(&Source::Expr("Idle -> ;;(".into()), &[]).is_err());
        assert!(load(&Source::File("/nonexistent/x.click".into()), &[]).is_err());
    }

    #[test]
    fn config_args_give_one_source_and_the_definitions() {
        let args = |file: Option<&str>, expr: Option<&str>, rest: &[&str]| ConfigArgs {
            file: file.map(String::from),
            expr: expr.map(String::from),
            rest: rest.iter().map(|s| s.to_string()).collect(),
        };
        let (src, defs) = args(None, None, &["A=1", "r.click", "_b=x=y"])
            .resolve()
            .unwrap();
        assert!(matches!(src, Some(Source::File(f)) if f == "r.click"));
        assert_eq!(
            defs,
            [("A".into(), "1".into()), ("_b".into(), "x=y".into())]
        );
        let (src, defs) = args(None, Some("Idle"), &[]).resolve().unwrap();
        assert!(matches!(src, Some(Source::Expr(e)) if e == "Idle"));
        assert!(defs.is_empty());
        assert!(args(None, None, &[]).resolve().unwrap().0.is_none());
        for twice in [
            args(Some("a"), Some("b"), &[]),
            args(Some("a"), None, &["b"]),
            args(None, Some("x"), &["1x=2"]),
        ] {
            assert_eq!(
                twice.resolve().unwrap_err(),
                "router configuration specified twice"
            );
        }
    }

    #[test]
    fn control_socket_options() {
        assert_eq!(parse_port_arg("41900").as_deref(), Some("41900"));
        assert_eq!(parse_port_arg("41900+").as_deref(), Some("41900+"));
        assert_eq!(parse_port_arg("70000"), None);
        assert_eq!(parse_port_arg("x+"), None);
        let mut flat = rclick_lang::parse(
            "Idle -> Discard;",
            &Options {
                file_name: "config".into(),
                defines: vec![],
            },
        )
        .unwrap();
        add_control_sockets(&mut flat, &["41900+".into()], &["/tmp/s".into()], true);
        let cs: Vec<(&str, &str)> = flat.elements[2..]
            .iter()
            .map(|e| (e.name.as_str(), e.config.as_str()))
            .collect();
        assert_eq!(
            cs,
            vec![
                (
                    "click_driver@@ControlSocket",
                    "TCP, 41900+, RETRIES 1, RETRY_WARNINGS false"
                ),
                (
                    "click_driver@@ControlSocket@1",
                    "UNIX, \"/tmp/s\", RETRIES 1, RETRY_WARNINGS false"
                ),
            ]
        );
    }

    #[test]
    fn http_options_make_an_http_server() {
        assert_eq!(HttpArgs::default().config(), None);
        let h = HttpArgs {
            http: Some("127.0.0.1:8080".into()),
            ..Default::default()
        };
        assert_eq!(h.config().unwrap(), "\"127.0.0.1:8080\", VERBOSE true");
        let h = HttpArgs {
            http: Some("0.0.0.0:80".into()),
            http_token: Some("a b".into()),
            http_remote: true,
        };
        assert_eq!(
            h.config().unwrap(),
            "\"0.0.0.0:80\", VERBOSE true, REMOTE true, TOKEN \"a b\""
        );
        // A remote address without a token: the element refuses it.
        let h = HttpArgs {
            http: Some("0.0.0.0:0".into()),
            http_token: None,
            http_remote: true,
        };
        let mut flat = rclick_lang::parse("Idle -> Discard;", &Options::default()).unwrap();
        add_http_server(&mut flat, &h);
        assert_eq!(flat.elements[2].class, "HTTPServer");
        let e = Router::build(flat, Arc::new(registry()), BuildOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("give REMOTE true and a TOKEN"),
            "{e}"
        );
    }

    #[test]
    fn defines() {
        assert_eq!(parse_define("N=5"), Some(("N".into(), "5".into())));
        assert_eq!(parse_define("_x1=a=b"), Some(("_x1".into(), "a=b".into())));
        assert_eq!(parse_define("1N=5"), None);
        assert_eq!(parse_define("a.click"), None);
        assert_eq!(parse_define("=5"), None);
    }
}
