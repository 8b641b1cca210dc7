//! # IPClassifier
//!
//! `IPClassifier(PATTERN_1, ..., PATTERN_N)`
//!
//! **Category:** ip, classification. Classifies IP packets by contents.
//!
//! **Ports:** one push input; N push outputs, one per pattern.
//!
//! ## Description
//!
//! Classifies IP packets with tcpdump(1)-like patterns: a packet goes to the
//! output of the first pattern it matches; packets matching none are
//! dropped. Input packets must have their IP header annotation set
//! (CheckIPHeader or MarkIPHeader do this).
//!
//! Pattern primitives:
//!
//! * `ip proto PROTO`: IP protocol PROTO, a number or `icmp`, `igmp`,
//!   `ipip`, `tcp`, `udp`, `tcpudp` (TCP or UDP).
//! * `[SRCORDST] host IPADDR`: packets from/to IPADDR. SRCORDST is `src`,
//!   `dst`, `src or dst` (the default) or `src and dst`.
//! * `[SRCORDST] net NETADDR`: NETADDR is `IPADDR/BITS` or
//!   `IPADDR mask MASK`.
//! * `[SRCORDST] [tcp | udp] port PORT`: TCP or UDP port, a number or a
//!   name: `echo`, `discard`, `daytime`, `chargen`, `ftp-data`, `ftp`,
//!   `ssh`, `telnet`, `smtp`, `domain`, `dns`, `bootps`, `bootpc`, `tftp`,
//!   `finger`, `www`, `pop3`, `sunrpc`, `auth`, `nntp`, `ntp`,
//!   `netbios-ns`, `netbios-dgm`, `netbios-ssn`, `snmp`, `snmp-trap`, `irc`,
//!   `imap3`, `https`, `rip`, `route`, `imaps`, `pop3s` (and common
//!   /etc/services names such as `http`).
//! * `ip vers V` (0-15), `ip hl HL` (0-15), `ip id ID` (0-65535),
//!   `ip len LEN`, `ip tos TOS` (0-255), `ip dscp DSCP` (0-63),
//!   `ip ttl TTL` (0-255): header fields.
//! * `ip ect`: ECN-capable transport; `ip ce`: congestion experienced.
//! * `ip frag`: fragments (MF set or nonzero offset); `ip unfrag`: others.
//! * `tcp opt TCPOPT`: TCP flag `syn`, `fin`, `ack`, `rst`, `psh` or `urg`.
//! * `tcp win WIN`: TCP window (unscaled).
//! * `icmp type TYPE`: a number or `echo-reply`, `unreachable`,
//!   `sourcequench`, `redirect`, `echo`, `routeradvert`, `routersolicit`,
//!   `timeexceeded`, `parameterproblem`, `timestamp`, `timestamp-reply`,
//!   `inforeq`, `inforeq-reply`, `maskreq`, `maskreq-reply`.
//! * `ip[POS:LEN] VALUE`, `ip[POS]`: IP header bytes POS..POS+LEN-1 (LEN
//!   1-4, inside one 32-bit word). `transp[POS:LEN]`, `tcp[...]`,
//!   `udp[...]`, `icmp[...]`: transport header bytes.
//! * `ether src|dst|host ETHADDR`: link-layer addresses.
//! * `true`, `false`.
//! * IPv6 (not in Click, whose IPClassifier has no IPv6 words; tcpdump's
//!   spelling): `ip6` (IP version 6); `ip6 [SRCORDST] [host | net]
//!   ADDR[/LEN]`; `ip6 proto P` or `ip6 nxt P` (the fixed header's next
//!   header: a number, `tcp`, `udp`, `icmp6`); `ip6 hlim N`, `ip6 dscp N`,
//!   `ip6 flow N` with the integer operators. Each also requires version
//!   6; they read the fixed 40-byte header at the network header
//!   annotation (set by CheckIP6Header or MarkIP6Header) and follow no
//!   extension header, so there are no IPv6 port tests. They combine with
//!   the others as any primitive does, but a bare value after one does not
//!   repeat it.
//!
//! Primitives combine with `and`/`&&`, `or`/`||`, `not`/`!`, parentheses,
//! the ternary `A ? B : C` (spaces around the colon), and juxtaposition
//! (an implicit `and`). All primitives but `tcp opt` take an operator
//! before the value: `==`/`=` (the default) or `!=`; integer fields also
//! take `<`, `>`, `<=`, `>=`; most take a mask: `DIRECTIVE & MASK [OP]
//! VALUE`. `port` and `icmp type` relations only match packets of the right
//! protocol: `tcp src port != 5` does not match UDP packets, while
//! `!(tcp src port 5)` does.
//!
//! Much syntax may be omitted: `tcp` for `ip proto tcp`, `www` for
//! `port www`, `syn` for `tcp opt syn`, `10.0.0.0/24` for `net 10.0.0.0/24`,
//! `unfrag` for `ip unfrag`; a bare value repeats the previous primitive's
//! type: `src port 80 or 81`. A pattern of `-`, `any` or `all` matches
//! every packet.
//!
//! Port, ICMP type, TCP option, TCP window and `transp[...]` tests only
//! match first fragments.
//!
//! ## Annotations
//!
//! Uses the IP and transport header offsets (and the MAC header offset for
//! `ether` tests).
//!
//! ## Handlers
//!
//! * `program` (read): the compiled decision program (see IPFilter).
//! * `patternN` (read/write): pattern N; writing recompiles the program.
//!
//! ## Examples
//!
//! ```text
//! IPClassifier(10.0.0.0/24 and syn,
//!              10.0.0.0/24 and fin ack,
//!              10.0.0.0/24 and tcp,
//!              -);
//! IPClassifier(dst tcp port 8000 or 8080,
//!              dst tcp port > 1023,
//!              tcp);
//! ```
//!
//! ## See also
//!
//! IPFilter, Classifier, CheckIPHeader, MarkIPHeader, AddressInfo,
//! tcpdump(1)

use rclick_core::args::ArgContext;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::{classify_push, parse_program, ZProgram};
use crate::ip::port_info::PortNames;

rclick_core::handlers! {
    /// IPClassifier's handlers: `program`, then `patternN`, one per
    /// pattern.
    enum H {
        Program = read("program"),
        Pattern = family_read_write("pattern"),
    }
}

/// The IPClassifier element.
#[derive(Default)]
pub struct IPClassifier {
    prog: ZProgram,
    patterns: Vec<String>,
    scratch: Vec<usize>,
}

fn compile(patterns: &[String], noutputs: usize, ctx: &dyn ArgContext) -> Result<ZProgram, String> {
    if patterns.len() != noutputs {
        return Err(format!("need {noutputs} arguments, one per output port"));
    }
    let conf: Vec<String> = patterns
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i} {p}"))
        .collect();
    parse_program(&conf, noutputs, ctx).map_err(|e| e.join("\n"))
}

impl IPClassifier {
    /// The compiled program.
    pub fn program(&self) -> &ZProgram {
        &self.prog
    }
}

impl Element for IPClassifier {
    fn class_name(&self) -> &'static str {
        "IPClassifier"
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let prog = compile(conf, cx.noutputs(), &PortNames { cx })?;
        self.prog = prog;
        self.patterns = conf.to_vec();
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        classify_push(&self.prog, &mut self.scratch, batch, cx);
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v = H::all_defs();
        v.extend(H::Pattern.family_defs(self.patterns.len()));
        v
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::decode(id) {
            Some((H::Program, _)) => Ok(self.prog.unparse()),
            Some((H::Pattern, i)) => self
                .patterns
                .get(i as usize)
                .cloned()
                .ok_or_else(|| "no such handler".into()),
            None => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let idx = match H::decode(id) {
            Some((H::Pattern, i)) if (i as usize) < self.patterns.len() => i as usize,
            _ => return Err("no such handler".into()),
        };
        let mut pats = self.patterns.clone();
        pats[idx] = value.trim().to_string();
        let n = pats.len();
        let prog = compile(&pats, n, &rclick_core::args::NoContext)?;
        self.prog = prog;
        self.patterns = pats;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rclick_core::{testing, Registry};

    fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r
    }

    const DATA: &str = "00 00 c0 ae 67 ef 00 11 22 33 44 55 08 00 45 00 00 32 00 00 00 00 40 11 65 b8 \
        0a 00 00 02 0a 00 01 02 04 d2 16 2e 00 1e dc b4 43 6c 69 63 6b 20 55 44 50 20 70 61 79 6c 6f 61 64 20 36 34 42 21";

    #[test]
    fn classifies_in_a_router_and_patterns_are_handlers() {
        let reg = registry();
        let text = format!(
            "s :: InfiniteSource(DATA \\<{DATA}>, LIMIT 5, STOP true) -> Strip(14) -> MarkIPHeader \
             -> c :: IPClassifier(tcp, udp dst port 5678, -);
             c[0] -> c0 :: Counter -> Discard; c[1] -> c1 :: Counter -> Discard; c[2] -> c2 :: Counter -> Discard;"
        );
        let r = testing::run(&text, &reg).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(testing::read(&r, "c0.count"), "0");
        assert_eq!(testing::read(&r, "c1.count"), "5");
        assert_eq!(testing::read(&r, "c.pattern1"), "udp dst port 5678");
        assert!(testing::read(&r, "c.program").contains("512/0000162e%0000ffff"));
    }

    #[test]
    fn outputs_wired_to_one_input_share_batches_and_nothing_strays() {
        // Outputs 0 and 2 both lead to `a`: runs bound for either go out
        // as one batch. Checking classifiers behind `a` and `b` count any
        // packet that reached the wrong one.
        let reg = registry();
        let text = format!(
            "InfiniteSource(DATA \\<{DATA}>, LIMIT 6400, BURST 64, STOP true) -> Strip(14) -> MarkIPHeader \
             -> SetRandIPAddress(0.0.0.0/0) -> StoreIPAddress(16) \
             -> c :: IPClassifier(dst net 0.0.0.0/1, dst net 128.0.0.0/2, -);
             c[0] -> a :: Counter -> ka :: IPClassifier(dst net 128.0.0.0/2, -);
             c[1] -> b :: Counter -> kb :: IPClassifier(dst net 128.0.0.0/2, -);
             c[2] -> a;
             bad :: Counter -> Discard; ok :: Discard;
             ka[0] -> bad; ka[1] -> ok; kb[0] -> ok; kb[1] -> bad;"
        );
        let r = testing::run(&text, &reg).unwrap_or_else(|e| panic!("{e}"));
        let a: u64 = testing::read(&r, "a.count").parse().unwrap();
        let b: u64 = testing::read(&r, "b.count").parse().unwrap();
        assert_eq!(a + b, 6400);
        assert!(a > 4000 && b > 1000, "a={a} b={b}");
        assert_eq!(testing::read(&r, "bad.count"), "0");
    }

    /// `ip6` words: addresses and prefixes by direction, next header, hop
    /// limit with operators, DSCP, negation, and IPv4 packets (which match
    /// none of them; `ip` words still work beside them).
    #[test]
    fn ip6_words() {
        use crate::ip6::test_util::ip6_hex;
        let reg = registry();
        let a = ip6_hex("2001:db8::1", "2001:db8:1::2", 17, 64, &[0; 8]);
        let mut b = ip6_hex("2001:db8:5::7", "fe80::9", 6, 1, &[0; 20]);
        b.replace_range(1..3, "b8"); // traffic class 0xb8: DSCP 46
        let pats = [
            "ip6 src 2001:db8::1",
            "ip6 dst net 2001:db8::/32",
            "ip6 host fe80::9",
            "ip6 src and dst net 2001:db8::/32",
            "ip6 proto tcp",
            "ip6 nxt 17",
            "ip6 hlim < 2",
            "ip6 hlim >= 64",
            "ip6 dscp 46",
            "not ip6 src net 2001:db8::/48",
            "ip6 and udp",
            "ip6",
            "ip6 net ::/0",
            "ip vers 4",
        ];
        let mut matched = Vec::new();
        for (name, data) in [("a", &a), ("b", &b), ("v4", &DATA[42..].to_string())] {
            let mut conf = format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> {} -> t :: Tee({});\n",
                if name == "v4" {
                    "MarkIPHeader"
                } else {
                    "MarkIP6Header"
                },
                pats.len()
            );
            for (i, p) in pats.iter().enumerate() {
                conf.push_str(&format!(
                    "t[{i}] -> c{i} :: IPClassifier({p}, -); c{i}[0] -> k{i} :: Counter -> Discard; c{i}[1] -> Discard;\n"
                ));
            }
            let r = testing::run(&conf, &reg).unwrap_or_else(|e| panic!("{e}"));
            let hits: Vec<&str> = (0..pats.len())
                .filter(|i| testing::read(&r, &format!("k{i}.count")) == "1")
                .map(|i| pats[i])
                .collect();
            matched.push((name, hits));
        }
        assert_eq!(
            matched,
            [
                (
                    "a",
                    vec![
                        "ip6 src 2001:db8::1",
                        "ip6 dst net 2001:db8::/32",
                        "ip6 src and dst net 2001:db8::/32",
                        "ip6 nxt 17",
                        "ip6 hlim >= 64",
                        "ip6",
                        "ip6 net ::/0",
                    ]
                ),
                (
                    "b",
                    vec![
                        "ip6 host fe80::9",
                        "ip6 proto tcp",
                        "ip6 hlim < 2",
                        "ip6 dscp 46",
                        "not ip6 src net 2001:db8::/48",
                        "ip6",
                        "ip6 net ::/0",
                    ]
                ),
                ("v4", vec!["not ip6 src net 2001:db8::/48", "ip vers 4"]),
            ]
        );
        for (bad, want) in [
            ("ip6 host 2001:db8::/32", "expected IPv6 address"),
            ("ip6 src 1.2.3.4", "expected IPv6 address"),
            ("ip6 hlim 300", "0 to 255"),
            ("ip6 proto frob", "expected protocol"),
        ] {
            let err = testing::build(
                &format!("Idle -> c :: IPClassifier({bad}, -); c[0] -> Idle; c[1] -> Idle;"),
                &reg,
                true,
            )
            .err()
            .unwrap_or_default();
            assert!(err.contains(want), "{bad}: {err}");
        }
    }

    #[test]
    fn argument_count_must_match_outputs() {
        let reg = registry();
        let err = testing::build("Idle -> c :: IPClassifier(tcp, udp) -> Idle;", &reg, true)
            .err()
            .unwrap_or_default();
        assert!(
            err.contains("need 1 arguments, one per output port"),
            "{err}"
        );
        let err = testing::build("Idle -> c :: IPFilter(allow frob) -> Idle;", &reg, true)
            .err()
            .unwrap_or_default();
        assert!(err.contains("pattern 0: empty term near 'frob'"), "{err}");
    }
}

#[cfg(test)]
mod fuzz_findings {
    use rclick_core::args::NoContext;
    use rclick_core::Packet;

    /// Found by the `classifier` fuzz target (and by the `control` one,
    /// through a `pattern1` write): the optimizer's dominator pass
    /// subtracted past zero (a panic with overflow checks, a read of the
    /// wrong list without) when both branches of the first test led to
    /// the same state.
    #[test]
    fn dominator_pass_when_both_branches_of_the_first_test_meet() {
        let conf = vec!["0 ip vers 4 > 5".to_string(), "1 postgresql".to_string()];
        let prog = super::super::parse_program(&conf, 2, &NoContext).expect("compiles");
        // A TCP packet to port 5432: the fast path and the careful walk agree.
        let mut d = vec![0u8; 40];
        d[0] = 0x45;
        d[9] = 6;
        d[22..24].copy_from_slice(&5432u16.to_be_bytes());
        let mut p = Packet::from_slice(&d);
        p.set_ip_header(0, 20);
        assert_eq!(prog.classify(&p).min(2), prog.classify_careful(&p).min(2));
    }
}
