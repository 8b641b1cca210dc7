//! # ARPResponder
//!
//! `ARPResponder(IP/MASK1 [IP/MASK...] ETH1, IP/MASK2 ETH2, ...)`
//!
//! **Category:** arp. Generates responses to ARP queries.
//!
//! **Ports:** one input, one or two outputs, agnostic (output 1 push).
//!
//! ## Description
//!
//! Input packets are Ethernet ARP queries. For a query whose target IP
//! address matches an entry, ARPResponder emits an ARP reply on output 0
//! saying that the address is at that entry's Ethernet address, and drops
//! the query. Other packets (not ARP queries, or for unknown addresses) go
//! to output 1 if it exists, else are dropped.
//!
//! Each argument is a space-separated list of IP addresses or prefixes
//! followed (or preceded) by exactly one Ethernet address; every address
//! and prefix of the argument maps to it. A prefix (`18.26.4.0/24`) gives
//! proxy ARP for the whole range. Names from AddressInfo work: `eth0`
//! means `eth0`'s IP address (/32) and its Ethernet address, `eth0:ipnet`
//! its prefix. When entries overlap, the most specific wins; when two
//! entries have the same prefix, the later one wins (a configuration
//! with both draws a warning).
//!
//! ## Annotations
//!
//! Replies get the query's VLAN TCI annotation.
//!
//! ## Handlers
//!
//! * `table` (read): the entries, one `IP/MASK ETH` a line, most specific
//!   first.
//! * `lookup` (read with parameter IP): the Ethernet address answered for
//!   IP, or nothing.
//! * `add` (write): adds entries, with an argument's syntax.
//! * `remove` (write, `IP/MASK`): removes an entry.
//!
//! ## Examples
//!
//! ```text
//! ARPResponder(18.26.4.24 00:00:C0:AE:67:EF,
//!              18.26.7.0/24 00:00:C0:AE:67:EF)
//! ```
//!
//! ## See also
//!
//! ARPQuerier, ARPFaker, AddressInfo

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::net::Ipv4Addr;

use rclick_core::args::{parse_ip_prefix_with, ArgContext, EtherAddr, FromArg, IpPrefix};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::two_outputs::{pull_split, push_split};
use rclick_packet::DEFAULT_HEADROOM;
use rclick_wire::{ArpOperation, ArpPacket, ArpRepr, EtherType, EthernetAddress, EthernetFrame};

use super::eth_dash;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    dst: u32,
    mask: u32,
    eth: [u8; 6],
}

/// The ARPResponder element.
#[derive(Default)]
pub struct ArpResponder {
    v: Vec<Entry>,
    pending_warnings: Vec<String>,
}

/// An IP address or prefix, Click's `IPPrefixArg(true)`: a lone address
/// (or name) means /32.
fn parse_prefix(w: &str, ctx: &dyn ArgContext) -> Option<(u32, u32)> {
    if !w.contains('/') {
        if let Ok(a) = Ipv4Addr::from_arg(w, ctx) {
            return Some((u32::from(a), u32::MAX));
        }
    }
    parse_ip_prefix_with(w, true, ctx)
        .ok()
        .map(|p: IpPrefix| (u32::from(p.addr), u32::from(p.mask)))
}

/// Parses one argument into `v`.
fn add(v: &mut Vec<Entry>, arg: &str, ctx: &dyn ArgContext) -> Result<(), String> {
    let words = rclick_core::confparse::split_space(arg);
    let mut new = Vec::new();
    let mut eth: Option<[u8; 6]> = None;
    for w in &words {
        if let Some((a, m)) = parse_prefix(w, ctx) {
            new.push((a & m, m));
        } else if let Ok(e) = EtherAddr::from_arg(w, ctx) {
            if eth.is_some() {
                return Err("more than one ETH".into());
            }
            eth = Some(e.0);
        } else {
            return Err("expected IP/MASK ETH".into());
        }
    }
    // A word may be both an IP address and an Ethernet address (a name).
    if eth.is_none() {
        eth = words
            .iter()
            .find_map(|w| EtherAddr::from_arg(w, ctx).ok().map(|e| e.0));
    }
    if new.is_empty() {
        return Err("missing IP/MASK".into());
    }
    let Some(eth) = eth else {
        return Err("missing ETH".into());
    };
    v.extend(new.into_iter().map(|(dst, mask)| Entry { dst, mask, eth }));
    Ok(())
}

/// Click's order: more specific prefixes first; for equal prefixes the
/// later entry first; otherwise original order.
fn order(v: &[Entry], a: usize, b: usize) -> Ordering {
    let (ea, eb) = (&v[a], &v[b]);
    if ea.dst == eb.dst && ea.mask == eb.mask {
        b.cmp(&a)
    } else if ea.dst & eb.mask == eb.dst {
        Ordering::Less
    } else if eb.dst & ea.mask == ea.dst {
        Ordering::Greater
    } else {
        a.cmp(&b)
    }
}

/// Sorts (insertion sort: the order is not total, so no std sort) and
/// removes duplicates, keeping the later; returns the duplicates' names.
fn normalize(v: &mut Vec<Entry>) -> Vec<String> {
    let mut idx: Vec<usize> = Vec::with_capacity(v.len());
    for i in 0..v.len() {
        let mut pos = idx.len();
        while pos > 0 && order(v, i, idx[pos - 1]) == Ordering::Less {
            pos -= 1;
        }
        idx.insert(pos, i);
    }
    let mut out: Vec<Entry> = Vec::with_capacity(v.len());
    let mut dups = Vec::new();
    for i in idx {
        let e = v[i];
        match out.last() {
            Some(l) if l.dst == e.dst && l.mask == e.mask => {
                dups.push(unparse_prefix(e.dst, e.mask))
            }
            _ => out.push(e),
        }
    }
    *v = out;
    dups
}

fn unparse_prefix(dst: u32, mask: u32) -> String {
    IpPrefix {
        addr: Ipv4Addr::from(dst),
        mask: Ipv4Addr::from(mask),
    }
    .to_string()
}

impl ArpResponder {
    fn lookup(&self, ip: Ipv4Addr) -> Option<[u8; 6]> {
        let a = u32::from(ip);
        self.v.iter().find(|e| a & e.mask == e.dst).map(|e| e.eth)
    }

    fn parse_all(
        conf: &[String],
        ctx: &dyn ArgContext,
    ) -> Result<(Vec<Entry>, Vec<String>), String> {
        let mut v = Vec::new();
        let mut errs = Vec::new();
        for (i, arg) in conf.iter().enumerate() {
            if let Err(e) = add(&mut v, arg, ctx) {
                errs.push(format!("argument {i}: {e}"));
            }
        }
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        let dups = normalize(&mut v);
        Ok((v, dups))
    }

    fn respond(&self, p: &Packet) -> Option<Packet> {
        let d = p.data();
        if d.len() < 42 {
            return None;
        }
        let eth = EthernetFrame::new_unchecked(d);
        let req = ArpPacket::new_unchecked(eth.payload());
        if eth.ethertype() != EtherType::ARP
            || req.hardware_type() != 1
            || req.protocol_type() != EtherType::IPV4
            || req.operation() != ArpOperation::REQUEST
        {
            return None;
        }
        let tpa = req.target_protocol_addr();
        let me = EthernetAddress(self.lookup(tpa)?);
        let them = req.sender_hardware_addr();
        let mut buf = [0u8; 42];
        let mut reply = EthernetFrame::new_unchecked(&mut buf[..]);
        reply.set_dst_addr(them);
        reply.set_src_addr(me);
        reply.set_ethertype(EtherType::ARP);
        ArpRepr {
            operation: ArpOperation::REPLY,
            source_hardware_addr: me,
            source_protocol_addr: tpa,
            target_hardware_addr: them,
            target_protocol_addr: req.sender_protocol_addr(),
        }
        .emit(&mut ArpPacket::new_unchecked(reply.payload_mut()));
        let mut q = Packet::make(DEFAULT_HEADROOM, &buf, 0);
        q.set_mac_header_len(0, 14);
        q.set_vlan_tci_anno(p.vlan_tci_anno());
        Some(q)
    }
}

rclick_core::handlers! {
    /// ARPResponder's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Lookup = read_param("lookup"),
        Add = write("add"),
        Remove = write("remove"),
    }
}

impl Element for ArpResponder {
    fn class_name(&self) -> &'static str {
        "ARPResponder"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let (v, dups) = Self::parse_all(conf, cx.arg_context())?;
        self.v = v;
        self.pending_warnings = dups
            .into_iter()
            .map(|d| format!("multiple entries for {d}"))
            .collect();
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn reconfigured(&mut self, cx: &mut Ctx) {
        for w in std::mem::take(&mut self.pending_warnings) {
            cx.log(format!("  warning: {w}"));
        }
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_split(batch, cx, |p| self.respond(&p).ok_or(p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_split(max, cx, |p| self.respond(&p).ok_or(p))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Table) => {
                let mut s = String::new();
                for e in &self.v {
                    let _ = writeln!(s, "{} {}", unparse_prefix(e.dst, e.mask), eth_dash(&e.eth));
                }
                Ok(s)
            }
            Some(H::Lookup) => {
                let a = Ipv4Addr::from_arg(param.trim(), cx.arg_context())
                    .map_err(|_| "expected IP address".to_string())?;
                Ok(self.lookup(a).map(|e| eth_dash(&e)).unwrap_or_default())
            }
            _ => Err("handler not readable".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Add) => {
                let mut v = self.v.clone();
                add(&mut v, value, cx.arg_context())?;
                normalize(&mut v);
                self.v = v;
                Ok(())
            }
            Some(H::Remove) => {
                let (a, m) =
                    parse_prefix(value.trim(), cx.arg_context()).ok_or("expected IP/MASK")?;
                let dst = a & m;
                match self.v.iter().position(|e| e.dst == dst && e.mask == m) {
                    Some(i) => {
                        self.v.remove(i);
                        Ok(())
                    }
                    None => Err(format!("{} not found", unparse_prefix(dst, m))),
                }
            }
            _ => Err("handler not writable".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ether::test_util::{hex, registry};
    use rclick_core::args::NoContext;
    use rclick_core::testing;

    fn query(sha: [u8; 6], spa: [u8; 4], tpa: [u8; 4]) -> Vec<u8> {
        let mut b = vec![0xff; 6];
        b.extend_from_slice(&sha);
        b.extend_from_slice(&[8, 6, 0, 1, 8, 0, 6, 4, 0, 1]);
        b.extend_from_slice(&sha);
        b.extend_from_slice(&spa);
        b.extend_from_slice(&[0; 6]);
        b.extend_from_slice(&tpa);
        b
    }

    #[test]
    fn ordering_and_duplicates() {
        let ctx = NoContext;
        let mut v = Vec::new();
        add(&mut v, "1.0.0.0/24 0:1:2:3:4:6", &ctx).unwrap();
        add(&mut v, "1.0.0.2 0:1:2:3:4:5", &ctx).unwrap();
        add(&mut v, "1.0.0.2/32 0:1:2:3:4:7", &ctx).unwrap();
        let dups = normalize(&mut v);
        assert_eq!(dups, vec!["1.0.0.2/32"]);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].eth, [0, 1, 2, 3, 4, 7]);
        assert_eq!(add(&mut v, "1.0.0.1", &ctx), Err("missing ETH".into()));
        assert_eq!(
            add(&mut v, "0:1:2:3:4:5", &ctx),
            Err("missing IP/MASK".into())
        );
        assert_eq!(
            add(&mut v, "1.0.0.1 0:1:2:3:4:5 0:1:2:3:4:6", &ctx),
            Err("more than one ETH".into())
        );
        assert_eq!(
            add(&mut v, "junk", &ctx),
            Err("expected IP/MASK ETH".into())
        );
    }

    #[test]
    fn answers_queries() {
        let q = query([2, 0, 0, 0, 0, 9], [1, 0, 0, 9], [2, 1, 0, 1]);
        let miss = query([2, 0, 0, 0, 0, 9], [1, 0, 0, 9], [3, 1, 0, 1]);
        let cfg = format!(
            "InfiniteSource(\\<{}>, LIMIT 1, STOP true) -> a :: ARPResponder(2.0/16 2:1:1:1:1:0, 2.1/16 2:1:1:1:1:1) -> Print(r, MAXLENGTH 64) -> Discard;
             InfiniteSource(\\<{}>, LIMIT 1, STOP true) -> a; a[1] -> c :: Counter -> Discard;",
            hex(&q),
            hex(&miss)
        );
        let r = testing::run(&cfg, &registry()).unwrap();
        assert_eq!(
            r.take_log(),
            vec!["r:   42 | 02000000 00090201 01010101 08060001 08000604 00020201 01010101 02010001 02000000 00090100 0009"]
        );
        assert_eq!(testing::read(&r, "c.count"), "1");
        assert_eq!(
            r.read_handler("a.lookup", "2.0.3.4").unwrap(),
            "02-01-01-01-01-00"
        );
        assert_eq!(r.read_handler("a.lookup", "9.0.3.4").unwrap(), "");
        r.write_handler("a.remove", "2.0.0.0/16").unwrap();
        assert!(r.write_handler("a.remove", "2.0.0.0/16").is_err());
        r.write_handler("a.add", "9.0.0.0/8 2:2:2:2:2:2").unwrap();
        assert_eq!(
            testing::read(&r, "a.table"),
            "2.1.0.0/16 02-01-01-01-01-01\n9.0.0.0/8 02-02-02-02-02-02\n"
        );
    }
}
