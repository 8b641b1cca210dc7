//! [`divert_failures`]: `PacketBatch::divert` for elements whose packets
//! almost never fail, without a second batch on the common path.
//!
//! `divert` always returns a batch of failures, and an element then drops
//! it, empty, after pushing the good packets on: with one packet per batch
//! (Click's sources emit one packet per task run) that drop was about 45 of
//! each such element's instructions per packet. Here the packets are
//! checked in place and a batch of failures exists only once one has
//! failed.

use rclick_core::{Ctx, Packet, PacketBatch};

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

/// The push of an element with an error output (DecIPTTL, DecIP6HLIM):
/// the packets `keep` keeps (it may change them) go on output 0, the
/// others to output 1 when it exists and are dropped otherwise (Click's
/// `checked_output_push`). Returns how many `keep` refused.
///
/// `keep` runs through two closures of its own, one on the common path
/// ([`first_failure`]) and one for the rest of a batch with a failure
/// ([`divert_after`]), as the elements wrote it by hand, so the common
/// loop stays inlined.
#[inline]
pub(crate) fn push_keeping(
    mut live: PacketBatch,
    cx: &mut Ctx,
    keep: impl Fn(&mut Packet) -> bool,
) -> u64 {
    let dead = first_failure(&mut live, |p| keep(p))
        .map(|first| divert_after(&mut live, first, |p| keep(p)));
    let refused = dead.as_ref().map_or(0, |d| d.len() as u64);
    if !live.is_empty() {
        cx.push(0, live);
    }
    if let Some(dead) = dead {
        cx.checked_push(1, dead);
    }
    refused
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

    /// Keeps packets of odd length, adding 1 to their first byte; the
    /// push and the per-packet path alike.
    #[derive(Default)]
    struct OddLength {
        refused: u64,
    }

    fn odd(p: &mut Packet) -> bool {
        p.data_mut()[0] += 1;
        p.len() % 2 == 1
    }

    impl rclick_core::Element for OddLength {
        fn class_name(&self) -> &'static str {
            "OddLength"
        }
        fn port_count(&self) -> &'static str {
            "1/1-2"
        }
        fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
            self.refused += push_keeping(batch, cx, odd);
        }
        fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
            if odd(&mut p) {
                return Some(p);
            }
            rclick_core::drops::simple::divert(&mut self.refused, p, cx);
            None
        }
        fn handlers(&self) -> Vec<rclick_core::HandlerDef> {
            vec![rclick_core::HandlerDef::read("refused", 0)]
        }
        fn read_handler(&mut self, _: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
            Ok(self.refused.to_string())
        }
    }

    /// Kept packets on output 0, refused ones on output 1 (or dropped
    /// when it is not connected), counted, on push and on pull.
    #[test]
    fn push_keeping_and_divert_split_and_count() {
        let mut reg = crate::ip::test_util::registry();
        reg.add("OddLength", || Box::<OddLength>::default(), "");
        let r = rclick_core::testing::run(
            "InfiniteSource(DATA \\<01>, LIMIT 3, BURST 2, STOP false) -> o :: OddLength
               -> ok :: Counter -> Print(ok) -> Discard;
             InfiniteSource(DATA \\<0102>, LIMIT 2, BURST 2, STOP false) -> o;
             o[1] -> bad :: Counter -> Discard;
             InfiniteSource(DATA \\<0203>, LIMIT 2, STOP false) -> q :: Queue
               -> p :: OddLength -> Unqueue -> ok2 :: Counter -> Discard;
             InfiniteSource(DATA \\<05>, LIMIT 1, STOP false) -> q;
             DriverManager(wait 0.2s);",
            &reg,
        )
        .unwrap();
        let read = |h| rclick_core::testing::read(&r, h);
        assert_eq!(
            [read("ok.count"), read("bad.count"), read("o.refused")],
            ["3", "2", "2"]
        );
        assert_eq!([read("ok2.count"), read("p.refused")], ["1", "2"]);
        let log = r.take_log();
        assert_eq!(log.len(), 3, "{log:?}");
        assert!(log.iter().all(|l| l.ends_with("| 02")), "{log:?}");
    }
}
