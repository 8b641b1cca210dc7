//! # IP6Mirror
//!
//! `IP6Mirror()`
//!
//! **Category:** ip6. Swaps IPv6 source and destination.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Swaps the source and destination addresses of each IPv6 packet and, if
//! its next header is TCP or UDP and the first four payload bytes are
//! present, the source and destination ports. Checksums stay valid (the
//! swapped words sum to the same). Packets without a whole IPv6 header at
//! their annotation pass unchanged and are counted in `skipped`.
//!
//! ## Annotations
//!
//! Uses the IPv6 header annotation.
//!
//! ## Handlers
//!
//! * `skipped` (read): packets passed unchanged for lack of a header.
//!
//! ## See also
//!
//! IPMirror

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::ipv4::IpProtocol;
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::Ipv6Packet;

use super::fixed_header;

/// The IP6Mirror element.
#[derive(Default)]
pub struct IP6Mirror {
    skipped: u64,
}

/// Mirrors `p`; false if it has no fixed IPv6 header at its annotation.
fn mirror(p: &mut Packet) -> bool {
    let Some(h) = p.ip_header_mut() else {
        return false;
    };
    let Some((fixed, rest)) = h.split_first_chunk_mut::<HEADER_LEN>() else {
        return false;
    };
    let mut v = Ipv6Packet::new_unchecked(fixed);
    let (s, d) = (v.src_addr(), v.dst_addr());
    v.set_src_addr(d);
    v.set_dst_addr(s);
    if matches!(v.next_header(), IpProtocol::TCP | IpProtocol::UDP) {
        // TCP and UDP headers both open with the source and destination
        // ports; a payload shorter than four bytes has none to swap.
        if let Some(ports) = rest.first_chunk_mut::<4>() {
            *ports = [ports[2], ports[3], ports[0], ports[1]];
        }
    }
    true
}

rclick_core::handlers! {
    /// IP6Mirror's handlers (the manual's list).
    enum H {
        Skipped = read("skipped"),
    }
}

impl Element for IP6Mirror {
    fn class_name(&self) -> &'static str {
        "IP6Mirror"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        // Look before writing: a write copies a shared buffer.
        let has_header = fixed_header(&p).is_some();
        if !has_header || !mirror(&mut p) {
            self.skipped += 1;
        }
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.skipped.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use crate::ip6::test_util::{ip6_hex, run_log};
    use rclick_core::testing;

    /// Compared with the reference Click: addresses and UDP ports swap.
    #[test]
    fn swaps_addresses_and_ports() {
        let d = ip6_hex(
            "2001:db8::1",
            "2001:db8:1::2",
            17,
            64,
            &[0x12, 0x34, 0x56, 0x78, 0, 16, 0, 0],
        );
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> MarkIP6Header -> IP6Mirror
               -> Print(m, 64) -> Discard"
        ));
        assert_eq!(
            log,
            [
                "m:   48 | 60000000 00081140 20010db8 00010000 00000000 00000002 \
              20010db8 00000000 00000000 00000001 56781234 00100000"
            ]
        );
        // ICMPv6 (58): addresses only.
        let d = ip6_hex("::1", "::2", 58, 64, &[1, 2, 3, 4]);
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> MarkIP6Header -> IP6Mirror
               -> IP6Print(m) -> Print(p, 44) -> Discard"
        ));
        assert_eq!(log[0], "m: ::2 -> ::1 plen 4, next 58, hlim 64");
        assert!(log[1].ends_with("01020304"), "{log:?}");
    }

    #[test]
    fn no_header_is_counted() {
        let d = ip6_hex("::1", "::2", 6, 64, &[1, 2]);
        let conf = format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> a :: IP6Mirror
               -> MarkIP6Header -> b :: IP6Mirror -> Print(p, 64)
               -> Truncate(30) -> c :: IP6Mirror -> Discard"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        // A two-byte TCP payload: no ports to swap.
        let log = r.take_log();
        assert!(log[0].ends_with("00000001 0102"), "{log:?}");
        assert_eq!(testing::read(&r, "a.skipped"), "1");
        assert_eq!(testing::read(&r, "b.skipped"), "0");
        assert_eq!(testing::read(&r, "c.skipped"), "1");
    }
}
