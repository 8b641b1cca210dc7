//! # FixIPSrc
//!
//! `FixIPSrc(IPADDR)`
//!
//! **Category:** ip. Sets the IP source address if requested by an
//! annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Expects IP packets (with the IP header annotation). If a packet's "fix
//! IP source" annotation is set (ICMPError sets it on errors it generates),
//! clears the annotation, sets the IP source address to IPADDR (an IP
//! address or AddressInfo name, mandatory) and recomputes the IP header
//! checksum. Other packets pass unchanged. Implements RFC 1812 4.3.2.4:
//! ICMP errors carry the address of the interface they leave by.
//!
//! ## Annotations
//!
//! Uses and clears the fix-IP-source annotation; uses the IP header
//! annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> FixIPSrc(18.26.4.1) -> ...
//! ```
//!
//! ## See also
//!
//! ICMPError

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};
use rclick_wire::Ipv4Packet;

/// The FixIPSrc element.
pub struct FixIPSrc {
    addr: Ipv4Addr,
}

impl Default for FixIPSrc {
    fn default() -> Self {
        FixIPSrc {
            addr: Ipv4Addr::UNSPECIFIED,
        }
    }
}

impl FixIPSrc {
    #[inline]
    fn fix_batch(&self, batch: &mut PacketBatch) {
        for p in batch.iter_mut() {
            if p.fix_ip_src_anno() {
                self.fix(p);
            }
        }
    }

    /// Clears the annotation and writes the source address (and the
    /// checksum) of a packet that has it.
    #[cold]
    #[inline(never)]
    fn fix(&self, p: &mut Packet) {
        p.set_fix_ip_src_anno(false);
        let hlen = p.ip_header_len();
        if hlen >= 20 {
            if let Some(h) = p.ip_header_mut() {
                if h.len() >= hlen {
                    let mut v = Ipv4Packet::new_unchecked(&mut h[..hlen]);
                    v.set_src_addr(self.addr);
                    v.fill_checksum();
                }
            }
        }
    }
}

impl Element for FixIPSrc {
    fn class_name(&self) -> &'static str {
        "FixIPSrc"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = Ipv4Addr::UNSPECIFIED;
        Args::new_with(conf, cx.arg_context())
            .read_mp("IPADDR", &mut addr)
            .complete()
            .map_err(|e| e.to_string())?;
        self.addr = addr;
        Ok(())
    }
    /// The batch is checked in place: only packets with the annotation
    /// set (ICMP errors this router made) are touched, out of line: 11
    /// instructions per packet that has none, hop included, against 49
    /// through the default per-packet `push` (callgrind, BURST 32).
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        self.fix_batch(&mut batch);
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        self.fix_batch(&mut batch);
        batch
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        if p.fix_ip_src_anno() {
            self.fix(&mut p);
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// ICMPError's packets ask for a fixed source: FixIPSrc writes it and
    /// the checksum stays right; other packets pass unchanged.
    #[test]
    fn fixes_only_when_asked() {
        let good = "4500001c 00000000 4011 65ce 0a000002 0a000102 04d2162e 000c0000";
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{good}>, LIMIT 1, STOP true) -> MarkIPHeader
                 -> Tee -> ICMPError(10.9.9.9, timeexceeded) -> f :: FixIPSrc(192.0.2.1)
                 -> CheckIPHeader -> IPPrint(e) -> Discard;
                 InfiniteSource(DATA \\<{good}>, LIMIT 1) -> MarkIPHeader -> f2 :: FixIPSrc(192.0.2.1)
                 -> CheckIPHeader -> IPPrint(p) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        let log = r.take_log().join("\n");
        // IPPrint's lines carry a timestamp after the label.
        assert!(
            log.contains(": 192.0.2.1 > 10.0.0.2: icmp timeexceeded"),
            "{log}"
        );
        assert!(
            log.contains(": 10.0.0.2.1234 > 10.0.1.2.5678: udp"),
            "{log}"
        );
    }
}
