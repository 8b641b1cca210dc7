//! # IPReassembler
//!
//! `IPReassembler([KEYWORDS])`
//!
//! **Category:** ip. Reassembles fragmented IP packets.
//!
//! **Ports:** one input, one or two outputs. Input and output 0 agnostic,
//! output 1 push.
//!
//! ## Description
//!
//! Expects IP packets with their IP header annotation set. Packets that
//! are not fragments pass straight through to output 0. Fragments are held
//! until every fragment of their datagram (same source, destination,
//! protocol and IP ID) has arrived; the whole datagram then leaves on
//! output 0. It is built on the first fragment, so it keeps what came
//! before the IP header, the first fragment's IP options and annotations;
//! its timestamp is the last fragment's, its length and checksum are
//! recomputed, and its fragment offset and more-fragments flag are
//! cleared.
//!
//! A datagram left incomplete and dormant for TIMEOUT seconds expires.
//! Time is the packets' timestamp annotations (a fragment without one is
//! stamped with the current time), so traces replay deterministically;
//! expired datagrams are looked for as fragments arrive, at most every 10
//! seconds. An expired datagram goes to output 1, if it exists, as one
//! packet holding every fragment received at its offset (usually to
//! `ICMPError(ADDR, timeexceeded, reassembly)`), and is dropped otherwise.
//!
//! Memory is bounded: each held datagram counts 40 bytes plus its data.
//! When a new fragment would take the total above HIMEM bytes, the oldest
//! datagrams are discarded (the same way as expired ones) until usage is
//! at most 3/4 of HIMEM. A fragment that cannot fit even then is dropped.
//!
//! Bad fragments are counted and dropped: zero data, an end past 65535,
//! a middle fragment whose length is not a multiple of 8, fewer bytes than
//! the header claims, data beyond the end set by the last fragment, or data
//! overlapping bytes already received (overlaps are an attack technique,
//! RFC 5722; duplicates count as overlaps too).
//!
//! Keywords:
//!
//! * `HIMEM` (unsigned): memory bound in bytes. Default 262144 (256K).
//!   `MAX_MEMORY` is a synonym.
//! * `TIMEOUT` (seconds): dormancy before an incomplete datagram expires.
//!   Default 30.
//! * `MAX_MTU_ANNO` (annotation offset): if given, the reassembled
//!   packet's 2-byte user annotation at this offset holds the length of
//!   the largest fragment (from the IP header on).
//!
//! ## Handlers
//!
//! * `dump` (read): statistics and the datagrams being reassembled.
//! * `drops` (read): fragments dropped (bad, overlapping, or that did not
//!   fit) plus datagrams discarded (expired or evicted).
//! * `mem_used` (read): bytes counted against HIMEM.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> r :: IPReassembler -> ...;
//! r[1] -> ICMPError(18.26.4.24, timeexceeded, reassembly) -> ...;
//! ```
//!
//! ## See also
//!
//! IPFragmenter

use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::Ipv4Addr;

use rclick_core::args::{Args, Interval};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_packet::{Packet, Timestamp, DEFAULT_HEADROOM};
use rclick_wire::ipv4::{FLAG_DF, FLAG_RESERVED};
use rclick_wire::{Ipv4Packet, UdpPacket};

use super::ip_header_checked;

/// Memory charged per datagram besides its data.
const IPH_MEM_USED: usize = 40;
/// Seconds between looks for expired datagrams.
const REAP_INTERVAL: i64 = 10;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    src: u32,
    dst: u32,
    id: u16,
    proto: u8,
}

/// One datagram being reassembled.
struct Entry {
    /// The first fragment (offset 0), kept for its headers and annotations.
    first: Option<Packet>,
    /// The 20-byte header of the first fragment seen (for expired output).
    header: [u8; 20],
    /// The payload bytes received so far, at their offsets.
    data: Vec<u8>,
    /// Received byte ranges, sorted, disjoint, coalesced.
    have: Vec<(u32, u32)>,
    /// The datagram's payload length, once the last fragment is in.
    total: Option<u32>,
    /// Largest fragment seen (for MAX_MTU_ANNO).
    max_frag: u16,
    /// Time of the last fragment.
    last: Timestamp,
}

impl Entry {
    fn mem(&self) -> usize {
        IPH_MEM_USED + self.data.len()
    }

    fn overlaps(&self, off: u32, end: u32) -> bool {
        self.have.iter().any(|&(a, b)| off < b && a < end)
    }

    fn insert(&mut self, off: u32, end: u32) {
        let pos = self.have.partition_point(|&(a, _)| a < off);
        self.have.insert(pos, (off, end));
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(self.have.len());
        for &(a, b) in &self.have {
            match merged.last_mut() {
                Some(last) if last.1 == a => last.1 = b,
                _ => merged.push((a, b)),
            }
        }
        self.have = merged;
    }

    fn complete(&self) -> bool {
        self.first.is_some()
            && matches!(self.total, Some(t) if self.have.len() == 1 && self.have[0] == (0, t))
    }
}

/// The IPReassembler element.
pub struct IpReassembler {
    map: HashMap<Key, Entry>,
    mem_used: usize,
    himem: usize,
    timeout: Timestamp,
    mtu_anno: Option<usize>,
    reap_time: i64,
    frags_seen: u64,
    good: u64,
    failed: u64,
    bad: u64,
}

impl Default for IpReassembler {
    fn default() -> Self {
        IpReassembler {
            map: HashMap::new(),
            mem_used: 0,
            himem: 256 * 1024,
            timeout: Timestamp::from_sec(30),
            mtu_anno: None,
            reap_time: 0,
            frags_seen: 0,
            good: 0,
            failed: 0,
            bad: 0,
        }
    }
}

fn fix_header(h: &mut [u8], hl: usize, total_len: usize) {
    let mut ip = Ipv4Packet::new_unchecked(h);
    ip.set_total_len(total_len as u16);
    // Keep DF and the reserved bit, clear MF and the offset.
    ip.set_flags_frag_offset(ip.flags_frag_offset() & (FLAG_RESERVED | FLAG_DF));
    ip.fill_checksum_over(hl);
}

impl IpReassembler {
    /// Turns a discarded entry into a packet for output 1.
    fn failed_packet(e: Entry) -> Option<Packet> {
        let mut q = match e.first {
            Some(mut q) => {
                let off = q.network_header_offset()? as usize;
                let hl = q.ip_header_len();
                let keep = off + hl;
                q.take(q.len().saturating_sub(keep));
                q
            }
            None => {
                let mut q = Packet::make(DEFAULT_HEADROOM, &e.header, 0);
                q.set_ip_header(0, 20);
                q
            }
        };
        let hl = q.ip_header_len();
        if q.put_slice(&e.data).is_err() {
            return None;
        }
        if let Some(h) = q.network_header_mut() {
            if h.len() >= hl && hl >= 20 {
                let len = h.len().min(0xffff);
                fix_header(h, hl, len);
            }
        }
        Some(q)
    }

    /// Discards `key`, sending what it has to `out1`.
    fn discard(&mut self, key: &Key, out1: &mut PacketBatch) {
        if let Some(e) = self.map.remove(key) {
            self.mem_used -= e.mem();
            self.failed += 1;
            if let Some(q) = Self::failed_packet(e) {
                out1.push(q);
            }
        }
    }

    fn reap(&mut self, now: Timestamp, out1: &mut PacketBatch) {
        let kill = now.saturating_sub(self.timeout);
        let old: Vec<Key> = self
            .map
            .iter()
            .filter(|(_, e)| e.last < kill)
            .map(|(k, _)| *k)
            .collect();
        for k in old {
            self.discard(&k, out1);
        }
        self.reap_time = now.sec() + REAP_INTERVAL;
    }

    /// Frees memory, oldest datagrams first, until at most 3/4 HIMEM is
    /// in use and `need` more bytes fit.
    fn reap_overfull(&mut self, need: usize, out1: &mut PacketBatch, keep: Option<Key>) {
        let low = self.himem / 4 * 3;
        let mut by_age: Vec<(Timestamp, Key)> = self
            .map
            .iter()
            .filter(|(k, _)| Some(**k) != keep)
            .map(|(k, e)| (e.last, *k))
            .collect();
        by_age.sort_by_key(|&(t, k)| (t, k.src, k.dst, k.id, k.proto));
        for (_, k) in by_age {
            if self.mem_used <= low && self.mem_used + need <= self.himem {
                break;
            }
            self.discard(&k, out1);
        }
    }

    /// Handles one fragment; returns a completed datagram.
    fn fragment(&mut self, p: Packet, now: Timestamp, out1: &mut PacketBatch) -> Option<Packet> {
        let (key, hl, off, end, mf, dlen, header, nlen) = {
            let (h, hl) = ip_header_checked(&p)?;
            let ip = Ipv4Packet::new_unchecked(h);
            let ip_len = usize::from(ip.total_len());
            let off = usize::from(ip.frag_offset());
            let end = off + ip_len.saturating_sub(hl);
            let mf = ip.more_frags();
            let avail = h.len() - hl;
            if end > 0xffff
                || end <= off
                || ip_len < hl
                || (end & 7 != 0 && mf)
                || avail < end - off
            {
                self.bad += 1;
                return None;
            }
            let key = Key {
                src: u32::from(ip.src_addr()),
                dst: u32::from(ip.dst_addr()),
                id: ip.ident(),
                proto: ip.protocol().0,
            };
            let mut header = [0u8; 20];
            header.copy_from_slice(&h[..20]);
            (
                key,
                hl,
                off as u32,
                end as u32,
                mf,
                end - off,
                header,
                h.len().min(0xffff) as u16,
            )
        };

        // Make room, then find or create the entry.
        let existing_len = self.map.get(&key).map_or(0, |e| e.data.len());
        let growth = (end as usize).saturating_sub(existing_len)
            + if existing_len == 0 && !self.map.contains_key(&key) {
                IPH_MEM_USED
            } else {
                0
            };
        if self.mem_used + growth > self.himem {
            self.reap_overfull(growth, out1, Some(key));
            if self.mem_used + growth > self.himem {
                self.bad += 1;
                return None;
            }
        }
        let e = self.map.entry(key).or_insert_with(|| Entry {
            first: None,
            header,
            data: Vec::new(),
            have: Vec::new(),
            total: None,
            max_frag: 0,
            last: now,
        });
        let fresh = e.have.is_empty();
        let reject = e.overlaps(off, end)
            || matches!(e.total, Some(t) if end > t || (!mf && end != t))
            || (!mf && e.have.last().is_some_and(|&(_, b)| b > end));
        if reject {
            self.bad += 1;
            if fresh {
                self.map.remove(&key);
            }
            return None;
        }
        let old_mem = if fresh { 0 } else { e.mem() };
        if e.data.len() < end as usize {
            e.data.resize(end as usize, 0);
        }
        {
            let th = &p.network_header().unwrap_or(&[])[hl..];
            e.data[off as usize..end as usize].copy_from_slice(&th[..dlen]);
        }
        e.insert(off, end);
        e.last = now;
        e.max_frag = e.max_frag.max(nlen);
        if !mf {
            e.total = Some(end);
        }
        if off == 0 {
            e.first = Some(p.clone());
        }
        self.mem_used = self.mem_used - old_mem + e.mem();

        if !e.complete() {
            return None;
        }
        let e = self.map.remove(&key)?;
        self.mem_used -= e.mem();
        let total = e.total.unwrap_or(0) as usize;
        let mut q = e.first?;
        let nh_off = q.network_header_offset().filter(|&o| o >= 0)? as usize;
        let qhl = q.ip_header_len();
        if qhl + total > 0xffff {
            self.failed += 1;
            return None;
        }
        q.take(q.len().saturating_sub(nh_off + qhl));
        if q.put_slice(&e.data[..total]).is_err() {
            self.failed += 1;
            return None;
        }
        if let Some(h) = q.network_header_mut() {
            fix_header(h, qhl, qhl + total);
        }
        q.set_timestamp_anno(p.timestamp_anno());
        if let Some(a) = self.mtu_anno {
            q.set_anno_u16(a, e.max_frag);
        }
        self.good += 1;
        Some(q)
    }

    fn handle(&mut self, mut p: Packet, cx: &Ctx, out1: &mut PacketBatch) -> Option<Packet> {
        let is_frag = match ip_header_checked(&p) {
            Some((h, _)) => super::is_fragment(h),
            None => false,
        };
        if !is_frag {
            return Some(p);
        }
        self.frags_seen += 1;
        let mut now = p.timestamp_anno();
        if now.is_zero() {
            now = cx.now();
            p.set_timestamp_anno(now);
        }
        if now.sec() >= self.reap_time {
            self.reap(now, out1);
        }
        self.fragment(p, now, out1)
    }

    fn dump(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "frags seen total:    {}", self.frags_seen);
        let _ = writeln!(s, "good reassemblies:   {}", self.good);
        let _ = writeln!(s, "failed reassemblies: {}", self.failed);
        let _ = writeln!(s, "bad fragments seen:  {}", self.bad);
        s.push_str("cached chunk data:\n");
        let mut keys: Vec<&Key> = self.map.keys().collect();
        keys.sort_by_key(|k| (k.id, k.src, k.dst, k.proto));
        for k in keys {
            let e = &self.map[k];
            let (sp, dp) = if e.have.first().is_some_and(|&(a, b)| a == 0 && b >= 4) {
                // The ports, where TCP and UDP both keep them.
                let t = UdpPacket::new_unchecked(&e.data[..]);
                (t.src_port(), t.dst_port())
            } else {
                (0, 0)
            };
            let _ = write!(
                s,
                " ({}, {}, {}, {}) {}",
                Ipv4Addr::from(k.src),
                sp,
                Ipv4Addr::from(k.dst),
                dp,
                k.id
            );
            for &(a, b) in &e.have {
                let _ = write!(s, " ({a},{b})");
            }
            s.push('\n');
        }
        s
    }
}

rclick_core::handlers! {
    /// IPReassembler's handlers (the manual's list).
    enum H {
        Dump = read("dump").expensive(),
        Drops = read("drops"),
        MemUsed = read("mem_used"),
    }
}

impl Element for IpReassembler {
    fn class_name(&self) -> &'static str {
        "IPReassembler"
    }

    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut himem = 256 * 1024u32;
        let mut maxmem = 0u32;
        let mut timeout = Interval::from_secs(30);
        let mut mtu_anno: i64 = -1;
        Args::new(conf)
            .read("HIMEM", &mut himem)
            .read("MAX_MEMORY", &mut maxmem)
            .read("TIMEOUT", &mut timeout)
            .read("MAX_MTU_ANNO", &mut mtu_anno)
            .complete()
            .map_err(|e| e.to_string())?;
        if mtu_anno > (rclick_packet::USER_ANNO_SIZE as i64 - 2) {
            return Err("MAX_MTU_ANNO: annotation offset out of range".into());
        }
        if timeout.0 <= 0 {
            return Err("TIMEOUT must be positive".into());
        }
        self.himem = if maxmem > 0 { maxmem } else { himem } as usize;
        self.timeout = Timestamp::from_nsec(timeout.0);
        self.mtu_anno = usize::try_from(mtu_anno).ok();
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mut out = PacketBatch::with_capacity(batch.len());
        let mut out1 = PacketBatch::new();
        for p in batch {
            if let Some(q) = self.handle(p, cx, &mut out1) {
                out.push(q);
            }
        }
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !out1.is_empty() && cx.noutputs() > 1 {
            cx.push(1, out1);
        }
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let mut out1 = PacketBatch::new();
        let q = self.handle(p, cx, &mut out1);
        if !out1.is_empty() && cx.noutputs() > 1 {
            cx.push(1, out1);
        }
        q
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.map.clear();
        self.mem_used = 0;
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Dump) => self.dump(),
            Some(H::Drops) => (self.bad + self.failed).to_string(),
            _ => self.mem_used.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use rclick_core::testing;

    fn udp_big(n: usize) -> Vec<u8> {
        let mut payload = vec![0, 2, 0, 4, 0, (8 + n) as u8, 0, 0];
        payload.extend((0..n).map(|i| i as u8));
        ip_packet([1, 0, 0, 1], [3, 0, 0, 3], 17, &payload)
    }

    #[test]
    fn fragment_and_reassemble() {
        let pkt = udp_big(69);
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 3, STOP true) -> TestMarkIP -> IPFragmenter(45) -> r :: IPReassembler -> s :: TestSink;",
            hex_data(&pkt)
        );
        let r = testing::run(&conf, &reg()).unwrap();
        let out: Vec<Vec<u8>> = testing::read(&r, "s.data").lines().map(unhex).collect();
        assert_eq!(out.len(), 3);
        for q in out {
            assert_eq!(q, pkt);
        }
        assert_eq!(testing::read(&r, "r.mem_used"), "0");
        assert!(testing::read(&r, "r.dump").contains("good reassemblies:   3"));
    }

    /// Splits `pkt` into raw fragments at the given 8-byte-multiple cuts.
    fn cut(pkt: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
        let payload = &pkt[20..];
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(payload.len());
        let mut v = Vec::new();
        for w in bounds.windows(2) {
            let mut f = pkt[..20].to_vec();
            f.extend_from_slice(&payload[w[0]..w[1]]);
            let len = f.len();
            f[2..4].copy_from_slice(&(len as u16).to_be_bytes());
            let mut field = (w[0] / 8) as u16;
            if w[1] < payload.len() {
                field |= 0x2000;
            }
            f[6..8].copy_from_slice(&field.to_be_bytes());
            fix_ip_checksum(&mut f);
            v.push(f);
        }
        v
    }

    fn feed(frags: &[Vec<u8>], extra: &str) -> rclick_core::Router {
        let mut conf = String::from("r :: IPReassembler(");
        conf.push_str(extra);
        conf.push_str(") -> s :: TestSink; r[1] -> f :: TestSink;\n");
        for (i, f) in frags.iter().enumerate() {
            conf.push_str(&format!(
                "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP(TS {}) -> [0]r;\n",
                hex_data(f),
                i + 1
            ));
        }
        testing::run(&conf, &reg()).unwrap()
    }

    #[test]
    fn out_of_order_overlap_and_bad() {
        let pkt = udp_big(100);
        let mut frags = cut(&pkt, &[32, 64]);
        frags.reverse();
        let r = feed(&frags, "");
        let out: Vec<Vec<u8>> = testing::read(&r, "s.data").lines().map(unhex).collect();
        assert_eq!(out, vec![pkt.clone()]);

        // Overlapping fragment: dropped and counted; datagram incomplete.
        let mut frags = cut(&pkt, &[32, 64]);
        let dup = cut(&pkt, &[16, 64])[1].clone();
        frags.insert(1, dup);
        frags.remove(2);
        let r = feed(&frags, "");
        assert_eq!(testing::read(&r, "s.data"), "");
        assert_eq!(testing::read(&r, "r.drops"), "1");

        // Middle fragment not a multiple of 8.
        let mut f = cut(&pkt, &[30])[0].clone();
        f[6] = 0x20;
        fix_ip_checksum(&mut f);
        let r = feed(&[f], "");
        assert_eq!(testing::read(&r, "r.drops"), "1");
    }

    #[test]
    fn memory_bound_evicts_oldest() {
        let a = udp_big(100);
        let mut b = udp_big(100);
        b[5] = 2;
        fix_ip_checksum(&mut b);
        let fa = cut(&a, &[64]);
        let fb = cut(&b, &[64]);
        // Room for one datagram only: b's arrival evicts a.
        let r = feed(&[fa[0].clone(), fb[0].clone(), fb[1].clone()], "HIMEM 150");
        let out: Vec<Vec<u8>> = testing::read(&r, "s.data").lines().map(unhex).collect();
        assert_eq!(out, vec![b.clone()]);
        let failed = testing::read(&r, "f.data");
        assert_eq!(failed.lines().count(), 1);
        assert!(testing::read(&r, "r.dump").contains("failed reassemblies: 1"));
    }

    #[test]
    fn expiry() {
        let a = udp_big(100);
        let fa = cut(&a, &[64]);
        let mut conf = String::from(
            "r :: IPReassembler(TIMEOUT 5) -> s :: TestSink; r[1] -> f :: TestSink;\n",
        );
        conf.push_str(&format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP(TS 1) -> [0]r;\n",
            hex_data(&fa[0])
        ));
        conf.push_str(&format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP(TS 100) -> [0]r;\n",
            hex_data(&fa[1])
        ));
        let r = testing::run(&conf, &reg()).unwrap();
        assert_eq!(testing::read(&r, "s.data"), "");
        assert_eq!(testing::read(&r, "f.data").lines().count(), 1);
    }
}
