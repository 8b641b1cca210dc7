//! The push and pull of an agnostic element that works on each packet in
//! place, one input, one output: Strip, Paint, SetPacketType, StoreData,
//! SetAnnoByte, RandomBitErrors change every packet (`push_each`,
//! `pull_each`); Unstrip and Pad may drop one they cannot change
//! (`push_kept`, `pull_kept`). Each class's file holds what it does to a
//! packet; these are generic over it, so each class's loop is its own
//! monomorphic, inlined code.

use rclick_core::{Ctx, Packet, PacketBatch};

/// Changes each packet of `batch` with `f` and pushes the batch out
/// output 0.
#[inline]
pub(crate) fn push_each(mut batch: PacketBatch, cx: &mut Ctx, f: impl FnMut(&mut Packet)) {
    batch.iter_mut().for_each(f);
    cx.push(0, batch);
}

/// Pulls up to `max` packets from input 0 and changes each with `f`.
#[inline]
pub(crate) fn pull_each(max: usize, cx: &mut Ctx, f: impl FnMut(&mut Packet)) -> PacketBatch {
    let mut batch = cx.pull(0, max);
    batch.iter_mut().for_each(f);
    batch
}

/// Keeps the packets of `batch` that `keep` accepts (it may change them;
/// the others are dropped) and pushes them out output 0, if any are left.
#[inline]
pub(crate) fn push_kept(
    mut batch: PacketBatch,
    cx: &mut Ctx,
    keep: impl FnMut(&mut Packet) -> bool,
) {
    batch.retain_mut(keep);
    if !batch.is_empty() {
        cx.push(0, batch);
    }
}

/// Pulls up to `max` packets from input 0 and keeps those `keep` accepts.
#[inline]
pub(crate) fn pull_kept(
    max: usize,
    cx: &mut Ctx,
    keep: impl FnMut(&mut Packet) -> bool,
) -> PacketBatch {
    let mut batch = cx.pull(0, max);
    batch.retain_mut(keep);
    batch
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    /// The same chain of in-place classes, pushed and then pulled: each
    /// packet is changed once and in order, and the ones Unstrip cannot
    /// grow are dropped (pushed on, nothing is left; pulled, an empty batch).
    #[test]
    fn push_and_pull_change_each_packet_and_drop_the_refused() {
        let chain = "Strip(1) -> Paint(7) -> Unstrip(1) -> Truncate(3) -> Pad(4) -> Print(a) -> Unstrip(4000000000)";
        for conf in [
            format!("InfiniteSource(\\<0102030405>, LIMIT 2, STOP true) -> {chain} -> c :: Counter -> Discard;"),
            format!("InfiniteSource(\\<0102030405>, LIMIT 2, STOP true) -> Queue -> {chain} -> Unqueue -> c :: Counter -> Discard;"),
        ] {
            let r = testing::run(&conf, &registry()).unwrap();
            assert_eq!(r.take_log(), vec!["a:    4 | 01020300"; 2], "{conf}");
            assert_eq!(testing::read(&r, "c.count"), "0", "{conf}");
        }
    }
}
