//! A thread's run queue: scheduled tasks in pass order, the next to run at
//! the front.
//!
//! As Click's sorted task list, the common operations are popping the
//! front and putting a task that just ran back in at or near the back; a
//! ring of entries whose capacity is a power of two does both with a mask
//! and a store, where `VecDeque`'s general wrap-around arithmetic and
//! growth checks cost several times that per task run (callgrind: the run
//! queue was a third of the scheduler's instructions on a Queue handoff).

/// One scheduled run: the task's pass when it was queued, the entry's
/// generation (a stale entry's no longer matches its task's), the task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pass: u64,
    pub gen: u64,
    pub task: u32,
}

/// Where the task that just ran goes ([`RunQueue::place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Before every queued entry (or none is queued): it runs again.
    First,
    /// After the front entry but before every other one: the front runs
    /// next, and the task takes its place ([`RunQueue::replace_front`]).
    Swap,
    /// Further back: an ordinary [`RunQueue::insert`].
    Insert,
}

/// Entries in pass order; equal passes first in, first out.
#[derive(Debug)]
pub(crate) struct RunQueue {
    /// A power of two long; entry `i` (from the front) is at
    /// `(head + i) & mask`.
    buf: Box<[Entry]>,
    /// `buf.len() - 1`.
    mask: usize,
    /// Where the front entry is (always `< buf.len()`).
    head: usize,
    len: usize,
}

impl Default for RunQueue {
    fn default() -> Self {
        RunQueue {
            buf: vec![Entry::default(); 16].into_boxed_slice(),
            mask: 15,
            head: 0,
            len: 0,
        }
    }
}

impl RunQueue {
    #[inline(always)]
    fn mask(&self) -> usize {
        self.mask
    }

    #[inline(always)]
    fn at(&self, i: usize) -> Entry {
        self.buf[(self.head + i) & self.mask()]
    }

    /// Whether no entry is queued.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many entries are queued.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The next entry to run, if any.
    #[inline(always)]
    pub fn front(&self) -> Option<Entry> {
        (self.len != 0).then(|| self.at(0))
    }

    /// Takes the next entry to run.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<Entry> {
        if self.len == 0 {
            return None;
        }
        let e = self.at(0);
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(e)
    }

    /// Where an entry of pass `pass` for the task that just ran goes, in
    /// one look at the front two entries: see [`Place`].
    #[inline(always)]
    pub fn place(&self, pass: u64) -> Place {
        if self.len == 0 {
            return Place::First;
        }
        let mask = self.mask();
        // A tie goes to the entry already queued (first in, first out).
        if pass < self.buf[self.head & mask].pass {
            return Place::First;
        }
        if self.len == 1 || pass < self.buf[(self.head + 1) & mask].pass {
            return Place::Swap;
        }
        Place::Insert
    }

    /// Takes the front entry and queues `e` in its place: for
    /// [`Place::Swap`], where this is a pop and an insert in one store (two
    /// tasks that take turns, a source and the task pulling from its
    /// Queue, trade places this way on every run). The queue must not be
    /// empty.
    #[inline(always)]
    pub fn replace_front(&mut self, e: Entry) -> Entry {
        let at = self.head & self.mask();
        std::mem::replace(&mut self.buf[at], e)
    }

    /// Queues `e` first. The caller knows that no queued entry's pass is
    /// below `e`'s, and that `e` was first among equals (an entry taken
    /// from the front and put back).
    #[inline]
    pub fn push_front(&mut self, e: Entry) {
        if self.len == self.buf.len() {
            self.grow();
        }
        self.head = (self.head + self.buf.len() - 1) & self.mask();
        self.buf[self.head] = e;
        self.len += 1;
    }

    /// Queues `e` after every entry whose pass is at most its own.
    #[inline]
    pub fn insert(&mut self, e: Entry) {
        if self.len == self.buf.len() {
            self.grow();
        }
        // A task that just ran usually goes last.
        if self.len == 0 || self.at(self.len - 1).pass <= e.pass {
            let at = (self.head + self.len) & self.mask;
            self.buf[at] = e;
            self.len += 1;
            return;
        }
        self.insert_inside(e);
    }

    /// [`insert`](Self::insert) before the last entry: the place is found
    /// from the back.
    #[cold]
    #[inline(never)]
    fn insert_inside(&mut self, e: Entry) {
        let mut i = self.len;
        while i > 0 && self.at(i - 1).pass > e.pass {
            i -= 1;
        }
        let mask = self.mask();
        let mut j = self.len;
        while j > i {
            self.buf[(self.head + j) & mask] = self.buf[(self.head + j - 1) & mask];
            j -= 1;
        }
        self.buf[(self.head + i) & mask] = e;
        self.len += 1;
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut buf = vec![Entry::default(); self.buf.len() * 2].into_boxed_slice();
        for (i, slot) in buf.iter_mut().take(self.len).enumerate() {
            *slot = self.at(i);
        }
        self.mask = buf.len() - 1;
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(pass: u64, gen: u64) -> Entry {
        Entry {
            pass,
            gen,
            task: gen as u32,
        }
    }

    fn drain(q: &mut RunQueue) -> Vec<(u64, u64)> {
        std::iter::from_fn(|| q.pop_front().map(|x| (x.pass, x.gen))).collect()
    }

    #[test]
    fn pass_order_with_ties_first_in_first_out() {
        let mut q = RunQueue::default();
        for (i, p) in [5, 3, 5, 1, 3, 9, 0].into_iter().enumerate() {
            q.insert(e(p, i as u64));
        }
        assert_eq!(q.len(), 7);
        assert_eq!(q.front(), Some(e(0, 6)));
        assert_eq!(
            drain(&mut q),
            vec![(0, 6), (1, 3), (3, 1), (3, 4), (5, 0), (5, 2), (9, 5)]
        );
        assert!(q.is_empty());
        assert_eq!(q.pop_front(), None);
        assert_eq!(q.front(), None);
    }

    /// `place` says what an insert would do after the task's run: first,
    /// second (the front is popped and the entry takes its place, as a pop
    /// and an insert would leave the queue), or further back; ties go to
    /// the queued entry. `push_front` puts an entry back first, growing
    /// and wrapping the ring.
    #[test]
    fn place_and_replace_front_are_a_pop_and_an_insert() {
        let mut q = RunQueue::default();
        assert_eq!(q.place(1), Place::First);
        q.insert(e(3, 1));
        assert_eq!(q.place(2), Place::First);
        assert_eq!(q.place(3), Place::Swap);
        assert_eq!(q.place(9), Place::Swap);
        assert_eq!(q.replace_front(e(4, 2)), e(3, 1));
        assert_eq!(q.len(), 1);
        q.insert(e(6, 3));
        // 6 is not below 6: the insert goes after the entry of pass 6.
        assert_eq!(q.place(6), Place::Insert);
        assert_eq!(q.place(5), Place::Swap);
        assert_eq!(q.replace_front(e(5, 5)), e(4, 2));
        assert_eq!(drain(&mut q), vec![(5, 5), (6, 3)]);
        for i in 0..40u64 {
            q.insert(e(100 + i, i));
            let f = q.pop_front().unwrap();
            q.push_front(f);
            q.push_front(e(0, 1000 + i));
            assert_eq!(q.pop_front(), Some(e(0, 1000 + i)));
            // Wrapped and grown: the place still looks at the right two.
            assert_eq!(
                q.place(101),
                if i == 0 { Place::Swap } else { Place::Insert }
            );
        }
        let got = drain(&mut q);
        assert_eq!(got.len(), 40);
        assert!(got.windows(2).all(|w| w[0].0 <= w[1].0));
        for i in 0..20u64 {
            q.push_front(e(20 - i, i));
        }
        assert_eq!(drain(&mut q).len(), 20);
    }

    #[test]
    fn grows_and_wraps_without_losing_order() {
        let mut q = RunQueue::default();
        let mut want = Vec::new();
        // Alternate pops and pushes so the ring wraps many times, then grow
        // it while wrapped.
        for round in 0..100u64 {
            q.insert(e(round * 10, round));
            if round % 3 == 0 {
                q.pop_front();
            }
        }
        while let Some(x) = q.pop_front() {
            want.push(x.pass);
        }
        let mut sorted = want.clone();
        sorted.sort_unstable();
        assert_eq!(want, sorted);
        assert_eq!(want.len(), 100 - 34);
        for i in 0..1000u64 {
            q.insert(e(1000 - i, i));
        }
        let got = drain(&mut q);
        assert_eq!(got.len(), 1000);
        assert!(got.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
