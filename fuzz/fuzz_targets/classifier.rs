//! IPClassifier/IPFilter and Classifier expressions: the input is a
//! comma-separated pattern list, a NUL byte, and a packet. Compiling never
//! panics; for a program that compiles, the packet and every cut of it
//! classify the same through the fast path and the careful reference
//! walk (with the IP header at the start, and after a 14-byte link
//! header), and the program prints.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rclick_core::args::NoContext;
use rclick_core::confparse::split_args;
use rclick_core::Packet;
use rclick_elements_ip::classifier::parse_program;
use rclick_elements_standard::basic::classifier;

fuzz_target!(|data: &[u8]| {
    let nul = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let text = String::from_utf8_lossy(&data[..nul]);
    let pkt = data.get(nul + 1..).unwrap_or(&[]);
    let pats = split_args(&text);
    if pats.is_empty() || pats.len() > 32 {
        return;
    }
    let n = pats.len();
    // IPClassifier numbers its patterns; IPFilter's are ACTION PATTERN.
    let numbered: Vec<String> = pats
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{i} {p}"))
        .collect();
    for conf in [&numbered, &pats] {
        let Ok(prog) = parse_program(conf, n, &NoContext) else {
            continue;
        };
        let _ = prog.unparse();
        for link in [0usize, 14] {
            for cut in (0..=pkt.len()).rev().step_by(3).take(40) {
                let d = &pkt[..cut];
                let mut p = Packet::from_slice(d);
                if d.len() > link {
                    let hl = usize::from(d[link] & 15) * 4;
                    p.set_mac_header(0);
                    p.set_ip_header(link, hl);
                }
                let fast = prog.classify(&p).min(n);
                let careful = prog.classify_careful(&p).min(n);
                assert_eq!(fast, careful, "cut {cut} link {link}");
            }
        }
    }
    if let Ok(prog) = classifier::compile(&pats) {
        let _ = prog.unparse();
        for cut in (0..=pkt.len()).rev().step_by(3).take(40) {
            let d = &pkt[..cut];
            assert_eq!(
                prog.classify_raw(d).min(n),
                prog.classify_careful(d).min(n),
                "cut {cut}"
            );
        }
    }
});
