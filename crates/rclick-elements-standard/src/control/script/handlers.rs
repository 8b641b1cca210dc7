//! Script's handlers: the table (one [`handlers!`](rclick_core::handlers)
//! declaration, from which `Element::handlers` and dispatch come), the
//! handler calls instructions make (Click's `HandlerCall`: a name resolved
//! against this Script, the router's elements or its globals), and what each
//! of Script's own handlers does. The arithmetic, comparisons and `sprintf`
//! themselves are in [`ops`](super::ops).

use std::sync::OnceLock;

use rclick_core::args::Args;
use rclick_core::{Ctx, ElementId, HandlerDef, HandlerFlags, HandlerKind};

use super::compile;
use super::ops::{self, pop_word, shift_word};
use super::run::{strerror, StepWhat};
use super::{HCall, Script, ScriptType};
use crate::basic::parse_int;

rclick_core::handlers! {
    /// Script's handlers (the manual's list). `*` exists only for TYPE
    /// PROXY; each `export`ed variable adds a read handler of its own name,
    /// with id [`EXPORT_BASE`] plus the variable's index.
    pub(super) enum H {
        Step = write("step"),
        Goto = write("goto"),
        Run = read_write("run").with_param(),
        Add = read_param("add"),
        Sub = read_param("sub"),
        Min = read_param("min"),
        Max = read_param("max"),
        Mul = read_param("mul"),
        Div = read_param("div"),
        Idiv = read_param("idiv"),
        Mod = read_param("mod"),
        Rem = read_param("rem"),
        Neg = read_param("neg"),
        Abs = read_param("abs"),
        Eq = read_param("eq"),
        Ne = read_param("ne"),
        Gt = read_param("gt"),
        Ge = read_param("ge"),
        Lt = read_param("lt"),
        Le = read_param("le"),
        Not = read_param("not"),
        Sprintf = read_param("sprintf"),
        First = read_param("first"),
        Random = read_param("random"),
        And = read_param("and"),
        Or = read_param("or"),
        Nand = read_param("nand"),
        Nor = read_param("nor"),
        If = read_param("if"),
        In = read_param("in"),
        Now = read("now"),
        Readable = read_param("readable"),
        Writable = read_param("writable"),
        Length = read_param("length"),
        Unquote = read_param("unquote"),
        Htons = read_param("htons"),
        Htonl = read_param("htonl"),
        Ntohs = read_param("ntohs"),
        Ntohl = read_param("ntohl"),
        Cat = read_param("cat").private(),
        Catq = read_param("catq").private(),
        Kill = read_param("kill").private(),
        Get = read_param("get"),
        Set = write("set"),
        Shift = read_param("shift"),
        Star = write("*").private(),
    }
}

/// The id of the first `export`ed variable's handler.
const EXPORT_BASE: u32 = 1000;

/// Every entry of the table, one definition each, indexed by id.
fn table() -> &'static [HandlerDef] {
    static TABLE: OnceLock<Vec<HandlerDef>> = OnceLock::new();
    TABLE.get_or_init(H::all_defs)
}

impl H {
    /// The handler's name.
    fn name(self) -> &'static str {
        match &table()[self.id() as usize].name {
            std::borrow::Cow::Borrowed(n) => n,
            std::borrow::Cow::Owned(_) => "",
        }
    }
}

/// Who answers a handler call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Callee {
    /// This Script: a handler of the table, or an exported variable, by id.
    Own(u32),
    /// This Script's `name` or `class` (the router's standard handlers).
    Info,
    /// Another element's handler, or a global one, through the router.
    Router,
}

impl HCall {
    /// The call as text: the handler and its argument.
    fn unparse(&self) -> String {
        if self.value.is_empty() {
            self.display.clone()
        } else {
            format!("{} {}", self.display, self.value)
        }
    }

    /// The error `e` of this call, under the call's context.
    pub(super) fn error(&self, e: &str) -> String {
        super::run::with_context(&format!("While calling '{}':", self.unparse()), e)
    }
}

impl Script {
    fn next_random(&mut self) -> u32 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as u32
    }

    /// This Script's handler `name`, if it has one: id and flags. `*` is
    /// not one: it stands for the names a proxy script does not define.
    fn own_handler(&self, name: &str) -> Option<(u32, HandlerFlags)> {
        if let Some(h) = H::ALL.iter().find(|h| **h != H::Star && h.name() == name) {
            return Some((h.id(), table()[h.id() as usize].flags));
        }
        self.exports
            .iter()
            .find(|&&i| self.vars[i].0 == name)
            .map(|&i| (EXPORT_BASE + i as u32, HandlerFlags::READ))
    }

    /// Parses `text` as `HANDLER [ARGS]` (Click's `HandlerCall`): the
    /// handler name is resolved relative to this Script, which also answers
    /// bare names of its own handlers when `prefer_local` is set.
    pub(super) fn parse_call(
        &self,
        text: &str,
        write: bool,
        unquote_param: bool,
        prefer_local: bool,
        cx: &Ctx,
    ) -> Result<HCall, String> {
        let (word, rest) = shift_word(text);
        let name = ops::unquote(word);
        if name.is_empty() {
            return Err("bad handler name format".into());
        }
        let value = if unquote_param {
            ops::unquote(rest)
        } else {
            rest.to_string()
        };
        let kind = if write { "write" } else { "read" };
        let check = |flags: Option<HandlerFlags>, display: &str| -> Result<(), String> {
            let Some(f) = flags else {
                return Err(format!("no '{display}' {kind} handler"));
            };
            if write && !f.write {
                return Err(format!("no '{display}' write handler"));
            }
            if !write && !f.read {
                return Err(format!("no '{display}' read handler"));
            }
            if !write && !value.is_empty() && !f.read_param {
                return Err(format!("read handler '{display}' does not take parameters"));
            }
            Ok(())
        };
        let dot = name.find('.');
        match dot {
            None | Some(0) => {
                let h = if dot.is_some() { &name[1..] } else { &name[..] };
                if dot.is_none() && prefer_local {
                    if let Some((id, f)) = self.own_handler(h) {
                        let display = format!("{}.{h}", cx.name());
                        check(Some(f), &display)?;
                        return Ok(HCall {
                            callee: Callee::Own(id),
                            spec: h.to_string(),
                            display,
                            value,
                            write,
                        });
                    }
                }
                check(cx.handler_flags(h), h)?;
                Ok(HCall {
                    callee: Callee::Router,
                    spec: h.to_string(),
                    display: h.to_string(),
                    value,
                    write,
                })
            }
            Some(d) if d + 1 == name.len() => Err("empty handler name".into()),
            Some(d) => {
                let (ename, h) = (&name[..d], &name[d + 1..]);
                let e: ElementId = cx
                    .find(ename)
                    .ok_or_else(|| format!("no element named '{ename}'"))?;
                let full = format!("{}.{h}", cx.element_info(e).name);
                if e == cx.id() {
                    let own = self.own_handler(h).map(|(id, f)| (Callee::Own(id), f));
                    let (callee, f) = own
                        .or(match h {
                            "name" | "class" => Some((Callee::Info, HandlerFlags::READ)),
                            _ => None,
                        })
                        .ok_or_else(|| format!("no '{full}' {kind} handler"))?;
                    check(Some(f), &full)?;
                    return Ok(HCall {
                        callee,
                        spec: h.to_string(),
                        display: full,
                        value,
                        write,
                    });
                }
                let mut flags = cx.handler_flags(&full);
                if flags.is_none() && cx.handler_flags(&format!("{ename}.*")).is_some() {
                    flags = Some(HandlerFlags {
                        read: true,
                        write: true,
                        read_param: true,
                        ..HandlerFlags::default()
                    });
                }
                check(flags, &full)?;
                Ok(HCall {
                    callee: Callee::Router,
                    spec: full.clone(),
                    display: full,
                    value,
                    write,
                })
            }
        }
    }

    /// Makes the call `hc`. A read returns the handler's value; a write
    /// returns nothing and sets `$?` to the handler's status.
    pub(super) fn call(
        &mut self,
        hc: &HCall,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<String, String> {
        if hc.write {
            self.write_status = match hc.callee {
                Callee::Own(id) => self.local_write(id, hc, cx, errs),
                Callee::Info => Err(format!("no '{}' write handler", hc.spec)),
                Callee::Router => cx.call_write(&hc.spec, &hc.value).map(|()| 0),
            }?;
            return Ok(String::new());
        }
        match hc.callee {
            Callee::Info => Ok(if hc.spec == "name" {
                cx.name().to_string()
            } else {
                cx.element_info(cx.id()).class.clone()
            }),
            Callee::Own(id) => self.local_read(id, &hc.spec, &hc.value, cx, errs),
            Callee::Router => cx.call_read(&hc.spec, &hc.value),
        }
    }

    /// Reads this Script's handler `id`.
    pub(super) fn local_read(
        &mut self,
        id: u32,
        name: &str,
        param: &str,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<String, String> {
        use ops::{Arith, Cmp};
        let p = param;
        let Some(h) = H::from_id(id) else {
            return if id >= EXPORT_BASE {
                Ok(self
                    .vars
                    .get((id - EXPORT_BASE) as usize)
                    .map(|v| v.1.clone())
                    .unwrap_or_default())
            } else {
                Err(format!("no '{name}' read handler"))
            };
        };
        match h {
            H::Run => {
                let (st, ret) = self.step_handler(StepWhat::Run.call(p, false, name), cx, errs);
                if st < 0 {
                    Err(Self::take_error(errs))
                } else {
                    Ok(ret)
                }
            }
            H::Add => ops::arith(Arith::Add, p),
            H::Sub => ops::arith(Arith::Sub, p),
            H::Min => ops::arith(Arith::Min, p),
            H::Max => ops::arith(Arith::Max, p),
            H::Mul => ops::arith(Arith::Mul, p),
            H::Div => ops::arith(Arith::Div, p),
            H::Idiv => ops::arith(Arith::Idiv, p),
            H::Mod => ops::modrem(false, p),
            H::Rem => ops::modrem(true, p),
            H::Neg => ops::negabs(true, p),
            H::Abs => ops::negabs(false, p),
            H::Eq => ops::compare(Cmp::Eq, p),
            H::Ne => ops::compare(Cmp::Ne, p),
            H::Gt => ops::compare(Cmp::Gt, p),
            H::Ge => ops::compare(Cmp::Ge, p),
            H::Lt => ops::compare(Cmp::Lt, p),
            H::Le => ops::compare(Cmp::Le, p),
            H::Not => ops::not(p),
            H::Sprintf => ops::sprintf(p),
            H::First => Ok(shift_word(p).0.to_string()),
            H::Random => self.random(p),
            H::And => ops::andor(true, false, p),
            H::Or => ops::andor(false, false, p),
            H::Nand => ops::andor(true, true, p),
            H::Nor => ops::andor(false, true, p),
            H::If => ops::if_(p),
            H::In => Ok(ops::in_(p)),
            H::Now => Ok(cx.now().to_string()),
            H::Readable | H::Writable => {
                let mut rest = p.to_string();
                loop {
                    let w = pop_word(&mut rest);
                    if w.is_empty() {
                        return Ok("true".into());
                    }
                    if self
                        .parse_call(&w, h == H::Writable, false, false, cx)
                        .is_err()
                    {
                        return Ok("false".into());
                    }
                }
            }
            H::Length => Ok(p.len().to_string()),
            H::Unquote => Ok(ops::unquote(p)),
            H::Htons | H::Ntohs => ops::byte_order(false, p),
            H::Htonl | H::Ntohl => ops::byte_order(true, p),
            H::Cat | H::Catq => {
                let file = ops::unquote(p.trim());
                if file.is_empty() {
                    return Err("bad FILE".into());
                }
                let data = std::fs::read(&file).map_err(|e| format!("{file}: {}", strerror(&e)))?;
                let s = String::from_utf8_lossy(&data).into_owned();
                Ok(if h == H::Catq { ops::quote(&s) } else { s })
            }
            H::Kill => {
                let mut rest = p.to_string();
                let w = pop_word(&mut rest);
                let signo = ops::signal_number(&w)
                    .filter(|s| (0..=32).contains(s))
                    .ok_or("bad SIGNO")?;
                while !rest.is_empty() {
                    let pid = parse_int::<i64>(&pop_word(&mut rest)).ok_or("bad PID")?;
                    if pid == i64::from(std::process::id()) {
                        // This process: raise directly, as fast as Click's
                        // kill(2), so signals arrive before the next step.
                        if signo != 0 && signal_hook::low_level::raise(signo).is_err() {
                            return Err(format!("kill({pid}, {signo}) failed"));
                        }
                        continue;
                    }
                    let ok = std::process::Command::new("kill")
                        .arg(format!("-{signo}"))
                        .arg(pid.to_string())
                        .status()
                        .map(|s| s.success())
                        .unwrap_or(false);
                    if !ok {
                        return Err(format!("kill({pid}, {signo}) failed"));
                    }
                }
                Ok(String::new())
            }
            H::Get | H::Shift => {
                let mut rest = p.to_string();
                let mut var = pop_word(&mut rest);
                if var.is_empty() && h == H::Shift {
                    var = "args".into();
                }
                if var.is_empty() {
                    return Err("no variable".into());
                }
                if !rest.is_empty() {
                    return Err("too many arguments".into());
                }
                let slot = if var == "args" {
                    &mut self.run_args
                } else {
                    match self.find_var(&var) {
                        Some(i) => &mut self.vars[i].1,
                        None => return Err(format!("undefined variable '{var}'")),
                    }
                };
                Ok(if h == H::Get {
                    slot.clone()
                } else {
                    pop_word(slot)
                })
            }
            H::Step | H::Goto | H::Set | H::Star => Err(format!("no '{name}' read handler")),
        }
    }

    /// Writes this Script's handler `id`; returns the handler's status.
    fn local_write(
        &mut self,
        id: u32,
        hc: &HCall,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<i32, String> {
        let (name, value) = (hc.spec.as_str(), hc.value.as_str());
        let what = match H::from_id(id) {
            Some(H::Step) => StepWhat::Step,
            Some(H::Goto) => StepWhat::Goto,
            Some(H::Run) => StepWhat::Run,
            Some(H::Set) => return self.set_var(value).map(|()| 0),
            _ => return Err(format!("no '{name}' write handler")),
        };
        let n = errs.len();
        let (st, _) = self.step_handler(what.call(value, true, name), cx, errs);
        if st < 0 && errs.len() > n {
            let msg = errs.split_off(n).join("\n");
            return Err(msg);
        }
        if st < 0 {
            return Err("script error".into());
        }
        Ok(st)
    }

    /// The `set` handler: `VAR VALUE`.
    fn set_var(&mut self, value: &str) -> Result<(), String> {
        let mut rest = value.to_string();
        let var = pop_word(&mut rest);
        if var.is_empty() {
            return Err("no variable".into());
        }
        if var == "args" {
            self.run_args = rest;
        } else {
            let i = compile::var_index(&mut self.vars, &var);
            self.vars[i].1 = rest;
        }
        Ok(())
    }

    /// The `random` handler: `[N1 [N2]]`.
    fn random(&mut self, p: &str) -> Result<String, String> {
        let words: Vec<String> = rclick_core::confparse::split_space(p);
        if words.is_empty() {
            return Ok((self.next_random() & 0x7fff_ffff).to_string());
        }
        let mut n1: u32 = 0;
        let mut n2: u32 = 0;
        let mut have_n2 = false;
        Args::new(&words)
            .read_mp("N1", &mut n1)
            .read_p("N2", &mut n2)
            .read_status(&mut have_n2)
            .complete()
            .map_err(|e| e.to_string())?;
        if (have_n2 && n2 < n1) || (!have_n2 && n1 == 0) {
            return Err("bad N".into());
        }
        let (lo, hi) = if have_n2 { (n1, n2) } else { (0, n1 - 1) };
        let span = u64::from(hi - lo) + 1;
        let r = u64::from(self.next_random()) << 32 | u64::from(self.next_random());
        Ok((u64::from(lo) + r % span).to_string())
    }

    /// `Element::handlers`: the table, `*` for a proxy script, and the
    /// exported variables.
    pub(super) fn handler_defs(&self) -> Vec<HandlerDef> {
        let mut v: Vec<HandlerDef> = table()
            .iter()
            .filter(|d| d.kind != HandlerKind::Element(H::Star.id()))
            .cloned()
            .collect();
        if self.ty == ScriptType::Proxy {
            v.extend(H::Star.defs());
        }
        for &i in &self.exports {
            v.push(HandlerDef {
                name: self.vars[i].0.clone().into(),
                flags: HandlerFlags::READ,
                kind: HandlerKind::Element(EXPORT_BASE + i as u32),
            });
        }
        v
    }

    /// `Element::read_handler`.
    pub(super) fn read_own(
        &mut self,
        id: u32,
        param: &str,
        cx: &mut Ctx,
    ) -> Result<String, String> {
        let h = H::from_id(id).filter(|&h| h != H::Star);
        let name = h.map(H::name).unwrap_or_default();
        if h == Some(H::Run) {
            return self
                .handler_run(StepWhat::Run.call(param, false, name), cx)
                .map(|(_, r)| r);
        }
        let mut errs = Vec::new();
        let r = self.local_read(id, name, param, cx, &mut errs);
        self.flush_errors(cx, &mut errs);
        r
    }

    /// `Element::write_handler`.
    pub(super) fn write_own(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let (what, name) = match H::from_id(id) {
            Some(H::Step) => (StepWhat::Step, "step"),
            Some(H::Goto) => (StepWhat::Goto, "goto"),
            Some(H::Run) if self.ty == ScriptType::Signal => {
                let r = self.handler_run(StepWhat::Run.call(value, true, "run"), cx);
                self.after_signal_run(cx);
                return r.map(|_| ());
            }
            Some(H::Run) => (StepWhat::Run, "run"),
            Some(H::Set) => return self.set_var(value),
            _ => return Err("handler not writable".into()),
        };
        self.handler_run(what.call(value, true, name), cx)
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{prints, registry, run};
    use super::*;
    use rclick_core::testing;

    /// The table as it was before `handlers!`: name, read, write, read
    /// with a parameter, private.
    const BEFORE: &[(&str, bool, bool, bool, bool)] = &[
        ("step", false, true, false, false),
        ("goto", false, true, false, false),
        ("run", true, true, true, false),
        ("add", true, false, true, false),
        ("sub", true, false, true, false),
        ("min", true, false, true, false),
        ("max", true, false, true, false),
        ("mul", true, false, true, false),
        ("div", true, false, true, false),
        ("idiv", true, false, true, false),
        ("mod", true, false, true, false),
        ("rem", true, false, true, false),
        ("neg", true, false, true, false),
        ("abs", true, false, true, false),
        ("eq", true, false, true, false),
        ("ne", true, false, true, false),
        ("gt", true, false, true, false),
        ("ge", true, false, true, false),
        ("lt", true, false, true, false),
        ("le", true, false, true, false),
        ("not", true, false, true, false),
        ("sprintf", true, false, true, false),
        ("first", true, false, true, false),
        ("random", true, false, true, false),
        ("and", true, false, true, false),
        ("or", true, false, true, false),
        ("nand", true, false, true, false),
        ("nor", true, false, true, false),
        ("if", true, false, true, false),
        ("in", true, false, true, false),
        ("now", true, false, false, false),
        ("readable", true, false, true, false),
        ("writable", true, false, true, false),
        ("length", true, false, true, false),
        ("unquote", true, false, true, false),
        ("htons", true, false, true, false),
        ("htonl", true, false, true, false),
        ("ntohs", true, false, true, false),
        ("ntohl", true, false, true, false),
        ("cat", true, false, true, true),
        ("catq", true, false, true, true),
        ("kill", true, false, true, true),
        ("get", true, false, true, false),
        ("set", false, true, false, false),
        ("shift", true, false, true, false),
    ];

    fn flags(d: &HandlerDef) -> (&str, bool, bool, bool, bool) {
        let f = d.flags;
        assert!(!f.expensive && !f.raw, "{}", d.name);
        (&d.name, f.read, f.write, f.read_param, f.private)
    }

    #[test]
    fn the_table_keeps_every_name_and_flag() {
        let s = Script::default();
        let defs = s.handler_defs();
        let got: Vec<_> = defs.iter().map(flags).collect();
        assert_eq!(got, BEFORE);
        // One name a handler, so that `H::name` is the handler's name.
        assert_eq!(table().len(), H::ALL.len());
        for h in H::ALL {
            assert_eq!(table()[h.id() as usize].name, h.name());
        }
    }

    #[test]
    fn proxies_and_exports_add_handlers() {
        let mut s = Script::default();
        s.ty = ScriptType::Proxy;
        s.vars = vec![("a".into(), String::new()), ("n".into(), "5".into())];
        s.exports = vec![1];
        let defs = s.handler_defs();
        let extra: Vec<_> = defs[BEFORE.len()..].iter().map(flags).collect();
        assert_eq!(
            extra,
            [
                ("*", false, true, false, true),
                ("n", true, false, false, false)
            ]
        );
        assert_eq!(defs[BEFORE.len() + 1].kind, HandlerKind::Element(1001));
        // `*` is not a handler an instruction can name.
        assert_eq!(s.own_handler("*"), None);
        assert_eq!(s.own_handler("n"), Some((1001, HandlerFlags::READ)));
        assert_eq!(s.own_handler("a"), None);
        assert_eq!(s.own_handler("run").map(|(id, _)| id), Some(H::Run.id()));
    }

    #[test]
    fn arithmetic_handlers() {
        let out = prints(
            "s0 :: Script(print $(add 1 2 3), print $(sub 10 2 2), \
             print $(min 10 6 20), print $(max -1 6 3), print $(mul 1 2 3), \
             print $(div 75 2.5 5), print $(idiv 60 2 5), print $(htonl $(ntohl 6)), \
             print $(htons $(ntohs 6)), write set foovar foo bar baz, \
             print $(shift foovar), print $(shift foovar), print $(get foovar), stop)",
        );
        assert_eq!(out, "6\n6\n6\n6\n6\n6\n6\n6\n6\nfoo\nbar\nbaz\n");
    }

    #[test]
    fn sprintf_and_misc_handlers() {
        // `random` draws from the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let out = prints(
            "Script(print $(sprintf \"%05x\" 127), print $(if true a b), \
             print $(in foo bar foo), print $(not false), print $(length abcdef), \
             print $(first x y), print $(and true false), print $(unquote '\"q\"'), \
             print $(readable s.add nosuch), print $(writable s.step), stop)
             s :: Script(TYPE PASSIVE)",
        );
        assert_eq!(
            out,
            "0007f\na\ntrue\ntrue\n6\nx\nfalse\n\"q\"\nfalse\ntrue\n"
        );
        let out = prints(
            "Script(set r $(random 5 6), print $(in $r 5 6), \
             print $(random 1), stop)",
        );
        assert_eq!(out, "true\n0\n");
    }

    #[test]
    fn own_name_and_class_and_file_handlers() {
        // `random` draws from the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let dir = std::env::temp_dir().join(format!("rclick-script-h-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("in");
        std::fs::write(&f, "a \"b\"").unwrap();
        let f = f.to_str().unwrap();
        let out = prints(&format!(
            "s0 :: Script(print s0.name, print s0.class, print $(cat {f}), \
             print $(catq {f}), print $(random 0), stop)"
        ));
        assert_eq!(out, "s0\nScript\na \"b\"\n\"a \\\"b\\\"\"\n");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn export_and_variable_handlers() {
        let (r, _, _) = run("s :: Script(export n 5, set n $(add $n 1), init m 0)");
        assert_eq!(testing::read(&r, "s.n"), "6");
        assert_eq!(r.read_handler("s.get", "m").unwrap(), "0");
        r.write_handler("s.set", "m 7 8").unwrap();
        assert_eq!(r.read_handler("s.shift", "m").unwrap(), "7");
        assert_eq!(r.read_handler("s.get", "m").unwrap(), "8");
        assert!(r.read_handler("s.get", "zz").is_err());
        assert!(r.read_handler("s.get", "").is_err());
    }

    #[test]
    fn proxy_scripts() {
        let conf = "s :: Script(TYPE PROXY, goto nota $(ne $0 a), \
             returnq \"you called 'a'\", label nota, goto notb $(ne $0 b), \
             returnq \"you called 'b' $write\", label notb, error bad handler)";
        let r = testing::build(conf, &registry(), true).unwrap();
        assert_eq!(r.read_handler("s.a", "").unwrap(), "you called 'a'");
        assert_eq!(r.read_handler("s.b", "").unwrap(), "you called 'b' false");
        assert!(r.write_handler("s.b", "x").is_ok());
        assert_eq!(r.read_handler("s.c", "").unwrap_err(), "bad handler");
    }

    #[test]
    fn handler_errors_are_reported() {
        let (_, out, log) = run("s0 :: Script(print $(nosuch.count), write nope.x 1, \
             print \"ok\", print s0.bogus, print $(add 1 2 x), write s0.name x, stop)");
        assert_eq!(out, "$(nosuch.count)ok\n");
        assert_eq!(log[0], "While executing 's0 :: Script':");
        assert_eq!(log[1], "  no element named 'nosuch'");
        assert_eq!(log[2], "  no element named 'nope'");
        assert_eq!(log[3], "  no 's0.bogus' read handler");
        assert_eq!(log[4], "  expected list of numbers");
        assert_eq!(log[5], "  no 's0.name' write handler");
        assert_eq!(log.len(), 6, "{log:?}");
    }
}
