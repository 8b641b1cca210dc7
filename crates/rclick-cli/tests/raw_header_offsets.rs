//! No element file reads or writes packet headers by raw offset: headers go
//! through rclick-wire's typed views (ARCHITECTURE.md, "Architecture
//! invariant" under `rclick-wire`).
//!
//! Scans the non-test part of every `crates/rclick-elements-*/src` file (up
//! to its first `#[cfg(test)]`, comments skipped) for the shapes raw
//! header access takes: the private helpers `rd16(`/`rd32(`/`wr16(`/
//! `wr32(`/`be16(`/`be32(`, `from_be_bytes`/`to_be_bytes`, and a store to
//! a literal index (`buf[18] = 6`). A file may hold at most the number of
//! such lines its [`ALLOWED`] entry says, with the reason; a file whose
//! count fell must lower its entry, so the list only shrinks.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{crates_dir, non_test_lines, rust_files};

/// Files allowed raw-offset lines: (path under `crates/`, at most how many
/// lines, why). Most are not header accesses at all (stores into local
/// arrays, file formats' own fields, pattern words) and say so; the real
/// ones say what rclick-wire lacks.
const ALLOWED: &[(&str, usize, &str)] = &[
    (
        "rclick-elements-analysis/src/analysis/aggregate_ip.rs",
        1,
        "AggregateIP's FIELD: the word at the offset the configuration names",
    ),
    (
        "rclick-elements-analysis/src/analysis/from_ip_summary_dump.rs",
        1,
        "the binary summary-dump record's length word, not a packet header",
    ),
    (
        "rclick-elements-analysis/src/analysis/ipsumdump_fields/binary.rs",
        4,
        "the binary summary-dump record's own big-endian fields, not a packet header",
    ),
    (
        "rclick-elements-analysis/src/analysis/to_ip_summary_dump.rs",
        2,
        "the binary summary-dump record's length and marker words, not a packet header",
    ),
    (
        "rclick-elements-ip/src/classifier/primitive.rs",
        1,
        "a pattern's value as a word, not a header",
    ),
    (
        "rclick-elements-ip/src/classifier/vocab.rs",
        1,
        "a store into a local array of flags, not into a packet",
    ),
    (
        "rclick-elements-ip/src/ip/dxr.rs",
        1,
        "a store into the lookup table's local array of islands, not into a packet",
    ),
    (
        "rclick-elements-ipsec/src/sa.rs",
        1,
        "the IV is the sequence number as 8 big-endian bytes (RFC 4106), not a header field",
    ),
    (
        "rclick-elements-nat/src/rewriter/class.rs",
        2,
        "stores into the timeouts array, not into a packet",
    ),
    (
        "rclick-elements-nat/src/rewriter/icmp_rewriter.rs",
        12,
        "stores into a local array of old and new halfwords for the incremental checksum, not into the packet",
    ),
    (
        "rclick-elements-nat/src/rewriter/ip_rewriter.rs",
        2,
        "stores into the timeouts array, not into a packet",
    ),
    (
        "rclick-elements-nat/src/rewriter/tcp_rewriter.rs",
        2,
        "stores into the timeouts array, not into a packet",
    ),
    (
        "rclick-elements-nat/src/rewriter/udp_rewriter.rs",
        2,
        "stores into the timeouts array, not into a packet",
    ),
    (
        "rclick-elements-standard/src/basic/classifier.rs",
        1,
        "a pattern's value and mask as words, not a header",
    ),
    (
        "rclick-elements-standard/src/misc/random_bit_errors.rs",
        1,
        "a store into a local table of probabilities, not into a packet",
    ),
    (
        "rclick-elements-userlevel/src/dump/pcap.rs",
        4,
        "pcap file headers of either byte order and the capture-only link layers (Linux cooked, BSD loopback, HDLC, PPP, LLC) that rclick-wire has no view for; Ethernet goes through the views",
    ),
];

/// Whether `line` has one of the raw-offset shapes.
fn is_raw_offset(line: &str) -> bool {
    // The code before any comment.
    let code = line.split("//").next().unwrap_or("").trim_start();
    if code.contains("from_be_bytes") || code.contains("to_be_bytes") {
        return true;
    }
    let b = code.as_bytes();
    for helper in ["rd16(", "rd32(", "wr16(", "wr32(", "be16(", "be32("] {
        for (i, _) in code.match_indices(helper) {
            let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
            if !ident_before {
                return true;
            }
        }
    }
    // `[DIGITS] =` (a store to a literal index), not `[DIGITS] ==`.
    for (i, _) in code.match_indices('[') {
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 || b.get(i + 1 + digits) != Some(&b']') {
            continue;
        }
        let rest = code[i + 2 + digits..].trim_start();
        if rest.starts_with('=') && !rest.starts_with("==") {
            return true;
        }
    }
    false
}

/// Raw-offset lines in the non-test part of `text`.
fn count(text: &str) -> usize {
    non_test_lines(text).filter(|l| is_raw_offset(l)).count()
}

/// The files of the modules `text` (the file `path`) declares under
/// `#[cfg(test)]` (`#[cfg(test)] mod testutil;`): test code, not scanned.
fn test_only_children(path: &Path, text: &str) -> Vec<PathBuf> {
    let stem = path.file_stem().unwrap_or_default();
    let dir = path.parent().unwrap_or(Path::new(""));
    let base = if stem == "mod" || stem == "lib" {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    let mut out = Vec::new();
    let mut after_cfg_test = false;
    for line in text.lines().map(str::trim) {
        if after_cfg_test {
            let decl = line.strip_prefix("pub(crate) ").unwrap_or(line);
            if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                out.push(base.join(format!("{name}.rs")));
                out.push(base.join(name).join("mod.rs"));
            }
        }
        after_cfg_test = line == "#[cfg(test)]";
    }
    out
}

#[test]
fn element_files_use_header_views() {
    let crates = crates_dir();
    let mut found = BTreeMap::new();
    for e in std::fs::read_dir(&crates).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("rclick-elements-") {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&e.path().join("src"), &mut files);
        let texts: Vec<String> = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        let test_only: Vec<PathBuf> = files
            .iter()
            .zip(&texts)
            .flat_map(|(f, t)| test_only_children(f, t))
            .collect();
        for (f, text) in files.iter().zip(&texts) {
            if test_only.contains(f) {
                continue;
            }
            let n = count(text);
            let rel = f
                .strip_prefix(&crates)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            found.insert(rel, n);
        }
    }
    assert!(found.len() > 100, "only {} element files", found.len());
    let mut problems = Vec::new();
    for (path, n) in &found {
        let allowed = ALLOWED
            .iter()
            .find(|(p, _, _)| p == path)
            .map_or(0, |a| a.1);
        if *n > allowed {
            problems.push(format!(
                "{path}: {n} lines read or write headers by offset (allowed {allowed}): \
                 use rclick-wire's views (add the accessor there if it is missing)"
            ));
        } else if *n < allowed {
            problems.push(format!(
                "{path}: {n} raw-offset lines now; lower ALLOWED to {n}"
            ));
        }
    }
    for (path, _, _) in ALLOWED {
        if !found.contains_key(*path) {
            problems.push(format!("{path}: in ALLOWED, but no such file"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn modules_declared_for_tests_are_not_scanned() {
    let text = "mod a;\n#[cfg(test)]\npub(crate) mod testutil;\n#[cfg(test)]\nmod tests {\n";
    let got = test_only_children(Path::new("src/rewriter/mod.rs"), text);
    assert_eq!(
        got,
        [
            Path::new("src/rewriter/testutil.rs"),
            Path::new("src/rewriter/testutil/mod.rs")
        ]
    );
    let got = test_only_children(Path::new("src/ip.rs"), "#[cfg(test)]\nmod util;\n");
    assert_eq!(got[0], Path::new("src/ip/util.rs"));
}

#[test]
fn raw_offset_shapes_are_recognised() {
    assert!(is_raw_offset("    wr32(ip, 12, src);"));
    assert!(is_raw_offset("let a = rd16(h, 2);"));
    assert!(is_raw_offset("buf[18] = 6;"));
    assert!(is_raw_offset("d[0]=0x45;"));
    assert!(is_raw_offset("let n = u16::from_be_bytes([h[2], h[3]]);"));
    assert!(!is_raw_offset("if buf[18] == 6 {"));
    assert!(!is_raw_offset(
        "x.set_ttl(ip.ttl() - 1); // wr16(ip, 8, ..)"
    ));
    assert!(!is_raw_offset("// buf[18] = 6"));
    assert!(!is_raw_offset("let v = self.fwr16(a);"));
    assert!(!is_raw_offset("out[i] = 6;"));
    assert_eq!(count("wr16(a, 0, 1);\n#[cfg(test)]\nwr16(a, 0, 1);\n"), 1);
}
