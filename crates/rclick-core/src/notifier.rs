//! Notifiers: how a puller learns that a queue has packets again (and a
//! pusher that it has room), so it can sleep instead of polling.
//!
//! A [`Notifier`] belongs to one element (a Queue owns an "empty" notifier
//! that is active while it holds packets). Elements that want to sleep on
//! it ask the router at initialization for the combined
//! [`NotifierSignal`] of everything upstream (`InitCx::upstream_empty_signal`)
//! and are registered as listeners: when the notifier turns active, their
//! tasks are rescheduled (`Ctx::wake_notifier`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::element::TaskId;

#[derive(Debug)]
struct Inner {
    active: AtomicBool,
    listeners: Mutex<Vec<TaskId>>,
}

/// A signal one element raises and others listen to. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Notifier(Arc<Inner>);

impl Notifier {
    /// A new notifier, initially `active`.
    pub fn new(active: bool) -> Notifier {
        Notifier(Arc::new(Inner {
            active: AtomicBool::new(active),
            listeners: Mutex::new(Vec::new()),
        }))
    }

    /// Whether the signal is active.
    #[inline]
    pub fn active(&self) -> bool {
        self.0.active.load(Ordering::Acquire)
    }

    /// Sets the state; returns whether it went from inactive to active
    /// (when listeners must be woken: use [`crate::router::Ctx::wake_notifier`]).
    #[inline]
    pub fn set_active(&self, active: bool) -> bool {
        if self.0.active.load(Ordering::Relaxed) == active {
            return false;
        }
        let was = self.0.active.swap(active, Ordering::AcqRel);
        active && !was
    }

    /// Adds a listening task.
    pub fn add_listener(&self, task: TaskId) {
        let mut l = self.0.listeners.lock().unwrap_or_else(|e| e.into_inner());
        if !l.contains(&task) {
            l.push(task);
        }
    }

    /// The listening tasks.
    pub fn listeners(&self) -> Vec<TaskId> {
        self.0
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether two handles name the same notifier.
    pub fn same(&self, other: &Notifier) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The combined state of the notifiers a puller depends on.
#[derive(Clone, Debug)]
pub enum NotifierSignal {
    /// Never active (upstream is only Idle-like elements).
    Idle,
    /// Always active: something upstream cannot notify, so poll.
    Busy,
    /// Active when any of these is active.
    Any(Vec<Notifier>),
}

impl NotifierSignal {
    /// Whether there may be packets (or room).
    #[inline]
    pub fn active(&self) -> bool {
        match self {
            NotifierSignal::Idle => false,
            NotifierSignal::Busy => true,
            NotifierSignal::Any(v) => v.iter().any(Notifier::active),
        }
    }

    /// Combines two signals (Click's `+=`).
    pub fn combine(self, other: NotifierSignal) -> NotifierSignal {
        match (self, other) {
            (NotifierSignal::Busy, _) | (_, NotifierSignal::Busy) => NotifierSignal::Busy,
            (NotifierSignal::Idle, x) | (x, NotifierSignal::Idle) => x,
            (NotifierSignal::Any(mut a), NotifierSignal::Any(b)) => {
                for n in b {
                    if !a.iter().any(|m| m.same(&n)) {
                        a.push(n);
                    }
                }
                NotifierSignal::Any(a)
            }
        }
    }

    /// Whether the signal can ever change (it is not Busy or Idle).
    pub fn is_real(&self) -> bool {
        matches!(self, NotifierSignal::Any(_))
    }
}

impl std::fmt::Display for NotifierSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotifierSignal::Idle => write!(f, "idle"),
            NotifierSignal::Busy => write!(f, "busy*"),
            NotifierSignal::Any(v) => {
                let s: Vec<&str> = v
                    .iter()
                    .map(|n| if n.active() { "active" } else { "inactive" })
                    .collect();
                write!(f, "{}", s.join(" + "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_active_reports_rising_edge() {
        let n = Notifier::new(false);
        assert!(n.set_active(true));
        assert!(!n.set_active(true));
        assert!(!n.set_active(false));
        assert!(!n.active());
    }

    #[test]
    fn combine() {
        let a = Notifier::new(false);
        let b = Notifier::new(false);
        let s = NotifierSignal::Any(vec![a.clone()])
            .combine(NotifierSignal::Any(vec![b.clone(), a.clone()]));
        assert!(!s.active());
        b.set_active(true);
        assert!(s.active());
        assert!(NotifierSignal::Idle.combine(NotifierSignal::Busy).active());
        assert!(!NotifierSignal::Idle.combine(NotifierSignal::Idle).active());
        match s {
            NotifierSignal::Any(v) => assert_eq!(v.len(), 2),
            _ => panic!("expected Any"),
        }
    }

    #[test]
    fn listeners_dedup() {
        let n = Notifier::new(true);
        n.add_listener(TaskId(3));
        n.add_listener(TaskId(3));
        n.add_listener(TaskId(4));
        assert_eq!(n.listeners(), vec![TaskId(3), TaskId(4)]);
    }
}
