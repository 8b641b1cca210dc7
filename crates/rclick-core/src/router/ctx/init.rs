//! [`InitCx`]: what an element sees while it is initialized (tasks,
//! timers, notifiers, file descriptors, the elements around it).

use super::configure::find_relative;
use crate::element::{Element, TaskId, TimerId};
use crate::notifier::NotifierSignal;
use crate::router::build::Builder;
use crate::router::{ElementId, ElementInfo, TaskInfo, TimerInfo};
use crate::spec::Processing;
use rclick_packet::Timestamp;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// What an element sees while it initializes: it may create tasks and
/// timers and look at its neighbours.
pub struct InitCx<'a> {
    id: ElementId,
    b: &'a mut Builder,
}

impl<'a> InitCx<'a> {
    pub(crate) fn new(id: ElementId, b: &'a mut Builder) -> InitCx<'a> {
        InitCx { id, b }
    }

    /// This element's index.
    pub fn id(&self) -> ElementId {
        self.id
    }
    /// This element's name.
    pub fn name(&self) -> &str {
        &self.b.info[self.id].name
    }
    /// Number of inputs.
    pub fn ninputs(&self) -> usize {
        self.b.info[self.id].inputs.len()
    }
    /// Number of outputs.
    pub fn noutputs(&self) -> usize {
        self.b.info[self.id].outputs.len()
    }
    /// Whether input `port` is push.
    pub fn input_is_push(&self, port: usize) -> bool {
        self.b.info[self.id].inputs.get(port) == Some(&Processing::Push)
    }
    /// Whether output `port` is push.
    pub fn output_is_push(&self, port: usize) -> bool {
        self.b.info[self.id].outputs.get(port) == Some(&Processing::Push)
    }
    /// The current time.
    pub fn now(&self) -> Timestamp {
        self.b.clock.now()
    }
    /// Finds another element by name (relative to this element's compound).
    pub fn find(&self, name: &str) -> Option<ElementId> {
        find_relative(&self.b.info, self.id, name)
    }
    /// Static facts about element `e`.
    pub fn element_info(&self, e: ElementId) -> &ElementInfo {
        &self.b.info[e]
    }
    /// Number of elements.
    pub fn nelements(&self) -> usize {
        self.b.info.len()
    }
    /// Number of router threads (`-j`).
    pub fn nthreads(&self) -> usize {
        self.b.nthreads
    }
    /// Runs `f` on another element (not this one: `None` for it).
    pub fn with_element<R>(
        &mut self,
        e: ElementId,
        f: impl FnOnce(&mut dyn Element) -> R,
    ) -> Option<R> {
        self.b.elements.get_mut(e)?.as_mut().map(|el| f(&mut **el))
    }
    /// Looks up a name defined by an element (AddressInfo).
    pub fn lookup_name(&self, kind: &str, name: &str) -> Option<&str> {
        self.b.names.lookup(kind, name)
    }

    /// Creates a task for this element, scheduled at start when `scheduled`.
    pub fn new_task(&mut self, scheduled: bool) -> TaskId {
        if let Some(l) = &mut self.b.lend {
            // An element made at run time: one of the lent tasks.
            return match l.tasks.pop() {
                Some(t) => {
                    l.took_tasks.push((t, scheduled));
                    t
                }
                None => {
                    l.short = true;
                    TaskId(u32::MAX)
                }
            };
        }
        let id = self.b.tasks.len() as u32;
        self.b.tasks.push(TaskInfo {
            element: self.id,
            tickets: AtomicU32::new(crate::router::sched::DEFAULT_TICKETS),
            scheduled: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            pass: AtomicU64::new(0),
            thread: AtomicUsize::new(0),
            stride: AtomicU64::new(crate::router::sched::stride_of(
                crate::router::sched::DEFAULT_TICKETS,
            )),
            runs: AtomicU64::new(0),
            cycles: AtomicU64::new(0),
            coalesce: AtomicU64::new(0),
        });
        if scheduled {
            self.b.tasks[id as usize]
                .scheduled
                .store(true, Ordering::Relaxed);
        }
        self.b.element_tasks[self.id].push(id);
        TaskId(id)
    }

    /// Creates a timer for this element.
    pub fn new_timer(&mut self) -> TimerId {
        if let Some(l) = &mut self.b.lend {
            return match l.timers.pop() {
                Some(t) => {
                    l.took_timers.push((t, i64::MIN));
                    t
                }
                None => {
                    l.short = true;
                    TimerId(u32::MAX)
                }
            };
        }
        let id = self.b.timers.len() as u32;
        self.b.timers.push(TimerInfo {
            element: self.id,
            expiry: AtomicI64::new(i64::MIN),
            generation: AtomicU64::new(0),
            thread: AtomicUsize::new(0),
        });
        TimerId(id)
    }

    /// Schedules timer `t` to fire at `when` once the router runs.
    pub fn schedule_timer_at(&mut self, t: TimerId, when: Timestamp) {
        if let Some(l) = &mut self.b.lend {
            if let Some(x) = l.took_timers.iter_mut().find(|x| x.0 == t) {
                x.1 = when.as_nsec();
            }
            return;
        }
        if let Some(ti) = self.b.timers.get(t.0 as usize) {
            ti.expiry.store(when.as_nsec(), Ordering::Relaxed);
        }
    }

    /// Schedules timer `t` to fire `after` from now.
    pub fn schedule_timer_after(&mut self, t: TimerId, after: Timestamp) {
        let now = self.b.clock.now();
        self.schedule_timer_at(t, now + after);
    }

    /// Changes the router's initial run count (Click's `adjust_runcount`
    /// during initialization: a driver Script lowers it so that it is asked
    /// to step as soon as the router starts).
    pub fn adjust_runcount(&mut self, delta: i32) {
        self.b.runcount_delta = self.b.runcount_delta.saturating_add(delta);
    }

    /// Reports a warning with the element's context
    /// (`file:line: While initializing 'x :: C':` / `  warning: ...`).
    pub fn warning(&mut self, msg: impl std::fmt::Display) {
        let lm = self.b.info[self.id].landmark.clone();
        let decl = self.b.info[self.id].declaration();
        let lines = vec![
            format!("{lm}: While initializing '{decl}':"),
            format!("  warning: {msg}"),
        ];
        self.b.emit(lines);
    }

    /// Prints a line to the router's log (standard error) while
    /// initializing, as Click's `click_chatter`.
    pub fn log(&mut self, line: impl Into<String>) {
        self.b.emit(vec![line.into()]);
    }

    /// Schedules task `t` whenever descriptor `fd` is ready for `what`
    /// (Click's `add_select`), from when the router runs. The element must
    /// keep the descriptor open while it is watched; closing it stops the
    /// watch. The task then reads or writes until the descriptor would
    /// block, and need not reschedule itself meanwhile: an idle thread
    /// waits on its descriptors instead of polling.
    pub fn add_select(
        &mut self,
        fd: impl std::os::fd::AsRawFd,
        what: crate::router::Select,
        t: TaskId,
    ) {
        self.b.selects.push((fd.as_raw_fd(), what, t.0));
    }

    /// Runs task `t` on thread `thread` (below [`InitCx::nthreads`]),
    /// whatever this element's home thread: an element may spread its
    /// tasks over threads (FromDevice's FANOUT, one receive socket per
    /// thread). Its descriptors ([`InitCx::add_select`]) are then watched
    /// by that thread.
    pub fn set_task_thread(&mut self, t: TaskId, thread: usize) {
        self.b.task_threads.push((t.0, thread));
    }

    /// Schedules task `t` whenever an external event is raised
    /// ([`crate::router::external::raise`], from a signal handler).
    pub fn wake_on_external_event(&mut self, t: TaskId) {
        self.b.external_tasks.push(t.0);
    }

    /// During a hot swap, the element of the router being replaced that
    /// has this element's name and class: its configuration string.
    pub fn hotswap_element(&self) -> Option<String> {
        let old = self.b.hotswap_from.as_ref()?;
        let me = &self.b.info[self.id];
        let e = old.inner.find(&me.name)?;
        if old.inner.info[e].class != me.class {
            return None;
        }
        Some(
            old.inner.configs[e]
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        )
    }

    /// Asks to be told when the router's run count reaches zero
    /// ([`Element::handle_stop`]).
    pub fn register_stop_handler(&mut self) {
        self.b.stop_handlers.push(self.id);
    }

    /// Sets the thread on which element `e`'s tasks run (StaticThreadSched).
    pub fn set_home_thread(&mut self, e: ElementId, thread: usize) {
        self.set_home_thread_ranked(e, thread, usize::MAX);
    }

    /// Same, but an earlier assignment with a higher `rank` wins (a
    /// StaticThreadSched naming an element beats one naming its compound).
    pub fn set_home_thread_ranked(&mut self, e: ElementId, thread: usize, rank: usize) {
        let entry = self.b.home_thread.entry(e).or_insert((thread, rank));
        if rank >= entry.1 {
            *entry = (thread, rank);
        }
    }

    /// Sets the tickets of element `e`'s tasks (ScheduleInfo).
    pub fn set_tickets(&mut self, e: ElementId, tickets: u32) {
        self.b
            .tickets
            .insert(e, tickets.clamp(1, crate::router::sched::MAX_TICKETS));
    }

    /// Elements reachable downstream from output `port` (all outputs when
    /// `None`), following connections and flow codes, not passing through
    /// elements for which `stop` is true (those are included).
    pub fn downstream_elements(
        &mut self,
        port: Option<usize>,
        stop: &mut dyn FnMut(&dyn Element) -> bool,
    ) -> Vec<ElementId> {
        self.flow_search(true, port, stop)
    }

    /// The same, upstream from input `port`.
    pub fn upstream_elements(
        &mut self,
        port: Option<usize>,
        stop: &mut dyn FnMut(&dyn Element) -> bool,
    ) -> Vec<ElementId> {
        self.flow_search(false, port, stop)
    }

    fn flow_search(
        &mut self,
        forward: bool,
        port: Option<usize>,
        stop: &mut dyn FnMut(&dyn Element) -> bool,
    ) -> Vec<ElementId> {
        let index = self.b.conn_index();
        let info = &self.b.info;
        let conns = &self.b.connections;
        // Ports to expand: (element, port) on the "from" side.
        let nports = |e: ElementId| {
            if forward {
                info[e].outputs.len()
            } else {
                info[e].inputs.len()
            }
        };
        let mut frontier: Vec<(ElementId, usize)> = match port {
            Some(p) => vec![(self.id, p)],
            None => (0..nports(self.id)).map(|p| (self.id, p)).collect(),
        };
        let mut seen_ports: HashSet<(ElementId, usize)> = HashSet::new();
        let mut found: Vec<ElementId> = Vec::new();
        let mut found_set: HashSet<ElementId> = HashSet::new();
        while let Some((e, p)) = frontier.pop() {
            let mine = if forward {
                &index.from[e]
            } else {
                &index.to[e]
            };
            for c in mine.iter().map(|&k| &conns[k]) {
                let (from, fp, to, tp) = if forward {
                    (c.from, c.from_port, c.to, c.to_port)
                } else {
                    (c.to, c.to_port, c.from, c.from_port)
                };
                if from != e || fp != p || !seen_ports.insert((to, tp)) {
                    continue;
                }
                if found_set.insert(to) {
                    found.push(to);
                }
                let stops = match self.b.elements[to].as_ref() {
                    Some(el) => stop(&**el),
                    None => false,
                };
                if stops {
                    continue;
                }
                let fc = &info[to].flow_code;
                for q in 0..nports(to) {
                    let flows = if forward {
                        fc.flows(tp, q)
                    } else {
                        fc.flows(q, tp)
                    };
                    if flows {
                        frontier.push((to, q));
                    }
                }
            }
        }
        found.sort_unstable();
        found
    }

    /// The combined "has packets" signal of what is upstream of pull input
    /// `port`, and registers `listener` to be woken when it turns active.
    pub fn upstream_empty_signal(
        &mut self,
        port: usize,
        listener: Option<TaskId>,
    ) -> NotifierSignal {
        self.notifier_search(false, port, listener)
    }

    /// The combined "has room" signal of what is downstream of push output
    /// `port`, and registers `listener` to be woken when it turns active.
    pub fn downstream_full_signal(
        &mut self,
        port: usize,
        listener: Option<TaskId>,
    ) -> NotifierSignal {
        self.notifier_search(true, port, listener)
    }

    fn notifier_search(
        &mut self,
        forward: bool,
        port: usize,
        listener: Option<TaskId>,
    ) -> NotifierSignal {
        let mut signal = NotifierSignal::Idle;
        let mut any = false;
        let mut frontier = vec![(self.id, port)];
        let mut seen: HashSet<(ElementId, usize)> = HashSet::new();
        let want = if forward {
            Processing::Push
        } else {
            Processing::Pull
        };
        let index = self.b.conn_index();
        while let Some((e, p)) = frontier.pop() {
            let mine = if forward {
                &index.from[e]
            } else {
                &index.to[e]
            };
            for c in mine.iter().map(|&k| &self.b.connections[k]) {
                let (from, fp, to, tp) = if forward {
                    (c.from, c.from_port, c.to, c.to_port)
                } else {
                    (c.to, c.to_port, c.from, c.from_port)
                };
                if from != e || fp != p || !seen.insert((to, tp)) {
                    continue;
                }
                any = true;
                let Some(el) = self.b.elements[to].as_ref() else {
                    signal = signal.combine(NotifierSignal::Busy);
                    continue;
                };
                let n = if forward {
                    el.full_notifier()
                } else {
                    el.empty_notifier()
                };
                if let Some(n) = n {
                    if let Some(t) = listener {
                        n.add_listener(t);
                    }
                    signal = signal.combine(NotifierSignal::Any(vec![n]));
                    continue;
                }
                if !el.notifier_passthrough() {
                    signal = signal.combine(NotifierSignal::Busy);
                    continue;
                }
                let info = &self.b.info[to];
                let mut next = 0;
                let count = if forward {
                    info.outputs.len()
                } else {
                    info.inputs.len()
                };
                for q in 0..count {
                    let proc_ok = if forward {
                        info.outputs[q] == want
                    } else {
                        info.inputs[q] == want
                    };
                    let flows = if forward {
                        info.flow_code.flows(tp, q)
                    } else {
                        info.flow_code.flows(q, tp)
                    };
                    if proc_ok && flows {
                        frontier.push((to, q));
                        next += 1;
                    }
                }
                if next == 0 {
                    signal = signal.combine(NotifierSignal::Busy);
                }
            }
        }
        if !any {
            return NotifierSignal::Busy;
        }
        signal
    }
}
