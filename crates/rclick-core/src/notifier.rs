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
use std::sync::{Arc, Mutex, OnceLock};

use crate::element::TaskId;

#[derive(Debug)]
struct Inner {
    active: AtomicBool,
    listeners: Mutex<Vec<TaskId>>,
    /// Click's signal name: kind (`empty`, `full`) and allocation index
    /// within that kind, given by the router after initialization.
    label: OnceLock<(&'static str, u32)>,
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
            label: OnceLock::new(),
        }))
    }

    /// Names the signal as Click's router does: the `index`th signal of
    /// kind `kind` (`empty`, `full`), printed as `kind.WORD/MASK:VALUE`.
    /// Only the first call has an effect; returns whether it did.
    pub fn set_label(&self, kind: &'static str, index: u32) -> bool {
        self.0.label.set((kind, index)).is_ok()
    }

    /// The signal's name, if the router gave it one.
    pub fn label(&self) -> Option<(&'static str, u32)> {
        self.0.label.get().copied()
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
    /// Click's `NotifierSignal::unparse`: `busy*`, `idle`, or one
    /// `NAME.WORD/MASK:VALUE` term per 32-signal word (hex mask of the
    /// signals included, hex value of those active, `*` when any is),
    /// joined by `+`. Unnamed notifiers print as `@ADDR/1:VALUE`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotifierSignal::Idle => write!(f, "idle"),
            NotifierSignal::Busy => write!(f, "busy*"),
            NotifierSignal::Any(v) => {
                // (kind, word) -> (mask, value); unnamed ones kept apart
                let mut words: Vec<(&'static str, u32, u32, u32)> = Vec::new();
                let mut unnamed: Vec<&Notifier> = Vec::new();
                for n in v {
                    let Some((kind, idx)) = n.label() else {
                        unnamed.push(n);
                        continue;
                    };
                    let (word, bit) = (idx / 32, 1u32 << (idx % 32));
                    let value = if n.active() { bit } else { 0 };
                    match words.iter_mut().find(|w| w.0 == kind && w.1 == word) {
                        Some(w) => {
                            w.2 |= bit;
                            w.3 |= value;
                        }
                        None => words.push((kind, word, bit, value)),
                    }
                }
                words.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
                let mut first = true;
                for (kind, word, mask, value) in words {
                    if !first {
                        write!(f, "+")?;
                    }
                    first = false;
                    write!(f, "{kind}.{word}/{mask:x}:{value:x}")?;
                    if value != 0 {
                        write!(f, "*")?;
                    }
                }
                for n in unnamed {
                    if !first {
                        write!(f, "+")?;
                    }
                    first = false;
                    let a = n.active();
                    write!(
                        f,
                        "@{:p}/1:{}{}",
                        Arc::as_ptr(&n.0),
                        u8::from(a),
                        if a { "*" } else { "" }
                    )?;
                }
                Ok(())
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
    fn unparse_like_click() {
        let a = Notifier::new(false);
        let b = Notifier::new(true);
        let c = Notifier::new(false);
        assert!(a.set_label("empty", 0));
        assert!(!a.set_label("empty", 9));
        b.set_label("empty", 33);
        c.set_label("empty", 4);
        let s = NotifierSignal::Any(vec![b.clone(), a.clone(), c.clone()]);
        assert_eq!(s.to_string(), "empty.0/11:0+empty.1/2:2*");
        a.set_active(true);
        assert_eq!(s.to_string(), "empty.0/11:1*+empty.1/2:2*");
        assert_eq!(NotifierSignal::Busy.to_string(), "busy*");
        assert_eq!(NotifierSignal::Idle.to_string(), "idle");
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
