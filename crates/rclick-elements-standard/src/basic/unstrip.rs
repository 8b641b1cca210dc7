//! # Unstrip
//!
//! `Unstrip(LENGTH)`
//!
//! **Category:** basic. Puts bytes back at the front of packets.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Adds LENGTH bytes to the front of each packet, the reverse of Strip.
//! The packet's headroom is used when there is enough, and the added bytes
//! are the ones the buffer holds there: after `Strip(N)`, `Unstrip(N)`
//! restores exactly the bytes Strip removed, as in Click. When the headroom
//! is too small the packet is copied into a bigger buffer and the bytes
//! beyond the old headroom read as zeros.
//!
//! Keywords: `LENGTH` (unsigned, mandatory).
//!
//! ## Handlers
//!
//! * `length` (read/write): LENGTH.
//!
//! ## Annotations
//!
//! None used or set (header annotations keep pointing at the same bytes).
//!
//! ## Examples
//!
//! ```text
//! ... -> Strip(14) -> CheckIPHeader -> ... -> Unstrip(14) -> ...
//! ```
//!
//! ## See also
//!
//! Strip

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::each_packet::{pull_kept, push_kept};
use super::length_arg::ByteLength;

/// The Unstrip element.
#[derive(Default)]
pub struct Unstrip {
    n: ByteLength,
}

impl Element for Unstrip {
    fn class_name(&self) -> &'static str {
        "Unstrip"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.push_keep(self.n.0 as usize).is_ok().then_some(p)
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
        push_kept(batch, cx, |p| p.push_keep(n).is_ok());
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let n = self.n.0 as usize;
        pull_kept(max, cx, |p| p.push_keep(n).is_ok())
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
    fn grows() {
        let r = testing::run(
            "InfiniteSource(\\<0102030405>, LIMIT 1, STOP true) -> Strip(2) -> Unstrip(2) -> Unstrip(100) -> Print(a, 0) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["a:  105"]);
    }

    #[test]
    fn restores_the_bytes_strip_removed() {
        // Click's Unstrip exposes the headroom as it is: the stripped bytes
        // come back, also on a clone that shares the buffer.
        let r = testing::run(
            "InfiniteSource(\\<0102030405060708>, LIMIT 1, STOP true) -> Strip(4) -> t :: Tee;
             t[0] -> Unstrip(4) -> Print(a, 8) -> Discard;
             t[1] -> Unstrip(2) -> Print(b, 8) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["a:    8 | 01020304 05060708", "b:    6 | 03040506 0708"]
        );
    }
}
