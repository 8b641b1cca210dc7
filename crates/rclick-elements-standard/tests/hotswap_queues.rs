//! Hot swap into a smaller queue: the packets that do not fit are counted
//! in the new queue's `drops` (issue 17, finding 4: they used to vanish
//! with only a log line).

use std::sync::Arc;

use rclick_core::router::hotswap::transfer_state;
use rclick_core::{BuildOptions, HotConfig, Registry, Router};

fn service() -> (Arc<HotConfig>, Arc<Registry>) {
    let mut reg = Registry::new();
    rclick_elements_standard::register(&mut reg);
    let parse = rclick_lang::Options {
        file_name: "config".into(),
        defines: vec![],
    };
    let opts = BuildOptions {
        simtime: true,
        threads: 1,
        capture_log: true,
        ..Default::default()
    };
    (HotConfig::new(parse, opts, None), Arc::new(reg))
}

fn build(h: &Arc<HotConfig>, reg: &Arc<Registry>, text: &str, from: Option<Router>) -> Router {
    let flat = rclick_lang::parse(text, &rclick_lang::Options::default()).unwrap();
    h.build(flat, text, reg.clone(), from).unwrap()
}

#[test]
fn shrinking_a_queue_counts_what_does_not_fit() {
    for class in ["Queue", "SimpleQueue", "FrontDropQueue", "ThreadSafeQueue"] {
        let (h, reg) = service();
        let old = build(
            &h,
            &reg,
            &format!("InfiniteSource(LIMIT 8, STOP true) -> q :: {class}(10) -> Idle;"),
            None,
        );
        old.run();
        assert_eq!(old.read_handler("q.length", "").unwrap(), "8", "{class}");
        let new = build(
            &h,
            &reg,
            &format!("Idle -> q :: {class}(3) -> Idle;"),
            Some(old.clone()),
        );
        transfer_state(&old, &new);
        assert_eq!(new.read_handler("q.length", "").unwrap(), "3", "{class}");
        assert_eq!(new.read_handler("q.drops", "").unwrap(), "5", "{class}");
    }
}
