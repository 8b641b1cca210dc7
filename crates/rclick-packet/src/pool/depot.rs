//! The process-wide depot: chunks of [`DEPOT_CHUNK`] idle headers, buffers
//! and batch vectors that a thread whose pool overflows hands over and a
//! thread whose pool runs dry takes, so a pipeline across threads recycles
//! instead of allocating (see the pool's module documentation).

use super::*;

/// One kind's shelf in the depot.
pub(super) struct Shelf<T> {
    /// `lists.full.len()`, readable without the lock, so that a thread
    /// whose list is empty pays one load, not a lock, when the depot is
    /// empty too.
    full_count: AtomicUsize,
    lists: Mutex<Lists<T>>,
}

pub(super) struct Lists<T> {
    /// Chunks of idle objects, at most [`MAX_DEPOT_CHUNKS`].
    pub(super) full: Vec<Vec<T>>,
    /// Emptied chunk vectors (capacity [`DEPOT_CHUNK`]) waiting to carry
    /// the next chunk, at most [`MAX_DEPOT_CHUNKS`].
    pub(super) empty: Vec<Vec<T>>,
}

impl<T> Shelf<T> {
    pub(super) const fn new() -> Self {
        Shelf {
            full_count: AtomicUsize::new(0),
            lists: Mutex::new(Lists {
                full: Vec::new(),
                empty: Vec::new(),
            }),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Lists<T>> {
        // Nothing panics while holding the lock, and the lists stay
        // consistent if something did.
        self.lists.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves the last [`DEPOT_CHUNK`] objects of `list` (which must hold
    /// that many) to the depot as one chunk, carried in `shell` (an emptied
    /// chunk vector this thread kept) or in one from the depot. Returns
    /// false, leaving `list` alone, if the depot is full.
    pub(super) fn give(&self, list: &mut Vec<T>, shell: &mut Option<Vec<T>>) -> bool {
        let mut l = self.lock();
        if l.full.len() >= MAX_DEPOT_CHUNKS {
            return false;
        }
        let mut chunk = match shell.take() {
            Some(c) => c,
            None => l
                .empty
                .pop()
                .unwrap_or_else(|| Vec::with_capacity(DEPOT_CHUNK)),
        };
        chunk.extend(list.drain(list.len() - DEPOT_CHUNK..));
        l.full.push(chunk);
        self.full_count.store(l.full.len(), Relaxed);
        true
    }

    /// Appends one chunk from the depot to `list`, keeping the emptied
    /// chunk vector in `shell` (and handing the one `shell` held back to
    /// the depot). Returns false if the depot has no chunk.
    pub(super) fn take(&self, list: &mut Vec<T>, shell: &mut Option<Vec<T>>) -> bool {
        if self.full_count.load(Relaxed) == 0 {
            return false;
        }
        let (mut chunk, surplus) = {
            let mut l = self.lock();
            let Some(chunk) = l.full.pop() else {
                return false;
            };
            self.full_count.store(l.full.len(), Relaxed);
            let mut surplus = shell.take();
            if l.empty.len() < MAX_DEPOT_CHUNKS {
                l.empty.extend(surplus.take());
            }
            (chunk, surplus)
        };
        drop(surplus);
        list.append(&mut chunk);
        *shell = Some(chunk);
        true
    }

    /// Objects held.
    pub(super) fn held(&self) -> usize {
        self.lock().full.iter().map(Vec::len).sum()
    }
}

/// Chunks of idle objects shared by all threads (see the module docs).
pub(super) struct Depot {
    /// Idle headers, with their attached buffers.
    pub(super) headers: Shelf<Box<Header>>,
    /// Spare buffers (unique, [`STD_BUFFER_LEN`]).
    pub(super) buffers: Shelf<BufArc>,
    /// Empty batch vectors.
    pub(super) batches: Shelf<Box<Vec<Packet>>>,
}

impl Depot {
    pub(super) const fn new() -> Depot {
        Depot {
            headers: Shelf::new(),
            buffers: Shelf::new(),
            batches: Shelf::new(),
        }
    }

    pub(super) fn held(&self) -> (usize, usize, usize) {
        (
            self.headers.held(),
            self.buffers.held(),
            self.batches.held(),
        )
    }
}

/// The process-wide depot.
pub(super) static DEPOT: Depot = Depot::new();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shelf_moves_whole_chunks_and_stays_bounded() {
        let shelf: Shelf<u32> = Shelf::new();
        let mut shell = None;
        let mut list: Vec<u32> = (0..DEPOT_CHUNK as u32 + 3).collect();
        assert!(shelf.give(&mut list, &mut shell));
        assert_eq!(list, [0, 1, 2], "the last chunk's worth went");
        assert_eq!(shelf.held(), DEPOT_CHUNK);

        let mut other = Vec::new();
        let mut other_shell = None;
        assert!(shelf.take(&mut other, &mut other_shell));
        assert_eq!(other.len(), DEPOT_CHUNK);
        assert_eq!(other[0], 3);
        assert!(other_shell.is_some(), "the emptied chunk vector is kept");
        assert!(!shelf.take(&mut other, &mut other_shell), "nothing left");

        for _ in 0..MAX_DEPOT_CHUNKS {
            let mut l: Vec<u32> = vec![7; DEPOT_CHUNK];
            assert!(shelf.give(&mut l, &mut None));
        }
        let mut l: Vec<u32> = vec![9; DEPOT_CHUNK];
        assert!(!shelf.give(&mut l, &mut None), "a full depot refuses");
        assert_eq!(l.len(), DEPOT_CHUNK, "and leaves the list alone");
        assert_eq!(shelf.held(), MAX_DEPOT_CHUNKS * DEPOT_CHUNK);
    }
}
