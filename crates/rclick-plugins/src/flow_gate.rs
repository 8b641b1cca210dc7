//! # FlowGate
//!
//! `FlowGate(NAME [, CACHE N, TIMEOUT SECONDS])`
//!
//! **Category:** plugins. A gate (Router Plugins): hands packets whose flow
//! matches a bound filter to the plugin instance bound there.
//!
//! **Ports:** one input, one or more outputs, push.
//!
//! ## Description
//!
//! Where the Router Plugins paper puts a gate in its IP core (IP options,
//! security, scheduling, routing), or anywhere else in a configuration. With
//! nothing bound, every packet leaves on output 0 unchanged. A
//! PluginManager in the same configuration binds plugin instances
//! (elements it created at run time, of any class) to six-tuple filters at
//! the gate by its NAME; then each IPv4 packet's six-tuple (source,
//! destination, protocol, ports, and the paint annotation as the incoming
//! interface) is looked up: first in the gate's flow cache, then, for a new
//! flow, in its filter table, whose most specific matching filter wins (see
//! docs/PLUGINS.md for the filter syntax and order). A packet of a matched
//! flow is pushed into the bound instance's input 0, and the instance's
//! output N is the gate's output N (so `Counter` plugged in returns its
//! packets to output 0; an instance's output with no gate output there
//! drops and counts them). Unmatched packets, and packets without a
//! well-formed IPv4 network header, leave on output 0.
//!
//! Hot swap (`hotconfig`, `-R`): a FlowGate of the new configuration with
//! the same element name and NAME takes the old one's bindings and
//! instances (its flow cache starts empty, at the new CACHE size).
//!
//! Binding changes happen between two packets: the plugin manager enters
//! the gate as a handler call does, so no packet is lost or reordered
//! within a flow by a change (each flow goes one way within a batch).
//!
//! Keywords:
//!
//! * `NAME` (string, mandatory): the gate's name, used by `bind`.
//! * `CACHE` (integer, default 16384): flow-cache entries (rounded up to a
//!   power of two; 32 bytes each, allocated at the first binding).
//! * `TIMEOUT` (integer seconds, default 30): a cached flow idle for longer
//!   is forgotten.
//!
//! ## Annotations
//!
//! Uses the network header and the paint annotation. Sets the aggregate
//! annotation of packets handed to an instance to their flow's number (the
//! paper's per-flow soft state: a plugin keeps per-flow state by it).
//!
//! ## Handlers
//!
//! * `gate` (read): NAME (the standard `name` is the element's).
//! * `bindings` (read): one line a filter, most specific first within each
//!   instance: `FILTER -> INSTANCE`.
//! * `passed` (read): packets that left without an instance.
//! * `plugged` (read): packets handed to instances.
//! * `not_ip` (read): packets passed without a well-formed IPv4 header.
//! * `cache_hits`, `cache_misses`, `cache_evictions`, `cache_expired`
//!   (read): flow-cache counters since the first binding.
//! * `flows` (read): live flow-cache entries.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> g :: FlowGate(sched) -> Queue -> ...;
//! pm :: PluginManager;
//! // then: rclick pmgr create Counter; rclick pmgr bind sched Counter@1 '* 192.0.2.0/24 udp * * *'
//! ```
//!
//! ## See also
//!
//! PluginManager, IPClassifier

use rclick_core::args::Args;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TimerId, Timestamp,
};

use crate::classifier::{Classifier, FilterId};
use crate::filter::{Filter, FlowKey};
use crate::flow_cache::{CacheStats, FlowCache};

/// "No filter matched" in the flow cache.
const NONE: u32 = u32::MAX;

/// One plugin instance bound at this gate.
struct Binding {
    instance: String,
    element: Box<dyn Element>,
    filters: Vec<FilterId>,
    /// It runs tasks or timers lent by this router's PluginManager: it
    /// cannot move to another router (hot swap).
    lent: bool,
}

/// What exists only while something is bound.
struct Bound {
    filters: Classifier<u32>,
    bindings: Vec<Option<Binding>>,
    cache: FlowCache,
}

/// The FlowGate element.
pub struct FlowGate {
    gate: String,
    cache_size: usize,
    timeout: u32,
    bound: Option<Box<Bound>>,
    /// Counters of a cache that was dropped when the last binding went.
    old_stats: CacheStats,
    timer: Option<TimerId>,
    tick: u32,
    passed: u64,
    plugged: u64,
    not_ip: u64,
}

impl Default for FlowGate {
    fn default() -> FlowGate {
        FlowGate {
            gate: String::new(),
            cache_size: 16384,
            timeout: 30,
            bound: None,
            old_stats: CacheStats::default(),
            timer: None,
            tick: 0,
            passed: 0,
            plugged: 0,
            not_ip: 0,
        }
    }
}

/// The binding a packet goes to (`NONE`: none), setting its aggregate
/// annotation to its flow number when it has one.
#[inline]
fn classify(b: &mut Bound, p: &mut Packet, tick: u32, not_ip: &mut u64) -> u32 {
    let key = p
        .network_header()
        .and_then(|ip| FlowKey::from_ipv4(ip, p.paint_anno()));
    let Some(k) = key else {
        *not_ip += 1;
        return NONE;
    };
    let (v, flow) = match b.cache.lookup(&k, tick) {
        Some(x) => x,
        None => {
            let v = b.filters.lookup(&k).map_or(NONE, |x| x.1);
            (v, b.cache.insert(&k, v, tick))
        }
    };
    if v != NONE {
        p.set_aggregate_anno(flow);
    }
    v
}

impl FlowGate {
    /// The gate's NAME.
    pub fn gate_name(&self) -> &str {
        &self.gate
    }

    /// Whether `instance` is bound here.
    pub fn has_instance(&self, instance: &str) -> bool {
        self.binding_index(instance).is_some()
    }

    fn binding_index(&self, instance: &str) -> Option<usize> {
        let b = self.bound.as_ref()?;
        b.bindings
            .iter()
            .position(|x| x.as_ref().is_some_and(|x| x.instance == instance))
    }

    /// Binds `filter` to `instance`: a new instance brings its `element`;
    /// one already bound here passes `None`. On error nothing changed and
    /// the element (if any) is given back.
    pub fn bind(
        &mut self,
        instance: &str,
        element: Option<Box<dyn Element>>,
        filter: Filter,
        cx: &mut Ctx,
    ) -> Result<(), (String, Option<Box<dyn Element>>)> {
        if let Some(b) = &self.bound {
            if let Some((_, _, v)) = b.filters.iter().find(|(_, f, _)| **f == filter) {
                let who = b.bindings[v as usize].as_ref().map_or("?", |x| &x.instance);
                return Err((
                    format!(
                        "filter '{filter}' is already bound at gate '{}' (to {who})",
                        self.gate
                    ),
                    element,
                ));
            }
        }
        let existing = self.binding_index(instance);
        match (&element, existing) {
            (Some(_), Some(_)) => {
                return Err((
                    format!("'{instance}' is already bound at gate '{}'", self.gate),
                    element,
                ))
            }
            (None, None) => {
                return Err((
                    format!("'{instance}' is not bound at gate '{}'", self.gate),
                    element,
                ))
            }
            _ => {}
        }
        let was_empty = self.bound.is_none();
        let (cache_size, timeout) = (self.cache_size, self.timeout);
        let b = self.bound.get_or_insert_with(|| {
            Box::new(Bound {
                filters: Classifier::new(),
                bindings: Vec::new(),
                cache: FlowCache::new(cache_size, timeout),
            })
        });
        let idx = match (element, existing) {
            (_, Some(i)) => i,
            (Some(element), None) => {
                let binding = Binding {
                    instance: instance.to_string(),
                    element,
                    filters: Vec::new(),
                    lent: false,
                };
                match b.bindings.iter().position(Option::is_none) {
                    Some(i) => {
                        b.bindings[i] = Some(binding);
                        i
                    }
                    None => {
                        b.bindings.push(Some(binding));
                        b.bindings.len() - 1
                    }
                }
            }
            (None, None) => unreachable!("checked above"),
        };
        let id = b.filters.insert(filter, idx as u32);
        if let Some(x) = b.bindings[idx].as_mut() {
            x.filters.push(id);
        }
        b.cache.invalidate();
        if was_empty {
            if let Some(t) = self.timer {
                cx.schedule_timer_after(t, Timestamp::from_sec(1));
            }
        }
        Ok(())
    }

    /// Removes `instance`'s binding of `filter` (all of them when `None`).
    /// Returns the element when the instance has no filter left here.
    pub fn unbind(
        &mut self,
        instance: &str,
        filter: Option<&Filter>,
    ) -> Result<Option<Box<dyn Element>>, String> {
        let idx = self
            .binding_index(instance)
            .ok_or_else(|| format!("'{instance}' is not bound at gate '{}'", self.gate))?;
        let b = self.bound.as_mut().expect("binding_index found one");
        let binding = b.bindings[idx].as_mut().expect("binding_index found one");
        let remove: Vec<FilterId> = match filter {
            None => binding.filters.clone(),
            Some(f) => {
                let id = binding
                    .filters
                    .iter()
                    .copied()
                    .find(|&id| b.filters.get(id).is_some_and(|(g, _)| g == f))
                    .ok_or_else(|| format!("'{instance}' is not bound to filter '{f}'"))?;
                vec![id]
            }
        };
        for id in &remove {
            b.filters.remove(*id);
        }
        binding.filters.retain(|id| !remove.contains(id));
        b.cache.invalidate();
        if !binding.filters.is_empty() {
            return Ok(None);
        }
        let gone = b.bindings[idx].take().expect("bound");
        if b.bindings.iter().all(Option::is_none) {
            let s = b.cache.stats;
            let o = &mut self.old_stats;
            o.hits += s.hits;
            o.misses += s.misses;
            o.evictions += s.evictions;
            o.expired += s.expired;
            o.inserts += s.inserts;
            self.bound = None;
        }
        Ok(Some(gone.element))
    }

    /// Marks `instance` as running tasks or timers lent by this router's
    /// PluginManager: a hot swap leaves it behind (with the old router).
    pub fn mark_lent(&mut self, instance: &str) {
        if let Some(i) = self.binding_index(instance) {
            if let Some(b) = self.bound.as_mut().and_then(|b| b.bindings[i].as_mut()) {
                b.lent = true;
            }
        }
    }

    /// The element bound here as `instance`, for handler calls.
    pub fn instance_mut(&mut self, instance: &str) -> Option<&mut Box<dyn Element>> {
        let i = self.binding_index(instance)?;
        self.bound.as_mut()?.bindings[i]
            .as_mut()
            .map(|b| &mut b.element)
    }

    /// `FILTER -> INSTANCE` lines.
    pub fn bindings_text(&self) -> String {
        let Some(b) = &self.bound else {
            return String::new();
        };
        let mut out = String::new();
        for x in b.bindings.iter().flatten() {
            for id in &x.filters {
                if let Some((f, _)) = b.filters.get(*id) {
                    out.push_str(&format!("{f} -> {}\n", x.instance));
                }
            }
        }
        out
    }

    fn stats(&self) -> CacheStats {
        let mut s = self.old_stats;
        if let Some(b) = &self.bound {
            let c = b.cache.stats;
            s.hits += c.hits;
            s.misses += c.misses;
            s.evictions += c.evictions;
            s.expired += c.expired;
            s.inserts += c.inserts;
        }
        s
    }

    /// Hands `batch` (all of binding `idx`) to its instance.
    #[inline]
    fn plug(b: &mut Bound, idx: u32, batch: PacketBatch, cx: &mut Ctx) {
        match b.bindings.get_mut(idx as usize).and_then(Option::as_mut) {
            Some(x) => x.element.push(0, batch, cx),
            None => cx.push(0, batch),
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Gate = read("gate"),
        Bindings = read("bindings"),
        Passed = read("passed"),
        Plugged = read("plugged"),
        NotIp = read("not_ip"),
        Hits = read("cache_hits"),
        Misses = read("cache_misses"),
        Evictions = read("cache_evictions"),
        Expired = read("cache_expired"),
        Flows = read("flows"),
    }
}

impl Element for FlowGate {
    fn class_name(&self) -> &'static str {
        "FlowGate"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        rclick_core::spec::common::PUSH
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut gate = String::new();
        let mut cache_size: u32 = 16384;
        let mut timeout: u32 = 30;
        Args::new(conf)
            .read_mp("NAME", &mut gate)
            .read("CACHE", &mut cache_size)
            .read("TIMEOUT", &mut timeout)
            .complete()
            .map_err(|e| e.to_string())?;
        if gate.is_empty() || gate.contains(char::is_whitespace) {
            return Err("NAME: expected a word".into());
        }
        if cache_size == 0 || cache_size > 1 << 24 {
            return Err("CACHE: expected 1 to 16777216 entries".into());
        }
        self.gate = gate;
        self.cache_size = cache_size as usize;
        self.timeout = timeout.max(1);
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.timer = Some(cx.new_timer());
        Ok(())
    }
    /// One packet through `simple_action`, bound or not: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    /// With nothing bound the gate only forwards.
    fn batch_transparent(&self) -> bool {
        self.bound.is_none()
    }
    #[inline]
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let Some(b) = self.bound.as_deref_mut() else {
            self.passed += 1;
            return Some(p);
        };
        let v = classify(b, &mut p, self.tick, &mut self.not_ip);
        if v == NONE {
            self.passed += 1;
            return Some(p);
        }
        self.plugged += 1;
        FlowGate::plug(b, v, PacketBatch::from(p), cx);
        None
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        if self.bound.is_none() {
            self.passed += batch.len() as u64;
            cx.push(0, batch);
            return;
        }
        if batch.len() == 1 {
            if let Some(p) = batch.pop() {
                if let Some(p) = self.simple_action(p, cx) {
                    cx.push(0, PacketBatch::from(p));
                }
            }
            return;
        }
        let Some(b) = self.bound.as_deref_mut() else {
            return;
        };
        // Each packet's binding; packets of one flow all go one way, so
        // splitting by binding keeps every flow's order.
        let tick = self.tick;
        let mut to: Vec<(u32, PacketBatch)> = Vec::new();
        let mut pass = PacketBatch::with_capacity(batch.len());
        for mut p in batch.drain() {
            let v = classify(b, &mut p, tick, &mut self.not_ip);
            if v == NONE {
                pass.push(p);
            } else {
                self.plugged += 1;
                match to.iter_mut().find(|x| x.0 == v) {
                    Some(x) => x.1.push(p),
                    None => to.push((v, PacketBatch::from(p))),
                }
            }
        }
        self.passed += pass.len() as u64;
        if !pass.is_empty() {
            cx.push(0, pass);
        }
        for (v, sub) in to {
            FlowGate::plug(b, v, sub, cx);
        }
    }
    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let Some(o) = old.as_any_mut().downcast_mut::<FlowGate>() else {
            return;
        };
        if o.gate != self.gate {
            return;
        }
        self.bound = o.bound.take();
        self.old_stats = o.stats();
        self.tick = o.tick;
        // Instances with lent tasks or timers stay with the old router.
        let lent: Vec<String> = self
            .bound
            .iter()
            .flat_map(|b| b.bindings.iter().flatten())
            .filter(|x| x.lent)
            .map(|x| x.instance.clone())
            .collect();
        for name in lent {
            let _ = self.unbind(&name, None);
        }
        if let Some(b) = self.bound.as_deref_mut() {
            b.cache = FlowCache::new(self.cache_size, self.timeout);
            if let Some(t) = self.timer {
                cx.schedule_timer_after(t, Timestamp::from_sec(1));
            }
        }
    }
    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        self.tick = self.tick.wrapping_add(1);
        if self.bound.is_some() {
            if let Some(t) = self.timer {
                cx.schedule_timer_after(t, Timestamp::from_sec(1));
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let s = self.stats();
        Ok(match H::from_id(id) {
            Some(H::Gate) => self.gate.clone(),
            Some(H::Bindings) => return Ok(self.bindings_text()),
            Some(H::Passed) => self.passed.to_string(),
            Some(H::Plugged) => self.plugged.to_string(),
            Some(H::NotIp) => self.not_ip.to_string(),
            Some(H::Hits) => s.hits.to_string(),
            Some(H::Misses) => s.misses.to_string(),
            Some(H::Evictions) => s.evictions.to_string(),
            Some(H::Expired) => s.expired.to_string(),
            Some(H::Flows) => self
                .bound
                .as_ref()
                .map_or(0, |b| b.cache.live(self.tick))
                .to_string(),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::registry;
    use rclick_core::testing;

    /// Unbound, the gate passes every packet to output 0 and counts it;
    /// its handlers read as the manual says.
    #[test]
    fn unbound_gate_forwards_everything_on_output_0() {
        let r = testing::build(
            "InfiniteSource(LIMIT 7, STOP true)
               -> UDPIPEncap(192.0.2.1, 1000, 198.51.100.1, 53)
               -> g :: FlowGate(sched, CACHE 100, TIMEOUT 5) -> c :: Counter -> Discard;
             g[1] -> c1 :: Counter -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        r.run();
        assert_eq!(testing::read(&r, "c.count"), "7");
        assert_eq!(testing::read(&r, "c1.count"), "0");
        assert_eq!(testing::read(&r, "g.gate"), "sched");
        assert_eq!(testing::read(&r, "g.passed"), "7");
        assert_eq!(testing::read(&r, "g.plugged"), "0");
        assert_eq!(testing::read(&r, "g.bindings"), "");
        assert_eq!(testing::read(&r, "g.flows"), "0");
    }

    /// Each bad configuration is refused with the keyword it is about.
    #[test]
    fn bad_configurations_name_their_keyword() {
        for (conf, why) in [
            ("FlowGate()", "NAME"),
            ("FlowGate(\"two words\")", "NAME: expected a word"),
            ("FlowGate(a, CACHE 0)", "CACHE: expected 1 to 16777216"),
            (
                "FlowGate(a, CACHE 16777217)",
                "CACHE: expected 1 to 16777216",
            ),
            ("FlowGate(a, BOGUS 1)", "BOGUS"),
        ] {
            let e = testing::build(&format!("Idle -> {conf} -> Discard;"), &registry(), true)
                .err()
                .unwrap_or_else(|| panic!("{conf} built"));
            assert!(e.contains(why), "{conf}: {e}");
        }
    }

    /// A packet without a well-formed IPv4 header passes on output 0 and
    /// is counted as `not_ip` once something is bound.
    #[test]
    fn non_ip_packets_pass_and_are_counted() {
        let r = testing::build(
            "InfiniteSource(LIMIT 3, STOP true) -> g :: FlowGate(sched) -> c :: Counter -> Discard;
             pm :: PluginManager;",
            &registry(),
            true,
        )
        .unwrap();
        let n = r.read_handler("pm.create", "Counter").unwrap();
        r.write_handler("pm.bind", &format!("sched {n} * * * * * *"))
            .unwrap();
        r.run();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "g.not_ip"), "3");
        assert_eq!(testing::read(&r, "g.plugged"), "0");
    }
}
