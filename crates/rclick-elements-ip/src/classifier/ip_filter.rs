//! # IPFilter
//!
//! `IPFilter(ACTION_1 PATTERN_1, ..., ACTION_N PATTERN_N)`
//!
//! **Category:** ip, classification. Filters IP packets by contents.
//!
//! **Ports:** one push input; any number of push outputs.
//!
//! ## Description
//!
//! Filters IP packets with ACTION-PATTERN rules. Each PATTERN is a
//! tcpdump(1)-like expression in IPClassifier's language (see
//! IPClassifier). Packets are tested against the rules in order and handled
//! according to the ACTION of the first rule that matches; packets no rule
//! matches are dropped.
//!
//! Each ACTION is one of:
//!
//! * an output port number: send the packet out that output;
//! * `allow`: the same as `0`;
//! * `drop` or `deny`: drop the packet. (`deny` once meant output 1 when
//!   the element had two outputs; it now always means `drop`.)
//!
//! Input packets must have their IP header annotation set (CheckIPHeader or
//! MarkIPHeader). Tests of transport-layer fields (ports, TCP options, ICMP
//! type, `transp[...]`) only match first fragments. Packets too short for a
//! test never cause a read past their end: such a test takes the branch
//! Click's compiler gives short packets.
//!
//! The rules are compiled, like Click's, into a decision program of masked
//! 32-bit word comparisons on the link, IP and transport headers, optimized
//! (shared tests, impossible branches removed) and evaluated per packet
//! without allocation. A whole batch is classified per call.
//!
//! Every IPFilter has an equivalent IPClassifier and vice versa.
//!
//! ## Annotations
//!
//! Uses the network (IP) and transport header offsets; Ethernet tests
//! (`ether src ...`) use the MAC header offset.
//!
//! ## Handlers
//!
//! * `program` (read): the compiled program, as Click prints it. Each step
//!   shows `OFFSET/VALUE%MASK  yes->...  no->...`: four bytes at fake offset
//!   OFFSET (0-255: link header, where 2 is the first MAC byte; 256-511: IP
//!   header; 512 on: transport header), ANDed with MASK, compared with
//!   VALUE. `[N]` is output N, `[X]` means drop; `short->yes` marks steps
//!   where packets too short for the test take the yes branch.
//!
//! ## Examples
//!
//! ```text
//! IPFilter(allow src host 10.0.0.1 && tcp dst port www,
//!          1 icmp type echo,
//!          deny all);
//! ```
//!
//! ## See also
//!
//! IPClassifier, Classifier, CheckIPHeader, MarkIPHeader, AddressInfo,
//! tcpdump(1)

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::{classify_push, parse_program, ZProgram};
use crate::ip::port_info::PortNames;

rclick_core::handlers! {
    /// IPFilter's handlers.
    enum H {
        Program = read("program"),
    }
}

/// The IPFilter element.
#[derive(Default)]
pub struct IPFilter {
    prog: ZProgram,
    scratch: Vec<usize>,
}

impl IPFilter {
    /// The compiled program.
    pub fn program(&self) -> &ZProgram {
        &self.prog
    }
}

impl Element for IPFilter {
    fn class_name(&self) -> &'static str {
        "IPFilter"
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let names = PortNames { cx };
        let prog = parse_program(conf, cx.noutputs(), &names).map_err(|e| e.join("\n"))?;
        self.prog = prog;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        classify_push(&self.prog, &mut self.scratch, batch, cx);
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Program) => Ok(self.prog.unparse()),
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use rclick_core::args::NoContext;
    use rclick_packet::Packet;
    use rclick_wire::ipv4::Ipv4Packet;

    use super::super::parse_program;

    fn conf(rules: &[&str]) -> Vec<String> {
        rules.iter().map(|s| s.to_string()).collect()
    }

    pub(crate) fn program(rules: &[&str], noutputs: usize) -> String {
        parse_program(&conf(rules), noutputs, &NoContext)
            .map(|p| p.unparse())
            .unwrap_or_else(|e| panic!("{e:?}"))
    }

    pub(crate) fn errors(rules: &[&str], noutputs: usize) -> Vec<String> {
        parse_program(&conf(rules), noutputs, &NoContext)
            .err()
            .unwrap_or_default()
    }

    /// Builds an IPv4 packet (20-byte header) with `proto` and a transport
    /// header `transp`, header annotations set as MarkIPHeader would.
    pub(crate) fn ip_packet(
        src: [u8; 4],
        dst: [u8; 4],
        proto: u8,
        ttl: u8,
        frag: u16,
        transp: &[u8],
    ) -> Packet {
        let mut buf = vec![0u8; 20 + transp.len()];
        {
            let mut ip = Ipv4Packet::new_unchecked(&mut buf[..]);
            ip.set_version(4);
            ip.set_header_len(20);
            ip.set_total_len((20 + transp.len()) as u16);
            ip.set_ttl(ttl);
            ip.set_protocol(proto.into());
            ip.set_flags_frag_offset(frag);
        }
        buf[12..16].copy_from_slice(&src);
        buf[16..20].copy_from_slice(&dst);
        buf[20..].copy_from_slice(transp);
        let mut p = Packet::from_slice(&buf);
        p.set_ip_header(0, 20);
        p
    }

    pub(crate) fn tcp(sport: u16, dport: u16, flags: u8) -> Vec<u8> {
        let mut t = vec![0u8; 20];
        t[0..2].copy_from_slice(&sport.to_be_bytes());
        t[2..4].copy_from_slice(&dport.to_be_bytes());
        t[12] = 0x50;
        t[13] = flags;
        t
    }

    pub(crate) fn udp(sport: u16, dport: u16) -> Vec<u8> {
        let mut t = vec![0u8; 8];
        t[0..2].copy_from_slice(&sport.to_be_bytes());
        t[2..4].copy_from_slice(&dport.to_be_bytes());
        t[5] = 8;
        t
    }

    pub(crate) fn icmp(ty: u8) -> Vec<u8> {
        vec![ty, 0, 0, 0, 0, 0, 0, 0]
    }

    fn classify(rules: &[&str], n: usize, p: &Packet) -> usize {
        let prog = parse_program(&conf(rules), n, &NoContext).unwrap_or_else(|e| panic!("{e:?}"));
        prog.classify(p)
    }

    #[test]
    fn click_program_ipfilter_04() {
        let c = program(
            &[
                "0 dst port 7777",
                "1 dst port 8888",
                "2 dst port 7000",
                "3 icmp type echo",
                "4 icmp",
                "5 -",
            ],
            6,
        );
        assert_eq!(
            c,
            " 0 264/00060000%00ff0000  yes->step 2  no->step 1\n\
             \x201 264/00110000%00ff0000  yes->step 2  no->step 6\n\
             \x202 260/00000000%00001fff  yes->step 3  no->[5]\n\
             \x203 512/00001e61%0000ffff  yes->[0]  no->step 4\n\
             \x204 512/000022b8%0000ffff  yes->[1]  no->step 5\n\
             \x205 512/00001b58%0000ffff  yes->[2]  no->[5]\n\
             \x206 264/00010000%00ff0000  yes->step 7  no->[5]\n\
             \x207 260/00000000%00001fff  yes->step 8  no->[4]\n\
             \x208 512/08000000%ff000000  yes->[3]  no->[4]\n\
             safe length 516\nalignment offset 0\n"
        );
        let d = program(
            &[
                "0 udp dst port netbios-ns",
                "1 udp dst port 5353",
                "2 udp src port bootpc",
                "3 128.230.206.0/24",
                "4 -",
            ],
            5,
        );
        assert_eq!(
            d,
            " 0 264/00110000%00ff0000  yes->step 1  no->step 5\n\
             \x201 260/00000000%00001fff  yes->step 2  no->step 5\n\
             \x202 512/00000089%0000ffff  yes->[0]  no->step 3\n\
             \x203 512/000014e9%0000ffff  yes->[1]  no->step 4\n\
             \x204 512/00440000%ffff0000  yes->[2]  no->step 5\n\
             \x205 268/80e6ce00%ffffff00  yes->[3]  no->step 6\n\
             \x206 272/80e6ce00%ffffff00  yes->[3]  no->[4]\n\
             safe length 516\nalignment offset 0\n"
        );
        let e = program(
            &[
                "0 proto icmp",
                "1 dst port 53",
                "2 (proto tcp and !(syn and !ack)) or (tcpudp port >= 1024)",
                "3 -",
            ],
            4,
        );
        assert_eq!(
            e,
            " 0 264/00010000%00ff0000  yes->[0]  no->step 1\n\
             \x201 264/00060000%00ff0000  yes->step 3  no->step 2\n\
             \x202 264/00110000%00ff0000  yes->step 3  no->[3]\n\
             \x203 260/00000000%00001fff  yes->step 4  no->step 5\n\
             \x204 512/00000035%0000ffff  yes->[1]  no->step 5\n\
             \x205 264/00060000%00ff0000  yes->step 6  no->step 8\n\
             \x206 260/00000000%00001fff  yes->step 7  no->[2]\n\
             \x207 524/00020000%00120000  yes->step 9  no->[2]\n\
             \x208 260/00000000%00001fff  yes->step 9  no->[3]\n\
             \x209 512/00000000%fc00fc00  yes->[3]  no->[2]  short->yes\n\
             safe length 526\nalignment offset 0\n"
        );
    }

    #[test]
    fn click_program_ipfilter_05_06_07() {
        let c = program(
            &[
                "allow tcp && dst 10.0.0.0/32 && src 2.0.0.0/32",
                "allow tcp && dst 10.0.0.0/32 && dst port 80 && src 2.0.0.0/32",
                "allow all",
            ],
            1,
        );
        assert_eq!(c, "all->[0]\nsafe length 0\nalignment offset 0\n");
        let c = program(
            &[
                "allow src 0:1:2:3:4:5",
                "allow src 10.0.0.0 & 8.0.0.0 = 8.0.0.0",
                "allow dst 10:20:30:40:50:60",
                "allow host 9:A:B:C:D:E",
                "deny all",
            ],
            1,
        );
        assert_eq!(
            c,
            " 0   8/00010203%ffffffff  yes->step 1  no->step 2\n\
             \x201  12/04050000%ffff0000  yes->[0]  no->step 2\n\
             \x202 268/0a000000%ffffffff  yes->[0]  no->step 3\n\
             \x203   0/00001020%0000ffff  yes->step 4  no->step 5\n\
             \x204   4/30405060%ffffffff  yes->[0]  no->step 5\n\
             \x205   8/090a0b0c%ffffffff  yes->step 6  no->step 7\n\
             \x206  12/0d0e0000%ffff0000  yes->[0]  no->step 7\n\
             \x207   0/0000090a%0000ffff  yes->step 8  no->[X]\n\
             \x208   4/0b0c0d0e%ffffffff  yes->[0]  no->[X]\n\
             safe length 272\nalignment offset 0\n"
        );
        let never = "all->[2147483647]\nsafe length 0\nalignment offset 0\n";
        let src1 =
            " 0 268/0a000001%ffffffff  yes->[0]  no->[X]\nsafe length 272\nalignment offset 0\n";
        assert_eq!(program(&["allow false"], 1), never);
        assert_eq!(
            program(
                &["allow false", "allow false", "allow false", "allow true"],
                1
            ),
            "all->[0]\nsafe length 0\nalignment offset 0\n"
        );
        assert_eq!(
            program(&["allow false", "allow false", "allow src 10.0.0.1"], 1),
            src1
        );
        assert_eq!(program(&["allow src 10.0.0.1"], 1), src1);
        assert_eq!(program(&[], 1), never);
        assert_eq!(
            program(
                &[
                    "allow false",
                    "allow false",
                    "allow false",
                    "allow false",
                    "allow src 10.0.0.1"
                ],
                1
            ),
            src1
        );
    }

    #[test]
    fn short_packets_do_not_panic_and_fail() {
        // IPFilter-01/02/03: transp[1] of a packet with one transport byte.
        let mut p = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 17, 64, 0, &udp(0, 0));
        assert_eq!(classify(&["0 transp[1]&128==0"], 1, &p), 0);
        p.take(p.len() - 21);
        assert_ne!(classify(&["0 transp[1]&128==0"], 1, &p), 0);
        assert_ne!(classify(&["0 transp[1]&128!=0", "1 -"], 2, &p), 0);
        assert_eq!(classify(&["0 transp[1]&128!=0", "1 -"], 2, &p), 1);
        assert_eq!(classify(&["0 not (transp[1]&128==0)"], 1, &p), 0);
        assert_eq!(
            classify(&["0 transp[1]&128==0 || transp[1]&128==128"], 1, &p),
            2147483647
        );
        let mut q = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 17, 64, 0, &[]);
        q.take(1);
        assert_ne!(classify(&["0 ip[19]&128==0"], 1, &q), 0);
        // Empty packets, no header annotation at all.
        let e = Packet::from_slice(&[]);
        for rules in [
            &["0 tcp port 80"][..],
            &["0 ip[0] == 0"],
            &["0 src 0:1:2:3:4:5"],
            &["0 ip ttl < 3"],
        ] {
            assert_ne!(classify(rules, 1, &e), 0);
        }
    }

    #[test]
    fn classifies_hand_built_packets() {
        let rules = [
            "0 dst net 10.0.0.0/8 and tcp dst port 80",
            "1 dst net 10.0.0.0/8 and udp dst port dns",
            "2 src host 10.0.0.2 and dst net 192.168.0.0/16",
            "3 tcp opt syn and not tcp opt ack",
            "4 icmp type echo",
            "5 dst net 172.16.0.0/12",
            "6 udp dst port 5678 and dst net 128.0.0.0/2",
            "7 dst net 64.0.0.0/3 and ip ttl < 10",
            "8 ip frag",
            "9 udp",
            "10 -",
        ];
        // (source, destination, protocol, TTL, fragment field, transport
        // header, the output it goes to)
        let cases = [
            (
                [1, 1, 1, 1],
                [10, 1, 2, 3],
                6,
                64,
                0,
                tcp(1234, 80, 0x10),
                0,
            ),
            ([1, 1, 1, 1], [10, 1, 2, 3], 17, 64, 0, udp(1234, 53), 1),
            ([10, 0, 0, 2], [192, 168, 3, 4], 17, 64, 0, udp(1, 2), 2),
            ([1, 1, 1, 1], [9, 9, 9, 9], 6, 64, 0, tcp(1, 2, 0x02), 3),
            ([1, 1, 1, 1], [9, 9, 9, 9], 6, 64, 0, tcp(1, 2, 0x12), 10),
            ([1, 1, 1, 1], [9, 9, 9, 9], 1, 64, 0, icmp(8), 4),
            ([1, 1, 1, 1], [9, 9, 9, 9], 1, 64, 0, icmp(0), 10),
            ([1, 1, 1, 1], [172, 20, 0, 1], 1, 64, 0, icmp(0), 5),
            ([1, 1, 1, 1], [130, 0, 0, 1], 17, 64, 0, udp(1, 5678), 6),
            ([1, 1, 1, 1], [200, 0, 0, 1], 17, 64, 0, udp(1, 5678), 9),
            ([1, 1, 1, 1], [70, 0, 0, 1], 6, 5, 0, tcp(1, 2, 0), 7),
            ([1, 1, 1, 1], [70, 0, 0, 1], 6, 50, 0, tcp(1, 2, 0), 10),
            // Fragments: transport tests never match non-first fragments.
            ([1, 1, 1, 1], [10, 1, 2, 3], 6, 64, 0x2000, tcp(1, 80, 0), 0),
            ([1, 1, 1, 1], [10, 1, 2, 3], 6, 64, 0x0010, tcp(1, 80, 0), 8),
        ];
        for (src, dst, proto, ttl, frag, transport, want) in cases {
            let p = ip_packet(src, dst, proto, ttl, frag, &transport);
            assert_eq!(
                classify(&rules, 11, &p),
                want,
                "{src:?} -> {dst:?} proto {proto}"
            );
        }
    }

    #[test]
    fn operators_fields_and_abbreviations() {
        let t = |r: &str, p: &Packet| classify(&[&format!("0 {r}")], 1, p) == 0;
        let p = ip_packet(
            [10, 0, 0, 1],
            [10, 0, 0, 2],
            6,
            64,
            0,
            &tcp(1000, 8080, 0x18),
        );
        assert!(t("src port 1000 or 81", &p));
        assert!(t("dst port 80 or 8080", &p));
        assert!(!t("dst port 80 or 81", &p));
        assert!(t("tcp dst port > 1023", &p));
        assert!(t("tcp dst port >= 8080 && tcp dst port <= 8080", &p));
        assert!(!t("tcp dst port < 8080", &p));
        assert!(t("tcp src port != 5", &p));
        assert!(!t("udp src port != 5", &p));
        assert!(t("!(udp src port 5)", &p));
        assert!(t("ip ttl 64 and ip vers 4 and ip hl 5", &p));
        assert!(t("ip ttl > 63 and ip ttl < 65", &p));
        assert!(t("psh ack", &p));
        assert!(!t("syn", &p));
        assert!(t("tcp[13] & 0x18 == 0x18", &p));
        assert!(t("tcp[2:2] == 8080", &p));
        assert!(t("ip[9] = 6", &p));
        assert!(t("src and dst net 10.0.0.0 mask 255.0.0.0", &p));
        assert!(t("src or dst host 10.0.0.2", &p));
        assert!(!t("src host 10.0.0.2", &p));
        assert!(t("src host != 10.0.0.2", &p));
        assert!(t("10.0.0.0/8", &p));
        assert!(t("ip unfrag and not ip frag", &p));
        assert!(t("ip dscp 0 and ip tos 0 and not ip ce and not ip ect", &p));
        assert!(t("true ? tcp : udp", &p));
        assert!(t("false ? udp : tcp", &p));
        assert!(t("any", &p) || t("-", &p));
        assert!(t("ip id 0 and ip len 40", &p));
        assert!(t("ip len & 0xff00 == 0", &p));
        assert!(t("(tcp or udp) and (dst port 8080 || dst port 9)", &p));
        assert!(t("tcp win 0", &p));
    }

    #[test]
    fn errors_name_the_word() {
        let e = errors(&["allow foo"], 1);
        assert!(
            e.iter().any(|m| m == "pattern 0: empty term near 'foo'"),
            "{e:?}"
        );
        assert!(
            e.iter()
                .any(|m| m == "pattern 0: garbage after expression at 'foo'"),
            "{e:?}"
        );
        let e = errors(&["allow echo"], 1);
        assert!(e.iter().any(|m| m.contains("echo' is ambiguous")), "{e:?}");
        let e = errors(&["3 tcp"], 1);
        assert_eq!(e, vec!["pattern 0: slot '3' out of range"]);
        let e = errors(&["frob tcp"], 1);
        assert_eq!(e, vec!["pattern 0: unknown slot ID 'frob'"]);
        let e = errors(&["allow (tcp"], 1);
        assert!(e.iter().any(|m| m == "pattern 0: missing ')'"), "{e:?}");
        let e = errors(&["allow ip ttl 300"], 1);
        assert!(
            e.iter()
                .any(|m| m == "pattern 0: 'ip ttl': out of range, bound 255"),
            "{e:?}"
        );
        let e = errors(&["allow host"], 1);
        assert!(!e.is_empty());
        let e = errors(&["allow tcp[0:5] = 1"], 1);
        assert!(!e.is_empty());
        let e = errors(&[""], 1);
        assert_eq!(e, vec!["empty pattern 0"]);
        // No panic on junk.
        for junk in [
            "allow ) ( ]",
            "allow [ [ [",
            "allow & & &",
            "allow ip[99999999] = 1",
            "0 ? :",
            "0 not",
            "0 (",
            "0 src src",
        ] {
            let _ = parse_program(&conf(&[junk]), 1, &NoContext);
        }
    }
}
