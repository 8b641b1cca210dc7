//! Named drop reasons and their counters: one type for every element.
//!
//! An element that drops packets for several reasons declares them once
//! with [`drop_reasons!`](crate::drop_reasons):
//!
//! ```
//! use rclick_core::drops::Drops;
//! rclick_core::drop_reasons! {
//!     /// Why CheckThing drops.
//!     pub enum Why {
//!         TooShort = "packet too short",
//!         BadChecksum = "bad checksum",
//!     }
//! }
//! let mut d = Drops::<Why>::default();
//! assert!(d.count(Why::BadChecksum, 1)); // the first of its kind: log it
//! assert!(!d.count(Why::BadChecksum, 2));
//! assert_eq!(d.total(), 3);
//! assert_eq!(d.details(), "0\tpacket too short\n3\tbad checksum\n");
//! ```
//!
//! [`Drops`] keeps a count per reason; `total()` is what a `drops` handler
//! reads and `details()` (one `COUNT<TAB>REASON` line per reason, in
//! declaration order) what a `drop_details` handler reads. How a drop is
//! logged stays with the element, since Click's wording differs by class:
//! [`Drops::count`] says whether this was the reason's first drop.
//!
//! [`simple`] is the case of one count read by a class's only handler,
//! `drops`, and the tails that count a bad packet and drop or divert it.

use std::marker::PhantomData;

pub mod simple;

/// A set of named drop reasons: an enum made by
/// [`drop_reasons!`](crate::drop_reasons).
pub trait DropReason: Copy + Eq + std::fmt::Debug + 'static {
    /// Every reason, in declaration order.
    const ALL: &'static [Self];
    /// Its position in [`DropReason::ALL`].
    fn index(self) -> usize;
    /// What a person reads: `bad checksum`.
    fn text(self) -> &'static str;
}

/// Declares a [`DropReason`] enum; see the [module
/// documentation](crate::drops).
#[macro_export]
macro_rules! drop_reasons {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(dead_code)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $crate::drops::DropReason for $name {
            const ALL: &'static [$name] = &[$($name::$variant),+];
            fn index(self) -> usize {
                self as usize
            }
            fn text(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }
    };
}

/// Drop counts by reason.
#[derive(Clone, Debug)]
pub struct Drops<R: DropReason> {
    counts: Box<[u64]>,
    _reason: PhantomData<fn() -> R>,
}

impl<R: DropReason> Default for Drops<R> {
    fn default() -> Self {
        Drops {
            counts: vec![0; R::ALL.len()].into_boxed_slice(),
            _reason: PhantomData,
        }
    }
}

impl<R: DropReason> Drops<R> {
    /// Counts `n` drops for `reason`; true when they are the first drops
    /// for that reason (so the element can log it once).
    #[inline]
    pub fn count(&mut self, reason: R, n: u64) -> bool {
        match self.counts.get_mut(reason.index()) {
            Some(c) => {
                let first = *c == 0;
                *c += n;
                first && n > 0
            }
            None => false,
        }
    }

    /// Drops counted for `reason`.
    pub fn get(&self, reason: R) -> u64 {
        self.counts.get(reason.index()).copied().unwrap_or(0)
    }

    /// Drops counted for every reason.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Each reason with its count, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (R, u64)> + '_ {
        R::ALL.iter().map(|&r| (r, self.get(r)))
    }

    /// One line per reason, `COUNT<TAB>REASON`, in declaration order.
    pub fn details(&self) -> String {
        let mut s = String::new();
        for (r, n) in self.iter() {
            s.push_str(&format!("{n}\t{}\n", r.text()));
        }
        s
    }

    /// Sets every count to 0.
    pub fn reset(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::drop_reasons! {
        enum Why {
            Short = "too short",
            Bad = "bad",
            Old = "too old",
        }
    }

    #[test]
    fn counts_by_reason_and_reports_the_first() {
        let mut d = Drops::<Why>::default();
        assert_eq!(d.total(), 0);
        assert!(!d.count(Why::Old, 0), "zero drops are not a first drop");
        assert!(d.count(Why::Old, 2));
        assert!(!d.count(Why::Old, 1));
        assert!(d.count(Why::Short, 1));
        assert_eq!(d.get(Why::Old), 3);
        assert_eq!(d.get(Why::Bad), 0);
        assert_eq!(d.total(), 4);
        assert_eq!(d.details(), "1\ttoo short\n0\tbad\n3\ttoo old\n");
        let v: Vec<_> = d.iter().collect();
        assert_eq!(v, [(Why::Short, 1), (Why::Bad, 0), (Why::Old, 3)]);
        d.reset();
        assert_eq!(d.total(), 0);
        assert!(d.count(Why::Old, 1), "first again after a reset");
    }

    #[test]
    fn reasons_know_their_text_and_index() {
        assert_eq!(Why::ALL.len(), 3);
        assert_eq!(Why::Bad.index(), 1);
        assert_eq!(Why::Old.text(), "too old");
    }
}
