//! A panic in one element never ends the router: it is caught around the
//! task run that led to it, counted and logged with the task's element,
//! and the router goes on (issue 17).

mod common;

use std::sync::atomic::Ordering;

use rclick_core::{Ctx, Element, Packet, Router};

/// Panics on its `N`th packet (a deliberately failing element).
#[derive(Default)]
struct Bomb {
    seen: u32,
}

impl Element for Bomb {
    fn class_name(&self) -> &'static str {
        "Bomb"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.seen += 1;
        if self.seen == 2 {
            panic!("deliberate failure on packet 2");
        }
        Some(p)
    }
}

fn build(text: &str) -> Router {
    common::build_with(text, false, |reg| {
        reg.add("Bomb", || Box::<Bomb>::default(), "");
    })
}

#[test]
fn a_panicking_element_does_not_end_the_router() {
    // Two sources: the one whose packets meet the Bomb loses the batch in
    // flight; the other forwards all its packets.
    let r = build(
        "InfiniteSource(LIMIT 5, BURST 1) -> a :: Counter -> Bomb -> b :: Counter -> Discard;
         InfiniteSource(LIMIT 50, BURST 1) -> c :: Counter -> Discard;
         DriverManager(wait_stop 2);",
    );
    r.run();
    assert_eq!(r.stats().panics.load(Ordering::Relaxed), 1);
    assert_eq!(r.read_handler("a.count", "").unwrap(), "5");
    assert_eq!(r.read_handler("c.count", "").unwrap(), "50");
    let b: u32 = r.read_handler("b.count", "").unwrap().parse().unwrap();
    assert!((1..=4).contains(&b), "{b}");
    let drops = r.read_handler("router_drops", "").unwrap();
    assert!(drops.contains("panics 1\n"), "{drops}");
    assert!(drops.contains("deliberate failure on packet 2"), "{drops}");
    assert!(r
        .take_log()
        .iter()
        .any(|l| l.contains("panic in its task or timer")));
}
