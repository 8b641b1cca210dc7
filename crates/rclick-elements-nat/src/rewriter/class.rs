//! What each class of the IPRewriter family does on its own, as Click's
//! `IPRewriterBase` subclasses do: [`RewriterClass`] (which packets it maps,
//! its keys, timeouts, per-packet rewriting, mapping text), and the small
//! per-packet helpers the classes share (addresses and checksum deltas
//! through rclick-wire's views, annotations).
//!
//! Each class's impl sits beside its manual (`tcp_rewriter.rs`, ...); the
//! flow table, its maps and expiry are [`super::flowset`]'s.

use std::net::Ipv4Addr;

use rclick_packet::{Packet, PacketBatch};
use rclick_wire::checksum;
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::tcp::TcpPacket;
use rclick_wire::udp::UdpPacket;

use super::base::H;
use super::flowset::{Flow, FlowSet, Lookup, IP_PROTO_TCP, IP_PROTO_UDP};
use super::pattern::FlowId;

/// Where the reply annotation goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnnoSlot {
    /// The paint annotation.
    Paint,
    /// A byte of the user annotation area.
    User(usize),
}

impl AnnoSlot {
    /// Parses Click's `AnnoArg(1)`: `PAINT` or a byte offset.
    pub fn parse(s: &str) -> Result<AnnoSlot, String> {
        let u = s.to_ascii_uppercase();
        if u == "PAINT" || u == "PAINT_ANNO" {
            return Ok(AnnoSlot::Paint);
        }
        match s.parse::<usize>() {
            Ok(o) if o < rclick_packet::USER_ANNO_SIZE => Ok(AnnoSlot::User(o)),
            _ => Err("expected annotation".into()),
        }
    }
    /// The annotation's value in `p`.
    pub fn get(self, p: &Packet) -> u8 {
        match self {
            AnnoSlot::Paint => p.paint_anno(),
            AnnoSlot::User(o) => p.anno_u8(o),
        }
    }
    /// Sets the annotation in `p`.
    pub fn set(self, p: &mut Packet, v: u8) {
        match self {
            AnnoSlot::Paint => p.set_paint_anno(v),
            AnnoSlot::User(o) => p.set_anno_u8(o, v),
        }
    }
}

/// Timeouts (milliseconds) and annotation settings of one rewriter.
#[derive(Clone, Copy, Debug)]
pub struct TableCfg {
    /// Best-effort timeout (TCP: no-data timeout) and guarantee.
    pub timeouts: [u32; 2],
    /// TCP timeout once data flowed both ways.
    pub tcp_data: u32,
    /// TCP timeout once both sides closed.
    pub tcp_done: u32,
    /// IPRewriter's UDP timeout and guarantee.
    pub udp_timeouts: [u32; 2],
    /// UDP streaming timeout.
    pub udp_streaming: u32,
    /// Set the destination IP annotation.
    pub dst_anno: bool,
    /// Reply annotation slot.
    pub reply_anno: Option<AnnoSlot>,
}

impl Default for TableCfg {
    fn default() -> Self {
        TableCfg {
            timeouts: [300_000, 5_000],
            tcp_data: 86_400_000,
            tcp_done: 240_000,
            udp_timeouts: [300_000, 5_000],
            udp_streaming: 300_000,
            dst_anno: true,
            reply_anno: None,
        }
    }
}

/// Which groups of timeout keywords a class reads.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keywords {
    /// `TCP_NODATA_TIMEOUT`, `TCP_GUARANTEE`, `TCP_TIMEOUT` (and `TIMEOUT`
    /// as its alias), `TCP_DONE_TIMEOUT`.
    pub tcp: bool,
    /// `UDP_TIMEOUT`, `UDP_STREAMING_TIMEOUT`, `UDP_GUARANTEE`.
    pub udp: bool,
    /// `STREAMING_TIMEOUT`.
    pub streaming: bool,
    /// `DST_ANNO`.
    pub dst_anno: bool,
}

/// The timeout keywords' values as given (milliseconds).
#[derive(Clone, Copy, Debug, Default)]
pub struct Timeouts {
    /// `TIMEOUT` (classes without `tcp`).
    pub timeout: Option<u32>,
    /// `GUARANTEE`.
    pub guarantee: Option<u32>,
    /// `TCP_NODATA_TIMEOUT`.
    pub tcp_nodata: Option<u32>,
    /// `TCP_GUARANTEE`.
    pub tcp_guarantee: Option<u32>,
    /// `TIMEOUT` (classes with `tcp`).
    pub tcp_data: Option<u32>,
    /// `TCP_TIMEOUT`.
    pub tcp_timeout: Option<u32>,
    /// `TCP_DONE_TIMEOUT`.
    pub tcp_done: Option<u32>,
    /// `UDP_TIMEOUT`.
    pub udp_timeout: Option<u32>,
    /// `UDP_STREAMING_TIMEOUT`.
    pub udp_streaming: Option<u32>,
    /// `STREAMING_TIMEOUT`.
    pub streaming: Option<u32>,
    /// `UDP_GUARANTEE`.
    pub udp_guarantee: Option<u32>,
}

/// Facts about a packet's IP header.
#[derive(Clone, Copy, Debug)]
pub struct IpInfo {
    /// Protocol.
    pub proto: u8,
    /// First fragment (offset zero).
    pub first_frag: bool,
    /// Transport header offset within the IP header slice.
    pub thoff: usize,
    /// Transport length (bytes from the transport header to the end).
    pub tlen: usize,
    /// Source address.
    pub src: u32,
    /// Destination address.
    pub dst: u32,
}

/// Reads the IP header facts; `None` when there is no usable IP header.
#[inline]
pub fn ip_info(p: &Packet) -> Option<IpInfo> {
    let ip = p.ip_header()?;
    if ip.len() < rclick_wire::ipv4::HEADER_LEN {
        return None;
    }
    let v = Ipv4Packet::new_unchecked(ip);
    let thoff = if p.has_transport_header() && p.ip_header_len() >= 20 {
        p.ip_header_len()
    } else {
        usize::from(v.header_len())
    };
    if thoff < 20 {
        return None;
    }
    Some(IpInfo {
        proto: v.protocol().0,
        first_frag: v.frag_offset() == 0,
        thoff,
        tlen: ip.len().saturating_sub(thoff),
        src: u32::from(v.src_addr()),
        dst: u32::from(v.dst_addr()),
    })
}

/// Where a packet's (or a looked-up) flow lives in a rewriter's maps.
#[derive(Clone, Copy, Debug)]
pub struct FlowKey {
    /// The map: 0, or 1 for IPRewriter's UDP flows.
    pub map: usize,
    /// The key.
    pub flowid: FlowId,
    /// A second key tried when the first is missing (IPAddrRewriter's
    /// replies, keyed by destination).
    pub alt: Option<FlowId>,
    /// Whether a missing flow may be created (not for ICMP echo replies).
    pub create: bool,
    /// Whether a found flow must have the packet's protocol (flows keyed
    /// by ports).
    pub check_proto: bool,
}

impl FlowKey {
    /// The key of a flow with ports in map `map`: the flow's protocol
    /// must match in map 0, which holds several (TCPRewriter's and
    /// UDPRewriter's only map, IPRewriter's TCP map).
    pub fn ports(map: usize, flowid: FlowId) -> FlowKey {
        FlowKey {
            check_proto: map == 0,
            ..FlowKey::new(map, flowid)
        }
    }
    /// A key in map `map` that may create its flow.
    pub fn new(map: usize, flowid: FlowId) -> FlowKey {
        FlowKey {
            map,
            flowid,
            alt: None,
            create: true,
            check_proto: false,
        }
    }
}

/// One class of the IPRewriter family: what Click's `IPRewriterBase`
/// subclasses override. [`FlowSet`] calls these; a rewriter's batch runs
/// through [`RewriterClass::process_batch`], compiled once per class so
/// the per-packet calls are direct.
pub trait RewriterClass: Send + Sync + 'static {
    /// Click's class name.
    fn name(&self) -> &'static str;
    /// The timeout keyword groups the class reads (besides `TIMEOUT` and
    /// `GUARANTEE`).
    fn keywords(&self) -> Keywords {
        Keywords::default()
    }
    /// The class's timeouts from its keywords (with its defaults).
    fn table_cfg(&self, t: &Timeouts) -> TableCfg;
    /// The class's table handlers (besides the family's common ones).
    fn table_handlers(&self) -> &'static [H] {
        &[H::Table]
    }
    /// The key of the flow packet `p` belongs to; `None` for packets the
    /// class does not map (they go where the input's `pass` says, or are
    /// dropped). By default, the addresses' flow as [`lookup_key`] keys
    /// it.
    ///
    /// [`lookup_key`]: RewriterClass::lookup_key
    fn packet_key(&self, _p: &Packet, info: &IpInfo) -> Option<FlowKey> {
        let flowid = FlowId::new(info.src, 0, info.dst, 0);
        self.lookup_key(0, flowid, Lookup::Check)
    }
    /// The key of flow `flowid` of protocol `ip_p` (ICMPRewriter's and
    /// FTPPortMapper's lookups).
    fn lookup_key(&self, ip_p: u8, flowid: FlowId, how: Lookup) -> Option<FlowKey>;
    /// The protocol a new flow records (0: any).
    fn flow_proto(&self, proto: u8) -> u8 {
        proto
    }
    /// Adjusts and checks a new flow's rewritten identifier `r` for the
    /// flow `flowid`; false refuses the flow.
    fn accept(&self, _flowid: FlowId, _r: &mut FlowId) -> bool {
        true
    }
    /// The flow's timeout once its guarantee ends, and its guarantee.
    fn timeouts(&self, _f: &Flow, c: &TableCfg) -> (u32, u32) {
        (c.timeouts[0], c.timeouts[1])
    }
    /// The flow's guarantee alone (what a packet renews; the timeout is
    /// needed only without one).
    #[inline]
    fn guarantee(&self, f: &Flow, c: &TableCfg) -> u32 {
        self.timeouts(f, c).1
    }
    /// Rewrites packet `p` of flow `f` (its reply direction when `reply`).
    fn apply(&self, f: &mut Flow, reply: bool, p: &mut Packet, info: &IpInfo, cfg: &TableCfg);
    /// The text of mapping `k` (of flow `f`, its reply entry when `reply`)
    /// in the `table` handler, before the outputs and expiry: the flows,
    /// and the sequence delta if any (TCP).
    fn unparse_mapping(&self, k: &FlowId, f: &Flow, reply: bool, out: &mut String) {
        use std::fmt::Write;
        let _ = write!(out, "{k} => {}", f.rewritten(reply));
        if let Some(sd) = &f.seq {
            let dl = sd.newest(usize::from(reply));
            if dl != 0 {
                let _ = write!(out, " seq {}{}", if dl > 0 { "+" } else { "" }, dl);
            }
        }
    }
    /// Processes a batch arriving on input `port` of table `slot`: each
    /// packet's output, or -1 to drop it, into `outs`.
    fn process_batch(
        &self,
        set: &mut FlowSet,
        slot: usize,
        port: usize,
        batch: &mut PacketBatch,
        now: i64,
        outs: &mut Vec<i32>,
    ) {
        for p in batch.iter_mut() {
            outs.push(set.process(self, slot, port, p, now));
        }
    }
}

/// The key of a flow with ports (TCP, UDP, DCCP): `None` unless the
/// packet is a first fragment with 8 bytes of transport header.
#[inline(always)]
pub fn ports_key(p: &Packet, info: &IpInfo, map: usize) -> Option<FlowKey> {
    if !info.first_frag || info.tlen < 8 {
        return None;
    }
    let th = UdpPacket::new_unchecked(p.ip_header()?.get(info.thoff..)?);
    let f = FlowId::new(info.src, th.src_port(), info.dst, th.dst_port());
    Some(FlowKey::ports(map, f))
}

/// The timeouts of a class with only `TIMEOUT` (default `timeout` ms) and
/// `GUARANTEE`.
pub fn plain_cfg(t: &Timeouts, timeout: u32) -> TableCfg {
    let mut c = TableCfg::default();
    c.timeouts[0] = t.timeout.unwrap_or(timeout);
    c.timeouts[1] = t.guarantee.unwrap_or(5_000);
    c
}

/// Rewrites the addresses of a packet of an address-only flow
/// (IPAddrRewriter: the source forward, the destination in reply;
/// IPAddrPairRewriter: both when `both`) and fixes the TCP or UDP
/// checksum of a first fragment.
#[inline]
pub fn rewrite_addresses(
    f: &Flow,
    reply: bool,
    p: &mut Packet,
    info: &IpInfo,
    cfg: &TableCfg,
    both: bool,
) {
    let rev = f.key[usize::from(!reply)];
    if let Some(ip) = rewrite_ip(f, reply, p, both) {
        if info.first_frag {
            let n = ip.len();
            rewrite_l4_checksum(f, reply, info.proto, &mut ip[info.thoff.min(n)..]);
        }
    }
    if both || reply {
        set_annos(f, reply, p, cfg, rev.saddr);
    }
}

/// Applies a one's-complement delta `d` (or its negation) to a checksum.
#[inline(always)]
pub fn apply_delta(csum: u16, d: u16, reverse: bool) -> u16 {
    if d == 0 || d == 0xFFFF {
        return csum;
    }
    let d = if reverse { !d } else { d };
    !checksum::add(!csum, d)
}

/// Sets the destination address annotation to `dst` (when configured) and,
/// on replies, the reply annotation.
#[inline(always)]
pub fn set_annos(f: &Flow, reply: bool, p: &mut Packet, cfg: &TableCfg, dst: u32) {
    if cfg.dst_anno {
        p.set_dst_ip_anno(Ipv4Addr::from(dst));
    }
    if reply {
        if let Some(s) = cfg.reply_anno {
            s.set(p, f.reply_anno);
        }
    }
}

/// Rewrites the IP addresses (only the one that changes when not `both`:
/// the source forward, the destination in reply) and the IP checksum;
/// returns the IP header slice for more work.
#[inline(always)]
pub fn rewrite_ip<'p>(
    f: &Flow,
    reply: bool,
    p: &'p mut Packet,
    both: bool,
) -> Option<&'p mut [u8]> {
    let rev = f.key[usize::from(!reply)];
    let ip = p.ip_header_mut()?;
    let mut v = Ipv4Packet::new_unchecked(&mut *ip);
    if both || !reply {
        v.set_src_addr(Ipv4Addr::from(rev.daddr));
    }
    if both || reply {
        v.set_dst_addr(Ipv4Addr::from(rev.saddr));
    }
    let c = apply_delta(v.checksum(), f.ip_delta, reply);
    v.set_checksum(c);
    Some(ip)
}

/// Rewrites a packet of a flow with ports: addresses and the IP checksum,
/// then, in a first fragment with at least `min` bytes of transport
/// header, the ports and the transport checksum. Returns that transport
/// header, for what else the class changes.
#[inline(always)]
pub fn rewrite_flow<'p>(
    f: &Flow,
    reply: bool,
    p: &'p mut Packet,
    info: &IpInfo,
    min: usize,
) -> Option<&'p mut [u8]> {
    let rev = f.key[usize::from(!reply)];
    let ip = rewrite_ip(f, reply, p, true)?;
    if !info.first_frag || info.tlen < min {
        return None;
    }
    let th = &mut ip[info.thoff..];
    rewrite_ports(rev, th);
    rewrite_l4_checksum(f, reply, info.proto, th);
    Some(th)
}

/// Applies the flow's transport checksum delta to a TCP header (of at least
/// 18 bytes) or a UDP header with a checksum; other protocols are left.
#[inline(always)]
pub fn rewrite_l4_checksum(f: &Flow, reply: bool, proto: u8, th: &mut [u8]) {
    if proto == IP_PROTO_TCP && th.len() >= 18 {
        let mut t = TcpPacket::new_unchecked(th);
        let c = apply_delta(t.checksum(), f.l4_delta, reply);
        t.set_checksum(c);
    } else if proto == IP_PROTO_UDP && th.len() >= 8 {
        let mut u = UdpPacket::new_unchecked(th);
        if u.checksum() != 0 {
            let c = apply_delta(u.checksum(), f.l4_delta, reply);
            u.set_checksum(c);
        }
    }
}

/// Rewrites the ports of a header with ports at its start (TCP, UDP,
/// DCCP: source, then destination).
#[inline(always)]
pub fn rewrite_ports(rev: FlowId, th: &mut [u8]) {
    let mut u = UdpPacket::new_unchecked(th);
    u.set_src_port(rev.dport);
    u.set_dst_port(rev.sport);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anno_slot_parses_and_round_trips() {
        assert_eq!(AnnoSlot::parse("PAINT"), Ok(AnnoSlot::Paint));
        assert_eq!(AnnoSlot::parse("paint_anno"), Ok(AnnoSlot::Paint));
        assert_eq!(AnnoSlot::parse("3"), Ok(AnnoSlot::User(3)));
        assert!(AnnoSlot::parse("nosuch").is_err());
        assert!(AnnoSlot::parse(&rclick_packet::USER_ANNO_SIZE.to_string()).is_err());
        let mut p = Packet::make(0, &[0u8; 20], 0);
        AnnoSlot::User(3).set(&mut p, 9);
        AnnoSlot::Paint.set(&mut p, 4);
        assert_eq!(AnnoSlot::User(3).get(&p), 9);
        assert_eq!(AnnoSlot::Paint.get(&p), 4);
    }

    #[test]
    fn deltas_are_one_complement_and_reversible() {
        let c = 0x1234;
        let d = 0x0F0F;
        let there = apply_delta(c, d, false);
        assert_ne!(there, c);
        assert_eq!(apply_delta(there, d, true), c);
        assert_eq!(apply_delta(c, 0, false), c);
        assert_eq!(apply_delta(c, 0xFFFF, true), c);
    }

    #[test]
    fn ip_info_reads_the_header() {
        let mut b = [0u8; 28];
        b[0] = 0x45;
        b[6] = 0x20; // MF only: still the first fragment
        b[9] = 17;
        b[12..16].copy_from_slice(&[1, 2, 3, 4]);
        b[16..20].copy_from_slice(&[5, 6, 7, 8]);
        let mut p = Packet::make(0, &b, 0);
        assert!(ip_info(&p).is_none(), "no IP header annotation");
        p.set_ip_header(0, 20);
        let i = ip_info(&p).unwrap();
        assert_eq!((i.proto, i.first_frag, i.thoff, i.tlen), (17, true, 20, 8));
        assert_eq!(i.src, 0x0102_0304);
        assert_eq!(i.dst, 0x0506_0708);
        let key = ports_key(&p, &i, 1).unwrap();
        assert_eq!((key.map, key.check_proto), (1, false));
        b[7] = 1; // offset 8: a later fragment
        let mut p = Packet::make(0, &b, 0);
        p.set_ip_header(0, 20);
        let i = ip_info(&p).unwrap();
        assert!(!i.first_frag);
        assert!(ports_key(&p, &i, 0).is_none());
    }
}
