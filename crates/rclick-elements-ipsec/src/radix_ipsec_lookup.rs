//! # RadixIPsecLookup
//!
//! `RadixIPsecLookup(ADDR/MASK [GW] OUT [SPI], ...)`
//!
//! **Category:** ipsec. IP route lookup that sends traffic into IPsec
//! tunnels.
//!
//! **Ports:** one input, any number of outputs, push.
//!
//! ## Description
//!
//! Looks up each packet's destination address annotation in its routing
//! table (longest prefix match), sets the annotation to the route's
//! gateway GW when it has one, and sends the packet to the route's output
//! OUT. A route with an SPI leads into a tunnel: the SPI goes into the
//! packet's SPI annotation for IPsecESPEncap, and GW is the tunnel's far
//! end (IPsecEncap's destination). The SPI must name an SA of the SATable.
//!
//! Output 0 is special, as in Click: it is for packets addressed to the
//! router itself. ESP packets (protocol 50) that go there must carry the
//! SPI of an SA in the SATable, otherwise they are dropped
//! (`unknown_spi`); packets of any other protocol go to output 2 instead
//! when there is one (Click's "to the host" output).
//!
//! Click's routes into tunnels name Click's legacy SA inline (`SPI
//! ENC_KEY AUTH_KEY REPLAY OOSIZE`, DES or AES-CBC with HMAC-SHA1); here a
//! route names only the SPI, and the SA, with a modern AEAD cipher, is in
//! the SATable. The table is a hash table per prefix length, probed from
//! the longest length present; routes need contiguous masks.
//!
//! Packets with no route are dropped (`no_route`), as are ESP packets for
//! the router too short to hold an SPI (`truncated`).
//!
//! ## Annotations
//!
//! Uses the destination address annotation and the IP header annotation;
//! sets the destination annotation (to GW) and the SPI annotation (user
//! bytes 32-35, Click's `IPSEC_SPI_ANNO`).
//!
//! ## Handlers
//!
//! * `table` (read): the routes, one a line.
//! * `lookup` (read with an address parameter): the output, gateway and SPI
//!   for an address.
//! * `add`, `set` (write): add a route (an error if the prefix has one), or
//!   add or replace one.
//! * `remove` (write): remove the route of `ADDR/MASK`.
//! * `drops`, `drop_details` (read): packets dropped, by reason.
//!
//! ## Examples
//!
//! ```text
//! rt :: RadixIPsecLookup(192.0.2.1/32 0,            // the gateway itself
//!                        198.51.100.0/24 1,          // the local LAN
//!                        203.0.113.0/24 192.0.2.2 2 0x1001);  // the tunnel
//! ```
//!
//! ## See also
//!
//! SATable, IPsecESPEncap, IPsecESPUnencap, RadixIPLookup

use std::collections::HashMap;
use std::fmt::Write;
use std::net::Ipv4Addr;
use std::sync::Arc;

use rclick_core::args::{parse_ip_prefix_with, FromArg};
use rclick_core::drops::Drops;
use rclick_core::router::InitCx;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use rclick_wire::esp::EspPacket;
use rclick_wire::ipv4::Ipv4Packet;

use crate::sa::{parse_spi, SaDb};
use crate::SPI_ANNO;

rclick_core::drop_reasons! {
    /// Why RadixIPsecLookup drops (`drop_details`).
    enum Why {
        NoRoute = "no_route",
        UnknownSpi = "unknown_spi",
        Truncated = "truncated",
    }
}

rclick_core::handlers! {
    /// RadixIPsecLookup's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Lookup = read_param("lookup"),
        Add = write("add"),
        Set = write("set"),
        Remove = write("remove"),
        Drops = read("drops"),
        DropDetails = read("drop_details"),
    }
}

/// One route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The network (host bits cleared).
    pub addr: u32,
    /// The prefix length.
    pub len: u8,
    /// The gateway, if any.
    pub gw: Option<Ipv4Addr>,
    /// The output.
    pub port: usize,
    /// The tunnel's SPI (0: not a tunnel).
    pub spi: u32,
}

fn mask(len: u8) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(len))
    }
}

/// Parses `ADDR/MASK [GW] OUT [SPI]` (for `remove`, `ADDR/MASK` alone).
fn parse_route(
    s: &str,
    remove: bool,
    ctx: &dyn rclick_core::args::ArgContext,
) -> Result<Route, String> {
    let words = rclick_core::confparse::split_space(s);
    let bad = || "expected 'ADDR/MASK [GATEWAY] OUTPUT [SPI]'".to_string();
    let first = words.first().ok_or_else(bad)?;
    let pfx = parse_ip_prefix_with(first, true, ctx).map_err(|_| bad())?;
    let len = pfx.prefix_len().ok_or("non-contiguous netmask")?;
    let addr = u32::from(pfx.addr) & mask(len);
    let mut rest = &words[1..];
    let mut gw = None;
    if let Some(w) = rest.first() {
        if w == "-" {
            rest = &rest[1..];
        } else if w.contains('.')
            || ctx
                .lookup_address(w, rclick_core::args::AddrKind::Ip)
                .is_some()
        {
            if let Ok(a) = Ipv4Addr::from_arg(w, ctx) {
                gw = Some(a);
                rest = &rest[1..];
            }
        }
    }
    if remove && rest.is_empty() {
        return Ok(Route {
            addr,
            len,
            gw,
            port: 0,
            spi: 0,
        });
    }
    let port = rest
        .first()
        .and_then(|w| w.parse::<usize>().ok())
        .ok_or_else(bad)?;
    let spi = match &rest[1..] {
        [] => 0,
        [spi] => parse_spi(spi)?,
        [_, _, _, _, _] => {
            return Err("Click's inline SAs (SPI ENC_KEY AUTH_KEY REPLAY OOSIZE) are not supported: put the SA in an SATable and give its SPI".into())
        }
        _ => return Err(bad()),
    };
    Ok(Route {
        addr,
        len,
        gw,
        port,
        spi,
    })
}

impl Route {
    /// Click's `IPsecRoute::unparse` with tabs: a second tab after a
    /// prefix shorter than 16 characters and after a gateway shorter than
    /// 8, so the columns line up.
    fn unparse(&self) -> String {
        let mut s = format!("{}/{}\t", Ipv4Addr::from(self.addr), self.len);
        if s.len() < 17 {
            s.push('\t');
        }
        let l = s.len();
        match self.gw {
            Some(g) => {
                let _ = write!(s, "{g}\t");
            }
            None => s.push_str("-\t"),
        }
        if s.len() < l + 9 {
            s.push('\t');
        }
        let _ = write!(s, "{}", self.port);
        if self.spi != 0 {
            let _ = write!(s, "\tspi {:#x}", self.spi);
        }
        s
    }
}

/// The RadixIPsecLookup element.
#[derive(Default)]
pub struct RadixIPsecLookup {
    routes: Vec<Route>,
    /// Per prefix length, network → index into `routes`.
    by_len: Vec<(u8, HashMap<u32, usize>)>,
    db: Option<Arc<SaDb>>,
    drops: Drops<Why>,
}

impl RadixIPsecLookup {
    fn rebuild(&mut self) {
        let mut m: HashMap<u8, HashMap<u32, usize>> = HashMap::new();
        for (i, r) in self.routes.iter().enumerate() {
            m.entry(r.len).or_default().insert(r.addr, i);
        }
        let mut v: Vec<_> = m.into_iter().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.0));
        self.by_len = v;
    }

    /// The route for `a`.
    pub fn lookup(&self, a: Ipv4Addr) -> Option<&Route> {
        let a = u32::from(a);
        for (len, m) in &self.by_len {
            if let Some(&i) = m.get(&(a & mask(*len))) {
                return self.routes.get(i);
            }
        }
        None
    }

    fn add(&mut self, r: Route, replace: bool, noutputs: usize) -> Result<(), String> {
        if r.port >= noutputs {
            return Err(format!("output {} out of range", r.port));
        }
        if r.spi != 0 {
            if let Some(db) = &self.db {
                if db.get(r.spi).is_none() {
                    return Err(format!("SPI {:#x}: no such SA in the SATable", r.spi));
                }
            }
        }
        if let Some(i) = self
            .routes
            .iter()
            .position(|x| x.addr == r.addr && x.len == r.len)
        {
            if !replace {
                return Err(format!(
                    "conflict with existing route '{}'",
                    self.routes[i].unparse()
                ));
            }
            self.routes[i] = r;
        } else {
            self.routes.push(r);
        }
        self.rebuild();
        Ok(())
    }

    /// Where one packet goes, or the drop reason.
    #[inline]
    fn route(&self, p: &mut Packet, noutputs: usize) -> Result<usize, Why> {
        let r = self.lookup(p.dst_ip_anno()).ok_or(Why::NoRoute)?;
        let mut port = r.port;
        if let Some(g) = r.gw {
            p.set_dst_ip_anno(g);
        }
        if r.spi != 0 {
            p.set_anno_u32(SPI_ANNO, r.spi);
        }
        if port == 0 {
            // The IP header: the annotation's, else the data's start.
            let (proto, off) = match (p.ip_header(), p.ip_header_offset()) {
                (Some(h), Some(off)) if h.len() >= 20 && off >= 0 => (
                    Ipv4Packet::new_unchecked(h).protocol().0,
                    off as usize + p.ip_header_len(),
                ),
                _ => match Ipv4Packet::new_checked(p.data()) {
                    Ok(h) => (h.protocol().0, usize::from(h.header_len())),
                    Err(_) => (0, 0),
                },
            };
            if proto == 50 {
                let esp = p
                    .data()
                    .get(off..)
                    .and_then(|d| EspPacket::new_checked(d).ok())
                    .ok_or(Why::Truncated)?;
                if let Some(db) = &self.db {
                    if db.get(esp.spi()).is_none() {
                        return Err(Why::UnknownSpi);
                    }
                }
            } else if noutputs > 2 {
                port = 2;
            }
        }
        Ok(port)
    }
}

impl Element for RadixIPsecLookup {
    fn class_name(&self) -> &'static str {
        "RadixIPsecLookup"
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let n = cx.noutputs();
        let mut routes = Vec::new();
        let mut errors = Vec::new();
        for (i, a) in conf.iter().enumerate() {
            if a.trim().is_empty() {
                continue;
            }
            match parse_route(a, false, cx.arg_context()) {
                Ok(r) if r.port < n => routes.push(r),
                Ok(r) => errors.push(format!(
                    "argument {}: output {} out of range",
                    i + 1,
                    r.port
                )),
                Err(e) => errors.push(format!("argument {}: {e}", i + 1)),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        self.routes.clear();
        for r in routes {
            self.add(r, true, n)?;
        }
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        match crate::find_table("", cx) {
            Ok(db) => {
                for r in &self.routes {
                    if r.spi != 0 && db.get(r.spi).is_none() {
                        return Err(format!(
                            "route '{}': SPI {:#x}: no such SA in the SATable",
                            r.unparse(),
                            r.spi
                        ));
                    }
                }
                self.db = Some(db);
            }
            Err(e) => {
                if self.routes.iter().any(|r| r.spi != 0) {
                    return Err(e);
                }
            }
        }
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        let mut outs: Vec<PacketBatch> = (0..n).map(|_| PacketBatch::new()).collect();
        for mut p in batch {
            match self.route(&mut p, n) {
                Ok(port) => outs[port].push(p),
                Err(r) => crate::count_drop(&mut self.drops, r, cx),
            }
        }
        for (i, b) in outs.into_iter().enumerate() {
            if !b.is_empty() {
                cx.push(i, b);
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Table) => Ok(self.routes.iter().map(|r| r.unparse() + "\n").collect()),
            Some(H::Lookup) => {
                let a = Ipv4Addr::from_arg(param.trim(), cx.arg_context())
                    .map_err(|_| format!("expected IP address, not '{param}'"))?;
                Ok(match self.lookup(a) {
                    None => "-1".into(),
                    Some(r) => {
                        let mut s = r.port.to_string();
                        if let Some(g) = r.gw {
                            let _ = write!(s, " {g}");
                        }
                        if r.spi != 0 {
                            let _ = write!(s, " {:#x}", r.spi);
                        }
                        s
                    }
                })
            }
            Some(H::Drops) => Ok(self.drops.total().to_string()),
            Some(H::DropDetails) => Ok(self.drops.details()),
            Some(H::Add | H::Set | H::Remove) | None => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let v = rclick_core::confparse::uncomment(value);
        let h = H::from_id(id);
        let r = parse_route(v.trim(), h == Some(H::Remove), cx.arg_context())?;
        match h {
            Some(H::Add) => self.add(r, false, cx.noutputs()),
            Some(H::Set) => self.add(r, true, cx.noutputs()),
            Some(H::Remove) => {
                let i = self
                    .routes
                    .iter()
                    .position(|x| x.addr == r.addr && x.len == r.len)
                    .ok_or_else(|| format!("route '{}' not found", v.trim()))?;
                self.routes.remove(i);
                self.rebuild();
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{ip_hex, registry};
    use rclick_core::testing;

    const K: &str = "0x0102030405060708090a0b0c0d0e0f1011121314";

    #[test]
    fn routes_and_handlers() {
        let conf = format!(
            "SATable(0x1001 aes-gcm {K});
             Idle -> rt :: RadixIPsecLookup(192.0.2.1/32 0, 198.51.100.0/24 1,
                 203.0.113.0/24 192.0.2.2 3 0x1001, 0.0.0.0/0 198.51.100.254 1);
             rt[0] -> Discard; rt[1] -> Discard; rt[2] -> Discard; rt[3] -> Discard;"
        );
        let r = testing::build(&conf, &registry(), true).unwrap();
        let look = |a: &str| r.read_handler("rt.lookup", a).unwrap();
        assert_eq!(look("192.0.2.1"), "0");
        assert_eq!(look("198.51.100.77"), "1");
        assert_eq!(look("203.0.113.9"), "3 192.0.2.2 0x1001");
        assert_eq!(look("8.8.8.8"), "1 198.51.100.254");
        let t = testing::read(&r, "rt.table");
        assert!(
            t.contains("203.0.113.0/24\t\t192.0.2.2\t3\tspi 0x1001"),
            "{t}"
        );
        // Click's layout (clickdiff against the reference, without SPIs).
        assert!(
            t.starts_with("192.0.2.1/32\t\t-\t\t0\n198.51.100.0/24\t\t-\t\t1\n"),
            "{t}"
        );
        r.write_handler("rt.add", "203.0.113.128/25 2").unwrap();
        assert_eq!(look("203.0.113.200"), "2");
        assert!(r.write_handler("rt.add", "203.0.113.128/25 1").is_err());
        r.write_handler("rt.set", "203.0.113.128/25 1").unwrap();
        assert_eq!(look("203.0.113.200"), "1");
        r.write_handler("rt.remove", "203.0.113.128/25").unwrap();
        assert_eq!(look("203.0.113.200"), "3 192.0.2.2 0x1001");
        assert!(r.write_handler("rt.add", "10.0.0.0/8 7").is_err());
        assert!(r.write_handler("rt.add", "10.0.0.0/8 1 0x7777").is_err());
        assert!(r.write_handler("rt.remove", "10.0.0.0/8").is_err());
    }

    #[test]
    fn configuration_errors() {
        for (routes, want) in [
            ("1.0.0.0/8 5", "out of range"),
            ("1.0.0.0/255.0.255.0 0", "non-contiguous"),
            ("1.0.0.0/8 2.0.0.1 1 0x4444", "no such SA"),
            ("1.0.0.0/8 2.0.0.1 1 234 \\<ABCDEFFF001DEFD2354550FE40CD708E> \\<112233EE556677888877665544332211> 300 64", "inline SAs"),
            ("nonsense", "expected 'ADDR/MASK"),
        ] {
            let conf = format!(
                "SATable(0x1001 aes-gcm {K}); Idle -> rt :: RadixIPsecLookup({routes}); rt[0] -> Discard; rt[1] -> Discard;"
            );
            match testing::build(&conf, &registry(), true) {
                Ok(_) => panic!("{routes}: accepted"),
                Err(e) => assert!(e.contains(want), "{routes}: {e}"),
            }
        }
    }

    /// Output 0 takes ESP with a known SPI; other protocols go to output 2;
    /// unknown SPIs and packets without a route are dropped and counted;
    /// tunnel routes set the SPI annotation and the gateway.
    #[test]
    fn local_and_tunnel_traffic() {
        let udp = ip_hex([198, 51, 100, 2], [192, 0, 2, 1], 8);
        let esp = |spi: &str| {
            let mut h = ip_hex([192, 0, 2, 2], [192, 0, 2, 1], 40);
            // protocol 50 (the checksum is not checked here), SPI at 20.
            h.replace_range(2 + 18..2 + 20, "32");
            h.replace_range(2 + 40..2 + 48, spi);
            h
        };
        let conf = format!(
            "SATable(0x1001 aes-gcm {K});
             rt :: RadixIPsecLookup(192.0.2.1/32 0, 198.51.100.0/24 1, 203.0.113.0/24 192.0.2.2 3 0x1001);
             InfiniteSource(DATA {udp}, LIMIT 2) -> m :: MarkIPHeader -> GetIPAddress(16) -> rt;
             InfiniteSource(DATA {good}, LIMIT 3) -> m;
             InfiniteSource(DATA {bad}, LIMIT 4) -> m;
             InfiniteSource(DATA {tun}, LIMIT 5) -> m;
             InfiniteSource(DATA {none}, LIMIT 6, STOP true) -> m;
             rt[0] -> c0 :: Counter -> Discard; rt[1] -> c1 :: Counter -> Discard;
             rt[2] -> c2 :: Counter -> Discard;
             rt[3] -> c3 :: Counter -> IPsecESPEncap -> IPsecEncap(esp, SRC 192.0.2.1) -> IPPrint(t) -> Discard;",
            good = esp("00001001"),
            bad = esp("00002002"),
            tun = ip_hex([198, 51, 100, 2], [203, 0, 113, 7], 8),
            none = ip_hex([198, 51, 100, 2], [10, 0, 0, 1], 8),
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "c0.count"), "3");
        assert_eq!(testing::read(&r, "c2.count"), "2");
        assert_eq!(testing::read(&r, "c3.count"), "5");
        assert_eq!(testing::read(&r, "c1.count"), "0");
        let d = testing::read(&r, "rt.drop_details");
        assert!(d.contains("6\tno_route"), "{d}");
        assert!(d.contains("4\tunknown_spi"), "{d}");
        assert_eq!(testing::read(&r, "rt.drops"), "10");
        let log = r.take_log().join("\n");
        assert!(
            log.matches("192.0.2.1 > 192.0.2.2: ip-proto-50").count() == 5,
            "{log}"
        );
    }
}
