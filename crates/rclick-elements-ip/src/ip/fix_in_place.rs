//! What SetIPChecksum, SetTCPChecksum, SetUDPChecksum and MarkIPCE share
//! (not an element): each changes packets in place, the same way on push
//! and on pull, and drops the packets it cannot handle, counting them for
//! its `drops` handler. Each class's file implements [`FixInPlace`] (its
//! configuration and its per-batch work); [`FixElement`] makes the element
//! around it (the push, the pull and the `drops` handler), as Click's
//! subclasses inherit their superclass's.

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};

/// One class's own part: its name, configuration and the change it makes.
pub(crate) trait FixInPlace: Default + Send + 'static {
    /// The class name.
    const CLASS: &'static str;

    /// Parses the configuration; must change nothing on error. The default
    /// takes no arguments.
    fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }

    /// Changes `batch`'s packets, leaving out the ones it drops and adding
    /// them to `drops`.
    fn fix(&mut self, batch: &mut PacketBatch, drops: &mut u64, cx: &Ctx);
}

/// The element of a [`FixInPlace`] class: one input, one output, push or
/// pull.
#[derive(Default)]
pub struct FixElement<C: FixInPlace> {
    class: C,
    drops: u64,
}

impl<C: FixInPlace> Element for FixElement<C> {
    fn class_name(&self) -> &'static str {
        C::CLASS
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.class.configure(conf)
    }
    #[inline]
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        self.class.fix(&mut batch, &mut self.drops, cx);
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    #[inline]
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        self.class.fix(&mut batch, &mut self.drops, cx);
        batch
    }
    // `drops`, the only handler.
    rclick_core::drops_handler!(drops);
}

/// Keeps the packets of `batch` that `keep` accepts (it may change them)
/// and adds the others to `drops`. True when these were the first drops
/// ever, which Click's classes log once.
#[inline]
pub(crate) fn retain_counting(
    batch: &mut PacketBatch,
    drops: &mut u64,
    keep: impl FnMut(&mut Packet) -> bool,
) -> bool {
    let before = batch.len();
    batch.retain_mut(keep);
    let dropped = (before - batch.len()) as u64;
    let first = dropped > 0 && *drops == 0;
    *drops += dropped;
    first
}

/// [`retain_counting`], logging `CLASS: bad input packet` at the first
/// drop (SetIPChecksum's, SetTCPChecksum's and SetUDPChecksum's message).
#[inline]
pub(crate) fn retain_logging_first(
    batch: &mut PacketBatch,
    drops: &mut u64,
    cx: &Ctx,
    class: &str,
    keep: impl FnMut(&mut Packet) -> bool,
) {
    if retain_counting(batch, drops, keep) {
        cx.log(format!("{class}: bad input packet"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::testing;

    fn batch(lens: &[usize]) -> PacketBatch {
        let mut b = PacketBatch::new();
        for &n in lens {
            b.push(Packet::from_slice(&vec![0u8; n]));
        }
        b
    }

    /// Kept packets stay (changed as `keep` changed them), the others are
    /// counted, and only the very first drops say so.
    #[test]
    fn retain_counting_counts_and_says_first() {
        let mut drops = 0;
        let mut b = batch(&[1, 5, 2, 7]);
        let first = retain_counting(&mut b, &mut drops, |p| {
            p.data_mut()[0] = 9;
            p.len() > 3
        });
        assert!(first);
        assert_eq!(drops, 2);
        let kept: Vec<Vec<u8>> = b.iter().map(|p| p.data().to_vec()).collect();
        assert_eq!(kept, [vec![9, 0, 0, 0, 0], vec![9, 0, 0, 0, 0, 0, 0]]);
        let mut b = batch(&[1]);
        assert!(!retain_counting(&mut b, &mut drops, |_| false));
        assert_eq!(drops, 3);
        let mut b = batch(&[1]);
        assert!(!retain_counting(&mut b, &mut drops, |_| true));
        assert_eq!((drops, b.len()), (3, 1));
        let mut none = 0;
        assert!(!retain_counting(&mut batch(&[4]), &mut none, |_| true));
    }

    /// Drops packets shorter than 4 bytes, logging the first, on push and
    /// on pull alike.
    #[derive(Default)]
    struct Short4;

    impl FixInPlace for Short4 {
        const CLASS: &'static str = "Short4";
        fn fix(&mut self, batch: &mut PacketBatch, drops: &mut u64, cx: &Ctx) {
            retain_logging_first(batch, drops, cx, "Short4", |p| p.len() >= 4);
        }
    }

    #[test]
    fn push_and_pull_fix_and_count() {
        let mut reg = crate::ip::test_util::registry();
        reg.add("Short4", || Box::<FixElement<Short4>>::default(), "");
        let r = testing::run(
            "InfiniteSource(DATA \\<01>, LIMIT 2, STOP false) -> s :: Short4 -> ok :: Counter -> Discard;
             InfiniteSource(DATA \\<01020304>, LIMIT 3, STOP false) -> s;
             q :: Queue -> t :: Short4 -> Unqueue -> ok2 :: Counter -> Discard;
             InfiniteSource(DATA \\<01>, LIMIT 1, STOP false) -> q;
             InfiniteSource(DATA \\<0102030405>, LIMIT 2, STOP false) -> q;
             DriverManager(wait 0.2s);",
            &reg,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "3");
        assert_eq!(testing::read(&r, "s.drops"), "2");
        assert_eq!(testing::read(&r, "ok2.count"), "2");
        assert_eq!(testing::read(&r, "t.drops"), "1");
        let log = r.take_log().join("\n");
        assert_eq!(log.matches("Short4: bad input packet").count(), 2, "{log}");
        assert!(testing::build("Idle -> Short4(1) -> Discard;", &reg, true).is_err());
    }
}
