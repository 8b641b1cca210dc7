//! Handlers: names, the standard per-element and global ones, and calls.
//!
//! A handler is named `element.handler` (`c.count`), or just `handler` for
//! the router's global handlers (`version`, `list`, `config`, `stop`...).
//! Read values come back without a trailing newline; callers that print
//! them add one, as Click does for non-raw handlers.

use std::sync::atomic::Ordering;

use super::ctx::{ConfigureCx, Ctx};
use super::sched::{ThreadSched, MAX_TICKETS};
use super::{ElementId, Router, RouterInner};
use crate::element::{HandlerDef, HandlerFlags, HandlerKind};
use crate::spec::Processing;

/// Global (router) handlers.
const GLOBAL: &[(&str, HandlerFlags)] = &[
    ("version", HandlerFlags::READ),
    ("list", HandlerFlags::READ),
    ("classes", HandlerFlags::READ),
    ("config", HandlerFlags::READ),
    ("flatconfig", HandlerFlags::READ),
    ("requirements", HandlerFlags::READ),
    ("handlers", HandlerFlags::READ),
    ("runcount", HandlerFlags::READ),
    ("stop", HandlerFlags::WRITE),
    ("timewarp", HandlerFlags::READ_WRITE),
    ("profile", HandlerFlags::READ_WRITE),
    ("element_costs", HandlerFlags::READ),
    ("router_drops", HandlerFlags::READ),
];

/// The global handler `-R` adds: a raw write handler.
const HOTCONFIG: (&str, HandlerFlags) = (
    "hotconfig",
    HandlerFlags {
        read: false,
        write: true,
        read_param: false,
        expensive: false,
        raw: true,
        private: false,
    },
);

/// Standard handlers every element has.
const STANDARD: &[(&str, HandlerFlags)] = &[
    ("home_thread", HandlerFlags::READ),
    ("name", HandlerFlags::READ),
    ("class", HandlerFlags::READ),
    ("config", HandlerFlags::READ_WRITE),
    ("ports", HandlerFlags::READ),
    ("handlers", HandlerFlags::READ),
    ("cost", HandlerFlags::READ),
];

/// The standard handler that says whether an element panicked and why:
/// every element has it, unlisted (`handlers` shows Click's list) but not
/// private, so a ControlSocket client can read it.
const FAILED: (&str, HandlerFlags) = ("failed", HandlerFlags::READ);

/// Why a handler call could not enter its element or finish.
enum Refused {
    /// The element is running further up this thread's stack.
    Busy,
    /// The call panicked: the message for the caller.
    Panicked(String),
}

impl Refused {
    fn text(self, full: &str, busy: &str) -> String {
        match self {
            Refused::Busy => format!("'{full}' {busy}"),
            Refused::Panicked(m) => m,
        }
    }
}

/// Standard handlers of elements that have tasks.
const TASK: &[(&str, HandlerFlags)] = &[
    ("scheduled", HandlerFlags::READ),
    ("tickets", HandlerFlags::READ_WRITE),
];

/// The version string the `version` handler reports.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where a handler name points.
enum Target<'a> {
    Global(&'a str),
    Element(ElementId, &'a str),
}

fn flags_text(f: HandlerFlags) -> &'static str {
    match (f.read, f.write) {
        (true, true) => "rw",
        (true, false) => "r",
        (false, true) => "w",
        _ => "",
    }
}

impl RouterInner {
    /// Logs the messages a live reconfiguration produced, indented as
    /// Click prints them under an element's context.
    pub(crate) fn log_messages(&self, messages: Vec<String>) {
        for m in messages {
            for l in m.lines() {
                self.log_line(format!("  {l}"));
            }
        }
    }

    fn resolve<'a>(&self, spec: &'a str, from: Option<ElementId>) -> Result<Target<'a>, String> {
        match spec.split_once('.') {
            None => Ok(Target::Global(spec)),
            Some((ename, h)) => {
                let e = match from {
                    Some(f) => super::ctx::find_relative(&self.info, f, ename),
                    None => self.find(ename),
                };
                match e {
                    Some(e) => Ok(Target::Element(e, h)),
                    None => Err(format!("no element named '{ename}'")),
                }
            }
        }
    }

    /// The handlers element `e` offers: `(name, flags)`.
    pub(crate) fn element_handler_list(&self, e: ElementId) -> Vec<(String, HandlerFlags)> {
        let mut v: Vec<(String, HandlerFlags)> =
            STANDARD.iter().map(|(n, f)| (n.to_string(), *f)).collect();
        if !self.element_tasks[e].is_empty() {
            v.extend(TASK.iter().map(|(n, f)| (n.to_string(), *f)));
        }
        for h in &self.handlers[e] {
            if let Some(pos) = v.iter().position(|(n, _)| n == h.name.as_ref()) {
                v[pos].1 = h.flags;
            } else {
                v.push((h.name.to_string(), h.flags));
            }
        }
        v
    }

    fn element_handler(&self, e: ElementId, name: &str) -> Option<&HandlerDef> {
        self.handlers[e].iter().find(|h| h.name == name)
    }

    fn ports_text(&self, e: ElementId) -> String {
        let info = &self.info[e];
        let mut s = String::new();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        s.push_str(&format!(
            "{} input{}\n",
            info.inputs.len(),
            plural(info.inputs.len())
        ));
        for (p, proc_) in info.inputs.iter().enumerate() {
            s.push_str(proc_.name());
            if info.input_agnostic[p] {
                s.push('~');
            }
            s.push('\t');
            let peers: Vec<String> = self
                .connections
                .iter()
                .filter(|c| c.to == e && c.to_port == p)
                .map(|c| format!("{} [{}]", self.info[c.from].name, c.from_port))
                .collect();
            s.push_str(if peers.is_empty() { "-" } else { "" });
            s.push_str(&peers.join(", "));
            s.push('\n');
        }
        s.push_str(&format!(
            "{} output{}\n",
            info.outputs.len(),
            plural(info.outputs.len())
        ));
        for (p, proc_) in info.outputs.iter().enumerate() {
            s.push_str(proc_.name());
            if info.output_agnostic[p] {
                s.push('~');
            }
            s.push('\t');
            let peers: Vec<String> = self
                .connections
                .iter()
                .filter(|c| c.from == e && c.from_port == p)
                .map(|c| format!("[{}] {}", c.to_port, self.info[c.to].name))
                .collect();
            s.push_str(if peers.is_empty() { "-" } else { "" });
            s.push_str(&peers.join(", "));
            s.push('\n');
        }
        s
    }

    fn read_global(&self, name: &str) -> Result<String, String> {
        Ok(match name {
            "version" => VERSION.to_string(),
            "list" => {
                let mut s = format!("{}\n", self.info.len());
                for i in &self.info {
                    s.push_str(&i.name);
                    s.push('\n');
                }
                s
            }
            "classes" => self.registry.names().join("\n"),
            "config" | "flatconfig" => self.flat.unparse(),
            "requirements" => self.flat.requirements.join("\n"),
            "handlers" => GLOBAL
                .iter()
                .copied()
                .chain(self.hotconfig.as_ref().map(|_| HOTCONFIG))
                .map(|(n, f)| format!("{n}\t{}", flags_text(f)))
                .collect::<Vec<_>>()
                .join("\n"),
            "hotconfig" if self.hotconfig.is_some() => {
                return Err("'hotconfig' is a write handler".into())
            }
            "runcount" => self.runcount.load(Ordering::Acquire).to_string(),
            "timewarp" => format_f64(self.clock.warp_factor()),
            "profile" => self.profile.on().to_string(),
            "element_costs" => match self.profile.report(&self.info) {
                Some(r) => r.table(),
                None => super::profile::OFF_TEXT.to_string(),
            },
            "router_drops" => {
                let st = &self.stats;
                let (failed, failed_packets) = self.failures.totals();
                let mut s = format!(
                    "lost_batches {}\nlost_packets {}\ndeep_pushes {}\nno_output_packets {}\npanics {}\npanic_packets {}\nfailed_elements {}\nfailed_packets {}\n",
                    st.reentrant_drops.load(Ordering::Relaxed),
                    st.reentrant_packets.load(Ordering::Relaxed),
                    st.deep_pushes.load(Ordering::Relaxed),
                    st.no_output_packets.load(Ordering::Relaxed),
                    st.panics.load(Ordering::Relaxed),
                    st.panic_packets.load(Ordering::Relaxed),
                    failed,
                    failed_packets
                );
                let last = st.last_panic.lock().unwrap_or_else(|p| p.into_inner());
                if !last.is_empty() {
                    s.push_str(&format!("last_panic {last}\n"));
                }
                s
            }
            "stop" => return Err("'stop' is a write handler".into()),
            _ => return Err(format!("no '{name}' handler")),
        })
    }

    fn write_global(&self, name: &str, value: &str) -> Result<(), String> {
        match name {
            "stop" => {
                // As in Click, anything but an integer means 1 (`stop true`).
                let n = value.trim().parse::<i32>().unwrap_or(1);
                self.adjust_runcount(-n);
                Ok(())
            }
            "profile" => {
                let on = <bool as crate::args::FromArg>::from_arg(value.trim(), &self.names)
                    .map_err(|e| format!("profile: {e}"))?;
                self.profile.set(on);
                Ok(())
            }
            "timewarp" => {
                let f: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| "timewarp: expected real number".to_string())?;
                self.clock.set_warp_factor(f)
            }
            "hotconfig" if self.hotconfig.is_some() => match &self.hotconfig {
                Some(h) => h.request(value),
                None => Err(format!("no '{name}' handler")),
            },
            _ if GLOBAL.iter().any(|(n, _)| *n == name) => {
                Err(format!("'{name}' is a read handler"))
            }
            _ => Err(format!("no '{name}' handler")),
        }
    }

    /// Runs `f` on element `e` entered from `sched`'s thread (see
    /// `Ctx::enter_and`), for handler `full`. A panic in it is caught: the
    /// caller gets an error; the element stays in service when the panic
    /// was its handler's own, and is marked failed when it came from an
    /// element the handler pushed to.
    fn with_el<R>(
        &self,
        sched: &mut ThreadSched,
        e: ElementId,
        full: &str,
        f: impl FnOnce(&mut dyn crate::Element, &mut Ctx) -> R,
    ) -> Result<R, Refused> {
        match sched.catch(self, |s| Ctx::new(self, s, e).enter_and(e, false, f)) {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(_)) => Err(Refused::Busy),
            Err((caught, inner)) => {
                let inner = inner.unwrap_or(e);
                if inner == e {
                    self.count_panic(&caught, e, &format!("handler '{full}'"), false);
                } else {
                    let during = format!("push or pull, in handler '{full}'");
                    self.count_panic(&caught.for_element(true), inner, &during, true);
                }
                Err(Refused::Panicked(format!(
                    "'{full}' panicked: {}",
                    caught.describe()
                )))
            }
        }
    }

    /// Reads a handler. `from` is the calling element, for relative names.
    pub(crate) fn call_read(
        &self,
        sched: &mut ThreadSched,
        spec: &str,
        param: &str,
        from: Option<ElementId>,
    ) -> Result<String, String> {
        let (e, h) = match self.resolve(spec, from)? {
            Target::Global(g) => return self.read_global(g),
            Target::Element(e, h) => (e, h),
        };
        let full = format!("{}.{}", self.info[e].name, h);
        // Element-specific handlers first: they may override the standard ones.
        if let Some(def) = self.element_handler(e, h).cloned() {
            if !def.flags.read {
                return Err(format!("'{full}' is a write handler"));
            }
            if let HandlerKind::Reconfigure {
                keyword,
                position,
                read_id: None,
            } = def.kind
            {
                let conf = self.configs[e]
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                return Ok(keyword_value(&conf, keyword, position).unwrap_or_default());
            }
            let id = match def.kind {
                HandlerKind::Element(id) => id,
                HandlerKind::Reconfigure { read_id, .. } => read_id.unwrap_or(0),
            };
            return self
                .with_el(sched, e, &full, |g, cx| g.read_handler(id, param, cx))
                .map_err(|r| r.text(&full, "is busy (called from itself)"))?;
        }
        match h {
            "name" => Ok(self.info[e].name.clone()),
            "class" => Ok(self.info[e].class.clone()),
            "config" => Ok(self.configs[e]
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()),
            "ports" => Ok(self.ports_text(e)),
            "handlers" => Ok(self
                .element_handler_list(e)
                .iter()
                .filter(|(_, f)| !f.private)
                .map(|(n, f)| format!("{n}\t{}", flags_text(*f)))
                .collect::<Vec<_>>()
                .join("\n")),
            "home_thread" => Ok(self.element_home[e].load(Ordering::Relaxed).to_string()),
            "cost" => Ok(match self.profile.report(&self.info) {
                Some(r) => r.element_text(&self.info[e].name),
                None => super::profile::OFF_TEXT.to_string(),
            }),
            "scheduled" | "tickets" if !self.element_tasks[e].is_empty() => {
                let t = &self.tasks[self.element_tasks[e][0] as usize];
                Ok(match h {
                    "scheduled" => t.scheduled.load(Ordering::Acquire).to_string(),
                    _ => t.tickets.load(Ordering::Relaxed).to_string(),
                })
            }
            "failed" => Ok(self.failures.text(e)),
            _ if self.element_handler(e, "*").is_some() => self
                .with_el(sched, e, &full, |g, cx| g.proxy_handler(h, None, param, cx))
                .map_err(|r| r.text(&full, "is busy (called from itself)"))?
                .unwrap_or_else(|| Err(format!("no '{full}' handler"))),
            _ => Err(format!("no '{full}' handler")),
        }
    }

    /// Writes a handler. Changes nothing on error.
    pub(crate) fn call_write(
        &self,
        sched: &mut ThreadSched,
        spec: &str,
        value: &str,
        from: Option<ElementId>,
    ) -> Result<(), String> {
        let (e, h) = match self.resolve(spec, from)? {
            Target::Global(g) => return self.write_global(g, value),
            Target::Element(e, h) => (e, h),
        };
        // Elements' batch_transparent answers may change (sched.rs asks
        // again when this count moved).
        self.handler_writes.fetch_add(1, Ordering::Release);
        let full = format!("{}.{}", self.info[e].name, h);
        if let Some(def) = self.element_handler(e, h).cloned() {
            if !def.flags.write {
                return Err(format!("'{full}' is a read handler"));
            }
            let r = self.with_el(sched, e, &full, |g, cx| match def.kind {
                HandlerKind::Element(id) => g.write_handler(id, value, cx),
                HandlerKind::Reconfigure {
                    keyword, position, ..
                } => {
                    let rt = cx.rt;
                    let mut conf = rt.configs[e].lock().unwrap_or_else(|p| p.into_inner());
                    let new_conf = set_keyword(&conf, keyword, position, value);
                    let args = rclick_lang::confparse::split_args(&new_conf);
                    let mut ccx = ConfigureCx::new_shared(e, &rt.info, &rt.names, rt.nthreads);
                    let r = g.live_reconfigure(&args, &mut ccx);
                    rt.log_messages(std::mem::take(&mut ccx.messages));
                    r.map_err(|m| format!("{full}: {m}"))?;
                    *conf = new_conf;
                    drop(conf);
                    g.reconfigured(cx);
                    Ok(())
                }
            });
            return match r {
                Ok(r) => r,
                Err(Refused::Panicked(m)) => Err(m),
                Err(Refused::Busy) => {
                    // The element is running on this thread (it is pushing
                    // to the caller): do the write as soon as it returns.
                    sched
                        .deferred_writes
                        .push((spec.to_string(), value.to_string(), from));
                    Ok(())
                }
            };
        }
        match h {
            "config" => self
                .with_el(sched, e, &full, |g, cx| {
                    if !g.can_live_reconfigure() {
                        return Err(format!("'{full}': element cannot be reconfigured"));
                    }
                    let rt = cx.rt;
                    let args = rclick_lang::confparse::split_args(value);
                    let mut ccx = ConfigureCx::new_shared(e, &rt.info, &rt.names, rt.nthreads);
                    let r = g.live_reconfigure(&args, &mut ccx);
                    rt.log_messages(std::mem::take(&mut ccx.messages));
                    r?;
                    *rt.configs[e].lock().unwrap_or_else(|p| p.into_inner()) = value.to_string();
                    g.reconfigured(cx);
                    Ok(())
                })
                .map_err(|r| r.text(&full, "is busy"))?,
            "tickets" if !self.element_tasks[e].is_empty() => {
                let n: u32 = value
                    .trim()
                    .parse()
                    .map_err(|_| "tickets: expected integer".to_string())?;
                for &t in &self.element_tasks[e] {
                    let ti = &self.tasks[t as usize];
                    ti.tickets.store(n.clamp(1, MAX_TICKETS), Ordering::Relaxed);
                    ti.stride
                        .store(super::sched::stride_of(n), Ordering::Relaxed);
                }
                Ok(())
            }
            "name" | "class" | "ports" | "handlers" | "scheduled" | "home_thread" | "cost"
            | "failed" => Err(format!("'{full}' is a read handler")),
            _ if self.element_handler(e, "*").is_some() => self
                .with_el(sched, e, &full, |g, cx| {
                    g.proxy_handler(h, Some(value), "", cx)
                })
                .map_err(|r| r.text(&full, "is busy (called from itself)"))?
                .unwrap_or_else(|| Err(format!("no '{full}' handler")))
                .map(|_| ()),
            _ => Err(format!("no '{full}' handler")),
        }
    }

    /// Whether `spec` names a readable handler.
    pub(crate) fn handler_flags(&self, spec: &str) -> Option<HandlerFlags> {
        match self.resolve(spec, None).ok()? {
            Target::Global("hotconfig") if self.hotconfig.is_some() => Some(HOTCONFIG.1),
            Target::Global(g) => GLOBAL.iter().find(|(n, _)| *n == g).map(|(_, f)| *f),
            Target::Element(e, h) => self
                .element_handler_list(e)
                .into_iter()
                .find(|(n, _)| n == h)
                .map(|(_, f)| f)
                .or_else(|| (h == "failed").then_some(FAILED.1)),
        }
    }
}

fn format_f64(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        format!("{f}")
    }
}

/// The text of keyword `kw` (or positional argument `pos`) in a
/// configuration string.
fn keyword_value(conf: &str, kw: &str, pos: Option<usize>) -> Option<String> {
    let args = rclick_lang::confparse::split_args(conf);
    for a in &args {
        if let Some(rest) = a.strip_prefix(kw) {
            if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                return Some(rest.trim().to_string());
            }
        }
    }
    let p = pos?;
    let a = args.get(p)?;
    if is_keyword_arg(a) {
        None
    } else {
        Some(a.clone())
    }
}

fn is_keyword_arg(a: &str) -> bool {
    let word: String = a.chars().take_while(|c| !c.is_whitespace()).collect();
    !word.is_empty()
        && word.len() < a.len()
        && word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Click's reconfigure-keyword rewrite: replaces `kw`'s argument (or the
/// positional one at `pos`) with `KW value`, or appends it.
fn set_keyword(conf: &str, kw: &str, pos: Option<usize>, value: &str) -> String {
    // Click's configuration_handler: occurrences of the keyword are removed
    // and `KW value` appended; failing that, a positional argument at `pos`
    // is replaced by the bare value; failing that, `KW value` is appended.
    let mut args = rclick_lang::confparse::split_args(conf);
    let is_kw = |a: &str| {
        a.strip_prefix(kw)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
    };
    let value = value.trim();
    if args.iter().any(|a| is_kw(a)) {
        args.retain(|a| !is_kw(a));
        args.push(format!("{kw} {value}"));
    } else if let Some(p) = pos.filter(|&p| p < args.len() && !is_keyword_arg(&args[p])) {
        args[p] = value.to_string();
    } else {
        args.push(format!("{kw} {value}"));
    }
    args.join(", ")
}

impl Router {
    /// Reads handler `spec` (`c.count` or a global name) from outside the
    /// driver.
    pub fn read_handler(&self, spec: &str, param: &str) -> Result<String, String> {
        let mut sched = self.external_sched();
        self.inner.call_read(&mut sched, spec, param, None)
    }

    /// Writes handler `spec` from outside the driver.
    pub fn write_handler(&self, spec: &str, value: &str) -> Result<(), String> {
        let mut sched = self.external_sched();
        self.inner.call_write(&mut sched, spec, value, None)
    }

    /// The flags of handler `spec`, if it exists.
    pub fn handler_flags(&self, spec: &str) -> Option<HandlerFlags> {
        self.inner.handler_flags(spec)
    }

    /// The handlers of element `e`.
    pub fn element_handlers(&self, e: ElementId) -> Vec<(String, HandlerFlags)> {
        self.inner.element_handler_list(e)
    }

    /// Elements whose name matches glob `pattern` (`*`, `?`, `[...]`), or
    /// whose class is `pattern`.
    pub fn elements_matching(&self, pattern: &str) -> Vec<ElementId> {
        if let Some(e) = self.find(pattern) {
            return vec![e];
        }
        let is_glob = pattern.contains(['*', '?', '[']);
        (0..self.nelements())
            .filter(|&i| {
                let info = &self.inner.info[i];
                if is_glob {
                    glob_match(pattern, &info.name)
                } else {
                    info.class == pattern
                }
            })
            .collect()
    }

    /// Whether element `e`'s output `port` is push.
    pub fn output_is_push(&self, e: ElementId, port: usize) -> bool {
        self.inner.info[e].outputs.get(port) == Some(&Processing::Push)
    }
}

impl Ctx<'_> {
    /// Reads handler `spec` (relative element names allowed).
    pub fn call_read(&mut self, spec: &str, param: &str) -> Result<String, String> {
        let rt = self.rt;
        let from = self.cur();
        rt.call_read(self.sched, spec, param, Some(from))
    }

    /// Writes handler `spec`.
    pub fn call_write(&mut self, spec: &str, value: &str) -> Result<(), String> {
        let rt = self.rt;
        let from = self.cur();
        rt.call_write(self.sched, spec, value, Some(from))
    }

    /// The flags of handler `spec`, if it exists.
    pub fn handler_flags(&self, spec: &str) -> Option<HandlerFlags> {
        self.rt.handler_flags(spec)
    }
}

/// Shell-style glob matching with `*`, `?` and `[...]`.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    fn go(p: &[char], t: &[char]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some('*') => (0..=t.len()).any(|i| go(&p[1..], &t[i..])),
            Some('?') => !t.is_empty() && go(&p[1..], &t[1..]),
            Some('[') => {
                let Some(end) = p.iter().position(|&c| c == ']') else {
                    return !t.is_empty() && t[0] == '[' && go(&p[1..], &t[1..]);
                };
                if t.is_empty() {
                    return false;
                }
                let set = &p[1..end];
                let (neg, set) = if set.first() == Some(&'!') || set.first() == Some(&'^') {
                    (true, &set[1..])
                } else {
                    (false, set)
                };
                let mut m = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == '-' {
                        m |= set[i] <= t[0] && t[0] <= set[i + 2];
                        i += 3;
                    } else {
                        m |= set[i] == t[0];
                        i += 1;
                    }
                }
                m != neg && go(&p[end + 1..], &t[1..])
            }
            Some(&c) => !t.is_empty() && t[0] == c && go(&p[1..], &t[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_rewrite() {
        assert_eq!(set_keyword("", "CAPACITY", Some(0), "10"), "CAPACITY 10");
        assert_eq!(set_keyword("1000", "CAPACITY", Some(0), "10"), "10");
        assert_eq!(
            set_keyword("5, 50, 0.02", "MAX_THRESH", Some(1), "60"),
            "5, 60, 0.02"
        );
        assert_eq!(
            set_keyword("CAPACITY 5, FOO 1", "CAPACITY", Some(0), "10"),
            "FOO 1, CAPACITY 10"
        );
        assert_eq!(
            set_keyword("FOO 1", "CAPACITY", None, "10"),
            "FOO 1, CAPACITY 10"
        );
        assert_eq!(
            keyword_value("1000", "CAPACITY", Some(0)).as_deref(),
            Some("1000")
        );
        assert_eq!(
            keyword_value("X 1, CAPACITY 7", "CAPACITY", Some(0)).as_deref(),
            Some("7")
        );
        assert_eq!(keyword_value("", "CAPACITY", Some(0)), None);
    }

    #[test]
    fn globs() {
        assert!(glob_match("c*", "counter"));
        assert!(glob_match("?x", "ax"));
        assert!(!glob_match("?x", "x"));
        assert!(glob_match("q[0-9]", "q5"));
        assert!(!glob_match("q[!0-9]", "q5"));
        assert!(glob_match("*/c", "a/b/c"));
    }
}
