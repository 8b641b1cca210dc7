//! # Tee
//!
//! `Tee([N])`
//!
//! **Category:** basic. Duplicates packets.
//!
//! **Ports:** one push input, one or more push outputs.
//!
//! ## Description
//!
//! Sends a copy of each packet out every output: clones (sharing the data)
//! go to outputs 0 to N-2 in order, and the original to output N-1.
//!
//! Keywords: `N` (unsigned): the number of outputs; if given it must equal
//! the number of outputs used.
//!
//! ## Examples
//!
//! ```text
//! ... -> t :: Tee -> Discard; t[1] -> Print -> Discard;
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## See also
//!
//! PullTee, PaintTee

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, PacketBatch};

/// The Tee element.
#[derive(Default)]
pub struct Tee;

/// Checks a tee's optional N argument against its output count.
pub(crate) fn configure_arms(conf: &[String], noutputs: usize) -> Result<(), String> {
    let mut n = noutputs as u64;
    Args::new(conf)
        .read_p("N", &mut n)
        .complete()
        .map_err(|e| e.to_string())?;
    if n != noutputs as u64 {
        return Err(format!("{noutputs} outputs implies {noutputs} arms"));
    }
    Ok(())
}

impl Element for Tee {
    fn class_name(&self) -> &'static str {
        "Tee"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        configure_arms(conf, cx.noutputs())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        for i in 0..n.saturating_sub(1) {
            let copy: PacketBatch = batch.iter().cloned().collect();
            cx.push(i, copy);
        }
        if n > 0 {
            cx.push(n - 1, batch);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn copies() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> t :: Tee -> a :: Counter -> Discard; t[1] -> b :: Counter -> Discard; t[2] -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        for c in ["a", "b", "c"] {
            assert_eq!(testing::read(&r, &format!("{c}.count")), "3");
        }
    }

    #[test]
    fn arms_must_match() {
        let e = testing::build(
            "Idle -> Tee(3) -> Discard; Idle -> t :: Tee(2) -> Discard; t[1] -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("1 outputs implies 1 arms"), "{e}");
    }
}
