//! Internet checksum micro-benchmarks: 20 bytes (an IPv4 header), 64 bytes
//! (a minimum frame), 1500 bytes (an Ethernet MTU), against a 16-bit-at-a-
//! time reference; and the incremental updates (RFC 1624, DecIPTTL).
//!
//! Run: `cargo bench -p rclick-wire --bench checksum`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

use rclick_wire::checksum;
use rclick_wire::Ipv4Packet;

/// RFC 1071's loop, two bytes at a time: the baseline `sum` is measured
/// against.
fn reference_sum(data: &[u8]) -> u16 {
    let mut acc: u32 = 0;
    let mut it = data.chunks_exact(2);
    for w in &mut it {
        acc += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [b] = it.remainder() {
        acc += (*b as u32) << 8;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

fn bench(c: &mut Criterion) {
    let data: Vec<u8> = (0..1500u32).map(|i| (i * 7 + 3) as u8).collect();
    for len in [20usize, 64, 1500] {
        let d = &data[..len];
        assert_eq!(checksum::sum(d), reference_sum(d));
        c.bench_function(&format!("sum {len}B"), |b| {
            b.iter(|| checksum::sum(black_box(d)))
        });
        c.bench_function(&format!("reference sum {len}B"), |b| {
            b.iter(|| reference_sum(black_box(d)))
        });
    }

    c.bench_function("update_u16", |b| {
        b.iter(|| checksum::update_u16(black_box(0xdd2f), black_box(0x5555), black_box(0x3285)))
    });
    c.bench_function("update_u32", |b| {
        b.iter(|| {
            checksum::update_u32(
                black_box(0xdd2f),
                black_box(0x0a00_0002),
                black_box(0xc0a8_0101),
            )
        })
    });

    let mut hdr = [
        0x45u8, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00, 0xff, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00,
        0x02, 0x0a, 0x00, 0x01, 0x02,
    ];
    Ipv4Packet::new_unchecked(&mut hdr[..]).fill_checksum();
    c.bench_function("dec_ttl_update_checksum", |b| {
        b.iter(|| {
            let mut p = Ipv4Packet::new_unchecked(black_box(&mut hdr[..]));
            if p.dec_ttl_update_checksum().is_none() {
                p.set_ttl(255);
            }
        })
    });
    c.bench_function("ipv4 fill_checksum (20B)", |b| {
        b.iter(|| Ipv4Packet::new_unchecked(black_box(&mut hdr[..])).fill_checksum())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
