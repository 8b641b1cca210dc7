//! Elements that panicked (issue 17): a panic in one element is caught
//! where the scheduler called into the router (a task or timer run, a
//! handler call), the element that was running when it happened is
//! marked failed, and from then on the packets pushed to it are dropped
//! and counted instead of calling it.
//!
//! Finding that element costs nothing per packet on the normal path:
//! `Ctx` already holds the element it is calling (its current slot, set
//! before each call and put back after it), and a panic skips the
//! putting back, so the innermost `Ctx` dropped while the thread unwinds
//! names the element (`Ctx`'s `Drop`, once per context, not per packet).
//! The packets handed to that call are noted the same way: an [`InFlight`]
//! value beside each push (not a fused chain walk's: that unwinding edge
//! cost about 11 instructions a chain; a walk carries one packet),
//! forgotten when the call returns, so that its `Drop` runs only while
//! unwinding. A failed element's slot gets the
//! owner [`super::slot::FAILED`], which no thread lock matches: the fast
//! path's owner test, there anyway, sends every call to it to the slow
//! path, which drops and counts.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Mutex;

use super::ElementId;

thread_local! {
    /// Where this thread's last panic started (`file:line:column`), as the
    /// panic hook saw it.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Packets handed to the innermost push a panic unwound through.
    static LOST: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Installs (once per process) a panic hook that notes where a panic
/// started, for the `failed` handler, and then calls the hook that was
/// there before (which prints the message as usual).
pub(crate) fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(l) = info.location() {
                let at = format!("{}:{}:{}", l.file(), l.line(), l.column());
                let _ = LOCATION.try_with(|c| *c.borrow_mut() = Some(at));
            }
            previous(info);
        }));
    });
}

/// Beside a call into an element that was handed `0` packets: forgotten
/// (`std::mem::forget`) when the call returns, so it is dropped only while
/// a panic unwinds through the call, and then notes the count unless a
/// call further in did.
pub(crate) struct InFlight(pub usize);

impl Drop for InFlight {
    #[cold]
    #[inline(never)]
    fn drop(&mut self) {
        let n = self.0;
        let _ = LOST.try_with(|c| {
            if c.get().is_none() {
                c.set(Some(n));
            }
        });
    }
}

/// A caught panic: its message, where it started, and the packets the
/// innermost call it ended was handed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Caught {
    pub message: String,
    pub location: Option<String>,
    pub lost: usize,
    /// Whether a push or pull noted `lost` ([`InFlight`]); when none did,
    /// the panic was in a task or timer itself or in a fused chain walk.
    pub noted: bool,
}

impl Caught {
    /// What the thread noted while the panic with `payload` unwound.
    pub(crate) fn take(payload: &(dyn std::any::Any + Send)) -> Caught {
        let lost = LOST.try_with(Cell::take).ok().flatten();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(no message)".into());
        Caught {
            message,
            location: LOCATION.try_with(|c| c.borrow_mut().take()).ok().flatten(),
            lost: lost.unwrap_or(0),
            noted: lost.is_some(),
        }
    }

    /// As noted, for a panic in an element reached by a push or pull
    /// (`reached`: not the task's or handler's own): with no count noted
    /// it was in a fused chain walk, which carries one packet.
    pub(crate) fn for_element(&self, reached: bool) -> Caught {
        let mut c = self.clone();
        if reached && !c.noted {
            c.lost = 1;
        }
        c
    }

    /// `message (at file:line:column)`.
    pub(crate) fn describe(&self) -> String {
        match &self.location {
            Some(at) => format!("{} (at {at})", self.message),
            None => self.message.clone(),
        }
    }
}

/// Runs `f`, turning a panic into `Err` (configure and initialize calls,
/// made with no scheduler around).
pub(crate) fn catch<R>(f: impl FnOnce() -> R) -> Result<R, Caught> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| Caught::take(p.as_ref()))
}

/// Why an element failed, and what it dropped since.
#[derive(Debug, Clone)]
struct Failure {
    caught: Caught,
    /// What ran when it panicked (`push or pull`, `task`, `timer`, ...).
    during: String,
    /// Packets dropped since instead of calling it.
    dropped: u64,
    /// Times a task whose run pulled nothing but reached it was parked
    /// instead of run again at once (`ThreadSched::park_if_stuck`).
    parked: u64,
}

/// The router's failed elements.
#[derive(Debug, Default)]
pub(crate) struct Failures {
    map: Mutex<HashMap<ElementId, Failure>>,
}

impl Failures {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ElementId, Failure>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records that element `e` failed (its first failure is kept).
    pub(crate) fn mark(&self, e: ElementId, caught: &Caught, during: &str) {
        self.lock().entry(e).or_insert_with(|| Failure {
            caught: caught.clone(),
            during: during.to_string(),
            dropped: 0,
            parked: 0,
        });
    }

    /// Counts `n` packets dropped at failed element `e`.
    pub(crate) fn count_dropped(&self, e: ElementId, n: usize) {
        if let Some(f) = self.lock().get_mut(&e) {
            f.dropped += n as u64;
        }
    }

    /// Counts a task parked because its run reached failed element `e`
    /// and pulled nothing; returns the count so far.
    pub(crate) fn count_parked(&self, e: ElementId) -> u64 {
        match self.lock().get_mut(&e) {
            Some(f) => {
                f.parked += 1;
                f.parked
            }
            None => 0,
        }
    }

    /// How many elements failed, and the packets dropped at them since.
    pub(crate) fn totals(&self) -> (usize, u64) {
        let m = self.lock();
        (m.len(), m.values().map(|f| f.dropped).sum())
    }

    /// The `failed` handler's text: `false`, or `true` and why.
    pub(crate) fn text(&self, e: ElementId) -> String {
        match self.lock().get(&e) {
            None => "false".into(),
            Some(f) => format!(
                "true\npanic {}\nat {}\nduring {}\nlost_packets {}\ndropped_packets {}\nparked_pullers {}\n",
                f.caught.message,
                f.caught.location.as_deref().unwrap_or("?"),
                f.during,
                f.caught.lost,
                f.dropped,
                f.parked
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_says_what_where_and_how_many() {
        install_hook();
        let r = catch(|| {
            let _outer = InFlight(32);
            let inner = InFlight(5);
            std::mem::forget(inner);
            let _innermost = InFlight(3);
            panic!("boom {}", 7);
        });
        let c = r.unwrap_err();
        assert_eq!(c.message, "boom 7");
        assert_eq!(c.lost, 3, "the innermost call still running counts");
        let at = c.location.clone().unwrap();
        assert!(at.contains("failure.rs:"), "{at}");
        assert!(c.describe().starts_with("boom 7 (at "));
        // Taken: the next panic starts afresh.
        let c2 = catch(|| panic!("plain")).unwrap_err();
        assert_eq!(
            (c2.message.as_str(), c2.lost, c2.noted),
            ("plain", 0, false)
        );
        assert!(c.noted);
        assert_eq!(catch(|| 4).unwrap(), 4);
    }

    #[test]
    fn failures_keep_the_first_reason_and_count_drops() {
        let f = Failures::default();
        assert_eq!(f.text(2), "false");
        let c = Caught {
            message: "x".into(),
            location: Some("a.rs:1:2".into()),
            lost: 4,
            noted: true,
        };
        f.mark(2, &c, "push or pull");
        f.mark(
            2,
            &Caught {
                message: "later".into(),
                ..c.clone()
            },
            "task",
        );
        f.count_dropped(2, 10);
        f.count_dropped(3, 99);
        assert_eq!(f.count_parked(2), 1);
        assert_eq!(f.count_parked(2), 2);
        assert_eq!(f.count_parked(3), 0);
        let t = f.text(2);
        assert!(
            t.starts_with("true\npanic x\nat a.rs:1:2\nduring push or pull\n"),
            "{t}"
        );
        assert!(
            t.contains("lost_packets 4\ndropped_packets 10\nparked_pullers 2\n"),
            "{t}"
        );
        assert_eq!(f.totals(), (1, 10));
    }
}
