//! # Strip
//!
//! `Strip(LENGTH)`
//!
//! **Category:** basic. Removes bytes from the front of packets.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Deletes the first LENGTH bytes of each packet (all of a shorter one).
//! The bytes stay in the packet's headroom, so Unstrip can bring them back.
//!
//! Keywords: `LENGTH` (unsigned, mandatory).
//!
//! ## Handlers
//!
//! * `length` (read/write): LENGTH.
//!
//! ## Examples
//!
//! ```text
//! ... -> Strip(14) -> CheckIPHeader -> ...
//! ```
//!
//! ## Annotations
//!
//! None used or set (header annotations keep pointing at the same bytes).
//!
//! ## See also
//!
//! Unstrip, Truncate, StripToNetworkHeader

use super::each_packet::{pull_each, push_each};
use rclick_core::args::Args;
use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::length_arg::ByteLength;

/// The Strip element.
#[derive(Default)]
pub struct Strip {
    n: ByteLength,
}

impl Element for Strip {
    fn class_name(&self) -> &'static str {
        "Strip"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.pull(self.n.0 as usize);
        Some(p)
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut n = ByteLength::default();
        n.read_arg(Args::new(conf))
            .complete()
            .map_err(|e| e.to_string())?;
        self.n = n;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = self.n.0 as usize;
        push_each(batch, cx, |p| p.pull(n));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let n = self.n.0 as usize;
        pull_each(max, cx, |p| p.pull(n))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        ByteLength::handlers(false)
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.n.read(id)
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        self.n.write(id, value)
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn strips_and_clamps() {
        let r = testing::run(
            "InfiniteSource(\\<0102030405>, LIMIT 1, STOP true) -> Strip(2) -> Print(a) -> Strip(9) -> Print(b) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["a:    3 | 030405", "b:    0"]);
    }
}
