//! Long chains: building is linear in their length, and a push path of
//! any depth runs without exhausting the stack (issue 17, finding 5).

mod common;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rclick_core::Router;

fn chain(n: usize, class: &str, limit: usize) -> String {
    let mut s = format!("src :: InfiniteSource(LENGTH 60, LIMIT {limit}, BURST 2, STOP true)");
    for _ in 0..n {
        s.push_str(" -> ");
        s.push_str(class);
    }
    s.push_str(" -> c :: Counter -> d :: Discard;");
    s
}

fn build(text: &str, no_fuse: bool) -> Router {
    common::build_with(text, no_fuse, |_| {})
}

/// 20,000 nested pushes (fusion off) on a thread with Rust's default
/// 2 MiB stack: before, the stack overflowed and the process died. Now
/// the path runs in pieces from the top of the stack; every packet
/// arrives and the handler counts the pieces.
#[test]
fn a_push_path_of_any_depth_keeps_to_the_stack() {
    let t = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let r = build(&chain(20_000, "Null", 5), true);
            r.run();
            assert_eq!(r.read_handler("c.count", "").unwrap(), "5");
            assert!(r.stats().deep_pushes.load(Ordering::Relaxed) > 0);
            assert_eq!(r.stats().reentrant_packets.load(Ordering::Relaxed), 0);
            let drops = r.read_handler("router_drops", "").unwrap();
            assert!(drops.contains("lost_packets 0\n"), "{drops}");
            assert!(!drops.contains("deep_pushes 0\n"), "{drops}");
        })
        .unwrap();
    t.join().unwrap();
}

/// A shallow path never takes the detour.
#[test]
fn a_shallow_push_path_is_not_deferred() {
    let r = build(&chain(100, "Null", 10), true);
    r.run();
    assert_eq!(r.read_handler("c.count", "").unwrap(), "10");
    assert_eq!(r.stats().deep_pushes.load(Ordering::Relaxed), 0);
}

/// 50,000 agnostic elements in a chain: agnostic port resolution, the
/// duplicate-connection check and the notifier search (InfiniteSource
/// looks downstream for a full notifier) were each quadratic: about
/// 4 s in a release build, a minute in a debug one. Now linear.
#[test]
fn building_a_long_chain_is_linear() {
    let text = chain(50_000, "Counter", 1);
    let t = Instant::now();
    let r = build(&text, false);
    let took = t.elapsed();
    r.run();
    assert_eq!(r.read_handler("c.count", "").unwrap(), "1");
    assert!(took < Duration::from_secs(20), "{took:?}");
}
