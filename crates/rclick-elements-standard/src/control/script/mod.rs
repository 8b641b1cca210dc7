//! # Script
//!
//! `Script(INSTRUCTIONS...)`
//!
//! **Category:** control. Scripts a router configuration: variables,
//! handler calls, waits, and stopping the router.
//!
//! **Ports:** normally none. A Script with TYPE PACKET (the default when the
//! Script has inputs) has any number of inputs and outputs; input 0 and
//! output 0 are agnostic, the others push.
//!
//! ## Description
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
//! ### Instructions
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
//! ### Substitutions
//!
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
//!
//! ## Handlers
//!
//! * `step` (write): moves the script past its current blocking
//!   instruction (`pause` or `wait`); a number N moves it past N of them.
//! * `goto` (write): jumps to the label written and runs the script from
//!   there.
//! * `run` (read/write, read with a parameter): runs the script from its
//!   first instruction with the argument as `$args`. Read, it returns the
//!   value of the `return` that ended the run.
//! * `add`, `sub`, `mul`, `div`, `idiv`, `min`, `max` (read with a
//!   parameter): arithmetic over a space-separated list of numbers (`add
//!   10 5 2` is 17). Integers stay integers until a real number appears;
//!   `div` always works in reals, `idiv` truncates the quotient.
//! * `mod`, `rem` (read with a parameter): the remainder of two numbers;
//!   `mod` takes integers only, `rem` reals too.
//! * `neg`, `abs` (read with a parameter): a number negated, or its
//!   absolute value.
//! * `eq`, `ne`, `lt`, `gt`, `le`, `ge` (read with a parameter): compare
//!   two numbers (`eq 10 0xA` is true), or two strings byte by byte when
//!   either is not a number.
//! * `not`, `and`, `or`, `nand`, `nor` (read with a parameter): Boolean
//!   operations on Boolean arguments.
//! * `if` (read with a parameter): `if COND A B` is A when COND is true
//!   and B otherwise.
//! * `in` (read with a parameter): `in X A B ...` is true when X equals
//!   one of the words after it.
//! * `first` (read with a parameter): the first space-separated word of
//!   the argument.
//! * `sprintf` (read with a parameter): C-style formatting (`sprintf
//!   "%05x" 127` is 0007f); `%d`, `%i`, `%u`, `%o`, `%x`, `%X`, `%s` and
//!   `%%`, with flags, width and precision.
//! * `random` (read with a parameter): a random integer; with no argument
//!   from 0 to 2147483647, with N from 0 to N-1, with N1 N2 from N1 to N2.
//! * `length`, `unquote` (read with a parameter): the argument's length;
//!   the argument with one layer of quotes removed.
//! * `htons`, `htonl`, `ntohs`, `ntohl` (read with a parameter): an
//!   integer with its 16- or 32-bit byte order converted.
//! * `readable`, `writable` (read with a parameter): whether every handler
//!   named in the argument exists and can be read (written).
//! * `now` (read): the current time.
//! * `cat`, `catq` (read with a parameter, private): a file's contents,
//!   quoted for `catq`. Private handlers are not reachable through
//!   ControlSocket.
//! * `kill` (read with a parameter, private): `kill SIGNAL PID...` sends a
//!   signal to the processes.
//! * `get` (read with a parameter): the value of the named script variable.
//! * `set` (write): `set VAR VALUE` sets a script variable.
//! * `shift` (read with a parameter): removes the first word of the named
//!   variable (`args` if none is named) and returns it.
//!
//! Each variable an `export` instruction names is also a read handler of
//! that name. A TYPE PROXY script defines the private write handler `*`:
//! calling any handler it does not define runs the script, with the
//! handler's name as `$0`.
//!
//! ## Examples
//!
//! Prints 0 to 4, then stops the router:
//!
//! ```text
//! Script(set x 0,
//!        label begin_loop,
//!        print $x,
//!        set x $(add $x 1),
//!        goto begin_loop $(lt $x 5),
//!        stop);
//! ```
//!
//! A passive script whose `s.run` handler returns the sum of two counts:
//!
//! ```text
//! s :: Script(TYPE PASSIVE, return $(add $(c1.count) $(c2.count)))
//! ```
//!
//! ## See also
//!
//! DriverManager

// Script by job: this file holds the manual, the element and its life
// (configure, initialize, timers, packets, stop events); compile.rs turns
// the arguments into instructions; expand.rs substitutes `$` references;
// run.rs is the interpreter; handlers.rs declares the handlers and makes
// handler calls; ops.rs holds the handlers' arithmetic, comparisons and
// formatting, which need no router.

mod compile;
mod expand;
mod handlers;
mod ops;
mod run;
#[cfg(test)]
mod test_util;

use rclick_core::args::{parse_interval, AnyArg, Args};
use rclick_core::{Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TimerId, Timestamp};

use compile::{Op, Target};
use run::{StepType, StepWhat};

// Types Script's parts share: their fields are private to this module, so
// to Script and its parts.

/// One compiled instruction.
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

/// A resolved handler call (Click's `HandlerCall`).
struct HCall {
    /// Who answers it.
    callee: handlers::Callee,
    /// The name to call through the router (`elem.handler` or a global),
    /// or this Script's handler name.
    spec: String,
    /// The name to show in messages.
    display: String,
    /// The argument.
    value: String,
    /// Whether it is a write.
    write: bool,
}

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
        let type_arg = if type_given { type_arg.0.as_str() } else { "" };
        let (ty, signos) = compile::script_type(type_arg, self.default_type, cx.ninputs())?;
        if ty == ScriptType::Packet && cx.ninputs() == 0 {
            return Err("PACKET script must have inputs".into());
        }
        if ty != ScriptType::Packet && (cx.ninputs() > 0 || cx.noutputs() > 0) {
            return Err("ports allowed only on PACKET scripts".into());
        }
        let program = compile::compile(&rest, ty, self.class == "DriverManager")?;
        self.ty = ty;
        self.insns = program.insns;
        self.vars = program.vars;
        self.exports = program.exports;
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
                if let Err(e) = self.handler_run(StepWhat::Run.call("", true, "run"), cx) {
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
        self.handler_defs()
    }

    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        self.read_own(id, param, cx)
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.write_own(id, value, cx)
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
            self.handler_run(StepWhat::Run.call(arg, write, name), cx)
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
            let (st, _) =
                self.step_handler(StepWhat::Step.call("router", true, "step"), cx, &mut errs);
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
    use super::test_util::{build_error, prints, registry, run, run_timed};
    use rclick_core::{testing, Element};

    #[test]
    fn configure_errors() {
        for (conf, msg) in [
            ("Script(TYPE FOO)", "bad TYPE"),
            ("Script(set x)", "syntax error at 'set'"),
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
            let e = build_error(conf);
            assert!(e.contains(msg), "{conf}: {e}");
        }
    }

    #[test]
    fn manual_lists_the_handlers() {
        let manual = rclick_core::registry::manual_from_source(include_str!("mod.rs"));
        for d in super::Script::default().handlers() {
            assert!(manual.contains(&format!("`{}`", d.name)), "{}", d.name);
        }
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
        assert_eq!(
            prints("DriverManager(print \"first\", wait 0.25, print \"second\")"),
            "first\nsecond\n"
        );
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
        let out = prints(
            "s :: Script(TYPE PASSIVE, print \"hi\")
             DriverManager(call s.run, write_skip nosuch.x, quit)",
        );
        assert_eq!(out, "hi\n");
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
