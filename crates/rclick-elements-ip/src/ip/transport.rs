//! Helpers for the TCP/UDP/ICMP checksum setters and checkers (not an
//! element).

use rclick_core::Packet;
use rclick_wire::Ipv4Packet;

/// The IP header and transport segment of `p`, bounded by the IP total
/// length: (source, destination, protocol, header length, segment length,
/// first fragment), or `None` when the packet has no usable IP header.
pub(crate) fn segment_info(p: &Packet) -> Option<(u32, u32, u8, usize, usize, bool)> {
    let h = p.ip_header()?;
    let hlen = p.ip_header_len();
    if hlen < 20 || h.len() < hlen {
        return None;
    }
    let ip = Ipv4Packet::new_unchecked(h);
    let total = usize::from(ip.total_len());
    if total < hlen || total > h.len() {
        return None;
    }
    let (src, dst) = (u32::from(ip.src_addr()), u32::from(ip.dst_addr()));
    let first = ip.frag_offset() == 0;
    Some((src, dst, ip.protocol().0, hlen, total - hlen, first))
}

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_wire::checksum;

use super::Drops;

/// CheckTCPHeader, CheckUDPHeader and CheckICMPHeader.
pub struct HeaderChecker {
    class: &'static str,
    proto: u8,
    checksum: bool,
    has_checksum_keyword: bool,
    pub(crate) drops: Drops,
}

impl HeaderChecker {
    /// A checker for protocol `proto` (6, 17 or 1).
    pub fn new(class: &'static str, proto: u8) -> Self {
        let (what, reasons): (&'static str, &'static [&'static str]) = match proto {
            6 => (
                "TCP header",
                &["not TCP", "bad packet length", "bad TCP checksum"],
            ),
            17 => (
                "UDP header",
                &["not UDP", "bad packet length", "bad UDP checksum"],
            ),
            _ => (
                "ICMP header",
                &["not ICMP", "bad packet length", "bad ICMP checksum"],
            ),
        };
        HeaderChecker {
            class,
            proto,
            checksum: true,
            has_checksum_keyword: proto == 6,
            drops: Drops::new(what, reasons),
        }
    }

    /// Checks `p`: `Err(reason)` on failure.
    fn check(&self, p: &rclick_core::Packet) -> Result<(), usize> {
        let Some((src, dst, proto, hlen, tlen, first)) = segment_info(p) else {
            return Err(0);
        };
        if proto != self.proto || !first {
            return Err(0);
        }
        let Some(h) = p.ip_header() else {
            return Err(0);
        };
        let seg = &h[hlen..hlen + tlen];
        let (s, d) = (Ipv4Addr::from(src), Ipv4Addr::from(dst));
        match self.proto {
            6 => {
                if tlen < 20 {
                    return Err(1);
                }
                let off = usize::from(rclick_wire::TcpPacket::new_unchecked(seg).header_len());
                if off < 20 || off > tlen {
                    return Err(1);
                }
                if self.checksum
                    && !rclick_wire::TcpPacket::new_unchecked(seg).verify_checksum(s, d)
                {
                    return Err(2);
                }
            }
            17 => {
                if tlen < 8 {
                    return Err(1);
                }
                let ulen = usize::from(rclick_wire::UdpPacket::new_unchecked(seg).len());
                if ulen < 8 || ulen > tlen {
                    return Err(1);
                }
                let u = rclick_wire::UdpPacket::new_unchecked(&seg[..ulen]);
                if u.checksum() != 0 && !u.verify_checksum(s, d) {
                    return Err(2);
                }
            }
            _ => {
                if tlen < 8 {
                    return Err(1);
                }
                if !checksum::verify(seg) {
                    return Err(2);
                }
            }
        }
        Ok(())
    }
}

impl Element for HeaderChecker {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut verbose = false;
        let mut details = false;
        let mut csum = true;
        let mut a = Args::new(conf)
            .read("VERBOSE", &mut verbose)
            .read("DETAILS", &mut details);
        if self.has_checksum_keyword {
            a = a.read("CHECKSUM", &mut csum);
        }
        a.complete().map_err(|e| e.to_string())?;
        self.drops.verbose = verbose;
        self.drops.details = details;
        self.checksum = csum;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mut good = PacketBatch::with_capacity(batch.len());
        let mut bad = PacketBatch::new();
        for p in batch {
            match self.check(&p) {
                Ok(()) => good.push(p),
                Err(r) => {
                    self.drops.count(r, cx);
                    bad.push(p);
                }
            }
        }
        if !good.is_empty() {
            cx.push(0, good);
        }
        if !bad.is_empty() {
            cx.checked_push(1, bad);
        }
    }
    fn simple_action(
        &mut self,
        p: rclick_core::Packet,
        cx: &mut Ctx,
    ) -> Option<rclick_core::Packet> {
        match self.check(&p) {
            Ok(()) => Some(p),
            Err(r) => {
                self.drops.count(r, cx);
                cx.checked_push(1, PacketBatch::from(p));
                None
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        let mut h = Vec::new();
        self.drops.handlers(&mut h);
        h
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.drops.read(id).ok_or_else(|| "no such handler".into())
    }
}
