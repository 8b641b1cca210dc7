//! TCP sequence-number deltas (Click's `TCPRewriter::TCPFlow` delta lists):
//! what TCPRewriter adds to a flow's sequence and acknowledgement numbers
//! after an element such as FTPPortMapper changed its payload length.

/// Per direction: transitions newest first, `(trigger, delta)`, plus the
/// delta below every trigger.
#[derive(Clone, Debug, Default)]
pub struct SeqDelta {
    list: [Vec<(u32, i32)>; 2],
    base: [i32; 2],
}

/// `a` is at or after `b` in sequence space.
pub(crate) fn seq_geq(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

impl SeqDelta {
    /// The delta for the newest sequence numbers of direction `d`.
    pub fn newest(&self, d: usize) -> i32 {
        self.list[d].first().map_or(self.base[d], |e| e.1)
    }
    /// Whether direction `d` has any delta.
    pub fn active(&self, d: usize) -> bool {
        !self.list[d].is_empty() || self.base[d] != 0
    }
    /// Forgets direction `d`'s transitions once `seq` is 2^30 past the
    /// newest (they can no longer be told apart from new data).
    pub fn advance(&mut self, d: usize, seq: u32) {
        if let Some(&(t, dl)) = self.list[d].first() {
            if seq_geq(seq, t.wrapping_add(1 << 30)) {
                self.base[d] = dl;
                self.list[d].clear();
            }
        }
    }
    /// Sequence number `seq` of direction `d`, rewritten.
    pub fn new_seq(&self, d: usize, seq: u32) -> u32 {
        for &(t, dl) in &self.list[d] {
            if seq_geq(seq, t) {
                return seq.wrapping_add(dl as u32);
            }
        }
        seq.wrapping_add(self.base[d] as u32)
    }
    /// Acknowledgement number `ack` of direction `d` (acknowledging the
    /// other direction's rewritten numbers), rewritten back.
    pub fn new_ack(&self, d: usize, ack: u32) -> u32 {
        let od = 1 - d;
        for &(t, dl) in &self.list[od] {
            let a = ack.wrapping_sub(dl as u32);
            if seq_geq(a, t) {
                return a;
            }
        }
        ack.wrapping_sub(self.base[od] as u32)
    }
    /// Adds `amount` to the delta for sequence numbers at or after
    /// `trigger` in direction `d`. False if `trigger` is older than the
    /// newest transition.
    pub fn update(&mut self, d: usize, trigger: u32, amount: i32) -> bool {
        if let Some(&(t, _)) = self.list[d].first() {
            if !seq_geq(trigger, t) {
                return false;
            }
        }
        let replace = self.list[d].first().is_some_and(|e| e.0 == trigger);
        let prev = if replace {
            self.list[d].get(1).map_or(self.base[d], |e| e.1)
        } else {
            self.newest(d)
        };
        let nd = prev.wrapping_add(amount);
        if replace {
            self.list[d][0].1 = nd;
        } else {
            self.list[d].insert(0, (trigger, nd));
        }
        if let Some(i) = self.list[d]
            .iter()
            .skip(1)
            .position(|&(t, _)| seq_geq(trigger, t.wrapping_add(1 << 30)))
        {
            let i = i + 1;
            self.base[d] = self.list[d][i].1;
            self.list[d].truncate(i);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seq_delta_model() {
        let mut s = SeqDelta::default();
        assert!(!s.active(0));
        assert!(s.update(0, 30, -12));
        assert!(s.active(0) && !s.active(1));
        assert_eq!(s.new_seq(0, 30), 18);
        assert_eq!(s.new_seq(0, 1), 1);
        assert_eq!(s.new_ack(1, 18), 30);
        assert_eq!(s.new_ack(1, 1), 1);
        assert!(s.update(0, 65, -12));
        assert_eq!(s.new_seq(0, 65), 41);
        assert_eq!(s.new_seq(0, 36), 24);
        assert!(!s.update(0, 10, 1));
        assert_eq!(s.newest(0), -24);
    }

    #[test]
    fn same_trigger_replaces_and_old_transitions_fold_into_the_base() {
        let mut s = SeqDelta::default();
        assert!(s.update(1, 100, 5));
        // the same trigger again: the delta below it plus the new amount
        assert!(s.update(1, 100, 7));
        assert_eq!(s.newest(1), 7);
        assert_eq!(s.new_seq(1, 100), 107);
        assert_eq!(s.new_seq(1, 99), 99);
        // 2^30 later the transition is forgotten and its delta applies to all
        s.advance(1, 100u32.wrapping_add(1 << 30));
        assert_eq!(s.new_seq(1, 99), 106);
        assert!(s.active(1));
        // wrap-around: a trigger just below zero still orders before one above
        let mut w = SeqDelta::default();
        assert!(w.update(0, u32::MAX - 1, 3));
        assert!(w.update(0, 2, 4));
        assert_eq!(w.new_seq(0, 0), 3);
        assert_eq!(w.new_seq(0, 5), 12);
        assert!(seq_geq(1, u32::MAX));
    }
}
