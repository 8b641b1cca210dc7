//! Unparsing a [`FlatConfig`] in the format of Click's `Router::unparse`
//! (the `flatconfig` handler and `click -o-`).

use crate::confparse::quote;
use crate::FlatConfig;
use std::fmt::Write;

impl FlatConfig {
    /// Click's canonical flat text: a `require(...)` line if any, element
    /// declarations in order, then connections printed as chains.
    pub fn unparse(&self) -> String {
        let mut out = String::new();
        if !self.requirement_pairs.is_empty() {
            let reqs: Vec<String> = self
                .requirement_pairs
                .iter()
                .map(|(t, v)| {
                    if v.is_empty() {
                        t.clone()
                    } else {
                        format!("{} {}", t, quote(v))
                    }
                })
                .collect();
            let _ = write!(out, "require({});\n\n", reqs.join(", "));
        }
        for e in &self.elements {
            let _ = write!(out, "{} :: {}", e.name, e.class);
            if !e.config.is_empty() {
                let _ = write!(out, "({})", e.config);
            }
            out.push_str(";\n");
        }
        if !self.elements.is_empty() {
            out.push('\n');
        }
        self.unparse_connections(&mut out);
        out
    }

    fn unparse_connections(&self, out: &mut String) {
        let conns = &self.connections;
        let nc = conns.len();
        let name = |i: usize| self.elements.get(i).map_or("?", |e| e.name.as_str());
        // chain each connection into [0] to a connection leaving that port
        let mut by_from: std::collections::HashMap<(usize, usize), Vec<usize>> = Default::default();
        for (d, c) in conns.iter().enumerate() {
            by_from.entry((c.from, c.from_port)).or_default().push(d);
        }
        let mut next: Vec<Option<usize>> = vec![None; nc];
        let mut start = vec![true; nc];
        for ci in 0..nc {
            let c = &conns[ci];
            if c.to_port != 0 {
                continue;
            }
            let mut result = None;
            if let Some(ds) = by_from.get(&(c.to, 0)) {
                for &d in ds {
                    if d != ci {
                        result = Some(d);
                        if conns[d].to_port == 0 {
                            break;
                        }
                    }
                }
            }
            if let Some(r) = result {
                next[ci] = Some(r);
                start[r] = false;
            }
        }
        let mut used = vec![false; nc];
        loop {
            for ci in 0..nc {
                if used[ci] || !start[ci] {
                    continue;
                }
                let hf = &conns[ci];
                out.push_str(name(hf.from));
                if hf.from_port != 0 {
                    let _ = write!(out, " [{}]", hf.from_port);
                }
                let mut d = Some(ci);
                while let Some(dd) = d {
                    if used[dd] {
                        break;
                    }
                    out.push_str(if dd == ci { " -> " } else { "\n    -> " });
                    let ht = &conns[dd];
                    if ht.to_port != 0 {
                        let _ = write!(out, "[{}] ", ht.to_port);
                    }
                    out.push_str(name(ht.to));
                    used[dd] = true;
                    d = next[dd];
                }
                out.push_str(";\n");
            }
            match (0..nc).find(|&ci| !used[ci]) {
                Some(ci) => start[ci] = true,
                None => break,
            }
        }
    }
}
