//! Building a router from a flat configuration, in Click's stages:
//! load required packages, instantiate, check port ranges, resolve push/pull, check completeness,
//! configure (in phase order), initialize (in phase order).
//!
//! Why this file is long: about 930 lines of code, the build's stages in
//! order, and 215 lines of tests.
//!
//! Each stage reports every error it finds before the build gives up, and
//! an error in any stage means no router: nothing half-built ever runs.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rclick_lang::{confparse, FlatConfig};

use super::ctx::{ConfigureCx, InitCx, NameTable, Port};
use super::{
    Connection, ElementId, ElementInfo, Router, RouterInner, Slot, TaskInfo, TimerInfo,
    INITIAL_RUNCOUNT,
};
use crate::clock::Clock;
use crate::element::Element;
use crate::registry::Registry;
use crate::spec::{FlowCode, PortCount, Processing, ProcessingSpec};

/// Options for [`Router::build`].
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    /// Use simulated time.
    pub simtime: bool,
    /// Number of driver threads.
    pub threads: usize,
    /// The configuration text as the user gave it (for the `config` handler).
    pub source_text: String,
    /// Keep element log lines (Print, Message) in memory instead of
    /// printing them to standard error (for tests).
    pub capture_log: bool,
    /// The running router this one will replace (hot swap): its clock
    /// continues, and elements may look at their predecessors
    /// ([`InitCx::hotswap_element`]).
    pub hotswap_from: Option<Router>,
    /// Offer the writable global `hotconfig` handler, served by this.
    pub hotconfig: Option<Arc<super::HotConfig>>,
    /// Never coalesce task runs: run every task exactly once per
    /// scheduling, as Click's driver does, even where the results could
    /// not differ (see `Element::run_task_runs`). For comparisons.
    pub no_coalesce: bool,
    /// Pin thread `i` to processor `affinity + i` (Click's `-a`).
    pub affinity: Option<usize>,
    /// Never sleep when idle: look at descriptors and timers in a loop
    /// (lowest latency, one busy processor per thread).
    pub busy_poll: bool,
    /// Never fuse chains of simple elements (see `Element::is_simple`):
    /// call each element on its own. For comparisons.
    pub no_fuse: bool,
}

/// Why a router could not be built: every error message, in order, each
/// already prefixed with its `file:line:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// The messages.
    pub messages: Vec<String>,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.messages {
            writeln!(f, "{m}")?;
        }
        write!(f, "Router could not be initialized!")
    }
}

impl std::error::Error for BuildError {}

/// The state of the router while it is being built.
pub(crate) struct Builder {
    pub elements: Vec<Option<Box<dyn Element>>>,
    pub info: Vec<ElementInfo>,
    pub connections: Vec<Connection>,
    pub tasks: Vec<TaskInfo>,
    pub timers: Vec<TimerInfo>,
    pub element_tasks: Vec<Vec<u32>>,
    pub stop_handlers: Vec<ElementId>,
    pub names: NameTable,
    pub home_thread: HashMap<ElementId, (usize, usize)>,
    pub tickets: HashMap<ElementId, u32>,
    pub clock: Clock,
    pub errors: Vec<String>,
    /// Keep log lines (tests) instead of printing them.
    pub capture: bool,
    /// Log lines kept while building, when `capture`.
    pub log: Vec<String>,
    /// Run-count changes made while initializing (a driver Script).
    pub runcount_delta: i32,
    /// Tasks to schedule on external events (signals).
    pub external_tasks: Vec<u32>,
    /// The router being replaced, for hot swaps.
    pub hotswap_from: Option<Router>,
    /// Descriptors to watch once the router runs: (fd, what, task).
    pub selects: Vec<(std::os::fd::RawFd, super::Select, u32)>,
    /// Number of router threads (`BuildOptions::threads`, at least 1).
    pub nthreads: usize,
    /// Tasks placed on a thread of their own, whatever their element's
    /// home thread: (task, thread).
    pub task_threads: Vec<(u32, usize)>,
    /// `connections` indexed by element, made on the first graph search
    /// (the connections are final by then).
    pub conn_index: Option<Arc<ConnIndex>>,
    /// Initializing an element made at run time: the tasks and timers it
    /// may have (another element's, lent), and what it took of them.
    pub lend: Option<Lending>,
}

/// The connections leaving and entering each element (indices into
/// `Builder::connections`), so a search along the graph looks at an
/// element's own connections instead of all of them.
pub(crate) struct ConnIndex {
    /// For each element, the connections from its outputs.
    pub from: Vec<Vec<usize>>,
    /// For each element, the connections to its inputs.
    pub to: Vec<Vec<usize>>,
}

/// Tasks and timers lent to an element made at run time while it is
/// initialized ([`Builder::scratch`]).
#[derive(Debug, Default)]
pub(crate) struct Lending {
    /// Still free.
    pub tasks: Vec<crate::element::TaskId>,
    pub timers: Vec<crate::element::TimerId>,
    /// Taken: each task and whether to schedule it.
    pub took_tasks: Vec<(crate::element::TaskId, bool)>,
    /// Taken: each timer and when it fires (`i64::MIN`: not scheduled).
    pub took_timers: Vec<(crate::element::TimerId, i64)>,
    /// It asked for more than there were.
    pub short: bool,
}

impl Builder {
    /// A builder for initializing one element made while `rt` runs (a
    /// plugin instance, `Ctx::create_element`): it sees `rt`'s elements'
    /// facts and names but none of the elements, connections, tasks or
    /// timers; whatever the element asks for lands here, where the caller
    /// looks at it. Its clock stands still at `rt`'s now.
    pub(crate) fn scratch(rt: &RouterInner) -> Builder {
        let n = rt.info.len();
        Builder {
            elements: (0..n).map(|_| None).collect(),
            info: rt.info.clone(),
            connections: Vec::new(),
            tasks: Vec::new(),
            timers: Vec::new(),
            element_tasks: vec![Vec::new(); n],
            stop_handlers: Vec::new(),
            names: rt.names.clone(),
            home_thread: HashMap::new(),
            tickets: HashMap::new(),
            clock: Clock::simulated_from(rt.clock.now()),
            errors: Vec::new(),
            capture: true,
            log: Vec::new(),
            runcount_delta: 0,
            external_tasks: Vec::new(),
            hotswap_from: None,
            selects: Vec::new(),
            nthreads: rt.nthreads,
            task_threads: Vec::new(),
            conn_index: None,
            lend: None,
        }
    }

    /// What an element initialized in a scratch builder asked for that
    /// an element outside the graph cannot have, if anything.
    pub(crate) fn needs_graph(&self) -> Option<&'static str> {
        if self.lend.as_ref().is_some_and(|l| l.short) {
            Some("more tasks or timers than are lent")
        } else if !self.task_threads.is_empty() {
            Some("tasks on threads of their own")
        } else if !self.tasks.is_empty() {
            Some("a task")
        } else if !self.timers.is_empty() {
            Some("a timer")
        } else if !self.selects.is_empty() {
            Some("descriptors to watch")
        } else if !self.stop_handlers.is_empty() || self.runcount_delta != 0 {
            Some("a say in when the router stops")
        } else if !self.external_tasks.is_empty() {
            Some("external events")
        } else {
            None
        }
    }

    /// An empty builder for `n` elements.
    fn new(n: usize, opts: &BuildOptions) -> Builder {
        Builder {
            elements: Vec::with_capacity(n),
            info: Vec::with_capacity(n),
            connections: Vec::new(),
            tasks: Vec::new(),
            timers: Vec::new(),
            element_tasks: vec![Vec::new(); n],
            stop_handlers: Vec::new(),
            names: NameTable::default(),
            home_thread: HashMap::new(),
            tickets: HashMap::new(),
            clock: match &opts.hotswap_from {
                Some(old) => super::hotswap::clock_after(old.clock()),
                None if opts.simtime => Clock::simulated(),
                None => Clock::real(),
            },
            errors: Vec::new(),
            capture: opts.capture_log,
            log: Vec::new(),
            runcount_delta: 0,
            external_tasks: Vec::new(),
            hotswap_from: opts.hotswap_from.clone(),
            selects: Vec::new(),
            nthreads: opts.threads.max(1),
            task_threads: Vec::new(),
            conn_index: None,
            lend: None,
        }
    }

    /// The connection index, made on first use.
    pub(crate) fn conn_index(&mut self) -> Arc<ConnIndex> {
        if let Some(ix) = &self.conn_index {
            if ix.from.len() == self.info.len() {
                return ix.clone();
            }
        }
        let n = self.info.len();
        let mut ix = ConnIndex {
            from: vec![Vec::new(); n],
            to: vec![Vec::new(); n],
        };
        for (k, c) in self.connections.iter().enumerate() {
            ix.from[c.from].push(k);
            ix.to[c.to].push(k);
        }
        let ix = Arc::new(ix);
        self.conn_index = Some(ix.clone());
        ix
    }

    /// Prints (or keeps, when capturing) log lines produced while building.
    pub(crate) fn emit(&mut self, lines: Vec<String>) {
        if self.capture {
            self.log.extend(lines);
        } else {
            use std::io::Write;
            let stderr = std::io::stderr();
            let mut h = stderr.lock();
            for l in lines {
                let _ = writeln!(h, "{l}");
            }
        }
    }

    pub(crate) fn error_at(&mut self, e: ElementId, msg: impl fmt::Display) {
        let lm = &self.info[e].landmark;
        self.errors.push(format!("{lm}: {msg}"));
    }
}

/// Steps 1 to 4 of a build: instantiate each element, resolve its port
/// counts, push and pull (agnostic resolution) and check that every port is
/// used once as it must be. Nothing is configured or initialized.
fn resolve(b: &mut Builder, flat: &FlatConfig, registry: &Registry) -> Result<(), BuildError> {
    let n = flat.elements.len();
    // 0. Requirements: load the packages the configuration requires
    // (Click's messages have no landmark; later stages still report
    // their errors, as Click's lexer goes on after a failed require).
    for (ty, value) in &flat.requirement_pairs {
        if ty == "package" {
            if let Err(e) = registry.require_package(value) {
                b.errors.extend(e.lines().map(str::to_string));
            }
        }
    }

    // 1. Instantiate.
    for fe in &flat.elements {
        let el = registry.create(&fe.class);
        if el.is_none() {
            b.errors.push(format!(
                "{}: unknown element class '{}'",
                fe.landmark, fe.class
            ));
        }
        b.elements.push(el);
        b.info.push(ElementInfo {
            name: fe.name.clone(),
            class: fe.class.clone(),
            landmark: fe.landmark.clone(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            input_agnostic: Vec::new(),
            output_agnostic: Vec::new(),
            flow_code: FlowCode::parse("x/x").expect("static flow code"),
        });
    }
    if !b.errors.is_empty() {
        return Err(BuildError {
            messages: std::mem::take(&mut b.errors),
        });
    }
    // Duplicates dropped, first occurrence kept (a set: a chain of a
    // million connections must not take a million squared steps).
    let mut conns: Vec<Connection> = Vec::with_capacity(flat.connections.len());
    let mut seen: HashSet<Connection> = HashSet::with_capacity(flat.connections.len());
    for c in &flat.connections {
        let c = Connection {
            from: c.from,
            from_port: c.from_port,
            to: c.to,
            to_port: c.to_port,
        };
        if seen.insert(c) {
            conns.push(c);
        }
    }

    // 2. Port counts and ranges.
    let mut used_in = vec![0usize; n];
    let mut used_out = vec![0usize; n];
    for c in &conns {
        used_out[c.from] = used_out[c.from].max(c.from_port + 1);
        used_in[c.to] = used_in[c.to].max(c.to_port + 1);
    }
    let mut nports = Vec::with_capacity(n);
    let mut procs = Vec::with_capacity(n);
    for i in 0..n {
        let el = b.elements[i].as_ref().expect("instantiated");
        let (pc, ps, fc) = (el.port_count(), el.processing(), el.flow_code());
        let counts = match PortCount::parse(pc) {
            Ok(p) => p.resolve(used_in[i], used_out[i]),
            Err(e) => {
                b.error_at(i, format!("element class {} has {e}", b.info[i].class));
                (0, 0)
            }
        };
        nports.push(counts);
        match ProcessingSpec::parse(ps) {
            Ok(p) => procs.push(p),
            Err(e) => {
                b.error_at(i, format!("element class {} has {e}", b.info[i].class));
                procs.push(ProcessingSpec::parse("a/a").expect("static"));
            }
        }
        match FlowCode::parse(fc) {
            Ok(f) => b.info[i].flow_code = f,
            Err(e) => b.error_at(i, format!("element class {} has {e}", b.info[i].class)),
        }
    }
    let mut kept = Vec::with_capacity(conns.len());
    for c in conns {
        let mut ok = true;
        if c.from_port >= nports[c.from].1 {
            let d = b.info[c.from].declaration();
            b.error_at(c.from, format!("'{d}' has no output {}", c.from_port));
            ok = false;
        }
        if c.to_port >= nports[c.to].0 {
            let d = b.info[c.to].declaration();
            b.error_at(c.to, format!("'{d}' has no input {}", c.to_port));
            ok = false;
        }
        if ok {
            kept.push(c);
        }
    }
    let conns = kept;
    let range_ok = b.errors.is_empty();

    // 3. Push and pull, agnostic resolution (Click's check_push_and_pull).
    let mut inp: Vec<Vec<Processing>> = Vec::with_capacity(n);
    let mut outp: Vec<Vec<Processing>> = Vec::with_capacity(n);
    for i in 0..n {
        inp.push((0..nports[i].0).map(|p| procs[i].input(p)).collect());
        outp.push((0..nports[i].1).map(|p| procs[i].output(p)).collect());
        b.info[i].input_agnostic = inp[i].iter().map(|p| *p == Processing::Agnostic).collect();
        b.info[i].output_agnostic = outp[i].iter().map(|p| *p == Processing::Agnostic).collect();
    }
    if range_ok {
        // Real connections, then one fake connection per agnostic
        // input/output pair linked by the flow code.
        let mut links: Vec<(Connection, bool)> = conns.iter().map(|c| (*c, false)).collect();
        for i in 0..n {
            for (ip, ik) in inp[i].iter().enumerate().take(nports[i].0) {
                if *ik != Processing::Agnostic {
                    continue;
                }
                for (op, ok) in outp[i].iter().enumerate().take(nports[i].1) {
                    if *ok == Processing::Agnostic && b.info[i].flow_code.flows(ip, op) {
                        links.push((
                            Connection {
                                from: i,
                                from_port: op,
                                to: i,
                                to_port: ip,
                            },
                            true,
                        ));
                    }
                }
            }
        }
        // A work list of links: a link is looked at again only when a
        // port at one of its ends changes, so a chain of n agnostic
        // elements resolves in O(n) steps (sweeping every link until
        // nothing changes took one sweep per element: O(n^2)).
        let mut in_base = Vec::with_capacity(n + 1);
        let mut out_base = Vec::with_capacity(n + 1);
        let (mut ni, mut no) = (0usize, 0usize);
        for np in &nports {
            in_base.push(ni);
            out_base.push(no);
            ni += np.0;
            no += np.1;
        }
        let mut by_in: Vec<Vec<usize>> = vec![Vec::new(); ni];
        let mut by_out: Vec<Vec<usize>> = vec![Vec::new(); no];
        for (k, (c, _)) in links.iter().enumerate() {
            by_in[in_base[c.to] + c.to_port].push(k);
            by_out[out_base[c.from] + c.from_port].push(k);
        }
        let mut dead = vec![false; links.len()];
        let mut queued = vec![true; links.len()];
        let mut work: std::collections::VecDeque<usize> = (0..links.len()).collect();
        while let Some(k) = work.pop_front() {
            queued[k] = false;
            let (c, fake) = &links[k];
            {
                if dead[k] {
                    continue;
                }
                let pf = outp[c.from][c.from_port];
                let pt = inp[c.to][c.to_port];
                let mut changed: Option<&Vec<usize>> = None;
                match pt {
                    Processing::Agnostic => {
                        if pf != Processing::Agnostic {
                            inp[c.to][c.to_port] = pf;
                            changed = Some(&by_in[in_base[c.to] + c.to_port]);
                        }
                    }
                    _ => {
                        if pf == Processing::Agnostic {
                            outp[c.from][c.from_port] = pt;
                            changed = Some(&by_out[out_base[c.from] + c.from_port]);
                        } else if pf != pt {
                            let (t1, t2) = if pf == Processing::Push {
                                ("push", "pull")
                            } else {
                                ("pull", "push")
                            };
                            let msg = if !fake {
                                format!(
                                    "'{}' {t1} output {} connected to '{}' {t2} input {}",
                                    b.info[c.from].declaration(),
                                    c.from_port,
                                    b.info[c.to].declaration(),
                                    c.to_port
                                )
                            } else {
                                format!(
                                    "agnostic '{}' in mixed context: {t2} input {}, {t1} output {}",
                                    b.info[c.from].declaration(),
                                    c.to_port,
                                    c.from_port
                                )
                            };
                            let lm = b.info[c.from].landmark.clone();
                            b.errors.push(format!("{lm}: {msg}"));
                            dead[k] = true;
                        }
                    }
                }
                for &j in changed.into_iter().flatten() {
                    if !queued[j] && !dead[j] {
                        queued[j] = true;
                        work.push_back(j);
                    }
                }
            }
        }
    }
    for i in 0..n {
        for p in inp[i].iter_mut().chain(outp[i].iter_mut()) {
            if *p == Processing::Agnostic {
                *p = Processing::Push;
            }
        }
    }

    // 4. Completeness: no reused push output or pull input, nothing unused.
    // Click skips this after a push/pull error; we check anyway so that
    // every violation is reported at once.
    if range_ok {
        let mut used_o: Vec<Vec<bool>> = (0..n).map(|i| vec![false; nports[i].1]).collect();
        let mut used_i: Vec<Vec<bool>> = (0..n).map(|i| vec![false; nports[i].0]).collect();
        for c in &conns {
            // An illegal connection still counts as using its ports, so
            // one mistake gives one message.
            let (o_used, i_used) = (used_o[c.from][c.from_port], used_i[c.to][c.to_port]);
            used_o[c.from][c.from_port] = true;
            used_i[c.to][c.to_port] = true;
            if o_used && outp[c.from][c.from_port] == Processing::Push {
                let d = b.info[c.from].declaration();
                b.error_at(
                    c.from,
                    format!("illegal reuse of '{d}' push output {}", c.from_port),
                );
            } else if i_used && inp[c.to][c.to_port] == Processing::Pull {
                let d = b.info[c.to].declaration();
                b.error_at(
                    c.to,
                    format!("illegal reuse of '{d}' pull input {}", c.to_port),
                );
            } else {
                b.connections.push(*c);
            }
        }
        for (i, used) in used_i.iter().enumerate() {
            for (p, u) in used.iter().enumerate() {
                if !u {
                    let d = b.info[i].declaration();
                    b.error_at(i, format!("'{d}' input {p} unused"));
                }
            }
        }
        for (i, used) in used_o.iter().enumerate() {
            for (p, u) in used.iter().enumerate() {
                if !u {
                    let d = b.info[i].declaration();
                    b.error_at(i, format!("'{d}' output {p} unused"));
                }
            }
        }
    }
    for i in 0..n {
        b.info[i].inputs = std::mem::take(&mut inp[i]);
        b.info[i].outputs = std::mem::take(&mut outp[i]);
    }
    if !b.errors.is_empty() {
        return Err(BuildError {
            messages: std::mem::take(&mut b.errors),
        });
    }
    Ok(())
}

/// The graph a configuration describes, as a build would resolve it
/// (classes, port counts, push and pull after agnostic resolution, the
/// connections that are kept), without configuring or initializing any
/// element: for drawing a configuration (`rclick dot`) or checking its
/// shape when its devices or files are not there.
pub fn resolve_graph(
    flat: &FlatConfig,
    registry: &Registry,
) -> Result<(Vec<ElementInfo>, Vec<Connection>), BuildError> {
    let mut b = Builder::new(flat.elements.len(), &BuildOptions::default());
    resolve(&mut b, flat, registry)?;
    Ok((b.info, b.connections))
}

fn context_errors(landmark: &impl fmt::Display, what: &str, decl: &str, msg: &str) -> Vec<String> {
    let mut v = vec![format!("{landmark}: {what} '{decl}':")];
    let msg = if msg.trim().is_empty() {
        "unspecified error"
    } else {
        msg
    };
    for line in msg.lines() {
        v.push(format!("  {line}"));
    }
    v
}

/// The element of a context made for no element: has no ports and does
/// nothing.
struct Nowhere;

impl Element for Nowhere {
    fn class_name(&self) -> &'static str {
        "Nowhere"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
}

impl Router {
    /// Builds and initializes a router from `flat` using the classes in
    /// `registry`.
    pub fn build(
        flat: FlatConfig,
        registry: Arc<Registry>,
        opts: BuildOptions,
    ) -> Result<Router, BuildError> {
        super::failure::install_hook();
        let n = flat.elements.len();
        let mut b = Builder::new(n, &opts);

        resolve(&mut b, &flat, &registry)?;

        // 5. Configure, in phase order.
        let mut order: Vec<ElementId> = (0..n).collect();
        let phases: Vec<i32> = b
            .elements
            .iter()
            .map(|e| e.as_ref().expect("present").configure_phase())
            .collect();
        order.sort_by_key(|&i| phases[i]);
        let configs: Vec<String> = flat.elements.iter().map(|e| e.config.clone()).collect();
        for &i in &order {
            let args = confparse::split_args(&configs[i]);
            let mut el = b.elements[i].take().expect("present");
            let result = {
                let mut cx = ConfigureCx::new(i, &b.info, &mut b.names, b.nthreads);
                let r = super::failure::catch(|| el.configure(&args, &mut cx))
                    .unwrap_or_else(|c| Err(format!("panic: {}", c.describe())));
                (r, std::mem::take(&mut cx.messages))
            };
            let (result, messages) = result;
            if !messages.is_empty() {
                let lm = b.info[i].landmark.clone();
                let decl = b.info[i].declaration();
                let mut lines = vec![format!("{lm}: While configuring '{decl}':")];
                lines.extend(
                    messages
                        .iter()
                        .flat_map(|m| m.lines().map(|l| format!("  {l}")).collect::<Vec<_>>()),
                );
                b.emit(lines);
            }
            b.elements[i] = Some(el);
            if let Err(msg) = result {
                let lm = b.info[i].landmark.clone();
                let decl = b.info[i].declaration();
                b.errors
                    .extend(context_errors(&lm, "While configuring", &decl, &msg));
            }
        }
        if !b.errors.is_empty() {
            return Err(BuildError { messages: b.errors });
        }

        // 6. Initialize, in phase order; stop at the first failure as Click does.
        // Notifier signals are named in that order too (Click allocates
        // them while initializing): `empty.N`, `full.N`.
        let mut signal_counts: HashMap<&'static str, u32> = HashMap::new();
        for &i in &order {
            let mut el = b.elements[i].take().expect("present");
            let result = {
                let mut cx = InitCx::new(i, &mut b);
                super::failure::catch(|| el.initialize(&mut cx))
                    .unwrap_or_else(|c| Err(format!("panic: {}", c.describe())))
            };
            for (kind, n) in [("empty", el.empty_notifier()), ("full", el.full_notifier())] {
                if let Some(n) = n {
                    let c = signal_counts.entry(kind).or_insert(0);
                    if n.set_label(kind, *c) {
                        *c += 1;
                    }
                }
            }
            b.elements[i] = Some(el);
            if let Err(msg) = result {
                let lm = b.info[i].landmark.clone();
                let decl = b.info[i].declaration();
                b.errors
                    .extend(context_errors(&lm, "While initializing", &decl, &msg));
                break;
            }
        }
        if !b.errors.is_empty() {
            return Err(BuildError { messages: b.errors });
        }

        Ok(Router::freeze(b, flat, configs, registry, opts))
    }

    fn freeze(
        b: Builder,
        flat: FlatConfig,
        configs: Vec<String>,
        registry: Arc<Registry>,
        opts: BuildOptions,
    ) -> Router {
        let n = b.info.len();
        let nthreads = opts.threads.max(1);
        // Resolved ports: each element's push outputs and pull inputs,
        // one element after another.
        let mut out_start = Vec::with_capacity(n + 1);
        let mut in_start = Vec::with_capacity(n + 1);
        let (mut no, mut ni) = (0usize, 0usize);
        for i in &b.info {
            out_start.push(no);
            in_start.push(ni);
            no += i.outputs.len();
            ni += i.inputs.len();
        }
        let mut outs = vec![Port::NONE; no];
        let mut ins = vec![Port::NONE; ni];
        for c in &b.connections {
            if b.info[c.from].outputs[c.from_port] == Processing::Push {
                outs[out_start[c.from] + c.from_port] = Port {
                    to: c.to as u32,
                    port: c.to_port as u32,
                };
            } else {
                ins[in_start[c.to] + c.to_port] = Port {
                    to: c.from as u32,
                    port: c.from_port as u32,
                };
            }
        }
        // Each push output's alias: the lowest output of the same element
        // leading to the same element and input (itself if none).
        let push_alias: Vec<Vec<u32>> = (0..n)
            .map(|e| {
                let o = &outs[out_start[e]..out_start[e] + b.info[e].outputs.len()];
                (0..o.len())
                    .map(|p| {
                        let lowest = (0..p).find(|&q| o[p] != Port::NONE && o[q] == o[p]);
                        lowest.unwrap_or(p) as u32
                    })
                    .collect()
            })
            .collect();
        let element_home: Vec<usize> = (0..n)
            .map(|e| {
                b.home_thread
                    .get(&e)
                    .map_or(0, |&(th, _)| th.min(nthreads - 1))
            })
            .collect();
        for t in &b.tasks {
            t.thread.store(element_home[t.element], Ordering::Relaxed);
            if let Some(&tk) = b.tickets.get(&t.element) {
                t.tickets.store(tk, Ordering::Relaxed);
            }
            t.stride.store(
                super::sched::stride_of(t.tickets.load(Ordering::Relaxed)),
                Ordering::Relaxed,
            );
        }
        for &(t, thread) in &b.task_threads {
            b.tasks[t as usize]
                .thread
                .store(thread.min(nthreads - 1), Ordering::Relaxed);
        }
        for t in &b.timers {
            t.thread.store(element_home[t.element], Ordering::Relaxed);
        }
        // Thread analysis: who owns each element.
        let runners: Vec<(usize, usize)> = b
            .tasks
            .iter()
            .map(|t| (t.element, t.thread.load(Ordering::Relaxed)))
            .chain(
                b.timers
                    .iter()
                    .map(|t| (t.element, t.thread.load(Ordering::Relaxed))),
            )
            .collect();
        let out_slices: Vec<&[Port]> = (0..n)
            .map(|e| &outs[out_start[e]..out_start[e] + b.info[e].outputs.len()])
            .collect();
        let in_slices: Vec<&[Port]> = (0..n)
            .map(|e| &ins[in_start[e]..in_start[e] + b.info[e].inputs.len()])
            .collect();
        let owners = super::threads::owners(
            &super::threads::Graph {
                outs: &out_slices,
                ins: &in_slices,
                home: &element_home,
            },
            &runners,
        );
        // Fused chains: from each simple element with a push input, the
        // simple elements its output 0 leads to, one after another, while
        // they have the same owner.
        let simple: Vec<bool> = b
            .elements
            .iter()
            .map(|el| !opts.no_fuse && el.as_ref().is_some_and(|el| el.is_simple()))
            .collect();
        let mut next = vec![u32::MAX; n];
        for e in 0..n {
            if !simple[e] || !b.info[e].inputs.contains(&Processing::Push) {
                continue;
            }
            if let Some(&Port { to, port }) = out_slices[e].first() {
                let to = to as usize;
                if to < n
                    && to != e
                    && simple[to]
                    && owners[to] == owners[e]
                    && b.info[to].inputs.get(port as usize) == Some(&Processing::Push)
                {
                    next[e] = to as u32;
                }
            }
        }
        // No cycles: a walk along `next` must end. Cut each cycle where it
        // closes.
        let mut state = vec![0u8; n]; // 0 new, 1 on the current walk, 2 done
        for e in 0..n {
            let mut walk = Vec::new();
            let mut cur = e;
            while cur < n && state[cur] == 0 {
                state[cur] = 1;
                walk.push(cur);
                let nx = next[cur] as usize;
                if nx < n && state[nx] == 1 {
                    next[cur] = u32::MAX;
                    break;
                }
                cur = nx;
            }
            for w in walk {
                state[w] = 2;
            }
        }
        // A chain starts wherever two simple elements follow each other.
        let chain_len: Vec<u32> = (0..n).map(|e| u32::from(next[e] != u32::MAX) * 2).collect();
        let mut handlers = Vec::with_capacity(n);
        let mut slots = Vec::with_capacity(n);
        let mut concurrent = Vec::with_capacity(n);
        for (e, el) in b.elements.into_iter().enumerate() {
            let el = el.expect("present");
            handlers.push(el.handlers());
            let ports = el.concurrent_ports();
            let mut slot = Slot::new(el, ports.as_ref());
            concurrent.push(ports);
            slot.id = e as u32;
            slot.next = next[e];
            slot.outs = (out_start[e] as u32, b.info[e].outputs.len() as u32);
            slot.ins = (in_start[e] as u32, b.info[e].inputs.len() as u32);
            slot.chain = chain_len[e];
            slot.set_owner_unshared(owners[e]);
            slots.push(slot);
        }
        let threads: Vec<super::ThreadShared> = (0..nthreads)
            .map(|_| super::ThreadShared {
                inbox: Mutex::new(Vec::new()),
                flag: AtomicBool::new(false),
                poller: super::poll::Poller::new(),
            })
            .collect();
        if let Some(fd) = super::external::wake_fd() {
            threads[0].poller.watch_signals(fd);
        }
        let mut select_errors = Vec::new();
        for &(fd, what, task) in &b.selects {
            let home = b.tasks[task as usize].thread.load(Ordering::Relaxed);
            if let Err(e) = threads[home].poller.add_select(fd, what, task) {
                select_errors.push(e);
            }
        }
        let mut log = b.log;
        for e in select_errors {
            if opts.capture_log {
                log.push(e);
            } else {
                eprintln!("{e}");
            }
        }
        let inner = RouterInner {
            slots,
            nowhere: Slot::new(Box::new(Nowhere), None),
            info: b.info,
            configs: configs.into_iter().map(Mutex::new).collect(),
            outs,
            ins,
            concurrent,
            push_alias,
            connections: b.connections,
            handlers,
            tasks: b.tasks,
            timers: b.timers,
            element_tasks: b.element_tasks,
            element_home: element_home.into_iter().map(AtomicUsize::new).collect(),
            measure_tasks: AtomicBool::new(false),
            runcount: AtomicI32::new(INITIAL_RUNCOUNT.saturating_add(b.runcount_delta)),
            stop_handlers: b.stop_handlers,
            clock: b.clock,
            flat,
            source_text: opts.source_text,
            registry,
            nthreads,
            threads,
            locks: super::slot::ThreadLocks::new(nthreads),
            affinity: opts.affinity,
            busy_poll: opts.busy_poll,
            stats: Default::default(),
            quit: AtomicBool::new(false),
            chatter_taps: Default::default(),
            log: if opts.capture_log {
                Some(Mutex::new(log))
            } else {
                None
            },
            out: if opts.capture_log {
                Some(Mutex::new(String::new()))
            } else {
                None
            },
            names: b.names,
            external_tasks: b.external_tasks,
            hotconfig: opts.hotconfig,
            profile: super::profile::Profile::new(n),
            handler_writes: AtomicU64::new(0),
            coalesce: !opts.no_coalesce,
            cleaned_up: AtomicBool::new(false),
            failures: Default::default(),
        };
        Router {
            inner: Arc::new(inner),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::Element;

    struct Src;
    impl Element for Src {
        fn class_name(&self) -> &'static str {
            "Src"
        }
        fn port_count(&self) -> &'static str {
            "0/1"
        }
        fn processing(&self) -> &'static str {
            "h/h"
        }
    }
    struct Sink;
    impl Element for Sink {
        fn class_name(&self) -> &'static str {
            "Sink"
        }
        fn port_count(&self) -> &'static str {
            "1/0"
        }
        fn processing(&self) -> &'static str {
            "l/l"
        }
    }
    struct Agn;
    impl Element for Agn {
        fn class_name(&self) -> &'static str {
            "Agn"
        }
    }
    struct Agn2;
    impl Element for Agn2 {
        fn class_name(&self) -> &'static str {
            "Agn2"
        }
        fn port_count(&self) -> &'static str {
            "1/2"
        }
        fn flow_code(&self) -> &'static str {
            "x/xy"
        }
    }
    struct Q;
    impl Element for Q {
        fn class_name(&self) -> &'static str {
            "Q"
        }
        fn processing(&self) -> &'static str {
            "h/l"
        }
    }
    struct Bad;
    impl Element for Bad {
        fn class_name(&self) -> &'static str {
            "Bad"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            Err(format!("bad config {}", conf.join("|")))
        }
    }

    fn registry() -> Arc<Registry> {
        let mut r = Registry::new();
        r.add("Src", || Box::new(Src), "");
        r.add("Sink", || Box::new(Sink), "");
        r.add("Agn", || Box::new(Agn), "");
        r.add("Agn2", || Box::new(Agn2), "");
        r.add("Q", || Box::new(Q), "");
        r.add("Bad", || Box::new(Bad), "");
        Arc::new(r)
    }

    fn build(text: &str) -> Result<Router, Vec<String>> {
        let flat = rclick_lang::parse(
            text,
            &rclick_lang::Options {
                file_name: "t".into(),
                defines: vec![],
            },
        )
        .map_err(|e| e.iter().map(|d| d.to_string()).collect::<Vec<_>>())?;
        Router::build(flat, registry(), BuildOptions::default()).map_err(|e| e.messages)
    }

    /// An unknown package is an error in Click's words, reported with
    /// the later stages' errors; no router is built.
    #[test]
    fn unknown_package_is_an_error() {
        let e = build("require(package \"nosuch\"); Src -> Foo -> Sink;")
            .err()
            .unwrap();
        assert_eq!(
            e,
            vec![
                "While loading package 'nosuch':",
                "  this program cannot load packages",
                "requirement 'nosuch' not available",
                "t:1: unknown element class 'Foo'",
            ]
        );
        // compact_config is not a package.
        let r = build("require(compact_config); s :: Src -> q :: Q -> k :: Sink;");
        assert!(r.is_ok(), "{:?}", r.err());
    }

    #[test]
    fn agnostic_resolves_both_ways() {
        let r = build("s :: Src -> a :: Agn -> q :: Q -> b :: Agn -> k :: Sink;").unwrap();
        let a = r.find("a").unwrap();
        let b = r.find("b").unwrap();
        assert_eq!(r.element_info(a).inputs, vec![Processing::Push]);
        assert_eq!(r.element_info(a).outputs, vec![Processing::Push]);
        assert_eq!(r.element_info(b).inputs, vec![Processing::Pull]);
        assert_eq!(r.element_info(b).outputs, vec![Processing::Pull]);
    }

    #[test]
    fn agnostic_chain_propagates_through_several_elements() {
        let r = build("q :: Q; Src -> q; q -> a :: Agn -> b :: Agn -> c :: Agn -> Sink;").unwrap();
        for n in ["a", "b", "c"] {
            let e = r.find(n).unwrap();
            assert_eq!(r.element_info(e).inputs, vec![Processing::Pull], "{n}");
        }
    }

    #[test]
    fn flow_code_limits_agnostic_coupling() {
        // Agn2's output 1 is not reachable from its input ("x/xy"), so it
        // may be pull while input and output 0 are push.
        let r = build("Src -> a :: Agn2; a [0] -> Q -> Sink; a [1] -> Sink; ").unwrap();
        let a = r.find("a").unwrap();
        assert_eq!(r.element_info(a).inputs, vec![Processing::Push]);
        assert_eq!(
            r.element_info(a).outputs,
            vec![Processing::Push, Processing::Pull]
        );
    }

    #[test]
    fn figure4_violations_each_reported() {
        let errs = build(
            "src :: Src; snk :: Sink; c :: Agn;\n\
             src -> snk;\n\
             src -> c -> snk;\n",
        )
        .unwrap_err();
        let text = errs.join("\n");
        assert!(
            text.contains("'src :: Src' push output 0 connected to 'snk :: Sink' pull input 0"),
            "{text}"
        );
        assert!(
            text.contains("agnostic 'c :: Agn' in mixed context: push input 0, pull output 0"),
            "{text}"
        );
        assert!(
            text.contains("illegal reuse of 'src :: Src' push output 0"),
            "{text}"
        );
        assert!(
            text.contains("illegal reuse of 'snk :: Sink' pull input 0"),
            "{text}"
        );
        assert_eq!(errs.len(), 4, "{text}");
        // The legal version, with a queue.
        build("src :: Src; snk :: Sink; c :: Agn; src -> c -> Q -> snk;").unwrap();
    }

    #[test]
    fn port_range_and_unused_errors() {
        let errs = build("s :: Src; s [1] -> Q -> Sink;").unwrap_err();
        assert!(
            errs.iter().any(|m| m == "t:1: 's :: Src' has no output 1"),
            "{errs:?}"
        );
        let errs = build("s :: Src; q :: Q -> Sink;").unwrap_err();
        assert!(
            errs.iter().any(|m| m == "t:1: 's :: Src' output 0 unused"),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|m| m == "t:1: 'q :: Q' input 0 unused"),
            "{errs:?}"
        );
    }

    #[test]
    fn unknown_classes_all_reported() {
        let errs = build("Foo -> Bar;").unwrap_err();
        assert_eq!(
            errs,
            vec![
                "t:1: unknown element class 'Foo'",
                "t:1: unknown element class 'Bar'"
            ]
        );
    }

    #[test]
    fn configure_errors_carry_context_and_all_are_reported() {
        let errs = build("a :: Bad(1, 2);\nb :: Bad;\nSrc -> a -> b -> Q -> Sink;").unwrap_err();
        assert_eq!(
            errs,
            vec![
                "t:1: While configuring 'a :: Bad':",
                "  bad config 1|2",
                "t:2: While configuring 'b :: Bad':",
                "  bad config ",
            ]
        );
    }
}
