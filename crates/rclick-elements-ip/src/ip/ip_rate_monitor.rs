//! # IPRateMonitor
//!
//! `IPRateMonitor(TYPE, RATIO, THRESH [, MEMORY, ANNO])`
//!
//! **Category:** ip measurement. Measures the traffic rates to and from
//! clusters of IP addresses, zooming in on busy ones.
//!
//! **Ports:** one or two inputs, one or two outputs, agnostic. A packet
//! arriving on input N leaves on output N.
//!
//! ## Description
//!
//! Keeps, for IP addresses grouped by their first byte, then by their
//! first two, three and four bytes, a forward and a reverse rate: an
//! exponentially weighted moving average (weight 1/32, 10 fraction bits)
//! of packets or bytes per epoch, an epoch being 8 milliseconds (125 a
//! second). A packet on input 0 counts toward the forward rate of its
//! source address, a packet on input 1 toward the reverse rate of its
//! destination address, at every level down to the deepest one opened for
//! that address. When the forward or reverse rate (per second) of the
//! deepest cluster of the address reaches THRESH, the next level is opened
//! under it, starting from its parent's averages; a level is opened at
//! most once per packet.
//!
//! Arguments (all may be given by keyword):
//!
//! * `TYPE` (mandatory): `PACKETS` or `BYTES` (any case): count packets,
//!   or the IP length field's bytes.
//! * `RATIO` (mandatory): a real between 0 and 1 (16 fraction bits). Each
//!   packet updates the averages with probability RATIO; every packet is
//!   annotated.
//! * `THRESH` (mandatory): integer, rate a second at which a cluster is
//!   split, given as if RATIO were 1: it is kept as THRESH × RATIO (the
//!   32-bit product shifted down 16 bits, as Click computes it, so a
//!   negative THRESH becomes a large one).
//! * `MEMORY`: kilobytes the tables may use; 0 (the default) is no limit;
//!   values under 100 are raised to 100. A Counter is counted as 40 bytes
//!   and a table of 256 as 2080, Click's sizes on a 64-bit machine.
//! * `ANNO`: boolean, default true: write the rates into each packet's
//!   annotations.
//!
//! Once a second (on the first packet after a second has passed), tables
//! whose parent's scaled averages (per epoch, not per second, as in Click)
//! are both under THRESH are folded back into their parent, in age order
//! from the oldest or the newest (chosen at random), until the memory in
//! use is under MEMORY or, without a limit, under 90 % of what it was.
//!
//! ## Annotations
//!
//! With ANNO, sets the forward-rate annotation (signed 32 bits at
//! annotation bytes 20 to 23, which Block reads) and the reverse-rate
//! annotation (bytes 24 to 27, which CompareBlock also reads) to the
//! deepest cluster's rates a second. Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `look` (read): the number of epochs since the last reset, then one
//!   line per cluster with a nonzero average: the address prefix (`18`,
//!   `18.26`, ...), indented one tab per level, then the forward and
//!   reverse rates a second, separated by tabs; clusters of a level in
//!   byte order, each followed by its subclusters.
//! * `thresh` (read): THRESH as kept (scaled by RATIO).
//! * `mem` (read): bytes the tables use.
//! * `memmax` (read/write): the memory limit in bytes. A write takes
//!   kilobytes (one integer: `expecting 1 integer`, `not an integer`), is
//!   raised to 100 if under it and not 0, and folds tables at once (with
//!   growing thresholds) until the memory in use fits.
//! * `reset` (write): forgets every rate and restarts the epoch count.
//! * `anno_level` (write): `ADDR, LEVEL, WHEN` (three comma-separated
//!   arguments, as Click splits them): at LEVEL (0 to 3) of ADDR's
//!   clusters, closes the levels below and opens none for WHEN seconds
//!   (at least 1). Errors: `expecting 3 arguments`, `not an IP address`,
//!   `2nd argument specifies a level, between 0 and 3, to annotate`,
//!   `3rd argument specifies when this rule expires, must be > 0`.
//! * `unmeasured` (read): packets passed on without an IP header (not in
//!   Click).
//!
//! ## Differences from Click
//!
//! Packets without an IP header annotation of at least 20 bytes pass
//! unmeasured and unannotated, counted in the extra read handler
//! `unmeasured` (Click crashes on them). A `reset` gives back the memory of
//! the first level's counters (Click keeps counting it in `mem`). The
//! once-a-second fold is timed per element (Click's timer is shared by
//! every IPRateMonitor). Click's LLRPCs are not offered. The random
//! choices (RATIO, the fold direction) use this router's generator.
//!
//! ## Examples
//!
//! ```text
//! IPRateMonitor(PACKETS, 0.5, 256, 600);
//! ```
//!
//! Monitors packet rates with at most 600 kilobytes of tables; once a
//! cluster such as 18.26 reaches 256 packets a second, its subclusters
//! (18.26.4, ...) are measured too.
//!
//! ## See also
//!
//! Block, CompareBlock, AverageCounter

use std::net::Ipv4Addr;

use rclick_core::args::{parse_ip_addr, parse_real2, unparse_real2, Args, Word};
use rclick_core::confparse::split_args;
use rclick_core::random::{random, random_range};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, Timestamp};
use rclick_wire::Ipv4Packet;

/// Fraction bits of the averages.
const SCALE: u32 = 10;
/// The averages' weight is 2^-STABILITY.
const STABILITY: u32 = 5;
/// Epochs a second (an epoch is 8 jiffies).
const FREQ: u32 = 125;
/// Click's `sizeof(Counter)` and `sizeof(Stats)` on a 64-bit machine.
const COUNTER_SIZE: u64 = 40;
const STATS_SIZE: u64 = 2080;
/// The smallest memory limit, in kilobytes.
const MEMMAX_MIN: u64 = 100;
/// Where the rates go in the annotations.
const FWD_RATE_ANNO: usize = 20;
const REV_RATE_ANNO: usize = 24;

/// The current epoch: jiffies (milliseconds) divided by 8.
fn epoch(now: Timestamp) -> u32 {
    (now.as_nsec().div_euclid(1_000_000) as u32) >> 3
}

/// One step of Click's `DirectEWMAX<5, 10>` with observation `x`.
fn ewma_step(avg: &mut u32, x: u32) {
    let scaled = (x << SCALE).wrapping_add(1 << (STABILITY - 1));
    *avg = avg.wrapping_add(((scaled.wrapping_sub(*avg) as i32) >> STABILITY) as u32);
}

/// Click's `RateEWMAX` with two rates (forward, reverse).
#[derive(Clone, Copy, Debug, Default)]
struct Ewma {
    epoch: u32,
    current: [u32; 2],
    avg: [u32; 2],
}

impl Ewma {
    fn new(now: u32) -> Ewma {
        Ewma {
            epoch: now,
            ..Ewma::default()
        }
    }

    /// Closes the epochs that have passed.
    fn update_time(&mut self, now: u32) {
        if now == self.epoch {
            return;
        }
        let idle = now.wrapping_sub(self.epoch).wrapping_sub(1);
        for i in 0..2 {
            ewma_step(&mut self.avg[i], self.current[i]);
            if idle >= 100 {
                self.avg[i] = 0;
            } else {
                for _ in 0..idle {
                    ewma_step(&mut self.avg[i], 0);
                }
            }
            self.current[i] = 0;
        }
        self.epoch = now;
    }

    fn update(&mut self, delta: u32, which: usize, now: u32) {
        self.update_time(now);
        self.current[which] = self.current[which].wrapping_add(delta);
    }

    fn scaled(&self, which: usize) -> i32 {
        self.avg[which] as i32
    }

    /// The rate a second, as an integer (Click's signed arithmetic).
    fn rate(&self, which: usize) -> i32 {
        self.scaled(which).wrapping_mul(FREQ as i32) >> SCALE
    }

    fn unparse_rate(&self, which: usize) -> String {
        unparse_real2(u64::from(self.avg[which].wrapping_mul(FREQ)), SCALE)
    }
}

#[derive(Clone, Debug)]
struct Counter {
    rate: Ewma,
    /// The table of the next level, by index.
    next_level: Option<usize>,
    /// No level is opened below this one before this epoch.
    anno_this: u32,
}

/// A table of 256 counters, one per value of the next address byte.
#[derive(Debug)]
struct Stats {
    /// The table and byte whose counter this table refines; `None` for the
    /// first level.
    parent: Option<(usize, u8)>,
    counters: Vec<Option<Counter>>,
    /// Neighbours in age order (oldest first).
    prev: Option<usize>,
    next: Option<usize>,
}

impl Stats {
    fn new(parent: Option<(usize, u8)>) -> Stats {
        Stats {
            parent,
            counters: vec![None; 256],
            prev: None,
            next: None,
        }
    }
}

/// The IPRateMonitor element.
pub struct IPRateMonitor {
    count_packets: bool,
    anno: bool,
    thresh: i32,
    memmax: u64,
    ratio: u32,
    /// Tables by index; index 0 is the first level.
    tables: Vec<Option<Stats>>,
    free: Vec<usize>,
    first: Option<usize>,
    last: Option<usize>,
    mem: u64,
    reset_epoch: u32,
    prev_fold: Option<u32>,
    unmeasured: u64,
}

impl Default for IPRateMonitor {
    fn default() -> Self {
        IPRateMonitor {
            count_packets: true,
            anno: true,
            thresh: 1,
            memmax: 0,
            ratio: 1 << 16,
            tables: Vec::new(),
            free: Vec::new(),
            first: None,
            last: None,
            mem: 0,
            reset_epoch: 0,
            prev_fold: None,
            unmeasured: 0,
        }
    }
}

rclick_core::handlers! {
    /// IPRateMonitor's handlers (the manual's list).
    enum H {
        Thresh = read("thresh"),
        Look = read("look"),
        Mem = read("mem"),
        MemMax = read_write("memmax"),
        AnnoLevel = write("anno_level"),
        Reset = write("reset"),
        Unmeasured = read("unmeasured"),
    }
}

impl IPRateMonitor {
    fn table(&self, id: usize) -> Option<&Stats> {
        self.tables.get(id).and_then(Option::as_ref)
    }

    fn table_mut(&mut self, id: usize) -> Option<&mut Stats> {
        self.tables.get_mut(id).and_then(Option::as_mut)
    }

    fn counter_mut(&mut self, id: usize, byte: u8) -> Option<&mut Counter> {
        self.table_mut(id)
            .and_then(|s| s.counters.get_mut(usize::from(byte)))
            .and_then(Option::as_mut)
    }

    /// Starts afresh with an empty first level.
    fn clear(&mut self) {
        self.tables = vec![Some(Stats::new(None))];
        self.free.clear();
        self.first = Some(0);
        self.last = Some(0);
        self.mem = STATS_SIZE;
    }

    /// Creates the counter for `byte` in table `id`, unless the memory
    /// limit forbids it.
    fn make_counter(&mut self, id: usize, byte: u8, rate: Ewma) -> bool {
        if self.memmax != 0 && self.mem + COUNTER_SIZE > self.memmax {
            return false;
        }
        let Some(slot) = self
            .table_mut(id)
            .and_then(|s| s.counters.get_mut(usize::from(byte)))
        else {
            return false;
        };
        *slot = Some(Counter {
            rate,
            next_level: None,
            anno_this: 0,
        });
        self.mem += COUNTER_SIZE;
        true
    }

    /// Deletes table `id` and everything below it; returns its neighbours
    /// in age order as they are once it is gone.
    fn delete_table(&mut self, id: usize) -> (Option<usize>, Option<usize>) {
        let children: Vec<usize> = match self.table(id) {
            Some(s) => s
                .counters
                .iter()
                .flatten()
                .filter_map(|c| c.next_level)
                .collect(),
            None => return (None, None),
        };
        for child in children {
            self.delete_table(child);
        }
        let Some(s) = self.tables.get_mut(id).and_then(Option::take) else {
            return (None, None);
        };
        let counters = s.counters.iter().flatten().count() as u64;
        self.mem = self.mem.saturating_sub(counters * COUNTER_SIZE);
        // The children unlinked themselves; read the neighbours now.
        let (prev, next) = (s.prev, s.next);
        match prev {
            Some(p) => {
                if let Some(t) = self.table_mut(p) {
                    t.next = next;
                }
            }
            None => self.first = next,
        }
        match next {
            Some(n) => {
                if let Some(t) = self.table_mut(n) {
                    t.prev = prev;
                }
            }
            None => self.last = prev,
        }
        if let Some((pid, byte)) = s.parent {
            if let Some(c) = self.counter_mut(pid, byte) {
                c.next_level = None;
            }
        }
        self.mem = self.mem.saturating_sub(STATS_SIZE);
        self.free.push(id);
        (prev, next)
    }

    /// Opens a table under counter `byte` of table `id`, holding one
    /// counter for `next_byte` that starts from `rate`.
    fn open_level(&mut self, id: usize, byte: u8, next_byte: u8, rate: Ewma) {
        let mut s = Stats::new(Some((id, byte)));
        s.prev = self.last;
        let nid = match self.free.pop() {
            Some(n) => {
                self.tables[n] = Some(s);
                n
            }
            None => {
                self.tables.push(Some(s));
                self.tables.len() - 1
            }
        };
        self.mem += STATS_SIZE;
        if !self.make_counter(nid, next_byte, rate) {
            self.tables[nid] = None;
            self.free.push(nid);
            self.mem -= STATS_SIZE;
            return;
        }
        if let Some(l) = self.last {
            if let Some(t) = self.table_mut(l) {
                t.next = Some(nid);
            }
        }
        self.last = Some(nid);
        if let Some(c) = self.counter_mut(id, byte) {
            c.next_level = Some(nid);
        }
    }

    /// Measures one packet: `addr` is its source (forward) or destination
    /// (reverse) address.
    fn update(&mut self, p: &mut Packet, addr: u32, val: u32, forward: bool, ewma: bool, now: u32) {
        let which = usize::from(!forward);
        let mut id = 0usize;
        let mut shift = 24u32;
        let mut byte;
        loop {
            byte = (addr >> shift) as u8;
            if self.counter_mut(id, byte).is_none() && !self.make_counter(id, byte, Ewma::new(now))
            {
                return;
            }
            let Some(c) = self.counter_mut(id, byte) else {
                return;
            };
            if ewma {
                c.rate.update(val, which, now);
            }
            match c.next_level {
                Some(n) if shift > 0 => {
                    id = n;
                    shift -= 8;
                }
                _ => break,
            }
        }
        let Some(c) = self.counter_mut(id, byte) else {
            return;
        };
        let (fwd, rev) = (c.rate.rate(0), c.rate.rate(1));
        let (anno_this, rate) = (c.anno_this, c.rate);
        if self.anno {
            p.anno_mut().set_u32_at(FWD_RATE_ANNO, fwd as u32);
            p.anno_mut().set_u32_at(REV_RATE_ANNO, rev as u32);
        }
        if anno_this < now
            && (fwd >= self.thresh || rev >= self.thresh)
            && shift > 0
            && (self.memmax == 0 || self.mem + COUNTER_SIZE + STATS_SIZE <= self.memmax)
        {
            let next_byte = (addr >> (shift - 8)) as u8;
            self.open_level(id, byte, next_byte, rate);
        }
        let last = *self.prev_fold.get_or_insert(now);
        if now.wrapping_sub(last) >= FREQ {
            self.fold(self.thresh, now);
            self.prev_fold = Some(now);
        }
    }

    /// Folds tables whose parent's scaled averages are under `thresh`.
    fn fold(&mut self, thresh: i32, now: u32) {
        let forward = random_range(0, 1) != 0;
        let memmax = if self.memmax != 0 {
            self.memmax
        } else {
            (self.mem as f32 * 0.9) as u64
        };
        let mut s = if forward { self.first } else { self.last };
        while let Some(id) = s {
            let Some(t) = self.table(id) else {
                break;
            };
            let (parent, prev, next) = (t.parent, t.prev, t.next);
            let step = if forward { next } else { prev };
            let Some((pid, byte)) = parent else {
                s = step;
                continue;
            };
            let low = match self.counter_mut(pid, byte) {
                Some(c) => {
                    c.rate.update(0, 0, now);
                    c.rate.scaled(0) < thresh && c.rate.scaled(1) < thresh
                }
                None => false,
            };
            if !low {
                s = step;
                continue;
            }
            let (prev, next) = self.delete_table(id);
            if self.mem < memmax {
                break;
            }
            s = if forward { next } else { prev };
        }
    }

    /// Folds with growing thresholds until the memory in use fits.
    fn forced_fold(&mut self, now: u32) {
        let mut step = ((self.thresh as f32) / 5.0) as i32;
        step = step.max(1);
        let mut thresh = self.thresh;
        while self.mem > self.memmax && (self.first != Some(0) || self.last != Some(0)) {
            let before = self.mem;
            self.fold(thresh, now);
            if thresh == i32::MAX {
                break;
            }
            if self.mem == before {
                // Nothing was under this threshold: grow faster.
                step = step.saturating_mul(2);
            }
            thresh = thresh.saturating_add(step);
        }
    }

    fn print(&mut self, id: usize, prefix: &str, now: u32, out: &mut String) {
        for i in 0..=255u8 {
            let Some(c) = self.counter_mut(id, i) else {
                continue;
            };
            if c.rate.scaled(1) <= 0 && c.rate.scaled(0) <= 0 {
                continue;
            }
            let this = if prefix.is_empty() {
                i.to_string()
            } else {
                format!("{prefix}.{i}")
            };
            c.rate.update(0, 0, now);
            out.push_str(&this);
            out.push('\t');
            out.push_str(&c.rate.unparse_rate(0));
            out.push('\t');
            out.push_str(&c.rate.unparse_rate(1));
            out.push('\n');
            if let Some(n) = c.next_level {
                self.print(n, &format!("\t{this}"), now, out);
            }
        }
    }

    fn set_anno_level(&mut self, addr: u32, mut level: u32, when: u32) {
        let mut id = 0usize;
        for shift in [24u32, 16, 8, 0] {
            let byte = (addr >> shift) as u8;
            let Some(c) = self.counter_mut(id, byte) else {
                return;
            };
            if level == 0 {
                c.anno_this = when;
                if let Some(n) = c.next_level {
                    self.delete_table(n);
                }
                return;
            }
            let Some(n) = c.next_level else {
                return;
            };
            id = n;
            level -= 1;
        }
    }

    fn measure(&mut self, p: &mut Packet, port: usize, now: u32) {
        let Some(h) = p.ip_header().and_then(|h| h.first_chunk::<20>()) else {
            self.unmeasured += 1;
            return;
        };
        let forward = port == 0;
        // Twenty bytes: the fixed header's accessors stay inside them.
        let ip = Ipv4Packet::new_unchecked(&h[..]);
        let len = u32::from(ip.total_len());
        let src = u32::from(ip.src_addr());
        let dst = u32::from(ip.dst_addr());
        let val = if self.count_packets { 1 } else { len };
        let ewma = ((random() >> 5) & 0xffff) <= self.ratio;
        let addr = if forward { src } else { dst };
        self.update(p, addr, val, forward, ewma, now);
    }
}

impl Element for IPRateMonitor {
    fn class_name(&self) -> &'static str {
        "IPRateMonitor"
    }
    fn port_count(&self) -> &'static str {
        "1-2/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/a"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut kind = Word(String::new());
        let mut ratio = 0u32;
        let mut thresh = 0i32;
        let mut memory = 0u64;
        let mut anno = true;
        Args::new(conf)
            .read_mp("TYPE", &mut kind)
            .read_mp_with("RATIO", &mut ratio, |s| parse_real2(s, 16))
            .read_mp("THRESH", &mut thresh)
            .read_p("MEMORY", &mut memory)
            .read_p("ANNO", &mut anno)
            .complete()
            .map_err(|e| e.to_string())?;
        self.count_packets = match kind.0.to_ascii_uppercase().as_str() {
            "PACKETS" => true,
            "BYTES" => false,
            _ => return Err("monitor type should be \"PACKETS\" or \"BYTES\"".into()),
        };
        if memory != 0 && memory < MEMMAX_MIN {
            memory = MEMMAX_MIN;
        }
        self.memmax = memory.saturating_mul(1024);
        if ratio > 1 << 16 {
            return Err("ratio must be between 0 and 1".into());
        }
        self.ratio = ratio;
        self.anno = anno;
        // As Click: the product is taken unsigned, 32 bits.
        self.thresh = ((thresh as u32).wrapping_mul(ratio) >> 16) as i32;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.clear();
        self.reset_epoch = epoch(cx.now());
        Ok(())
    }
    fn push(&mut self, port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        let now = epoch(cx.now());
        for p in batch.iter_mut() {
            self.measure(p, port, now);
        }
        cx.push(port, batch);
    }
    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(port, max);
        if !batch.is_empty() {
            let now = epoch(cx.now());
            for p in batch.iter_mut() {
                self.measure(p, port, now);
            }
        }
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Look) => {
                let now = epoch(cx.now());
                let mut out = format!("{}\n", now.wrapping_sub(self.reset_epoch));
                if self.table(0).is_some() {
                    self.print(0, "", now, &mut out);
                }
                out
            }
            Some(H::Thresh) => self.thresh.to_string(),
            Some(H::Mem) => self.mem.to_string(),
            Some(H::MemMax) => self.memmax.to_string(),
            Some(H::Unmeasured) => self.unmeasured.to_string(),
            Some(H::AnnoLevel | H::Reset) | None => String::new(),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let now = epoch(cx.now());
        match H::from_id(id) {
            Some(H::Reset) => {
                self.clear();
                self.reset_epoch = now;
            }
            Some(H::MemMax) => {
                let args = split_args(value);
                let [a] = args.as_slice() else {
                    return Err("expecting 1 integer".into());
                };
                let mut kb: i32 = a.trim().parse().map_err(|_| "not an integer")?;
                if kb != 0 && kb < MEMMAX_MIN as i32 {
                    kb = MEMMAX_MIN as i32;
                }
                self.memmax = i64::from(kb.wrapping_mul(1024)) as u64;
                if self.memmax != 0 && self.mem > self.memmax {
                    self.forced_fold(now);
                }
            }
            Some(H::AnnoLevel) => {
                let args = split_args(value);
                let [a, l, w] = args.as_slice() else {
                    return Err("expecting 3 arguments".into());
                };
                let addr: Ipv4Addr = parse_ip_addr(a).map_err(|_| "not an IP address")?;
                let level = l
                    .trim()
                    .parse::<i32>()
                    .ok()
                    .filter(|l| (0..4).contains(l))
                    .ok_or("2nd argument specifies a level, between 0 and 3, to annotate")?;
                let when = w
                    .trim()
                    .parse::<i32>()
                    .ok()
                    .filter(|&w| w >= 1)
                    .ok_or("3rd argument specifies when this rule expires, must be > 0")?;
                let until = (when as u32).wrapping_mul(FREQ).wrapping_add(now);
                self.set_anno_level(u32::from(addr), level as u32, until);
            }
            Some(H::Thresh | H::Look | H::Mem | H::Unmeasured) | None => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    fn monitor(thresh: i32) -> IPRateMonitor {
        let mut m = IPRateMonitor {
            thresh,
            ..IPRateMonitor::default()
        };
        m.clear();
        m
    }

    fn packet(src: [u8; 4]) -> Packet {
        let mut d = vec![0u8; 20];
        d[0] = 0x45;
        d[3] = 20;
        d[12..16].copy_from_slice(&src);
        let mut p = Packet::from_slice(&d);
        p.set_network_header(0, 20);
        p
    }

    fn feed(m: &mut IPRateMonitor, src: [u8; 4], now: u32) -> Packet {
        let mut p = packet(src);
        m.measure(&mut p, 0, now);
        p
    }

    fn look(m: &mut IPRateMonitor, now: u32) -> String {
        let mut out = String::new();
        m.print(0, "", now, &mut out);
        out
    }

    /// As the reference: with THRESH 0 each packet opens one more level;
    /// four tables and four counters are 8480 bytes.
    #[test]
    fn thresh_zero_opens_a_level_a_packet() {
        let mut m = monitor(0);
        for n in 1..=5u64 {
            feed(&mut m, [116, 44, 32, 97], 7);
            let tables = (n + 1).min(4);
            assert_eq!(m.mem, tables * (STATS_SIZE + COUNTER_SIZE), "{n}");
        }
        assert_eq!(m.mem, 8480);
        // Nothing averaged yet: the epoch has not closed.
        assert_eq!(look(&mut m, 7), "");
    }

    /// The averages: 10 packets in one epoch, read one epoch later, are
    /// (10 << 10 + 16) >> 5 scaled, 320.5 a epoch... a second as Click
    /// prints it; subclusters indented.
    #[test]
    fn look_prints_rates_by_level() {
        let mut m = monitor(0);
        for _ in 0..10 {
            feed(&mut m, [116, 44, 32, 97], 100);
        }
        feed(&mut m, [116, 44, 32, 97], 101);
        let avg = ((10u32 << 10) + 16) >> 5;
        let rate = unparse_real2(u64::from(avg * FREQ), SCALE);
        assert_eq!(rate, "39.0625");
        let out = look(&mut m, 101);
        // Every level saw the eleven packets but the deeper ones were
        // opened later, from their parent's average at that time.
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("116\t{rate}\t0"));
        assert!(lines[1].starts_with("\t116.44\t"), "{out}");
        assert!(lines.iter().all(|l| !l.contains("116.44.32.97.")), "{out}");
    }

    /// Idle epochs decay the average; 100 or more reset it.
    #[test]
    fn ewma_decays_and_resets() {
        let mut e = Ewma::new(0);
        e.update(32, 0, 0);
        e.update_time(1);
        assert_eq!(e.avg[0], ((32 << 10) + 16) >> 5);
        let one = e.avg[0];
        e.update_time(3);
        assert!(e.avg[0] < one && e.avg[0] > 0);
        e.update_time(200);
        assert_eq!(e.avg, [0, 0]);
        assert_eq!(e.rate(0), 0);
    }

    /// Annotations: the forward and reverse rates of the deepest cluster.
    #[test]
    fn annotates_rates() {
        let mut m = monitor(1_000_000);
        for _ in 0..64 {
            feed(&mut m, [10, 0, 0, 1], 5);
        }
        let p = feed(&mut m, [10, 0, 0, 1], 6);
        let fwd = p.anno().u32_at(FWD_RATE_ANNO) as i32;
        assert_eq!(fwd, ((((64u32 << 10) + 16) >> 5) as i32 * 125) >> 10);
        assert_eq!(p.anno().u32_at(REV_RATE_ANNO), 0);
        m.anno = false;
        let p = feed(&mut m, [10, 0, 0, 1], 6);
        assert_eq!(p.anno().u32_at(FWD_RATE_ANNO), 0);
    }

    /// The memory limit stops new levels; folding deletes quiet tables and
    /// their children, keeping the age list consistent.
    #[test]
    fn memory_limit_and_fold() {
        let mut m = monitor(0);
        m.memmax = STATS_SIZE * 3;
        for _ in 0..6 {
            feed(&mut m, [1, 2, 3, 4], 1);
        }
        assert!(m.mem <= m.memmax);
        assert_eq!(m.tables.iter().flatten().count(), 2);
        let mut m = monitor(0);
        for a in 0..20u8 {
            for _ in 0..4 {
                feed(&mut m, [a, a, a, a], 1);
            }
        }
        let before = m.mem;
        m.fold(1 << 20, 2000);
        assert!(m.mem < before);
        // Walk the age list both ways: same tables, each once.
        let mut fwd = vec![];
        let mut s = m.first;
        while let Some(id) = s {
            fwd.push(id);
            s = m.table(id).unwrap().next;
        }
        let mut back = vec![];
        let mut s = m.last;
        while let Some(id) = s {
            back.push(id);
            s = m.table(id).unwrap().prev;
        }
        back.reverse();
        assert_eq!(fwd, back);
        assert_eq!(fwd.len(), m.tables.iter().flatten().count());
        let counters: u64 = m
            .tables
            .iter()
            .flatten()
            .map(|t| t.counters.iter().flatten().count() as u64)
            .sum();
        assert_eq!(
            m.mem,
            fwd.len() as u64 * STATS_SIZE + counters * COUNTER_SIZE
        );
        m.memmax = 1;
        m.forced_fold(3000);
        assert_eq!(m.tables.iter().flatten().count(), 1);
    }

    /// `anno_level` closes the levels below and stops opening new ones
    /// until it expires.
    #[test]
    fn anno_level_stops_zooming() {
        let mut m = monitor(0);
        for _ in 0..4 {
            feed(&mut m, [9, 8, 7, 6], 1);
        }
        assert_eq!(m.tables.iter().flatten().count(), 4);
        m.set_anno_level(u32::from_be_bytes([9, 8, 7, 6]), 1, 50);
        assert_eq!(m.tables.iter().flatten().count(), 2);
        feed(&mut m, [9, 8, 7, 6], 2);
        assert_eq!(m.tables.iter().flatten().count(), 2);
        feed(&mut m, [9, 8, 7, 6], 60);
        assert_eq!(m.tables.iter().flatten().count(), 3);
    }

    /// Checked against the reference: arguments, THRESH scaled by RATIO
    /// (negative ones too), MEMORY in kilobytes with its minimum, errors.
    #[test]
    fn configuration() {
        let r = registry();
        for (args, thresh, memmax) in [
            ("packets, 0, 5", "0", "0"),
            ("PACKETS, 1, -3", "65533", "0"),
            ("PACKETS, 0.3333, 3000", "999", "0"),
            (
                "TYPE PACKETS, RATIO 1, THRESH 3, MEMORY 5, ANNO false",
                "3",
                "102400",
            ),
            ("BYTES, 0.5, 7, 100000000", "3", "102400000000"),
        ] {
            let b = testing::build(
                &format!("Idle -> r :: IPRateMonitor({args}) -> Idle;"),
                &r,
                true,
            )
            .unwrap();
            assert_eq!(testing::read(&b, "r.thresh"), thresh, "{args}");
            assert_eq!(testing::read(&b, "r.memmax"), memmax, "{args}");
            assert_eq!(testing::read(&b, "r.mem"), "2080", "{args}");
        }
        crate::ip::test_util::config_errors(
            &r,
            |c| format!("Idle -> IPRateMonitor({c}) -> Idle;"),
            &[
                ("PACKETS, 1.5, 1", "ratio must be between 0 and 1"),
                (
                    "FOO, 1, 1",
                    "monitor type should be \"PACKETS\" or \"BYTES\"",
                ),
                ("PACKETS, 1", "THRESH: required argument missing"),
                ("BYTES, 1, 5, 10, true, 3", "too many arguments"),
                ("PACKETS, -1, 3", "RATIO"),
                ("PACKETS, 1, x", "THRESH"),
                ("PACKETS, 1, 5, x", "MEMORY"),
                ("PACKETS, 1, 5, 3, x", "ANNO"),
            ],
        );
    }

    /// Handlers through a router: packets counted at every level, a
    /// packet without an IP header passes unmeasured, writes and their
    /// errors as the reference words them.
    #[test]
    fn handlers() {
        let r = testing::run(
            "InfiniteSource(LIMIT 5, STOP true) -> MarkIPHeader(14) -> m :: IPRateMonitor(PACKETS, 1, 0) -> Discard;
             InfiniteSource(LIMIT 2, STOP true) -> m2 :: IPRateMonitor(BYTES, 1, 0) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "m.mem"), "8480");
        assert_eq!(testing::read(&r, "m2.unmeasured"), "2");
        assert_eq!(testing::read(&r, "c.count"), "2");
        let look = testing::read(&r, "m.look");
        assert!(look.starts_with(|c: char| c.is_ascii_digit()), "{look:?}");
        for (h, v, e) in [
            ("m.memmax", "1, 2", "expecting 1 integer"),
            ("m.memmax", "x", "not an integer"),
            ("m.memmax", "1 2", "not an integer"),
            ("m.anno_level", "1.2.3.4 1 1", "expecting 3 arguments"),
            ("m.anno_level", "x, 1, 1", "not an IP address"),
            (
                "m.anno_level",
                "1.2.3.4, 4, 1",
                "2nd argument specifies a level, between 0 and 3, to annotate",
            ),
            (
                "m.anno_level",
                "1.2.3.4, 1, 0",
                "3rd argument specifies when this rule expires, must be > 0",
            ),
        ] {
            assert_eq!(r.write_handler(h, v).unwrap_err(), e, "{h} {v}");
        }
        r.write_handler("m.memmax", "5").unwrap();
        assert_eq!(testing::read(&r, "m.memmax"), "102400");
        r.write_handler("m.anno_level", "116.44.32.97, 0, 10")
            .unwrap();
        assert_eq!(testing::read(&r, "m.mem"), "2120");
        r.write_handler("m.reset", "").unwrap();
        assert_eq!(testing::read(&r, "m.mem"), "2080");
    }
}
