//! # FastUDPFlows
//!
//! `FastUDPFlows(RATE, LIMIT, LENGTH, SRCETH, SRCIP, DSTETH, DSTIP, FLOWS,
//! FLOWSIZE [, CHECKSUM, ACTIVE])`
//!
//! **Category:** udp. A benchmark source of many UDP flows.
//!
//! **Ports:** no inputs, one output, pull.
//!
//! ## Description
//!
//! At initialization, builds FLOWS Ethernet/IP/UDP packets of LENGTH bytes
//! (at least 60; a smaller LENGTH is raised to 60 with a warning) from
//! SRCETH and SRCIP to DSTETH and DSTIP, each with random source and
//! destination ports; the payload is zero. Each pull picks a flow at
//! random and returns a clone of its packet (do not modify it, or it is
//! copied); after FLOWSIZE packets of a flow, that flow gets new random
//! ports. Random numbers come from the shared generator, so RandomSeed
//! makes Click's choices.
//!
//! At most RATE packets a second are returned (0: as fast as pulled), and
//! LIMIT packets in all (negative: no limit). The UDP checksum is filled
//! in when CHECKSUM is true (the default), else left zero. The source
//! gives nothing while ACTIVE (default true) is false. FLOWS must be at
//! least 1.
//!
//! ## Annotations
//!
//! Packets carry the IP header (14 bytes in) and destination IP address
//! annotations.
//!
//! ## Handlers
//!
//! * `count` (read): packets returned.
//! * `rate` (read/write): reads the average rate (packets a second between
//!   the first and the last packet) once LIMIT packets were returned, else
//!   0; a write sets RATE.
//! * `reset` (write): counts from zero again.
//! * `active` (write): sets ACTIVE; true also resets.
//! * `limit` (write): sets LIMIT.
//!
//! ## Differences from Click
//!
//! Click leaves the payload uninitialised (whatever its buffer held), and
//! divides by zero when FLOWS is 0. The length warning is printed with the
//! element's name.
//!
//! ## Examples
//!
//! ```text
//! FastUDPFlows(100000, 500000, 60, 0:0:0:0:0:0, 1.0.0.1,
//!              1:1:1:1:1:1, 2.0.0.2, 100, 10) -> ToDevice(eth0)
//! ```
//!
//! ## See also
//!
//! FastTCPFlows, RatedSource, InfiniteSource

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch};
use rclick_wire::{IpProtocol, UdpPacket};

use super::{random_flow, random_port, FlowSource};

/// One flow: its packet and how many were sent with its ports.
struct Flow {
    packet: Packet,
    sent: u32,
}

/// The FastUDPFlows element.
#[derive(Default)]
pub struct FastUDPFlows {
    src: FlowSource,
    checksum: bool,
    flows: Vec<Flow>,
}

impl FastUDPFlows {
    /// Gives `p`'s UDP header new random ports (and checksum).
    fn set_ports(&self, p: &mut Packet) {
        let (sport, dport) = (random_port(), random_port());
        let (src, dst) = (self.src.src_ip, self.src.dst_ip);
        if let Some(u) = p.data_mut().get_mut(34..) {
            if u.len() >= 8 {
                let len = u.len() as u16;
                let mut udp = UdpPacket::new_unchecked(u);
                udp.set_src_port(sport);
                udp.set_dst_port(dport);
                udp.set_len(len);
                if self.checksum {
                    udp.fill_checksum(src, dst);
                } else {
                    udp.set_checksum(0);
                }
            }
        }
    }

    fn next_packet(&mut self) -> Packet {
        let i = random_flow(self.flows.len());
        if self.flows[i].sent == self.src.flow_size {
            let mut p = std::mem::replace(&mut self.flows[i].packet, Packet::with_len(0));
            self.set_ports(&mut p);
            self.flows[i] = Flow { packet: p, sent: 0 };
        }
        let f = &mut self.flows[i];
        f.sent = f.sent.wrapping_add(1);
        f.packet.clone()
    }
}

impl Element for FastUDPFlows {
    fn class_name(&self) -> &'static str {
        "FastUDPFlows"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut checksum = true;
        let src = FlowSource::configure(conf, cx, Some(&mut checksum))?;
        self.src = src;
        self.checksum = checksum;
        Ok(())
    }
    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        self.flows = (0..self.src.flows)
            .map(|_| {
                let mut p = self.src.template(IpProtocol::UDP);
                self.set_ports(&mut p);
                Flow { packet: p, sent: 0 }
            })
            .collect();
        Ok(())
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = PacketBatch::new();
        let now = cx.now();
        while batch.len() < max && self.src.active && !self.src.exhausted() {
            if !self.src.admit(now) {
                break;
            }
            let p = self.next_packet();
            self.src.sent(now);
            batch.push(p);
        }
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        FlowSource::handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.src.read(id))
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.src.write(id, value, cx).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click with RandomSeed(1): the same ports, headers
    /// and checksum (the payload, uninitialised there, is zero here).
    #[test]
    fn packets_like_click() {
        // RandomSeed seeds the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let r = testing::run(
            "RandomSeed(1); f :: FastUDPFlows(0, 2, 10, 0:0:0:0:0:1, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2, 1, 2)
             -> Unqueue(LIMIT 2) -> Print(m, 60) -> c :: CheckIPHeader(14) -> CheckUDPHeader -> Discard;
             DriverManager(wait 10ms, stop);",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        let want = "m:   60 | 00000000 00020000 00000001 08004500 002e0000 0000fa11 bdbc0100 00010200 00023bec 8fd5001a";
        assert_eq!(log.len(), 4, "{log:?}");
        assert!(
            log[1].contains("packet length < 60, defaulting to 60"),
            "{log:?}"
        );
        assert!(log[2].starts_with(want), "{log:?}");
        assert_eq!(log[2], log[3]);
        assert_eq!(testing::read(&r, "f.count"), "2");
        assert_eq!(testing::read(&r, "c.drops"), "0");
    }

    /// Ports change after FLOWSIZE packets; CHECKSUM false leaves zero.
    #[test]
    fn flow_size_and_checksum() {
        // RandomSeed seeds the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let r = testing::run(
            "RandomSeed(1); f :: FastUDPFlows(0, 4, 60, 0:0:0:0:0:1, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2, 1, 2, false)
             -> Unqueue(LIMIT 4) -> Print(m, 44) -> Discard;
             DriverManager(wait 10ms, stop);",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert_eq!(log.len(), 4, "{log:?}");
        assert_eq!(log[0], log[1]);
        assert_eq!(log[2], log[3]);
        assert_ne!(log[1], log[2]);
        assert!(log[0].ends_with("001a 00000000"), "{log:?}");
    }

    /// The handlers: limit, active, reset, rate.
    #[test]
    fn handlers() {
        let r = testing::run(
            "f :: FastUDPFlows(0, 3, 60, 0:0:0:0:0:1, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2, 2, 5)
             -> Unqueue(LIMIT 3) -> c :: Counter -> Discard;
             DriverManager(wait 10ms, stop);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "f.count"), "3");
        assert_ne!(testing::read(&r, "f.rate"), "");
        r.write_handler("f.reset", "").unwrap();
        assert_eq!(testing::read(&r, "f.count"), "0");
        assert_eq!(testing::read(&r, "f.rate"), "0");
        assert!(r.write_handler("f.rate", "x").is_err());
        assert!(r.write_handler("f.rate", "5000000000").is_err());
        assert!(r.write_handler("f.active", "maybe").is_err());
        assert!(r.write_handler("f.limit", "x").is_err());
        r.write_handler("f.rate", "1000").unwrap();
        r.write_handler("f.limit", "-1").unwrap();
        r.write_handler("f.active", "false").unwrap();
    }

    #[test]
    fn configuration_errors() {
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("FastUDPFlows({conf}) -> Unqueue -> Discard;"),
            &[
                (
                    "0, 1, 60, 0:0:0:0:0:1, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2, 0, 1",
                    "FLOWS",
                ),
                (
                    "0, 1, 60, 0:0:0:0:0:1, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2",
                    "FLOWS",
                ),
                ("0, 1, 60, x, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2, 1, 1", "SRCETH"),
            ],
        );
    }
}
