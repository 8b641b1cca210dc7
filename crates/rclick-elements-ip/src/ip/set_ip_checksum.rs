//! # SetIPChecksum
//!
//! `SetIPChecksum`
//!
//! **Category:** ip. Sets the IP header checksum.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Computes the checksum of each packet's IP header and stores it in the
//! header. Needs the IP header annotation. Packets without one, or whose
//! header length is under 20 or runs past the packet's end, are dropped
//! (the first reported as `SetIPChecksum: bad input packet`).
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): bad packets dropped.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetIPChecksum -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, DecIPTTL, SetTCPChecksum, SetUDPChecksum

use rclick_core::{Ctx, Element, HandlerDef, PacketBatch};
use rclick_wire::Ipv4Packet;

/// The SetIPChecksum element.
#[derive(Default)]
pub struct SetIPChecksum {
    drops: u64,
}

impl SetIPChecksum {
    fn process(&mut self, batch: &mut PacketBatch, cx: &Ctx) {
        let before = batch.len();
        batch.retain_mut(|p| {
            let hlen = p.ip_header_len();
            match p.ip_header_mut() {
                Some(h) if hlen >= 20 && hlen <= h.len() => {
                    Ipv4Packet::new_unchecked(&mut h[..hlen]).fill_checksum_over(hlen);
                    true
                }
                _ => false,
            }
        });
        let dropped = (before - batch.len()) as u64;
        if dropped > 0 {
            if self.drops == 0 {
                cx.log("SetIPChecksum: bad input packet");
            }
            self.drops += dropped;
        }
    }
}

rclick_core::handlers! {
    /// SetIPChecksum's handlers (the manual's list).
    enum H {
        Drops = read("drops"),
    }
}

impl Element for SetIPChecksum {
    fn class_name(&self) -> &'static str {
        "SetIPChecksum"
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        self.process(&mut batch, cx);
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        self.process(&mut batch, cx);
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.drops.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// A header with a wrong checksum comes out right; a packet without an
    /// IP header annotation is dropped and counted.
    #[test]
    fn fixes_checksums_and_drops_unmarked() {
        let bad_sum = "4500001c 00000000 4011 0000 0a000002 0a000102 04d2162e 000c0000";
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{bad_sum}>, LIMIT 2, STOP true) -> MarkIPHeader
                 -> s :: SetIPChecksum -> c :: CheckIPHeader -> ok :: Counter -> Discard;
                 c[1] -> Discard;
                 InfiniteSource(DATA \\<{bad_sum}>, LIMIT 1) -> s;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        assert_eq!(testing::read(&r, "s.drops"), "1");
    }
}
