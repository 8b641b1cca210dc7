//! # CheckCRC32
//!
//! `CheckCRC32`
//!
//! **Category:** CRCs. Checks and removes the CRC-32 SetCRC32 appended.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Takes each packet's last four bytes as a CRC-32 (little-endian, as
//! SetCRC32 writes it) and compares it with Click's CRC of the bytes
//! before them. A packet that matches loses the four bytes and goes out;
//! one that does not, or is shorter than four bytes, is dropped with the
//! message `CRC32 failed, len N` (N its length), as Click prints it. Takes
//! no arguments.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped for a bad CRC (not in Click, which
//!   only prints the message).
//!
//! ## Examples
//!
//! ```text
//! ... -> SetCRC32 -> RandomBitErrors(0.001) -> CheckCRC32 -> ...
//! ```
//!
//! ## See also
//!
//! SetCRC32

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::crc32::click_crc32;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Drops = read("drops"),
    }
}

/// The CheckCRC32 element.
#[derive(Default)]
pub struct CheckCRC32 {
    drops: u64,
}

impl CheckCRC32 {
    /// The packet without its CRC, or `None` (counted and reported).
    fn check(&mut self, mut p: Packet, cx: &Ctx) -> Option<Packet> {
        let len = p.len();
        let ok = len >= 4 && {
            let (body, tail) = p.data().split_at(len - 4);
            tail == click_crc32(body).to_le_bytes()
        };
        if ok {
            p.take(4);
            Some(p)
        } else {
            self.drops += 1;
            cx.log(format!("CRC32 failed, len {len}"));
            None
        }
    }
}

impl Element for CheckCRC32 {
    fn class_name(&self) -> &'static str {
        "CheckCRC32"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        self.check(p, cx)
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        batch.filter_map_in_place(|p| self.check(p, cx));
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        batch.filter_map_in_place(|p| self.check(p, cx));
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
    fn drops_bad_and_short_packets() {
        // The reference Click prints these messages and nothing passes.
        for (data, len) in [("\\<0011>", 2), ("\\<00112233>", 4)] {
            let r = testing::run(
                &format!("InfiniteSource({data}, LIMIT 1, STOP true) -> y :: CheckCRC32 -> Print(b) -> Discard;"),
                &registry(),
            )
            .unwrap();
            assert_eq!(r.take_log(), [format!("CRC32 failed, len {len}")]);
            assert_eq!(testing::read(&r, "y.drops"), "1");
        }
        // one flipped byte after SetCRC32
        let r = testing::run(
            "InfiniteSource(\\<00112233>, LIMIT 2, STOP true) -> SetCRC32 -> StoreData(0, \\<01>) -> y :: CheckCRC32 -> Print(b) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["CRC32 failed, len 8"; 2]);
        assert_eq!(testing::read(&r, "y.drops"), "2");
    }

    #[test]
    fn passes_good_packets_in_pull_mode() {
        let r = testing::run(
            "InfiniteSource(\\<aabb>, LIMIT 3, STOP true) -> SetCRC32 -> Queue -> y :: CheckCRC32 -> Unqueue -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "c.byte_count"), "6");
        assert_eq!(testing::read(&r, "y.drops"), "0");
        let e = testing::build("Idle -> CheckCRC32(1) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
    }
}
