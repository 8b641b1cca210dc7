//! # ARPFaker
//!
//! `ARPFaker(DSTIP, DSTETH, SRCIP, SRCETH)`
//!
//! **Category:** ethernet. Periodically sends an unsolicited ARP reply.
//!
//! **Ports:** no inputs, one push output.
//!
//! ## Description
//!
//! Sends, one second after the router starts and every ten seconds after,
//! an Ethernet ARP reply from SRCETH to DSTETH saying that SRCIP is at
//! SRCETH (target DSTIP at DSTETH): a way to keep a neighbour's ARP entry
//! for SRCIP pointing at SRCETH. All four arguments are mandatory, by
//! position or keyword. The frame is 42 bytes.
//!
//! ## Examples
//!
//! ```text
//! ARPFaker(18.26.4.1, 00:e0:98:09:ab:af, 18.26.4.24, 00:a0:c9:9c:fd:9c) -> ToDevice(eth0)
//! ```
//!
//! ## See also
//!
//! ARPResponder, ARPQuerier, CheckARPHeader

use std::net::Ipv4Addr;

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, InitCx, Packet, PacketBatch, TimerId, Timestamp};
use rclick_wire::{ArpOperation, ArpPacket, ArpRepr, EtherType, EthernetAddress, EthernetFrame};

/// The first reply, after start.
const FIRST: Timestamp = Timestamp::from_sec(1);
/// The period after that.
const PERIOD: Timestamp = Timestamp::from_sec(10);

/// The ARPFaker element.
#[derive(Default)]
pub struct ArpFaker {
    frame: Vec<u8>,
}

impl ArpFaker {
    fn build(dst_ip: Ipv4Addr, dst_eth: [u8; 6], src_ip: Ipv4Addr, src_eth: [u8; 6]) -> Vec<u8> {
        let mut f = vec![0u8; 42];
        let (eth, arp) = f.split_at_mut(14);
        let mut e = EthernetFrame::new_unchecked(eth);
        e.set_dst_addr(EthernetAddress(dst_eth));
        e.set_src_addr(EthernetAddress(src_eth));
        e.set_ethertype(EtherType::ARP);
        ArpRepr {
            operation: ArpOperation::REPLY,
            source_hardware_addr: EthernetAddress(src_eth),
            source_protocol_addr: src_ip,
            target_hardware_addr: EthernetAddress(dst_eth),
            target_protocol_addr: dst_ip,
        }
        .emit(&mut ArpPacket::new_unchecked(arp));
        f
    }
}

impl Element for ArpFaker {
    fn class_name(&self) -> &'static str {
        "ARPFaker"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut dst_ip, mut src_ip) = (Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED);
        let (mut dst_eth, mut src_eth) = (EtherAddr::default(), EtherAddr::default());
        Args::new_with(conf, cx.arg_context())
            .read_mp("DSTIP", &mut dst_ip)
            .read_mp("DSTETH", &mut dst_eth)
            .read_mp("SRCIP", &mut src_ip)
            .read_mp("SRCETH", &mut src_eth)
            .complete()
            .map_err(|e| e.to_string())?;
        self.frame = Self::build(dst_ip, dst_eth.0, src_ip, src_eth.0);
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_timer();
        cx.schedule_timer_after(t, FIRST);
        Ok(())
    }
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        let mut p = Packet::from_slice(&self.frame);
        p.set_mac_header_len(0, 14);
        cx.push(0, PacketBatch::from(p));
        cx.schedule_timer_after(timer, PERIOD);
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click: the frame, after 1 s and every 10 s.
    #[test]
    fn replies_periodically() {
        let run = |wait: &str| {
            testing::run(
                &format!(
                    "ARPFaker(1.0.0.1, 1:1:1:1:1:1, 2.0.0.2, 2:2:2:2:2:2) -> c :: Counter
                     -> Print(m, 60) -> Discard; DriverManager(wait {wait}, stop);"
                ),
                &registry(),
            )
            .unwrap()
        };
        let frame = "m:   42 | 01010101 01010202 02020202 08060001 08000604 00020202 02020202 02000002 01010101 01010100 0001";
        assert_eq!(testing::read(&run("0.9s"), "c.count"), "0");
        assert_eq!(run("10.9s").take_log(), vec![frame]);
        assert_eq!(run("11.1s").take_log(), vec![frame, frame]);
    }

    /// Checked against Click: keywords, the missing and bad arguments.
    #[test]
    fn configuration() {
        assert!(testing::build(
            "ARPFaker(DSTIP 1.0.0.1, DSTETH 1:1:1:1:1:1, SRCIP 2.0.0.2, SRCETH 2:2:2:2:2:2) -> Discard;",
            &registry(),
            true
        )
        .is_ok());
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("ARPFaker({conf}) -> Discard;"),
            &[
                (
                    "1.0.0.1, 1:1:1:1:1:1, 2.0.0.2",
                    "SRCETH: required argument missing",
                ),
                ("1.0.0.1, x, 2.0.0.2, 2:2:2:2:2:2", "DSTETH"),
            ],
        );
    }
}
