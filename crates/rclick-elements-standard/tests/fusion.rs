//! Fused chains of simple elements (see `Element::is_simple`) behave as
//! the same elements called one push at a time: same counts, same drops,
//! the same handling of packets pushed back into a running element.

mod common;

use rclick_core::Router;

fn build(text: &str, no_fuse: bool) -> Router {
    common::build_with(text, no_fuse, |_| {})
}

fn read(r: &Router, h: &str) -> String {
    r.read_handler(h, "").unwrap()
}

#[test]
fn a_chain_is_fused_and_counts_as_unfused() {
    let text = "src :: InfiniteSource(LENGTH 60, LIMIT 1000, STOP true) \
                -> s :: Strip(14) -> u :: Unstrip(14) -> p :: Paint(3) -> n :: Null \
                -> c :: Counter -> d :: Discard;";
    let fused = build(text, false);
    let [s, u, p, n, c, d] = ["s", "u", "p", "n", "c", "d"].map(|x| fused.find(x).unwrap());
    assert_eq!(fused.fused_next(s), Some(u));
    assert_eq!(fused.fused_next(u), Some(p));
    assert_eq!(fused.fused_next(p), Some(n));
    assert_eq!(fused.fused_next(n), Some(c));
    assert_eq!(fused.fused_next(c), Some(d));
    assert_eq!(fused.fused_next(d), None);
    fused.run();
    let plain = build(text, true);
    assert_eq!(plain.fused_next(s), None);
    plain.run();
    for r in [&fused, &plain] {
        assert_eq!(read(r, "c.count"), "1000");
        assert_eq!(read(r, "d.count"), "1000");
        assert_eq!(read(r, "c.byte_count"), "60000");
    }
}

#[test]
fn a_packet_pushed_back_into_a_running_chain_element_is_delivered_after_its_call() {
    // PaintTee sends a copy of each color-1 packet out output 1, where it is
    // repainted and pushed back into the PaintTee, which is still running
    // its call for the original: the copy waits until that call returns,
    // then goes on (color 2: no further copy).
    let text = "src :: InfiniteSource(LENGTH 60, LIMIT 500, STOP true) -> Paint(1) \
                -> pt :: PaintTee(1) -> n :: Null -> d :: Discard; \
                pt[1] -> Paint(2) -> pt;";
    for no_fuse in [false, true] {
        let r = build(text, no_fuse);
        r.run();
        assert_eq!(read(&r, "d.count"), "1000", "no_fuse {no_fuse}");
        assert_eq!(
            r.stats()
                .reentrant_packets
                .load(std::sync::atomic::Ordering::Relaxed),
            0
        );
    }
}

#[test]
fn a_sink_ends_a_chain() {
    // Discard is simple: the chain runs into it and consumes every packet.
    let text = "src :: InfiniteSource(LENGTH 60, LIMIT 300, STOP true) -> c :: Counter \
                -> Strip(10) -> Null -> u :: Unstrip(10) -> d :: Discard;";
    for no_fuse in [false, true] {
        let r = build(text, no_fuse);
        let (u, d) = (r.find("u").unwrap(), r.find("d").unwrap());
        assert_eq!(r.fused_next(u), (!no_fuse).then_some(d));
        r.run();
        assert_eq!(read(&r, "c.count"), "300", "no_fuse {no_fuse}");
        assert_eq!(read(&r, "d.count"), "300", "no_fuse {no_fuse}");
    }
}

#[test]
fn a_counter_call_inside_a_chain_fires_at_its_packet() {
    // The handler runs after the 500th packet is counted and before it goes
    // on: the sink behind sees exactly 500, fused or not.
    let text = "src :: InfiniteSource(LENGTH 60, LIMIT 1000, STOP false) -> Null \
                -> c :: Counter(COUNT_CALL 500 stop) -> Null -> d :: Discard;";
    for no_fuse in [false, true] {
        let r = build(text, no_fuse);
        r.run();
        assert_eq!(read(&r, "c.count"), "500", "no_fuse {no_fuse}");
        assert_eq!(read(&r, "d.count"), "500", "no_fuse {no_fuse}");
    }
}
