//! # SetVLANAnno
//!
//! `SetVLANAnno(VLAN_TCI [, VLAN_PCP, KEYWORDS])`
//!
//! **Category:** ethernet. Sets the VLAN TCI annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's VLAN TCI annotation to VLAN_TCI, or to VLAN_ID
//! combined with VLAN_PCP.
//!
//! Keywords:
//!
//! * `VLAN_TCI` (integer 0-0xFFFF, positional): the whole TCI.
//! * `VLAN_PCP` (integer 0-7, positional, default 0): the priority.
//! * `VLAN_ID` (integer 0-0xFFF, default 0): the VLAN ID, if no VLAN_TCI.
//!
//! ## Annotations
//!
//! Sets VLAN_TCI_ANNO.
//!
//! ## Handlers
//!
//! * `vlan_tci`, `vlan_id`, `vlan_pcp` (read/write, reconfigure).
//!
//! ## Examples
//!
//! ```text
//! ... -> SetVLANAnno(VLAN_ID 2, VLAN_PCP 1) -> VLANEncap(ANNO) -> ...
//! ```
//!
//! ## See also
//!
//! VLANEncap, EtherVLANEncap, VLANDecap

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

use super::vlan_encap::TciText;

/// The SetVLANAnno element.
#[derive(Default)]
pub struct SetVlanAnno {
    tci: u16,
}

rclick_core::handlers! {
    /// SetVLANAnno's handlers (the manual's list): reconfiguring write
    /// handlers read through `read_handler`.
    enum H {
        Tci = reconfigure_read("vlan_tci", "VLAN_TCI").positional(0),
        Id = reconfigure_read("vlan_id", "VLAN_ID"),
        Pcp = reconfigure_read("vlan_pcp", "VLAN_PCP").positional(1),
    }
}

impl Element for SetVlanAnno {
    fn class_name(&self) -> &'static str {
        "SetVLANAnno"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut t = TciText::new();
        Args::new(conf)
            .read_p("VLAN_TCI", &mut t.tci)
            .read_p("VLAN_PCP", &mut t.pcp)
            .read("VLAN_ID", &mut t.id)
            .complete()
            .map_err(|e| e.to_string())?;
        if t.tci.0.trim() == "ANNO" {
            return Err("VLAN_TCI: expected integer".into());
        }
        self.tci = t.build()?.tci;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.set_vlan_tci_anno(self.tci);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Tci) => self.tci.to_string(),
            Some(H::Id) => (self.tci & 0xfff).to_string(),
            Some(H::Pcp) | None => (self.tci >> 13).to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// The annotation, from VLAN_TCI or from VLAN_ID and VLAN_PCP, as
    /// VLANEncap(VLAN_TCI ANNO) writes it.
    #[test]
    fn sets_the_annotation() {
        let frame = "020202020202 010101010101 0800 abcd";
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{frame}>, LIMIT 1, STOP true) -> SetVLANAnno(0x6005)
                 -> VLANEncap(VLAN_TCI ANNO) -> Print(a) -> Discard;
                 InfiniteSource(DATA \\<{frame}>, LIMIT 1) -> SetVLANAnno(VLAN_ID 7, VLAN_PCP 1)
                 -> VLANEncap(VLAN_TCI ANNO) -> Print(b) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert!(
            log.contains(&"a:   20 | 02020202 02020101 01010101 81006005 0800abcd".to_string()),
            "{log:?}"
        );
        assert!(
            log.contains(&"b:   20 | 02020202 02020101 01010101 81002007 0800abcd".to_string()),
            "{log:?}"
        );
    }
}
