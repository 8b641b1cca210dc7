//! # SetCRC32
//!
//! `SetCRC32`
//!
//! **Category:** CRCs. Appends a CRC-32 to each packet.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Computes a CRC-32 over each packet's data and appends it, four bytes in
//! little-endian order (as Click stores it on the machines it runs on), so
//! the packet grows by 4. The CRC is Click's own: polynomial 0x04C11DB7,
//! most significant bit first, initial value 0xFFFFFFFF, no final
//! inversion; it is not the Ethernet frame check sequence. CheckCRC32
//! checks and removes it. A packet that cannot grow (no memory) is dropped
//! and counted. Takes no arguments.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped because they could not grow (not in
//!   Click).
//!
//! ## Examples
//!
//! ```text
//! ... -> SetCRC32 -> lossy link -> CheckCRC32 -> ...
//! ```
//!
//! ## See also
//!
//! CheckCRC32

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::crc32::click_crc32;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Drops = read("drops"),
    }
}

/// The SetCRC32 element.
#[derive(Default)]
pub struct SetCRC32 {
    drops: u64,
}

impl SetCRC32 {
    /// Appends the CRC; `None` (counted) if the packet cannot grow.
    fn set_crc(&mut self, mut p: Packet) -> Option<Packet> {
        let crc = click_crc32(p.data());
        if p.put_slice(&crc.to_le_bytes()).is_err() {
            self.drops += 1;
            return None;
        }
        Some(p)
    }
}

impl Element for SetCRC32 {
    fn class_name(&self) -> &'static str {
        "SetCRC32"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.set_crc(p)
    }
    /// Per packet, independent of other elements.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        batch.filter_map_in_place(|p| self.set_crc(p));
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        batch.filter_map_in_place(|p| self.set_crc(p));
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Drops) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.drops.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn appends_clicks_crc() {
        // The reference Click prints the same lines.
        let r = testing::run(
            "InfiniteSource(\\<00112233>, LIMIT 1, STOP true) -> SetCRC32 -> Print(a) -> CheckCRC32 -> Print(b) -> Discard;
             InfiniteSource(\\<>, LIMIT 1) -> SetCRC32 -> Print(e) -> Discard;",
            &registry(),
        )
        .unwrap();
        let mut log = r.take_log();
        log.sort();
        assert_eq!(
            log,
            [
                "a:    8 | 00112233 ec5a7682",
                "b:    4 | 00112233",
                "e:    4 | ffffffff"
            ]
        );
        assert_eq!(testing::read(&r, "SetCRC32@2.drops"), "0");
        let e = testing::build("Idle -> SetCRC32(1) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
    }
}
