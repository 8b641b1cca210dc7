//! # Null1 ... Null8
//!
//! `Null1`, `Null2`, ..., `Null8`
//!
//! **Category:** basic. Pass packets unchanged.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Eight copies of Null under different class names, each its own class,
//! so that a chain of them (`Null1 -> Null2 -> ...`) measures the cost of
//! calling through that many distinct elements rather than one class's
//! code over and over. They pass every packet unchanged, in push and in
//! pull, and take no arguments.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> Null1 -> Null2 -> Null3 -> Discard;
//! ```
//!
//! ## See also
//!
//! Null, PushNull, PullNull

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch, Registry};

/// Null number `N` (1 to 8).
#[derive(Default)]
pub struct NullN<const N: usize>;

/// The class names, by number.
const NAMES: [&str; 8] = [
    "Null1", "Null2", "Null3", "Null4", "Null5", "Null6", "Null7", "Null8",
];

impl<const N: usize> Element for NullN<N> {
    fn class_name(&self) -> &'static str {
        NAMES[N - 1]
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        Some(p)
    }
    /// Per packet, independent of other elements.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        cx.pull(0, max)
    }
}

/// Registers Null1 to Null8, all with this file's manual.
pub(crate) fn register(r: &mut Registry) {
    let doc = include_str!("nulls.rs");
    r.add("Null1", || Box::<NullN<1>>::default(), doc);
    r.add("Null2", || Box::<NullN<2>>::default(), doc);
    r.add("Null3", || Box::<NullN<3>>::default(), doc);
    r.add("Null4", || Box::<NullN<4>>::default(), doc);
    r.add("Null5", || Box::<NullN<5>>::default(), doc);
    r.add("Null6", || Box::<NullN<6>>::default(), doc);
    r.add("Null7", || Box::<NullN<7>>::default(), doc);
    r.add("Null8", || Box::<NullN<8>>::default(), doc);
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn chain_of_eight() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> Null1 -> Null2 -> Null3 -> Null4 -> Queue
             -> Null5 -> Null6 -> Null7 -> x :: Null8 -> Unqueue -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "x.class"), "Null8");
        let e = testing::build("Idle -> Null1(1) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
    }
}
