//! Process-wide Unix signal dispatch for Script TYPE SIGNAL and the
//! `click` driver (Click's `Master::add_signal_handler` and its driver's
//! SIGINT/SIGTERM handling).
//!
//! A registration is one-shot, as in Click: when its signal arrives, every
//! registration for that signal fires once and is removed; the Script runs
//! its instructions and registers again if it ended with `end`. A signal
//! nobody is registered for takes its default action (a SIGUSR1 then kills
//! the process), except SIGINT and SIGTERM once the driver asked for them
//! ([`stop_router_on`]): then they stop the router cleanly.
//!
//! While fired registrations are being run (from [`take_fired`] to
//! [`finish_dispatch`]), their signals stay caught even if nobody listens
//! any more, as in Click's `Master::process_signals`: a signal arriving
//! meanwhile waits for the Script to listen again (it ends with `end`) and
//! is then delivered to it; if the Script stopped listening, the signal is
//! raised again and takes its default action.
//!
//! Signal handlers only set flags (through `signal_hook::flag`); the
//! router's driver thread notices them ([`rclick_core::router::external`])
//! and runs the Scripts, so no element is touched from a signal handler.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Signals handled: numbers below this.
const NSIG: usize = 32;

/// Click's signal names.
const NAMES: &[(&str, i32)] = &[
    ("ABRT", signal_hook::consts::SIGABRT),
    ("HUP", signal_hook::consts::SIGHUP),
    ("INT", signal_hook::consts::SIGINT),
    ("PIPE", signal_hook::consts::SIGPIPE),
    ("QUIT", signal_hook::consts::SIGQUIT),
    ("TERM", signal_hook::consts::SIGTERM),
    ("TSTP", signal_hook::consts::SIGTSTP),
    ("USR1", signal_hook::consts::SIGUSR1),
    ("USR2", signal_hook::consts::SIGUSR2),
];

/// A signal number from a name (`INT`, `SIGINT`, any case) or a number.
pub fn signal_number(s: &str) -> Option<i32> {
    let up = s.to_ascii_uppercase();
    let name = up.strip_prefix("SIG").unwrap_or(&up);
    if let Some(&(_, n)) = NAMES.iter().find(|(n, _)| *n == name) {
        return Some(n);
    }
    let n: i32 = s.parse().ok()?;
    (0..NSIG as i32).contains(&n).then_some(n)
}

/// One signal's flags, shared with its signal handlers.
struct SigState {
    /// Set by the signal handler.
    pending: Arc<AtomicBool>,
    /// When set, the signal takes its default action.
    default: Arc<AtomicBool>,
    /// The driver stops the router on this signal when no Script listens.
    stop: bool,
    /// Handlers installed.
    installed: bool,
}

/// A live registration: which Script, and its element name.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reg {
    signo: i32,
    key: u64,
    name: String,
}

struct State {
    sigs: Vec<SigState>,
    regs: Vec<Reg>,
    /// Registrations that fired and whose Scripts have not run yet.
    fired: VecDeque<(u64, String)>,
    /// Signals whose registrations are being run (bit per signal).
    dispatching: u32,
}

fn state() -> std::sync::MutexGuard<'static, State> {
    static S: OnceLock<Mutex<State>> = OnceLock::new();
    S.get_or_init(|| {
        Mutex::new(State {
            sigs: (0..NSIG)
                .map(|_| SigState {
                    pending: Arc::new(AtomicBool::new(false)),
                    default: Arc::new(AtomicBool::new(true)),
                    stop: false,
                    installed: false,
                })
                .collect(),
            regs: Vec::new(),
            fired: VecDeque::new(),
            dispatching: 0,
        })
    })
    .lock()
    .unwrap_or_else(|p| p.into_inner())
}

/// A key identifying one Script for its registrations.
pub fn new_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl State {
    /// Installs the flag-setting handlers for `signo` once.
    fn install(&mut self, signo: i32) -> Result<(), String> {
        let s = &mut self.sigs[signo as usize];
        if s.installed {
            return Ok(());
        }
        let err = |e: std::io::Error| format!("signal {signo}: {e}");
        signal_hook::flag::register(signo, s.pending.clone()).map_err(err)?;
        signal_hook::flag::register(signo, rclick_core::router::external::flag()).map_err(err)?;
        // Wake the idle driver at once (without it, within a few ms).
        if let Some(w) = rclick_core::router::external::waker() {
            signal_hook::low_level::pipe::register(signo, w).map_err(err)?;
        }
        signal_hook::flag::register_conditional_default(signo, s.default.clone()).map_err(err)?;
        s.installed = true;
        Ok(())
    }

    /// Recomputes whether `signo` takes its default action.
    fn update_default(&mut self, signo: i32) {
        let listened = self.regs.iter().any(|r| r.signo == signo);
        let dispatching = self.dispatching & (1 << signo) != 0;
        let s = &self.sigs[signo as usize];
        s.default
            .store(!listened && !s.stop && !dispatching, Ordering::Release);
    }
}

/// Registers Script `key` (element `name`) for `signos` (one shot each).
pub fn register(key: u64, name: &str, signos: &[i32]) -> Result<(), String> {
    let mut st = state();
    for &signo in signos {
        if !(0..NSIG as i32).contains(&signo) {
            return Err("bad signal number".into());
        }
        st.install(signo)?;
        let reg = Reg {
            signo,
            key,
            name: name.to_string(),
        };
        if !st.regs.contains(&reg) {
            st.regs.push(reg);
        }
        st.update_default(signo);
    }
    Ok(())
}

/// Removes every registration of Script `key`.
pub fn unregister(key: u64) {
    let mut st = state();
    let signos: Vec<i32> = st
        .regs
        .iter()
        .filter(|r| r.key == key)
        .map(|r| r.signo)
        .collect();
    st.regs.retain(|r| r.key != key);
    st.fired.retain(|(k, _)| *k != key);
    for s in signos {
        st.update_default(s);
    }
}

/// Collects the signals that arrived: their registrations fire (and are
/// removed). Returns every fired registration not yet run, in order, as
/// `(key, element name)`, and forgets them: the caller runs them, then
/// calls [`finish_dispatch`]. Until then those signals stay caught.
pub fn take_fired() -> Vec<(u64, String)> {
    let mut st = state();
    for signo in 0..NSIG {
        if !st.sigs[signo].pending.load(Ordering::Acquire) {
            continue;
        }
        let listened = st.regs.iter().any(|r| r.signo == signo as i32);
        if !listened {
            // Left for the driver's stop check, or spurious.
            continue;
        }
        st.sigs[signo].pending.store(false, Ordering::Release);
        let (hit, keep): (Vec<Reg>, Vec<Reg>) = std::mem::take(&mut st.regs)
            .into_iter()
            .partition(|r| r.signo == signo as i32);
        st.regs = keep;
        st.dispatching |= 1 << signo;
        for r in hit {
            if !st.fired.iter().any(|(k, _)| *k == r.key) {
                st.fired.push_back((r.key, r.name));
            }
        }
        st.update_default(signo as i32);
    }
    st.fired.drain(..).collect()
}

/// Ends a dispatch begun by [`take_fired`]: signals nobody listens for any
/// more take their default action again, and one that arrived during the
/// dispatch is raised again so that it does (Click kills itself with it).
/// A signal that arrived meanwhile for a Script listening again stays
/// pending: the driver delivers it on its next pass.
pub fn finish_dispatch() {
    let mut redeliver = Vec::new();
    {
        let mut st = state();
        let bits = std::mem::take(&mut st.dispatching);
        for signo in 0..NSIG as i32 {
            if bits & (1 << signo) == 0 {
                continue;
            }
            st.update_default(signo);
            let s = &st.sigs[signo as usize];
            if s.default.load(Ordering::Acquire) && s.pending.swap(false, Ordering::AcqRel) {
                redeliver.push(signo);
            }
        }
    }
    for signo in redeliver {
        let _ = signal_hook::low_level::raise(signo);
    }
}

/// Makes `signos` stop the router when no Script listens for them (the
/// `click` driver does this for SIGINT and SIGTERM).
pub fn stop_router_on(signos: &[i32]) -> Result<(), String> {
    let mut st = state();
    for &signo in signos {
        st.install(signo)?;
        st.sigs[signo as usize].stop = true;
        st.update_default(signo);
    }
    drop(st);
    rclick_core::router::external::set_stop_check(stop_check);
    Ok(())
}

/// The driver's stop check: a stop signal arrived that no Script listens
/// for.
fn stop_check() -> bool {
    let st = state();
    let mut stop = false;
    for (signo, s) in st.sigs.iter().enumerate() {
        if s.stop
            && s.pending.load(Ordering::Acquire)
            && !st.regs.iter().any(|r| r.signo == signo as i32)
        {
            s.pending.store(false, Ordering::Release);
            stop = true;
        }
    }
    stop
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(signal_number("INT"), Some(2));
        assert_eq!(signal_number("SIGusr1"), Some(signal_hook::consts::SIGUSR1));
        assert_eq!(signal_number("15"), Some(15));
        assert_eq!(signal_number("40"), None);
        assert_eq!(signal_number("FOO"), None);
    }
}
