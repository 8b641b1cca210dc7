//! # VLANDecap
//!
//! `VLANDecap([ANNO, ETHERTYPE])`
//!
//! **Category:** ethernet. Removes an 802.1Q header from Ethernet frames.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! If a frame carries a VLAN tag with tag protocol ETHERTYPE after its
//! addresses, VLANDecap removes the 4-byte tag, leaving a plain Ethernet
//! header, and (with ANNO) stores the TCI in the VLAN TCI annotation.
//! Untagged frames pass unchanged, with the annotation set to 0. The MAC
//! header is set either way.
//!
//! Keywords:
//!
//! * `ANNO` (boolean, positional, default true): set VLAN_TCI_ANNO.
//! * `ETHERTYPE` (16-bit integer, default 0x8100): the tag protocol.
//!
//! ## Annotations
//!
//! Sets VLAN_TCI_ANNO.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> VLANDecap -> ...
//! ```
//!
//! ## See also
//!
//! VLANEncap, StripEtherVLANHeader

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{EtherType, EthernetFrame, VlanTag};

/// The VLANDecap element.
pub struct VlanDecap {
    anno: bool,
    ethertype: u16,
}

impl Default for VlanDecap {
    fn default() -> Self {
        VlanDecap {
            anno: true,
            ethertype: 0x8100,
        }
    }
}

impl Element for VlanDecap {
    fn class_name(&self) -> &'static str {
        "VLANDecap"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut anno, mut ethertype) = (true, 0x8100u16);
        Args::new(conf)
            .read_p("ANNO", &mut anno)
            .read("ETHERTYPE", &mut ethertype)
            .complete()
            .map_err(|e| e.to_string())?;
        self.anno = anno;
        self.ethertype = ethertype;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let mut tci = 0;
        let d = p.data();
        let eth = EthernetFrame::new_unchecked(d);
        if d.len() >= 16 && eth.ethertype() == EtherType(self.ethertype) {
            tci = VlanTag::new_unchecked(eth.payload()).tci();
            p.data_mut().copy_within(0..12, 4);
            p.pull(4);
        }
        p.set_mac_header_len(0, 14);
        if self.anno {
            p.set_vlan_tci_anno(tci);
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// The tag comes off and its TCI goes to the annotation (VLANEncap
    /// with VLAN_TCI ANNO puts it back); an untagged frame passes.
    #[test]
    fn untags_into_the_annotation() {
        let tagged = "020202020202 010101010101 8100 6005 0800 abcd";
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{tagged}>, LIMIT 1, STOP true) -> VLANDecap -> Print(d)
                 -> VLANEncap(VLAN_TCI ANNO) -> Print(e) -> Discard;
                 InfiniteSource(DATA \\<020202020202 010101010101 0800 abcd>, LIMIT 1)
                 -> VLANDecap -> Print(u) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert!(
            log.contains(&"d:   16 | 02020202 02020101 01010101 0800abcd".to_string()),
            "{log:?}"
        );
        assert!(
            log.contains(&"e:   20 | 02020202 02020101 01010101 81006005 0800abcd".to_string()),
            "{log:?}"
        );
        assert!(
            log.contains(&"u:   16 | 02020202 02020101 01010101 0800abcd".to_string()),
            "{log:?}"
        );
    }
}
