//! Every element class's source file holds unit tests (issue 18: "every
//! element class has unit tests in its file").
//!
//! A class's file is the one its registration names for the manual,
//! `include_str!("counter.rs")` in `Registry::add` (so the file whose
//! opening doc comment is the manual). The test finds those through the
//! `include_str!`s of a `.rs` file in the non-test code of every crate, and
//! the package files of `examples/packages` (`export_package!`). Every
//! class of the full registry must have its manual from one of the files
//! found, so a class registered another way fails here until this test
//! learns that way. Each file must hold `#[cfg(test)]` and a `#[test]`.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{crates_dir, non_test_lines, rust_files};
use rclick_core::registry::manual_from_source;

/// The `.rs` files `text` (the file at `path`) includes as text, as paths
/// relative to the including file's folder. The whole file is read: a
/// `#[cfg(test)] mod testutil;` may come before the registrations.
fn included_rs_files(path: &Path, text: &str) -> Vec<PathBuf> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (i, _) in code.match_indices("include_str!(\"") {
            let rest = &code[i + "include_str!(\"".len()..];
            let Some(end) = rest.find('"') else { continue };
            let name = &rest[..end];
            if name.ends_with(".rs") {
                out.push(dir.join(name));
            }
        }
    }
    out
}

/// Whether `text` holds unit tests: a `#[cfg(test)]` and a `#[test]`
/// outside comments.
fn has_unit_tests(text: &str) -> bool {
    let code = |l: &&str| !l.trim_start().starts_with("//");
    let attr = |a: &str| text.lines().filter(code).any(|l| l.trim() == a);
    attr("#[cfg(test)]") && attr("#[test]")
}

/// The files of the classes registered in `crates/*/src` and of the
/// example packages, each once.
fn class_files() -> BTreeSet<PathBuf> {
    let crates = crates_dir();
    let mut sources = Vec::new();
    for e in std::fs::read_dir(&crates).unwrap().flatten() {
        rust_files(&e.path().join("src"), &mut sources);
    }
    let mut found = BTreeSet::new();
    for f in &sources {
        let text = std::fs::read_to_string(f).unwrap();
        found.extend(included_rs_files(f, &text));
    }
    let mut packages = Vec::new();
    rust_files(&crates.join("../examples/packages"), &mut packages);
    for f in packages {
        let text = std::fs::read_to_string(&f).unwrap();
        if non_test_lines(&text).any(|l| l.contains("export_package!(")) {
            found.insert(f);
        }
    }
    found
        .into_iter()
        .map(|f| f.canonicalize().unwrap_or(f))
        .collect()
}

fn shown(f: &Path) -> String {
    let root = crates_dir().join("..").canonicalize().unwrap();
    f.strip_prefix(&root).unwrap_or(f).display().to_string()
}

#[test]
fn every_class_file_has_unit_tests() {
    let files = class_files();
    assert!(files.len() > 200, "only {} class files found", files.len());
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("examples/packages/payload-xor/src/lib.rs")),
        "the example package's classes are found"
    );
    let mut problems = Vec::new();
    let mut manuals = BTreeSet::new();
    for f in &files {
        match std::fs::read_to_string(f) {
            Ok(text) => {
                if !has_unit_tests(&text) {
                    problems.push(format!(
                        "{}: an element class's file without unit tests \
                         (add `#[cfg(test)] mod tests` with a `#[test]` at the bottom)",
                        shown(f)
                    ));
                }
                manuals.insert(manual_from_source(&text));
            }
            Err(e) => problems.push(format!("{}: registered, but {e}", shown(f))),
        }
    }
    // Every class of the full registry has its manual from a file found.
    let registry = rclick_cli::registry();
    let names = registry.names();
    assert!(names.len() > 250, "only {} classes", names.len());
    for name in names {
        let class = registry.get(name).unwrap();
        if !manuals.contains(&class.manual()) {
            problems.push(format!(
                "{name}: its manual is in none of the files registrations name with \
                 include_str!: teach this test how {name} is registered"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn included_files_are_found() {
    let text = "r.add(\"A\", f, include_str!(\"a.rs\"));\n\
                let doc = include_str!(\"sub/b.rs\"); // include_str!(\"c.rs\")\n\
                #[cfg(test)]\n\
                mod testutil;\n\
                const PAGE: &str = include_str!(\"page/index.html\");\n\
                const C: &str = include_str!(\"c.rs\");\n";
    let got = included_rs_files(Path::new("src/basic/mod.rs"), text);
    assert_eq!(
        got,
        [
            Path::new("src/basic/a.rs"),
            Path::new("src/basic/sub/b.rs"),
            Path::new("src/basic/c.rs")
        ]
    );
}

#[test]
fn unit_tests_are_recognised() {
    assert!(has_unit_tests(
        "fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
    ));
    assert!(!has_unit_tests("fn f() {}\n"));
    assert!(!has_unit_tests("fn f() {}\n// #[cfg(test)]\n// #[test]\n"));
    assert!(
        !has_unit_tests("#[cfg(test)]\nmod tests;\n"),
        "tests in another file"
    );
}
