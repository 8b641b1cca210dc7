//! Ethernet and ARP elements: ARPQuerier, ARPTable, ARPResponder, ARPPrint,
//! Ethernet and VLAN encapsulation, host filtering, the learning switch,
//! Suppressor and the IEEE 802.1d spanning tree.
//!
//! One element class per file; each file opens with the class's manual.
//! Small helpers shared by several classes live here.

use std::net::Ipv4Addr;

use rclick_core::Registry;

pub mod arp_print;
pub mod arp_querier;
pub mod arp_responder;
pub mod arp_table;
pub mod ether_encap;
pub mod ether_span_tree;
pub mod ether_switch;
pub mod ether_vlan_encap;
pub mod host_ether_filter;
pub mod mark_mac_header;
pub mod set_vlan_anno;
pub mod strip_ether_vlan_header;
pub mod suppressor;
pub mod vlan_decap;
pub mod vlan_encap;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
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

    /// Hex of a frame, for building `InfiniteSource(DATA \<...>)` configs.
    pub(crate) fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}
