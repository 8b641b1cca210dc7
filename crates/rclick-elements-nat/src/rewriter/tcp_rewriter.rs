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
//! - `table`, `mappings` (read): the mapping table (`mappings` is its old
//!   name); mappings with a sequence delta show `seq +N`.
//! - `lookup` (read with `SADDR SPORT DADDR DPORT`): the rewritten flow.
//! - `drops` (read): packets dropped (a `drop` spec, a failed mapping, no
//!   usable IP header).
//! - `nmappings`, `mapping_failures`, `size`, `patterns` (read): as IPRewriter.
//! - `capacity`, `patternN` (read/write), `clear` (write): as IPRewriter.
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

use rclick_packet::Packet;
use rclick_wire::checksum;
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::tcp::{flags, option, TcpPacket, HEADER_LEN};

use super::base::{Rewriter, H};
use super::class::{
    ports_key, rewrite_flow, set_annos, FlowKey, IpInfo, Keywords, RewriterClass, TableCfg,
    Timeouts,
};
use super::flowset::{Flow, Lookup, IP_PROTO_TCP};
use super::pattern::FlowId;
use super::seq_delta::SeqDelta;

/// A new TCPRewriter.
pub fn new() -> Rewriter {
    Rewriter::new(&TcpRewriter)
}

/// TCPRewriter's class: TCP flows with connection state and sequence
/// deltas.
pub struct TcpRewriter;

/// The TCP classes' timeout keywords (TCPRewriter's, and IPRewriter's
/// TCP half).
pub(crate) fn tcp_cfg(t: &Timeouts) -> TableCfg {
    let mut c = TableCfg::default();
    c.timeouts[0] = t.tcp_nodata.unwrap_or(300_000);
    c.timeouts[1] = t.guarantee.or(t.tcp_guarantee).unwrap_or(5_000);
    c.tcp_data = t.tcp_timeout.or(t.tcp_data).unwrap_or(86_400_000);
    c.tcp_done = t.tcp_done.unwrap_or(240_000);
    c
}

/// A TCP flow's timeout: closed, data both ways, or otherwise (the no-data
/// timeout); and its guarantee.
pub(crate) fn tcp_timeouts(f: &Flow, c: &TableCfg) -> (u32, u32) {
    let to = if f.both_done() {
        c.tcp_done
    } else if f.both_data() {
        c.tcp_data
    } else {
        c.timeouts[0]
    };
    (to, c.timeouts[1])
}

impl RewriterClass for TcpRewriter {
    fn name(&self) -> &'static str {
        "TCPRewriter"
    }
    fn keywords(&self) -> Keywords {
        Keywords {
            tcp: true,
            dst_anno: true,
            ..Keywords::default()
        }
    }
    fn table_cfg(&self, t: &Timeouts) -> TableCfg {
        tcp_cfg(t)
    }
    fn table_handlers(&self) -> &'static [H] {
        &[H::Table, H::Lookup]
    }
    #[inline]
    fn packet_key(&self, p: &Packet, info: &IpInfo) -> Option<FlowKey> {
        if info.proto != IP_PROTO_TCP {
            return None;
        }
        ports_key(p, info, 0)
    }
    fn lookup_key(&self, _ip_p: u8, flowid: FlowId, _how: Lookup) -> Option<FlowKey> {
        Some(FlowKey::ports(0, flowid))
    }
    #[inline]
    fn timeouts(&self, f: &Flow, c: &TableCfg) -> (u32, u32) {
        tcp_timeouts(f, c)
    }
    #[inline]
    fn guarantee(&self, _f: &Flow, c: &TableCfg) -> u32 {
        c.timeouts[1]
    }
    #[inline]
    fn apply(&self, f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
        apply_tcp(f, reply, p, info, cfg);
    }
}

/// Rewrites a TCP packet: addresses, ports, checksums, connection state,
/// sequence numbers.
#[inline]
pub(crate) fn apply_tcp(f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg) {
    let d = usize::from(reply);
    let (ip_len, ip_hlen) = p.ip_header().map_or((0, 0), |ip| {
        let v = Ipv4Packet::new_unchecked(ip);
        (usize::from(v.total_len()), usize::from(v.header_len()))
    });
    if let Some(th) = rewrite_flow(f, reply, p, info, 18) {
        let t = TcpPacket::new_unchecked(&*th);
        let fl = t.flags();
        let th_off = usize::from(t.header_len()) / 4;
        let have_payload = ip_hlen + th_off * 4 < ip_len;
        if fl & flags::RST != 0 {
            f.tflags |= 3;
        } else if fl & flags::FIN != 0 {
            f.tflags |= 1 << d;
        } else if fl & flags::SYN != 0 || have_payload {
            f.tflags &= !(1 << d);
        }
        if have_payload {
            f.tflags |= 4 << d;
        }
        if info.tlen >= th_off * 4 {
            if let Some(sd) = f.seq.as_deref_mut() {
                apply_seq(sd, d, th, th_off * 4);
            }
        }
    }
    let rev = f.key[usize::from(!reply)];
    set_annos(f, reply, p, cfg, rev.saddr);
}

/// Applies the flow's sequence deltas to a TCP header of `hlen` bytes
/// (options included) going direction `d`.
fn apply_seq(sd: &mut SeqDelta, d: usize, th: &mut [u8], hlen: usize) {
    let mut t = TcpPacket::new_unchecked(&mut *th);
    let seq = t.seq_number();
    sd.advance(d, seq);
    if sd.active(d) {
        let ns = sd.new_seq(d, seq);
        let c = checksum::update_u32(t.checksum(), seq, ns);
        t.set_checksum(c);
        t.set_seq_number(ns);
    }
    if sd.active(1 - d) {
        let ack = t.ack_number();
        let na = sd.new_ack(d, ack);
        let c = checksum::update_u32(t.checksum(), ack, na);
        t.set_checksum(c);
        t.set_ack_number(na);
        // not the lone timestamp option (NOP NOP TS 10)
        let lone_ts = [option::NOP, option::NOP, option::TIMESTAMP, 10];
        if hlen > 32 || (hlen == 32 && th.get(HEADER_LEN..HEADER_LEN + 4) != Some(&lone_ts[..])) {
            apply_sack(sd, d, th, hlen);
        }
    }
}

/// Rewrites the SACK blocks (acknowledgements of the other direction) in
/// the options of a TCP header of `hlen` bytes.
fn apply_sack(sd: &SeqDelta, d: usize, th: &mut [u8], hlen: usize) {
    let end = hlen.min(th.len());
    let mut o = HEADER_LEN;
    while o < end {
        match th[o] {
            0 => break,
            1 => o += 1,
            5 => {
                if o + 1 >= end {
                    break;
                }
                let len = usize::from(th[o + 1]);
                if o + len > end || len % 8 != 2 {
                    break;
                }
                // the checksum covers 16-bit words: the words the option
                // touches
                let rs = o & !1;
                let re = ((o + len + 1) & !1).min(end);
                if !(re - rs).is_multiple_of(2) {
                    break;
                }
                let old = checksum::sum(&th[rs..re]);
                option::map_sack_edges(&mut th[o..o + len], |v| sd.new_ack(d, v));
                let new = checksum::sum(&th[rs..re]);
                let mut t = TcpPacket::new_unchecked(&mut *th);
                let c = checksum::update_u16(t.checksum(), old, new);
                t.set_checksum(c);
                o += len;
            }
            _ => {
                if o + 1 >= end || th[o + 1] < 2 {
                    break;
                }
                o += usize::from(th[o + 1]);
            }
        }
    }
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
