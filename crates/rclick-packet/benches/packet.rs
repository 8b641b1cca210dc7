//! Hot-path micro-benchmarks: clone+drop (ordinary and template packets),
//! make+drop from the pool, batches of 32 clones, a batch of 32 built and
//! drained, and a copy-on-write / in-place write.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use std::sync::Arc;

use rclick_packet::{pool, Packet, PacketBatch};
use smallvec::SmallVec;

#[inline(never)]
fn hop_pb(b: PacketBatch) -> PacketBatch {
    black_box(b)
}

#[inline(never)]
fn hop_sv(b: SmallVec<[Packet; 32]>) -> SmallVec<[Packet; 32]> {
    black_box(b)
}

fn bench(c: &mut Criterion) {
    pool::preallocate(256, 16);
    let frame = [0x45u8; 64];

    let p = Packet::from_slice(&frame);
    c.bench_function("clone+drop", |b| {
        b.iter(|| drop(black_box(black_box(&p).clone())))
    });

    let t = Packet::make_template(28, &frame, 0).unwrap();
    c.bench_function("template clone+drop", |b| {
        b.iter(|| drop(black_box(black_box(&t).clone())))
    });

    c.bench_function("batch32 push_clones(template)+drop", |b| {
        b.iter(|| {
            let mut batch = PacketBatch::with_capacity(32);
            batch.push_clones(black_box(&t), 32);
            drop(black_box(batch));
        })
    });

    c.bench_function("batch32 32x push(clone)+drop", |b| {
        b.iter(|| {
            let mut batch = PacketBatch::with_capacity(32);
            for _ in 0..32 {
                batch.push(black_box(&p).clone());
            }
            drop(black_box(batch));
        })
    });

    c.bench_function("make64+drop (pooled)", |b| {
        b.iter(|| drop(black_box(Packet::make(28, black_box(&frame), 0))))
    });

    c.bench_function("with_len1500+drop (pooled)", |b| {
        b.iter(|| drop(black_box(Packet::with_len(black_box(1500)))))
    });

    let mut q = Packet::from_slice(&frame);
    c.bench_function("data_mut write (unique)", |b| {
        b.iter(|| {
            black_box(&mut q).data_mut()[0] ^= 1;
        })
    });

    c.bench_function("push14+pull14 (unique)", |b| {
        b.iter(|| {
            let q = black_box(&mut q);
            q.push(14).unwrap();
            q.pull(14);
        })
    });

    c.bench_function("clone+data_mut (COW copy)+drop", |b| {
        b.iter(|| {
            let mut c = black_box(&p).clone();
            c.data_mut()[0] = 1;
            drop(black_box(c));
        })
    });

    let mut spare: Vec<Packet> = (0..32).map(|_| Packet::from_slice(&frame)).collect();
    c.bench_function("batch32 build+drain (packets moved)", |b| {
        b.iter(|| {
            let mut batch = PacketBatch::new();
            for p in spare.drain(..) {
                batch.push(p);
            }
            let batch = black_box(batch);
            spare.extend(batch);
        })
    });

    // PacketBatch vs SmallVec<[Packet; 32]>: build, pass by value through
    // four non-inlined "elements", drain.
    c.bench_function("batch32 build+4 hops+drain: PacketBatch", |b| {
        b.iter(|| {
            let mut batch = PacketBatch::new();
            for p in spare.drain(..) {
                batch.push(p);
            }
            let batch = hop_pb(hop_pb(hop_pb(hop_pb(batch))));
            spare.extend(batch);
        })
    });
    c.bench_function("batch32 build+4 hops+drain: SmallVec", |b| {
        b.iter(|| {
            let mut batch: SmallVec<[Packet; 32]> = SmallVec::new();
            for p in spare.drain(..) {
                batch.push(p);
            }
            let batch = hop_sv(hop_sv(hop_sv(hop_sv(batch))));
            spare.extend(batch);
        })
    });

    c.bench_function("baseline: malloc header+2KB buffer, free", |b| {
        b.iter(|| {
            let h = Box::new(black_box([0u64; 16]));
            let buf: Arc<[u8]> = Arc::from(black_box(&[0u8; 2048][..]));
            drop(black_box((h, buf)));
        })
    });

    c.bench_function("batch32 make+build+drain+drop", |b| {
        b.iter(|| {
            let mut batch = PacketBatch::new();
            for _ in 0..32 {
                batch.push(Packet::make(28, black_box(&frame), 0));
            }
            let mut batch = black_box(batch);
            for p in batch.drain() {
                drop(black_box(p));
            }
        })
    });

    let stats = pool::stats();
    eprintln!(
        "pool: allocs={} reuses={}",
        stats.allocations(),
        stats.reuses()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
