//! # PluginManager
//!
//! `PluginManager([TASKS N, TIMERS N])`
//!
//! **Category:** plugins. The Router Plugins paper's plugin control unit:
//! creates plugin instances at run time and binds them to filters at
//! FlowGates, through handlers (and `rclick pmgr`).
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! A plugin instance is an element made while the router runs, from any
//! class the router knows (built in or loaded), configured like one in a
//! file but not in the graph: bound to a filter at a FlowGate, it receives
//! that gate's matching packets on input 0 and its outputs are the gate's.
//! It must accept pushes on input 0 and push on output 0 (a class whose
//! input or output 0 is pull is refused). It is configured as if it stood
//! where the configuration's first FlowGate stands (so `Switch(1)` may name
//! that gate's output 1), then initialized there (its `initialize` runs;
//! `free` runs its `cleanup`). It sees no neighbours: no connections, no
//! other element.
//!
//! The router's task and timer tables are fixed when it is built, so the
//! manager makes TASKS tasks and TIMERS timers of its own at start and
//! lends them: an instance that asks for a task or timer while it is
//! initialized gets one of these, and the manager passes each run on to
//! the instance, where it is (entered at its gate when bound, so what a
//! task or timer pushes leaves by the gate's outputs; unbound, by none:
//! lost and counted). `free` stops them and takes them back. A class that
//! asks for more than are spare, or for descriptors to watch, tasks on
//! threads of their own, or a say in when the router stops, is refused at
//! `create`, naming what it asked for. Pull ports stay refused, so queues
//! and pull schedulers are not instances; per-packet classes, package
//! classes, and push elements with timers or tasks (a source bound at a
//! gate sends through it) are.
//!
//! Keywords:
//!
//! * `TASKS` (unsigned, default 16, at most 4096): tasks to lend.
//! * `TIMERS` (unsigned, default 16, at most 4096): timers to lend.
//!
//! Every request is checked completely before anything changes; a bad one
//! changes nothing and its error says why. Binding changes enter the gate
//! as a handler call does, so they happen between two packets, on a
//! running router under traffic, with no packet lost or reordered within
//! a flow. At most 4096 instances exist at once.
//!
//! Hot swap (`hotconfig`, `-R`): the new configuration's PluginManager of
//! the same name takes the old one's instances. Bound instances stay bound
//! where the new configuration has a FlowGate of the same element name and
//! NAME (which takes them over); instances bound at a gate the new
//! configuration lacks are destroyed with the old router, and so are
//! instances running lent tasks or timers (those are the old router's).
//!
//! ## Handlers
//!
//! * `create` (read with parameter `CLASS [CONFIG]`): makes and configures
//!   an instance; returns its name, `CLASS@N`.
//! * `bind` (write `GATE INSTANCE FILTER`): binds FILTER (six fields, see
//!   FlowGate and docs/PLUGINS.md) at the FlowGate named GATE to INSTANCE.
//!   An instance lives at one gate at a time, with any number of filters
//!   there; one filter is bound to one instance at a gate.
//! * `unbind` (write `INSTANCE [FILTER]`): removes that filter, or all of
//!   the instance's filters; an instance with none left is unbound again.
//! * `free` (write `INSTANCE`): destroys an unbound instance.
//! * `list` (read): one line an instance: `NAME CLASS(CONFIG) unbound` or
//!   `... at GATE: FILTER; FILTER`.
//! * `gates` (read): the gates' names, one a line.
//! * `call` (read with parameter `INSTANCE.HANDLER [ARG]`): reads one of an
//!   instance's handlers (`call Counter@1.count`).
//! * `callwrite` (write `INSTANCE.HANDLER [VALUE]`): writes one.
//! * `load` (read with parameter `PACKAGE`): loads an element package (a
//!   name looked up as `require(package "NAME")` does, or a file path) and
//!   registers its classes, so `create` can make instances of them and a
//!   hot-swapped configuration can use them; returns `NAME: CLASS...`.
//! * `unload` (write `PACKAGE`): removes a package and its classes;
//!   refused, naming them, while instances or graph elements of its
//!   classes exist.
//! * `packages` (read): one line a loaded package: `NAME FILE: CLASS...
//!   (N elements)`.
//!
//! ## Examples
//!
//! ```text
//! src -> CheckIPHeader -> g :: FlowGate(ipsec) -> ...;
//! pm :: PluginManager;
//! ControlSocket(unix, /tmp/rclick.sock);
//! ```
//!
//! then `rclick pmgr -s /tmp/rclick.sock create Counter` prints
//! `Counter@1`, and `rclick pmgr -s /tmp/rclick.sock bind ipsec Counter@1
//! '192.0.2.0/24 * * * * *'` sends that network's packets through it.
//!
//! ## See also
//!
//! FlowGate, ControlSocket

// Why this file is long: over 1,000 lines with its manual (100) and tests
// (about 350, whole routers): the code is about 570 lines of one job, the
// plugin control unit's handlers (create, bind, unbind, free, call, load,
// unload).

use std::collections::{BTreeMap, HashMap};

use rclick_core::args::Args;
use rclick_core::spec::{Processing, ProcessingSpec};
use rclick_core::{
    ConfigureCx, Ctx, Element, ElementId, HandlerDef, HandlerKind, InitCx, Loan, TaskId, TimerId,
};

use crate::filter::Filter;
use crate::flow_gate::FlowGate;

/// Instances that may exist at once.
pub const MAX_INSTANCES: usize = 4096;

enum Place {
    /// Held here.
    Free(Box<dyn Element>),
    /// Held by the gate element `gate`.
    Bound { gate: ElementId, gate_name: String },
}

struct Instance {
    class: String,
    config: String,
    place: Place,
    /// The manager's tasks and timers it runs as its own.
    loan: Loan,
}

/// The PluginManager element.
pub struct PluginManager {
    /// (gate NAME, element) of every FlowGate.
    gates: Vec<(String, ElementId)>,
    instances: BTreeMap<String, Instance>,
    next: u64,
    /// TASKS and TIMERS.
    ntasks: u32,
    ntimers: u32,
    /// Tasks and timers no instance has.
    spare: Loan,
    /// Which instance runs each lent task and timer.
    task_owner: HashMap<TaskId, String>,
    timer_owner: HashMap<TimerId, String>,
}

impl Default for PluginManager {
    fn default() -> PluginManager {
        PluginManager {
            gates: Vec::new(),
            instances: BTreeMap::new(),
            next: 0,
            ntasks: 16,
            ntimers: 16,
            spare: Loan::default(),
            task_owner: HashMap::new(),
            timer_owner: HashMap::new(),
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Create = read_param("create").expensive(),
        Bind = write("bind"),
        Unbind = write("unbind"),
        Free = write("free"),
        List = read("list"),
        Gates = read("gates"),
        Call = read_param("call").expensive(),
        Callwrite = write("callwrite"),
        Load = read_param("load").expensive(),
        Unload = write("unload"),
        Packages = read("packages"),
    }
}

/// Splits off the first word of `s`.
fn word(s: &str) -> (&str, &str) {
    let s = s.trim();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim_start()),
        None => (s, ""),
    }
}

/// Runs `f` on the FlowGate element `gate`.
fn on_gate<R>(
    cx: &mut Ctx,
    gate: ElementId,
    f: impl FnOnce(&mut FlowGate, &mut Ctx) -> R,
) -> Result<R, String> {
    cx.with_element(gate, |el, cx| {
        el.as_any_mut()
            .downcast_mut::<FlowGate>()
            .map(|g| f(g, cx))
            .ok_or_else(|| "not a FlowGate".to_string())
    })?
}

/// Calls an instance's read (`value` `None`) or write handler `name`.
fn call_handler(
    el: &mut dyn Element,
    name: &str,
    arg: &str,
    write: bool,
    cx: &mut Ctx,
) -> Result<String, String> {
    let def = el
        .handlers()
        .into_iter()
        .find(|d| d.name == name && if write { d.flags.write } else { d.flags.read })
        .ok_or_else(|| {
            format!(
                "no {} handler '{name}'",
                if write { "write" } else { "read" }
            )
        })?;
    let id = match def.kind {
        HandlerKind::Element(id) => id,
        HandlerKind::Reconfigure {
            read_id: Some(id), ..
        } if !write => id,
        HandlerKind::Reconfigure { .. } => {
            return Err(format!(
                "'{name}' reconfigures; not callable on an instance"
            ))
        }
    };
    if write {
        el.write_handler(id, arg, cx).map(|()| String::new())
    } else {
        el.read_handler(id, arg, cx)
    }
}

impl PluginManager {
    fn gate(&self, name: &str) -> Result<ElementId, String> {
        self.gates
            .iter()
            .find(|g| g.0 == name)
            .map(|g| g.1)
            .ok_or_else(|| {
                let known: Vec<&str> = self.gates.iter().map(|g| g.0.as_str()).collect();
                format!("no gate '{name}' (gates: {})", known.join(", "))
            })
    }

    fn instance(&self, name: &str) -> Result<&Instance, String> {
        self.instances
            .get(name)
            .ok_or_else(|| format!("no instance '{name}'"))
    }

    fn create(&mut self, arg: &str, cx: &mut Ctx) -> Result<String, String> {
        let (class, config) = word(arg);
        if class.is_empty() {
            return Err("create: expected CLASS [CONFIG]".into());
        }
        if self.instances.len() >= MAX_INSTANCES {
            return Err(format!(
                "create: {MAX_INSTANCES} instances exist; free some first"
            ));
        }
        let Some(&(_, at)) = self.gates.first() else {
            return Err("create: the configuration has no FlowGate to bind instances at".into());
        };
        let (el, loan) = cx.create_element(
            class,
            config,
            at,
            |el| match ProcessingSpec::parse(el.processing()) {
                Ok(s) if s.input(0) == Processing::Pull => Err(format!(
                    "{class}: its input 0 is pull; an instance must accept pushes"
                )),
                Ok(s) if s.output(0) == Processing::Pull => Err(format!(
                    "{class}: its output 0 is pull; an instance must push its packets on"
                )),
                Ok(_) => Ok(()),
                Err(e) => Err(format!("{class}: {e}")),
            },
            &mut self.spare,
        )?;
        self.next += 1;
        let name = format!("{}@{}", el.class_name(), self.next);
        for t in &loan.tasks {
            self.task_owner.insert(*t, name.clone());
        }
        for t in &loan.timers {
            self.timer_owner.insert(*t, name.clone());
        }
        self.instances.insert(
            name.clone(),
            Instance {
                class: el.class_name().to_string(),
                config: config.to_string(),
                place: Place::Free(el),
                loan,
            },
        );
        Ok(name)
    }

    fn bind(&mut self, arg: &str, cx: &mut Ctx) -> Result<(), String> {
        let (gate_name, rest) = word(arg);
        let (inst, filter_text) = word(rest);
        if filter_text.is_empty() {
            return Err("bind: expected GATE INSTANCE FILTER".into());
        }
        let gate = self.gate(gate_name)?;
        let filter = Filter::parse(filter_text).map_err(|e| e.to_string())?;
        let (name, instance) = self
            .instances
            .remove_entry(inst)
            .ok_or_else(|| format!("no instance '{inst}'"))?;
        let (element, place) = match instance.place {
            Place::Free(el) => (Some(el), None),
            Place::Bound {
                gate: g,
                gate_name: gn,
            } if g == gate => (None, Some((g, gn))),
            Place::Bound {
                gate: g,
                gate_name: gn,
            } => {
                self.instances.insert(
                    name,
                    Instance {
                        place: Place::Bound {
                            gate: g,
                            gate_name: gn.clone(),
                        },
                        ..instance
                    },
                );
                return Err(format!(
                    "'{inst}' is bound at gate '{gn}'; unbind it there first"
                ));
            }
        };
        // The element rides in `carried` so that a gate that could not be
        // entered (the closure never ran) or refused it leaves it here.
        let mut carried = element;
        let lent = !instance.loan.tasks.is_empty() || !instance.loan.timers.is_empty();
        let r = on_gate(cx, gate, |g, cx| {
            let r = g.bind(&name, carried.take(), filter, cx);
            if r.is_ok() && lent {
                g.mark_lent(&name);
            }
            r
        });
        let result = match r {
            Ok(Ok(())) => Ok(()),
            Ok(Err((e, back))) => {
                if back.is_some() {
                    carried = back;
                }
                Err(e)
            }
            Err(e) => Err(e),
        };
        let place = match (carried, place) {
            (Some(el), _) => Place::Free(el),
            (None, Some((g, gn))) => Place::Bound {
                gate: g,
                gate_name: gn,
            },
            (None, None) => Place::Bound {
                gate,
                gate_name: gate_name.to_string(),
            },
        };
        self.instances.insert(name, Instance { place, ..instance });
        result
    }

    fn unbind(&mut self, arg: &str, cx: &mut Ctx) -> Result<(), String> {
        let (inst, filter_text) = word(arg);
        let filter = if filter_text.is_empty() {
            None
        } else {
            Some(Filter::parse(filter_text).map_err(|e| e.to_string())?)
        };
        let Place::Bound { gate, .. } = &self.instance(inst)?.place else {
            return Err(format!("'{inst}' is not bound"));
        };
        let gate = *gate;
        let back = on_gate(cx, gate, |g, _| g.unbind(inst, filter.as_ref()))??;
        if let (Some(el), Some(i)) = (back, self.instances.get_mut(inst)) {
            i.place = Place::Free(el);
        }
        Ok(())
    }

    fn free(&mut self, arg: &str, cx: &mut Ctx) -> Result<(), String> {
        let (inst, extra) = word(arg);
        if !extra.is_empty() {
            return Err("free: expected INSTANCE".into());
        }
        match &self.instance(inst)?.place {
            Place::Free(_) => {
                if let Some(Instance {
                    place: Place::Free(mut el),
                    loan,
                    ..
                }) = self.instances.remove(inst)
                {
                    el.cleanup(cx);
                    // Its tasks and timers stop and go back to the spares.
                    for t in loan.tasks {
                        cx.unschedule_task(t);
                        self.task_owner.remove(&t);
                        self.spare.tasks.push(t);
                    }
                    for t in loan.timers {
                        cx.unschedule_timer(t);
                        self.timer_owner.remove(&t);
                        self.spare.timers.push(t);
                    }
                }
                Ok(())
            }
            Place::Bound { gate_name, .. } => Err(format!(
                "'{inst}' is bound at gate '{gate_name}'; unbind it first"
            )),
        }
    }

    fn list(&self, cx: &mut Ctx) -> String {
        let mut out = String::new();
        for (name, i) in &self.instances {
            let decl = format!("{name} {}({})", i.class, i.config);
            match &i.place {
                Place::Free(_) => out.push_str(&format!("{decl} unbound\n")),
                Place::Bound { gate, gate_name } => {
                    let filters = on_gate(cx, *gate, |g, _| {
                        g.bindings_text()
                            .lines()
                            .filter_map(|l| {
                                l.strip_suffix(&format!(" -> {name}")).map(str::to_string)
                            })
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .unwrap_or_else(|e| e);
                    out.push_str(&format!("{decl} at {gate_name}: {filters}\n"));
                }
            }
        }
        out
    }

    /// Runs `f` on instance `name` where it is: here, or entered at its
    /// gate (with the gate's context).
    fn on_instance<R>(
        &mut self,
        name: String,
        cx: &mut Ctx,
        f: impl FnOnce(&mut dyn Element, &mut Ctx) -> R,
    ) -> Result<R, String> {
        let i = self
            .instances
            .get_mut(&name)
            .ok_or_else(|| format!("no instance '{name}'"))?;
        match &mut i.place {
            Place::Free(el) => Ok(f(&mut **el, cx)),
            Place::Bound { gate, .. } => on_gate(cx, *gate, |g, cx| {
                let el = g
                    .instance_mut(&name)
                    .ok_or_else(|| format!("'{name}' is missing from its gate"))?;
                Ok(f(&mut **el, cx))
            })?,
        }
    }

    fn call(&mut self, arg: &str, write: bool, cx: &mut Ctx) -> Result<String, String> {
        let (spec, value) = word(arg);
        let (inst, handler) = spec
            .rsplit_once('.')
            .ok_or_else(|| "expected INSTANCE.HANDLER".to_string())?;
        self.on_instance(inst.to_string(), cx, |el, cx| {
            call_handler(el, handler, value, write, cx)
        })?
    }
}

impl PluginManager {
    /// `load NAME|PATH`: loads a package; returns `NAME: CLASS...`.
    fn load(&mut self, arg: &str, cx: &mut Ctx) -> Result<String, String> {
        let (what, extra) = word(arg);
        if what.is_empty() || !extra.is_empty() {
            return Err("load: expected PACKAGE (a name on the search path, or a file)".into());
        }
        let p = cx.registry().load_package(what)?;
        Ok(format!("{}: {}", p.name, p.classes.join(" ")))
    }

    /// `unload NAME`: refused while an instance or graph element of one of
    /// the package's classes exists, naming them.
    fn unload(&mut self, arg: &str, cx: &mut Ctx) -> Result<(), String> {
        let (name, extra) = word(arg);
        if name.is_empty() || !extra.is_empty() {
            return Err("unload: expected PACKAGE".into());
        }
        let packages = cx.registry().packages();
        let Some(p) = packages.iter().find(|p| p.name == name) else {
            return Err(format!("no package '{name}' is loaded"));
        };
        let ours = |class: &str| p.classes.contains(&class);
        let mut users: Vec<String> = (0..cx.nelements())
            .filter(|&e| ours(&cx.element_info(e).class))
            .map(|e| cx.element_info(e).name.clone())
            .collect();
        users.extend(
            self.instances
                .iter()
                .filter(|(_, i)| ours(&i.class))
                .map(|(n, _)| n.clone()),
        );
        if !users.is_empty() {
            return Err(format!(
                "package '{name}' is in use by {}; free its instances and remove its elements first",
                users.join(", ")
            ));
        }
        cx.registry().unload_package(name)
    }

    /// `packages`: one line a loaded package.
    fn packages(cx: &Ctx) -> String {
        cx.registry()
            .packages()
            .iter()
            .map(|p| {
                format!(
                    "{} {}: {} ({} element{})\n",
                    p.name,
                    p.path,
                    p.classes.join(" "),
                    p.elements,
                    if p.elements == 1 { "" } else { "s" }
                )
            })
            .collect()
    }
}

impl Element for PluginManager {
    fn class_name(&self) -> &'static str {
        "PluginManager"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        rclick_core::phase::LAST
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut tasks, mut timers) = (16u32, 16u32);
        Args::new(conf)
            .read("TASKS", &mut tasks)
            .read("TIMERS", &mut timers)
            .complete()
            .map_err(|e| e.to_string())?;
        if tasks > 4096 || timers > 4096 {
            return Err("TASKS and TIMERS: at most 4096 each".into());
        }
        (self.ntasks, self.ntimers) = (tasks, timers);
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.spare = Loan {
            tasks: (0..self.ntasks).map(|_| cx.new_task(false)).collect(),
            timers: (0..self.ntimers).map(|_| cx.new_timer()).collect(),
        };
        let mut gates: Vec<(String, ElementId)> = Vec::new();
        for e in 0..cx.nelements() {
            if cx.element_info(e).class != "FlowGate" {
                continue;
            }
            let name = cx
                .with_element(e, |el| {
                    el.as_any()
                        .downcast_ref::<FlowGate>()
                        .map(|g| g.gate_name().to_string())
                })
                .flatten();
            if let Some(name) = name {
                if let Some(other) = gates.iter().find(|g| g.0 == name) {
                    return Err(format!(
                        "gate name '{name}' used by both '{}' and '{}'",
                        cx.element_info(other.1).name,
                        cx.element_info(e).name
                    ));
                }
                gates.push((name, e));
            }
        }
        self.gates = gates;
        Ok(())
    }
    fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
        let Some(o) = old.as_any_mut().downcast_mut::<PluginManager>() else {
            return;
        };
        self.next = o.next;
        for (name, i) in std::mem::take(&mut o.instances) {
            // Tasks and timers are the old router's: such an instance
            // stays with it (its gate leaves it behind too).
            if !i.loan.tasks.is_empty() || !i.loan.timers.is_empty() {
                continue;
            }
            let place = match i.place {
                Place::Free(el) => Place::Free(el),
                Place::Bound { gate_name, .. } => {
                    match self.gates.iter().find(|g| g.0 == gate_name) {
                        Some(&(_, gate)) => Place::Bound { gate, gate_name },
                        None => continue,
                    }
                }
            };
            self.instances.insert(name, Instance { place, ..i });
        }
    }
    /// A lent task: run by the instance that has it, entered where it is
    /// (here, or at its gate, whose outputs are then its outputs).
    fn run_task(&mut self, task: TaskId, cx: &mut Ctx) -> bool {
        let Some(name) = self.task_owner.get(&task) else {
            return false;
        };
        self.on_instance(name.clone(), cx, |el, cx| el.run_task(task, cx))
            .unwrap_or(false)
    }
    /// A lent timer: likewise.
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        if let Some(name) = self.timer_owner.get(&timer) {
            let _ = self.on_instance(name.clone(), cx, |el, cx| el.run_timer(timer, cx));
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Create) => self.create(param, cx),
            Some(H::List) => Ok(self.list(cx)),
            Some(H::Gates) => Ok(self.gates.iter().map(|g| format!("{}\n", g.0)).collect()),
            Some(H::Call) => self.call(param, false, cx),
            Some(H::Load) => self.load(param, cx),
            Some(H::Packages) => Ok(Self::packages(cx)),
            _ => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Bind) => self.bind(value, cx),
            Some(H::Unbind) => self.unbind(value, cx),
            Some(H::Free) => self.free(value, cx),
            Some(H::Callwrite) => self.call(value, true, cx).map(|_| ()),
            Some(H::Unload) => self.unload(value, cx),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::registry;
    use rclick_core::testing;

    /// Two flows (to 198.51.100.1 and .2), alternating, numbered per flow.
    fn config(limit: &str, stop: bool) -> String {
        format!(
            "src :: InfiniteSource(LIMIT {limit}, STOP {stop}) -> rr :: RoundRobinSwitch;
             rr[0] -> UDPIPEncap(192.0.2.1, 1000, 198.51.100.1, 53) -> st :: SeqStamp;
             rr[1] -> UDPIPEncap(192.0.2.2, 2000, 198.51.100.2, 80) -> st;
             st -> g :: FlowGate(sched) -> chk :: SeqCheck -> d :: Discard;
             g[1] -> d1 :: Counter -> Discard;
             pm :: PluginManager;"
        )
    }

    #[test]
    fn create_bind_carry_unbind_free() {
        let r = testing::build(&config("100", true), &registry(), true).unwrap();
        let c = r.read_handler("pm.create", "Counter").unwrap();
        assert_eq!(c, "Counter@1");
        assert_eq!(testing::read(&r, "pm.gates"), "sched\n");
        r.write_handler(
            "pm.bind",
            &format!("sched {c} * 198.51.100.0/24 udp * 53 *"),
        )
        .unwrap();
        assert_eq!(
            testing::read(&r, "g.bindings"),
            format!("* 198.51.100.0/24 udp * 53 * -> {c}\n")
        );
        r.run();
        // Half the packets (the flow to port 53) went through the instance.
        assert_eq!(
            r.read_handler("pm.call", &format!("{c}.count")).unwrap(),
            "50"
        );
        assert_eq!(testing::read(&r, "g.plugged"), "50");
        assert_eq!(testing::read(&r, "g.passed"), "50");
        assert_eq!(testing::read(&r, "chk.count"), "100");
        assert_eq!(testing::read(&r, "chk.errors"), "0");
        // Two flows: two misses, the rest hits.
        assert_eq!(testing::read(&r, "g.cache_misses"), "2");
        assert_eq!(testing::read(&r, "g.cache_hits"), "98");
        assert!(testing::read(&r, "pm.list").contains(&format!(
            "{c} Counter() at sched: * 198.51.100.0/24 udp * 53 *"
        )));
        // Free refuses a bound instance; unbind, then free.
        let e = r.write_handler("pm.free", &c).unwrap_err();
        assert!(e.contains("unbind it first"), "{e}");
        r.write_handler("pm.unbind", &c).unwrap();
        assert_eq!(testing::read(&r, "g.bindings"), "");
        assert!(testing::read(&r, "pm.list").contains("unbound"));
        assert_eq!(
            r.read_handler("pm.call", &format!("{c}.count")).unwrap(),
            "50",
            "the instance keeps its state while unbound"
        );
        r.write_handler("pm.free", &c).unwrap();
        assert_eq!(testing::read(&r, "pm.list"), "");
    }

    /// Instances are initialized; what needs the graph is refused; free
    /// cleans up.
    #[test]
    fn instances_are_initialized_and_cleaned_up() {
        use std::sync::atomic::Ordering;
        let r = testing::build(&config("10", true), &registry(), true).unwrap();
        let p = r.read_handler("pm.create", "InitProbe").unwrap();
        assert_eq!(
            r.read_handler("pm.call", &format!("{p}.initialized"))
                .unwrap(),
            "true"
        );
        let e = r.read_handler("pm.create", "InitProbe FAIL").unwrap_err();
        assert_eq!(e, "InitProbe(FAIL): probe refused");
        assert_eq!(
            testing::read(&r, "pm.list"),
            format!("{p} InitProbe() unbound\n"),
            "refused instances are not kept"
        );
        let before = crate::test_util::CLEANED.load(Ordering::Relaxed);
        r.write_handler("pm.free", &p).unwrap();
        assert_eq!(
            crate::test_util::CLEANED.load(Ordering::Relaxed),
            before + 1
        );
    }

    /// Instances run the manager's spare tasks and timers as their own;
    /// a task's pushes leave by its gate's outputs; more than are spare is
    /// refused; free gives them back.
    #[test]
    fn instances_have_lent_tasks_and_timers() {
        let conf = config("100", false).replace(
            "pm :: PluginManager;",
            "pm :: PluginManager(TASKS 1, TIMERS 1); Script(wait 3.5s, stop);",
        );
        let r = testing::build(&conf, &registry(), true).unwrap();
        let t = r.read_handler("pm.create", "InitProbe TIMER").unwrap();
        let e = r.read_handler("pm.create", "InitProbe TIMER").unwrap_err();
        assert_eq!(
            e,
            "InitProbe(TIMER): needs more tasks or timers than are lent, which an element \
             made at run time cannot have (it is outside the router's graph)"
        );
        let k = r.read_handler("pm.create", "InitProbe TASK").unwrap();
        r.write_handler("pm.bind", &format!("sched {k} 10.0.0.1 * * * * *"))
            .unwrap();
        r.run();
        assert_eq!(
            r.read_handler("pm.call", &format!("{k}.runs")).unwrap(),
            "3"
        );
        assert_eq!(
            testing::read(&r, "d1.count"),
            "3",
            "the task's packets left by the gate's output 1"
        );
        let fires: u64 = r
            .read_handler("pm.call", &format!("{t}.fires"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(fires, 3, "the timer fired each second for 3.5 s");
        // Freed: its timer stops and is spare again.
        r.write_handler("pm.free", &t).unwrap();
        let t2 = r.read_handler("pm.create", "InitProbe TIMER").unwrap();
        assert_eq!(
            r.read_handler("pm.call", &format!("{t2}.fires")).unwrap(),
            "0"
        );
    }

    #[test]
    fn most_specific_filter_wins_and_outputs_are_the_gates() {
        let r = testing::build(&config("100", true), &registry(), true).unwrap();
        // A broad filter to a Counter; a more specific one (destination
        // host) to a Switch(1) instance that sends its packets to the
        // gate's output 1.
        let broad = r.read_handler("pm.create", "Counter").unwrap();
        let sw = r.read_handler("pm.create", "Switch 1").unwrap();
        r.write_handler(
            "pm.bind",
            &format!("sched {broad} * 198.51.100.0/24 * * * *"),
        )
        .unwrap();
        r.write_handler("pm.bind", &format!("sched {sw} * 198.51.100.2 * * * *"))
            .unwrap();
        r.run();
        assert_eq!(
            r.read_handler("pm.call", &format!("{broad}.count"))
                .unwrap(),
            "50"
        );
        assert_eq!(testing::read(&r, "d1.count"), "50");
        assert_eq!(testing::read(&r, "chk.count"), "50");
    }

    #[test]
    fn bad_requests_change_nothing_and_say_why() {
        let r = testing::build(&config("10", true), &registry(), true).unwrap();
        let c = r.read_handler("pm.create", "Counter").unwrap();
        let before = testing::read(&r, "pm.list");
        for (h, v, why) in [
            (
                "pm.bind",
                format!("nosuch {c} * * * * * *"),
                "no gate 'nosuch' (gates: sched)",
            ),
            (
                "pm.bind",
                "sched Counter@99 * * * * * *".to_string(),
                "no instance 'Counter@99'",
            ),
            ("pm.bind", format!("sched {c} * * tcpx * * *"), "PROTO"),
            ("pm.bind", format!("sched {c} * *"), "expected 6 fields"),
            (
                "pm.bind",
                format!("sched {c}"),
                "expected GATE INSTANCE FILTER",
            ),
            ("pm.unbind", c.clone(), "is not bound"),
            ("pm.free", "Counter@99".to_string(), "no instance"),
        ] {
            let e = r.write_handler(h, &v).unwrap_err();
            assert!(e.contains(why), "{h} {v}: {e}");
            assert_eq!(
                testing::read(&r, "pm.list"),
                before,
                "{h} {v} changed something"
            );
        }
        for (arg, why) in [
            ("NoSuchClass", "unknown element class"),
            ("Counter BOGUS 1", "Counter(BOGUS 1)"),
            ("Unqueue", "input 0 is pull"),
            ("Queue 10", "output 0 is pull"),
            ("", "expected CLASS"),
        ] {
            let e = r.read_handler("pm.create", arg).unwrap_err();
            assert!(e.contains(why), "create {arg}: {e}");
        }
        assert_eq!(testing::read(&r, "pm.list"), before);
        // The same filter twice at one gate, and an instance at two gates'
        // worth of requests: refused, nothing changes.
        r.write_handler("pm.bind", &format!("sched {c} * * * * * *"))
            .unwrap();
        let c2 = r.read_handler("pm.create", "Counter").unwrap();
        let e = r
            .write_handler("pm.bind", &format!("sched {c2} * * * * * *"))
            .unwrap_err();
        assert!(
            e.contains("already bound at gate 'sched' (to Counter@1)"),
            "{e}"
        );
        let e = r
            .write_handler("pm.unbind", &format!("{c} 1.2.3.4 * * * * *"))
            .unwrap_err();
        assert!(e.contains("not bound to filter"), "{e}");
        assert!(testing::read(&r, "pm.list").contains(&format!("{c2} Counter() unbound")));
        assert_eq!(
            testing::read(&r, "g.bindings"),
            format!("* * * * * * -> {c}\n")
        );
    }

    /// A hot swap keeps instances and bindings where the gate stays.
    #[test]
    fn hot_swap_keeps_bindings() {
        let old = testing::build(&config("100", true), &registry(), true).unwrap();
        let c = old.read_handler("pm.create", "Counter").unwrap();
        let free = old.read_handler("pm.create", "Null").unwrap();
        old.write_handler("pm.bind", &format!("sched {c} * 198.51.100.1 * * * *"))
            .unwrap();
        // Instances running lent tasks or timers stay with the old router.
        let lent = old.read_handler("pm.create", "InitProbe TASK").unwrap();
        old.write_handler("pm.bind", &format!("sched {lent} 10.0.0.1 * * * * *"))
            .unwrap();
        let lent_free = old.read_handler("pm.create", "InitProbe TIMER").unwrap();
        old.run();
        assert_eq!(
            old.read_handler("pm.call", &format!("{c}.count")).unwrap(),
            "50"
        );
        let new = testing::build(&config("100", true), &registry(), true).unwrap();
        rclick_core::router::hotswap::transfer_state(&old, &new);
        assert_eq!(
            testing::read(&new, "g.bindings"),
            format!("* 198.51.100.1 * * * * -> {c}\n")
        );
        assert!(testing::read(&new, "pm.list").contains(&format!("{free} Null() unbound")));
        let list = testing::read(&new, "pm.list");
        assert!(
            !list.contains(&lent) && !list.contains(&lent_free),
            "{list}"
        );
        new.run();
        assert_eq!(
            new.read_handler("pm.call", &format!("{c}.count")).unwrap(),
            "100"
        );
        // The next instance gets a new number.
        assert_eq!(new.read_handler("pm.create", "Null").unwrap(), "Null@5");
    }

    #[test]
    fn duplicate_gate_names_are_an_error() {
        let e = testing::build(
            "Idle -> FlowGate(a) -> Discard; Idle -> FlowGate(a) -> Discard; PluginManager;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("gate name 'a' used by both"), "{e}");
    }

    /// Binding and unbinding 1,000 times while the router forwards as fast
    /// as it can on its own thread: every packet arrives, each flow in order.
    #[test]
    fn bind_unbind_1000_times_under_traffic_loses_and_reorders_nothing() {
        let r = testing::build_with(
            &config("-1", false),
            &registry(),
            rclick_core::BuildOptions {
                threads: 1,
                capture_log: true,
                // One burst a task run, so the lock changes hands often.
                no_coalesce: true,
                ..Default::default()
            },
        )
        .unwrap();
        let c = r.read_handler("pm.create", "Counter").unwrap();
        let bind = format!("sched {c} * 198.51.100.1 udp * * *");
        let sent_now = || -> u64 { r.read_handler("src.count", "").unwrap().parse().unwrap() };
        // Waits until the source has sent more than `*last` (traffic flows
        // between every two changes, however busy the machine is).
        let traffic = |last: &mut u64| {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            loop {
                let n = sent_now();
                if n > *last {
                    *last = n;
                    return;
                }
                assert!(std::time::Instant::now() < deadline, "no traffic for 30 s");
                std::thread::yield_now();
            }
        };
        std::thread::scope(|s| {
            let h = s.spawn(|| r.run());
            let mut last = 0;
            for _ in 0..1000 {
                r.write_handler("pm.bind", &bind).unwrap();
                traffic(&mut last);
                r.write_handler("pm.unbind", &c).unwrap();
                traffic(&mut last);
            }
            // Bound once more until packets have gone through the instance.
            r.write_handler("pm.bind", &bind).unwrap();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while r.read_handler("pm.call", &format!("{c}.count")).unwrap() == "0"
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            r.write_handler("pm.unbind", &c).unwrap();
            // Stop the source first, so the count below is final.
            r.write_handler("src.active", "false").unwrap();
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = r.write_handler("stop", "");
            h.join().unwrap();
        });
        let sent: u64 = testing::read(&r, "src.count").parse().unwrap();
        let arrived: u64 = testing::read(&r, "chk.count").parse().unwrap();
        let through: u64 = r
            .read_handler("pm.call", &format!("{c}.count"))
            .unwrap()
            .parse()
            .unwrap();
        assert!(sent >= 2000, "traffic flowed between every change: {sent}");
        assert_eq!(arrived, sent, "no packet lost");
        assert_eq!(testing::read(&r, "chk.errors"), "0", "no packet reordered");
        assert!(through > 0, "some packets went through the instance");
        eprintln!(
            "1000 bind/unbind pairs under traffic: {sent} packets, {through} through the instance"
        );
    }
}
