//! Elements for routers that run several threads (`-j N`): Click's
//! `elements/threads` and the SMP elements of `elements/standard`.
//!
//! * Queues between threads: ThreadSafeQueue (and its deprecated name
//!   MSQueue), whose pushes and pulls several threads may make at once
//!   (`Element::concurrent_ports`), and CPUQueue, one queue per thread.
//! * CPUSwitch, which sends each packet to the output of the thread
//!   pushing it.
//! * Thread schedulers: StaticThreadSched (fixed homes) and
//!   BalancedThreadSched (the SMP Click paper's adaptive load balancing:
//!   measured task costs, tasks moved while the router runs).
//!
//! One element class per file; each file opens with the class's manual.
//! Queues here use `crossbeam-queue`'s bounded lock-free `ArrayQueue` for
//! the packets that cross threads, never hand-written lock-free code.

use rclick_core::Registry;

pub mod balanced_thread_sched;
pub mod cpu_queue;
pub mod cpu_switch;
pub mod ms_queue;
pub mod static_thread_sched;
pub mod thread_safe_queue;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ThreadSafeQueue",
        thread_safe_queue::new,
        include_str!("thread_safe_queue.rs"),
    );
    r.add("MSQueue", ms_queue::new, include_str!("ms_queue.rs"));
    r.add("CPUQueue", cpu_queue::new, include_str!("cpu_queue.rs"));
    r.add("CPUSwitch", cpu_switch::new, include_str!("cpu_switch.rs"));
    r.add(
        "StaticThreadSched",
        || Box::<static_thread_sched::StaticThreadSched>::default(),
        include_str!("static_thread_sched.rs"),
    );
    r.add(
        "BalancedThreadSched",
        || Box::<balanced_thread_sched::BalancedThreadSched>::default(),
        include_str!("balanced_thread_sched.rs"),
    );
}

/// Keeps a value on a cache line of its own, so that what one thread
/// writes does not evict what another reads.
#[repr(align(64))]
#[derive(Debug, Default)]
pub(crate) struct Line<T>(pub T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Builds `text` with `threads` router threads in real time (the element
/// log captured), for tests of elements shared by threads.
#[cfg(test)]
pub(crate) fn build_threads(text: &str, threads: usize) -> rclick_core::Router {
    rclick_core::testing::build_with(
        text,
        &crate::queues::test_registry(),
        rclick_core::BuildOptions {
            threads,
            capture_log: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `r` on its threads in the background while `f` looks at it, then
/// stops it (the `stop` handler) and waits for its threads to end.
#[cfg(test)]
pub(crate) fn while_running<T>(
    r: &rclick_core::Router,
    f: impl FnOnce(&rclick_core::Router) -> T,
) -> T {
    std::thread::scope(|s| {
        let h = s.spawn(|| r.run());
        let out = f(r);
        let _ = r.write_handler("stop", "");
        h.join().expect("router threads");
        out
    })
}

/// Waits (at most 30 s) until handler `spec` of the running router `r`
/// reads `want`; returns the last value read.
#[cfg(test)]
pub(crate) fn wait_for(r: &rclick_core::Router, spec: &str, want: &str) -> String {
    let mut v = String::new();
    wait_until(|| {
        v = r.read_handler(spec, "").unwrap_or_else(|e| e);
        v == want
    });
    v
}

/// Waits (at most 30 s) until `cond` holds; returns whether it did.
#[cfg(test)]
pub(crate) fn wait_until(mut cond: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if cond() {
            return true;
        }
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}
