//! The "empty" signals of a pull scheduler's inputs (PrioSched,
//! RoundRobinSched, StrideSched, DRRSched): an input whose signal is
//! inactive has nothing upstream, so the scheduler skips it without a
//! pull. Each scheduler's file holds its own order of inputs.

use rclick_core::{Ctx, InitCx, NotifierSignal, Packet, PacketBatch};

/// One "empty" signal per input.
#[derive(Default)]
pub(crate) struct InputSignals(Vec<NotifierSignal>);

impl InputSignals {
    /// Finds the signals of every input (no task wakes on them: the
    /// scheduler's puller listens through the scheduler's own signal).
    pub(crate) fn initialize(&mut self, cx: &mut InitCx) {
        self.0 = (0..cx.ninputs())
            .map(|i| cx.upstream_empty_signal(i, None))
            .collect();
    }

    /// The number of inputs.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether input `i` may have packets (an input with no signal may).
    #[inline]
    pub(crate) fn active(&self, i: usize) -> bool {
        self.0.get(i).is_none_or(NotifierSignal::active)
    }

    /// A packet from input `i`, pulled only if its signal is active.
    #[inline]
    pub(crate) fn pull_one(&self, i: usize, cx: &mut Ctx) -> Option<Packet> {
        if self.active(i) {
            cx.pull_one(i)
        } else {
            None
        }
    }

    /// Up to `max` packets from input `i` added to `out`, pulled only if
    /// its signal is active.
    pub(crate) fn pull_into(&self, i: usize, max: usize, out: &mut PacketBatch, cx: &mut Ctx) {
        if max == 0 || !self.active(i) {
            return;
        }
        let mut b = cx.pull(i, max);
        if out.is_empty() {
            *out = b;
        } else {
            out.append(&mut b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_without_signals_may_have_packets() {
        let s = InputSignals::default();
        assert_eq!(s.len(), 0);
        assert!(s.active(0));
        let s = InputSignals(vec![NotifierSignal::Busy, NotifierSignal::Idle]);
        assert_eq!(s.len(), 2);
        assert!(s.active(0));
        assert!(!s.active(1));
        assert!(s.active(2));
    }
}
