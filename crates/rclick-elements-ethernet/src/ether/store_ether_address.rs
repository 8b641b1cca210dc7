//! # StoreEtherAddress
//!
//! `StoreEtherAddress(ADDR, OFFSET)`
//!
//! **Category:** ethernet. Stores an Ethernet address in packet data.
//!
//! **Ports:** one input, agnostic; one or two outputs (output 1 push).
//!
//! ## Description
//!
//! Writes Ethernet address ADDR (mandatory) into each packet's data at
//! byte OFFSET (mandatory): an unsigned integer, or `src` (6) or `dst`
//! (0), the offsets of the source and destination fields of an Ethernet
//! header at the data start. A packet too short for the six bytes leaves
//! by output 1, or is dropped and counted when output 1 is not connected.
//!
//! ## Handlers
//!
//! * `addr` (read/write): ADDR (`01-01-01-01-01-01`).
//! * `drops` (read): packets dropped for being too short without an
//!   output 1 (not in Click).
//!
//! ## Examples
//!
//! ```text
//! ... -> StoreEtherAddress(00:e0:98:09:ab:af, dst) -> ToDevice(eth0)
//! ```
//!
//! ## See also
//!
//! EtherEncap, EtherRewrite, GetEtherAddress, SetEtherAddress

use rclick_core::args::{Args, EtherAddr, Word};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

/// The StoreEtherAddress element.
#[derive(Default)]
pub struct StoreEtherAddress {
    addr: [u8; 6],
    offset: usize,
    drops: u64,
}

rclick_core::handlers! {
    /// StoreEtherAddress's handlers (the manual's list).
    enum H {
        Addr = read_write("addr"),
        Drops = read("drops"),
    }
}

impl Element for StoreEtherAddress {
    fn class_name(&self) -> &'static str {
        "StoreEtherAddress"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    /// Output 0 through `simple_action`, output 1 pushed from it.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = EtherAddr::default();
        let mut off = Word(String::new());
        Args::new_with(conf, cx.arg_context())
            .read_mp("ADDR", &mut addr)
            .read_mp("OFFSET", &mut off)
            .complete()
            .map_err(|e| e.to_string())?;
        let offset = super::ether_offset(&off.0)?;
        self.addr = addr.0;
        self.offset = offset;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let at = self.offset;
        match p.data_mut().get_mut(at..at.saturating_add(6)) {
            Some(field) => {
                field.copy_from_slice(&self.addr);
                Some(p)
            }
            None => {
                if cx.noutputs() > 1 {
                    cx.push(1, PacketBatch::from(p));
                } else {
                    self.drops += 1;
                }
                None
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Addr) => super::eth_dash(&self.addr),
            _ => self.drops.to_string(),
        })
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

    const FRAME: &str = "000102030405 0a0b0c0d0e0f 0800 45000020 00010000 401166ca 0a000001";

    /// Checked against Click: `src`, `DST` and numeric offsets.
    #[test]
    fn stores_at_offsets() {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{FRAME}>, LIMIT 1, STOP true)
                 -> StoreEtherAddress(1:1:1:1:1:1, src) -> StoreEtherAddress(2:2:2:2:2:2, DST)
                 -> StoreEtherAddress(3:3:3:3:3:3, 20) -> Print(m, 40) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["m:   30 | 02020202 02020101 01010101 08004500 00200001 03030303 03030a00 0001"]
        );
    }

    /// Checked against Click: the last six bytes fit; one more goes to
    /// output 1, or is dropped and counted.
    #[test]
    fn short_packets() {
        let conf = |off: u32, out1: bool| {
            format!(
                "InfiniteSource(DATA \\<000102030405 0a0b0c0d0e0f 0800>, LIMIT 1, STOP true)
                 -> s :: StoreEtherAddress(1:1:1:1:1:1, {off}) -> Print(m, 40) -> Discard; {}",
                if out1 {
                    "s[1] -> Print(bad) -> Discard;"
                } else {
                    ""
                }
            )
        };
        let r = testing::run(&conf(8, true), &registry()).unwrap();
        assert_eq!(
            r.take_log(),
            vec!["m:   14 | 00010203 04050a0b 01010101 0101"]
        );
        let r = testing::run(&conf(9, true), &registry()).unwrap();
        assert_eq!(
            r.take_log(),
            vec!["bad:   14 | 00010203 04050a0b 0c0d0e0f 0800"]
        );
        let r = testing::run(&conf(9, false), &registry()).unwrap();
        assert!(r.take_log().is_empty());
        assert_eq!(testing::read(&r, "s.drops"), "1");
    }

    /// Checked against Click: the handler's format, the errors' texts.
    #[test]
    fn handlers_and_errors() {
        let r = testing::build(
            "Idle -> s :: StoreEtherAddress(1:1:1:1:1:1, 8) -> Idle;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.addr"), "01-01-01-01-01-01");
        r.write_handler("s.addr", "a:b:c:d:e:f").unwrap();
        assert_eq!(testing::read(&r, "s.addr"), "0A-0B-0C-0D-0E-0F");
        assert!(r.write_handler("s.addr", "x").is_err());
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> StoreEtherAddress({conf}) -> Idle;"),
            &[
                ("1:1:1:1:1:1", "OFFSET: required argument missing"),
                ("1:1:1:1:1:1, x", "type mismatch: bad OFFSET"),
                ("1:1:1:1:1:1, -1", "type mismatch: bad OFFSET"),
                ("x, 3", "ADDR"),
            ],
        );
        assert!(testing::build(
            "Idle -> StoreEtherAddress(OFFSET 3, ADDR 1:1:1:1:1:1) -> Idle;",
            &registry(),
            true
        )
        .is_ok());
    }
}
