//! # PaintSwitch
//!
//! `PaintSwitch([ANNO])`
//!
//! **Category:** paint, classification. Sends packets out the output their
//! paint names.
//!
//! **Ports:** one push input, any number of push outputs.
//!
//! ## Description
//!
//! Sends each packet out the output numbered by its paint annotation (or
//! the one-byte annotation ANNO). Packets whose paint names no output are
//! dropped.
//!
//! Keywords: `ANNO` (annotation): `PAINT` (the default) or a byte offset
//! into the user annotation area.
//!
//! ## Annotations
//!
//! Reads the paint annotation (or ANNO).
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! ... -> Paint(1) -> ps :: PaintSwitch;
//! ps[0] -> a; ps[1] -> b;
//! ```
//!
//! ## See also
//!
//! Paint, CheckPaint, Switch

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, PacketBatch};

use super::AnnoSlot;

/// The PaintSwitch element.
#[derive(Default)]
pub struct PaintSwitch {
    anno: AnnoSlot,
}

/// Pushes each packet of `batch` out the output `f` picks, keeping runs of
/// packets for the same output together and the order across outputs.
#[inline]
pub(crate) fn push_by(
    mut batch: PacketBatch,
    cx: &mut Ctx,
    mut f: impl FnMut(&rclick_core::Packet) -> usize,
) {
    // The common case: every packet goes to the same output, and the batch
    // goes on whole. `f` is a pure function of the packet for every caller.
    // Outputs wired to the same element and input are one destination
    // (their lowest port stands for them), so that runs merge.
    let aliases = cx.output_aliases();
    let mut f = |p: &rclick_core::Packet| {
        let o = f(p);
        aliases.get(o).map_or(o, |&a| a as usize)
    };
    let Some(first) = batch.first().map(&mut f) else {
        return;
    };
    let same = batch.iter().skip(1).take_while(|p| f(p) == first).count() + 1;
    if same == batch.len() {
        cx.checked_push(first, batch);
        return;
    }
    let front = batch.split_front(same);
    cx.checked_push(first, front);
    push_runs(batch, cx, f);
}

/// Pushes each packet of `batch` out the output `port` gives for it
/// (called once a packet, in order), consecutive packets for one output
/// as one batch; an output that does not exist drops the packet (counted
/// by `Ctx::checked_push`).
fn push_runs(
    batch: PacketBatch,
    cx: &mut Ctx,
    mut port: impl FnMut(&rclick_core::Packet) -> usize,
) {
    let mut run = PacketBatch::new();
    let mut run_port = usize::MAX;
    for p in batch {
        let port = port(&p);
        if port != run_port && !run.is_empty() {
            let b = run.take();
            cx.checked_push(run_port, b);
        }
        run_port = port;
        run.push(p);
    }
    if !run.is_empty() {
        cx.checked_push(run_port, run);
    }
}

/// Pushes each packet of `batch` out the output `next` returns, calling
/// `next` exactly once a packet, in order (for choosers with state, such
/// as a random or stride switch, which [`push_by`] may call more than
/// once); consecutive packets for one output go on as one batch. An
/// output that does not exist drops the packet (counted by
/// `Ctx::checked_push`).
pub(crate) fn push_each_by(batch: PacketBatch, cx: &mut Ctx, mut next: impl FnMut() -> usize) {
    let aliases = cx.output_aliases();
    push_runs(batch, cx, |_| {
        let o = next();
        aliases.get(o).map_or(o, |&a| a as usize)
    });
}

impl Element for PaintSwitch {
    fn class_name(&self) -> &'static str {
        "PaintSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(
        &mut self,
        conf: &[String],
        cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let conf = super::resolve_anno_names(conf, cx);
        let mut anno = AnnoSlot::Paint;
        Args::new(&conf)
            .read_p("ANNO", &mut anno)
            .complete()
            .map_err(|e| e.to_string())?;
        self.anno = anno;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let anno = self.anno;
        push_by(batch, cx, |p| usize::from(anno.get(p)));
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn outputs_wired_to_one_input_share_batches_and_nothing_strays() {
        // Mixed colours in each 64-packet batch; PaintSwitch outputs 0 and 2
        // both lead to `a`. CheckPaint behind `a` and `b` counts strays.
        let r = testing::run(
            "InfiniteSource(LIMIT 6399, BURST 64) -> rr :: RoundRobinSwitch;
             q :: Queue(10000) -> Unqueue(BURST 64) -> ps :: PaintSwitch;
             rr[0] -> Paint(0) -> q; rr[1] -> Paint(1) -> q; rr[2] -> Paint(2) -> q;
             ps[0] -> a :: Counter -> ca :: CheckPaint(1);
             ps[1] -> b :: Counter -> cb :: CheckPaint(1);
             ps[2] -> a;
             bad :: Counter -> Discard; ok :: Discard;
             ca[0] -> bad; ca[1] -> ok; cb[0] -> ok; cb[1] -> bad;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "4266");
        assert_eq!(testing::read(&r, "b.count"), "2133");
        assert_eq!(testing::read(&r, "bad.count"), "0");
    }

    #[test]
    fn out_of_range_paint_is_dropped() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2, STOP true) -> Paint(7) -> ps :: PaintSwitch -> c :: Counter -> Discard; ps[1] -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        // Counted by the router (they went uncounted before).
        let drops = testing::read(&r, "router_drops");
        assert!(drops.contains("no_output_packets 2\n"), "{drops}");
    }
}
