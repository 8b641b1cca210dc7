//! # FastTCPFlows
//!
//! `FastTCPFlows(RATE, LIMIT, LENGTH, SRCETH, SRCIP, DSTETH, DSTIP, FLOWS,
//! FLOWSIZE [, ACTIVE])`
//!
//! **Category:** tcp. A benchmark source of many short TCP flows.
//!
//! **Ports:** no inputs, one output, pull.
//!
//! ## Description
//!
//! At initialization, builds FLOWS flows of Ethernet/IP/TCP packets of
//! LENGTH bytes (at least 60; smaller is raised to 60 with a warning) from
//! SRCETH and SRCIP to DSTETH and DSTIP, each flow with random ports and
//! three packets: a SYN, a data packet (PSH and ACK) and a FIN, each with
//! random sequence and acknowledgment numbers, window 65535 and a correct
//! checksum; the payload is zero. Each pull picks a flow at random: its
//! first packet is the SYN, its FLOWSIZE-th the FIN, the others the data
//! packet; a flow that sent its FIN starts again with new random ports.
//! FLOWSIZE below 3 is raised to 3 with a warning. Random numbers come
//! from the shared generator, so RandomSeed makes Click's choices.
//!
//! At most RATE packets a second are returned (0: as fast as pulled), and
//! LIMIT packets in all (negative: no limit); once the limit is reached,
//! every flow that has not sent its FIN sends it, and then the source is
//! done. Packets are clones: do not modify them, or they are copied. The
//! source gives nothing while ACTIVE (default true) is false. FLOWS must
//! be at least 1.
//!
//! ## Annotations
//!
//! Packets carry the IP header (14 bytes in) and destination IP address
//! annotations.
//!
//! ## Handlers
//!
//! * `count` (read): packets returned (the closing FINs included).
//! * `rate` (read/write): reads the average rate once LIMIT packets were
//!   returned, else 0; a write sets RATE.
//! * `reset` (write): counts from zero again.
//! * `active` (write): sets ACTIVE; true also resets.
//! * `limit` (write): sets LIMIT.
//!
//! ## Differences from Click
//!
//! Click leaves the payload uninitialised and divides by zero when FLOWS
//! is 0. The warnings are printed with the element's name.
//!
//! ## See also
//!
//! FastUDPFlows

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch};
use rclick_wire::tcp::flags;
use rclick_wire::{IpProtocol, TcpPacket};

use super::{random_flow, random_port, random_u32_as_stored, FlowSource};

/// One flow's packets and how far it is.
struct Flow {
    /// SYN, data, FIN.
    packets: [Packet; 3],
    sent: u32,
}

/// The FastTCPFlows element.
#[derive(Default)]
pub struct FastTCPFlows {
    src: FlowSource,
    flows: Vec<Flow>,
    sent_all_fins: bool,
}

/// Flags of the SYN, data and FIN packets.
const FLAGS: [u8; 3] = [flags::SYN, flags::PSH | flags::ACK, flags::FIN];

impl FastTCPFlows {
    /// Writes the ports (and, for a new packet, the rest of the TCP
    /// header) into `p`, and its checksum.
    fn fill(&self, p: &mut Packet, ports: (u16, u16), init: Option<u8>) {
        let (src, dst) = (self.src.src_ip, self.src.dst_ip);
        let Some(t) = p.data_mut().get_mut(34..) else {
            return;
        };
        if t.len() < 20 {
            return;
        }
        let mut tcp = TcpPacket::new_unchecked(t);
        tcp.set_src_port(ports.0);
        tcp.set_dst_port(ports.1);
        if let Some(fl) = init {
            tcp.set_seq_number(random_u32_as_stored());
            tcp.set_ack_number(random_u32_as_stored());
            tcp.set_header_len(20);
            tcp.set_flags(fl);
            tcp.set_window_len(65535);
            tcp.set_urgent_at(0);
        }
        tcp.fill_checksum(src, dst);
    }

    fn new_flow(&self) -> Flow {
        let ports = (random_port(), random_port());
        let packets = FLAGS.map(|fl| {
            let mut p = self.src.template(IpProtocol::TCP);
            self.fill(&mut p, ports, Some(fl));
            p
        });
        Flow { packets, sent: 0 }
    }

    fn next_packet(&mut self) -> Option<Packet> {
        let size = self.src.flow_size;
        if self.src.exhausted() {
            let f = self.flows.iter_mut().find(|f| f.sent != size);
            return match f {
                Some(f) => {
                    f.sent = size;
                    Some(f.packets[2].clone())
                }
                None => {
                    self.sent_all_fins = true;
                    None
                }
            };
        }
        let i = random_flow(self.flows.len());
        if self.flows[i].sent == size {
            let ports = (random_port(), random_port());
            let mut packets = std::mem::replace(
                &mut self.flows[i].packets,
                [
                    Packet::with_len(0),
                    Packet::with_len(0),
                    Packet::with_len(0),
                ],
            );
            for p in &mut packets {
                self.fill(p, ports, None);
            }
            self.flows[i] = Flow { packets, sent: 0 };
        }
        let f = &mut self.flows[i];
        f.sent += 1;
        let which = if f.sent == 1 {
            0
        } else if f.sent == size {
            2
        } else {
            1
        };
        Some(f.packets[which].clone())
    }
}

impl Element for FastTCPFlows {
    fn class_name(&self) -> &'static str {
        "FastTCPFlows"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut src = FlowSource::configure(conf, cx, None)?;
        if src.flow_size < 3 {
            cx.message("warning: flow size < 3, defaulting to 3");
            src.flow_size = 3;
        }
        self.src = src;
        Ok(())
    }
    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        self.flows = (0..self.src.flows).map(|_| self.new_flow()).collect();
        self.sent_all_fins = false;
        Ok(())
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = PacketBatch::new();
        let now = cx.now();
        while batch.len() < max && self.src.active && !(self.src.exhausted() && self.sent_all_fins)
        {
            if !self.src.admit(now) {
                break;
            }
            let Some(p) = self.next_packet() else { break };
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
        if self.src.write(id, value, cx)? {
            self.sent_all_fins = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// SYN, data..., FIN per flow; after LIMIT, the open flows' FINs.
    /// Every packet's TCP checksum is right.
    #[test]
    fn flows_and_closing_fins() {
        // RandomSeed seeds the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let r = testing::run(
            "RandomSeed(7); f :: FastTCPFlows(0, 5, 60, 0:0:0:0:0:1, 1.0.0.1, 0:0:0:0:0:2, 2.0.0.2, 1, 4)
             -> Unqueue(LIMIT 6) -> CheckIPHeader(14) -> Strip(14) -> c :: CheckTCPHeader
             -> IPPrint(t, TIMESTAMP false) -> Discard;
             DriverManager(wait 10ms, stop);",
            &registry(),
        )
        .unwrap();
        let log = r.take_log();
        let flags: Vec<&str> = log
            .iter()
            .map(|l| l.split_whitespace().nth(4).unwrap_or(""))
            .collect();
        assert_eq!(flags, vec!["S", "P", "P", "F", "S", "F"], "{log:?}");
        assert_eq!(testing::read(&r, "c.drops"), "0");
        assert_eq!(testing::read(&r, "f.count"), "6");
    }
}
