//! # IPInputCombo
//!
//! `IPInputCombo(COLOR [, BADSRC, keywords INTERFACES, BADSRC, GOODDST])`
//!
//! **Category:** ip. The input path of an IP router in one element.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! One of the Click paper's combined elements: does in one step what
//!
//! ```text
//! Paint(COLOR) -> Strip(14) -> CheckIPHeader(BADSRC) -> GetIPAddress(16)
//! ```
//!
//! does. Each packet is painted COLOR (an integer; only its low byte is
//! kept, so -1 paints 255 and 256 paints 0, as in Click), loses its
//! first 14 bytes (the Ethernet header), and has its IP header checked:
//! at least 20 bytes, version 4, header length at least 20 and present,
//! header checksum correct, total length at least the header length and
//! no more than the bytes present, and source address not a bad source
//! (unless the destination is a good destination). A packet that passes
//! is trimmed to the IP total length, gets its IP header annotation and
//! its destination IP address annotation (the header's destination), and
//! leaves on output 0. A packet that fails is dropped and counted; the
//! first drop is reported as `IP checksum failed`, whatever the reason,
//! as Click does.
//!
//! Arguments:
//!
//! * `COLOR` (integer, mandatory): the paint annotation to set.
//! * `BADSRC` (space-separated IP addresses): by position, these sources
//!   plus 0.0.0.0 and 255.255.255.255 are bad; as a keyword, exactly
//!   these. Default none.
//! * `INTERFACES` (space-separated IP prefixes): sets BADSRC to the
//!   prefixes' broadcast addresses plus 0.0.0.0 and 255.255.255.255, and
//!   GOODDST to the interface addresses.
//! * `GOODDST` (space-separated IP addresses): bad sources are accepted
//!   when the destination is one of these.
//!
//! ## Annotations
//!
//! Sets the paint annotation, the IP header annotation and the
//! destination IP address annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> c0 :: Classifier(12/0800, -);
//! c0[0] -> IPInputCombo(0, INTERFACES 18.26.4.1/24) -> rt :: LookupIPRoute(...);
//! ```
//!
//! ## Differences from Click
//!
//! A packet shorter than 14 bytes is dropped and counted like any other
//! bad packet; Click also prints its `Packet::pull` warning.
//!
//! ## See also
//!
//! Paint, Strip, CheckIPHeader, GetIPAddress, IPOutputCombo

use std::net::Ipv4Addr;

use rclick_core::args::{Args, FromArg, IpPrefix, SpaceSep};
use rclick_core::drops::simple::count_one;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{checksum, Ipv4Packet};

use super::check_ip_header::{interfaces, AddrList};

/// The IPInputCombo element.
#[derive(Default)]
pub struct IPInputCombo {
    color: u8,
    bad_src: AddrList,
    good_dst: AddrList,
    drops: u64,
}

/// Length of the Ethernet header the element strips.
const ETHER_LEN: usize = 14;

impl IPInputCombo {
    /// Paints, strips and checks `p`; true if it passes (then trimmed and
    /// annotated).
    #[inline]
    fn process(&self, p: &mut Packet) -> bool {
        p.set_paint_anno(self.color);
        p.pull(ETHER_LEN);
        let ip = p.data();
        let Some(fixed) = ip.first_chunk::<20>() else {
            return false;
        };
        let v = Ipv4Packet::new_unchecked(fixed);
        let hlen = v.header_len() as usize;
        if v.version() != 4 || hlen < 20 || hlen > ip.len() {
            return false;
        }
        if !checksum::verify(&ip[..hlen]) {
            return false;
        }
        let len = v.total_len() as usize;
        if len < hlen || len > ip.len() {
            return false;
        }
        let dst = v.dst_addr();
        if self.bad_src.contains(u32::from(v.src_addr())) && !self.good_dst.contains(u32::from(dst))
        {
            return false;
        }
        let extra = ip.len() - len;
        p.take(extra);
        p.set_ip_header(0, hlen);
        p.set_dst_ip_anno(dst);
        true
    }
}

impl Element for IPInputCombo {
    fn class_name(&self) -> &'static str {
        "IPInputCombo"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let addrs = |s: &str| SpaceSep::<Ipv4Addr>::from_arg(s, ctx).map(Some);
        let mut ifaces: Option<SpaceSep<IpPrefix>> = None;
        let mut kw_bad: Option<SpaceSep<Ipv4Addr>> = None;
        let mut good: Option<SpaceSep<Ipv4Addr>> = None;
        let rest = Args::new_with(conf, ctx)
            .read_with("INTERFACES", &mut ifaces, |s| {
                SpaceSep::<IpPrefix>::from_arg(s, ctx).map(Some)
            })
            .read_with("BADSRC", &mut kw_bad, addrs)
            .read_with("GOODDST", &mut good, addrs)
            .consume()
            .map_err(|e| e.to_string())?;
        let mut color: i64 = 0;
        let mut pos_bad: Option<SpaceSep<Ipv4Addr>> = None;
        Args::new_with(&rest, ctx)
            .read_mp("COLOR", &mut color)
            .read_p_with("BADSRC", &mut pos_bad, addrs)
            .complete()
            .map_err(|e| e.to_string())?;
        let (mut bad_src, mut good_dst) = (Vec::new(), Vec::new());
        if let Some(SpaceSep(v)) = &ifaces {
            (bad_src, good_dst) = interfaces(v);
        }
        if let Some(SpaceSep(v)) = pos_bad {
            bad_src = v.into_iter().map(u32::from).collect();
            bad_src.extend([0, u32::MAX]);
        }
        if let Some(SpaceSep(v)) = kw_bad {
            bad_src = v.into_iter().map(u32::from).collect();
        }
        if let Some(SpaceSep(v)) = good {
            good_dst = v.into_iter().map(u32::from).collect();
        }
        self.color = color as u8;
        self.bad_src = AddrList::new(bad_src);
        self.good_dst = AddrList::new(good_dst);
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.process(&mut p) {
            return Some(p);
        }
        if count_one(&mut self.drops) {
            cx.log("IP checksum failed");
        }
        None
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    const ETH: &str = "000102030405 0a0b0c0d0e0f 0800";
    /// 10.0.0.1:1234 -> 10.0.0.2:4660 UDP, checksum 66ca, with 4 bytes of
    /// padding after the IP total length.
    const GOOD: &str =
        "45000020 00010000 401166ca 0a000001 0a000002 04d21234 000c0000 61626364 eeeeeeee";

    /// Runs one packet (`ip` after the Ethernet header) through
    /// `IPInputCombo(args)` twice; returns the log and `drops`.
    fn run(ip: &str, args: &str) -> (Vec<String>, String) {
        let conf = format!(
            "InfiniteSource(DATA \\<{ETH} {ip}>, LIMIT 2, STOP true)
             -> c :: IPInputCombo({args}) -> Print(a) -> StoreIPAddress(4) -> Print(b)
             -> cp :: CheckPaint(7) -> Discard; cp[1] -> Print(unpainted) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
        (r.take_log(), testing::read(&r, "c.drops"))
    }

    /// Checked against Click: stripped, trimmed to the total length,
    /// painted, destination annotation set (StoreIPAddress shows it).
    #[test]
    fn good_packet_passes_trimmed_and_annotated() {
        let (log, drops) = run(GOOD, "7");
        assert_eq!(
            log,
            vec![
                "a:   32 | 45000020 00010000 401166ca 0a000001 0a000002 04d21234",
                "b:   32 | 45000020 0a000002 401166ca 0a000001 0a000002 04d21234",
                "a:   32 | 45000020 00010000 401166ca 0a000001 0a000002 04d21234",
                "b:   32 | 45000020 0a000002 401166ca 0a000001 0a000002 04d21234",
            ]
        );
        assert_eq!(drops, "0");
        // Only the low byte of COLOR counts: 263 paints 7.
        assert_eq!(run(GOOD, "263").0.len(), 4);
    }

    /// Checked against Click: every failure is one message, once.
    #[test]
    fn bad_packets_dropped_with_one_message() {
        let bad = [
            // checksum
            "45000020 00010000 401166cb 0a000001 0a000002 04d21234 000c0000 61626364",
            // version 6
            "65000020 00010000 401146ca 0a000001 0a000002 04d21234 000c0000 61626364",
            // total length 48 > 32 present
            "45000030 00010000 401166ba 0a000001 0a000002 04d21234 000c0000 61626364",
            // truncated
            "4500",
        ];
        for ip in bad {
            let (log, drops) = run(ip, "7");
            assert_eq!(log, vec!["IP checksum failed"], "{ip}");
            assert_eq!(drops, "2", "{ip}");
        }
        // Shorter than the Ethernet header.
        let r = testing::run(
            "InfiniteSource(DATA \\<0001>, LIMIT 2, STOP true) -> c :: IPInputCombo(1) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.drops"), "2");
    }

    /// Checked against Click: positional BADSRC adds 0.0.0.0 and
    /// 255.255.255.255, the keyword does not; GOODDST overrides;
    /// INTERFACES makes the broadcast address bad.
    #[test]
    fn bad_sources() {
        let src0 = "45000020 00010000 401170cb 00000000 0a000002 04d21234 000c0000 61626364";
        assert_eq!(run(src0, "7").1, "0");
        assert_eq!(run(src0, "7, 10.0.0.9").1, "2");
        assert_eq!(run(src0, "7, BADSRC 10.0.0.9").1, "0");
        assert_eq!(run(GOOD, "7, 10.0.0.1").1, "2");
        assert_eq!(run(GOOD, "7, BADSRC 10.0.0.1, GOODDST 10.0.0.2").1, "0");
        let bcast = "45000020 00010000 401165cc 0a0000ff 0a000002 04d21234 000c0000 61626364";
        assert_eq!(run(bcast, "7").1, "0");
        assert_eq!(run(bcast, "7, INTERFACES 10.0.0.1/24").1, "2");
    }

    /// Checked against Click: COLOR is mandatory and numeric; three
    /// positional arguments are too many; unknown keywords are refused.
    #[test]
    fn configuration_errors() {
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> IPInputCombo({conf}) -> Idle;"),
            &[
                ("", "COLOR"),
                ("x", "COLOR"),
                ("3, 1.0.0.1, 7", "too many arguments"),
                ("3, X 3", "X"),
            ],
        );
        assert!(testing::build(
            "Idle -> IPInputCombo(COLOR 3, BADSRC 1.0.0.1, GOODDST 1.1.1.1) -> Idle;",
            &registry(),
            true
        )
        .is_ok());
    }
}
