//! # TCPFragmenter
//!
//! `TCPFragmenter(keywords MTU, MTU_ANNO)`
//!
//! **Category:** tcp. Splits TCP packets to fit an MTU.
//!
//! **Ports:** one push input, one push output.
//!
//! ## Description
//!
//! Cuts a TCP/IP packet longer than MTU bytes (IP header, TCP header and
//! payload) into packets of at most MTU bytes, each carrying the next
//! part of the payload: a copy of everything before the payload (an
//! Ethernet header in front of the IP header too) with the IP total
//! length, the IP checksum, the sequence number (advanced by the part's
//! offset) and the TCP checksum set for the part. A packet whose payload
//! fills exactly the MTU is rewritten as one piece, as Click does.
//! Smaller packets, packets whose headers leave no room for payload, and
//! packets that are not TCP or are too short for their headers pass
//! unchanged.
//!
//! Keywords (at least one must be given):
//!
//! * `MTU` (unsigned, at most 65535): the largest IP packet.
//! * `MTU_ANNO` (annotation offset): where a two-byte MTU annotation
//!   lies; when nonzero and smaller than MTU (or MTU is 0), it is the MTU
//!   for that packet.
//!
//! ## Annotations
//!
//! Uses the IP header annotation and, with MTU_ANNO, the MTU annotation.
//! The pieces keep the packet's annotations.
//!
//! ## Differences from Click
//!
//! Click fragments any packet, TCP or not, reads its headers without
//! checking their lengths, and leaves MTU unset (garbage) when only
//! MTU_ANNO is given; here MTU defaults to 0.
//!
//! ## Examples
//!
//! ```text
//! ... -> TCPFragmenter(MTU 1500) -> EtherEncap(...) -> ...
//! ```
//!
//! ## See also
//!
//! IPFragmenter

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};
use rclick_wire::{IpProtocol, Ipv4Packet, TcpPacket};

/// The TCPFragmenter element.
#[derive(Default)]
pub struct TCPFragmenter {
    mtu: usize,
    mtu_anno: Option<usize>,
}

/// Where a TCP packet's parts lie, as offsets into its data.
struct Layout {
    /// The IP header.
    ip: usize,
    ip_len: usize,
    /// The payload, and its length (by the IP total length).
    data: usize,
    data_len: usize,
}

fn layout(p: &Packet) -> Option<Layout> {
    let ip = usize::try_from(p.ip_header_offset()?).ok()?;
    let h = p.data().get(ip..)?;
    let v = Ipv4Packet::new_checked(h).ok()?;
    if v.protocol() != IpProtocol::TCP {
        return None;
    }
    let ip_len = v.header_len() as usize;
    let t = TcpPacket::new_checked(v.payload()).ok()?;
    let tcp_len = t.header_len() as usize;
    Some(Layout {
        ip,
        ip_len,
        data: ip + ip_len + tcp_len,
        data_len: v.total_len() as usize - ip_len - tcp_len,
    })
}

impl TCPFragmenter {
    /// The MTU for `p`.
    fn mtu(&self, p: &Packet) -> usize {
        let anno = self
            .mtu_anno
            .map_or(0, |at| usize::from(p.anno().u16_at(at)));
        if anno != 0 && (self.mtu == 0 || self.mtu > anno) {
            anno
        } else {
            self.mtu
        }
    }

    /// The piece of `p` carrying `len` payload bytes from `offset`.
    fn piece(p: &Packet, l: &Layout, offset: usize, len: usize) -> Packet {
        let d = p.data();
        let mut bytes = Vec::with_capacity(l.data + len);
        bytes.extend_from_slice(&d[..l.data]);
        bytes.extend_from_slice(&d[l.data + offset..l.data + offset + len]);
        let mut q = Packet::make(p.headroom(), &bytes, 0);
        q.copy_annotations(p);
        if let Some(m) = p.mac_header_offset().and_then(|m| usize::try_from(m).ok()) {
            q.set_mac_header_len(m, p.mac_header_len());
        }
        q.set_ip_header(l.ip, l.ip_len);
        let total = (l.data - l.ip + len) as u16;
        let (ip, tcp) = q.data_mut()[l.ip..].split_at_mut(l.ip_len);
        let mut v = Ipv4Packet::new_unchecked(ip);
        v.set_total_len(total);
        v.fill_checksum();
        let (src, dst) = (v.src_addr(), v.dst_addr());
        let mut t = TcpPacket::new_unchecked(tcp);
        let seq = t.seq_number().wrapping_add(offset as u32);
        t.set_seq_number(seq);
        t.fill_checksum(src, dst);
        q
    }

    fn fragment(&self, p: Packet, out: &mut PacketBatch) {
        let mtu = self.mtu(&p);
        let Some(l) = layout(&p) else {
            out.push(p);
            return;
        };
        let headers = l.data - l.ip;
        let max = mtu.saturating_sub(headers);
        if mtu == 0 || max == 0 || l.data_len < max {
            out.push(p);
            return;
        }
        let mut offset = 0;
        while offset < l.data_len {
            let len = max.min(l.data_len - offset);
            out.push(Self::piece(&p, &l, offset, len));
            offset += max;
        }
    }
}

impl Element for TCPFragmenter {
    fn class_name(&self) -> &'static str {
        "TCPFragmenter"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut mtu: u16 = 0;
        let mut anno: Option<usize> = None;
        Args::new(conf)
            .read("MTU", &mut mtu)
            .read_with("MTU_ANNO", &mut anno, |s| match s.parse::<usize>() {
                Ok(v) if v + 2 <= rclick_packet::USER_ANNO_SIZE => Ok(Some(v)),
                _ => Err("expected annotation offset".to_string()),
            })
            .complete()
            .map_err(|e| e.to_string())?;
        if mtu == 0 && anno.is_none() {
            return Err("At least one of MTU and MTU_ANNO must be set".to_string());
        }
        self.mtu = usize::from(mtu);
        self.mtu_anno = anno;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mut out = PacketBatch::new();
        for p in batch {
            self.fragment(p, &mut out);
        }
        if !out.is_empty() {
            cx.push(0, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    const TCP: &str = "45000032 00010000 40060000 0a000001 0a000002 04d21234 00000064 00000002 50100000 00000000 61626364 65666768 696a";

    fn run(data: &str, before: &str, args: &str, after: &str) -> Vec<String> {
        testing::run(
            &format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> {before}
                 -> TCPFragmenter({args}) -> Print(m, 70) -> {after} -> Discard;"
            ),
            &registry(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .take_log()
    }

    /// Checked against Click: Ethernet header copied, lengths, sequence
    /// numbers and both checksums per piece.
    #[test]
    fn fragments_like_click() {
        let log = run(
            &format!("000102030405 0a0b0c0d0e0f 0800 {TCP}"),
            "Strip(14) -> MarkIPHeader -> SetIPChecksum -> SetTCPChecksum -> Unstrip(14)",
            "MTU 44",
            "Strip(14) -> CheckIPHeader -> CheckTCPHeader",
        );
        assert_eq!(
            log,
            vec![
                "m:   58 | 00010203 04050a0b 0c0d0e0f 08004500 002c0001 00004006 66c90a00 00010a00 000204d2 12340000 00640000 00025010 0000bf9b 00006162 6364",
                "m:   58 | 00010203 04050a0b 0c0d0e0f 08004500 002c0001 00004006 66c90a00 00010a00 000204d2 12340000 00680000 00025010 0000b78f 00006566 6768",
                "m:   56 | 00010203 04050a0b 0c0d0e0f 08004500 002a0001 00004006 66cb0a00 00010a00 000204d2 12340000 006c0000 00025010 00001af2 0000696a",
            ]
        );
    }

    /// Checked against Click: an MTU the packet fits passes it; one byte
    /// less splits off the last byte.
    #[test]
    fn boundaries() {
        let prep = "MarkIPHeader -> SetIPChecksum -> SetTCPChecksum";
        assert_eq!(
            run(TCP, prep, "MTU 50", "Null"),
            vec!["m:   50 | 45000032 00010000 400666c3 0a000001 0a000002 04d21234 00000064 00000002 50100000 895c0000 61626364 65666768 696a"]
        );
        assert_eq!(
            run(TCP, prep, "MTU 49", "Null"),
            vec![
                "m:   49 | 45000031 00010000 400666c4 0a000001 0a000002 04d21234 00000064 00000002 50100000 89c70000 61626364 65666768 69",
                "m:   41 | 45000029 00010000 400666cc 0a000001 0a000002 04d21234 0000006d 00000002 50100000 1a5c0000 6a",
            ]
        );
        // Not TCP, or no IP header: unchanged.
        let udp = TCP.replace("40060000", "40110000");
        assert_eq!(run(&udp, "MarkIPHeader", "MTU 44", "Null").len(), 1);
        assert_eq!(run(TCP, "Null", "MTU 44", "Null").len(), 1);
        // Headers longer than the MTU: unchanged.
        assert_eq!(run(TCP, "MarkIPHeader", "MTU 30", "Null").len(), 1);
    }

    /// Checked against Click: keyword-only arguments.
    #[test]
    fn configuration() {
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> TCPFragmenter({conf}) -> Idle;"),
            &[
                ("44", "too many arguments"),
                ("", "At least one of MTU and MTU_ANNO must be set"),
                ("MTU 0", "At least one of MTU and MTU_ANNO must be set"),
                ("MTU 70000", "MTU"),
            ],
        );
        assert!(testing::build(
            "Idle -> TCPFragmenter(MTU_ANNO 3) -> Idle;",
            &registry(),
            true
        )
        .is_ok());
    }
}
