//! # SetEtherAddress
//!
//! `SetEtherAddress(ADDR, ANNO)`
//!
//! **Category:** ethernet. Sets an Ethernet address annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Writes Ethernet address ADDR (mandatory) into each packet's annotation
//! area at byte ANNO (mandatory, 0 to 42).
//!
//! ## Annotations
//!
//! Sets six bytes of the annotation area at ANNO.
//!
//! ## Handlers
//!
//! * `addr` (read/write): ADDR (`01-02-03-04-05-06`).
//!
//! ## Differences from Click
//!
//! The annotation area here is separate from the named annotations
//! (destination IP address, paint...), where Click's overlap them.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetEtherAddress(00:01:02:03:04:05, 8) -> ...
//! ```
//!
//! ## See also
//!
//! GetEtherAddress, StoreEtherAddress

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

/// The SetEtherAddress element.
#[derive(Default)]
pub struct SetEtherAddress {
    addr: [u8; 6],
    anno: usize,
}

rclick_core::handlers! {
    /// SetEtherAddress's handlers (the manual's list).
    enum H {
        Addr = read_write("addr"),
    }
}

impl Element for SetEtherAddress {
    fn class_name(&self) -> &'static str {
        "SetEtherAddress"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = EtherAddr::default();
        let mut anno = 0usize;
        Args::new_with(conf, cx.arg_context())
            .read_mp("ADDR", &mut addr)
            .read_mp_with("ANNO", &mut anno, super::ether_anno)
            .complete()
            .map_err(|e| e.to_string())?;
        self.addr = addr.0;
        self.anno = anno;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        super::set_anno_ether(&mut p, self.anno, &self.addr);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(super::eth_dash(&self.addr))
    }
    fn write_handler(&mut self, _id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.addr = super::ether_handler_value(value, "ADDR", cx.arg_context())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click: byte 15 of the area is the address's last.
    #[test]
    fn sets_the_annotation() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0001>, LIMIT 1, STOP true) -> SetEtherAddress(0:0:0:0:0:3, 10)
             -> ps :: PaintSwitch(ANNO 15) -> Print(m0) -> Discard;
             ps[1] -> Discard; ps[2] -> Discard; ps[3] -> Print(m3) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["m3:    2 | 0001"]);
    }

    /// Checked against Click: handler format, ANNO range, errors.
    #[test]
    fn handlers_and_errors() {
        let r = testing::build(
            "Idle -> s :: SetEtherAddress(1:2:3:4:5:6, 3) -> Idle;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.addr"), "01-02-03-04-05-06");
        r.write_handler("s.addr", "6:5:4:3:2:1").unwrap();
        assert_eq!(testing::read(&r, "s.addr"), "06-05-04-03-02-01");
        assert!(r.write_handler("s.addr", "1:2").is_err());
        assert!(testing::build(
            "Idle -> SetEtherAddress(1:2:3:4:5:6, 42) -> Idle;",
            &registry(),
            true
        )
        .is_ok());
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> SetEtherAddress({conf}) -> Idle;"),
            &[
                ("1:2:3:4:5:6, 43", "ANNO: parse error"),
                ("1:2:3:4:5:6, -1", "ANNO: parse error"),
                ("1:2:3:4:5:6", "ANNO: required argument missing"),
                ("x, 2", "ADDR"),
            ],
        );
    }
}
