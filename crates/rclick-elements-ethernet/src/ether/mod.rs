//! Ethernet and ARP elements: ARPQuerier, ARPTable, ARPResponder, ARPPrint,
//! Ethernet and VLAN encapsulation, host filtering, the learning switch,
//! Suppressor and the IEEE 802.1d spanning tree.
//!
//! One element class per file; each file opens with the class's manual.
//! Small helpers shared by several classes live here.

use std::net::Ipv4Addr;

use rclick_core::Registry;

pub mod arp_faker;
pub mod arp_print;
pub mod arp_querier;
pub mod arp_responder;
pub mod arp_table;
pub mod check_arp_header;
pub mod ensure_ether;
pub mod ether_encap;
pub mod ether_mirror;
pub mod ether_pause_source;
pub mod ether_rewrite;
pub mod ether_span_tree;
pub mod ether_switch;
pub mod ether_vlan_encap;
pub mod get_ether_address;
pub mod host_ether_filter;
pub mod mark_mac_header;
pub mod set_ether_address;
pub mod set_vlan_anno;
pub mod store_ether_address;
pub mod strip_ether_vlan_header;
pub mod suppressor;
mod two_outputs;
pub mod vlan_decap;
pub mod vlan_encap;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ARPFaker",
        || Box::<arp_faker::ArpFaker>::default(),
        include_str!("arp_faker.rs"),
    );
    r.add(
        "ARPPrint",
        || Box::<arp_print::ArpPrint>::default(),
        include_str!("arp_print.rs"),
    );
    r.add(
        "ARPQuerier",
        || Box::<arp_querier::ArpQuerier>::default(),
        include_str!("arp_querier.rs"),
    );
    r.add(
        "ARPResponder",
        || Box::<arp_responder::ArpResponder>::default(),
        include_str!("arp_responder.rs"),
    );
    r.add(
        "ARPTable",
        || Box::<arp_table::ArpTableElement>::default(),
        include_str!("arp_table.rs"),
    );
    r.add(
        "CheckARPHeader",
        || Box::<check_arp_header::CheckARPHeader>::default(),
        include_str!("check_arp_header.rs"),
    );
    r.add(
        "EnsureEther",
        || Box::<ensure_ether::EnsureEther>::default(),
        include_str!("ensure_ether.rs"),
    );
    r.add(
        "EtherMirror",
        || Box::<ether_mirror::EtherMirror>::default(),
        include_str!("ether_mirror.rs"),
    );
    r.add(
        "EtherRewrite",
        || Box::<ether_rewrite::EtherRewrite>::default(),
        include_str!("ether_rewrite.rs"),
    );
    r.add(
        "GetEtherAddress",
        || Box::<get_ether_address::GetEtherAddress>::default(),
        include_str!("get_ether_address.rs"),
    );
    r.add(
        "SetEtherAddress",
        || Box::<set_ether_address::SetEtherAddress>::default(),
        include_str!("set_ether_address.rs"),
    );
    r.add(
        "StoreEtherAddress",
        || Box::<store_ether_address::StoreEtherAddress>::default(),
        include_str!("store_ether_address.rs"),
    );
    r.add(
        "EtherPauseSource",
        || Box::<ether_pause_source::EtherPauseSource>::default(),
        include_str!("ether_pause_source.rs"),
    );
    r.add(
        "EtherEncap",
        || Box::<ether_encap::EtherEncap>::default(),
        include_str!("ether_encap.rs"),
    );
    r.add(
        "EtherSpanTree",
        || Box::<ether_span_tree::EtherSpanTree>::default(),
        include_str!("ether_span_tree.rs"),
    );
    r.add(
        "EtherSwitch",
        || Box::<ether_switch::EtherSwitch>::default(),
        include_str!("ether_switch.rs"),
    );
    r.add(
        "EtherVLANEncap",
        || Box::<ether_vlan_encap::EtherVlanEncap>::default(),
        include_str!("ether_vlan_encap.rs"),
    );
    r.alias("EtherVlanEncap", "EtherVLANEncap");
    r.add(
        "HostEtherFilter",
        || Box::<host_ether_filter::HostEtherFilter>::default(),
        include_str!("host_ether_filter.rs"),
    );
    r.add(
        "MarkMACHeader",
        || Box::<mark_mac_header::MarkMacHeader>::default(),
        include_str!("mark_mac_header.rs"),
    );
    r.add(
        "SetVLANAnno",
        || Box::<set_vlan_anno::SetVlanAnno>::default(),
        include_str!("set_vlan_anno.rs"),
    );
    r.alias("SetVlanAnno", "SetVLANAnno");
    r.add(
        "StripEtherVLANHeader",
        || Box::<strip_ether_vlan_header::StripEtherVlanHeader>::default(),
        include_str!("strip_ether_vlan_header.rs"),
    );
    r.alias("StripEtherVlanHeader", "StripEtherVLANHeader");
    r.add(
        "Suppressor",
        || Box::<suppressor::Suppressor>::default(),
        include_str!("suppressor.rs"),
    );
    r.add(
        "VLANDecap",
        || Box::<vlan_decap::VlanDecap>::default(),
        include_str!("vlan_decap.rs"),
    );
    r.add(
        "VLANEncap",
        || Box::<vlan_encap::VlanEncap>::default(),
        include_str!("vlan_encap.rs"),
    );
}

/// Click's `EtherAddress::unparse`: `00-01-02-0A-0B-FF`.
pub(crate) fn eth_dash(a: &[u8; 6]) -> String {
    format!(
        "{:02X}-{:02X}-{:02X}-{:02X}-{:02X}-{:02X}",
        a[0], a[1], a[2], a[3], a[4], a[5]
    )
}

/// Reads an IPv4 address at `off` of `b` (caller checked the length).
pub(crate) fn ip_at(b: &[u8], off: usize) -> Ipv4Addr {
    Ipv4Addr::new(b[off], b[off + 1], b[off + 2], b[off + 3])
}

/// Reads an Ethernet address at `off` of `b` (caller checked the length).
pub(crate) fn eth_at(b: &[u8], off: usize) -> [u8; 6] {
    let mut a = [0u8; 6];
    a.copy_from_slice(&b[off..off + 6]);
    a
}

/// Parses an integer in `lo..=hi` the way Click's `BoundedIntArg` does.
pub(crate) fn bounded(s: &str, lo: i64, hi: i64) -> Result<i64, String> {
    let v: i64 = rclick_core::args::FromArg::from_arg(s, &rclick_core::args::NoContext)?;
    if v < lo || v > hi {
        return Err(format!(
            "out of range, bound {}",
            if v < lo { lo } else { hi }
        ));
    }
    Ok(v)
}

/// Click's OFFSET word for the Ethernet address elements: `src` (6),
/// `dst` (0), either case, or an unsigned byte offset.
pub(crate) fn ether_offset(s: &str) -> Result<usize, String> {
    match s.to_ascii_lowercase().as_str() {
        "src" => Ok(6),
        "dst" => Ok(0),
        n => match n.parse::<u32>() {
            Ok(v) => Ok(v as usize),
            Err(_) => Err("type mismatch: bad OFFSET".to_string()),
        },
    }
}

/// The Ethernet address a write handler was given (`value`, trimmed),
/// parsed as the one mandatory argument `keyword` (the error names it):
/// the `addr` handlers of SetEtherAddress and StoreEtherAddress,
/// HostEtherFilter's `ether`, and the `src` and `dst` of EtherEncap and
/// EtherVLANEncap.
pub(crate) fn ether_handler_value(
    value: &str,
    keyword: &str,
    cx: &dyn rclick_core::args::ArgContext,
) -> Result<[u8; 6], String> {
    let mut addr = rclick_core::args::EtherAddr::default();
    rclick_core::args::Args::new_with(&[value.trim()], cx)
        .read_mp(keyword, &mut addr)
        .complete()
        .map_err(|e| e.to_string())?;
    Ok(addr.0)
}

/// Click's `AnnoArg(6)`: a byte offset into the 48-byte annotation area
/// at which six bytes fit.
pub(crate) fn ether_anno(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(v) if v + 6 <= rclick_packet::USER_ANNO_SIZE => Ok(v),
        _ => Err("parse error".to_string()),
    }
}

#[cfg(test)]
/// The Ethernet address at byte `at` of `p`'s annotation area.
pub(crate) fn anno_ether(p: &rclick_core::Packet, at: usize) -> [u8; 6] {
    let mut a = [0u8; 6];
    for (i, b) in a.iter_mut().enumerate() {
        *b = p.anno().u8_at(at + i);
    }
    a
}

/// Writes Ethernet address `a` at byte `at` of `p`'s annotation area.
pub(crate) fn set_anno_ether(p: &mut rclick_core::Packet, at: usize, a: &[u8; 6]) {
    let anno = p.anno_mut();
    for (i, &b) in a.iter().enumerate() {
        anno.set_u8_at(at + i, b);
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use std::net::Ipv4Addr;

    use rclick_core::args::Args;
    use rclick_core::{ConfigureCx, Ctx, Element, Packet, Registry};

    /// A registry with this crate's classes and the standard ones.
    pub(crate) fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r.add("TestSetDst", || Box::<SetDst>::default(), "//! test helper");
        r.add(
            "MarkIPHeader",
            || Box::<MarkIp>::default(),
            "//! test helper",
        );
        r
    }

    /// `TestSetDst(IP)`: sets the destination IP annotation (a stand-in
    /// for the IP group's elements in these tests).
    pub(crate) struct SetDst(Ipv4Addr);

    impl Default for SetDst {
        fn default() -> Self {
            SetDst(Ipv4Addr::UNSPECIFIED)
        }
    }

    impl Element for SetDst {
        fn class_name(&self) -> &'static str {
            "TestSetDst"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            Args::new(conf)
                .read_mp("IP", &mut self.0)
                .complete()
                .map_err(|e| e.to_string())
        }
        fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
            p.set_dst_ip_anno(self.0);
            Some(p)
        }
    }

    /// `MarkIPHeader([OFFSET])`: a stand-in for the IP group's element,
    /// marking a 20-byte IP header OFFSET bytes in.
    #[derive(Default)]
    pub(crate) struct MarkIp(usize);

    impl Element for MarkIp {
        fn class_name(&self) -> &'static str {
            "MarkIPHeader"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            Args::new(conf)
                .read_p("OFFSET", &mut self.0)
                .complete()
                .map_err(|e| e.to_string())
        }
        fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
            p.set_ip_header(self.0, 20);
            Some(p)
        }
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

    /// Hex of a frame, for building `InfiniteSource(DATA \<...>)` configs.
    pub(crate) fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}

#[cfg(test)]
mod robustness {
    use super::test_util::{hex, registry};
    use rclick_core::testing;

    /// Frames of every length up to an ARP packet's and beyond, with and
    /// without MAC and IP header annotations, through the classes added
    /// for Click compatibility: nothing may panic.
    #[test]
    fn garbage_never_panics() {
        let elems = [
            "EtherMirror",
            "EtherRewrite(1:1:1:1:1:1, 2:2:2:2:2:2)",
            "EnsureEther",
            "StoreEtherAddress(1:1:1:1:1:1, 30)",
            "GetEtherAddress(42, src)",
            "SetEtherAddress(1:1:1:1:1:1, 42)",
            "CheckARPHeader(14)",
            "CheckARPHeader",
        ];
        let mut base = vec![0xffu8; 6];
        base.extend([2, 0, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1]);
        base.extend([0x7f; 30]);
        let mut seeds: Vec<Vec<u8>> = (0..base.len()).map(|n| base[..n].to_vec()).collect();
        for (hln, pln) in [(0u8, 0u8), (255, 255), (6, 16), (16, 4)] {
            let mut v = base.clone();
            v[18] = hln;
            v[19] = pln;
            seeds.push(v);
        }
        for e in elems {
            let mut conf = format!("r :: {e} -> Discard;\n");
            for (i, s) in seeds.iter().enumerate() {
                let mark = ["MarkMACHeader", "MarkIPHeader(14)", "MarkIPHeader", "Null"][i % 4];
                conf.push_str(&format!(
                    "InfiniteSource(DATA \\<{}>, LIMIT 2, STOP true) -> {mark} -> r;\n",
                    hex(s)
                ));
            }
            testing::run(&conf, &registry()).unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use rclick_core::args::NoContext;

    #[test]
    fn handler_values_parse_as_ethernet_addresses() {
        let a = super::ether_handler_value(" 0:1:2:a:b:c\n", "ADDR", &NoContext);
        assert_eq!(a, Ok([0, 1, 2, 0xa, 0xb, 0xc]));
        let e = super::ether_handler_value("1:2", "ETHER", &NoContext).unwrap_err();
        assert!(e.contains("ETHER"), "{e}");
    }
}
