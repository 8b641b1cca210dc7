//! The registry of element classes.
//!
//! Every element crate exports `register(&mut Registry)`; the CLI builds one
//! registry from all of them. Classes can be added at any time before a
//! router is built (run-time loaded classes register the same way).

use std::collections::BTreeMap;

use crate::element::Element;

/// Makes a fresh, unconfigured element.
pub type Factory = fn() -> Box<dyn Element>;

/// One registered class.
#[derive(Clone)]
pub struct ClassInfo {
    /// The class name (`Counter`).
    pub name: &'static str,
    /// Makes an instance.
    pub factory: Factory,
    /// The element's source file; its leading `//!` lines are its manual.
    pub source: &'static str,
}

impl ClassInfo {
    /// The manual: the source file's leading `//!` doc comment, without the
    /// comment markers.
    pub fn manual(&self) -> String {
        manual_from_source(self.source)
    }
}

/// Extracts the leading `//!` block of a Rust source file as text.
pub fn manual_from_source(source: &str) -> String {
    let mut out = String::new();
    for line in source.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("//!") {
            out.push_str(rest.strip_prefix(' ').unwrap_or(rest));
            out.push('\n');
        } else if t.is_empty() && out.is_empty() {
            continue;
        } else {
            break;
        }
    }
    out
}

/// Element classes by name.
#[derive(Clone, Default)]
pub struct Registry {
    classes: BTreeMap<&'static str, ClassInfo>,
    synonyms: BTreeMap<&'static str, &'static str>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers a class; a later registration of the same name replaces it.
    pub fn add(&mut self, name: &'static str, factory: Factory, source: &'static str) {
        self.classes.insert(
            name,
            ClassInfo {
                name,
                factory,
                source,
            },
        );
    }

    /// Registers `alias` as another name for `class` (Click's
    /// `EXPORT_ELEMENT(A-B)` synonyms, like StaticIPLookup for LookupIPRoute).
    pub fn alias(&mut self, alias: &'static str, class: &'static str) {
        self.synonyms.insert(alias, class);
    }

    /// Looks up a class or synonym.
    pub fn get(&self, name: &str) -> Option<&ClassInfo> {
        self.classes
            .get(name)
            .or_else(|| self.synonyms.get(name).and_then(|c| self.classes.get(c)))
    }

    /// Makes an element of class `name`.
    pub fn create(&self, name: &str) -> Option<Box<dyn Element>> {
        self.get(name).map(|c| (c.factory)())
    }

    /// All class names (synonyms included), sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self
            .classes
            .keys()
            .chain(self.synonyms.keys())
            .copied()
            .collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_extraction() {
        let src = "\n//! # Foo\n//!\n//! Does things.\nuse x;\n//! not this\n";
        assert_eq!(manual_from_source(src), "# Foo\n\nDoes things.\n");
    }
}
