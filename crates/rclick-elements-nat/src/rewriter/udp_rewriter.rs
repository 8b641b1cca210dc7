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
//! - `table` (read): the mapping table; `mappings` is its old name.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size` (read); `capacity`
//!   (read/write); `clear` (write); `patterns` (read); `patternN`
//!   (read/write): as IPRewriter.
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

use super::base::Rewriter;
use super::flowset::Kind;

/// A new UDPRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(Kind::Udp)
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
