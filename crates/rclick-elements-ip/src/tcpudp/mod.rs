//! The TCP/UDP element group's generators (Click's `elements/tcpudp`):
//! FastUDPFlows and FastTCPFlows, benchmark sources of many flows, and
//! DynamicUDPIPEncap, TCPIPSend and TCPFragmenter.
//!
//! One element class per file; what both sources share (their
//! configuration, pacing, counting and handlers) lives here in
//! [`FlowSource`], and each file builds its own packets.

use std::net::Ipv4Addr;

use rclick_core::args::{Args, EtherAddr, FromArg, NoContext};
use rclick_core::{ConfigureCx, Ctx, HandlerDef, Registry, Timestamp};
use rclick_wire::{EtherType, EthernetAddress, EthernetFrame, IpProtocol, Ipv4Packet};

pub mod dynamic_udp_ip_encap;
pub mod fast_tcp_flows;
pub mod fast_udp_flows;
pub mod stateless_tcp_responder;
pub mod tcp_fragmenter;
pub mod tcp_ip_send;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "DynamicUDPIPEncap",
        || Box::<dynamic_udp_ip_encap::DynamicUDPIPEncap>::default(),
        include_str!("dynamic_udp_ip_encap.rs"),
    );
    r.add(
        "FastUDPFlows",
        || Box::<fast_udp_flows::FastUDPFlows>::default(),
        include_str!("fast_udp_flows.rs"),
    );
    r.add(
        "StatelessTCPResponder",
        || Box::<stateless_tcp_responder::StatelessTCPResponder>::default(),
        include_str!("stateless_tcp_responder.rs"),
    );
    r.add(
        "TCPFragmenter",
        || Box::<tcp_fragmenter::TCPFragmenter>::default(),
        include_str!("tcp_fragmenter.rs"),
    );
    r.add(
        "TCPIPSend",
        || Box::<tcp_ip_send::TCPIPSend>::default(),
        include_str!("tcp_ip_send.rs"),
    );
    r.add(
        "FastTCPFlows",
        || Box::<fast_tcp_flows::FastTCPFlows>::default(),
        include_str!("fast_tcp_flows.rs"),
    );
}

/// Click's `(click_random() >> 2) % 0xFFFF`: a random port, drawn from the
/// shared generator so RandomSeed makes Click's choices. Click stores the
/// number without converting it to network byte order, so on its
/// (little-endian) machines the port on the wire is the number with its
/// bytes swapped: this returns the port as Click's packets carry it.
pub(crate) fn random_port() -> u16 {
    (((rclick_core::random::random() >> 2) % 0xffff) as u16).swap_bytes()
}

/// A random 32-bit number as Click's FastTCPFlows stores it (in host,
/// little-endian, byte order): the wire value of its sequence numbers.
pub(crate) fn random_u32_as_stored() -> u32 {
    rclick_core::random::random().swap_bytes()
}

/// A flow index below `n` (at least 1), drawn as Click draws it.
pub(crate) fn random_flow(n: usize) -> usize {
    ((rclick_core::random::random() >> 2) as usize) % n
}

/// Pacing at a steady rate: at most `rate` events a second, spread over
/// the second (the admitted count is compared with the part of the second
/// elapsed; Click's GapRate). Rate 0 means unpaced.
#[derive(Default)]
pub(crate) struct Pacer {
    rate: u32,
    /// The second being counted, or `None` before the first event.
    second: Option<i64>,
    /// Events admitted against this second's allowance (may be negative
    /// after a second change, carrying credit over as Click does).
    admitted: i64,
}

/// Largest rate the pacer takes (Click's `GapRate::MAX_RATE`).
pub(crate) const MAX_RATE: u32 = 1_000_000 << 12;

impl Pacer {
    pub(crate) fn set_rate(&mut self, rate: u32) {
        self.rate = rate.min(MAX_RATE);
        self.second = None;
    }

    /// Whether another event may happen at `now`; counts it if so.
    pub(crate) fn admit(&mut self, now: Timestamp) -> bool {
        if self.rate == 0 {
            return true;
        }
        // Events due by `now` within its second, rounded down.
        let due = i64::from(now.subsec_usec()) * i64::from(self.rate) / 1_000_000;
        match self.second {
            None => {
                self.second = Some(now.sec());
                self.admitted = due;
            }
            Some(s) if now.sec() > s => {
                self.second = Some(now.sec());
                if self.admitted > 0 {
                    self.admitted -= i64::from(self.rate);
                }
            }
            Some(_) => {}
        }
        if due >= self.admitted {
            self.admitted += 1;
            true
        } else {
            false
        }
    }
}

/// The configuration, counters and handlers FastUDPFlows and FastTCPFlows
/// share.
pub(crate) struct FlowSource {
    pub len: usize,
    pub src_eth: [u8; 6],
    pub dst_eth: [u8; 6],
    pub src_ip: Ipv4Addr,
    pub dst_ip: Ipv4Addr,
    pub flows: usize,
    pub flow_size: u32,
    pub limit: Option<u64>,
    pub active: bool,
    pub count: u64,
    pacer: Pacer,
    first: Option<Timestamp>,
    last: Option<Timestamp>,
}

impl Default for FlowSource {
    fn default() -> Self {
        FlowSource {
            len: 60,
            src_eth: [0; 6],
            dst_eth: [0; 6],
            src_ip: Ipv4Addr::UNSPECIFIED,
            dst_ip: Ipv4Addr::UNSPECIFIED,
            flows: 1,
            flow_size: 1,
            limit: None,
            active: true,
            count: 0,
            pacer: Pacer::default(),
            first: None,
            last: None,
        }
    }
}

rclick_core::handlers! {
    /// The handlers of FastTCPFlows and FastUDPFlows (their manuals' lists):
    /// [`FlowSource::handlers`].
    enum H {
        Count = read("count"),
        Rate = read_write("rate"),
        Reset = write("reset"),
        Active = write("active"),
        Limit = write("limit"),
    }
}

impl FlowSource {
    /// Parses the shared arguments, and CHECKSUM when the class takes it
    /// (FastUDPFlows), into `checksum`.
    pub(crate) fn configure(
        conf: &[String],
        cx: &mut ConfigureCx,
        checksum: Option<&mut bool>,
    ) -> Result<FlowSource, String> {
        let (mut rate, mut limit, mut len) = (0u32, 0i32, 0u32);
        let (mut seth, mut deth) = (EtherAddr::default(), EtherAddr::default());
        let (mut sip, mut dip) = (Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED);
        let (mut flows, mut flow_size) = (0u32, 0u32);
        let mut active = true;
        let mut args = Args::new_with(conf, cx.arg_context())
            .read_mp("RATE", &mut rate)
            .read_mp("LIMIT", &mut limit)
            .read_mp("LENGTH", &mut len)
            .read_mp("SRCETH", &mut seth)
            .read_mp("SRCIP", &mut sip)
            .read_mp("DSTETH", &mut deth)
            .read_mp("DSTIP", &mut dip)
            .read_mp("FLOWS", &mut flows)
            .read_mp("FLOWSIZE", &mut flow_size);
        if let Some(c) = checksum {
            args = args.read_p("CHECKSUM", c);
        }
        args.read_p("ACTIVE", &mut active)
            .complete()
            .map_err(|e| e.to_string())?;
        if flows == 0 {
            return Err("FLOWS must be at least 1".to_string());
        }
        if len < 60 {
            cx.message("warning: packet length < 60, defaulting to 60");
            len = 60;
        }
        let mut s = FlowSource {
            len: len as usize,
            src_eth: seth.0,
            dst_eth: deth.0,
            src_ip: sip,
            dst_ip: dip,
            flows: flows as usize,
            flow_size,
            limit: u64::try_from(limit).ok(),
            active,
            ..FlowSource::default()
        };
        s.pacer.set_rate(rate);
        Ok(s)
    }

    /// A zeroed packet of LENGTH bytes with the Ethernet and IP headers
    /// (TTL 250, identification 0, checksum filled) for `proto`, and
    /// the IP header and destination annotations set.
    pub(crate) fn template(&self, proto: IpProtocol) -> rclick_core::Packet {
        let mut p = rclick_core::Packet::make_zeroed(0, self.len, 0);
        let d = p.data_mut();
        let (eth, ip) = d.split_at_mut(14);
        let mut e = EthernetFrame::new_unchecked(eth);
        e.set_dst_addr(EthernetAddress(self.dst_eth));
        e.set_src_addr(EthernetAddress(self.src_eth));
        // 14 bytes: the view's type field is in range.
        e.set_ethertype(EtherType::IPV4);
        if let Some(h) = ip.first_chunk_mut::<20>() {
            let mut v = Ipv4Packet::new_unchecked(h);
            v.set_version(4);
            v.set_header_len(20);
            v.set_total_len((self.len - 14) as u16);
            v.set_ttl(250);
            v.set_protocol(proto);
            v.set_src_addr(self.src_ip);
            v.set_dst_addr(self.dst_ip);
            v.fill_checksum();
        }
        p.set_ip_header(14, 20);
        p.set_dst_ip_anno(self.dst_ip);
        p
    }

    /// Whether the limit has been reached.
    pub(crate) fn exhausted(&self) -> bool {
        self.limit.is_some_and(|l| self.count >= l)
    }

    /// Whether the pacing allows a packet at `now` (counts it if so).
    pub(crate) fn admit(&mut self, now: Timestamp) -> bool {
        self.pacer.admit(now)
    }

    /// Counts a packet sent at `now`.
    pub(crate) fn sent(&mut self, now: Timestamp) {
        self.count += 1;
        if self.count == 1 {
            self.first = Some(now);
        }
        if self.exhausted() {
            self.last = Some(now);
        }
    }

    fn reset(&mut self) {
        self.count = 0;
        self.first = None;
        self.last = None;
    }

    pub(crate) fn handlers() -> Vec<HandlerDef> {
        H::all_defs()
    }

    pub(crate) fn read(&self, id: u32) -> String {
        match H::from_id(id) {
            Some(H::Count) => self.count.to_string(),
            // Packets a second between the first and the last packet
            // (milliseconds, at least one), once the limit is reached.
            _ => match (self.first, self.last) {
                (Some(f), Some(l)) => {
                    let ms = l.saturating_sub(f).as_msec().max(1) as u64;
                    (self.count * 1000 / ms).to_string()
                }
                _ => "0".to_string(),
            },
        }
    }

    /// Writes a handler; `reset` says whether the class must also forget
    /// its own state (FastTCPFlows' FINs).
    pub(crate) fn write(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<bool, String> {
        let v = value.trim();
        match H::from_id(id) {
            Some(H::Rate) => {
                let rate = u32::from_arg(v, &NoContext)
                    .map_err(|_| "rate parameter must be integer >= 0".to_string())?;
                if rate > MAX_RATE {
                    return Err(format!("rate too large; max is {MAX_RATE}"));
                }
                self.pacer.set_rate(rate);
                Ok(false)
            }
            Some(H::Reset) => {
                self.reset();
                Ok(true)
            }
            Some(H::Active) => {
                let active = bool::from_arg(v, &NoContext)
                    .map_err(|_| "active parameter must be boolean".to_string())?;
                self.active = active;
                if active {
                    self.reset();
                }
                Ok(active)
            }
            Some(H::Limit | H::Count) | None => {
                let limit = i32::from_arg(v, &NoContext)
                    .map_err(|_| "limit parameter must be integer >= 0".to_string())?;
                self.limit = u64::try_from(limit).ok();
                Ok(false)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pacer;
    use rclick_core::Timestamp;

    /// A pacer at 10 a second admits 10 packets over a second of
    /// attempts every millisecond, spread out, and carries on next second.
    #[test]
    fn pacer_spreads_events() {
        let mut p = Pacer::default();
        p.set_rate(10);
        let admitted: Vec<i64> = (0..2000)
            .filter(|ms| p.admit(Timestamp::from_msec(5_000 + ms)))
            .collect();
        assert_eq!(admitted.len(), 20, "{admitted:?}");
        assert!(
            admitted.windows(2).all(|w| w[1] - w[0] >= 99),
            "{admitted:?}"
        );
        let mut unpaced = Pacer::default();
        assert!((0..100).all(|_| unpaced.admit(Timestamp::from_sec(1))));
    }
}
