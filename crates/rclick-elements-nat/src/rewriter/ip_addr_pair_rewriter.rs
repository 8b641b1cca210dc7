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
//! - `table` (read): mappings as `(SA, DA) => (SA', DA') [*FOUT ROUT] ...`.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size` (read); `capacity`
//!   (read/write); `clear` (write); `patterns` (read); `patternN`
//!   (read/write): as IPRewriter.
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

use super::base::Rewriter;
use super::flowset::Kind;

/// A new IPAddrPairRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(Kind::IpAddrPair)
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
