//! `Router::restart`: a router that stopped runs again, with the work
//! scheduled while it was stopped (what the router fuzz targets rely on
//! to feed one router input after input).

mod common;

use rclick_core::testing::read;

#[test]
fn a_stopped_router_runs_again_after_restart() {
    let r = common::build_with(
        "src :: InfiniteSource(LIMIT 3, STOP true) -> c :: Counter -> Discard;",
        false,
        |_| {},
    );
    r.run();
    assert_eq!(read(&r, "c.count"), "3");
    // Without restart, run returns at once.
    r.write_handler("src.reset", "").unwrap();
    r.run();
    assert_eq!(read(&r, "c.count"), "3");
    for round in 2..5 {
        r.restart();
        r.write_handler("src.reset", "").unwrap();
        r.run();
        assert_eq!(read(&r, "c.count"), (3 * round).to_string());
    }
}
