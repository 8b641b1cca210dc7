//! # StoreData
//!
//! `StoreData(OFFSET, DATA)`
//!
//! **Category:** basic modification. Changes packet data.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Writes DATA into each packet starting at byte OFFSET. Bytes of DATA that
//! would fall past the end of the packet are not written (the packet never
//! grows); a packet shorter than OFFSET passes unchanged.
//!
//! Keywords:
//!
//! * `OFFSET` (unsigned integer, mandatory).
//! * `DATA` (string, mandatory; `\<hex>` for bytes).
//!
//! Click's later versions (FastClick) have MASK and GROW keywords; the
//! reference Click has neither, and neither has this element.
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
//! ... -> StoreData(12, \<0800>) -> ...
//! ```
//!
//! ## See also
//!
//! AlignmentInfo

use super::each_packet::{pull_each, push_each};
use rclick_core::args::{Args, Data};
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};

/// The StoreData element.
#[derive(Default)]
pub struct StoreData {
    offset: usize,
    data: Vec<u8>,
}

impl StoreData {
    #[inline]
    fn store(&self, p: &mut Packet) {
        let len = p.len();
        if self.offset >= len || self.data.is_empty() {
            return;
        }
        let n = self.data.len().min(len - self.offset);
        let end = self.offset + n;
        if let Some(bytes) = p.data_mut().get_mut(self.offset..end) {
            bytes.copy_from_slice(&self.data[..n]);
        }
    }
}

impl Element for StoreData {
    fn class_name(&self) -> &'static str {
        "StoreData"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.store(&mut p);
        Some(p)
    }
    /// Per packet, independent of other elements.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut offset: u32 = 0;
        let mut data = Data(Vec::new());
        Args::new(conf)
            .read_mp("OFFSET", &mut offset)
            .read_mp("DATA", &mut data)
            .complete()
            .map_err(|e| e.to_string())?;
        self.offset = offset as usize;
        self.data = data.0;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_each(batch, cx, |p| self.store(p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_each(max, cx, |p| self.store(p))
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    fn run(conf: &str) -> Vec<String> {
        testing::run(
            &format!("InfiniteSource(\\<00112233>, LIMIT 1, STOP true) -> {conf} -> Print(a) -> Discard;"),
            &registry(),
        )
        .unwrap()
        .take_log()
    }

    #[test]
    fn writes_within_the_packet() {
        // Outputs of the reference Click.
        assert_eq!(run("StoreData(1, \\<aabbccdd>)"), ["a:    4 | 00aabbcc"]);
        assert_eq!(run("StoreData(8, \\<ff>)"), ["a:    4 | 00112233"]);
        assert_eq!(run("StoreData(0, \\<ff>)"), ["a:    4 | ff112233"]);
        assert_eq!(run("Queue -> StoreData(2, \\<ee>)"), ["a:    4 | 0011ee33"]);
    }

    #[test]
    fn arguments() {
        let err = |c: &str| testing::build(c, &registry(), true).err().unwrap();
        assert!(err("Idle -> StoreData(1) -> Discard;").contains("DATA: required argument missing"));
        assert!(err("Idle -> StoreData(-1, a) -> Discard;").contains("OFFSET"));
        assert!(err("Idle -> StoreData(1, \\<ff>, GROW true) -> Discard;")
            .contains("GROW: unknown argument"));
        assert!(
            err("Idle -> StoreData(1, \\<ff>, \\<0f>) -> Discard;").contains("too many arguments")
        );
    }
}
