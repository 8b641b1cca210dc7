//! # TruncateIPPayload
//!
//! `TruncateIPPayload([LENGTH, TRANSPORT, keyword EXTRA_LENGTH])`
//!
//! **Category:** ip. Limits the length of IP payloads.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Cuts each IP packet so that at most LENGTH bytes of payload remain
//! (the IP header fields are not changed). When TRANSPORT is true, the
//! payload starts after the transport header: the TCP header with its
//! options (20 bytes if its data offset is unreadable or too small), the
//! 8-byte UDP header, or the ICMP header (20 bytes for timestamp
//! messages, 12 for address mask messages, 8 for the others, counted
//! only when 8 bytes of ICMP are present). When TRANSPORT is false the
//! payload starts after the IP header; a header length field below 5
//! counts as 20 bytes. Packets without an IP header annotation are cut to
//! LENGTH bytes altogether.
//!
//! * `LENGTH` (unsigned, at most 65535, default 0).
//! * `TRANSPORT` (boolean, default true).
//! * `EXTRA_LENGTH` (boolean, default true): add the bytes cut off to the
//!   packet's extra length annotation.
//!
//! ## Annotations
//!
//! Uses the IP header annotation; updates the extra length annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> TruncateIPPayload(0) -> ToDump(headers.pcap)
//! ```
//!
//! ## See also
//!
//! Truncate, ToDump

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{icmp, IpProtocol, Ipv4Packet, TcpPacket};

/// The TruncateIPPayload element.
pub struct TruncateIPPayload {
    length: usize,
    transport: bool,
    extra_length: bool,
}

impl Default for TruncateIPPayload {
    fn default() -> Self {
        TruncateIPPayload {
            length: 0,
            transport: true,
            extra_length: true,
        }
    }
}

impl TruncateIPPayload {
    /// How many bytes to keep counted from the IP header (or from the
    /// start of the data, without one), or `None` to keep everything.
    fn keep(&self, p: &Packet) -> usize {
        let Some(ip) = p.ip_header() else {
            return self.length;
        };
        let Some(fixed) = ip.first_chunk::<20>() else {
            // Too short for a header length: as Click, which reads the
            // byte anyway, counts a short header as 20 bytes.
            return self.length + 20;
        };
        let v = Ipv4Packet::new_unchecked(fixed);
        let hl = v.header_len() as usize;
        if hl < 20 {
            return self.length + 20;
        }
        let mut keep = self.length + hl;
        if self.transport {
            let t = p.transport_header().unwrap_or_default();
            keep += match v.protocol() {
                IpProtocol::TCP => match t.first_chunk::<20>() {
                    Some(t) => (TcpPacket::new_unchecked(t).header_len() as usize).max(20),
                    None => 20,
                },
                IpProtocol::UDP => 8,
                IpProtocol::ICMP if t.len() >= 8 => icmp::header_len_for_type(t[0]),
                _ => 0,
            };
        }
        keep
    }

    fn truncate(&self, p: &mut Packet) {
        let keep = self.keep(p);
        let present = match p.ip_header() {
            Some(ip) => ip.len(),
            None => p.len(),
        };
        if present <= keep {
            return;
        }
        let cut = present - keep;
        if self.extra_length {
            let extra = p.extra_length_anno().wrapping_add(cut as u32);
            p.set_extra_length_anno(extra);
        }
        p.take(cut);
    }
}

impl Element for TruncateIPPayload {
    fn class_name(&self) -> &'static str {
        "TruncateIPPayload"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut length: u16 = 0;
        let mut transport = true;
        let mut extra_length = true;
        Args::new(conf)
            .read_p("LENGTH", &mut length)
            .read_p("TRANSPORT", &mut transport)
            .read("EXTRA_LENGTH", &mut extra_length)
            .complete()
            .map_err(|e| e.to_string())?;
        self.length = length as usize;
        self.transport = transport;
        self.extra_length = extra_length;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.truncate(&mut p);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::TruncateIPPayload;
    use crate::ip::test_util::registry;
    use rclick_core::testing;
    use rclick_packet::Packet;

    const TCP: &str = "45000030 00010000 40060000 0a000001 0a000002 04d21234 00000001 00000002 50100000 00000000 aabbccdd eeff0011";
    const UDP: &str =
        "45000024 00010000 40110000 0a000001 0a000002 04d21234 000c0000 61626364 65666768";
    const ICMP: &str =
        "45000024 00010000 40010000 0a000001 0a000002 08000000 00010002 61626364 65666768";

    fn run(ip: &str, before: &str, args: &str) -> String {
        let conf = format!(
            "InfiniteSource(DATA \\<{ip}>, LIMIT 1, STOP true) -> {before}
             -> TruncateIPPayload({args}) -> Print(m, 60) -> Discard;"
        );
        let log = testing::run(&conf, &registry())
            .unwrap_or_else(|e| panic!("{e}"))
            .take_log();
        assert_eq!(log.len(), 1, "{log:?}");
        log[0].clone()
    }

    /// Checked against Click for each protocol and argument form.
    #[test]
    fn truncates_like_click() {
        let m = "MarkIPHeader";
        assert_eq!(
            run(TCP, m, ""),
            "m:   40 | 45000030 00010000 40060000 0a000001 0a000002 04d21234 00000001 00000002 50100000 00000000"
        );
        assert_eq!(
            run(UDP, m, ""),
            "m:   28 | 45000024 00010000 40110000 0a000001 0a000002 04d21234 000c0000"
        );
        assert_eq!(
            run(ICMP, m, ""),
            "m:   28 | 45000024 00010000 40010000 0a000001 0a000002 08000000 00010002"
        );
        assert_eq!(
            run(TCP, m, "2"),
            "m:   42 | 45000030 00010000 40060000 0a000001 0a000002 04d21234 00000001 00000002 50100000 00000000 aabb"
        );
        assert_eq!(
            run(UDP, m, "2, false"),
            "m:   22 | 45000024 00010000 40110000 0a000001 0a000002 04d2"
        );
        assert_eq!(
            run(ICMP, m, "LENGTH 3, TRANSPORT false, EXTRA_LENGTH false"),
            "m:   23 | 45000024 00010000 40010000 0a000001 0a000002 080000"
        );
        assert_eq!(run(UDP, m, "100"), format!("m:   36 | {UDP}"));
        // No IP header: LENGTH bytes in all.
        assert_eq!(run(UDP, "Null", "5"), "m:    5 | 45000024 00");
        // A timestamp request's 20-byte header is longer than what is there.
        let ts = ICMP.replace("08000000", "0d000000");
        assert_eq!(run(&ts, m, "0"), format!("m:   36 | {ts}"));
        // TCP data offset 2: counted as 20.
        let off2 = TCP.replace("50100000", "20100000");
        assert!(run(&off2, m, "0").starts_with("m:   40 |"));
        // IP header length 2: counted as 20.
        let hl2 = UDP.replace("45000024", "42000024");
        assert_eq!(
            run(&hl2, m, "0"),
            "m:   20 | 42000024 00010000 40110000 0a000001 0a000002"
        );
    }

    #[test]
    fn extra_length_annotation() {
        let bytes: Vec<u8> = (0..36).collect();
        let mut p = Packet::from_slice(&bytes);
        p.data_mut()[0] = 0x45;
        p.data_mut()[9] = 17;
        p.set_ip_header(0, 20);
        p.set_extra_length_anno(5);
        let mut t = TruncateIPPayload::default();
        t.truncate(&mut p);
        assert_eq!((p.len(), p.extra_length_anno()), (28, 13));
        t.extra_length = false;
        t.length = 1;
        t.transport = false;
        t.truncate(&mut p);
        assert_eq!((p.len(), p.extra_length_anno()), (21, 13));
    }

    /// Checked against Click: the error texts of bad lengths.
    #[test]
    fn configuration_errors() {
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> TruncateIPPayload({conf}) -> Idle;"),
            &[
                ("-1", "LENGTH"),
                ("70000", "LENGTH"),
                ("1, maybe", "TRANSPORT"),
            ],
        );
    }
}
