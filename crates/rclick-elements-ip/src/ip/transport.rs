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

use super::CheckDrops;
use rclick_core::drops::DropReason;

/// A transport protocol's checker class (Click's CheckTCPHeader,
/// CheckUDPHeader and CheckICMPHeader): its protocol number, the header
/// named in its log line, its drop reasons and its own check of the
/// segment. Each class's file (check_tcp_header.rs and the others)
/// implements it on its drop-reason enum; [`HeaderChecker`] is what they
/// share: finding the segment, the outputs, the keywords and handlers.
pub(crate) trait Checked: DropReason {
    const CLASS: &'static str;
    const PROTO: u8;
    const WHAT: &'static str;
    const HAS_CHECKSUM_KEYWORD: bool;
    /// The reason for a packet that is not this protocol, or not a first
    /// fragment, or has no usable IP header.
    const NOT_PROTO: Self;
    /// Checks `seg`, the transport segment of a first fragment of this
    /// protocol from `src` to `dst` (its length bounded by the IP total
    /// length); `checksum` is the CHECKSUM keyword (true where the class
    /// has none).
    fn check_segment(seg: &[u8], src: Ipv4Addr, dst: Ipv4Addr, checksum: bool) -> Result<(), Self>;
}

/// CheckTCPHeader, CheckUDPHeader and CheckICMPHeader.
pub struct HeaderChecker<R: Checked> {
    checksum: bool,
    pub(crate) drops: CheckDrops<R>,
}

impl<R: Checked> Default for HeaderChecker<R> {
    fn default() -> Self {
        HeaderChecker {
            checksum: true,
            drops: CheckDrops::new(R::WHAT),
        }
    }
}

impl<R: Checked> HeaderChecker<R> {
    /// Makes the element of class `R` (for the registry).
    pub(crate) fn make() -> Box<dyn Element> {
        Box::<Self>::default()
    }

    /// Checks `p`: `Err(reason)` on failure.
    #[inline]
    fn check(&self, p: &rclick_core::Packet) -> Result<(), R> {
        let Some((src, dst, proto, hlen, tlen, first)) = segment_info(p) else {
            return Err(R::NOT_PROTO);
        };
        if proto != R::PROTO || !first {
            return Err(R::NOT_PROTO);
        }
        let Some(h) = p.ip_header() else {
            return Err(R::NOT_PROTO);
        };
        let seg = &h[hlen..hlen + tlen];
        R::check_segment(seg, Ipv4Addr::from(src), Ipv4Addr::from(dst), self.checksum)
    }
}

impl<R: Checked> Element for HeaderChecker<R> {
    fn class_name(&self) -> &'static str {
        R::CLASS
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
        if R::HAS_CHECKSUM_KEYWORD {
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
                Err(why) => {
                    self.drops.count(why, cx);
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
            Err(why) => {
                self.drops.count(why, cx);
                cx.checked_push(1, PacketBatch::from(p));
                None
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        self.drops.handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.drops.read(id)
    }
}

#[cfg(test)]
mod tests {
    use super::segment_info;
    use rclick_core::Packet;

    /// The fields read from the IP header, and each refusal.
    #[test]
    fn reads_segment_info() {
        let mut h = [
            0x45u8, 0, 0, 28, 0, 0, 0x20, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, //
            0, 1, 0, 2, 0, 8, 0, 0,
        ];
        let info = |h: &[u8], hlen| {
            let mut p = Packet::from_slice(h);
            p.set_ip_header(0, hlen);
            segment_info(&p)
        };
        assert_eq!(
            info(&h, 20),
            Some((0x0a00_0001, 0x0a00_0002, 17, 20, 8, true))
        );
        assert_eq!(info(&h, 16), None, "header length under 20");
        h[7] = 1; // offset 8: not a first fragment
        assert_eq!(info(&h, 20).map(|i| i.5), Some(false));
        h[3] = 40; // total length past the data
        assert_eq!(info(&h, 20), None);
        assert_eq!(segment_info(&Packet::from_slice(&h)), None, "no IP header");
    }
}
