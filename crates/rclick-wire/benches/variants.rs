use std::hint::black_box;
use criterion::{criterion_group, criterion_main, Criterion};

#[inline(always)]
fn fold(mut acc: u64) -> u16 {
    acc = (acc & 0xffff_ffff) + (acc >> 32);
    acc = (acc & 0xffff_ffff) + (acc >> 32);
    acc = (acc & 0xffff) + (acc >> 16);
    acc = (acc & 0xffff) + (acc >> 16);
    acc = (acc & 0xffff) + (acc >> 16);
    acc as u16
}

#[inline(always)]
fn tail(r: &[u8]) -> u64 {
    let mut acc = 0u64;
    let mut r = r;
    if r.len() >= 4 { acc += u32::from_ne_bytes([r[0], r[1], r[2], r[3]]) as u64; r = &r[4..]; }
    if r.len() >= 2 { acc += u16::from_ne_bytes([r[0], r[1]]) as u64; r = &r[2..]; }
    if let [b] = r { acc += u16::from_ne_bytes([*b, 0]) as u64; }
    acc
}

// A: u32 lanes, 8 bytes/iter, two accumulators
fn sum_a(data: &[u8]) -> u16 {
    let mut a = 0u64; let mut b = 0u64;
    let mut ch = data.chunks_exact(8);
    for c in &mut ch {
        a += u32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as u64;
        b += u32::from_ne_bytes([c[4], c[5], c[6], c[7]]) as u64;
    }
    u16::from_be(fold(a + b + tail(ch.remainder())))
}

// B: u64 add with carry count, 8 bytes/iter
fn sum_b(data: &[u8]) -> u16 {
    let mut acc = 0u64; let mut carry = 0u64;
    let mut ch = data.chunks_exact(8);
    for c in &mut ch {
        let v = u64::from_ne_bytes(c.try_into().unwrap());
        let (s, o) = acc.overflowing_add(v);
        acc = s; carry += o as u64;
    }
    let t = tail(ch.remainder());
    let f = fold(acc) as u64 + fold(carry) as u64 + fold(t) as u64;
    u16::from_be(fold(f))
}

// C: u64 add with carry, 16 bytes/iter, two chains
fn sum_c(data: &[u8]) -> u16 {
    let mut a = 0u64; let mut ca = 0u64; let mut b = 0u64; let mut cb = 0u64;
    let mut ch = data.chunks_exact(16);
    for c in &mut ch {
        let v = u64::from_ne_bytes(c[0..8].try_into().unwrap());
        let w = u64::from_ne_bytes(c[8..16].try_into().unwrap());
        let (s, o) = a.overflowing_add(v); a = s; ca += o as u64;
        let (s, o) = b.overflowing_add(w); b = s; cb += o as u64;
    }
    let r = ch.remainder();
    let mut t = 0u64;
    let r = if r.len() >= 8 { t += u32::from_ne_bytes([r[0],r[1],r[2],r[3]]) as u64 + u32::from_ne_bytes([r[4],r[5],r[6],r[7]]) as u64; &r[8..] } else { r };
    t += tail(r);
    let f = fold(a) as u64 + fold(b) as u64 + ca + cb + fold(t) as u64;
    u16::from_be(fold(f))
}

// D: u32 lanes, 16 bytes/iter (current lib, but tail without memcpy)
fn sum_d(data: &[u8]) -> u16 {
    let mut a = 0u64; let mut b = 0u64;
    let mut ch = data.chunks_exact(16);
    for c in &mut ch {
        a += u32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as u64;
        b += u32::from_ne_bytes([c[4], c[5], c[6], c[7]]) as u64;
        a += u32::from_ne_bytes([c[8], c[9], c[10], c[11]]) as u64;
        b += u32::from_ne_bytes([c[12], c[13], c[14], c[15]]) as u64;
    }
    let r = ch.remainder();
    let r = if r.len() >= 8 { a += u32::from_ne_bytes([r[0],r[1],r[2],r[3]]) as u64 + u32::from_ne_bytes([r[4],r[5],r[6],r[7]]) as u64; &r[8..] } else { r };
    u16::from_be(fold(a + b + tail(r)))
}

fn bench(c: &mut Criterion) {
    let data: Vec<u8> = (0..1500u32).map(|i| (i * 7 + 3) as u8).collect();
    for len in [0usize, 1, 3, 7, 20, 21, 64, 1500, 1499] {
        let d = &data[..len];
        let r = rclick_wire::checksum::sum(d);
        assert_eq!(sum_a(d), r, "a {len}"); assert_eq!(sum_b(d), r, "b {len}"); assert_eq!(sum_c(d), r, "c {len}"); assert_eq!(sum_d(d), r, "d {len}");
    }
    for len in [20usize, 64, 1500] {
        let d = &data[..len];
        c.bench_function(&format!("lib {len}"), |b| b.iter(|| rclick_wire::checksum::sum(black_box(d))));
        c.bench_function(&format!("A {len}"), |b| b.iter(|| sum_a(black_box(d))));
        c.bench_function(&format!("B {len}"), |b| b.iter(|| sum_b(black_box(d))));
        c.bench_function(&format!("C {len}"), |b| b.iter(|| sum_c(black_box(d))));
        c.bench_function(&format!("D {len}"), |b| b.iter(|| sum_d(black_box(d))));
    }
}
criterion_group!(benches, bench);
criterion_main!(benches);
