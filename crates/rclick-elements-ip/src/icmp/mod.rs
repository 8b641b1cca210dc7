//! ICMP elements and the IP elements that produce or consume ICMP-relevant
//! state: ICMPError, ICMPPingResponder, ICMPPingEncap, ICMPIPEncap,
//! IPGWOptions, IPFragmenter, IPReassembler and IPPrint.
//!
//! One element class per file; each file opens with the class's manual.
//! Helpers shared by several classes (ICMP type/code names, IP protocol
//! names, small header utilities) live in this file.

use rclick_core::args::{ArgContext, FromArg};
use rclick_core::Registry;
use rclick_packet::Packet;
use rclick_wire::icmp;
use rclick_wire::Ipv4Packet;

pub mod icmp_error;
pub mod icmp_ip_encap;
pub mod icmp_ping_encap;
pub mod icmp_ping_responder;
pub mod ip_fragmenter;
pub mod ip_gw_options;
pub mod ip_print;
pub mod ip_reassembler;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "ICMPError",
        || Box::<icmp_error::IcmpError>::default(),
        include_str!("icmp_error.rs"),
    );
    r.add(
        "ICMPIPEncap",
        || Box::<icmp_ip_encap::IcmpIpEncap>::default(),
        include_str!("icmp_ip_encap.rs"),
    );
    r.add(
        "ICMPPingEncap",
        || Box::<icmp_ping_encap::IcmpPingEncap>::default(),
        include_str!("icmp_ping_encap.rs"),
    );
    r.add(
        "ICMPPingResponder",
        || Box::<icmp_ping_responder::IcmpPingResponder>::default(),
        include_str!("icmp_ping_responder.rs"),
    );
    r.add(
        "IPFragmenter",
        || Box::<ip_fragmenter::IpFragmenter>::default(),
        include_str!("ip_fragmenter.rs"),
    );
    r.add(
        "IPGWOptions",
        || Box::<ip_gw_options::IpGwOptions>::default(),
        include_str!("ip_gw_options.rs"),
    );
    r.add(
        "IPPrint",
        || Box::<ip_print::IpPrint>::default(),
        include_str!("ip_print.rs"),
    );
    r.add(
        "IPReassembler",
        || Box::<ip_reassembler::IpReassembler>::default(),
        include_str!("ip_reassembler.rs"),
    );
}

/// Parses an ICMP type: a Click name (`unreachable`, `timeexceeded`...) or
/// an integer (Click's `NamedIntArg(NameInfo::T_ICMP_TYPE)`). The value is
/// not range-checked.
pub(crate) fn parse_icmp_type(s: &str, ctx: &dyn ArgContext) -> Result<i64, String> {
    if let Some(t) = icmp::type_from_name(s) {
        return Ok(t as i64);
    }
    i64::from_arg(s, ctx).map_err(|_| "expected ICMP message type".to_string())
}

/// Parses an ICMP code for `icmp_type`: a Click name valid for that type
/// or an integer 0–255.
pub(crate) fn parse_icmp_code(icmp_type: u8, s: &str, ctx: &dyn ArgContext) -> Option<u8> {
    if let Some(c) = icmp::code_from_name(icmp_type, s) {
        return Some(c);
    }
    i64::from_arg(s, ctx)
        .ok()
        .and_then(|v| u8::try_from(v).ok())
}

/// Click's name for IP protocol `p` (its static IP protocol database).
pub(crate) fn ip_proto_name(p: u8) -> Option<&'static str> {
    Some(match p {
        1 => "icmp",
        2 => "igmp",
        4 => "ipip",
        6 => "tcp",
        17 => "udp",
        33 => "dccp",
        47 => "gre",
        132 => "sctp",
        _ => return None,
    })
}

/// The IPv4 header of `p` as `(offset-independent bytes from the network
/// header to the end of the data, header length in bytes)`, when the
/// packet has a network header holding at least a 20-byte header whose
/// declared length fits in the data.
pub(crate) fn ip_header_checked(p: &Packet) -> Option<(&[u8], usize)> {
    let h = p.network_header()?;
    if h.len() < 20 {
        return None;
    }
    let hl = usize::from(Ipv4Packet::new_unchecked(h).header_len());
    if hl < 20 || hl > h.len() {
        return None;
    }
    Some((h, hl))
}

/// Whether the IPv4 header `h` (at least 20 bytes) is a fragment (MF set or
/// nonzero offset): Click's `IP_ISFRAG`.
#[inline]
pub(crate) fn is_fragment(h: &[u8]) -> bool {
    Ipv4Packet::new_unchecked(h).is_fragment()
}

/// Whether the IPv4 header `h` is a first fragment or an unfragmented
/// packet (offset zero): Click's `IP_FIRSTFRAG`.
#[inline]
pub(crate) fn is_first_fragment(h: &[u8]) -> bool {
    Ipv4Packet::new_unchecked(h).frag_offset() == 0
}

/// Handler values shared by several elements: Click's boolean text.
pub(crate) fn bool_text(b: bool) -> String {
    if b { "true" } else { "false" }.to_string()
}

#[cfg(test)]
pub(crate) mod test_util {
    use rclick_core::args::Args;
    use rclick_core::{testing, ConfigureCx, Ctx, Element, HandlerDef, Registry};
    use rclick_packet::{Packet, PacketType};

    /// A registry with the standard elements and this module's.
    pub fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        super::register(&mut r);
        r
    }

    /// Writes `bytes` as InfiniteSource DATA text (`\<hex>`).
    pub fn hex_data(bytes: &[u8]) -> String {
        let mut s = String::from("\\<");
        for b in bytes {
            s.push_str(&format!("{b:02x}"));
        }
        s.push('>');
        s
    }

    /// Fills in the IPv4 header checksum of `pkt` (header at offset 0).
    pub fn fix_ip_checksum(pkt: &mut [u8]) {
        let hl = ((pkt[0] & 0x0f) as usize) * 4;
        pkt[10] = 0;
        pkt[11] = 0;
        let c = rclick_wire::checksum::internet_checksum(&pkt[..hl]);
        pkt[10..12].copy_from_slice(&c.to_be_bytes());
    }

    /// A 20-byte-header IPv4 packet with `payload`.
    pub fn ip_packet(src: [u8; 4], dst: [u8; 4], proto: u8, payload: &[u8]) -> Vec<u8> {
        let len = 20 + payload.len();
        let mut v = vec![
            0x45,
            0,
            (len >> 8) as u8,
            len as u8,
            0,
            1,
            0,
            0,
            64,
            proto,
            0,
            0,
        ];
        v.extend_from_slice(&src);
        v.extend_from_slice(&dst);
        v.extend_from_slice(payload);
        fix_ip_checksum(&mut v);
        v
    }

    /// Marks the IP header at offset 0 (stands in for MarkIPHeader) and
    /// can set the packet type and param-problem annotations.
    #[derive(Default)]
    pub struct Mark {
        ptype: u8,
        pp: u8,
        ts: i64,
    }
    impl Element for Mark {
        fn class_name(&self) -> &'static str {
            "TestMarkIP"
        }
        fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
            Args::new(conf)
                .read("TYPE", &mut self.ptype)
                .read("PP", &mut self.pp)
                .read("TS", &mut self.ts)
                .complete()
                .map_err(|e| e.to_string())
        }
        fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
            let hl = ((p.data().first().copied().unwrap_or(0x45) & 15) as usize) * 4;
            p.set_ip_header(0, hl);
            p.set_packet_type_anno(PacketType::from_u8(self.ptype).unwrap_or_default());
            p.set_icmp_param_prob_anno(self.pp);
            if self.ts != 0 {
                p.set_timestamp_anno(rclick_packet::Timestamp::from_sec(self.ts));
            }
            Some(p)
        }
    }

    /// Collects packets for inspection.
    #[derive(Default)]
    pub struct Sink {
        pub got: Vec<Vec<u8>>,
    }
    impl Element for Sink {
        fn class_name(&self) -> &'static str {
            "TestSink"
        }
        fn port_count(&self) -> &'static str {
            "1/0"
        }
        fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
            self.got.push(p.data().to_vec());
            None
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("data", 0)]
        }
        fn read_handler(&mut self, _: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
            Ok(self
                .got
                .iter()
                .map(|v| v.iter().map(|b| format!("{b:02x}")).collect::<String>())
                .collect::<Vec<_>>()
                .join("\n"))
        }
    }

    pub fn reg() -> rclick_core::Registry {
        let mut r = registry();
        r.add("TestMarkIP", || Box::<Mark>::default(), "");
        r.add("TestSink", || Box::<Sink>::default(), "");
        r
    }

    pub fn run_one(pkt: &[u8], mark: &str, elem: &str) -> Vec<String> {
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP({mark}) -> {elem} -> s :: TestSink;",
            hex_data(pkt)
        );
        let r = testing::run(&conf, &reg()).unwrap();
        let out = testing::read(&r, "s.data");
        out.lines().map(|s| s.to_string()).collect()
    }

    pub fn unhex(s: &str) -> Vec<u8> {
        (0..s.len() / 2)
            .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }
}

#[cfg(test)]
mod robustness {
    use super::test_util::*;
    use rclick_core::testing;

    /// Garbage and truncated packets of every length through every
    /// element: nothing may panic.
    #[test]
    fn garbage_never_panics() {
        let elems = [
            "ICMPError(1.0.0.1, parameterproblem)",
            "ICMPError(1.0.0.1, unreachable, needfrag, PMTU 100, MTU 10)",
            "ICMPPingResponder",
            "ICMPPingEncap(1.0.0.1, 2.0.0.2)",
            "ICMPIPEncap(1.0.0.1, 2.0.0.2, timestamp)",
            "IPGWOptions(1.0.0.1)",
            "IPFragmenter(8, false)",
            "IPFragmenter(28)",
            "IPReassembler(HIMEM 100)",
            "IPPrint(CONTENTS ascii)",
            "IPPrint(PAYLOAD hex, ID true, TTL true, TOS true, LENGTH true)",
        ];
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        let base = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 6, &[0xff; 40]);
        for n in 0..base.len() {
            seeds.push(base[..n].to_vec());
        }
        for (i, proto) in [1u8, 6, 17, 47].into_iter().enumerate() {
            for ihl in [0x40u8, 0x44, 0x45, 0x46, 0x4f] {
                let mut v = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], proto, &[i as u8 * 37; 30]);
                v[0] = ihl;
                v[6] = 0x20 | i as u8;
                v[20] = [7, 68, 137, 131][i];
                v[21] = [0, 1, 3, 40][i];
                v[22] = [0, 1, 4, 255][i];
                seeds.push(v.clone());
                v[2] = 0xff;
                seeds.push(v);
            }
        }
        for e in elems {
            let mut conf = format!("r :: {e} -> Discard;\n");
            if e.starts_with("ICMPPing")
                || e.starts_with("IPGW")
                || e.starts_with("IPReass")
                || e.starts_with("IPFrag")
            {
                conf = format!("r :: {e} -> Discard; r[1] -> Discard;\n");
                if e.starts_with("ICMPPingEncap") {
                    conf = format!("r :: {e} -> Discard;\n");
                }
            }
            for s in &seeds {
                conf.push_str(&format!(
                    "InfiniteSource(DATA {}, LIMIT 2, STOP true) -> TestMarkIP -> r;\n",
                    hex_data(s)
                ));
            }
            testing::run(&conf, &reg()).unwrap_or_else(|err| panic!("{e}: {err}"));
        }
    }
}
