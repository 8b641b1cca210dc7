//! # LookupIP6Route
//!
//! `LookupIP6Route(ROUTE1, ROUTE2, ...)`
//!
//! **Category:** ip6. IPv6 routing table: longest-prefix match.
//!
//! **Ports:** one input; any number of outputs (push).
//!
//! ## Description
//!
//! Each argument is a route, `DADDR/LEN [GW] OUTPUT`: packets whose
//! destination IPv6 annotation lies in the prefix DADDR/LEN (LEN 0 to 128;
//! a bare address is a /128) leave on OUTPUT, with the annotation set to GW
//! if GW is given and not `::` (the next hop, for neighbour discovery).
//! The longest matching prefix wins; a route repeating an earlier prefix
//! replaces it. A packet no route matches is dropped and counted.
//!
//! An argument `LOOKUP auto|hash|d16r` (not in Click) chooses how lookups
//! are done; `auto`, the default, takes `d16r` from 64 routes on and
//! `hash` below.
//!
//! * `hash`: one hash map per prefix length present, probed from the
//!   longest length down: at most one probe per distinct length (a handful
//!   in small tables; real IPv6 tables have dozens). Memory: 40 bytes of
//!   route (prefix, gateway, output, length) plus a hash-map entry (16-byte
//!   key and 4-byte index, at the map's load factor) per route, and a
//!   16-byte entry per distinct length.
//! * `d16r`: DXR cut at 16 bits (see `ip6/d16r.rs`): a 2^16-entry direct
//!   table indexed by an address's first 16 bits holds the answer, or
//!   where that /16's address ranges are (with a second level of 2^12
//!   slots, one per /28, for a /16 with more than 256 ranges); then a
//!   binary search over them. Cost does not depend on the number of
//!   prefix lengths. Memory: 256 KiB of direct table, plus 20 bytes per
//!   range (at most two per route), 12 bytes per /16 with more than one
//!   range and 32 KiB per second level, on top of the `hash` form's (kept
//!   for the handlers). 10,000 routes in one /16: 0.69 MB.
//!
//! ## Annotations
//!
//! Uses and sets the destination IPv6 address annotation.
//!
//! ## Handlers
//!
//! * `table` (read): the routes, one `PREFIX<tab>GW<tab>OUTPUT` line each,
//!   after the line `# Active routes`.
//! * `drops` (read): packets no route matched.
//! * `lookup` (read with parameter ADDR): the `GW<tab>OUTPUT` a packet
//!   for ADDR would get, or `-1` if none.
//! * `engine` (read): `hash N routes, L prefix lengths` or `d16r N routes,
//!   R ranges, B bytes` (B: the D16R table's size).
//!
//! ## Examples
//!
//! ```text
//! ... -> GetIP6Address(24) -> rt;
//! rt :: LookupIP6Route(2001:db8:1::/48 0, 2001:db8:2::/48 1,
//!                      ::/0 fe80::1 1);
//! ```
//!
//! ## See also
//!
//! GetIP6Address, LinearIPLookup, RadixIPLookup

use std::collections::HashMap;
use std::net::Ipv6Addr;

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::d16r::D16r;
use super::{parse_ip6, parse_ip6_prefix, prefix_mask};

/// One route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Route {
    prefix: u128,
    len: u8,
    gw: Ipv6Addr,
    out: usize,
}

/// From this many routes on, lookups go through a [`D16r`] table.
pub const D16R_MIN_ROUTES: usize = 64;

/// How lookups are done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    /// D16R from [`D16R_MIN_ROUTES`] routes on, else hash per length.
    Auto,
    Hash,
    D16r,
}

/// Routes by prefix length: for each length present (longest first), a map
/// from masked prefix to the route's index in `routes`; and, for large
/// tables, the same routes as a D16R table.
#[derive(Default)]
struct Table {
    routes: Vec<Route>,
    by_len: Vec<(u8, HashMap<u128, u32>)>,
    d16r: Option<D16r>,
}

impl Table {
    /// Builds the table (see [`Table::build`]) with lookups as `engine` says.
    fn with_engine(list: Vec<Route>, engine: Engine) -> Table {
        let mut t = Table::build(list);
        let fast = match engine {
            Engine::Auto => t.routes.len() >= D16R_MIN_ROUTES,
            Engine::Hash => false,
            Engine::D16r => true,
        };
        if fast {
            let v: Vec<(u128, u8, u32)> = t
                .routes
                .iter()
                .enumerate()
                .map(|(i, r)| (r.prefix, r.len, i as u32))
                .collect();
            t.d16r = Some(D16r::new(&v));
        }
        t
    }

    /// Builds the hash tables; a repeated prefix replaces the earlier route.
    fn build(list: Vec<Route>) -> Table {
        let mut t = Table::default();
        for r in list {
            if let Some(i) = t.find(r.prefix, r.len) {
                t.routes[i] = r;
                continue;
            }
            let idx = t.routes.len() as u32;
            t.routes.push(r);
            match t.by_len.binary_search_by(|(l, _)| r.len.cmp(l)) {
                Ok(k) => {
                    t.by_len[k].1.insert(r.prefix, idx);
                }
                Err(k) => t
                    .by_len
                    .insert(k, (r.len, HashMap::from([(r.prefix, idx)]))),
            }
        }
        t
    }

    /// The index of the route for exactly `prefix/len`.
    fn find(&self, prefix: u128, len: u8) -> Option<usize> {
        let (_, m) = self.by_len.iter().find(|(l, _)| *l == len)?;
        m.get(&prefix).map(|&i| i as usize)
    }

    /// Longest-prefix match.
    #[inline]
    fn lookup(&self, a: Ipv6Addr) -> Option<&Route> {
        let a = u128::from(a);
        if let Some(d) = &self.d16r {
            return self.routes.get(d.lookup(a) as usize);
        }
        self.by_len.iter().find_map(|(len, m)| {
            m.get(&(a & prefix_mask(*len)))
                .map(|&i| &self.routes[i as usize])
        })
    }
}

/// The LookupIP6Route element.
#[derive(Default)]
pub struct LookupIP6Route {
    table: Table,
    drops: u64,
    /// Each packet's output, for the batch being pushed.
    outs: Vec<usize>,
}

/// Parses one route, `DADDR/LEN [GW] OUTPUT`.
fn parse_route(s: &str) -> Result<Route, String> {
    let words: Vec<&str> = s.split_whitespace().collect();
    let (dst, gw, out) = match words[..] {
        [d, o] => (d, None, o),
        [d, g, o] => (d, Some(g), o),
        _ => return Err(String::new()),
    };
    let (prefix, len) = parse_ip6_prefix(dst)?;
    let gw = gw
        .map(parse_ip6)
        .transpose()?
        .unwrap_or(Ipv6Addr::UNSPECIFIED);
    let out = out
        .parse::<usize>()
        .map_err(|_| format!("expected output number, not '{out}'"))?;
    Ok(Route {
        prefix: u128::from(prefix),
        len,
        gw,
        out,
    })
}

rclick_core::handlers! {
    /// LookupIP6Route's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Drops = read("drops"),
        Lookup = read_param("lookup"),
        Engine = read("engine"),
    }
}

impl Element for LookupIP6Route {
    fn class_name(&self) -> &'static str {
        "LookupIP6Route"
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut routes = Vec::new();
        let mut errors = Vec::new();
        let mut engine = Engine::Auto;
        for (i, a) in conf.iter().enumerate() {
            if a.trim().is_empty() {
                continue;
            }
            if let Some(w) = a.trim().strip_prefix("LOOKUP ") {
                engine = match w.trim() {
                    "auto" => Engine::Auto,
                    "hash" => Engine::Hash,
                    "d16r" => Engine::D16r,
                    other => {
                        errors.push(format!(
                            "LOOKUP: expected auto, hash or d16r, not '{other}'"
                        ));
                        continue;
                    }
                };
                continue;
            }
            match parse_route(a) {
                Ok(r) => routes.push(r),
                Err(e) if e.is_empty() => errors.push(format!(
                    "argument {} should be DADDR/MASK [GW] OUTPUT",
                    i + 1
                )),
                Err(e) => errors.push(format!("argument {}: {e}", i + 1)),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        if let Some(max) = routes.iter().map(|r| r.out).max() {
            if max >= cx.noutputs() {
                return Err(format!("need {} or more output ports", max + 1));
            }
        }
        self.table = Table::with_engine(routes, engine);
        Ok(())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        // One lookup per packet: the gateway is written and the output
        // kept, then the batch is split by the kept outputs.
        let outs = &mut self.outs;
        outs.clear();
        for p in batch.iter_mut() {
            match self.table.lookup(p.dst_ip6_anno()) {
                Some(r) => {
                    if !r.gw.is_unspecified() {
                        p.set_dst_ip6_anno(r.gw);
                    }
                    outs.push(r.out);
                }
                None => outs.push(n),
            }
        }
        let mut it = outs.iter();
        let mut parts = batch.split_by(n + 1, |_| it.next().copied().unwrap_or(n));
        if let Some(missed) = parts.pop() {
            self.drops += missed.len() as u64;
        }
        for (out, b) in parts.into_iter().enumerate() {
            if !b.is_empty() {
                cx.push(out, b);
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(h) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(match h {
            H::Table => {
                let mut s = String::from("# Active routes\n");
                for r in &self.table.routes {
                    s.push_str(&format!(
                        "{}/{}\t{}\t{}\n",
                        Ipv6Addr::from(r.prefix),
                        r.len,
                        r.gw,
                        r.out
                    ));
                }
                s
            }
            H::Drops => self.drops.to_string(),
            H::Engine => match &self.table.d16r {
                Some(d) => format!(
                    "d16r {} routes, {} ranges, {} bytes",
                    self.table.routes.len(),
                    d.ranges(),
                    d.memory()
                ),
                None => format!(
                    "hash {} routes, {} prefix lengths",
                    self.table.routes.len(),
                    self.table.by_len.len()
                ),
            },
            H::Lookup => match self.table.lookup(parse_ip6(param)?) {
                Some(r) => format!("{}\t{}", r.gw, r.out),
                None => "-1".to_string(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ip::test_util::{config_errors, registry, Rng};
    use crate::ip6::test_util::{ip6_hex, run_log};
    use rclick_core::testing;

    fn route(s: &str) -> Route {
        parse_route(s).unwrap()
    }

    /// The careful form: every route compared, the longest match kept.
    fn linear(routes: &[Route], a: Ipv6Addr) -> Option<Route> {
        let a = u128::from(a);
        let mut best: Option<Route> = None;
        for r in routes {
            if a & prefix_mask(r.len) == r.prefix && best.is_none_or(|b| r.len > b.len) {
                best = Some(*r);
            }
        }
        best
    }

    /// Random tables and addresses near their prefixes: the per-length
    /// maps agree with a linear longest-prefix match.
    #[test]
    fn agrees_with_linear_search() {
        let mut rng = Rng(0x1b6_7a0b_1e5e_ed01);
        for _ in 0..50 {
            let mut routes = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for i in 0..1 + rng.below(40) {
                let len = [0u8, 16, 32, 48, 56, 64, 127, 128][rng.below(8) as usize];
                let base = 0x2001_0db8u128 << 96
                    | u128::from(rng.below(8)) << 80
                    | u128::from(rng.below(4)) << 64
                    | u128::from(rng.below(3));
                let prefix = base & prefix_mask(len);
                if seen.insert((prefix, len)) {
                    routes.push(Route {
                        prefix,
                        len,
                        gw: Ipv6Addr::UNSPECIFIED,
                        out: i as usize,
                    });
                }
            }
            let t = Table::with_engine(routes.clone(), Engine::Hash);
            let d = Table::with_engine(routes.clone(), Engine::D16r);
            assert!(t.d16r.is_none() && d.d16r.is_some());
            for _ in 0..200 {
                let a = 0x2001_0db8u128 << 96
                    | u128::from(rng.below(8)) << 80
                    | u128::from(rng.below(4)) << 64
                    | u128::from(rng.below(4));
                let a = Ipv6Addr::from(a ^ u128::from(rng.below(2)) << 100);
                assert_eq!(t.lookup(a).copied(), linear(&routes, a), "{a}");
                assert_eq!(d.lookup(a).copied(), linear(&routes, a), "{a}");
            }
        }
    }

    /// `LOOKUP` chooses the engine (auto: D16R from 64 routes on); both
    /// route packets alike, and `engine` says which is used.
    #[test]
    fn engines_and_lookup_keyword() {
        let routes: String = (0..70)
            .map(|i| format!("2001:db8:{i:x}::/48 {}, ", i % 2))
            .collect();
        let d = ip6_hex("2001:db8::1", "2001:db8:45::2", 17, 64, &[]);
        for (engine, want) in [
            ("", "d16r 71 routes, "),
            ("LOOKUP hash, ", "hash 71 routes, 2 prefix lengths"),
        ] {
            let conf = format!(
                "InfiniteSource(DATA \\<{d}>, LIMIT 3, STOP true) -> GetIP6Address(24)
                   -> rt :: LookupIP6Route({engine}{routes}::/0 2);
                 rt[0] -> c0 :: Counter -> Discard; rt[1] -> c1 :: Counter -> Discard;
                 rt[2] -> c2 :: Counter -> Discard;"
            );
            let r = testing::run(&conf, &registry()).unwrap();
            let e = testing::read(&r, "rt.engine");
            assert!(e.starts_with(want), "{e}");
            assert_eq!(testing::read(&r, "c1.count"), "3", "{engine}");
            assert_eq!(r.read_handler("rt.lookup", "2001:db9::").unwrap(), "::\t2");
        }
        let r = testing::build(
            "Idle -> rt :: LookupIP6Route(LOOKUP d16r, ::/0 0) -> Discard",
            &registry(),
            true,
        )
        .unwrap();
        let e = testing::read(&r, "rt.engine");
        assert_eq!(e, "d16r 1 routes, 0 ranges, 262144 bytes");
        config_errors(
            &registry(),
            |a| format!("Idle -> LookupIP6Route({a}) -> Discard"),
            &[("LOOKUP frob, ::/0 0", "LOOKUP: expected auto, hash or d16r")],
        );
    }

    #[test]
    fn repeated_prefix_replaces() {
        for engine in [Engine::Hash, Engine::D16r] {
            let t = Table::with_engine(
                vec![route("2001:db8::/32 0"), route("2001:db8::1/32 fe80::1 2")],
                engine,
            );
            assert_eq!(t.routes.len(), 1);
            let r = t.lookup("2001:db8::9".parse().unwrap()).unwrap();
            assert_eq!((r.out, r.gw.to_string().as_str()), (2, "fe80::1"));
        }
    }

    /// Compared with the reference Click: the /48 wins over the /32 and
    /// ::/0, the gateway replaces the annotation, misses are dropped, and
    /// the table handler prints the routes in order.
    #[test]
    fn matches_reference() {
        let d = ip6_hex("2001:db8::1", "2001:db8:1::2", 17, 64, &[]);
        let conf = format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP false) -> GetIP6Address(24)
               -> rt :: LookupIP6Route(2001:db8::/32 ::0 0, 2001:db8:1::/48 fe80::1 1,
                                       ::0/0 fe80::9 2);
             rt[0] -> Print(zero, 0) -> Discard;
             rt[1] -> Print(one, 0) -> rt2 :: LookupIP6Route(fe80::1/128 0) -> Print(gw, 0) -> Discard;
             rt[2] -> Print(two, 0) -> Discard;
             InfiniteSource(DATA \\<{d}>, LIMIT 2, STOP false) -> SetIP6Address(2001:db9::)
               -> miss :: LookupIP6Route(2001:db8::/32 0) -> Print(miss) -> Discard;
             DriverManager(wait 0.1s);"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(r.take_log(), ["one:   40", "gw:   40"]);
        assert_eq!(
            testing::read(&r, "rt.table"),
            "# Active routes\n2001:db8::/32\t::\t0\n2001:db8:1::/48\tfe80::1\t1\n::/0\tfe80::9\t2\n"
        );
        assert_eq!(testing::read(&r, "miss.drops"), "2");
        assert_eq!(testing::read(&r, "rt.drops"), "0");
        assert_eq!(
            r.read_handler("rt.lookup", "2001:db8:1::5").unwrap(),
            "fe80::1\t1"
        );
        assert_eq!(r.read_handler("rt.lookup", "3000::").unwrap(), "fe80::9\t2");
        assert_eq!(r.read_handler("miss.lookup", "3000::").unwrap(), "-1");
        // A batch spread over outputs keeps its order per output.
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 3, STOP true) -> GetIP6Address(8)
               -> rt :: LookupIP6Route(2001:db8::1 1, ::/0 0) -> Print(zero) -> Discard;
             rt[1] -> Print(one, 0) -> Discard;"
        ));
        assert_eq!(log, ["one:   40"; 3]);
    }

    #[test]
    fn configuration_errors() {
        config_errors(
            &registry(),
            |a| format!("Idle -> rt :: LookupIP6Route({a}) -> Discard"),
            &[
                (
                    "2001:db8:: ffff:ffff:: ::0 0",
                    "argument 1 should be DADDR/MASK [GW] OUTPUT",
                ),
                ("2001:db8::/32 ::0 3", "need 4 or more output ports"),
                ("2001:db8::/129 0", "prefix length"),
                ("10.0.0.0/8 0", "expected IPv6 address"),
                ("::/0 x", "expected output number"),
                ("::/0 1.2.3.4 0", "expected IPv6 address"),
            ],
        );
    }
}
