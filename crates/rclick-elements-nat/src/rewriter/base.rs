//! The element type of IPRewriter, TCPRewriter, UDPRewriter,
//! IPAddrRewriter, IPAddrPairRewriter and ICMPPingRewriter (Click's
//! `IPRewriterBase`): configuration, handlers, the reaping timer, and the
//! batch loop. What a class does differently is its [`RewriterClass`]
//! impl, in the class's own file; the flows are [`super::flowset`]'s.

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};

use rclick_core::args::{AnyArg, Args, Interval};
use rclick_core::router::ElementId;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TimerId};

use super::class::{AnnoSlot, RewriterClass, TableCfg, Timeouts};
use super::flowset::{now_ms, FlowSet, RwHandle, Table};
use super::ip_rewriter_patterns::IPRewriterPatterns;
use super::pattern::{FlowId, Pattern};
use super::round_robin_ip_mapper::RoundRobinIPMapper;
use super::source_ip_hash_mapper::SourceIPHashMapper;
use super::spec::{
    parse_input_spec, InputKind, InputSpec, MapperShared, ParsedSpecs, Pending, SpecContext,
    MAPPER_CLASSES,
};

/// Classes whose elements can be MAPPING_CAPACITY targets / ICMPRewriter maps.
pub const REWRITER_CLASSES: &[&str] = &[
    "IPRewriter",
    "TCPRewriter",
    "UDPRewriter",
    "IPAddrRewriter",
    "IPAddrPairRewriter",
    "ICMPPingRewriter",
];

/// Click's `SecondsArg`: a time, rounded to whole seconds, as milliseconds.
/// Pushes each packet out of the output beside it, runs of packets for one
/// output together and in their order; a negative output drops the packet.
/// Returns how many were dropped. The rewriters' push (IPRewriter's family
/// and ICMPRewriter).
pub(crate) fn push_runs(packets: impl Iterator<Item = (Packet, i32)>, cx: &mut Ctx) -> u64 {
    let mut dropped = 0;
    let mut run = PacketBatch::new();
    let mut cur: i32 = -1;
    for (p, o) in packets {
        if o < 0 {
            dropped += 1;
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
    dropped
}

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

rclick_core::handlers! {
    /// The family's handlers: each class lists its table handlers
    /// ([`RewriterClass::table_handlers`]), then come the common ones and
    /// `patternN` per input.
    pub enum H {
        TcpTable = read("tcp_table", "tcp_mappings"),
        UdpTable = read("udp_table", "udp_mappings"),
        TcpLookup = read_param("tcp_lookup"),
        Table = read("table", "mappings"),
        Lookup = read_param("lookup"),
        NMappings = read("nmappings"),
        MappingFailures = read("mapping_failures"),
        Drops = read("drops"),
        Patterns = read("patterns"),
        Size = read("size"),
        Capacity = read_write("capacity"),
        Clear = write("clear"),
        Pattern = family_read_write("pattern"),
    }
}

/// The handlers every class has, after its table handlers.
const COMMON: &[H] = &[
    H::NMappings,
    H::MappingFailures,
    H::Drops,
    H::Patterns,
    H::Size,
    H::Capacity,
    H::Clear,
];

/// One IPRewriter-family element.
pub struct Rewriter {
    class: &'static dyn RewriterClass,
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
    /// A fresh, unconfigured rewriter of class `class`.
    pub fn new(class: &'static dyn RewriterClass) -> Rewriter {
        Rewriter {
            class,
            handle: RwHandle {
                set: Arc::new(Mutex::new(FlowSet::new(class))),
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
    pub fn class(&self) -> &'static dyn RewriterClass {
        self.class
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

    /// The `patternN` write handler: replaces input `i`'s spec.
    fn write_pattern(&mut self, i: usize, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let noutputs = cx.noutputs();
        let (mut spec, pending) =
            parse_input_spec(value, noutputs, &*cx).map_err(|e| format!("input spec {i}: {e}"))?;
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

    fn now(cx: &Ctx) -> i64 {
        now_ms(cx.now())
    }
}

impl Element for Rewriter {
    fn class_name(&self) -> &'static str {
        self.class.name()
    }

    fn port_count(&self) -> &'static str {
        "1-/1-"
    }

    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let kw = self.class.keywords();
        let mut capacity_word: Option<AnyArg> = None;
        let mut mapping_capacity: Option<AnyArg> = None;
        let any = |s: &str| -> Result<Option<AnyArg>, String> { Ok(Some(AnyArg(s.to_string()))) };
        let mut t = Timeouts::default();
        let (mut reap, mut reap_time) = (None, None);
        let mut dst_anno: Option<bool> = None;
        let mut reply_anno: Option<AnnoSlot> = None;

        let mut a = Args::new_with(conf, cx.arg_context());
        if kw.tcp {
            a = a
                .read_with("TCP_NODATA_TIMEOUT", &mut t.tcp_nodata, seconds_ms)
                .read_with("TCP_GUARANTEE", &mut t.tcp_guarantee, seconds_ms)
                .read_with("TIMEOUT", &mut t.tcp_data, seconds_ms)
                .read_with("TCP_TIMEOUT", &mut t.tcp_timeout, seconds_ms)
                .read_with("TCP_DONE_TIMEOUT", &mut t.tcp_done, seconds_ms);
        }
        if kw.udp {
            a = a
                .read_with("UDP_TIMEOUT", &mut t.udp_timeout, seconds_ms)
                .read_with("UDP_STREAMING_TIMEOUT", &mut t.udp_streaming, seconds_ms)
                .read_with("UDP_GUARANTEE", &mut t.udp_guarantee, seconds_ms);
        }
        if kw.streaming {
            a = a.read_with("STREAMING_TIMEOUT", &mut t.streaming, seconds_ms);
        }
        if kw.dst_anno {
            a = a.read_with("DST_ANNO", &mut dst_anno, bool_arg);
        }
        a = a
            .read_with("REPLY_ANNO", &mut reply_anno, anno_arg)
            .read_with("CAPACITY", &mut capacity_word, any)
            .read_with("MAPPING_CAPACITY", &mut mapping_capacity, any)
            .read_with("GUARANTEE", &mut t.guarantee, seconds_ms)
            .read_with("REAP_INTERVAL", &mut reap, seconds_ms)
            .read_with("REAP_TIME", &mut reap_time, seconds_ms);
        if !kw.tcp {
            a = a.read_with("TIMEOUT", &mut t.timeout, seconds_ms);
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

        let mut c: TableCfg = self.class.table_cfg(&t);
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
        let mut table = Table::new(self.class);
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
            self.class
                .process_batch(&mut set, slot, port, &mut batch, now, &mut self.scratch);
        }
        let dropped = push_runs(batch.drain().zip(self.scratch.iter().copied()), cx);
        self.drops += dropped;
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
        let mut v: Vec<HandlerDef> = self
            .class
            .table_handlers()
            .iter()
            .chain(COMMON)
            .flat_map(|h| h.defs())
            .collect();
        v.extend(H::Pattern.family_defs(self.ninputs));
        v
    }

    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        let now = Self::now(cx);
        let set = self.handle.lock();
        let slot = self.handle.slot;
        let Some(t) = set.tables.get(slot) else {
            return Ok(String::new());
        };
        if let Some((H::Pattern, i)) = H::decode(id) {
            return Ok(match t.inputs.get(i as usize) {
                Some(i) => format!("{}\n", i.unparse()),
                None => String::new(),
            });
        }
        Ok(match H::from_id(id) {
            Some(H::TcpTable | H::Table) => set.unparse_table(slot, 0, now),
            Some(H::UdpTable) => set.unparse_table(slot, 1, now),
            Some(H::TcpLookup | H::Lookup) => {
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
            Some(H::NMappings) => t
                .inputs
                .iter()
                .map(|i| u64::from(i.count))
                .sum::<u64>()
                .to_string(),
            Some(H::MappingFailures) => t
                .inputs
                .iter()
                .map(|i| u64::from(i.failures))
                .sum::<u64>()
                .to_string(),
            Some(H::Patterns) => {
                let mut s = String::new();
                for i in &t.inputs {
                    s.push_str(&i.unparse());
                    s.push('\n');
                }
                s
            }
            Some(H::Size) => set.size().to_string(),
            Some(H::Drops) => self.drops.to_string(),
            Some(H::Capacity) => set.capacity.to_string(),
            Some(H::Clear | H::Pattern) | None => return Err("handler not readable".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let now = Self::now(cx);
        if let Some((H::Pattern, i)) = H::decode(id) {
            return self.write_pattern(i as usize, value, cx);
        }
        match H::from_id(id) {
            Some(H::Capacity) => {
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
            Some(H::Clear) => {
                self.handle.lock().shrink(true, now);
                Ok(())
            }
            _ => Err("handler not writable".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;
    use rclick_core::testing;

    fn build(rw: &str) -> Result<rclick_core::Router, String> {
        testing::build(
            &format!("i :: Idle; rw :: {rw}; i -> rw -> i;"),
            &registry(),
            true,
        )
    }

    /// Each class reads its own keyword groups and no others.
    #[test]
    fn keywords_per_class() {
        for ok in [
            "IPRewriter(keep 0 0, TCP_TIMEOUT 10, UDP_TIMEOUT 5, DST_ANNO false)",
            "TCPRewriter(keep 0 0, TIMEOUT 10, TCP_DONE_TIMEOUT 1)",
            "UDPRewriter(keep 0 0, STREAMING_TIMEOUT 10, UDP_GUARANTEE 1)",
            "IPAddrRewriter(keep 0 0, TIMEOUT 10, GUARANTEE 0)",
            "ICMPPingRewriter(keep 0 0, TIMEOUT 10, DST_ANNO true)",
        ] {
            build(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
        for bad in [
            "TCPRewriter(keep 0 0, UDP_TIMEOUT 5)",
            "UDPRewriter(keep 0 0, TCP_TIMEOUT 5)",
            "IPAddrRewriter(keep 0 0, DST_ANNO false)",
            "IPAddrPairRewriter(keep 0 0, STREAMING_TIMEOUT 5)",
            "IPRewriter(keep 0 0, TIMEOUT x)",
        ] {
            assert!(build(bad).is_err(), "{bad}");
        }
    }

    /// `capacity` writes shrink the set, `clear` empties it, `patternN`
    /// writes replace a spec.
    #[test]
    fn write_handlers() {
        let r = build("UDPRewriter(keep 0 0)").unwrap();
        assert_eq!(testing::read(&r, "rw.capacity"), "2147483647");
        r.write_handler("rw.capacity", "10").unwrap();
        assert_eq!(testing::read(&r, "rw.capacity"), "10");
        assert!(r.write_handler("rw.capacity", "ten").is_err());
        r.write_handler("rw.clear", "").unwrap();
        assert_eq!(testing::read(&r, "rw.size"), "0");
        r.write_handler("rw.pattern0", "drop").unwrap();
        assert_eq!(testing::read(&r, "rw.pattern0"), "<drop>\n");
        assert!(r.write_handler("rw.pattern0", "pass 7").is_err());
        assert_eq!(testing::read(&r, "rw.patterns"), "<drop>\n");
    }
}
