//! IPClassifier with the 10 rules of `d_ipclassifier10_nots.click` on
//! 64-byte UDP packets (14-byte Ethernet header stripped, so 50 bytes of
//! IP) whose destination addresses are random, as SetRandIPAddress +
//! StoreIPAddress make them. Measures the per-packet classification cost
//! over batches of 64 packets, on the fast path (every tested word
//! present) and on the careful path that short packets take.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use rclick_core::args::NoContext;
use rclick_elements_ip::classifier::parse_program;
use rclick_packet::Packet;

const RULES: &[&str] = &[
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

const FRAME: [u8; 64] = [
    0x00, 0x00, 0xc0, 0xae, 0x67, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x08, 0x00, 0x45, 0x00,
    0x00, 0x32, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x65, 0xb8, 0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00,
    0x01, 0x02, 0x04, 0xd2, 0x16, 0x2e, 0x00, 0x1e, 0xdc, 0xb4, 0x43, 0x6c, 0x69, 0x63, 0x6b, 0x20,
    0x55, 0x44, 0x50, 0x20, 0x70, 0x61, 0x79, 0x6c, 0x6f, 0x61, 0x64, 0x20, 0x36, 0x34, 0x42, 0x21,
];

fn packets(n: usize) -> Vec<Packet> {
    let mut x: u32 = 0x1234_5678;
    (0..n)
        .map(|_| {
            // xorshift32: uniform destination addresses
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let mut p = Packet::from_slice(&FRAME);
            p.pull(14);
            p.set_ip_header(0, 20);
            if let Some(d) = p.data_mut().get_mut(16..20) {
                d.copy_from_slice(&x.to_be_bytes());
            }
            p
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let conf: Vec<String> = RULES
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{i} {r}"))
        .collect();
    let prog = parse_program(&conf, RULES.len(), &NoContext).expect("rules compile");
    let pkts = packets(4096);
    let mut g = c.benchmark_group("ipclassifier10");
    g.throughput(Throughput::Elements(64));
    let mut counts = [0u64; 16];
    g.bench_function("classify_batch64", |b| {
        let mut off = 0;
        b.iter(|| {
            for p in &pkts[off..off + 64] {
                let o = prog.classify(black_box(p));
                counts[o.min(15)] += 1;
            }
            off = (off + 64) % pkts.len();
        })
    });
    // The reference path (per-step length checks, no specialization),
    // which short packets take.
    g.bench_function("classify_careful_batch64", |b| {
        let mut off = 0;
        b.iter(|| {
            for p in &pkts[off..off + 64] {
                let o = prog.classify_careful(black_box(p));
                counts[o.min(15)] += 1;
            }
            off = (off + 64) % pkts.len();
        })
    });
    g.finish();
    black_box(counts);
}

criterion_group!(benches, bench);
criterion_main!(benches);
