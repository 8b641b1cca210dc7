//! # AggregateIPFlows
//!
//! ## Synopsis
//!
//! `AggregateIPFlows([keywords TCP_TIMEOUT, TCP_DONE_TIMEOUT, UDP_TIMEOUT, FRAGMENT_TIMEOUT, REAP, ICMP, FRAGMENTS])`
//!
//! ## Category
//!
//! analysis — sets the aggregate annotation by TCP or UDP flow.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs, agnostic. Non-TCP/UDP packets go to
//! output 1 if it exists and are dropped otherwise.
//!
//! ## Description
//!
//! Gives every TCP and UDP flow (both directions of a connection) its own
//! aggregate number, starting at 1, and stores it in the aggregate
//! annotation; the paint annotation is set to 0 for packets in the flow's
//! first direction and 1 for the reverse. Flows expire after their
//! timeouts. With FRAGMENTS, later IP fragments are held until the first
//! fragment (which carries the ports) tells their flow; packets of the
//! same host pair are held behind them to keep order.
//!
//! * `TCP_TIMEOUT` (seconds, default 86400): idle timeout for TCP flows.
//! * `TCP_DONE_TIMEOUT` (seconds, default 30): timeout for closed TCP flows.
//! * `UDP_TIMEOUT` (seconds, default 60): idle timeout for UDP flows.
//! * `FRAGMENT_TIMEOUT` (seconds, default 30): how long fragments wait.
//! * `REAP` (seconds, default 1200): garbage collection interval.
//! * `ICMP` (boolean, default false): accepted; ICMP errors are not
//!   assigned to flows.
//! * `FRAGMENTS` (boolean, default true when the input is push).
//!
//! ## Annotations
//!
//! Sets the aggregate and paint annotations; reads (and sets, if zero) the
//! timestamp annotation.
//!
//! ## Handlers
//!
//! * `clear` (write): expires every flow and releases held fragments.
//!
//! ## Example
//!
//! `SetTimestamp -> AggregateIPFlows -> ToIPSummaryDump(F, FIELDS aggregate link)`
//!
//! ## See also
//!
//! AggregateCounter, AggregateIP

use std::collections::{HashMap, VecDeque};

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch};
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::tcp::TcpPacket;

struct FlowInfo {
    ports: u32,
    aggregate: u32,
    reverse: bool,
    flow_over: u8,
    last_sec: i64,
}

#[derive(Default)]
struct HostPairInfo {
    flows: Vec<FlowInfo>,
    frags: VecDeque<Packet>,
}

type Map = HashMap<(u32, u32), HostPairInfo>;

/// The AggregateIPFlows element.
pub struct AggregateIPFlows {
    tcp_timeout: i64,
    tcp_done_timeout: i64,
    udp_timeout: i64,
    fragment_timeout: i64,
    gc_interval: i64,
    smallest_timeout: i64,
    fragments_cfg: Option<bool>,
    fragments: bool,
    tcp: Map,
    udp: Map,
    next: u32,
    active_sec: i64,
    gc_sec: i64,
    timestamp_warning: bool,
}

impl Default for AggregateIPFlows {
    fn default() -> Self {
        AggregateIPFlows {
            tcp_timeout: 86400,
            tcp_done_timeout: 30,
            udp_timeout: 60,
            fragment_timeout: 30,
            gc_interval: 1200,
            smallest_timeout: 30,
            fragments_cfg: None,
            fragments: true,
            tcp: Map::new(),
            udp: Map::new(),
            next: 1,
            active_sec: 0,
            gc_sec: 0,
            timestamp_warning: false,
        }
    }
}

/// The packet's network header, if it has the 20 bytes of an IPv4 one.
fn ip(p: &Packet) -> Option<&[u8]> {
    p.network_header().filter(|h| h.len() >= 20)
}
fn ip_id(p: &Packet) -> u16 {
    ip(p).map_or(0, |h| Ipv4Packet::new_unchecked(h).ident())
}
fn is_frag(h: &[u8]) -> bool {
    Ipv4Packet::new_unchecked(h).is_fragment()
}
/// The TCP header of IPv4 packet `buf`, when it is a first fragment that
/// holds the flags.
fn tcp_header(buf: &[u8]) -> Option<TcpPacket<&[u8]>> {
    let h = Ipv4Packet::new_unchecked(buf);
    let hl = usize::from(h.header_len());
    (h.protocol().0 == 6 && h.frag_offset() == 0)
        .then(|| buf.get(hl..hl + 14))
        .flatten()
        .map(TcpPacket::new_unchecked)
}

pub(super) fn parse_secs(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let t = s.strip_suffix('s').unwrap_or(s);
    t.parse::<f64>()
        .map(|v| v as i64)
        .map_err(|_| "expected time in seconds".to_string())
}

impl AggregateIPFlows {
    /// Releases the held packets of `hp` from the front while they are
    /// older than `frag_timeout` (seconds) or not fragments.
    fn emit_expired_fragments(hp: &mut HostPairInfo, frag_timeout: i64, out: &mut PacketBatch) {
        while let Some(h) = hp.frags.front() {
            let expired = h.timestamp_anno().sec() < frag_timeout || !ip(h).is_some_and(is_frag);
            if !expired {
                break;
            }
            Self::emit_fragment_head(hp, out);
        }
    }

    /// Releases the first held fragment of `hp`, if its flow is known.
    fn emit_fragment_head(hp: &mut HostPairInfo, out: &mut PacketBatch) {
        let Some(mut head) = hp.frags.pop_front() else {
            return;
        };
        let id = ip_id(&head);
        if head.aggregate_anno() != 0 {
            let (a, c) = (head.aggregate_anno(), head.paint_anno());
            for p in hp.frags.iter_mut() {
                if ip_id(p) == id {
                    p.set_aggregate_anno(a);
                    p.set_paint_anno(c);
                }
            }
        } else {
            let found = hp
                .frags
                .iter()
                .find(|p| ip_id(p) == id && p.aggregate_anno() != 0)
                .map(|p| (p.aggregate_anno(), p.paint_anno()));
            match found {
                Some((a, c)) => {
                    head.set_aggregate_anno(a);
                    head.set_paint_anno(c);
                }
                None => return,
            }
        }
        let a = head.aggregate_anno();
        if let Some(f) = hp.flows.iter_mut().find(|f| f.aggregate == a) {
            Self::emit_hook(&head, f);
        }
        out.push(head);
    }

    fn emit_hook(p: &Packet, f: &mut FlowInfo) {
        f.last_sec = p.timestamp_anno().sec();
        if let Some(flags) = ip(p).and_then(tcp_header).map(|t| t.flags()) {
            if p.paint_anno() < 2 {
                if flags & 0x04 != 0 {
                    f.flow_over = 3;
                } else if flags & 0x01 != 0 {
                    f.flow_over |= 1 << p.paint_anno();
                } else if flags & 0x02 != 0 {
                    f.flow_over = 0;
                }
            }
        }
    }

    fn reap_map(
        m: &mut Map,
        active: i64,
        timeout: i64,
        done_timeout: i64,
        frag_timeout: i64,
        out: &mut PacketBatch,
    ) {
        let timeout = active - timeout;
        let done_timeout = active - done_timeout;
        let frag_timeout = active - frag_timeout;
        for hp in m.values_mut() {
            Self::emit_expired_fragments(hp, frag_timeout, out);
            if !hp.frags.is_empty() {
                continue;
            }
            hp.flows.retain(|f| {
                let limit = if f.flow_over == 3 {
                    done_timeout
                } else {
                    timeout
                };
                f.last_sec >= limit
            });
        }
    }

    fn reap(&mut self, out: &mut PacketBatch) {
        if self.gc_sec != 0 {
            let a = self.active_sec;
            Self::reap_map(
                &mut self.tcp,
                a,
                self.tcp_timeout,
                self.tcp_done_timeout,
                self.fragment_timeout,
                out,
            );
            Self::reap_map(
                &mut self.udp,
                a,
                self.udp_timeout,
                self.udp_timeout,
                self.fragment_timeout,
                out,
            );
        }
        self.gc_sec = self.active_sec.saturating_add(self.gc_interval);
    }

    fn handle(&mut self, mut p: Packet, cx: &mut Ctx, out: &mut PacketBatch) -> Option<Packet> {
        if p.timestamp_anno().is_zero() {
            if !self.timestamp_warning {
                cx.log(format!(
                    "{}: warning: packet received without timestamp",
                    cx.name()
                ));
                self.timestamp_warning = true;
            }
            p.set_timestamp_anno(cx.now());
        }
        let Some(buf) = ip(&p) else { return Some(p) };
        let h = Ipv4Packet::new_unchecked(buf);
        let proto = h.protocol().0;
        let src = u32::from(h.src_addr());
        let dst = u32::from(h.dst_addr());
        if (proto != 6 && proto != 17) || (src == 0 && dst == 0) {
            return Some(p);
        }
        let hl = usize::from(h.header_len());
        let ff = h.frag_offset() == 0;
        let frag = h.is_fragment();
        // both ports as one key (byte order does not matter here)
        let ports_raw = buf
            .get(hl..hl + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let sec = p.timestamp_anno().sec();
        let is_syn = proto == 6
            && buf
                .get(hl..hl + 14)
                .is_some_and(|t| TcpPacket::new_unchecked(t).syn());
        let hosts = (src.min(dst), src.max(dst));
        let mut paint: u8 = u8::from(hosts.0 != src);
        let udp = proto == 17;
        let (smallest, tcp_to, done_to, udp_to) = (
            self.smallest_timeout,
            self.tcp_timeout,
            self.tcp_done_timeout,
            self.udp_timeout,
        );
        let mut next = self.next;
        let m = if udp { &mut self.udp } else { &mut self.tcp };
        let hp = m.entry(hosts).or_default();
        let mut flow_idx = None;
        if ff {
            let Some(mut ports) = ports_raw else {
                self.next = next;
                return Some(p);
            };
            if hosts.0 == hosts.1 && ((ports << 16).wrapping_sub(ports) as i32) < 0 {
                paint ^= 1;
            }
            if paint & 1 != 0 {
                ports = ports.rotate_left(16);
            }
            let flipped = paint & 1 != 0;
            let idx = match hp.flows.iter().position(|f| f.ports == ports) {
                Some(i) => {
                    let f = &mut hp.flows[i];
                    let age = sec - f.last_sec;
                    let relevant = if udp {
                        udp_to
                    } else if f.flow_over == 3 {
                        done_to
                    } else {
                        tcp_to
                    };
                    if (age > smallest && age > relevant) || (f.flow_over == 3 && is_syn) {
                        f.aggregate = next;
                        next += 1;
                        f.reverse = flipped;
                        f.flow_over = 0;
                    }
                    i
                }
                None => {
                    hp.flows.push(FlowInfo {
                        ports,
                        aggregate: next,
                        reverse: flipped,
                        flow_over: 0,
                        last_sec: sec,
                    });
                    next += 1;
                    hp.flows.len() - 1
                }
            };
            if hp.flows[idx].reverse {
                paint ^= 1;
            }
            p.set_aggregate_anno(hp.flows[idx].aggregate);
            p.set_paint_anno(paint);
            flow_idx = Some(idx);
        } else {
            p.set_aggregate_anno(0);
            p.set_paint_anno(paint);
        }
        self.next = next;
        if (self.fragments && frag) || !hp.frags.is_empty() {
            hp.frags.push_back(p);
            self.active_sec = sec;
            let frag_timeout = sec - self.fragment_timeout;
            Self::emit_expired_fragments(hp, frag_timeout, out);
            return None;
        }
        let Some(idx) = flow_idx else { return Some(p) };
        self.active_sec = sec;
        Self::emit_hook(&p, &mut hp.flows[idx]);
        out.push(p);
        None
    }

    /// Handles one packet: emitted packets go to `out`; returns the packet
    /// if it is to be dropped.
    fn process(&mut self, p: Packet, cx: &mut Ctx, out: &mut PacketBatch) -> Option<Packet> {
        let dropped = self.handle(p, cx, out);
        if self.active_sec >= self.gc_sec {
            self.reap(out);
        }
        dropped
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Clear = write("clear"),
    }
}

impl Element for AggregateIPFlows {
    fn class_name(&self) -> &'static str {
        "AggregateIPFlows"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut tcp: i64 = 86400;
        let mut tcp_done: i64 = 30;
        let mut udp: i64 = 60;
        let mut frag: i64 = 30;
        let mut reap: i64 = 1200;
        let mut icmp = false;
        let mut fragments = true;
        let mut fragments_given = false;
        Args::new(conf)
            .read_with("TCP_TIMEOUT", &mut tcp, parse_secs)
            .read_with("TCP_DONE_TIMEOUT", &mut tcp_done, parse_secs)
            .read_with("UDP_TIMEOUT", &mut udp, parse_secs)
            .read_with("FRAGMENT_TIMEOUT", &mut frag, parse_secs)
            .read_with("REAP", &mut reap, parse_secs)
            .read("ICMP", &mut icmp)
            .read("FRAGMENTS", &mut fragments)
            .read_status(&mut fragments_given)
            .complete()
            .map_err(|e| e.to_string())?;
        self.tcp_timeout = tcp;
        self.tcp_done_timeout = tcp_done;
        self.udp_timeout = udp;
        self.fragment_timeout = frag;
        self.gc_interval = reap;
        self.smallest_timeout = tcp.min(tcp_done).min(udp);
        self.fragments_cfg = fragments_given.then_some(fragments);
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.next = 1;
        self.active_sec = 0;
        self.gc_sec = 0;
        self.tcp.clear();
        self.udp.clear();
        let push = cx.input_is_push(0);
        self.fragments = match self.fragments_cfg {
            None => push,
            Some(true) if !push => return Err(
                "'FRAGMENTS true' is incompatible with pull; run this element in a push context"
                    .into(),
            ),
            Some(f) => f,
        };
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        for p in batch {
            let mut out = PacketBatch::new();
            let dropped = self.process(p, cx, &mut out);
            if !out.is_empty() {
                cx.push(0, out);
            }
            if let Some(d) = dropped {
                cx.checked_push(1, PacketBatch::from(d));
            }
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        let mut result = PacketBatch::new();
        for p in batch {
            let mut out = PacketBatch::new();
            if let Some(d) = self.process(p, cx, &mut out) {
                cx.checked_push(1, PacketBatch::from(d));
            }
            result.append(&mut out);
        }
        result
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn write_handler(&mut self, id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        if !matches!(H::from_id(id), Some(H::Clear)) {
            return Err("no such handler".into());
        }
        let (a, g) = (self.active_sec, self.gc_sec);
        self.active_sec = i64::from(i32::MAX);
        self.gc_sec = i64::from(i32::MAX);
        let mut out = PacketBatch::new();
        self.reap(&mut out);
        self.active_sec = a;
        self.gc_sec = g;
        if !out.is_empty() {
            cx.push(0, out);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};

    /// Both directions of a flow share an aggregate, told apart by paint;
    /// other flows get the next numbers.
    #[test]
    fn both_directions_share_an_aggregate() {
        let f = dir("aggflows").join("in");
        std::fs::write(
            &f,
            "!data ip_src sport ip_dst dport ip_proto\n\
             1.0.0.1 10 2.0.0.2 20 T\n\
             2.0.0.2 20 1.0.0.1 10 T\n\
             1.0.0.1 11 2.0.0.2 20 T\n\
             1.0.0.1 10 2.0.0.2 20 U\n",
        )
        .unwrap();
        let (_, lines) = run_dump(
            "aggflows",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> AggregateIPFlows
                 -> ToIPSummaryDump(OUT, FIELDS aggregate paint);",
                f.display()
            ),
        );
        assert_eq!(lines, ["1 0", "1 1", "2 0", "3 0"]);
    }
}
