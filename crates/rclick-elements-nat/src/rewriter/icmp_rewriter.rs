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

use super::base::{Rewriter, REWRITER_CLASSES};
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

fn rd16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn rd32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn wr16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}
fn wr32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}
fn update(csum: u16, old: &[u16], new: &[u16]) -> u16 {
    old.iter()
        .zip(new)
        .fold(csum, |c, (&o, &n)| checksum::update_u16(c, o, n))
}
fn split32(v: u32) -> [u16; 2] {
    [(v >> 16) as u16, v as u16]
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
        let icmp = ip.get(info.thoff..).unwrap_or(&[]);
        if icmp.is_empty() || !matches!(icmp[0], 3 | 4 | 5 | 11 | 12) || icmp.len() < 8 + 20 {
            return 1;
        }
        let enc = &icmp[8..];
        let enc_hl = usize::from(enc[0] & 15) * 4;
        if enc[0] >> 4 != 4 || enc_hl < 20 {
            return 1;
        }
        let enc_p = enc[9];
        let enc_first = rd16(enc, 6) & 0x1FFF == 0;
        let mut search = FlowId::new(rd32(enc, 16), 0, rd32(enc, 12), 0);
        let mut use_transp = false;
        if matches!(enc_p, IP_PROTO_TCP | IP_PROTO_UDP | IP_PROTO_DCCP) {
            if enc.len() >= enc_hl + 8 && enc_first {
                search.sport = rd16(enc, enc_hl + 2);
                search.dport = rd16(enc, enc_hl);
                use_transp = true;
            }
        } else if enc_p == IP_PROTO_ICMP && enc.len() >= enc_hl + 6 && enc_first && enc[enc_hl] == 8
        {
            search.sport = rd16(enc, enc_hl + 4);
            use_transp = true;
        }
        let mut found = None;
        for (h, off) in &self.handles {
            let mut set = h.lock();
            if let Some(e) = set.get_entry(h.slot, enc_p, search, Lookup::Reply, now) {
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
        let outer_dst = info.dst;
        let thoff = info.thoff;
        let mut set_dst = false;
        if let Some(ip) = p.ip_header_mut() {
            if outer_dst == search.daddr {
                let c = update(rd16(ip, 10), &split32(outer_dst), &split32(nf.daddr));
                wr32(ip, 16, nf.daddr);
                wr16(ip, 10, c);
                set_dst = true;
            }
            let (outer, rest) = ip.split_at_mut(thoff);
            let _ = outer;
            let icmp = rest;
            let (icmp_hdr, enc) = icmp.split_at_mut(8);
            let mut old_hw = [0u16; 8];
            let mut new_hw = [0u16; 8];
            old_hw[0] = rd16(enc, 10);
            let [a, b] = split32(rd32(enc, 12));
            let [c, d] = split32(rd32(enc, 16));
            old_hw[1..5].copy_from_slice(&[a, b, c, d]);
            wr32(enc, 12, nf.daddr);
            wr32(enc, 16, nf.saddr);
            let [a, b] = split32(nf.daddr);
            let [c, d] = split32(nf.saddr);
            new_hw[1..5].copy_from_slice(&[a, b, c, d]);
            let ec = update(rd16(enc, 10), &old_hw[1..5], &new_hw[1..5]);
            wr16(enc, 10, ec);
            new_hw[0] = ec;
            let mut nhw = 5;
            if use_transp {
                let (_, t) = enc.split_at_mut(enc_hl);
                if matches!(enc_p, IP_PROTO_TCP | IP_PROTO_UDP | IP_PROTO_DCCP) {
                    old_hw[5] = rd16(t, 0);
                    old_hw[6] = rd16(t, 2);
                    wr16(t, 0, nf.dport);
                    wr16(t, 2, nf.sport);
                    new_hw[5] = nf.dport;
                    new_hw[6] = nf.sport;
                    nhw = 7;
                    let at = if enc_p == IP_PROTO_TCP && t.len() >= 18 {
                        Some(16)
                    } else if enc_p == IP_PROTO_UDP && t.len() >= 8 && rd16(t, 6) != 0 {
                        Some(6)
                    } else {
                        None
                    };
                    if let Some(at) = at {
                        let oc = rd16(t, at);
                        let ncs = update(oc, &old_hw[1..7], &new_hw[1..7]);
                        wr16(t, at, ncs);
                        old_hw[7] = oc;
                        new_hw[7] = ncs;
                        nhw = 8;
                    }
                } else {
                    let oid = rd16(t, 4);
                    let oc = rd16(t, 2);
                    wr16(t, 4, nf.dport);
                    let ncs = checksum::update_u16(oc, oid, nf.dport);
                    wr16(t, 2, ncs);
                    old_hw[5] = oid;
                    new_hw[5] = nf.dport;
                    old_hw[6] = oc;
                    new_hw[6] = ncs;
                    nhw = 7;
                }
            }
            let oc = rd16(icmp_hdr, 2);
            wr16(icmp_hdr, 2, update(oc, &old_hw[..nhw], &new_hw[..nhw]));
        }
        if set_dst && self.dst_anno {
            p.set_dst_ip_anno(Ipv4Addr::from(nf.daddr));
        }
        if reply {
            match self.reply_anno {
                Some(AnnoSlot::Paint) => p.set_paint_anno(ranno),
                Some(AnnoSlot::User(o)) => p.set_anno_u8(o, ranno),
                None => {}
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
        let mut run = PacketBatch::new();
        let mut cur = -1;
        for mut p in batch {
            let o = self.handle(&mut p, now);
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
        let quoted = tcp(ip(10, 0, 0, 9), 1024, ip(2, 0, 0, 2), 80);
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
