//! How an idle router thread waits: on its file descriptors, its next
//! timer and wake-ups from other threads at once (Click's driver does the
//! same with `select`).
//!
//! Each router thread has a [`Poller`]: an epoll instance holding
//!
//! * the descriptors elements asked to watch ([`Select`]: `add_select`
//!   on [`InitCx`](super::InitCx) and [`Ctx`](super::Ctx)); a ready
//!   descriptor schedules the task that asked;
//! * an eventfd other threads write to when they hand this thread work
//!   while it sleeps ([`Poller::wake`]);
//! * a timerfd set to the thread's next timer, so a sleep ends exactly when
//!   a timer is due (epoll's own timeout has millisecond steps);
//! * on the driver thread, the read end of the signal wake-up channel.
//!
//! A thread about to sleep says so (`sleeping`), then checks its inbox once
//! more; a thread handing it work posts first, then reads `sleeping`. With
//! sequentially consistent order on both sides, at least one of them sees
//! the other, so no wake-up is lost and none comes later than needed.
//!
//! If the kernel refuses an epoll instance (no descriptors left), the
//! thread falls back to short sleeps, after each of which every task
//! watching a descriptor is scheduled (it then finds out itself whether
//! its descriptor is ready): polling, but nothing waits forever.

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

#[allow(deprecated)]
use nix::sys::epoll::epoll_ctl;
use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags, EpollOp, EpollTimeout};
use nix::sys::eventfd::{EfdFlags, EventFd};
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};

/// Which readiness of a descriptor wakes a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Select {
    /// Readable (or closed, or in error).
    Read,
    /// Writable.
    Write,
}

const WAKE_TOKEN: u64 = u64::MAX;
const TIMER_TOKEN: u64 = u64::MAX - 1;
const SIGNAL_TOKEN: u64 = u64::MAX - 2;

struct Epolled {
    epoll: Epoll,
    wake: EventFd,
    timer: TimerFd,
}

/// One router thread's waiting place. See the module documentation.
pub(crate) struct Poller {
    sys: Option<Epolled>,
    /// The thread is in (or about to enter) its sleep.
    sleeping: AtomicBool,
    /// Watched descriptors: the tasks to schedule when readable, writable.
    selects: Mutex<HashMap<RawFd, [Option<u32>; 2]>>,
    /// How many descriptors are watched (read without the lock).
    nselects: AtomicUsize,
}

impl std::fmt::Debug for Poller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Poller")
            .field("epoll", &self.sys.is_some())
            .field("nselects", &self.nselects.load(Ordering::Relaxed))
            .finish()
    }
}

impl Poller {
    pub(crate) fn new() -> Poller {
        Poller::with_epoll(true)
    }

    /// A poller with (`epoll`) or without an epoll instance (as when the
    /// kernel refuses one).
    fn with_epoll(epoll: bool) -> Poller {
        let open = || {
            let epoll = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC).ok()?;
            let wake = EventFd::from_flags(EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK).ok()?;
            let timer = TimerFd::new(
                ClockId::CLOCK_MONOTONIC,
                TimerFlags::TFD_CLOEXEC | TimerFlags::TFD_NONBLOCK,
            )
            .ok()?;
            epoll
                .add(&wake, EpollEvent::new(EpollFlags::EPOLLIN, WAKE_TOKEN))
                .ok()?;
            epoll
                .add(&timer, EpollEvent::new(EpollFlags::EPOLLIN, TIMER_TOKEN))
                .ok()?;
            Some(Epolled { epoll, wake, timer })
        };
        let sys = if epoll { open() } else { None };
        Poller {
            sys,
            sleeping: AtomicBool::new(false),
            selects: Mutex::new(HashMap::new()),
            nselects: AtomicUsize::new(0),
        }
    }

    /// Also wakes on `fd` becoming readable (the signal wake-up channel).
    pub(crate) fn watch_signals(&self, fd: BorrowedFd<'_>) {
        if let Some(s) = &self.sys {
            let _ = s
                .epoll
                .add(fd, EpollEvent::new(EpollFlags::EPOLLIN, SIGNAL_TOKEN));
        }
    }

    /// Whether any descriptor is watched.
    #[inline]
    pub(crate) fn has_selects(&self) -> bool {
        self.nselects.load(Ordering::Relaxed) != 0
    }

    /// Watches descriptor `fd` for `what`, scheduling `task` when it is
    /// ready. (Descriptors are named by number: epoll forgets a descriptor
    /// when it is closed, and a number that names nothing is refused.)
    pub(crate) fn add_select(&self, fd: RawFd, what: Select, task: u32) -> Result<(), String> {
        let mut sel = self.selects.lock().unwrap_or_else(|p| p.into_inner());
        let Some(s) = &self.sys else {
            // No epoll: `wait` schedules the task after every sleep.
            sel.entry(fd).or_insert([None, None])[what as usize] = Some(task);
            self.nselects.store(sel.len(), Ordering::Relaxed);
            return Ok(());
        };
        let had = sel.contains_key(&fd);
        let entry = sel.entry(fd).or_insert([None, None]);
        entry[what as usize] = Some(task);
        let mut ev = EpollEvent::new(flags_of(entry), fd as u64);
        let op = if had {
            EpollOp::EpollCtlMod
        } else {
            EpollOp::EpollCtlAdd
        };
        #[allow(deprecated)]
        let mut r = epoll_ctl(s.epoll.0.as_raw_fd(), op, fd, &mut ev);
        if had && r == Err(nix::errno::Errno::ENOENT) {
            // Closed and opened again under the same number.
            #[allow(deprecated)]
            {
                r = epoll_ctl(s.epoll.0.as_raw_fd(), EpollOp::EpollCtlAdd, fd, &mut ev);
            }
        }
        if let Err(e) = r {
            if !had {
                sel.remove(&fd);
            }
            self.nselects.store(sel.len(), Ordering::Relaxed);
            return Err(format!("cannot watch descriptor {fd}: {e}"));
        }
        self.nselects.store(sel.len(), Ordering::Relaxed);
        Ok(())
    }

    /// Stops watching descriptor `fd` for `what`.
    pub(crate) fn remove_select(&self, fd: RawFd, what: Select) {
        let mut sel = self.selects.lock().unwrap_or_else(|p| p.into_inner());
        let Some(entry) = sel.get_mut(&fd) else {
            return;
        };
        entry[what as usize] = None;
        let gone = entry.iter().all(Option::is_none);
        if gone {
            sel.remove(&fd);
        }
        self.nselects.store(sel.len(), Ordering::Relaxed);
        let Some(s) = &self.sys else { return };
        let epfd = s.epoll.0.as_raw_fd();
        if gone {
            #[allow(deprecated)]
            let _ = epoll_ctl(epfd, EpollOp::EpollCtlDel, fd, None);
        } else if let Some(entry) = sel.get(&fd) {
            let mut ev = EpollEvent::new(flags_of(entry), fd as u64);
            #[allow(deprecated)]
            let _ = epoll_ctl(epfd, EpollOp::EpollCtlMod, fd, &mut ev);
        }
    }

    /// The descriptors watched for `task`, and for what (to move them when
    /// the task moves to another thread).
    pub(crate) fn selects_of(&self, task: u32) -> Vec<(RawFd, Select)> {
        let sel = self.selects.lock().unwrap_or_else(|p| p.into_inner());
        let mut v = Vec::new();
        for (&fd, entry) in sel.iter() {
            for what in [Select::Read, Select::Write] {
                if entry[what as usize] == Some(task) {
                    v.push((fd, what));
                }
            }
        }
        v
    }

    /// Wakes the thread if it sleeps. Call after posting its work.
    #[inline]
    pub(crate) fn wake(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) {
            if let Some(s) = &self.sys {
                let _ = s.wake.write(1);
            }
        }
    }

    /// Says the thread is about to sleep; the caller then checks for work
    /// once more before calling [`Poller::wait`] (or [`Poller::awake`]).
    #[inline]
    pub(crate) fn going_to_sleep(&self) {
        self.sleeping.store(true, Ordering::SeqCst);
        std::sync::atomic::fence(Ordering::SeqCst);
    }

    /// Says the thread is awake again.
    #[inline]
    pub(crate) fn awake(&self) {
        self.sleeping.store(false, Ordering::Relaxed);
    }

    /// Waits until a watched descriptor is ready, another thread wakes this
    /// one, a signal arrives, or `timeout` passes (`None`: no limit;
    /// zero: just look). Calls `ready(task)` for each task whose descriptor
    /// is ready; returns whether a signal arrived.
    pub(crate) fn wait(&self, timeout: Option<Duration>, ready: &mut dyn FnMut(u32)) -> bool {
        let Some(s) = &self.sys else {
            if let Some(t) = timeout {
                std::thread::sleep(t.min(Duration::from_millis(1)));
            } else {
                std::thread::sleep(Duration::from_millis(1));
            }
            // Without epoll nothing says which descriptor is ready: every
            // watching task looks.
            let sel = self.selects.lock().unwrap_or_else(|p| p.into_inner());
            for entry in sel.values() {
                for t in entry.iter().flatten() {
                    ready(*t);
                }
            }
            return false;
        };
        let epoll_timeout = match timeout {
            Some(t) if t.is_zero() => EpollTimeout::ZERO,
            Some(t) => {
                let spec = TimeSpec::from_duration(t);
                if s.timer
                    .set(Expiration::OneShot(spec), TimerSetTimeFlags::empty())
                    .is_err()
                {
                    // No timerfd: round up to epoll's milliseconds.
                    let ms = t.as_nanos().div_ceil(1_000_000).min(60_000) as u16;
                    EpollTimeout::from(ms)
                } else {
                    EpollTimeout::NONE
                }
            }
            None => EpollTimeout::NONE,
        };
        let mut events = [EpollEvent::empty(); 32];
        let n = s.epoll.wait(&mut events, epoll_timeout).unwrap_or(0);
        let mut signalled = false;
        let mut woken_fds: Vec<(RawFd, EpollFlags)> = Vec::new();
        for ev in &events[..n] {
            match ev.data() {
                WAKE_TOKEN => {
                    let mut buf = [0u8; 8];
                    let _ = nix::unistd::read(s.wake.as_fd().as_raw_fd(), &mut buf);
                }
                TIMER_TOKEN => {
                    let mut buf = [0u8; 8];
                    let _ = nix::unistd::read(s.timer.as_fd().as_raw_fd(), &mut buf);
                }
                SIGNAL_TOKEN => signalled = true,
                fd => woken_fds.push((fd as RawFd, ev.events())),
            }
        }
        if !woken_fds.is_empty() {
            let sel = self.selects.lock().unwrap_or_else(|p| p.into_inner());
            for (fd, flags) in woken_fds {
                let Some(entry) = sel.get(&fd) else { continue };
                let readable = flags
                    .intersects(EpollFlags::EPOLLIN | EpollFlags::EPOLLHUP | EpollFlags::EPOLLERR);
                let writable = flags.intersects(EpollFlags::EPOLLOUT | EpollFlags::EPOLLERR);
                if readable {
                    if let Some(t) = entry[Select::Read as usize] {
                        ready(t);
                    }
                }
                if writable {
                    if let Some(t) = entry[Select::Write as usize] {
                        if entry[Select::Read as usize] != Some(t) || !readable {
                            ready(t);
                        }
                    }
                }
            }
        }
        signalled
    }
}

fn flags_of(entry: &[Option<u32>; 2]) -> EpollFlags {
    let mut f = EpollFlags::empty();
    if entry[Select::Read as usize].is_some() {
        f |= EpollFlags::EPOLLIN;
    }
    if entry[Select::Write as usize].is_some() {
        f |= EpollFlags::EPOLLOUT;
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    #[test]
    fn times_out_precisely() {
        let p = Poller::new();
        let t0 = Instant::now();
        p.wait(Some(Duration::from_micros(300)), &mut |_| panic!("no fd"));
        let el = t0.elapsed();
        assert!(el >= Duration::from_micros(300), "{el:?}");
        assert!(el < Duration::from_millis(50), "{el:?}");
    }

    #[test]
    fn readable_descriptor_names_its_task() {
        let p = Poller::new();
        let (a, mut b) = UnixStream::pair().unwrap();
        p.add_select(a.as_raw_fd(), Select::Read, 7).unwrap();
        assert!(p.has_selects());
        b.write_all(b"x").unwrap();
        let mut got = Vec::new();
        p.wait(Some(Duration::from_secs(5)), &mut |t| got.push(t));
        assert_eq!(got, vec![7]);
        p.remove_select(a.as_raw_fd(), Select::Read);
        assert!(!p.has_selects());
        let mut got = Vec::new();
        p.wait(Some(Duration::ZERO), &mut |t| got.push(t));
        assert!(got.is_empty());
    }

    #[test]
    fn without_epoll_every_watching_task_is_woken() {
        let p = Poller::with_epoll(false);
        let (a, _b) = UnixStream::pair().unwrap();
        p.add_select(a.as_raw_fd(), Select::Read, 3).unwrap();
        p.add_select(a.as_raw_fd(), Select::Write, 4).unwrap();
        assert!(p.has_selects());
        let mut got = Vec::new();
        p.wait(Some(Duration::ZERO), &mut |t| got.push(t));
        got.sort_unstable();
        assert_eq!(got, vec![3, 4]);
        p.remove_select(a.as_raw_fd(), Select::Read);
        p.remove_select(a.as_raw_fd(), Select::Write);
        assert!(!p.has_selects());
    }

    #[test]
    fn wake_ends_a_sleep() {
        let p = std::sync::Arc::new(Poller::new());
        p.going_to_sleep();
        let q = p.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            q.wake();
        });
        let t0 = Instant::now();
        p.wait(None, &mut |_| {});
        p.awake();
        assert!(t0.elapsed() < Duration::from_secs(5));
        h.join().unwrap();
    }
}
