//! The push and pull of the classes that send each packet, or what they
//! make of it, out output 0 or pass it out output 1 (ARPResponder: a reply,
//! or the packet it does not answer; StripEtherVLANHeader: the stripped
//! frame, or an untagged one; HostEtherFilter: kept or filtered). Each
//! class's file holds its decision; these are generic over it, so each
//! class's loop is its own monomorphic code.

use rclick_core::{Ctx, Packet, PacketBatch};

/// Pushes `out` out output 0 and `other` out output 1 (if connected),
/// each if not empty.
#[inline]
pub(crate) fn push_both(out: PacketBatch, other: PacketBatch, cx: &mut Ctx) {
    if !out.is_empty() {
        cx.push(0, out);
    }
    if !other.is_empty() {
        cx.checked_push(1, other);
    }
}

/// Pushes what `f` makes of each packet of `batch`: an `Ok` out output 0,
/// an `Err` out output 1, in order, one batch for each output.
#[inline]
pub(crate) fn push_split(
    batch: PacketBatch,
    cx: &mut Ctx,
    mut f: impl FnMut(Packet) -> Result<Packet, Packet>,
) {
    let mut out = PacketBatch::with_capacity(batch.len());
    let mut other = PacketBatch::new();
    for p in batch {
        match f(p) {
            Ok(p) => out.push(p),
            Err(p) => other.push(p),
        }
    }
    push_both(out, other, cx);
}

/// Pulls up to `max` packets from input 0 and returns the `Ok`s `f` makes
/// of them; each `Err` is pushed out output 1 as it comes.
#[inline]
pub(crate) fn pull_split(
    max: usize,
    cx: &mut Ctx,
    mut f: impl FnMut(Packet) -> Result<Packet, Packet>,
) -> PacketBatch {
    let batch = cx.pull(0, max);
    let mut out = PacketBatch::with_capacity(batch.len());
    for p in batch {
        match f(p) {
            Ok(p) => out.push(p),
            Err(p) => cx.checked_push(1, PacketBatch::from(p)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// StripEtherVLANHeader(-1) pushed and pulled: tagged frames lose
    /// their header out output 0, untagged ones leave by output 1.
    #[test]
    fn split_on_push_and_pull() {
        let tagged = "000102030405 0a0b0c0d0e0f 8100 0005 0800 4500";
        let plain = "000102030405 0a0b0c0d0e0f 0800 4500";
        let tail = "-> c :: Counter -> Print(x) -> Discard; s[1] -> d :: Counter -> Discard;";
        for conf in [
            format!(
                "s :: StripEtherVLANHeader(-1) {tail}
                 InfiniteSource(\\<{tagged}>, LIMIT 2) -> s;
                 InfiniteSource(\\<{plain}>, LIMIT 1) -> s; DriverManager(wait 0.1s);"
            ),
            format!(
                "q :: Queue -> s :: StripEtherVLANHeader(-1) -> Unqueue {tail}
                 InfiniteSource(\\<{tagged}>, LIMIT 2) -> q;
                 InfiniteSource(\\<{plain}>, LIMIT 1) -> q; DriverManager(wait 0.1s);"
            ),
        ] {
            let r = testing::run(&conf, &registry()).unwrap();
            assert_eq!(testing::read(&r, "c.count"), "2", "{conf}");
            assert_eq!(testing::read(&r, "d.count"), "1", "{conf}");
            assert_eq!(r.take_log(), vec!["x:    2 | 4500"; 2]);
        }
    }
}
