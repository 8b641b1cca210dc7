//! # ICMPPingRewriter
//!
//! `ICMPPingRewriter(INPUTSPEC1, ..., INPUTSPECn [, KEYWORDS])`
//!
//! **Category:** nat. Rewrites ICMP echo requests and replies.
//!
//! ## Ports and processing
//!
//! One or more push inputs, one per INPUTSPEC; one or more push outputs.
//! Input packets must have their IP header annotation set.
//!
//! ## Description
//!
//! Rewrites ICMP echo requests' addresses and identifiers, and their echo
//! replies back, so pings pass through a NAT. Patterns have three words,
//! `SADDR DADDR IDENT`, where IDENT is an identifier or range `L-H`
//! (suffix `#` for sequential allocation). Echo requests of unknown flows
//! are handled by the input spec; echo replies of unknown flows, and other
//! packets, go to `pass` outputs or are dropped.
//!
//! Keywords: `TIMEOUT` (time, default 5 minutes), `DST_ANNO` (boolean,
//! default true).
//!
//! The INPUTSPECs are IPRewriter's: `drop`, `pass OUTPUT`,
//! `keep FOUTPUT ROUTPUT`, `pattern ... FOUTPUT ROUTPUT`,
//! `pattern PATNAME FOUTPUT ROUTPUT` and `ELEMENTNAME` (a mapper). Flows
//! expire as in IPRewriter: guaranteed for GUARANTEE after each packet, then
//! best-effort until their timeout; a full table removes the next-to-expire
//! best-effort flow or refuses the new one.
//!
//! Common keyword arguments: `GUARANTEE` (time, default 5 seconds),
//! `REAP_INTERVAL` (time, default 15 minutes), `MAPPING_CAPACITY` or
//! `CAPACITY` (integer or rewriter element name to share its flow set,
//! default unlimited), `REPLY_ANNO` (annotation: copied from a flow's first
//! packet onto its replies).
//!
//! ## Annotations
//!
//! Uses the IP header annotation; sets the destination IP annotation and the
//! REPLY_ANNO annotation.
//!
//! ## Handlers
//!
//! - `table`, `mappings` (read): mappings as `(SA, DA, ID) => (SA', DA', ID') ...`.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size`, `patterns` (read): as IPRewriter.
//! - `capacity`, `patternN` (read/write), `clear` (write): as IPRewriter.
//!
//! ## Example
//!
//! ```text
//! icmp :: ICMPPingRewriter(pattern 2.0.0.2 - 0-65535# 0 1, drop);
//! ```
//!
//! ## See also
//!
//! IPRewriter, TCPRewriter, UDPRewriter, IPAddrRewriter, IPAddrPairRewriter,
//! ICMPPingRewriter, ICMPRewriter, IPRewriterPatterns

use std::net::Ipv4Addr;

use rclick_packet::Packet;
use rclick_wire::checksum;
use rclick_wire::icmp::{types, IcmpPacket};

use super::base::Rewriter;
use super::class::{
    plain_cfg, rewrite_ip, set_annos, FlowKey, IpInfo, Keywords, RewriterClass, TableCfg, Timeouts,
};
use super::flowset::{Flow, Lookup, IP_PROTO_ICMP};
use super::pattern::FlowId;

/// A new ICMPPingRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(&IcmpPingRewriter)
}

/// ICMPPingRewriter's class: echo flows keyed by addresses and identifier
/// (the identifier as source port, identifier + 1 as destination port, so
/// a reply's key is the request's reversed).
pub struct IcmpPingRewriter;

/// The key of an echo (`echo`) or echo reply with identifier `id`.
fn ping_key(src: u32, id: u16, dst: u32, echo: bool) -> FlowId {
    FlowId::new(
        src,
        id.wrapping_add(u16::from(!echo)),
        dst,
        id.wrapping_add(u16::from(echo)),
    )
}

impl RewriterClass for IcmpPingRewriter {
    fn name(&self) -> &'static str {
        "ICMPPingRewriter"
    }
    fn keywords(&self) -> Keywords {
        Keywords {
            dst_anno: true,
            ..Keywords::default()
        }
    }
    fn table_cfg(&self, t: &Timeouts) -> TableCfg {
        plain_cfg(t, 300_000)
    }
    #[inline]
    fn packet_key(&self, p: &Packet, info: &IpInfo) -> Option<FlowKey> {
        if info.proto != IP_PROTO_ICMP || !info.first_frag || info.tlen < 8 {
            return None;
        }
        let icmp = IcmpPacket::new_unchecked(p.ip_header()?.get(info.thoff..)?);
        let echo = match icmp.icmp_type() {
            types::ECHO => true,
            types::ECHO_REPLY => false,
            _ => return None,
        };
        let key = ping_key(info.src, icmp.echo_ident(), info.dst, echo);
        Some(FlowKey {
            create: echo,
            ..FlowKey::new(0, key)
        })
    }
    fn lookup_key(&self, ip_p: u8, flowid: FlowId, how: Lookup) -> Option<FlowKey> {
        if ip_p != IP_PROTO_ICMP {
            return None;
        }
        let echo = how != Lookup::Reply;
        let key = ping_key(flowid.saddr, flowid.sport, flowid.daddr, echo);
        Some(FlowKey::new(0, key))
    }
    fn accept(&self, flowid: FlowId, r: &mut FlowId) -> bool {
        r.dport = r.sport.wrapping_add(1);
        flowid.sport.wrapping_add(1) == flowid.dport && r.sport.wrapping_add(1) == r.dport
    }
    #[inline]
    fn apply(&self, f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
        let rev = f.key[usize::from(!reply)];
        if let Some(ip) = rewrite_ip(f, reply, p, true) {
            if info.first_frag && info.tlen >= 8 {
                let mut icmp = IcmpPacket::new_unchecked(&mut ip[info.thoff..]);
                let new_id = if reply { rev.sport } else { rev.dport };
                let old_id = icmp.echo_ident();
                icmp.set_echo_ident(new_id);
                let c = checksum::update_u16(icmp.checksum(), old_id, new_id);
                if c == 0 {
                    icmp.fill_checksum();
                } else {
                    icmp.set_checksum(c);
                }
            }
        }
        set_annos(f, reply, p, cfg, rev.saddr);
    }
    fn unparse_mapping(&self, k: &FlowId, f: &Flow, reply: bool, out: &mut String) {
        use std::fmt::Write;
        let rw = f.rewritten(reply);
        let _ = write!(
            out,
            "({}, {}, {}) => ({}, {}, {})",
            Ipv4Addr::from(k.saddr),
            Ipv4Addr::from(k.daddr),
            k.sport,
            Ipv4Addr::from(rw.saddr),
            Ipv4Addr::from(rw.daddr),
            rw.sport
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;

    #[test]
    fn echo_and_reply() {
        let cfg = "rw :: ICMPPingRewriter(pattern 2.0.0.2 - 0-65535# 0 1, drop);
                   src :: TestSource(KEY); sink :: TestSink(KEY);
                   src[0] -> [0]rw; src[1] -> [1]rw; rw[0] -> [0]sink; rw[1] -> [1]sink;";
        let out = run_cfg(
            cfg,
            &[
                (0, icmp_echo(ip(1, 0, 0, 1), ip(5, 0, 0, 5), 8, 10230)),
                (0, icmp_echo(ip(1, 0, 0, 2), ip(5, 0, 0, 5), 8, 0)),
                (1, icmp_echo(ip(5, 0, 0, 5), ip(2, 0, 0, 2), 0, 0)),
                (1, icmp_echo(ip(5, 0, 0, 5), ip(2, 0, 0, 2), 0, 1)),
                (1, icmp_echo(ip(5, 0, 0, 5), ip(2, 0, 0, 2), 0, 7)),
            ],
        );
        assert_eq!(
            out,
            vec![
                (0, "2.0.0.2 > 5.0.0.5 id 0 ok".to_string()),
                (0, "2.0.0.2 > 5.0.0.5 id 1 ok".to_string()),
                (1, "5.0.0.5 > 1.0.0.1 id 10230 ok".to_string()),
                (1, "5.0.0.5 > 1.0.0.2 id 0 ok".to_string()),
            ]
        );
    }
}
