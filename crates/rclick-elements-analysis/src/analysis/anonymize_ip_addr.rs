//! # AnonymizeIPAddr
//!
//! ## Synopsis
//!
//! `AnonymizeIPAddr([keywords CLASS, PRESERVE_8, SEED])`
//!
//! ## Category
//!
//! analysis — anonymizes the top-level IP addresses of passing packets.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs. Agnostic; output 1 is push.
//!
//! ## Description
//!
//! Anonymizes the source and destination addresses of passing IPv4 packets
//! (which need an IP header annotation). The mapping is prefix-preserving:
//! if two input addresses share a p-bit prefix, so do their outputs. It is
//! Greg Minshall's tcpdpriv `-A50` tree: each new address splits the tree
//! where it first differs from a known address, keeps the output's bits
//! above that point, flips the bit there and draws the rest at random.
//!
//! 0.0.0.0 and 255.255.255.255 always map to themselves. The IP header
//! checksum is updated incrementally (RFC 1624), so it stays correct iff it
//! was correct. In ICMP errors (unreachable, time exceeded, parameter
//! problem, source quench, redirect) the embedded header's addresses are
//! anonymized too and the ICMP checksum updated, when the message holds the
//! whole embedded header and 8 more bytes.
//!
//! Packets that are not IPv4 (no IP header annotation, version not 4, or
//! fewer than 20 bytes of header) go to output 1 if it exists, and are
//! dropped and counted in `drops` otherwise.
//!
//! The random bits come from the router's shared generator (Click's
//! `click_random`), so `RandomSeed` makes the mapping repeatable; with the
//! same seed it is Click's mapping.
//!
//! * `CLASS` (integer 0 to 32, or 99 meaning 32): preserve this many
//!   leading one bits, so CLASS 1 preserves class A, 2 classes A and B,
//!   3 A to C, 4 A to D. Default 0.
//! * `PRESERVE_8` (space-separated integers 0 to 255): map these /8
//!   networks to themselves. Prefix preservation then fixes or permutes
//!   nearby nets too: `PRESERVE_8 18` also keeps 19, and maps 16-17 onto
//!   16-17, 20-23 onto 20-23, and so on.
//! * `SEED` (boolean): accepted and ignored, as in current Click (the
//!   generator is seeded at startup or by RandomSeed).
//!
//! ## Annotations
//!
//! Reads the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): non-IPv4 packets dropped because output 1 does not
//!   exist (an rclick addition).
//!
//! ## Example
//!
//! `FromDump(in, FORCE_IP true) -> AnonymizeIPAddr(CLASS 4) -> ToDump(out)`
//!
//! ## See also
//!
//! AggregateIP, RandomSeed, tcpdpriv(1)

use std::net::Ipv4Addr;

use rclick_core::args::{AnyArg, Args};
use rclick_core::drops::simple::divert_or_count;
use rclick_core::random;
use rclick_core::{ConfigureCx, Ctx, Element, InitCx, Packet};
use rclick_wire::icmp::{self, IcmpPacket};
use rclick_wire::ipv4::Ipv4Packet;

#[derive(Clone, Copy, Default)]
struct Node {
    input: u32,
    output: u32,
    /// Children as arena indices; 0 (the root, never a child) means none.
    child: [u32; 2],
}

/// Arena index of the root.
const ROOT: u32 = 0;
/// Arena indices of the fixed nodes for 0.0.0.0 and 255.255.255.255.
const SPECIAL: [u32; 2] = [1, 2];

/// The AnonymizeIPAddr element.
#[derive(Default)]
pub struct AnonymizeIPAddr {
    class: u32,
    preserve_8: Vec<u32>,
    nodes: Vec<Node>,
    drops: u64,
}

fn rand32() -> u32 {
    random::random_range(0, u32::MAX)
}

/// 1-based index of the most significant set bit counting from the top
/// (Click's `ffs_msb`); 0 for 0.
fn ffs_msb(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        x.leading_zeros() + 1
    }
}

impl AnonymizeIPAddr {
    fn make_output(old: u32, swivel: u32) -> u32 {
        if swivel == 32 {
            old ^ 1
        } else {
            let known = ((old >> (32 - swivel)) ^ 1) << (32 - swivel);
            known | ((rand32() & 0x7FFF_FFFF) >> swivel)
        }
    }

    fn make_peer(&mut self, a: u32, n: u32) -> u32 {
        if a == 0 || a == u32::MAX {
            return SPECIAL[(a & 1) as usize];
        }
        let old = self.nodes[n as usize];
        let swivel = ffs_msb(a ^ old.input);
        let bit = ((a >> (32 - swivel)) & 1) as usize;
        let new = Node {
            input: a,
            output: Self::make_output(old.output, swivel),
            child: [0, 0],
        };
        let base = self.nodes.len() as u32;
        let mut down = [old, old];
        down[bit] = new;
        self.nodes.push(down[0]);
        self.nodes.push(down[1]);
        let node = &mut self.nodes[n as usize];
        node.input = down[1].input;
        node.output = down[1].output;
        node.child = [base, base + 1];
        base + bit as u32
    }

    fn find_node(&mut self, a: u32) -> u32 {
        let mut n = ROOT;
        loop {
            let node = self.nodes[n as usize];
            if node.input == a {
                return n;
            }
            if node.child[0] == 0 {
                n = self.make_peer(a, n);
            } else {
                let c0 = self.nodes[node.child[0] as usize].input;
                let c1 = self.nodes[node.child[1] as usize].input;
                let swivel = ffs_msb(c0 ^ c1);
                if ffs_msb(a ^ node.input) < swivel {
                    n = self.make_peer(a, n);
                } else if a & (1u32 << (32 - swivel)) != 0 {
                    n = node.child[1];
                } else {
                    n = node.child[0];
                }
            }
        }
    }

    /// The anonymized form of `a` (host byte order).
    fn anonymize(&mut self, a: u32) -> u32 {
        let n = self.find_node(a);
        self.nodes[n as usize].output
    }

    /// Rewrites the two addresses of IPv4 header `ip` and returns the
    /// RFC 1624 update of checksum `sum` for them.
    fn rewrite(&mut self, ip: &mut Ipv4Packet<&mut [u8]>, sum: u16) -> u16 {
        let src = u32::from(ip.src_addr());
        let dst = u32::from(ip.dst_addr());
        let mut s =
            u32::from(!sum) + (!src & 0xFFFF) + (!src >> 16) + (!dst & 0xFFFF) + (!dst >> 16);
        let nsrc = self.anonymize(src);
        let ndst = self.anonymize(dst);
        ip.set_src_addr(Ipv4Addr::from(nsrc));
        ip.set_dst_addr(Ipv4Addr::from(ndst));
        s += (nsrc & 0xFFFF) + (nsrc >> 16) + (ndst & 0xFFFF) + (ndst >> 16);
        s = (s & 0xFFFF) + (s >> 16);
        !((s + (s >> 16)) as u16)
    }

    fn handle_icmp(&mut self, p: &mut Packet) {
        let Some(t) = p.transport_header_mut() else {
            return;
        };
        if t.len() < 8 + 20 || !icmp::is_error(IcmpPacket::new_unchecked(&*t).icmp_type()) {
            return;
        }
        let hlen = usize::from(Ipv4Packet::new_unchecked(&t[8..]).header_len());
        if hlen < 20 || t.len() < 8 + hlen + 8 {
            return;
        }
        // the quoted header's addresses; the ICMP checksum covers them
        let mut m = IcmpPacket::new_unchecked(t);
        let sum = m.checksum();
        let sum = self.rewrite(&mut Ipv4Packet::new_unchecked(m.data_mut()), sum);
        m.set_checksum(sum);
    }
}

impl Element for AnonymizeIPAddr {
    fn class_name(&self) -> &'static str {
        "AnonymizeIPAddr"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut class = 0i32;
        let mut preserve = AnyArg(String::new());
        let mut seed = true;
        Args::new(conf)
            .read("CLASS", &mut class)
            .read("PRESERVE_8", &mut preserve)
            .read("SEED", &mut seed)
            .complete()
            .map_err(|e| e.to_string())?;
        self.class = match class {
            99 => 32,
            0..=32 => class as u32,
            _ => return Err("CLASS must be between 0 and 32".into()),
        };
        self.preserve_8.clear();
        for w in preserve.0.split_whitespace() {
            match w.parse::<u32>() {
                Ok(v) if v < 256 => self.preserve_8.push(v),
                _ => return Err("PRESERVE_8 expects integer between 0 and 255".into()),
            }
        }
        Ok(())
    }

    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        self.nodes.clear();
        self.nodes.push(Node {
            input: 1, // 1, not 0: 0.0.0.0 is special
            output: rand32(),
            child: [0, 0],
        });
        self.nodes.push(Node::default());
        self.nodes.push(Node::default());
        let mut touched = false;
        if self.class > 0 {
            // Click shifts by CLASS in C; at 32 the x86 shift count wraps to 0,
            // so CLASS 32 preserves nothing but still moves the root to 0.
            let mask = !u32::MAX.wrapping_shr(self.class);
            let root = &mut self.nodes[ROOT as usize];
            root.input = mask;
            root.output |= mask;
            touched = true;
        }
        for i in 0..self.preserve_8.len() {
            let addr = self.preserve_8[i] << 24;
            let n = if touched {
                self.find_node(addr)
            } else {
                self.nodes[ROOT as usize].input = addr;
                touched = true;
                ROOT
            };
            let node = &mut self.nodes[n as usize];
            node.output = (node.output & 0x00FF_FFFF) | addr;
        }
        self.nodes[SPECIAL[0] as usize] = Node::default();
        self.nodes[SPECIAL[1] as usize] = Node {
            input: u32::MAX,
            output: u32::MAX,
            child: [0, 0],
        };
        Ok(())
    }

    fn is_simple(&self) -> bool {
        true
    }

    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let ipv4 = p
            .network_header()
            .is_some_and(|h| h.len() >= 20 && Ipv4Packet::new_unchecked(h).version() == 4);
        if !ipv4 {
            divert_or_count(&mut self.drops, p, cx);
            return None;
        }
        let proto = {
            let mut ip = Ipv4Packet::new_unchecked(p.network_header_mut()?);
            let sum = ip.checksum();
            let sum = self.rewrite(&mut ip, sum);
            ip.set_checksum(sum);
            ip.protocol().0
        };
        if proto == 1 {
            self.handle_icmp(&mut p);
        }
        Some(p)
    }

    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry, run_dump};
    use rclick_core::testing;

    const INPUT: &str = "!data ip_src ip_dst\n1.2.3.4 5.6.7.8\n1.2.3.5 1.2.3.4\n\
        0.0.0.0 255.255.255.255\n18.26.4.9 19.1.1.1\n128.0.0.1 192.168.1.1\n\
        224.0.0.5 10.0.0.1\n1.2.3.4 5.6.7.9\n0.0.0.1 255.255.255.254\n";

    fn anon(args: &str) -> String {
        let _g = rclick_core::random::test_lock();
        let name = format!("anon-{}", args.replace([' ', ','], "_"));
        let f = dir(&name).join("in");
        std::fs::write(&f, INPUT).unwrap();
        let (_, lines) = run_dump(
            &name,
            &format!(
                "RandomSeed(1); FromIPSummaryDump({}, STOP true) -> AnonymizeIPAddr({args})
                 -> ToIPSummaryDump(OUT, FIELDS ip_src ip_dst);",
                f.display()
            ),
        );
        lines.join(";")
    }

    // Every expected mapping is what Click printed for the same
    // configuration and seed (clickdiff).
    #[test]
    fn same_mapping_as_click() {
        let plain = "139.48.211.152 140.226.137.148;139.48.211.153 139.48.211.152;0.0.0.0 255.255.255.255;146.137.88.149 147.62.83.27;24.186.160.253 64.249.65.183;106.120.250.162 128.7.203.122;139.48.211.152 140.226.137.149;138.206.201.236 113.10.147.108";
        assert_eq!(anon(""), plain);
        assert_eq!(anon("SEED false"), plain);
        assert_eq!(anon("CLASS 1"), "24.105.204.102 28.226.137.148;24.105.204.103 24.105.204.102;0.0.0.0 255.255.255.255;2.137.88.149 3.62.83.27;138.206.201.237 204.93.80.126;224.124.160.219 18.158.62.168;24.105.204.102 28.226.137.149;25.0.249.111 241.10.147.108");
        assert_eq!(anon("CLASS 4"), "24.105.204.102 28.226.137.148;24.105.204.103 24.105.204.102;0.0.0.0 255.255.255.255;2.137.88.149 3.62.83.27;140.93.80.126 192.124.160.219;229.60.125.81 16.7.203.122;24.105.204.102 28.226.137.149;25.16.169.54 242.49.179.226");
        // CLASS 32 (and 99) shifts by 32 in Click: the root moves to 0.0.0.0
        let c32 = "139.48.211.152 140.226.137.148;139.48.211.153 139.48.211.152;138.206.201.236 255.255.255.255;146.137.88.149 147.62.83.27;24.186.160.253 64.249.65.183;106.120.250.162 128.7.203.122;139.48.211.152 140.226.137.149;138.206.201.237 113.10.147.108";
        assert_eq!(anon("CLASS 32"), c32);
        assert_eq!(anon("CLASS 99"), c32);
        assert_eq!(anon("PRESERVE_8 18"), "3.13.57.140 4.226.137.148;3.13.57.141 3.13.57.140;0.0.0.0 255.255.255.255;18.210.137.88 19.62.83.27;152.186.160.253 192.249.65.183;234.120.250.162 8.7.203.122;3.13.57.140 4.226.137.149;2.16.169.54 244.99.103.197");
        assert_eq!(anon("PRESERVE_8 18 10"), "1.197.19.41 4.162.86.37;1.197.19.40 1.197.19.41;0.0.0.0 255.255.255.255;18.211.229.49 19.49.117.65;129.242.131.110 212.241.245.69;224.31.45.232 10.13.57.141;1.197.19.41 4.162.86.36;0.16.169.54 244.99.103.197");
        assert_eq!(anon("CLASS 2, PRESERVE_8 18"), "3.138.38.82 4.162.86.37;3.138.38.83 3.138.38.82;0.0.0.0 255.255.255.255;18.115.229.49 19.49.117.65;128.249.65.183 202.41.227.234;224.31.45.232 8.133.73.182;3.138.38.82 4.162.86.36;2.70.54.124 241.188.249.187");
        assert_eq!(anon("PRESERVE_8 0"), "1.48.211.152 4.226.137.148;1.48.211.153 1.48.211.152;0.206.201.236 255.255.255.255;18.137.88.149 19.62.83.27;152.186.160.253 192.249.65.183;234.120.250.162 8.7.203.122;1.48.211.152 4.226.137.149;0.206.201.237 241.10.147.108");
    }

    fn print(hex: &str) -> String {
        let _g = rclick_core::random::test_lock();
        let r = testing::run(
            &format!(
                "RandomSeed(1); InfiniteSource(DATA \\<{hex}>, LIMIT 1, STOP true) -> MarkIPHeader
                 -> SetIPChecksum -> AnonymizeIPAddr -> Print(x, 60) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        r.take_log().first().cloned().unwrap_or_default()
    }

    // Click's lines for the same packets (clickdiff): the IP checksum, and
    // in an ICMP unreachable the embedded addresses and ICMP checksum.
    #[test]
    fn checksums_and_icmp_errors() {
        assert_eq!(
            print("45 00 00 14 00 00 00 00 40 01 00 00 01 02 03 04 05 06 07 08"),
            "x:   20 | 45000014 00000000 400105aa 8b30d398 8ce28994"
        );
        assert_eq!(
            print("45 00 00 38 00 00 00 00 40 01 00 00 01 02 03 04 05 06 07 08 03 01 00 00 00 00 00 00 45 00 00 1c 00 00 00 00 40 11 00 00 05 06 07 08 01 02 03 04 00 01 00 02 00 08 00 00"),
            "x:   56 | 45000038 00000000 40010586 8b30d398 8ce28994 03019ad3 00000000 4500001c 00000000 40110000 8ce28994 8b30d398 00010002 00080000"
        );
        // a cut-short ICMP error: only the outer header changes, as in Click
        assert_eq!(
            print("45 00 00 1c 00 00 00 00 40 01 00 00 01 02 03 04 05 06 07 08 03 01 00 00 00 00 00 00 45"),
            "x:   29 | 4500001c 00000000 400105a2 8b30d398 8ce28994 03010000 00000000 45"
        );
    }

    // Click: non-IP packets go to output 1 (2 counted); without it they are
    // dropped, here counted in `drops`.
    #[test]
    fn non_ip_packets() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2, STOP true) -> a :: AnonymizeIPAddr -> Discard;
             a[1] -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "2");
        let r = testing::run(
            "InfiniteSource(DATA \\<45 00>, LIMIT 3, STOP true) -> MarkIPHeader(0)
             -> a :: AnonymizeIPAddr -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.drops"), "3");
    }

    // Click's messages for PRESERVE_8 and extra arguments; Click reports
    // CLASS 33 but runs anyway, and takes CLASS -1 silently: both refused.
    #[test]
    fn configuration() {
        for (args, msg) in [
            (
                "PRESERVE_8 256",
                "PRESERVE_8 expects integer between 0 and 255",
            ),
            (
                "PRESERVE_8 x",
                "PRESERVE_8 expects integer between 0 and 255",
            ),
            ("1", "too many arguments"),
            ("CLASS 33", "CLASS must be between 0 and 32"),
            ("CLASS -1", "CLASS must be between 0 and 32"),
        ] {
            let e = testing::build(
                &format!("Idle -> AnonymizeIPAddr({args}) -> Discard;"),
                &registry(),
                true,
            )
            .err()
            .unwrap();
            assert!(e.contains(msg), "{args}: {e}");
        }
    }
}
