//! # IPRewriterPatterns
//!
//! `IPRewriterPatterns(NAME PATTERN, ...)`
//!
//! **Category:** nat. Specifies shared IPRewriter patterns.
//!
//! ## Ports and processing
//!
//! No ports.
//!
//! ## Description
//!
//! Defines named patterns that IPRewriter-like elements may use in input
//! specs of the form `pattern NAME FOUTPUT ROUTPUT`. Each argument is a name
//! followed by a pattern, `SADDR SPORT DADDR DPORT` (or `SADDR DADDR`), as in
//! IPRewriter. Rewriters using the same named pattern share it, including
//! its sequential allocation position. Defining a name twice is an error.
//!
//! ## Handlers
//!
//! None beyond the standard ones.
//!
//! ## Example
//!
//! ```text
//! IPRewriterPatterns(pat 1.0.0.1 1024-65535# - -);
//! rw :: TCPRewriter(pattern pat 0 0);
//! ```
//!
//! ## See also
//!
//! IPRewriter, TCPRewriter

use std::sync::Arc;

use rclick_core::{phase, ConfigureCx, Element};

use super::pattern::Pattern;
use super::spec::PATTERN_NAME_KIND;

/// The IPRewriterPatterns element.
#[derive(Default)]
pub struct IPRewriterPatterns {
    patterns: Vec<(String, Arc<Pattern>)>,
}

impl IPRewriterPatterns {
    /// The patterns this element defines, by name.
    pub fn patterns(&self) -> Vec<(String, Arc<Pattern>)> {
        self.patterns.clone()
    }
}

impl Element for IPRewriterPatterns {
    fn class_name(&self) -> &'static str {
        "IPRewriterPatterns"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::INFO
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut errors = Vec::new();
        let mut out: Vec<(String, Arc<Pattern>, String)> = Vec::new();
        for arg in conf {
            let arg = arg.trim();
            let (name, rest) = match arg.find(char::is_whitespace) {
                Some(i) => (&arg[..i], arg[i..].trim()),
                None => (arg, ""),
            };
            if name.is_empty() {
                continue;
            }
            if cx.lookup_name(PATTERN_NAME_KIND, name).is_some() || out.iter().any(|o| o.0 == name)
            {
                errors.push(format!("pattern '{name}' already defined"));
                continue;
            }
            let words: Vec<&str> = rest.split_whitespace().collect();
            if words.len() < 2 {
                errors.push("syntax error".to_string());
                continue;
            }
            match Pattern::parse(&words, cx.arg_context(), &|_| None) {
                Ok(p) => out.push((name.to_string(), p, rest.to_string())),
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        for (n, _, text) in &out {
            cx.define_name(PATTERN_NAME_KIND, n, text);
        }
        self.patterns = out.into_iter().map(|(n, p, _)| (n, p)).collect();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::registry;
    use rclick_core::testing;

    #[test]
    fn named_pattern_used() {
        let r = testing::build(
            "IPRewriterPatterns(pat 1.0.0.1 1024-65535# - -); i :: Idle; rw :: TCPRewriter(pattern pat 0 0); i -> rw -> i;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "rw.patterns"), "1.0.0.1 1024-65535 - -\n");
        let e = testing::build(
            "IPRewriterPatterns(pat 1.0.0.1 1024-65535# - -, pat 1.0.0.2 - - -);",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("pattern 'pat' already defined"), "{e}");
        let e = testing::build(
            "i :: Idle; rw :: TCPRewriter(pattern nope 0 0); i -> rw -> i;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("input spec 0: no such pattern 'nope'"), "{e}");
    }
}
