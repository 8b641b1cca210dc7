//! # EnsureEther
//!
//! `EnsureEther([ETHERTYPE, SRC, DST])`
//!
//! **Category:** ethernet. Makes sure IP packets have an Ethernet header.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Gives IP packets (those with an IP header annotation at or after the
//! data start) an Ethernet header, for a path where some packets have one
//! and others do not:
//!
//! * A packet whose IP header starts 14 bytes in, after an IPv4 or IPv6
//!   Ethernet type, passes unchanged.
//! * A packet whose IP header starts the data, where the 14 bytes before
//!   it still hold an Ethernet header of type IPv4 or IPv6 (one removed by
//!   Strip), gets that header back.
//! * Any other IP packet loses what precedes its IP header and gets the
//!   configured header: type ETHERTYPE (default 0x0800), source SRC
//!   (default 1:1:1:1:1:1), destination DST (default 2:2:2:2:2:2).
//!
//! Packets without an IP header annotation pass unchanged. A packet whose
//! buffer cannot grow by 14 bytes is dropped and counted.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped because their buffer could not grow
//!   (not in Click).
//!
//! ## Examples
//!
//! ```text
//! ... -> EnsureEther(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2) -> ToDump(out.pcap)
//! ```
//!
//! ## See also
//!
//! EtherEncap, EtherRewrite

use rclick_core::args::{Args, EtherAddr};
use rclick_core::drops::simple::keep_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr};

/// The EnsureEther element.
pub struct EnsureEther {
    header: [u8; 14],
    drops: u64,
}

impl Default for EnsureEther {
    fn default() -> Self {
        EnsureEther {
            header: Self::header(0x0800, [1; 6], [2; 6]),
            drops: 0,
        }
    }
}

/// Whether the 14 bytes `h` are an Ethernet header of an IP type.
fn is_ip_ether(h: &[u8]) -> bool {
    match h.first_chunk::<14>() {
        Some(h) => matches!(
            EthernetFrame::new_unchecked(h).ethertype(),
            EtherType::IPV4 | EtherType::IPV6
        ),
        None => false,
    }
}

impl EnsureEther {
    fn header(ethertype: u16, src: [u8; 6], dst: [u8; 6]) -> [u8; 14] {
        let mut h = [0u8; 14];
        EthernetRepr {
            src_addr: EthernetAddress(src),
            dst_addr: EthernetAddress(dst),
            ethertype: EtherType(ethertype),
        }
        .emit(&mut EthernetFrame::new_unchecked(&mut h[..]));
        h
    }

    /// False if the packet must be dropped.
    fn ensure(&self, p: &mut Packet) -> bool {
        let Some(off) = p.ip_header_offset().and_then(|o| usize::try_from(o).ok()) else {
            return true;
        };
        if off == 14 && is_ip_ether(p.data()) {
            return true;
        }
        if off == 0 && p.headroom() >= 14 && p.push_keep(14).is_ok() {
            if is_ip_ether(p.data()) {
                return true;
            }
            p.pull(14);
        }
        p.pull(off);
        p.push_slice(&self.header).is_ok()
    }
}

impl Element for EnsureEther {
    fn class_name(&self) -> &'static str {
        "EnsureEther"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ethertype: u32 = 0x0800;
        let (mut src, mut dst) = (EtherAddr([1; 6]), EtherAddr([2; 6]));
        Args::new_with(conf, cx.arg_context())
            .read_p("ETHERTYPE", &mut ethertype)
            .read_p("SRC", &mut src)
            .read_p("DST", &mut dst)
            .complete()
            .map_err(|e| e.to_string())?;
        let ethertype = u16::try_from(ethertype).map_err(|_| {
            "argument 1 (Ethernet encapsulation type) must be <= 0xFFFF".to_string()
        })?;
        self.header = Self::header(ethertype, src.0, dst.0);
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let ok = self.ensure(&mut p);
        keep_or_count(&mut self.drops, p, ok)
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    const IP: &str = "45000020 00010000 401166ca 0a000001 0a000002 04d21234 000c0000 61626364";
    const ETH: &str = "000102030405 0a0b0c0d0e0f 0800";

    fn run(data: &str, before: &str, args: &str) -> Vec<String> {
        testing::run(
            &format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> {before}
                 -> EnsureEther({args}) -> Print(m, 16) -> Discard;"
            ),
            &registry(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .take_log()
    }

    /// Checked against Click, case by case.
    #[test]
    fn cases() {
        let dflt = "m:   46 | 02020202 02020101 01010101 08004500";
        let theirs = "m:   46 | 00010203 04050a0b 0c0d0e0f 08004500";
        let mine = "m:   46 | 04040404 04040303 03030303 86dd4500";
        let conf = "0x86dd, 3:3:3:3:3:3, 4:4:4:4:4:4";
        // Bare IP: the configured header.
        assert_eq!(run(IP, "MarkIPHeader", ""), vec![dflt]);
        // A stripped Ethernet header of an IP type comes back.
        assert_eq!(
            run(&format!("{ETH} {IP}"), "Strip(14) -> MarkIPHeader", conf),
            vec![theirs]
        );
        // ... one of another type does not.
        let arp = ETH.replace("0800", "0806");
        assert_eq!(
            run(&format!("{arp} {IP}"), "Strip(14) -> MarkIPHeader", conf),
            vec![mine]
        );
        // Already encapsulated.
        assert_eq!(
            run(&format!("{ETH} {IP}"), "MarkIPHeader(14)", ""),
            vec![theirs]
        );
        // 14 bytes in, but not of an IP type: replaced.
        assert_eq!(
            run(&format!("{arp} {IP}"), "MarkIPHeader(14)", ""),
            vec![dflt]
        );
        // Other bytes before the IP header are replaced.
        assert_eq!(
            run(&format!("aabbccdd {IP}"), "MarkIPHeader(4)", ""),
            vec![dflt]
        );
        // No IP header: unchanged.
        assert_eq!(
            run(&format!("aabbccdd {IP}"), "Null", ""),
            vec!["m:   36 | aabbccdd 45000020 00010000 401166ca"]
        );
    }

    /// Checked against Click: the error texts.
    #[test]
    fn configuration_errors() {
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> EnsureEther({conf}) -> Idle;"),
            &[
                ("0x10000", "must be <= 0xFFFF"),
                ("x", "ETHERTYPE"),
                ("1, 2", "SRC"),
                ("1, 2:2:2:2:2:2, 3:3:3:3:3:3, 4", "too many arguments"),
            ],
        );
        assert!(testing::build(
            "Idle -> EnsureEther(ETHERTYPE 5, DST 1:2:3:4:5:6) -> Idle;",
            &registry(),
            true
        )
        .is_ok());
    }
}
