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
//! - `table` (read): mappings as `(SA, DA, ID) => (SA', DA', ID') ...`.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size` (read); `capacity`
//!   (read/write); `clear` (write); `patterns` (read); `patternN`
//!   (read/write): as IPRewriter.
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

use super::base::Rewriter;
use super::flowset::Kind;

/// A new ICMPPingRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(Kind::IcmpPing)
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
