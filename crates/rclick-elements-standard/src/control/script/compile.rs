//! Script's compiler: the TYPE keyword and the instruction arguments become
//! a [`Program`], instructions with their `goto` targets resolved and the
//! variables they name (Click's `Script::configure`).

use rclick_core::args::{FromArg, NoContext};

use super::ops::pop_word;
use super::{Insn, ScriptType};
use crate::control::signals;

/// An instruction (Click's `INSN_` codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    Initial,
    WaitStep,
    WaitTime,
    Print,
    PrintQ,
    PrintN,
    PrintNQ,
    Read,
    ReadQ,
    Write,
    WriteQ,
    WriteSkip,
    Set,
    SetQ,
    Init,
    InitQ,
    Export,
    ExportQ,
    Save,
    Append,
    Label,
    Goto,
    Return,
    ReturnQ,
    Exit,
    End,
    Stop,
    Error,
    ErrorQ,
}

/// Labels that are instructions (Click's negative instruction codes).
fn terminal_label(label: &str) -> Option<Op> {
    Some(match label {
        "exit" => Op::Exit,
        "end" => Op::End,
        "stop" => Op::Stop,
        "error" => Op::Error,
        "errorq" => Op::ErrorQ,
        _ => return None,
    })
}

/// Where a `goto` goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// The instruction at this index.
    Pos(usize),
    /// A terminal label (`end`, `exit`, `stop`, `error`): acts as that
    /// instruction.
    Finish(Op),
}

/// A compiled script.
#[derive(Debug)]
pub(super) struct Program {
    /// The instructions, ending with an implicit `end` (`stop` for a
    /// driver script).
    pub(super) insns: Vec<Insn>,
    /// The variables the instructions name, with empty values.
    pub(super) vars: Vec<(String, String)>,
    /// The variables `export` makes readable as handlers.
    pub(super) exports: Vec<usize>,
}

/// The index of variable `name`, added if new.
pub(super) fn var_index(vars: &mut Vec<(String, String)>, name: &str) -> usize {
    match vars.iter().position(|(n, _)| n == name) {
        Some(i) => i,
        None => {
            vars.push((name.to_string(), String::new()));
            vars.len() - 1
        }
    }
}

/// Where `goto LABEL` goes: a `label` instruction, a terminal label, or
/// the start (`begin`, `loop`).
pub(super) fn find_label(insns: &[Insn], label: &str) -> Option<Target> {
    if let Some(i) = insns
        .iter()
        .position(|x| x.op == Op::Label && x.text == label)
    {
        return Some(Target::Pos(i));
    }
    if let Some(op) = terminal_label(label) {
        return Some(Target::Finish(op));
    }
    if label == "begin" || label == "loop" {
        return Some(Target::Pos(0));
    }
    None
}

/// Appends an instruction; the first non-waiting one is preceded by
/// `Initial`, which takes the first step of an active script.
pub(super) fn add_insn(insns: &mut Vec<Insn>, op: Op, arg: u32, text: String) {
    if insns.is_empty() && !matches!(op, Op::Initial | Op::WaitStep | Op::WaitTime) {
        add_insn(insns, Op::Initial, 0, String::new());
    }
    insns.push(Insn {
        op,
        arg,
        arg2: 0,
        target: Target::Pos(0),
        text,
    });
}

/// The TYPE keyword's value (empty when absent): the script type and, for
/// TYPE SIGNAL, the signal numbers. Without TYPE a script with inputs is a
/// packet script.
pub(super) fn script_type(
    type_arg: &str,
    default: ScriptType,
    ninputs: usize,
) -> Result<(ScriptType, Vec<i32>), String> {
    let mut targ = type_arg.to_string();
    let word = pop_word(&mut targ);
    let mut signos = Vec::new();
    let ty = if word.is_empty() {
        if ninputs > 0 && default == ScriptType::Active {
            ScriptType::Packet
        } else {
            default
        }
    } else {
        match (word.as_str(), targ.is_empty()) {
            ("ACTIVE", true) => ScriptType::Active,
            ("PASSIVE", true) => ScriptType::Passive,
            ("PACKET" | "PUSH", true) => ScriptType::Packet,
            ("PROXY", true) => ScriptType::Proxy,
            ("DRIVER", true) => ScriptType::Driver,
            ("SIGNAL", _) => {
                loop {
                    let w = pop_word(&mut targ);
                    if w.is_empty() {
                        break;
                    }
                    match signals::signal_number(&w) {
                        Some(n) => signos.push(n),
                        None => return Err("bad signal number".into()),
                    }
                }
                if signos.is_empty() {
                    return Err("bad signal number".into());
                }
                ScriptType::Signal
            }
            _ => return Err("bad TYPE".into()),
        }
    };
    Ok((ty, signos))
}

/// Compiles the instruction arguments of a script of type `ty`;
/// `driver_manager` accepts DriverManager's older instruction names. All
/// syntax errors are reported together, one a line.
pub(super) fn compile(
    args: &[String],
    ty: ScriptType,
    driver_manager: bool,
) -> Result<Program, String> {
    let mut insns: Vec<Insn> = Vec::new();
    let mut vars: Vec<(String, String)> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    for arg in args {
        let mut text = arg.clone();
        let name = pop_word(&mut text);
        if name.is_empty() {
            continue;
        }
        let syntax = format!("syntax error at '{name}'");
        let op = match name.as_str() {
            "append" => Op::Append,
            "end" => Op::End,
            "error" => Op::Error,
            "errorq" => Op::ErrorQ,
            "exit" => Op::Exit,
            "export" => Op::Export,
            "exportq" => Op::ExportQ,
            "goto" => Op::Goto,
            "init" => Op::Init,
            "initq" => Op::InitQ,
            "label" => Op::Label,
            "loop" => Op::Goto,
            "pause" | "wait_step" | "wait_stop" => Op::WaitStep,
            "print" => Op::Print,
            "printn" => Op::PrintN,
            "printnq" => Op::PrintNQ,
            "printq" => Op::PrintQ,
            "read" => Op::Read,
            "readq" => Op::ReadQ,
            "return" => Op::Return,
            "returnq" => Op::ReturnQ,
            "save" => Op::Save,
            "set" => Op::Set,
            "setq" => Op::SetQ,
            "stop" => Op::Stop,
            "wait" if text.is_empty() => Op::WaitStep,
            "wait" | "wait_for" | "wait_time" => Op::WaitTime,
            "write" => Op::Write,
            "writeq" => Op::WriteQ,
            "wait_pause" if driver_manager => Op::WaitStep,
            "call" if driver_manager => Op::Write,
            "write_skip" if driver_manager => Op::WriteSkip,
            "quit" if driver_manager => Op::Stop,
            _ => {
                errors.push(syntax);
                continue;
            }
        };
        match op {
            Op::WaitStep => {
                let n = if text.is_empty() {
                    Some(1)
                } else {
                    u32::from_arg(&text, &NoContext).ok()
                };
                match n {
                    Some(n) => add_insn(&mut insns, Op::WaitStep, n, String::new()),
                    None => errors.push(syntax),
                }
            }
            Op::Write
            | Op::WriteQ
            | Op::WriteSkip
            | Op::Read
            | Op::ReadQ
            | Op::Print
            | Op::PrintQ
            | Op::PrintN
            | Op::PrintNQ
            | Op::Save
            | Op::Append => add_insn(&mut insns, op, 0, text),
            Op::Goto if name == "loop" => {
                if !text.is_empty() {
                    errors.push(syntax);
                } else {
                    add_insn(&mut insns, Op::Goto, 0, String::new());
                }
            }
            Op::Goto => add_insn(&mut insns, op, 0, text),
            Op::Return
            | Op::ReturnQ
            | Op::Init
            | Op::InitQ
            | Op::Export
            | Op::ExportQ
            | Op::Set
            | Op::SetQ => {
                if matches!(op, Op::Return | Op::ReturnQ) {
                    text = format!("_ {text}");
                }
                let word = pop_word(&mut text);
                if word.is_empty() || (matches!(op, Op::Set | Op::SetQ) && text.is_empty()) {
                    errors.push(syntax);
                    continue;
                }
                let v = var_index(&mut vars, &word) as u32;
                add_insn(&mut insns, op, v, text);
            }
            Op::WaitTime => add_insn(&mut insns, op, 0, text),
            Op::Label => {
                let word = pop_word(&mut text);
                if word.is_empty() || !text.is_empty() {
                    errors.push(syntax);
                } else {
                    add_insn(&mut insns, op, 0, word);
                }
            }
            Op::End | Op::Exit | Op::Stop | Op::Error | Op::ErrorQ => {
                if !text.is_empty() && !matches!(op, Op::Error | Op::ErrorQ) {
                    errors.push(syntax);
                } else {
                    add_insn(&mut insns, op, 0, text);
                }
            }
            Op::Initial => {}
        }
    }
    // Resolve the gotos: the label word leaves the condition behind.
    for i in 0..insns.len() {
        if insns[i].op == Op::Goto && !insns[i].text.is_empty() {
            let mut text = std::mem::take(&mut insns[i].text);
            let word = pop_word(&mut text);
            insns[i].text = text;
            match find_label(&insns, &word) {
                Some(t) => insns[i].target = t,
                None => errors.push(format!("no such label '{word}'")),
            }
        }
    }
    if insns.is_empty() && ty == ScriptType::Driver {
        add_insn(&mut insns, Op::WaitStep, 1, String::new());
    }
    let last = if ty == ScriptType::Driver {
        Op::Stop
    } else {
        Op::End
    };
    add_insn(&mut insns, last, 0, String::new());
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let mut exports: Vec<usize> = insns
        .iter()
        .filter(|x| matches!(x.op, Op::Export | Op::ExportQ))
        .map(|x| x.arg as usize)
        .collect();
    exports.dedup();
    Ok(Program {
        insns,
        vars,
        exports,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_util::build_error;
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// Compiles an active script that must compile.
    fn active(list: &[&str]) -> Program {
        compile(&args(list), ScriptType::Active, false).unwrap()
    }

    fn ops(p: &Program) -> Vec<Op> {
        p.insns.iter().map(|i| i.op).collect()
    }

    #[test]
    fn instructions_compile_in_order_after_initial() {
        let p = active(&["set x 0", "label top", "print $x", "goto top $(lt $x 5)"]);
        assert_eq!(
            ops(&p),
            [
                Op::Initial,
                Op::Set,
                Op::Label,
                Op::Print,
                Op::Goto,
                Op::End
            ]
        );
        assert_eq!(p.vars, [("x".to_string(), String::new())]);
        assert_eq!(p.insns[1].arg, 0);
        assert_eq!(p.insns[1].text, "0");
        // The label word is resolved, the condition stays.
        assert_eq!(p.insns[4].target, Target::Pos(2));
        assert_eq!(p.insns[4].text, "$(lt $x 5)");
    }

    #[test]
    fn a_leading_wait_has_no_initial_step() {
        let p = active(&["wait 1", "stop"]);
        assert_eq!(ops(&p), [Op::WaitTime, Op::Stop, Op::End]);
        let p = active(&["pause 3"]);
        assert_eq!(ops(&p), [Op::WaitStep, Op::End]);
        assert_eq!(p.insns[0].arg, 3);
        // `wait` without a time waits for a step.
        let p = active(&["wait"]);
        assert_eq!(p.insns[0].op, Op::WaitStep);
    }

    #[test]
    fn driver_scripts_end_in_stop_and_wait_when_empty() {
        let p = compile(&[], ScriptType::Driver, true).unwrap();
        assert_eq!(ops(&p), [Op::WaitStep, Op::Stop]);
        let p = compile(&args(&["print x"]), ScriptType::Driver, false).unwrap();
        assert_eq!(ops(&p), [Op::Initial, Op::Print, Op::Stop]);
    }

    #[test]
    fn terminal_labels_and_loops() {
        let p = active(&["goto end", "goto stop $(c)", "goto begin", "loop"]);
        let targets: Vec<Target> = p.insns[1..5].iter().map(|i| i.target).collect();
        assert_eq!(
            targets,
            [
                Target::Finish(Op::End),
                Target::Finish(Op::Stop),
                Target::Pos(0),
                Target::Pos(0)
            ]
        );
    }

    #[test]
    fn returns_and_exports_name_variables() {
        let p = compile(
            &args(&["export a 1", "return $a", "exportq a 2", "init b"]),
            ScriptType::Passive,
            false,
        )
        .unwrap();
        let names: Vec<&str> = p.vars.iter().map(|v| v.0.as_str()).collect();
        assert_eq!(names, ["a", "_", "b"]);
        assert_eq!(p.exports, [0]);
        assert_eq!(p.insns[2].arg, 1);
    }

    #[test]
    fn driver_manager_names() {
        let list = args(&["wait_pause", "call s.run", "write_skip x.y", "quit"]);
        let p = compile(&list, ScriptType::Driver, true).unwrap();
        assert_eq!(
            ops(&p),
            [Op::WaitStep, Op::Write, Op::WriteSkip, Op::Stop, Op::Stop]
        );
        let e = compile(&list, ScriptType::Driver, false).unwrap_err();
        assert_eq!(
            e,
            "syntax error at 'wait_pause'\nsyntax error at 'call'\n\
             syntax error at 'write_skip'\nsyntax error at 'quit'"
        );
    }

    #[test]
    fn syntax_errors_are_all_reported() {
        for (insn, msg) in [
            ("bogus 1", "syntax error at 'bogus'"),
            ("set x", "syntax error at 'set'"),
            ("label", "syntax error at 'label'"),
            ("label a b", "syntax error at 'label'"),
            ("end 1", "syntax error at 'end'"),
            ("loop 1", "syntax error at 'loop'"),
            ("pause x", "syntax error at 'pause'"),
            ("goto nowhere", "no such label 'nowhere'"),
        ] {
            let e = compile(&args(&[insn]), ScriptType::Active, false).unwrap_err();
            assert_eq!(e, msg, "{insn}");
        }
        // `error` takes a message.
        assert_eq!(ops(&active(&["error oops"]))[1], Op::Error);
    }

    #[test]
    fn types() {
        let t = |arg: &str, ninputs| script_type(arg, ScriptType::Active, ninputs);
        assert_eq!(t("", 0), Ok((ScriptType::Active, vec![])));
        assert_eq!(t("", 1), Ok((ScriptType::Packet, vec![])));
        assert_eq!(t("PASSIVE", 1), Ok((ScriptType::Passive, vec![])));
        assert_eq!(t("PUSH", 1), Ok((ScriptType::Packet, vec![])));
        assert_eq!(t("PROXY", 0), Ok((ScriptType::Proxy, vec![])));
        assert_eq!(t("SIGNAL HUP 10", 0), Ok((ScriptType::Signal, vec![1, 10])));
        assert_eq!(t("SIGNAL", 0), Err("bad signal number".into()));
        assert_eq!(t("SIGNAL BOGUS", 0), Err("bad signal number".into()));
        assert_eq!(t("ACTIVE x", 0), Err("bad TYPE".into()));
        assert_eq!(t("FOO", 0), Err("bad TYPE".into()));
        let d = script_type("", ScriptType::Driver, 1);
        assert_eq!(d, Ok((ScriptType::Driver, vec![])));
    }

    #[test]
    fn configure_reports_compile_errors() {
        for (conf, msg) in [
            ("Script(bogus 1)", "syntax error at 'bogus'"),
            ("Script(goto nowhere)", "no such label 'nowhere'"),
            ("Script(TYPE FOO)", "bad TYPE"),
        ] {
            let e = build_error(conf);
            assert!(e.contains(msg), "{conf}: {e}");
        }
    }
}
