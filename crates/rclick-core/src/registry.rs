//! The registry of element classes.
//!
//! Every element crate exports `register(&mut Registry)`; the CLI builds one
//! registry from all of them. Those are the *built-in* classes, fixed once
//! the registry is shared.
//!
//! Classes may also arrive while routers run: an element *package* (a
//! shared library, see docs/PLUGINS.md) brings a set of them. The core
//! knows no shared library: a [`PackageLoader`] (rclick-plugins' one, which
//! the CLI installs) finds and opens packages, and the registry keeps what
//! it returns. `require(package "NAME")` (checked by `Router::build`) and
//! the PluginManager's `load` add packages through a shared `&Registry`;
//! `unload` removes one whose classes no element uses any more.

use std::any::Any;
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};

use crate::element::Element;

/// Makes a fresh, unconfigured element.
pub type Factory = fn() -> Box<dyn Element>;

/// Makes a fresh, unconfigured element of a run-time class.
pub type DynFactory = Arc<dyn Fn() -> Box<dyn Element> + Send + Sync>;

/// Where a class's manual comes from.
#[derive(Clone)]
enum Doc {
    /// A Rust source file whose leading `//!` block is the manual.
    Source(&'static str),
    /// The manual itself (a package's class).
    Text(Arc<str>),
}

/// One registered class.
#[derive(Clone)]
pub struct ClassInfo {
    /// The class name (`Counter`).
    pub name: &'static str,
    /// The package that brought the class, `None` for built-in classes.
    pub package: Option<Arc<str>>,
    factory: DynFactory,
    doc: Doc,
}

impl ClassInfo {
    /// A class of a run-time package: `name` (interned, see [`intern`]),
    /// made by `factory`, documented by `manual`.
    pub fn runtime(name: &str, factory: DynFactory, manual: &str) -> ClassInfo {
        ClassInfo {
            name: intern(name),
            package: None,
            factory,
            doc: Doc::Text(manual.into()),
        }
    }

    /// The manual: the source file's leading `//!` doc comment, without the
    /// comment markers, or a package class's own text.
    pub fn manual(&self) -> String {
        match &self.doc {
            Doc::Source(s) => manual_from_source(s),
            Doc::Text(t) => t.to_string(),
        }
    }

    /// Makes an instance.
    pub fn create(&self) -> Box<dyn Element> {
        (self.factory)()
    }
}

/// Returns a `&'static str` equal to `s`, the same one for equal strings:
/// run-time classes need static names, port counts and processing codes
/// (`Element::class_name` returns `&'static str`). Each distinct string is
/// kept once for the life of the process, so loading a package again
/// allocates nothing new.
pub fn intern(s: &str) -> &'static str {
    static TABLE: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    let t = t.get_or_insert_with(HashSet::new);
    if let Some(&k) = t.get(s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    t.insert(k);
    k
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

/// A package as a loader returns it.
pub struct Package {
    /// The package's name (what `require(package "NAME")` names).
    pub name: String,
    /// The file it came from.
    pub path: String,
    /// Its classes.
    pub classes: Vec<ClassInfo>,
    /// Held by every element of the package's classes (and by nothing
    /// else once registered): the package is in use while its strong
    /// count is above one.
    pub live: Arc<dyn Any + Send + Sync>,
}

/// Finds and opens packages (rclick-plugins' `package` module).
pub trait PackageLoader: Send + Sync {
    /// Loads the package named `name` (from the search path) or, when
    /// `name` contains a `/`, the file at that path. A failure is a
    /// message of one or more lines.
    fn load(&self, name: &str) -> Result<Package, String>;
}

/// What the registry says about a loaded package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageInfo {
    /// The package's name.
    pub name: String,
    /// The file it came from.
    pub path: String,
    /// Its class names.
    pub classes: Vec<&'static str>,
    /// Elements of its classes alive now (in any router or instance).
    pub elements: usize,
}

#[derive(Default)]
struct Runtime {
    /// Run-time classes by name.
    classes: BTreeMap<&'static str, ClassInfo>,
    /// Loaded packages by name.
    packages: BTreeMap<String, Package>,
}

/// Element classes by name.
#[derive(Default)]
pub struct Registry {
    classes: BTreeMap<&'static str, ClassInfo>,
    synonyms: BTreeMap<&'static str, &'static str>,
    runtime: RwLock<Runtime>,
    loader: Option<Arc<dyn PackageLoader>>,
}

impl Clone for Registry {
    /// A copy with the same built-in classes, loader and (shared)
    /// packages loaded now.
    fn clone(&self) -> Registry {
        let rt = self.rt();
        Registry {
            classes: self.classes.clone(),
            synonyms: self.synonyms.clone(),
            runtime: RwLock::new(Runtime {
                classes: rt.classes.clone(),
                packages: rt
                    .packages
                    .iter()
                    .map(|(k, p)| {
                        (
                            k.clone(),
                            Package {
                                name: p.name.clone(),
                                path: p.path.clone(),
                                classes: p.classes.clone(),
                                live: p.live.clone(),
                            },
                        )
                    })
                    .collect(),
            }),
            loader: self.loader.clone(),
        }
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    fn rt(&self) -> std::sync::RwLockReadGuard<'_, Runtime> {
        self.runtime.read().unwrap_or_else(|e| e.into_inner())
    }

    fn rt_mut(&self) -> std::sync::RwLockWriteGuard<'_, Runtime> {
        self.runtime.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a class; a later registration of the same name replaces it.
    pub fn add(&mut self, name: &'static str, factory: Factory, source: &'static str) {
        self.classes.insert(
            name,
            ClassInfo {
                name,
                package: None,
                factory: Arc::new(factory),
                doc: Doc::Source(source),
            },
        );
    }

    /// Registers `alias` as another name for `class` (Click's
    /// `EXPORT_ELEMENT(A-B)` synonyms, like StaticIPLookup for LookupIPRoute).
    pub fn alias(&mut self, alias: &'static str, class: &'static str) {
        self.synonyms.insert(alias, class);
    }

    /// Sets what finds and opens packages. Without one, every package
    /// requirement fails.
    pub fn set_package_loader(&mut self, loader: Arc<dyn PackageLoader>) {
        self.loader = Some(loader);
    }

    /// Looks up a class or synonym, built in or loaded.
    pub fn get(&self, name: &str) -> Option<ClassInfo> {
        self.classes
            .get(name)
            .or_else(|| self.synonyms.get(name).and_then(|c| self.classes.get(c)))
            .cloned()
            .or_else(|| self.rt().classes.get(name).cloned())
    }

    /// Makes an element of class `name`.
    pub fn create(&self, name: &str) -> Option<Box<dyn Element>> {
        if let Some(c) = self
            .classes
            .get(name)
            .or_else(|| self.synonyms.get(name).and_then(|c| self.classes.get(c)))
        {
            return Some(c.create());
        }
        // Made under the read lock, so an unload (which takes the write
        // lock) sees this element.
        self.rt().classes.get(name).map(ClassInfo::create)
    }

    /// All class names (synonyms and loaded classes included), sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self
            .classes
            .keys()
            .chain(self.synonyms.keys())
            .copied()
            .chain(self.rt().classes.keys().copied())
            .collect();
        v.sort_unstable();
        v
    }

    /// Makes sure package `name` is loaded (`require(package "NAME")`):
    /// nothing to do if it is, else the loader loads it. Errors are in
    /// Click's words.
    pub fn require_package(&self, name: &str) -> Result<(), String> {
        if self.rt().packages.contains_key(name) {
            return Ok(());
        }
        self.load_package(name)
            .map(|_| ())
            .map_err(|e| format!("{e}\nrequirement '{name}' not available"))
    }

    /// Loads a package by name or path and registers its classes; returns
    /// its name and class names. A package of the same name already
    /// loaded, or a class name already taken (built in or by another
    /// package), is an error and changes nothing.
    pub fn load_package(&self, name_or_path: &str) -> Result<PackageInfo, String> {
        let what = format!("While loading package '{name_or_path}':");
        let indent = |e: &str| -> String {
            let mut s = what.clone();
            for l in e.lines() {
                s.push_str("\n  ");
                s.push_str(l);
            }
            s
        };
        let Some(loader) = &self.loader else {
            return Err(indent("this program cannot load packages"));
        };
        let mut pkg = loader.load(name_or_path).map_err(|e| indent(&e))?;
        let mut rt = self.rt_mut();
        if let Some(old) = rt.packages.get(&pkg.name) {
            return Err(indent(&format!(
                "package '{}' is already loaded (from {})",
                pkg.name, old.path
            )));
        }
        let mut seen = HashSet::new();
        for c in &pkg.classes {
            let taken = self.classes.contains_key(c.name)
                || self.synonyms.contains_key(c.name)
                || rt.classes.contains_key(c.name);
            if taken || !seen.insert(c.name) {
                return Err(indent(&format!(
                    "element class '{}' already exists; package '{}' not loaded",
                    c.name, pkg.name
                )));
            }
        }
        let pname: Arc<str> = pkg.name.as_str().into();
        for c in &mut pkg.classes {
            c.package = Some(pname.clone());
            rt.classes.insert(c.name, c.clone());
        }
        let info = package_info(&pkg);
        rt.packages.insert(pkg.name.clone(), pkg);
        Ok(info)
    }

    /// Removes package `name` and its classes. Refused while an element of
    /// one of its classes exists (in a router, as a plugin instance, or in
    /// an old router not yet dropped).
    pub fn unload_package(&self, name: &str) -> Result<(), String> {
        let mut rt = self.rt_mut();
        let Some(p) = rt.packages.get(name) else {
            return Err(format!("no package '{name}' is loaded"));
        };
        let n = Arc::strong_count(&p.live) - 1;
        if n > 0 {
            return Err(format!(
                "package '{name}' is in use: {n} element{} of its classes exist{}",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" }
            ));
        }
        let p = rt.packages.remove(name).expect("checked above");
        for c in &p.classes {
            rt.classes.remove(c.name);
        }
        Ok(())
    }

    /// The loaded packages, by name.
    pub fn packages(&self) -> Vec<PackageInfo> {
        self.rt().packages.values().map(package_info).collect()
    }
}

fn package_info(p: &Package) -> PackageInfo {
    PackageInfo {
        name: p.name.clone(),
        path: p.path.clone(),
        classes: p.classes.iter().map(|c| c.name).collect(),
        elements: Arc::strong_count(&p.live) - 1,
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

    #[test]
    fn intern_returns_one_str_per_text() {
        let a = intern(&String::from("PayloadXorTest"));
        let b = intern("PayloadXorTest");
        assert_eq!(a, "PayloadXorTest");
        assert!(std::ptr::eq(a, b));
    }

    struct Nothing;
    impl Element for Nothing {
        fn class_name(&self) -> &'static str {
            "Nothing"
        }
    }

    /// Holds the package's token, as a package element does.
    struct Held(#[allow(dead_code)] Arc<dyn Any + Send + Sync>);
    impl Element for Held {
        fn class_name(&self) -> &'static str {
            "Held"
        }
    }

    /// A loader that makes package "p" with classes Held and (if asked)
    /// a clashing Nothing.
    struct TestLoader {
        clash: bool,
    }
    impl PackageLoader for TestLoader {
        fn load(&self, name: &str) -> Result<Package, String> {
            if name != "p" {
                return Err(format!("can't find required package '{name}'"));
            }
            let live: Arc<dyn Any + Send + Sync> = Arc::new(());
            let weak = Arc::downgrade(&live);
            let f: DynFactory =
                Arc::new(move || Box::new(Held(weak.upgrade().expect("registered"))));
            let mut classes = vec![ClassInfo::runtime("Held", f, "# Held\n")];
            if self.clash {
                classes.push(ClassInfo::runtime(
                    "Nothing",
                    Arc::new(|| Box::new(Nothing)),
                    "",
                ));
            }
            Ok(Package {
                name: "p".into(),
                path: "/x/libp.so".into(),
                classes,
                live,
            })
        }
    }

    fn registry(clash: bool) -> Registry {
        let mut r = Registry::new();
        r.add("Nothing", || Box::new(Nothing), "//! # Nothing\n");
        r.set_package_loader(Arc::new(TestLoader { clash }));
        r
    }

    #[test]
    fn packages_load_create_refuse_unload_in_use() {
        let r = registry(false);
        assert!(r.create("Held").is_none());
        r.require_package("p").unwrap();
        r.require_package("p").unwrap(); // already loaded: nothing to do
        assert!(r.names().contains(&"Held"));
        assert_eq!(r.get("Held").unwrap().manual(), "# Held\n");
        assert_eq!(r.get("Held").unwrap().package.as_deref(), Some("p"));
        let e = r.load_package("p").unwrap_err();
        assert!(e.contains("already loaded (from /x/libp.so)"), "{e}");
        let el = r.create("Held").unwrap();
        assert_eq!(r.packages()[0].elements, 1);
        let e = r.unload_package("p").unwrap_err();
        assert_eq!(e, "package 'p' is in use: 1 element of its classes exists");
        drop(el);
        r.unload_package("p").unwrap();
        assert!(r.create("Held").is_none());
        assert!(r.packages().is_empty());
        assert_eq!(
            r.unload_package("p").unwrap_err(),
            "no package 'p' is loaded"
        );
    }

    #[test]
    fn unknown_package_and_clashing_class_are_errors_that_change_nothing() {
        let r = registry(false);
        let e = r.require_package("nosuch").unwrap_err();
        assert_eq!(
            e,
            "While loading package 'nosuch':\n  can't find required package 'nosuch'\n\
             requirement 'nosuch' not available"
        );
        let r = registry(true);
        let e = r.load_package("p").unwrap_err();
        assert!(e.contains("element class 'Nothing' already exists"), "{e}");
        assert!(r.create("Held").is_none());
        assert!(r.packages().is_empty());
        let r = Registry::new();
        let e = r.require_package("p").unwrap_err();
        assert!(e.contains("this program cannot load packages"), "{e}");
    }
}
