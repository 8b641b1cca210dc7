//! An element and the lock that lets one thread at a time run it.
//!
//! This is the one module of the core with `unsafe` code. The lock is a
//! single word: `0` when free, `1 + thread` while a thread runs the element.
//! Taking it is one compare-and-swap, releasing it one plain store, so an
//! uncontended call into a neighbour costs two cheap atomic operations (a
//! `std::sync::Mutex` needs two read-modify-writes). The owner word also
//! tells a re-entrant call (the same thread, still inside the element)
//! from a contended one (another thread: wait).
//!
//! It also reads the processor's time-stamp counter for the element cost
//! profile ([`cycle_counter`]), the one other `unsafe` call of the core.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::element::Element;

/// Why a call into an element could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotBusy {
    /// The element is already running on this thread (a push loop back
    /// into an element that is still pushing).
    Reentrant,
}

/// One element behind its lock.
pub(crate) struct Slot {
    /// 1 + index of the thread holding the lock, 0 when free.
    owner: AtomicUsize,
    element: UnsafeCell<Box<dyn Element>>,
}

// SAFETY: the element is only reached through a `SlotGuard`, and a guard
// exists only while `owner` holds the guard's thread, which `lock` sets with
// a compare-and-swap from 0; so at most one thread has access at a time.
// `Element: Send`, so handing the element from thread to thread is sound.
unsafe impl Sync for Slot {}

/// Exclusive access to a slot's element; releases the lock on drop.
pub(crate) struct SlotGuard<'a> {
    slot: &'a Slot,
}

impl std::ops::Deref for SlotGuard<'_> {
    type Target = Box<dyn Element>;
    fn deref(&self) -> &Self::Target {
        // SAFETY: this guard holds the lock (see `Slot::lock`), so no other
        // reference to the element exists.
        unsafe { &*self.slot.element.get() }
    }
}

impl std::ops::DerefMut for SlotGuard<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        // SAFETY: as for `deref`; `&mut self` makes this the only borrow
        // through this guard, and there is one guard per lock.
        unsafe { &mut *self.slot.element.get() }
    }
}

impl Drop for SlotGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        self.slot.owner.store(0, Ordering::Release);
    }
}

impl Slot {
    pub(crate) fn new(e: Box<dyn Element>) -> Slot {
        Slot {
            owner: AtomicUsize::new(0),
            element: UnsafeCell::new(e),
        }
    }

    /// Locks the element for thread `thread`: at once when free, after
    /// waiting when another thread runs it, `Reentrant` when this thread
    /// already does.
    #[inline]
    pub(crate) fn lock(&self, thread: usize) -> Result<SlotGuard<'_>, SlotBusy> {
        let me = thread.wrapping_add(1).max(1);
        let mut spins = 0u32;
        loop {
            match self
                .owner
                .compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return Ok(SlotGuard { slot: self }),
                Err(cur) if cur == me => return Err(SlotBusy::Reentrant),
                Err(0) => continue,
                Err(_) => {
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    struct E(u64);
    impl Element for E {
        fn class_name(&self) -> &'static str {
            "E"
        }
    }

    #[test]
    fn cycle_counter_moves_forward() {
        let a = cycle_counter();
        std::thread::sleep(std::time::Duration::from_millis(1));
        assert!(cycle_counter() > a);
    }

    #[test]
    fn reentrant_is_detected_and_released_on_drop() {
        let s = Slot::new(Box::new(E(0)));
        let g = s.lock(3).unwrap();
        assert_eq!(s.lock(3).err(), Some(SlotBusy::Reentrant));
        drop(g);
        assert!(s.lock(3).is_ok());
    }

    #[test]
    fn threads_exclude_each_other() {
        let s = std::sync::Arc::new(Slot::new(Box::new(E(0))));
        let mut hs = Vec::new();
        for t in 0..4 {
            let s = s.clone();
            hs.push(std::thread::spawn(move || {
                for _ in 0..10_000 {
                    let mut g = s.lock(t).unwrap();
                    let e = g.downcast_mut::<E>().unwrap();
                    e.0 += 1;
                }
            }));
        }
        for h in hs {
            h.join().unwrap();
        }
        let mut g = s.lock(9).unwrap();
        assert_eq!(g.downcast_mut::<E>().unwrap().0, 40_000);
    }
}
