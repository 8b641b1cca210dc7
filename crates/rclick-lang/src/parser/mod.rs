//! The Click language parser. It builds, for the file and for each compound
//! element class, a list of elements and connections (Click's
//! `Lexer::Compound`), plus a table of element classes.
//!
//! Class semantics follow Click's tools (`click-flatten`): an identifier is a
//! class if it was declared with `elementclass` (lexically scoped) or was
//! used as a class before (a "primitive", global). Any other identifier used
//! in a connection without `::` becomes an anonymous element of that class.

use crate::confparse::{parse_string, parse_word, split_args, split_space};
use crate::lexer::{Lexer, Tok, Token};
use crate::Landmark;
use std::collections::HashMap;

mod compound;
mod directives;

/// Index into [`Parser::classes`].
pub(crate) type ClassId = usize;

/// Compound and group nesting beyond this is refused (protects the stack).
const MAX_NESTING: usize = 48;

/// An element class.
#[derive(Debug)]
pub(crate) enum ClassDef {
    /// A class the language does not define; the router decides.
    Primitive(String),
    /// A compound element class (one alternative of an overload chain).
    Compound(Box<Compound>),
}

/// The kind of a parsed element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EKind {
    /// Connection tunnel: compound `input`/`output`, or group ends.
    Tunnel,
    /// An element of some class.
    Class(ClassId),
}

#[derive(Clone, Debug)]
pub(crate) struct PElem {
    pub name: String,
    pub kind: EKind,
    pub config: String,
    pub landmark: Landmark,
}

#[derive(Clone, Debug)]
pub(crate) struct PConn {
    pub from: (usize, usize),
    pub to: (usize, usize),
    pub landmark: Landmark,
}

/// A compound element class body, or the file itself.
#[derive(Debug)]
pub(crate) struct Compound {
    pub name: String,
    pub landmark: Landmark,
    pub depth: usize,
    /// Scope: formals first (value = keyword type, "" or "__REST__"), then
    /// `define`d variables.
    pub scope_names: Vec<String>,
    pub scope_values: Vec<String>,
    pub nformals: usize,
    scope_order_error: bool,
    pub elems: Vec<PElem>,
    pub map: HashMap<String, usize>,
    pub conns: Vec<PConn>,
    nin: Vec<usize>,
    nout: Vec<usize>,
    /// Element index of the first of each group's three tunnels.
    pub group_starts: Vec<usize>,
    pub ninputs: usize,
    pub noutputs: usize,
    /// Next alternative to try when this one does not match.
    pub overload: Option<ClassId>,
    anon_offset: usize,
}

impl Compound {
    fn new(name: &str, landmark: Landmark, depth: usize) -> Compound {
        Compound {
            name: name.to_string(),
            landmark,
            depth,
            scope_names: Vec::new(),
            scope_values: Vec::new(),
            nformals: 0,
            scope_order_error: false,
            elems: Vec::new(),
            map: HashMap::new(),
            conns: Vec::new(),
            nin: Vec::new(),
            nout: Vec::new(),
            group_starts: Vec::new(),
            ninputs: 0,
            noutputs: 0,
            overload: None,
            anon_offset: 0,
        }
    }

    /// Name for messages.
    pub(crate) fn printable_name(&self) -> &str {
        if self.name.is_empty() {
            "<anonymous>"
        } else {
            &self.name
        }
    }

    /// Click's compound signature, e.g. `Foo(<arg>, TWO, ...)[1 input, 1 output]`.
    pub(crate) fn signature(&self) -> String {
        let types: Vec<&str> = self.scope_values[..self.nformals]
            .iter()
            .map(|t| match t.as_str() {
                "" => "<arg>",
                "__REST__" => "...",
                t => t,
            })
            .collect();
        let mut s = self.printable_name().to_string();
        if !types.is_empty() {
            s.push('(');
            s.push_str(&types.join(", "));
            s.push(')');
        }
        s.push_str(&port_signature(None, self.ninputs, self.noutputs));
        s
    }

    fn connect(&mut self, from: usize, fport: i64, to: usize, tport: i64, landmark: Landmark) {
        let fp = fport.max(0) as usize;
        let tp = tport.max(0) as usize;
        self.conns.push(PConn {
            from: (from, fp),
            to: (to, tp),
            landmark,
        });
        if self.nin[to] <= tp {
            self.nin[to] = tp + 1;
        }
        if self.nout[from] <= fp {
            self.nout[from] = fp + 1;
        }
    }
}

/// `[2 arguments, 1 input, 1 output]`.
pub(crate) fn port_signature(nargs: Option<usize>, nin: usize, nout: usize) -> String {
    let mut s = String::from("[");
    if let Some(n) = nargs.filter(|n| *n > 0) {
        s.push_str(&format!(
            "{} argument{}, ",
            n,
            if n == 1 { "" } else { "s" }
        ));
    }
    s.push_str(&format!(
        "{} input{}, {} output{}]",
        nin,
        if nin == 1 { "" } else { "s" },
        nout,
        if nout == 1 { "" } else { "s" }
    ));
    s
}

/// An element reference in a connection, with its port lists. A port list
/// ending in -1 is expandable (`[]`, `[2,]`).
#[derive(Clone, Debug, Default)]
struct Item {
    elem: usize,
    inports: Vec<i64>,
    outports: Vec<i64>,
}

impl Item {
    fn ports(&self, output: bool) -> &Vec<i64> {
        if output {
            &self.outports
        } else {
            &self.inports
        }
    }
}

struct ElementState {
    name: String,
    ty: Option<ClassId>,
    decl: Option<ClassId>,
    bare: bool,
    config: String,
    landmark: Landmark,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    File,
    Compound,
    Group,
}

/// Parser state.
pub(crate) struct Parser<'a> {
    pub lx: Lexer<'a>,
    pub classes: Vec<ClassDef>,
    base: HashMap<String, ClassId>,
    declared: HashMap<String, ClassId>,
    /// What each insertion into `declared` replaced, newest last, so that
    /// a compound's scope is undone in the time its own declarations take
    /// (a copy of `declared` per compound made a file of n `elementclass`
    /// declarations take time in n squared: 16,000 took 75 s).
    declared_undo: Vec<(String, Option<ClassId>)>,
    /// Compounds being parsed; `stack[0]` is the file.
    pub stack: Vec<Compound>,
    group_depth: usize,
    /// `require` pairs (type, value).
    pub requirements: Vec<(String, String)>,
    /// Libraries already read (`require(library FILE)`), so that a library
    /// required twice, or in a cycle, is read once.
    libraries: Vec<std::path::PathBuf>,
    /// Connections the file's statements may make in all (a group with a
    /// port numbered in the millions makes that many with `=>`), and how
    /// many they have made.
    pub(crate) max_connections: usize,
    connections: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str, file: &str) -> Parser<'a> {
        let lx = Lexer::new(text, file);
        let lm = lx.landmark();
        Parser {
            lx,
            classes: Vec::new(),
            base: HashMap::new(),
            declared: HashMap::new(),
            declared_undo: Vec::new(),
            stack: vec![Compound::new("", lm, 0)],
            group_depth: 0,
            requirements: Vec::new(),
            libraries: Vec::new(),
            max_connections: crate::flatten::MAX_CONNECTIONS,
            connections: 0,
        }
    }

    /// Parses the whole input.
    pub(crate) fn parse(&mut self) {
        while self.ystatement(Ctx::File) {}
    }

    fn cur(&mut self) -> &mut Compound {
        self.stack.last_mut().expect("file scope")
    }

    fn cur_ref(&self) -> &Compound {
        self.stack.last().expect("file scope")
    }

    fn error(&mut self, msg: impl Into<String>) {
        self.lx.error(msg);
    }

    fn syntax_error(&mut self, t: &Token) {
        self.lx.error(format!("syntax error near '{}'", t.text));
    }

    fn nesting(&self) -> usize {
        self.stack.len() + self.group_depth
    }

    // CLASSES

    /// The class called `name`, if any.
    fn element_type(&self, name: &str) -> Option<ClassId> {
        self.declared
            .get(name)
            .or_else(|| self.base.get(name))
            .copied()
    }

    /// Declares class `name` as `id` in the current scope.
    fn declare(&mut self, name: String, id: ClassId) {
        let old = self.declared.insert(name.clone(), id);
        self.declared_undo.push((name, old));
    }

    /// Undoes the declarations made since `declared_undo` had `mark`
    /// entries.
    fn undeclare_to(&mut self, mark: usize) {
        while self.declared_undo.len() > mark {
            let (name, old) = self.declared_undo.pop().expect("above mark");
            match old {
                Some(id) => self.declared.insert(name, id),
                None => self.declared.remove(&name),
            };
        }
    }

    /// The class called `name`, creating a primitive if needed.
    fn force_element_type(&mut self, name: &str) -> ClassId {
        if let Some(id) = self.element_type(name) {
            return id;
        }
        if self.cur_ref().map.contains_key(name) {
            self.error(format!("'{}' was previously used as an element name", name));
        }
        let id = self.classes.len();
        self.classes.push(ClassDef::Primitive(name.to_string()));
        self.base.insert(name.to_string(), id);
        id
    }

    pub(crate) fn class_name(&self, id: ClassId) -> &str {
        match &self.classes[id] {
            ClassDef::Primitive(n) => n,
            ClassDef::Compound(c) => &c.name,
        }
    }

    // ELEMENTS

    fn anon_name(&self, class: &str) -> String {
        let c = self.cur_ref();
        let n = (c.elems.len() + 1).saturating_sub(c.anon_offset);
        format!(";{}@{}", class, n)
    }

    /// Returns the element called `name` in the current scope, creating it.
    fn get_element(&mut self, name: &str, kind: EKind, config: String, lm: Landmark) -> usize {
        if let Some(&i) = self.cur_ref().map.get(name) {
            return i;
        }
        if has_all_digit_component(name) {
            self.error(format!("element name '{}' has all-digit component", name));
        }
        let c = self.cur();
        let i = c.elems.len();
        c.map.insert(name.to_string(), i);
        c.elems.push(PElem {
            name: name.to_string(),
            kind,
            config,
            landmark: lm,
        });
        c.nin.push(0);
        c.nout.push(0);
        i
    }

    /// Creates the three tunnels of a group called `name`.
    fn add_tunnels(&mut self, name: &str) -> [usize; 3] {
        let names = [
            name.to_string(),
            format!("{}/input", name),
            format!("{}/output", name),
        ];
        let mut idx = [0; 3];
        for (k, n) in names.iter().enumerate() {
            let lm = self.lx.landmark();
            idx[k] = self.get_element(n, EKind::Tunnel, String::new(), lm.clone());
            let e = &self.cur_ref().elems[idx[k]];
            if e.kind != EKind::Tunnel {
                let old = e.landmark.clone();
                self.lx
                    .error_at(lm, format!("redeclaration of element '{}'", n));
                self.lx
                    .error_at(old, format!("'{}' previously declared here", n));
            }
        }
        self.cur().group_starts.push(idx[0]);
        idx
    }

    // STATEMENTS

    /// Parses one statement; false at the end of the current context.
    fn ystatement(&mut self, ctx: Ctx) -> bool {
        let t = self.lx.lex();
        match t.kind {
            Tok::Ident
            | Tok::Char(b'[')
            | Tok::Char(b'{')
            | Tok::Char(b'(')
            | Tok::Arrow
            | Tok::TwoArrow => {
                self.lx.unlex(t);
                self.yconnection();
                true
            }
            Tok::Elementclass => {
                self.yelementclass();
                true
            }
            Tok::Require => {
                self.yrequire();
                true
            }
            Tok::Define => {
                self.ydefine();
                true
            }
            Tok::Char(b';') => true,
            Tok::Char(b'}') | Tok::TwoBar => match ctx {
                Ctx::Compound => {
                    self.lx.unlex(t);
                    false
                }
                Ctx::Group => {
                    self.syntax_error(&t);
                    self.lx.unlex(t);
                    false
                }
                Ctx::File => {
                    self.syntax_error(&t);
                    true
                }
            },
            Tok::Char(b')') if ctx == Ctx::Group => {
                self.lx.unlex(t);
                false
            }
            Tok::Eof => {
                match ctx {
                    Ctx::Group => self.error("expected ')'"),
                    Ctx::Compound => self.error("expected '}'"),
                    Ctx::File => {}
                }
                false
            }
            _ => {
                self.syntax_error(&t);
                true
            }
        }
    }

    fn yport(&mut self, ports: &mut Vec<i64>) -> bool {
        if !self.lx.expect_char(b'[', false) {
            return false;
        }
        let n0 = ports.len();
        loop {
            let t = self.lx.lex();
            if t.is(Tok::Ident) {
                let port = match parse_port(&t.text) {
                    Some(p) => p,
                    None => {
                        self.error("syntax error: port number should be integer");
                        0
                    }
                };
                ports.push(port);
            } else if t.is_char(b']') {
                if ports.len() == n0 {
                    ports.push(0);
                }
                ports.push(-1);
                return true;
            } else {
                self.error("syntax error: expected port number");
                self.lx.unlex(t);
                return ports.len() != n0;
            }
            let t = self.lx.lex();
            if t.is_char(b']') {
                return true;
            } else if !t.is_char(b',') {
                self.error("syntax error: expected ','");
                self.lx.unlex(t);
            }
        }
    }

    /// Parses a comma-separated list of element references/declarations.
    /// `in_allowed` is true after a connector. None if there is no element.
    fn yelement(&mut self, in_allowed: bool) -> Option<Vec<Item>> {
        let mut items: Vec<Item> = Vec::new();
        let mut states: Vec<ElementState> = Vec::new();
        let mut any_implicit = false;
        let mut any_ports = false;
        let mut t;
        loop {
            let mut item = Item::default();
            self.yport(&mut item.inports);
            let mut this_implicit = false;
            let name: String;
            let ty: Option<ClassId>;
            t = self.lx.lex();
            let bare = t.is(Tok::Ident);
            if t.is(Tok::Ident) {
                name = t.text.clone();
                ty = self.element_type(&name);
            } else if t.is_char(b'{') {
                let id = self.ycompound(String::new());
                name = String::new();
                ty = Some(id);
            } else if t.is_char(b'(') {
                name = self.anon_name("");
                ty = None;
                let mut nports = self.ygroup(&name);
                // A group with a port numbered 777,777,777 has that many
                // ports, listed here: more than the connections bound can
                // ever connect, so the list stops there (lang_parse's
                // seventh finding: 6 GB from 336 bytes).
                let most = self.max_connections.saturating_add(1);
                if nports.iter().any(|&n| n > most) {
                    self.error(format!(
                        "group with more than {} ports",
                        self.max_connections
                    ));
                    nports = nports.map(|n| n.min(most));
                }
                if item.inports.is_empty() {
                    item.inports = (0..nports[0] as i64).collect();
                }
                item.outports = (0..nports[1] as i64).collect();
            } else {
                let nested = self.stack.len() > 1 || self.group_depth > 0;
                if nested && t.is_arrow() {
                    this_implicit = !in_allowed && (!item.inports.is_empty() || items.is_empty());
                } else if nested && t.is_char(b',') {
                    this_implicit = !item.inports.is_empty();
                } else if nested && !t.is(Tok::TwoColon) {
                    this_implicit = in_allowed && (!item.inports.is_empty() || items.is_empty());
                }
                if this_implicit {
                    any_implicit = true;
                    name = if in_allowed { "output" } else { "input" }.to_string();
                    ty = None;
                    if !in_allowed {
                        std::mem::swap(&mut item.inports, &mut item.outports);
                    }
                    self.lx.unlex(t.clone());
                } else {
                    if !item.inports.is_empty() {
                        self.error("stranded port ignored");
                    }
                    if items.is_empty() {
                        // like Click's userlevel parser: only an implicit
                        // chain start in a compound or group is silent
                        if nested && !in_allowed {
                            self.lx.unlex(t);
                        } else {
                            self.syntax_error(&t);
                            if matches!(
                                t.kind,
                                Tok::Char(b'}' | b')')
                                    | Tok::TwoBar
                                    | Tok::Eof
                                    | Tok::Elementclass
                                    | Tok::Require
                                    | Tok::Define
                            ) {
                                self.lx.unlex(t);
                            }
                        }
                        return None;
                    }
                    break;
                }
            }
            let mut e = ElementState {
                name,
                ty,
                decl: None,
                bare,
                config: String::new(),
                landmark: self.lx.landmark(),
            };

            t = self.lx.lex();
            if t.is(Tok::TwoColon) && !this_implicit {
                t = self.lx.lex();
                if t.is(Tok::Ident) {
                    e.decl = Some(self.force_element_type(&t.text));
                } else if t.is_char(b'{') {
                    e.decl = Some(self.ycompound(String::new()));
                } else {
                    self.error("missing element type in declaration");
                    let n = e.name.clone();
                    e.decl = Some(self.force_element_type(&n));
                    self.lx.unlex(t);
                }
                e.bare = false;
                t = self.lx.lex();
            }
            if t.is_char(b'(') && !this_implicit {
                if self.cur_ref().map.contains_key(&e.name) {
                    self.error("configuration string ignored on element reference");
                }
                e.config = self.lx.lex_config();
                self.lx.expect_char(b')', true);
                e.bare = false;
                t = self.lx.lex();
            }
            if t.is_char(b'[') && !this_implicit {
                self.lx.unlex(t);
                item.outports.clear();
                self.yport(&mut item.outports);
                t = self.lx.lex();
            }
            any_ports = any_ports || !item.inports.is_empty() || !item.outports.is_empty();
            items.push(item);
            states.push(e);
            if !t.is_char(b',') {
                break;
            }
        }
        let next_is_arrow = t.is_arrow();
        self.lx.unlex(t);

        if any_implicit && in_allowed && next_is_arrow {
            self.error("implicit ports used in the middle of a chain");
        }

        // "a, b, c :: Class(config)" gives all of them the class and config
        if states.len() > 1 && !in_allowed && !next_is_arrow && !any_ports && !any_implicit {
            let n = states.len();
            if states[..n - 1].iter().all(|e| e.bare) {
                if let Some(decl) = states[n - 1].decl {
                    let config = states[n - 1].config.clone();
                    for e in &mut states[..n - 1] {
                        e.decl = Some(decl);
                        e.config = config.clone();
                    }
                }
            }
        }

        for (k, mut e) in states.into_iter().enumerate() {
            let existing = match e.ty {
                Some(_) => None,
                None => self.cur_ref().map.get(&e.name).copied(),
            };
            if let Some(idx) = existing {
                if e.decl.is_some() {
                    let old = self.cur_ref().elems[idx].clone();
                    self.lx.error_at(
                        e.landmark.clone(),
                        format!("redeclaration of element '{}'", e.name),
                    );
                    if old.kind != EKind::Tunnel {
                        self.lx.error_at(
                            old.landmark,
                            format!("element '{}' previously declared here", e.name),
                        );
                    }
                }
                items[k].elem = idx;
            } else {
                if let Some(decl) = e.decl {
                    if e.ty.is_some() || e.name == self.class_name(decl) {
                        self.lx.error_at(
                            e.landmark.clone(),
                            format!("class '{}' used as element name", e.name),
                        );
                    }
                } else if e.ty.is_none() {
                    e.ty = Some(self.force_element_type(&e.name));
                }
                if let Some(ty) = e.ty {
                    let cn = self.class_name(ty).to_string();
                    e.name = self.anon_name(&cn);
                    // Named after its class, an anonymous element must
                    // pass the check a declared name does, or the flat
                    // configuration prints (`unparse`, `flatconfig`) as
                    // text that does not parse: `Idle -> 000/s -> Discard`
                    // made `000/s@2` (found by the `lang_parse` target).
                    let shown = &e.name[1..];
                    if has_all_digit_component(shown) {
                        self.lx.error_at(
                            e.landmark.clone(),
                            format!("element name '{shown}' has all-digit component"),
                        );
                    }
                }
                let class = e.ty.or(e.decl).expect("class");
                items[k].elem =
                    self.get_element(&e.name, EKind::Class(class), e.config, e.landmark);
            }
        }
        Some(items)
    }

    fn check_useless(&mut self, items: &[Item], output: bool) {
        if items.iter().any(|i| !i.ports(output).is_empty()) {
            self.error(if output {
                "output ports ignored at end of chain"
            } else {
                "input ports ignored at start of chain"
            });
        }
    }

    fn analyze_ports(items: &[Item], output: bool) -> (usize, usize) {
        let (mut minp, mut expandable) = (0, 0);
        for it in items {
            let p = it.ports(output);
            let n = p.len();
            if n <= 1 {
                minp += 1;
            } else if p[n - 1] == -1 {
                minp += n - 1;
                expandable += 1;
            } else {
                minp += n;
            }
        }
        (minp, expandable)
    }

    fn connect_all(&mut self, outputs: &[Item], inputs: &[Item], connector: Tok) {
        let lists = [inputs, outputs];
        let mut minp = [0usize; 2];
        let mut exp = [0usize; 2];
        for k in 0..2 {
            let (m, e) = Self::analyze_ports(lists[k], k == 1);
            minp[k] = m;
            exp[k] = e;
        }
        if exp[0] + exp[1] > 1 {
            self.error("at most one expandable port allowed per connection");
            exp[usize::from(minp[0] < minp[1])] = 0;
        }
        if connector == Tok::TwoArrow {
            for k in 0..2 {
                if minp[k] == 1 && minp[1 - k] > 1 && lists[k][0].ports(k == 1).is_empty() {
                    exp[k] = 1;
                }
            }
        }
        let mut step = [false; 2];
        let mut nexp = [0usize; 2];
        for k in 0..2 {
            step[k] = minp[k] > 1 || exp[k] > 0;
            nexp[k] = if exp[k] > 0 {
                minp[1 - k].saturating_sub(minp[k])
            } else {
                0
            };
        }
        if step[0] && step[1] {
            if connector != Tok::TwoArrow {
                self.error("syntax error: many-to-many connections require '=>'");
            }
            if exp[0] == 0 && exp[1] == 0 && minp[0] != minp[1] {
                self.error(format!(
                    "connection mismatch: {} outputs connected to {} inputs",
                    minp[1], minp[0]
                ));
            } else if exp[0] == 0 && minp[0] < minp[1] {
                self.error(format!(
                    "connection mismatch: {} or more outputs connected to {} inputs",
                    minp[1], minp[0]
                ));
            } else if exp[1] == 0 && minp[1] < minp[0] {
                self.error(format!(
                    "connection mismatch: {} outputs connected to {} or more inputs",
                    minp[1], minp[0]
                ));
            }
        } else if !step[0] && !step[1] {
            step[0] = true;
        }

        let lm = self.lx.landmark();
        let mut it = [0usize; 2];
        let mut ppos = [0usize; 2];
        let mut port = [-1i64; 2];
        while it[0] < inputs.len() && it[1] < outputs.len() {
            for k in 0..2 {
                if port[k] < 0 {
                    port[k] = lists[k][it[k]].ports(k == 1).first().copied().unwrap_or(0);
                }
            }
            let (from, to) = (outputs[it[1]].elem, inputs[it[0]].elem);
            if self.connections >= self.max_connections {
                // Reported once: every later statement stops here too.
                if self.connections == self.max_connections {
                    self.connections += 1;
                    self.error(format!(
                        "too many connections (over {})",
                        self.max_connections
                    ));
                }
                return;
            }
            self.connections += 1;
            self.cur().connect(from, port[1], to, port[0], lm.clone());
            for k in 0..2 {
                if !step[k] {
                    continue;
                }
                let pv = lists[k][it[k]].ports(k == 1);
                let np = pv.len();
                ppos[k] += 1;
                if ppos[k] < np && pv[ppos[k]] >= 0 {
                    port[k] = pv[ppos[k]];
                } else if np >= 2 && pv[np - 1] == -1 && nexp[k] > 0 {
                    port[k] = pv[np - 2] + (ppos[k] as i64) - (np as i64 - 2);
                    nexp[k] -= 1;
                } else if np == 0 && minp[k] == 1 && nexp[k] > 0 {
                    port[k] = ppos[k] as i64;
                    nexp[k] -= 1;
                } else {
                    port[k] = -1;
                    ppos[k] = 0;
                    it[k] += 1;
                }
            }
        }
    }

    fn yconnection(&mut self) {
        let mut elements1: Vec<Item> = Vec::new();
        let mut connector = Tok::Arrow;
        loop {
            let elements2 = match self.yelement(!elements1.is_empty()) {
                Some(e) => e,
                None => {
                    self.check_useless(&elements1, true);
                    return;
                }
            };
            if elements1.is_empty() {
                self.check_useless(&elements2, false);
            } else {
                self.connect_all(&elements1, &elements2, connector);
            }
            loop {
                let t = self.lx.lex();
                match t.kind {
                    Tok::Char(b',') | Tok::TwoColon => {
                        self.lx.error(format!("syntax error before '{}'", t.text));
                        continue;
                    }
                    Tok::Arrow | Tok::TwoArrow => {
                        connector = t.kind;
                    }
                    Tok::Ident
                    | Tok::Char(b'{')
                    | Tok::Char(b'}')
                    | Tok::Char(b'[')
                    | Tok::Char(b')')
                    | Tok::TwoBar
                    | Tok::Elementclass
                    | Tok::Require
                    | Tok::Define => {
                        self.lx.unlex(t);
                        self.check_useless(&elements2, true);
                        return;
                    }
                    Tok::Char(b';') | Tok::Eof => {
                        self.check_useless(&elements2, true);
                        return;
                    }
                    _ => {
                        self.syntax_error(&t);
                        if !matches!(t.kind, Tok::Char(_) | Tok::Eof) {
                            self.lx.unlex(t);
                        }
                        return;
                    }
                }
                break;
            }
            elements1 = elements2;
        }
    }

    fn ygroup(&mut self, name: &str) -> [usize; 2] {
        let [_, ein, eout] = self.add_tunnels(name);
        let old_in = self.cur().map.insert("input".into(), ein);
        let old_out = self.cur().map.insert("output".into(), eout);
        self.group_depth += 1;
        if self.nesting() > MAX_NESTING {
            self.error("maximum element group nesting depth exceeded");
        } else {
            while self.ystatement(Ctx::Group) {}
            let t = self.lx.lex();
            if !t.is_char(b')') {
                self.lx.unlex(t);
            }
        }
        self.group_depth -= 1;
        let lm = self.lx.landmark();
        let printable = if name.starts_with(';') {
            "<anonymous group>"
        } else {
            name
        }
        .to_string();
        let nin = self.check_pseudoelement(ein, false, &printable, &lm);
        let nout = self.check_pseudoelement(eout, true, &printable, &lm);
        for (key, old) in [("input", old_in), ("output", old_out)] {
            match old {
                Some(o) => {
                    self.cur().map.insert(key.into(), o);
                }
                None => {
                    self.cur().map.remove(key);
                }
            }
        }
        [nin, nout]
    }
}

/// Whether a `/`-separated component of element name `name` is all
/// digits (or empty), which names may not have (Click's rule).
fn has_all_digit_component(name: &str) -> bool {
    name.split('/')
        .any(|c| c.bytes().all(|b| b.is_ascii_digit()))
}

/// Click's anonymous-name resolution: `name` unless taken, else the number
/// after the last `@` is increased until the name is free. A name is taken
/// when an element has it or when `is_class` says a class is called so
/// (unlike Click, so that flattened text parses back: `c0@2 :: c0` beside
/// an element of a class called `c0@2` would not).
pub(crate) fn deanonymize(
    map: &mut HashMap<String, usize>,
    name: &str,
    idx: usize,
    is_class: impl Fn(&str) -> bool,
) -> String {
    let taken = |map: &HashMap<String, usize>, n: &str| map.contains_key(n) || is_class(n);
    let mut name = name.to_string();
    if taken(map, &name) {
        if let Some(at) = name.rfind('@') {
            let prefix = name[..=at].to_string();
            let digits: String = name[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let mut n: u64 = digits.parse().unwrap_or(0);
            loop {
                n += 1;
                name = format!("{}{}", prefix, n);
                if !taken(map, &name) {
                    break;
                }
            }
        }
    }
    map.insert(name.clone(), idx);
    name
}

/// Parses a port number (decimal, or `0x` hexadecimal).
fn parse_port(s: &str) -> Option<i64> {
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()?
    } else {
        if !s.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        s.parse::<u32>().ok()?
    };
    if v > i32::MAX as u32 {
        None
    } else {
        Some(i64::from(v))
    }
}
