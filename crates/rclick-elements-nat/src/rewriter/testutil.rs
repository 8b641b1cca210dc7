//! Test helpers: a packet source and sink keyed by name, and packet makers.

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rclick_core::args::{Args, Word};
use rclick_core::{
    testing, ConfigureCx, Ctx, Element, InitCx, Packet, PacketBatch, Registry, TaskId,
};
use rclick_wire::checksum;

type Table<T> = Mutex<Option<HashMap<String, Vec<(usize, T)>>>>;
static SOURCES: Table<Vec<u8>> = Mutex::new(None);
static SINKS: Table<String> = Mutex::new(None);
static KEYS: AtomicUsize = AtomicUsize::new(0);

#[derive(Default)]
struct TestSource {
    key: String,
}

impl Element for TestSource {
    fn class_name(&self) -> &'static str {
        "TestSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut w = Word::default();
        Args::new(conf)
            .read_mp("KEY", &mut w)
            .complete()
            .map_err(|e| e.to_string())?;
        self.key = w.0;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        cx.new_task(true);
        Ok(())
    }
    fn run_task(&mut self, _t: TaskId, cx: &mut Ctx) -> bool {
        let pkts = SOURCES
            .lock()
            .unwrap()
            .get_or_insert_with(HashMap::new)
            .remove(&self.key)
            .unwrap_or_default();
        for (port, bytes) in pkts {
            let mut p = Packet::from_slice(&bytes);
            let hl = bytes.first().map_or(20, |b| usize::from(b & 15) * 4);
            p.set_ip_header(0, hl);
            let mut b = PacketBatch::new();
            b.push(p);
            cx.checked_push(port, b);
        }
        cx.request_stop();
        true
    }
}

#[derive(Default)]
struct TestSink {
    key: String,
}

/// `src:sport > dst:dport` plus whether the checksums verify.
pub fn summarize(d: &[u8]) -> String {
    let hl = usize::from(d[0] & 15) * 4;
    let src = Ipv4Addr::new(d[12], d[13], d[14], d[15]);
    let dst = Ipv4Addr::new(d[16], d[17], d[18], d[19]);
    let mut ok = checksum::verify(&d[..hl]);
    let t = &d[hl..];
    let proto = d[9];
    let ports = if proto == 6 || proto == 17 {
        let ph = checksum::pseudo_header_v4(src, dst, proto, t.len() as u16);
        if !(proto == 17 && t[6] == 0 && t[7] == 0) {
            ok &= checksum::add(checksum::sum(t), ph) == 0xffff;
        }
        format!(
            "{src}:{} > {dst}:{}",
            u16::from_be_bytes([t[0], t[1]]),
            u16::from_be_bytes([t[2], t[3]])
        )
    } else {
        ok &= checksum::verify(t);
        format!("{src} > {dst} id {}", u16::from_be_bytes([t[4], t[5]]))
    };
    format!("{ports} {}", if ok { "ok" } else { "BAD" })
}

impl Element for TestSink {
    fn class_name(&self) -> &'static str {
        "TestSink"
    }
    fn port_count(&self) -> &'static str {
        "1-/0"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut w = Word::default();
        Args::new(conf)
            .read_mp("KEY", &mut w)
            .complete()
            .map_err(|e| e.to_string())?;
        self.key = w.0;
        Ok(())
    }
    fn push(&mut self, port: usize, batch: PacketBatch, _cx: &mut Ctx) {
        let mut g = SINKS.lock().unwrap();
        let v = g
            .get_or_insert_with(HashMap::new)
            .entry(self.key.clone())
            .or_default();
        for p in batch {
            let off = p.ip_header_offset().unwrap_or(0).max(0) as usize;
            v.push((port, summarize(&p.data()[off..])));
        }
    }
}

/// The registry used by this crate's tests.
pub fn registry() -> Registry {
    let mut r = Registry::new();
    rclick_elements_standard::register(&mut r);
    crate::register(&mut r);
    r.add("TestSource", || Box::<TestSource>::default(), "");
    r.add("TestSink", || Box::<TestSink>::default(), "");
    r
}

/// An address from its bytes.
pub fn ip(a: u8, b: u8, c: u8, d: u8) -> u32 {
    u32::from(Ipv4Addr::new(a, b, c, d))
}

fn ip_packet(src: u32, dst: u32, proto: u8, l4: &[u8]) -> Vec<u8> {
    let mut v = vec![0u8; 20];
    v[0] = 0x45;
    let len = (20 + l4.len()) as u16;
    v[2..4].copy_from_slice(&len.to_be_bytes());
    v[8] = 64;
    v[9] = proto;
    v[12..16].copy_from_slice(&src.to_be_bytes());
    v[16..20].copy_from_slice(&dst.to_be_bytes());
    let c = checksum::internet_checksum(&v);
    v[10..12].copy_from_slice(&c.to_be_bytes());
    v.extend_from_slice(l4);
    if proto == 6 || proto == 17 {
        let at = if proto == 6 { 36 } else { 26 };
        let ph = checksum::pseudo_header_v4(
            Ipv4Addr::from(src),
            Ipv4Addr::from(dst),
            proto,
            l4.len() as u16,
        );
        let s = !checksum::add(checksum::sum(&v[20..]), ph);
        v[at..at + 2].copy_from_slice(&s.to_be_bytes());
    }
    v
}

/// A TCP packet with a 20-byte header and `payload`.
pub fn tcp_payload(
    src: u32,
    sport: u16,
    dst: u32,
    dport: u16,
    seq: u32,
    payload: &[u8],
) -> Vec<u8> {
    let mut t = vec![0u8; 20];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    t[4..8].copy_from_slice(&seq.to_be_bytes());
    t[12] = 5 << 4;
    t[13] = 0x10;
    t.extend_from_slice(payload);
    ip_packet(src, dst, 6, &t)
}

/// An empty TCP packet.
pub fn tcp(src: u32, sport: u16, dst: u32, dport: u16) -> Vec<u8> {
    tcp_payload(src, sport, dst, dport, 0, b"")
}

/// A UDP packet with 4 payload bytes.
pub fn udp(src: u32, sport: u16, dst: u32, dport: u16) -> Vec<u8> {
    let mut t = vec![0u8; 12];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    t[4..6].copy_from_slice(&12u16.to_be_bytes());
    t[8..12].copy_from_slice(b"abcd");
    ip_packet(src, dst, 17, &t)
}

/// An ICMP echo (type 8) or echo reply (type 0).
pub fn icmp_echo(src: u32, dst: u32, ty: u8, id: u16) -> Vec<u8> {
    let mut t = vec![0u8; 8];
    t[0] = ty;
    t[4..6].copy_from_slice(&id.to_be_bytes());
    let c = checksum::internet_checksum(&t);
    t[2..4].copy_from_slice(&c.to_be_bytes());
    ip_packet(src, dst, 1, &t)
}

/// Stores `pkts` (output port of a `TestSource`, bytes) for the source
/// configured with the returned key.
pub fn seed(pkts: Vec<(usize, Vec<u8>)>) -> String {
    let key = format!("k{}", KEYS.fetch_add(1, Ordering::Relaxed));
    SOURCES
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .insert(key.clone(), pkts);
    key
}

/// Runs `cfg` (which names `src :: TestSource(KEY)` and `sink ::
/// TestSink(KEY)`) with `pkts` (input port of `src`, bytes); returns what
/// reached the sink (its input port, summary).
pub fn run_cfg(cfg: &str, pkts: &[(usize, Vec<u8>)]) -> Vec<(usize, String)> {
    let key = seed(pkts.to_vec());
    let cfg = cfg.replace("KEY", &key);
    let r = testing::build(&cfg, &registry(), true).unwrap_or_else(|e| panic!("{e}"));
    r.run();
    SINKS
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .remove(&key)
        .unwrap_or_default()
}

/// `decl` declares `rw`; packets enter `target`, `rw[0]` goes to the sink.
pub fn run_dump(decl: &str, target: &str, pkts: &[Vec<u8>]) -> Vec<String> {
    let cfg = format!(
        "{decl} src :: TestSource(KEY); sink :: TestSink(KEY); src -> {target}; rw[0] -> sink;"
    );
    let p: Vec<(usize, Vec<u8>)> = pkts.iter().map(|b| (0, b.clone())).collect();
    run_cfg(&cfg, &p).into_iter().map(|x| x.1).collect()
}

/// `decl` declares `rw` with `nout` outputs; returns each packet's output.
pub fn run_ports(decl: &str, nout: usize, pkts: &[Vec<u8>]) -> Vec<usize> {
    let mut cfg = format!("{decl} src :: TestSource(KEY); sink :: TestSink(KEY); src -> rw;");
    for i in 0..nout {
        cfg.push_str(&format!(" rw[{i}] -> [{i}]sink;"));
    }
    let p: Vec<(usize, Vec<u8>)> = pkts.iter().map(|b| (0, b.clone())).collect();
    run_cfg(&cfg, &p).into_iter().map(|x| x.0).collect()
}
