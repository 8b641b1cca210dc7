//! The simplest drop counting: one count, read by a `drops` handler that
//! is the class's only one, and the tail of a per-packet path that gives
//! up on a bad packet.
//!
//! A class that drops (or diverts) the packets it cannot handle keeps a
//! `u64` (or a [`Drops`] by reason) and writes, in its `impl Element`,
//!
//! ```
//! # use rclick_core::{Ctx, Element, Packet};
//! #[derive(Default)]
//! struct DropOdd {
//!     drops: u64,
//! }
//! impl Element for DropOdd {
//!     fn class_name(&self) -> &'static str {
//!         "DropOdd"
//!     }
//!     fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
//!         let ok = p.len().is_multiple_of(2);
//!         rclick_core::drops::simple::keep_or_count(&mut self.drops, p, ok)
//!     }
//!     rclick_core::drops_handler!(drops);
//! }
//! let names: Vec<_> = DropOdd::default().handlers().into_iter().map(|d| d.name).collect();
//! assert_eq!(names, ["drops"]);
//! ```
//!
//! [`drops_handler!`](crate::drops_handler) writes `handlers` (the
//! one-entry table [`DropsOnly`], a [`handlers!`](crate::handlers) table)
//! and `read_handler` (the count in decimal, through [`read`]). A class
//! with more handlers puts `Drops = read("drops")` in its own table.
//!
//! The tails, all `#[inline]`, for the per-packet paths they sit on:
//! [`keep_or_count`] (drop and count), [`count_one`] (count; true at the
//! first drop, which some classes log), [`divert`] (count, then output 1
//! if connected, else drop: Click's `checked_output_push`) and
//! [`divert_or_count`] (output 1 if connected, else drop and count).

use super::{DropReason, Drops};
use crate::{Ctx, Packet, PacketBatch};

crate::handlers! {
    /// The handler table of a class whose only handler is `drops` (read).
    pub enum DropsOnly {
        Drops = read("drops"),
    }
}

/// A count a `drops` handler reads: a plain `u64`, or the total of a
/// [`Drops`].
pub trait DropTotal {
    /// Drops counted, all reasons.
    fn drop_total(&self) -> u64;
}

impl DropTotal for u64 {
    #[inline]
    fn drop_total(&self) -> u64 {
        *self
    }
}

impl<R: DropReason> DropTotal for Drops<R> {
    fn drop_total(&self) -> u64 {
        self.total()
    }
}

/// The read of [`DropsOnly`]'s `drops`: `total` in decimal; an unknown
/// `id` is an error, as for every class.
pub fn read(id: u32, total: &impl DropTotal) -> Result<String, String> {
    match DropsOnly::from_id(id) {
        Some(DropsOnly::Drops) => Ok(total.drop_total().to_string()),
        None => Err("no such handler".into()),
    }
}

/// Writes an element's `handlers` and `read_handler` for a class whose
/// only handler is `drops`, reading field `$field` (a `u64` or a
/// [`Drops`]); see the [module documentation](crate::drops::simple).
#[macro_export]
macro_rules! drops_handler {
    ($field:ident) => {
        fn handlers(&self) -> ::std::vec::Vec<$crate::HandlerDef> {
            $crate::drops::simple::DropsOnly::all_defs()
        }
        fn read_handler(
            &mut self,
            id: u32,
            _param: &str,
            _cx: &mut $crate::Ctx,
        ) -> ::std::result::Result<::std::string::String, ::std::string::String> {
            $crate::drops::simple::read(id, &self.$field)
        }
    };
}

/// Counts one drop in `drops`; true if it is the first ever (for the
/// classes that log their first drop).
#[inline]
pub fn count_one(drops: &mut u64) -> bool {
    let first = *drops == 0;
    *drops += 1;
    first
}

/// The tail of a `simple_action`: `Some(p)` if `ok`, else `p` is dropped
/// and counted.
#[inline]
pub fn keep_or_count(drops: &mut u64, p: Packet, ok: bool) -> Option<Packet> {
    if ok {
        Some(p)
    } else {
        *drops += 1;
        None
    }
}

/// Bad packets (one `Packet` or a `PacketBatch`): counted, then pushed to
/// output 1 if there is one, else dropped (and counted in `router_drops`
/// as well, as [`Ctx::checked_push`] does).
#[inline]
pub fn divert(drops: &mut u64, bad: impl Into<PacketBatch>, cx: &mut Ctx) {
    let bad = bad.into();
    *drops += bad.len() as u64;
    cx.checked_push(1, bad);
}

/// Bad packets (one `Packet` or a `PacketBatch`): pushed to output 1 if
/// there is one; else dropped and counted (only the drops count).
#[inline]
pub fn divert_or_count(drops: &mut u64, bad: impl Into<PacketBatch>, cx: &mut Ctx) {
    let bad = bad.into();
    if cx.noutputs() > 1 {
        cx.push(1, bad);
    } else {
        *drops += bad.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Element, HandlerDef, HandlerKind, Registry};

    #[test]
    fn the_table_is_one_read_handler() {
        let defs = DropsOnly::all_defs();
        assert_eq!(defs, [HandlerDef::read("drops", 0)]);
        let HandlerKind::Element(id) = defs[0].kind else {
            panic!("{:?}", defs[0].kind)
        };
        assert_eq!(read(id, &42u64).unwrap(), "42");
        assert_eq!(read(id + 1, &42u64).unwrap_err(), "no such handler");
    }

    crate::drop_reasons! {
        enum Why {
            Short = "too short",
            Bad = "bad",
        }
    }

    #[test]
    fn a_drops_by_reason_is_read_as_its_total() {
        let mut d = Drops::<Why>::default();
        d.count(Why::Short, 2);
        d.count(Why::Bad, 3);
        assert_eq!(read(DropsOnly::Drops.id(), &d).unwrap(), "5");
    }

    #[test]
    fn tails_count() {
        let mut drops = 0;
        assert!(keep_or_count(&mut drops, Packet::from_slice(&[1]), true).is_some());
        assert_eq!(drops, 0);
        assert!(keep_or_count(&mut drops, Packet::from_slice(&[1]), false).is_none());
        assert_eq!(drops, 1);
        let mut n = 0;
        assert!(count_one(&mut n));
        assert!(!count_one(&mut n));
        assert_eq!(n, 2);
    }

    /// Pushes packets 1 to 5 when `go` is written.
    #[derive(Default)]
    struct Five;

    impl Element for Five {
        fn class_name(&self) -> &'static str {
            "Five"
        }
        fn port_count(&self) -> &'static str {
            "0/1"
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::write("go", 0)]
        }
        fn write_handler(&mut self, _id: u32, _v: &str, cx: &mut Ctx) -> Result<(), String> {
            let mut b = PacketBatch::new();
            for i in 1..=5u8 {
                b.push(Packet::from_slice(&[i]));
            }
            cx.push(0, b);
            Ok(())
        }
    }

    /// Passes even packets; odd ones go through `divert` (`Divert`) or
    /// `divert_or_count` (`DivertOrCount`).
    #[derive(Default)]
    struct Odd<const COUNT_ALL: bool> {
        drops: u64,
    }

    impl<const COUNT_ALL: bool> Element for Odd<COUNT_ALL> {
        fn class_name(&self) -> &'static str {
            "Odd"
        }
        fn port_count(&self) -> &'static str {
            "1/1-2"
        }
        fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
            if p.data()[0].is_multiple_of(2) {
                return Some(p);
            }
            if COUNT_ALL {
                divert(&mut self.drops, p, cx);
            } else {
                divert_or_count(&mut self.drops, p, cx);
            }
            None
        }
        crate::drops_handler!(drops);
    }

    /// Sums the first bytes of the packets on each input.
    #[derive(Default)]
    struct Tally([u32; 2]);

    impl Element for Tally {
        fn class_name(&self) -> &'static str {
            "Tally"
        }
        fn port_count(&self) -> &'static str {
            "1-2/0"
        }
        fn push(&mut self, port: usize, batch: PacketBatch, _cx: &mut Ctx) {
            self.0[port] += batch.iter().map(|p| u32::from(p.data()[0])).sum::<u32>();
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("sums", 0)]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(format!("{} {}", self.0[0], self.0[1]))
        }
    }

    /// Each tail, with output 1 connected and without: packets 1 to 5,
    /// the even ones (2 + 4) kept, the odd ones (1 + 3 + 5) bad.
    #[test]
    fn divert_counts_every_bad_packet_divert_or_count_only_drops() {
        let mut reg = Registry::new();
        reg.add("Five", || Box::<Five>::default(), "");
        reg.add("Divert", || Box::<Odd<true>>::default(), "");
        reg.add("DivertOrCount", || Box::<Odd<false>>::default(), "");
        reg.add("Tally", || Box::<Tally>::default(), "");
        for (class, with_1, drops, sums) in [
            ("Divert", true, "3", "6 9"),
            ("Divert", false, "3", "6 0"),
            ("DivertOrCount", true, "0", "6 9"),
            ("DivertOrCount", false, "3", "6 0"),
        ] {
            let out1 = if with_1 { "o[1] -> [1]t;" } else { "" };
            let conf = format!("s :: Five -> o :: {class} -> t :: Tally; {out1}");
            let r = crate::testing::build(&conf, &reg, true).unwrap();
            r.write_handler("s.go", "").unwrap();
            assert_eq!(crate::testing::read(&r, "t.sums"), sums, "{conf}");
            assert_eq!(crate::testing::read(&r, "o.drops"), drops, "{conf}");
        }
    }
}
