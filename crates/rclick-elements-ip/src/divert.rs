//! [`divert_failures`]: `PacketBatch::divert` for elements whose packets
//! almost never fail, without a second batch on the common path.
//!
//! `divert` always returns a batch of failures, and an element then drops
//! it, empty, after pushing the good packets on: with one packet per batch
//! (Click's sources emit one packet per task run) that drop was about 45 of
//! each such element's instructions per packet. Here the packets are
//! checked in place and a batch of failures exists only once one has
//! failed.

use rclick_core::{Packet, PacketBatch};

/// Runs `keep` once on each packet of `batch`, in order, as
/// `PacketBatch::divert` does: the packets for which it returns true stay in
/// `batch`, in order; the others are returned, in order. Returns `None`
/// (and builds nothing) when every packet was kept.
#[inline]
pub(crate) fn divert_failures(
    batch: &mut PacketBatch,
    mut keep: impl FnMut(&mut Packet) -> bool,
) -> Option<PacketBatch> {
    let first_bad = batch.iter_mut().position(|p| !keep(p))?;
    Some(divert_after(batch, first_bad, keep))
}

/// The index of the first packet of `batch` for which `keep` returns false,
/// running `keep` on the packets up to it, in order; `None` if it kept
/// every packet.
///
/// For an element's common path: with a `keep` that only checks (and
/// fixes up a packet that passes), the loop inlines, and the element
/// handles the rare failure apart, with [`divert_after`] and a `keep` that
/// also counts. Passing one closure to both left it out of line in the
/// loop: a call and six saved registers per packet in CheckIPHeader.
#[inline(always)]
pub(crate) fn first_failure(
    batch: &mut PacketBatch,
    mut keep: impl FnMut(&mut Packet) -> bool,
) -> Option<usize> {
    for (i, p) in batch.iter_mut().enumerate() {
        if !keep(p) {
            return Some(i);
        }
    }
    None
}

/// The packets before `first_bad` were kept and the one at `first_bad` was
/// not: splits the batch accordingly, running `keep` on the packets after
/// `first_bad` only.
#[cold]
#[inline(never)]
pub(crate) fn divert_after(
    batch: &mut PacketBatch,
    first_bad: usize,
    mut keep: impl FnMut(&mut Packet) -> bool,
) -> PacketBatch {
    let mut good = batch.split_front(first_bad);
    let mut at_first_bad = true;
    let bad = batch.divert(|p| {
        if at_first_bad {
            at_first_bad = false;
            false
        } else {
            keep(p)
        }
    });
    good.append(batch);
    *batch = good;
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch_of(tags: &[u8]) -> PacketBatch {
        let mut b = PacketBatch::new();
        for &t in tags {
            b.push(Packet::from_slice(&[t]));
        }
        b
    }

    fn tags(b: &PacketBatch) -> Vec<u8> {
        b.iter().map(|p| p.data()[0]).collect()
    }

    /// Every pattern of pass/fail over batches of 0 to 6 packets gives what
    /// `PacketBatch::divert` gives, with `keep` called once per packet, in
    /// order.
    #[test]
    fn matches_divert_on_every_pattern() {
        for n in 0..=6u8 {
            for mask in 0..(1u32 << n) {
                let ids: Vec<u8> = (0..n).collect();
                let fails = |t: u8| mask & (1 << t) != 0;

                let mut expect_good = batch_of(&ids);
                let mut expect_calls = Vec::new();
                let expect_bad = expect_good.divert(|p| {
                    expect_calls.push(p.data()[0]);
                    !fails(p.data()[0])
                });

                let mut good = batch_of(&ids);
                let mut calls = Vec::new();
                let bad = divert_failures(&mut good, |p| {
                    calls.push(p.data()[0]);
                    !fails(p.data()[0])
                });

                assert_eq!(calls, expect_calls, "n {n} mask {mask:b}");
                assert_eq!(tags(&good), tags(&expect_good), "n {n} mask {mask:b}");
                match bad {
                    None => assert!(expect_bad.is_empty(), "n {n} mask {mask:b}"),
                    Some(bad) => {
                        assert!(!bad.is_empty());
                        assert_eq!(tags(&bad), tags(&expect_bad), "n {n} mask {mask:b}");
                    }
                }
            }
        }
    }

    /// Changes `keep` makes to packets (kept or not) stay made.
    #[test]
    fn keeps_modifications() {
        let mut b = batch_of(&[1, 2, 3, 4]);
        let bad = divert_failures(&mut b, |p| {
            p.data_mut()[0] += 10;
            p.data()[0] % 2 == 1
        })
        .expect("two failures");
        assert_eq!(tags(&b), vec![11, 13]);
        assert_eq!(tags(&bad), vec![12, 14]);

        let mut one = batch_of(&[5]);
        assert!(divert_failures(&mut one, |p| {
            p.data_mut()[0] = 6;
            true
        })
        .is_none());
        assert_eq!(tags(&one), vec![6]);
    }
}
