//! The element shared by IPRewriter, TCPRewriter, UDPRewriter,
//! IPAddrRewriter, IPAddrPairRewriter and ICMPPingRewriter (Click's
//! `IPRewriterBase` and subclasses): configuration, input specs, handlers,
//! the reaping timer, and the batch loop.

use std::borrow::Cow;
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};

use rclick_core::args::{AnyArg, ArgContext, Args, Interval};
use rclick_core::router::ElementId;
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, HandlerFlags, HandlerKind, InitCx, PacketBatch, TimerId,
};

use super::flowset::{
    now_ms, AnnoSlot, FlowSet, InputKind, InputSpec, Kind, MapperShared, RwHandle, Table, TableCfg,
    IP_PROTO_TCP,
};
use super::ip_rewriter_patterns::IPRewriterPatterns;
use super::pattern::{parse_ports, parse_with_ports, FlowId, Pattern};
use super::round_robin_ip_mapper::RoundRobinIPMapper;
use super::source_ip_hash_mapper::SourceIPHashMapper;

/// Name-table kind under which IPRewriterPatterns defines its patterns.
pub const PATTERN_NAME_KIND: &str = "IPRewriterPattern";

/// Classes whose elements can be MAPPING_CAPACITY targets / ICMPRewriter maps.
pub const REWRITER_CLASSES: &[&str] = &[
    "IPRewriter",
    "TCPRewriter",
    "UDPRewriter",
    "IPAddrRewriter",
    "IPAddrPairRewriter",
    "ICMPPingRewriter",
];

/// Classes implementing Click's IPMapper interface.
pub const MAPPER_CLASSES: &[&str] = &["RoundRobinIPMapper", "SourceIPHashMapper"];

/// What parsing an input spec needs from its context.
pub trait SpecContext {
    /// Finds an element.
    fn find_element(&self, name: &str) -> Option<ElementId>;
    /// An element's class.
    fn class_of(&self, e: ElementId) -> String;
    /// A name defined by another element.
    fn lookup(&self, kind: &str, name: &str) -> Option<String>;
    /// Address names.
    fn args_ctx(&self) -> &dyn ArgContext;
}

impl SpecContext for ConfigureCx<'_> {
    fn find_element(&self, name: &str) -> Option<ElementId> {
        self.find(name)
    }
    fn class_of(&self, e: ElementId) -> String {
        self.element_info(e).class.clone()
    }
    fn lookup(&self, kind: &str, name: &str) -> Option<String> {
        self.lookup_name(kind, name).map(str::to_string)
    }
    fn args_ctx(&self) -> &dyn ArgContext {
        self.arg_context()
    }
}

impl SpecContext for Ctx<'_> {
    fn find_element(&self, name: &str) -> Option<ElementId> {
        self.find(name)
    }
    fn class_of(&self, e: ElementId) -> String {
        self.element_info(e).class.clone()
    }
    fn lookup(&self, kind: &str, name: &str) -> Option<String> {
        self.lookup_name(kind, name).map(str::to_string)
    }
    fn args_ctx(&self) -> &dyn ArgContext {
        self.arg_context()
    }
}

/// Parses a named pattern's text as defined by IPRewriterPatterns.
pub fn named_pattern(cx: &dyn SpecContext, name: &str) -> Option<Arc<Pattern>> {
    let text = cx.lookup(PATTERN_NAME_KIND, name)?;
    let words: Vec<&str> = text.split_whitespace().collect();
    Pattern::parse(&words, cx.args_ctx(), &|_| None).ok()
}

/// Input specs with the references they still need resolved.
type ParsedSpecs = (Vec<InputSpec>, Vec<(usize, Pending)>);

/// A reference to be resolved at initialization.
#[derive(Clone, Debug)]
enum Pending {
    Named(String),
    Mapper(ElementId),
}

/// Parses one input spec (Click's `parse_input_spec`) without the
/// `input spec N: ` prefix on errors.
fn parse_input_spec(
    line: &str,
    noutputs: usize,
    cx: &dyn SpecContext,
) -> Result<(InputSpec, Option<Pending>), String> {
    let line = line.trim();
    let (word, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    };
    if word.is_empty() {
        return Err("empty argument".into());
    }
    let in_range = |o: i64| o >= 0 && (o as usize) < noutputs;
    match word {
        "pass" | "passthrough" | "nochange" => {
            let o = if rest.is_empty() {
                0
            } else {
                rest.parse::<i64>()
                    .map_err(|_| "syntax error, expected 'nochange [OUTPUT]'".to_string())?
            };
            if !in_range(o) {
                return Err("output port out of range".into());
            }
            Ok((InputSpec::new(InputKind::Pass, o as u32, 0), None))
        }
        "keep" => {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let (f, r) = parse_ports(&words)?;
            if !in_range(f) || !in_range(r) {
                return Err("output port out of range".into());
            }
            Ok((InputSpec::new(InputKind::Keep, f as u32, r as u32), None))
        }
        "drop" | "discard" => {
            if !rest.is_empty() {
                return Err(format!("syntax error, expected '{word}'"));
            }
            Ok((InputSpec::new(InputKind::Drop, 0, 0), None))
        }
        "pattern" | "xpattern" => {
            let named_used = std::cell::RefCell::new(None);
            let (p, f, r) = parse_with_ports(rest, cx.args_ctx(), &|n| {
                let p = named_pattern(cx, n);
                if p.is_some() {
                    *named_used.borrow_mut() = Some(n.to_string());
                }
                p
            })?;
            if !in_range(f) || !in_range(r) {
                return Err("output port out of range".into());
            }
            let pending = named_used.into_inner().map(Pending::Named);
            Ok((
                InputSpec::new(InputKind::Pattern(p), f as u32, r as u32),
                pending,
            ))
        }
        _ => {
            let Some(e) = cx.find_element(word) else {
                return Err("unknown specification".into());
            };
            if !rest.is_empty() {
                return Err("syntax error, expected element name".into());
            }
            if !MAPPER_CLASSES.contains(&cx.class_of(e).as_str()) {
                return Err("element is not an IPMapper".into());
            }
            Ok((
                InputSpec::new(InputKind::Mapper(Arc::new(MapperShared::default())), 0, 0),
                Some(Pending::Mapper(e)),
            ))
        }
    }
}

/// Click's `SecondsArg`: a time, rounded to whole seconds, as milliseconds.
fn seconds_ms(s: &str) -> Result<Option<u32>, String> {
    let iv: Interval = rclick_core::args::parse_interval(s)
        .or_else(|_| rclick_core::args::parse_interval(&format!("{s}s")))
        .map_err(|_| "expected time in seconds".to_string())?;
    if iv.as_nanos() < 0 {
        return Err("expected time in seconds".into());
    }
    let secs = (iv.as_nanos() + 500_000_000) / 1_000_000_000;
    let secs = u32::try_from(secs).map_err(|_| "out of range".to_string())?;
    secs.checked_mul(1000)
        .map(Some)
        .ok_or_else(|| "out of range".to_string())
}

fn anno_arg(s: &str) -> Result<Option<AnnoSlot>, String> {
    AnnoSlot::parse(s).map(Some)
}

fn bool_arg(s: &str) -> Result<Option<bool>, String> {
    match s {
        "true" | "yes" | "1" | "t" | "y" => Ok(Some(true)),
        "false" | "no" | "0" | "f" | "n" => Ok(Some(false)),
        _ => Err("expected boolean".into()),
    }
}

// handler ids
const H_TABLE0: u32 = 0;
const H_TABLE1: u32 = 1;
const H_LOOKUP: u32 = 3;
const H_NMAPPINGS: u32 = 4;
const H_FAILURES: u32 = 5;
const H_PATTERNS: u32 = 6;
const H_SIZE: u32 = 7;
const H_CAPACITY: u32 = 8;
const H_CLEAR: u32 = 9;
const H_DROPS: u32 = 10;
const H_PATTERN0: u32 = 100;

/// One IPRewriter-family element.
pub struct Rewriter {
    kind: Kind,
    handle: RwHandle,
    capacity: Option<i32>,
    capacity_ref: Option<String>,
    specs: Vec<InputSpec>,
    pending: Vec<(usize, Pending)>,
    cfg: TableCfg,
    reap_ms: u32,
    timer: Option<TimerId>,
    scratch: Vec<i32>,
    shared_patterns: HashMap<String, Arc<Pattern>>,
    mappers: HashMap<ElementId, Arc<MapperShared>>,
    ninputs: usize,
    /// Packets dropped: a `drop` input spec, a failed mapping, or no
    /// usable IP header (the `drops` handler).
    drops: u64,
}

impl Rewriter {
    /// A fresh, unconfigured rewriter of class `kind`.
    pub fn new(kind: Kind) -> Rewriter {
        Rewriter {
            kind,
            handle: RwHandle {
                set: Arc::new(Mutex::new(FlowSet::new(kind))),
                slot: 0,
            },
            capacity: None,
            capacity_ref: None,
            specs: Vec::new(),
            pending: Vec::new(),
            cfg: TableCfg::default(),
            reap_ms: 15 * 60 * 1000,
            timer: None,
            scratch: Vec::new(),
            shared_patterns: HashMap::new(),
            mappers: HashMap::new(),
            ninputs: 0,
            drops: 0,
        }
    }

    /// The class.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// This rewriter's table in its flow set (valid after initialization).
    pub fn handle(&self) -> RwHandle {
        self.handle.clone()
    }

    /// The element this one shares MAPPING_CAPACITY with, if any.
    pub fn capacity_ref(&self) -> Option<&str> {
        self.capacity_ref.as_deref()
    }

    fn parse_specs(
        &self,
        rest: &[String],
        noutputs: usize,
        cx: &dyn SpecContext,
    ) -> Result<ParsedSpecs, String> {
        let mut specs = Vec::new();
        let mut pending = Vec::new();
        let mut errors = Vec::new();
        for (i, line) in rest.iter().enumerate() {
            match parse_input_spec(line, noutputs, cx) {
                Ok((s, p)) => {
                    specs.push(s);
                    if let Some(p) = p {
                        pending.push((i, p));
                    }
                }
                Err(e) => errors.push(format!("input spec {i}: {e}")),
            }
        }
        if errors.is_empty() {
            Ok((specs, pending))
        } else {
            Err(errors.join("\n"))
        }
    }

    fn resolve(&self, spec: &mut InputSpec, p: &Pending) {
        match p {
            Pending::Named(n) => {
                if let (Some(shared), InputKind::Pattern(_)) =
                    (self.shared_patterns.get(n), &spec.kind)
                {
                    spec.kind = InputKind::Pattern(shared.clone());
                }
            }
            Pending::Mapper(e) => {
                if let Some(m) = self.mappers.get(e) {
                    spec.kind = InputKind::Mapper(m.clone());
                }
            }
        }
    }

    fn now(cx: &Ctx) -> i64 {
        now_ms(cx.now())
    }
}

impl Element for Rewriter {
    fn class_name(&self) -> &'static str {
        self.kind.class_name()
    }

    fn port_count(&self) -> &'static str {
        "1-/1-"
    }

    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let kind = self.kind;
        let mut capacity_word: Option<AnyArg> = None;
        let mut mapping_capacity: Option<AnyArg> = None;
        let any = |s: &str| -> Result<Option<AnyArg>, String> { Ok(Some(AnyArg(s.to_string()))) };
        let (mut timeout, mut guarantee, mut reap, mut reap_time) = (None, None, None, None);
        let (mut tcp_nodata, mut tcp_guarantee, mut tcp_data, mut tcp_timeout, mut tcp_done) =
            (None, None, None, None, None);
        let (mut udp_timeout, mut udp_streaming, mut streaming, mut udp_guarantee) =
            (None, None, None, None);
        let mut dst_anno: Option<bool> = None;
        let mut reply_anno: Option<AnnoSlot> = None;

        let mut a = Args::new_with(conf, cx.arg_context());
        if matches!(kind, Kind::Tcp | Kind::Ip) {
            a = a
                .read_with("TCP_NODATA_TIMEOUT", &mut tcp_nodata, seconds_ms)
                .read_with("TCP_GUARANTEE", &mut tcp_guarantee, seconds_ms)
                .read_with("TIMEOUT", &mut tcp_data, seconds_ms)
                .read_with("TCP_TIMEOUT", &mut tcp_timeout, seconds_ms)
                .read_with("TCP_DONE_TIMEOUT", &mut tcp_done, seconds_ms);
        }
        if matches!(kind, Kind::Ip | Kind::Udp) {
            a = a
                .read_with("UDP_TIMEOUT", &mut udp_timeout, seconds_ms)
                .read_with("UDP_STREAMING_TIMEOUT", &mut udp_streaming, seconds_ms)
                .read_with("UDP_GUARANTEE", &mut udp_guarantee, seconds_ms);
        }
        if kind == Kind::Udp {
            a = a.read_with("STREAMING_TIMEOUT", &mut streaming, seconds_ms);
        }
        if !matches!(kind, Kind::IpAddr | Kind::IpAddrPair) {
            a = a.read_with("DST_ANNO", &mut dst_anno, bool_arg);
        }
        a = a
            .read_with("REPLY_ANNO", &mut reply_anno, anno_arg)
            .read_with("CAPACITY", &mut capacity_word, any)
            .read_with("MAPPING_CAPACITY", &mut mapping_capacity, any)
            .read_with("GUARANTEE", &mut guarantee, seconds_ms)
            .read_with("REAP_INTERVAL", &mut reap, seconds_ms)
            .read_with("REAP_TIME", &mut reap_time, seconds_ms);
        if !matches!(kind, Kind::Tcp | Kind::Ip) {
            a = a.read_with("TIMEOUT", &mut timeout, seconds_ms);
        }
        let rest = a.consume().map_err(|e| e.to_string())?;

        // capacity
        let (mut capacity, mut capacity_ref) = (None, None);
        if let Some(AnyArg(w)) = mapping_capacity.or(capacity_word) {
            if let Ok(n) = w.trim().parse::<i32>() {
                capacity = Some(n);
            } else if let Some(e) = cx.find(w.trim()) {
                if REWRITER_CLASSES.contains(&cx.element_info(e).class.as_str()) {
                    capacity_ref = Some(w.trim().to_string());
                } else {
                    return Err("bad MAPPING_CAPACITY".into());
                }
            } else {
                return Err("bad MAPPING_CAPACITY".into());
            }
        }

        let ninputs = cx.ninputs();
        if rest.len() != ninputs {
            return Err(format!("need {ninputs} arguments, one per input port"));
        }
        let noutputs = cx.noutputs();
        let (specs, pending) = self.parse_specs(&rest, noutputs, &*cx)?;

        // timeouts
        let mut c = TableCfg::default();
        match kind {
            Kind::Tcp | Kind::Ip => {
                c.timeouts[0] = tcp_nodata.unwrap_or(300_000);
                c.timeouts[1] = guarantee.or(tcp_guarantee).unwrap_or(5_000);
                c.tcp_data = tcp_timeout.or(tcp_data).unwrap_or(86_400_000);
                c.tcp_done = tcp_done.unwrap_or(240_000);
                if kind == Kind::Ip {
                    c.udp_timeouts[0] = udp_timeout.unwrap_or(300_000);
                    c.udp_timeouts[1] = udp_guarantee.unwrap_or(5_000);
                    c.udp_streaming = udp_streaming.unwrap_or(c.udp_timeouts[0]);
                }
            }
            Kind::Udp => {
                c.timeouts[0] = timeout.or(udp_timeout).unwrap_or(300_000);
                c.timeouts[1] = guarantee.or(udp_guarantee).unwrap_or(5_000);
                c.udp_streaming = streaming.or(udp_streaming).unwrap_or(c.timeouts[0]);
            }
            Kind::IpAddr | Kind::IpAddrPair => {
                c.timeouts[0] = timeout.unwrap_or(7_200_000);
                c.timeouts[1] = guarantee.unwrap_or(5_000);
            }
            Kind::IcmpPing => {
                c.timeouts[0] = timeout.unwrap_or(300_000);
                c.timeouts[1] = guarantee.unwrap_or(5_000);
            }
        }
        c.dst_anno = dst_anno.unwrap_or(true);
        c.reply_anno = reply_anno;

        self.capacity = capacity;
        self.capacity_ref = capacity_ref;
        self.specs = specs;
        self.pending = pending;
        self.cfg = c;
        self.reap_ms = reap.or(reap_time).unwrap_or(15 * 60 * 1000);
        self.ninputs = ninputs;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        // shared patterns and mappers anywhere in the router
        for e in 0..cx.nelements() {
            let class = cx.element_info(e).class.clone();
            if class == "IPRewriterPatterns" {
                if let Some(pats) = cx.with_element(e, |el| {
                    el.downcast_ref::<IPRewriterPatterns>()
                        .map(|p| p.patterns())
                }) {
                    for (n, p) in pats.into_iter().flatten() {
                        self.shared_patterns.entry(n).or_insert(p);
                    }
                }
            } else if MAPPER_CLASSES.contains(&class.as_str()) {
                if let Some(Some(m)) = cx.with_element(e, |el| {
                    el.downcast_ref::<RoundRobinIPMapper>()
                        .map(|m| m.shared())
                        .or_else(|| el.downcast_ref::<SourceIPHashMapper>().map(|m| m.shared()))
                }) {
                    self.mappers.insert(e, m);
                }
            }
        }
        let noutputs = cx.noutputs();
        let mut specs = std::mem::take(&mut self.specs);
        let mut errors = Vec::new();
        for (i, p) in self.pending.clone() {
            if let Some(s) = specs.get_mut(i) {
                self.resolve(s, &p);
                if let (Pending::Mapper(e), InputKind::Mapper(m)) = (&p, &s.kind) {
                    for (k, (_, fo, ro)) in m.patterns.iter().enumerate() {
                        if *fo as usize >= noutputs || *ro as usize >= noutputs {
                            errors.push(format!(
                                "input spec {i}: output port out of range in {} pattern {k}",
                                cx.element_info(*e).declaration()
                            ));
                        }
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }

        // the flow set: our own, or the end of a MAPPING_CAPACITY chain
        let mut target = self.capacity_ref.clone();
        let mut joined: Option<RwHandle> = None;
        let mut steps = 0;
        while let Some(name) = target.take() {
            steps += 1;
            if steps > 32 {
                break;
            }
            let Some(e) = cx.find(&name) else { break };
            let r = cx.with_element(e, |el| {
                el.downcast_ref::<Rewriter>()
                    .map(|r| (r.capacity_ref.clone(), r.handle.clone()))
            });
            match r {
                Some(Some((next, h))) => {
                    joined = Some(h);
                    target = next;
                }
                _ => {
                    // the target is this element itself (or unreachable)
                    break;
                }
            }
        }
        let mut table = Table::new(self.kind);
        table.inputs = specs;
        table.cfg = self.cfg;
        table.noutputs = noutputs;
        match joined {
            Some(h) if !Arc::ptr_eq(&h.set, &self.handle.set) => {
                let mut set = h.lock();
                set.tables.push(table);
                let slot = set.tables.len() - 1;
                drop(set);
                self.handle = RwHandle { set: h.set, slot };
            }
            _ => {
                let mut set = self.handle.lock();
                let slot = self.handle.slot;
                set.tables[slot] = table;
                if let Some(c) = self.capacity {
                    set.capacity = c;
                }
            }
        }
        let t = cx.new_timer();
        if self.reap_ms > 0 {
            cx.schedule_timer_after(
                t,
                rclick_core::Timestamp::from_msec(i64::from(self.reap_ms)),
            );
        }
        self.timer = Some(t);
        Ok(())
    }

    fn push(&mut self, port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        let now = Self::now(cx);
        self.scratch.clear();
        {
            let mut set = self.handle.lock();
            let slot = self.handle.slot;
            for p in batch.iter_mut() {
                let o = set.process(slot, port, p, now);
                self.scratch.push(o);
            }
        }
        let mut run = PacketBatch::new();
        let mut cur: i32 = -1;
        for (p, &o) in batch.drain().zip(self.scratch.iter()) {
            if o < 0 {
                self.drops += 1;
                continue;
            }
            if o != cur && !run.is_empty() {
                cx.checked_push(cur as usize, run.take());
            }
            cur = o;
            run.push(p);
        }
        if !run.is_empty() {
            cx.checked_push(cur as usize, run);
        }
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        let now = Self::now(cx);
        self.handle.lock().shrink(false, now);
        if self.reap_ms > 0 {
            cx.schedule_timer_after(
                timer,
                rclick_core::Timestamp::from_msec(i64::from(self.reap_ms)),
            );
        }
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        let now = Self::now(cx);
        let mut set = self.handle.lock();
        let slot = self.handle.slot;
        let victims: Vec<usize> = (0..set.tables.get(slot).map_or(0, |t| t.inputs.len())).collect();
        for i in victims {
            set.remove_input_flows(slot, i);
        }
        let _ = now;
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v = Vec::new();
        match self.kind {
            Kind::Ip => {
                v.push(HandlerDef::read("tcp_table", H_TABLE0));
                v.push(HandlerDef::read("udp_table", H_TABLE1));
                v.push(HandlerDef::read("tcp_mappings", H_TABLE0));
                v.push(HandlerDef::read("udp_mappings", H_TABLE1));
                v.push(HandlerDef::read_param("tcp_lookup", H_LOOKUP));
            }
            Kind::Tcp => {
                v.push(HandlerDef::read("table", H_TABLE0));
                v.push(HandlerDef::read("mappings", H_TABLE0));
                v.push(HandlerDef::read_param("lookup", H_LOOKUP));
            }
            _ => {
                v.push(HandlerDef::read("table", H_TABLE0));
                v.push(HandlerDef::read("mappings", H_TABLE0));
            }
        }
        v.push(HandlerDef::read("nmappings", H_NMAPPINGS));
        v.push(HandlerDef::read("mapping_failures", H_FAILURES));
        v.push(HandlerDef::read("drops", H_DROPS));
        v.push(HandlerDef::read("patterns", H_PATTERNS));
        v.push(HandlerDef::read("size", H_SIZE));
        v.push(HandlerDef::read_write("capacity", H_CAPACITY));
        v.push(HandlerDef::write("clear", H_CLEAR));
        for i in 0..self.ninputs {
            v.push(HandlerDef {
                name: Cow::Owned(format!("pattern{i}")),
                flags: HandlerFlags::READ_WRITE,
                kind: HandlerKind::Element(H_PATTERN0 + i as u32),
            });
        }
        v
    }

    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        let now = Self::now(cx);
        let set = self.handle.lock();
        let slot = self.handle.slot;
        let Some(t) = set.tables.get(slot) else {
            return Ok(String::new());
        };
        Ok(match id {
            H_TABLE0 => set.unparse_table(slot, 0, now),
            H_TABLE1 => set.unparse_table(slot, 1, now),
            H_LOOKUP => {
                let w: Vec<&str> = param.split_whitespace().collect();
                let bad = || "expected 'SADDR SPORT DADDR DPORT'".to_string();
                if w.len() != 4 {
                    return Err(bad());
                }
                let sa: Ipv4Addr = w[0].parse().map_err(|_| bad())?;
                let sp: u16 = w[1].parse().map_err(|_| bad())?;
                let da: Ipv4Addr = w[2].parse().map_err(|_| bad())?;
                let dp: u16 = w[3].parse().map_err(|_| bad())?;
                let f = FlowId::new(u32::from(sa), sp, u32::from(da), dp);
                match t.maps[0]
                    .get(&f)
                    .and_then(|e| set.flow(e.flow).map(|fl| fl.rewritten(e.reply)))
                {
                    Some(r) => format!(
                        "{} {} {} {}",
                        Ipv4Addr::from(r.saddr),
                        r.sport,
                        Ipv4Addr::from(r.daddr),
                        r.dport
                    ),
                    None => String::new(),
                }
            }
            H_NMAPPINGS => t
                .inputs
                .iter()
                .map(|i| u64::from(i.count))
                .sum::<u64>()
                .to_string(),
            H_FAILURES => t
                .inputs
                .iter()
                .map(|i| u64::from(i.failures))
                .sum::<u64>()
                .to_string(),
            H_PATTERNS => {
                let mut s = String::new();
                for i in &t.inputs {
                    s.push_str(&i.unparse());
                    s.push('\n');
                }
                s
            }
            H_SIZE => set.size().to_string(),
            H_DROPS => self.drops.to_string(),
            H_CAPACITY => set.capacity.to_string(),
            id if id >= H_PATTERN0 => match t.inputs.get((id - H_PATTERN0) as usize) {
                Some(i) => format!("{}\n", i.unparse()),
                None => String::new(),
            },
            _ => return Err("handler not readable".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let now = Self::now(cx);
        match id {
            H_CAPACITY => {
                let v = value.trim();
                let n: i32 = v.parse().map_err(|_| {
                    if v.is_empty() {
                        "CAPACITY: required argument missing".to_string()
                    } else {
                        "CAPACITY: expected integer".to_string()
                    }
                })?;
                let mut set = self.handle.lock();
                set.capacity = n;
                set.shrink(false, now);
                Ok(())
            }
            H_CLEAR => {
                self.handle.lock().shrink(true, now);
                Ok(())
            }
            id if id >= H_PATTERN0 => {
                let i = (id - H_PATTERN0) as usize;
                let noutputs = cx.noutputs();
                let (mut spec, pending) = parse_input_spec(value, noutputs, &*cx)
                    .map_err(|e| format!("input spec {i}: {e}"))?;
                if let Some(p) = pending {
                    self.resolve(&mut spec, &p);
                    if let (Pending::Mapper(_), InputKind::Mapper(m)) = (&p, &spec.kind) {
                        if m.patterns
                            .iter()
                            .any(|(_, f, r)| *f as usize >= noutputs || *r as usize >= noutputs)
                        {
                            return Err(format!("input spec {i}: output port out of range"));
                        }
                    }
                }
                let mut set = self.handle.lock();
                let slot = self.handle.slot;
                if i >= set.tables.get(slot).map_or(0, |t| t.inputs.len()) {
                    return Err("no such input".into());
                }
                set.remove_input_flows(slot, i);
                set.tables[slot].inputs[i] = spec;
                Ok(())
            }
            _ => Err("handler not writable".into()),
        }
    }
}

/// Whether a rewriter can serve as FTPPortMapper's control rewriter
/// (Click's `TCPRewriter` cast).
pub fn is_tcp_rewriter(kind: Kind) -> bool {
    matches!(kind, Kind::Tcp | Kind::Ip)
}

/// The TCP protocol number, for mappers.
pub const TCP: u8 = IP_PROTO_TCP;
