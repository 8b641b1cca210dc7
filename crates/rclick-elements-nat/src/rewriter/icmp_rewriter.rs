//! # ICMPRewriter
//!
//! `ICMPRewriter(MAPS [, KEYWORDS])`
//!
//! **Category:** nat. Rewrites ICMP error packets based on IP rewriter
//! mappings.
//!
//! ## Ports and processing
//!
//! One push input; one or more push outputs.
//!
//! ## Description
//!
//! Rewrites ICMP error packets (destination unreachable, time exceeded,
//! parameter problem, source quench, redirect) sent in response to packets
//! that went through a rewriter, so they look like responses to the original
//! packets: the outer destination address, the embedded IP header's
//! addresses, the embedded TCP/UDP ports or ICMP echo identifier, and all
//! affected checksums are changed. MAPS is a space-separated list of
//! IPRewriter-like elements (IPRewriter, TCPRewriter, UDPRewriter,
//! IPAddrRewriter, IPAddrPairRewriter, ICMPPingRewriter) searched in order
//! for the reply mapping. An element may be written `NAME:OFFSET`: then a
//! rewritten packet goes to output OFFSET plus the mapping's output;
//! otherwise to output 0. ICMP packets that are not errors, or have no
//! mapping, go to output 1 if it exists, else are dropped; non-ICMP packets
//! are dropped.
//!
//! Keyword arguments:
//!
//! - `DST_ANNO` (boolean, default true): set the destination IP annotation
//!   when the outer destination changes.
//! - `REPLY_ANNO` (annotation): set it from the mapping's stored reply
//!   annotation, as the rewriters do.
//!
//! ## Annotations
//!
//! Uses the IP header annotation; sets the destination IP annotation.
//!
//! ## Handlers
//!
//! - `drops` (read): packets dropped (not ICMP, or no usable IP header).
//!
//! ## Example
//!
//! ```text
//! ip :: IPRewriter(pattern 21.0.0.1 1024-65535# - - 0 0);
//! ... -> ICMPRewriter(ip) -> ...
//! ```
//!
//! ## See also
//!
//! IPRewriter, ICMPPingRewriter, IPAddrRewriter, TCPRewriter

use std::net::Ipv4Addr;

use rclick_core::args::{AnyArg, Args};
use rclick_core::router::ElementId;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch};
use rclick_wire::checksum;
use rclick_wire::icmp::{self, IcmpPacket};
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::tcp::TcpPacket;
use rclick_wire::udp::UdpPacket;

use super::base::{push_runs, Rewriter, REWRITER_CLASSES};
use super::class::{ip_info, AnnoSlot};
use super::flowset::{
    now_ms, Lookup, RwHandle, IP_PROTO_DCCP, IP_PROTO_ICMP, IP_PROTO_TCP, IP_PROTO_UDP,
};
use super::pattern::FlowId;

/// The ICMPRewriter element.
#[derive(Default)]
pub struct ICMPRewriter {
    maps: Vec<(ElementId, i64)>,
    handles: Vec<(RwHandle, i64)>,
    dst_anno: bool,
    reply_anno: Option<AnnoSlot>,
    /// Packets dropped (the `drops` handler).
    drops: u64,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Drops = read("drops"),
    }
}

fn update(csum: u16, old: &[u16], new: &[u16]) -> u16 {
    old.iter()
        .zip(new)
        .fold(csum, |c, (&o, &n)| checksum::update_u16(c, o, n))
}
fn split32(v: u32) -> [u16; 2] {
    [(v >> 16) as u16, v as u16]
}

/// What an ICMP error quotes: the flow to look up (the quoted packet's,
/// reversed), the quoted header's length and protocol, and whether its
/// ports (or echo identifier) are there to rewrite.
struct Quoted {
    search: FlowId,
    hlen: usize,
    proto: u8,
    transport: bool,
}

/// Reads the packet an ICMP error message `icmp` quotes; `None` when it is
/// no error, or quotes no IPv4 header.
fn quoted(icmp: &[u8]) -> Option<Quoted> {
    if icmp.len() < 8 + 20 || !icmp::is_error(IcmpPacket::new_unchecked(icmp).icmp_type()) {
        return None;
    }
    let enc = &icmp[8..];
    let ip = Ipv4Packet::new_unchecked(enc);
    let hlen = usize::from(ip.header_len());
    if ip.version() != 4 || hlen < 20 {
        return None;
    }
    let proto = ip.protocol().0;
    let first = ip.frag_offset() == 0;
    let mut search = FlowId::new(u32::from(ip.dst_addr()), 0, u32::from(ip.src_addr()), 0);
    let mut transport = false;
    if matches!(proto, IP_PROTO_TCP | IP_PROTO_UDP | IP_PROTO_DCCP) {
        if enc.len() >= hlen + 8 && first {
            let t = UdpPacket::new_unchecked(&enc[hlen..]);
            search.sport = t.dst_port();
            search.dport = t.src_port();
            transport = true;
        }
    } else if proto == IP_PROTO_ICMP && enc.len() >= hlen + 6 && first {
        let t = IcmpPacket::new_unchecked(&enc[hlen..]);
        if t.icmp_type() == icmp::types::ECHO {
            search.sport = t.echo_ident();
            transport = true;
        }
    }
    Some(Quoted {
        search,
        hlen,
        proto,
        transport,
    })
}

impl ICMPRewriter {
    /// Rewrites `p`; returns its output (`1` for unmapped, `-1` to drop).
    fn handle(&self, p: &mut Packet, now: i64) -> i32 {
        let Some(info) = ip_info(p) else {
            return -1;
        };
        if info.proto != IP_PROTO_ICMP {
            return -1;
        }
        let Some(ip) = p.ip_header() else { return -1 };
        // A header length past the data (behind MarkIPHeader) leaves no
        // ICMP header: unmapped, as a short one is.
        let Some(q) = quoted(ip.get(info.thoff..).unwrap_or(&[])) else {
            return 1;
        };
        let search = q.search;
        let mut found = None;
        for (h, off) in &self.handles {
            let mut set = h.lock();
            if let Some(e) = set.get_entry(h.slot, q.proto, search, Lookup::Reply, now) {
                if let Some(f) = set.flow(e.flow) {
                    found = Some((
                        f.rewritten(e.reply),
                        f.out[usize::from(e.reply)],
                        f.reply_anno,
                        e.reply,
                        *off,
                    ));
                    break;
                }
            }
        }
        let Some((nf, out, ranno, reply, off)) = found else {
            return 1;
        };
        let thoff = info.thoff;
        let mut set_dst = false;
        if let Some(ip) = p.ip_header_mut() {
            let (outer, icmp) = ip.split_at_mut(thoff);
            let mut outer = Ipv4Packet::new_unchecked(outer);
            let outer_dst = u32::from(outer.dst_addr());
            if outer_dst == search.daddr {
                let c = update(outer.checksum(), &split32(outer_dst), &split32(nf.daddr));
                outer.set_dst_addr(Ipv4Addr::from(nf.daddr));
                outer.set_checksum(c);
                set_dst = true;
            }
            let (icmp_hdr, enc) = icmp.split_at_mut(8);
            let (enc_ip, t) = enc.split_at_mut(q.hlen.min(enc.len()));
            let mut e = Ipv4Packet::new_unchecked(enc_ip);
            // the words the ICMP checksum covers that change: the quoted
            // checksum, addresses, ports (or identifier) and their checksum
            let mut old_hw = [0u16; 8];
            let mut new_hw = [0u16; 8];
            old_hw[0] = e.checksum();
            let [a, b] = split32(u32::from(e.src_addr()));
            let [c, d] = split32(u32::from(e.dst_addr()));
            old_hw[1..5].copy_from_slice(&[a, b, c, d]);
            e.set_src_addr(Ipv4Addr::from(nf.daddr));
            e.set_dst_addr(Ipv4Addr::from(nf.saddr));
            let [a, b] = split32(nf.daddr);
            let [c, d] = split32(nf.saddr);
            new_hw[1..5].copy_from_slice(&[a, b, c, d]);
            let ec = update(e.checksum(), &old_hw[1..5], &new_hw[1..5]);
            e.set_checksum(ec);
            new_hw[0] = ec;
            let mut nhw = 5;
            if q.transport {
                if matches!(q.proto, IP_PROTO_TCP | IP_PROTO_UDP | IP_PROTO_DCCP) {
                    let mut ports = UdpPacket::new_unchecked(&mut *t);
                    old_hw[5] = ports.src_port();
                    old_hw[6] = ports.dst_port();
                    ports.set_src_port(nf.dport);
                    ports.set_dst_port(nf.sport);
                    new_hw[5] = nf.dport;
                    new_hw[6] = nf.sport;
                    nhw = 7;
                    let sum = if q.proto == IP_PROTO_TCP && t.len() >= 18 {
                        let mut th = TcpPacket::new_unchecked(&mut *t);
                        let oc = th.checksum();
                        let ncs = update(oc, &old_hw[1..7], &new_hw[1..7]);
                        th.set_checksum(ncs);
                        Some((oc, ncs))
                    } else if q.proto == IP_PROTO_UDP && t.len() >= 8 {
                        let mut uh = UdpPacket::new_unchecked(&mut *t);
                        let oc = uh.checksum();
                        (oc != 0).then(|| {
                            let ncs = update(oc, &old_hw[1..7], &new_hw[1..7]);
                            uh.set_checksum(ncs);
                            (oc, ncs)
                        })
                    } else {
                        None
                    };
                    if let Some((oc, ncs)) = sum {
                        old_hw[7] = oc;
                        new_hw[7] = ncs;
                        nhw = 8;
                    }
                } else {
                    let mut echo = IcmpPacket::new_unchecked(&mut *t);
                    let oid = echo.echo_ident();
                    let oc = echo.checksum();
                    echo.set_echo_ident(nf.dport);
                    let ncs = checksum::update_u16(oc, oid, nf.dport);
                    echo.set_checksum(ncs);
                    old_hw[5] = oid;
                    new_hw[5] = nf.dport;
                    old_hw[6] = oc;
                    new_hw[6] = ncs;
                    nhw = 7;
                }
            }
            let mut h = IcmpPacket::new_unchecked(icmp_hdr);
            let c = update(h.checksum(), &old_hw[..nhw], &new_hw[..nhw]);
            h.set_checksum(c);
        }
        if set_dst && self.dst_anno {
            p.set_dst_ip_anno(Ipv4Addr::from(nf.daddr));
        }
        if reply {
            if let Some(slot) = self.reply_anno {
                slot.set(p, ranno);
            }
        }
        if off >= 0 {
            (off + i64::from(out)) as i32
        } else {
            0
        }
    }
}

impl Element for ICMPRewriter {
    fn class_name(&self) -> &'static str {
        "ICMPRewriter"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure_phase(&self) -> i32 {
        rclick_core::phase::DEFAULT + 1
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut maps = AnyArg::default();
        let mut dst_anno = true;
        let mut reply_anno: Option<AnnoSlot> = None;
        Args::new_with(conf, cx.arg_context())
            .read_mp("MAPS", &mut maps)
            .read("DST_ANNO", &mut dst_anno)
            .read_with("REPLY_ANNO", &mut reply_anno, |s| {
                AnnoSlot::parse(s).map(Some)
            })
            .complete()
            .map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for w in maps.0.split_whitespace() {
            let (name, off) = match w.split_once(':') {
                Some((n, o)) => match o.parse::<i64>() {
                    Ok(o) if o >= 0 => (n, o),
                    _ => {
                        errors.push(format!("{w} not an IP rewriter"));
                        continue;
                    }
                },
                None => (w, -1),
            };
            let Some(e) = cx.find(name) else {
                errors.push(format!("{w} not an IP rewriter"));
                continue;
            };
            if !REWRITER_CLASSES.contains(&cx.element_info(e).class.as_str()) {
                errors.push(format!("{w} not an IP rewriter"));
                continue;
            }
            let n = cx.noutputs() as i64;
            if off >= 0 && off + cx.element_info(e).outputs.len() as i64 > n {
                errors.push(format!(
                    "{w} port offset requires more than {n} {}",
                    if n == 1 { "output" } else { "outputs" }
                ));
                continue;
            }
            out.push((e, off));
        }
        // As Click: every bad word, then this line if none was good.
        if out.is_empty() {
            errors.push("no IP rewriters supplied".into());
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        self.maps = out;
        self.dst_anno = dst_anno;
        self.reply_anno = reply_anno;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.handles.clear();
        for &(e, off) in &self.maps {
            if let Some(Some(h)) =
                cx.with_element(e, |el| el.downcast_ref::<Rewriter>().map(|r| r.handle()))
            {
                self.handles.push((h, off));
            }
        }
        Ok(())
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Drops) => Ok(self.drops.to_string()),
            _ => Err("handler not readable".into()),
        }
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let now = now_ms(cx.now());
        let outputs = batch.into_iter().map(|mut p| {
            let o = self.handle(&mut p, now);
            (p, o)
        });
        let dropped = push_runs(outputs, cx);
        self.drops += dropped;
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;
    use rclick_core::testing;

    /// Click names the bad word, then says no rewriter was supplied
    /// (checked with clickdiff).
    #[test]
    fn no_rewriter_errors_like_click() {
        let e = testing::build(
            "Idle -> ir :: ICMPRewriter(nosuch) -> Discard; ir[1] -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        let bad = e.find("nosuch not an IP rewriter").expect(&e);
        let none = e.find("no IP rewriters supplied").expect(&e);
        assert!(bad < none, "{e}");
    }

    /// An ICMP unreachable from 3.3.3.3 to 10.0.0.9 quoting `inner`; the
    /// outer IP header carries 4 bytes of options (NOPs) when `opts`.
    fn icmp_error(inner: &[u8], opts: bool) -> Vec<u8> {
        let hl = if opts { 24 } else { 20 };
        let mut v = vec![0u8; hl];
        v[0] = 0x40 | (hl / 4) as u8;
        let len = (hl + 8 + inner.len()) as u16;
        v[2..4].copy_from_slice(&len.to_be_bytes());
        v[8] = 64;
        v[9] = 1;
        v[12..16].copy_from_slice(&ip(3, 3, 3, 3).to_be_bytes());
        v[16..20].copy_from_slice(&ip(10, 0, 0, 9).to_be_bytes());
        for b in &mut v[20..hl] {
            *b = 1;
        }
        v.extend_from_slice(&[3, 1, 0, 0, 0, 0, 0, 0]);
        v.extend_from_slice(inner);
        v
    }

    /// An ICMP error quoting a rewritten TCP flow goes back to the
    /// flow's origin: outer destination, quoted addresses and ports
    /// rewritten, every checksum still right; an error quoting an unknown
    /// flow goes to output 1 unchanged.
    #[test]
    fn errors_about_mapped_flows_are_rewritten_back() {
        let checksummed = |mut v: Vec<u8>| {
            let c = rclick_wire::checksum::internet_checksum(&v[..20]);
            v[10..12].copy_from_slice(&c.to_be_bytes());
            let c = rclick_wire::checksum::internet_checksum(&v[20..]);
            v[22..24].copy_from_slice(&c.to_be_bytes());
            v
        };
        let quoted = tcp(ip(10, 0, 0, 9), 5000, ip(2, 0, 0, 2), 80);
        let unknown = tcp(ip(10, 0, 0, 9), 5001, ip(2, 0, 0, 2), 80);
        let out = run_cfg(
            "src :: TestSource(KEY); sink :: TestSink(KEY);
             rw :: IPRewriter(pattern 10.0.0.9 1024-65535 - - 0 1);
             // (a free source port in the range is kept: 5000)
             irw :: ICMPRewriter(rw);
             src[0] -> rw; src[1] -> irw;
             rw[0] -> [0]sink; rw[1] -> [1]sink; irw[0] -> [2]sink; irw[1] -> [3]sink;",
            &[
                (0, tcp(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 80)),
                (1, checksummed(icmp_error(&quoted[..28], false))),
                (1, checksummed(icmp_error(&unknown[..28], false))),
            ],
        );
        assert_eq!(
            out,
            [
                (0, "10.0.0.9:5000 > 2.0.0.2:80 ok".to_string()),
                (2, "3.3.3.3 > 1.0.0.1 id 0 ok".to_string()),
                (3, "3.3.3.3 > 10.0.0.9 id 0 ok".to_string()),
            ]
        );
    }

    /// Every rewriter class fed each packet cut at every length and with
    /// each byte set to 0x00, 0x0F, 0x45 and 0xFF, marked as MarkIPHeader
    /// marks it (header length unchecked): nothing may panic.
    #[test]
    fn truncated_and_mutated_packets_never_panic() {
        let cfg = "src :: TestSource(KEY);
            rw :: IPRewriter(pattern 10.0.0.9 1024-65535 - - 0 1);
            irw :: ICMPRewriter(rw);
            trw :: TCPRewriter(pattern 10.0.0.9 1024-65535 - - 0 1);
            urw :: UDPRewriter(pattern 10.0.0.9 1024-65535 - - 0 1);
            prw :: ICMPPingRewriter(pattern 10.0.0.9 - 0-65535# 0 1);
            arw :: IPAddrRewriter(pattern 10.0.0.9 - 0 1);
            parw :: IPAddrPairRewriter(pattern 10.0.0.9 - 0 1);
            src[0] -> rw; src[1] -> irw; src[2] -> trw; src[3] -> urw;
            src[4] -> prw; src[5] -> arw; src[6] -> parw;
            rw[0] -> Discard; rw[1] -> Discard; irw[0] -> Discard; irw[1] -> Discard;
            trw[0] -> Discard; trw[1] -> Discard; urw[0] -> Discard; urw[1] -> Discard;
            prw[0] -> Discard; prw[1] -> Discard; arw[0] -> Discard; arw[1] -> Discard;
            parw[0] -> Discard; parw[1] -> Discard;";
        let flow = tcp(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 80);
        let quoted = tcp(ip(10, 0, 0, 9), 5000, ip(2, 0, 0, 2), 80);
        let quoted_udp = udp(ip(10, 0, 0, 9), 1024, ip(2, 0, 0, 2), 53);
        let quoted_ping = icmp_echo(ip(10, 0, 0, 9), ip(2, 0, 0, 2), 8, 7);
        let bases: Vec<(usize, Vec<u8>)> = vec![
            (1, icmp_error(&quoted, true)),
            (1, icmp_error(&quoted, false)),
            (1, icmp_error(&quoted_udp, true)),
            (1, icmp_error(&quoted_ping, true)),
            (
                0,
                tcp_payload(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 80, 1, b"xy"),
            ),
            (2, tcp(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 80)),
            (3, udp(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 53)),
            (4, icmp_echo(ip(1, 0, 0, 1), ip(2, 0, 0, 2), 8, 7)),
            (5, tcp(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 80)),
            (6, udp(ip(1, 0, 0, 1), 5000, ip(2, 0, 0, 2), 53)),
        ];
        let mut pkts = vec![(0, flow)];
        for (port, base) in &bases {
            for cut in 0..base.len() {
                pkts.push((*port, base[..cut].to_vec()));
            }
            for i in 0..base.len() {
                for v in [0x00, 0x0F, 0x45, 0xFF] {
                    let mut m = base.clone();
                    m[i] = v;
                    pkts.push((*port, m.clone()));
                    m.truncate(m.len() - 4);
                    pkts.push((*port, m));
                }
            }
        }
        let n = pkts.len();
        let key = seed(pkts);
        // Every output counted: packets in = packets out + `drops`.
        let mut cfg = cfg.to_string();
        for rw in ["rw", "irw", "trw", "urw", "prw", "arw", "parw"] {
            for o in 0..2 {
                cfg = cfg.replace(
                    &format!(" {rw}[{o}] -> Discard;"),
                    &format!(" {rw}[{o}] -> {rw}_{o} :: Counter -> Discard;"),
                );
            }
        }
        let r = testing::build(&cfg.replace("KEY", &key), &registry(), true).unwrap();
        r.run();
        assert!(n > 2000, "{n} packets");
        let mut out = 0u64;
        for rw in ["rw", "irw", "trw", "urw", "prw", "arw", "parw"] {
            for o in 0..2 {
                out += testing::read(&r, &format!("{rw}_{o}.count"))
                    .parse::<u64>()
                    .unwrap();
            }
            out += testing::read(&r, &format!("{rw}.drops"))
                .parse::<u64>()
                .unwrap();
        }
        assert_eq!(out, n as u64);
        assert!(testing::read(&r, "irw.drops") != "0");
    }
}
