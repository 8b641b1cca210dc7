//! The library the IPRewriter family shares (Click's `IPRewriterBase`
//! and `IPRewriterHeap`): flows, their mapping tables, and the expiry heaps
//! that bound how many flows may exist.
//!
//! A [`FlowSet`] is what Click calls an `IPRewriterHeap` plus the maps of
//! every rewriter that shares it (`MAPPING_CAPACITY other`). Each rewriter
//! owns one [`Table`] in its set, with its class ([`RewriterClass`]) and
//! its input specs. Elements reach a set through [`RwHandle`]s; a
//! rewriter locks its set once per batch. What differs between the classes
//! (keys, timeouts, the rewriting itself) is each class's impl of
//! [`RewriterClass`], in the class's own file.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rclick_packet::Packet;
use rclick_wire::checksum;

use super::class::{ip_info, RewriterClass, TableCfg};
use super::pattern::{Entry, FlowId, FlowMap};
use super::seq_delta::SeqDelta;
use super::spec::{InputKind, InputSpec};

/// IP protocol numbers used here.
pub const IP_PROTO_ICMP: u8 = 1;
/// TCP.
pub const IP_PROTO_TCP: u8 = 6;
/// UDP.
pub const IP_PROTO_UDP: u8 = 17;
/// DCCP.
pub const IP_PROTO_DCCP: u8 = 33;

/// One rewriter's mapping tables and input specs.
pub struct Table {
    /// The rewriter class.
    pub class: &'static dyn RewriterClass,
    /// Map 0 (TCP for IPRewriter, everything otherwise), map 1 (IPRewriter UDP).
    pub maps: [FlowMap; 2],
    /// Input specs.
    pub inputs: Vec<InputSpec>,
    /// Timeouts and annotations.
    pub cfg: TableCfg,
    /// Number of outputs.
    pub noutputs: usize,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("class", &self.class.name())
            .field("maps", &self.maps)
            .field("inputs", &self.inputs)
            .field("cfg", &self.cfg)
            .field("noutputs", &self.noutputs)
            .finish()
    }
}

impl Table {
    /// An empty table.
    pub fn new(class: &'static dyn RewriterClass) -> Table {
        Table {
            class,
            maps: [FlowMap::default(), FlowMap::default()],
            inputs: Vec::new(),
            cfg: TableCfg::default(),
            noutputs: 0,
        }
    }
}

/// One flow: both directions' keys and outputs, checksum deltas, expiry.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Entry keys: forward flow, and the reply flow (the rewritten flow
    /// reversed).
    pub key: [FlowId; 2],
    /// Output per direction.
    pub out: [u32; 2],
    /// IP checksum delta of the forward rewriting.
    pub(crate) ip_delta: u16,
    /// Transport checksum delta (addresses and ports).
    pub(crate) l4_delta: u16,
    /// Expiry, milliseconds.
    pub expiry: i64,
    place: u32,
    /// Whether the flow is in the guaranteed heap.
    pub guaranteed: bool,
    /// IP protocol (0 when unknown).
    pub ip_p: u8,
    /// Protocol state bits: TCP closed (1, 2) and data seen (4, 8) per
    /// direction; UDP packets seen, capped at 7 (streaming past 6).
    pub(crate) tflags: u8,
    /// Reply annotation value.
    pub reply_anno: u8,
    table: u16,
    input: u16,
    /// The map the flow lives in (1: IPRewriter's UDP flows).
    pub(crate) map: u8,
    /// TCP sequence deltas.
    pub seq: Option<Box<SeqDelta>>,
}

/// One's-complement sum of `!old[i] + new[i]` over `range`.
fn words_delta(old: FlowId, new: FlowId, n: usize) -> u16 {
    let (o, w) = (old.words(), new.words());
    let mut acc = 0u16;
    for i in 0..n {
        acc = checksum::add(acc, checksum::add(!o[i], w[i]));
    }
    acc
}

impl Flow {
    fn new(flowid: FlowId, rewritten: FlowId, outs: [u32; 2], ip_p: u8) -> Flow {
        Flow {
            key: [flowid, rewritten.reverse()],
            out: outs,
            ip_delta: words_delta(flowid, rewritten, 4),
            l4_delta: words_delta(flowid, rewritten, 6),
            expiry: 0,
            place: 0,
            guaranteed: false,
            ip_p,
            tflags: 0,
            reply_anno: 0,
            table: 0,
            input: 0,
            map: 0,
            seq: None,
        }
    }
    /// Both TCP sides closed.
    pub(crate) fn both_done(&self) -> bool {
        self.tflags & 3 == 3
    }
    /// TCP data flowed both ways.
    pub(crate) fn both_data(&self) -> bool {
        self.tflags & 12 == 12
    }
    /// A UDP flow of at least 3 packets with replies.
    pub(crate) fn streaming(&self) -> bool {
        self.tflags > 6
    }
    /// The flow direction `reply` is rewritten into.
    pub fn rewritten(&self, reply: bool) -> FlowId {
        self.key[usize::from(!reply)].reverse()
    }
    /// Creates or updates a sequence-number delta (FTPPortMapper).
    pub fn update_seqno_delta(&mut self, reply: bool, trigger: u32, amount: i32) -> bool {
        self.seq
            .get_or_insert_with(Default::default)
            .update(usize::from(reply), trigger, amount)
    }
}

/// The result of asking an input spec about a new flow.
enum Rw {
    Drop,
    Output(u32),
    Add(FlowId, u32, u32),
}

/// How [`FlowSet::get_entry`] may create a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Only look.
    Check,
    /// Look for the reply direction (ICMPRewriter); never create.
    Reply,
    /// Create through this input spec if missing.
    Input(usize),
}

/// Flows, heaps and tables shared by rewriters with one capacity.
#[derive(Debug)]
pub struct FlowSet {
    flows: Vec<Option<Flow>>,
    free: Vec<u32>,
    heaps: [Vec<u32>; 2],
    /// Maximum number of flows.
    pub capacity: i32,
    /// One table per rewriter.
    pub tables: Vec<Table>,
}

/// A locked-on-use reference to a rewriter's table in its flow set.
#[derive(Clone, Debug)]
pub struct RwHandle {
    /// The set.
    pub set: Arc<Mutex<FlowSet>>,
    /// The table's index.
    pub slot: usize,
}

impl RwHandle {
    /// Locks the set.
    pub fn lock(&self) -> MutexGuard<'_, FlowSet> {
        self.set.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Converts a timestamp to milliseconds (Click's jiffies at HZ 1000).
pub fn now_ms(t: rclick_packet::Timestamp) -> i64 {
    t.as_nsec().div_euclid(1_000_000)
}

impl FlowSet {
    /// A set with one table of class `class`.
    pub fn new(class: &'static dyn RewriterClass) -> FlowSet {
        FlowSet {
            flows: Vec::new(),
            free: Vec::new(),
            heaps: [Vec::new(), Vec::new()],
            capacity: i32::MAX,
            tables: vec![Table::new(class)],
        }
    }

    /// Number of live flows.
    pub fn size(&self) -> usize {
        self.heaps[0].len() + self.heaps[1].len()
    }

    /// A live flow.
    pub fn flow(&self, i: u32) -> Option<&Flow> {
        self.flows.get(i as usize).and_then(Option::as_ref)
    }

    /// A live flow, mutably.
    pub fn flow_mut(&mut self, i: u32) -> Option<&mut Flow> {
        self.flows.get_mut(i as usize).and_then(Option::as_mut)
    }

    // ----- heaps -----------------------------------------------------------

    fn exp(&self, i: u32) -> i64 {
        self.flows[i as usize]
            .as_ref()
            .map_or(i64::MIN, |f| f.expiry)
    }
    fn set_place(&mut self, i: u32, pos: usize) {
        if let Some(f) = self.flows[i as usize].as_mut() {
            f.place = pos as u32;
        }
    }
    fn sift_up(&mut self, h: usize, mut pos: usize) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            let (a, b) = (self.heaps[h][pos], self.heaps[h][parent]);
            if self.exp(a) < self.exp(b) {
                self.heaps[h].swap(pos, parent);
                self.set_place(a, parent);
                self.set_place(b, pos);
                pos = parent;
            } else {
                break;
            }
        }
    }
    fn sift_down(&mut self, h: usize, mut pos: usize) {
        let n = self.heaps[h].len();
        loop {
            let l = 2 * pos + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let mut c = l;
            if r < n && self.exp(self.heaps[h][r]) < self.exp(self.heaps[h][l]) {
                c = r;
            }
            let (a, b) = (self.heaps[h][pos], self.heaps[h][c]);
            if self.exp(b) < self.exp(a) {
                self.heaps[h].swap(pos, c);
                self.set_place(a, c);
                self.set_place(b, pos);
                pos = c;
            } else {
                break;
            }
        }
    }
    fn heap_push(&mut self, h: usize, i: u32) {
        let pos = self.heaps[h].len();
        self.heaps[h].push(i);
        self.set_place(i, pos);
        self.sift_up(h, pos);
    }
    fn heap_remove(&mut self, h: usize, pos: usize) {
        let last = self.heaps[h].len() - 1;
        if pos != last {
            let moved = self.heaps[h][last];
            self.heaps[h][pos] = moved;
            self.set_place(moved, pos);
            self.heaps[h].pop();
            self.sift_up(h, pos);
            let p2 = self.flows[moved as usize]
                .as_ref()
                .map_or(pos, |f| f.place as usize);
            self.sift_down(h, p2);
        } else {
            self.heaps[h].pop();
        }
    }

    fn change_expiry(&mut self, i: u32, guaranteed: bool, expiry: i64) {
        let Some(f) = self.flows[i as usize].as_mut() else {
            return;
        };
        let (old_h, pos) = (usize::from(f.guaranteed), f.place as usize);
        f.expiry = expiry;
        if f.guaranteed != guaranteed {
            f.guaranteed = guaranteed;
            self.heap_remove(old_h, pos);
            self.heap_push(usize::from(guaranteed), i);
        } else {
            self.sift_up(old_h, pos);
            let p2 = self.flows[i as usize]
                .as_ref()
                .map_or(pos, |f| f.place as usize);
            self.sift_down(old_h, p2);
        }
    }

    /// The flow's timeout once its guarantee ends, and its guarantee.
    fn flow_timeouts(&self, f: &Flow) -> (u32, u32) {
        let t = &self.tables[f.table as usize];
        t.class.timeouts(f, &t.cfg)
    }

    fn best_effort_expiry(&self, f: &Flow) -> i64 {
        let (to, g) = self.flow_timeouts(f);
        f.expiry + i64::from(to) - i64::from(g)
    }

    fn shift_best_effort(&mut self, now: i64) {
        while let Some(&top) = self.heaps[1].first() {
            let Some(f) = self.flow(top) else { break };
            if f.expiry > now {
                break;
            }
            let e = self.best_effort_expiry(f);
            self.change_expiry(top, false, e);
        }
    }

    /// Destroys flow `i`: unmaps it and frees its slot.
    pub fn destroy(&mut self, i: u32) {
        let Some(f) = self.flows.get_mut(i as usize).and_then(Option::take) else {
            return;
        };
        // the heap code reads places through `flows`; put a placeholder back
        // while removing
        let (h, pos) = (usize::from(f.guaranteed), f.place as usize);
        self.heap_remove_for(h, pos, i);
        if let Some(t) = self.tables.get_mut(f.table as usize) {
            if let Some(inp) = t.inputs.get_mut(f.input as usize) {
                inp.count = inp.count.saturating_sub(1);
            }
            let map = &mut t.maps[usize::from(f.map)];
            for (d, k) in f.key.iter().enumerate() {
                if map.get(k)
                    == Some(&Entry {
                        flow: i,
                        reply: d == 1,
                    })
                {
                    map.remove(k);
                }
            }
        }
        self.free.push(i);
    }

    fn heap_remove_for(&mut self, h: usize, pos: usize, i: u32) {
        if self.heaps[h].get(pos) == Some(&i) {
            self.heap_remove(h, pos);
        } else if let Some(p) = self.heaps[h].iter().position(|&x| x == i) {
            self.heap_remove(h, p);
        }
    }

    fn shrink_for_new_flow(&mut self, new: u32, now: i64) -> bool {
        self.shift_best_effort(now);
        let dead = match self.heaps[0].first() {
            Some(&d) => d,
            None => new,
        };
        self.destroy(dead);
        dead == new
    }

    /// Expires old flows and trims the set to its capacity (to nothing
    /// when `clear_all`).
    pub fn shrink(&mut self, clear_all: bool, now: i64) {
        self.shift_best_effort(now);
        while let Some(&top) = self.heaps[0].first() {
            if self.exp(top) > now {
                break;
            }
            self.destroy(top);
        }
        let cap = if clear_all {
            0
        } else {
            self.capacity.max(0) as usize
        };
        while self.size() > cap {
            let h = usize::from(self.heaps[0].is_empty());
            let dead = self.heaps[h][0];
            self.destroy(dead);
        }
        self.give_back_memory();
    }

    /// After a flood of flows has expired, gives their memory back: free
    /// slots at the end of the flow table go, and tables, heaps and maps
    /// left at less than a quarter of their capacity shrink. (A flow keeps
    /// its index, so free slots in the middle stay until the flows after
    /// them go.)
    fn give_back_memory(&mut self) {
        const SLACK: usize = 1024;
        let before = self.flows.len();
        while matches!(self.flows.last(), Some(None)) {
            self.flows.pop();
        }
        if self.flows.len() < before {
            let n = self.flows.len();
            self.free.retain(|&i| (i as usize) < n);
        }
        fn trim<T>(v: &mut Vec<T>) {
            if v.capacity() > 4 * v.len() + SLACK {
                v.shrink_to(2 * v.len());
            }
        }
        trim(&mut self.flows);
        trim(&mut self.free);
        for h in &mut self.heaps {
            trim(h);
        }
        for t in &mut self.tables {
            for m in &mut t.maps {
                if m.capacity() > 4 * m.len() + SLACK {
                    m.shrink_to(2 * m.len());
                }
            }
        }
    }

    /// Destroys every flow created by input `input` of table `slot`.
    pub fn remove_input_flows(&mut self, slot: usize, input: usize) {
        let victims: Vec<u32> = self
            .flows
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                f.as_ref()
                    .filter(|f| f.table as usize == slot && f.input as usize == input)
                    .map(|_| i as u32)
            })
            .collect();
        for v in victims {
            self.destroy(v);
        }
    }

    // ----- flow creation ----------------------------------------------------

    fn rewrite(&mut self, slot: usize, input: usize, m: usize, flowid: FlowId) -> Rw {
        let t = &mut self.tables[slot];
        let Some(is) = t.inputs.get_mut(input) else {
            return Rw::Drop;
        };
        let reply_map = &t.maps[m];
        match &is.kind {
            InputKind::Drop => Rw::Drop,
            InputKind::Pass => Rw::Output(is.foutput),
            InputKind::Keep => Rw::Add(flowid, is.foutput, is.routput),
            InputKind::Pattern(p) => match p.rewrite_flowid(flowid, reply_map) {
                Some(r) => Rw::Add(r, is.foutput, is.routput),
                None => {
                    is.failures += 1;
                    Rw::Drop
                }
            },
            InputKind::Mapper(mp) if mp.hash.is_some() => {
                let h = mp.hash.as_ref().map_or(0, |h| {
                    h.index(super::source_ip_hash_mapper::ConsistentHash::key(
                        flowid.saddr,
                    ))
                });
                match mp.patterns.get(h).and_then(|(p, fo, ro)| {
                    p.rewrite_flowid(flowid, reply_map).map(|r| (r, *fo, *ro))
                }) {
                    Some((r, fo, ro)) => Rw::Add(r, fo, ro),
                    None => {
                        is.failures += 1;
                        Rw::Drop
                    }
                }
            }
            InputKind::Mapper(mp) => {
                let n = mp.patterns.len();
                for _ in 0..n {
                    let k = mp.last.load(Ordering::Relaxed) % n;
                    mp.last.store((k + 1) % n, Ordering::Relaxed);
                    let (p, fo, ro) = &mp.patterns[k];
                    if let Some(r) = p.rewrite_flowid(flowid, reply_map) {
                        return Rw::Add(r, *fo, *ro);
                    }
                }
                is.failures += 1;
                Rw::Drop
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_flow(
        &mut self,
        slot: usize,
        m: usize,
        ip_p: u8,
        flowid: FlowId,
        rewritten: FlowId,
        input: usize,
        outs: [u32; 2],
        now: i64,
    ) -> Option<u32> {
        let t = &self.tables[slot];
        if outs[0] as usize >= t.noutputs || outs[1] as usize >= t.noutputs {
            return None;
        }
        let mut f = Flow::new(flowid, rewritten, outs, ip_p);
        f.table = slot as u16;
        f.input = input as u16;
        f.map = m as u8;
        let (to, g) = t.class.timeouts(&f, &t.cfg);
        f.guaranteed = g != 0;
        f.expiry = now + i64::from(if g != 0 { g } else { to });
        let key = f.key;
        let guaranteed = f.guaranteed;
        let i = match self.free.pop() {
            Some(i) => {
                self.flows[i as usize] = Some(f);
                i
            }
            None => {
                self.flows.push(Some(f));
                (self.flows.len() - 1) as u32
            }
        };
        let map = &mut self.tables[slot].maps[m];
        map.insert(
            key[0],
            Entry {
                flow: i,
                reply: false,
            },
        );
        let old = map.insert(
            key[1],
            Entry {
                flow: i,
                reply: true,
            },
        );
        if let Some(old) = old {
            if old.flow != i {
                self.destroy(old.flow);
            }
        }
        self.heap_push(usize::from(guaranteed), i);
        if let Some(inp) = self.tables[slot].inputs.get_mut(input) {
            inp.count += 1;
        }
        if self.size() > self.capacity.max(0) as usize && self.shrink_for_new_flow(i, now) {
            if let Some(inp) = self.tables[slot].inputs.get_mut(input) {
                inp.failures += 1;
            }
            return None;
        }
        Some(i)
    }

    /// Creates a flow through input `input`'s spec; returns the forward
    /// entry. `Err(output)` for `pass` specs, `Err(-1)` for drops.
    #[allow(clippy::too_many_arguments)]
    fn create<C: RewriterClass + ?Sized>(
        &mut self,
        class: &C,
        slot: usize,
        input: usize,
        m: usize,
        ip_p: u8,
        flowid: FlowId,
        now: i64,
    ) -> Result<u32, i32> {
        match self.rewrite(slot, input, m, flowid) {
            Rw::Drop => Err(-1),
            Rw::Output(o) => Err(o as i32),
            Rw::Add(mut r, fo, ro) => {
                if !class.accept(flowid, &mut r) {
                    return Err(-1);
                }
                self.add_flow(slot, m, ip_p, flowid, r, input, [fo, ro], now)
                    .ok_or(-1)
            }
        }
    }

    /// Looks up (and maybe creates) a flow as Click's `get_entry`.
    pub fn get_entry(
        &mut self,
        slot: usize,
        ip_p: u8,
        xflowid: FlowId,
        how: Lookup,
        now: i64,
    ) -> Option<Entry> {
        let class = self.tables.get(slot)?.class;
        let key = class.lookup_key(ip_p, xflowid, how)?;
        let (m, flowid) = (key.map, key.flowid);
        let map = &self.tables[slot].maps[m];
        let mut e = map.get(&flowid).copied();
        if e.is_none() {
            if let Some(a) = key.alt {
                e = map.get(&a).copied();
            }
        }
        if let Some(e) = e {
            if key.check_proto {
                let fp = self.flow(e.flow).map_or(0, |f| f.ip_p);
                if ip_p != 0 && fp != 0 && fp != ip_p {
                    return None;
                }
            }
            return Some(e);
        }
        if let Lookup::Input(input) = how {
            let i = self.create(class, slot, input, m, ip_p, flowid, now).ok()?;
            return Some(Entry {
                flow: i,
                reply: false,
            });
        }
        None
    }

    // ----- packet processing ------------------------------------------------

    fn nonmapped(&self, slot: usize, port: usize) -> i32 {
        match self.tables[slot].inputs.get(port) {
            Some(InputSpec {
                kind: InputKind::Pass,
                foutput,
                ..
            }) => *foutput as i32,
            _ => -1,
        }
    }

    /// Processes one packet of class `class` arriving on input `port` of
    /// table `slot`; returns its output, or -1 to drop it.
    #[inline]
    pub fn process<C: RewriterClass + ?Sized>(
        &mut self,
        class: &C,
        slot: usize,
        port: usize,
        p: &mut Packet,
        now: i64,
    ) -> i32 {
        if slot >= self.tables.len() {
            return -1;
        }
        let Some(info) = ip_info(p) else {
            return self.nonmapped(slot, port);
        };
        let Some(key) = class.packet_key(p, &info) else {
            return self.nonmapped(slot, port);
        };
        let m = key.map;
        let map = &self.tables[slot].maps[m];
        let mut entry = map.get(&key.flowid).copied();
        if entry.is_none() {
            if let Some(a) = key.alt {
                entry = map.get(&a).copied();
            }
        }
        let entry = match entry {
            Some(e) => e,
            None => {
                if !key.create {
                    return self.nonmapped(slot, port);
                }
                let proto = class.flow_proto(info.proto);
                match self.create(class, slot, port, m, proto, key.flowid, now) {
                    Ok(i) => {
                        if let Some(slot_anno) = self.tables[slot].cfg.reply_anno {
                            let v = slot_anno.get(p);
                            if let Some(f) = self.flow_mut(i) {
                                f.reply_anno = v;
                            }
                        }
                        Entry {
                            flow: i,
                            reply: false,
                        }
                    }
                    Err(o) => return o,
                }
            }
        };
        let cfg = self.tables[slot].cfg;
        let Some(f) = self
            .flows
            .get_mut(entry.flow as usize)
            .and_then(Option::as_mut)
        else {
            return -1;
        };
        let reply = entry.reply;
        let out = f.out[usize::from(reply)] as i32;
        class.apply(f, reply, p, &info, &cfg);
        // new expiry: guaranteed again, or best effort without a guarantee
        let g = class.guarantee(f, &cfg);
        if g != 0 {
            self.change_expiry(entry.flow, true, now + i64::from(g));
        } else {
            let (to, _) = class.timeouts(f, &cfg);
            self.change_expiry(entry.flow, false, now + i64::from(to));
        }
        out
    }

    // ----- unparsing ----------------------------------------------------------

    fn unparse_entry(&self, k: &FlowId, e: Entry, now: i64, out: &mut String) {
        use std::fmt::Write;
        let Some(f) = self.flow(e.flow) else { return };
        let t = &self.tables[f.table as usize];
        t.class.unparse_mapping(k, f, e.reply, out);
        let exp = if f.guaranteed {
            self.best_effort_expiry(f)
        } else {
            f.expiry
        };
        let _ = write!(
            out,
            " [{}{} {}{}] i{} exp{}",
            if e.reply { "" } else { "*" },
            f.out[0],
            if e.reply { "*" } else { "" },
            f.out[1],
            f.input,
            (exp + 500 - now).div_euclid(1000)
        );
    }

    /// Click's mapping-table text for map `m` of table `slot`: flows in
    /// the order of their slots (the order they were made, until expired
    /// flows' slots are reused), each flow's reply mapping before its
    /// forward one (as the reference lists a lone flow). The maps' own
    /// order follows their random hash seed, so it is not used.
    pub fn unparse_table(&self, slot: usize, m: usize, now: i64) -> String {
        let mut s = String::new();
        if let Some(t) = self.tables.get(slot) {
            let mut entries: Vec<(&FlowId, Entry)> =
                t.maps[m].iter().map(|(k, e)| (k, *e)).collect();
            entries.sort_unstable_by_key(|(_, e)| (e.flow, !e.reply));
            for (k, e) in entries {
                self.unparse_entry(k, e, now, &mut s);
                s.push('\n');
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rewriter::tcp_rewriter::TcpRewriter;
    use crate::rewriter::udp_rewriter::UdpRewriter;

    /// A set with one `keep 0 1` table of class `class`.
    fn keep_set(class: &'static dyn RewriterClass) -> FlowSet {
        let mut set = FlowSet::new(class);
        set.tables[0].noutputs = 2;
        set.tables[0]
            .inputs
            .push(InputSpec::new(InputKind::Keep, 0, 1));
        set
    }

    /// A flow is found from both directions (the reply key is the
    /// rewritten flow reversed); Check and Reply never create; the table
    /// lists flows in slot order, each reply entry first.
    #[test]
    fn lookups_both_directions_and_listing() {
        let mut set = keep_set(&UdpRewriter);
        let a = FlowId::new(1, 10, 2, 20);
        let b = FlowId::new(3, 30, 4, 40);
        assert!(set
            .get_entry(0, IP_PROTO_UDP, a, Lookup::Check, 0)
            .is_none());
        assert!(set
            .get_entry(0, IP_PROTO_UDP, a, Lookup::Reply, 0)
            .is_none());
        assert_eq!(set.size(), 0);
        let ea = set
            .get_entry(0, IP_PROTO_UDP, a, Lookup::Input(0), 0)
            .unwrap();
        let eb = set
            .get_entry(0, IP_PROTO_UDP, b, Lookup::Input(0), 0)
            .unwrap();
        assert!(!ea.reply && ea.flow != eb.flow);
        let r = set
            .get_entry(0, IP_PROTO_UDP, a.reverse(), Lookup::Check, 0)
            .unwrap();
        assert_eq!((r.flow, r.reply), (ea.flow, true));
        // a flow keyed by ports answers for its own protocol only
        assert!(set
            .get_entry(0, IP_PROTO_TCP, a, Lookup::Check, 0)
            .is_none());
        let table = set.unparse_table(0, 0, 0);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(
            lines[0].starts_with("(0.0.0.2, 20, 0.0.0.1, 10) => "),
            "{table}"
        );
        assert!(
            lines[1].starts_with("(0.0.0.1, 10, 0.0.0.2, 20) => "),
            "{table}"
        );
        assert!(
            lines[2].starts_with("(0.0.0.4, 40, 0.0.0.3, 30) => "),
            "{table}"
        );
        assert!(lines[1].ends_with("[*0 1] i0 exp300"), "{table}");
        set.remove_input_flows(0, 0);
        assert_eq!(set.size(), 0);
        assert_eq!(set.unparse_table(0, 0, 0), "");
    }

    /// Two tables of different classes in one set share its capacity, and
    /// each flow keeps its own class's timeouts.
    #[test]
    fn tables_of_different_classes_share_a_set() {
        let mut set = keep_set(&UdpRewriter);
        let mut t = Table::new(&TcpRewriter);
        t.noutputs = 2;
        t.inputs.push(InputSpec::new(InputKind::Keep, 0, 1));
        t.cfg.timeouts = [1_000, 0];
        set.tables.push(t);
        set.capacity = 2;
        let u = FlowId::new(1, 10, 2, 20);
        assert!(set
            .get_entry(0, IP_PROTO_UDP, u, Lookup::Input(0), 0)
            .is_some());
        let tc = FlowId::new(5, 50, 6, 60);
        assert!(set
            .get_entry(1, IP_PROTO_TCP, tc, Lookup::Input(0), 0)
            .is_some());
        assert_eq!(set.size(), 2);
        // the TCP flow has no guarantee and a 1 s timeout; the UDP flow is
        // guaranteed for 5 s
        set.shrink(false, 2_000);
        assert_eq!(set.size(), 1);
        assert!(set
            .get_entry(0, IP_PROTO_UDP, u, Lookup::Check, 2_000)
            .is_some());
        assert!(set
            .get_entry(1, IP_PROTO_TCP, tc, Lookup::Check, 2_000)
            .is_none());
    }

    #[test]
    fn heap_capacity_and_expiry() {
        let mut set = FlowSet::new(&UdpRewriter);
        set.tables[0].noutputs = 2;
        set.tables[0]
            .inputs
            .push(InputSpec::new(InputKind::Keep, 0, 1));
        set.capacity = 2;
        for (i, now) in [(1u32, 0i64), (2, 10), (3, 20)] {
            let f = FlowId::new(i, 1, 100, 2);
            let r = set.get_entry(0, IP_PROTO_UDP, f, Lookup::Input(0), now);
            // the third flow is refused: the others are guaranteed
            assert_eq!(r.is_some(), i < 3);
        }
        assert_eq!(set.size(), 2);
        assert_eq!(set.tables[0].inputs[0].failures, 1);
        // after the guarantee the oldest flow is bumped
        let f = FlowId::new(4, 1, 100, 2);
        assert!(set
            .get_entry(0, IP_PROTO_UDP, f, Lookup::Input(0), 6000)
            .is_some());
        assert!(set
            .get_entry(
                0,
                IP_PROTO_UDP,
                FlowId::new(1, 1, 100, 2),
                Lookup::Check,
                6000
            )
            .is_none());
        set.shrink(true, 6000);
        assert_eq!(set.size(), 0);
        assert!(set.tables[0].maps[0].is_empty());
        assert_eq!(set.tables[0].inputs[0].count, 0);
    }

    /// 200,000 flows from as many sources, then all expire: creating and
    /// expiring them is linear, and the set gives their memory back (it
    /// used to keep the table and maps at their peak).
    #[test]
    fn expired_flows_give_memory_back() {
        let mut set = FlowSet::new(&UdpRewriter);
        set.tables[0].noutputs = 2;
        set.tables[0]
            .inputs
            .push(InputSpec::new(InputKind::Keep, 0, 1));
        let t0 = std::time::Instant::now();
        for i in 0..200_000u32 {
            let f = FlowId::new(i, 1, 100, 2);
            assert!(set
                .get_entry(0, IP_PROTO_UDP, f, Lookup::Input(0), 0)
                .is_some());
        }
        assert_eq!(set.size(), 200_000);
        assert!(set.tables[0].maps[0].capacity() >= 200_000);
        set.shrink(false, 1 << 40);
        // Linear: flows from 200,000 sources used to share a few dozen
        // hash buckets (half a minute here in a debug build).
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(10),
            "{:?}",
            t0.elapsed()
        );
        assert_eq!(set.size(), 0);
        assert!(set.flows.capacity() <= 1024, "{}", set.flows.capacity());
        assert!(set.free.capacity() <= 1024, "{}", set.free.capacity());
        for m in &set.tables[0].maps {
            assert!(m.capacity() <= 2048, "{}", m.capacity());
        }
        // and it works on
        let f = FlowId::new(7, 1, 100, 2);
        assert!(set
            .get_entry(0, IP_PROTO_UDP, f, Lookup::Input(0), 1 << 40)
            .is_some());
        assert_eq!(set.size(), 1);
    }
}
