//! # IPOutputCombo
//!
//! `IPOutputCombo(COLOR, IPADDR, MTU)`
//!
//! **Category:** ip. The output path of an IP router in one element.
//!
//! **Ports:** one input, five outputs, push.
//!
//! ## Description
//!
//! One of the Click paper's combined elements: does in one step what
//!
//! ```text
//! input -> DropBroadcasts -> p :: PaintTee(COLOR) -> g :: IPGWOptions(IPADDR)
//!       -> FixIPSrc(IPADDR) -> d :: DecIPTTL -> l :: CheckLength(MTU) -> [0]output;
//! p[1] -> [1]output; g[1] -> [2]output; d[1] -> [3]output; l[1] -> [4]output;
//! ```
//!
//! does. For each IP packet (with the IP header annotation), in order:
//!
//! 1. A packet whose packet type annotation is `BROADCAST` or `MULTICAST`
//!    is dropped (and counted in `drops`).
//! 2. If its paint annotation is COLOR, a copy goes out output 1 (to an
//!    ICMP redirect, typically: the packet leaves by the interface it came
//!    in on).
//! 3. Record Route and Timestamp options are processed as IPGWOptions
//!    does, with IPADDR as the router's address; a malformed option sends
//!    the packet out output 2 with its ICMP parameter-problem annotation
//!    set to the offending byte's offset.
//! 4. If the fix-IP-source annotation is set, it is cleared and the
//!    source address becomes IPADDR.
//! 5. A packet with TTL 1 or 0 goes out output 3 unchanged by this step;
//!    otherwise the TTL is decremented (checksum updated incrementally).
//! 6. A packet longer than MTU bytes goes out output 4 (to an
//!    IPFragmenter); the others out output 0.
//!
//! The header checksum is recomputed when step 3 or 4 changed the header.
//! IPOutputCombo does not fragment.
//!
//! Arguments (all mandatory): `COLOR` (integer; its low byte is compared
//! with the paint annotation), `IPADDR` (IP address), `MTU` (unsigned).
//!
//! ## Annotations
//!
//! Uses the packet type, paint and fix-IP-source annotations and the IP
//! header annotation; clears fix-IP-source, sets the ICMP
//! parameter-problem annotation on output 2.
//!
//! ## Handlers
//!
//! * `drops` (read): broadcast and multicast packets dropped (not in
//!   Click, which drops them without counting).
//!
//! ## Differences from Click
//!
//! A packet without an IP header annotation goes out output 2 with
//! parameter-problem pointer 0; Click stops with an assertion failure.
//!
//! ## Examples
//!
//! ```text
//! oc :: IPOutputCombo(2, 18.26.4.24, 1500);
//! oc[1] -> ICMPError(18.26.4.24, redirect, host) -> ...;
//! oc[2] -> ICMPError(18.26.4.24, parameterproblem) -> ...;
//! oc[3] -> ICMPError(18.26.4.24, timeexceeded) -> ...;
//! oc[4] -> IPFragmenter(1500) -> ...;
//! ```
//!
//! ## See also
//!
//! DropBroadcasts, PaintTee, IPGWOptions, FixIPSrc, DecIPTTL, CheckLength,
//! IPFragmenter, IPInputCombo

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_packet::PacketType;
use rclick_wire::Ipv4Packet;

use crate::icmp::ip_gw_options::{has_options, IpGwOptions};

/// Output for packets painted COLOR (a copy).
const OUT_PAINT: usize = 1;
/// Output for packets with bad options.
const OUT_OPTIONS: usize = 2;
/// Output for packets whose TTL expired.
const OUT_TTL: usize = 3;
/// Output for packets longer than the MTU.
const OUT_MTU: usize = 4;

/// The IPOutputCombo element.
pub struct IPOutputCombo {
    color: u8,
    addr: Ipv4Addr,
    mtu: usize,
    options: IpGwOptions,
    drops: u64,
}

impl Default for IPOutputCombo {
    fn default() -> Self {
        IPOutputCombo {
            color: 0,
            addr: Ipv4Addr::UNSPECIFIED,
            mtu: 0,
            options: IpGwOptions::for_address(Ipv4Addr::UNSPECIFIED),
            drops: 0,
        }
    }
}

impl IPOutputCombo {
    /// Steps 3 to 6 for `p`: the output it leaves by.
    fn route(&mut self, p: &mut Packet, cx: &Ctx) -> usize {
        let hlen = p.ip_header_len();
        if hlen < 20 || p.ip_header().is_none_or(|h| h.len() < hlen) {
            p.set_icmp_param_prob_anno(0);
            return OUT_OPTIONS;
        }
        if has_options(p) && !self.options.handle(p, cx.now()) {
            return OUT_OPTIONS;
        }
        let fix_src = p.fix_ip_src_anno();
        p.set_fix_ip_src_anno(false);
        let Some(h) = p.ip_header_mut().and_then(|h| h.get_mut(..hlen)) else {
            return OUT_OPTIONS;
        };
        let mut ip = Ipv4Packet::new_unchecked(h);
        if fix_src {
            ip.set_src_addr(self.addr);
            ip.fill_checksum();
        }
        if ip.ttl() <= 1 {
            return OUT_TTL;
        }
        ip.dec_ttl_update_checksum();
        if p.len() > self.mtu {
            OUT_MTU
        } else {
            0
        }
    }
}

impl Element for IPOutputCombo {
    fn class_name(&self) -> &'static str {
        "IPOutputCombo"
    }
    fn port_count(&self) -> &'static str {
        "1/5"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    /// Output 0 through `simple_action`, the others pushed from it.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut color: i64 = 0;
        let mut addr = Ipv4Addr::UNSPECIFIED;
        let mut mtu: u32 = 0;
        Args::new_with(conf, cx.arg_context())
            .read_mp("COLOR", &mut color)
            .read_mp("IPADDR", &mut addr)
            .read_mp("MTU", &mut mtu)
            .complete()
            .map_err(|e| e.to_string())?;
        self.color = color as u8;
        self.addr = addr;
        self.mtu = mtu as usize;
        self.options = IpGwOptions::for_address(addr);
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if matches!(
            p.packet_type_anno(),
            PacketType::Broadcast | PacketType::Multicast
        ) {
            self.drops += 1;
            return None;
        }
        if p.paint_anno() == self.color {
            cx.push_one(OUT_PAINT, p.clone());
        }
        match self.route(&mut p, cx) {
            0 => Some(p),
            port => {
                cx.push_one(port, p);
                None
            }
        }
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    const IP: &str = "45000020 00010000 40110000 0a000001 0a000002 04d21234 000c0000 61626364";

    /// One packet through `before -> IPOutputCombo(args)`, every output
    /// printed with its number.
    fn run(ip: &str, args: &str, before: &str) -> Vec<String> {
        let conf = format!(
            "InfiniteSource(DATA \\<{ip}>, LIMIT 1, STOP true) -> MarkIPHeader -> SetIPChecksum
             -> {before} -> c :: IPOutputCombo({args});
             c[0] -> Print(o0) -> Discard; c[1] -> Print(o1) -> Discard;
             c[2] -> Print(o2) -> Discard; c[3] -> Print(o3) -> Discard;
             c[4] -> Print(o4) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
        r.take_log()
    }

    /// Checked against Click, output by output.
    #[test]
    fn outputs() {
        let ttl_dec = "o0:   32 | 45000020 00010000 3f1167ca 0a000001 0a000002 04d21234";
        assert_eq!(run(IP, "3, 1.1.1.1, 1500", "Null"), vec![ttl_dec]);
        assert_eq!(
            run(IP, "3, 1.1.1.1, 1500", "Paint(3)"),
            vec![
                "o1:   32 | 45000020 00010000 401166ca 0a000001 0a000002 04d21234",
                ttl_dec
            ]
        );
        assert!(run(IP, "3, 1.1.1.1, 1500", "SetPacketType(BROADCAST)").is_empty());
        assert!(run(IP, "3, 1.1.1.1, 1500", "SetPacketType(MULTICAST)").is_empty());
        assert_eq!(
            run(&IP.replace("4011", "0111"), "3, 1.1.1.1, 1500", "Null"),
            vec!["o3:   32 | 45000020 00010000 0111a5ca 0a000001 0a000002 04d21234"]
        );
        assert_eq!(
            run(IP, "3, 1.1.1.1, 31", "Null"),
            vec![ttl_dec.replace("o0", "o4")]
        );
        assert_eq!(run(IP, "3, 1.1.1.1, 32", "Null"), vec![ttl_dec]);
    }

    /// Checked against Click: Record Route filled in, a bad pointer or
    /// length goes to output 2, a full timestamp option counts overflow.
    #[test]
    fn options() {
        let opt = |o: &str| {
            format!("47000028 00010000 40110000 0a000001 0a000002 {o} 00000000 04d21234 000c0000 61626364")
        };
        assert_eq!(
            run(&opt("07070400"), "3, 1.1.1.1, 1500", "Null"),
            vec!["o0:   40 | 47000028 00010000 3f1154b9 0a000001 0a000002 07070801"]
        );
        assert_eq!(
            run(&opt("07070200"), "3, 1.1.1.1, 1500", "Null"),
            vec!["o2:   40 | 47000028 00010000 40115bbb 0a000001 0a000002 07070200"]
        );
        assert_eq!(
            run(&opt("07000400"), "3, 1.1.1.1, 1500", "Null"),
            vec!["o2:   40 | 47000028 00010000 401159c2 0a000001 0a000002 07000400"]
        );
        assert_eq!(
            run(&opt("07090400"), "3, 1.1.1.1, 1500", "Null"),
            vec!["o2:   40 | 47000028 00010000 401159b9 0a000001 0a000002 07090400"]
        );
        assert_eq!(
            run(&opt("44080501"), "3, 1.1.1.1, 1500", "Null"),
            vec!["o0:   40 | 47000028 00010000 3f111ca9 0a000001 0a000002 44080511"]
        );
    }

    /// Checked against Click: an ICMP redirect (fix-IP-source set) gets
    /// IPADDR as its source.
    #[test]
    fn fixes_source() {
        assert_eq!(
            run(IP, "3, 1.1.1.1, 1500", "ICMPError(9.9.9.9, redirect, host)"),
            vec!["o0:   60 | 4500003c 00010000 c701e7bd 01010101 0a000001 05011f26"]
        );
    }

    /// No IP header annotation: output 2 (Click asserts).
    #[test]
    fn no_ip_header() {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{IP}>, LIMIT 1, STOP true) -> c :: IPOutputCombo(3, 1.1.1.1, 1500);
                 c[0] -> Print(o0) -> Discard; c[1] -> Print(o1) -> Discard;
                 c[2] -> Print(o2) -> Discard; c[3] -> Print(o3) -> Discard;
                 c[4] -> Print(o4) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log().len(), 1);
    }

    /// Checked against Click: three mandatory arguments, typed.
    #[test]
    fn configuration_errors() {
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> IPOutputCombo({conf}) => Idle, Idle, Idle, Idle, Idle;"),
            &[
                ("", "COLOR: required argument missing"),
                ("3, 1.1.1.1", "MTU: required argument missing"),
                ("3, 1.1.1.1, 1500, 4", "too many arguments"),
                ("x, 1.1.1.1, 1", "COLOR"),
                ("3, x, 1", "IPADDR"),
                ("3, 1.1.1.1, -1", "MTU"),
            ],
        );
    }
}
