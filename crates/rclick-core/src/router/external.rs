//! Events from outside the driver, chiefly Unix signals.
//!
//! A signal handler may do almost nothing: it may not lock, allocate or
//! touch a router. So it only raises a process-wide flag here ([`flag`],
//! [`raise`], [`request_stop`]); the driver thread checks it on every pass
//! of its loop (at most a few milliseconds apart, even when idle). Then it
//! asks the hook set with [`set_stop_check`] whether the router should stop
//! (Click's driver on SIGINT/SIGTERM sets the run count to
//! [`STOP_RUNCOUNT`](super::STOP_RUNCOUNT)), and schedules the tasks
//! registered with
//! [`InitCx::wake_on_external_event`](super::InitCx::wake_on_external_event)
//! (Script TYPE SIGNAL).
//!
//! So that an idle driver (sleeping until its next timer) reacts at once,
//! the handler may also write a byte to a wake-up channel ([`waker`], a
//! connected pair of Unix sockets used as a self-pipe): the driver thread's
//! poller watches its other end ([`wake_fd`]).

use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use super::sched::ThreadSched;
use super::{RouterInner, STOP_RUNCOUNT};

static RAISED: OnceLock<Arc<AtomicBool>> = OnceLock::new();
static STOP: AtomicBool = AtomicBool::new(false);
static STOP_CHECK: RwLock<Option<fn() -> bool>> = RwLock::new(None);

/// The process-wide "external event" flag, for code that sets it from a
/// signal handler (`signal_hook::flag::register(sig, flag())`).
pub fn flag() -> Arc<AtomicBool> {
    RAISED
        .get_or_init(|| Arc::new(AtomicBool::new(false)))
        .clone()
}

/// The wake-up channel: (the end the driver waits on, the end handlers
/// write to).
static WAKE: OnceLock<Option<(UnixStream, UnixStream)>> = OnceLock::new();

fn wake_pair() -> Option<&'static (UnixStream, UnixStream)> {
    WAKE.get_or_init(|| {
        let (r, w) = UnixStream::pair().ok()?;
        w.set_nonblocking(true).ok()?;
        Some((r, w))
    })
    .as_ref()
}

/// A handle on the wake-up channel for a signal handler to write a byte to
/// (`signal_hook::low_level::pipe::register(sig, waker()?)`), so that the
/// idle driver notices the signal at once. `None` if the channel could not
/// be made (the driver then notices within a few milliseconds anyway).
pub fn waker() -> Option<UnixStream> {
    wake_pair().and_then(|(_, w)| w.try_clone().ok())
}

/// The end of the wake-up channel the driver thread's poller watches.
pub(crate) fn wake_fd() -> Option<BorrowedFd<'static>> {
    let (r, _) = wake_pair()?;
    r.set_nonblocking(true).ok()?;
    Some(r.as_fd())
}

/// Empties the wake-up channel after the poller saw it readable.
pub(crate) fn drain_wake() {
    if let Some((r, _)) = WAKE.get().and_then(Option::as_ref) {
        let mut buf = [0u8; 64];
        while matches!((&*r).read(&mut buf), Ok(n) if n > 0) {}
    }
}

/// Whether an external event waits to be handled.
pub(crate) fn pending() -> bool {
    RAISED.get().is_some_and(|f| f.load(Ordering::SeqCst))
}

/// Marks an external event. Async-signal-safe once [`flag`] was called.
pub fn raise() {
    if let Some(f) = RAISED.get() {
        f.store(true, Ordering::Release);
    }
}

/// Asks the running router to stop at once (run count `STOP_RUNCOUNT`).
pub fn request_stop() {
    STOP.store(true, Ordering::Release);
    flag().store(true, Ordering::Release);
}

/// Sets the function the driver calls, outside any signal handler, when an
/// external event was raised: it returns whether the router must stop now.
pub fn set_stop_check(check: fn() -> bool) {
    *STOP_CHECK.write().unwrap_or_else(|p| p.into_inner()) = Some(check);
}

/// Called by the driver thread on every pass of its loop.
#[inline]
pub(crate) fn check(rt: &RouterInner, sched: &mut ThreadSched) {
    match RAISED.get() {
        Some(f) if f.load(Ordering::Relaxed) => check_slow(rt, sched, f),
        _ => {}
    }
}

#[cold]
fn check_slow(rt: &RouterInner, sched: &mut ThreadSched, f: &AtomicBool) {
    if !f.swap(false, Ordering::AcqRel) {
        return;
    }
    let hook = *STOP_CHECK.read().unwrap_or_else(|p| p.into_inner());
    let stop = STOP.swap(false, Ordering::AcqRel) | hook.is_some_and(|h| h());
    if stop {
        rt.runcount.store(STOP_RUNCOUNT, Ordering::Release);
    }
    for &t in &rt.external_tasks {
        sched.schedule(rt, t);
    }
}
