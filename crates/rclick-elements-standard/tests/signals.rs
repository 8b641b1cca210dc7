//! Script TYPE SIGNAL with real signals. Signal handlers are process-wide,
//! so this test lives in its own test binary (its own process), away from
//! the unit tests that build routers in parallel.

#[test]
fn signal_scripts_run_once_per_registration() {
    let conf = "sig :: Script(TYPE SIGNAL USR2, export n 0, set n $(add $n 1), end);\n\
                once :: Script(TYPE SIGNAL USR2 HUP, export n 0, set n $(add $n 1), exit);\n\
                Script(set y $(kill USR2 $$), wait 200ms, set y $(kill USR2 $$), wait 200ms, stop);";
    let mut reg = rclick_core::Registry::new();
    rclick_elements_standard::register(&mut reg);
    let r = rclick_core::testing::build(conf, &reg, false).unwrap();
    r.run();
    // `end` listens again, so both signals count; `exit` stops listening.
    assert_eq!(rclick_core::testing::read(&r, "sig.n"), "2");
    assert_eq!(rclick_core::testing::read(&r, "once.n"), "1");
}
