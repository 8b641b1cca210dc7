//! # StripEtherVLANHeader
//!
//! `StripEtherVLANHeader([NATIVE_VLAN])`
//!
//! **Category:** ethernet. Strips 802.1Q-tagged Ethernet headers.
//!
//! **Ports:** one input, one or two outputs, agnostic (output 1 push).
//!
//! ## Description
//!
//! Removes the 18-byte header of 802.1Q-tagged frames, storing the TCI in
//! the VLAN TCI annotation. Untagged frames are stripped of their 14-byte
//! header and given NATIVE_VLAN as annotation, unless NATIVE_VLAN is
//! negative: then they go to output 1 (dropped if it does not exist).
//!
//! Keywords: `NATIVE_VLAN` (integer at most 0xFFF, positional, default 0).
//!
//! ## Annotations
//!
//! Sets VLAN_TCI_ANNO.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> StripEtherVLANHeader(-1) -> ...
//! ```
//!
//! ## See also
//!
//! EtherVLANEncap, VLANDecap

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};

use super::two_outputs::{pull_split, push_split};
use rclick_wire::{EtherType, EthernetFrame, VlanTag};

/// The StripEtherVLANHeader element.
#[derive(Default)]
pub struct StripEtherVlanHeader {
    native: i32,
}

impl StripEtherVlanHeader {
    /// Strips `p`; `Err(p)` if it goes to output 1.
    fn strip(&self, mut p: Packet) -> Result<Packet, Packet> {
        let d = p.data();
        let eth = EthernetFrame::new_unchecked(d);
        if d.len() >= 18 && eth.ethertype() == EtherType::VLAN {
            let tci = VlanTag::new_unchecked(eth.payload()).tci();
            p.set_vlan_tci_anno(tci);
            p.pull(18);
            Ok(p)
        } else if self.native >= 0 && d.len() >= 14 {
            p.set_vlan_tci_anno(self.native as u16);
            p.pull(14);
            Ok(p)
        } else {
            Err(p)
        }
    }
}

impl Element for StripEtherVlanHeader {
    fn class_name(&self) -> &'static str {
        "StripEtherVLANHeader"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut native: i32 = 0;
        Args::new(conf)
            .read_p("NATIVE_VLAN", &mut native)
            .complete()
            .map_err(|e| e.to_string())?;
        if native > 0xfff {
            return Err("bad NATIVE_VLAN".into());
        }
        self.native = native.max(-1);
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_split(batch, cx, |p| self.strip(p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_split(max, cx, |p| self.strip(p))
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn ether_vlan_round_trip() {
        let r = testing::run(
            "InfiniteSource(DATA \\<AAABACAD>, LIMIT 1, STOP true)
              -> EtherVLANEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2, 1) -> Print(a)
              -> StripEtherVLANHeader -> Print(b)
              -> EtherVLANEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2, ANNO, NATIVE_VLAN 1) -> Print(e)
              -> StripEtherVLANHeader
              -> SetVLANAnno(2, 1)
              -> EtherVLANEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2, ANNO, NATIVE_VLAN 1) -> Print(f)
              -> StripEtherVLANHeader(-1) -> Print(g) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "a:   22 | 02020202 02020101 01010101 81000001 0800aaab acad",
                "b:    4 | aaabacad",
                "e:   18 | 02020202 02020101 01010101 0800aaab acad",
                "f:   22 | 02020202 02020101 01010101 81002002 0800aaab acad",
                "g:    4 | aaabacad",
            ]
        );
    }

    #[test]
    fn untagged_to_output_1() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0202020202020101010101010800AAAB>, LIMIT 3, STOP true)
              -> s :: StripEtherVLANHeader(-1) -> a :: Counter -> Discard; s[1] -> b :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "0");
        assert_eq!(testing::read(&r, "b.count"), "3");
    }
}
