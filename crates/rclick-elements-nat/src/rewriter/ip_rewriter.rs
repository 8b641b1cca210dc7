//! # IPRewriter
//!
//! `IPRewriter(INPUTSPEC1, ..., INPUTSPECn [, KEYWORDS])`
//!
//! **Category:** nat. Rewrites TCP/UDP packets' addresses and ports.
//!
//! ## Ports and processing
//!
//! One or more push inputs, one per INPUTSPEC; one or more push outputs.
//! Input packets must have their IP header annotation set.
//!
//! ## Description
//!
//! A network address/port translator (NAPT). IPRewriter keeps a mapping
//! table indexed by flow identifier (source address, source port,
//! destination address, destination port; TCP and UDP in separate tables).
//! A mapping says how to rewrite the flow and which output to use. A packet
//! whose flow has a mapping is rewritten (addresses, ports, and the IP and
//! TCP/UDP checksums, updated incrementally) and emitted on the mapping's
//! output. A packet of an unknown flow is handled by the INPUTSPEC of the
//! input it arrived on:
//!
//! - `drop` or `discard`: drop it.
//! - `pass OUTPUT` (also `passthrough`, `nochange`): send it unchanged to
//!   OUTPUT; install no mapping.
//! - `keep FOUTPUT ROUTPUT`: install a mapping that keeps the flow
//!   identifier; the flow goes to FOUTPUT, its replies to ROUTPUT.
//! - `pattern SADDR SPORT DADDR DPORT FOUTPUT ROUTPUT`: rewrite by the
//!   pattern. A `-` leaves a field alone. SPORT may be a range `L-H`: a port
//!   is chosen so that no existing mapping conflicts, preferring the
//!   packet's own source port; append `#` to allocate sequentially from the
//!   last choice, or `?` to choose randomly. SADDR may be an address range
//!   `A-B` or prefix `A/len` for address-only patterns. If nothing is free
//!   the packet is dropped (a mapping failure). Two mappings are installed:
//!   `(SA, SP, DA, DP) => (SA', SP', DA', DP') [*FOUTPUT]` and its reply
//!   `(DA', DP', SA', SP') => (DA, DP, SA, SP) [*ROUTPUT]`.
//! - `pattern PATNAME FOUTPUT ROUTPUT`: a pattern named by IPRewriterPatterns.
//! - `ELEMENTNAME`: ask a mapper element (RoundRobinIPMapper).
//!
//! Non-TCP/UDP packets and non-first fragments are dropped unless they
//! arrive on a `pass` input.
//!
//! Mappings expire. While a flow's guarantee lasts it cannot be removed to
//! make room; afterwards it is best-effort and the next-to-expire
//! best-effort flow is removed when the table is full. If the table is full
//! of guaranteed flows, new flows are refused (admission control).
//!
//! Keyword arguments:
//!
//! - `TCP_TIMEOUT` (time, default 24 hours): TCP flows with data seen in both
//!   directions. `TIMEOUT` is a synonym.
//! - `TCP_DONE_TIMEOUT` (time, default 4 minutes): TCP flows closed by FIN in
//!   both directions or by RST.
//! - `TCP_NODATA_TIMEOUT` (time, default 5 minutes): other TCP flows.
//! - `TCP_GUARANTEE` / `GUARANTEE` (time, default 5 seconds): TCP guarantee
//!   after each packet; 0 disables guarantees.
//! - `UDP_TIMEOUT` (time, default 5 minutes), `UDP_STREAMING_TIMEOUT` (time,
//!   default UDP_TIMEOUT: flows with at least 3 packets and replies),
//!   `UDP_GUARANTEE` (time, default 5 seconds).
//! - `REAP_INTERVAL` (time, default 15 minutes): how often expired flows are
//!   removed.
//! - `MAPPING_CAPACITY` / `CAPACITY` (integer or element name, default
//!   unlimited): the maximum number of flows; an element name shares that
//!   rewriter's flow set and capacity.
//! - `DST_ANNO` (boolean, default true): set the destination IP address
//!   annotation to the rewritten destination.
//! - `REPLY_ANNO` (annotation, default none): store this annotation byte of a
//!   flow's first packet and set it on the flow's reply packets.
//!
//! ## Annotations
//!
//! Uses the IP header annotation; sets the destination IP annotation
//! (DST_ANNO) and the REPLY_ANNO annotation on replies.
//!
//! ## Handlers
//!
//! - `tcp_table`, `udp_table`, `tcp_mappings`, `udp_mappings` (read): the
//!   mapping tables (`*_mappings` are the old names), one mapping a line:
//!   `(SA, SP, DA, DP) => (SA', SP', DA', DP') [*FOUT ROUT] iINPUT expSECONDS`;
//!   the output this direction uses is starred.
//! - `tcp_lookup` (read with parameter `SADDR SPORT DADDR DPORT`): the
//!   rewritten TCP flow in the same format, or nothing.
//! - `nmappings` (read): flows created by this element's inputs.
//! - `mapping_failures` (read): flows that could not be created.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `size` (read): flows in the (possibly shared) flow set.
//! - `capacity` (read/write): the flow set's capacity; writing shrinks it.
//! - `clear` (write): removes every flow.
//! - `patterns` (read): the input specs, one a line, with `[N]` flow counts.
//! - `patternN` (read/write): input spec N; writing replaces it and removes
//!   the flows it created.
//!
//! ## Example
//!
//! ```text
//! rw :: IPRewriter(pattern 1.0.0.1 1024-65535# - - 0 1, drop);
//! ```
//!
//! ## See also
//!
//! TCPRewriter, UDPRewriter, IPAddrRewriter, IPAddrPairRewriter,
//! IPRewriterPatterns, RoundRobinIPMapper, FTPPortMapper, ICMPRewriter,
//! ICMPPingRewriter

use rclick_packet::Packet;

use super::base::{Rewriter, H};
use super::class::{ports_key, FlowKey, IpInfo, Keywords, RewriterClass, TableCfg, Timeouts};
use super::flowset::{Flow, Lookup, IP_PROTO_TCP, IP_PROTO_UDP};
use super::pattern::FlowId;
use super::tcp_rewriter::{apply_tcp, tcp_cfg, tcp_timeouts};
use super::udp_rewriter::apply_udp;

/// A new IPRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(&IpRewriter)
}

/// IPRewriter's class: TCP flows (map 0, as TCPRewriter) and UDP flows
/// (map 1, as UDPRewriter, with the `UDP_*` timeouts).
pub struct IpRewriter;

impl RewriterClass for IpRewriter {
    fn name(&self) -> &'static str {
        "IPRewriter"
    }
    fn keywords(&self) -> Keywords {
        Keywords {
            tcp: true,
            udp: true,
            dst_anno: true,
            ..Keywords::default()
        }
    }
    fn table_cfg(&self, t: &Timeouts) -> TableCfg {
        let mut c = tcp_cfg(t);
        c.udp_timeouts[0] = t.udp_timeout.unwrap_or(300_000);
        c.udp_timeouts[1] = t.udp_guarantee.unwrap_or(5_000);
        c.udp_streaming = t.udp_streaming.unwrap_or(c.udp_timeouts[0]);
        c
    }
    fn table_handlers(&self) -> &'static [H] {
        &[H::TcpTable, H::UdpTable, H::TcpLookup]
    }
    #[inline]
    fn packet_key(&self, p: &Packet, info: &IpInfo) -> Option<FlowKey> {
        match info.proto {
            IP_PROTO_TCP => ports_key(p, info, 0),
            IP_PROTO_UDP => ports_key(p, info, 1),
            _ => None,
        }
    }
    fn lookup_key(&self, ip_p: u8, flowid: FlowId, _how: Lookup) -> Option<FlowKey> {
        match ip_p {
            IP_PROTO_UDP => Some(FlowKey::new(1, flowid)),
            IP_PROTO_TCP => Some(FlowKey::ports(0, flowid)),
            _ => None,
        }
    }
    #[inline]
    fn timeouts(&self, f: &Flow, c: &TableCfg) -> (u32, u32) {
        if f.map == 0 {
            return tcp_timeouts(f, c);
        }
        let to = if f.streaming() {
            c.udp_streaming
        } else {
            c.udp_timeouts[0]
        };
        (to, c.udp_timeouts[1])
    }
    #[inline]
    fn guarantee(&self, f: &Flow, c: &TableCfg) -> u32 {
        if f.map == 0 {
            c.timeouts[1]
        } else {
            c.udp_timeouts[1]
        }
    }
    #[inline]
    fn apply(&self, f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
        if f.map == 0 {
            apply_tcp(f, reply, p, info, cfg);
        } else {
            apply_udp(f, reply, p, info, cfg);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;
    use rclick_core::testing;

    #[test]
    fn napt_forward_and_reply() {
        let out = run_dump(
            "rw :: IPRewriter(pattern 1.0.0.1 1024-65535# - - 0 0);",
            "[0]rw",
            &[
                tcp(ip(18, 26, 4, 44), 30, ip(10, 0, 0, 4), 40),
                tcp(ip(18, 26, 4, 44), 20, ip(10, 0, 0, 8), 80),
            ],
        );
        assert_eq!(
            out,
            vec![
                "1.0.0.1:1024 > 10.0.0.4:40 ok",
                "1.0.0.1:1025 > 10.0.0.8:80 ok"
            ]
        );
    }

    #[test]
    fn patterns_handler_and_errors() {
        let r = testing::build(
            "i :: Idle; rw :: IPRewriter(pattern 1.0.0.1 1 - - 0 1, pattern 1.0.0.1 1-65535 - - 0 1, pattern 1.0.0.1 - - - 0 1);
             i -> [0]rw; i[1] -> [1]rw; i[2] -> [2]rw; rw[0] -> i; rw[1] -> i;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(
            testing::read(&r, "rw.patterns"),
            "1.0.0.1 1 - -\n1.0.0.1 1-65535 - -\n1.0.0.1 - - -\n"
        );
        let e = testing::build(
            "i :: Idle; rw :: IPRewriter(pattern 1.0.0.1 1x - - 0 1, drop); i -> [0]rw; i[1] -> [1]rw; rw -> i;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("input spec 0: bad source port"), "{e}");
        let e = testing::build(
            "i :: Idle; rw :: IPRewriter(drop, drop); i -> rw -> i;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("need 1 arguments"), "{e}");
    }
}
