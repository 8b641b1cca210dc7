//! What every IP route table element shares (Click's IPRouteTable): the
//! route syntax `ADDR/MASK [GW] OUT`, the `add`, `set`, `remove`, `ctrl`,
//! `table` and `lookup` handlers, and the push path. Each lookup class
//! says in its own file what is its own (a [`LookupClass`]: its name, its
//! lookup structure, whether routes change at run time, its no-route
//! message); the lookup structure is a [`RouteEngine`]: the linear
//! [`Linear`](super::linear_ip_lookup::Linear) or sorted
//! [`Sorted`](super::sorted_ip_lookup::Sorted) scan, the DIR-24-8
//! [`Dir248`](super::dir248::Dir248), or the DXR [`Dxr`](super::dxr::Dxr).
//!
//! Handler writes run with the element locked, exactly like a push, so a
//! routing daemon's updates and the packet path never see each other half
//! done; updates are incremental, so they stay cheap while packets flow.

use std::net::Ipv4Addr;

use rclick_core::args::{parse_ip_prefix_with, ArgContext, FromArg};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

/// One route: packets to `addr/mask` go to output `port`, with their
/// destination annotation set to `gw` unless it is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Network address (host order), host bits cleared.
    pub addr: u32,
    /// Netmask (host order).
    pub mask: u32,
    /// Gateway (host order); 0 for none.
    pub gw: u32,
    /// Output port; -1 in a `remove` request means "any".
    pub port: i32,
}

impl Route {
    /// The prefix length, if the mask is contiguous.
    pub fn prefix_len(&self) -> Option<u32> {
        let len = self.mask.leading_ones();
        let m = if len == 0 { 0 } else { u32::MAX << (32 - len) };
        (m == self.mask).then_some(len)
    }

    /// Whether `self` (a request) matches the stored route `r`: same prefix,
    /// and same gateway and output unless the request's output is negative.
    pub fn matches(&self, r: &Route) -> bool {
        self.addr == r.addr
            && self.mask == r.mask
            && (self.port < 0 || (self.gw == r.gw && self.port == r.port))
    }

    /// Whether this route's prefix contains address `a`.
    #[inline]
    pub fn contains(&self, a: u32) -> bool {
        a & self.mask == self.addr
    }

    fn addr_text(&self) -> String {
        let a = Ipv4Addr::from(self.addr);
        match self.prefix_len() {
            Some(l) => format!("{a}/{l}"),
            None => format!("{a}/{}", Ipv4Addr::from(self.mask)),
        }
    }

    /// Click's `IPRoute::unparse`: `ADDR/MASK GW OUT`, `-` for no gateway,
    /// tab-aligned columns when `tabs`.
    pub fn unparse(&self, tabs: bool) -> String {
        let sep = if tabs { '\t' } else { ' ' };
        let mut s = self.addr_text();
        s.push(sep);
        if tabs && s.len() < 17 {
            s.push('\t');
        }
        let l = s.len();
        if self.gw != 0 {
            s.push_str(&Ipv4Addr::from(self.gw).to_string());
        } else {
            s.push('-');
        }
        s.push(sep);
        if tabs && s.len() < l + 9 {
            s.push('\t');
        }
        s.push_str(&self.port.to_string());
        s
    }
}

/// Why an add failed.
#[derive(Debug)]
pub enum AddError {
    /// A route for that exact prefix exists (and replacing was not asked).
    Exists(Route),
    /// Anything else, as a message.
    Other(String),
}

/// A lookup structure.
pub trait RouteEngine: Default + Send + 'static {
    /// Whether only contiguous masks are supported.
    fn needs_prefix_masks(&self) -> bool {
        false
    }
    /// Adds `r`; replaces an existing route for that prefix if `set`
    /// (returning it), else fails with [`AddError::Exists`].
    fn add(&mut self, r: &Route, set: bool) -> Result<Option<Route>, AddError>;
    /// Removes the route matching `r` ([`Route::matches`]); on failure
    /// returns the route stored for that prefix, if any.
    fn remove(&mut self, r: &Route) -> Result<Route, Option<Route>>;
    /// Longest-prefix lookup of `addr` (host order): (gateway, output).
    fn lookup(&self, addr: u32) -> Option<(u32, i32)>;
    /// The routes, in table order.
    fn routes(&self) -> Vec<Route>;
    /// Starts (`true`) or ends (`false`) a batch of updates. Inside a
    /// batch an engine may defer work on its lookup structure until the
    /// batch ends, so lookups are only meaningful outside one.
    fn batch(&mut self, _on: bool) {}
    /// Bytes used, for engines that count them: (the structures the packet
    /// path reads, everything including update bookkeeping).
    fn memory(&self) -> Option<(usize, usize)> {
        None
    }
}

/// The output noted for a packet without a route.
const NO_ROUTE: u32 = u32::MAX;

/// Looks `p`'s destination annotation up: on a route to one of the `n`
/// outputs, sets the annotation to the route's gateway (if it has one) and
/// returns the output; otherwise leaves `p` unchanged.
#[inline]
fn route_one<E: RouteEngine>(engine: &E, p: &mut Packet, n: usize) -> Option<u32> {
    let found = engine.lookup(u32::from(p.dst_ip_anno()));
    take_route(found, p, n)
}

/// [`route_one`] for a look-up already done: `found` is the engine's
/// answer for `p`'s destination annotation.
#[inline]
fn take_route(found: Option<(u32, i32)>, p: &mut Packet, n: usize) -> Option<u32> {
    match found {
        Some((gw, port)) if port >= 0 && (port as usize) < n => {
            if gw != 0 {
                p.set_dst_ip_anno(Ipv4Addr::from(gw));
            }
            Some(port as u32)
        }
        _ => None,
    }
}

/// The prefix of a route argument. As Click's `IPPrefixArg(allow_bare)`,
/// an address (or a name known as an address, `eth0`) means a /32 before a
/// name is taken as a prefix.
fn route_prefix(word: &str, ctx: &dyn ArgContext) -> Option<(u32, u32)> {
    if !word.contains('/') {
        if let Ok(a) = Ipv4Addr::from_arg(word, ctx) {
            return Some((u32::from(a), u32::MAX));
        }
    }
    let p = parse_ip_prefix_with(word, true, ctx).ok()?;
    Some((u32::from(p.addr), u32::from(p.mask)))
}

fn parse_port(word: &str) -> Option<i32> {
    let w = word.strip_prefix('+').unwrap_or(word);
    if w.is_empty()
        || !w
            .trim_start_matches('-')
            .bytes()
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    w.parse().ok()
}

/// Parses `ADDR/MASK [GW] OUT` (Click's `cp_ip_route`); in a removal the
/// output may be left out (port -1).
pub fn parse_route(s: &str, removing: bool, ctx: &dyn ArgContext) -> Option<Route> {
    let mut words = s.split_ascii_whitespace();
    let (addr, mask) = route_prefix(words.next()?, ctx)?;
    let mut r = Route {
        addr: addr & mask,
        mask,
        gw: 0,
        port: -1,
    };
    let mut word = words.next();
    if let Some(w) = word {
        if w == "-" {
            word = words.next();
        } else if let Ok(gw) = Ipv4Addr::from_arg(w, ctx) {
            r.gw = u32::from(gw);
            word = words.next();
        }
    }
    match word {
        Some(w) => r.port = parse_port(w)?,
        None if removing => {}
        None => return None,
    }
    words.next().is_none().then_some(r)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Add,
    Set,
    Remove,
}

rclick_core::handlers! {
    /// Every route table's handlers; `memory` exists only for engines that
    /// count their bytes, the writes only for classes whose routes change
    /// at run time.
    enum H {
        Table = read("table").expensive(),
        Lookup = read_param("lookup"),
        Memory = read("memory"),
        Add = write("add"),
        Set = write("set"),
        Remove = write("remove"),
        Ctrl = write("ctrl"),
    }
}

/// What a route-lookup class adds to the shared table element: each
/// class implements it beside its manual.
pub trait LookupClass: Send + 'static {
    /// The class name.
    const NAME: &'static str;
    /// Whether routes may change at run time (the `add`, `set`, `remove`
    /// and `ctrl` handlers).
    const DYNAMIC: bool = true;
    /// A warning given whenever the class is configured (a deprecated
    /// class).
    const WARNING: Option<&'static str> = None;
    /// The lookup structure.
    type Engine: RouteEngine;
    /// The line logged (for the first five) when a packet to `a` has no
    /// route, in the words of the Click class that implements it; `None`
    /// when the class only counts misses.
    fn no_route_message(a: Ipv4Addr) -> Option<String>;
}

/// A route table element of lookup class `C`.
pub struct IpRouteTable<C: LookupClass> {
    pub(crate) engine: C::Engine,
    outs: Vec<PacketBatch>,
    /// Scratch: the output of each packet of the batch being pushed.
    ports: Vec<u32>,
    complaints: u32,
}

impl<C: LookupClass> Default for IpRouteTable<C> {
    fn default() -> Self {
        IpRouteTable {
            engine: C::Engine::default(),
            outs: Vec::new(),
            ports: Vec::new(),
            complaints: 0,
        }
    }
}

impl<C: LookupClass> IpRouteTable<C> {
    /// A boxed element of class `C` (what the registry creates).
    pub fn make() -> Box<dyn rclick_core::Element> {
        Box::new(Self::default())
    }

    fn check_mask(&self, r: &Route) -> Result<(), String> {
        if self.engine.needs_prefix_masks() && r.prefix_len().is_none() {
            return Err(format!(
                "route '{}': {} supports only prefix masks",
                r.unparse(false),
                C::NAME
            ));
        }
        Ok(())
    }

    /// Click's `run_command`: returns the undo record on success.
    fn run_command(
        &mut self,
        cmd: Cmd,
        text: &str,
        noutputs: usize,
        ctx: &dyn ArgContext,
    ) -> Result<(Cmd, Route), String> {
        let removing = cmd == Cmd::Remove;
        let route = parse_route(text, removing, ctx)
            .filter(|r| {
                r.port >= if removing { -1 } else { 0 } && (r.port as i64) < noutputs as i64
            })
            .ok_or_else(|| {
                if removing {
                    "expected 'ADDR/MASK [GATEWAY OUTPUT]'".to_string()
                } else {
                    "expected 'ADDR/MASK [GATEWAY] OUTPUT'".to_string()
                }
            })?;
        self.check_mask(&route)?;
        match cmd {
            Cmd::Add | Cmd::Set => match self.engine.add(&route, cmd == Cmd::Set) {
                Ok(Some(old)) => Ok((Cmd::Set, old)),
                Ok(None) => Ok((Cmd::Add, route)),
                Err(AddError::Exists(old)) => Err(format!(
                    "conflict with existing route '{}'",
                    old.unparse(false)
                )),
                Err(AddError::Other(e)) => Err(e),
            },
            Cmd::Remove => match self.engine.remove(&route) {
                Ok(old) => Ok((Cmd::Remove, old)),
                Err(_) => Err(format!("route '{}' not found", route.unparse(false))),
            },
        }
    }

    /// Click's `ctrl` handler: `add`/`set`/`remove` lines, all or nothing.
    fn ctrl(&mut self, text: &str, noutputs: usize, ctx: &dyn ArgContext) -> Result<(), String> {
        let mut undo: Vec<(Cmd, Route)> = Vec::new();
        let mut result = Ok(());
        self.engine.batch(true);
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("");
            let line = strip_c_comments(line);
            let mut it = line.trim_start().splitn(2, char::is_whitespace);
            let first = it.next().unwrap_or("");
            let rest = it.next().unwrap_or("");
            let cmd = match first {
                "" => continue,
                "add" => Cmd::Add,
                "set" => Cmd::Set,
                "remove" => Cmd::Remove,
                other => {
                    result = Err(format!("bad command '{other}'"));
                    break;
                }
            };
            match self.run_command(cmd, rest, noutputs, ctx) {
                Ok(u) => undo.push(u),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_err() {
            while let Some((cmd, r)) = undo.pop() {
                match cmd {
                    Cmd::Remove => {
                        let _ = self.engine.add(&r, false);
                    }
                    Cmd::Add => {
                        let _ = self.engine.remove(&r);
                    }
                    Cmd::Set => {
                        let _ = self.engine.add(&r, true);
                    }
                }
            }
        }
        self.engine.batch(false);
        result
    }

    fn dump(&self) -> String {
        let mut s = String::new();
        for r in self.engine.routes() {
            s.push_str(&r.unparse(true));
            s.push('\n');
        }
        s
    }

    /// The rest of `push` for a batch whose packets leave by several
    /// outputs or have no route (`ports[i]` is packet `i`'s output):
    /// complains about each unrouted packet, in order, then pushes each
    /// output's packets, in order, outputs in port order.
    #[cold]
    #[inline(never)]
    fn push_mixed(&mut self, batch: PacketBatch, ports: &[u32], cx: &mut Ctx) {
        let n = cx.noutputs();
        for (p, &port) in batch.iter().zip(ports) {
            if port == NO_ROUTE {
                self.no_route(p.dst_ip_anno(), cx);
            }
        }
        if self.outs.len() != n {
            self.outs = (0..n).map(|_| PacketBatch::new()).collect();
        }
        for (p, &port) in batch.into_iter().zip(ports) {
            if let Some(out) = self.outs.get_mut(port as usize) {
                out.push(p);
            }
        }
        for i in 0..n {
            if !self.outs[i].is_empty() {
                let b = self.outs[i].take();
                cx.push(i, b);
            }
        }
    }

    #[cold]
    fn no_route(&mut self, a: Ipv4Addr, cx: &mut Ctx) {
        self.complaints += 1;
        if self.complaints <= 5 {
            if let Some(line) = C::no_route_message(a) {
                cx.log(line);
            }
        }
    }
}

fn strip_c_comments(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains("/*") && !s.contains("//") {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('/') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("//") {
            rest = "";
            break;
        } else if let Some(t) = tail.strip_prefix("/*") {
            rest = t.find("*/").map(|j| &t[j + 2..]).unwrap_or("");
            out.push(' ');
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

impl<C: LookupClass> Element for IpRouteTable<C> {
    fn class_name(&self) -> &'static str {
        C::NAME
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn flow_code(&self) -> &'static str {
        "x/x"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let nout = cx.noutputs();
        let mut engine = C::Engine::default();
        let mut errors = Vec::new();
        engine.batch(true);
        for (i, arg) in conf.iter().enumerate() {
            match parse_route(arg, false, ctx) {
                Some(r) if r.port >= 0 && (r.port as usize) < nout => {
                    if engine.needs_prefix_masks() && r.prefix_len().is_none() {
                        errors.push(format!(
                            "argument {}: {} supports only prefix masks",
                            i + 1,
                            C::NAME
                        ));
                        continue;
                    }
                    match engine.add(&r, false) {
                        Ok(_) | Err(AddError::Exists(_)) => {}
                        Err(AddError::Other(e)) => errors.push(e),
                    }
                }
                _ => errors.push(format!(
                    "argument {} should be 'ADDR/MASK [GATEWAY] OUTPUT'",
                    i + 1
                )),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        engine.batch(false);
        self.engine = engine;
        if let Some(w) = C::WARNING {
            cx.warning(w);
        }
        Ok(())
    }

    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        // One packet (a source with BURST 1): no bookkeeping at all.
        if batch.len() == 1 {
            if let Some(p) = batch.get_mut(0) {
                match route_one(&self.engine, p, n) {
                    Some(port) => cx.push(port as usize, batch),
                    None => self.no_route(p.dst_ip_anno(), cx),
                }
                return;
            }
        }
        // Look every packet up in place, noting its output (outputs wired
        // to the same element and input count as their lowest port, so
        // that runs merge; NO_ROUTE for a packet without a route). The
        // usual batch leaves whole by one output.
        //
        // A packet to the destination of the packet before it reuses its
        // answer: every engine's look-up is a function of the address
        // alone (LinearIPLookup's cache is left as a repeated look-up
        // would leave it), and runs of one destination are common in a
        // router's input.
        //
        // Measured (callgrind, BURST 32, instructions per packet, hop
        // included): Figure 8's router, one destination, StaticIPLookup
        // 75 -> 42, RadixIPLookup 122 -> 45; random destinations
        // (d_radix_1k, where the reuse never applies) RadixIPLookup
        // 87 -> 94.
        let mut ports = std::mem::take(&mut self.ports);
        ports.clear();
        let engine = &self.engine;
        let aliases = cx.output_aliases();
        let mut differ = 0u32;
        let mut first = None;
        let mut memo: Option<(u32, Option<(u32, i32)>)> = None;
        for p in batch.iter_mut() {
            let a = u32::from(p.dst_ip_anno());
            let found = match memo {
                Some((last, found)) if last == a => found,
                _ => {
                    let found = engine.lookup(a);
                    memo = Some((a, found));
                    found
                }
            };
            let port = match take_route(found, p, n) {
                Some(port) => aliases.get(port as usize).copied().unwrap_or(port),
                None => NO_ROUTE,
            };
            let f = *first.get_or_insert(port);
            differ |= port ^ f;
            ports.push(port);
        }
        match first {
            None => {}
            Some(first) if differ == 0 && first != NO_ROUTE => cx.push(first as usize, batch),
            Some(_) => self.push_mixed(batch, &ports, cx),
        }
        self.ports = ports;
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::ALL
            .iter()
            .filter(|h| match h {
                H::Table | H::Lookup => true,
                H::Memory => self.engine.memory().is_some(),
                H::Add | H::Set | H::Remove | H::Ctrl => C::DYNAMIC,
            })
            .flat_map(|h| h.defs())
            .collect()
    }

    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Table) => Ok(self.dump()),
            Some(H::Lookup) => {
                let text = param.trim();
                let a = Ipv4Addr::from_arg(text, cx.arg_context())
                    .map_err(|_| format!("expected IP address, not '{text}'"))?;
                Ok(match self.engine.lookup(u32::from(a)) {
                    Some((gw, port)) if gw != 0 => format!("{port} {}", Ipv4Addr::from(gw)),
                    Some((_, port)) => port.to_string(),
                    None => "-1".to_string(),
                })
            }
            Some(H::Memory) => match self.engine.memory() {
                Some((lookup, total)) => Ok(format!("lookup {lookup}\ntotal {total}\n")),
                None => Err("no such handler".into()),
            },
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let n = cx.noutputs();
        let ctx = cx.arg_context();
        match H::from_id(id) {
            Some(H::Add) if C::DYNAMIC => self.run_command(Cmd::Add, value, n, ctx).map(|_| ()),
            Some(H::Set) if C::DYNAMIC => self.run_command(Cmd::Set, value, n, ctx).map(|_| ()),
            Some(H::Remove) if C::DYNAMIC => {
                self.run_command(Cmd::Remove, value, n, ctx).map(|_| ())
            }
            Some(H::Ctrl) if C::DYNAMIC => self.ctrl(value, n, ctx),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use rclick_core::args::NoContext;

    /// Batches whose packets take different outputs (two wired to one
    /// element's input, whose packets keep their order), or have no route,
    /// give what the same packets give one per batch, for each lookup
    /// class: the same packets out of each output, in order, gateways set
    /// alike, the same complaints. (Packets of different outputs that meet
    /// again further on may meet in another order: batches go out output
    /// by output.)
    #[test]
    fn mixed_batches_match_single_packets() {
        use crate::ip::test_util::{by_burst, Rng};
        let mut rng = Rng(0x0dd_ba11_cafe_f00d);
        for class in [
            "StaticIPLookup",
            "LinearIPLookup",
            "RadixIPLookup",
            "DirectIPLookup",
        ] {
            for round in 0..6 {
                let mut sources = String::new();
                for _ in 0..3 + rng.below(4) {
                    let dst = ["0a000005", "0a000105", "0a000205", "0a000305", "0b000001"]
                        [rng.below(5) as usize];
                    sources.push_str(&format!(
                        "InfiniteSource(DATA \\<45000014 00000000 40110000 0a000001 {dst}>, \
                         LIMIT {}, BURST {}) -> q;\n",
                        1 + rng.below(20),
                        1 + rng.below(5),
                    ));
                }
                let conf = format!(
                    "q :: Queue(10000); {sources}
                     q -> Unqueue(BURST {{BURST}}) -> GetIPAddress(16)
                       -> rt :: {class}(10.0.0.0/24 0, 10.0.1.0/24 1,
                                        10.0.2.0/24 10.0.0.9 2, 10.0.3.0/24 3);
                     rt[0] -> StoreIPAddress(0) -> Print(a) -> Discard;
                     rt[1] -> b :: StoreIPAddress(0) -> Print(b) -> Discard;
                     rt[2] -> b;
                     rt[3] -> StoreIPAddress(0) -> Print(d) -> Discard;
                     DriverManager(wait 1s);"
                );
                let [one, many] = by_burst(&conf, &[]);
                assert_eq!(one, many, "{class} round {round}: {conf}");
            }
        }
    }

    #[test]
    fn outputs_wired_to_one_input_share_batches_and_nothing_strays() {
        // Outputs 0 and 2 both lead to `a`; lookups behind `a` and `b`
        // count any packet that reached the wrong one.
        use rclick_core::testing;
        let r = testing::run(
            "InfiniteSource(LENGTH 64, LIMIT 6400, BURST 64, STOP true) \
             -> SetRandIPAddress(0.0.0.0/0) -> rt :: RadixIPLookup(0.0.0.0/1 0, 128.0.0.0/2 1, 192.0.0.0/2 2);
             rt[0] -> a :: Counter -> ka :: RadixIPLookup(128.0.0.0/2 0, 0.0.0.0/0 1);
             rt[1] -> b :: Counter -> kb :: RadixIPLookup(128.0.0.0/2 0, 0.0.0.0/0 1);
             rt[2] -> a;
             bad :: Counter -> Discard; ok :: Discard;
             ka[0] -> bad; ka[1] -> ok; kb[0] -> ok; kb[1] -> bad;",
            &crate::ip::test_util::registry(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let a: u64 = testing::read(&r, "a.count").parse().unwrap();
        let b: u64 = testing::read(&r, "b.count").parse().unwrap();
        assert_eq!(a + b, 6400);
        assert!(a > 4000 && b > 1000, "a={a} b={b}");
        assert_eq!(testing::read(&r, "bad.count"), "0");
    }

    #[test]
    fn parses_routes() {
        let r = parse_route("18.26/16 1.0.0.1 0", false, &NoContext).unwrap();
        assert_eq!(r.unparse(false), "18.26.0.0/16 1.0.0.1 0");
        let r = parse_route("10.0.0.1/8 2", false, &NoContext).unwrap();
        assert_eq!(r.unparse(false), "10.0.0.0/8 - 2");
        let r = parse_route("10.0.0.1 - 3", false, &NoContext).unwrap();
        assert_eq!(r.unparse(false), "10.0.0.1/32 - 3");
        assert!(parse_route("10.0.0.0/8", false, &NoContext).is_none());
        assert_eq!(
            parse_route("10.0.0.0/8", true, &NoContext).unwrap().port,
            -1
        );
        assert!(parse_route("10.0.0.0/8 1 2", false, &NoContext).is_none());
        assert!(parse_route("bogus 1", false, &NoContext).is_none());
        let r = parse_route("1.2.3.0/255.0.255.0 4", false, &NoContext).unwrap();
        assert_eq!(r.unparse(false), "1.0.3.0/255.0.255.0 - 4");
        assert_eq!(
            Route {
                addr: 0x0102_0000,
                mask: 0xffff_f000,
                gw: 0,
                port: 1
            }
            .unparse(true),
            "1.2.0.0/20\t\t-\t\t1"
        );
    }
}

/// Tests shared by the classes built on [`super::dir248::Dir248`] and
/// [`super::dxr::Dxr`].
#[cfg(test)]
mod fast_table_class_tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    fn handlers_drive_the_table(class: &str) {
        let r = testing::build(
            &format!("i :: Idle -> r :: {class}(10.0.0.0/8 1.1.1.1 0, 10.1/16 1) -> i; r[1] -> i;"),
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(r.read_handler("r.lookup", "10.1.2.3").unwrap(), "1");
        assert_eq!(r.read_handler("r.lookup", "10.2.2.3").unwrap(), "0 1.1.1.1");
        assert_eq!(r.read_handler("r.lookup", "11.2.2.3").unwrap(), "-1");
        r.write_handler("r.add", "11.0.0.0/8 1").unwrap();
        assert_eq!(r.read_handler("r.lookup", "11.2.2.3").unwrap(), "1");
        let e = r.write_handler("r.add", "11.0.0.0/8 0").unwrap_err();
        assert!(
            e.contains("conflict with existing route '11.0.0.0/8 - 1'"),
            "{e}"
        );
        assert!(r.write_handler("r.add", "11.0.0.0/8 2").is_err());
        r.write_handler("r.remove", "10.1.0.0/16").unwrap();
        assert_eq!(r.read_handler("r.lookup", "10.1.2.3").unwrap(), "0 1.1.1.1");
        assert!(r
            .write_handler("r.ctrl", "add 12.0.0.0/8 1\nadd 11.0.0.0/8 0\n")
            .is_err());
        assert_eq!(r.read_handler("r.lookup", "12.0.0.1").unwrap(), "-1");
        r.write_handler("r.ctrl", "add 12.0.0.0/8 1\nset 11.0.0.0/8 0\n")
            .unwrap();
        assert_eq!(r.read_handler("r.lookup", "12.0.0.1").unwrap(), "1");
        assert_eq!(r.read_handler("r.lookup", "11.0.0.1").unwrap(), "0");
        let t = r.read_handler("r.table", "").unwrap();
        assert_eq!(t.lines().count(), 3, "{t}");
        let m = r.read_handler("r.memory", "").unwrap();
        let lookup: usize = m.lines().next().unwrap()["lookup ".len()..]
            .parse()
            .unwrap();
        let total: usize = m.lines().nth(1).unwrap()["total ".len()..].parse().unwrap();
        assert!(lookup > 0 && total >= lookup, "{m}");
    }

    fn routes_packets(class: &str) {
        let r = testing::run(
            &format!(
                "InfiniteSource(LIMIT 5, STOP true) -> SetIPAddress(10.1.2.3)
                 -> r :: {class}(10.0.0.0/8 1.1.1.1 0, 10.1/16 1);
                 r[0] -> c0 :: Counter -> Discard; r[1] -> c1 :: Counter -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "5");
        assert_eq!(testing::read(&r, "c0.count"), "0");
    }

    fn bad_routes_are_errors(class: &str) {
        let e = testing::build(
            &format!("Idle -> {class}(10/8 5) -> Idle"),
            &registry(),
            true,
        )
        .unwrap_err();
        assert!(
            e.contains("argument 1 should be 'ADDR/MASK [GATEWAY] OUTPUT'"),
            "{e}"
        );
    }

    /// RadixIPLookup, DirectIPLookup and RangeIPLookup share the route
    /// handling, so they share these tests too.
    #[test]
    fn fast_table_classes() {
        for class in ["RadixIPLookup", "DirectIPLookup", "RangeIPLookup"] {
            handlers_drive_the_table(class);
            routes_packets(class);
            bad_routes_are_errors(class);
        }
    }
}
