//! Which threads reach each element: Click's thread analysis (FastClick
//! calls it the passing-threads analysis).
//!
//! A thread runs an element when one of the thread's tasks or timers
//! belongs to the element, or when such an element pushes to it (directly
//! or further downstream) or pulls from it (directly or further upstream).
//! The analysis follows push outputs and pull inputs from every task's and
//! timer's element until nothing changes. It over-approximates (it ignores
//! flow codes), which costs speed, never safety: an element reached by one
//! thread is *owned* by that thread's lock and called without atomic
//! operations; one reached by several is *shared* (see `slot.rs`). An
//! element no task or timer reaches (only handlers call it) belongs to its
//! home thread, 0 unless configured otherwise.

use super::ctx::Port;
use super::slot::SHARED;

/// A set of threads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Threads(Vec<u64>);

impl Threads {
    fn insert(&mut self, t: usize) -> bool {
        let (w, b) = (t / 64, 1u64 << (t % 64));
        if self.0.len() <= w {
            self.0.resize(w + 1, 0);
        }
        let new = self.0[w] & b == 0;
        self.0[w] |= b;
        new
    }

    /// Adds every thread of `other`; returns whether this set grew.
    fn union(&mut self, other: &Threads) -> bool {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut grew = false;
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            grew |= *b & !*a != 0;
            *a |= *b;
        }
        grew
    }

    /// The only thread, if there is exactly one.
    fn single(&self) -> Option<usize> {
        let mut found = None;
        for (w, &bits) in self.0.iter().enumerate() {
            if bits == 0 {
                continue;
            }
            if found.is_some() || bits.count_ones() != 1 {
                return None;
            }
            found = Some(w * 64 + bits.trailing_zeros() as usize);
        }
        found
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// The graph as the analysis sees it.
pub(crate) struct Graph<'a> {
    /// Each element's push outputs (pull outputs are `Port::NONE`).
    pub outs: &'a [&'a [Port]],
    /// Each element's pull inputs (push inputs are `Port::NONE`).
    pub ins: &'a [&'a [Port]],
    /// Each element's home thread (where its handlers run when nothing
    /// else decides).
    pub home: &'a [usize],
}

/// The owner of each element: the index of the one thread that reaches it,
/// or [`SHARED`]. `runners` lists (element, thread) for every task and timer.
pub(crate) fn owners(g: &Graph<'_>, runners: &[(usize, usize)]) -> Vec<u32> {
    let n = g.outs.len();
    let mut reach = vec![Threads::default(); n];
    let mut work = Vec::new();
    for &(e, t) in runners {
        if e < n && reach[e].insert(t) {
            work.push(e);
        }
    }
    while let Some(e) = work.pop() {
        let from = reach[e].clone();
        let next = g.outs[e]
            .iter()
            .chain(g.ins[e].iter())
            .filter(|p| **p != Port::NONE)
            .map(|p| p.to as usize);
        for to in next {
            if to < n && reach[to].union(&from) {
                work.push(to);
            }
        }
    }
    (0..n)
        .map(|e| {
            if reach[e].is_empty() {
                g.home[e] as u32
            } else {
                reach[e].single().map_or(SHARED, |t| t as u32)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(to: u32) -> Port {
        Port { to, port: 0 }
    }

    fn owners_of(
        outs: Vec<Vec<Port>>,
        ins: Vec<Vec<Port>>,
        home: Vec<usize>,
        runners: &[(usize, usize)],
    ) -> Vec<u32> {
        let o: Vec<&[Port]> = outs.iter().map(Vec::as_slice).collect();
        let i: Vec<&[Port]> = ins.iter().map(Vec::as_slice).collect();
        owners(
            &Graph {
                outs: &o,
                ins: &i,
                home: &home,
            },
            runners,
        )
    }

    #[test]
    fn two_paths_are_owned_by_their_threads() {
        // 0 -> 1 -> 2 (thread 0), 3 -> 4 -> 5 (thread 1), 6 alone (home 1).
        let outs = vec![
            vec![p(1)],
            vec![p(2)],
            vec![],
            vec![p(4)],
            vec![p(5)],
            vec![],
            vec![],
        ];
        let o = owners_of(
            outs,
            vec![vec![]; 7],
            vec![0, 0, 0, 0, 0, 0, 1],
            &[(0, 0), (3, 1)],
        );
        assert_eq!(o, vec![0, 0, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn a_queue_between_threads_is_shared_and_nothing_else() {
        // src(0) -> q(1); uq(2) pulls q and pushes to sink(3); uq on thread 1.
        let outs = vec![vec![p(1)], vec![Port::NONE], vec![p(3)], vec![]];
        let ins = vec![vec![], vec![Port::NONE], vec![p(1)], vec![Port::NONE]];
        let o = owners_of(outs, ins, vec![0; 4], &[(0, 0), (2, 1)]);
        assert_eq!(o, vec![0, SHARED, 1, 1]);
    }

    #[test]
    fn a_merge_point_and_everything_after_it_is_shared() {
        // 0 (thread 0) and 1 (thread 1) both push to 2, which pushes to 3.
        let outs = vec![vec![p(2)], vec![p(2)], vec![p(3)], vec![]];
        let o = owners_of(outs, vec![vec![]; 4], vec![0; 4], &[(0, 0), (1, 1)]);
        assert_eq!(o, vec![0, 1, SHARED, SHARED]);
    }

    #[test]
    fn many_threads() {
        let mut t = Threads::default();
        assert!(t.insert(70));
        assert!(!t.insert(70));
        assert_eq!(t.single(), Some(70));
        t.insert(3);
        assert_eq!(t.single(), None);
    }
}
