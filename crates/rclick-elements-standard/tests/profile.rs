//! The element cost profile (`profile`, `element_costs`, `ELEMENT.cost`)
//! on a whole configuration.

use rclick_core::testing;

const CONF: &str =
    "src :: InfiniteSource(LIMIT 1000, STOP true) -> n :: Null -> c :: Counter -> d :: Discard;";

fn registry() -> rclick_core::Registry {
    let mut reg = rclick_core::Registry::new();
    rclick_elements_standard::register(&mut reg);
    reg
}

#[test]
fn profiling_counts_every_packet_in_every_element() {
    let r = testing::build(CONF, &registry(), false).unwrap();
    assert_eq!(testing::read(&r, "profile"), "false");
    r.write_handler("profile", "true").unwrap();
    assert_eq!(testing::read(&r, "profile"), "true");
    r.run();
    r.write_handler("profile", "false").unwrap();
    assert_eq!(testing::read(&r, "c.count"), "1000");
    let report = r.element_costs().expect("profiled");
    let names: Vec<&str> = report.elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, vec!["src", "n", "c", "d"]);
    for e in &report.elements {
        assert_eq!(e.packets, 1000, "{e:?}");
        assert!(e.inclusive_ns > 0.0, "{e:?}");
        assert!(e.self_ns <= e.inclusive_ns, "{e:?}");
    }
    // One push per packet into each downstream element.
    assert_eq!(report.elements[1].calls, 1000);
    assert_eq!(report.elements[3].calls, 1000);
    // Inclusive time nests: the source's covers the rest of the path.
    let incl: Vec<f64> = report.elements.iter().map(|e| e.inclusive_ns).collect();
    assert!(incl[0] >= incl[1] && incl[1] >= incl[2] && incl[2] >= incl[3]);
    assert!(report.elements.iter().map(|e| e.self_ns).sum::<f64>() > 0.0);
    assert!(report.total_ns >= incl[0]);

    let table = testing::read(&r, "element_costs");
    let line = table
        .lines()
        .find(|l| l.starts_with("c "))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(
        line.contains("Counter") && line.contains(" 1000 "),
        "{line}"
    );
    let cost = testing::read(&r, "c.cost");
    assert!(cost.starts_with("packets 1000\ncalls 1000\n"), "{cost}");
}

#[test]
fn profiling_is_off_unless_asked() {
    let r = testing::build(CONF, &registry(), false).unwrap();
    r.run();
    assert!(r.element_costs().is_none());
    assert!(testing::read(&r, "element_costs").contains("profiling is off"));
    assert!(testing::read(&r, "c.cost").contains("profiling is off"));
    assert!(r.write_handler("profile", "maybe").is_err());
    assert!(r.write_handler("c.cost", "1").is_err());
}

#[test]
fn switching_profiling_on_again_starts_over() {
    let r = testing::build(
        "src :: InfiniteSource(LIMIT 10, STOP true) -> q :: Queue -> u :: Unqueue -> d :: Discard;",
        &registry(),
        false,
    )
    .unwrap();
    r.write_handler("profile", "true").unwrap();
    r.run();
    let report = r.element_costs().unwrap();
    let get = |n: &str| {
        report
            .elements
            .iter()
            .find(|e| e.name == n)
            .unwrap()
            .clone()
    };
    // The queue is pushed into and pulled from: counted once per packet.
    assert_eq!(get("q").packets, 10);
    assert_eq!(get("u").packets, 10);
    assert_eq!(get("d").packets, 10);
    r.write_handler("profile", "false").unwrap();
    r.write_handler("profile", "true").unwrap();
    assert!(r.element_costs().unwrap().elements.is_empty());
}
