//! # EtherEncap
//!
//! `EtherEncap(ETHERTYPE, SRC, DST)`
//!
//! **Category:** ethernet. Encapsulates packets in an Ethernet header.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends a 14-byte Ethernet header with type ETHERTYPE (16-bit integer,
//! e.g. `0x0800` for IP), source SRC and destination DST (Ethernet
//! addresses or AddressInfo names), and marks it as the MAC header.
//!
//! ## Handlers
//!
//! * `src`, `dst` (read/write): the addresses.
//! * `ethertype` (read/write): the type, as a decimal number.
//!
//! ## Examples
//!
//! ```text
//! EtherEncap(0x0800, 00:05:4E:46:97:28, 00:E0:98:09:AB:AF)
//! ```
//!
//! ## See also
//!
//! ARPQuerier, EnsureEther, StoreEtherAddress, EtherVLANEncap

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::{EtherType, EthernetAddress, EthernetFrame};

/// The EtherEncap element.
#[derive(Default)]
pub struct EtherEncap {
    header: [u8; 14],
}

rclick_core::handlers! {
    /// EtherEncap's handlers (the manual's list).
    enum H {
        Src = read_write("src"),
        Dst = read_write("dst"),
        Type = read_write("ethertype"),
    }
}

impl EtherEncap {
    /// The header, as a frame to write.
    fn frame_mut(&mut self) -> EthernetFrame<&mut [u8]> {
        EthernetFrame::new_unchecked(&mut self.header[..])
    }

    /// Prepends the header; false (drop the packet) if the buffer would
    /// grow beyond the largest size.
    #[inline]
    fn encap(&self, p: &mut Packet) -> bool {
        if p.push_slice(&self.header).is_err() {
            return false;
        }
        p.set_mac_header(0);
        true
    }
}

impl Element for EtherEncap {
    fn class_name(&self) -> &'static str {
        "EtherEncap"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ty: u16 = 0;
        let (mut src, mut dst) = (EtherAddr::default(), EtherAddr::default());
        Args::new_with(conf, cx.arg_context())
            .read_mp("ETHERTYPE", &mut ty)
            .read_mp("SRC", &mut src)
            .read_mp("DST", &mut dst)
            .complete()
            .map_err(|e| e.to_string())?;
        let mut h = self.frame_mut();
        h.set_dst_addr(EthernetAddress(dst.0));
        h.set_src_addr(EthernetAddress(src.0));
        h.set_ethertype(EtherType(ty));
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    /// The batch is encapsulated in place (a packet is dropped only if its
    /// buffer would exceed the largest size): no packet moves.
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        batch.retain_mut(|p| self.encap(p));
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        batch.retain_mut(|p| self.encap(p));
        batch
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.encap(&mut p).then_some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let h = EthernetFrame::new_unchecked(&self.header[..]);
        Ok(match H::from_id(id) {
            Some(H::Src) => super::eth_dash(&h.src_addr().0),
            Some(H::Dst) => super::eth_dash(&h.dst_addr().0),
            _ => h.ethertype().0.to_string(),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let v = value.trim();
        match H::from_id(id) {
            Some(H::Src | H::Dst) => {
                let e = super::ether_handler_value(v, "ETH", cx.arg_context())
                    .map_err(|_| "expected Ethernet address".to_string())?;
                let mut h = self.frame_mut();
                if id == H::Src.id() {
                    h.set_src_addr(EthernetAddress(e));
                } else {
                    h.set_dst_addr(EthernetAddress(e));
                }
            }
            _ => {
                let mut t: u16 = 0;
                Args::new(&[v])
                    .read_mp("ETHERTYPE", &mut t)
                    .complete()
                    .map_err(|e| e.to_string())?;
                self.frame_mut().set_ethertype(EtherType(t));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn encapsulates_and_handlers() {
        let r = testing::run(
            "InfiniteSource(\\<AAAB>, LIMIT 1, STOP true) -> e :: EtherEncap(0x0800, 1:1:1:1:1:1, 2:2:2:2:2:2) -> Print(a) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["a:   16 | 02020202 02020101 01010101 0800aaab"]
        );
        assert_eq!(testing::read(&r, "e.ethertype"), "2048");
        r.write_handler("e.ethertype", "0x0801").unwrap();
        assert_eq!(testing::read(&r, "e.ethertype"), "2049");
        r.write_handler("e.src", "0:a:b:c:d:e").unwrap();
        assert_eq!(testing::read(&r, "e.src"), "00-0A-0B-0C-0D-0E");
        assert_eq!(
            r.write_handler("e.dst", "nope").unwrap_err(),
            "expected Ethernet address"
        );
        assert!(r.write_handler("e.ethertype", "70000").is_err());
        assert!(testing::build(
            "Idle -> EtherEncap(0x800, 1:1:1:1:1:1) -> Idle;",
            &registry(),
            true
        )
        .is_err());
    }
}
