//! # EraseIPPayload
//!
//! ## Synopsis
//!
//! `EraseIPPayload()`
//!
//! ## Category
//!
//! analysis — zeroes the payload of TCP and UDP packets.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Sets every byte after the transport header to zero and zeroes the
//! transport checksum, keeping the IP and transport headers; useful before
//! writing traces that must not carry user data. It takes no arguments.
//!
//! * TCP: the payload starts after the header length the TCP header gives.
//!   When the data-offset byte itself is missing (fewer than 13 bytes of
//!   TCP), everything after the IP header is zeroed. The checksum is zeroed
//!   when its two bytes are present.
//! * UDP: the payload starts 8 bytes after the IP header; a UDP header
//!   shorter than 8 bytes leaves the packet unchanged.
//! * ICMP packets pass unchanged.
//! * Packets of any other protocol, and packets without an IP header, are
//!   dropped (counted in `drops`). Like Click, the transport header is
//!   located in fragments too: the first 8 bytes of a later UDP fragment
//!   are kept as if they were a header.
//!
//! ## Annotations
//!
//! Reads the network header.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped (an rclick addition).
//!
//! ## Example
//!
//! `FromDump(f) -> EraseIPPayload -> ToDump(g)`
//!
//! ## See also
//!
//! AnonymizeIPAddr, TruncateIPPayload

use super::drop_counting::{DropCounting, DropCountingElement};
use rclick_core::args::Args;
use rclick_core::Packet;
use rclick_wire::{tcp, udp};

const PROTO_ICMP: u8 = 1;
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_FIELD: usize = 9;

/// EraseIPPayload's own part: it takes no arguments.
#[derive(Default)]
pub(crate) struct EraseIPPayloadClass;

/// Zeroes the payload and checksum of the transport bytes `t`; `false` when
/// the protocol is not one this element handles.
fn erase(proto: u8, t: &mut [u8]) -> bool {
    let (off, sum) = match proto {
        PROTO_TCP => match t.get(tcp::field::DATA_OFFSET) {
            Some(&b) => (usize::from(b >> 4) * 4, tcp::field::CHECKSUM),
            None => (0, tcp::field::CHECKSUM),
        },
        PROTO_UDP if t.len() >= udp::field::HEADER.end => {
            (udp::field::HEADER.end, udp::field::CHECKSUM)
        }
        PROTO_UDP | PROTO_ICMP => return true,
        _ => return false,
    };
    if let Some(c) = t.get_mut(sum..sum + 2) {
        c.fill(0);
    }
    if let Some(payload) = t.get_mut(off..) {
        payload.fill(0);
    }
    true
}

impl DropCounting for EraseIPPayloadClass {
    const CLASS: &'static str = "EraseIPPayload";

    fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }

    fn change(&mut self, p: &mut Packet) -> bool {
        let hl = p.ip_header_len();
        match p.network_header_mut() {
            Some(h) if hl >= 20 && h.len() >= hl => {
                let proto = h[PROTO_FIELD];
                erase(proto, &mut h[hl..])
            }
            _ => false,
        }
    }
}

/// The EraseIPPayload element: its own part in a [`DropCountingElement`].
pub(crate) type EraseIPPayload = DropCountingElement<EraseIPPayloadClass>;

#[cfg(test)]
mod tests {
    use super::super::test_util::registry;
    use rclick_core::testing;

    const IP_TCP: &str = "45 00 00 30 00 00 00 00 40 06 00 00 01 02 03 04 05 06 07 08";
    const TCP_HDR: &str = "00 01 00 02 00 00 00 01 00 00 00 02";

    /// Runs one packet through EraseIPPayload; returns Print's line for it,
    /// or "" when it was dropped (and counted).
    fn erase(hex: &str) -> String {
        let conf = format!(
            "InfiniteSource(DATA \\<{hex}>, LIMIT 1, STOP true) -> MarkIPHeader
             -> e :: EraseIPPayload -> Print(x, 64) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        let drops = testing::read(&r, "e.drops");
        let log = r.take_log();
        match log.first() {
            Some(l) => l.clone(),
            None => {
                assert_eq!(drops, "1");
                String::new()
            }
        }
    }

    // Each expected line below is what Click printed for the same input
    // (clickdiff).
    #[test]
    fn udp_payload_and_checksum_zeroed() {
        let p = "45 00 00 30 00 00 00 00 40 11 00 00 01 02 03 04 05 06 07 08 00 01 00 02 00 10 12 34 aa bb cc dd ee ff";
        assert_eq!(
            erase(p),
            "x:   34 | 45000030 00000000 40110000 01020304 05060708 00010002 00100000 00000000 0000"
        );
        // a later fragment is treated the same way
        let f = p.replacen("00 00 40 11", "00 01 40 11", 1);
        assert_eq!(
            erase(&f),
            "x:   34 | 45000030 00000001 40110000 01020304 05060708 00010002 00100000 00000000 0000"
        );
        // short UDP header: unchanged
        let s = "45 00 00 30 00 00 00 00 40 11 00 00 01 02 03 04 05 06 07 08 00 01 00 02 00 10";
        assert_eq!(
            erase(s),
            "x:   26 | 45000030 00000000 40110000 01020304 05060708 00010002 0010"
        );
    }

    #[test]
    fn tcp_payload_after_data_offset() {
        let h = "x:   {} | 45000030 00000000 40060000 01020304 05060708 ";
        let line = |n: usize, rest: &str| format!("{}{rest}", h.replace("{}", &n.to_string()));
        // 24-byte header (data offset 6): option bytes kept
        let p = format!("{IP_TCP} {TCP_HDR} 60 10 00 00 12 34 00 00 aa bb");
        assert_eq!(
            erase(&p),
            line(42, "00010002 00000001 00000002 60100000 00000000 aabb")
        );
        // 21 bytes: checksum and byte 20 zeroed
        let p = format!("{IP_TCP} {TCP_HDR} 50 10 00 00 12 34 56 78 99");
        assert_eq!(
            erase(&p),
            line(41, "00010002 00000001 00000002 50100000 00005678 00")
        );
        // 17 bytes: checksum incomplete, nothing changes
        let p = format!("{IP_TCP} {TCP_HDR} 50 10 00 00 12");
        assert_eq!(
            erase(&p),
            line(37, "00010002 00000001 00000002 50100000 12")
        );
        // 13 bytes: the header ends past the packet, nothing changes
        let p = format!("{IP_TCP} {TCP_HDR} 50");
        assert_eq!(erase(&p), line(33, "00010002 00000001 00000002 50"));
        // 12 bytes: no data offset, all transport bytes zeroed
        let p = format!("{IP_TCP} {TCP_HDR}");
        assert_eq!(erase(&p), line(32, "00000000 00000000 00000000"));
    }

    #[test]
    fn icmp_unchanged_other_protocols_and_non_ip_dropped() {
        let p = "45 00 00 30 00 00 00 00 40 01 00 00 01 02 03 04 05 06 07 08 08 00 11 22 33 44 55 66 aa bb";
        assert_eq!(
            erase(p),
            "x:   30 | 45000030 00000000 40010000 01020304 05060708 08001122 33445566 aabb"
        );
        assert_eq!(erase(&p.replacen("40 01", "40 2f", 1)), "");
        assert_eq!(erase(&p.replacen("40 01", "40 32", 1)), "");
        // Click crashes on a packet without an IP header; we count a drop.
        let r = testing::run(
            "InfiniteSource(DATA \\<00 11 22>, LIMIT 3, STOP true) -> e :: EraseIPPayload -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "e.drops"), "3");
        assert!(
            testing::build("Idle -> EraseIPPayload(1) -> Discard;", &registry(), true).is_err()
        );
    }
}
