//! # IP6NDSolicitor
//!
//! `IP6NDSolicitor(IP, ETH [, KEYWORDS])`
//!
//! **Category:** ip6. Encapsulates IPv6 packets in Ethernet headers found
//! by neighbour discovery (RFC 4861); IPv6's ARPQuerier.
//!
//! **Ports:** two push inputs (0: IPv6 packets; 1: Ethernet frames holding
//! Neighbor Advertisements); one or two push outputs (0: Ethernet frames;
//! 1, if present: Neighbor Solicitations, which otherwise also leave on
//! output 0).
//!
//! ## Description
//!
//! IP is this host's IPv6 address, the source of its solicitations, and
//! ETH its Ethernet address.
//!
//! A packet on input 0 is forwarded according to its destination IPv6
//! address annotation. If the neighbour table knows the Ethernet address,
//! the packet gets an Ethernet header (source ETH, type 0x86dd) and leaves
//! on output 0. A multicast destination maps to `33:33` and the address's
//! last four bytes (RFC 2464 section 7); a packet for `::` is dropped (with
//! one warning). Otherwise the packet is saved in the table and a Neighbor
//! Solicitation is sent: an 86-byte frame from IP to the target's
//! solicited-node multicast address (`ff02::1:ffXX:XXXX`, Ethernet
//! `33:33:ff:XX:XX:XX`), hop limit 255, with a Source Link-Layer Address
//! option, byte for byte Click's. At most one solicitation a second is
//! sent for one address (RFC 4861's RetransTimer; Click sends one per
//! packet).
//!
//! A Neighbor Advertisement on input 1 for an address in the table records
//! its Target Link-Layer Address and sends the saved packets, in arrival
//! order. Advertisements are validated as RFC 4861 section 7.1.2 asks
//! (hop limit 255, ICMPv6 checksum, code 0, at least 24 bytes, a target
//! that is not multicast, no Solicited flag when sent to a multicast
//! address, options of non-zero length); Click checks only the types.
//!
//! Entries whose last advertisement is older than POLL_TIMEOUT are still
//! used, but the next packet to them also sends a solicitation (at most
//! one a second until answered); entries older than TIMEOUT are removed,
//! unresolved ones TIMEOUT after their first solicitation.
//!
//! Keywords:
//!
//! * `ENTRY_CAPACITY` (unsigned, default 4096; 0 = unlimited): most
//!   entries; when full, the oldest entry goes (its saved packets are
//!   dropped), counted in `evictions`. Click's table has no bound.
//! * `ENTRY_PACKET_CAPACITY` (unsigned, default 1): most saved packets per
//!   unresolved entry; a new packet replaces the oldest (RFC 4861 section
//!   7.2.2), which is counted in `drops`. Click keeps one.
//! * `CAPACITY` (unsigned, default 2048; 0 = unlimited): most saved packets
//!   in all; a packet that finds no room is dropped and counted.
//! * `TIMEOUT` (time, default 2 minutes), `POLL_TIMEOUT` (time, default 1
//!   minute): Click's fixed ages.
//!
//! ## Annotations
//!
//! Uses the destination IPv6 address annotation.
//!
//! ## Handlers
//!
//! * `table` (read): one line per entry, `IP6 OK ETH`, in Click's order.
//! * `stats` (read): `N packets killed` and `N ND Solicitation Message
//!   sent`, a line each (Click's).
//! * `queries`, `responses`, `drops`, `evictions` (read): solicitations
//!   sent, advertisements used, IPv6 packets dropped, entries evicted.
//! * `ignored` (read): input 1 packets that were not valid advertisements
//!   or were for no entry.
//! * `count`, `length` (read): entries and saved packets.
//! * `insert` (write, `IP6 ETH`), `delete` (write, `IP6`), `clear` (write):
//!   change the table (`clear` also zeroes the counters).
//!
//! ## Examples
//!
//! ```text
//! c :: Classifier(12/86dd 20/3aff 54/88, 12/86dd 20/3aff 54/87, 12/86dd, -);
//! FromDevice(eth0) -> c;
//! nd :: IP6NDSolicitor(2001:db8::1, 00:00:c0:ae:67:ef);
//! c[0] -> [1]nd;
//! c[1] -> IP6NDAdvertiser(2001:db8::1 00:00:c0:ae:67:ef) -> q :: Queue;
//! ... -> LookupIP6Route(...) -> [0]nd;
//! nd -> q -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! IP6NDAdvertiser, ARPQuerier, LookupIP6Route

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::Ipv6Addr;

use rclick_core::args::{parse_ether, Args, Interval};
use rclick_core::neighbor;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TimerId};
use rclick_packet::DEFAULT_HEADROOM;
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::{EtherType, EthernetFrame, Icmpv6Packet, IpProtocol, Ipv6Packet};

use super::{nd_message, nd_option, parse_ip6};

use rclick_wire::icmpv6::{nd, types::NEIGHBOR_ADVERT as NA, types::NEIGHBOR_SOLICIT as NS};

/// An Ethernet header's length.
const ETH_LEN: usize = 14;
/// A solicitation with its source link-layer address option.
const NS_LEN: usize = 32;
/// Milliseconds between two solicitations for one address (RFC 4861's
/// RetransTimer).
const RETRANS_MS: i64 = 1000;
/// Click's hash buckets, for the `table` handler's order.
const NMAP: usize = 256;
/// How often the table is swept for expired entries.
const SWEEP_MS: i64 = 15_000;

/// One neighbour.
struct Entry {
    eth: [u8; 6],
    ok: bool,
    /// When the last advertisement came (ms), if any.
    last_response: i64,
    /// When the last solicitation for it went (ms), if any.
    last_query: Option<i64>,
    /// When the entry was made (ms).
    created: i64,
    /// Creation order (the key in `order`).
    seq: u64,
    saved: VecDeque<Packet>,
}

/// The IP6NDSolicitor element.
pub struct IP6NDSolicitor {
    my_ip: Ipv6Addr,
    my_eth: [u8; 6],
    entries: HashMap<Ipv6Addr, Entry>,
    /// Entries by creation order, oldest first.
    order: BTreeMap<u64, Ipv6Addr>,
    next_seq: u64,
    entry_capacity: u32,
    entry_packet_capacity: u32,
    capacity: u32,
    timeout_ms: i64,
    poll_ms: i64,
    saved_total: usize,
    queries: u64,
    responses: u64,
    drops: u64,
    evictions: u64,
    ignored: u64,
    zero_warned: bool,
    timer: Option<TimerId>,
}

impl Default for IP6NDSolicitor {
    fn default() -> Self {
        IP6NDSolicitor {
            my_ip: Ipv6Addr::UNSPECIFIED,
            my_eth: [0; 6],
            entries: HashMap::new(),
            order: BTreeMap::new(),
            next_seq: 0,
            entry_capacity: 4096,
            entry_packet_capacity: 1,
            capacity: 2048,
            timeout_ms: 120_000,
            poll_ms: 60_000,
            saved_total: 0,
            queries: 0,
            responses: 0,
            drops: 0,
            evictions: 0,
            ignored: 0,
            zero_warned: false,
            timer: None,
        }
    }
}

/// Milliseconds since the router's clock began.
fn now_ms(cx: &Ctx) -> i64 {
    cx.now().as_msec()
}

/// Click's Ethernet address text (`00-00-C0-AE-67-EF`).
fn ether_text(e: &[u8; 6]) -> String {
    e.iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join("-")
}

/// The solicited-node multicast address of `a` (RFC 4291 section 2.7.1).
pub(crate) fn solicited_node(a: Ipv6Addr) -> Ipv6Addr {
    Ipv6Addr::from(0xff02_0000_0000_0000_0000_0001_ff00_0000 | (u128::from(a) & 0xff_ffff))
}

/// A valid advertisement's target, Solicited flag and Target Link-Layer
/// Address (if it carries one).
fn advertisement(data: &[u8]) -> Option<(Ipv6Addr, bool, Option<[u8; 6]>)> {
    let m = nd_message(data, NA)?;
    let solicited = m.data_field & nd::FLAG_SOLICITED != 0;
    if solicited && m.dst.is_multicast() {
        return None;
    }
    let tlla =
        nd_option(m.options, nd::OPT_TARGET_LL_ADDR)?.and_then(|o| o.first_chunk::<6>().copied());
    Some((m.target, solicited, tlla))
}

/// The parsed configuration.
struct Conf {
    my_ip: Ipv6Addr,
    my_eth: [u8; 6],
    entry_capacity: u32,
    entry_packet_capacity: u32,
    capacity: u32,
    timeout_ms: i64,
    poll_ms: i64,
}

fn parse_conf(conf: &[String]) -> Result<Conf, String> {
    let mut my_ip = Ipv6Addr::UNSPECIFIED;
    let mut my_eth = [0u8; 6];
    let mut entry_capacity = 4096u32;
    let mut entry_packet_capacity = 1u32;
    let mut capacity = 2048u32;
    let mut timeout = Interval::from_secs(120);
    let mut poll = Interval::from_secs(60);
    Args::new(conf)
        .read_mp_with("IP", &mut my_ip, parse_ip6)
        .read_mp_with("ETH", &mut my_eth, |s| parse_ether(s).map(|e| e.0))
        .read("ENTRY_CAPACITY", &mut entry_capacity)
        .read("ENTRY_PACKET_CAPACITY", &mut entry_packet_capacity)
        .read("CAPACITY", &mut capacity)
        .read("TIMEOUT", &mut timeout)
        .read("POLL_TIMEOUT", &mut poll)
        .complete()
        .map_err(|e| e.to_string())?;
    if entry_packet_capacity == 0 {
        return Err("ENTRY_PACKET_CAPACITY must be at least 1".into());
    }
    let ms = |i: Interval| (i.as_nanos() / 1_000_000).max(0);
    Ok(Conf {
        my_ip,
        my_eth,
        entry_capacity,
        entry_packet_capacity,
        capacity,
        timeout_ms: ms(timeout),
        poll_ms: ms(poll),
    })
}

rclick_core::handlers! {
    /// IP6NDSolicitor's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Stats = read("stats"),
        Queries = read("queries"),
        Responses = read("responses"),
        Drops = read("drops"),
        Evictions = read("evictions"),
        Ignored = read("ignored"),
        Count = read("count"),
        Length = read("length"),
        Insert = write("insert"),
        Delete = write("delete"),
        Clear = write("clear"),
    }
}

impl IP6NDSolicitor {
    /// The 86-byte solicitation for `target`, byte for byte Click's.
    fn solicitation(&self, target: Ipv6Addr) -> Packet {
        let dst = solicited_node(target);
        let mut q = Packet::make_zeroed(
            DEFAULT_HEADROOM.saturating_sub(ETH_LEN),
            ETH_LEN + HEADER_LEN + NS_LEN,
            0,
        );
        let d = q.data_mut();
        let o = dst.octets();
        d[..6].copy_from_slice(&[0x33, 0x33, 0xff, o[13], o[14], o[15]]);
        d[6..12].copy_from_slice(&self.my_eth);
        EthernetFrame::new_unchecked(&mut *d).set_ethertype(EtherType::IPV6);
        let mut ip = Ipv6Packet::new_unchecked(&mut d[ETH_LEN..ETH_LEN + HEADER_LEN]);
        ip.set_version(6);
        ip.set_payload_len(NS_LEN as u16);
        ip.set_next_header(IpProtocol(58));
        ip.set_hop_limit(nd::HOP_LIMIT);
        ip.set_src_addr(self.my_ip);
        ip.set_dst_addr(dst);
        let mut icmp = Icmpv6Packet::new_unchecked(&mut d[ETH_LEN + HEADER_LEN..]);
        icmp.set_msg_type(NS);
        let body = icmp.body_mut();
        body[..16].copy_from_slice(&target.octets());
        nd::write_ll_addr_option(&mut body[16..], nd::OPT_SOURCE_LL_ADDR, self.my_eth);
        icmp.fill_checksum(self.my_ip, dst);
        q.set_mac_header_len(0, ETH_LEN);
        q
    }

    /// Sends a solicitation for `target` on the last output, after what
    /// `out` holds (so output 0's order is kept).
    fn send_query(&mut self, target: Ipv6Addr, out: &mut PacketBatch, cx: &mut Ctx) {
        let q = self.solicitation(target);
        self.queries += 1;
        // An advertisement looped straight back to input 1 is handled now.
        neighbor::send_query(q, out, cx, |port, b, out, cx| {
            self.handle_batch(port, b, out, cx)
        });
    }

    fn handle_batch(&mut self, port: usize, b: PacketBatch, out: &mut PacketBatch, cx: &mut Ctx) {
        for p in b {
            if port == 0 {
                self.handle_ip6(p, out, cx);
            } else {
                self.handle_response(&p, out, cx);
            }
        }
    }

    /// Prepends the Ethernet header to `dst` and queues `p` on `out`.
    fn encap(&mut self, mut p: Packet, dst: [u8; 6], out: &mut PacketBatch) {
        let mut hdr = [0u8; ETH_LEN];
        hdr[..6].copy_from_slice(&dst);
        hdr[6..12].copy_from_slice(&self.my_eth);
        EthernetFrame::new_unchecked(&mut hdr[..]).set_ethertype(EtherType::IPV6);
        if p.push_slice(&hdr).is_err() {
            self.drops += 1;
            return;
        }
        p.set_mac_header(0);
        out.push(p);
    }

    /// Removes the entry for `a`, dropping (and counting) its saved packets.
    fn remove(&mut self, a: Ipv6Addr) {
        if let Some(e) = self.entries.remove(&a) {
            self.order.remove(&e.seq);
            self.saved_total -= e.saved.len();
            self.drops += e.saved.len() as u64;
        }
    }

    /// A new, unresolved entry for `a` (evicting the oldest at capacity).
    fn new_entry(&mut self, a: Ipv6Addr, now: i64) -> &mut Entry {
        if self.entry_capacity > 0 && self.entries.len() >= self.entry_capacity as usize {
            if let Some((_, &old)) = self.order.first_key_value() {
                self.remove(old);
                self.evictions += 1;
            }
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.order.insert(seq, a);
        self.entries.entry(a).or_insert(Entry {
            eth: [0; 6],
            ok: false,
            last_response: now,
            last_query: None,
            created: now,
            seq,
            saved: VecDeque::new(),
        })
    }

    fn handle_ip6(&mut self, p: Packet, out: &mut PacketBatch, cx: &mut Ctx) {
        let a = p.dst_ip6_anno();
        let now = now_ms(cx);
        if let Some(e) = self.entries.get_mut(&a) {
            let due = e.last_query.is_none_or(|t| now - t >= RETRANS_MS);
            if e.ok {
                let dst = e.eth;
                let poll = self.poll_ms > 0 && now - e.last_response > self.poll_ms && due;
                if poll {
                    e.last_query = Some(now);
                }
                self.encap(p, dst, out);
                if poll {
                    self.send_query(a, out, cx);
                }
                return;
            }
            if e.saved.len() >= self.entry_packet_capacity as usize {
                // The newest replaces the oldest (RFC 4861 section 7.2.2).
                e.saved.pop_front();
                self.saved_total -= 1;
                self.drops += 1;
            }
            if self.capacity > 0 && self.saved_total >= self.capacity as usize {
                self.drops += 1;
            } else {
                e.saved.push_back(p);
                self.saved_total += 1;
            }
            if due {
                e.last_query = Some(now);
                self.send_query(a, out, cx);
            }
            return;
        }
        if a.is_multicast() {
            let o = a.octets();
            self.encap(p, [0x33, 0x33, o[12], o[13], o[14], o[15]], out);
            return;
        }
        if a.is_unspecified() {
            if !self.zero_warned {
                self.zero_warned = true;
                cx.log(format!(
                    "{}: would query for ::; missing destination IPv6 annotation?",
                    cx.declaration()
                ));
            }
            self.drops += 1;
            return;
        }
        let room = self.capacity == 0 || self.saved_total < self.capacity as usize;
        let e = self.new_entry(a, now);
        e.last_query = Some(now);
        if room {
            e.saved.push_back(p);
            self.saved_total += 1;
        } else {
            self.drops += 1;
        }
        self.send_query(a, out, cx);
    }

    fn handle_response(&mut self, p: &Packet, out: &mut PacketBatch, cx: &mut Ctx) {
        let Some((target, solicited, tlla)) = advertisement(p.data()) else {
            self.ignored += 1;
            return;
        };
        let now = now_ms(cx);
        let Some(e) = self.entries.get_mut(&target) else {
            self.ignored += 1;
            return;
        };
        match tlla {
            Some(eth) if eth[0] & 1 == 0 => {
                if e.ok && e.eth != eth {
                    cx.log(format!(
                        "{}: IP6NDSolicitor overwriting an entry",
                        cx.declaration()
                    ));
                }
                e.eth = eth;
                e.ok = true;
            }
            // Without the option an advertisement only confirms an entry
            // already resolved.
            None if e.ok && solicited => {}
            _ => {
                self.ignored += 1;
                return;
            }
        }
        e.last_response = now;
        e.last_query = None;
        self.responses += 1;
        let dst = e.eth;
        let saved = std::mem::take(&mut e.saved);
        self.saved_total -= saved.len();
        for q in saved {
            self.encap(q, dst, out);
        }
    }

    /// Removes expired entries.
    fn sweep(&mut self, now: i64) {
        if self.timeout_ms == 0 {
            return;
        }
        let old: Vec<Ipv6Addr> = self
            .entries
            .iter()
            .filter(|(_, e)| {
                let since = if e.ok { e.last_response } else { e.created };
                now - since > self.timeout_ms
            })
            .map(|(a, _)| *a)
            .collect();
        for a in old {
            self.remove(a);
        }
    }

    fn table(&self) -> String {
        let mut v: Vec<(&Ipv6Addr, &Entry)> = self.entries.iter().collect();
        // Click's order: by hash bucket, the newest first within one.
        v.sort_by_key(|(a, e)| {
            let o = a.octets();
            (
                (usize::from(o[0]) + usize::from(o[15])) % NMAP,
                u64::MAX - e.seq,
            )
        });
        v.iter()
            .map(|(a, e)| format!("{a} {} {}\n", u8::from(e.ok), ether_text(&e.eth)))
            .collect()
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.order.clear();
        self.saved_total = 0;
    }
}

impl Element for IP6NDSolicitor {
    fn class_name(&self) -> &'static str {
        "IP6NDSolicitor"
    }
    fn port_count(&self) -> &'static str {
        "2/1-2"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn flow_code(&self) -> &'static str {
        "xy/x"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let c = parse_conf(conf)?;
        if c.my_ip != self.my_ip || c.my_eth != self.my_eth {
            self.clear();
        }
        self.my_ip = c.my_ip;
        self.my_eth = c.my_eth;
        self.entry_capacity = c.entry_capacity;
        self.entry_packet_capacity = c.entry_packet_capacity;
        self.capacity = c.capacity;
        self.timeout_ms = c.timeout_ms;
        self.poll_ms = c.poll_ms;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_timer();
        cx.schedule_timer_after(t, rclick_core::Timestamp::from_msec(SWEEP_MS));
        self.timer = Some(t);
        Ok(())
    }
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        self.sweep(now_ms(cx));
        cx.schedule_timer_after(timer, rclick_core::Timestamp::from_msec(SWEEP_MS));
    }
    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.clear();
    }
    fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
        let Some(o) = old.downcast_mut::<IP6NDSolicitor>() else {
            return;
        };
        if o.my_ip != self.my_ip || o.my_eth != self.my_eth {
            return;
        }
        std::mem::swap(&mut self.entries, &mut o.entries);
        std::mem::swap(&mut self.order, &mut o.order);
        std::mem::swap(&mut self.saved_total, &mut o.saved_total);
        self.next_seq = o.next_seq;
        self.queries = o.queries;
        self.responses = o.responses;
        self.drops = o.drops;
        self.evictions = o.evictions;
        self.ignored = o.ignored;
    }
    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mut out = PacketBatch::with_capacity(batch.len());
        self.handle_batch(port, batch, &mut out, cx);
        if !out.is_empty() {
            cx.push(0, out);
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Table) => self.table(),
            Some(H::Stats) => format!(
                "{} packets killed\n{} ND Solicitation Message sent\n",
                self.drops, self.queries
            ),
            Some(H::Queries) => self.queries.to_string(),
            Some(H::Responses) => self.responses.to_string(),
            Some(H::Drops) => self.drops.to_string(),
            Some(H::Evictions) => self.evictions.to_string(),
            Some(H::Ignored) => self.ignored.to_string(),
            Some(H::Count) => self.entries.len().to_string(),
            Some(H::Length) => self.saved_total.to_string(),
            _ => return Err("handler not readable".into()),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let value = rclick_core::confparse::uncomment(value);
        let words: Vec<&str> = value.split_whitespace().collect();
        match (H::from_id(id), words.as_slice()) {
            (Some(H::Insert), [ip, eth]) => {
                let a = parse_ip6(ip)?;
                let eth = parse_ether(eth)?.0;
                let now = now_ms(cx);
                if !self.entries.contains_key(&a) {
                    self.new_entry(a, now);
                }
                let mut out = PacketBatch::new();
                if let Some(e) = self.entries.get_mut(&a) {
                    e.eth = eth;
                    e.ok = true;
                    e.last_response = now;
                    e.last_query = None;
                    let saved = std::mem::take(&mut e.saved);
                    self.saved_total -= saved.len();
                    for q in saved {
                        self.encap(q, eth, &mut out);
                    }
                }
                if !out.is_empty() {
                    cx.push(0, out);
                }
            }
            (Some(H::Insert), _) => return Err("expected 'IP6 ETH'".into()),
            (Some(H::Delete), [ip]) => self.remove(parse_ip6(ip)?),
            (Some(H::Delete), _) => return Err("expected 'IP6'".into()),
            (Some(H::Clear), _) => {
                self.clear();
                self.queries = 0;
                self.responses = 0;
                self.drops = 0;
                self.evictions = 0;
                self.ignored = 0;
            }
            _ => return Err("handler not writable".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use rclick_core::testing;

    /// A UDP packet from 2001:db8::1 to 2001:db8::2 (the bytes matter
    /// only as a payload here).
    const P: &str = "60000000000c11402001db8000000000000000000000000012001db8000000000000000000000000020001000200000c00000000";

    /// The reference's solicitation for 2001:db8::2 from 2001:db8::1,
    /// 00:00:00:00:00:01 (clickdiff).
    const NS_FOR_2: &str = "o:   86 | 3333ff00 00020000 00000001 86dd6000 00000020 3aff2001 0db80000 00000000 00000000 0001ff02 00000000 00000000 0001ff00 00028700 1e270000 00002001 0db80000 00000000 00000000 00020101 00000000 0001";

    /// 2001:db8::2's advertisement (solicited, override) with its
    /// link-layer address 00:00:00:00:00:02, to 2001:db8::1.
    const NA_FROM_2: &str = "00000000000100000000000286dd6000000000203aff20010db800000000000000000000000220010db800000000000000000000000188008c716000000020010db80000000000000000000000020201000000000002";

    /// The IPv6 packet as it leaves, encapsulated for 00:00:00:00:00:02.
    const ENCAP: &str = "o:   66 | 00000000 00020000 00000001 86dd6000 0000000c 11402001 db800000 00000000 00000000 00001200 1db80000 00000000 00000000 00000200 01000200 000c0000 0000";

    /// Compared with the reference Click: the solicitation byte for byte;
    /// after the advertisement the saved packet and later ones leave
    /// encapsulated; `table` and `stats` as Click prints them. (Click sends
    /// one solicitation per packet, 2 here; with the one-a-second limit we
    /// send 1. Click keeps one packet, as we do by default.)
    #[test]
    fn solicits_and_resolves_like_click() {
        let conf = format!(
            "s :: InfiniteSource(DATA \\<{P}>, LIMIT 2, STOP false) -> SetIP6Address(2001:db8::2)
               -> q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01) -> Print(o, 200) -> Discard;
             s2 :: InfiniteSource(DATA \\<{P}>, LIMIT 2, STOP false, ACTIVE false)
               -> SetIP6Address(2001:db8::2) -> q;
             na :: InfiniteSource(DATA \\<{NA_FROM_2}>, LIMIT 1, STOP false, ACTIVE false) -> [1]q;
             Script(wait 0.1, write na.active true, wait 0.1, write s2.active true, wait 0.1, stop)"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(r.take_log(), [NS_FOR_2, ENCAP, ENCAP, ENCAP]);
        assert_eq!(
            testing::read(&r, "q.table"),
            "2001:db8::2 1 00-00-00-00-00-02\n"
        );
        assert_eq!(
            testing::read(&r, "q.stats"),
            "1 packets killed\n1 ND Solicitation Message sent\n"
        );
        assert_eq!(testing::read(&r, "q.responses"), "1");
        assert_eq!(testing::read(&r, "q.length"), "0");
    }

    /// Compared with the reference Click: the table's order (Click's hash
    /// buckets, newest first within one).
    #[test]
    fn table_order_like_click() {
        let mut conf = String::from(
            "q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01) -> Discard; Idle -> [1]q;\n",
        );
        let mut script = String::from("Script(");
        for (n, a) in [
            "2001:db8::3",
            "2001:db8::2",
            "2001:db8::102",
            "3001:db8::3",
            "2001:db8::ff",
        ]
        .iter()
        .enumerate()
        {
            conf.push_str(&format!(
                "s{n} :: InfiniteSource(DATA \\<{P}>, LIMIT 1, STOP false, ACTIVE false) -> SetIP6Address({a}) -> q;\n"
            ));
            script.push_str(&format!("write s{n}.active true, wait 0.01, "));
        }
        conf.push_str(&script);
        conf.push_str("stop);");
        let r = testing::run(&conf, &registry()).unwrap();
        let t = testing::read(&r, "q.table");
        let lines: Vec<&str> = t.lines().map(|l| l.split(' ').next().unwrap()).collect();
        assert_eq!(
            lines,
            [
                "2001:db8::ff",
                "2001:db8::102",
                "2001:db8::2",
                "2001:db8::3",
                "3001:db8::3"
            ]
        );
        assert!(t.ends_with(" 0 00-00-00-00-00-00\n"));
        assert_eq!(testing::read(&r, "q.queries"), "5");
    }

    /// Queries go to output 1 when there is one; multicast destinations
    /// map to 33:33 plus the last four bytes; `::` is dropped with one
    /// warning.
    #[test]
    fn second_output_multicast_and_unspecified() {
        let conf = format!(
            "q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01);
             q[0] -> Print(o, 14) -> Discard; q[1] -> Print(query, 6) -> Discard;
             Idle -> [1]q;
             InfiniteSource(DATA \\<{P}>, LIMIT 1, STOP false) -> SetIP6Address(2001:db8::2) -> q;
             InfiniteSource(DATA \\<{P}>, LIMIT 1, STOP false) -> SetIP6Address(ff02::1:ff00:2) -> q;
             InfiniteSource(DATA \\<{P}>, LIMIT 2, STOP false) -> q;
             DriverManager(wait 0.1s);"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        let mut log = r.take_log();
        log.sort();
        assert_eq!(
            log,
            [
                "o:   66 | 3333ff00 00020000 00000001 86dd",
                "q :: IP6NDSolicitor: would query for ::; missing destination IPv6 annotation?",
                "query:   86 | 3333ff00 0002"
            ]
        );
        assert_eq!(testing::read(&r, "q.drops"), "2");
    }

    /// Invalid advertisements (bad checksum, hop limit 64, a multicast
    /// destination with Solicited set, a different target, a truncated
    /// frame, a multicast link-layer address) change nothing and are
    /// counted in `ignored`.
    #[test]
    fn bad_advertisements_ignored() {
        let mut bad_sum = NA_FROM_2.to_string();
        bad_sum.replace_range(124..128, "0000");
        let mut h64 = NA_FROM_2.to_string();
        h64.replace_range(42..44, "40");
        let other = NA_FROM_2.replace("00000000000000020201", "00000000000000030201");
        let mut sources = String::new();
        for p in [bad_sum.as_str(), &h64, &other, &NA_FROM_2[..100]] {
            sources.push_str(&format!(
                "InfiniteSource(DATA \\<{p}>, LIMIT 1, STOP false, ACTIVE false) -> [1]q;\n"
            ));
        }
        let conf = format!(
            "q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01) -> Discard;
             InfiniteSource(DATA \\<{P}>, LIMIT 1, STOP false) -> SetIP6Address(2001:db8::2) -> q;
             {sources}
             Script(wait 0.05, write q.clear, wait 0.01);
             DriverManager(wait 0.1s);"
        );
        let conf = conf.replace("ACTIVE false", "ACTIVE true");
        let r = testing::run(&conf, &registry()).unwrap();
        // The checksum of `other` is wrong too, so all four are invalid.
        assert_eq!(testing::read(&r, "q.responses"), "0");
        assert_eq!(testing::read(&r, "q.count"), "0");
        let conf2 = format!(
            "q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01) -> c :: Counter -> Discard;
             InfiniteSource(DATA \\<{P}>, LIMIT 1, STOP false) -> SetIP6Address(2001:db8::2) -> q;
             {sources}
             DriverManager(wait 0.1s);"
        )
        .replace("ACTIVE false", "ACTIVE true");
        let r = testing::run(&conf2, &registry()).unwrap();
        assert_eq!(testing::read(&r, "q.ignored"), "4");
        assert_eq!(testing::read(&r, "q.responses"), "0");
        assert_eq!(testing::read(&r, "q.length"), "1");
        assert_eq!(testing::read(&r, "c.count"), "1", "only the solicitation");
    }

    /// The table is bounded: at ENTRY_CAPACITY the oldest entry goes (its
    /// saved packet counted as a drop); ENTRY_PACKET_CAPACITY keeps the
    /// newest packets; CAPACITY bounds all saved packets.
    #[test]
    fn bounded_and_counted() {
        let mut conf = String::from(
            "q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01, ENTRY_CAPACITY 3, ENTRY_PACKET_CAPACITY 2, CAPACITY 4) -> Discard; Idle -> [1]q;\n",
        );
        for i in 2..7 {
            conf.push_str(&format!(
                "InfiniteSource(DATA \\<{P}>, LIMIT 3, BURST 3, STOP false) -> SetIP6Address(2001:db8::{i}) -> q;\n"
            ));
        }
        conf.push_str("DriverManager(wait 0.1s);");
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "q.count"), "3");
        assert_eq!(testing::read(&r, "q.evictions"), "2");
        let len: u64 = testing::read(&r, "q.length").parse().unwrap();
        let drops: u64 = testing::read(&r, "q.drops").parse().unwrap();
        assert!(len <= 4, "{len}");
        assert_eq!(len + drops, 15, "every packet saved or counted");
        assert_eq!(testing::read(&r, "q.queries"), "5");
    }

    /// `insert` resolves an entry and sends its saved packets; `delete`
    /// and `clear` remove entries.
    #[test]
    fn handlers() {
        let conf = format!(
            "q :: IP6NDSolicitor(2001:db8::1, 00:00:00:00:00:01) -> Print(o, 200) -> Discard; Idle -> [1]q;
             InfiniteSource(DATA \\<{P}>, LIMIT 1, STOP false) -> SetIP6Address(2001:db8::2) -> q;
             Script(wait 0.05, write q.insert 2001:db8::2 00:00:00:00:00:02,
                    write q.insert 2001:db8::9 0:0:0:0:0:9, write q.delete 2001:db8::9);
             DriverManager(wait 0.1s);"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(r.take_log(), [NS_FOR_2, ENCAP]);
        assert_eq!(
            testing::read(&r, "q.table"),
            "2001:db8::2 1 00-00-00-00-00-02\n"
        );
        assert!(r.write_handler("q.insert", "2001:db8::2").is_err());
        assert!(r.write_handler("q.delete", "nope").is_err());
        r.write_handler("q.clear", "").unwrap();
        assert_eq!(testing::read(&r, "q.count"), "0");
        assert_eq!(testing::read(&r, "q.queries"), "0");
    }

    #[test]
    fn config() {
        config_errors(
            &registry(),
            |a| format!("Idle -> q :: IP6NDSolicitor({a}) -> Discard; Idle -> [1]q"),
            &[
                ("2001:db8::1", "ETH"),
                ("1.2.3.4, 0:0:0:0:0:1", "IPv6"),
                ("::1, 0:0:0:0:0:1, ENTRY_PACKET_CAPACITY 0", "at least 1"),
                ("::1, 0:0:0:0:0:1, FOO 1", "FOO"),
            ],
        );
    }
}
