//! Input specifications (Click's `IPRewriterInput`): what a rewriter's
//! input does with packets of unknown flows (`drop`, `pass OUTPUT`,
//! `keep FOUTPUT ROUTPUT`, `pattern ...`, a mapper element), how the specs
//! are parsed, and their counters and text.

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use rclick_core::args::ArgContext;
use rclick_core::router::ElementId;
use rclick_core::{ConfigureCx, Ctx};

use super::pattern::{parse_ports, parse_with_ports, Pattern};

/// Name-table kind under which IPRewriterPatterns defines its patterns.
pub const PATTERN_NAME_KIND: &str = "IPRewriterPattern";

/// A round-robin mapper's patterns (RoundRobinIPMapper).
#[derive(Debug, Default)]
pub struct MapperShared {
    /// Patterns with their forward and reply outputs.
    pub patterns: Vec<(Arc<Pattern>, u32, u32)>,
    /// The next pattern to try.
    pub last: AtomicUsize,
    /// SourceIPHashMapper's ring: when set, the source address picks the
    /// pattern instead of turns.
    pub hash: Option<super::source_ip_hash_mapper::ConsistentHash>,
}

/// How an input port handles packets of unknown flows.
#[derive(Clone, Debug)]
pub enum InputKind {
    /// `drop`.
    Drop,
    /// `pass OUTPUT`.
    Pass,
    /// `keep FOUTPUT ROUTPUT`.
    Keep,
    /// `pattern ...`.
    Pattern(Arc<Pattern>),
    /// `ELEMENTNAME`: a mapper element.
    Mapper(Arc<MapperShared>),
}

/// One input specification and its counters.
#[derive(Clone, Debug)]
pub struct InputSpec {
    /// What to do.
    pub kind: InputKind,
    /// Forward output (`pass` output).
    pub foutput: u32,
    /// Reply output.
    pub routput: u32,
    /// Live flows this input created.
    pub count: u32,
    /// Flows this input failed to create.
    pub failures: u32,
}

impl InputSpec {
    /// An input spec with zero counters.
    pub fn new(kind: InputKind, foutput: u32, routput: u32) -> InputSpec {
        InputSpec {
            kind,
            foutput,
            routput,
            count: 0,
            failures: 0,
        }
    }
    /// Click's `patterns` handler line for this spec.
    pub fn unparse(&self) -> String {
        let mut s = match &self.kind {
            InputKind::Drop => "<drop>".to_string(),
            InputKind::Pass => "<nochange>".to_string(),
            InputKind::Keep => "<keep>".to_string(),
            InputKind::Pattern(p) => p.unparse(),
            InputKind::Mapper(_) => "<mapper>".to_string(),
        };
        if self.count != 0 {
            s.push_str(&format!(" [{}]", self.count));
        }
        s
    }
}

/// Classes implementing Click's IPMapper interface.
pub const MAPPER_CLASSES: &[&str] = &["RoundRobinIPMapper", "SourceIPHashMapper"];

/// What parsing an input spec needs from its context.
pub trait SpecContext {
    /// Finds an element.
    fn find_element(&self, name: &str) -> Option<ElementId>;
    /// An element's class.
    fn class_of(&self, e: ElementId) -> String;
    /// A name defined by another element.
    fn lookup(&self, kind: &str, name: &str) -> Option<String>;
    /// Address names.
    fn args_ctx(&self) -> &dyn ArgContext;
}

/// The configuration context (configure) and the run-time one (a
/// `patternN` write) answer alike.
macro_rules! spec_context {
    ($($t:ty),*) => {$(
        impl SpecContext for $t {
            fn find_element(&self, name: &str) -> Option<ElementId> {
                self.find(name)
            }
            fn class_of(&self, e: ElementId) -> String {
                self.element_info(e).class.clone()
            }
            fn lookup(&self, kind: &str, name: &str) -> Option<String> {
                self.lookup_name(kind, name).map(str::to_string)
            }
            fn args_ctx(&self) -> &dyn ArgContext {
                self.arg_context()
            }
        }
    )*};
}

spec_context!(ConfigureCx<'_>, Ctx<'_>);

/// Parses a named pattern's text as defined by IPRewriterPatterns.
pub fn named_pattern(cx: &dyn SpecContext, name: &str) -> Option<Arc<Pattern>> {
    let text = cx.lookup(PATTERN_NAME_KIND, name)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    Pattern::parse(&words, cx.args_ctx(), &|_| None).ok()
}

/// Input specs with the references they still need resolved.
pub(crate) type ParsedSpecs = (Vec<InputSpec>, Vec<(usize, Pending)>);

/// A reference to be resolved at initialization.
#[derive(Clone, Debug)]
pub(crate) enum Pending {
    Named(String),
    Mapper(ElementId),
}

/// Parses one input spec (Click's `parse_input_spec`) without the
/// `input spec N: ` prefix on errors.
pub(crate) fn parse_input_spec(
    line: &str,
    noutputs: usize,
    cx: &dyn SpecContext,
) -> Result<(InputSpec, Option<Pending>), String> {
    let line = line.trim();
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    if word.is_empty() {
        return Err("empty argument".into());
    }
    let in_range = |o: i64| o >= 0 && (o as usize) < noutputs;
    match word {
        "pass" | "passthrough" | "nochange" => {
            let o = if rest.is_empty() {
                0
            } else {
                rest.parse::<i64>()
                    .map_err(|_| "syntax error, expected 'nochange [OUTPUT]'".to_string())?
            };
            if !in_range(o) {
                return Err("output port out of range".into());
            }
            Ok((InputSpec::new(InputKind::Pass, o as u32, 0), None))
        }
        "keep" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let (f, r) = parse_ports(&words)?;
            if !in_range(f) || !in_range(r) {
                return Err("output port out of range".into());
            }
            Ok((InputSpec::new(InputKind::Keep, f as u32, r as u32), None))
        }
        "drop" | "discard" => {
            if !rest.is_empty() {
                return Err(format!("syntax error, expected '{word}'"));
            }
            Ok((InputSpec::new(InputKind::Drop, 0, 0), None))
        }
        "pattern" | "xpattern" => {
            let named_used = std::cell::RefCell::new(None);
            let (p, f, r) = parse_with_ports(rest, cx.args_ctx(), &|n| {
                let p = named_pattern(cx, n);
                if p.is_some() {
                    *named_used.borrow_mut() = Some(n.to_string());
                }
                p
            })?;
            if !in_range(f) || !in_range(r) {
                return Err("output port out of range".into());
            }
            let pending = named_used.into_inner().map(Pending::Named);
            Ok((
                InputSpec::new(InputKind::Pattern(p), f as u32, r as u32),
                pending,
            ))
        }
        _ => {
            let Some(e) = cx.find_element(word) else {
                return Err("unknown specification".into());
            };
            if !rest.is_empty() {
                return Err("syntax error, expected element name".into());
            }
            if !MAPPER_CLASSES.contains(&cx.class_of(e).as_str()) {
                return Err("element is not an IPMapper".into());
            }
            Ok((
                InputSpec::new(InputKind::Mapper(Arc::new(MapperShared::default())), 0, 0),
                Some(Pending::Mapper(e)),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Element 0 is a mapper, element 1 a Counter; pattern `pat` is defined.
    struct Cx;

    impl SpecContext for Cx {
        fn find_element(&self, name: &str) -> Option<ElementId> {
            ["map", "ctr"].iter().position(|n| *n == name)
        }
        fn class_of(&self, e: ElementId) -> String {
            ["RoundRobinIPMapper", "Counter"][e].to_string()
        }
        fn lookup(&self, kind: &str, name: &str) -> Option<String> {
            (kind == PATTERN_NAME_KIND && name == "pat").then(|| "1.0.0.1 - - -".to_string())
        }
        fn args_ctx(&self) -> &dyn ArgContext {
            &rclick_core::args::NoContext
        }
    }

    fn parse(line: &str) -> Result<(InputSpec, Option<Pending>), String> {
        parse_input_spec(line, 2, &Cx)
    }

    #[test]
    fn each_kind_of_spec_parses_with_its_outputs() {
        let (s, p) = parse("pass 1").unwrap();
        assert!(matches!(s.kind, InputKind::Pass) && s.foutput == 1 && p.is_none());
        assert_eq!(s.unparse(), "<nochange>");
        let (s, _) = parse("nochange").unwrap();
        assert_eq!(s.foutput, 0);
        let (s, _) = parse("keep 0 1").unwrap();
        assert!(matches!(s.kind, InputKind::Keep) && (s.foutput, s.routput) == (0, 1));
        assert!(matches!(parse("discard").unwrap().0.kind, InputKind::Drop));
        let (s, p) = parse("pattern 1.0.0.1 1024-65535 - - 0 1").unwrap();
        assert!(matches!(s.kind, InputKind::Pattern(_)) && p.is_none());
        assert_eq!(s.unparse(), "1.0.0.1 1024-65535 - -");
        let (s, p) = parse("pattern pat 1 0").unwrap();
        assert!(matches!(s.kind, InputKind::Pattern(_)));
        assert!(matches!(p, Some(Pending::Named(n)) if n == "pat"));
        let (s, p) = parse("map").unwrap();
        assert!(matches!(s.kind, InputKind::Mapper(_)));
        assert!(matches!(p, Some(Pending::Mapper(0))));
    }

    #[test]
    fn bad_specs_say_why() {
        let err = |l: &str| parse(l).err().unwrap();
        assert_eq!(err(""), "empty argument");
        assert_eq!(err("pass 2"), "output port out of range");
        assert_eq!(err("pass x"), "syntax error, expected 'nochange [OUTPUT]'");
        assert_eq!(err("keep 0 5"), "output port out of range");
        assert_eq!(err("drop 1"), "syntax error, expected 'drop'");
        assert_eq!(err("nosuch"), "unknown specification");
        assert_eq!(err("ctr"), "element is not an IPMapper");
        assert_eq!(err("map 1"), "syntax error, expected element name");
    }

    #[test]
    fn counts_show_in_the_text() {
        let mut s = InputSpec::new(InputKind::Keep, 0, 0);
        assert_eq!(s.unparse(), "<keep>");
        s.count = 3;
        assert_eq!(s.unparse(), "<keep> [3]");
    }
}
