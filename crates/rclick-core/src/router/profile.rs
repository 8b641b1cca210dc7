//! Per-element costs: the time each element spends per packet, as in Table
//! II of the Click paper.
//!
//! Off by default. Off, the push and pull paths in [`super::ctx`] pay one
//! predictable branch on a flag ([`Profile::on`]); on, every push, pull,
//! task run and timer run is timed with the processor's time-stamp counter
//! (x86-64; a monotonic clock elsewhere). Each call is a *frame*: its
//! inclusive time, minus the inclusive time of the frames it called (kept
//! in a per-thread accumulator, so the call stack itself is the stack of
//! start times), is the element's *self* time. The timing code's own cost,
//! measured when profiling is switched on, is taken back out of both the
//! caller's and the callee's self time.
//!
//! Packets are counted per element as the packets that came in (pushed to
//! it, or pulled by it), or, for an element nothing comes into (a source),
//! the packets that went out.
//!
//! The global handler `profile` (read/write, boolean) switches profiling;
//! switching it on clears the counters. `element_costs` reads the table and
//! `ELEMENT.cost` one element's line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::slot::cycle_counter;
use super::ElementInfo;

/// One element's counters.
#[derive(Debug, Default)]
pub(crate) struct ElementCost {
    calls: AtomicU64,
    packets_in: AtomicU64,
    packets_out: AtomicU64,
    /// Inclusive ticks.
    incl: AtomicU64,
    /// Inclusive ticks minus the inclusive ticks of the frames it called.
    self_ticks: AtomicU64,
    /// Frames it called (each left some timing overhead in its self time).
    child_calls: AtomicU64,
}

impl ElementCost {
    fn clear(&self) {
        for c in [
            &self.calls,
            &self.packets_in,
            &self.packets_out,
            &self.incl,
            &self.self_ticks,
            &self.child_calls,
        ] {
            c.store(0, Ordering::Relaxed);
        }
    }
}

/// When profiling was switched on and off: time-stamp counter and clock.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: (u64, Instant),
    stop: Option<(u64, Instant)>,
    /// Ticks of timing overhead one frame leaves in its caller's self time,
    /// and in its own.
    overhead_caller: f64,
    overhead_self: f64,
}

/// The router's profile: a switch and a counter set per element.
#[derive(Debug)]
pub(crate) struct Profile {
    on: AtomicBool,
    elements: Vec<ElementCost>,
    /// Inclusive ticks of frames called by no other frame (tasks, timers,
    /// handler calls): what the elements took of the whole.
    roots: AtomicU64,
    span: Mutex<Option<Span>>,
}

/// A frame's start, returned by [`ThreadProfile::enter`].
pub(crate) struct Frame {
    start: u64,
    saved_child: u64,
    saved_child_calls: u64,
    saved_moved: (u64, u64),
}

/// One thread's share of the profile: the ticks and calls of the frames
/// called by the frame now running, and the packets it moved.
#[derive(Debug, Default)]
pub(crate) struct ThreadProfile {
    child: u64,
    child_calls: u64,
    depth: u32,
    /// Packets the running frame pulled in and pushed out.
    moved_in: u64,
    moved_out: u64,
}

impl ThreadProfile {
    /// Starts a frame.
    #[inline]
    pub(crate) fn enter(&mut self) -> Frame {
        let f = Frame {
            start: 0,
            saved_child: std::mem::take(&mut self.child),
            saved_child_calls: std::mem::take(&mut self.child_calls),
            saved_moved: (
                std::mem::take(&mut self.moved_in),
                std::mem::take(&mut self.moved_out),
            ),
        };
        self.depth += 1;
        Frame {
            start: cycle_counter(),
            ..f
        }
    }

    /// Ends a frame of element `e` that took `packets_in` packets in (a
    /// push) or gave `packets_out` out (a pull), and counts what it moved
    /// itself.
    #[inline]
    pub(crate) fn leave(
        &mut self,
        p: &Profile,
        e: usize,
        f: Frame,
        packets_in: u64,
        packets_out: u64,
    ) {
        let incl = cycle_counter().wrapping_sub(f.start);
        let c = &p.elements[e];
        c.calls.fetch_add(1, Ordering::Relaxed);
        c.incl.fetch_add(incl, Ordering::Relaxed);
        c.self_ticks
            .fetch_add(incl.saturating_sub(self.child), Ordering::Relaxed);
        c.child_calls.fetch_add(self.child_calls, Ordering::Relaxed);
        c.packets_in
            .fetch_add(packets_in + self.moved_in, Ordering::Relaxed);
        c.packets_out
            .fetch_add(packets_out + self.moved_out, Ordering::Relaxed);
        self.depth -= 1;
        if self.depth == 0 {
            p.roots.fetch_add(incl, Ordering::Relaxed);
        }
        self.child = f.saved_child + incl;
        self.child_calls = f.saved_child_calls + 1;
        (self.moved_in, self.moved_out) = f.saved_moved;
    }

    /// The running frame pushed `n` packets out.
    #[inline]
    pub(crate) fn pushed(&mut self, n: usize) {
        self.moved_out += n as u64;
    }

    /// The running frame pulled `n` packets in.
    #[inline]
    pub(crate) fn pulled(&mut self, n: usize) {
        self.moved_in += n as u64;
    }
}

/// One element's costs, in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementCosts {
    /// The element's name.
    pub name: String,
    /// Its class.
    pub class: String,
    /// Calls (pushes into it, pulls from it, task and timer runs).
    pub calls: u64,
    /// Packets in (or out, for an element nothing enters).
    pub packets: u64,
    /// Time spent in the element itself.
    pub self_ns: f64,
    /// Time spent in it and in what it called.
    pub inclusive_ns: f64,
    /// Self time in time-stamp counter ticks (the processor's cycles at its
    /// nominal frequency on x86-64); `None` without such a counter.
    pub self_cycles: Option<f64>,
}

impl ElementCosts {
    /// Self time per packet.
    pub fn ns_per_packet(&self) -> f64 {
        if self.packets == 0 {
            0.0
        } else {
            self.self_ns / self.packets as f64
        }
    }
}

/// The whole profile, in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct CostReport {
    /// Elements that ran, in configuration order.
    pub elements: Vec<ElementCosts>,
    /// Time profiled (switched on to off, or to now).
    pub total_ns: f64,
    /// Of which outside every element (the scheduler, idle time).
    pub outside_ns: f64,
    /// Timing overhead taken out per call, ns.
    pub overhead_ns: f64,
}

impl Profile {
    pub(crate) fn new(nelements: usize) -> Profile {
        Profile {
            on: AtomicBool::new(false),
            elements: (0..nelements).map(|_| ElementCost::default()).collect(),
            roots: AtomicU64::new(0),
            span: Mutex::new(None),
        }
    }

    /// Whether profiling is on: the one test on the hot path.
    #[inline(always)]
    pub(crate) fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Switches profiling on (clearing the counters) or off.
    pub(crate) fn set(&self, on: bool) {
        let mut span = self.span.lock().unwrap_or_else(|p| p.into_inner());
        if on == self.on() {
            return;
        }
        if on {
            for c in &self.elements {
                c.clear();
            }
            self.roots.store(0, Ordering::Relaxed);
            let (overhead_caller, overhead_self) = calibrate();
            *span = Some(Span {
                start: (cycle_counter(), Instant::now()),
                stop: None,
                overhead_caller,
                overhead_self,
            });
            self.on.store(true, Ordering::Release);
        } else {
            self.on.store(false, Ordering::Release);
            if let Some(s) = span.as_mut() {
                s.stop = Some((cycle_counter(), Instant::now()));
            }
        }
    }

    /// The costs so far; `None` if profiling was never switched on.
    pub(crate) fn report(&self, info: &[ElementInfo]) -> Option<CostReport> {
        let span = (*self.span.lock().unwrap_or_else(|p| p.into_inner()))?;
        let (t1, i1) = span
            .stop
            .unwrap_or_else(|| (cycle_counter(), Instant::now()));
        let (t0, i0) = span.start;
        let total_ns = i1.duration_since(i0).as_secs_f64() * 1e9;
        let ticks = t1.wrapping_sub(t0) as f64;
        let ns_per_tick = if ticks > 0.0 { total_ns / ticks } else { 1.0 };
        let has_cycles = cfg!(target_arch = "x86_64");
        let mut elements = Vec::new();
        for (e, c) in self.elements.iter().enumerate() {
            let calls = c.calls.load(Ordering::Relaxed);
            if calls == 0 {
                continue;
            }
            let (pin, pout) = (
                c.packets_in.load(Ordering::Relaxed),
                c.packets_out.load(Ordering::Relaxed),
            );
            let raw_self = c.self_ticks.load(Ordering::Relaxed) as f64;
            let overhead = c.child_calls.load(Ordering::Relaxed) as f64 * span.overhead_caller
                + calls as f64 * span.overhead_self;
            let self_ticks = (raw_self - overhead).max(0.0);
            elements.push(ElementCosts {
                name: info[e].name.clone(),
                class: info[e].class.clone(),
                calls,
                packets: if pin > 0 { pin } else { pout },
                self_ns: self_ticks * ns_per_tick,
                inclusive_ns: c.incl.load(Ordering::Relaxed) as f64 * ns_per_tick,
                self_cycles: has_cycles.then_some(self_ticks),
            });
        }
        let roots = self.roots.load(Ordering::Relaxed) as f64 * ns_per_tick;
        Some(CostReport {
            elements,
            total_ns,
            outside_ns: (total_ns - roots).max(0.0),
            overhead_ns: (span.overhead_caller + span.overhead_self) * ns_per_tick,
        })
    }
}

/// Measures the timing overhead: empty frames nested in an outer one. The
/// outer frame's self time per inner frame is what each frame costs its
/// caller; an inner frame's own time is what it costs itself.
fn calibrate() -> (f64, f64) {
    const K: u64 = 2000;
    let p = Profile::new(2);
    let mut tp = ThreadProfile::default();
    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        p.elements[0].clear();
        p.elements[1].clear();
        let outer = tp.enter();
        for _ in 0..K {
            let f = tp.enter();
            tp.leave(&p, 1, std::hint::black_box(f), 0, 0);
        }
        tp.leave(&p, 0, outer, 0, 0);
        let caller = p.elements[0].self_ticks.load(Ordering::Relaxed) as f64 / K as f64;
        let own = p.elements[1].self_ticks.load(Ordering::Relaxed) as f64 / K as f64;
        best = (best.0.min(caller), best.1.min(own));
    }
    best
}

impl CostReport {
    /// Click's Table II layout: one line per element that ran, then the
    /// time outside elements and the total.
    pub fn table(&self) -> String {
        self.table_scaled(None)
    }

    /// The table, with one more column when the same work's time without
    /// profiling (`reference_ns`, say the run's CPU time) is known: each
    /// element's share of the profiled time (timing overhead taken out)
    /// applied to it. On a busy machine, the profiled times include the
    /// time the thread was preempted; the estimate spreads that out.
    pub fn table_scaled(&self, reference_ns: Option<f64>) -> String {
        let width = self
            .elements
            .iter()
            .map(|e| e.name.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let cwidth = self
            .elements
            .iter()
            .map(|e| e.class.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut s = format!(
            "{:<width$}  {:<cwidth$}  {:>10}  {:>10}  {:>9}  {:>13}  {:>7}",
            "element", "class", "packets", "calls", "ns/packet", "cycles/packet", "share %"
        );
        if reference_ns.is_some() {
            s.push_str("  est. ns/packet");
        }
        s.push('\n');
        let total = if self.total_ns > 0.0 {
            self.total_ns
        } else {
            1.0
        };
        let self_sum: f64 = self.elements.iter().map(|e| e.self_ns).sum();
        let measured = (self_sum + self.outside_ns).max(1.0);
        for e in &self.elements {
            let cycles = match e.self_cycles {
                Some(c) if e.packets > 0 => format!("{:.1}", c / e.packets as f64),
                _ => "-".to_string(),
            };
            s.push_str(&format!(
                "{:<width$}  {:<cwidth$}  {:>10}  {:>10}  {:>9.2}  {:>13}  {:>7.1}",
                e.name,
                e.class,
                e.packets,
                e.calls,
                e.ns_per_packet(),
                cycles,
                e.self_ns * 100.0 / total
            ));
            if let Some(r) = reference_ns {
                let est = if e.packets == 0 {
                    0.0
                } else {
                    e.self_ns / measured * r / e.packets as f64
                };
                s.push_str(&format!("  {est:>14.2}"));
            }
            s.push('\n');
        }
        let overhead = (self.total_ns - self.outside_ns - self_sum).max(0.0);
        s.push_str(&format!(
            "outside elements (scheduler, idle): {:.1} % of {:.3} ms profiled; timing overhead removed: {:.1} ns per call ({:.1} % of the time)\n",
            self.outside_ns * 100.0 / total,
            self.total_ns / 1e6,
            self.overhead_ns,
            overhead * 100.0 / total
        ));
        if let Some(r) = reference_ns {
            s.push_str(&format!(
                "est. ns/packet: the element's share of the time measured (outside elements: {:.1} %) applied to {:.3} ms, the same work's time unprofiled\n",
                self.outside_ns * 100.0 / measured,
                r / 1e6
            ));
        }
        s
    }

    /// One element's line, for `ELEMENT.cost`.
    pub fn element_text(&self, name: &str) -> String {
        match self.elements.iter().find(|e| e.name == name) {
            None => "packets 0\ncalls 0".to_string(),
            Some(e) => {
                let mut s = format!(
                    "packets {}\ncalls {}\nself_ns {:.0}\ninclusive_ns {:.0}\nns_per_packet {:.2}",
                    e.packets,
                    e.calls,
                    e.self_ns,
                    e.inclusive_ns,
                    e.ns_per_packet()
                );
                if let (Some(c), true) = (e.self_cycles, e.packets > 0) {
                    s.push_str(&format!("\ncycles_per_packet {:.1}", c / e.packets as f64));
                }
                s
            }
        }
    }
}

/// What the cost handlers say before profiling was ever on.
pub(crate) const OFF_TEXT: &str =
    "profiling is off (write true to the 'profile' handler, or run with --profile)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_self_from_inclusive_time() {
        let p = Profile::new(2);
        p.set(true);
        let mut tp = ThreadProfile::default();
        let outer = tp.enter();
        tp.pushed(3);
        let inner = tp.enter();
        std::hint::black_box((0..1000).sum::<u64>());
        tp.leave(&p, 1, inner, 3, 0);
        tp.leave(&p, 0, outer, 0, 0);
        assert_eq!(p.elements[0].calls.load(Ordering::Relaxed), 1);
        assert_eq!(p.elements[0].child_calls.load(Ordering::Relaxed), 1);
        assert_eq!(p.elements[0].packets_out.load(Ordering::Relaxed), 3);
        assert_eq!(p.elements[1].packets_in.load(Ordering::Relaxed), 3);
        let incl0 = p.elements[0].incl.load(Ordering::Relaxed);
        let self0 = p.elements[0].self_ticks.load(Ordering::Relaxed);
        let incl1 = p.elements[1].incl.load(Ordering::Relaxed);
        assert_eq!(self0, incl0 - incl1);
        assert_eq!(p.roots.load(Ordering::Relaxed), incl0);
        assert_eq!(tp.depth, 0);
    }

    #[test]
    fn switching_on_clears() {
        let p = Profile::new(1);
        assert!(!p.on());
        p.set(true);
        p.elements[0].calls.store(5, Ordering::Relaxed);
        p.set(false);
        p.set(true);
        assert_eq!(p.elements[0].calls.load(Ordering::Relaxed), 0);
    }
}
