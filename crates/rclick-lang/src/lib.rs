//! rclick-lang: the Click configuration language front end.
//!
//! [`parse`] lexes and parses a Click configuration, expands compound
//! element classes (with overloading and lexically scoped `$variables`),
//! resolves element groups and connection tunnels, and returns a
//! [`FlatConfig`]: primitive elements in Click's order plus their
//! connections. [`FlatConfig::unparse`] prints it the way Click's
//! `flatconfig` handler (`click -o-`) does.
//!
//! API boundary: this crate knows no element class. Which names are
//! classes is decided by the language alone (declared with `elementclass`,
//! or used as a class); whether a class exists is the router's business.
#![forbid(unsafe_code)]

pub mod confparse;
mod flatten;
mod lexer;
mod parser;
mod unparse;
mod vars;

use std::fmt;
use std::sync::Arc;

/// A source position: file name and line number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Landmark {
    /// File name (`config` for `-e` expressions).
    pub file: Arc<str>,
    /// Line number, starting at 1.
    pub line: u32,
}

impl fmt::Display for Landmark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.file.chars().last();
        if last.is_some_and(|c| c == ':' || c.is_whitespace()) {
            write!(f, "{}{}", self.file, self.line)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// An error message, usually with the position it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is, if known.
    pub landmark: Option<Landmark>,
    /// The message, as Click words it.
    pub message: String,
}

/// Diagnostics one stage keeps (the parser's, the flattener's); beyond
/// them one more says that the rest are not shown. A few kilobytes of
/// text whose compounds multiply one mistake would otherwise produce
/// millions of messages (lang_parse fuzzing, fourth round).
pub(crate) const MAX_DIAGNOSTICS: usize = 1_000;

/// Adds `d` to `diags` unless [`MAX_DIAGNOSTICS`] are there already.
pub(crate) fn push_diagnostic(diags: &mut Vec<Diagnostic>, d: Diagnostic) {
    match diags.len().cmp(&MAX_DIAGNOSTICS) {
        std::cmp::Ordering::Less => diags.push(d),
        std::cmp::Ordering::Equal => diags.push(Diagnostic::new(
            None,
            format!("more than {MAX_DIAGNOSTICS} errors; the rest are not shown"),
        )),
        std::cmp::Ordering::Greater => {}
    }
}

impl Diagnostic {
    pub(crate) fn new(landmark: Option<Landmark>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            landmark,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.landmark {
            Some(lm) => write!(f, "{}: {}", lm, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}

/// A primitive element of the flattened configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatElement {
    /// Full name, compound members as `outer/inner`.
    pub name: String,
    /// Primitive class name.
    pub class: String,
    /// Configuration string, verbatim (variables expanded).
    pub config: String,
    /// Where the element was declared.
    pub landmark: Landmark,
}

/// A connection between two elements of a [`FlatConfig`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatConnection {
    /// Index of the source element in [`FlatConfig::elements`].
    pub from: usize,
    /// Output port of the source element.
    pub from_port: usize,
    /// Index of the destination element.
    pub to: usize,
    /// Input port of the destination element.
    pub to_port: usize,
    /// Where the connection was written.
    pub landmark: Landmark,
}

/// A flattened router configuration: primitive elements only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatConfig {
    /// Elements in Click's order (file elements first, then compound
    /// members as compounds are expanded).
    pub elements: Vec<FlatElement>,
    /// Connections, sorted by (to, to_port, from, from_port), without
    /// duplicates.
    pub connections: Vec<FlatConnection>,
    /// Requirement names: the package names of `require(NAME)` /
    /// `require(package NAME)`, and `compact_config`.
    pub requirements: Vec<String>,
    /// Requirements as Click stores them: (type, value) pairs such as
    /// `("package", "foo")` or `("compact_config", "")`.
    pub requirement_pairs: Vec<(String, String)>,
}

impl FlatConfig {
    /// Looks up an element index by name.
    pub fn element_index(&self, name: &str) -> Option<usize> {
        self.elements.iter().position(|e| e.name == name)
    }

    /// True if the configuration has `require(compact_config)`.
    pub fn compact(&self) -> bool {
        self.requirement_pairs
            .iter()
            .any(|(t, _)| t == "compact_config")
    }
}

/// Parse options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// File name used in landmarks (`config` if empty).
    pub file_name: String,
    /// `NAME=value` definitions from the command line; they override
    /// `define` statements of the file.
    pub defines: Vec<(String, String)>,
}

/// Parses a Click configuration and flattens it.
///
/// All errors of the file are collected; if there is any, they are
/// returned in the order Click reports them.
pub fn parse(text: &str, opts: &Options) -> Result<FlatConfig, Vec<Diagnostic>> {
    parse_with_limits(text, opts, Limits::default())
}

/// What compound and variable expansion may grow a configuration to;
/// beyond either bound the configuration is refused with an error.
/// [`parse`] uses the default, the production bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes that `$variable` expansion may produce over the whole
    /// configuration (each substitution charged once per level it passes
    /// through); 128 MiB by default.
    pub expansion_bytes: usize,
    /// Elements that compound expansion may create; 100,000 by default.
    pub elements: usize,
    /// Connections the file's statements may make, connections that
    /// compound expansion may create, and connections the flattened
    /// configuration may have once tunnels are resolved (each bound on
    /// its own); 1,000,000 by default.
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            expansion_bytes: flatten::MAX_EXPANSION_BYTES,
            elements: flatten::MAX_ELEMENTS,
            connections: flatten::MAX_CONNECTIONS,
        }
    }
}

/// [`parse`] with other bounds than the production ones (the fuzz targets
/// use smaller ones, so that an input growing to the bound does not take
/// a second).
pub fn parse_with_limits(
    text: &str,
    opts: &Options,
    limits: Limits,
) -> Result<FlatConfig, Vec<Diagnostic>> {
    let mut p = parser::Parser::new(text, &opts.file_name);
    p.max_connections = limits.connections;
    p.parse();
    let mut diags = std::mem::take(&mut p.lx.diags);
    let requirements = std::mem::take(&mut p.requirements);
    let top = p.stack.first().expect("file scope");
    let flat = flatten::flatten(
        &p.classes,
        top,
        &opts.defines,
        requirements,
        &mut diags,
        limits,
    );
    if diags.is_empty() {
        Ok(flat)
    } else {
        Err(diags)
    }
}

/// Each stage of [`parse`] on its own, for fuzzing and tools that look at
/// one stage: tokenizing, parsing without flattening, and `$variable`
/// expansion. None of them reads anything but its arguments, except that
/// the parser reads the files `require(library FILE)` names.
pub mod stages {
    use crate::lexer::{Lexer, Tok};
    use crate::vars::{Budget, Env};
    use crate::Diagnostic;

    /// Tokenizes `text` as the parser would see it: after each `(` the
    /// configuration string up to its balancing `)` is one token. Returns
    /// the tokens' texts (configuration strings as `(...)`) and the
    /// diagnostics (unterminated strings and comments).
    pub fn lex(text: &str) -> (Vec<String>, Vec<Diagnostic>) {
        let mut lx = Lexer::new(text, "config");
        let mut out = Vec::new();
        loop {
            let t = lx.lex();
            if t.is(Tok::Eof) {
                break;
            }
            let open = t.is_char(b'(');
            out.push(t.text);
            if open {
                out.push(format!("({})", lx.lex_config()));
                lx.expect_char(b')', false);
            }
        }
        (out, std::mem::take(&mut lx.diags))
    }

    /// Parses `text` into its classes and compounds without flattening;
    /// returns the diagnostics and the number of element classes seen.
    pub fn parse_only(text: &str) -> (usize, Vec<Diagnostic>) {
        let mut p = crate::parser::Parser::new(text, "config");
        p.parse();
        (p.classes.len(), std::mem::take(&mut p.lx.diags))
    }

    /// Expands `$variables` in `config` with `defines` (the later of two
    /// equal names wins), producing at most `budget` bytes; `None` when the
    /// budget would be exceeded.
    pub fn expand(config: &str, defines: &[(String, String)], budget: usize) -> Option<String> {
        let mut env = Env::new(None);
        for (n, v) in defines {
            env.define(n, v.clone(), true);
        }
        crate::vars::expand(config, &env, &Budget::new(budget))
    }
}

#[cfg(test)]
mod tests;
