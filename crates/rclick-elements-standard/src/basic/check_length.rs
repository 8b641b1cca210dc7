//! # CheckLength
//!
//! `CheckLength(LENGTH)`
//!
//! **Category:** basic. Checks packet lengths.
//!
//! **Ports:** one input, agnostic; agnostic output 0 and optional push
//! output 1.
//!
//! ## Description
//!
//! Packets no longer than LENGTH bytes go out output 0. Longer packets go
//! out output 1 if it exists, and are dropped otherwise.
//!
//! Keywords: `LENGTH` (unsigned, mandatory).
//!
//! ## Handlers
//!
//! * `length` (read/write): LENGTH.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Examples
//!
//! ```text
//! ... -> cl :: CheckLength(1500) -> ToDevice(eth0);
//! cl[1] -> Print(too_long) -> Discard;
//! ```
//!
//! ## See also
//!
//! Truncate, Strip

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, HandlerDef, PacketBatch};

use super::parse_int;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Length = read_write("length"),
    }
}

/// The CheckLength element.
#[derive(Default)]
pub struct CheckLength {
    max: u32,
}

impl Element for CheckLength {
    fn class_name(&self) -> &'static str {
        "CheckLength"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut max: u32 = 0;
        Args::new(conf)
            .read_mp("LENGTH", &mut max)
            .complete()
            .map_err(|e| e.to_string())?;
        self.max = max;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let max = self.max as usize;
        let (ok, long) = batch.partition(|p| p.len() <= max);
        if !ok.is_empty() {
            cx.push(0, ok);
        }
        if !long.is_empty() {
            cx.checked_push(1, long);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        let limit = self.max as usize;
        let (ok, long) = batch.partition(|p| p.len() <= limit);
        if !long.is_empty() {
            cx.checked_push(1, long);
        }
        ok
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Length) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.max.to_string())
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Length) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        self.max = parse_int::<u32>(value).ok_or("expected unsigned integer")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn splits_by_length() {
        let r = testing::run(
            "InfiniteSource(LENGTH 60, LIMIT 2, STOP true) -> c :: CheckLength(59) -> a :: Counter -> Discard; c[1] -> b :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "0");
        assert_eq!(testing::read(&r, "b.count"), "2");
        assert_eq!(testing::read(&r, "c.length"), "59");
    }
}
