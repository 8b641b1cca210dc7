//! # IPAddrPairRewriter
//!
//! `IPAddrPairRewriter(INPUTSPEC1, ..., INPUTSPECn [, KEYWORDS])`
//!
//! **Category:** nat. Rewrites packets' addresses by address pair.
//!
//! ## Ports and processing
//!
//! One or more push inputs, one per INPUTSPEC; one or more push outputs.
//! Input packets must have their IP header annotation set.
//!
//! ## Description
//!
//! Like IPAddrRewriter, but mappings are indexed by (source, destination)
//! address pair, so one source gets a new address per destination. Patterns
//! have two words, `SADDR DADDR`.
//!
//! Keywords: `TIMEOUT` (time, default 2 hours).
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
//! - `table`, `mappings` (read): mappings as `(SA, DA) => (SA', DA') [*FOUT ROUT] ...`.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size`, `patterns` (read): as IPRewriter.
//! - `capacity`, `patternN` (read/write), `clear` (write): as IPRewriter.
//!
//! ## Example
//!
//! ```text
//! rw :: IPAddrPairRewriter(pattern 3.0.0.1-3.0.0.255# - 0 1);
//! ```
//!
//! ## See also
//!
//! IPRewriter, TCPRewriter, UDPRewriter, IPAddrRewriter, IPAddrPairRewriter,
//! ICMPPingRewriter, ICMPRewriter, IPRewriterPatterns

use std::net::Ipv4Addr;

use rclick_packet::Packet;

use super::base::Rewriter;
use super::class::{
    plain_cfg, rewrite_addresses, FlowKey, IpInfo, RewriterClass, TableCfg, Timeouts,
};
use super::flowset::{Flow, Lookup};
use super::pattern::FlowId;

/// A new IPAddrPairRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(&IpAddrPairRewriter)
}

/// IPAddrPairRewriter's class: flows keyed by (source, destination), of
/// any protocol; both addresses may change.
pub struct IpAddrPairRewriter;

impl RewriterClass for IpAddrPairRewriter {
    fn name(&self) -> &'static str {
        "IPAddrPairRewriter"
    }
    fn table_cfg(&self, t: &Timeouts) -> TableCfg {
        plain_cfg(t, 7_200_000)
    }
    #[inline]
    fn lookup_key(&self, _ip_p: u8, flowid: FlowId, _how: Lookup) -> Option<FlowKey> {
        let key = FlowId::new(flowid.saddr, 0, flowid.daddr, 0);
        Some(FlowKey::new(0, key))
    }
    fn flow_proto(&self, _proto: u8) -> u8 {
        0
    }
    fn accept(&self, _flowid: FlowId, r: &mut FlowId) -> bool {
        r.sport == 0 && r.dport == 0
    }
    #[inline]
    fn apply(&self, f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
        rewrite_addresses(f, reply, p, info, cfg, true);
    }
    fn unparse_mapping(&self, k: &FlowId, f: &Flow, reply: bool, out: &mut String) {
        use std::fmt::Write;
        let o = f.key[1 - usize::from(reply)];
        let _ = write!(
            out,
            "({}, {}) => ({}, {})",
            Ipv4Addr::from(k.saddr),
            Ipv4Addr::from(k.daddr),
            Ipv4Addr::from(o.daddr),
            Ipv4Addr::from(o.saddr)
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;

    #[test]
    fn pairs_get_their_own_addresses() {
        let out = run_dump(
            "rw :: IPAddrPairRewriter(pattern 3.0.0.1-3.0.0.255# - 0 0);",
            "rw",
            &[
                udp(ip(1, 0, 0, 1), 5, ip(9, 9, 9, 9), 80),
                udp(ip(1, 0, 0, 1), 5, ip(9, 9, 9, 7), 80),
                udp(ip(9, 9, 9, 6), 80, ip(3, 0, 0, 1), 5),
                udp(ip(9, 9, 9, 7), 80, ip(3, 0, 0, 2), 5),
            ],
        );
        assert_eq!(
            out,
            vec![
                "3.0.0.1:5 > 9.9.9.9:80 ok",
                "3.0.0.2:5 > 9.9.9.7:80 ok",
                "3.0.0.3:80 > 3.0.0.1:5 ok",
                "9.9.9.7:80 > 1.0.0.1:5 ok",
            ]
        );
    }
}
