//! The router: the element graph, built from a flat configuration, and the
//! state every thread shares while it runs.
//!
//! * [`build`] turns a [`rclick_lang::FlatConfig`] into a [`Router`]:
//!   instantiate, check ports, resolve push/pull, configure, initialize.
//!   Every error of every stage is collected; nothing half-built runs.
//! * [`ctx`] holds the contexts elements see: [`ConfigureCx`], [`InitCx`]
//!   and the run-time [`Ctx`] through which they push, pull, schedule and
//!   call handlers.
//! * [`sched`] is the per-thread task and timer scheduler and driver loop.
//! * [`handlers`] resolves handler names and implements the standard ones.
//!
//! * [`poll`] is how an idle thread waits (epoll on descriptors, timers
//!   and wake-ups from other threads).
//! * [`threads`] is the thread analysis that decides which elements a
//!   thread owns.
//!
//! Architecture invariant: elements live in `RouterInner::slots`; exactly
//! one caller runs an element at a time and an element never holds a
//! reference to another. An element reached by one thread is owned by that
//! thread's lock and called without atomic operations; one reached by
//! several is shared and taken with a compare-and-swap (`slot.rs`). A call
//! into a neighbour goes through the resolved port tables here.

pub mod build;
pub mod ctx;
pub mod external;
mod failure;
pub mod handlers;
pub mod hotswap;
pub mod llrpc;
mod migrate;
pub(crate) mod poll;
pub mod profile;
mod runq;
pub mod sched;
mod slot;
mod threads;

use std::sync::atomic::{
    AtomicBool, AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
use std::sync::{Arc, Mutex};

use rclick_lang::{FlatConfig, Landmark};

use crate::clock::Clock;
use crate::element::{Element, HandlerDef};
use crate::registry::Registry;
use crate::spec::Processing;
pub use poll::Select;

/// A receiver of copies of the router's log lines (Click's chatter), as
/// ChatterSocket is. `message` is called on the thread that logs, so it
/// must be quick and must not log itself.
pub trait ChatterTap: Send + Sync {
    /// One log line, without its newline.
    fn message(&self, line: &str);
}
pub(crate) use slot::Slot;
pub use slot::SlotBusy;

pub use build::{resolve_graph, BuildError, BuildOptions};
pub use ctx::{ConfigureCx, Ctx, InitCx, Loan};
pub use hotswap::HotConfig;

/// Index of an element in its router.
pub type ElementId = usize;

/// Click's initial run count; a source saying STOP lowers it by one.
pub const INITIAL_RUNCOUNT: i32 = 1;
/// The lowest run count (Click's STOP_RUNCOUNT).
pub const STOP_RUNCOUNT: i32 = -2147483647;

/// Static facts about one element, fixed when the router is built.
#[derive(Clone, Debug)]
pub struct ElementInfo {
    /// Its name (`c`, `Counter@3`, `outer/inner`).
    pub name: String,
    /// Its class name as written.
    pub class: String,
    /// Where it was declared.
    pub landmark: Landmark,
    /// Processing of each input, after agnostic resolution.
    pub inputs: Vec<Processing>,
    /// Processing of each output, after agnostic resolution.
    pub outputs: Vec<Processing>,
    /// Whether each input was agnostic before resolution.
    pub input_agnostic: Vec<bool>,
    /// Whether each output was agnostic before resolution.
    pub output_agnostic: Vec<bool>,
    /// Flow code.
    pub flow_code: crate::spec::FlowCode,
}

impl ElementInfo {
    /// Click's `name :: Class` declaration text.
    pub fn declaration(&self) -> String {
        format!("{} :: {}", self.name, self.class)
    }
}

/// One connection: output `from_port` of `from` to input `to_port` of `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Connection {
    /// Upstream element.
    pub from: ElementId,
    /// Its output port.
    pub from_port: usize,
    /// Downstream element.
    pub to: ElementId,
    /// Its input port.
    pub to_port: usize,
}

/// A task's shared scheduling state. Its home thread writes it on every
/// run, so each task has cache lines of its own: tasks of different
/// threads never share one (false sharing cost two independent paths on
/// two threads 70 % more CPU per packet).
#[derive(Debug)]
#[repr(align(64))]
pub(crate) struct TaskInfo {
    pub element: ElementId,
    pub tickets: AtomicU32,
    pub scheduled: AtomicBool,
    pub generation: AtomicU64,
    pub pass: AtomicU64,
    pub thread: AtomicUsize,
    /// `STRIDE1 / tickets`, kept with the tickets.
    pub stride: AtomicU64,
    pub runs: AtomicU64,
    /// Cycles its runs took, while task costs are measured.
    pub cycles: AtomicU64,
    /// Whether the scheduler may coalesce this task's runs: `0` when not
    /// known yet, else `(handler writes + 1) << 1 | allowed`, decided when
    /// the router's handler-write count was that (see `sched.rs`).
    pub coalesce: AtomicU64,
}

/// A timer's shared state.
#[derive(Debug)]
pub(crate) struct TimerInfo {
    pub element: ElementId,
    /// Expiry in ns; `i64::MIN` when not scheduled.
    pub expiry: AtomicI64,
    pub generation: AtomicU64,
    pub thread: AtomicUsize,
}

/// Work one thread hands another (schedule a task or timer there).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Remote {
    Task(u32),
    Timer(u32),
    /// Unschedule a task.
    Unschedule(u32),
}

/// What one router thread shares with the others: its inbox and where it
/// sleeps. A cache line of its own, as its owner reads `flag` on every
/// scheduler iteration.
#[derive(Debug)]
#[repr(align(64))]
pub(crate) struct ThreadShared {
    pub inbox: Mutex<Vec<Remote>>,
    /// Set when the inbox has work.
    pub flag: AtomicBool,
    pub poller: poll::Poller,
}

/// Counters about the router itself, readable through handlers.
#[derive(Debug, Default)]
pub struct RouterStats {
    /// Batches dropped because they looped back into a busy element.
    pub reentrant_drops: AtomicU64,
    /// Packets in those batches.
    pub reentrant_packets: AtomicU64,
    /// Pushes made too deep in the stack, continued from its top.
    pub deep_pushes: AtomicU64,
    /// Packets an element sent to an output it does not have
    /// (`Ctx::checked_push`, Click's `checked_output_push`: a packet for
    /// an optional error output that is not there).
    pub no_output_packets: AtomicU64,
    /// Panics caught around task and timer runs and handler calls.
    pub panics: AtomicU64,
    /// Packets the calls that panicked had been handed (dropped with the
    /// panic).
    pub panic_packets: AtomicU64,
    /// The last of them: element and message.
    pub last_panic: Mutex<String>,
}

/// Everything the router's threads share.
pub struct RouterInner {
    pub(crate) slots: Vec<Slot>,
    /// The current element of a context made for no element.
    pub(crate) nowhere: Slot,
    pub(crate) info: Vec<ElementInfo>,
    /// Current configuration arguments of each element (changed by
    /// reconfiguring write handlers).
    pub(crate) configs: Vec<Mutex<String>>,
    /// Every element's push outputs, one after another (each slot says
    /// where its own are): where each leads. Pull outputs are `Port::NONE`.
    pub(crate) outs: Vec<ctx::Port>,
    /// Every element's pull inputs, likewise: where each comes from.
    pub(crate) ins: Vec<ctx::Port>,
    /// Each element's thread-safe ports, if it has them
    /// (`Element::concurrent_ports`).
    pub(crate) concurrent: Vec<Option<Arc<dyn crate::element::ConcurrentPorts>>>,
    /// `push_alias[e][port]`: the lowest output of `e` whose push
    /// connection leads to the same element and input as `port`'s.
    pub(crate) push_alias: Vec<Vec<u32>>,
    pub(crate) connections: Vec<Connection>,
    pub(crate) handlers: Vec<Vec<HandlerDef>>,
    pub(crate) tasks: Vec<TaskInfo>,
    pub(crate) timers: Vec<TimerInfo>,
    pub(crate) element_tasks: Vec<Vec<u32>>,
    /// The thread each element's tasks run on.
    pub(crate) element_home: Vec<AtomicUsize>,
    /// Whether task runs are timed (BalancedThreadSched).
    pub(crate) measure_tasks: AtomicBool,
    pub(crate) runcount: AtomicI32,
    pub(crate) stop_handlers: Vec<ElementId>,
    pub(crate) clock: Clock,
    pub(crate) flat: FlatConfig,
    pub(crate) source_text: String,
    pub(crate) registry: Arc<Registry>,
    pub(crate) nthreads: usize,
    /// Per router thread: inbox and poller.
    pub(crate) threads: Vec<ThreadShared>,
    /// Per router thread: the lock its owned elements need.
    pub(crate) locks: slot::ThreadLocks,
    /// Pin thread `i` to processor `affinity + i` (Click's `-a`).
    pub(crate) affinity: Option<usize>,
    /// Never sleep when idle: poll descriptors without waiting.
    pub(crate) busy_poll: bool,
    pub(crate) stats: RouterStats,
    pub(crate) quit: AtomicBool,
    /// Messages elements print (Print, Message) go here in tests; `None`
    /// means standard error.
    pub(crate) log: Option<Mutex<Vec<String>>>,
    /// Elements that get a copy of every log line (ChatterSocket).
    pub(crate) chatter_taps: Mutex<Vec<Arc<dyn ChatterTap>>>,
    /// Text elements print to standard output (Script's `print`) goes here
    /// in tests; `None` means standard output.
    pub(crate) out: Option<Mutex<String>>,
    /// Names elements defined while configuring (AddressInfo).
    pub(crate) names: ctx::NameTable,
    /// Tasks scheduled when an external event (a signal) is raised.
    pub(crate) external_tasks: Vec<u32>,
    /// The hot-reconfiguration service, when `hotconfig` is writable.
    pub(crate) hotconfig: Option<Arc<hotswap::HotConfig>>,
    /// Per-element costs, when switched on.
    pub(crate) profile: profile::Profile,
    /// Handler writes so far: an element's `batch_transparent` answer may
    /// change with each (the scheduler asks again).
    pub(crate) handler_writes: AtomicU64,
    /// Whether tasks' runs may be coalesced at all (`BuildOptions`).
    pub(crate) coalesce: bool,
    /// Whether the elements' `cleanup` has run (once: at the end of a run,
    /// or when a hot swap replaced this router).
    pub(crate) cleaned_up: AtomicBool,
    /// Elements that panicked, why, and what they dropped since
    /// (`failure.rs`).
    pub(crate) failures: failure::Failures,
}

/// A built, initialized router. Cheap to clone (shared).
#[derive(Clone)]
pub struct Router {
    pub(crate) inner: Arc<RouterInner>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("elements", &self.inner.info.len())
            .finish()
    }
}

impl Router {
    /// Click's teardown: calls every element's [`Element::cleanup`]
    /// (releasing what lives outside the process: firewall rules, devices,
    /// files), once; later calls, and calls after a hot swap cleaned this
    /// router up, do nothing. The router must not be running.
    ///
    /// [`Element::cleanup`]: crate::Element::cleanup
    pub fn cleanup(&self) {
        if self.inner.cleaned_up.swap(true, Ordering::AcqRel) {
            return;
        }
        let o = &*self.inner;
        let mut sched = self.external_sched();
        for e in 0..o.info.len() {
            // A panicking cleanup is logged; the others still run.
            if let Err((c, _)) = sched.catch(o, |s| {
                Ctx::new(o, s, e).enter_and(e, false, |g, cx| g.cleanup(cx))
            }) {
                o.count_panic(&c, e, "cleanup", false);
            }
        }
    }

    /// Whether element `e` panicked and was taken out of the data path
    /// (its `failed` handler says why).
    pub fn element_failed(&self, e: ElementId) -> bool {
        self.inner.slots.get(e).is_some_and(slot::Slot::failed)
    }

    /// How many times element `e`'s tasks have run (coalesced runs count
    /// one each), since the router was built.
    pub fn task_runs(&self, e: ElementId) -> u64 {
        self.inner.element_tasks.get(e).map_or(0, |ts| {
            ts.iter()
                .map(|&t| self.inner.tasks[t as usize].runs.load(Ordering::Relaxed))
                .sum()
        })
    }

    /// Number of elements.
    pub fn nelements(&self) -> usize {
        self.inner.info.len()
    }

    /// Static facts about element `e`.
    pub fn element_info(&self, e: ElementId) -> &ElementInfo {
        &self.inner.info[e]
    }

    /// Finds an element by name.
    pub fn find(&self, name: &str) -> Option<ElementId> {
        self.inner.find(name)
    }

    /// All connections.
    pub fn connections(&self) -> &[Connection] {
        &self.inner.connections
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.inner.clock
    }

    /// The run count (stops at zero or below).
    pub fn runcount(&self) -> i32 {
        self.inner.runcount.load(Ordering::Acquire)
    }

    /// The flattened configuration this router was built from.
    pub fn flat_config(&self) -> &FlatConfig {
        &self.inner.flat
    }

    /// The configuration text as the user gave it.
    pub fn source_text(&self) -> &str {
        &self.inner.source_text
    }

    /// Router-level counters.
    pub fn stats(&self) -> &RouterStats {
        &self.inner.stats
    }

    /// Lines logged by elements, when the router was built with
    /// `capture_log` (tests); empty otherwise.
    pub fn take_log(&self) -> Vec<String> {
        match &self.inner.log {
            Some(l) => std::mem::take(&mut *l.lock().unwrap_or_else(|p| p.into_inner())),
            None => Vec::new(),
        }
    }

    /// Text elements printed to standard output, when the router was built
    /// with `capture_log` (tests); empty otherwise.
    pub fn take_stdout(&self) -> String {
        match &self.inner.out {
            Some(o) => std::mem::take(&mut *o.lock().unwrap_or_else(|p| p.into_inner())),
            None => String::new(),
        }
    }

    /// Switches the per-element cost profile on (clearing it) or off
    /// (the `profile` handler).
    pub fn set_profiling(&self, on: bool) {
        self.inner.profile.set(on);
    }

    /// The per-element costs measured while profiling was on; `None` if it
    /// never was (the `element_costs` handler prints this).
    pub fn element_costs(&self) -> Option<profile::CostReport> {
        self.inner.profile.report(&self.inner.info)
    }

    /// Runs `f` with exclusive access to element `e` (tests, tools): waits
    /// until the thread running it lets go. `None` if there is no such
    /// element.
    pub fn with_element<R>(
        &self,
        e: ElementId,
        f: impl FnOnce(&mut dyn Element) -> R,
    ) -> Option<R> {
        let mut sched = self.external_sched();
        let mut cx = Ctx::new(&self.inner, &mut sched, e);
        cx.enter_and(e, false, |el, _| f(el)).ok()
    }

    /// The element a fused chain goes on to after element `e` (see
    /// `Element::is_simple`), if any.
    pub fn fused_next(&self, e: ElementId) -> Option<ElementId> {
        let n = self.inner.slots.get(e)?.next as usize;
        (n < self.inner.slots.len()).then_some(n)
    }

    /// The thread lock that owns element `e` (its index), or `None` when
    /// it is shared by several threads.
    pub fn element_owner(&self, e: ElementId) -> Option<usize> {
        let o = self.inner.slots.get(e)?.owner();
        ((o as usize) < self.inner.locks.len()).then_some(o as usize)
    }
}

impl RouterInner {
    /// Where push output `port` of the element in `s` leads.
    #[inline(always)]
    pub(crate) fn out_port(&self, s: &Slot, port: usize) -> Option<&ctx::Port> {
        if port < s.outs.1 as usize {
            self.outs.get(s.outs.0 as usize + port)
        } else {
            None
        }
    }

    /// Where pull input `port` of the element in `s` comes from.
    #[inline(always)]
    pub(crate) fn in_port(&self, s: &Slot, port: usize) -> Option<&ctx::Port> {
        if port < s.ins.1 as usize {
            self.ins.get(s.ins.0 as usize + port)
        } else {
            None
        }
    }

    /// Element `e`'s push outputs.
    #[inline(always)]
    pub(crate) fn outs_of(&self, s: &Slot) -> &[ctx::Port] {
        let (start, n) = (s.outs.0 as usize, s.outs.1 as usize);
        self.outs.get(start..start + n).unwrap_or(&[])
    }

    /// Element `e`'s pull inputs.
    #[inline(always)]
    pub(crate) fn ins_of(&self, s: &Slot) -> &[ctx::Port] {
        let (start, n) = (s.ins.0 as usize, s.ins.1 as usize);
        self.ins.get(start..start + n).unwrap_or(&[])
    }

    pub(crate) fn find(&self, name: &str) -> Option<ElementId> {
        self.info.iter().position(|i| i.name == name)
    }

    /// Lowers or raises the run count, saturating like Click.
    pub(crate) fn adjust_runcount(&self, delta: i32) {
        let old = self
            .runcount
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |old| {
                Some(if delta > 0 && old > i32::MAX - delta {
                    i32::MAX
                } else if delta < 0 && old < STOP_RUNCOUNT - delta {
                    STOP_RUNCOUNT
                } else {
                    old + delta
                })
            })
            .unwrap_or(0);
        if old.saturating_add(delta) <= 0 {
            self.wake_driver();
        }
    }

    /// Sets the run count.
    pub(crate) fn set_runcount(&self, n: i32) {
        self.runcount.store(n, Ordering::SeqCst);
        if n <= 0 {
            self.wake_driver();
        }
    }

    /// Wakes the driver thread (thread 0), which handles stopping.
    pub(crate) fn wake_driver(&self) {
        if let Some(th) = self.threads.first() {
            th.poller.wake();
        }
    }

    /// The thread analysis (`threads.rs`) over the router as it is now.
    pub(crate) fn analyse_owners(&self) -> Vec<u32> {
        let n = self.info.len();
        let outs: Vec<&[ctx::Port]> = self.slots.iter().map(|s| self.outs_of(s)).collect();
        let ins: Vec<&[ctx::Port]> = self.slots.iter().map(|s| self.ins_of(s)).collect();
        let home: Vec<usize> = (0..n)
            .map(|e| self.element_home[e].load(Ordering::Relaxed))
            .collect();
        let runners: Vec<(usize, usize)> = self
            .tasks
            .iter()
            .map(|t| (t.element, t.thread.load(Ordering::Relaxed)))
            .chain(
                self.timers
                    .iter()
                    .map(|t| (t.element, t.thread.load(Ordering::Relaxed))),
            )
            .collect();
        threads::owners(
            &threads::Graph {
                outs: &outs,
                ins: &ins,
                home: &home,
            },
            &runners,
        )
    }

    pub(crate) fn write_stdout(&self, text: &[u8]) {
        match &self.out {
            Some(o) => o
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push_str(&String::from_utf8_lossy(text)),
            None => {
                use std::io::Write;
                let stdout = std::io::stdout();
                let mut h = stdout.lock();
                let _ = h.write_all(text);
                let _ = h.flush();
            }
        }
    }

    pub(crate) fn log_line(&self, line: String) {
        {
            let taps = self.chatter_taps.lock().unwrap_or_else(|p| p.into_inner());
            for t in taps.iter() {
                t.message(&line);
            }
        }
        match &self.log {
            Some(l) => l.lock().unwrap_or_else(|p| p.into_inner()).push(line),
            None => {
                use std::io::Write;
                let stderr = std::io::stderr();
                let mut h = stderr.lock();
                let _ = writeln!(h, "{line}");
            }
        }
    }
}
