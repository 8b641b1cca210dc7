//! The engine ([`rclick_classify`]) on IPClassifier programs: the fast
//! forms against the careful walk, on the benchmark's rules and random
//! ones.

mod tests {
    use crate::classifier::parse_program;
    use rclick_classify::ZProgram;
    use rclick_core::args::NoContext;
    use rclick_packet::Packet;

    use crate::classifier::TestRng as Rng;

    /// The 10 rules (and default) of Click's `d_ipclassifier10` benchmark.
    const BENCH_RULES: &[&str] = &[
        "dst net 10.0.0.0/8 and tcp dst port 80",
        "dst net 10.0.0.0/8 and udp dst port 53",
        "src host 10.0.0.2 and dst net 192.168.0.0/16",
        "tcp opt syn and not tcp opt ack",
        "icmp type echo",
        "dst net 172.16.0.0/12",
        "udp dst port 5678 and dst net 128.0.0.0/2",
        "dst net 64.0.0.0/3 and ip ttl < 10",
        "ip frag",
        "udp",
        "-",
    ];

    fn program(rules: &[&str]) -> ZProgram {
        let conf: Vec<String> = rules
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{i} {r}"))
            .collect();
        parse_program(&conf, rules.len(), &NoContext).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A random frame: a 14-byte link header, then an IPv4-looking header
    /// (random header length, so options, protocol, fragment fields,
    /// addresses near the tested networks), a transport header and
    /// payload, truncated to a random length; headers set or not.
    fn packet(r: &mut Rng) -> Packet {
        let mut d = [0u8; 14 + 60 + 40];
        for b in d.iter_mut() {
            *b = r.next() as u8;
        }
        let hl = 5 + r.below(11) as usize;
        d[14] = 0x40 | hl as u8;
        d[14 + 9] = [1, 6, 17, 2, 4, r.next() as u8][r.below(6) as usize];
        if r.below(2) == 0 {
            // unfragmented, or a first fragment, half the time
            d[14 + 6] &= 0x20;
            d[14 + 7] = 0;
        }
        let nets = [
            [10, 0, 0, 2],
            [10, 0, 1, 2],
            [192, 168, 3, 4],
            [172, 16, 9, 9],
        ];
        for at in [14 + 12, 14 + 16] {
            if r.below(2) == 0 {
                d[at..at + 4].copy_from_slice(&nets[r.below(4) as usize]);
            }
        }
        let th = 14 + hl * 4;
        if r.below(2) == 0 {
            let ports: [u16; 5] = [80, 53, 5678, 22, 1];
            d[th + 2..th + 4].copy_from_slice(&ports[r.below(5) as usize].to_be_bytes());
            d[th] = [8, 0, 3][r.below(3) as usize];
        }
        let len = if r.below(3) == 0 {
            r.below(d.len() as u64 + 1) as usize
        } else {
            d.len()
        };
        let mut p = Packet::from_slice(&d[..len]);
        match r.below(8) {
            0 => {}
            1 => p.set_ip_header(14, 4 * r.below(20) as usize),
            _ => {
                p.set_mac_header(0);
                p.set_ip_header(14, hl * 4);
            }
        }
        p
    }

    #[test]
    fn fast_path_agrees_with_the_careful_one() {
        let sets: &[&[&str]] = &[
            BENCH_RULES,
            &[
                "tcp port 1 or 2 or 3 or 5 or 8 or 13 or 21 or 22 or 34 or 53 or 80",
                "udp src port 53 or 5678 or 1",
                "icmp type echo-reply or unreachable",
                "ip hl > 5 and ip[20:2] != 0",
                "transp[2:2] < 1024 and not ip frag",
                "tcp win 0 or tcp opt fin",
            ],
            &[
                "ip unfrag and transp[0] & 0x80 != 0",
                "src or dst 10.0.0.0/24",
                "-",
            ],
            &["ether src 00:11:22:33:44:55", "ip dscp 3 or ip ect", "tcp"],
            &[
                "icmp[1:1] == 3",
                "ip[12:4] == 0x0a000002 && ip ttl >= 64",
                "udp[6:2] == 0",
            ],
            &["-"],
        ];
        let mut r = Rng(0x0123_4567_89ab_cdef);
        for (k, rules) in sets.iter().enumerate() {
            let prog = program(rules);
            assert_eq!(prog.fast_steps().is_some(), k != 3 && k != 5, "set {k}");
            // The benchmark's rules take the table form; the port lists of
            // set 1 (too many atoms on one word) keep the walk.
            let table = prog.has_table();
            assert_eq!(table, k == 0 || k == 2 || k == 4, "set {k}");
            let mut fast = 0;
            for i in 0..20_000 {
                let p = packet(&mut r);
                let net = p.network_header().unwrap_or(&[]);
                if let Some((net_need, transp_need)) = prog.fast_needs() {
                    let nhl = p.network_header_len();
                    if p.network_header().is_some()
                        && net.len() >= net_need
                        && net.len() >= nhl + transp_need
                    {
                        fast += 1;
                    }
                }
                assert_eq!(
                    prog.classify(&p),
                    prog.classify_careful(&p),
                    "set {k}, packet {i}: {:02x?}",
                    p.data()
                );
            }
            // Both paths ran: many packets are long enough, some are not.
            if prog.fast_steps().is_some() {
                assert!(fast > 5_000 && fast < 20_000, "set {k}: {fast} fast");
            }
        }
    }

    #[test]
    fn specialized_and_large_programs_agree_with_the_careful_path() {
        let ten = program(&[
            "dst net 10.0.0.0/8 and tcp dst port 80",
            "dst net 10.0.0.0/8 and udp dst port 53",
            "udp",
            "-",
        ]);
        let f = ten.fast_steps().unwrap_or(0);
        assert!(f > 0 && f <= rclick_classify::fast::MAX_SPECIALIZED, "{f}");

        let rules: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    "dst host 10.0.{}.{} and udp or src port {}",
                    i / 250,
                    i % 250,
                    i
                )
            })
            .collect();
        let refs: Vec<&str> = rules.iter().map(String::as_str).collect();
        let big = program(&refs);
        let mut r = Rng(42);
        for i in 0..5_000 {
            let p = packet(&mut r);
            assert_eq!(big.classify(&p), big.classify_careful(&p), "packet {i}");
        }
    }

    /// Times the table form against the specialized DAG walk on the
    /// 10-rule benchmark's packets (random destinations):
    /// `cargo test --release -p rclick-elements-ip -- --ignored --nocapture table_vs_walk`.
    #[test]
    #[ignore]
    fn table_vs_walk_timing() {
        let prog = program(BENCH_RULES);
        let walk = prog.with_walk();
        let frame: Vec<u8> = (0..50u8).collect();
        let mut x: u32 = 0x1234_5678;
        let mut pkts: Vec<Packet> = (0..64)
            .map(|_| {
                let mut p = Packet::from_slice(&frame);
                if let Some(d) = p.data_mut().get_mut(0..20) {
                    d.copy_from_slice(&[
                        0x45, 0, 0, 0x32, 0, 0, 0, 0, 0x40, 0x11, 0x65, 0xb8, 10, 0, 0, 2, 0, 0, 0,
                        0,
                    ]);
                }
                p.set_ip_header(0, 20);
                p
            })
            .collect();
        let iters: usize = std::env::var("ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(40_000);
        let fixed = std::env::var_os("FIXED").is_some();
        for round in 0..3 {
            let trivial = program(&["-"]);
            for (name, pr) in [
                ("table", Some(&prog)),
                ("walk", Some(&walk)),
                ("none", None),
                ("trivial", Some(&trivial)),
            ] {
                // CPU time of this thread (the machine may be loaded)
                let cpu = || {
                    std::fs::read_to_string("/proc/thread-self/schedstat")
                        .ok()
                        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                let t = std::time::Instant::now();
                let c0 = cpu();
                let mut sum = 0usize;
                // a fresh random destination per packet, in cache
                for _ in 0..iters {
                    for p in pkts.iter_mut() {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        if !fixed {
                            if let Some(d) = p.data_mut().get_mut(16..20) {
                                d.copy_from_slice(&x.to_be_bytes());
                            }
                        }
                        let p = std::hint::black_box(&*p);
                        sum = sum.wrapping_add(pr.map_or(p.data()[19].into(), |pr| pr.classify(p)));
                    }
                }
                let n = iters as f64 * pkts.len() as f64;
                let ns = t.elapsed().as_nanos() as f64 / n;
                let cns = (cpu() - c0) as f64 / n;
                eprintln!("round {round} {name}: {ns:.2} ns/packet wall, {cns:.2} cpu ({sum})");
            }
        }
    }
}
