//! The differential cases of `tests/compat/*.cases`, checked against the
//! outputs recorded in `tests/compat/expected` (the reference Click's
//! output for cases that match it, ours for the known differences), so the
//! comparisons `scripts/clickdiff-cases` made with the reference Click keep
//! holding without it. The case format is described in that script.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn compat_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/compat")
}

/// Splits a line into words as a POSIX shell would (quotes and
/// backslashes; no expansions).
fn shell_words(s: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('\'') => break,
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated '".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some('\\') => match it.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => cur.push(ch),
                            Some(ch) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => return Err("unterminated \"".into()),
                        },
                        Some(ch) => cur.push(ch),
                        None => return Err("unterminated \"".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(ch) = it.next() {
                    cur.push(ch);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

struct Case {
    name: String,
    args: Vec<String>,
}

fn parse(path: &Path, data: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let s = line.trim();
        if s.is_empty() || s.starts_with('#') || s.starts_with('@') || s.starts_with('!') {
            continue;
        }
        let (name, rest) = s
            .split_once(':')
            .unwrap_or_else(|| panic!("{}:{}: expected NAME: ARGS", path.display(), n + 1));
        let mut args: Vec<String> = shell_words(rest)
            .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
            .into_iter()
            .map(|a| a.replace("@DATA@", data))
            .collect();
        // Options for clickdiff come before `--`.
        if let Some(i) = args.iter().position(|a| a == "--") {
            args.drain(..=i);
        }
        out.push(Case {
            name: name.trim().to_string(),
            args,
        });
    }
    out
}

/// Runs our driver in a fresh directory; `None` after 30 seconds.
fn run(args: &[String], dir: &Path) -> Option<(i32, String, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_click"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the driver starts");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let o = String::from_utf8_lossy(&t_out.join().unwrap()).into_owned();
    let e = String::from_utf8_lossy(&t_err.join().unwrap()).into_owned();
    status.map(|st| (st.code().unwrap_or(-1), o, e))
}

#[test]
fn shell_words_splits_like_a_shell() {
    assert_eq!(
        shell_words(r#"-e 'a -> b(\<00>)' -h "x y\"" z\ w"#).unwrap(),
        ["-e", r"a -> b(\<00>)", "-h", "x y\"", "z w"]
    );
    assert!(shell_words("'open").is_err());
}

#[test]
fn recorded_compat_cases_hold() {
    let dir = compat_dir();
    let data = dir.join("data").canonicalize().unwrap();
    let data = data.to_str().unwrap().to_string();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cases"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no cases in {}", dir.display());
    let tmp = std::env::temp_dir().join(format!("rclick-compat-{}", std::process::id()));
    let (mut checked, mut failures) = (0, Vec::new());
    for f in &files {
        for case in parse(f, &data) {
            let exp = dir.join("expected").join(&case.name);
            let Ok(text) = std::fs::read_to_string(&exp) else {
                continue;
            };
            let body = text
                .strip_prefix('#')
                .map_or(text.as_str(), |t| t.split_once('\n').map_or("", |x| x.1));
            let (status, rest) = body.split_once('\n').unwrap();
            let (out, err) = rest
                .strip_prefix("--- stdout\n")
                .and_then(|r| r.split_once("--- stderr\n"))
                .unwrap_or_else(|| panic!("{}: bad expected file", exp.display()));
            let _ = std::fs::remove_dir_all(&tmp);
            std::fs::create_dir_all(&tmp).unwrap();
            checked += 1;
            let got = run(&case.args, &tmp);
            // Recorded outputs name the data directory `@DATA@`.
            let (out, err) = (out.replace("@DATA@", &data), err.replace("@DATA@", &data));
            let want = (
                status.trim_start_matches("exit ").to_string(),
                out.as_str(),
                err.as_str(),
            );
            match got {
                Some((rc, o, e)) if rc.to_string() == want.0 && o == want.1 && e == want.2 => {}
                got => failures.push(format!(
                    "{}: expected {:?}\n  got {:?}",
                    case.name, want, got
                )),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(checked > 0, "no expected outputs recorded");
    assert!(
        failures.is_empty(),
        "{} of {checked} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
