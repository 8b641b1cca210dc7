//! # VLANEncap
//!
//! `VLANEncap(VLAN_TCI [, VLAN_PCP, KEYWORDS])`
//!
//! **Category:** ethernet. Inserts an 802.1Q header into Ethernet frames.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Input packets must start with an Ethernet header. VLANEncap inserts a
//! 4-byte 802.1Q tag after the source address: tag protocol ETHERTYPE, then
//! the TCI. The TCI is VLAN_TCI, or VLAN_ID combined with VLAN_PCP, or, if
//! VLAN_TCI is `ANNO`, the packet's VLAN TCI annotation. A packet whose VLAN
//! ID equals NATIVE_VLAN is left untagged. The result's MAC header is set.
//!
//! Keywords:
//!
//! * `VLAN_TCI` (integer 0-0xFFFF, or `ANNO`): the whole TCI.
//! * `VLAN_PCP` (integer 0-7, default 0): the priority.
//! * `VLAN_ID` (integer 0-0xFFF, default 0): the VLAN ID, if no VLAN_TCI.
//! * `NATIVE_VLAN` (integer -1-0xFFF, default 0): frames on this VLAN stay
//!   untagged; -1 tags everything.
//! * `ETHERTYPE` (16-bit integer, default 0x8100): the tag protocol (use
//!   0x88a8 for 802.1ad).
//!
//! ## Annotations
//!
//! Reads VLAN_TCI_ANNO when VLAN_TCI is `ANNO`.
//!
//! ## Handlers
//!
//! * `vlan_tci` (read/write): the TCI, or `ANNO`.
//! * `vlan_id`, `vlan_pcp`, `native_vlan`, `ethertype` (read/write).
//! * `drops` (read): packets too short to tag.
//!
//! ## Examples
//!
//! ```text
//! ... -> EtherEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2) -> VLANEncap(1) -> ...
//! ```
//!
//! ## See also
//!
//! VLANDecap, EtherVLANEncap, SetVLANAnno

use rclick_core::args::{AnyArg, Args};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::{EtherType, EthernetFrame, VlanTag};

use super::bounded;

/// The TCI settings shared by VLANEncap and EtherVLANEncap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tci {
    pub tci: u16,
    pub use_anno: bool,
    /// -1 for none.
    pub native: i32,
}

impl Tci {
    /// Builds the settings from the VLAN_TCI word, VLAN_PCP, VLAN_ID and
    /// NATIVE_VLAN texts (empty when absent).
    pub(crate) fn parse(tci: &str, pcp: &str, id: &str, native: &str) -> Result<Tci, String> {
        let mut errs = Vec::new();
        let mut get = |kw: &str, s: &str, lo: i64, hi: i64, def: i64| {
            if s.is_empty() {
                return def;
            }
            bounded(s, lo, hi).unwrap_or_else(|e| {
                errs.push(format!("{kw}: {e}"));
                def
            })
        };
        let use_anno = tci == "ANNO";
        let t = if tci.is_empty() || use_anno {
            -1
        } else {
            get("VLAN_TCI", tci, 0, 0xffff, -1)
        };
        let pcp = get("VLAN_PCP", pcp, 0, 7, 0);
        let id = get("VLAN_ID", id, 0, 0xfff, 0);
        let native = get("NATIVE_VLAN", native, -1, 0xfff, 0);
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        let base = if t >= 0 { t } else { id };
        Ok(Tci {
            tci: (base | (pcp << 13)) as u16,
            use_anno,
            native: native as i32,
        })
    }

    /// The TCI for `p`, and whether it is on the native VLAN.
    pub(crate) fn for_packet(&self, p: &Packet) -> (u16, bool) {
        let tci = if self.use_anno {
            p.vlan_tci_anno()
        } else {
            self.tci
        };
        (tci, i32::from(tci & 0xfff) == self.native)
    }

    pub(crate) fn unparse_tci(&self) -> String {
        if self.use_anno {
            "ANNO".into()
        } else {
            self.tci.to_string()
        }
    }
}

/// Reads the raw text of VLAN keyword arguments.
pub(crate) struct TciText {
    pub tci: AnyArg,
    pub pcp: AnyArg,
    pub id: AnyArg,
    pub native: AnyArg,
}

impl TciText {
    pub(crate) fn new() -> TciText {
        TciText {
            tci: AnyArg::default(),
            pcp: AnyArg::default(),
            id: AnyArg::default(),
            native: AnyArg::default(),
        }
    }
    pub(crate) fn build(&self) -> Result<Tci, String> {
        Tci::parse(
            self.tci.0.trim(),
            self.pcp.0.trim(),
            self.id.0.trim(),
            self.native.0.trim(),
        )
    }
}

/// The VLANEncap element.
#[derive(Default)]
pub struct VlanEncap {
    tci: Tci,
    ethertype: u16,
    drops: u64,
}

rclick_core::handlers! {
    /// VLANEncap's handlers (the manual's list). All but `drops` are
    /// reconfiguring write handlers read through `read_handler`.
    enum H {
        Tci = reconfigure_read("vlan_tci", "VLAN_TCI").positional(0),
        Id = reconfigure_read("vlan_id", "VLAN_ID"),
        Pcp = reconfigure_read("vlan_pcp", "VLAN_PCP"),
        Native = reconfigure_read("native_vlan", "NATIVE_VLAN"),
        Type = reconfigure_read("ethertype", "ETHERTYPE"),
        Drops = read("drops"),
    }
}

impl Element for VlanEncap {
    fn class_name(&self) -> &'static str {
        "VLANEncap"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut t = TciText::new();
        let mut ethertype: u16 = 0x8100;
        Args::new(conf)
            .read_p("VLAN_TCI", &mut t.tci)
            .read_p("VLAN_PCP", &mut t.pcp)
            .read("VLAN_ID", &mut t.id)
            .read("NATIVE_VLAN", &mut t.native)
            .read("ETHERTYPE", &mut ethertype)
            .complete()
            .map_err(|e| e.to_string())?;
        self.tci = t.build()?;
        self.ethertype = ethertype;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let (tci, native) = self.tci.for_packet(&p);
        if native {
            p.set_mac_header_len(0, 14);
            return Some(p);
        }
        if p.len() < 12 || p.push(4).is_err() {
            self.drops += 1;
            return None;
        }
        let d = p.data_mut();
        d.copy_within(4..16, 0);
        let mut eth = EthernetFrame::new_unchecked(d);
        eth.set_ethertype(EtherType(self.ethertype));
        VlanTag::new_unchecked(eth.payload_mut()).set_tci(tci);
        p.set_mac_header_len(0, 18);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Tci) => self.tci.unparse_tci(),
            Some(H::Id) => (self.tci.tci & 0xfff).to_string(),
            Some(H::Pcp) => (self.tci.tci >> 13).to_string(),
            Some(H::Native) => self.tci.native.to_string(),
            Some(H::Drops) => self.drops.to_string(),
            Some(H::Type) | None => self.ethertype.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn tags_and_native() {
        let r = testing::run(
            "InfiniteSource(\\<AAABACAD>, LIMIT 1, STOP true)
               -> EtherEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2)
               -> v :: VLANEncap(0x1234, ETHERTYPE 0x88a8) -> Print(a)
               -> VLANDecap() -> Print(b)
               -> VLANDecap(ETHERTYPE 0x88a8) -> Print(c)
               -> VLANEncap(ANNO, NATIVE_VLAN 0x234) -> Print(d)
               -> SetVLANAnno(VLAN_ID 5, VLAN_PCP 7) -> VLANEncap(ANNO) -> Print(e) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec![
                "a:   22 | 02020202 02020101 01010101 88a81234 0800aaab acad",
                "b:   22 | 02020202 02020101 01010101 88a81234 0800aaab acad",
                "c:   18 | 02020202 02020101 01010101 0800aaab acad",
                "d:   18 | 02020202 02020101 01010101 0800aaab acad",
                "e:   22 | 02020202 02020101 01010101 8100e005 0800aaab acad",
            ]
        );
        assert_eq!(testing::read(&r, "v.vlan_tci"), "4660");
        assert_eq!(testing::read(&r, "v.ethertype"), "34984");
        assert!(
            testing::build("Idle -> VLANEncap(VLAN_PCP 8) -> Idle;", &registry(), true).is_err()
        );
        assert!(testing::build("Idle -> VLANEncap(0x10000) -> Idle;", &registry(), true).is_err());
    }

    /// Frames too short to tag are dropped and counted (they went
    /// uncounted before; found by the malformed-packet corpus test).
    #[test]
    fn too_short_frames_are_counted() {
        let r = testing::run(
            "InfiniteSource(\\<00010203 04050607 0809>, LIMIT 3, STOP true)
               -> v :: VLANEncap(5) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        assert_eq!(testing::read(&r, "v.drops"), "3");
    }
}
