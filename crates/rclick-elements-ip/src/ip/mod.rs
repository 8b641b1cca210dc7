//! IP elements: header checks, address annotations, route tables, TTL,
//! encapsulation, DSCP/ECN marking, checksums, and the AddressInfo and
//! PortInfo name databases.
//!
//! One element class per file; shared pieces live here (drop accounting
//! with Click's `drops`/`drop_details` handlers, scoped name lookup), in
//! [`iproute`] (Click's IPRouteTable: route syntax and handlers) and in
//! [`dir248`] and [`dxr`] (the DIR-24-8 and DXR lookup structures, with
//! their shared route bookkeeping in [`route_store`]).

use rclick_core::drops::{DropReason, Drops};
use rclick_core::{Ctx, HandlerDef, Registry};

use transport::HeaderChecker;

pub mod address_info;
pub mod check_icmp_header;
pub mod check_ip_header;
pub mod check_ip_header2;
pub mod check_tcp_header;
pub mod check_udp_header;
pub mod dec_ip_ttl;
pub mod dir248;
pub mod direct_ip_lookup;
pub mod drop_broadcasts;
pub mod dxr;
mod each_packet;
mod fix_in_place;
pub mod fix_ip_src;
pub mod get_ip_address;
pub mod ip_encap;
pub mod ip_field_info;
pub mod ip_input_combo;
pub mod ip_mirror;
pub mod ip_name_info;
pub mod ip_output_combo;
pub mod ip_rate_monitor;
pub mod iproute;
pub mod linear_ip_lookup;
pub mod lookup_ip_route_mp;
pub mod mark_ip_ce;
pub mod mark_ip_header;
pub mod port_info;
pub mod radix_ip_lookup;
pub mod range_ip_lookup;
pub mod route_store;
pub mod set_ip_address;
pub mod set_ip_checksum;
pub mod set_ip_dscp;
pub mod set_ip_ecn;
pub mod set_rand_ip_address;
pub mod set_tcp_checksum;
pub mod set_udp_checksum;
pub mod sorted_ip_lookup;
pub mod static_ip_lookup;
pub mod store_ip_address;
pub mod strip_ip_header;
pub mod strip_to_network_header;
mod transport;
pub mod truncate_ip_payload;
pub mod udp_ip_encap;
pub mod unstrip_ip_header;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    use iproute::IpRouteTable;
    r.add(
        "AddressInfo",
        || Box::<address_info::AddressInfo>::default(),
        include_str!("address_info.rs"),
    );
    r.add(
        "PortInfo",
        || Box::<port_info::PortInfo>::default(),
        include_str!("port_info.rs"),
    );
    r.add(
        "CheckIPHeader",
        || Box::new(check_ip_header::CheckIPHeader::new(false)),
        include_str!("check_ip_header.rs"),
    );
    r.add(
        "CheckIPHeader2",
        || Box::new(check_ip_header::CheckIPHeader::new(true)),
        include_str!("check_ip_header2.rs"),
    );
    r.add(
        "CheckICMPHeader",
        HeaderChecker::<check_icmp_header::Why>::make,
        include_str!("check_icmp_header.rs"),
    );
    r.add(
        "CheckUDPHeader",
        HeaderChecker::<check_udp_header::Why>::make,
        include_str!("check_udp_header.rs"),
    );
    r.add(
        "CheckTCPHeader",
        HeaderChecker::<check_tcp_header::Why>::make,
        include_str!("check_tcp_header.rs"),
    );
    r.add(
        "MarkIPHeader",
        || Box::<mark_ip_header::MarkIPHeader>::default(),
        include_str!("mark_ip_header.rs"),
    );
    r.add(
        "GetIPAddress",
        || Box::<get_ip_address::GetIPAddress>::default(),
        include_str!("get_ip_address.rs"),
    );
    r.add(
        "SetIPAddress",
        || Box::<set_ip_address::SetIPAddress>::default(),
        include_str!("set_ip_address.rs"),
    );
    r.add(
        "StoreIPAddress",
        || Box::<store_ip_address::StoreIPAddress>::default(),
        include_str!("store_ip_address.rs"),
    );
    r.add(
        "SetRandIPAddress",
        || Box::<set_rand_ip_address::SetRandIPAddress>::default(),
        include_str!("set_rand_ip_address.rs"),
    );
    r.add(
        "LinearIPLookup",
        IpRouteTable::<linear_ip_lookup::LinearIPLookup>::make,
        include_str!("linear_ip_lookup.rs"),
    );
    r.add(
        "StaticIPLookup",
        IpRouteTable::<static_ip_lookup::StaticIPLookup>::make,
        include_str!("static_ip_lookup.rs"),
    );
    r.alias("LookupIPRoute", "StaticIPLookup");
    r.add(
        "LookupIPRouteMP",
        IpRouteTable::<lookup_ip_route_mp::LookupIPRouteMP>::make,
        include_str!("lookup_ip_route_mp.rs"),
    );
    r.add(
        "SortedIPLookup",
        IpRouteTable::<sorted_ip_lookup::SortedIPLookup>::make,
        include_str!("sorted_ip_lookup.rs"),
    );
    r.add(
        "RadixIPLookup",
        IpRouteTable::<radix_ip_lookup::RadixIPLookup>::make,
        include_str!("radix_ip_lookup.rs"),
    );
    r.add(
        "DirectIPLookup",
        IpRouteTable::<direct_ip_lookup::DirectIPLookup>::make,
        include_str!("direct_ip_lookup.rs"),
    );
    r.add(
        "RangeIPLookup",
        IpRouteTable::<range_ip_lookup::RangeIPLookup>::make,
        include_str!("range_ip_lookup.rs"),
    );
    r.add(
        "DropBroadcasts",
        || Box::<drop_broadcasts::DropBroadcasts>::default(),
        include_str!("drop_broadcasts.rs"),
    );
    r.add(
        "FixIPSrc",
        || Box::<fix_ip_src::FixIPSrc>::default(),
        include_str!("fix_ip_src.rs"),
    );
    r.add(
        "DecIPTTL",
        || Box::<dec_ip_ttl::DecIPTTL>::default(),
        include_str!("dec_ip_ttl.rs"),
    );
    r.add(
        "IPEncap",
        || Box::<ip_encap::IPEncap>::default(),
        include_str!("ip_encap.rs"),
    );
    r.add(
        "UDPIPEncap",
        || Box::<udp_ip_encap::UDPIPEncap>::default(),
        include_str!("udp_ip_encap.rs"),
    );
    r.add(
        "StripIPHeader",
        || Box::<strip_ip_header::StripIPHeader>::default(),
        include_str!("strip_ip_header.rs"),
    );
    r.add(
        "UnstripIPHeader",
        || Box::<unstrip_ip_header::UnstripIPHeader>::default(),
        include_str!("unstrip_ip_header.rs"),
    );
    r.add(
        "StripToNetworkHeader",
        || Box::<strip_to_network_header::StripToNetworkHeader>::default(),
        include_str!("strip_to_network_header.rs"),
    );
    r.add(
        "SetIPDSCP",
        || Box::<set_ip_dscp::SetIPDSCP>::default(),
        include_str!("set_ip_dscp.rs"),
    );
    r.add(
        "MarkIPCE",
        || Box::<mark_ip_ce::MarkIPCE>::default(),
        include_str!("mark_ip_ce.rs"),
    );
    r.add(
        "IPInputCombo",
        || Box::<ip_input_combo::IPInputCombo>::default(),
        include_str!("ip_input_combo.rs"),
    );
    r.add(
        "IPOutputCombo",
        || Box::<ip_output_combo::IPOutputCombo>::default(),
        include_str!("ip_output_combo.rs"),
    );
    r.add(
        "IPMirror",
        || Box::<ip_mirror::IPMirror>::default(),
        include_str!("ip_mirror.rs"),
    );
    r.add(
        "IPRateMonitor",
        || Box::<ip_rate_monitor::IPRateMonitor>::default(),
        include_str!("ip_rate_monitor.rs"),
    );
    r.add(
        "SetIPECN",
        || Box::<set_ip_ecn::SetIPECN>::default(),
        include_str!("set_ip_ecn.rs"),
    );
    r.add(
        "TruncateIPPayload",
        || Box::<truncate_ip_payload::TruncateIPPayload>::default(),
        include_str!("truncate_ip_payload.rs"),
    );
    r.add(
        "IPNameInfo",
        || Box::<ip_name_info::IPNameInfo>::default(),
        include_str!("ip_name_info.rs"),
    );
    r.add(
        "IPFieldInfo",
        || Box::<ip_field_info::IPFieldInfo>::default(),
        include_str!("ip_field_info.rs"),
    );
    r.add(
        "SetIPChecksum",
        || Box::<set_ip_checksum::SetIPChecksum>::default(),
        include_str!("set_ip_checksum.rs"),
    );
    r.add(
        "SetTCPChecksum",
        || Box::<set_tcp_checksum::SetTCPChecksum>::default(),
        include_str!("set_tcp_checksum.rs"),
    );
    r.add(
        "SetUDPChecksum",
        || Box::<set_udp_checksum::SetUDPChecksum>::default(),
        include_str!("set_udp_checksum.rs"),
    );
}

/// What the header checkers (CheckIPHeader, CheckTCPHeader, CheckUDPHeader,
/// CheckICMPHeader) keep about drops: the counts by reason (core's
/// [`Drops`]: `drops` is the total, `drop_details` the lines), and whether
/// to log every drop (VERBOSE) and to offer `drop_details` (DETAILS).
pub(crate) struct CheckDrops<R: DropReason> {
    pub counts: Drops<R>,
    pub verbose: bool,
    pub details: bool,
    /// The header checked, in the log line: `IP header`, `TCP header`...
    what: &'static str,
}

rclick_core::handlers! {
    /// The header checkers' handlers (`drop_details` only with DETAILS).
    pub(crate) enum CheckH {
        Drops = read("drops"),
        DropDetails = read("drop_details"),
    }
}

/// Reads [`CheckH`] handler `id` from `counts`: `drops` (the total) or
/// `drop_details` (a line per reason). For the classes whose handlers are
/// just these two (CheckIP6Header, ICMP6Error) and for [`CheckDrops`].
pub(crate) fn read_drops<R: DropReason>(counts: &Drops<R>, id: u32) -> Result<String, String> {
    match CheckH::from_id(id) {
        Some(CheckH::Drops) => Ok(counts.total().to_string()),
        Some(CheckH::DropDetails) => Ok(counts.details()),
        None => Err("no such handler".into()),
    }
}

impl<R: DropReason> CheckDrops<R> {
    pub fn new(what: &'static str) -> Self {
        CheckDrops {
            counts: Drops::default(),
            verbose: false,
            details: false,
            what,
        }
    }

    /// Counts a drop for `reason`. The first drop, or every drop when
    /// VERBOSE, is logged as `NAME: WHAT check failed: REASON` (as Click
    /// does: `NAME :: CLASS: ` before the ICMP and TCP messages, no prefix
    /// before the UDP one).
    pub fn count(&mut self, reason: R, cx: &Ctx) {
        if self.counts.total() == 0 || self.verbose {
            let (what, text) = (self.what, reason.text());
            cx.log(match what {
                "ICMP header" | "TCP header" => {
                    format!("{}: {what} check failed: {text}", cx.declaration())
                }
                "UDP header" => format!("{what} check failed: {text}"),
                _ => format!("{}: {what} check failed: {text}", cx.name()),
            });
        }
        self.counts.count(reason, 1);
    }

    pub fn handlers(&self) -> Vec<HandlerDef> {
        if self.details {
            CheckH::all_defs()
        } else {
            CheckH::Drops.defs()
        }
    }

    pub fn read(&self, id: u32) -> Result<String, String> {
        read_drops(&self.counts, id)
    }
}

/// Looks a name up the way Click's NameInfo does for elements inside
/// compounds: first in this element's compound scopes, innermost first,
/// then globally. Names are stored as `scope/name` by the defining element.
pub(crate) fn scoped_lookup<'a>(
    lookup: impl Fn(&str, &str) -> Option<&'a str>,
    kind: &str,
    element_name: &str,
    name: &str,
) -> Option<&'a str> {
    let mut prefix = element_name;
    while let Some(pos) = prefix.rfind('/') {
        prefix = &prefix[..pos];
        if let Some(v) = lookup(kind, &format!("{prefix}/{name}")) {
            return Some(v);
        }
    }
    lookup(kind, name)
}

/// The compound scope prefix (`a/b/`) of an element name, or "".
pub(crate) fn scope_of(element_name: &str) -> &str {
    match element_name.rfind('/') {
        Some(i) => &element_name[..=i],
        None => "",
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use rclick_core::Registry;

    /// A registry with this crate's classes and the standard ones.
    pub fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r
    }

    /// Builds the configuration `conf(ARGS)` makes for each `(ARGS,
    /// TEXT)` case and checks that it fails with an error containing TEXT.
    pub fn config_errors(
        registry: &rclick_core::Registry,
        conf: impl Fn(&str) -> String,
        cases: &[(&str, &str)],
    ) {
        for (args, want) in cases {
            let text = conf(args);
            match rclick_core::testing::build(&text, registry, true) {
                Ok(_) => panic!("{text}: accepted"),
                Err(e) => assert!(e.contains(want), "{text}: {e}"),
            }
        }
    }

    /// A small deterministic generator (xorshift) for randomised tests.
    pub struct Rng(pub u64);

    impl Rng {
        /// A number below `n`.
        pub fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Log lines by label.
    pub type Logs = std::collections::BTreeMap<String, Vec<String>>;

    /// Runs `conf` once with `{BURST}` replaced by 1 and once by 16, and
    /// returns each run's log lines grouped by label (the text before the
    /// first `:`), in order within a label, and the handler values
    /// `handlers` read after each run. Configurations feed the element
    /// under test from a Queue through `Unqueue(BURST {BURST})`: the same
    /// packets in the same order, one per batch or mixed in batches of up
    /// to 16, which a batch fast path must not tell apart.
    pub fn by_burst(conf: &str, handlers: &[&str]) -> [(Logs, Vec<String>); 2] {
        [1, 16].map(|burst| {
            let text = conf.replace("{BURST}", &burst.to_string());
            let r = rclick_core::testing::run(&text, &registry()).unwrap();
            let mut logs = Logs::new();
            for line in r.take_log() {
                let label = line.split(':').next().unwrap_or("").to_string();
                logs.entry(label).or_default().push(line);
            }
            let values = handlers
                .iter()
                .map(|h| rclick_core::testing::read(&r, h))
                .collect();
            (logs, values)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::check_udp_header::Why;
    use super::{read_drops, CheckH};
    use rclick_core::drops::Drops;

    /// `drops` reads the total, `drop_details` a line per reason; any
    /// other id is an error.
    #[test]
    fn read_drops_reads_both_handlers() {
        let mut d = Drops::<Why>::default();
        d.count(Why::BadChecksum, 2);
        d.count(Why::NotUdp, 1);
        assert_eq!(read_drops(&d, CheckH::Drops.id()).unwrap(), "3");
        let details = "1\tnot UDP\n0\tbad packet length\n2\tbad UDP checksum\n";
        assert_eq!(read_drops(&d, CheckH::DropDetails.id()).unwrap(), details);
        assert!(read_drops(&d, 2).is_err());
    }
}
