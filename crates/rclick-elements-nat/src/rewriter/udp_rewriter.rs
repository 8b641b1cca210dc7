//! # UDPRewriter
//!
//! `UDPRewriter(INPUTSPEC1, ..., INPUTSPECn [, KEYWORDS])`
//!
//! **Category:** nat. Rewrites UDP packets' addresses and ports.
//!
//! ## Ports and processing
//!
//! One or more push inputs, one per INPUTSPEC; one or more push outputs.
//! Input packets must have their IP header annotation set.
//!
//! ## Description
//!
//! Like IPRewriter with one table for every protocol with ports (UDP, TCP
//! and DCCP are all rewritten, TCP without state tracking).
//!
//! Keywords: `TIMEOUT` or `UDP_TIMEOUT` (time, default 5 minutes),
//! `STREAMING_TIMEOUT` or `UDP_STREAMING_TIMEOUT` (time, default TIMEOUT:
//! flows of at least 3 packets with replies), `UDP_GUARANTEE` (time, default
//! 5 seconds), `DST_ANNO` (boolean, default true).
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
//! - `table`, `mappings` (read): the mapping table (`mappings` is its old
//!   name).
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size`, `patterns` (read): as IPRewriter.
//! - `capacity`, `patternN` (read/write), `clear` (write): as IPRewriter.
//!
//! ## Example
//!
//! ```text
//! rw :: UDPRewriter(pattern 1.0.0.1 1024-65535# - - 0 1, drop);
//! ```
//!
//! ## See also
//!
//! IPRewriter, TCPRewriter, UDPRewriter, IPAddrRewriter, IPAddrPairRewriter,
//! ICMPPingRewriter, ICMPRewriter, IPRewriterPatterns

use rclick_packet::Packet;

use super::base::Rewriter;
use super::class::{
    ports_key, rewrite_flow, set_annos, FlowKey, IpInfo, Keywords, RewriterClass, TableCfg,
    Timeouts,
};
use super::flowset::{Flow, Lookup, IP_PROTO_DCCP, IP_PROTO_TCP, IP_PROTO_UDP};
use super::pattern::FlowId;

/// A new UDPRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(&UdpRewriter)
}

/// UDPRewriter's class: flows with ports, without TCP state.
pub struct UdpRewriter;

impl RewriterClass for UdpRewriter {
    fn name(&self) -> &'static str {
        "UDPRewriter"
    }
    fn keywords(&self) -> Keywords {
        Keywords {
            udp: true,
            streaming: true,
            dst_anno: true,
            ..Keywords::default()
        }
    }
    fn table_cfg(&self, t: &Timeouts) -> TableCfg {
        let mut c = TableCfg::default();
        c.timeouts[0] = t.timeout.or(t.udp_timeout).unwrap_or(300_000);
        c.timeouts[1] = t.guarantee.or(t.udp_guarantee).unwrap_or(5_000);
        c.udp_streaming = t.streaming.or(t.udp_streaming).unwrap_or(c.timeouts[0]);
        c
    }
    #[inline]
    fn packet_key(&self, p: &Packet, info: &IpInfo) -> Option<FlowKey> {
        if !matches!(info.proto, IP_PROTO_TCP | IP_PROTO_UDP | IP_PROTO_DCCP) {
            return None;
        }
        ports_key(p, info, 0)
    }
    fn lookup_key(&self, _ip_p: u8, flowid: FlowId, _how: Lookup) -> Option<FlowKey> {
        Some(FlowKey::ports(0, flowid))
    }
    #[inline]
    fn timeouts(&self, f: &Flow, c: &TableCfg) -> (u32, u32) {
        let to = if f.streaming() {
            c.udp_streaming
        } else {
            c.timeouts[0]
        };
        (to, c.timeouts[1])
    }
    #[inline]
    fn guarantee(&self, _f: &Flow, c: &TableCfg) -> u32 {
        c.timeouts[1]
    }
    #[inline]
    fn apply(&self, f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
        apply_udp(f, reply, p, info, cfg);
    }
}

/// Rewrites a packet of a flow with ports but no TCP state (UDP, DCCP,
/// TCP in UDPRewriter): addresses, ports, checksums; counts packets
/// towards streaming.
#[inline]
pub(crate) fn apply_udp(f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
    if rewrite_flow(f, reply, p, info, 4).is_some() {
        if reply {
            f.tflags |= 1;
        }
        if f.tflags < 6 {
            f.tflags += 2;
        }
    }
    let rev = f.key[usize::from(!reply)];
    set_annos(f, reply, p, cfg, rev.saddr);
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;

    #[test]
    fn rewrites_and_replies_with_checksums() {
        let cfg = "rw :: UDPRewriter(pattern 1.0.0.1 1024-1026# - - 0 1, drop);
                   src :: TestSource(KEY); sink :: TestSink(KEY);
                   src[0] -> [0]rw; src[1] -> [1]rw; rw[0] -> [0]sink; rw[1] -> [1]sink;";
        let out = run_cfg(
            cfg,
            &[
                (0, udp(ip(18, 26, 4, 44), 1, ip(10, 0, 0, 4), 1)),
                (1, udp(ip(10, 0, 0, 4), 1, ip(1, 0, 0, 1), 1024)),
                (1, udp(ip(10, 0, 0, 4), 1, ip(1, 0, 0, 1), 1025)),
            ],
        );
        assert_eq!(
            out,
            vec![
                (0, "1.0.0.1:1024 > 10.0.0.4:1 ok".to_string()),
                (1, "10.0.0.4:1 > 18.26.4.44:1 ok".to_string()),
            ]
        );
    }
}
