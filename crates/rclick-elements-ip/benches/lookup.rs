//! Route lookup speed of the DIR-24-8 table behind RadixIPLookup,
//! DirectIPLookup and RangeIPLookup, with 1,000 and 100,000 random routes
//! (prefix lengths distributed like the 100k-route bench configuration:
//! mostly /24, then /16-/23, some /8-/15 and /25-/32) plus a default route,
//! looked up at uniformly random addresses. Also prints table memory and
//! the time to build each table.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rclick_elements_ip::ip::dir248::Dir248;
use rclick_elements_ip::ip::iproute::{Route, RouteEngine};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn random_len(r: &mut Rng) -> u32 {
    match r.next() % 100 {
        0..=56 => 24,
        57..=83 => 16 + (r.next() % 8) as u32,
        84..=93 => 8 + (r.next() % 8) as u32,
        _ => 25 + (r.next() % 8) as u32,
    }
}

fn build(n: usize, seed: u64) -> Dir248 {
    let mut r = Rng(seed);
    let mut t = Dir248::default();
    let _ = t.add(
        &Route {
            addr: 0,
            mask: 0,
            gw: 0,
            port: 0,
        },
        false,
    );
    let mut added = 0;
    while added < n {
        let len = random_len(&mut r);
        let mask = u32::MAX << (32 - len);
        let route = Route {
            addr: r.next() as u32 & mask,
            mask,
            gw: 0,
            port: (r.next() % 4) as i32,
        };
        if t.add(&route, false).is_ok() {
            added += 1;
        }
    }
    t
}

fn bench_lookup(c: &mut Criterion) {
    let mut g = c.benchmark_group("dir248_lookup");
    for &n in &[1_000usize, 100_000] {
        let start = Instant::now();
        let t = build(n, 0x9e37_79b9_7f4a_7c15 ^ n as u64);
        let built = start.elapsed();
        eprintln!(
            "{n} routes: built in {:?}; lookup tables {:.1} MB, total {:.1} MB",
            built,
            t.lookup_table_bytes() as f64 / 1e6,
            t.memory_bytes() as f64 / 1e6
        );
        let mut r = Rng(12345);
        let addrs: Vec<u32> = (0..4096).map(|_| r.next() as u32).collect();
        g.throughput(Throughput::Elements(addrs.len() as u64));
        g.bench_function(format!("{n}_routes"), |b| {
            b.iter(|| {
                let mut acc = 0i64;
                for &a in &addrs {
                    if let Some((_, port)) = t.lookup(black_box(a)) {
                        acc += i64::from(port);
                    }
                }
                black_box(acc)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_lookup);
criterion_main!(benches);
