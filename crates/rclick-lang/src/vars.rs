//! Scoped configuration variables and `$variable` expansion (Click's
//! `VariableEnvironment` and `cp_expand`).

use crate::confparse::{comment_at, quote, shift_spacevec, skip_comment_space, skip_space};
use std::cell::Cell;
use std::rc::Rc;

/// Variable expansion stops nesting beyond this depth (as Click does).
const MAX_EXPAND_DEPTH: u32 = 10;

/// How many bytes variable expansion may still produce. Each substituted
/// value and each expanded string is charged, so a definition that refers
/// to itself several times (`define($a $a$a$a)`) stops at the bound instead
/// of growing by its fan-out to the tenth power.
#[derive(Debug)]
pub(crate) struct Budget {
    left: Cell<usize>,
    exhausted: Cell<bool>,
}

impl Budget {
    /// A budget of `bytes`.
    pub(crate) fn new(bytes: usize) -> Budget {
        Budget {
            left: Cell::new(bytes),
            exhausted: Cell::new(false),
        }
    }

    /// Charges `n` bytes; false (and exhausted from then on) if they do
    /// not fit.
    fn charge(&self, n: usize) -> bool {
        match self.left.get().checked_sub(n) {
            Some(l) if !self.exhausted.get() => {
                self.left.set(l);
                true
            }
            _ => {
                self.exhausted.set(true);
                false
            }
        }
    }

    /// Bytes left.
    #[cfg(test)]
    pub(crate) fn left(&self) -> usize {
        self.left.get()
    }

    /// Whether a charge has failed.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted.get()
    }
}

/// One level of variable scope. Compound expansions chain environments
/// lexically: a compound's environment's parent is the environment in which
/// the compound class was defined.
#[derive(Debug, Default)]
pub(crate) struct Env {
    parent: Option<Rc<Env>>,
    depth: usize,
    names: Vec<String>,
    values: Vec<String>,
}

impl Env {
    /// Creates an empty environment below `parent`.
    pub(crate) fn new(parent: Option<Rc<Env>>) -> Env {
        let depth = parent.as_ref().map_or(0, |p| p.depth + 1);
        Env {
            parent,
            depth,
            names: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Defines `name`; an existing definition in this level is replaced if
    /// `replace`, else kept. Returns false if `name` was already defined.
    pub(crate) fn define(&mut self, name: &str, value: String, replace: bool) -> bool {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            if replace {
                self.values[i] = value;
            }
            false
        } else {
            self.names.push(name.to_string());
            self.values.push(value);
            true
        }
    }

    /// The nearest enclosing environment (self included) whose depth is
    /// below `depth`.
    pub(crate) fn parent_of(self: &Rc<Self>, depth: usize) -> Option<Rc<Env>> {
        let mut v = Some(self.clone());
        while let Some(e) = &v {
            if e.depth >= depth {
                v = e.parent.clone();
            } else {
                break;
            }
        }
        v
    }

    fn lookup(&self, name: &[u8]) -> Option<&str> {
        let mut v = Some(self);
        while let Some(e) = v {
            if let Some(i) = e.names.iter().position(|n| n.as_bytes() == name) {
                return Some(&e.values[i]);
            }
            v = e.parent.as_deref();
        }
        None
    }

    /// Looks up the variable text `var` of kind `vtype` (`b'{'` for
    /// `${...}`, `b'('` for `$(...)`, `b'a'` for `$name`).
    fn expand_var(&self, var: &[u8], vtype: u8, depth: u32, budget: &Budget) -> Option<Vec<u8>> {
        let mut name = var;
        let mut minus = None;
        let mut index: Option<i64> = None;
        if vtype == b'{' {
            let end = var.len();
            let nb = skip_space(var, 0);
            let mut p = nb;
            while p < end && (var[p].is_ascii_alphanumeric() || var[p] == b'_') {
                p += 1;
            }
            let ne = p;
            p = skip_space(var, p);
            if p < end && var[p] == b'[' {
                let ns = skip_space(var, p + 1);
                let (value, q) = parse_int(var, ns);
                if q > ns && q < end && var[q] == b']' {
                    p = skip_space(var, q + 1);
                    index = value.filter(|v| *v >= 0);
                } else {
                    p = q;
                }
            }
            if p < end && var[p] == b'-' {
                minus = Some(p);
            }
            name = &var[nb..ne];
        }
        if let Some(val) = self.lookup(name) {
            let value = expand_bytes(val.as_bytes(), self, false, depth + 1, budget);
            match index {
                Some(mut i) => {
                    // The whole value was made to take one word of it;
                    // charge it, or a value that takes words of itself
                    // (`${x[1]} ${x[1]} ...`) does exponential work with
                    // a small result (a 436-byte input took 4.5 s at any
                    // budget; found by the `lang_expand` target).
                    if !budget.charge(value.len()) {
                        return Some(Vec::new());
                    }
                    let (mut word, mut rest) = (Vec::new(), value);
                    while i >= 0 && (!rest.is_empty() || !word.is_empty()) {
                        let (w, r) = shift_spacevec(&rest);
                        word = w;
                        rest = r;
                        i -= 1;
                    }
                    Some(word)
                }
                None => Some(value),
            }
        } else {
            minus.map(|m| expand_bytes(&var[m + 1..], self, false, depth + 1, budget))
        }
    }
}

/// Parses an optionally signed decimal integer at `b[s..]`; returns the
/// value (None on overflow or no digits) and the index after it.
fn parse_int(b: &[u8], s: usize) -> (Option<i64>, usize) {
    let mut p = s;
    let neg = p < b.len() && (b[p] == b'-' || b[p] == b'+');
    if neg {
        p += 1;
    }
    let ds = p;
    let mut v: Option<i64> = Some(0);
    while p < b.len() && b[p].is_ascii_digit() {
        v = v
            .and_then(|x| x.checked_mul(10))
            .and_then(|x| x.checked_add(i64::from(b[p] - b'0')));
        p += 1;
    }
    if p == ds {
        return (None, s);
    }
    if neg && b[s] == b'-' {
        v = v.map(|x| -x);
    }
    (v, p)
}

/// Click's `cp_expand`: replaces `$name`, `${name}`, `${name[i]}`,
/// `${name-default}` with their values from `env`. Unknown variables and
/// `$(...)` expressions are kept (with variables inside them expanded);
/// nothing is expanded inside single quotes; values substituted inside
/// double quotes are backslash-quoted. `None` when the expansion would
/// produce more than `budget` allows (the budget is then exhausted).
pub(crate) fn expand(config: &str, env: &Env, budget: &Budget) -> Option<String> {
    if !config.contains('$') {
        return Some(config.to_string());
    }
    let out = expand_bytes(config.as_bytes(), env, false, 0, budget);
    if budget.exhausted() {
        return None;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

fn expand_bytes(
    config: &[u8],
    env: &Env,
    expand_quote: bool,
    depth: u32,
    budget: &Budget,
) -> Vec<u8> {
    if !config.contains(&b'$') {
        return config.to_vec();
    }
    if budget.exhausted() {
        return Vec::new();
    }
    let end = config.len();
    let mut s = 0;
    let mut uninterp = 0;
    let mut quote_state = 0u8;
    let mut out = Vec::new();
    let mut changed = false;
    'scan: while s < end {
        match config[s] {
            b'\\' if s + 1 < end && quote_state == b'"' => s += 1,
            c @ (b'\'' | b'"') => {
                if quote_state == 0 {
                    quote_state = c;
                } else if quote_state == c {
                    quote_state = 0;
                }
            }
            b'/' if quote_state == 0 && comment_at(config, s) => {
                s = skip_comment_space(config, s);
                continue;
            }
            b'$' => {
                if s + 1 >= end || quote_state == b'\'' || depth > MAX_EXPAND_DEPTH {
                    s += 1;
                    continue;
                }
                let before = s;
                let mut expand_vname = false;
                let (vname, vtype, after): (Vec<u8>, u8, usize);
                let next = config[s + 1];
                if next == b'{' {
                    let cstart = s + 2;
                    let mut p = cstart;
                    while p < end && config[p] != b'}' {
                        if config[p] == b'$' {
                            expand_vname = true;
                        }
                        p += 1;
                    }
                    if p >= end {
                        s = end;
                        break 'scan;
                    }
                    vname = config[cstart..p].to_vec();
                    vtype = b'{';
                    after = p + 1;
                } else if next == b'(' {
                    let cstart = s + 2;
                    let mut p = cstart;
                    let (mut level, mut nq) = (1, 0u8);
                    while p < end && level > 0 {
                        match config[p] {
                            b'(' if nq == 0 => level += 1,
                            b')' if nq == 0 => level -= 1,
                            c @ (b'"' | b'\'') => {
                                if nq == 0 {
                                    nq = c;
                                } else if nq == c {
                                    nq = 0;
                                }
                            }
                            b'\\' if p + 1 < end && nq != b'\'' => p += 1,
                            b'$' if nq != b'\'' => expand_vname = true,
                            _ => {}
                        }
                        p += 1;
                    }
                    if level > 0 || p == cstart {
                        s = end;
                        break 'scan;
                    }
                    vname = config[cstart..p - 1].to_vec();
                    vtype = b'(';
                    after = p;
                } else if next.is_ascii_alphanumeric() || next == b'_' {
                    let mut p = s + 1;
                    while p < end && (config[p].is_ascii_alphanumeric() || config[p] == b'_') {
                        p += 1;
                    }
                    vname = config[s + 1..p].to_vec();
                    vtype = b'a';
                    after = p;
                } else if matches!(next, b'?' | b'#' | b'$') {
                    vname = vec![next];
                    vtype = b'a';
                    after = s + 2;
                } else {
                    s += 1;
                    continue;
                }
                out.extend_from_slice(&config[uninterp..before]);
                let before_len = out.len();
                changed = true;
                let vname = if expand_vname {
                    expand_bytes(&vname, env, false, depth + 1, budget)
                } else {
                    vname
                };
                uninterp = after;
                match env.expand_var(&vname, vtype, depth, budget) {
                    None => {
                        if expand_vname {
                            out.push(config[before]);
                            out.push(config[before + 1]);
                            out.extend_from_slice(&vname);
                            out.push(config[after - 1]);
                        } else {
                            uninterp = before;
                        }
                    }
                    Some(text) => {
                        if quote_state == b'"' || (expand_quote && quote_state == 0) {
                            let q = quote(&String::from_utf8_lossy(&text));
                            let inner = &q[1..q.len() - 1];
                            if quote_state == b'"' {
                                out.extend_from_slice(inner.as_bytes());
                            } else {
                                out.push(b'"');
                                out.extend_from_slice(inner.as_bytes());
                                out.push(b'"');
                            }
                        } else {
                            out.extend_from_slice(&text);
                        }
                    }
                }
                if !budget.charge(out.len() - before_len) {
                    return Vec::new();
                }
                s = after;
                continue;
            }
            _ => {}
        }
        s += 1;
    }
    if !changed {
        return config.to_vec();
    }
    out.extend_from_slice(&config[uninterp..s.min(end)]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(config: &str, env: &Env) -> String {
        super::expand(config, env, &Budget::new(1 << 20)).expect("within budget")
    }

    fn env(defs: &[(&str, &str)]) -> Env {
        let mut e = Env::new(None);
        for (n, v) in defs {
            e.define(n, v.to_string(), true);
        }
        e
    }

    #[test]
    fn simple_and_braced() {
        let e = env(&[("a", "A B C"), ("n", "2"), ("empty", "")]);
        assert_eq!(expand("x $a y", &e), "x A B C y");
        assert_eq!(expand("${a}", &e), "A B C");
        assert_eq!(expand("\"$a\"", &e), "\"A B C\"");
        assert_eq!(expand("${a[0]}", &e), "A");
        assert_eq!(expand("${a[2]}", &e), "C");
        assert_eq!(expand("${a[3]}", &e), "");
        assert_eq!(expand("${a[$n]}", &e), "C");
        assert_eq!(expand("$unknown", &e), "$unknown");
        assert_eq!(expand("${unknown-def}", &e), "def");
        assert_eq!(expand("'$a'", &e), "'$a'");
        assert_eq!(expand("$empty", &e), "");
        assert_eq!(expand("a /* $a */ b", &e), "a /* $a */ b");
    }

    #[test]
    fn parens_kept() {
        let e = env(&[("j", "sub")]);
        assert_eq!(expand("print $(add 1 2)", &e), "print $(add 1 2)");
        assert_eq!(expand("print $($j 8 5)", &e), "print $(sub 8 5)");
        assert_eq!(expand("print $($i 3 4)", &e), "print $($i 3 4)");
    }

    #[test]
    fn quoting_inside_double_quotes() {
        let e = env(&[("q", "a\"b")]);
        assert_eq!(expand("\"$q\"", &e), "\"a\\\"b\"");
    }

    #[test]
    fn recursion_is_bounded() {
        let e = env(&[("a", "$a$a")]);
        let r = expand("$a", &e);
        assert!(r.len() < 100_000);
    }

    #[test]
    fn fan_out_is_bounded_by_the_budget() {
        // nine copies a level, ten levels: 3.4 GB without a bound
        let e = env(&[("a", "$a$a$a$a$a$a$a$a$a")]);
        let b = Budget::new(1 << 20);
        let t = std::time::Instant::now();
        assert_eq!(super::expand("x $a", &e, &b), None);
        assert!(b.exhausted());
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
        // an exhausted budget refuses everything after it
        assert_eq!(super::expand("$b", &env(&[("b", "1")]), &b), None);
        // the same text within its budget
        let e = env(&[("a", "$b$b"), ("b", "xy")]);
        let b = Budget::new(8);
        assert_eq!(super::expand("$a", &e, &b).as_deref(), Some("xyxy"));
        assert_eq!(b.left(), 0);
    }

    /// A value that takes words of its own expansion does work
    /// exponential in the nesting depth while its result stays small; the
    /// whole value made for `${x[i]}` is charged, so the budget bounds
    /// the work.
    #[test]
    fn indexed_self_reference_is_bounded_by_the_budget() {
        // the words asked for are past the end: each is empty, so the
        // substitutions add nothing to charge
        let v = format!(
            "{} ${{x[9]}} ${{x[9]}} ${{x[9]}} ${{x[9]}}",
            "a".repeat(100)
        );
        let e = env(&[("x", v.as_str())]);
        let b = Budget::new(1 << 20);
        let t = std::time::Instant::now();
        assert_eq!(super::expand("$x", &e, &b), None);
        assert!(b.exhausted());
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
        // indexing within the budget still works
        let e = env(&[("x", "a b c"), ("y", "${x[1]}")]);
        let b = Budget::new(1 << 20);
        assert_eq!(super::expand("$y ${x[2]}", &e, &b).as_deref(), Some("b c"));
    }

    #[test]
    fn truncated_inputs() {
        let e = env(&[("a", "1")]);
        for s in [
            "$", "${", "${a", "$(", "$(a", "\"$", "$a\\", "${a[", "${a[1", "${a[x]}",
        ] {
            let _ = expand(s, &e);
        }
    }

    #[test]
    fn lexical_parents() {
        let mut top = Env::new(None);
        top.define("a", "top".into(), true);
        let top = Rc::new(top);
        let mut mid = Env::new(Some(top.clone()));
        mid.define("a", "mid".into(), true);
        let mid = Rc::new(mid);
        assert_eq!(expand("$a", &mid), "mid");
        let p = mid.parent_of(1).unwrap();
        assert_eq!(expand("$a", &p), "top");
    }
}
