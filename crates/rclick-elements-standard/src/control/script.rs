//! =c
//!
//! Script(INSTRUCTIONS...)
//!
//! =s control
//!
//! script a Click router configuration
//!
//! =io
//!
//! Normally none. A Script with TYPE PACKET (the default when the Script
//! has inputs) has any number of inputs and outputs; input 0 and output 0
//! are agnostic, the others push.
//!
//! =d
//!
//! Script runs a small scripting language that controls a router: it sets
//! variables, calls read and write handlers, waits for time to pass or for
//! other elements to prod it, and stops the router. Each configuration
//! argument is one instruction, except for the optional TYPE keyword.
//! Instructions run in order.
//!
//! Keyword arguments:
//!
//! * TYPE: the script type: `ACTIVE` (the default: runs as soon as the router
//!   starts), `PASSIVE` (runs when its `run` handler is called), `PACKET`
//!   (runs once per packet; the default when the Script has inputs),
//!   `PROXY` (runs when any handler it does not define is called) or
//!   `DRIVER` (an active script that also manages the router's stop events;
//!   see DriverManager), or `SIGNAL SIGNO...` (runs when the process
//!   receives one of the listed Unix signals: `ABRT`, `HUP`, `INT`, `PIPE`,
//!   `QUIT`, `TERM`, `TSTP`, `USR1`, `USR2` or a number below 32). A signal
//!   script is caught once per run: it listens again only if it finished
//!   with `end` (not `exit` or `stop`). A signal that no script listens for
//!   takes its default action, except that the `click` driver stops the
//!   router cleanly on SIGINT and SIGTERM.
//!
//! =head1 INSTRUCTIONS
//!
//! Text arguments undergo substitution (see below). Most instructions come
//! in two forms: the plain form substitutes but keeps quotes, the `q` form
//! (`setq`, `readq`, `writeq`, `printq`, `returnq`, `errorq`, `initq`,
//! `exportq`) also removes one layer of quotes.
//!
//! * `set VAR TEXT`, `setq VAR TEXT`: sets variable `$VAR` to TEXT.
//! * `init VAR [TEXT]`, `initq VAR [TEXT]`: sets `$VAR` once, when the
//!   router is initialized; later the instruction does nothing.
//! * `export VAR [TEXT]`, `exportq VAR [TEXT]`: like `init`, and also makes
//!   `$VAR` readable through a read handler named VAR.
//! * `print [>FILE | >>FILE] [TEXT | HANDLER]`: prints TEXT, or the value of
//!   read handler HANDLER, and a newline, to standard output (or writes or
//!   appends it to FILE). An argument starting with a letter, `@` or `_` is
//!   a handler; anything else has one layer of quotes removed and is printed.
//!   `printn` prints no newline; `printq` and `printnq` unquote the handler
//!   parameters.
//! * `save HANDLER [FILE]`, `append HANDLER [FILE]`: write or append the
//!   value of read handler HANDLER to FILE (standard output if absent).
//! * `read HANDLER [ARGS]`, `readq HANDLER [ARGS]`: calls a read handler and
//!   prints its name and value to standard error.
//! * `write HANDLER [ARGS]`, `writeq HANDLER [ARGS]`: calls a write
//!   handler. Its status is `$?` in later instructions.
//! * `pause [COUNT]` (also `wait_step`, `wait_stop`, or `wait` without an
//!   argument): waits until the `step` handler was called COUNT times
//!   (default 1). A driver script is stepped once per driver stop event.
//! * `wait TIME` (also `wait_time`, `wait_for`): waits TIME seconds, or
//!   until a step.
//! * `label LABEL`: defines a label.
//! * `goto LABEL [CONDITION]`: jumps to LABEL when CONDITION is absent or
//!   true. `goto begin` (or `loop`) jumps to the start; `goto end`,
//!   `goto exit`, `goto stop` and `goto error` act like those instructions.
//!   A script that jumps 1000 times without blocking is stopped.
//! * `loop`: jumps to the first instruction.
//! * `end`: ends the script. In a packet script the packet leaves on output
//!   0. Falling off the end of the script is an implicit `end`.
//! * `exit`: ends the script. A packet script drops its packet.
//! * `stop`: ends the script and asks the driver to stop (a driver script
//!   or DriverManager may intercept the request).
//! * `return [VALUE]`, `returnq [VALUE]`: ends the script; a passive script's
//!   `run` handler returns VALUE, a packet script sends its packet to output
//!   VALUE.
//! * `error [MSG]`, `errorq [MSG]`: ends the script with an error and reports
//!   MSG.
//!
//! =head1 SUBSTITUTIONS
//!
//! `$VAR` and `${VAR}` are replaced by the value of script variable VAR;
//! `$(HANDLER [ARGS])` by the value of a read handler, called with ARGS.
//! References nest: `$($x)` reads the handler named by `$x`. Handler names
//! without an element name refer to this Script's own handlers first (so
//! `$(add 1 2)` works), then to the router's global handlers. Special
//! variables: `$args` (the `run` handler's arguments), `$1`...`$9` (its
//! space-separated words), `$#` (their number), `$0` (the name of the
//! handler that ran the script), `$write` (whether it was a write),
//! `$input` (the input port, in packet scripts), `$?` (the status of the
//! last `write`), `$$` (the process ID). Inside double quotes, and in
//! `print` text, substituted values are quoted so that unquoting restores
//! them exactly. Nothing is substituted inside single quotes.
//!
//! =h step write-only
//!
//! Advances the script past its current blocking instruction (`pause` or
//! `wait`); a number steps past that many.
//!
//! =h goto write-only
//!
//! Moves the script to the given label and runs it from there.
//!
//! =h run read/write
//!
//! Runs the script from the start, with the handler's argument as `$args`.
//! A read returns the value of the `return` instruction that ended the
//! script.
//!
//! =h add, sub, mul, div, idiv, min, max "read with parameters"
//!
//! Arithmetic on a space-separated list of numbers: 'add 10 5 2' returns
//! 17. Integers stay integers until a real number appears; `div` always
//! works in reals, `idiv` truncates the quotient to an integer.
//!
//! =h mod, rem "read with parameters"
//!
//! Remainder of two numbers; `mod` takes integers, `rem` also reals.
//!
//! =h neg, abs "read with parameters"
//!
//! Negation and absolute value of a number.
//!
//! =h eq, ne, lt, gt, le, ge "read with parameters"
//!
//! Compare two numbers ('eq 10 0xA' is true), or, when either is not a
//! number, two strings byte by byte.
//!
//! =h not, and, or, nand, nor "read with parameters"
//!
//! Boolean operations on Boolean arguments.
//!
//! =h if "read with parameters"
//!
//! 'if COND A B' returns A when COND is true, B otherwise.
//!
//! =h in "read with parameters"
//!
//! 'in X A B ...' is true when X equals one of the other arguments.
//!
//! =h first "read with parameters"
//!
//! Returns the first space-separated word of its argument.
//!
//! =h sprintf "read with parameters"
//!
//! C-style formatting: 'sprintf "%05x" 127' returns 0007f. Supports `%d`,
//! `%i`, `%u`, `%o`, `%x`, `%X`, `%s` and `%%` with flags, width and
//! precision.
//!
//! =h random "read with parameters"
//!
//! A random integer: with no argument between 0 and 2147483647, with N
//! between 0 and N-1, with N1 N2 between N1 and N2.
//!
//! =h length, unquote "read with parameters"
//!
//! The length of the argument; the argument with one layer of quotes
//! removed.
//!
//! =h htons, htonl, ntohs, ntohl "read with parameters"
//!
//! Byte-order conversions of an integer.
//!
//! =h readable, writable "read with parameters"
//!
//! Whether every handler named in the argument exists and is readable
//! (writable).
//!
//! =h now r
//!
//! The current time.
//!
//! =h cat, catq "read with parameters"
//!
//! The contents of a file (quoted, for `catq`). Private: not reachable
//! through ControlSocket.
//!
//! =h kill "read with parameters"
//!
//! 'kill SIGNAL PID...' sends a signal to processes. Private.
//!
//! =h get "read with parameters"
//!
//! The value of the named script variable.
//!
//! =h set write-only
//!
//! 'set VAR VALUE' sets a script variable.
//!
//! =h shift "read with parameters"
//!
//! Removes and returns the first word of the named variable (default
//! `args`).
//!
//! =e
//!
//! Prints 0 to 4, then stops the router:
//!
//!   Script(set x 0,
//!          label begin_loop,
//!          print $x,
//!          set x $(add $x 1),
//!          goto begin_loop $(lt $x 5),
//!          stop);
//!
//! A passive script whose `s.run` handler returns the sum of two counts:
//!
//!   s :: Script(TYPE PASSIVE, return $(add $(c1.count) $(c2.count)))
//!
//! =a DriverManager

// Why this file is over 1,000 lines: it still holds four jobs (the
// instruction compiler, `$` expansion, the interpreter and the ~40
// expression handlers' dispatch); the handlers' arithmetic, comparisons,
// `sprintf` and word splitting are already in script_ops.rs. Splitting the
// rest by job is left from issue 18.

use std::io::Write as _;

use rclick_core::args::{parse_interval, AnyArg, Args, FromArg, NoContext};
use rclick_core::{
    Ctx, Element, ElementId, HandlerDef, HandlerFlags, HandlerKind, InitCx, Packet, PacketBatch,
    TimerId, Timestamp,
};

use super::script_ops::{self as ops, pop_word, shift_word};
use crate::basic::parse_int;

/// Jumps a script may make without blocking before it is stopped.
const MAX_JUMPS: u32 = 1000;

/// The script types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptType {
    /// Runs at start.
    Active,
    /// Runs at start and manages stop events.
    Driver,
    /// Runs when `run` is called.
    Passive,
    /// Runs per packet.
    Packet,
    /// Runs for any handler.
    Proxy,
    /// Runs when the process receives a Unix signal.
    Signal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
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
enum Target {
    Pos(usize),
    Finish(Op),
}

#[derive(Clone, Debug)]
struct Insn {
    op: Op,
    /// `pause`: steps to wait for; set/init/export/return: variable index;
    /// `Initial`: whether the first step is pending.
    arg: u32,
    /// `pause`: steps seen so far.
    arg2: u32,
    /// `goto` destination.
    target: Target,
    /// The instruction's text (for `goto`, its condition).
    text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepType {
    Normal,
    Router,
    Timer,
    Jump,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepWhat {
    Step,
    Run,
    Goto,
}

// Handler ids.
const H_STEP: u32 = 0;
const H_GOTO: u32 = 1;
const H_RUN: u32 = 2;
const H_ADD: u32 = 3;
const H_SUB: u32 = 4;
const H_MIN: u32 = 5;
const H_MAX: u32 = 6;
const H_MUL: u32 = 7;
const H_DIV: u32 = 8;
const H_IDIV: u32 = 9;
const H_MOD: u32 = 10;
const H_REM: u32 = 11;
const H_NEG: u32 = 12;
const H_ABS: u32 = 13;
const H_EQ: u32 = 14;
const H_NE: u32 = 15;
const H_GT: u32 = 16;
const H_GE: u32 = 17;
const H_LT: u32 = 18;
const H_LE: u32 = 19;
const H_NOT: u32 = 20;
const H_SPRINTF: u32 = 21;
const H_FIRST: u32 = 22;
const H_RANDOM: u32 = 23;
const H_AND: u32 = 24;
const H_OR: u32 = 25;
const H_NAND: u32 = 26;
const H_NOR: u32 = 27;
const H_IF: u32 = 28;
const H_IN: u32 = 29;
const H_NOW: u32 = 30;
const H_READABLE: u32 = 31;
const H_WRITABLE: u32 = 32;
const H_LENGTH: u32 = 33;
const H_UNQUOTE: u32 = 34;
const H_HTONS: u32 = 35;
const H_HTONL: u32 = 36;
const H_NTOHS: u32 = 37;
const H_NTOHL: u32 = 38;
const H_CAT: u32 = 39;
const H_CATQ: u32 = 40;
const H_KILL: u32 = 41;
const H_GET: u32 = 42;
const H_SET: u32 = 43;
const H_SHIFT: u32 = 44;
const H_STAR: u32 = 99;
const H_EXPORT_BASE: u32 = 1000;

/// How a local handler may be called: (read, write, read with parameter,
/// private).
type LocalFlags = (bool, bool, bool, bool);

const RP: LocalFlags = (true, false, true, false);

/// Script's own handlers.
const LOCAL: &[(&str, u32, LocalFlags)] = &[
    ("step", H_STEP, (false, true, false, false)),
    ("goto", H_GOTO, (false, true, false, false)),
    ("run", H_RUN, (true, true, true, false)),
    ("add", H_ADD, RP),
    ("sub", H_SUB, RP),
    ("min", H_MIN, RP),
    ("max", H_MAX, RP),
    ("mul", H_MUL, RP),
    ("div", H_DIV, RP),
    ("idiv", H_IDIV, RP),
    ("mod", H_MOD, RP),
    ("rem", H_REM, RP),
    ("neg", H_NEG, RP),
    ("abs", H_ABS, RP),
    ("eq", H_EQ, RP),
    ("ne", H_NE, RP),
    ("gt", H_GT, RP),
    ("ge", H_GE, RP),
    ("lt", H_LT, RP),
    ("le", H_LE, RP),
    ("not", H_NOT, RP),
    ("sprintf", H_SPRINTF, RP),
    ("first", H_FIRST, RP),
    ("random", H_RANDOM, RP),
    ("and", H_AND, RP),
    ("or", H_OR, RP),
    ("nand", H_NAND, RP),
    ("nor", H_NOR, RP),
    ("if", H_IF, RP),
    ("in", H_IN, RP),
    ("now", H_NOW, (true, false, false, false)),
    ("readable", H_READABLE, RP),
    ("writable", H_WRITABLE, RP),
    ("length", H_LENGTH, RP),
    ("unquote", H_UNQUOTE, RP),
    ("htons", H_HTONS, RP),
    ("htonl", H_HTONL, RP),
    ("ntohs", H_NTOHS, RP),
    ("ntohl", H_NTOHL, RP),
    ("cat", H_CAT, (true, false, true, true)),
    ("catq", H_CATQ, (true, false, true, true)),
    ("kill", H_KILL, (true, false, true, true)),
    ("get", H_GET, RP),
    ("set", H_SET, (false, true, false, false)),
    ("shift", H_SHIFT, RP),
];

/// A resolved handler call (Click's `HandlerCall`).
struct HCall {
    /// Whether the handler is this Script's own.
    local: Option<u32>,
    /// The name to call through the router (`elem.handler` or a global).
    spec: String,
    /// The name to show in messages.
    display: String,
    /// The argument.
    value: String,
}

/// Click's Script element (and, with a different default type,
/// DriverManager).
pub struct Script {
    class: &'static str,
    default_type: ScriptType,
    ty: ScriptType,
    insns: Vec<Insn>,
    vars: Vec<(String, String)>,
    exports: Vec<usize>,
    run_handler_name: String,
    run_args: String,
    run_write: bool,
    insn_pos: usize,
    step_count: i64,
    write_status: i32,
    timer: Option<TimerId>,
    cur_steps: Option<i64>,
    rng: u64,
    /// TYPE SIGNAL: the signals, and this script's registration key.
    signos: Vec<i32>,
    signal_key: u64,
}

impl Default for Script {
    fn default() -> Self {
        Script::new("Script", ScriptType::Active)
    }
}

impl Script {
    /// TYPE SIGNAL: listens (again) for this script's signals.
    fn listen_for_signals(&mut self, name: &str) -> Result<(), String> {
        if self.signal_key == 0 {
            self.signal_key = super::signals::new_key();
        }
        super::signals::register(self.signal_key, name, &self.signos)
    }

    /// TYPE SIGNAL: after a run, listens again if the script ended with
    /// `end` (Click's `complete_step`).
    fn after_signal_run(&mut self, cx: &mut Ctx) {
        if self.ty == ScriptType::Signal && self.last_op() == Some(Op::End) {
            let name = cx.name().to_string();
            if let Err(e) = self.listen_for_signals(&name) {
                cx.log(format!("{}: {e}", cx.declaration()));
            }
        }
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        if self.signal_key != 0 {
            super::signals::unregister(self.signal_key);
        }
    }
}

/// Strips " (os error N)" from an I/O error, leaving C's `strerror` text.
fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Indents every line of `msg` by two spaces under `context`.
fn with_context(context: &str, msg: &str) -> String {
    let mut s = context.to_string();
    for line in msg.lines() {
        s.push_str("\n  ");
        s.push_str(line);
    }
    s
}

impl Script {
    /// A script of class `class` whose TYPE defaults to `default_type`.
    pub fn new(class: &'static str, default_type: ScriptType) -> Script {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9_7f4a_7c15);
        Script {
            class,
            default_type,
            ty: default_type,
            insns: Vec::new(),
            vars: Vec::new(),
            exports: Vec::new(),
            run_handler_name: String::new(),
            run_args: String::new(),
            run_write: false,
            insn_pos: 0,
            step_count: 0,
            write_status: 0,
            timer: None,
            cur_steps: None,
            rng: seed | 1,
            signos: Vec::new(),
            signal_key: 0,
        }
    }

    /// The script type.
    pub fn script_type(&self) -> ScriptType {
        self.ty
    }

    fn find_var(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|(n, _)| n == name)
    }

    fn var_index(vars: &mut Vec<(String, String)>, name: &str) -> usize {
        match vars.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                vars.push((name.to_string(), String::new()));
                vars.len() - 1
            }
        }
    }

    fn find_label(insns: &[Insn], label: &str) -> Option<Target> {
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

    fn add_insn(insns: &mut Vec<Insn>, op: Op, arg: u32, text: String) {
        if insns.is_empty() && !matches!(op, Op::Initial | Op::WaitStep | Op::WaitTime) {
            Self::add_insn(insns, Op::Initial, 0, String::new());
        }
        insns.push(Insn {
            op,
            arg,
            arg2: 0,
            target: Target::Pos(0),
            text,
        });
    }

    fn next_random(&mut self) -> u32 {
        // xorshift64*
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as u32
    }

    fn local_handler(name: &str) -> Option<(u32, LocalFlags)> {
        LOCAL
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|&(_, id, f)| (id, f))
    }

    /// This Script's handler `name`, if it has one: id and flags.
    fn own_handler(&self, name: &str) -> Option<(u32, LocalFlags)> {
        if let Some(h) = Self::local_handler(name) {
            return Some(h);
        }
        self.exports
            .iter()
            .find(|&&i| self.vars[i].0 == name)
            .map(|&i| (H_EXPORT_BASE + i as u32, (true, false, false, false)))
    }

    // ------------------------------------------------------------------
    // Handler calls

    /// Parses `text` as `HANDLER [ARGS]` (Click's `HandlerCall`): the
    /// handler name is resolved relative to this Script, which also answers
    /// bare names of its own handlers when `prefer_local` is set.
    fn parse_call(
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
        let local_flags = |(r, w, p, _): LocalFlags| HandlerFlags {
            read: r,
            write: w,
            read_param: p,
            ..HandlerFlags::default()
        };
        let dot = name.find('.');
        match dot {
            None | Some(0) => {
                let h = if dot.is_some() { &name[1..] } else { &name[..] };
                if dot.is_none() && prefer_local {
                    if let Some((id, f)) = self.own_handler(h) {
                        let display = format!("{}.{h}", cx.name());
                        check(Some(local_flags(f)), &display)?;
                        return Ok(HCall {
                            local: Some(id),
                            spec: h.to_string(),
                            display,
                            value,
                        });
                    }
                }
                check(cx.handler_flags(h), h)?;
                Ok(HCall {
                    local: None,
                    spec: h.to_string(),
                    display: h.to_string(),
                    value,
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
                    let f = self.own_handler(h).or(match h {
                        "name" | "class" => Some((u32::MAX, (true, false, false, false))),
                        _ => None,
                    });
                    let (id, f) = f.ok_or_else(|| format!("no '{full}' {kind} handler"))?;
                    check(Some(local_flags(f)), &full)?;
                    return Ok(HCall {
                        local: Some(id),
                        spec: h.to_string(),
                        display: full,
                        value,
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
                    local: None,
                    spec: full.clone(),
                    display: full,
                    value,
                })
            }
        }
    }

    fn call_read(
        &mut self,
        hc: &HCall,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<String, String> {
        match hc.local {
            Some(u32::MAX) => Ok(if hc.spec == "name" {
                cx.name().to_string()
            } else {
                cx.element_info(cx.id()).class.clone()
            }),
            Some(id) => self.local_read(id, &hc.spec, &hc.value, cx, errs),
            None => cx.call_read(&hc.spec, &hc.value),
        }
    }

    fn call_write(
        &mut self,
        hc: &HCall,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<i32, String> {
        match hc.local {
            Some(id) => self.local_write(id, &hc.spec, &hc.value, cx, errs),
            None => cx.call_write(&hc.spec, &hc.value).map(|()| 0),
        }
    }

    /// Reads this Script's handler `id`.
    fn local_read(
        &mut self,
        id: u32,
        name: &str,
        param: &str,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<String, String> {
        use ops::{Arith, Cmp};
        let p = param;
        match id {
            H_RUN => {
                let (st, ret) = self.step_handler(StepWhat::Run, p, false, name, cx, errs);
                if st < 0 {
                    Err(Self::take_error(errs))
                } else {
                    Ok(ret)
                }
            }
            H_ADD => ops::arith(Arith::Add, p),
            H_SUB => ops::arith(Arith::Sub, p),
            H_MIN => ops::arith(Arith::Min, p),
            H_MAX => ops::arith(Arith::Max, p),
            H_MUL => ops::arith(Arith::Mul, p),
            H_DIV => ops::arith(Arith::Div, p),
            H_IDIV => ops::arith(Arith::Idiv, p),
            H_MOD => ops::modrem(false, p),
            H_REM => ops::modrem(true, p),
            H_NEG => ops::negabs(true, p),
            H_ABS => ops::negabs(false, p),
            H_EQ => ops::compare(Cmp::Eq, p),
            H_NE => ops::compare(Cmp::Ne, p),
            H_GT => ops::compare(Cmp::Gt, p),
            H_GE => ops::compare(Cmp::Ge, p),
            H_LT => ops::compare(Cmp::Lt, p),
            H_LE => ops::compare(Cmp::Le, p),
            H_NOT => ops::not(p),
            H_SPRINTF => ops::sprintf(p),
            H_FIRST => Ok(shift_word(p).0.to_string()),
            H_RANDOM => self.random(p),
            H_AND => ops::andor(true, false, p),
            H_OR => ops::andor(false, false, p),
            H_NAND => ops::andor(true, true, p),
            H_NOR => ops::andor(false, true, p),
            H_IF => ops::if_(p),
            H_IN => Ok(ops::in_(p)),
            H_NOW => Ok(cx.now().to_string()),
            H_READABLE | H_WRITABLE => {
                let mut rest = p.to_string();
                loop {
                    let w = pop_word(&mut rest);
                    if w.is_empty() {
                        return Ok("true".into());
                    }
                    if self
                        .parse_call(&w, id == H_WRITABLE, false, false, cx)
                        .is_err()
                    {
                        return Ok("false".into());
                    }
                }
            }
            H_LENGTH => Ok(p.len().to_string()),
            H_UNQUOTE => Ok(ops::unquote(p)),
            H_HTONS | H_NTOHS => ops::byte_order(false, p),
            H_HTONL | H_NTOHL => ops::byte_order(true, p),
            H_CAT | H_CATQ => {
                let file = ops::unquote(p.trim());
                if file.is_empty() {
                    return Err("bad FILE".into());
                }
                let data = std::fs::read(&file).map_err(|e| format!("{file}: {}", strerror(&e)))?;
                let s = String::from_utf8_lossy(&data).into_owned();
                Ok(if id == H_CATQ { ops::quote(&s) } else { s })
            }
            H_KILL => {
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
            H_GET | H_SHIFT => {
                let mut rest = p.to_string();
                let mut var = pop_word(&mut rest);
                if var.is_empty() && id == H_SHIFT {
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
                Ok(if id == H_GET {
                    slot.clone()
                } else {
                    pop_word(slot)
                })
            }
            _ if id >= H_EXPORT_BASE => Ok(self
                .vars
                .get((id - H_EXPORT_BASE) as usize)
                .map(|v| v.1.clone())
                .unwrap_or_default()),
            _ => Err(format!("no '{name}' read handler")),
        }
    }

    /// Writes this Script's handler `id`; returns the handler's status.
    fn local_write(
        &mut self,
        id: u32,
        name: &str,
        value: &str,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> Result<i32, String> {
        let what = match id {
            H_STEP => StepWhat::Step,
            H_GOTO => StepWhat::Goto,
            H_RUN => StepWhat::Run,
            H_SET => {
                let mut rest = value.to_string();
                let var = pop_word(&mut rest);
                if var.is_empty() {
                    return Err("no variable".into());
                }
                if var == "args" {
                    self.run_args = rest;
                } else {
                    let i = Self::var_index(&mut self.vars, &var);
                    self.vars[i].1 = rest;
                }
                return Ok(0);
            }
            _ => return Err(format!("no '{name}' write handler")),
        };
        let n = errs.len();
        let (st, _) = self.step_handler(what, value, true, name, cx, errs);
        if st < 0 && errs.len() > n {
            let msg = errs.split_off(n).join("\n");
            return Err(msg);
        }
        if st < 0 {
            return Err("script error".into());
        }
        Ok(st)
    }

    fn take_error(errs: &mut Vec<String>) -> String {
        if errs.is_empty() {
            "script error".into()
        } else {
            std::mem::take(errs).join("\n")
        }
    }

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

    // ------------------------------------------------------------------
    // Substitution

    /// Click's `cp_expand` with Script's variables and handlers. Without a
    /// run-time context (while initializing), `$(...)` is left alone.
    fn expand(
        &mut self,
        config: &str,
        expand_quote: bool,
        depth: usize,
        mut cx: Option<&mut Ctx>,
        errs: &mut Vec<String>,
    ) -> String {
        if !config.contains('$') {
            return config.to_string();
        }
        let b = config.as_bytes();
        let end = b.len();
        let sub = |a: usize, z: usize| config.get(a.min(end)..z.min(end)).unwrap_or("");
        let mut out = String::new();
        let mut unint = 0usize;
        let mut quote = 0u8;
        let mut s = 0usize;
        'scan: while s < end {
            match b[s] {
                b'\\' if s + 1 < end && quote == b'"' => s += 1,
                b'\'' | b'"' => {
                    if quote == 0 {
                        quote = b[s];
                    } else if quote == b[s] {
                        quote = 0;
                    }
                }
                b'/' if s + 1 < end && (b[s + 1] == b'/' || b[s + 1] == b'*') && quote == 0 => {
                    s = ops::skip_comment_space(b, s).max(1) - 1;
                }
                b'$' if s + 1 < end && quote != b'\'' && depth <= 10 => {
                    let before = s;
                    let mut expand_vname = false;
                    let vtype;
                    let vname_range;
                    if b[s + 1] == b'{' {
                        vtype = b'{';
                        s += 2;
                        let cstart = s;
                        while s < end && b[s] != b'}' {
                            if b[s] == b'$' {
                                expand_vname = true;
                            }
                            s += 1;
                        }
                        if s == end {
                            break 'scan;
                        }
                        vname_range = (cstart, s);
                        s += 1;
                    } else if b[s + 1] == b'(' {
                        vtype = b'(';
                        let (mut level, mut nquote) = (1, 0u8);
                        s += 2;
                        let cstart = s;
                        while s < end && level > 0 {
                            match b[s] {
                                b'(' if nquote == 0 => level += 1,
                                b')' if nquote == 0 => level -= 1,
                                c @ (b'"' | b'\'') => {
                                    if nquote == 0 {
                                        nquote = c;
                                    } else if nquote == c {
                                        nquote = 0;
                                    }
                                }
                                b'\\' if s + 1 < end && nquote != b'\'' => s += 1,
                                b'$' if nquote != b'\'' => expand_vname = true,
                                _ => {}
                            }
                            s += 1;
                        }
                        if s == cstart || b[s - 1] != b')' {
                            break 'scan;
                        }
                        vname_range = (cstart, s - 1);
                    } else if b[s + 1].is_ascii_alphanumeric() || b[s + 1] == b'_' {
                        vtype = b'a';
                        s += 1;
                        let cstart = s;
                        while s < end && (b[s].is_ascii_alphanumeric() || b[s] == b'_') {
                            s += 1;
                        }
                        vname_range = (cstart, s);
                    } else if matches!(b[s + 1], b'?' | b'#' | b'$') {
                        vtype = b'a';
                        s += 1;
                        vname_range = (s, s + 1);
                        s += 1;
                    } else {
                        s += 1;
                        continue;
                    }
                    out.push_str(sub(unint, before));
                    let mut vname = sub(vname_range.0, vname_range.1).to_string();
                    if expand_vname {
                        vname = self.expand(&vname, false, depth + 1, cx.as_deref_mut(), errs);
                    }
                    let result = self.expand_var(&vname, vtype, cx.as_deref_mut(), errs);
                    unint = s;
                    match result {
                        None => {
                            if expand_vname {
                                out.push('$');
                                out.push(char::from(b[before + 1]));
                                out.push_str(&vname);
                                out.push(char::from(b[s - 1]));
                            } else {
                                unint = before;
                            }
                        }
                        Some(text) => {
                            if quote == b'"' || (expand_quote && quote == 0) {
                                let q = ops::quote(&text);
                                let inner = q
                                    .strip_prefix('"')
                                    .and_then(|x| x.strip_suffix('"'))
                                    .unwrap_or(&q);
                                if quote == b'"' {
                                    out.push_str(inner);
                                } else {
                                    out.push('"');
                                    out.push_str(inner);
                                    out.push('"');
                                }
                            } else {
                                out.push_str(&text);
                            }
                        }
                    }
                    continue;
                }
                _ => {}
            }
            s += 1;
        }
        if out.is_empty() {
            return config.to_string();
        }
        out.push_str(sub(unint, end));
        out
    }

    /// Script's variable expander: variables, special variables, and
    /// `$(HANDLER)` reads.
    fn expand_var(
        &mut self,
        vname: &str,
        vtype: u8,
        cx: Option<&mut Ctx>,
        errs: &mut Vec<String>,
    ) -> Option<String> {
        if let Some(i) = self.find_var(vname) {
            return Some(self.vars[i].1.clone());
        }
        match vname {
            "?" => return Some(self.write_status.to_string()),
            "args" => return Some(self.run_args.clone()),
            "$" => return Some(std::process::id().to_string()),
            "0" => return Some(self.run_handler_name.clone()),
            "#" => {
                let mut rest = self.run_args.clone();
                let mut n = 0;
                while !pop_word(&mut rest).is_empty() {
                    n += 1;
                }
                return Some(n.to_string());
            }
            "write" => return Some(ops::bool_text(self.run_write)),
            _ => {}
        }
        if vname
            .as_bytes()
            .first()
            .is_some_and(|c| (b'1'..=b'9').contains(c))
        {
            if let Some(n) = parse_int::<i64>(vname) {
                let mut rest = self.run_args.clone();
                let mut word = String::new();
                for _ in 0..n.min(1 << 20) {
                    word = pop_word(&mut rest);
                    if word.is_empty() && rest.is_empty() {
                        break;
                    }
                }
                return Some(word);
            }
        }
        if vtype == b'(' {
            let cx = cx?;
            match self.parse_call(vname, false, false, true, cx) {
                Ok(hc) => {
                    return Some(self.call_read(&hc, cx, errs).unwrap_or_else(|e| {
                        errs.push(e);
                        String::new()
                    }))
                }
                Err(e) => errs.push(e),
            }
        }
        None
    }

    // ------------------------------------------------------------------
    // Running

    fn schedule_wait(&mut self, text: &str, cx: &mut Ctx, errs: &mut Vec<String>) -> bool {
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
    fn step(
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
                                let v = self.call_read(&hc, cx, errs).unwrap_or_else(|e| {
                                    errs.push(with_context(
                                        &format!("While calling '{}':", Self::unparse(&hc)),
                                        &e,
                                    ));
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
                            Ok(hc) => match self.call_write(&hc, cx, errs) {
                                Ok(st) => self.write_status = st,
                                Err(e) => {
                                    errs.push(with_context(
                                        &format!("While calling '{}':", Self::unparse(&hc)),
                                        &e,
                                    ));
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

    fn unparse(hc: &HCall) -> String {
        if hc.value.is_empty() {
            hc.display.clone()
        } else {
            format!("{} {}", hc.display, hc.value)
        }
    }

    /// The instruction the script stopped at, with `goto` to a terminal
    /// label counted as that instruction.
    fn last_op(&self) -> Option<Op> {
        let insn = self.insns.get(self.insn_pos)?;
        Some(match (insn.op, insn.target) {
            (Op::Goto, Target::Finish(op)) => op,
            (op, _) => op,
        })
    }

    /// Click's `complete_step`: the status (-1 error, 1 stop, 0 otherwise)
    /// and the return value.
    fn complete_step(&self) -> (i32, String) {
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
    fn step_handler(
        &mut self,
        what: StepWhat,
        value: &str,
        is_write: bool,
        hname: &str,
        cx: &mut Ctx,
        errs: &mut Vec<String>,
    ) -> (i32, String) {
        let data = rclick_core::confparse::uncomment(value);
        self.run_handler_name = hname.to_string();
        self.run_args.clear();
        self.run_write = is_write;
        let (nsteps, step_type) = match what {
            StepWhat::Goto => {
                match Self::find_label(&self.insns, &data) {
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
    fn flush_errors(&self, cx: &Ctx, errs: &mut Vec<String>) {
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

    fn do_print(&mut self, op: Op, text: String, cx: &mut Ctx, errs: &mut Vec<String>) {
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
                    Ok(hc) => match self.call_read(&hc, cx, errs) {
                        Ok(v) => v.into_bytes(),
                        Err(e) => {
                            errs.push(with_context(
                                &format!("While calling '{}':", Self::unparse(&hc)),
                                &e,
                            ));
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
    fn run_packet(&mut self, port: usize, cx: &mut Ctx, errs: &mut Vec<String>) -> Option<usize> {
        let i = Self::var_index(&mut self.vars, "input");
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
    fn handler_run(
        &mut self,
        what: StepWhat,
        value: &str,
        is_write: bool,
        hname: &str,
        cx: &mut Ctx,
    ) -> Result<(i32, String), String> {
        let mut errs = Vec::new();
        let (st, ret) = self.step_handler(what, value, is_write, hname, cx, &mut errs);
        if st < 0 {
            return Err(Self::take_error(&mut errs));
        }
        self.flush_errors(cx, &mut errs);
        Ok((st, ret))
    }
}

impl Element for Script {
    fn class_name(&self) -> &'static str {
        self.class
    }

    fn port_count(&self) -> &'static str {
        "-/-"
    }

    fn processing(&self) -> &'static str {
        "ah/ah"
    }

    fn configure(
        &mut self,
        conf: &[String],
        cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut type_arg = AnyArg::default();
        let mut type_given = false;
        let rest = Args::new(conf)
            .read("TYPE", &mut type_arg)
            .read_status(&mut type_given)
            .consume()
            .map_err(|e| e.to_string())?;
        let mut targ = type_arg.0.clone();
        let word = pop_word(&mut targ);
        let mut signos = Vec::new();
        let ty = if !type_given || word.is_empty() {
            if cx.ninputs() > 0 && self.default_type == ScriptType::Active {
                ScriptType::Packet
            } else {
                self.default_type
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
                        match super::signals::signal_number(&w) {
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
        if ty == ScriptType::Packet && cx.ninputs() == 0 {
            return Err("PACKET script must have inputs".into());
        }
        if ty != ScriptType::Packet && (cx.ninputs() > 0 || cx.noutputs() > 0) {
            return Err("ports allowed only on PACKET scripts".into());
        }
        let driver_manager = self.class == "DriverManager";

        let mut insns: Vec<Insn> = Vec::new();
        let mut vars: Vec<(String, String)> = Vec::new();
        let mut errors: Vec<String> = Vec::new();
        for arg in &rest {
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
                        Some(n) => Self::add_insn(&mut insns, Op::WaitStep, n, String::new()),
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
                | Op::Append => Self::add_insn(&mut insns, op, 0, text),
                Op::Goto if name == "loop" => {
                    if !text.is_empty() {
                        errors.push(syntax);
                    } else {
                        Self::add_insn(&mut insns, Op::Goto, 0, String::new());
                    }
                }
                Op::Goto => Self::add_insn(&mut insns, op, 0, text),
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
                    let v = Self::var_index(&mut vars, &word) as u32;
                    Self::add_insn(&mut insns, op, v, text);
                }
                Op::WaitTime => Self::add_insn(&mut insns, op, 0, text),
                Op::Label => {
                    let word = pop_word(&mut text);
                    if word.is_empty() || !text.is_empty() {
                        errors.push(syntax);
                    } else {
                        Self::add_insn(&mut insns, op, 0, word);
                    }
                }
                Op::End | Op::Exit | Op::Stop | Op::Error | Op::ErrorQ => {
                    if !text.is_empty() && !matches!(op, Op::Error | Op::ErrorQ) {
                        errors.push(syntax);
                    } else {
                        Self::add_insn(&mut insns, op, 0, text);
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
                match Self::find_label(&insns, &word) {
                    Some(t) => insns[i].target = t,
                    None => errors.push(format!("no such label '{word}'")),
                }
            }
        }
        if insns.is_empty() && ty == ScriptType::Driver {
            Self::add_insn(&mut insns, Op::WaitStep, 1, String::new());
        }
        let last = if ty == ScriptType::Driver {
            Op::Stop
        } else {
            Op::End
        };
        Self::add_insn(&mut insns, last, 0, String::new());
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        self.exports = insns
            .iter()
            .filter(|x| matches!(x.op, Op::Export | Op::ExportQ))
            .map(|x| x.arg as usize)
            .collect();
        self.exports.dedup();
        self.ty = ty;
        self.insns = insns;
        self.vars = vars;
        self.signos = signos;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if self.ty == ScriptType::Driver {
            for e in 0..cx.nelements() {
                if e == cx.id() {
                    continue;
                }
                let other_driver = cx
                    .with_element(e, |el| {
                        <dyn Element>::downcast_ref::<Script>(el)
                            .is_some_and(|s| s.ty == ScriptType::Driver)
                    })
                    .unwrap_or(false);
                if other_driver && e < cx.id() {
                    return Err("router has more than one driver script".into());
                }
            }
        }
        self.insn_pos = 0;
        self.step_count = 0;
        let timer = cx.new_timer();
        self.timer = Some(timer);
        let mut errs = Vec::new();
        for i in 0..self.insns.len() {
            let op = self.insns[i].op;
            if matches!(op, Op::Init | Op::InitQ | Op::Export | Op::ExportQ) {
                let text = self.insns[i].text.clone();
                let mut v = self.expand(&text, false, 0, None, &mut errs);
                if matches!(op, Op::InitQ | Op::ExportQ) {
                    v = ops::unquote(&v);
                }
                let var = self.insns[i].arg as usize;
                if let Some(slot) = self.vars.get_mut(var) {
                    slot.1 = v;
                }
            }
        }
        let passive = matches!(
            self.ty,
            ScriptType::Passive | ScriptType::Packet | ScriptType::Proxy | ScriptType::Signal
        );
        if self.ty == ScriptType::Signal {
            let task = cx.new_task(false);
            cx.wake_on_external_event(task);
            let name = cx.name().to_string();
            self.listen_for_signals(&name)?;
        }
        if !passive {
            match self.insns.first().map(|i| i.op) {
                Some(Op::WaitTime) => {
                    let text = self.insns[0].text.clone();
                    let t = self.expand(&text, false, 0, None, &mut errs);
                    match parse_interval(t.trim()) {
                        Ok(iv) => {
                            cx.schedule_timer_after(timer, Timestamp::from_nsec(iv.as_nanos()))
                        }
                        Err(_) => return Err("syntax error at 'wait'".into()),
                    }
                }
                Some(Op::Initial) => {
                    if self.ty == ScriptType::Driver {
                        cx.adjust_runcount(-1);
                    } else {
                        cx.schedule_timer_after(timer, Timestamp::ZERO);
                    }
                    self.insns[0].arg = 1;
                }
                _ => {}
            }
        }
        if self.ty == ScriptType::Driver {
            cx.register_stop_handler();
        }
        Ok(())
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        let mut errs = Vec::new();
        self.step(1, StepType::Timer, 0, cx, &mut errs);
        self.flush_errors(cx, &mut errs);
    }

    /// TYPE SIGNAL: signals arrived. The first signal script to run calls
    /// the `run` handler of every script whose signal fired, in order
    /// (Click's `Master::process_signals`).
    fn run_task(&mut self, _task: rclick_core::TaskId, cx: &mut Ctx) -> bool {
        let fired = super::signals::take_fired();
        for (key, name) in &fired {
            if *key == self.signal_key {
                if let Err(e) = self.handler_run(StepWhat::Run, "", true, "run", cx) {
                    cx.log(format!("While executing '{}':", cx.declaration()));
                    cx.log(format!("  {e}"));
                }
                self.after_signal_run(cx);
            } else if let Err(e) = cx.call_write(&format!("{name}.run"), "") {
                cx.log(e);
            }
        }
        if !fired.is_empty() {
            super::signals::finish_dispatch();
        }
        !fired.is_empty()
    }

    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mut errs = Vec::new();
        for p in batch {
            if let Some(out) = self.run_packet(port, cx, &mut errs) {
                cx.checked_push(out, PacketBatch::from(p));
            }
        }
        self.flush_errors(cx, &mut errs);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        if batch.is_empty() {
            return batch;
        }
        let mut out = PacketBatch::with_capacity(batch.len());
        let mut errs = Vec::new();
        for p in batch {
            match self.run_packet(0, cx, &mut errs) {
                Some(0) => out.push(p),
                Some(port) if port < cx.noutputs() && cx.output_is_push(port) => {
                    cx.push(port, PacketBatch::from(p))
                }
                _ => drop::<Packet>(p),
            }
        }
        self.flush_errors(cx, &mut errs);
        out
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v: Vec<HandlerDef> = LOCAL
            .iter()
            .map(|&(name, id, (r, w, p, private))| HandlerDef {
                name: name.into(),
                flags: HandlerFlags {
                    read: r,
                    write: w,
                    read_param: p,
                    private,
                    ..HandlerFlags::default()
                },
                kind: HandlerKind::Element(id),
            })
            .collect();
        if self.ty == ScriptType::Proxy {
            v.push(HandlerDef {
                name: "*".into(),
                flags: HandlerFlags {
                    write: true,
                    private: true,
                    ..HandlerFlags::default()
                },
                kind: HandlerKind::Element(H_STAR),
            });
        }
        for &i in &self.exports {
            v.push(HandlerDef {
                name: self.vars[i].0.clone().into(),
                flags: HandlerFlags::READ,
                kind: HandlerKind::Element(H_EXPORT_BASE + i as u32),
            });
        }
        v
    }

    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        let name = LOCAL
            .iter()
            .find(|(_, i, _)| *i == id)
            .map(|(n, _, _)| n.to_string())
            .unwrap_or_default();
        if id == H_RUN {
            return self
                .handler_run(StepWhat::Run, param, false, &name, cx)
                .map(|(_, r)| r);
        }
        let mut errs = Vec::new();
        let r = self.local_read(id, &name, param, cx, &mut errs);
        self.flush_errors(cx, &mut errs);
        r
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let (what, name) = match id {
            H_STEP => (StepWhat::Step, "step"),
            H_GOTO => (StepWhat::Goto, "goto"),
            H_RUN if self.ty == ScriptType::Signal => {
                let r = self.handler_run(StepWhat::Run, value, true, "run", cx);
                self.after_signal_run(cx);
                return r.map(|_| ());
            }
            H_RUN => (StepWhat::Run, "run"),
            H_SET => {
                let mut errs = Vec::new();
                return self
                    .local_write(id, "set", value, cx, &mut errs)
                    .map(|_| ());
            }
            _ => return Err("handler not writable".into()),
        };
        self.handler_run(what, value, true, name, cx).map(|_| ())
    }

    fn proxy_handler(
        &mut self,
        name: &str,
        value: Option<&str>,
        param: &str,
        cx: &mut Ctx,
    ) -> Option<Result<String, String>> {
        if self.ty != ScriptType::Proxy {
            return None;
        }
        let (arg, write) = match value {
            Some(v) => (v, true),
            None => (param, false),
        };
        Some(
            self.handler_run(StepWhat::Run, arg, write, name, cx)
                .map(|(_, r)| r),
        )
    }

    fn handle_stop(&mut self, cx: &mut Ctx) -> bool {
        if self.ty != ScriptType::Driver {
            return false;
        }
        let mut max = 1000;
        loop {
            let mut errs = Vec::new();
            let (st, _) = self.step_handler(StepWhat::Step, "router", true, "step", cx, &mut errs);
            // The driver reports these errors to its own (context-free)
            // error handler, as Click's driver does.
            for e in errs.drain(..) {
                for line in e.lines() {
                    cx.log(line.to_string());
                }
            }
            max -= 1;
            if st != 0 || cx.runcount() > 0 || max < 0 {
                break;
            }
        }
        cx.runcount() > 0
    }
}

#[cfg(test)]
mod tests {
    use rclick_core::testing;
    use rclick_core::Registry;

    fn registry() -> Registry {
        let mut r = Registry::new();
        crate::register(&mut r);
        r
    }

    /// Runs `conf`; returns the router, its output and the simulated
    /// seconds it ran.
    fn run_timed(conf: &str) -> (rclick_core::Router, String, f64) {
        let r = testing::build(conf, &registry(), true).unwrap_or_else(|e| panic!("{e}"));
        let start = r.clock().now();
        r.run();
        let secs = (r.clock().now() - start).as_secs_f64();
        let out = r.take_stdout();
        (r, out, secs)
    }

    fn run(conf: &str) -> (rclick_core::Router, String, Vec<String>) {
        let r = testing::run(conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
        let out = r.take_stdout();
        let log = r.take_log();
        (r, out, log)
    }

    #[test]
    fn loop_prints_and_stops() {
        let (_, out, log) = run("Script(set x 0, label begin_loop, print $x, \
             set x $(add $x 1), goto begin_loop $(lt $x 5), stop)");
        assert_eq!(out, "0\n1\n2\n3\n4\n");
        assert!(log.is_empty(), "{log:?}");
    }

    #[test]
    fn arithmetic_handlers() {
        let (_, out, _) = run("s0 :: Script(print $(add 1 2 3), print $(sub 10 2 2), \
             print $(min 10 6 20), print $(max -1 6 3), print $(mul 1 2 3), \
             print $(div 75 2.5 5), print $(idiv 60 2 5), print $(htonl $(ntohl 6)), \
             print $(htons $(ntohs 6)), write set foovar foo bar baz, \
             print $(shift foovar), print $(shift foovar), print $(get foovar), stop)");
        assert_eq!(out, "6\n6\n6\n6\n6\n6\n6\n6\n6\nfoo\nbar\nbaz\n");
    }

    #[test]
    fn expansion_and_passive_scripts() {
        let (_, out, log) = run("Script(print $(add 1 2), set i add, print $($i 3 4), \
             print $($(s.run).name), print $(j.run), stop)
             s :: Script(TYPE PASSIVE, return i2)
             j :: Script(TYPE PASSIVE, return Hello)
             i1, i2 :: Idle");
        assert_eq!(out, "3\n7\ni2\nHello\n", "{log:?}");
    }

    #[test]
    fn quoting_forms() {
        let (_, out, _) = run("s :: Script(TYPE PASSIVE, return 0)
             Script(set x $(s.run), print $x, set x \"$(s.run)\", print $x, \
             setq x \"$(s.run)\", print $x, print \"s.run\", print '\"s.run\"', \
             set y s.run, print $y, print $($y), print s.run, stop)");
        assert_eq!(out, "0\n\"0\"\n0\ns.run\n\"s.run\"\ns.run\n0\n0\n");
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
    fn wait_uses_time() {
        let (_, out, _) = run("Script(set a $(now), wait 0.5s, print $(sub $(now) $a), stop)");
        assert_eq!(out, "0.5\n");
    }

    #[test]
    fn pause_and_step() {
        let (_, out, _) = run(
            "s :: Script(print \"a\", pause, print \"b\", pause 2, print \"c\")
             Script(wait 1, write s.step, wait 1, write s.step 2, wait 1, stop)",
        );
        assert_eq!(out, "a\nb\nc\n");
        let (_, out, _) = run("s :: Script(print \"a\", pause, print \"b\")
             Script(wait 1, print \"x\", stop)");
        assert_eq!(out, "a\nx\n");
    }

    #[test]
    fn goto_handler_and_labels() {
        let (_, out, _) = run(
            "s :: Script(TYPE PASSIVE, print \"a\", label l, print \"b\")
             Script(write s.goto l, stop)",
        );
        assert_eq!(out, "b\n");
        let e = testing::build("Script(goto nowhere)", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("no such label 'nowhere'"), "{e}");
    }

    #[test]
    fn configure_errors() {
        for (conf, msg) in [
            ("Script(bogus 1)", "syntax error at 'bogus'"),
            ("Script(set x)", "syntax error at 'set'"),
            ("Script(label)", "syntax error at 'label'"),
            ("Script(end 1)", "syntax error at 'end'"),
            ("Script(TYPE FOO)", "bad TYPE"),
            ("Script(pause x)", "syntax error at 'pause'"),
            (
                "Idle -> Script(TYPE ACTIVE) -> Idle",
                "ports allowed only on PACKET scripts",
            ),
            ("Script(TYPE PACKET)", "PACKET script must have inputs"),
            (
                "DriverManager(stop); Script(TYPE DRIVER)",
                "router has more than one driver script",
            ),
        ] {
            let e = testing::build(conf, &registry(), true).err().unwrap();
            assert!(e.contains(msg), "{conf}: {e}");
        }
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
    fn handler_errors_are_reported() {
        let (_, out, log) = run("s0 :: Script(print $(nosuch.count), write nope.x 1, \
             print \"ok\", print s0.bogus, stop)");
        assert_eq!(out, "$(nosuch.count)ok\n");
        assert_eq!(log[0], "While executing 's0 :: Script':");
        assert_eq!(log[1], "  no element named 'nosuch'");
        assert_eq!(log[2], "  no element named 'nope'");
        assert_eq!(log[3], "  no 's0.bogus' read handler");
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

    #[test]
    fn driver_waits_for_stop_events() {
        let (_, out, secs) = run_timed(
            "Script(wait 1, stop); Script(wait 2, stop); Script(wait 3, stop)
             DriverManager(wait_stop 2, print \"done\")",
        );
        assert_eq!(out, "done\n");
        assert_eq!(secs, 2.0);
    }

    #[test]
    fn driver_pause_then_wait() {
        let (r, out, secs) = run_timed(
            "Script(wait 1, stop)
             DriverManager(pause, print \"p\", wait 0.5s, print \"w\", stop)",
        );
        assert_eq!(out, "p\nw\n");
        assert_eq!(secs, 1.5);
        assert_eq!(r.runcount(), 0);
    }

    #[test]
    fn driver_runs_first_instructions_before_tasks() {
        let (_, out, _) = run("DriverManager(print \"first\", wait 0.25, print \"second\")");
        assert_eq!(out, "first\nsecond\n");
    }

    #[test]
    fn empty_driver_manager_ends_at_first_stop() {
        let (_, _, secs) = run_timed("Script(wait 2, stop); DriverManager()");
        assert_eq!(secs, 2.0);
        let (_, _, secs) =
            run_timed("Script(wait 2, write stop); DriverManager(wait_stop, wait 1)");
        assert_eq!(secs, 3.0);
    }

    #[test]
    fn driver_manager_aliases() {
        let (_, out, _) = run("s :: Script(TYPE PASSIVE, print \"hi\")
             DriverManager(call s.run, write_skip nosuch.x, quit)");
        assert_eq!(out, "hi\n");
    }

    #[test]
    fn sprintf_and_misc_handlers() {
        let (_, out, _) = run(
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
        let (_, out, _) = run("Script(set r $(random 5 6), print $(in $r 5 6), \
             print $(random 1), stop)");
        assert_eq!(out, "true\n0\n");
    }

    #[test]
    fn variable_edge_cases() {
        // Nested references, ${...}, single quotes, and unknown variables.
        let (_, out, _) = run("Script(set a 1, set b a, print ${a}x, print '$a', \
             print $nosuch, print $(get $b), stop)");
        assert_eq!(out, "1x\n$a\n$nosuch\n1\n");
    }
    #[test]
    fn packet_scripts_choose_outputs() {
        let (r, _, log) = run(
            "InfiniteSource(LIMIT 6, STOP true)
               -> sx :: Script(TYPE PACKET, init i 0, set j $i,
                               set i $(if $(eq $i 0) 1 0), return $j)
               -> a0 :: Counter -> Discard;
             sx[1] -> a1 :: Counter -> Discard;
             InfiniteSource(LIMIT 6, STOP true)
               -> sy :: Script(TYPE PACKET, init i 0, set j $i, set i $(add $i 1),
                               set i $(if $(eq $i 3) 0 $i), return $j)
               -> b0 :: Counter -> Discard;
             sy[1] -> b1 :: Counter -> Discard;
             InfiniteSource(LIMIT 5, STOP true) -> Script(TYPE PACKET, exit) -> e :: Counter -> Discard;
             InfiniteSource(LIMIT 5, STOP true) -> Script(end) -> f :: Counter -> Discard;
             DriverManager(wait_stop 4)",
        );
        assert!(log.is_empty(), "{log:?}");
        assert_eq!(testing::read(&r, "a0.count"), "3");
        assert_eq!(testing::read(&r, "a1.count"), "3");
        assert_eq!(testing::read(&r, "b0.count"), "2");
        assert_eq!(testing::read(&r, "b1.count"), "2");
        assert_eq!(testing::read(&r, "e.count"), "0");
        assert_eq!(testing::read(&r, "f.count"), "5");
    }

    #[test]
    fn packet_scripts_see_input_and_run_per_packet() {
        let (r, _, _) = run(
            "i0 :: InfiniteSource(LIMIT 2, STOP true) -> [0] s :: Script(TYPE PACKET,
                 export n0 0, export n1 0,
                 goto one $(eq $input 1), set n0 $(add $n0 1), return 0,
                 label one, set n1 $(add $n1 1), return 0) -> Discard;
             i1 :: InfiniteSource(LIMIT 3, STOP true) -> [1] s;
             DriverManager(wait_stop 2)",
        );
        assert_eq!(testing::read(&r, "s.n0"), "2");
        assert_eq!(testing::read(&r, "s.n1"), "3");
    }

    #[test]
    fn packet_script_in_pull_path() {
        let (r, _, _) = run("InfiniteSource(LIMIT 4, STOP true) -> q :: Queue
               -> s :: Script(TYPE PACKET, init k 0, set k $(add $k 1),
                              return $(if $(eq $(mod $k 2) 0) 0 1))
               -> Unqueue -> c0 :: Counter -> Discard;
             s[1] -> c1 :: Counter -> Discard;
             DriverManager(pause, wait 0.1)");
        assert_eq!(testing::read(&r, "c0.count"), "2");
        assert_eq!(testing::read(&r, "c1.count"), "2");
    }

    #[test]
    fn handler_writes_between_packets() {
        // Each packet runs its script before the next one: the switch
        // setting follows the packets (as in Click's Script-05 test).
        let (r, _, _) = run(
            "InfiniteSource(LIMIT 3, STOP true) -> Script(write sw.switch 1) -> Discard;
             Script(wait 1, write src.active true);
             src :: InfiniteSource(LIMIT 2, ACTIVE false, STOP true) -> sw :: Switch(0)
               -> c0 :: Counter -> Discard;
             sw[1] -> c1 :: Counter -> Discard;
             DriverManager(wait_stop 2)",
        );
        assert_eq!(testing::read(&r, "c0.count"), "0");
        assert_eq!(testing::read(&r, "c1.count"), "2");
    }

    #[test]
    fn driver_errors_end_the_router() {
        let (_, out, secs) = run_timed(
            "Script(wait 1, stop); Script(wait 5, stop);
             DriverManager(pause, print \"a\", error \"oops\", print \"b\")",
        );
        assert_eq!(out, "a\n");
        assert_eq!(secs, 1.0);
        let r = testing::run("DriverManager(error \"bad\")", &registry()).unwrap();
        assert_eq!(r.take_log(), vec!["\"bad\"".to_string()]);
    }
}
