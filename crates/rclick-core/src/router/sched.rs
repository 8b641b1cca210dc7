//! Per-thread scheduling: stride scheduling of tasks (Click's tickets and
//! passes), timers, and the driver loop.
//!
//! Why this file is long: about 1,030 lines of one job, a thread's
//! scheduler, whose parts share its private state; the rest is its tests.
//!
//! Each thread has its own run queue and timer heap. A task or timer
//! belongs to one thread; scheduling it from another thread posts it to
//! that thread's inbox and wakes the thread if it sleeps. A thread holds its
//! thread lock (see `slot.rs`) while it runs and hands it to waiting
//! callers between tasks; an idle thread lets go of it and waits on its
//! poller (descriptors, its next timer, wake-ups) until there is work. With
//! simulated time, an idle router jumps straight to its next timer.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::ctx::Ctx;
use super::runq::{Entry, Place, RunQueue};
use super::slot::{Held, Slot, NO_LOCK};
use super::{Remote, Router, RouterInner, TaskInfo};
use crate::element::{TaskId, TimerId};

/// Tickets a task gets by default (Click's DEFAULT_TICKETS).
pub const DEFAULT_TICKETS: u32 = 1024;
/// The most tickets a task may have.
pub const MAX_TICKETS: u32 = 32768;
pub(crate) const STRIDE1: u64 = 1 << 16;
/// Tasks run between timer checks.
const TASKS_PER_ITER: usize = 64;
/// Passes of the driver loop between looks at watched descriptors while
/// tasks keep the thread busy (an idle thread waits on them instead).
const ITERS_PER_POLL: u32 = 8;
/// Nor does a busy thread go longer than this between looks (in the
/// router's clock, read once a pass for the timers anyway): passes whose
/// task runs are slow, or a thread the system runs only now and then,
/// would otherwise leave a control connection waiting for seconds.
const POLL_INTERVAL_NS: i64 = 1_000_000;
/// A timer due sooner than this is waited for without sleeping.
const SPIN_WAIT_NS: i64 = 20_000;

/// `ThreadSched::current_task` when no task runs.
pub(crate) const NO_TASK: u32 = u32::MAX;

/// `ThreadSched::run_flags`: the running task asked to run again.
const RESCHED: u8 = 1;
/// `ThreadSched::run_flags`: a pull in the running task's run reached a
/// failed element.
pub(crate) const FAILED_PULL: u8 = 2;
/// How long a task is parked when its run asked to run again, reached a
/// failed element and pulled nothing (docs/RELIABILITY.md).
pub(crate) const PARK_NS: i64 = 10_000_000;

/// The stride of a task with `tickets` tickets.
#[inline]
pub(crate) fn stride_of(tickets: u32) -> u64 {
    STRIDE1 / u64::from(tickets.clamp(1, MAX_TICKETS))
}

/// Caller ids of schedulers made outside the router's threads (they must
/// differ from every thread's and from each other's).
static EXTERNAL_IDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1 << 20);

/// One thread's scheduler state.
#[derive(Debug)]
pub struct ThreadSched {
    pub(crate) id: usize,
    /// What this scheduler writes into an element's state while inside it
    /// (`id + 1`: never 0).
    pub(crate) tag: usize,
    /// The thread lock this scheduler's thread holds, if any.
    pub(crate) held: Option<Held>,
    /// Its index, or `NO_LOCK` (read on every call into an element).
    pub(crate) held_id: u32,
    /// Runnable tasks as (pass, enqueue order, task), sorted ascending: the
    /// next to run is at the front. As Click's sorted task list: a task that
    /// just ran has the largest pass or nearly, so it goes back in at or
    /// near the end, and the common operations (pop the front, insert near
    /// the back) cost a few instructions where a binary heap sifts.
    runq: RunQueue,
    /// Enqueue order, so that tasks with equal passes run first-in first-out.
    seq: u64,
    timers: BinaryHeap<Reverse<(i64, u64, u32)>>,
    pass_floor: u64,
    /// The task running now, or `NO_TASK`.
    pub(crate) current_task: u32,
    /// What the running task's run did: `RESCHED`, it asked to run again
    /// (fast path: no queue traffic when it stays the next task to run);
    /// `FAILED_PULL`, a pull reached a failed element (set on the cold
    /// path, so the normal path tests one value as before).
    run_flags: u8,
    /// Nonzero when a pull in the running task's run may have returned
    /// packets (the batches' [`PacketBatch::storage_bits`] or'ed; read
    /// only when `FAILED_PULL` is set).
    ///
    /// [`PacketBatch::storage_bits`]: rclick_packet::PacketBatch::storage_bits
    pub(crate) pulled: usize,
    /// The failed element the last `FAILED_PULL` reached.
    pub(crate) failed_pull_from: u32,
    /// Tasks parked instead of run again at once: their run reached a
    /// failed element, pulled nothing and asked to run again (a puller
    /// behind a failed element whose upstream notifier still says packets
    /// wait). (wake time in ns, task); scheduled again at that time, or
    /// earlier by anything that schedules them (a notifier).
    parked: Vec<(i64, u32)>,
    /// Handler writes that found their element running on this thread
    /// (spec, value, calling element); run when that element returns.
    pub(crate) deferred_writes: Vec<(String, String, Option<usize>)>,
    /// Batches pushed to an element already running on this thread
    /// (element, input port, batch): a loop such as ARPQuerier -> ARPResponder
    /// -> ARPQuerier. Delivered when that element's outer call returns, or
    /// earlier if it asks ([`Ctx::take_reentrant_pushes`]).
    pub(crate) deferred_pushes: Vec<(usize, usize, rclick_packet::PacketBatch)>,
    /// Pushes made with less than the push stack budget left ([`Ctx::push`]
    /// compares the stack pointer with `stack_floor`): (pushing element,
    /// output port, batch), made from the top of the stack once the task
    /// or timer that led to them returns. A push path of any depth so runs
    /// in pieces instead of overflowing the stack.
    pub(crate) deep_pushes: Vec<(usize, usize, rclick_packet::PacketBatch)>,
    /// Lowest stack address a push may start from (0: no bound; handler
    /// calls from outside the driver).
    pub(crate) stack_floor: usize,
    /// Pull forwards declared by running elements ([`Ctx::pull_forwarding`]):
    /// (element, output port, input port). A re-entrant pull on that
    /// output is answered from the element's input instead.
    pub(crate) pull_forwards: Vec<(usize, usize, usize)>,
    /// This thread's part of the element cost profile.
    pub(crate) prof: super::profile::ThreadProfile,
    /// While a panic unwinds: the element the innermost `Ctx` was calling
    /// (`u32::MAX`: none noted). Set by `Ctx`'s drop, taken by
    /// [`ThreadSched::catch`].
    pub(crate) panicked_in: u32,
    /// Tasks whose descriptors were found ready (scratch).
    ready: Vec<u32>,
    /// The clock when the timers were last looked at (once a pass).
    pass_now: i64,
    /// The clock when the descriptors were last looked at.
    last_poll: i64,
}

impl ThreadSched {
    /// A scheduler for thread `id`.
    pub fn new(id: usize) -> ThreadSched {
        ThreadSched {
            id,
            tag: id.wrapping_add(1).max(1),
            held: None,
            held_id: NO_LOCK,
            runq: RunQueue::default(),
            // Generations are unique across threads, so a run queue entry
            // made stale by a move to another thread never matches again.
            seq: (id as u64 & 0xFFFF) << 48,
            timers: BinaryHeap::new(),
            pass_floor: 0,
            current_task: NO_TASK,
            run_flags: 0,
            pulled: 0,
            failed_pull_from: u32::MAX,
            parked: Vec::new(),
            deferred_writes: Vec::new(),
            deferred_pushes: Vec::new(),
            deep_pushes: Vec::new(),
            stack_floor: 0,
            pull_forwards: Vec::new(),
            prof: Default::default(),
            panicked_in: u32::MAX,
            ready: Vec::new(),
            pass_now: 0,
            last_poll: 0,
        }
    }

    /// Takes thread lock `idx` (the caller holds none).
    pub(crate) fn hold(&mut self, rt: &RouterInner, idx: u32) {
        debug_assert!(self.held.is_none());
        self.held = Some(rt.locks.acquire(idx));
        self.held_id = idx;
    }

    /// Gives back the thread lock held, if any; returns its index.
    pub(crate) fn let_go(&mut self, rt: &RouterInner) -> Option<u32> {
        let h = self.held.take()?;
        let idx = h.index();
        rt.locks.release(h);
        self.held_id = NO_LOCK;
        Some(idx)
    }

    /// Waits a moment for another thread, without holding a thread lock
    /// meanwhile.
    pub(crate) fn pause(&mut self, rt: &RouterInner) {
        let mine = self.let_go(rt);
        std::thread::yield_now();
        if let Some(m) = mine {
            self.hold(rt, m);
        }
    }

    /// Schedules task `t`, here or on its home thread.
    pub(crate) fn schedule(&mut self, rt: &RouterInner, t: u32) {
        let ti = &rt.tasks[t as usize];
        let home = ti.thread.load(Ordering::Relaxed);
        if home != self.id {
            rt.send_remote(home, Remote::Task(t));
            return;
        }
        // Only the home thread changes `scheduled`: no read-modify-write.
        if self.current_task == t {
            ti.scheduled.store(true, Ordering::Relaxed);
            self.run_flags |= RESCHED;
            return;
        }
        if ti.scheduled.load(Ordering::Relaxed) {
            return;
        }
        self.enqueue_woken(rt, t);
    }

    /// Unschedules task `t`, here or on its home thread.
    pub(crate) fn unschedule(&mut self, rt: &RouterInner, t: u32) {
        let ti = &rt.tasks[t as usize];
        let home = ti.thread.load(Ordering::Relaxed);
        if home != self.id {
            rt.send_remote(home, Remote::Unschedule(t));
            return;
        }
        ti.scheduled.store(false, Ordering::Relaxed);
        if self.current_task == t {
            self.run_flags &= !RESCHED;
        }
        if !self.parked.is_empty() {
            self.parked.retain(|&(_, p)| p != t);
        }
    }

    /// Puts task `t` on the run queue with the pass it has.
    fn enqueue(&mut self, rt: &RouterInner, t: u32) {
        let e = self.entry_for(&rt.tasks[t as usize], t);
        // Sequence numbers only grow, so (pass, seq) order is pass order
        // with ties first in, first out: compare passes only.
        self.runq.insert(e);
    }

    /// Task `t` (`ti`) marked scheduled, and its run queue entry with the pass it
    /// has and a new generation (for the caller to queue).
    #[inline(always)]
    fn entry_for(&mut self, ti: &TaskInfo, t: u32) -> Entry {
        ti.scheduled.store(true, Ordering::Relaxed);
        // Only the home thread enqueues, so a store suffices; the sequence
        // number doubles as the entry's generation.
        self.seq += 1;
        ti.generation.store(self.seq, Ordering::Relaxed);
        Entry {
            pass: ti.pass.load(Ordering::Relaxed),
            gen: self.seq,
            task: t,
        }
    }

    /// Puts back first the task the driver loop was about to run directly
    /// (`run_one_task`'s answer) when the loop stops before running it: no
    /// queued task's pass is below its `pass`, and it was first among
    /// equals.
    fn requeue_first(&mut self, rt: &RouterInner, t: u32) {
        let e = self.entry_for(&rt.tasks[t as usize], t);
        self.runq.push_front(e);
    }

    /// Puts a task that was asleep on the run queue: as Click's
    /// `fast_schedule`, its pass becomes the thread's pass plus its stride,
    /// so tasks woken together run in the order they were woken.
    fn enqueue_woken(&mut self, rt: &RouterInner, t: u32) {
        let ti = &rt.tasks[t as usize];
        let stride = ti.stride.load(Ordering::Relaxed);
        ti.pass.store(self.pass_floor + stride, Ordering::Relaxed);
        self.enqueue(rt, t);
    }

    /// Schedules timer `t` at `when` ns, here or on its home thread.
    pub(crate) fn schedule_timer(&mut self, rt: &RouterInner, t: u32, when: i64) {
        let ti = &rt.timers[t as usize];
        ti.expiry.store(when, Ordering::Release);
        let gen = ti.generation.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
        let home = ti.thread.load(Ordering::Relaxed);
        if home != self.id {
            rt.send_remote(home, Remote::Timer(t));
            return;
        }
        self.timers.push(Reverse((when, gen, t)));
    }

    #[inline]
    fn drain_inbox(&mut self, rt: &RouterInner) {
        match rt.threads.get(self.id) {
            Some(th) if th.flag.load(Ordering::Acquire) => self.drain_inbox_slow(rt),
            _ => {}
        }
    }

    #[cold]
    #[inline(never)]
    fn drain_inbox_slow(&mut self, rt: &RouterInner) {
        let th = &rt.threads[self.id];
        th.flag.store(false, Ordering::SeqCst);
        let items = std::mem::take(&mut *th.inbox.lock().unwrap_or_else(|p| p.into_inner()));
        for r in items {
            match r {
                Remote::Task(t) => {
                    let ti = &rt.tasks[t as usize];
                    if ti.thread.load(Ordering::Relaxed) == self.id {
                        if !ti.scheduled.load(Ordering::Relaxed) {
                            self.enqueue_woken(rt, t);
                        }
                    } else {
                        rt.send_remote(ti.thread.load(Ordering::Relaxed), r);
                    }
                }
                Remote::Unschedule(t) => self.unschedule(rt, t),
                Remote::Timer(t) => {
                    let ti = &rt.timers[t as usize];
                    let when = ti.expiry.load(Ordering::Acquire);
                    if when != i64::MIN {
                        let gen = ti.generation.load(Ordering::Acquire);
                        self.timers.push(Reverse((when, gen, t)));
                    }
                }
            }
        }
    }

    /// The next valid timer expiry, dropping cancelled entries.
    fn next_timer(&mut self, rt: &RouterInner) -> Option<i64> {
        while let Some(&Reverse((when, gen, t))) = self.timers.peek() {
            let ti = &rt.timers[t as usize];
            if ti.generation.load(Ordering::Acquire) == gen
                && ti.expiry.load(Ordering::Acquire) == when
            {
                return Some(when);
            }
            self.timers.pop();
        }
        None
    }

    fn run_timers(&mut self, rt: &RouterInner) -> bool {
        if !self.parked.is_empty() {
            self.wake_parked(rt);
        }
        let mut ran = false;
        let now = rt.clock.now_nsec();
        self.pass_now = now;
        while let Some(when) = self.next_timer(rt) {
            if when > now {
                break;
            }
            let Reverse((_, _, t)) = self.timers.pop().expect("peeked");
            let ti = &rt.timers[t as usize];
            ti.expiry.store(i64::MIN, Ordering::Release);
            let e = ti.element;
            if rt.slots.get(e).is_some_and(Slot::failed) {
                continue;
            }
            let frame = rt.profile.on().then(|| self.prof.enter());
            self.guarded(rt, e, "timer", |me| {
                let _ = Ctx::new(rt, me, e).enter_and(e, false, |el, cx| {
                    el.run_timer(TimerId(t), cx);
                });
            });
            if let Some(f) = frame {
                self.prof.leave(&rt.profile, e, f, 0, 0);
            }
            self.after_top_level_call(rt);
            ran = true;
            if rt.runcount.load(Ordering::Acquire) <= 0 {
                break;
            }
        }
        ran
    }

    /// After a task or timer ran: handler writes deferred until their
    /// element returned, and pushes nobody took.
    #[inline(always)]
    fn after_top_level_call(&mut self, rt: &RouterInner) {
        if !self.deferred_writes.is_empty()
            || !self.deferred_pushes.is_empty()
            || !self.deep_pushes.is_empty()
        {
            self.after_top_level_call_slow(rt);
        }
    }

    #[cold]
    #[inline(never)]
    fn after_top_level_call_slow(&mut self, rt: &RouterInner) {
        self.run_deep_pushes(rt);
        if !self.deferred_writes.is_empty() {
            self.run_deferred_writes(rt);
        }
        if !self.deferred_pushes.is_empty() {
            self.drop_stale_pushes(rt);
        }
    }

    /// Runs `f` (a task or timer run of element `e` and everything it
    /// calls); a panic in it, an element's bug, is caught here: the element
    /// that was running when it happened (`e` or one its pushes and pulls
    /// reached) is marked failed, the packets it was handed are counted as
    /// lost, the panic is counted and logged (`router_drops`: `panics`,
    /// `panic_packets`, `last_panic`; the element's `failed` handler), and
    /// the router goes on. One `catch_unwind` per task run, none per packet.
    #[inline(always)]
    fn guarded<R>(
        &mut self,
        rt: &RouterInner,
        e: usize,
        what: &'static str,
        f: impl FnOnce(&mut Self) -> R,
    ) -> Option<R> {
        // Not `catch`: at the top of the stack the thread holds its own
        // lock and no pull forward, so nothing needs saving per run.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *self))) {
            Ok(r) => Some(r),
            Err(payload) => {
                self.recover_at_top(rt, e, what, payload.as_ref());
                None
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn recover_at_top(
        &mut self,
        rt: &RouterInner,
        e: usize,
        what: &'static str,
        payload: &(dyn std::any::Any + Send),
    ) {
        let own = self.id as u32;
        let held = if (own as usize) < rt.locks.len() {
            own
        } else {
            NO_LOCK
        };
        let (caught, inner) = self.after_panic(rt, held, 0, payload);
        rt.failed_in_run(&caught, e, inner, what);
    }

    /// Runs `f`, turning a panic into `Err`: what it was, and the element
    /// the innermost `Ctx` was calling when it happened. The thread lock
    /// held before is held again after, and pull forwards declared by the
    /// calls it cut short are gone.
    #[inline(always)]
    pub(crate) fn catch<R>(
        &mut self,
        rt: &RouterInner,
        f: impl FnOnce(&mut Self) -> R,
    ) -> Result<R, (super::failure::Caught, Option<usize>)> {
        let held = self.held_id;
        let forwards = self.pull_forwards.len();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut *self))) {
            Ok(r) => Ok(r),
            Err(payload) => Err(self.after_panic(rt, held, forwards, payload.as_ref())),
        }
    }

    #[cold]
    #[inline(never)]
    fn after_panic(
        &mut self,
        rt: &RouterInner,
        held: u32,
        forwards: usize,
        payload: &(dyn std::any::Any + Send),
    ) -> (super::failure::Caught, Option<usize>) {
        let caught = super::failure::Caught::take(payload);
        let inner = std::mem::replace(&mut self.panicked_in, u32::MAX);
        self.pull_forwards.truncate(forwards);
        // A panic while visiting another thread's lock left that lock
        // held: take back the one held before.
        if self.held_id != held {
            self.let_go(rt);
            if held != NO_LOCK && (held as usize) < rt.locks.len() {
                self.hold(rt, held);
            }
        }
        let inner = ((inner as usize) < rt.slots.len()).then_some(inner as usize);
        (caught, inner)
    }

    /// Makes the pushes a too deep push path left for the top of the
    /// stack, oldest first, until no more are left.
    fn run_deep_pushes(&mut self, rt: &RouterInner) {
        while !self.deep_pushes.is_empty() {
            let work = std::mem::take(&mut self.deep_pushes);
            for (from, port, batch) in work {
                Ctx::new(rt, self, from).push(port, batch);
            }
        }
    }

    /// Sets the push stack budget: pushes may use `PUSH_STACK_BUDGET`
    /// bytes of stack below the caller's frame (the top of the driver
    /// loop).
    #[inline(never)]
    pub(crate) fn mark_stack_top(&mut self) {
        self.stack_floor = super::ctx::stack_address().saturating_sub(PUSH_STACK_BUDGET);
    }

    /// Pushes deferred to an element that was busy on another thread's
    /// stack (seen while holding that thread's lock) cannot be delivered:
    /// count them as lost.
    #[cold]
    fn drop_stale_pushes(&mut self, rt: &RouterInner) {
        for (_, _, b) in self.deferred_pushes.drain(..) {
            rt.stats.reentrant_drops.fetch_add(1, Ordering::Relaxed);
            rt.stats
                .reentrant_packets
                .fetch_add(b.len() as u64, Ordering::Relaxed);
        }
    }

    /// Pops the next runnable task.
    #[inline]
    fn next_task(&mut self, rt: &RouterInner) -> Option<(u64, u32)> {
        while let Some(Entry { pass, gen, task: t }) = self.runq.pop_front() {
            let ti = &rt.tasks[t as usize];
            if ti.generation.load(Ordering::Relaxed) == gen && ti.scheduled.load(Ordering::Relaxed)
            {
                return Some((pass, t));
            }
        }
        None
    }

    /// Runs task `t`, as up to `budget` consecutive runs when it may be
    /// coalesced (see [`ThreadSched::runs_in_a_row`]). Returns how many runs
    /// it did, and `Some((pass, t))` for the task to run next, taken from
    /// the run queue or never put there (the caller runs it directly, or
    /// puts it back first with `requeue_first`): this task when it
    /// rescheduled itself and is still the next to run, or the waiting
    /// task it traded places with.
    #[inline]
    fn run_one_task(
        &mut self,
        rt: &RouterInner,
        pass: u64,
        t: u32,
        budget: usize,
    ) -> (Option<(u64, u32)>, usize) {
        // (A task moved to another thread since it was queued left a stale
        // entry here: `next_task` skipped it.)
        let ti = &rt.tasks[t as usize];
        ti.scheduled.store(false, Ordering::Relaxed);
        self.pass_floor = pass;
        let stride = ti.stride.load(Ordering::Relaxed);
        // (With profiling on, the task still runs once: `used` stays 1.)
        let offer = if budget > 1 && rt.coalesce {
            self.runs_in_a_row(rt, t, pass, stride, budget)
        } else {
            1
        };
        let mut next_pass = pass + stride;
        ti.pass.store(next_pass, Ordering::Relaxed);
        let e = ti.element;
        self.current_task = t;
        self.run_flags = 0;
        self.pulled = 0;
        let plain = !rt.profile.on() && !rt.measure_tasks.load(Ordering::Relaxed);
        let used = self
            .guarded(rt, e, "task", |me| {
                if let Some(slot) = rt.slots.get(e).filter(|_| plain) {
                    match slot.enter_task(me.held_id, me.tag) {
                        Ok(mut g) => {
                            let mut cx = Ctx::with_slot(rt, me, slot);
                            let used = if offer > 1 {
                                g.run_task_runs(TaskId(t), offer, &mut cx).clamp(1, offer)
                            } else {
                                g.run_task(TaskId(t), &mut cx);
                                1
                            };
                            cx.deliver_deferred_pushes(&mut **g);
                            used
                        }
                        Err(_) => me.run_task_slow(rt, e, t, offer),
                    }
                } else {
                    me.run_task_slow(rt, e, t, offer)
                }
            })
            .unwrap_or_else(|| {
                // The panic cut the run short before the task could ask to
                // run again: a task keeps running unless its own element
                // failed (it then pushes into the failed element, which
                // drops and counts).
                if !rt.slots.get(e).is_some_and(Slot::failed) {
                    self.schedule(rt, t);
                }
                1
            });
        self.current_task = NO_TASK;
        let used = u64::from(used);
        if offer > 1 && used == 1 {
            // It takes one run at a time (the default `run_task_runs`): do
            // not offer more until the next handler write.
            ti.coalesce.store(coalesce_stamp(rt), Ordering::Relaxed);
        }
        if used > 1 {
            next_pass = pass + used * stride;
            self.pass_floor = next_pass - stride;
            ti.pass.store(next_pass, Ordering::Relaxed);
        }
        ti.runs
            .store(ti.runs.load(Ordering::Relaxed) + used, Ordering::Relaxed);
        self.after_top_level_call(rt);
        // The common case tests one value, as before: anything but a plain
        // "run again" (a pull reached a failed element) takes the cold path.
        let flags = std::mem::take(&mut self.run_flags);
        if (flags == RESCHED || (flags != 0 && !self.park_if_stuck(rt, t, flags)))
            && ti.scheduled.load(Ordering::Relaxed)
        {
            match self.runq.place(next_pass) {
                Place::First => return (Some((next_pass, t)), used as usize),
                // The waiting task runs next and this one goes first after
                // it: they trade places in the queue, and the waiting one
                // is run directly (one store, where queueing this one and
                // popping that one cost about 60 instructions on the IP
                // router, whose source and pulling sink take turns); a
                // stale front entry is dropped, as `next_task` would.
                Place::Swap => {
                    let e = self.entry_for(ti, t);
                    let front = self.runq.replace_front(e);
                    let fi = &rt.tasks[front.task as usize];
                    if fi.generation.load(Ordering::Relaxed) == front.gen
                        && fi.scheduled.load(Ordering::Relaxed)
                    {
                        return (Some((front.pass, front.task)), used as usize);
                    }
                }
                Place::Insert => self.enqueue(rt, t),
            }
        }
        (None, used as usize)
    }

    /// Notes that a pull in the running task's run reached failed element
    /// `from` (its slow path; nothing outside task runs).
    #[cold]
    #[inline(never)]
    pub(crate) fn note_failed_pull(&mut self, from: usize) {
        if self.current_task != NO_TASK {
            self.run_flags |= FAILED_PULL;
            self.failed_pull_from = from as u32;
        }
    }

    /// After a run of task `t` whose `flags` are neither 0 nor just
    /// `RESCHED`: returns true when the caller must not put it back on the
    /// run queue, because it did not ask to run again, or because its run
    /// reached a
    /// failed element, got no packet from any pull and asked to run again
    /// (a puller behind a failed element, whose upstream notifier still
    /// says packets wait, would run again at once for ever and pull
    /// nothing): it is then parked, and scheduled again `PARK_NS` later,
    /// or earlier by anything that schedules it (the notifier of another
    /// input that gets packets). A run that got packets from another
    /// input is never parked.
    #[cold]
    #[inline(never)]
    fn park_if_stuck(&mut self, rt: &RouterInner, t: u32, flags: u8) -> bool {
        let ti = &rt.tasks[t as usize];
        if flags & RESCHED == 0 || !ti.scheduled.load(Ordering::Relaxed) {
            return true;
        }
        if self.pulled != 0 {
            return false;
        }
        ti.scheduled.store(false, Ordering::Relaxed);
        let when = rt.clock.now_nsec().saturating_add(PARK_NS);
        self.parked.retain(|&(_, p)| p != t);
        self.parked.push((when, t));
        let from = self.failed_pull_from as usize;
        if rt.failures.count_parked(from) == 1 {
            let name = |e: usize| rt.info.get(e).map_or("?", |i| i.name.as_str());
            rt.log_line(format!(
                "{}: its task pulls nothing from failed element {}; run again every {} ms while so",
                name(rt.tasks[t as usize].element),
                name(from),
                PARK_NS / 1_000_000
            ));
        }
        true
    }

    /// Schedules the parked tasks whose time has come.
    #[cold]
    #[inline(never)]
    fn wake_parked(&mut self, rt: &RouterInner) {
        let now = rt.clock.now_nsec();
        let mut i = 0;
        while i < self.parked.len() {
            let (when, t) = self.parked[i];
            if when <= now {
                self.parked.swap_remove(i);
                self.schedule(rt, t);
            } else {
                i += 1;
            }
        }
    }

    /// The earliest time a parked task wakes.
    fn next_parked(&self) -> Option<i64> {
        self.parked.iter().map(|&(when, _)| when).min()
    }

    /// When the thread's run ends: its parked tasks count as scheduled,
    /// so that a later run (`Router::restart`) picks them up.
    fn unpark_all(&mut self, rt: &RouterInner) {
        for (_, t) in self.parked.drain(..) {
            let ti = &rt.tasks[t as usize];
            if ti.thread.load(Ordering::Relaxed) == self.id {
                ti.scheduled.store(true, Ordering::Release);
            }
        }
    }

    /// A task run that could not enter its element at once (another
    /// thread's lock owns it, or another thread runs it), or with the
    /// profile on.
    #[cold]
    #[inline(never)]
    fn run_task_slow(&mut self, rt: &RouterInner, e: usize, t: u32, offer: u32) -> u32 {
        if rt.slots.get(e).is_some_and(Slot::failed) {
            // It panicked: its tasks run no more.
            return 1;
        }
        let runner = rt
            .slots
            .get(e)
            .filter(|s| s.tasks_run_concurrently())
            .and_then(|_| rt.concurrent.get(e))
            .and_then(Option::as_deref);
        if let Some(c) = runner {
            // Tasks spread over threads, run without taking the element.
            c.run_task(TaskId(t), &mut Ctx::new(rt, self, e));
            return 1;
        }
        let profiling = rt.profile.on();
        let start = rt
            .measure_tasks
            .load(Ordering::Relaxed)
            .then(super::slot::cycle_counter);
        let used = Ctx::new(rt, self, e)
            .enter_and(e, false, |el, cx| {
                if profiling {
                    cx.run_task_profiled(el, TaskId(t));
                    1
                } else if offer > 1 {
                    el.run_task_runs(TaskId(t), offer, cx).clamp(1, offer)
                } else {
                    el.run_task(TaskId(t), cx);
                    1
                }
            })
            .unwrap_or(1);
        if let Some(start) = start {
            let ti = &rt.tasks[t as usize];
            let spent = super::slot::cycle_counter().saturating_sub(start);
            ti.cycles
                .store(ti.cycles.load(Ordering::Relaxed) + spent, Ordering::Relaxed);
        }
        used
    }

    /// How many times in a row Click's driver would run task `t`, now at
    /// `pass`, before another task or a timer check: at most `budget`, and
    /// only while its pass stays below the next waiting task's (a tie goes
    /// to the waiting task). 1 unless every element the task's element
    /// pushes to, directly or further on, is batch-transparent as
    /// configured now (asked again after any handler write).
    #[inline]
    fn runs_in_a_row(
        &mut self,
        rt: &RouterInner,
        t: u32,
        pass: u64,
        stride: u64,
        budget: usize,
    ) -> u32 {
        // The coalescing answer first: for the tasks that never coalesce
        // (the IP router's, which take turns) it is one compare with a
        // stamp, cheaper than the look at the queue's front.
        if !self.may_coalesce(rt, t) {
            return 1;
        }
        let front = match self.runq.front() {
            None => None,
            Some(Entry { pass: front, .. }) if front > pass + stride => Some(front),
            Some(_) => return 1,
        };
        let budget = u32::try_from(budget).unwrap_or(u32::MAX);
        match front {
            None => budget,
            Some(front) => {
                u32::try_from(1 + (front - pass - 1) / stride).map_or(budget, |k| k.min(budget))
            }
        }
    }

    /// Whether task `t`'s element pushes only into batch-transparent
    /// elements, as they are configured now (asked again after any
    /// handler write).
    #[inline]
    fn may_coalesce(&mut self, rt: &RouterInner, t: u32) -> bool {
        let ti = &rt.tasks[t as usize];
        let stamp = coalesce_stamp(rt);
        let known = ti.coalesce.load(Ordering::Relaxed);
        if known & !1 == stamp {
            return known & 1 == 1;
        }
        let ok = self.push_closure_transparent(rt, ti.element);
        ti.coalesce.store(stamp | u64::from(ok), Ordering::Relaxed);
        ok
    }

    /// Whether every element reached through the push outputs of element
    /// `e` (and theirs, and so on) is batch-transparent. A path back into
    /// `e` is not.
    #[cold]
    #[inline(never)]
    fn push_closure_transparent(&mut self, rt: &RouterInner, e: usize) -> bool {
        let mut seen = vec![false; rt.slots.len()];
        seen[e] = true;
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            for p in rt.outs_of(&rt.slots[x]) {
                let to = p.to as usize;
                if p.to == u32::MAX {
                    continue;
                }
                if to == e {
                    return false;
                }
                if to >= seen.len() || seen[to] {
                    continue;
                }
                seen[to] = true;
                let transparent = Ctx::new(rt, self, to)
                    .enter_and(to, false, |el, _| el.batch_transparent())
                    .unwrap_or(false);
                if !transparent {
                    return false;
                }
                stack.push(to);
            }
        }
        true
    }

    /// Runs the handler writes deferred because their element was busy on
    /// this thread (a downstream element, such as a Script or Counter,
    /// writing to the element that pushed to it).
    fn run_deferred_writes(&mut self, rt: &RouterInner) {
        let mut rounds = 0;
        while !self.deferred_writes.is_empty() && rounds < 16 {
            rounds += 1;
            for (spec, value, from) in std::mem::take(&mut self.deferred_writes) {
                if let Err(e) = rt.call_write(self, &spec, &value, from) {
                    rt.log_line(e);
                }
            }
        }
        self.deferred_writes.clear();
    }

    /// Puts the tasks scheduled at initialization on their run queues.
    fn load_initial(&mut self, rt: &RouterInner) {
        for (i, ti) in rt.tasks.iter().enumerate() {
            if ti.thread.load(Ordering::Relaxed) == self.id && ti.scheduled.load(Ordering::Acquire)
            {
                ti.scheduled.store(false, Ordering::Relaxed);
                self.enqueue_woken(rt, i as u32);
            }
        }
        for (i, ti) in rt.timers.iter().enumerate() {
            let when = ti.expiry.load(Ordering::Acquire);
            if ti.thread.load(Ordering::Relaxed) == self.id && when != i64::MIN {
                self.schedule_timer(rt, i as u32, when);
            }
        }
    }

    /// Schedules the tasks whose descriptors are ready; `timeout` as for
    /// [`super::poll::Poller::wait`]. Returns whether a signal arrived.
    fn poll_descriptors(&mut self, rt: &RouterInner, timeout: Option<Duration>) -> bool {
        let Some(th) = rt.threads.get(self.id) else {
            return false;
        };
        let mut ready = std::mem::take(&mut self.ready);
        let signalled = th.poller.wait(timeout, &mut |t| ready.push(t));
        self.last_poll = rt.clock.now_nsec();
        for t in ready.drain(..) {
            if (t as usize) < rt.tasks.len() {
                self.schedule(rt, t);
            }
        }
        self.ready = ready;
        if signalled {
            super::external::drain_wake();
        }
        signalled
    }
}

/// `TaskInfo::coalesce` without its answer bit, for the router's current
/// handler-write count.
#[inline]
fn coalesce_stamp(rt: &RouterInner) -> u64 {
    (rt.handler_writes.load(Ordering::Acquire) + 1) << 1
}

impl RouterInner {
    /// A panic cut short a run of element `e`'s task or timer (`what`);
    /// `inner`: the element that was running when it happened, if noted
    /// (else `e`). That element is marked failed.
    #[cold]
    #[inline(never)]
    fn failed_in_run(
        &self,
        caught: &super::failure::Caught,
        e: usize,
        inner: Option<usize>,
        what: &str,
    ) {
        let failed = inner.unwrap_or(e);
        let caught = &caught.for_element(failed != e);
        let during = if failed == e {
            what.to_string()
        } else {
            let name = self.info.get(e).map_or("?", |i| i.name.as_str());
            format!("push or pull, in a {what} run of {name}")
        };
        self.count_panic(caught, failed, &during, true);
    }

    /// Counts and logs a caught panic in element `e` while it ran
    /// `during`; with `fail`, takes `e` out of the data path
    /// ([`Slot::mark_failed`]) and records why for its `failed` handler.
    #[cold]
    #[inline(never)]
    pub(crate) fn count_panic(
        &self,
        caught: &super::failure::Caught,
        e: usize,
        during: &str,
        fail: bool,
    ) {
        self.stats.panics.fetch_add(1, Ordering::Relaxed);
        self.stats
            .panic_packets
            .fetch_add(caught.lost as u64, Ordering::Relaxed);
        if fail {
            if let Some(s) = self.slots.get(e) {
                s.mark_failed();
                self.failures.mark(e, caught, during);
            }
        }
        let name = self.info.get(e).map_or("?", |i| i.name.as_str());
        let line = format!(
            "{name}: panic in {during}: {}; {} packets dropped{}",
            caught.describe(),
            caught.lost,
            if fail { "; element marked failed" } else { "" }
        );
        *self
            .stats
            .last_panic
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = line.clone();
        self.log_line(line);
    }

    pub(crate) fn send_remote(&self, thread: usize, r: Remote) {
        let thread = thread.min(self.threads.len() - 1);
        let th = &self.threads[thread];
        th.inbox.lock().unwrap_or_else(|p| p.into_inner()).push(r);
        th.flag.store(true, Ordering::SeqCst);
        th.poller.wake();
    }

    /// Ends the driver: every thread stops at its next pass.
    pub(crate) fn request_quit(&self) {
        self.quit.store(true, Ordering::SeqCst);
        for th in &self.threads {
            th.poller.wake();
        }
    }

    /// Offers the stop event to stop handlers; returns whether the router
    /// should keep running.
    fn handle_stop(&self, sched: &mut ThreadSched) -> bool {
        for &e in &self.stop_handlers {
            let kept = Ctx::new(self, sched, e)
                .enter_and(e, false, |el, cx| el.handle_stop(cx))
                .unwrap_or(false);
            if kept && self.runcount.load(Ordering::Acquire) > 0 {
                return true;
            }
        }
        false
    }
}

impl Router {
    /// Runs the router until it stops: a source says STOP (and no
    /// DriverManager or Script keeps it going), `stop` is written, or
    /// nothing is left to do. Runs `nthreads` threads; returns when all end.
    pub fn run(&self) {
        let rt = &*self.inner;
        std::thread::scope(|s| {
            for id in 1..rt.nthreads {
                s.spawn(move || {
                    pin_thread(rt, id);
                    let mut sched = ThreadSched::new(id);
                    sched.load_initial(rt);
                    run_loop(rt, &mut sched);
                });
            }
            pin_thread(rt, 0);
            let mut sched = ThreadSched::new(0);
            sched.load_initial(rt);
            run_loop(rt, &mut sched);
            rt.request_quit();
        });
    }

    /// Makes a router that stopped runnable again: clears the quit flag
    /// that [`run`](Router::run) leaves set when it returns and sets the
    /// run count to 1, so that `run` can be called again. Tasks still
    /// scheduled and timers still set when it stopped, and work handler
    /// writes scheduled since, run in the next `run` (the fuzz targets
    /// build one router and feed it input after input this way).
    pub fn restart(&self) {
        let rt = &*self.inner;
        rt.quit.store(false, Ordering::SeqCst);
        rt.set_runcount(1);
    }

    /// Makes a scheduler for calling handlers from outside the driver
    /// (after it stopped, or from a control thread): work it schedules is
    /// posted to the driver threads, and elements owned by a running thread
    /// are called when that thread lets go of its lock.
    pub fn external_sched(&self) -> ThreadSched {
        ThreadSched::new(EXTERNAL_IDS.fetch_add(1, Ordering::Relaxed))
    }
}

/// Pins router thread `id` to a processor when `-a` asked for it.
fn pin_thread(rt: &RouterInner, id: usize) {
    let Some(first) = rt.affinity else { return };
    let mut set = nix::sched::CpuSet::new();
    let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = (first + id) % ncpu.max(1);
    if set.set(cpu).is_ok() {
        if let Err(e) = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set) {
            rt.log_line(format!("thread {id}: cannot pin to processor {cpu}: {e}"));
        }
    }
}

/// Stack that nested pushes may use below the driver loop; a push that
/// would start deeper waits in [`ThreadSched::deep_pushes`]. A nested
/// push costs a few hundred bytes of stack, so this allows thousands of
/// nested elements and leaves at least 1 MiB (router threads have 2 MiB,
/// the main thread 8 MiB) for the last element's own work.
pub(crate) const PUSH_STACK_BUDGET: usize = 1 << 20;

fn run_loop(rt: &RouterInner, sched: &mut ThreadSched) {
    sched.mark_stack_top();
    let driver = sched.id == 0;
    sched.hold(rt, sched.id as u32);
    let mut iter: u32 = 0;
    loop {
        if rt.quit.load(Ordering::Acquire) {
            break;
        }
        if let Some(h) = &sched.held {
            rt.locks.bump(h);
        }
        if driver {
            super::external::check(rt, sched);
        }
        if driver && rt.runcount.load(Ordering::Acquire) <= 0 && !rt.handle_stop(sched) {
            break;
        }
        sched.drain_inbox(rt);
        // Tasks first, then timers, as Click's RouterThread::driver does:
        // a task scheduled at initialization runs before a timer set for
        // "now" (Script's first step sees the tasks' first results).
        let mut ran = 0;
        let mut direct = None;
        while ran < TASKS_PER_ITER {
            let Some((pass, t)) = direct.take().or_else(|| sched.next_task(rt)) else {
                break;
            };
            let used;
            (direct, used) = sched.run_one_task(rt, pass, t, TASKS_PER_ITER - ran);
            ran += used.max(1);
            if rt.runcount.load(Ordering::Relaxed) <= 0 || rt.quit.load(Ordering::Relaxed) {
                break;
            }
        }
        if let Some((_, t)) = direct {
            sched.requeue_first(rt, t);
        }
        let timers_ran = rt.runcount.load(Ordering::Acquire) > 0 && sched.run_timers(rt);
        iter = iter.wrapping_add(1);
        if ran > 0 || timers_ran || rt.runcount.load(Ordering::Acquire) <= 0 {
            let due = iter.is_multiple_of(ITERS_PER_POLL)
                || sched.pass_now.wrapping_sub(sched.last_poll) >= POLL_INTERVAL_NS;
            if due && rt.threads[sched.id].poller.has_selects() {
                sched.poll_descriptors(rt, Some(Duration::ZERO));
            }
            continue;
        }
        if !idle(rt, sched, driver) {
            break;
        }
    }
    sched.unpark_all(rt);
    sched.let_go(rt);
}

/// The thread has nothing runnable: wait for work (descriptors, the next
/// timer, other threads, signals). Returns false when the router should
/// end because nothing is left to do.
fn idle(rt: &RouterInner, sched: &mut ThreadSched, driver: bool) -> bool {
    sched.drain_inbox(rt);
    if !sched.runq.is_empty() {
        return true;
    }
    let th = &rt.threads[sched.id];
    // A parked task wakes like a timer.
    let next = match (sched.next_timer(rt), sched.next_parked()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let now = rt.clock.now_nsec();
    if rt.clock.is_simulated() {
        if let Some(when) = next {
            if when > now {
                rt.clock.warp_to(when);
            }
            return true;
        }
    }
    if next.is_none() && driver && rt.nthreads == 1 && !th.poller.has_selects() {
        // Nothing left to do: no task, no timer, no descriptor.
        return false;
    }
    let timeout = match next {
        Some(when) => {
            let wait = rt.clock.real_delay(when - now).max(0);
            if wait < SPIN_WAIT_NS {
                // Too soon to sleep: look at the descriptors and go on.
                if th.poller.has_selects() {
                    sched.poll_descriptors(rt, Some(Duration::ZERO));
                }
                sched.pause(rt);
                return true;
            }
            Some(Duration::from_nanos(wait as u64))
        }
        None if rt.clock.is_simulated() => Some(Duration::from_millis(1)),
        None => None,
    };
    if rt.busy_poll {
        sched.poll_descriptors(rt, Some(Duration::ZERO));
        sched.pause(rt);
        return true;
    }
    th.poller.going_to_sleep();
    if th.flag.load(Ordering::SeqCst)
        || rt.quit.load(Ordering::SeqCst)
        || (driver && (super::external::pending() || rt.runcount.load(Ordering::SeqCst) <= 0))
    {
        th.poller.awake();
        return true;
    }
    let mine = sched.let_go(rt);
    let mut ready = std::mem::take(&mut sched.ready);
    let signalled = th.poller.wait(timeout, &mut |t| ready.push(t));
    th.poller.awake();
    if let Some(m) = mine {
        sched.hold(rt, m);
    }
    for t in ready.drain(..) {
        if (t as usize) < rt.tasks.len() {
            sched.schedule(rt, t);
        }
    }
    sched.ready = ready;
    if signalled {
        super::external::drain_wake();
    }
    true
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rclick_packet::{Packet, PacketBatch, Timestamp};

    use crate::element::{Element, HandlerDef, TaskId, TimerId};
    use crate::registry::Registry;
    use crate::router::{BuildOptions, Ctx, InitCx, Router};

    #[derive(Default)]
    struct Count {
        n: u64,
    }
    impl Element for Count {
        fn class_name(&self) -> &'static str {
            "Count"
        }
        fn port_count(&self) -> &'static str {
            "1/0-1"
        }
        fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
            self.n += batch.len() as u64;
            if cx.noutputs() > 0 {
                cx.push(port, batch);
            }
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("count", 0)]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(self.n.to_string())
        }
    }

    /// Fires its timer every 10 ms, five times, then stops the router.
    #[derive(Default)]
    struct Tick {
        fired: Vec<i64>,
        timer: Option<TimerId>,
    }
    impl Element for Tick {
        fn class_name(&self) -> &'static str {
            "Tick"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            let t = cx.new_timer();
            cx.schedule_timer_after(t, Timestamp::from_msec(10));
            self.timer = Some(t);
            Ok(())
        }
        fn run_timer(&mut self, t: TimerId, cx: &mut Ctx) {
            self.fired.push(cx.now().as_nsec());
            if self.fired.len() < 5 {
                cx.schedule_timer_after(t, Timestamp::from_msec(10));
            } else {
                cx.request_stop();
            }
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("gaps", 0)]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            let gaps: Vec<String> = self
                .fired
                .windows(2)
                .map(|w| ((w[1] - w[0]) / 1_000_000).to_string())
                .collect();
            Ok(gaps.join(" "))
        }
    }

    /// `RunSrc([PER_RUN, LIMIT])`: PER_RUN packets per run (default 1), up
    /// to LIMIT (default 1000), then asks to stop. Takes coalesced runs and
    /// records the size of every batch it pushes.
    struct RunSrc {
        per_run: u64,
        limit: u64,
        sent: u64,
        batches: Vec<u32>,
    }
    impl Default for RunSrc {
        fn default() -> RunSrc {
            RunSrc {
                per_run: 1,
                limit: 1000,
                sent: 0,
                batches: Vec::new(),
            }
        }
    }
    impl RunSrc {
        fn emit(&mut self, runs: u32, cx: &mut Ctx) -> u32 {
            let n = (u64::from(runs) * self.per_run).min(self.limit - self.sent);
            let mut b = PacketBatch::new();
            for _ in 0..n {
                b.push(Packet::from_slice(&[0u8; 60]));
            }
            self.sent += n;
            self.batches.push(n as u32);
            cx.push(0, b);
            if self.sent >= self.limit {
                cx.request_stop();
            } else {
                cx.reschedule();
            }
            n.div_ceil(self.per_run).max(1) as u32
        }
    }
    impl Element for RunSrc {
        fn class_name(&self) -> &'static str {
            "RunSrc"
        }
        fn port_count(&self) -> &'static str {
            "0/1"
        }
        fn processing(&self) -> &'static str {
            "h/h"
        }
        fn configure(
            &mut self,
            conf: &[String],
            _cx: &mut crate::ConfigureCx,
        ) -> Result<(), String> {
            let num = |i: usize, d: u64| {
                conf.get(i)
                    .map_or(Ok(d), |c| c.parse().map_err(|_| "bad number".to_string()))
            };
            self.per_run = num(0, 1)?;
            self.limit = num(1, 1000)?;
            Ok(())
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            cx.new_task(true);
            Ok(())
        }
        fn run_task(&mut self, _t: TaskId, cx: &mut Ctx) -> bool {
            self.emit(1, cx);
            true
        }
        fn run_task_runs(&mut self, _t: TaskId, runs: u32, cx: &mut Ctx) -> u32 {
            self.emit(runs, cx)
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![
                HandlerDef::read("largest", 0),
                HandlerDef::read("batches", 1),
            ]
        }
        fn read_handler(&mut self, id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(match id {
                0 => self.batches.iter().max().copied().unwrap_or(0).to_string(),
                _ => self.batches.len().to_string(),
            })
        }
    }

    /// Counts packets; batch-transparent while its `transparent` handler
    /// says so (initially its configuration argument, default false).
    #[derive(Default)]
    struct Sink {
        n: u64,
        transparent: bool,
    }
    impl Element for Sink {
        fn class_name(&self) -> &'static str {
            "Sink"
        }
        fn port_count(&self) -> &'static str {
            "1/0"
        }
        fn configure(
            &mut self,
            conf: &[String],
            _cx: &mut crate::ConfigureCx,
        ) -> Result<(), String> {
            self.transparent = conf.first().is_some_and(|c| c == "true");
            Ok(())
        }
        fn batch_transparent(&self) -> bool {
            self.transparent
        }
        fn push(&mut self, _port: usize, batch: PacketBatch, _cx: &mut Ctx) {
            self.n += batch.len() as u64;
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![
                HandlerDef::read("count", 0),
                HandlerDef::write("transparent", 1),
            ]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(self.n.to_string())
        }
        fn write_handler(&mut self, _id: u32, v: &str, _cx: &mut Ctx) -> Result<(), String> {
            self.transparent = v == "true";
            Ok(())
        }
    }

    /// At its first timer (at start), writes `true` to `sink.transparent`.
    #[derive(Default)]
    struct Flip;
    impl Element for Flip {
        fn class_name(&self) -> &'static str {
            "Flip"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            let t = cx.new_timer();
            cx.schedule_timer_after(t, Timestamp::from_nsec(0));
            Ok(())
        }
        fn run_timer(&mut self, _t: TimerId, cx: &mut Ctx) {
            cx.call_write("sink.transparent", "true").unwrap();
        }
    }

    fn build(text: &str, simtime: bool) -> Router {
        build_with(text, simtime, false)
    }

    fn build_with(text: &str, simtime: bool, no_coalesce: bool) -> Router {
        let mut r = Registry::new();
        r.add("Count", || Box::<Count>::default(), "");
        r.add("Tick", || Box::<Tick>::default(), "");
        r.add("RunSrc", || Box::<RunSrc>::default(), "");
        r.add("Sink", || Box::<Sink>::default(), "");
        r.add("Flip", || Box::<Flip>::default(), "");
        crate::testing::build_with(
            text,
            &r,
            BuildOptions {
                simtime,
                threads: 1,
                no_coalesce,
                ..Default::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn source_runs_until_stop() {
        let r = build("RunSrc(4, 100) -> a :: Count -> b :: Count;", false);
        r.run();
        assert_eq!(r.read_handler("a.count", "").unwrap(), "100");
        assert_eq!(r.read_handler("b.count", "").unwrap(), "100");
        assert_eq!(
            r.read_handler("a.scheduled", "").unwrap_err(),
            "no 'a.scheduled' handler"
        );
    }

    #[test]
    fn simulated_timers_jump_exactly() {
        let r = build("t :: Tick;", true);
        let start = r.clock().now_nsec();
        r.run();
        assert_eq!(r.read_handler("t.gaps", "").unwrap(), "10 10 10 10");
        assert_eq!(r.clock().now_nsec() - start, 50_000_000);
    }

    #[test]
    fn stride_shares_by_tickets() {
        // Two sources with 1:3 tickets; stop after the first reaches 100.
        let r = build(
            "s1 :: RunSrc(4, 100) -> a :: Count; s2 :: RunSrc(4, 100) -> b :: Count;",
            false,
        );
        r.write_handler("s1.tickets", "256").unwrap();
        r.write_handler("s2.tickets", "768").unwrap();
        r.run();
        let a: u64 = r.read_handler("a.count", "").unwrap().parse().unwrap();
        let b: u64 = r.read_handler("b.count", "").unwrap().parse().unwrap();
        assert_eq!(b, 100);
        assert!((30..=40).contains(&a), "a={a} b={b}");
    }

    #[test]
    fn handler_errors_change_nothing() {
        let r = build("s1 :: RunSrc -> a :: Count;", false);
        assert!(r.write_handler("s1.tickets", "lots").is_err());
        assert_eq!(r.read_handler("s1.tickets", "").unwrap(), "1024");
        assert!(r.write_handler("a.count", "3").is_err());
        assert!(r.read_handler("nosuch.count", "").is_err());
        assert_eq!(r.runcount(), 1);
    }

    fn read_u64(r: &Router, h: &str) -> u64 {
        r.read_handler(h, "").unwrap().parse().unwrap()
    }

    #[test]
    fn lone_source_runs_coalesce_through_transparent_elements() {
        let r = build("s :: RunSrc -> sink :: Sink(true);", false);
        r.run();
        assert_eq!(read_u64(&r, "sink.count"), 1000);
        // TASKS_PER_ITER runs at a time, between timer checks.
        assert_eq!(read_u64(&r, "s.largest"), super::TASKS_PER_ITER as u64);
        assert_eq!(read_u64(&r, "s.batches"), 1000u64.div_ceil(64));
    }

    #[test]
    fn no_coalescing_through_an_opaque_element_or_when_switched_off() {
        let r = build("s :: RunSrc -> sink :: Sink(false);", false);
        r.run();
        assert_eq!(read_u64(&r, "sink.count"), 1000);
        assert_eq!(read_u64(&r, "s.largest"), 1);
        let r = build_with("s :: RunSrc -> sink :: Sink(true);", false, true);
        r.run();
        assert_eq!(read_u64(&r, "s.largest"), 1);
        assert_eq!(read_u64(&r, "s.batches"), 1000);
    }

    #[test]
    fn tasks_that_alternate_are_not_coalesced() {
        // Equal tickets: Click alternates the two sources run by run.
        let r = build(
            "s1 :: RunSrc -> sink :: Sink(true); s2 :: RunSrc -> sink2 :: Sink(true);",
            false,
        );
        r.run();
        assert_eq!(read_u64(&r, "s1.largest"), 1);
        assert_eq!(read_u64(&r, "s2.largest"), 1);
        // 1:3 tickets: the second runs three times for each run of the
        // first, as one coalesced run of 3 (ties go to the waiting task).
        let r = build(
            "s1 :: RunSrc -> sink :: Sink(true); s2 :: RunSrc -> sink2 :: Sink(true);",
            false,
        );
        r.write_handler("s1.tickets", "256").unwrap();
        r.write_handler("s2.tickets", "768").unwrap();
        r.run();
        assert_eq!(read_u64(&r, "s1.largest"), 1);
        // (Strides 256 and 85: sometimes four in a row.)
        assert!((3..=4).contains(&read_u64(&r, "s2.largest")));
        let a = read_u64(&r, "sink.count");
        assert_eq!(read_u64(&r, "sink2.count"), 1000);
        assert!((330..=340).contains(&a), "a={a}");
    }

    #[test]
    fn a_handler_write_is_seen_at_the_next_run() {
        let r = build("s :: RunSrc -> sink :: Sink(false); f :: Flip;", false);
        r.run();
        assert_eq!(read_u64(&r, "sink.count"), 1000);
        // Opaque for the first TASKS_PER_ITER runs (the timer fires after
        // them), coalesced from then on.
        assert_eq!(read_u64(&r, "s.largest"), super::TASKS_PER_ITER as u64);
        assert_eq!(read_u64(&r, "s.batches"), 64 + (1000u64 - 64).div_ceil(64));
    }

    /// A task that keeps its thread busy with slow runs (100 µs each), and
    /// a descriptor that is ready from the start: the thread looks at it
    /// after its first pass of task runs, not after `ITERS_PER_POLL` passes.
    #[test]
    fn a_busy_thread_looks_at_descriptors_by_time() {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        use std::os::unix::net::UnixStream;

        #[derive(Default)]
        struct SlowAndWatch {
            runs: u64,
            seen_after: Option<u64>,
            ends: Option<(UnixStream, UnixStream)>,
        }
        impl Element for SlowAndWatch {
            fn class_name(&self) -> &'static str {
                "SlowAndWatch"
            }
            fn port_count(&self) -> &'static str {
                "0/0"
            }
            fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
                let (mut tx, rx) = UnixStream::pair().map_err(|e| e.to_string())?;
                tx.write_all(b"x").map_err(|e| e.to_string())?;
                cx.new_task(true);
                let watch = cx.new_task(false);
                cx.add_select(rx.as_raw_fd(), crate::router::Select::Read, watch);
                self.ends = Some((tx, rx));
                Ok(())
            }
            fn run_task(&mut self, t: TaskId, cx: &mut Ctx) -> bool {
                if t.0 == 0 {
                    self.runs += 1;
                    std::thread::sleep(std::time::Duration::from_micros(100));
                    if self.runs
                        < 10 * (super::TASKS_PER_ITER as u64) * u64::from(super::ITERS_PER_POLL)
                    {
                        cx.reschedule();
                    } else {
                        cx.request_stop();
                    }
                } else if self.seen_after.is_none() {
                    self.seen_after = Some(self.runs);
                    cx.request_stop();
                }
                true
            }
            fn handlers(&self) -> Vec<HandlerDef> {
                vec![HandlerDef::read("seen_after", 0)]
            }
            fn read_handler(
                &mut self,
                _id: u32,
                _p: &str,
                _cx: &mut Ctx,
            ) -> Result<String, String> {
                Ok(self.seen_after.map_or("never".into(), |n| n.to_string()))
            }
        }
        let mut reg = Registry::new();
        reg.add("SlowAndWatch", || Box::<SlowAndWatch>::default(), "");
        let r = crate::testing::build_with(
            "w :: SlowAndWatch;",
            &reg,
            BuildOptions {
                threads: 1,
                ..Default::default()
            },
        )
        .unwrap();
        r.run();
        let seen = r.read_handler("w.seen_after", "").unwrap();
        // By passes alone it would be seen after ITERS_PER_POLL passes of
        // TASKS_PER_ITER runs (512).
        let n: u64 = seen.trim().parse().unwrap_or(u64::MAX);
        assert!(
            n <= 2 * super::TASKS_PER_ITER as u64,
            "seen after {seen} runs"
        );
    }

    /// Two tasks of one element, placed on threads 0 and 1, whose
    /// thread-safe ports run them: both are inside at the same time (each
    /// waits for the other to arrive), which taking the element would
    /// forbid; each pushes into a shared counter from its own thread.
    #[test]
    fn concurrent_tasks_run_at_once_on_their_threads() {
        use crate::element::ConcurrentPorts;
        use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

        #[derive(Default)]
        struct Both {
            inside: AtomicU32,
            met: AtomicU32,
            runs: [AtomicU64; 2],
            wrong_thread: AtomicU32,
        }
        impl ConcurrentPorts for Both {
            fn runs_tasks(&self) -> bool {
                true
            }
            fn run_task(&self, t: TaskId, cx: &mut Ctx) -> bool {
                let i = t.0 as usize;
                if cx.thread_id() != i {
                    self.wrong_thread.fetch_add(1, Ordering::Relaxed);
                }
                self.runs[i].fetch_add(1, Ordering::Relaxed);
                self.inside.fetch_add(1, Ordering::SeqCst);
                let t0 = std::time::Instant::now();
                while self.inside.load(Ordering::SeqCst) < 2
                    && t0.elapsed() < std::time::Duration::from_secs(5)
                {
                    std::hint::spin_loop();
                }
                if self.inside.load(Ordering::SeqCst) >= 2 {
                    self.met.fetch_add(1, Ordering::SeqCst);
                }
                cx.push(0, PacketBatch::from(Packet::from_slice(&[0u8; 60])));
                if i == 0 {
                    // Wait for the other one to have seen us too, then stop.
                    while self.met.load(Ordering::SeqCst) < 2
                        && t0.elapsed() < std::time::Duration::from_secs(5)
                    {
                        std::hint::spin_loop();
                    }
                    cx.request_stop();
                }
                false
            }
        }
        #[derive(Default)]
        struct Spread {
            both: Arc<Both>,
        }
        impl Element for Spread {
            fn class_name(&self) -> &'static str {
                "Spread"
            }
            fn port_count(&self) -> &'static str {
                "0/1"
            }
            fn processing(&self) -> &'static str {
                "h/h"
            }
            fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
                for th in 0..2 {
                    let t = cx.new_task(true);
                    cx.set_task_thread(t, th);
                }
                Ok(())
            }
            fn run_task(&mut self, t: TaskId, cx: &mut Ctx) -> bool {
                self.both.run_task(t, cx)
            }
            fn concurrent_ports(&self) -> Option<Arc<dyn ConcurrentPorts>> {
                Some(self.both.clone())
            }
            fn handlers(&self) -> Vec<HandlerDef> {
                vec![HandlerDef::read("state", 0)]
            }
            fn read_handler(
                &mut self,
                _id: u32,
                _p: &str,
                _cx: &mut Ctx,
            ) -> Result<String, String> {
                let b = &self.both;
                Ok(format!(
                    "met {} runs {} {} wrong {}",
                    b.met.load(Ordering::SeqCst),
                    b.runs[0].load(Ordering::SeqCst),
                    b.runs[1].load(Ordering::SeqCst),
                    b.wrong_thread.load(Ordering::SeqCst)
                ))
            }
        }
        let mut r = Registry::new();
        r.add("Spread", || Box::<Spread>::default(), "");
        r.add("Count", || Box::<Count>::default(), "");
        let router = crate::testing::build_with(
            "s :: Spread -> c :: Count;",
            &r,
            BuildOptions {
                threads: 2,
                ..Default::default()
            },
        )
        .unwrap();
        // Reached from both threads: shared.
        assert_eq!(router.element_owner(router.find("c").unwrap()), None);
        router.run();
        assert_eq!(
            router.read_handler("s.state", "").unwrap(),
            "met 2 runs 1 1 wrong 0"
        );
        assert_eq!(router.read_handler("c.count", "").unwrap(), "2");
    }
}
