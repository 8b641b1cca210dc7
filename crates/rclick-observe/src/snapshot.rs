//! What HTTPServer reads from the router: the graph, the handlers, and
//! every element's counters at one moment. Collected on the router's
//! thread through handlers only (`Ctx::call_read`), so the data path is
//! the same whether anyone watches or not; rates are differences of two
//! snapshots, made by whoever reads them (the page, Prometheus).

use rclick_core::spec::Processing;
use rclick_core::Ctx;
use serde::Serialize;

/// The counters a snapshot reads, where an element has them: handler
/// name, and whether it is a gauge (a level) rather than a counter.
pub const COUNTERS: &[(&str, bool)] = &[
    ("count", false),
    ("byte_count", false),
    ("drops", false),
    ("length", true),
    ("highwater_length", true),
    ("capacity", true),
];

/// One element, as drawn.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GraphElement {
    /// Its name.
    pub name: String,
    /// Its class.
    pub class: String,
    /// Its configuration string now.
    pub config: String,
    /// The file it was declared in.
    pub file: String,
    /// The line it was declared on.
    pub line: u32,
    /// Each input: `push` or `pull`.
    pub inputs: Vec<&'static str>,
    /// Each output.
    pub outputs: Vec<&'static str>,
}

/// One connection.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct GraphConnection {
    /// Upstream element's index in [`Graph::elements`].
    pub from: usize,
    /// Its output.
    pub from_port: usize,
    /// Downstream element's index.
    pub to: usize,
    /// Its input.
    pub to_port: usize,
}

/// The router's graph and its configuration text.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Graph {
    /// Changes at each hot swap.
    pub generation: u64,
    /// The elements, in the router's order.
    pub elements: Vec<GraphElement>,
    /// The connections.
    pub connections: Vec<GraphConnection>,
    /// The configuration as the user gave it.
    pub source: String,
}

/// One element's counters.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ElementStats {
    /// Its name.
    pub name: String,
    /// Its class.
    pub class: String,
    /// Values of the [`COUNTERS`] it has.
    pub values: Vec<(&'static str, u64)>,
    /// Drops by reason (the `drop_details` handler).
    pub drop_reasons: Vec<(String, u64)>,
    /// With profiling on: packets seen and nanoseconds per packet.
    pub cost: Option<(u64, f64)>,
}

impl ElementStats {
    /// A counter's value, if the element has it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.values.iter().find(|(n, _)| *n == name).map(|v| v.1)
    }
}

/// Every element's counters at one moment.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Snapshot {
    /// Changes at each hot swap.
    pub generation: u64,
    /// The router's clock, in seconds.
    pub time: f64,
    /// Whether the cost profile is on.
    pub profiling: bool,
    /// Router threads.
    pub threads: usize,
    /// Elements with each thread as their home.
    pub thread_elements: Vec<usize>,
    /// Elements with tasks scheduled now, per home thread.
    pub thread_tasks: Vec<usize>,
    /// The elements.
    pub elements: Vec<ElementStats>,
}

/// One handler as listed.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct HandlerEntry {
    /// Its name (without the element).
    pub name: String,
    /// Readable.
    pub read: bool,
    /// Writable.
    pub write: bool,
}

/// An element's handlers (`element` empty: the global ones).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ElementHandlers {
    /// The element.
    pub element: String,
    /// Its class.
    pub class: String,
    /// Its visible handlers.
    pub handlers: Vec<HandlerEntry>,
}

/// Every visible handler.
pub type HandlerList = Vec<ElementHandlers>;

fn processing(p: &Processing) -> &'static str {
    match p {
        Processing::Push => "push",
        Processing::Pull => "pull",
        Processing::Agnostic => "agnostic",
    }
}

/// A readable handler's value, if it exists and takes no parameter.
fn read_plain(cx: &mut Ctx, spec: &str) -> Option<String> {
    let f = cx.handler_flags(spec)?;
    if !f.read || f.private || f.read_param {
        return None;
    }
    cx.call_read(spec, "").ok()
}

/// The first word of a handler value as a number.
pub fn leading_u64(v: &str) -> Option<u64> {
    let w = v.split_whitespace().next()?;
    w.parse::<u64>().ok().or_else(|| {
        w.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|x| x as u64)
    })
}

/// `drop_details`: lines `COUNT<TAB>reason`.
pub fn parse_drop_details(v: &str) -> Vec<(String, u64)> {
    v.lines()
        .filter_map(|l| {
            let (n, r) = l.split_once(char::is_whitespace)?;
            Some((r.trim().to_string(), n.trim().parse().ok()?))
        })
        .collect()
}

/// `ELEMENT.cost` with profiling on: `packets N` and `ns_per_packet X`.
pub fn parse_cost(v: &str) -> Option<(u64, f64)> {
    let mut packets = None;
    let mut ns = None;
    for l in v.lines() {
        match l.split_once(' ') {
            Some(("packets", n)) => packets = n.trim().parse().ok(),
            Some(("ns_per_packet", n)) => ns = n.trim().parse().ok(),
            _ => {}
        }
    }
    Some((packets?, ns?))
}

/// The graph, read on the router's thread. `me` is the calling element,
/// whose own handlers cannot be called from inside it.
pub fn graph(cx: &mut Ctx, generation: u64) -> Graph {
    let me = cx.id();
    let mut elements = Vec::with_capacity(cx.nelements());
    for e in 0..cx.nelements() {
        let info = cx.element_info(e).clone();
        let config = if e == me {
            String::new()
        } else {
            cx.call_read(&format!("{}.config", info.name), "")
                .unwrap_or_default()
        };
        elements.push(GraphElement {
            name: info.name,
            class: info.class,
            config,
            file: info.landmark.file.to_string(),
            line: info.landmark.line,
            inputs: info.inputs.iter().map(processing).collect(),
            outputs: info.outputs.iter().map(processing).collect(),
        });
    }
    let connections = cx
        .connections()
        .iter()
        .map(|c| GraphConnection {
            from: c.from,
            from_port: c.from_port,
            to: c.to,
            to_port: c.to_port,
        })
        .collect();
    Graph {
        generation,
        elements,
        connections,
        source: cx.source_text().to_string(),
    }
}

/// Every element's counters now.
pub fn snapshot(cx: &mut Ctx, generation: u64) -> Snapshot {
    let me = cx.id();
    let profiling = read_plain(cx, "profile").is_some_and(|v| v.trim() == "true");
    let threads = cx.nthreads().max(1);
    let mut thread_elements = vec![0; threads];
    let mut thread_tasks = vec![0; threads];
    let mut elements = Vec::with_capacity(cx.nelements());
    for e in 0..cx.nelements() {
        let info = cx.element_info(e);
        let (name, class) = (info.name.clone(), info.class.clone());
        let mut st = ElementStats {
            name: name.clone(),
            class,
            values: Vec::new(),
            drop_reasons: Vec::new(),
            cost: None,
        };
        if e != me {
            for &(h, _) in COUNTERS {
                if let Some(v) =
                    read_plain(cx, &format!("{name}.{h}")).and_then(|v| leading_u64(&v))
                {
                    st.values.push((h, v));
                }
            }
            if let Some(v) = read_plain(cx, &format!("{name}.drop_details")) {
                st.drop_reasons = parse_drop_details(&v);
            }
            if profiling {
                st.cost = read_plain(cx, &format!("{name}.cost")).and_then(|v| parse_cost(&v));
            }
        }
        let home = read_plain(cx, &format!("{name}.home_thread"))
            .and_then(|v| v.trim().parse::<usize>().ok());
        if let Some(t) = home.filter(|&t| t < threads) {
            thread_elements[t] += 1;
            if read_plain(cx, &format!("{name}.scheduled")).is_some_and(|v| v.trim() == "true") {
                thread_tasks[t] += 1;
            }
        }
        elements.push(st);
    }
    Snapshot {
        generation,
        time: cx.now().as_secs_f64(),
        profiling,
        threads,
        thread_elements,
        thread_tasks,
        elements,
    }
}

/// Every visible handler, global ones first.
pub fn handler_list(cx: &mut Ctx) -> HandlerList {
    let mut out = Vec::new();
    let globals = read_plain(cx, "handlers").unwrap_or_default();
    out.push(ElementHandlers {
        element: String::new(),
        class: String::new(),
        handlers: entries(cx, "", &globals),
    });
    let me = cx.id();
    for e in 0..cx.nelements() {
        let info = cx.element_info(e);
        let (name, class) = (info.name.clone(), info.class.clone());
        let listed = if e == me {
            String::new()
        } else {
            read_plain(cx, &format!("{name}.handlers")).unwrap_or_default()
        };
        let handlers = entries(cx, &format!("{name}."), &listed);
        out.push(ElementHandlers {
            element: name,
            class,
            handlers,
        });
    }
    out
}

fn entries(cx: &mut Ctx, prefix: &str, listed: &str) -> Vec<HandlerEntry> {
    listed
        .lines()
        .filter_map(|l| {
            let name = l.split('\t').next()?.trim();
            let f = cx.handler_flags(&format!("{prefix}{name}"))?;
            (!f.private && !name.is_empty()).then(|| HandlerEntry {
                name: name.to_string(),
                read: f.read,
                write: f.write,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_from_handler_text() {
        assert_eq!(leading_u64("42\n"), Some(42));
        assert_eq!(leading_u64(" 7 packets"), Some(7));
        assert_eq!(leading_u64("3.9"), Some(3));
        assert_eq!(leading_u64("-1"), None);
        assert_eq!(leading_u64("nan"), None);
        assert_eq!(leading_u64(""), None);
        assert_eq!(leading_u64("true"), None);
    }

    #[test]
    fn drop_details_and_costs() {
        assert_eq!(
            parse_drop_details("3\tno route\n0\ttoo big\nbad line\n"),
            vec![("no route".to_string(), 3), ("too big".to_string(), 0)]
        );
        assert_eq!(
            parse_cost("packets 10\ncalls 2\nself_ns 50\ninclusive_ns 60\nns_per_packet 5.00"),
            Some((10, 5.0))
        );
        assert_eq!(parse_cost("packets 0\ncalls 0"), None);
        assert_eq!(parse_cost("profiling is off"), None);
    }
}
