//! The two operating-system services the generator needs beyond packet
//! sockets, in safe wrappers (nix): entering a network namespace for the
//! length of a call, and pinning the calling thread to a processor.

use std::fs::File;

use nix::sched::{sched_setaffinity, setns, CloneFlags, CpuSet};
use nix::unistd::Pid;

/// Runs `f` with the calling thread in network namespace `ns` (a name
/// under `/run/netns`), then moves the thread back. Sockets opened by `f`
/// stay in `ns` for their whole life, whichever thread uses them later.
pub fn in_netns<T>(ns: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    let home = File::open("/proc/thread-self/ns/net")
        .map_err(|e| format!("/proc/thread-self/ns/net: {e}"))?;
    let path = format!("/run/netns/{ns}");
    let target = File::open(&path).map_err(|e| format!("{path}: {e}"))?;
    setns(&target, CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("entering network namespace {ns}: {e}"))?;
    let out = f();
    setns(&home, CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("leaving network namespace {ns}: {e}"))?;
    Ok(out)
}

/// Pins the calling thread to processor `cpu`.
pub fn pin_to(cpu: usize) -> Result<(), String> {
    let mut set = CpuSet::new();
    set.set(cpu).map_err(|e| format!("processor {cpu}: {e}"))?;
    sched_setaffinity(Pid::from_raw(0), &set)
        .map_err(|e| format!("pinning to processor {cpu}: {e}"))
}

/// Processors this process may run on.
pub fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
