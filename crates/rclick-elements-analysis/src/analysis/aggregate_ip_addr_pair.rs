//! # AggregateIPAddrPair
//!
//! ## Synopsis
//!
//! `AggregateIPAddrPair([keywords TIMEOUT, REAP])`
//!
//! ## Category
//!
//! analysis — sets the aggregate annotation by IP address pair.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs, agnostic; output 1 is push.
//!
//! ## Description
//!
//! Gives every pair of IP addresses its own aggregate number, starting at
//! 1, whatever the direction: packets from A to B and from B to A share
//! it. The paint annotation tells the direction: 0 for the direction of
//! the pair's first packet, 1 for the other. Packets without an IP header
//! go to output 1 if it exists and are dropped otherwise (counted in
//! `drops`).
//!
//! * `TIMEOUT` (seconds, default 0 = never): a pair idle for longer (by
//!   packet timestamps) gets a new aggregate number at its next packet.
//!   Packets without a timestamp are given the current time, with one
//!   warning.
//! * `REAP` (seconds, default 1200): how often, in packet time, idle pairs
//!   are forgotten when TIMEOUT is set.
//!
//! ## Annotations
//!
//! Reads the IP header annotation and the timestamp; sets the aggregate
//! and paint annotations.
//!
//! ## Handlers
//!
//! * `clear` (write): forget every pair (numbers keep counting up).
//! * `drops` (read): packets without an IP header dropped for want of
//!   output 1 (an rclick addition).
//! * `npairs` (read): the pairs known now (an rclick addition).
//!
//! ## Example
//!
//! `FromDump(trace, FORCE_IP true) -> AggregateIPAddrPair -> AggregateCounter`
//!
//! ## See also
//!
//! AggregateIP, AggregateIPFlows, AggregateCounter, AggregateLast

use std::collections::HashMap;

use super::aggregate_ip_flows::parse_secs;
use rclick_core::args::Args;
use rclick_core::drops::simple::divert_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, Timestamp};
use rclick_wire::ipv4::Ipv4Packet;

struct PairInfo {
    aggregate: u32,
    /// The first packet went from the larger address to the smaller.
    reverse: bool,
    last_sec: i64,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Clear = write("clear"),
        Drops = read("drops"),
        Npairs = read("npairs"),
    }
}

/// The AggregateIPAddrPair element.
pub struct AggregateIPAddrPair {
    timeout: i64,
    gc_interval: i64,
    /// Pairs by (smaller, larger) address.
    map: HashMap<(u32, u32), PairInfo>,
    next: u32,
    active_sec: i64,
    gc_sec: i64,
    timestamp_warning: bool,
    drops: u64,
}

impl Default for AggregateIPAddrPair {
    fn default() -> Self {
        AggregateIPAddrPair {
            timeout: 0,
            gc_interval: 20 * 60,
            map: HashMap::new(),
            next: 1,
            active_sec: 0,
            gc_sec: 0,
            timestamp_warning: false,
            drops: 0,
        }
    }
}

impl AggregateIPAddrPair {
    /// Forgets the pairs idle since before `active_sec - timeout`.
    fn reap(&mut self) {
        if self.gc_sec != 0 {
            let limit = self.active_sec - self.timeout;
            self.map.retain(|_, f| f.last_sec >= limit);
        }
        self.gc_sec = self.active_sec + self.gc_interval;
    }

    /// Annotates `p`; gives it back as `Err` if it has no IP header.
    fn annotate(&mut self, mut p: Packet, cx: &mut Ctx) -> Result<Packet, Packet> {
        let Some((src, dst)) = p.ip_header().filter(|ip| ip.len() >= 20).map(|ip| {
            let v = Ipv4Packet::new_unchecked(ip);
            (u32::from(v.src_addr()), u32::from(v.dst_addr()))
        }) else {
            return Err(p);
        };
        let key = (src.min(dst), src.max(dst));
        let forward = key.0 == src;
        if self.timeout > 0 && p.timestamp_anno().is_zero() {
            if !self.timestamp_warning {
                cx.log(format!(
                    "{}: warning: packet received without timestamp",
                    cx.declaration()
                ));
                self.timestamp_warning = true;
            }
            p.set_timestamp_anno(Timestamp::now_realtime());
        }
        let sec = p.timestamp_anno().as_nsec().div_euclid(1_000_000_000);
        let timeout = self.timeout;
        let info = self.map.entry(key).or_insert(PairInfo {
            aggregate: 0,
            reverse: false,
            last_sec: 0,
        });
        if timeout > 0 && info.aggregate != 0 && info.last_sec < sec - timeout {
            info.aggregate = 0;
        }
        if info.aggregate == 0 {
            info.aggregate = self.next;
            info.reverse = !forward;
            self.next = self.next.wrapping_add(1).max(1);
        }
        let (agg, paint) = (info.aggregate, info.reverse ^ !forward);
        if timeout > 0 {
            info.last_sec = sec;
            self.active_sec = sec;
            if self.active_sec > self.gc_sec {
                self.reap();
            }
        }
        p.set_aggregate_anno(agg);
        p.set_paint_anno(u8::from(paint));
        Ok(p)
    }

    fn reject(&mut self, p: Packet, cx: &mut Ctx) {
        divert_or_count(&mut self.drops, p, cx);
    }
}

impl Element for AggregateIPAddrPair {
    fn class_name(&self) -> &'static str {
        "AggregateIPAddrPair"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut timeout, mut reap) = (0i64, 20 * 60i64);
        Args::new(conf)
            .read_with("TIMEOUT", &mut timeout, parse_secs)
            .read_with("REAP", &mut reap, parse_secs)
            .complete()
            .map_err(|e| e.to_string())?;
        self.timeout = timeout;
        self.gc_interval = reap;
        Ok(())
    }

    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        self.next = 1;
        self.active_sec = 0;
        self.gc_sec = 0;
        self.timestamp_warning = false;
        Ok(())
    }

    fn is_simple(&self) -> bool {
        true
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        match self.annotate(p, cx) {
            Ok(p) => Some(p),
            Err(p) => {
                self.reject(p, cx);
                None
            }
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Drops) => self.drops.to_string(),
            Some(H::Npairs) => self.map.len().to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Clear) => {
                self.map.clear();
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry, run_dump};
    use rclick_core::testing;

    // Click's output for the same trace: one number per unordered pair,
    // paint 0 in the first packet's direction.
    #[test]
    fn pairs_and_directions_as_click() {
        let f = dir("aiap").join("in");
        std::fs::write(
            &f,
            "!data timestamp ip_src ip_dst\n1 1.0.0.1 2.0.0.2\n2 2.0.0.2 1.0.0.1\n3 3.0.0.3 1.0.0.1\n4 1.0.0.1 3.0.0.3\n5 1.0.0.1 2.0.0.2\n",
        )
        .unwrap();
        let (r, lines) = run_dump(
            "aiap",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> a :: AggregateIPAddrPair
                 -> ToIPSummaryDump(OUT, FIELDS ip_src ip_dst aggregate paint);",
                f.display()
            ),
        );
        assert_eq!(
            lines,
            [
                "1.0.0.1 2.0.0.2 1 0",
                "2.0.0.2 1.0.0.1 1 1",
                "3.0.0.3 1.0.0.1 2 0",
                "1.0.0.1 3.0.0.3 2 1",
                "1.0.0.1 2.0.0.2 1 0"
            ]
        );
        assert_eq!(testing::read(&r, "a.npairs"), "2");
    }

    // The reference gives every packet a new number once TIMEOUT is set
    // (`1 0`, `2 0`, `3 0`, `4 0` here), against its own documentation;
    // this one renumbers only pairs idle for longer than TIMEOUT.
    #[test]
    fn timeout_gives_new_numbers() {
        let f = dir("aiap2").join("in");
        std::fs::write(
            &f,
            "!data timestamp ip_src ip_dst\n1 1.0.0.1 2.0.0.2\n5 2.0.0.2 1.0.0.1\n20 2.0.0.2 1.0.0.1\n21 1.0.0.1 2.0.0.2\n",
        )
        .unwrap();
        // not run_dump, which would rewrite the OUT in TIMEOUT
        let out = dir("aiap2").join("out");
        testing::run(
            &format!(
                "FromIPSummaryDump({}, STOP true) -> AggregateIPAddrPair(TIMEOUT 10)
                 -> ToIPSummaryDump({}, FIELDS aggregate paint);",
                f.display(),
                out.display()
            ),
            &registry(),
        )
        .unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('!')).collect();
        assert_eq!(lines, ["1 0", "1 1", "2 0", "2 1"]);
    }

    #[test]
    fn non_ip_and_errors() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> a :: AggregateIPAddrPair -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.drops"), "3");
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> a :: AggregateIPAddrPair -> Discard; a[1] -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        for c in ["AggregateIPAddrPair(1)", "AggregateIPAddrPair(TIMEOUT x)"] {
            assert!(
                testing::build(&format!("Idle -> {c} -> Discard;"), &registry(), true).is_err()
            );
        }
    }
}
