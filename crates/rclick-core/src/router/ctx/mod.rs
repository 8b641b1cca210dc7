//! The contexts elements see while being configured ([`ConfigureCx`],
//! `configure.rs`), initialized ([`InitCx`], `init.rs`) and run ([`Ctx`],
//! here: pushes, pulls, the hop between elements, and what an element may
//! ask of the router while it runs).
//!
//! Why this file is long: about 1,090 lines, all of them the run-time
//! context's one job; its tests are the router's and the element crates',
//! which need elements.

use std::sync::atomic::Ordering;

use rclick_packet::{Packet, PacketBatch, Timestamp};

use super::build::Builder;
use super::failure::InFlight;
use super::sched::ThreadSched;
use super::slot::{Slot, SlotBusy};
use super::{ElementId, ElementInfo, RouterInner, TaskInfo, TimerInfo};
use crate::args::ArgContext;
use crate::element::{Element, TaskId, TimerId};
use crate::notifier::Notifier;
use crate::spec::Processing;

mod configure;
mod init;

pub(crate) use configure::find_relative;
pub use configure::{ConfigureCx, Loan, NameTable};
pub use init::InitCx;

/// Re-entrant pushes kept waiting at most (beyond that they are dropped
/// and counted).
const MAX_DEFERRED_PUSHES: usize = 4096;

/// Pushes made too deep in the stack kept waiting at most (beyond that
/// they are dropped and counted).
const MAX_DEEP_PUSHES: usize = 1 << 16;

/// How deep this thread's stack is (see `slot::stack_pointer`).
#[inline(always)]
pub(crate) fn stack_address() -> usize {
    super::slot::stack_pointer()
}

/// The far end of one port: the element and port a push output leads to,
/// or a pull input comes from. Resolved when the router is built, so a hop
/// costs one load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Port {
    /// The element at the other end; `u32::MAX` when unconnected.
    pub to: u32,
    /// Its port.
    pub port: u32,
}

impl Port {
    /// An unconnected port.
    pub(crate) const NONE: Port = Port {
        to: u32::MAX,
        port: u32::MAX,
    };
}

/// Where a packet's walk along a fused chain ended.
enum Walk<'a> {
    /// Through every element: the last one, and the packet.
    Through(&'a Slot, Packet),
    /// An element dropped it or sent it elsewhere.
    Consumed,
    /// Stopped before an element it could not enter, after this one
    /// (`None`: the first).
    Blocked(Option<&'a Slot>, Packet),
}

/// `el.push(port, batch, cx)`, with the batch's packets noted should the
/// call panic (see `failure.rs`; nothing on the normal path but keeping
/// the count).
#[inline(always)]
fn call_push(el: &mut dyn Element, port: usize, batch: PacketBatch, cx: &mut Ctx) {
    let n = InFlight(batch.len());
    el.push(port, batch, cx);
    std::mem::forget(n);
}

/// `el.pull(port, max, cx)`: a panic in it lost no packet that was
/// handed to it (see [`call_push`]).
#[inline(always)]
fn call_pull(el: &mut dyn Element, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
    let none = InFlight(0);
    let b = el.pull(port, max, cx);
    std::mem::forget(none);
    b
}

/// What an element sees while it runs: its way to its neighbours, the
/// clock, its tasks and timers, and the router's handlers.
pub struct Ctx<'a> {
    pub(crate) rt: &'a RouterInner,
    pub(crate) sched: &'a mut ThreadSched,
    /// The current element (it knows its index and where its ports lead).
    slot: &'a Slot,
    /// `sched.stack_floor`, kept here so that [`Ctx::push`]'s depth check
    /// is one compare with a field of the context.
    stack_floor: usize,
}

impl Drop for Ctx<'_> {
    /// While a panic unwinds: the innermost context names the element it
    /// was calling (its current slot was set before the call and not put
    /// back), for [`ThreadSched::catch`]. One test per context, none per
    /// packet.
    #[inline(always)]
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.note_panic();
        }
    }
}

impl<'a> Ctx<'a> {
    #[cold]
    #[inline(never)]
    fn note_panic(&mut self) {
        if self.sched.panicked_in == u32::MAX {
            self.sched.panicked_in = self.slot.id;
        }
    }

    pub(crate) fn new(
        rt: &'a RouterInner,
        sched: &'a mut ThreadSched,
        current: ElementId,
    ) -> Ctx<'a> {
        let slot = rt.slots.get(current).unwrap_or(&rt.nowhere);
        Ctx::with_slot(rt, sched, slot)
    }

    /// A context whose current element is the one in `slot`.
    #[inline(always)]
    pub(crate) fn with_slot(
        rt: &'a RouterInner,
        sched: &'a mut ThreadSched,
        slot: &'a Slot,
    ) -> Ctx<'a> {
        let stack_floor = sched.stack_floor;
        Ctx {
            rt,
            sched,
            slot,
            stack_floor,
        }
    }

    /// The current element's index.
    #[inline(always)]
    pub(crate) fn cur(&self) -> ElementId {
        self.slot.id as usize
    }

    /// Makes `slot` the current element; returns what to restore.
    #[inline(always)]
    fn switch_to(&mut self, slot: &'a Slot) -> &'a Slot {
        std::mem::replace(&mut self.slot, slot)
    }

    #[inline(always)]
    fn restore(&mut self, saved: &'a Slot) {
        self.slot = saved;
    }

    /// Pushes `batch` out of output `port`.
    #[inline(always)]
    pub fn push(&mut self, port: usize, batch: PacketBatch) {
        if stack_address() < self.stack_floor {
            return self.push_deep(port, batch);
        }
        let rt = self.rt;
        let Some(&Port { to, port: to_port }) = rt.out_port(self.slot, port) else {
            return self.count_lost(batch.len());
        };
        let Some(slot) = rt.slots.get(to as usize) else {
            return self.count_lost(batch.len());
        };
        if slot.chain >= 2 {
            return self.push_chain(slot, to_port as usize, batch);
        }
        match slot.enter_port(self.sched.held_id, self.sched.tag) {
            Ok(mut g) => {
                let saved = self.switch_to(slot);
                // Profiling off: this one test is all it costs.
                if rt.profile.on() {
                    self.push_profiled(&mut **g, to_port as usize, batch);
                } else {
                    call_push(&mut **g, to_port as usize, batch, self);
                    self.deliver_deferred_pushes(&mut **g);
                }
                self.restore(saved);
            }
            Err(busy) => self.push_slow(to as usize, to_port as usize, batch, busy),
        }
    }

    /// A push into the first element of a fused chain of simple elements
    /// (see `Element::is_simple`). A batch of one packet (Click's BURST 1)
    /// goes through every element's `simple_action` in turn, one call each
    /// instead of one nested push each, and leaves by the last element's
    /// output 0; each element is entered for its one call, as a nested push
    /// would. A bigger batch takes the ordinary nested pushes: each
    /// element's own batch loop then costs less per packet than one call
    /// per packet per element. With profiling on, or when the first element
    /// is owned by another lock, this is an ordinary push; a packet that
    /// meets an element it cannot enter at once goes on by an ordinary push.
    #[inline(never)]
    fn push_chain(&mut self, first: &'a Slot, port: usize, mut batch: PacketBatch) {
        if batch.len() != 1 || self.rt.profile.on() || first.owner() != self.sched.held_id {
            return self.push_unfused(first, port, batch);
        }
        let saved = self.slot;
        if let Some(p) = batch.pop() {
            // (No `InFlight` here: its unwinding edge cost about 11
            // instructions per chain. A panic in a chain element is noted
            // with no count, which `ThreadSched::catch` reads as the one
            // packet a chain walk carries.)
            match self.walk_chain(first, p) {
                Walk::Through(last, q) => {
                    self.slot = last;
                    self.push(0, PacketBatch::from(q));
                }
                Walk::Consumed => {}
                Walk::Blocked(before, q) => self.push_blocked(first, port, before, q),
            }
        }
        self.slot = saved;
    }

    /// Takes packet `p` along the fused chain starting at `first`: each
    /// element is entered for its one `simple_action` call.
    #[inline(always)]
    fn walk_chain(&mut self, first: &'a Slot, mut p: Packet) -> Walk<'a> {
        let rt = self.rt;
        let (held, tag) = (self.sched.held_id, self.sched.tag);
        let mut s = first;
        let mut before: Option<&'a Slot> = None;
        let end = loop {
            self.slot = s;
            match s.call_owned(held, tag, p, |el, p| el.simple_action(p, self)) {
                Ok(Some(q)) => p = q,
                Ok(None) => break Walk::Consumed,
                Err(q) => break Walk::Blocked(before, q),
            }
            // The chain ends where `next` does (chains have no cycles).
            match rt.slots.get(s.next as usize) {
                Some(nx) => {
                    before = Some(s);
                    s = nx;
                }
                None => break Walk::Through(s, p),
            }
        };
        self.deliver_to_chain(first);
        end
    }

    /// A packet stopped in a fused chain before an element it could not
    /// enter (after `before`; `None`: the first): it goes on by an ordinary
    /// push.
    #[cold]
    #[inline(never)]
    fn push_blocked(&mut self, first: &'a Slot, port: usize, before: Option<&'a Slot>, p: Packet) {
        let saved = self.slot;
        match before {
            None => self.push_unfused(first, port, PacketBatch::from(p)),
            Some(b) => {
                self.slot = b;
                self.push_from_chain(b, PacketBatch::from(p));
            }
        }
        self.slot = saved;
    }

    /// Batches pushed back into elements of a fused chain while a packet
    /// went through it (each was busy for its call): delivered now.
    #[inline(always)]
    fn deliver_to_chain(&mut self, first: &'a Slot) {
        if !self.sched.deferred_pushes.is_empty() {
            self.deliver_to_chain_slow(first);
        }
    }

    #[cold]
    #[inline(never)]
    fn deliver_to_chain_slow(&mut self, first: &'a Slot) {
        let rt = self.rt;
        let mut s = first;
        loop {
            let id = s.id as usize;
            if self.sched.deferred_pushes.iter().any(|d| d.0 == id) {
                let _ = self.enter_and(id, true, |_, _| {});
            }
            match rt.slots.get(s.next as usize) {
                Some(n) => s = n,
                None => break,
            }
        }
    }

    /// Pushes `batch` out output 0 of `s` (a chain element whose successor
    /// could not be entered), with no fusion from there on.
    #[cold]
    #[inline(never)]
    fn push_from_chain(&mut self, s: &'a Slot, batch: PacketBatch) {
        let rt = self.rt;
        let Some(&Port { to, port }) = rt.out_port(s, 0) else {
            return self.count_lost(batch.len());
        };
        match rt.slots.get(to as usize) {
            Some(t) => self.push_unfused(t, port as usize, batch),
            None => self.count_lost(batch.len()),
        }
    }

    /// [`Ctx::push`] into `slot` without fusion.
    #[cold]
    #[inline(never)]
    fn push_unfused(&mut self, slot: &'a Slot, to_port: usize, batch: PacketBatch) {
        let rt = self.rt;
        match slot.enter_port(self.sched.held_id, self.sched.tag) {
            Ok(mut g) => {
                let saved = self.switch_to(slot);
                if rt.profile.on() {
                    self.push_profiled(&mut **g, to_port, batch);
                } else {
                    call_push(&mut **g, to_port, batch, self);
                    self.deliver_deferred_pushes(&mut **g);
                }
                self.restore(saved);
            }
            Err(busy) => self.push_slow(slot.id as usize, to_port, batch, busy),
        }
    }

    /// A push whose target could not be entered at once: it is running on
    /// this thread (deferred), has thread-safe ports, belongs to another
    /// thread lock, or is a shared element another thread is running.
    #[cold]
    #[inline(never)]
    fn push_slow(&mut self, to: usize, to_port: usize, batch: PacketBatch, busy: SlotBusy) {
        let mut batch = Some(batch);
        let busy = match busy {
            SlotBusy::Foreign(_) | SlotBusy::Contended => {
                match self.enter_and(to, true, |el, cx| {
                    if let Some(b) = batch.take() {
                        if cx.rt.profile.on() {
                            cx.push_profiled(el, to_port, b);
                        } else {
                            call_push(el, to_port, b, cx);
                        }
                    }
                }) {
                    Ok(()) => return,
                    Err(b) => b,
                }
            }
            b => b,
        };
        let Some(batch) = batch else { return };
        match busy {
            SlotBusy::Concurrent => {
                let rt = self.rt;
                let slot = &rt.slots[to];
                match rt.concurrent.get(to).and_then(Option::as_deref) {
                    Some(c) => {
                        let saved = self.switch_to(slot);
                        let n = InFlight(batch.len());
                        c.push(to_port, batch, self);
                        std::mem::forget(n);
                        self.restore(saved);
                    }
                    None => self.count_lost(batch.len()),
                }
            }
            SlotBusy::Failed => self.drop_at_failed(to, batch.len()),
            _ => self.defer_push(to, to_port as u32, batch),
        }
    }

    /// Runs `f` on element `e`, entered as the current element, whatever it
    /// takes: taking the thread lock that owns it (and giving back the one
    /// held, so that no two threads ever wait for each other's locks), or
    /// waiting for another thread to leave it. `ports` says the call is a
    /// push or pull (elements with thread-safe ports are not entered for
    /// those: `Err(Concurrent)`). `Err(Reentrant)` when it is running
    /// further up this thread's stack; `f` is then not called.
    pub(crate) fn enter_and<R>(
        &mut self,
        e: usize,
        ports: bool,
        f: impl FnOnce(&mut dyn Element, &mut Ctx<'a>) -> R,
    ) -> Result<R, SlotBusy> {
        let rt = self.rt;
        let Some(slot) = rt.slots.get(e) else {
            return Err(SlotBusy::Reentrant);
        };
        loop {
            let entered = if ports {
                slot.enter_port(self.sched.held_id, self.sched.tag)
            } else {
                slot.enter(self.sched.held_id, self.sched.tag)
            };
            match entered {
                Ok(mut g) => {
                    let saved = self.switch_to(slot);
                    let r = f(&mut **g, self);
                    self.deliver_deferred_pushes(&mut **g);
                    self.restore(saved);
                    return Ok(r);
                }
                Err(SlotBusy::Foreign(t)) if (t as usize) < rt.locks.len() => {
                    return self.visit(t, move |cx| cx.enter_and(e, ports, f));
                }
                Err(SlotBusy::Contended) => self.sched.pause(rt),
                Err(b) => return Err(b),
            }
        }
    }

    /// Runs `f` holding thread lock `t` instead of the one this thread
    /// holds (given back first and taken again after).
    fn visit<R>(&mut self, t: u32, f: impl FnOnce(&mut Ctx<'a>) -> R) -> R {
        let rt = self.rt;
        let mine = self.sched.let_go(rt);
        self.sched.hold(rt, t);
        let r = f(self);
        self.sched.let_go(rt);
        if let Some(m) = mine {
            self.sched.hold(rt, m);
        }
        r
    }

    /// A push from deeper in the stack than the push budget allows: made
    /// from the top of the stack when the current task or timer returns
    /// (at most `MAX_DEEP_PUSHES` wait; beyond, dropped and counted).
    #[cold]
    #[inline(never)]
    fn push_deep(&mut self, port: usize, batch: PacketBatch) {
        self.rt.stats.deep_pushes.fetch_add(1, Ordering::Relaxed);
        if self.sched.deep_pushes.len() < MAX_DEEP_PUSHES {
            let me = self.cur();
            self.sched.deep_pushes.push((me, port, batch));
        } else {
            self.drop_waiting(batch);
        }
    }

    /// A push to element `to`, which panicked (it is out of the data
    /// path): its `n` packets are dropped and counted (its `failed`
    /// handler, `router_drops`' `failed_packets`).
    #[cold]
    #[inline(never)]
    fn drop_at_failed(&self, to: usize, n: usize) {
        self.rt.failures.count_dropped(to, n);
    }

    /// A batch that cannot wait (its list is full): dropped, counted as a
    /// lost batch and its packets.
    #[cold]
    fn drop_waiting(&self, batch: PacketBatch) {
        self.rt
            .stats
            .reentrant_drops
            .fetch_add(1, Ordering::Relaxed);
        self.count_lost(batch.len());
    }

    /// The target of a push is running further up this thread's stack: hand
    /// the batch over when it is done (or when it asks), unless too many
    /// are waiting already.
    #[cold]
    #[inline(never)]
    fn defer_push(&mut self, to: usize, to_port: u32, batch: PacketBatch) {
        if self.sched.deferred_pushes.len() < MAX_DEFERRED_PUSHES {
            self.sched
                .deferred_pushes
                .push((to, to_port as usize, batch));
        } else {
            self.drop_waiting(batch);
        }
    }

    /// [`Ctx::push`]'s call into the current element `el`, timed as a frame
    /// of the element cost profile.
    #[cold]
    #[inline(never)]
    fn push_profiled(&mut self, el: &mut dyn Element, port: usize, batch: PacketBatch) {
        let n = batch.len();
        self.sched.prof.pushed(n);
        let f = self.sched.prof.enter();
        call_push(el, port, batch, self);
        self.deliver_deferred_pushes(el);
        self.sched
            .prof
            .leave(&self.rt.profile, self.cur(), f, n as u64, 0);
    }

    /// A task run of the current element `el`, timed as a frame.
    #[cold]
    #[inline(never)]
    pub(crate) fn run_task_profiled(&mut self, el: &mut dyn Element, t: TaskId) {
        let f = self.sched.prof.enter();
        el.run_task(t, self);
        self.deliver_deferred_pushes(el);
        self.sched.prof.leave(&self.rt.profile, self.cur(), f, 0, 0);
    }

    /// [`Ctx::pull`]'s call into the current element `el`, timed.
    #[cold]
    #[inline(never)]
    fn pull_profiled(&mut self, el: &mut dyn Element, port: usize, max: usize) -> PacketBatch {
        let f = self.sched.prof.enter();
        let b = el.pull(port, max, self);
        self.sched
            .prof
            .leave(&self.rt.profile, self.cur(), f, 0, b.len() as u64);
        self.sched.prof.pulled(b.len());
        b
    }

    /// Takes the batches other elements pushed to this element while it was
    /// running on this thread (a push loop back into it), as `(input port,
    /// batch)` in arrival order. An element that wants Click's nested
    /// semantics (ARPQuerier handling the reply to the query it just sent)
    /// calls this right after its push; whatever it leaves is delivered
    /// through [`Element::push`] when its current call returns.
    pub fn take_reentrant_pushes(&mut self) -> Vec<(usize, PacketBatch)> {
        let me = self.cur();
        if !self.sched.deferred_pushes.iter().any(|d| d.0 == me) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.sched.deferred_pushes.len() {
            if self.sched.deferred_pushes[i].0 == me {
                let (_, port, b) = self.sched.deferred_pushes.remove(i);
                out.push((port, b));
            } else {
                i += 1;
            }
        }
        out
    }

    /// Delivers the deferred pushes addressed to the current element `el`
    /// (whose lock the caller holds).
    #[inline(always)]
    pub(crate) fn deliver_deferred_pushes(&mut self, el: &mut dyn Element) {
        if !self.sched.deferred_pushes.is_empty() {
            self.deliver_deferred_pushes_slow(el);
        }
    }

    #[cold]
    #[inline(never)]
    fn deliver_deferred_pushes_slow(&mut self, el: &mut dyn Element) {
        for _ in 0..64 {
            let pending = self.take_reentrant_pushes();
            if pending.is_empty() {
                return;
            }
            for (port, b) in pending {
                call_push(el, port, b, self);
            }
        }
        let me = self.cur();
        let before = self.sched.deferred_pushes.len();
        self.sched.deferred_pushes.retain(|d| d.0 != me);
        let lost = before - self.sched.deferred_pushes.len();
        if lost > 0 {
            self.rt
                .stats
                .reentrant_drops
                .fetch_add(lost as u64, Ordering::Relaxed);
        }
    }

    /// Pushes one packet out of output `port`.
    #[inline]
    pub fn push_one(&mut self, port: usize, p: Packet) {
        self.push(port, PacketBatch::from(p));
    }

    /// Pushes `batch` out of output `port` if it exists; otherwise drops it
    /// (Click's `checked_output_push`), counted in the router's
    /// `router_drops` handler (`no_output_packets`).
    #[inline]
    pub fn checked_push(&mut self, port: usize, batch: PacketBatch) {
        if port < self.noutputs() {
            self.push(port, batch);
        } else {
            self.count_no_output(batch.len());
        }
    }

    /// Pulls up to `max` packets from input `port`.
    #[inline]
    pub fn pull(&mut self, port: usize, max: usize) -> PacketBatch {
        let rt = self.rt;
        let Some(&Port {
            to: from,
            port: from_port,
        }) = rt.in_port(self.slot, port)
        else {
            return PacketBatch::new();
        };
        let Some(slot) = rt.slots.get(from as usize) else {
            return PacketBatch::new();
        };
        match slot.enter_port(self.sched.held_id, self.sched.tag) {
            Ok(mut g) => {
                let saved = self.switch_to(slot);
                let b = if rt.profile.on() {
                    self.pull_profiled(&mut **g, from_port as usize, max)
                } else {
                    call_pull(&mut **g, from_port as usize, max, self)
                };
                self.restore(saved);
                // Whether the task run got packets, for the scheduler's
                // test when it reached a failed element (one `or` per
                // pull, no branch).
                self.sched.pulled |= b.storage_bits();
                b
            }
            Err(busy) => self.pull_slow(from as usize, from_port as usize, max, busy),
        }
    }

    /// A pull whose source could not be entered at once (see
    /// [`Ctx::push_slow`]).
    #[cold]
    #[inline(never)]
    fn pull_slow(
        &mut self,
        from: usize,
        from_port: usize,
        max: usize,
        busy: SlotBusy,
    ) -> PacketBatch {
        let rt = self.rt;
        let busy = match busy {
            SlotBusy::Foreign(_) | SlotBusy::Contended => {
                match self.enter_and(from, true, |el, cx| {
                    if cx.rt.profile.on() {
                        cx.pull_profiled(el, from_port, max)
                    } else {
                        call_pull(el, from_port, max, cx)
                    }
                }) {
                    Ok(b) => {
                        self.sched.pulled |= b.storage_bits();
                        return b;
                    }
                    Err(b) => b,
                }
            }
            b => b,
        };
        match busy {
            // It panicked: nothing comes from it any more. A task that
            // pulls nothing else in its run and asks to run again is
            // parked for a while instead (`ThreadSched::park_if_stuck`),
            // so a puller whose notifier still says packets wait before
            // the failed element does not spin.
            SlotBusy::Failed => {
                self.sched.note_failed_pull(from);
                PacketBatch::new()
            }
            SlotBusy::Concurrent => {
                let slot = &rt.slots[from];
                match rt.concurrent.get(from).and_then(Option::as_deref) {
                    Some(c) => {
                        let saved = self.switch_to(slot);
                        let b = c.pull(from_port, max, self);
                        self.restore(saved);
                        self.sched.pulled |= b.storage_bits();
                        b
                    }
                    None => PacketBatch::new(),
                }
            }
            _ => {
                let fwd = self
                    .sched
                    .pull_forwards
                    .iter()
                    .rev()
                    .find(|f| f.0 == from && f.1 == from_port)
                    .map(|f| f.2);
                let Some(input) = fwd else {
                    rt.stats.reentrant_drops.fetch_add(1, Ordering::Relaxed);
                    return PacketBatch::new();
                };
                // The element is running further up this stack and said
                // what this output carries: pull its input on its behalf.
                let slot = &rt.slots[from];
                let saved = self.switch_to(slot);
                let b = self.pull(input, max);
                self.restore(saved);
                b
            }
        }
    }

    /// Pulls up to `max` packets from input `port` while declaring that,
    /// for the duration of this pull, a pull coming back into this element
    /// on output `out` is answered by pulling its input `input` directly
    /// (the element itself is busy). This is how Bypass splices a side
    /// path into a pull path, as Click's Bypass does by rewiring ports.
    pub fn pull_forwarding(
        &mut self,
        port: usize,
        max: usize,
        out: usize,
        input: usize,
    ) -> PacketBatch {
        self.sched.pull_forwards.push((self.cur(), out, input));
        let b = self.pull(port, max);
        self.sched.pull_forwards.pop();
        b
    }

    /// Pulls one packet from input `port`.
    #[inline]
    pub fn pull_one(&mut self, port: usize) -> Option<Packet> {
        self.pull(port, 1).into_iter().next()
    }

    #[cold]
    fn count_no_output(&self, n: usize) {
        self.rt
            .stats
            .no_output_packets
            .fetch_add(n as u64, Ordering::Relaxed);
    }

    #[cold]
    fn count_lost(&self, n: usize) {
        self.rt
            .stats
            .reentrant_packets
            .fetch_add(n as u64, Ordering::Relaxed);
    }

    /// This element's index.
    pub fn id(&self) -> ElementId {
        self.cur()
    }
    /// This element's name.
    pub fn name(&self) -> &str {
        &self.rt.info[self.cur()].name
    }
    /// Every connection of the router (for tools that draw it: HTTPServer).
    pub fn connections(&self) -> &'a [super::Connection] {
        &self.rt.connections
    }
    /// The configuration text as the user gave it.
    pub fn source_text(&self) -> &'a str {
        &self.rt.source_text
    }
    /// `name :: Class`.
    pub fn declaration(&self) -> String {
        self.rt.info[self.cur()].declaration()
    }
    /// Number of inputs.
    pub fn ninputs(&self) -> usize {
        self.rt.info[self.cur()].inputs.len()
    }
    /// Number of outputs.
    pub fn noutputs(&self) -> usize {
        self.rt.info[self.cur()].outputs.len()
    }
    /// Whether output `port` is push.
    pub fn output_is_push(&self, port: usize) -> bool {
        self.rt.info[self.cur()].outputs.get(port) == Some(&Processing::Push)
    }
    /// For each output port, the lowest output whose push connection
    /// leads to the same element and input (the port itself when none does,
    /// or when it is not a connected push output). A batch for a port may
    /// leave by its alias instead: downstream cannot tell, so a classifier
    /// can push packets bound for either in one batch. Made when the router
    /// was built; the slice outlives this call (take it once per batch).
    #[inline]
    pub fn output_aliases(&self) -> &'a [u32] {
        &self.rt.push_alias[self.cur()]
    }
    /// Whether input `port` is push.
    pub fn input_is_push(&self, port: usize) -> bool {
        self.rt.info[self.cur()].inputs.get(port) == Some(&Processing::Push)
    }
    /// The thread running this call.
    pub fn thread_id(&self) -> usize {
        self.sched.id
    }

    /// The current time.
    #[inline]
    pub fn now(&self) -> Timestamp {
        self.rt.clock.now()
    }
    /// Whether time is simulated.
    pub fn simulated_time(&self) -> bool {
        self.rt.clock.is_simulated()
    }

    /// Schedules task `t` (from anywhere, any thread).
    pub fn schedule_task(&mut self, t: TaskId) {
        self.sched.schedule(self.rt, t.0);
    }

    /// Reschedules the task now running (Click's `fast_reschedule`).
    pub fn reschedule(&mut self) {
        let t = self.sched.current_task;
        if t != super::sched::NO_TASK {
            self.sched.schedule(self.rt, t);
        }
    }

    /// Unschedules task `t`.
    pub fn unschedule_task(&mut self, t: TaskId) {
        self.sched.unschedule(self.rt, t.0);
    }

    /// Schedules task `t` whenever descriptor `fd` is ready for `what`
    /// (Click's `add_select`; see [`InitCx::add_select`]). Fails when the
    /// descriptor cannot be watched (it is not open).
    pub fn add_select(
        &mut self,
        fd: impl std::os::fd::AsRawFd,
        what: super::Select,
        t: TaskId,
    ) -> Result<(), String> {
        let home = self.rt.tasks[t.0 as usize].thread.load(Ordering::Relaxed);
        self.rt.threads[home]
            .poller
            .add_select(fd.as_raw_fd(), what, t.0)
    }

    /// Stops watching descriptor `fd` for `what` (Click's `remove_select`).
    pub fn remove_select(&mut self, fd: impl std::os::fd::AsRawFd, what: super::Select) {
        let raw = fd.as_raw_fd();
        for th in &self.rt.threads {
            th.poller.remove_select(raw, what);
        }
    }

    /// Whether task `t` is scheduled.
    pub fn task_scheduled(&self, t: TaskId) -> bool {
        self.rt.tasks[t.0 as usize]
            .scheduled
            .load(Ordering::Acquire)
    }

    /// Schedules timer `t` to fire at `when` (replacing any earlier setting).
    pub fn schedule_timer_at(&mut self, t: TimerId, when: Timestamp) {
        self.sched.schedule_timer(self.rt, t.0, when.as_nsec());
    }

    /// Schedules timer `t` to fire `after` from now.
    pub fn schedule_timer_after(&mut self, t: TimerId, after: Timestamp) {
        let when = self.now() + after;
        self.schedule_timer_at(t, when);
    }

    /// Cancels timer `t`.
    pub fn unschedule_timer(&mut self, t: TimerId) {
        let ti: &TimerInfo = &self.rt.timers[t.0 as usize];
        ti.expiry.store(i64::MIN, Ordering::Release);
        ti.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// When timer `t` fires, if scheduled.
    pub fn timer_expiry(&self, t: TimerId) -> Option<Timestamp> {
        let e = self.rt.timers[t.0 as usize].expiry.load(Ordering::Acquire);
        (e != i64::MIN).then(|| Timestamp::from_nsec(e))
    }

    /// Activates `n` and wakes the tasks listening to it.
    pub fn wake_notifier(&mut self, n: &Notifier) {
        if n.set_active(true) {
            for t in n.listeners() {
                self.sched.schedule(self.rt, t.0);
            }
        }
    }

    /// A file source's `active` write handler (FromIPSummaryDump,
    /// FromTcpdump): `value` is Click's boolean once comments are removed,
    /// else the error `bad`. Becoming active schedules the source's `task`
    /// (a push source) or wakes its empty notifier (`pull`, a pull
    /// source); becoming inactive puts the notifier to sleep.
    pub fn write_source_active(
        &mut self,
        value: &str,
        bad: &str,
        active: &mut bool,
        pull: Option<&Notifier>,
        task: Option<TaskId>,
    ) -> Result<(), String> {
        let v = rclick_lang::confparse::uncomment(value);
        let on = <bool as crate::args::FromArg>::from_arg(v.trim(), &crate::args::NoContext)
            .map_err(|_| bad.to_string())?;
        *active = on;
        match (pull, task) {
            (Some(n), _) if on => self.wake_notifier(n),
            (Some(n), _) => {
                n.set_active(false);
            }
            (None, Some(t)) if on => self.schedule_task(t),
            _ => {}
        }
        Ok(())
    }

    /// Click's `please_stop_driver`: lowers the run count by one.
    pub fn request_stop(&mut self) {
        self.rt.adjust_runcount(-1);
    }
    /// Adjusts the run count.
    pub fn adjust_runcount(&mut self, delta: i32) {
        self.rt.adjust_runcount(delta);
    }
    /// Sets the run count.
    pub fn set_runcount(&mut self, n: i32) {
        self.rt.set_runcount(n);
    }
    /// The run count.
    pub fn runcount(&self) -> i32 {
        self.rt.runcount.load(Ordering::Acquire)
    }
    /// Ends the driver at once, whatever the run count.
    pub fn quit(&mut self) {
        self.rt.request_quit();
    }

    /// Writes `text` to standard output and flushes it (Script's `print`);
    /// captured instead when the router was built with `capture_log`.
    pub fn print_stdout(&self, text: &[u8]) {
        self.rt.write_stdout(text);
    }

    /// Prints a line to the router's log (standard error), as Click's
    /// `click_chatter`.
    pub fn log(&self, line: impl Into<String>) {
        self.rt.log_line(line.into());
    }

    /// Sends a copy of every later log line to `tap` (ChatterSocket).
    pub fn add_chatter_tap(&self, tap: std::sync::Arc<dyn super::ChatterTap>) {
        self.rt
            .chatter_taps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(tap);
    }

    /// Stops sending log lines to `tap`.
    pub fn remove_chatter_tap(&self, tap: &std::sync::Arc<dyn super::ChatterTap>) {
        self.rt
            .chatter_taps
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|t| !std::sync::Arc::ptr_eq(t, tap));
    }

    /// Finds an element by name, relative to this element's compound.
    pub fn find(&self, name: &str) -> Option<ElementId> {
        find_relative(&self.rt.info, self.cur(), name)
    }

    /// The context for argument parsers at run time (AddressInfo names),
    /// for handlers that parse addresses (ARPResponder's `add`).
    pub fn arg_context(&self) -> &dyn ArgContext {
        &self.rt.names
    }

    /// Looks up a name defined by an element while configuring
    /// (AddressInfo, PortInfo).
    pub fn lookup_name(&self, kind: &str, name: &str) -> Option<&str> {
        self.rt.names.lookup(kind, name)
    }

    /// Static facts about element `e`.
    pub fn element_info(&self, e: ElementId) -> &ElementInfo {
        &self.rt.info[e]
    }

    /// Runs `f` on element `e`, entered the way a handler call enters it
    /// (taking or visiting its owner's thread lock, waiting for another
    /// thread to leave it), with `e` as the current element of the context
    /// `f` gets. So `f` runs between two of `e`'s packets, never during one.
    /// An error when `e` does not exist or is running further up this
    /// thread's stack (`f` is then not called). For the plugin manager,
    /// which changes a FlowGate's bindings this way.
    pub fn with_element<R>(
        &mut self,
        e: ElementId,
        f: impl FnOnce(&mut dyn Element, &mut Ctx<'a>) -> R,
    ) -> Result<R, String> {
        if e >= self.rt.slots.len() {
            return Err(format!("no element number {e}"));
        }
        self.enter_and(e, false, f).map_err(|_| {
            format!(
                "'{}' is busy (it is running on this thread's stack)",
                self.rt.info[e].name
            )
        })
    }

    /// The registry of element classes this router was built with (the
    /// PluginManager loads and unloads packages through it).
    pub fn registry(&self) -> &crate::registry::Registry {
        &self.rt.registry
    }

    /// Makes, configures and initializes a new element of class `class`
    /// from the configuration string `config`, outside the router's graph
    /// (the plugin manager's `create`): it has no ports of its own; whoever
    /// holds it calls its `push` with its own context, so its outputs are
    /// the caller's. It is configured and initialized as if it stood in
    /// element `at`'s place (`at`'s port counts and processing, names
    /// looked up from there), but sees no neighbours: no connections, no
    /// other element (`InitCx::with_element` finds none).
    ///
    /// The router's task and timer tables are fixed when it is built, so
    /// the tasks and timers the element asks for while initializing come
    /// from `loan`: the caller's own spare ones, whose runs the caller
    /// passes on to the element (`run_task`, `run_timer` with the same
    /// ids). What it took is removed from `loan` and returned; those asked
    /// to be scheduled are. An element asking for more than `loan` has,
    /// or for descriptors to watch, tasks on threads of their own, a stop
    /// handler or external events, is refused, naming what it asked for.
    /// `check` looks at the configured element before it is initialized
    /// (the plugin manager refuses pull ports there). Errors come back as
    /// one message; a failure takes nothing from `loan`.
    pub fn create_element(
        &mut self,
        class: &str,
        config: &str,
        at: ElementId,
        check: impl FnOnce(&dyn Element) -> Result<(), String>,
        loan: &mut Loan,
    ) -> Result<(Box<dyn Element>, Loan), String> {
        let rt = self.rt;
        if at >= rt.info.len() {
            return Err(format!("no element number {at}"));
        }
        let mut el = rt
            .registry
            .create(class)
            .ok_or_else(|| format!("unknown element class '{class}'"))?;
        let args = rclick_lang::confparse::split_args(config);
        let mut ccx = super::ConfigureCx::new_shared(at, &rt.info, &rt.names, rt.nthreads);
        let r = el.configure(&args, &mut ccx);
        rt.log_messages(std::mem::take(&mut ccx.messages));
        r.map_err(|m| format!("{class}({config}): {m}"))?;
        check(&*el)?;
        let mut b = Builder::scratch(rt);
        b.lend = Some(super::build::Lending {
            tasks: loan.tasks.iter().rev().copied().collect(),
            timers: loan.timers.iter().rev().copied().collect(),
            ..Default::default()
        });
        let r = el.initialize(&mut InitCx::new(at, &mut b));
        for l in std::mem::take(&mut b.log) {
            rt.log_line(l);
        }
        r.map_err(|m| format!("{class}({config}): {m}"))?;
        if let Some(what) = b.needs_graph() {
            return Err(format!(
                "{class}({config}): needs {what}, which an element made at run time \
                 cannot have (it is outside the router's graph)"
            ));
        }
        let lent = b.lend.take().unwrap_or_default();
        let took = Loan {
            tasks: lent.took_tasks.iter().map(|t| t.0).collect(),
            timers: lent.took_timers.iter().map(|t| t.0).collect(),
        };
        loan.tasks.retain(|t| !took.tasks.contains(t));
        loan.timers.retain(|t| !took.timers.contains(t));
        for (t, scheduled) in lent.took_tasks {
            if scheduled {
                self.schedule_task(t);
            }
        }
        for (t, when) in lent.took_timers {
            if when != i64::MIN {
                self.schedule_timer_at(t, Timestamp::from_nsec(when));
            }
        }
        Ok((el, took))
    }

    /// The task table entry (tests).
    #[allow(dead_code)]
    pub(crate) fn task_info(&self, t: TaskId) -> &TaskInfo {
        &self.rt.tasks[t.0 as usize]
    }
}
