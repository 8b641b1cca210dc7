//! Route lookup speed of the DXR table behind RadixIPLookup and
//! RangeIPLookup and of the DIR-24-8 table behind DirectIPLookup, with
//! 1,000 and 100,000 random routes
//! (prefix lengths distributed like the 100k-route bench configuration:
//! mostly /24, then /16-/23, some /8-/15 and /25-/32) plus a default route,
//! looked up at uniformly random addresses. Also prints table memory, the
//! time to build each table (route by route, as the handlers would), and
//! the time of one `add` and one `remove` on the 100,000-route table.

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rclick_elements_ip::ip::dir248::Dir248;
use rclick_elements_ip::ip::dxr::Dxr;
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

fn random_route(r: &mut Rng) -> Route {
    let len = random_len(r);
    let mask = u32::MAX << (32 - len);
    Route {
        addr: r.next() as u32 & mask,
        mask,
        gw: 0,
        port: (r.next() % 4) as i32,
    }
}

fn build<E: RouteEngine>(n: usize, seed: u64) -> E {
    let mut r = Rng(seed);
    let mut t = E::default();
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
        if t.add(&random_route(&mut r), false).is_ok() {
            added += 1;
        }
    }
    t
}

/// Mean time of one add and one remove of a fresh random route (of the
/// bench's length mix, so mostly /24s) on table `t`, over 2,000 routes;
/// and of one add + remove of a /8.
fn time_updates<E: RouteEngine>(name: &str, t: &mut E) {
    let mut r = Rng(777);
    let fresh: Vec<Route> = (0..2000)
        .map(|_| random_route(&mut r))
        .filter(|x| t.add(x, false).is_ok() && t.remove(x).is_ok())
        .collect();
    let start = Instant::now();
    for x in &fresh {
        let _ = t.add(x, false);
    }
    let add = start.elapsed() / fresh.len() as u32;
    let start = Instant::now();
    for x in &fresh {
        let _ = t.remove(x);
    }
    let remove = start.elapsed() / fresh.len() as u32;
    eprintln!(
        "{name}: one add {add:?}, one remove {remove:?} (mean of {})",
        fresh.len()
    );
    // Short prefixes no route has yet: each covers many /16s.
    for len in [8u32, 1] {
        let mask = u32::MAX << (32 - len);
        let Some(x) = (0..1u32 << len)
            .map(|a| Route {
                addr: a << (32 - len),
                mask,
                gw: 0,
                port: 1,
            })
            .find(|x| t.add(x, false).is_ok() && t.remove(x).is_ok())
        else {
            continue;
        };
        let start = Instant::now();
        let _ = t.add(&x, false);
        let add = start.elapsed();
        let start = Instant::now();
        let _ = t.remove(&x);
        eprintln!(
            "{name}: a /{len}: add {add:?}, remove {:?}",
            start.elapsed()
        );
    }
}

fn bench_engine<E: RouteEngine>(c: &mut Criterion, name: &str) {
    let mut g = c.benchmark_group(format!("{name}_lookup"));
    for &n in &[1_000usize, 100_000] {
        let start = Instant::now();
        let mut t: E = build(n, 0x9e37_79b9_7f4a_7c15 ^ n as u64);
        let built = start.elapsed();
        let (lookup, total) = t.memory().unwrap_or((0, 0));
        eprintln!(
            "{name}, {n} routes: built in {built:?}; lookup tables {:.2} MB, total {:.2} MB",
            lookup as f64 / 1e6,
            total as f64 / 1e6
        );
        if n == 100_000 {
            time_updates(name, &mut t);
        }
        let mut r = Rng(12345);
        // Many more addresses than the caches hold, so a table's
        // entries are not all cached between passes.
        let addrs: Vec<u32> = (0..1 << 20).map(|_| r.next() as u32).collect();
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
        // Each address depends on the previous lookup's result, so lookups
        // cannot overlap: the latency a router pays per packet when other
        // work separates its lookups.
        g.bench_function(format!("{n}_routes_dependent"), |b| {
            b.iter(|| {
                let mut prev = 0u32;
                for &a in &addrs {
                    if let Some((_, port)) = t.lookup(black_box(a ^ prev)) {
                        prev = port as u32 & 1;
                    }
                }
                black_box(prev)
            })
        });
    }
    g.finish();
}

fn bench_lookup(c: &mut Criterion) {
    bench_engine::<Dxr>(c, "dxr");
    bench_engine::<Dir248>(c, "dir248");
}

criterion_group!(benches, bench_lookup);
criterion_main!(benches);
