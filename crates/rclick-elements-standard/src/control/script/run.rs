//! Script's interpreter: running the compiled instructions until the script
//! blocks or ends (Click's `Script::step`), the `step`, `goto` and `run`
//! handlers' common entry (`step_handler`), `print` and its relatives, and a
//! packet script's run per packet.

use std::io::Write as _;

use rclick_core::args::parse_interval;
use rclick_core::{Ctx, Timestamp};

use super::compile::{self, Op, Target};
use super::ops::{self, pop_word, shift_word};
use super::{Script, ScriptType};
use crate::basic::parse_int;

/// Jumps a script may make without blocking before it is stopped.
const MAX_JUMPS: u32 = 1000;

/// What started a step (Click's step types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StepType {
    /// A `step` handler call.
    Normal,
    /// A driver stop event (`step router`).
    Router,
    /// The script's timer.
    Timer,
    /// `goto`, `run` or a packet: runs from a new position.
    Jump,
}

/// Which handler called `step_handler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StepWhat {
    Step,
    Run,
    Goto,
}

impl StepWhat {
    /// A call of this handler, named `handler`, with argument `arg`.
    pub(super) fn call<'a>(self, arg: &'a str, write: bool, handler: &'a str) -> Invocation<'a> {
        Invocation {
            what: self,
            arg,
            write,
            handler,
        }
    }
}

/// What `step_handler` runs: a call of the `step`, `goto` or `run`
/// handler, or (for a proxy script) of any handler the script does not
/// define.
#[derive(Clone, Copy, Debug)]
pub(super) struct Invocation<'a> {
    what: StepWhat,
    /// The handler's argument (`$args` for `run`).
    arg: &'a str,
    /// Whether the handler was written (`$write`).
    write: bool,
    /// The handler's name (`$0`).
    handler: &'a str,
}

/// Strips " (os error N)" from an I/O error, leaving C's `strerror` text.
pub(super) fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Indents every line of `msg` by two spaces under `context`.
pub(super) fn with_context(context: &str, msg: &str) -> String {
    let mut s = context.to_string();
    for line in msg.lines() {
        s.push_str("\n  ");
        s.push_str(line);
    }
    s
}

impl Script {
    pub(super) fn schedule_wait(
        &mut self,
        text: &str,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> bool {
        let t = self.expand(text, false, 0, Some(cx), errs);
        match parse_interval(t.trim()) {
            Ok(iv) => {
                if let Some(tm) = self.timer {
                    cx.schedule_timer_after(tm, Timestamp::from_nsec(iv.as_nanos()));
                }
                true
            }
            Err(_) => {
                errs.push("syntax error at 'wait'".into());
                false
            }
        }
    }

    /// Runs instructions until the script blocks or ends (Click's `step`).
    /// Returns the jump count so far, plus one.
    pub(super) fn step(
        &mut self,
        nsteps: i64,
        step_type: StepType,
        mut njumps: u32,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> u32 {
        let nsteps = nsteps + self.step_count;
        'done: {
            while nsteps - self.step_count >= 0
                && self.insn_pos < self.insns.len()
                && njumps < MAX_JUMPS
            {
                let ipos = self.insn_pos;
                self.insn_pos += 1;
                let op = self.insns[ipos].op;
                match op {
                    Op::Stop => {
                        self.step_count += 1;
                        self.insn_pos -= 1;
                        if step_type != StepType::Router {
                            cx.adjust_runcount(-1);
                        }
                        return njumps + 1;
                    }
                    Op::WaitStep => {
                        let insn = &mut self.insns[ipos];
                        while self.step_count < nsteps && insn.arg2 < insn.arg {
                            insn.arg2 += 1;
                            self.step_count += 1;
                        }
                        if self.step_count == nsteps && insn.arg2 < insn.arg {
                            self.insn_pos -= 1;
                            break 'done;
                        }
                    }
                    Op::WaitTime => {
                        if self.step_count == nsteps {
                            let text = self.insns[ipos].text.clone();
                            if self.schedule_wait(&text, cx, errs) {
                                self.insn_pos -= 1;
                            }
                            break 'done;
                        }
                        self.step_count += 1;
                        if let Some(t) = self.timer {
                            cx.unschedule_timer(t);
                        }
                    }
                    Op::Initial => {
                        if self.insns[ipos].arg != 0 {
                            self.step_count += 1;
                            self.insns[ipos].arg = 0;
                        }
                    }
                    Op::Print | Op::PrintQ | Op::PrintN | Op::PrintNQ | Op::Save | Op::Append => {
                        let text = self.insns[ipos].text.clone();
                        self.do_print(op, text, cx, errs);
                    }
                    Op::Read | Op::ReadQ => {
                        let text = self.insns[ipos].text.clone();
                        let t = self.expand(&text, false, 0, Some(cx), errs);
                        match self.parse_call(&t, false, op == Op::ReadQ, true, cx) {
                            Ok(hc) => {
                                let v = self.call(&hc, cx, errs).unwrap_or_else(|e| {
                                    errs.push(hc.error(&e));
                                    String::new()
                                });
                                cx.log(format!("{}:\n{}", hc.display, v));
                            }
                            Err(e) => errs.push(e),
                        }
                    }
                    Op::Write | Op::WriteQ | Op::WriteSkip => {
                        let text = self.insns[ipos].text.clone();
                        let t = self.expand(&text, false, 0, Some(cx), errs);
                        match self.parse_call(&t, true, op == Op::WriteQ, true, cx) {
                            Ok(hc) => match self.call(&hc, cx, errs) {
                                Ok(_) => {}
                                Err(e) => {
                                    errs.push(hc.error(&e));
                                    self.write_status = -22;
                                }
                            },
                            Err(e) => {
                                if op != Op::WriteSkip {
                                    errs.push(e);
                                }
                            }
                        }
                    }
                    Op::Return | Op::ReturnQ | Op::Set | Op::SetQ => {
                        let text = self.insns[ipos].text.clone();
                        let mut v = self.expand(&text, false, 0, Some(cx), errs);
                        if matches!(op, Op::SetQ | Op::ReturnQ) {
                            v = ops::unquote(&v);
                        }
                        let var = self.insns[ipos].arg as usize;
                        if let Some(slot) = self.vars.get_mut(var) {
                            slot.1 = v;
                        }
                        if matches!(op, Op::Return | Op::ReturnQ) && self.insn_pos == ipos + 1 {
                            self.insn_pos -= 1;
                            break 'done;
                        }
                    }
                    Op::Goto => {
                        let text = self.insns[ipos].text.clone();
                        let cond_text = self.expand(&text, false, 0, Some(cx), errs);
                        let cond = if cond_text.is_empty() {
                            Some(true)
                        } else {
                            ops::parse_bool(&cond_text)
                        };
                        match cond {
                            None => errs.push(format!("bad condition '{cond_text}'")),
                            Some(false) => {}
                            Some(true) => match self.insns[ipos].target {
                                Target::Finish(fin) => {
                                    self.insn_pos -= 1;
                                    if fin == Op::Stop && step_type != StepType::Router {
                                        cx.adjust_runcount(-1);
                                    }
                                    return njumps + 1;
                                }
                                Target::Pos(t) => {
                                    for i in t..ipos {
                                        if self.insns[i].op == Op::WaitStep {
                                            self.insns[i].arg2 = 0;
                                        }
                                    }
                                    self.insn_pos = t;
                                }
                            },
                        }
                    }
                    Op::Error | Op::ErrorQ => {
                        let text = self.insns[ipos].text.clone();
                        let mut msg = self.expand(&text, false, 0, Some(cx), errs);
                        if op == Op::ErrorQ {
                            msg = ops::unquote(&msg);
                        }
                        if !msg.is_empty() {
                            errs.push(msg);
                        }
                        self.insn_pos -= 1;
                        return njumps + 1;
                    }
                    Op::End | Op::Exit => {
                        self.insn_pos -= 1;
                        return njumps + 1;
                    }
                    Op::Label | Op::Init | Op::InitQ | Op::Export | Op::ExportQ => {}
                }
                if self.insn_pos != ipos + 1 {
                    njumps += 1;
                }
            }
        }
        if njumps >= MAX_JUMPS {
            cx.log(format!("{}: too many jumps, giving up", cx.declaration()));
            self.insn_pos = self.insns.len();
            if let Some(t) = self.timer {
                cx.unschedule_timer(t);
            }
        }
        if step_type == StepType::Router {
            cx.adjust_runcount(1);
        }
        njumps + 1
    }

    /// The instruction the script stopped at, with `goto` to a terminal
    /// label counted as that instruction.
    pub(super) fn last_op(&self) -> Option<Op> {
        let insn = self.insns.get(self.insn_pos)?;
        Some(match (insn.op, insn.target) {
            (Op::Goto, Target::Finish(op)) => op,
            (op, _) => op,
        })
    }

    /// Click's `complete_step`: the status (-1 error, 1 stop, 0 otherwise)
    /// and the return value.
    pub(super) fn complete_step(&self) -> (i32, String) {
        let last = self.last_op();
        let ret = match last {
            Some(Op::Return | Op::ReturnQ) => self
                .find_var("_")
                .map(|i| self.vars[i].1.clone())
                .unwrap_or_default(),
            Some(Op::End) if self.ty == ScriptType::Packet => "0".into(),
            _ => String::new(),
        };
        let st = match last {
            Some(Op::Error | Op::ErrorQ) => -1,
            Some(Op::Stop) => 1,
            _ => 0,
        };
        (st, ret)
    }

    /// Click's `step_handler`, behind the `step`, `goto` and `run`
    /// handlers (and the router's stop events, as `step router`).
    pub(super) fn step_handler(
        &mut self,
        inv: Invocation,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> (i32, String) {
        let Invocation {
            what,
            arg: value,
            write,
            handler,
        } = inv;
        let data = rclick_core::confparse::uncomment(value);
        self.run_handler_name = handler.to_string();
        self.run_args.clear();
        self.run_write = write;
        let (nsteps, step_type) = match what {
            StepWhat::Goto => {
                match compile::find_label(&self.insns, &data) {
                    Some(Target::Pos(p)) => {
                        for insn in &mut self.insns[p..] {
                            if insn.op == Op::WaitStep {
                                insn.arg2 = 0;
                            }
                        }
                        self.insn_pos = p;
                    }
                    _ => {
                        errs.push("jump to nonexistent label".into());
                        return (-1, String::new());
                    }
                }
                (0, StepType::Jump)
            }
            StepWhat::Run => {
                self.insn_pos = 0;
                self.run_args = value.to_string();
                (0, StepType::Jump)
            }
            StepWhat::Step => {
                if data == "router" {
                    (1, StepType::Router)
                } else if data.is_empty() {
                    (1, StepType::Normal)
                } else if let Some(n) = parse_int::<i64>(&data) {
                    (n.clamp(-(1 << 30), 1 << 30), StepType::Normal)
                } else {
                    errs.push("syntax error".into());
                    return (-1, String::new());
                }
            }
        };
        match self.cur_steps {
            None => {
                let mut njumps = 0;
                let mut step_type = step_type;
                self.cur_steps = Some(nsteps);
                while let Some(n) = self.cur_steps.filter(|&n| n >= 0) {
                    self.cur_steps = Some(-1);
                    njumps = self.step(n, step_type, njumps, cx, errs);
                    step_type = StepType::Normal;
                }
                self.cur_steps = None;
            }
            Some(cur) => {
                if what == StepWhat::Step {
                    self.cur_steps = Some(cur.saturating_add(nsteps));
                }
            }
        }
        self.complete_step()
    }

    /// Reports errors collected while running, under Click's
    /// "While executing" context.
    pub(super) fn flush_errors(&self, cx: &Ctx, errs: &mut Vec<String>) {
        if errs.is_empty() {
            return;
        }
        cx.log(format!("While executing '{}':", cx.declaration()));
        for e in errs.drain(..) {
            for line in e.lines() {
                cx.log(format!("  {line}"));
            }
        }
    }

    pub(super) fn do_print(&mut self, op: Op, text: String, cx: &mut Ctx, errs: &mut Vec<String>) {
        let mut text = text;
        if matches!(op, Op::Save | Op::Append) {
            let (word, rest) = shift_word(&text);
            let file = if rest.is_empty() { "-" } else { rest };
            let redirect = if op == Op::Save { ">" } else { ">>" };
            text = format!("{redirect}{file} {word}");
        }
        let mut file: Option<std::fs::File> = None;
        if let Some(rest) = text.strip_prefix('>') {
            let (append, rest) = match rest.strip_prefix('>') {
                Some(r) => (true, r),
                None => (false, rest),
            };
            let mut rest = rest.to_string();
            let filename = pop_word(&mut rest);
            text = rest;
            if !filename.is_empty() && filename != "-" {
                let r = if append {
                    std::fs::OpenOptions::new()
                        .append(true)
                        .create(true)
                        .open(&filename)
                } else {
                    std::fs::File::create(&filename)
                };
                match r {
                    Ok(f) => file = Some(f),
                    Err(e) => {
                        errs.push(format!("{filename}: {}", strerror(&e)));
                        return;
                    }
                }
            }
        }
        let before = errs.len();
        let first = text.as_bytes().first().copied();
        let mut result: Vec<u8> =
            if first.is_some_and(|c| c.is_ascii_alphabetic() || c == b'@' || c == b'_') {
                let t = self.expand(&text, false, 0, Some(cx), errs);
                let unq = matches!(op, Op::PrintQ | Op::PrintNQ);
                match self.parse_call(&t, false, unq, true, cx) {
                    Ok(hc) => match self.call(&hc, cx, errs) {
                        Ok(v) => v.into_bytes(),
                        Err(e) => {
                            errs.push(hc.error(&e));
                            Vec::new()
                        }
                    },
                    Err(e) => {
                        errs.push(e);
                        Vec::new()
                    }
                }
            } else {
                let t = self.expand(&text, true, 0, Some(cx), errs);
                ops::unquote_bytes(&t)
            };
        if errs.len() == before
            && result.last() != Some(&b'\n')
            && !matches!(op, Op::PrintN | Op::PrintNQ)
        {
            result.push(b'\n');
        }
        match file {
            Some(mut f) => {
                let _ = f.write_all(&result);
            }
            None => cx.print_stdout(&result),
        }
    }

    /// Runs a packet script for one packet that arrived on `port`; returns
    /// the output port it chose, if any.
    pub(super) fn run_packet(
        &mut self,
        port: usize,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Option<usize> {
        let i = compile::var_index(&mut self.vars, "input");
        self.vars[i].1 = port.to_string();
        self.insn_pos = 0;
        self.step(0, StepType::Jump, 0, cx, errs);
        let (_, out) = self.complete_step();
        let p = parse_int::<i64>(out.trim())?;
        usize::try_from(p).ok()
    }

    /// The external face of `step_handler` for handler calls from the
    /// router: errors of a failed run become the handler's error, others
    /// are reported.
    pub(super) fn handler_run(
        &mut self,
        inv: Invocation,
        cx: &mut Ctx,
    ) -> Result<(i32, String), String> {
        let mut errs = Vec::new();
        let (st, ret) = self.step_handler(inv, cx, &mut errs);
        if st < 0 {
            return Err(Self::take_error(&mut errs));
        }
        self.flush_errors(cx, &mut errs);
        Ok((st, ret))
    }

    /// The errors of a failed run, as one message.
    pub(super) fn take_error(errs: &mut Vec<String>) -> String {
        if errs.is_empty() {
            "script error".into()
        } else {
            std::mem::take(errs).join("\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{build_error, prints, registry, run};
    use super::*;
    use rclick_core::testing;

    #[test]
    fn helpers() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(strerror(&e), "No such file or directory");
        assert_eq!(with_context("While:", "a\nb"), "While:\n  a\n  b");
        assert_eq!(Script::take_error(&mut Vec::new()), "script error");
        let mut errs = vec!["a".to_string(), "b".to_string()];
        assert_eq!(Script::take_error(&mut errs), "a\nb");
        assert!(errs.is_empty());
    }

    #[test]
    fn loop_prints_and_stops() {
        let (_, out, log) = run("Script(set x 0, label begin_loop, print $x, \
             set x $(add $x 1), goto begin_loop $(lt $x 5), stop)");
        assert_eq!(out, "0\n1\n2\n3\n4\n");
        assert!(log.is_empty(), "{log:?}");
    }

    #[test]
    fn run_args_and_return() {
        let (r, out, _) = run("s :: Script(TYPE PASSIVE, return $(add $1 $2))
             t :: Script(TYPE PASSIVE, returnq $#:$args)
             Script(print $(s.run 3 4), print $(t.run a b c), stop)");
        assert_eq!(out, "7\n3:a b c\n");
        assert_eq!(r.read_handler("s.run", "10 20").unwrap(), "30");
    }

    #[test]
    fn read_instruction_logs() {
        let (_, out, log) = run("s0 :: Script(printn $(s.run \"\\<0a 09 01>\"), \
             readq length \"\\<0a 09 01>\", stop)
             s :: Script(TYPE PASSIVE, returnq $1)");
        assert_eq!(out, "\n\t\x01");
        assert_eq!(log, vec!["s0.length:\n3".to_string()]);
    }

    #[test]
    fn too_many_jumps() {
        let (_, _, log) = run("s0 :: Script(label a, goto a); s1 :: Script(wait 1, stop);");
        assert_eq!(
            log,
            vec!["s0 :: Script: too many jumps, giving up".to_string()]
        );
    }

    #[test]
    fn waits_and_pauses() {
        let out = prints("Script(set a $(now), wait 0.5s, print $(sub $(now) $a), stop)");
        assert_eq!(out, "0.5\n");
        let out = prints(
            "s :: Script(print \"a\", pause, print \"b\", pause 2, print \"c\")
             Script(wait 1, write s.step, wait 1, write s.step 2, wait 1, stop)",
        );
        assert_eq!(out, "a\nb\nc\n");
        let out = prints(
            "s :: Script(print \"a\", pause, print \"b\")
             Script(wait 1, print \"x\", stop)",
        );
        assert_eq!(out, "a\nx\n");
    }

    #[test]
    fn goto_handler_and_labels() {
        let out = prints(
            "s :: Script(TYPE PASSIVE, print \"a\", label l, print \"b\")
             Script(write s.goto l, stop)",
        );
        assert_eq!(out, "b\n");
        let r = testing::build("s :: Script(TYPE PASSIVE)", &registry(), true).unwrap();
        assert_eq!(
            r.write_handler("s.goto", "nowhere").unwrap_err(),
            "jump to nonexistent label"
        );
        assert_eq!(r.write_handler("s.step", "x").unwrap_err(), "syntax error");
    }

    #[test]
    fn conditions_and_errors() {
        let (_, out, log) = run("s0 :: Script(goto x $(eq 1 2), print \"no\", label x, \
             goto y bogus, print \"yes\", label y, error oops)");
        assert_eq!(out, "no\nyes\n", "{log:?}");
        assert_eq!(
            log,
            vec![
                "While executing 's0 :: Script':".to_string(),
                "  bad condition 'bogus'".to_string(),
                "  oops".to_string(),
            ]
        );
    }

    #[test]
    fn a_bad_wait_is_an_error() {
        assert!(build_error("Script(wait x)").contains("syntax error at 'wait'"));
        let (_, out, log) = run("s0 :: Script(print \"a\", wait $(add 1 x), print \"b\")");
        assert_eq!(out, "a\n");
        assert_eq!(log[1], "  expected list of numbers");
        assert_eq!(log[2], "  syntax error at 'wait'");
    }

    #[test]
    fn print_to_files() {
        let dir = std::env::temp_dir().join(format!("rclick-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("out");
        let f = f.to_str().unwrap();
        let conf = format!(
            "s :: Script(TYPE PASSIVE, return 42)
             Script(print >{f} \"hello\", print >>{f} s.run, append s.run {f}, stop)"
        );
        run(&conf);
        assert_eq!(std::fs::read_to_string(f).unwrap(), "hello\n42\n42\n");
        run(&format!(
            "Script(save s.run {f}, stop); s :: Script(TYPE PASSIVE, return 1)"
        ));
        assert_eq!(std::fs::read_to_string(f).unwrap(), "1\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
