//! Every class's manual lists the handlers the class defines, and defines
//! the handlers its manual lists.
//!
//! The handlers are those of an unconfigured instance (`Element::handlers`
//! before `configure`), the manual's are the backquoted names at the start
//! of each item in its `## Handlers` section (`* `count` (read): ...` or
//! `* `reset`, `reset_counts` (write): ...`). A class whose handlers depend
//! on its configuration (per port, per keyword) is listed in
//! [`CONFIG_DEPENDENT`] with the reason; for it only "defined but not in
//! the manual" is checked.

use std::collections::BTreeSet;

/// Classes whose unconfigured instance does not define every handler its
/// manual lists, with why.
const CONFIG_DEPENDENT: &[(&str, &str)] = &[
    ("CheckARPHeader", "drop_details exists with DETAILS true"),
    ("CheckICMPHeader", "drop_details exists with DETAILS true"),
    ("CheckIPHeader", "drop_details exists with DETAILS true"),
    ("CheckIPHeader2", "drop_details exists with DETAILS true"),
    ("CheckTCPHeader", "drop_details exists with DETAILS true"),
    ("CheckUDPHeader", "drop_details exists with DETAILS true"),
    (
        "ControlSocket",
        "port exists for a TCP socket, filename for a Unix socket",
    ),
    (
        "Discard",
        "active exists in pull mode, where Discard has a task",
    ),
];

/// Classes that are another class with other defaults (as Click's
/// subclasses are), whose manuals list their own handlers and defer to the
/// parent's manual for the rest: (class, parent).
const INHERITS: &[(&str, &str)] = &[("DriverManager", "Script")];

/// Classes whose manual and handlers disagree today, to be put right
/// (issue 18): each is checked to still disagree, so the list only shrinks.
const KNOWN_GAPS: &[&str] = &[];

/// Handlers the router gives every element, or every element with a task
/// (`core/src/router/handlers.rs`); a manual may mention them.
const STANDARD: &[&str] = &[
    "home_thread",
    "name",
    "class",
    "config",
    "ports",
    "handlers",
    "cost",
    "scheduled",
    "tickets",
    "reschedule",
    "tasks",
];

/// A manual's name for a family of handlers, one per port or entry:
/// `patternN`, `ticketsI`, `activeN`. The family's prefix, if `name` is one.
fn family(name: &str) -> Option<&str> {
    let prefix = name.trim_end_matches(|c: char| c.is_ascii_uppercase());
    (prefix.len() < name.len() && !prefix.is_empty()).then_some(prefix)
}

/// Whether `name` is a member of one of `families` (`pattern0` is
/// documented by `patternN`).
fn in_family(name: &str, families: &[&str]) -> bool {
    families.iter().any(|f| {
        name.strip_prefix(f)
            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The handler names a manual's `## Handlers` section lists.
fn manual_handlers(manual: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_section = false;
    for line in manual.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            in_section = h.trim() == "Handlers";
            continue;
        }
        if !in_section {
            continue;
        }
        let Some(item) = line.strip_prefix("* ").or_else(|| line.strip_prefix("- ")) else {
            continue;
        };
        // The names are the backquoted words before the first `(` or `:`
        // that is outside backquotes.
        let mut rest = item.trim_start();
        while let Some(r) = rest.strip_prefix('`') {
            let Some(end) = r.find('`') else { break };
            let name = &r[..end];
            // `name PARAM` or `name [ARG]`: the handler is the first word.
            if let Some(w) = name.split_whitespace().next() {
                names.insert(w.to_string());
            }
            rest = r[end + 1..].trim_start();
            // `name (read), other (write): ...`: skip the parenthesis.
            if rest.starts_with('(') {
                match rest.find(')') {
                    Some(close) => rest = rest[close + 1..].trim_start(),
                    None => break,
                }
            }
            match rest
                .strip_prefix(',')
                .or_else(|| rest.strip_prefix("or "))
                .or_else(|| rest.strip_prefix("and "))
            {
                Some(r) => rest = r.trim_start(),
                None => break,
            }
        }
    }
    names
}

#[test]
fn manual_lists_handlers() {
    let reg = rclick_cli::registry();
    let mut problems = Vec::new();
    let mut checked = 0;
    for class in reg.names() {
        let Some(info) = reg.get(class) else { continue };
        if info.name != class {
            continue; // an alias
        }
        let element = info.create();
        let defs = element.handlers();
        let public: BTreeSet<String> = defs
            .iter()
            .filter(|d| !d.flags.private)
            .map(|d| d.name.to_string())
            .collect();
        let defined: BTreeSet<String> = defs.iter().map(|d| d.name.to_string()).collect();
        let mut listed = manual_handlers(&info.manual());
        if let Some((_, parent)) = INHERITS.iter().find(|(c, _)| *c == class) {
            let parent = reg.get(parent).expect("INHERITS names a class");
            listed.extend(manual_handlers(&parent.manual()));
        }
        let families: Vec<&str> = listed.iter().filter_map(|n| family(n)).collect();
        let undocumented: Vec<_> = public
            .difference(&listed)
            .filter(|d| !in_family(d, &families))
            .collect();
        let missing: Vec<_> = listed
            .difference(&defined)
            .filter(|n| family(n).is_none() && !STANDARD.contains(&n.as_str()))
            .collect();
        let dependent = CONFIG_DEPENDENT.iter().any(|(c, _)| *c == class);
        let agree = undocumented.is_empty() && (missing.is_empty() || dependent);
        if KNOWN_GAPS.contains(&class) {
            if agree {
                problems.push(format!("{class}: agrees now; take it out of KNOWN_GAPS"));
            }
        } else {
            if !undocumented.is_empty() {
                problems.push(format!("{class}: not in its manual: {undocumented:?}"));
            }
            if !missing.is_empty() && !dependent {
                problems.push(format!("{class}: in its manual, not defined: {missing:?}"));
            }
        }
        checked += 1;
    }
    assert!(checked > 200, "only {checked} classes");
    assert!(
        problems.is_empty(),
        "{} classes:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Classes whose handlers include a family made at configure time (one
/// per port or input spec), unseen on the unconfigured instance
/// `manual_lists_handlers` checks: (class, family prefix, a configuration
/// in which element `e` has two members).
const FAMILIES: &[(&str, &str, &str)] = &[
    (
        "StrideSwitch",
        "tickets",
        "Idle -> e :: StrideSwitch(1, 2) -> Discard; e[1] -> Discard;",
    ),
    (
        "StrideSched",
        "tickets",
        "Idle -> [0] e :: StrideSched(1, 2) -> Discard; Idle -> [1] e;",
    ),
    (
        "Suppressor",
        "active",
        "Idle -> e :: Suppressor -> Discard; Idle -> [1] e [1] -> Discard;",
    ),
    (
        "IPClassifier",
        "pattern",
        "Idle -> e :: IPClassifier(tcp, -) -> Discard; e[1] -> Discard;",
    ),
    (
        "IPRewriter",
        "pattern",
        "i :: Idle; e :: IPRewriter(drop, drop); i -> [0] e; i[1] -> [1] e; e -> i;",
    ),
];

#[test]
fn configured_families_are_in_the_manual() {
    let reg = rclick_cli::registry();
    let mut problems = Vec::new();
    for (class, prefix, conf) in FAMILIES {
        let r = rclick_core::testing::build(conf, &reg, true)
            .unwrap_or_else(|e| panic!("{class}: {e}"));
        let text = r.read_handler("e.handlers", "").unwrap();
        let names: BTreeSet<&str> = text.lines().filter_map(|l| l.split('\t').next()).collect();
        for i in 0..2 {
            if !names.contains(format!("{prefix}{i}").as_str()) {
                problems.push(format!("{class}: no {prefix}{i} in {names:?}"));
            }
        }
        let listed = manual_handlers(&reg.get(class).expect("a class").manual());
        let families: Vec<&str> = listed.iter().filter_map(|n| family(n)).collect();
        if !families.contains(prefix) {
            problems.push(format!("{class}: the manual lists no {prefix}N"));
        }
        let undocumented: Vec<&&str> = names
            .iter()
            .filter(|n| !listed.contains(**n) && !STANDARD.contains(n))
            .filter(|n| !in_family(n, &families))
            .collect();
        if !undocumented.is_empty() {
            problems.push(format!("{class}: not in its manual: {undocumented:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn manual_handler_lists_are_parsed() {
    let m = "# X\n\n## Handlers\n\n* `count` (read): n.\n* `reset`, `reset_counts` (write): z.\n\
             * `table` or `routes` (read)\n* `a` (read/write), `b` (write): c.\n* `lookup ADDR` (read with a parameter)\n\n## See also\n\n* `nothing`\n";
    let got: Vec<String> = manual_handlers(m).into_iter().collect();
    assert_eq!(
        got,
        [
            "a",
            "b",
            "count",
            "lookup",
            "reset",
            "reset_counts",
            "routes",
            "table"
        ]
    );
}
