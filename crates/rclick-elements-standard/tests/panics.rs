//! A panic in one element never ends the router (issue 17): it is caught
//! around the task or timer run (or handler call) that led to it, the
//! element that was running when it happened is marked failed (its
//! `failed` handler says why), the packets it was handed are counted as
//! lost, later packets to it are dropped and counted, and the rest of the
//! router keeps forwarding. `Bomb` and `TaskBomb` are test classes, added
//! to this test's registry only.

mod common;

use std::sync::atomic::Ordering;

use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, Router, TaskId,
};

/// Panics on its `N`th packet (`Bomb(N)`, default 2); `Bomb(CONFIGURE)`
/// panics while configured; its `boom` read handler always panics.
#[derive(Default)]
struct Bomb {
    at: u32,
    seen: u32,
}

impl Element for Bomb {
    fn class_name(&self) -> &'static str {
        "Bomb"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        match conf.first().map(String::as_str) {
            Some("CONFIGURE") => panic!("deliberate failure while configuring"),
            Some(n) => self.at = n.parse().map_err(|_| "expected a number".to_string())?,
            None => self.at = 2,
        }
        Ok(())
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.seen += 1;
        if self.seen == self.at {
            panic!("deliberate failure on packet {}", self.at);
        }
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        vec![HandlerDef::read("boom", 0), HandlerDef::read("seen", 1)]
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match id {
            0 => panic!("deliberate failure in a handler"),
            _ => Ok(self.seen.to_string()),
        }
    }
}

/// A source whose task panics on its third run (each run before pushes
/// one packet).
#[derive(Default)]
struct TaskBomb {
    runs: u32,
}

impl Element for TaskBomb {
    fn class_name(&self) -> &'static str {
        "TaskBomb"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        cx.new_task(true);
        Ok(())
    }
    fn run_task(&mut self, _t: TaskId, cx: &mut Ctx) -> bool {
        self.runs += 1;
        if self.runs == 3 {
            panic!("deliberate failure in a task");
        }
        cx.push(0, PacketBatch::from(Packet::from_slice(&[0u8; 60])));
        cx.reschedule();
        true
    }
}

fn add_test_classes(reg: &mut rclick_core::Registry) {
    reg.add("Bomb", || Box::<Bomb>::default(), "");
    reg.add("TaskBomb", || Box::<TaskBomb>::default(), "");
}

fn build(text: &str, no_fuse: bool) -> Router {
    common::build_with(text, no_fuse, add_test_classes)
}

/// `build`, in simulated time when `simtime`, else in real time (the
/// scheduler then sleeps for real when idle).
fn build_timed(text: &str, no_fuse: bool, simtime: bool) -> Router {
    common::build_timed(text, no_fuse, simtime, add_test_classes)
}

fn read(r: &Router, h: &str) -> String {
    r.read_handler(h, "").unwrap_or_else(|e| panic!("{h}: {e}"))
}

fn count(r: &Router, h: &str) -> u64 {
    read(r, h)
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{h}: {e}"))
}

/// Whether a logged line contains `text`.
fn logged(r: &Router, text: &str) -> bool {
    r.take_log().iter().any(|l| l.contains(text))
}

/// How many times a task pulling from the failed element `bomb` was
/// parked.
fn parked_pullers(r: &Router) -> u64 {
    field(&read(r, "bomb.failed"), "parked_pullers")
        .parse()
        .unwrap()
}

/// The value of `key` in a handler's `key value` lines.
fn field(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
        .unwrap_or_else(|| panic!("no {key} in {text}"))
        .to_string()
}

#[test]
fn a_panicking_element_is_marked_failed_and_the_rest_forwards() {
    // BURST 1 through a fused chain (Counter, Bomb, Counter are simple)
    // and through nested pushes: the same outcome.
    for no_fuse in [false, true] {
        let r = build(
            "InfiniteSource(LIMIT 5, BURST 1) -> a :: Counter -> bomb :: Bomb -> b :: Counter -> Discard;
             InfiniteSource(LIMIT 50, BURST 1) -> c :: Counter -> Discard;
             DriverManager(wait_stop 2);",
            no_fuse,
        );
        r.run();
        let bomb = r.find("bomb").unwrap();
        assert!(r.element_failed(bomb));
        assert!(!r.element_failed(r.find("b").unwrap()));
        assert_eq!(count(&r, "a.count"), 5);
        assert_eq!(count(&r, "c.count"), 50, "the other path forwards");
        // Packet 1 went through, packet 2 was in the panic, 3 to 5 were
        // dropped at the failed element without calling it.
        assert_eq!(count(&r, "b.count"), 1);
        assert_eq!(count(&r, "bomb.seen"), 2, "never called after it failed");
        let why = read(&r, "bomb.failed");
        assert!(why.starts_with("true\n"), "{why}");
        assert_eq!(field(&why, "panic"), "deliberate failure on packet 2");
        assert!(field(&why, "at").contains("panics.rs:"), "{why}");
        assert!(
            field(&why, "during").starts_with("push or pull, in a task run of "),
            "{why}"
        );
        assert_eq!(field(&why, "lost_packets"), "1");
        assert_eq!(field(&why, "dropped_packets"), "3");
        assert_eq!(read(&r, "b.failed"), "false");
        let drops = read(&r, "router_drops");
        for (k, v) in [
            ("panics", "1"),
            ("panic_packets", "1"),
            ("failed_elements", "1"),
            ("failed_packets", "3"),
        ] {
            assert_eq!(field(&drops, k), v, "{drops}");
        }
        assert!(field(&drops, "last_panic").starts_with("bomb: panic in push or pull"));
        assert_eq!(r.stats().panics.load(Ordering::Relaxed), 1);
        // `failed` is readable but not listed among Click's handlers.
        assert!(!read(&r, "bomb.handlers").contains("failed"));
        assert!(r.write_handler("bomb.failed", "x").is_err());
        assert!(logged(&r, "element marked failed"));
    }
}

#[test]
fn the_whole_batch_in_flight_is_counted() {
    // Batches of 8: the second batch meets the panic (packet 10) and is
    // lost whole; the three after it are dropped at the failed element.
    let r = build(
        "InfiniteSource(LIMIT 40, BURST 8) -> bomb :: Bomb(10) -> b :: Counter -> Discard;
         DriverManager(wait_stop);",
        false,
    );
    r.run();
    let why = read(&r, "bomb.failed");
    assert_eq!(count(&r, "b.count"), 8);
    assert_eq!(field(&why, "lost_packets"), "8");
    assert_eq!(field(&why, "dropped_packets"), "24");
    let drops = read(&r, "router_drops");
    assert_eq!(field(&drops, "panic_packets"), "8");
}

/// (A puller paced by a timer: an Unqueue keeps asking the failed
/// element, as the queue before it still has packets, and in simulated
/// time that never lets the clock move.)
#[test]
fn a_panic_while_pulled_fails_the_pulled_element() {
    let r = build(
        "InfiniteSource(LIMIT 20, BURST 1) -> q :: Queue(100) -> bomb :: Bomb(3)
            -> u :: TimedUnqueue(0.01, 1) -> b :: Counter -> Discard;
         InfiniteSource(LIMIT 30, BURST 1) -> c :: Counter -> Discard;
         DriverManager(wait 1s);",
        false,
    );
    r.run();
    assert!(r.element_failed(r.find("bomb").unwrap()));
    assert!(!r.element_failed(r.find("u").unwrap()));
    assert_eq!(count(&r, "b.count"), 2);
    assert_eq!(count(&r, "c.count"), 30);
    // Nothing more was pulled through the failed element: the queue keeps
    // the rest.
    assert_eq!(count(&r, "q.length"), 17);
    let why = read(&r, "bomb.failed");
    assert!(field(&why, "during").contains("task run of u"), "{why}");
    assert_eq!(field(&why, "lost_packets"), "0");
}

#[test]
fn a_panicking_task_stops_only_its_element() {
    let r = build(
        "tb :: TaskBomb -> t :: Counter -> Discard;
         InfiniteSource(LIMIT 30, BURST 1) -> c :: Counter -> Discard;
         DriverManager(wait 1s);",
        false,
    );
    r.run();
    assert!(r.element_failed(r.find("tb").unwrap()));
    assert_eq!(count(&r, "t.count"), 2);
    assert_eq!(count(&r, "c.count"), 30);
    let why = read(&r, "tb.failed");
    assert_eq!(field(&why, "during"), "task");
    assert_eq!(field(&why, "panic"), "deliberate failure in a task");
    // Its task is not run again after the panic.
    assert_eq!(field(&read(&r, "router_drops"), "panics"), "1");
}

#[test]
fn a_panicking_handler_answers_an_error_and_fails_nothing() {
    let r = build(
        "InfiniteSource(LIMIT 5, BURST 1) -> bomb :: Bomb(100) -> b :: Counter -> Discard;",
        false,
    );
    let e = r.read_handler("bomb.boom", "").unwrap_err();
    assert!(
        e.starts_with("'bomb.boom' panicked: deliberate failure in a handler (at "),
        "{e}"
    );
    assert!(!r.element_failed(r.find("bomb").unwrap()));
    assert_eq!(read(&r, "bomb.failed"), "false");
    assert_eq!(field(&read(&r, "router_drops"), "panics"), "1");
    // Its other handlers and its data path still work.
    assert_eq!(read(&r, "bomb.seen"), "0");
    r.run();
    assert_eq!(count(&r, "b.count"), 5);
}

#[test]
fn a_panic_while_configuring_is_a_build_error() {
    let mut reg = rclick_core::Registry::new();
    rclick_elements_standard::register(&mut reg);
    reg.add("Bomb", || Box::<Bomb>::default(), "");
    let e =
        rclick_core::testing::build("Idle -> Bomb(CONFIGURE) -> Discard;", &reg, true).unwrap_err();
    assert!(e.contains("While configuring"), "{e}");
    assert!(
        e.contains("panic: deliberate failure while configuring (at "),
        "{e}"
    );
}

/// Runs `r` on another thread; if it has not ended after `secs` seconds
/// of real time, stops it. Returns whether it ended by itself.
fn run_with_watchdog(r: &Router, secs: u64) -> bool {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(|| {
            r.run();
            let _ = tx.send(());
        });
        match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
            Ok(()) => true,
            Err(_) => {
                r.write_handler("stop", "").unwrap();
                false
            }
        }
    })
}

/// An Unqueue behind an element that fails on its third packet, with a
/// Queue before it that keeps the rest.
const STUCK_PULLER: &str = "InfiniteSource(LIMIT 20, BURST 1) -> q :: Queue(100) -> bomb :: Bomb(3)
    -> u :: Unqueue -> b :: Counter -> Discard;";

/// An Unqueue behind a failed element, whose Queue still says packets
/// wait: it used to run again at once for ever, pulling nothing (the
/// thread spun at full CPU: a few million runs in half a second). Its
/// task is now parked 10 ms at a time while its runs get nothing.
#[test]
fn a_puller_behind_a_failed_element_does_not_spin() {
    let r = build_timed(
        &format!("{STUCK_PULLER} DriverManager(wait 500ms);"),
        false,
        false,
    );
    r.run();
    assert!(r.element_failed(r.find("bomb").unwrap()));
    assert_eq!(count(&r, "b.count"), 2);
    assert_eq!(count(&r, "q.length"), 17);
    let runs = r.task_runs(r.find("u").unwrap());
    let parked = parked_pullers(&r);
    eprintln!("u ran {runs} times in 0.5 s, parked {parked} times");
    // About 50 of each (one run per 10 ms); before, millions of runs.
    assert!(runs < 2_000, "u ran {runs} times in 0.5 s");
    assert!(parked >= 5, "parked {parked} times");
    assert!(runs <= parked + 50, "runs {runs}, parked {parked}");
    assert!(logged(
        &r,
        "u: its task pulls nothing from failed element bomb"
    ));
}

/// The same in simulated time: the parked task lets the thread idle, so
/// the clock moves (it used to spin with the clock standing still, and
/// never reach DriverManager's second). One run per 10 ms.
#[test]
fn a_parked_puller_lets_simulated_time_move() {
    let r = build(&format!("{STUCK_PULLER} DriverManager(wait 1s);"), false);
    assert!(
        run_with_watchdog(&r, 60),
        "the router never reached its second"
    );
    assert_eq!(count(&r, "b.count"), 2);
    let parked = parked_pullers(&r);
    assert!((95..=105).contains(&parked), "parked {parked} times");
    let runs = r.task_runs(r.find("u").unwrap());
    assert!(runs <= parked + 5, "runs {runs}, parked {parked}");
}

/// Scheduler `class` with a failed element on input 0 and `n` packets
/// for input 1, pulled by an Unqueue into Counter `c` (configured with
/// `counter`), then `rest`.
fn sched_with_failed_input(class: &str, n: u32, counter: &str, rest: &str) -> Router {
    build(
        &format!(
            "InfiniteSource(LIMIT 20, BURST 1) -> q0 :: Queue(100) -> bomb :: Bomb(3) -> [0] s :: {class};
             InfiniteSource(LIMIT {n}, BURST 1) -> q1 :: Queue(1000) -> [1] s;
             s -> u :: Unqueue -> c :: Counter({counter}) -> Discard; {rest}"
        ),
        false,
    )
}

/// A scheduler with one failed input and one working one keeps
/// forwarding the working one's packets at full rate: a run that got
/// packets is never parked, and a parked puller is woken by the working
/// input's notifier as soon as it has packets again.
#[test]
fn a_scheduler_with_one_failed_input_forwards_the_other() {
    for class in ["RoundRobinSched", "PrioSched"] {
        let r = sched_with_failed_input(class, 20000, "COUNT_CALL 20002 stop", "");
        let start = r.clock().now();
        assert!(run_with_watchdog(&r, 120), "{class}: packets went missing");
        assert!(r.element_failed(r.find("bomb").unwrap()), "{class}");
        assert_eq!(count(&r, "c.count"), 20002, "{class}");
        assert_eq!(count(&r, "q1.drops"), 0, "{class}");
        assert_eq!(count(&r, "q1.length"), 0, "{class}");
        // Never idle while packets waited: simulated time did not move
        // past one parking.
        let spent = r.clock().now() - start;
        assert!(spent.as_nsec() < 10_000_000, "{class}: {spent:?}");
    }
}

/// Once the working input is empty too, the scheduler's puller gets
/// nothing from either and is parked like a lone puller (an empty
/// Queue's pull returns a batch without storage).
#[test]
fn a_scheduler_with_one_failed_input_and_one_empty_input_is_parked() {
    for class in ["RoundRobinSched", "PrioSched"] {
        let r = sched_with_failed_input(class, 100, "", "DriverManager(wait 1s);");
        assert!(run_with_watchdog(&r, 60), "{class}: spun");
        assert_eq!(count(&r, "c.count"), 102, "{class}");
        let parked = parked_pullers(&r);
        assert!(
            (90..=105).contains(&parked),
            "{class}: parked {parked} times"
        );
    }
}
