//! # DropBroadcasts
//!
//! `DropBroadcasts`
//!
//! **Category:** ip. Drops link-level broadcast and multicast packets.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Drops packets whose packet type annotation is BROADCAST or MULTICAST
//! (set by the device or by HostEtherFilter), as a router must not forward
//! link-level broadcasts (RFC 1812 4.2.2.11, 5.3.4). Other packets pass.
//! The first drop is reported, as in Click: `DropBroadcasts: dropped a
//! packet`.
//!
//! ## Annotations
//!
//! Uses the packet type annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> ... -> DropBroadcasts -> ...
//! ```
//!
//! ## See also
//!
//! HostEtherFilter, SetPacketType

use rclick_core::drops::simple::count_one;
use rclick_core::{Ctx, Element, Packet, PacketBatch};
use rclick_packet::PacketType;

/// The DropBroadcasts element.
#[derive(Default)]
pub struct DropBroadcasts {
    drops: u64,
}

impl DropBroadcasts {
    #[inline(always)]
    fn filter(&mut self, batch: &mut PacketBatch) {
        // Almost every packet is unicast: then the batch stays as it is,
        // and only this test is inlined.
        if batch.iter().any(|p| {
            matches!(
                p.packet_type_anno(),
                PacketType::Broadcast | PacketType::Multicast
            )
        }) {
            self.remove_broadcasts(batch);
        }
    }

    /// [`filter`](Self::filter), logging the very first drop.
    #[inline(always)]
    fn filter_logging(&mut self, batch: &mut PacketBatch, cx: &Ctx) {
        let before = self.drops;
        self.filter(batch);
        if before == 0 && self.drops > 0 {
            cx.log(FIRST_DROP);
        }
    }

    #[cold]
    #[inline(never)]
    fn remove_broadcasts(&mut self, batch: &mut PacketBatch) {
        let before = batch.len();
        batch.retain(|p| {
            !matches!(
                p.packet_type_anno(),
                PacketType::Broadcast | PacketType::Multicast
            )
        });
        self.drops += (before - batch.len()) as u64;
    }
}

/// The line Click prints at the first drop.
const FIRST_DROP: &str = "DropBroadcasts: dropped a packet";

impl Element for DropBroadcasts {
    fn class_name(&self) -> &'static str {
        "DropBroadcasts"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if matches!(
            p.packet_type_anno(),
            PacketType::Broadcast | PacketType::Multicast
        ) {
            if count_one(&mut self.drops) {
                cx.log(FIRST_DROP);
            }
            return None;
        }
        Some(p)
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        self.filter_logging(&mut batch, cx);
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        self.filter_logging(&mut batch, cx);
        batch
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// Batches of several packets: all unicast (left as they are), and
    /// mixed (broadcasts and multicasts removed, order kept, counted).
    #[test]
    fn filters_batches_in_order() {
        use super::DropBroadcasts;
        use rclick_core::{Packet, PacketBatch};
        use rclick_packet::PacketType;
        let types = [
            PacketType::Host,
            PacketType::Broadcast,
            PacketType::OtherHost,
            PacketType::Multicast,
            PacketType::Host,
        ];
        let batch = |mask: &[PacketType]| {
            let mut b = PacketBatch::new();
            for (i, &t) in mask.iter().enumerate() {
                let mut p = Packet::from_slice(&[i as u8]);
                p.set_packet_type_anno(t);
                b.push(p);
            }
            b
        };
        let tags = |b: &PacketBatch| b.iter().map(|p| p.data()[0]).collect::<Vec<_>>();
        let mut d = DropBroadcasts::default();
        let mut b = batch(&[PacketType::Host, PacketType::OtherHost, PacketType::Host]);
        d.filter(&mut b);
        assert_eq!(tags(&b), vec![0, 1, 2]);
        assert_eq!(d.drops, 0);
        let mut b = batch(&types);
        d.filter(&mut b);
        assert_eq!(tags(&b), vec![0, 2, 4]);
        assert_eq!(d.drops, 2);
        let mut b = batch(&[PacketType::Multicast]);
        d.filter(&mut b);
        assert!(b.is_empty());
        assert_eq!(d.drops, 3);
        let mut b = PacketBatch::new();
        d.filter(&mut b);
        assert!(b.is_empty());
        assert_eq!(d.drops, 3);
    }

    #[test]
    fn drops_broadcasts() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> SetPacketType(BROADCAST) -> d :: DropBroadcasts -> c :: Counter -> Discard;
             InfiniteSource(LIMIT 2, STOP true) -> d;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert_eq!(testing::read(&r, "d.drops"), "3");
        // Click reports the first drop only (checked with clickdiff).
        assert_eq!(r.take_log(), vec!["DropBroadcasts: dropped a packet"]);
    }
}
