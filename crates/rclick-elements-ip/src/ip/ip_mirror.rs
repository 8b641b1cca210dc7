//! # IPMirror
//!
//! `IPMirror([DST_ANNO])`
//!
//! **Category:** ip. Swaps IP source and destination.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Turns a packet from A to B into one from B to A, for answering it:
//! swaps the IP source and destination addresses, and, in a TCP or UDP
//! first fragment (or unfragmented packet) with at least 8 bytes of
//! transport header, the source and destination ports; in TCP with at
//! least 12 bytes, also the sequence and acknowledgment numbers. No
//! checksum changes: swapping 16-bit words in place leaves every Internet
//! checksum as it was.
//!
//! `DST_ANNO` (boolean, default true): also set the destination IP address
//! annotation to the new destination.
//!
//! Packets without an IP header annotation pass unchanged.
//!
//! ## Annotations
//!
//! Uses the IP header annotation; sets the destination IP address
//! annotation (DST_ANNO).
//!
//! ## Differences from Click
//!
//! Click crashes on a packet without an IP header annotation, and swaps a
//! TCP packet's sequence number with the 4 bytes after the packet when it
//! holds only 8 to 11 bytes of TCP header; here such packets keep their
//! sequence number (the ports are still swapped).
//!
//! ## Examples
//!
//! ```text
//! ... -> IPClassifier(tcp syn) -> IPMirror -> ...
//! ```
//!
//! ## See also
//!
//! EtherMirror, ICMPPingResponder

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{IpProtocol, Ipv4Packet, TcpPacket, UdpPacket};

/// The IPMirror element.
pub struct IPMirror {
    dst_anno: bool,
}

impl Default for IPMirror {
    fn default() -> Self {
        IPMirror { dst_anno: true }
    }
}

impl IPMirror {
    fn mirror(&self, p: &mut Packet) {
        let Some(h) = p.ip_header().and_then(|h| h.first_chunk::<20>()) else {
            return;
        };
        let ip = Ipv4Packet::new_unchecked(h);
        let (src, dst, proto) = (ip.src_addr(), ip.dst_addr(), ip.protocol());
        let first_frag = ip.frag_offset() == 0;
        if let Some(h) = p.ip_header_mut().and_then(|h| h.first_chunk_mut::<20>()) {
            let mut ip = Ipv4Packet::new_unchecked(h);
            ip.set_src_addr(dst);
            ip.set_dst_addr(src);
        }
        if self.dst_anno {
            p.set_dst_ip_anno(src);
        }
        if !first_frag || (proto != IpProtocol::TCP && proto != IpProtocol::UDP) {
            return;
        }
        let Some(t) = p.transport_header_mut() else {
            return;
        };
        if let Some(ports) = t.first_chunk_mut::<8>() {
            let mut u = UdpPacket::new_unchecked(ports);
            let (s, d) = (u.src_port(), u.dst_port());
            u.set_src_port(d);
            u.set_dst_port(s);
        }
        if proto == IpProtocol::TCP {
            if let Some(seq_ack) = t.first_chunk_mut::<12>() {
                let mut tcp = TcpPacket::new_unchecked(seq_ack);
                let (seq, ack) = (tcp.seq_number(), tcp.ack_number());
                tcp.set_seq_number(ack);
                tcp.set_ack_number(seq);
            }
        }
    }
}

impl Element for IPMirror {
    fn class_name(&self) -> &'static str {
        "IPMirror"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut dst_anno = true;
        Args::new(conf)
            .read_p("DST_ANNO", &mut dst_anno)
            .complete()
            .map_err(|e| e.to_string())?;
        self.dst_anno = dst_anno;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.mirror(&mut p);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    fn run(ip: &str, before: &str, args: &str) -> Vec<String> {
        let conf = format!(
            "InfiniteSource(DATA \\<{ip}>, LIMIT 1, STOP true) -> {before}
             -> IPMirror({args}) -> StoreIPAddress(4) -> Print(m, 40) -> Discard;"
        );
        testing::run(&conf, &registry())
            .unwrap_or_else(|e| panic!("{e}"))
            .take_log()
    }

    const TCP: &str =
        "45000028 00010000 400666cd 0a000001 0a000002 04d21234 00000001 00000002 50100000 00000000";
    const UDP: &str = "45000020 00010000 401166ca 0a000001 0a000002 04d21234 000c0000 61626364";

    /// Checked against Click (which does not store the annotation: the
    /// identification field shows it here).
    #[test]
    fn swaps_addresses_ports_and_sequence_numbers() {
        assert_eq!(
            run(TCP, "MarkIPHeader", ""),
            vec!["m:   40 | 45000028 0a000001 400666cd 0a000002 0a000001 123404d2 00000002 00000001 50100000 00000000"]
        );
        assert_eq!(
            run(UDP, "MarkIPHeader", ""),
            vec![
                "m:   32 | 45000020 0a000001 401166ca 0a000002 0a000001 123404d2 000c0000 61626364"
            ]
        );
        // DST_ANNO false keeps the annotation MarkIPHeader left (none).
        assert_eq!(
            run(UDP, "MarkIPHeader -> SetIPAddress(9.9.9.9)", "false"),
            vec![
                "m:   32 | 45000020 09090909 401166ca 0a000002 0a000001 123404d2 000c0000 61626364"
            ]
        );
    }

    /// Checked against Click: a later fragment keeps its ports; 8 bytes
    /// of TCP swap the ports only; 7 bytes swap nothing past the IP header.
    #[test]
    fn fragments_and_short_transport_headers() {
        let frag = UDP.replace("00010000", "00010001");
        assert_eq!(
            run(&frag, "MarkIPHeader", "DST_ANNO false"),
            vec![
                "m:   32 | 45000020 00010001 401166ca 0a000002 0a000001 04d21234 000c0000 61626364"
            ]
        );
        let tcp8 = "45000020 00010000 40060000 0a000001 0a000002 04d21234 00000001";
        assert_eq!(
            run(tcp8, "MarkIPHeader", "false"),
            vec!["m:   28 | 45000020 00010000 40060000 0a000002 0a000001 123404d2 00000001"]
        );
        let tcp7 = "45000020 00010000 40060000 0a000001 0a000002 04d21234 000000";
        assert_eq!(
            run(tcp7, "MarkIPHeader", "false"),
            vec!["m:   27 | 45000020 00010000 40060000 0a000002 0a000001 04d21234 000000"]
        );
        // No IP header annotation: unchanged (Click crashes).
        assert_eq!(
            run(UDP, "Null", "false"),
            vec![
                "m:   32 | 45000020 00010000 401166ca 0a000001 0a000002 04d21234 000c0000 61626364"
            ]
        );
    }

    #[test]
    fn configuration_errors() {
        let e = testing::build("Idle -> IPMirror(3) -> Idle;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("DST_ANNO"), "{e}");
    }
}
