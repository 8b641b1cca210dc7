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
//! Lookup: the routes are kept in one hash map per prefix length present,
//! probed from the longest length down, so a lookup costs at most one
//! hash probe per distinct prefix length in the table (a handful in real
//! IPv6 tables: /128, /64, /48, /32, /0), not one comparison per route.
//! Memory: 40 bytes of route (prefix, gateway, output, length) plus a
//! hash-map entry (16-byte key and 4-byte index, at the map's load
//! factor) per route, and a 16-byte entry per distinct length.
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

use super::{parse_ip6, parse_ip6_prefix, prefix_mask};

/// One route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Route {
    prefix: u128,
    len: u8,
    gw: Ipv6Addr,
    out: usize,
}

/// Routes by prefix length: for each length present (longest first), a map
/// from masked prefix to the route's index in `routes`.
#[derive(Default)]
struct Table {
    routes: Vec<Route>,
    by_len: Vec<(u8, HashMap<u128, u32>)>,
}

impl Table {
    /// Builds the table; a repeated prefix replaces the earlier route.
    fn new(list: Vec<Route>) -> Table {
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
        for (i, a) in conf.iter().enumerate() {
            if a.trim().is_empty() {
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
        self.table = Table::new(routes);
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        let table = &self.table;
        let mut parts = batch.split_by(n + 1, |p| {
            table.lookup(p.dst_ip6_anno()).map_or(n, |r| r.out)
        });
        if let Some(missed) = parts.pop() {
            self.drops += missed.len() as u64;
        }
        for (out, mut b) in parts.into_iter().enumerate() {
            if b.is_empty() {
                continue;
            }
            for p in b.iter_mut() {
                if let Some(r) = self.table.lookup(p.dst_ip6_anno()) {
                    if !r.gw.is_unspecified() {
                        p.set_dst_ip6_anno(r.gw);
                    }
                }
            }
            cx.push(out, b);
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::read("table", 0),
            HandlerDef::read("drops", 1),
            HandlerDef::read_param("lookup", 2),
        ]
    }
    fn read_handler(&mut self, id: u32, param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match id {
            0 => {
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
            1 => self.drops.to_string(),
            _ => match self.table.lookup(parse_ip6(param)?) {
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
            let t = Table::new(routes.clone());
            for _ in 0..200 {
                let a = 0x2001_0db8u128 << 96
                    | u128::from(rng.below(8)) << 80
                    | u128::from(rng.below(4)) << 64
                    | u128::from(rng.below(4));
                let a = Ipv6Addr::from(a ^ u128::from(rng.below(2)) << 100);
                assert_eq!(t.lookup(a).copied(), linear(&routes, a), "{a}");
            }
        }
    }

    #[test]
    fn repeated_prefix_replaces() {
        let t = Table::new(vec![
            route("2001:db8::/32 0"),
            route("2001:db8::1/32 fe80::1 2"),
        ]);
        assert_eq!(t.routes.len(), 1);
        let r = t.lookup("2001:db8::9".parse().unwrap()).unwrap();
        assert_eq!((r.out, r.gw.to_string().as_str()), (2, "fe80::1"));
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
