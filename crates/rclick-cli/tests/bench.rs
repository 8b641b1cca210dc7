//! `rclick bench` end to end: the program, on a configuration file.

use std::process::Command;

fn config_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rclick-bench-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn rclick(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rclick"))
        .args(args)
        .output()
        .expect("rclick runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const TINY: &str = "define($N 10);
src :: InfiniteSource(LENGTH 64, LIMIT $N, STOP true, TIMESTAMP false) -> Null -> d :: Discard;
";

#[test]
fn bench_prints_a_checked_row() {
    let f = config_file("tiny_ok.click", TINY);
    let (code, out, err) = rclick(&["bench", "-n", "1000", "--runs", "1", f.to_str().unwrap()]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("| tiny_ok |"))
        .unwrap_or_else(|| panic!("no row in {out}"));
    assert!(row.ends_with("| d.count=N |"), "{row}");
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let median: f64 = cells[2].parse().unwrap();
    assert!(median > 0.0, "{row}");
}

#[test]
fn bench_fails_on_a_wrong_check() {
    let f = config_file("tiny_bad.click", TINY);
    let (code, out, err) = rclick(&[
        "bench",
        "-n",
        "1000",
        "--runs",
        "1",
        "--check",
        "d.count=999",
        f.to_str().unwrap(),
    ]);
    assert_ne!(code, 0, "stdout: {out}");
    assert!(
        err.contains("d.count is 1000, expected 999"),
        "stderr: {err}"
    );
    assert!(!out.contains("| tiny_bad |"), "{out}");
}

#[test]
fn bench_checks_explicit_handlers_and_prints_json() {
    let f = config_file("tiny_json.click", TINY);
    let (code, out, err) = rclick(&[
        "bench",
        "-n",
        "500",
        "--runs",
        "2",
        "--check",
        "d.count=$N",
        "--check",
        "src.count=$N",
        "--json",
        f.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON output");
    let w = &v["workloads"][0];
    assert_eq!(w["name"], "tiny_json");
    assert_eq!(w["ns_per_packet"]["runs"].as_array().unwrap().len(), 2);
    assert_eq!(w["checked"][1], "src.count=N");
}

#[test]
fn bench_without_a_known_sink_asks_for_checks() {
    let f = config_file(
        "tiny_nosink.click",
        "InfiniteSource(LIMIT $N, STOP true) -> Discard;",
    );
    let (code, _, err) = rclick(&["bench", "-n", "10", "--runs", "1", f.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("--check"), "{err}");
    let (code, _, err) = rclick(&[
        "bench",
        "-n",
        "10",
        "--runs",
        "1",
        "--no-check",
        f.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn profile_tables_from_bench_and_run() {
    let f = config_file("tiny_prof.click", TINY);
    let path = f.to_str().unwrap();
    let (code, out, err) = rclick(&["bench", "-n", "1000", "--runs", "1", "--profile", path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("tiny_prof: element costs"), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("d ") && l.contains("Discard"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains(" 1000 "), "{line}");
    assert!(out.contains("est. ns/packet"), "{out}");

    let (code, out, err) = rclick(&["run", "--profile", path, "N=500"]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("src ") && l.contains("InfiniteSource"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains(" 500 "), "{line}");
}

#[test]
fn no_coalesce_is_accepted_and_counts_stay_exact() {
    let f = config_file("tiny_nc.click", TINY);
    let (code, out, err) = rclick(&[
        "bench",
        "--no-coalesce",
        "-n",
        "1000",
        "--runs",
        "1",
        f.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("| tiny_nc |"), "{out}");
    for flag in [None, Some("--no-coalesce")] {
        let mut args = vec!["run"];
        args.extend(flag);
        args.extend([f.to_str().unwrap(), "-H", "d.count"]);
        let (code, out, err) = rclick(&args);
        assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
        assert!(out.contains("10"), "{flag:?}: {out}");
    }
}
