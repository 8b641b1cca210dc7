//! Compound element expansion and connection-tunnel resolution: turns the
//! parsed file into a [`FlatConfig`], following the order and naming of
//! Click's userlevel `Lexer::create_router`.

use crate::confparse::{keyword, split_args};
use crate::parser::{deanonymize, port_signature, ClassDef, ClassId, Compound, EKind, PConn};
use crate::vars::{expand, Budget, Env};
use crate::{Diagnostic, FlatConfig, FlatConnection, FlatElement, Landmark, Limits};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// Expansion refuses to nest compounds deeper than this.
const MAX_EXPANSION_DEPTH: usize = 100;
/// Expansion stops creating elements beyond this many.
pub(crate) const MAX_ELEMENTS: usize = 100_000;
/// Expansion stops creating connections beyond this many, and the
/// flattened configuration keeps no more than this many.
pub(crate) const MAX_CONNECTIONS: usize = 1_000_000;
/// Variable expansion of a whole configuration produces at most this many
/// bytes (each substitution charged once per level it passes through).
pub(crate) const MAX_EXPANSION_BYTES: usize = 128 << 20;

/// `n` bytes as the expansion error prints them: whole MiB, or bytes.
fn bytes_text(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum FKind {
    Tunnel,
    Class(ClassId),
    Error,
}

type Port = (usize, usize);

#[derive(Clone)]
enum EndState {
    InProgress,
    Done(Vec<Port>),
}

struct Flattener<'a> {
    classes: &'a [ClassDef],
    /// Every class's name, which generated element names avoid.
    class_names: HashSet<&'a str>,
    names: Vec<String>,
    kinds: Vec<FKind>,
    configs: Vec<String>,
    landmarks: Vec<Landmark>,
    map: HashMap<String, usize>,
    conns: Vec<PConn>,
    nin: Vec<usize>,
    nout: Vec<usize>,
    /// Tunnel element used as an input end -> its partner output end.
    pair_in: HashMap<usize, usize>,
    /// Tunnel element used as an output end -> its partner input end.
    pair_out: HashMap<usize, usize>,
    correspond: HashMap<(usize, usize, bool), Vec<Port>>,
    ends: HashMap<(usize, usize, bool), EndState>,
    diags: Vec<Diagnostic>,
    too_many: bool,
    /// Whether the connections bound has been reported.
    too_many_conns: bool,
    /// What variable expansion may still produce.
    budget: Budget,
    /// The bounds (for the messages when they bite).
    limits: Limits,
}

/// Click's `cp_assign_arguments` for compound formals: returns the formal
/// values if `args` fit the compound's parameters.
pub(crate) fn assign_arguments(args: &[String], c: &Compound) -> Option<Vec<String>> {
    let keys = &c.scope_values[..c.nformals];
    let positional_only = matches!(keys.last().map(String::as_str), None | Some(""));
    if positional_only {
        return if args.len() == keys.len() {
            Some(args.to_vec())
        } else {
            None
        };
    }
    let ignore_rest = keys.last().is_some_and(|k| k == "__REST__");
    let nvalues = if ignore_rest {
        keys.len() - 1
    } else {
        keys.len()
    };
    let npositional = keys[..nvalues].iter().take_while(|k| k.is_empty()).count();
    let nrequired = npositional;
    let mut values = vec![String::new(); keys.len()];
    let mut kw_set = vec![false; nvalues];
    let mut used = vec![false; args.len()];
    let mut npos_supplied = 0;
    let mut any_keywords = false;
    let mut kw_error = false;
    for (i, arg) in args.iter().enumerate() {
        if npos_supplied >= nrequired {
            let found = keyword(arg)
                .filter(|(_, rest)| !rest.is_empty())
                .map(|(kw, rest)| ((npositional..nvalues).find(|&j| keys[j] == kw), rest));
            match found {
                Some((Some(j), rest)) => {
                    values[j] = rest.to_string();
                    kw_set[j] = true;
                    used[i] = true;
                    any_keywords = true;
                    continue;
                }
                _ if any_keywords => {
                    if !ignore_rest {
                        kw_error = true;
                    }
                    continue;
                }
                _ => {}
            }
        }
        if npos_supplied < npositional {
            used[i] = true;
            values[npos_supplied] = arg.clone();
        }
        npos_supplied += 1;
    }
    if kw_error || kw_set.iter().skip(npositional).any(|s| !s) {
        return None;
    }
    if npos_supplied < nrequired || (npos_supplied > npositional && !ignore_rest) {
        return None;
    }
    if ignore_rest {
        let rest: Vec<&str> = args
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(a, _)| a.as_str())
            .collect();
        values[nvalues] = rest.join(", ");
    }
    Some(values)
}

impl<'a> Flattener<'a> {
    fn compound(&self, id: ClassId) -> Option<&'a Compound> {
        match &self.classes[id] {
            ClassDef::Compound(c) => Some(c),
            ClassDef::Primitive(_) => None,
        }
    }

    fn error(&mut self, lm: &Landmark, msg: impl Into<String>) {
        crate::push_diagnostic(&mut self.diags, Diagnostic::new(Some(lm.clone()), msg));
    }

    fn get_element(&mut self, name: &str, kind: FKind, config: String, lm: Landmark) -> usize {
        if let Some(&i) = self.map.get(name) {
            return i;
        }
        let i = self.names.len();
        self.map.insert(name.to_string(), i);
        self.names.push(name.to_string());
        self.kinds.push(kind);
        self.configs.push(config);
        self.landmarks.push(lm);
        self.nin.push(0);
        self.nout.push(0);
        i
    }

    fn connect(&mut self, from: Port, to: Port, landmark: Landmark) {
        if self.nout[from.0] <= from.1 {
            self.nout[from.0] = from.1 + 1;
        }
        if self.nin[to.0] <= to.1 {
            self.nin[to.0] = to.1 + 1;
        }
        self.conns.push(PConn { from, to, landmark });
    }

    /// Registers the tunnel pairs of a group or expanded compound `x` with
    /// ends `xin` (`x/input`) and `xout` (`x/output`).
    fn pair_tunnels(&mut self, x: usize, xin: usize, xout: usize) {
        let lm = self.landmarks[x].clone();
        for (a, b) in [(x, xin), (xout, x)] {
            if self.pair_in.contains_key(&a) || self.pair_out.contains_key(&b) {
                let n = self.names[a].clone();
                self.error(&lm, format!("redeclaration of connection tunnel '{}'", n));
                continue;
            }
            self.pair_in.insert(a, b);
            self.pair_out.insert(b, a);
        }
    }

    fn add_tunnels(&mut self, name: &str, lm: &Landmark) -> [usize; 3] {
        let names = [
            name.to_string(),
            format!("{}/input", name),
            format!("{}/output", name),
        ];
        let mut idx = [0; 3];
        let mut ok = true;
        for k in 0..3 {
            idx[k] = self.get_element(&names[k], FKind::Tunnel, String::new(), lm.clone());
            if self.kinds[idx[k]] != FKind::Tunnel {
                let old = self.landmarks[idx[k]].clone();
                self.error(lm, format!("redeclaration of element '{}'", names[k]));
                self.error(&old, format!("'{}' previously declared here", names[k]));
                ok = false;
            }
        }
        if ok {
            self.pair_tunnels(idx[0], idx[1], idx[2]);
        }
        idx
    }

    /// Finds the overload of compound class `id` matching `nargs` arguments
    /// and the given port counts (Click's `Compound::resolve`).
    fn resolve(
        &mut self,
        id: ClassId,
        nin: usize,
        nout: usize,
        args: &mut Vec<String>,
        lm: &Landmark,
    ) -> Option<ClassId> {
        let mut ct = id;
        let mut closest: Option<ClassId> = None;
        let mut nct = 0;
        loop {
            nct += 1;
            let c = self.compound(ct).expect("compound");
            let assigned = assign_arguments(args, c);
            if let Some(values) = assigned {
                if c.ninputs == nin && c.noutputs == nout {
                    *args = values;
                    return Some(ct);
                }
                closest = Some(ct);
            }
            match c.overload {
                Some(next) if self.compound(next).is_some() => ct = next,
                Some(next) => return Some(next),
                None => break,
            }
        }
        if nct != 1 || closest.is_none() {
            let first = self.compound(id).expect("compound");
            let msg = format!(
                "no match for '{}{}'",
                first.printable_name(),
                port_signature(Some(args.len()), nin, nout)
            );
            self.error(lm, msg);
            crate::push_diagnostic(&mut self.diags, Diagnostic::new(None, "candidates are:"));
            let mut c = Some(first);
            let mut guard = 0;
            while let Some(cc) = c {
                crate::push_diagnostic(
                    &mut self.diags,
                    Diagnostic::new(None, format!("  {}: {}", cc.landmark, cc.signature())),
                );
                c = cc.overload.and_then(|o| self.compound(o));
                guard += 1;
                if guard > 10_000 {
                    break;
                }
            }
        }
        if let Some(cl) = closest {
            if let Some(v) = assign_arguments(args, self.compound(cl).expect("compound")) {
                *args = v;
            }
        }
        closest
    }

    /// Expands the variables of `config`; reports (once) and gives `None`
    /// when the configuration's expansion budget runs out.
    fn expand(&mut self, config: &str, env: &Env, lm: &Landmark) -> Option<String> {
        if self.budget.exhausted() {
            return None;
        }
        let r = expand(config, env, &self.budget);
        if r.is_none() {
            self.error(
                lm,
                format!(
                    "variable expansion too large (over {}; does a definition refer to itself?)",
                    bytes_text(self.limits.expansion_bytes)
                ),
            );
        }
        r
    }

    /// Expands an element's configuration. Expansion can leave a quote or
    /// comment open, or close a parenthesis, that the text as written did
    /// not (a quote in a `${NAME-DEFAULT}` default inside a string): Click
    /// runs such an element with whatever its arguments then say, and its
    /// own flattened text does not parse. Refused here instead.
    fn expand_config(&mut self, raw: &str, env: &Env, lm: &Landmark, name: &str) -> Option<String> {
        let config = self.expand(raw, env, lm)?;
        if config != raw && !crate::lexer::config_reads_back(&config) {
            let msg = format!(
                "configuration of '{}' has an unmatched quote, comment or parenthesis after variable expansion",
                name.replace(';', "")
            );
            self.error(lm, msg);
            return None;
        }
        Some(config)
    }

    fn expand_element(&mut self, which: usize, env: &Rc<Env>, depth: usize) {
        if self.names[which].starts_with(';') {
            let n = self.names[which][1..].to_string();
            let class_names = &self.class_names;
            self.names[which] = deanonymize(&mut self.map, &n, which, |n| class_names.contains(n));
        }
        let FKind::Class(id) = self.kinds[which] else {
            return;
        };
        let lm = self.landmarks[which].clone();
        let raw = std::mem::take(&mut self.configs[which]);
        let name = self.names[which].clone();
        let Some(config) = self.expand_config(&raw, env, &lm, &name) else {
            self.kinds[which] = FKind::Error;
            return;
        };
        self.configs[which] = config;
        if self.compound(id).is_none() {
            return;
        }
        if depth >= MAX_EXPANSION_DEPTH {
            self.error(&lm, "compound element nesting too deep");
            self.kinds[which] = FKind::Error;
            return;
        }
        let mut args = split_args(&self.configs[which]);
        match self.resolve(id, self.nin[which], self.nout[which], &mut args, &lm) {
            None => self.kinds[which] = FKind::Error,
            Some(found) => match self.compound(found) {
                None => self.kinds[which] = FKind::Class(found),
                Some(c) => {
                    let mut new_env = Env::new(env.parent_of(c.depth));
                    for i in 0..c.nformals {
                        let v = args.get(i).cloned().unwrap_or_default();
                        new_env.define(&c.scope_names[i], v, true);
                    }
                    for i in c.nformals..c.scope_names.len() {
                        let Some(v) = self.expand(&c.scope_values[i], &new_env, &lm) else {
                            self.kinds[which] = FKind::Error;
                            return;
                        };
                        new_env.define(&c.scope_names[i], v, true);
                    }
                    self.expand_into(c, which, &Rc::new(new_env), depth + 1);
                }
            },
        }
    }

    fn expand_into(&mut self, c: &'a Compound, which: usize, env: &Rc<Env>, depth: usize) {
        let ename = self.names[which].clone();
        let lm = self.landmarks[which].clone();
        self.kinds[which] = FKind::Tunnel;
        let [_, xin, xout] = self.add_tunnels(&ename, &lm);
        let mut map: Vec<Option<usize>> = vec![Some(xin), Some(xout)];
        let mut i = 2;
        while i < c.elems.len() {
            if self.names.len() >= self.limits.elements {
                if !self.too_many {
                    self.too_many = true;
                    self.error(&lm, "too many elements after compound expansion");
                }
                map.resize(c.elems.len(), None);
                break;
            }
            let e = &c.elems[i];
            let cname = format!("{}/{}", ename, e.name);
            if let Some(&old) = self.map.get(&cname) {
                let olm = self.landmarks[old].clone();
                self.error(&lm, format!("redeclaration of element '{}'", cname));
                self.error(&olm, format!("'{}' previously declared here", cname));
                map.push(None);
                i += 1;
                continue;
            }
            if c.group_starts.contains(&i) && i + 2 < c.elems.len() {
                let t = self.add_tunnels(&cname, &e.landmark);
                map.extend(t.iter().map(|&x| Some(x)));
                i += 3;
                continue;
            }
            let kind = match e.kind {
                EKind::Tunnel => FKind::Tunnel,
                EKind::Class(id) => FKind::Class(id),
            };
            let Some(config) = self.expand_config(&e.config, env, &e.landmark, &cname) else {
                map.resize(c.elems.len(), None);
                break;
            };
            let idx = self.get_element(&cname, kind, config, e.landmark.clone());
            map.push(Some(idx));
            i += 1;
        }
        for conn in &c.conns {
            if self.conns.len() >= self.limits.connections {
                self.too_many_connections(&lm);
                break;
            }
            if let (Some(Some(f)), Some(Some(t))) = (map.get(conn.from.0), map.get(conn.to.0)) {
                self.connect((*f, conn.from.1), (*t, conn.to.1), conn.landmark.clone());
            }
        }
        for m in map.iter().skip(2).flatten() {
            self.expand_element(*m, env, depth);
        }
    }

    /// Reports, once, that the connections bound was reached.
    fn too_many_connections(&mut self, lm: &Landmark) {
        if !self.too_many_conns {
            self.too_many_conns = true;
            let msg = format!(
                "too many connections after compound expansion (over {})",
                self.limits.connections
            );
            self.error(lm, msg);
        }
    }

    fn is_tunnel(&self, e: usize) -> bool {
        self.kinds[e] == FKind::Tunnel
    }

    /// The real ports that tunnel end `(e, port)` stands for.
    fn expand_end(&mut self, e: usize, port: usize, output: bool) -> Vec<Port> {
        if !self.is_tunnel(e) {
            return vec![(e, port)];
        }
        let pair = if output {
            self.pair_out.get(&e)
        } else {
            self.pair_in.get(&e)
        }
        .copied();
        let Some(partner) = pair else {
            let other = if output {
                self.pair_in.contains_key(&e)
            } else {
                self.pair_out.contains_key(&e)
            };
            if other {
                let lm = self.landmarks[e].clone();
                let msg = format!(
                    "'{}' used as {}",
                    self.names[e],
                    if output { "output" } else { "input" }
                );
                self.error(&lm, msg);
            }
            return Vec::new();
        };
        let key = (e, port, output);
        match self.ends.get(&key) {
            Some(EndState::InProgress) => return Vec::new(),
            Some(EndState::Done(v)) => return v.clone(),
            None => {}
        }
        self.ends.insert(key, EndState::InProgress);
        let list = self.correspond.get(&key).cloned().unwrap_or_default();
        if list.is_empty() {
            let (inh, outh) = if output { (partner, e) } else { (e, partner) };
            let in_name = self.names[inh].clone();
            let out_name = self.names[outh].clone();
            if format!("{}/input", in_name) == out_name {
                let lm = self.landmarks[inh].clone();
                let msg = if output {
                    format!("'{}' input {} unused", in_name, port)
                } else {
                    format!("'{}' has no input {}", in_name, port)
                };
                self.error(&lm, msg);
            } else if in_name == format!("{}/output", out_name) {
                let lm = self.landmarks[outh].clone();
                let msg = if output {
                    format!("'{}' has no output {}", out_name, port)
                } else {
                    format!("'{}' output {} unused", out_name, port)
                };
                self.error(&lm, msg);
            } else {
                let lm = self.landmarks[partner].clone();
                let msg = format!(
                    "tunnel '{} -> {}' {} {} unused",
                    in_name,
                    out_name,
                    if output { "input" } else { "output" },
                    port
                );
                self.error(&lm, msg);
            }
        }
        let mut result = Vec::new();
        for (pe, pp) in list {
            let v = self.expand_end(pe, pp, output);
            result.extend(v);
        }
        self.ends.insert(key, EndState::Done(result.clone()));
        result
    }
}

/// Expands compounds and resolves tunnels.
pub(crate) fn flatten(
    classes: &[ClassDef],
    top: &Compound,
    cmdline: &[(String, String)],
    requirement_pairs: Vec<(String, String)>,
    diags: &mut Vec<Diagnostic>,
    limits: Limits,
) -> FlatConfig {
    let mut f = Flattener {
        classes,
        class_names: classes
            .iter()
            .map(|c| match c {
                ClassDef::Primitive(n) => n.as_str(),
                ClassDef::Compound(c) => c.name.as_str(),
            })
            .collect(),
        names: Vec::new(),
        kinds: Vec::new(),
        configs: Vec::new(),
        landmarks: Vec::new(),
        map: top.map.clone(),
        conns: top.conns.clone(),
        nin: Vec::new(),
        nout: Vec::new(),
        pair_in: HashMap::new(),
        pair_out: HashMap::new(),
        correspond: HashMap::new(),
        ends: HashMap::new(),
        diags: Vec::new(),
        too_many: false,
        too_many_conns: false,
        budget: Budget::new(limits.expansion_bytes),
        limits,
    };
    for e in &top.elems {
        f.names.push(e.name.clone());
        f.kinds.push(match e.kind {
            EKind::Tunnel => FKind::Tunnel,
            EKind::Class(id) => FKind::Class(id),
        });
        f.configs.push(e.config.clone());
        f.landmarks.push(e.landmark.clone());
        f.nin.push(0);
        f.nout.push(0);
    }
    for c in &top.conns {
        let n = &mut f.nout[c.from.0];
        *n = (*n).max(c.from.1 + 1);
        let n = &mut f.nin[c.to.0];
        *n = (*n).max(c.to.1 + 1);
    }
    for &g in &top.group_starts {
        if g + 2 < f.names.len() {
            f.pair_tunnels(g, g + 1, g + 2);
        }
    }

    let mut env = Env::new(None);
    for i in 0..top.scope_names.len() {
        env.define(&top.scope_names[i], top.scope_values[i].clone(), false);
    }
    for (n, v) in cmdline {
        env.define(n, v.clone(), true);
    }
    let env = Rc::new(env);
    let initial = f.names.len();
    for i in 0..initial {
        f.expand_element(i, &env, 0);
    }

    // first-level tunnel correspondences
    for c in &f.conns {
        if f.kinds[c.to.0] == FKind::Tunnel {
            if let Some(&p) = f.pair_in.get(&c.to.0) {
                f.correspond
                    .entry((p, c.to.1, true))
                    .or_default()
                    .push(c.from);
            }
        }
        if f.kinds[c.from.0] == FKind::Tunnel {
            if let Some(&p) = f.pair_out.get(&c.from.0) {
                f.correspond
                    .entry((p, c.from.1, false))
                    .or_default()
                    .push(c.to);
            }
        }
    }

    // router element numbering
    let mut router_id = vec![usize::MAX; f.names.len()];
    let mut elements = Vec::new();
    for (i, rid) in router_id.iter_mut().enumerate() {
        let class = match f.kinds[i] {
            FKind::Tunnel => continue,
            FKind::Class(id) => match &classes[id] {
                ClassDef::Primitive(n) => n.clone(),
                ClassDef::Compound(_) => "Error".to_string(),
            },
            FKind::Error => "Error".to_string(),
        };
        *rid = elements.len();
        elements.push(FlatElement {
            name: f.names[i].clone(),
            class,
            config: f.configs[i].clone(),
            landmark: f.landmarks[i].clone(),
        });
    }
    // The parser refuses an element named like a class; compound
    // expansion can make one (`sfq_out :: FlowCount` whose `cl` has the
    // class `sfq_out/cl`), and its flattened text would not parse.
    // Refused here with the parser's message. Only a class name with a
    // `/` can meet an expanded name, and no element class has one, so
    // such a configuration could not have run anyway.
    let class_names: HashSet<&str> = elements.iter().map(|e| e.class.as_str()).collect();
    for e in &elements {
        if class_names.contains(e.name.as_str()) {
            f.error(
                &e.landmark,
                format!("class '{}' used as element name", e.name),
            );
        }
    }

    let mut out: Vec<FlatConnection> = Vec::new();
    let conns = std::mem::take(&mut f.conns);
    for c in &conns {
        let froms = f.expand_end(c.from.0, c.from.1, true);
        let tos = f.expand_end(c.to.0, c.to.1, false);
        for &(fe, fp) in &froms {
            for &(te, tp) in &tos {
                if out.len() >= f.limits.connections {
                    f.too_many_connections(&c.landmark);
                    break;
                }
                if router_id[fe] != usize::MAX && router_id[te] != usize::MAX {
                    out.push(FlatConnection {
                        from: router_id[fe],
                        from_port: fp,
                        to: router_id[te],
                        to_port: tp,
                        landmark: c.landmark.clone(),
                    });
                }
            }
        }
    }
    out.sort_by_key(|c| (c.to, c.to_port, c.from, c.from_port));
    out.dedup_by_key(|c| (c.to, c.to_port, c.from, c.from_port));

    diags.append(&mut f.diags);
    let requirements = requirement_pairs
        .iter()
        .map(|(t, v)| if v.is_empty() { t.clone() } else { v.clone() })
        .collect();
    FlatConfig {
        elements,
        connections: out,
        requirements,
        requirement_pairs,
    }
}
