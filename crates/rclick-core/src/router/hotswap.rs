//! Hot reconfiguration: Click's `-R` flag and global `hotconfig` handler.
//!
//! Writing `hotconfig` parses and builds a whole new router with the
//! running router's classes. If that fails, the write returns every error
//! and the running router carries on untouched. If it succeeds, the new
//! router waits in a request slot and the running router is told to quit;
//! the driver loop ([`HotConfig::run`]) then lets each new element whose
//! name and class match an old one take that element's state
//! ([`Element::take_state`](crate::Element::take_state): queued packets,
//! tables, open connections), cleans the old router up and runs the new
//! one. Time continues: a simulated clock resumes where the old one was.

use std::sync::{Arc, Mutex, Weak};

use rclick_lang::FlatConfig;

use super::{BuildOptions, Ctx, Router, RouterInner};
use crate::clock::Clock;

/// Changes a parsed configuration before it is built (the `click` driver
/// adds its `-p`/`-u` ControlSockets).
pub type Prepare = Box<dyn Fn(&mut FlatConfig, bool) + Send + Sync>;

/// The hot-reconfiguration service of one driver. See the module
/// documentation.
pub struct HotConfig {
    parse: rclick_lang::Options,
    template: BuildOptions,
    prepare: Option<Prepare>,
    current: Mutex<Weak<RouterInner>>,
    pending: Mutex<Option<Router>>,
}

impl std::fmt::Debug for HotConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HotConfig").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl HotConfig {
    /// A service that parses new configurations with `parse` (file name
    /// for messages, definitions), builds them with `template`'s options
    /// and runs `prepare` on each parsed configuration first (its flag
    /// says whether the configuration replaces a running one).
    pub fn new(
        parse: rclick_lang::Options,
        template: BuildOptions,
        prepare: Option<Prepare>,
    ) -> Arc<HotConfig> {
        Arc::new(HotConfig {
            parse,
            template,
            prepare,
            current: Mutex::new(Weak::new()),
            pending: Mutex::new(None),
        })
    }

    /// Builds `flat` (after `prepare`) as a router offering the `hotconfig`
    /// handler; `from` is the router it will replace, if any.
    pub fn build(
        self: &Arc<Self>,
        mut flat: FlatConfig,
        source_text: &str,
        registry: Arc<crate::Registry>,
        from: Option<Router>,
    ) -> Result<Router, super::BuildError> {
        if let Some(p) = &self.prepare {
            p(&mut flat, from.is_some());
        }
        let mut opts = self.template.clone();
        opts.source_text = source_text.to_string();
        opts.hotswap_from = from;
        opts.hotconfig = Some(self.clone());
        Router::build(flat, registry, opts)
    }

    /// The `hotconfig` write: builds `text` as the next router.
    pub(crate) fn request(self: &Arc<Self>, text: &str) -> Result<(), String> {
        let old = lock(&self.current)
            .upgrade()
            .map(|inner| Router { inner })
            .ok_or_else(|| "no router is running".to_string())?;
        let flat = rclick_lang::parse(text, &self.parse).map_err(|errs| {
            errs.iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let registry = old.inner.registry.clone();
        let undeclared = undeclared_elements(&flat, &registry);
        if !undeclared.is_empty() {
            return Err(undeclared.join("\n"));
        }
        let new = self
            .build(flat, text, registry, Some(old.clone()))
            .map_err(|e| e.to_string())?;
        *lock(&self.pending) = Some(new);
        old.inner.request_quit();
        Ok(())
    }

    /// The router a successful `hotconfig` write built, if one waits.
    pub fn take_pending(&self) -> Option<Router> {
        lock(&self.pending).take()
    }

    /// Runs `router`, and each router that replaces it, until the last one
    /// stops; returns that last router (for `-h` handlers and the like).
    pub fn run(self: &Arc<Self>, mut router: Router) -> Router {
        loop {
            *lock(&self.current) = Arc::downgrade(&router.inner);
            router.run();
            let Some(next) = self.take_pending() else {
                break;
            };
            transfer_state(&router, &next);
            router = next;
        }
        *lock(&self.current) = Weak::new();
        router
    }
}

/// Click's lexer reports a bare word that names no class as an undeclared
/// element (it cannot tell it from a misspelt element name); the parser
/// here knows no classes, so such words arrive as anonymous elements of an
/// unknown class with no configuration.
fn undeclared_elements(flat: &FlatConfig, registry: &crate::Registry) -> Vec<String> {
    flat.elements
        .iter()
        .filter(|e| {
            e.config.is_empty()
                && registry.create(&e.class).is_none()
                && e.name.rsplit_once('@').is_some_and(|(base, n)| {
                    base.rsplit('/').next() == Some(e.class.as_str())
                        && n.bytes().all(|b| b.is_ascii_digit())
                })
        })
        .map(|e| format!("{}: undeclared element '{}'", e.landmark, e.class))
        .collect()
}

/// The clock of a router replacing one whose clock is `old`: simulated time
/// resumes where it was, a warped clock keeps its factor.
pub(crate) fn clock_after(old: &Clock) -> Clock {
    if old.is_simulated() {
        Clock::simulated_from(old.now())
    } else {
        let c = Clock::real();
        if old.warp_factor() != 1.0 {
            let _ = c.set_warp_factor(old.warp_factor());
        }
        c
    }
}

/// Hot swap: each element of `new` whose name and class match an element
/// of `old` takes that element's state; then `old`'s elements are cleaned
/// up. Neither router may be running.
pub fn transfer_state(old: &Router, new: &Router) {
    let (o, n) = (&*old.inner, &*new.inner);
    let mut sched = new.external_sched();
    let mut osched = old.external_sched();
    for e in 0..n.info.len() {
        let Some(oe) = o.find(&n.info[e].name) else {
            continue;
        };
        if o.info[oe].class != n.info[e].class {
            continue;
        }
        let _ = Ctx::new(n, &mut sched, e).enter_and(e, false, |ng, cx| {
            let _ = Ctx::new(o, &mut osched, oe).enter_and(oe, false, |og, _| {
                ng.take_state(og, cx);
            });
        });
    }
    drop(osched);
    old.cleanup();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::{Element, HandlerDef};
    use crate::registry::Registry;
    use crate::router::{ConfigureCx, InitCx};

    /// Holds a number; takes it from its predecessor; counts cleanups.
    #[derive(Default)]
    struct Keep {
        n: u64,
        took: bool,
        swapped_in: bool,
    }
    impl Element for Keep {
        fn class_name(&self) -> &'static str {
            "Keep"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            self.n = conf.first().and_then(|s| s.parse().ok()).unwrap_or(0);
            Ok(())
        }
        fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
            self.swapped_in = cx.hotswap_element().is_some();
            Ok(())
        }
        fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
            if let Some(o) = old.downcast_mut::<Keep>() {
                self.n += std::mem::take(&mut o.n);
                self.took = true;
            }
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("n", 0), HandlerDef::read("info", 1)]
        }
        fn read_handler(&mut self, id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(match id {
                0 => self.n.to_string(),
                _ => format!("{} {}", self.took, self.swapped_in),
            })
        }
    }
    struct Other;
    impl Element for Other {
        fn class_name(&self) -> &'static str {
            "Other"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn configure(&mut self, _c: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            Ok(())
        }
    }

    fn service() -> (Arc<HotConfig>, Arc<Registry>) {
        let mut r = Registry::new();
        r.add("Keep", || Box::<Keep>::default(), "");
        r.add("Other", || Box::new(Other), "");
        let parse = rclick_lang::Options {
            file_name: "config".into(),
            defines: vec![],
        };
        let opts = BuildOptions {
            simtime: true,
            threads: 1,
            capture_log: true,
            ..Default::default()
        };
        (HotConfig::new(parse, opts, None), Arc::new(r))
    }

    fn build(h: &Arc<HotConfig>, reg: &Arc<Registry>, text: &str, from: Option<Router>) -> Router {
        let flat = rclick_lang::parse(text, &h.parse).unwrap();
        h.build(flat, text, reg.clone(), from).unwrap()
    }

    #[test]
    fn state_moves_by_name_and_class() {
        let (h, reg) = service();
        let old = build(&h, &reg, "a :: Keep(5); b :: Keep(7); c :: Keep(9);", None);
        let new = build(
            &h,
            &reg,
            "a :: Keep(1); b :: Other; c :: Keep(0); d :: Keep(3);",
            Some(old.clone()),
        );
        transfer_state(&old, &new);
        assert_eq!(new.read_handler("a.n", "").unwrap(), "6");
        assert_eq!(new.read_handler("a.info", "").unwrap(), "true true");
        assert_eq!(new.read_handler("c.n", "").unwrap(), "9");
        assert_eq!(new.read_handler("d.n", "").unwrap(), "3");
        assert_eq!(new.read_handler("d.info", "").unwrap(), "false false");
        assert_eq!(old.read_handler("a.n", "").unwrap(), "0");
        // b changed class: its state stays behind.
        assert_eq!(old.read_handler("b.n", "").unwrap(), "7");
    }

    #[test]
    fn hotconfig_write_builds_or_reports() {
        let (h, reg) = service();
        let old = build(&h, &reg, "a :: Keep(5);", None);
        *lock(&h.current) = Arc::downgrade(&old.inner);
        assert_eq!(old.handler_flags("hotconfig").map(|f| f.write), Some(true));
        let err = old.write_handler("hotconfig", "x :: Nope;").unwrap_err();
        assert!(err.contains("unknown element class 'Nope'"), "{err}");
        assert!(err.ends_with("Router could not be initialized!"), "{err}");
        assert!(h.take_pending().is_none());
        assert_eq!(old.read_handler("a.n", "").unwrap(), "5");
        old.write_handler("hotconfig", "a :: Keep(2);").unwrap();
        let new = h.take_pending().expect("pending router");
        assert_eq!(new.clock().now_nsec(), old.clock().now_nsec());
        transfer_state(&old, &new);
        assert_eq!(new.read_handler("a.n", "").unwrap(), "7");
    }

    #[test]
    fn run_swaps_until_the_last_router_stops() {
        let (h, reg) = service();
        let first = build(&h, &reg, "a :: Keep(5);", None);
        // Ask for the swap before running: the first router quits at once.
        *lock(&h.current) = Arc::downgrade(&first.inner);
        first
            .write_handler("hotconfig", "a :: Keep(1); o :: Other;")
            .unwrap();
        let last = h.run(first);
        assert_eq!(last.read_handler("a.n", "").unwrap(), "6");
        assert!(last.find("o").is_some());
    }
}
