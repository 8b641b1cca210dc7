//! Elements behind their access rules, and the per-thread locks that make
//! most element calls free of atomic read-modify-writes.
//!
//! This is the one module of the core with `unsafe` code besides the
//! poller's. The rules it enforces:
//!
//! * Each router thread `T` has a **thread lock** ([`ThreadLocks`]). The
//!   thread holds it while it runs tasks and timers, yields it fairly to
//!   waiters between tasks ([`ThreadLocks::bump`]), and lets go of it while
//!   it sleeps or waits for anything.
//! * Each element ([`Slot`]) has an **owner**: a thread lock index, when the
//!   build's thread analysis found that only that thread reaches it, or
//!   [`SHARED`], or [`CONCURRENT`] (shared, and its ports may be called by
//!   several threads at once through [`ConcurrentPorts`]).
//! * The slot's `state` word is 0 when the element is free and `1 + caller`
//!   while a call is inside it. Whoever holds thread lock `T` takes an
//!   element owned by `T` with a plain load and store (no atomic
//!   read-modify-write, no fence): nobody else may touch it, because
//!   touching it needs lock `T`. A shared element is taken with a
//!   compare-and-swap by anyone.
//! * The owner of a slot changes only while every thread lock is held by the
//!   one changing it ([`Slot::set_owner`] is called by the re-balancer under
//!   [`ThreadLocks::try_acquire_all`]).
//!
//! So a caller that holds lock `T` and finds an element owned by `U != T`
//! must let go of `T`, take `U`, make the call, and go back
//! ([`Busy::Foreign`]; `Ctx` does this). The thread analysis only decides how
//! often that happens; the rules above keep every call exclusive whatever it
//! found.
//!
//! It also reads the processor's time-stamp counter for the element cost
//! profile ([`cycle_counter`]).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::Duration;

use lock_api::{RawMutex as _, RawMutexFair as _, RawMutexTimed as _};

use crate::element::Element;

/// `Slot::owner` of an element that several threads reach: taken with a
/// compare-and-swap.
pub(crate) const SHARED: u32 = u32::MAX - 1;
/// `Slot::owner` of a shared element whose ports are thread-safe
/// ([`Element::concurrent_ports`]): pushes and pulls go there without
/// taking the element; everything else takes it as [`SHARED`].
pub(crate) const CONCURRENT: u32 = u32::MAX - 2;
/// `Slot::owner` of an element that panicked (`failure.rs`): no thread
/// lock matches it, so pushes, pulls, tasks and timers never enter it
/// again (`SlotBusy::Failed`: the packets are dropped and counted);
/// handlers and cleanup take it as a [`SHARED`] one. Set once, never
/// changed back (a hot swap builds a new element).
pub(crate) const FAILED: u32 = u32::MAX - 3;
/// `ThreadSched::held` when no thread lock is held.
pub(crate) const NO_LOCK: u32 = u32::MAX;

/// Why a call into an element could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotBusy {
    /// The element is already running on this thread (a push loop back
    /// into an element that is still pushing), or on a thread that let go
    /// of its thread lock in the middle of a call.
    Reentrant,
    /// The element belongs to thread lock `n`, which the caller does not
    /// hold.
    Foreign(u32),
    /// The element's ports are [`ConcurrentPorts`]: call those.
    Concurrent,
    /// A shared element that another thread is running.
    Contended,
    /// The element panicked and is out of the data path.
    Failed,
}

/// One element behind its access rules (see the module documentation).
/// A call writes `state`, so each slot fills one cache line of its own:
/// elements owned by different threads never share a line.
#[repr(align(64))]
pub(crate) struct Slot {
    /// 1 + the caller's id while a call is inside the element, 0 when free.
    state: AtomicUsize,
    /// A thread lock index, [`SHARED`] or [`CONCURRENT`].
    owner: AtomicU32,
    /// The element's index in its router.
    pub(crate) id: u32,
    /// The element's outputs in `RouterInner::outs`: start, count.
    pub(crate) outs: (u32, u32),
    /// The element's inputs in `RouterInner::ins`: start, count.
    pub(crate) ins: (u32, u32),
    /// The next element of the fused chain this element is in (the one
    /// its output 0 leads to), when there is one.
    pub(crate) next: u32,
    /// At least 2 when a fused chain starts here (its length is where
    /// `next` ends), else 0.
    pub(crate) chain: u32,
    element: UnsafeCell<Box<dyn Element>>,
    /// Whether the element has thread-safe ports (kept in
    /// `RouterInner::concurrent`).
    concurrent: bool,
    /// Whether those ports also run the element's tasks.
    concurrent_tasks: bool,
}

// SAFETY: the element is only reached through a `SlotGuard`. A guard is
// made only by `enter*`, which either (a) compare-and-swaps `state` from 0
// (shared slots), or (b) for a slot owned by thread lock `T`, is called by
// the holder of `T` (the caller passes the index of the lock it holds,
// which `ThreadSched::held` tracks from `ThreadLocks::acquire`), so no other
// thread can run `enter*` on it at the same time, and `state` tells whether
// a call on this holder's side is still inside. The owner changes only under
// every thread lock. So at most one guard exists per slot at a time.
// `Element: Send`, so handing the element from thread to thread is sound.
unsafe impl Sync for Slot {}

/// Exclusive access to a slot's element; releases it on drop.
pub(crate) struct SlotGuard<'a> {
    slot: &'a Slot,
}

impl std::ops::Deref for SlotGuard<'_> {
    type Target = Box<dyn Element>;
    #[inline(always)]
    fn deref(&self) -> &Self::Target {
        // SAFETY: this guard is the only one for its slot (see `Slot`), so
        // no other reference to the element exists.
        unsafe { &*self.slot.element.get() }
    }
}

impl std::ops::DerefMut for SlotGuard<'_> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Self::Target {
        // SAFETY: as for `deref`; `&mut self` makes this the only borrow
        // through this guard.
        unsafe { &mut *self.slot.element.get() }
    }
}

impl Drop for SlotGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.slot.state.store(0, Ordering::Release);
    }
}

impl Slot {
    /// A slot for `e`; `ports`: its thread-safe ports, if any (they are
    /// kept in `RouterInner::concurrent`).
    pub(crate) fn new(
        e: Box<dyn Element>,
        ports: Option<&std::sync::Arc<dyn crate::element::ConcurrentPorts>>,
    ) -> Slot {
        let concurrent = ports.is_some();
        let concurrent_tasks = ports.is_some_and(|c| c.runs_tasks());
        Slot {
            state: AtomicUsize::new(0),
            owner: AtomicU32::new(if concurrent { CONCURRENT } else { SHARED }),
            id: u32::MAX,
            outs: (0, 0),
            ins: (0, 0),
            next: u32::MAX,
            chain: 0,
            element: UnsafeCell::new(e),
            concurrent,
            concurrent_tasks,
        }
    }

    /// The slot's owner: a thread lock index, [`SHARED`] or [`CONCURRENT`].
    #[inline]
    pub(crate) fn owner(&self) -> u32 {
        self.owner.load(Ordering::Relaxed)
    }

    /// Sets the owner. The caller must hold every thread lock
    /// (`all` proves it), or have the router to itself (`&mut`).
    pub(crate) fn set_owner(&self, owner: u32, all: &AllHeld) {
        let _ = all;
        if self.failed() {
            return;
        }
        let owner = if self.concurrent && owner == SHARED {
            CONCURRENT
        } else {
            owner
        };
        self.owner.store(owner, Ordering::Relaxed);
    }

    /// Takes the element out of the data path for good (it panicked): see
    /// [`FAILED`]. Never grants access, so it needs no lock: a caller
    /// inside the element now finishes and lets go as usual.
    pub(crate) fn mark_failed(&self) {
        self.owner.store(FAILED, Ordering::Relaxed);
    }

    /// Whether the element panicked ([`Slot::mark_failed`]).
    #[inline]
    pub(crate) fn failed(&self) -> bool {
        self.owner.load(Ordering::Relaxed) == FAILED
    }

    /// Sets the owner while the router is being built (nobody runs it).
    pub(crate) fn set_owner_unshared(&mut self, owner: u32) {
        let owner = if self.concurrent && owner == SHARED {
            CONCURRENT
        } else {
            owner
        };
        *self.owner.get_mut() = owner;
    }

    /// Enters the element for a push or pull from the holder of thread lock
    /// `held` (caller tag `tag`: nonzero, unique to the calling scheduler):
    /// at once when this lock owns it and it is free; otherwise says why not
    /// (`Concurrent` for elements with thread-safe ports, which the caller
    /// then calls instead).
    #[inline(always)]
    pub(crate) fn enter_port(&self, held: u32, tag: usize) -> Result<SlotGuard<'_>, SlotBusy> {
        let owner = self.owner.load(Ordering::Relaxed);
        if owner == held {
            return self.enter_owned(tag);
        }
        self.enter_other(owner, tag, true)
    }

    /// Enters the element for anything else (a task, a timer, a handler):
    /// as [`Slot::enter_port`], but a [`CONCURRENT`] element is taken as a
    /// shared one.
    #[inline(always)]
    pub(crate) fn enter(&self, held: u32, tag: usize) -> Result<SlotGuard<'_>, SlotBusy> {
        let owner = self.owner.load(Ordering::Relaxed);
        if owner == held {
            return self.enter_owned(tag);
        }
        self.enter_other(owner, tag, false)
    }

    /// Enters the element for a task run: as [`Slot::enter`], except that
    /// a [`CONCURRENT`] element whose thread-safe ports also run its tasks
    /// is not entered (`Concurrent`: call [`Slot::task_runner`]'s instead).
    #[inline(always)]
    pub(crate) fn enter_task(&self, held: u32, tag: usize) -> Result<SlotGuard<'_>, SlotBusy> {
        let owner = self.owner.load(Ordering::Relaxed);
        if owner == held {
            return self.enter_owned(tag);
        }
        if owner == FAILED {
            return Err(SlotBusy::Failed);
        }
        self.enter_other(owner, tag, self.concurrent_tasks)
    }

    /// Whether this element's tasks run through its thread-safe ports
    /// without entering it (it is [`CONCURRENT`] and they say so:
    /// `ConcurrentPorts::runs_tasks`).
    pub(crate) fn tasks_run_concurrently(&self) -> bool {
        self.concurrent_tasks && self.owner() == CONCURRENT
    }

    #[inline(always)]
    fn enter_owned(&self, tag: usize) -> Result<SlotGuard<'_>, SlotBusy> {
        // Only the holder of the owning thread lock gets here (see
        // `Slot`): a plain load and store suffice.
        if self.state.load(Ordering::Relaxed) != 0 {
            return Err(SlotBusy::Reentrant);
        }
        self.state.store(tag, Ordering::Relaxed);
        Ok(SlotGuard { slot: self })
    }

    /// Calls `f` on the element with `arg` when the holder of thread lock
    /// `held` can take it with a plain load and store (it owns it and it is
    /// free), releasing it after; gives `arg` back otherwise. The per-call
    /// path of fused chains.
    #[inline(always)]
    pub(crate) fn call_owned<T, R>(
        &self,
        held: u32,
        tag: usize,
        arg: T,
        f: impl FnOnce(&mut dyn Element, T) -> R,
    ) -> Result<R, T> {
        if self.owner.load(Ordering::Relaxed) != held || self.state.load(Ordering::Relaxed) != 0 {
            return Err(arg);
        }
        self.state.store(tag, Ordering::Relaxed);
        // Frees the element if `f` panics (forgotten when it returns, so
        // the normal path pays nothing for it).
        let unwinding = FreeOnUnwind(self);
        // SAFETY: only the holder of the owning thread lock gets here (see
        // `Slot`) and the element was free; its state now holds the
        // caller's tag, so this is the only reference to the element until
        // the store below (or `unwinding`'s drop) releases it.
        let r = f(unsafe { &mut **self.element.get() }, arg);
        std::mem::forget(unwinding);
        self.state.store(0, Ordering::Release);
        Ok(r)
    }

    #[cold]
    #[inline(never)]
    fn enter_other(&self, owner: u32, tag: usize, ports: bool) -> Result<SlotGuard<'_>, SlotBusy> {
        if owner == FAILED && ports {
            return Err(SlotBusy::Failed);
        }
        if owner == CONCURRENT && ports {
            return Err(SlotBusy::Concurrent);
        }
        if owner != SHARED && owner != CONCURRENT && owner != FAILED {
            return Err(SlotBusy::Foreign(owner));
        }
        let id = tag;
        for _ in 0..64 {
            match self
                .state
                .compare_exchange_weak(0, id, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return Ok(SlotGuard { slot: self }),
                Err(cur) if cur == id => return Err(SlotBusy::Reentrant),
                Err(0) => continue,
                Err(_) => std::hint::spin_loop(),
            }
        }
        Err(SlotBusy::Contended)
    }
}

/// Lets go of a slot entered by [`Slot::call_owned`] when the call
/// panics (dropped only while unwinding).
struct FreeOnUnwind<'a>(&'a Slot);

impl Drop for FreeOnUnwind<'_> {
    #[cold]
    fn drop(&mut self) {
        self.0.state.store(0, Ordering::Release);
    }
}

/// A cache line of its own for each thread lock.
#[repr(align(64))]
struct Padded(parking_lot::RawMutex);

/// The router threads' locks (see the module documentation).
pub(crate) struct ThreadLocks {
    locks: Box<[Padded]>,
}

/// Proof that the caller holds thread lock `index` of one [`ThreadLocks`].
/// Made only by acquiring it; given back to release it.
#[derive(Debug)]
pub(crate) struct Held {
    locks: usize,
    index: u32,
}

impl Held {
    /// The lock's index.
    #[inline]
    pub(crate) fn index(&self) -> u32 {
        self.index
    }
}

/// Proof that the caller holds every thread lock of one [`ThreadLocks`].
#[derive(Debug)]
pub(crate) struct AllHeld {
    held: Vec<Held>,
}

impl ThreadLocks {
    pub(crate) fn new(n: usize) -> ThreadLocks {
        ThreadLocks {
            locks: (0..n.max(1))
                .map(|_| Padded(<parking_lot::RawMutex as lock_api::RawMutex>::INIT))
                .collect(),
        }
    }

    /// How many there are (one per router thread).
    pub(crate) fn len(&self) -> usize {
        self.locks.len()
    }

    fn id(&self) -> usize {
        self as *const ThreadLocks as usize
    }

    /// Takes lock `index`, waiting as long as it takes. The caller must
    /// hold no other thread lock of this set (so that no two threads can
    /// wait for each other).
    pub(crate) fn acquire(&self, index: u32) -> Held {
        self.locks[index as usize].0.lock();
        Held {
            locks: self.id(),
            index,
        }
    }

    /// Takes every lock, in index order, each within `wait`; `None` (and
    /// nothing held) if one could not be had in time. The caller must hold
    /// none of them.
    pub(crate) fn try_acquire_all(&self, wait: Duration) -> Option<AllHeld> {
        let mut held = Vec::with_capacity(self.locks.len());
        for (i, l) in self.locks.iter().enumerate() {
            if !l.0.try_lock_for(wait) {
                for h in held {
                    self.release(h);
                }
                return None;
            }
            held.push(Held {
                locks: self.id(),
                index: i as u32,
            });
        }
        Some(AllHeld { held })
    }

    /// Gives back every lock taken by [`ThreadLocks::try_acquire_all`].
    pub(crate) fn release_all(&self, all: AllHeld) {
        for h in all.held {
            self.release(h);
        }
    }

    /// Releases a lock taken with [`ThreadLocks::acquire`].
    pub(crate) fn release(&self, h: Held) {
        assert_eq!(
            h.locks,
            self.id(),
            "thread lock released on the wrong router"
        );
        // SAFETY: `h` was made by acquiring this very lock (its `locks`
        // address and index say so) and is consumed here, so the lock is
        // held and released once.
        unsafe { self.locks[h.index as usize].0.unlock() }
    }

    /// Lets a thread waiting for lock `h` in (fairly), then takes it back;
    /// costs one load when nobody waits.
    #[inline]
    pub(crate) fn bump(&self, h: &Held) {
        debug_assert_eq!(h.locks, self.id());
        // SAFETY: `h` proves the lock is held by the caller.
        unsafe { self.locks[h.index as usize].0.bump() }
    }
}

/// The processor's time-stamp counter (x86-64: `rdtsc`, counting at the
/// nominal frequency on processors with a constant TSC); elsewhere,
/// nanoseconds of a monotonic clock. For the element cost profile only.
#[inline(always)]
pub(crate) fn cycle_counter() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` exists on every x86-64 processor, reads a counter
        // and touches no memory; its only precondition is that the
        // instruction is available, which the target architecture
        // guarantees.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        EPOCH
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}

/// The stack pointer: how deep this thread's stack is (it grows down).
/// Read from the register, not as the address of a local: a local whose
/// address is taken keeps [`Ctx::push`](super::Ctx::push)'s callers from
/// ending in a tail call, which cost a quarter more time per packet on 32
/// nested Nulls.
#[inline(always)]
pub(crate) fn stack_pointer() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let sp: usize;
        // SAFETY: copies the stack pointer register into a general
        // register; reads and writes no memory and changes no flags.
        unsafe {
            core::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags));
        }
        sp
    }
    #[cfg(target_arch = "aarch64")]
    {
        let sp: usize;
        // SAFETY: as for x86-64: a register copy, no memory, no flags.
        unsafe {
            core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
        }
        sp
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let here = 0u8;
        std::ptr::addr_of!(here) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct E(u64);
    impl Element for E {
        fn class_name(&self) -> &'static str {
            "E"
        }
    }

    /// Each slot, task record and thread record has cache lines of its
    /// own, so that threads never write one line by accident.
    #[test]
    fn per_thread_state_fills_whole_cache_lines() {
        use std::mem::{align_of, size_of};
        assert_eq!((size_of::<Slot>(), align_of::<Slot>()), (64, 64));
        assert_eq!(align_of::<super::super::TaskInfo>(), 64);
        assert_eq!(align_of::<super::super::ThreadShared>(), 64);
    }

    #[test]
    fn cycle_counter_moves_forward() {
        let a = cycle_counter();
        std::thread::sleep(std::time::Duration::from_millis(1));
        assert!(cycle_counter() > a);
    }

    #[test]
    fn reentrant_is_detected_and_released_on_drop() {
        let s = Slot::new(Box::new(E(0)), None);
        let g = s.enter(NO_LOCK, 4).unwrap();
        assert_eq!(s.enter(NO_LOCK, 4).err(), Some(SlotBusy::Reentrant));
        drop(g);
        assert!(s.enter(NO_LOCK, 4).is_ok());
    }

    #[test]
    fn owned_slots_need_their_lock() {
        let mut s = Slot::new(Box::new(E(0)), None);
        s.set_owner_unshared(1);
        assert_eq!(s.enter(0, 1).err(), Some(SlotBusy::Foreign(1)));
        assert_eq!(s.enter(NO_LOCK, 8).err(), Some(SlotBusy::Foreign(1)));
        let g = s.enter(1, 6).unwrap();
        assert_eq!(s.enter(1, 6).err(), Some(SlotBusy::Reentrant));
        drop(g);
        assert!(s.enter_port(1, 6).is_ok());
    }

    #[test]
    fn failed_slots_refuse_ports_and_tasks_but_not_handlers() {
        let mut s = Slot::new(Box::new(E(0)), None);
        s.set_owner_unshared(0);
        assert!(!s.failed());
        s.mark_failed();
        assert!(s.failed());
        assert_eq!(s.enter_port(0, 1).err(), Some(SlotBusy::Failed));
        assert_eq!(s.enter_task(0, 1).err(), Some(SlotBusy::Failed));
        assert!(s.call_owned(0, 1, 7, |_, x| x).is_err());
        // Handlers and cleanup still get in (as into a shared element).
        assert!(s.enter(0, 1).is_ok());
        // The re-balancer does not bring it back.
        let locks = ThreadLocks::new(1);
        let all = locks.try_acquire_all(Duration::from_millis(10)).unwrap();
        s.set_owner(0, &all);
        locks.release_all(all);
        assert!(s.failed());
    }

    #[test]
    fn a_panic_in_a_fused_call_frees_the_element() {
        let mut s = Slot::new(Box::new(E(0)), None);
        s.set_owner_unshared(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = s.call_owned(0, 1, (), |_, _| panic!("in the call"));
        }));
        assert!(r.is_err());
        assert_eq!(s.call_owned(0, 1, 5, |_, x| x + 1).ok(), Some(6));
    }

    #[test]
    fn shared_slots_report_contention() {
        let s = Slot::new(Box::new(E(0)), None);
        let g = s.enter(NO_LOCK, 2).unwrap();
        assert_eq!(s.enter(NO_LOCK, 3).err(), Some(SlotBusy::Contended));
        drop(g);
        assert!(s.enter(NO_LOCK, 3).is_ok());
    }

    #[test]
    fn threads_exclude_each_other() {
        let s = std::sync::Arc::new(Slot::new(Box::new(E(0)), None));
        let mut hs = Vec::new();
        for t in 0..4 {
            let s = s.clone();
            hs.push(std::thread::spawn(move || {
                for _ in 0..10_000 {
                    let mut g = loop {
                        match s.enter(NO_LOCK, t + 1) {
                            Ok(g) => break g,
                            Err(SlotBusy::Contended) => std::thread::yield_now(),
                            Err(e) => panic!("{e:?}"),
                        }
                    };
                    let e = g.downcast_mut::<E>().unwrap();
                    e.0 += 1;
                }
            }));
        }
        for h in hs {
            h.join().unwrap();
        }
        let mut g = s.enter(NO_LOCK, 10).unwrap();
        assert_eq!(g.downcast_mut::<E>().unwrap().0, 40_000);
    }

    #[test]
    fn thread_locks_hand_over() {
        let locks = std::sync::Arc::new(ThreadLocks::new(2));
        let h = locks.acquire(0);
        assert!(locks.try_acquire_all(Duration::from_millis(1)).is_none());
        // A failed try_acquire_all keeps nothing: lock 1 is free.
        let h1 = locks.acquire(1);
        locks.release(h1);
        let l2 = locks.clone();
        let t = std::thread::spawn(move || {
            let h = l2.acquire(0);
            l2.release(h);
        });
        // Bump until the other thread got its turn.
        while !t.is_finished() {
            locks.bump(&h);
            std::thread::yield_now();
        }
        t.join().unwrap();
        locks.release(h);
        let all = locks.try_acquire_all(Duration::from_millis(10)).unwrap();
        locks.release_all(all);
        let all = locks.try_acquire_all(Duration::from_millis(10)).unwrap();
        locks.release_all(all);
    }
}
