//! `GET /metrics`: a [`Snapshot`] in the OpenMetrics text format that
//! Prometheus scrapes, written by the Prometheus project's Rust client
//! (`prometheus-client`). Each scrape reads the router once and builds a
//! fresh registry from it, so the values are the router's own counters,
//! not copies kept in step.
//!
//! | metric | type | from |
//! |---|---|---|
//! | `rclick_element_packets_total{element,class}` | counter | `count` |
//! | `rclick_element_bytes_total{element,class}` | counter | `byte_count` |
//! | `rclick_element_drops_total{element,class}` | counter | `drops` |
//! | `rclick_element_reason_drops_total{element,class,reason}` | counter | `drop_details` |
//! | `rclick_queue_length{element,class}` | gauge | `length` |
//! | `rclick_queue_highwater_length{element,class}` | gauge | `highwater_length` |
//! | `rclick_queue_capacity{element,class}` | gauge | `capacity` |
//! | `rclick_element_profiled_packets_total{element,class}` | counter | `cost`, profiling on |
//! | `rclick_element_cost_ns_per_packet{element,class}` | gauge | `cost`, profiling on |
//! | `rclick_thread_elements{thread}` | gauge | elements whose home is the thread |
//! | `rclick_thread_scheduled_tasks{thread}` | gauge | of those, tasks scheduled now |
//! | `rclick_router_generation` | gauge | hot swaps so far |
//! | `rclick_router_profiling` | gauge | 1 when the cost profile is on |

use std::sync::atomic::{AtomicI64, AtomicU64};

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::snapshot::Snapshot;

/// The `Content-Type` of the exposition.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

type Labels = Vec<(String, String)>;
type Counters = Family<Labels, Counter<u64, AtomicU64>>;
type Gauges = Family<Labels, Gauge<i64, AtomicI64>>;
type FloatGauges = Family<Labels, Gauge<f64, AtomicU64>>;

/// Counter metrics read from element handlers: handler, metric, help.
const ELEMENT_COUNTERS: &[(&str, &str, &str)] = &[
    (
        "count",
        "rclick_element_packets",
        "Packets counted by the element (its count handler)",
    ),
    (
        "byte_count",
        "rclick_element_bytes",
        "Bytes counted by the element (its byte_count handler)",
    ),
    (
        "drops",
        "rclick_element_drops",
        "Packets the element dropped (its drops handler)",
    ),
];

/// Gauge metrics read from element handlers.
const ELEMENT_GAUGES: &[(&str, &str, &str)] = &[
    ("length", "rclick_queue_length", "Packets in the queue now"),
    (
        "highwater_length",
        "rclick_queue_highwater_length",
        "Most packets the queue has held",
    ),
    (
        "capacity",
        "rclick_queue_capacity",
        "Packets the queue can hold",
    ),
];

fn element_labels(name: &str, class: &str) -> Labels {
    vec![
        ("element".to_string(), name.to_string()),
        ("class".to_string(), class.to_string()),
    ]
}

/// The exposition text of `s`.
pub fn render(s: &Snapshot) -> String {
    let mut reg = Registry::default();
    for &(handler, metric, help) in ELEMENT_COUNTERS {
        let fam = Counters::default();
        for e in &s.elements {
            if let Some(v) = e.get(handler) {
                fam.get_or_create(&element_labels(&e.name, &e.class))
                    .inc_by(v);
            }
        }
        reg.register(metric, help, fam);
    }
    let reasons = Counters::default();
    for e in &s.elements {
        for (reason, n) in &e.drop_reasons {
            let mut l = element_labels(&e.name, &e.class);
            l.push(("reason".to_string(), reason.clone()));
            reasons.get_or_create(&l).inc_by(*n);
        }
    }
    reg.register(
        "rclick_element_reason_drops",
        "Packets the element dropped, by reason (its drop_details handler)",
        reasons,
    );
    for &(handler, metric, help) in ELEMENT_GAUGES {
        let fam = Gauges::default();
        for e in &s.elements {
            if let Some(v) = e.get(handler) {
                fam.get_or_create(&element_labels(&e.name, &e.class))
                    .set(i64::try_from(v).unwrap_or(i64::MAX));
            }
        }
        reg.register(metric, help, fam);
    }
    if s.profiling {
        let packets = Counters::default();
        let cost = FloatGauges::default();
        for e in &s.elements {
            if let Some((n, ns)) = e.cost {
                let l = element_labels(&e.name, &e.class);
                packets.get_or_create(&l).inc_by(n);
                cost.get_or_create(&l).set(ns);
            }
        }
        reg.register(
            "rclick_element_profiled_packets",
            "Packets the element handled since profiling was switched on",
            packets,
        );
        reg.register(
            "rclick_element_cost_ns_per_packet",
            "The element's own cost per packet, in nanoseconds (the cost profile)",
            cost,
        );
    }
    let thread_elements = Gauges::default();
    let thread_tasks = Gauges::default();
    for t in 0..s.threads {
        let l = vec![("thread".to_string(), t.to_string())];
        let n = |v: &Vec<usize>| i64::try_from(v.get(t).copied().unwrap_or(0)).unwrap_or(0);
        thread_elements.get_or_create(&l).set(n(&s.thread_elements));
        thread_tasks.get_or_create(&l).set(n(&s.thread_tasks));
    }
    reg.register(
        "rclick_thread_elements",
        "Elements whose home is the router thread",
        thread_elements,
    );
    reg.register(
        "rclick_thread_scheduled_tasks",
        "Elements homed on the thread with a task scheduled now",
        thread_tasks,
    );
    let generation = Gauge::<i64, AtomicI64>::default();
    generation.set(i64::try_from(s.generation).unwrap_or(i64::MAX));
    reg.register(
        "rclick_router_generation",
        "Configurations installed by hot swap since the server started",
        generation,
    );
    let profiling = Gauge::<i64, AtomicI64>::default();
    profiling.set(i64::from(s.profiling));
    reg.register(
        "rclick_router_profiling",
        "1 when the per-element cost profile is on",
        profiling,
    );
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = encode(&mut out, &reg);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::ElementStats;

    fn snap() -> Snapshot {
        Snapshot {
            generation: 2,
            time: 1.5,
            profiling: true,
            threads: 2,
            thread_elements: vec![3, 1],
            thread_tasks: vec![1, 0],
            elements: vec![
                ElementStats {
                    name: "c".into(),
                    class: "Counter".into(),
                    values: vec![("count", 10), ("byte_count", 640)],
                    drop_reasons: vec![],
                    cost: Some((10, 4.5)),
                },
                ElementStats {
                    name: "q \"1\"".into(),
                    class: "Queue".into(),
                    values: vec![("drops", 3), ("length", 5), ("capacity", 1000)],
                    drop_reasons: vec![("queue full".into(), 3)],
                    cost: None,
                },
            ],
        }
    }

    #[test]
    fn exposition_names_values_and_escaping() {
        let t = render(&snap());
        for line in [
            "# TYPE rclick_element_packets counter",
            "rclick_element_packets_total{element=\"c\",class=\"Counter\"} 10",
            "rclick_element_bytes_total{element=\"c\",class=\"Counter\"} 640",
            "rclick_element_drops_total{element=\"q \\\"1\\\"\",class=\"Queue\"} 3",
            "rclick_element_reason_drops_total{element=\"q \\\"1\\\"\",class=\"Queue\",reason=\"queue full\"} 3",
            "# TYPE rclick_queue_length gauge",
            "rclick_queue_length{element=\"q \\\"1\\\"\",class=\"Queue\"} 5",
            "rclick_queue_capacity{element=\"q \\\"1\\\"\",class=\"Queue\"} 1000",
            "rclick_element_cost_ns_per_packet{element=\"c\",class=\"Counter\"} 4.5",
            "rclick_thread_elements{thread=\"1\"} 1",
            "rclick_thread_scheduled_tasks{thread=\"0\"} 1",
            "rclick_router_generation 2",
            "rclick_router_profiling 1",
            "# EOF",
        ] {
            assert!(t.lines().any(|l| l == line), "missing {line:?} in\n{t}");
        }
        // Counters an element lacks are absent, not zero.
        assert!(!t.contains("rclick_element_packets_total{element=\"q"));
    }

    #[test]
    fn no_profile_metrics_when_profiling_is_off() {
        let mut s = snap();
        s.profiling = false;
        let t = render(&s);
        assert!(!t.contains("cost_ns_per_packet"), "{t}");
        assert!(t.contains("rclick_router_profiling 0"), "{t}");
    }
}
