//! # TCPRewriter
//!
//! `TCPRewriter(INPUTSPEC1, ..., INPUTSPECn [, KEYWORDS])`
//!
//! **Category:** nat. Rewrites TCP packets' addresses, ports, and sequence numbers.
//!
//! ## Ports and processing
//!
//! One or more push inputs, one per INPUTSPEC; one or more push outputs.
//! Input packets must have their IP header annotation set.
//!
//! ## Description
//!
//! Like IPRewriter, for TCP only (other packets are handled as unknown
//! flows of `pass` inputs or dropped). It can also add deltas to sequence
//! and acknowledgement numbers, SACK blocks included, which elements such as
//! FTPPortMapper request when they change a flow's payload length.
//!
//! Keywords: `TCP_TIMEOUT` or `TIMEOUT` (time, default 24 hours: flows
//! with data both ways), `TCP_DONE_TIMEOUT` (time, default 4 minutes: closed
//! flows), `TCP_NODATA_TIMEOUT` (time, default 5 minutes: other flows),
//! `TCP_GUARANTEE` (time, default 5 seconds), `DST_ANNO` (boolean, default
//! true: set the destination IP annotation).
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
//!   Mappings with a sequence delta show `seq +N`.
//! - `lookup` (read with `SADDR SPORT DADDR DPORT`): the rewritten flow.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size` (read); `capacity`
//!   (read/write); `clear` (write); `patterns` (read); `patternN`
//!   (read/write): as IPRewriter.
//!
//! ## Example
//!
//! ```text
//! rw :: TCPRewriter(pattern 1.0.0.1 1024-65535# - - 0 1, drop);
//! ```
//!
//! ## See also
//!
//! IPRewriter, TCPRewriter, UDPRewriter, IPAddrRewriter, IPAddrPairRewriter,
//! ICMPPingRewriter, ICMPRewriter, IPRewriterPatterns

use super::base::Rewriter;
use super::flowset::Kind;

/// A new TCPRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(Kind::Tcp)
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;
    use rclick_core::testing;

    #[test]
    fn ftp_port_command_and_sequence_deltas() {
        let cfg = "IPRewriterPatterns(pat 1.0.0.1 1024-65535# - -);
                   rw :: TCPRewriter(pattern pat 0 0);
                   src :: TestSource(KEY); sink :: TestSink(KEY);
                   src -> FTPPortMapper(rw, rw, 0) -> rw -> sink;";
        let c = ip(200, 200, 200, 200);
        let s = ip(2, 0, 0, 2);
        let out = run_cfg(
            cfg,
            &[
                (0, tcp_payload(c, 30, s, 21, 0, b"x")),
                (
                    0,
                    tcp_payload(c, 30, s, 21, 1, b"PORT 200,200,200,200,200,200\n"),
                ),
                (0, tcp_payload(c, 30, s, 21, 30, b"fubar\n")),
            ],
        );
        assert_eq!(out.len(), 3);
        assert!(
            out.iter().all(|o| o.1 == "1.0.0.1:1024 > 2.0.0.2:21 ok"),
            "{out:?}"
        );
    }

    #[test]
    fn table_and_lookup_handlers() {
        let r = testing::build(
            "i :: Idle; rw :: TCPRewriter(keep 0 0); i -> rw -> i;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "rw.table"), "");
        assert_eq!(testing::read(&r, "rw.patterns"), "<keep>\n");
        assert_eq!(testing::read(&r, "rw.nmappings"), "0");
        assert_eq!(testing::read(&r, "rw.capacity"), "2147483647");
    }
}
