//! The report as Markdown, as a self-contained HTML page with inline SVG
//! plots (no script, no external file: it can be mailed or attached),
//! and as a short text summary for the terminal.
//!
//! Both documents come from one list of [`Section`]s (title, sentences,
//! a table), so they always say the same; the HTML page adds the plots.

use crate::plot::{plot_latency, plot_loss, plot_overload, plot_throughput};
use crate::report::{DutReport, LossPoint, Report};

/// A table: header and rows of cells.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column titles.
    pub head: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new(head: &[&str], rows: Vec<Vec<String>>) -> Table {
        Table {
            head: head.iter().map(|s| s.to_string()).collect(),
            rows,
        }
    }
}

/// One part of the report.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// Heading.
    pub title: String,
    /// Sentences before the tables.
    pub text: Vec<String>,
    /// Tables.
    pub tables: Vec<Table>,
    /// An SVG plot (HTML only).
    pub plot: Option<String>,
}

fn rate(fps: f64) -> String {
    if fps >= 1e6 {
        format!("{:.3} M", fps / 1e6)
    } else if fps >= 1e3 {
        format!("{:.1} k", fps / 1e3)
    } else {
        format!("{fps:.0}")
    }
}

fn us(ns: u64) -> String {
    format!("{:.1}", ns as f64 / 1e3)
}

/// ` (before / in / after)` for a point that lost frames and has the
/// split; empty otherwise.
fn split_note(p: &LossPoint) -> String {
    match p.where_lost {
        Some(w) if w.total() > 0 => format!(" ({} / {} / {})", w.before, w.inside, w.after),
        _ => String::new(),
    }
}

fn yes_no(m: Option<bool>) -> &'static str {
    match m {
        Some(true) => "met",
        Some(false) => "not met",
        None => "not measured",
    }
}

fn duts_ok(r: &Report) -> Vec<&DutReport> {
    r.duts.iter().collect()
}

/// The report's sections, in order.
pub fn sections(r: &Report) -> Vec<Section> {
    let mut v = Vec::new();
    let load = |l: &[f64]| {
        l.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    v.push(Section {
        title: "Run".into(),
        text: vec![
            format!(
                "{}, profile **{}**, started {}, took {:.0} s.",
                r.tool, r.profile, r.started, r.elapsed_s
            ),
            format!(
                "Machine: {} processors ({}), Linux {}; load average (1/5/15 min) {} before, {} after. \
                 The machine is shared: other work running at the same time lowers every figure and adds noise.",
                r.machine.cpus,
                r.machine.cpu_model,
                r.machine.kernel,
                load(&r.machine.load_before),
                load(&r.machine.load_after)
            ),
        ],
        ..Section::default()
    });
    let m = &r.method;
    let mut text = vec![format!(
        "Trials of {} s, {} s wait for late frames, {} flows; throughput by bisection to {:.1} % \
         (at most {} trials), PDR at {:.2} % loss; generator on CPU {}, device under test on CPU {}.",
        m.trial_s,
        m.drain_s,
        m.flows,
        m.resolution * 100.0,
        m.max_trials,
        m.pdr_loss_ratio * 100.0,
        m.generator_cpu,
        m.dut_cpu
    )];
    text.extend(m.notes.iter().cloned());
    v.push(Section {
        title: "Method".into(),
        text,
        ..Section::default()
    });
    v.push(Section {
        title: "Targets".into(),
        tables: vec![Table {
            head: vec!["target".into(), "goal".into(), "measured".into(), "".into()],
            rows: r
                .targets
                .iter()
                .map(|t| {
                    vec![
                        t.name.clone(),
                        t.goal.clone(),
                        t.value.clone(),
                        yes_no(t.met).into(),
                    ]
                })
                .collect(),
        }],
        ..Section::default()
    });
    let duts = duts_ok(r);
    // Throughput.
    let mut head = vec!["frame size".to_string(), "generator ceiling".to_string()];
    for d in &duts {
        head.push(format!("{} NDR", d.name));
        head.push(format!("{} PDR", d.name));
    }
    let rows = m
        .sizes
        .iter()
        .map(|&s| {
            let mut row = vec![format!("{s} B"), r.ceiling(s).map_or("-".into(), rate)];
            for d in &duts {
                match d.throughput.iter().find(|t| t.size == s) {
                    Some(t) => {
                        row.push(format!(
                            "{} ({:.0} Mbit/s){}",
                            rate(t.ndr_fps),
                            crate::frame::frame_bits_per_second(t.ndr_fps, s) / 1e6,
                            if t.at_ceiling { " = ceiling" } else { "" }
                        ));
                        row.push(rate(t.pdr_fps));
                    }
                    None => {
                        row.push("-".into());
                        row.push("-".into());
                    }
                }
            }
            row
        })
        .collect();
    v.push(Section {
        title: "Throughput (frames/s)".into(),
        text: vec![
            "NDR: the highest rate with no frame lost (RFC 2544 §26.1); PDR: the highest with at most the \
             PDR loss ratio. Mbit/s counts frame bytes with the FCS. \"= ceiling\": the device kept up with \
             everything the generator could offer: a limit of the generator, not of the device."
                .into(),
        ],
        tables: vec![Table { head, rows }],
        plot: Some(plot_throughput(r)),
    });
    // Latency.
    let mut rows = Vec::new();
    for d in &duts {
        for l in &d.latency {
            let mut row = vec![d.name.clone(), format!("{} B", l.size), rate(l.rate_fps)];
            match &l.summary {
                Some(s) => row.extend([
                    us(s.min_ns),
                    us(s.p50_ns),
                    us(s.p99_ns),
                    us(s.p999_ns),
                    us(s.max_ns),
                ]),
                None => row.extend(vec!["-".to_string(); 5]),
            }
            row.push(format!("{} / {} / {}", l.lost, l.reordered, l.duplicates));
            rows.push(row);
        }
    }
    v.push(Section {
        title: "Latency at the throughput rate (µs, one way)".into(),
        text: vec![
            "Every frame of one trial at the NDR, kernel receive stamp minus transmit stamp; \
             percentiles from an HDR-style histogram (0.8 % precision)."
                .into(),
        ],
        tables: vec![Table::new(
            &[
                "device",
                "size",
                "rate",
                "min",
                "median",
                "99th",
                "99.9th",
                "max",
                "lost / reordered / duplicated",
            ],
            rows,
        )],
        plot: Some(plot_latency(r)),
    });
    // Frame loss.
    let mut tables = Vec::new();
    for &s in &m.sizes {
        let mut head = vec![format!("{s} B: load (% of ceiling)")];
        head.extend(duts.iter().map(|d| format!("{} loss", d.name)));
        let pcts: Vec<f64> = duts
            .iter()
            .flat_map(|d| d.frame_loss.iter().filter(|c| c.size == s))
            .flat_map(|c| c.points.iter().map(|p| p.percent))
            .fold(Vec::new(), |mut acc, p| {
                if !acc.contains(&p) {
                    acc.push(p);
                }
                acc
            });
        if pcts.is_empty() {
            continue;
        }
        let rows = pcts
            .iter()
            .map(|&pct| {
                let mut row = vec![format!(
                    "{pct:.0} % ({})",
                    r.ceiling(s).map_or("-".into(), |c| rate(c * pct / 100.0))
                )];
                for d in &duts {
                    row.push(
                        d.frame_loss
                            .iter()
                            .find(|c| c.size == s)
                            .and_then(|c| c.points.iter().find(|p| p.percent == pct))
                            .map_or("-".into(), |p| {
                                format!("{:.3} %{}", p.loss_ratio * 100.0, split_note(p))
                            }),
                    );
                }
                row
            })
            .collect();
        tables.push(Table { head, rows });
    }
    v.push(Section {
        title: "Frame loss rate against offered load".into(),
        text: vec![
            "RFC 2544 §26.3: lost frames over frames sent, one trial per load. Where frames were lost, \
             the frames lost before / in / after the device follow in brackets (from the kernel's \
             counters of the testbed's interfaces: *before*, the device's receiving interface never \
             took them; *in*, it took them and never sent them on; *after*, the device sent them and \
             the generator's receiver missed them, a generator limit)."
                .into(),
        ],
        tables,
        plot: Some(plot_loss(r)),
    });
    // Back-to-back.
    let rows = duts
        .iter()
        .flat_map(|d| {
            d.back_to_back.iter().map(|b| {
                vec![
                    d.name.clone(),
                    format!("{} B", b.size),
                    format!(
                        "{}{}",
                        b.frames,
                        if b.frames >= b.max_tried {
                            " (all tried)"
                        } else {
                            ""
                        }
                    ),
                    rate(b.burst_fps),
                ]
            })
        })
        .collect();
    v.push(Section {
        title: "Back-to-back frames".into(),
        text: vec![
            "RFC 2544 §26.4: the longest burst at the generator's fastest rate that passes without loss \
             (bisection on the length; \"all tried\": the longest burst tried passed)."
                .into(),
        ],
        tables: vec![Table::new(&["device", "size", "frames", "burst rate (frames/s)"], rows)],
        ..Section::default()
    });
    // Overload.
    let mut rows = Vec::new();
    for d in &duts {
        if let Some(o) = &d.overload {
            for p in &o.points {
                rows.push(vec![
                    d.name.clone(),
                    format!("{:.0} %", p.percent),
                    rate(p.offered_fps),
                    rate(p.delivered_fps),
                    format!("{:.1} %", p.delivered_fps / o.ndr_fps * 100.0),
                    p.where_lost.map_or("-".into(), |w| {
                        format!("{} / {} / {}", w.before, w.inside, w.after)
                    }),
                ]);
            }
        }
    }
    let rec: Vec<String> =
        duts.iter()
            .filter_map(|d| {
                d.overload.as_ref().map(|o| {
                    format!(
                    "{}: after {} of {}-byte frames for the first half of a trial, then {}: {}.",
                    d.name,
                    rate(o.overload_fps),
                    o.size,
                    rate(o.after_fps),
                    o.recovery_ms.map_or("never lossless again within the trial".into(), |m| {
                        format!("lossless again {m:.0} ms after the overload stopped")
                    })
                )
                })
            })
            .collect();
    let mut text = vec![
        "Offered load above the NDR (as % of it, capped at the generator's ceiling): a router that does not \
         livelock keeps delivering about its NDR. System recovery (RFC 2544 §26.9):"
            .into(),
    ];
    text.extend(rec);
    v.push(Section {
        title: "Overloaded behaviour and system recovery".into(),
        text,
        tables: vec![Table::new(
            &[
                "device",
                "load (% of NDR)",
                "offered",
                "delivered",
                "delivered / NDR",
                "frames lost before / in / after the device",
            ],
            rows,
        )],
        plot: Some(plot_overload(r)),
    });
    // Restart.
    let mut text = Vec::new();
    let rows = duts
        .iter()
        .map(|d| {
            let x = d.restart.clone().unwrap_or_default();
            for n in &x.notes {
                let n = format!("{}: {n}", d.name);
                if !text.contains(&n) {
                    text.push(n);
                }
            }
            vec![
                d.name.clone(),
                x.start_ms.map_or("-".into(), |m| format!("{m:.1}")),
                x.hotswap_gap_ms.map_or("-".into(), |m| format!("{m:.1}")),
                x.hotswap_lost.map_or("-".into(), |n| n.to_string()),
            ]
        })
        .collect();
    v.push(Section {
        title: "Restart behaviour (RFC 2544 §26.10)".into(),
        text,
        tables: vec![Table::new(
            &[
                "device",
                "start to first forwarded frame (ms)",
                "hot-swap: longest gap (ms)",
                "hot-swap: frames lost",
            ],
            rows,
        )],
        ..Section::default()
    });
    // Single frame.
    let rows = duts
        .iter()
        .flat_map(|d| {
            d.single_frame.iter().map(|s| {
                vec![
                    d.name.clone(),
                    format!("{} B", s.size),
                    format!("{} of {}", s.forwarded, s.sent),
                    s.latency_us
                        .iter()
                        .map(|x| format!("{x:.0}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                ]
            })
        })
        .collect();
    v.push(Section {
        title: "Single-frame behaviour".into(),
        text: vec![format!(
            "One frame after {} ms without traffic, repeated: forwarded, and its one-way latency.",
            duts.iter()
                .flat_map(|d| d.single_frame.first())
                .map(|s| s.idle_ms)
                .next()
                .unwrap_or(0.0)
        )],
        tables: vec![Table::new(
            &["device", "size", "forwarded", "latency (µs)"],
            rows,
        )],
        ..Section::default()
    });
    // Transfers.
    let rows = duts
        .iter()
        .flat_map(|d| {
            d.transfers.iter().map(|t| {
                vec![
                    d.name.clone(),
                    t.protocol.clone(),
                    format!("{} MB", t.bytes >> 20),
                    match (&t.seconds, &t.error) {
                        (Some(s), _) => {
                            format!("{s:.2} s ({:.0} Mbit/s)", t.bytes as f64 * 8.0 / s / 1e6)
                        }
                        (None, Some(e)) => format!("failed: {e}"),
                        _ => "-".into(),
                    },
                ]
            })
        })
        .collect();
    v.push(Section {
        title: "File transfers through the router".into(),
        text: vec![
            "As the paper's §5.7: HTTP (Python's http.server in h1, curl in h0) and passive FTP (pyftpdlib in \
             h0, curl in h1) of a file of random bytes, checked byte for byte; curl's total time."
                .into(),
        ],
        tables: vec![Table::new(&["device", "protocol", "size", "time"], rows)],
        ..Section::default()
    });
    // Not run, errors, notes.
    let mut text: Vec<String> = r.not_run.iter().map(|s| format!("Not run: {s}")).collect();
    for d in &duts {
        text.push(format!("{}: {} (`{}`).", d.name, d.description, d.command));
        if let Some(e) = &d.error {
            text.push(format!("{}: stopped early: {e}", d.name));
        }
        for n in &d.notes {
            text.push(format!("{}: {n}", d.name));
        }
    }
    v.push(Section {
        title: "Devices, skipped tests and remarks".into(),
        text,
        ..Section::default()
    });
    v
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The report as Markdown.
pub fn markdown(r: &Report) -> String {
    let mut out = String::from("# RFC 2544 benchmark report\n");
    for s in sections(r) {
        out.push_str(&format!("\n## {}\n\n", s.title));
        for t in &s.text {
            out.push_str(t);
            out.push_str("\n\n");
        }
        for t in &s.tables {
            out.push_str(&format!(
                "| {} |\n|{}\n",
                t.head
                    .iter()
                    .map(|h| md_cell(h))
                    .collect::<Vec<_>>()
                    .join(" | "),
                "---|".repeat(t.head.len())
            ));
            for row in &t.rows {
                out.push_str(&format!(
                    "| {} |\n",
                    row.iter()
                        .map(|c| md_cell(c))
                        .collect::<Vec<_>>()
                        .join(" | ")
                ));
            }
            out.push('\n');
        }
    }
    out
}

/// Escapes text for HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Markdown's `**bold**` and `` `code` `` in a sentence, as HTML.
fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut bold = false;
    let mut code = false;
    let e = esc(s);
    let mut it = e.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '*' if it.peek() == Some(&'*') && !code => {
                it.next();
                out.push_str(if bold { "</b>" } else { "<b>" });
                bold = !bold;
            }
            '`' => {
                out.push_str(if code { "</code>" } else { "<code>" });
                code = !code;
            }
            c => out.push(c),
        }
    }
    if bold {
        out.push_str("</b>");
    }
    if code {
        out.push_str("</code>");
    }
    out
}

/// The report as one HTML page with inline SVG plots.
pub fn html(r: &Report) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>RFC 2544 benchmark report</title><style>\
         body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em;color:#222}\
         table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:right}\
         th{background:#eee}td:first-child{text-align:left}code{background:#f4f4f4}\
         svg{margin:.5em 0;max-width:100%;height:auto}</style></head><body>\n<h1>RFC 2544 benchmark report</h1>\n",
    );
    for s in sections(r) {
        out.push_str(&format!("<h2>{}</h2>\n", esc(&s.title)));
        for t in &s.text {
            out.push_str(&format!("<p>{}</p>\n", inline(t)));
        }
        if let Some(p) = &s.plot {
            out.push_str(p);
            out.push('\n');
        }
        for t in &s.tables {
            out.push_str("<table><tr>");
            for h in &t.head {
                out.push_str(&format!("<th>{}</th>", esc(h)));
            }
            out.push_str("</tr>\n");
            for row in &t.rows {
                out.push_str("<tr>");
                for c in row {
                    out.push_str(&format!("<td>{}</td>", esc(c)));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// A few lines for the terminal: throughput and targets.
pub fn summary(r: &Report) -> String {
    let mut s = String::new();
    for d in &r.duts {
        s.push_str(&format!("{:8}", d.name));
        for t in &d.throughput {
            s.push_str(&format!(
                "  {} B: {} fps{}",
                t.size,
                rate(t.ndr_fps),
                if t.at_ceiling { "*" } else { "" }
            ));
        }
        if let Some(e) = &d.error {
            s.push_str(&format!(
                "  (stopped early: {})",
                e.lines().next().unwrap_or("")
            ));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "generator ceiling: {} (* = NDR at the ceiling)\n",
        r.generator
            .iter()
            .map(|c| format!("{} B: {} fps", c.size, rate(c.fps)))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    for t in &r.targets {
        s.push_str(&format!("{}: {} — {}\n", yes_no(t.met), t.name, t.value));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist::Histogram;
    use crate::report::*;

    fn sample() -> Report {
        let mut h = Histogram::new();
        for v in [20_000u64, 25_000, 30_000, 900_000] {
            h.record(v);
        }
        let dut = |name: &str, ndr: f64| DutReport {
            name: name.into(),
            description: format!("{name} <router>"),
            command: "click conf|x".into(),
            throughput: vec![
                Throughput {
                    size: 64,
                    ndr_fps: ndr,
                    pdr_fps: ndr * 1.1,
                    ceiling_fps: 500_000.0,
                    at_ceiling: ndr >= 500_000.0,
                    converged: true,
                    ..Throughput::default()
                },
                Throughput {
                    size: 1518,
                    ndr_fps: ndr / 2.0,
                    pdr_fps: ndr / 2.0,
                    ceiling_fps: 400_000.0,
                    ..Throughput::default()
                },
            ],
            latency: vec![Latency {
                size: 64,
                rate_fps: ndr,
                summary: h.summary(),
                ..Latency::default()
            }],
            frame_loss: vec![LossCurve {
                size: 64,
                points: vec![
                    LossPoint {
                        percent: 50.0,
                        offered_fps: 250_000.0,
                        delivered_fps: 250_000.0,
                        loss_ratio: 0.0,
                        where_lost: None,
                    },
                    LossPoint {
                        percent: 100.0,
                        offered_fps: 500_000.0,
                        delivered_fps: ndr,
                        loss_ratio: 0.4,
                        where_lost: Some(LossSplit {
                            before: 0,
                            inside: 90_000,
                            after: 10,
                        }),
                    },
                ],
            }],
            overload: Some(Overload {
                size: 64,
                ndr_fps: ndr,
                points: vec![LossPoint {
                    percent: 200.0,
                    offered_fps: 2.0 * ndr,
                    delivered_fps: ndr,
                    loss_ratio: 0.5,
                    where_lost: Some(LossSplit {
                        before: 1,
                        inside: 2,
                        after: 3,
                    }),
                }],
                overload_fps: 2.0 * ndr,
                after_fps: ndr / 2.0,
                recovery_ms: Some(12.0),
            }),
            restart: Some(Restart {
                start_ms: Some(28.0),
                ..Restart::default()
            }),
            transfers: vec![Transfer {
                protocol: "HTTP".into(),
                bytes: 10 << 20,
                seconds: Some(0.5),
                error: None,
            }],
            ..DutReport::default()
        };
        Report {
            tool: "rclick rfc2544 test".into(),
            profile: "quick".into(),
            method: Method {
                sizes: vec![64, 1518],
                ..Method::default()
            },
            generator: vec![
                Ceiling {
                    size: 64,
                    fps: 500_000.0,
                    send_fps: 600_000.0,
                },
                Ceiling {
                    size: 1518,
                    fps: 400_000.0,
                    send_fps: 400_000.0,
                },
            ],
            duts: vec![dut("rclick", 300_000.0), dut("click", 40_000.0)],
            not_run: vec!["kernel: because".into()],
            targets: vec![Target {
                name: "x".into(),
                goal: "y".into(),
                value: "z".into(),
                met: Some(true),
            }],
            ..Report::default()
        }
    }

    #[test]
    fn json_round_trips() {
        let r = sample();
        let back = Report::from_json(&r.to_json()).unwrap();
        assert_eq!(back.to_json(), r.to_json());
        assert_eq!(back.dut("click").unwrap().ndr(64), Some(40_000.0));
        assert_eq!(back.ceiling(1518), Some(400_000.0));
        assert!(Report::from_json("{").is_err());
    }

    #[test]
    fn markdown_has_every_section_and_figure() {
        let md = markdown(&sample());
        for want in [
            "## Throughput",
            "## Latency",
            "## Frame loss",
            "## Back-to-back",
            "## Overloaded",
            "## Restart",
            "## Single-frame",
            "## File transfers",
            "300.0 k (154 Mbit/s)",
            "40.0 k",
            "Not run: kernel: because",
            "| x | y | z | met |",
            "lossless again 12 ms",
            "`click conf|x`",
            "40.000 % (0 / 90000 / 10)",
            "| 1 / 2 / 3 |",
        ] {
            assert!(md.contains(want), "missing {want:?} in\n{md}");
        }
        // Tables are well formed: every row has the header's columns.
        for block in md.split("\n\n").filter(|b| b.starts_with('|')) {
            let cols: Vec<usize> = block
                .lines()
                .map(|l| l.matches(" | ").count() + l.matches("---|").count())
                .collect();
            let head = block.lines().next().unwrap().matches(" | ").count();
            for l in block.lines().skip(2) {
                assert_eq!(l.matches(" | ").count(), head, "{l} in {block}, {cols:?}");
            }
        }
    }

    #[test]
    fn html_is_self_contained_with_four_plots() {
        let h = html(&sample());
        assert!(h.starts_with("<!DOCTYPE html>"));
        assert_eq!(h.matches("<svg ").count(), 4);
        assert_eq!(h.matches("</svg>").count(), 4);
        assert!(!h.contains("<script"));
        assert!(!h.contains("src=\"http"));
        assert!(!h.contains("href=\"http"));
        assert!(h.contains("rclick &lt;router&gt;"), "escaped");
        assert!(h.contains("<b>quick</b>"));
        assert!(h.contains("generator ceiling"));
        // Every polyline's coordinates are finite numbers.
        assert!(!h.contains("NaN") && !h.contains("inf"));
    }

    #[test]
    fn empty_reports_render() {
        let empty = Report::default();
        assert!(html(&empty).contains("</html>"));
        assert!(markdown(&empty).contains("# RFC 2544"));
        assert_eq!(summary(&empty).lines().count(), 1);
    }

    #[test]
    fn summary_lists_devices_and_targets() {
        let s = summary(&sample());
        assert!(s.contains("rclick"));
        assert!(s.contains("64 B: 300.0 k fps"));
        assert!(s.contains("met: x — z"));
    }
}
