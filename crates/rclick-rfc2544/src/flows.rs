//! Per-flow sequence tracking (RFC 4737's terms, simplified): each flow's
//! frames carry sequence numbers 0, 1, 2, ...; the receiver counts
//! what arrived, what arrived twice, and what arrived after a later
//! frame of its flow (reordered). Loss is what was sent less what arrived
//! at least once.
//!
//! A flow remembers which of the last [`WINDOW`] sequence numbers below
//! its highest arrived, so a duplicate is told from a late frame within
//! that window; a frame older than the window counts as reordered (it
//! cannot be told from a duplicate, and is one far less often).

/// Sequence numbers remembered below a flow's highest.
pub const WINDOW: u32 = 1 << 16;

const WORDS: usize = (WINDOW / 64) as usize;

/// One flow's receive state.
#[derive(Clone, Debug)]
pub struct FlowTracker {
    /// Highest sequence number seen, if any.
    max: Option<u32>,
    /// Bit `s % WINDOW` set when `s` (within the window below `max`) arrived.
    seen: Vec<u64>,
    /// Frames received, duplicates included.
    pub received: u64,
    /// Frames that arrived again.
    pub duplicates: u64,
    /// Frames that arrived after a higher sequence number of the flow.
    pub reordered: u64,
}

impl Default for FlowTracker {
    fn default() -> Self {
        FlowTracker {
            max: None,
            seen: vec![0; WORDS],
            received: 0,
            duplicates: 0,
            reordered: 0,
        }
    }
}

impl FlowTracker {
    fn bit(&mut self, s: u32) -> (usize, u64) {
        let i = (s % WINDOW) as usize;
        (i / 64, 1u64 << (i % 64))
    }

    /// Records the arrival of sequence number `s`.
    #[inline]
    pub fn record(&mut self, s: u32) {
        self.received += 1;
        match self.max {
            Some(m) if s <= m => {
                if m - s >= WINDOW {
                    self.reordered += 1;
                    return;
                }
                let (w, b) = self.bit(s);
                if self.seen[w] & b != 0 {
                    self.duplicates += 1;
                } else {
                    self.seen[w] |= b;
                    self.reordered += 1;
                }
            }
            _ => {
                // Clear the bits of the numbers skipped (they leave or
                // enter the window unseen), then set this one.
                let from = self.max.map_or(0, |m| m as u64 + 1);
                let to = s as u64;
                if to - from >= WINDOW as u64 {
                    self.seen.iter_mut().for_each(|w| *w = 0);
                } else {
                    for k in from..to {
                        let (w, b) = self.bit(k as u32);
                        self.seen[w] &= !b;
                    }
                }
                let (w, b) = self.bit(s);
                self.seen[w] |= b;
                self.max = Some(s);
            }
        }
    }

    /// Distinct frames received.
    pub fn unique(&self) -> u64 {
        self.received - self.duplicates
    }
}

/// Totals over flows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowTotals {
    /// Frames sent.
    pub sent: u64,
    /// Frames received, duplicates included.
    pub received: u64,
    /// Distinct frames received.
    pub unique: u64,
    /// Frames that arrived twice or more (each extra copy counts).
    pub duplicates: u64,
    /// Frames that arrived after a later frame of their flow.
    pub reordered: u64,
    /// Frames sent that never arrived.
    pub lost: u64,
}

impl FlowTotals {
    /// Lost frames as a fraction of those sent (0 when none was sent).
    pub fn loss_ratio(&self) -> f64 {
        if self.sent == 0 {
            0.0
        } else {
            self.lost as f64 / self.sent as f64
        }
    }
}

/// The receive state of every flow of a trial.
#[derive(Clone, Debug, Default)]
pub struct FlowSet {
    flows: Vec<FlowTracker>,
}

impl FlowSet {
    /// State for `n` flows.
    pub fn new(n: usize) -> FlowSet {
        FlowSet {
            flows: (0..n).map(|_| FlowTracker::default()).collect(),
        }
    }

    /// Records sequence number `seq` of flow `flow`; false (and nothing
    /// recorded) for a flow number out of range.
    #[inline]
    pub fn record(&mut self, flow: u16, seq: u32) -> bool {
        match self.flows.get_mut(flow as usize) {
            Some(f) => {
                f.record(seq);
                true
            }
            None => false,
        }
    }

    /// One flow's state.
    pub fn flow(&self, i: usize) -> Option<&FlowTracker> {
        self.flows.get(i)
    }

    /// Totals, given how many frames each flow sent.
    pub fn totals(&self, sent_per_flow: &[u64]) -> FlowTotals {
        let mut t = FlowTotals::default();
        for (i, f) in self.flows.iter().enumerate() {
            let sent = sent_per_flow.get(i).copied().unwrap_or(0);
            t.sent += sent;
            t.received += f.received;
            t.unique += f.unique();
            t.duplicates += f.duplicates;
            t.reordered += f.reordered;
            t.lost += sent.saturating_sub(f.unique());
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(seqs: &[u32]) -> FlowTracker {
        let mut f = FlowTracker::default();
        for &s in seqs {
            f.record(s);
        }
        f
    }

    #[test]
    fn in_order() {
        let f = track(&(0..1000).collect::<Vec<_>>());
        assert_eq!((f.received, f.duplicates, f.reordered), (1000, 0, 0));
        assert_eq!(f.unique(), 1000);
    }

    #[test]
    fn gaps_are_loss_not_reordering() {
        let f = track(&[0, 1, 5, 6, 9]);
        assert_eq!((f.unique(), f.duplicates, f.reordered), (5, 0, 0));
        let mut s = FlowSet::new(1);
        for x in [0, 1, 5, 6, 9] {
            s.record(0, x);
        }
        let t = s.totals(&[10]);
        assert_eq!(t.lost, 5);
        assert!((t.loss_ratio() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn late_frames_are_reordered_and_copies_are_duplicates() {
        let f = track(&[0, 2, 1, 3, 3, 1, 0]);
        assert_eq!(f.received, 7);
        assert_eq!(f.reordered, 1, "1 after 2");
        assert_eq!(f.duplicates, 3, "3, 1 and 0 again");
        assert_eq!(f.unique(), 4);
    }

    #[test]
    fn a_skipped_number_arriving_late_is_not_a_duplicate() {
        // Bits of skipped numbers are cleared even when the window wraps.
        let mut f = FlowTracker::default();
        for s in 0..WINDOW + 10 {
            if s != WINDOW + 5 {
                f.record(s);
            }
        }
        f.record(WINDOW + 5);
        assert_eq!((f.duplicates, f.reordered), (0, 1));
        // A jump of more than the window clears everything.
        f.record(10 * WINDOW);
        f.record(10 * WINDOW - 3);
        assert_eq!((f.duplicates, f.reordered), (0, 2));
        // Older than the window: reordered, not a duplicate.
        f.record(5);
        assert_eq!((f.duplicates, f.reordered), (0, 3));
    }

    #[test]
    fn totals_over_flows() {
        let mut s = FlowSet::new(3);
        for q in 0..10 {
            s.record(0, q);
        }
        s.record(1, 1);
        s.record(1, 0);
        s.record(1, 0);
        assert!(!s.record(7, 0), "unknown flow");
        let t = s.totals(&[10, 4, 2]);
        assert_eq!(
            t,
            FlowTotals {
                sent: 16,
                received: 13,
                unique: 12,
                duplicates: 1,
                reordered: 1,
                lost: 4,
            }
        );
        assert_eq!(s.flow(1).unwrap().received, 3);
        assert_eq!(FlowTotals::default().loss_ratio(), 0.0);
    }
}
