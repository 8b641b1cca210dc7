//! `rclick dot` and `rclick svg`: a configuration's graph for Graphviz.
//!
//! The graph is the flattened router as a build resolves it (compound
//! elements expanded, agnostic ports resolved to push or pull), drawn
//! without configuring or initializing any element, so a configuration
//! whose devices or files are not on this machine still draws:
//!
//! * each element is a box: its input ports along the top, its name and
//!   class in the middle (only the class for anonymous elements, as
//!   Click's `click-pretty --dot` does), its output ports along the bottom;
//! * a push port is filled black, a pull port is white, both as Click's
//!   diagrams draw them; a port that was agnostic before resolution has a
//!   double border;
//! * a push connection is a solid line, a pull connection a dashed one;
//! * the members of a compound element (`outer/inner`) are drawn inside a
//!   cluster labelled with the compound's name, nested as the compounds
//!   were.
//!
//! `rclick svg` pipes the same text through Graphviz's `dot -Tsvg`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

use rclick_core::router::resolve_graph;
use rclick_core::router::{Connection, ElementInfo};
use rclick_core::spec::Processing;
use rclick_lang::FlatConfig;

use crate::{registry, Reported, Source};

/// Prints the DOT text of `source`'s graph to standard output; returns the
/// exit status.
pub fn dot(source: Source, defines: &[(String, String)]) -> i32 {
    match graph_text(source, defines) {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(Reported) => 1,
    }
}

/// Renders `source`'s graph as SVG through Graphviz's `dot` and prints it.
pub fn svg(source: Source, defines: &[(String, String)]) -> i32 {
    let Ok(text) = graph_text(source, defines) else {
        return 1;
    };
    match render_svg(&text) {
        Ok(svg) => {
            let _ = std::io::stdout().write_all(&svg);
            0
        }
        Err(e) => {
            eprintln!("rclick svg: {e}");
            1
        }
    }
}

/// Runs `dot -Tsvg` on `text`.
pub fn render_svg(text: &str) -> Result<Vec<u8>, String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!("cannot run Graphviz's `dot` ({e}); on Debian: apt-get install graphviz")
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = text.to_string();
    // Written from a thread so a large graph cannot fill both pipes.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!(
            "dot failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

fn graph_text(source: Source, defines: &[(String, String)]) -> Result<String, Reported> {
    let flat = crate::load(&source, defines)?.flat;
    to_dot(&flat).map_err(|msgs| {
        for m in msgs {
            eprintln!("{m}");
        }
        Reported
    })
}

/// The DOT text of `flat`'s graph, or the build's error messages when its
/// ports do not resolve (unknown class, push to pull, unused port...).
pub fn to_dot(flat: &FlatConfig) -> Result<String, Vec<String>> {
    let reg = registry();
    let (info, conns) = resolve_graph(flat, &reg).map_err(|e| e.messages)?;
    Ok(render(&info, &conns))
}

/// A cluster of the drawing: the elements directly in it and its
/// sub-clusters, by compound name.
#[derive(Default)]
struct Cluster {
    elements: Vec<usize>,
    children: BTreeMap<String, Cluster>,
}

fn render(info: &[ElementInfo], conns: &[Connection]) -> String {
    let mut root = Cluster::default();
    for (i, e) in info.iter().enumerate() {
        let mut c = &mut root;
        let parts: Vec<&str> = e.name.split('/').collect();
        for k in 1..parts.len() {
            c = c.children.entry(parts[..k].join("/")).or_default();
        }
        c.elements.push(i);
    }
    let mut out = String::new();
    out.push_str("digraph clickrouter {\n");
    out.push_str("  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];\n");
    out.push_str("  edge [arrowsize=0.6];\n");
    let mut next_cluster = 0;
    write_cluster(&mut out, &root, info, 1, &mut next_cluster);
    for c in conns {
        let style = match info[c.from].outputs.get(c.from_port) {
            Some(Processing::Pull) => " [style=dashed]",
            _ => "",
        };
        let _ = writeln!(
            out,
            "  {}:o{}:s -> {}:i{}:n{style};",
            quote_id(&info[c.from].name),
            c.from_port,
            quote_id(&info[c.to].name),
            c.to_port
        );
    }
    out.push_str("}\n");
    out
}

fn write_cluster(
    out: &mut String,
    c: &Cluster,
    info: &[ElementInfo],
    depth: usize,
    next: &mut usize,
) {
    let pad = "  ".repeat(depth);
    for &i in &c.elements {
        let _ = writeln!(
            out,
            "{pad}{} [label=<{}>];",
            quote_id(&info[i].name),
            label(&info[i])
        );
    }
    for (name, sub) in &c.children {
        let _ = writeln!(out, "{pad}subgraph cluster_{} {{", *next);
        *next += 1;
        let _ = writeln!(out, "{pad}  label={};", quote_id(name));
        let _ = writeln!(out, "{pad}  style=rounded; color=gray50;");
        write_cluster(out, sub, info, depth + 1, next);
        let _ = writeln!(out, "{pad}}}");
    }
}

/// The element's HTML-like label: a row of input ports, the name, a row of
/// output ports.
fn label(e: &ElementInfo) -> String {
    let last = e.name.rsplit('/').next().unwrap_or(&e.name);
    let anonymous = last
        .strip_prefix(e.class.as_str())
        .and_then(|rest| rest.strip_prefix('@'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let title = if anonymous {
        html(&e.class)
    } else {
        format!("{} :: {}", html(last), html(&e.class))
    };
    let width = e.inputs.len().max(e.outputs.len()).max(1);
    let mut s =
        String::from("<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"2\">");
    if !e.inputs.is_empty() {
        s.push_str(&port_row('i', &e.inputs, &e.input_agnostic, width));
    }
    let _ = write!(
        s,
        "<TR><TD COLSPAN=\"{}\" CELLPADDING=\"4\">{title}</TD></TR>",
        width_cols(width)
    );
    if !e.outputs.is_empty() {
        s.push_str(&port_row('o', &e.outputs, &e.output_agnostic, width));
    }
    s.push_str("</TABLE>");
    s
}

/// Port cells alternate with spacer cells so ports spread along the box.
fn width_cols(width: usize) -> usize {
    2 * width + 1
}

fn port_row(kind: char, ports: &[Processing], agnostic: &[bool], width: usize) -> String {
    let mut s = String::from("<TR>");
    // Spread the ports over the box's columns.
    let cols = width_cols(width);
    let n = ports.len();
    let gap = (cols - n) as f64 / (n + 1) as f64;
    let mut used = 0usize;
    for (p, proc) in ports.iter().enumerate() {
        let before = ((p + 1) as f64 * gap).round() as usize + p - used;
        if before > 0 {
            let _ = write!(s, "<TD COLSPAN=\"{before}\"></TD>");
            used += before;
        }
        let fill = if *proc == Processing::Pull {
            "white"
        } else {
            "black"
        };
        let border = if agnostic.get(p).copied().unwrap_or(false) {
            " STYLE=\"rounded\" BORDER=\"2\""
        } else {
            " BORDER=\"1\""
        };
        let _ = write!(
            s,
            "<TD PORT=\"{kind}{p}\" BGCOLOR=\"{fill}\"{border} CELLPADDING=\"0\" WIDTH=\"10\" HEIGHT=\"7\" FIXEDSIZE=\"TRUE\"></TD>"
        );
        used += 1;
    }
    if used < cols {
        let _ = write!(s, "<TD COLSPAN=\"{}\"></TD>", cols - used);
    }
    s.push_str("</TR>");
    s
}

fn html(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            c => o.push(c),
        }
    }
    o
}

fn quote_id(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for ch in s.chars() {
        if ch == '"' || ch == '\\' {
            o.push('\\');
        }
        o.push(ch);
    }
    o.push('"');
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(text: &str) -> FlatConfig {
        rclick_lang::parse(text, &Default::default()).expect("parses")
    }

    const COMPOUND: &str = "elementclass X { input -> q :: Queue -> u :: Unqueue -> output }
        InfiniteSource -> c :: Counter -> x :: X -> t :: Tee(2);
        t[0] -> Discard; t[1] -> Queue -> Discard;";

    #[test]
    fn elements_ports_and_connections() {
        let d = to_dot(&flat(COMPOUND)).unwrap();
        assert!(d.starts_with("digraph clickrouter {\n"), "{d}");
        // Named elements show name :: Class, anonymous ones only the class.
        assert!(d.contains(">c :: Counter<"), "{d}");
        assert!(d.contains(">InfiniteSource<"), "{d}");
        assert!(!d.contains("InfiniteSource@1 ::"), "{d}");
        // Tee has two outputs, Counter one of each.
        assert!(d.contains("PORT=\"o1\""), "{d}");
        assert!(d.contains("\"t\":o1:s -> \"Queue@6\":i0:n;"), "{d}");
        assert!(d.contains("\"c\":o0:s -> \"x/q\":i0:n;"), "{d}");
        // Every connection of the flattened router is drawn once.
        assert_eq!(d.matches(" -> ").count(), 7, "{d}");
    }

    #[test]
    fn pull_is_dashed_and_white() {
        let d = to_dot(&flat(COMPOUND)).unwrap();
        // Queue -> Unqueue inside X is a pull connection; Queue -> Discard
        // (agnostic Discard) also pulls.
        assert!(
            d.contains("\"x/q\":o0:s -> \"x/u\":i0:n [style=dashed];"),
            "{d}"
        );
        assert!(
            d.contains("\"Queue@6\":o0:s -> \"Discard@7\":i0:n [style=dashed];"),
            "{d}"
        );
        assert!(d.contains("\"c\":o0:s -> \"x/q\":i0:n;"), "{d}");
        // Discard@7's input was agnostic and became pull: white, double.
        let line = d
            .lines()
            .find(|l| l.contains("\"Discard@7\" [label"))
            .unwrap();
        assert!(
            line.contains("BGCOLOR=\"white\" STYLE=\"rounded\" BORDER=\"2\""),
            "{line}"
        );
        // Counter's ports are agnostic, resolved to push.
        let line = d.lines().find(|l| l.contains("\"c\" [label")).unwrap();
        assert!(line.contains("BGCOLOR=\"black\""), "{line}");
    }

    #[test]
    fn compounds_are_nested_clusters() {
        let d = to_dot(&flat(
            "elementclass In { input -> Counter -> output }
             elementclass Out { input -> i :: In -> output }
             InfiniteSource -> o :: Out -> Discard;",
        ))
        .unwrap();
        let outer = d.find("label=\"o\";").expect("cluster o");
        let inner = d.find("label=\"o/i\";").expect("cluster o/i");
        assert!(outer < inner, "{d}");
        assert_eq!(d.matches("subgraph cluster_").count(), 2, "{d}");
        // The Counter sits in the inner cluster, after its label.
        let counter = d.find("\"o/i/Counter@").expect("member");
        assert!(counter > inner, "{d}");
    }

    #[test]
    fn bad_configurations_give_the_build_errors() {
        let e = to_dot(&flat("InfiniteSource -> Queue -> Queue -> Discard;")).unwrap_err();
        assert!(
            e.iter().any(|m| m.contains("pull output 0 connected to")),
            "{e:?}"
        );
        let e = to_dot(&flat("Nonesuch -> Discard;")).unwrap_err();
        assert!(
            e.iter()
                .any(|m| m.contains("unknown element class 'Nonesuch'")),
            "{e:?}"
        );
    }

    #[test]
    fn names_are_escaped() {
        assert_eq!(quote_id("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(html("<&>\""), "&lt;&amp;&gt;&quot;");
    }

    #[test]
    fn every_conf_file_draws_and_renders() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conf");
        let mut n = 0;
        let have_dot = Command::new("dot").arg("-V").output().is_ok();
        // scripts/test installs Graphviz; in CI its absence is a failure.
        assert!(
            have_dot || std::env::var_os("CI").is_none(),
            "Graphviz's dot is missing"
        );
        for entry in std::fs::read_dir(root).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("click") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let flat = rclick_lang::parse(&text, &Default::default())
                .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            let d = to_dot(&flat).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
            assert_eq!(d.matches("[label=<").count(), flat.elements.len());
            if have_dot {
                let svg = render_svg(&d).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(String::from_utf8_lossy(&svg).contains("<svg"));
            }
            n += 1;
        }
        assert!(n >= 10, "found {n} configurations");
    }
}
