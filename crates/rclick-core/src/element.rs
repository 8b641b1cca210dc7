//! The [`Element`] trait: what every element class implements.
//!
//! Elements pass **batches** of packets: a push call hands an element a
//! [`PacketBatch`] on one input, a pull call asks it for up to `max` packets
//! on one output. One dynamic dispatch moves a whole batch. An element that
//! thinks per packet implements only [`Element::simple_action`]; the default
//! `push` and `pull` run the batch loop around it (Click's `simple_action`).
//!
//! An element never holds a reference to another element. It reaches its
//! neighbours through the [`Ctx`] it is given: `cx.push(port, batch)`,
//! `cx.pull(port, max)`. That keeps the graph free of shared mutable state:
//! the router owns every element, and each call borrows exactly one.

use std::any::Any;
use std::borrow::Cow;
use std::sync::Arc;

use rclick_packet::{Packet, PacketBatch};

use crate::args::Args;
use crate::notifier::Notifier;
use crate::router::{ConfigureCx, Ctx, InitCx};

/// Identifies a task owned by an element (returned by [`InitCx::new_task`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(pub u32);

/// Identifies a timer owned by an element (returned by [`InitCx::new_timer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(pub u32);

/// Configure phases: elements are configured and initialized in increasing
/// phase order (Click's `configure_phase`).
pub mod phase {
    /// Information elements (AddressInfo) that others read while configuring.
    pub const FIRST: i32 = 0;
    /// Elements that must come before most others.
    pub const INFO: i32 = 20;
    /// Elements that configure privileges or devices.
    pub const PRIVILEGED: i32 = 90;
    /// The default.
    pub const DEFAULT: i32 = 100;
    /// Elements that look at other elements' configuration (Script, ScheduleInfo).
    pub const LAST: i32 = 2000;
}

/// How a handler may be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct HandlerFlags {
    /// It can be read.
    pub read: bool,
    /// It can be written.
    pub write: bool,
    /// A read takes a parameter (`read h param`).
    pub read_param: bool,
    /// Reading it is expensive or changes state: `-h` patterns skip it.
    pub expensive: bool,
    /// The value is raw (no trailing newline added).
    pub raw: bool,
    /// Hidden from the `handlers` listing.
    pub private: bool,
}

impl HandlerFlags {
    /// Readable.
    pub const READ: HandlerFlags = HandlerFlags {
        read: true,
        write: false,
        read_param: false,
        expensive: false,
        raw: false,
        private: false,
    };
    /// Writable.
    pub const WRITE: HandlerFlags = HandlerFlags {
        read: false,
        write: true,
        read_param: false,
        expensive: false,
        raw: false,
        private: false,
    };
    /// Readable and writable.
    pub const READ_WRITE: HandlerFlags = HandlerFlags {
        read: true,
        write: true,
        read_param: false,
        expensive: false,
        raw: false,
        private: false,
    };
    /// Readable with a parameter.
    pub const READ_PARAM: HandlerFlags = HandlerFlags {
        read: true,
        write: false,
        read_param: true,
        expensive: false,
        raw: false,
        private: false,
    };
}

/// What happens on a handler call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandlerKind {
    /// The element's own code: `read_handler`/`write_handler` with this id.
    Element(u32),
    /// Click's `reconfigure_keyword_handler`: a write replaces the keyword
    /// argument `keyword` (or positional argument `position`) in the
    /// element's configuration and reconfigures it; a read returns that
    /// argument's current text.
    Reconfigure {
        /// The keyword, e.g. `CAPACITY`.
        keyword: &'static str,
        /// Its position when given positionally, if it may be.
        position: Option<usize>,
        /// Also call the element's read handler with this id for reads.
        read_id: Option<u32>,
    },
}

/// One handler an element offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandlerDef {
    /// Its name, e.g. `count`.
    pub name: Cow<'static, str>,
    /// How it may be called.
    pub flags: HandlerFlags,
    /// What a call does.
    pub kind: HandlerKind,
}

impl HandlerDef {
    /// A read handler served by `read_handler(id)`.
    pub fn read(name: &'static str, id: u32) -> HandlerDef {
        HandlerDef {
            name: Cow::Borrowed(name),
            flags: HandlerFlags::READ,
            kind: HandlerKind::Element(id),
        }
    }
    /// A write handler served by `write_handler(id)`.
    pub fn write(name: &'static str, id: u32) -> HandlerDef {
        HandlerDef {
            name: Cow::Borrowed(name),
            flags: HandlerFlags::WRITE,
            kind: HandlerKind::Element(id),
        }
    }
    /// A handler that is both read and written with the same id.
    pub fn read_write(name: &'static str, id: u32) -> HandlerDef {
        HandlerDef {
            name: Cow::Borrowed(name),
            flags: HandlerFlags::READ_WRITE,
            kind: HandlerKind::Element(id),
        }
    }
    /// A read handler taking a parameter.
    pub fn read_param(name: &'static str, id: u32) -> HandlerDef {
        HandlerDef {
            name: Cow::Borrowed(name),
            flags: HandlerFlags::READ_PARAM,
            kind: HandlerKind::Element(id),
        }
    }
    /// A write handler that sets configuration keyword `keyword` and
    /// reconfigures the element ([`Element::live_reconfigure`]).
    pub fn reconfigure(name: &'static str, keyword: &'static str) -> HandlerDef {
        HandlerDef {
            name: Cow::Borrowed(name),
            flags: HandlerFlags::WRITE,
            kind: HandlerKind::Reconfigure {
                keyword,
                position: None,
                read_id: None,
            },
        }
    }
    /// Same, for an argument that may also be given at `position`.
    pub fn reconfigure_positional(
        name: &'static str,
        keyword: &'static str,
        position: usize,
    ) -> HandlerDef {
        HandlerDef {
            name: Cow::Borrowed(name),
            flags: HandlerFlags::WRITE,
            kind: HandlerKind::Reconfigure {
                keyword,
                position: Some(position),
                read_id: None,
            },
        }
    }
    /// Makes the handler readable too, through `read_handler(id)`.
    pub fn with_read(mut self, id: u32) -> HandlerDef {
        self.flags.read = true;
        if let HandlerKind::Reconfigure { read_id, .. } = &mut self.kind {
            *read_id = Some(id);
        } else {
            self.kind = HandlerKind::Element(id);
        }
        self
    }
    /// Marks the handler expensive (skipped by `-h` patterns).
    pub fn expensive(mut self) -> HandlerDef {
        self.flags.expensive = true;
        self
    }
    /// Marks the handler raw.
    pub fn raw(mut self) -> HandlerDef {
        self.flags.raw = true;
        self
    }
    /// Marks the handler private: not listed, not reachable through
    /// ControlSocket (Click's `Handler::PRIVATE`).
    pub fn private(mut self) -> HandlerDef {
        self.flags.private = true;
        self
    }
    /// Makes a readable handler also readable with a parameter (Script's
    /// `run ARGS`).
    pub fn with_param(mut self) -> HandlerDef {
        self.flags.read_param = true;
        self
    }
    /// For a reconfiguring handler: its argument may also be given at
    /// `position` (as [`HandlerDef::reconfigure_positional`]). Other
    /// handlers are unchanged.
    pub fn positional(mut self, at: usize) -> HandlerDef {
        if let HandlerKind::Reconfigure { position, .. } = &mut self.kind {
            *position = Some(at);
        }
        self
    }
}

/// Lets the router downcast elements (RED finding its Queues, Script
/// reading ScheduleInfo); implemented for every type.
pub trait AsAny: Any {
    /// `self` as `&dyn Any`.
    fn as_any(&self) -> &dyn Any;
    /// `self` as `&mut dyn Any`.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// An element class's behaviour. See the module documentation.
///
/// Only `class_name` is required; every other method has Click's default.
pub trait Element: AsAny + Send {
    /// The class name users write (`Counter`).
    fn class_name(&self) -> &'static str;

    /// Port-count spec (`1/1`, `1/-`, `-/=`); see [`crate::spec`].
    fn port_count(&self) -> &'static str {
        "1/1"
    }

    /// Processing spec (`a/a`, `h/l`, ...); see [`crate::spec`].
    fn processing(&self) -> &'static str {
        crate::spec::common::AGNOSTIC
    }

    /// Flow code; see [`crate::spec`].
    fn flow_code(&self) -> &'static str {
        crate::spec::common::COMPLETE_FLOW
    }

    /// When to configure this element relative to the others ([`phase`]).
    fn configure_phase(&self) -> i32 {
        phase::DEFAULT
    }

    /// Parses the configuration arguments. Must change nothing on error.
    /// The default accepts no arguments.
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let _ = cx;
        Args::new(conf).complete().map_err(|e| e.to_string())
    }

    /// Whether writing the `config` handler may reconfigure this element
    /// while it runs.
    fn can_live_reconfigure(&self) -> bool {
        false
    }

    /// Called for a handler write that changes configuration
    /// ([`HandlerDef::reconfigure`]); the default calls `configure`.
    fn live_reconfigure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.configure(conf, cx)
    }

    /// Called right after a successful [`Element::live_reconfigure`] (a
    /// reconfiguring handler or a `config` write), with the run-time
    /// context, so the element can wake notifiers or schedule tasks the new
    /// configuration affects (a Queue whose capacity grew wakes its pushers).
    fn reconfigured(&mut self, cx: &mut Ctx) {
        let _ = cx;
    }

    /// Sets up tasks, timers and neighbour lookups after every element is
    /// configured.
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let _ = cx;
        Ok(())
    }

    /// Called when the router is torn down.
    fn cleanup(&mut self, cx: &mut Ctx) {
        let _ = cx;
    }

    /// A batch arrives on push input `port`. The default applies
    /// `simple_action` to each packet and pushes the survivors to output 0.
    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let _ = port;
        let mut batch = batch;
        batch.filter_map_in_place(|p| self.simple_action(p, cx));
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }

    /// The element is asked for up to `max` packets on pull output `port`.
    /// The default pulls from input 0 and applies `simple_action`.
    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let _ = port;
        let mut batch = cx.pull(0, max);
        batch.filter_map_in_place(|p| self.simple_action(p, cx));
        batch
    }

    /// Per-packet processing for elements written one packet at a time:
    /// return the packet to pass it on, `None` when it was dropped or
    /// pushed elsewhere.
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let _ = cx;
        Some(p)
    }

    /// Whether this element, as configured, is Click's "simple" kind:
    /// pushing it a batch of one packet does exactly what calling
    /// [`simple_action`](Element::simple_action) on that packet and pushing
    /// what it returns out of output 0 does (packets for other outputs, or
    /// extra ones, `simple_action` pushes itself). The router then runs a
    /// one-packet batch along a chain of such elements with one call per
    /// element instead of one nested push per element (fusion, as the
    /// Click paper's combined elements), with the same counts, handlers and
    /// drops. Asked once, when the router is built. Default: `false`.
    fn is_simple(&self) -> bool {
        false
    }

    /// Runs task `task`. Return whether it did useful work. A task runs once
    /// each time it is scheduled: call `cx.reschedule()` to run again.
    fn run_task(&mut self, task: TaskId, cx: &mut Ctx) -> bool {
        let _ = (task, cx);
        false
    }

    /// Runs task `task` as up to `runs` consecutive runs, in one call;
    /// returns how many runs it did (at least 1, at most `runs`).
    ///
    /// The scheduler offers `runs > 1` only when Click's driver would run
    /// this task that many times in a row (it stays first in the stride
    /// order, no timer is due in between) and every element its push
    /// outputs reach says [`batch_transparent`](Element::batch_transparent):
    /// then pushing the packets of `runs` runs as one batch is
    /// indistinguishable from pushing them run by run. Sources override
    /// this to make one batch; the default does one
    /// [`run_task`](Element::run_task).
    fn run_task_runs(&mut self, task: TaskId, runs: u32, cx: &mut Ctx) -> u32 {
        let _ = runs;
        self.run_task(task, cx);
        1
    }

    /// Whether this element, as configured now, treats a pushed batch
    /// exactly as the same packets pushed one at a time, with nothing
    /// another element or the user could observe in between: no task
    /// woken, no handler called, no text printed, no shared random
    /// numbers drawn, no state other elements read. Lets the scheduler
    /// coalesce a source's runs ([`run_task_runs`](Element::run_task_runs)).
    /// Asked again after every handler write. Default: `false`.
    fn batch_transparent(&self) -> bool {
        false
    }

    /// Timer `timer` fired.
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        let _ = (timer, cx);
    }

    /// The handlers this element adds to the standard ones.
    fn handlers(&self) -> Vec<HandlerDef> {
        Vec::new()
    }

    /// Reads handler `id` (with `param` for `read_param` handlers).
    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        let _ = (id, param, cx);
        Err("handler not readable".into())
    }

    /// Writes handler `id`. Must change nothing on error.
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let _ = (id, value, cx);
        Err("handler not writable".into())
    }

    /// A call to handler `name`, which this element does not define, when
    /// it offers a handler named `*` (Script TYPE PROXY answers every
    /// handler name). `value` is `Some` for a write, `param` is a read's
    /// parameter. `None` means "no such handler".
    fn proxy_handler(
        &mut self,
        name: &str,
        value: Option<&str>,
        param: &str,
        cx: &mut Ctx,
    ) -> Option<Result<String, String>> {
        let _ = (name, value, param, cx);
        None
    }

    /// The notifier that says when this element has packets to pull
    /// (Queue's "nonempty" signal), for pullers downstream to sleep on.
    fn empty_notifier(&self) -> Option<Notifier> {
        None
    }

    /// The notifier that says when this element has room (a queue's
    /// "nonfull" signal), for pushers upstream to sleep on.
    fn full_notifier(&self) -> Option<Notifier> {
        None
    }

    /// Whether upstream searches for notifiers may pass through this
    /// element (elements that keep no packets, like PullNull or schedulers).
    fn notifier_passthrough(&self) -> bool {
        true
    }

    /// The router's run count fell to zero (a source said STOP). Return
    /// `true` when this element took charge of the stop event and reset the
    /// run count (DriverManager, Script TYPE DRIVER).
    fn handle_stop(&mut self, cx: &mut Ctx) -> bool {
        let _ = cx;
        false
    }

    /// Hot swap: take state (queued packets, tables) from the element of
    /// the same name in the configuration being replaced.
    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let _ = (old, cx);
    }

    /// Ports that several threads may call at once, without taking the
    /// element: a queue between threads (ThreadSafeQueue) answers pushes
    /// on one thread and pulls on another through these. When this
    /// returns `Some`, every push to and pull from this element goes to
    /// the returned object (asked once, when the router is built); tasks,
    /// timers and handlers still take the element itself, one caller at a
    /// time. The element typically keeps an `Arc` of the same object to
    /// read its state in handlers.
    fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
        None
    }

    /// Click's low-level RPC: `command` is a portable LLRPC number (see
    /// [`crate::router::llrpc`]), `data` its flat argument buffer, read
    /// and/or overwritten in place (integers in host byte order). Errors
    /// are negative-free errno values; the default knows no LLRPC
    /// (`EINVAL`).
    fn llrpc(&mut self, command: u32, data: &mut [u8], cx: &mut Ctx) -> Result<(), i32> {
        let _ = (command, data, cx);
        Err(crate::router::llrpc::EINVAL)
    }
}

/// The thread-safe ports of an element ([`Element::concurrent_ports`]):
/// called through `&self`, by any number of threads at once. `cx` is the
/// calling thread's context with the element as its current element
/// (`cx.push` leaves by the element's outputs).
pub trait ConcurrentPorts: Send + Sync {
    /// A batch arrives on push input `port`. The default drops it.
    fn push(&self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let _ = (port, batch, cx);
    }

    /// Up to `max` packets are asked for on pull output `port`. The
    /// default has none.
    fn pull(&self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let _ = (port, max, cx);
        PacketBatch::new()
    }

    /// Whether the element's tasks run here too ([`ConcurrentPorts::run_task`]),
    /// without taking the element, when they are spread over several
    /// threads: each thread then runs its own task at the same time as the
    /// others run theirs (FromDevice's FANOUT: one receive socket and task
    /// per thread). Asked once, when the router is built. Default false:
    /// tasks take the element, one at a time.
    fn runs_tasks(&self) -> bool {
        false
    }

    /// Runs task `task` (see [`ConcurrentPorts::runs_tasks`]); as
    /// [`Element::run_task`]. Only while the element is shared between
    /// threads; while one thread owns it, `Element::run_task` is called.
    fn run_task(&self, task: TaskId, cx: &mut Ctx) -> bool {
        let _ = (task, cx);
        false
    }
}

impl dyn Element {
    /// Downcasts to a concrete element type.
    pub fn downcast_ref<T: Element>(&self) -> Option<&T> {
        self.as_any().downcast_ref::<T>()
    }
    /// Downcasts to a concrete element type, mutably.
    pub fn downcast_mut<T: Element>(&mut self) -> Option<&mut T> {
        self.as_any_mut().downcast_mut::<T>()
    }
}
