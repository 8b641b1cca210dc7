//! Cross-thread pipeline: packets made on one thread (the bench thread, as
//! a source or a device reader would) and dropped on another (a consumer
//! thread, as a sink after forwarding). Batches of 32 go over a bounded
//! std channel. Reported time is per packet: made on A, sent, dropped on B.

use std::hint::black_box;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use rclick_packet::{pool, Packet, PacketBatch, PoolStats};

const BATCH: u64 = 32;
/// Batches in flight on the channel.
const CHANNEL_BOUND: usize = 16;

enum Msg {
    Batch(PacketBatch),
    /// Answer once every earlier batch is dropped.
    Flush(SyncSender<()>),
}

/// The consumer: drops what it receives; returns its pool counters when the
/// channel closes.
fn consumer(rx: Receiver<Msg>) -> PoolStats {
    for m in rx {
        match m {
            Msg::Batch(b) => drop(black_box(b)),
            Msg::Flush(ack) => {
                let _ = ack.send(());
            }
        }
    }
    pool::stats()
}

struct Pipeline {
    tx: Option<SyncSender<Msg>>,
    consumer: Option<JoinHandle<PoolStats>>,
}

impl Pipeline {
    fn new() -> Pipeline {
        let (tx, rx) = mpsc::sync_channel(CHANNEL_BOUND);
        let consumer = thread::spawn(move || consumer(rx));
        Pipeline {
            tx: Some(tx),
            consumer: Some(consumer),
        }
    }

    /// Makes `iters` packets in batches of [`BATCH`] with `fill`, sends
    /// them, waits until the consumer has dropped them all.
    fn run(&self, iters: u64, mut fill: impl FnMut(&mut PacketBatch, usize)) -> Duration {
        let tx = self.tx.as_ref().unwrap();
        let (ack_tx, ack_rx) = mpsc::sync_channel(1);
        let start = Instant::now();
        let mut left = iters;
        while left > 0 {
            let n = left.min(BATCH);
            let mut b = PacketBatch::with_capacity(n as usize);
            fill(&mut b, n as usize);
            tx.send(Msg::Batch(b)).unwrap();
            left -= n;
        }
        tx.send(Msg::Flush(ack_tx)).unwrap();
        ack_rx.recv().unwrap();
        start.elapsed()
    }

    /// Closes the channel; the consumer's pool counters.
    fn finish(mut self) -> PoolStats {
        drop(self.tx.take());
        self.consumer.take().unwrap().join().unwrap()
    }
}

fn report(name: &str, producer: PoolStats, consumer: PoolStats) {
    eprintln!(
        "{name}: producer allocs={} reuses={} frees={}; consumer allocs={} reuses={} frees={}",
        producer.allocations(),
        producer.reuses(),
        producer.header_frees + producer.buffer_frees + producer.batch_frees,
        consumer.allocations(),
        consumer.reuses(),
        consumer.header_frees + consumer.buffer_frees + consumer.batch_frees,
    );
    eprintln!("  producer {producer:?}\n  consumer {consumer:?}");
}

fn bench(c: &mut Criterion) {
    let frame = [0x45u8; 64];

    let p = Pipeline::new();
    let before = pool::stats();
    c.bench_function("xthread make64 on A, drop on B (per packet)", |b| {
        b.iter_custom(|iters| {
            p.run(iters, |batch, n| {
                for _ in 0..n {
                    batch.push(Packet::make(28, black_box(&frame), 0));
                }
            })
        })
    });
    let producer = pool::stats().since(&before);
    report("make64", producer, p.finish());

    let t = Packet::make_template(28, &frame, 0).unwrap();
    let p = Pipeline::new();
    let before = pool::stats();
    c.bench_function(
        "xthread push_clones(template) on A, drop on B (per packet)",
        |b| b.iter_custom(|iters| p.run(iters, |batch, n| batch.push_clones(black_box(&t), n))),
    );
    let producer = pool::stats().since(&before);
    report("template", producer, p.finish());
}

criterion_group!(benches, bench);
criterion_main!(benches);
