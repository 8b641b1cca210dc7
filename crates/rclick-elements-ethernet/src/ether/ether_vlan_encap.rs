//! # EtherVLANEncap
//!
//! `EtherVLANEncap(ETHERTYPE, SRC, DST [, VLAN_TCI, VLAN_PCP, KEYWORDS])`
//!
//! **Category:** ethernet. Encapsulates packets in an 802.1Q-tagged
//! Ethernet header.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends an 18-byte header: destination DST, source SRC, tag protocol
//! 0x8100, the TCI, and the encapsulated type ETHERTYPE. The TCI is
//! VLAN_TCI, or VLAN_ID combined with VLAN_PCP, or, if VLAN_TCI is `ANNO`,
//! the packet's VLAN TCI annotation. Packets whose VLAN ID equals
//! NATIVE_VLAN get a plain 14-byte Ethernet header instead.
//!
//! Keywords:
//!
//! * `ETHERTYPE` (16-bit integer, mandatory): the encapsulated protocol.
//! * `SRC`, `DST` (Ethernet addresses, mandatory).
//! * `VLAN_TCI` (integer 0-0xFFFF, or `ANNO`).
//! * `VLAN_PCP` (integer 0-7, default 0).
//! * `VLAN_ID` (integer 0-0xFFF, default 0).
//! * `NATIVE_VLAN` (integer -1-0xFFF, default 0); -1 tags everything.
//!
//! ## Annotations
//!
//! Reads VLAN_TCI_ANNO when VLAN_TCI is `ANNO`.
//!
//! ## Handlers
//!
//! * `src`, `dst`, `ethertype` (read/write).
//! * `vlan_tci`, `vlan_id`, `vlan_pcp`, `native_vlan` (read/write,
//!   reconfigure).
//!
//! ## Examples
//!
//! ```text
//! EtherVLANEncap(0x0800, 00:05:4E:46:97:28, 00:E0:98:09:AB:AF, VLAN_ID 1)
//! ```
//!
//! ## See also
//!
//! EtherEncap, VLANEncap, StripEtherVLANHeader, SetVLANAnno

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::{EtherType, EthernetAddress, EthernetFrame, VlanTag};

use super::eth_dash;
use super::vlan_encap::{Tci, TciText};

/// The EtherVLANEncap element.
#[derive(Default)]
pub struct EtherVlanEncap {
    dst: [u8; 6],
    src: [u8; 6],
    ethertype: u16,
    tci: Tci,
}

rclick_core::handlers! {
    /// EtherVLANEncap's handlers (the manual's list). The VLAN ones are
    /// reconfiguring write handlers read through `read_handler`.
    enum H {
        Src = read_write("src"),
        Dst = read_write("dst"),
        Type = read_write("ethertype"),
        Tci = reconfigure_read("vlan_tci", "VLAN_TCI").positional(3),
        Id = reconfigure_read("vlan_id", "VLAN_ID"),
        Pcp = reconfigure_read("vlan_pcp", "VLAN_PCP"),
        Native = reconfigure_read("native_vlan", "NATIVE_VLAN"),
    }
}

impl Element for EtherVlanEncap {
    fn class_name(&self) -> &'static str {
        "EtherVLANEncap"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ty: u16 = 0;
        let (mut src, mut dst) = (EtherAddr::default(), EtherAddr::default());
        let mut t = TciText::new();
        Args::new_with(conf, cx.arg_context())
            .read_mp("ETHERTYPE", &mut ty)
            .read_mp("SRC", &mut src)
            .read_mp("DST", &mut dst)
            .read_p("VLAN_TCI", &mut t.tci)
            .read_p("VLAN_PCP", &mut t.pcp)
            .read("VLAN_ID", &mut t.id)
            .read("NATIVE_VLAN", &mut t.native)
            .complete()
            .map_err(|e| e.to_string())?;
        self.tci = t.build()?;
        self.ethertype = ty;
        self.src = src.0;
        self.dst = dst.0;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let (tci, native) = self.tci.for_packet(&p);
        let n = if native { 14 } else { 18 };
        p.push(n).ok()?;
        let mut eth = EthernetFrame::new_unchecked(p.data_mut());
        eth.set_dst_addr(EthernetAddress(self.dst));
        eth.set_src_addr(EthernetAddress(self.src));
        if native {
            eth.set_ethertype(EtherType(self.ethertype));
        } else {
            eth.set_ethertype(EtherType::VLAN);
            let mut tag = VlanTag::new_unchecked(eth.payload_mut());
            tag.set_tci(tci);
            tag.set_ethertype(EtherType(self.ethertype));
        }
        p.set_mac_header(0);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Src) => eth_dash(&self.src),
            Some(H::Dst) => eth_dash(&self.dst),
            Some(H::Type) => self.ethertype.to_string(),
            Some(H::Tci) => self.tci.unparse_tci(),
            Some(H::Id) => (self.tci.tci & 0xfff).to_string(),
            Some(H::Pcp) => (self.tci.tci >> 13).to_string(),
            Some(H::Native) | None => self.tci.native.to_string(),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let v = value.trim();
        let h = H::from_id(id);
        match h {
            Some(H::Src | H::Dst) => {
                let e = super::ether_handler_value(v, "ETH", cx.arg_context())
                    .map_err(|_| "expected Ethernet address".to_string())?;
                if h == Some(H::Src) {
                    self.src = e;
                } else {
                    self.dst = e;
                }
            }
            Some(H::Type) => {
                let mut t: u16 = 0;
                Args::new(&[v])
                    .read_mp("ETHERTYPE", &mut t)
                    .complete()
                    .map_err(|e| e.to_string())?;
                self.ethertype = t;
            }
            _ => return Err("handler not writable".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// A tagged header (TPID 0x8100, the TCI from VLAN_ID and VLAN_PCP),
    /// or an untagged one for the native VLAN; VLANDecap takes the tag
    /// off again.
    #[test]
    fn tags_and_untags() {
        let r = testing::run(
            "InfiniteSource(DATA \\<abcd>, LIMIT 1, STOP true)
             -> EtherVLANEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2, VLAN_ID 5, VLAN_PCP 3)
             -> Print(t) -> VLANDecap -> Print(d) -> Discard;
             InfiniteSource(DATA \\<abcd>, LIMIT 1)
             -> e :: EtherVLANEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2, VLAN_ID 0) -> Print(n) -> Discard;",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert!(
            log.contains(&"t:   20 | 02020202 02020101 01010101 81006005 0800abcd".to_string()),
            "{log:?}"
        );
        assert!(
            log.contains(&"d:   16 | 02020202 02020101 01010101 0800abcd".to_string()),
            "{log:?}"
        );
        assert!(
            log.contains(&"n:   16 | 02020202 02020101 01010101 0800abcd".to_string()),
            "{log:?}"
        );
        r.write_handler("e.src", " 0:a:b:c:d:e ").unwrap();
        assert_eq!(testing::read(&r, "e.src"), "00-0A-0B-0C-0D-0E");
        assert_eq!(
            r.write_handler("e.dst", "nope").unwrap_err(),
            "expected Ethernet address"
        );
    }
}
