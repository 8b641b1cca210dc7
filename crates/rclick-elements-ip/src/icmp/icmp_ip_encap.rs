//! # ICMPIPEncap
//!
//! `ICMPIPEncap(SRC, DST, TYPE [, CODE, IDENTIFIER id])`
//!
//! **Category:** icmp. Encapsulates packets in ICMP/IP headers.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends to each packet a 20-byte IP header (source SRC, destination
//! DST, TTL 255, protocol ICMP) and an ICMP header of type TYPE and code
//! CODE: 20 bytes for timestamp and timestamp-reply, 8 bytes otherwise,
//! zero apart from type, code and checksum. TYPE and CODE are integers
//! 0–255 or Click's names (`echo`, `unreachable`...; `port`, `net`...);
//! CODE defaults to 0.
//!
//! For types whose header has identifier and sequence fields (echo,
//! echo-reply, timestamp, timestamp-reply, inforeq, inforeq-reply), the
//! identifier is IDENTIFIER and the sequence number starts at 1 and
//! advances by one for each packet, skipping 0. The IP ID field carries
//! the same counter. Both are written in network byte order.
//!
//! Keywords:
//!
//! * `SRC`, `DST` (IP addresses, mandatory).
//! * `TYPE` (ICMP type, mandatory).
//! * `CODE` (ICMP code): default 0.
//! * `IDENTIFIER` (16-bit integer): default 0.
//!
//! ## Annotations
//!
//! Sets the destination IP annotation to DST and the IP header annotation.
//!
//! ## Handlers
//!
//! * `src` (read/write): SRC.
//! * `dst` (read/write): DST.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource(LIMIT 3) -> ICMPIPEncap(1.0.0.1, 1.0.0.2, unreachable, port) -> ...
//! ```
//!
//! ## See also
//!
//! ICMPPingEncap, ICMPError

use std::net::Ipv4Addr;

use rclick_core::args::{Args, FromArg, NoContext, Word};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef};
use rclick_packet::Packet;
use rclick_wire::icmp::types;
use rclick_wire::{IcmpPacket, IpProtocol, Ipv4Packet};

use super::{parse_icmp_code, parse_icmp_type};

/// Length of the ICMP header for `icmp_type` (Click's `click_icmp_hl`).
pub(crate) fn icmp_header_len(icmp_type: u8) -> usize {
    if icmp_type == types::TIMESTAMP || icmp_type == types::TIMESTAMP_REPLY {
        20
    } else {
        8
    }
}

/// Prepends IP and ICMP headers to `p`; `None` (packet dropped) if the
/// result would not fit in an IP datagram.
pub(crate) fn encap(
    mut p: Packet,
    src: Ipv4Addr,
    dst: Ipv4Addr,
    icmp_type: u8,
    code: u8,
    ident: u16,
    seq: u16,
) -> Option<Packet> {
    let ihl = icmp_header_len(icmp_type);
    let total = p.len() + 20 + ihl;
    if total > 0xffff || p.push(20 + ihl).is_err() {
        return None;
    }
    {
        let d = p.data_mut();
        let (iph, rest) = d.split_at_mut(20);
        rest[..ihl].fill(0);
        let mut icmp = IcmpPacket::new_unchecked(rest);
        icmp.set_icmp_type(icmp_type);
        icmp.set_code(code);
        if matches!(
            icmp_type,
            types::TIMESTAMP
                | types::TIMESTAMP_REPLY
                | types::ECHO
                | types::ECHO_REPLY
                | types::INFO_REQUEST
                | types::INFO_REPLY
        ) {
            icmp.set_echo_ident(ident);
            icmp.set_echo_seq_no(seq);
        }
        icmp.fill_checksum();
        let mut ip = Ipv4Packet::new_unchecked(&mut iph[..]);
        ip.set_version(4);
        ip.set_header_len(20);
        ip.set_tos(0);
        ip.set_total_len(total as u16);
        ip.set_ident(seq);
        ip.set_flags_frag_offset(0);
        ip.set_ttl(255);
        ip.set_protocol(IpProtocol::ICMP);
        ip.set_src_addr(src);
        ip.set_dst_addr(dst);
        ip.fill_checksum();
    }
    p.set_dst_ip_anno(dst);
    p.set_ip_header(0, 20);
    Some(p)
}

rclick_core::handlers! {
    /// The handlers of ICMPIPEncap and ICMPPingEncap (their manuals'
    /// lists).
    pub(crate) enum AddrH {
        Src = read_write("src"),
        Dst = read_write("dst"),
    }
}

/// What ICMPIPEncap and ICMPPingEncap share (Click's ICMPPingEncap is the
/// ICMPIPEncap of echo requests): the addresses, the identifier, the
/// sequence number and its stepping, and the `src` and `dst` handlers.
pub(crate) struct IcmpEncapState {
    pub(crate) src: Ipv4Addr,
    pub(crate) dst: Ipv4Addr,
    pub(crate) ident: u16,
    seq: u16,
}

impl Default for IcmpEncapState {
    fn default() -> Self {
        IcmpEncapState {
            src: Ipv4Addr::UNSPECIFIED,
            dst: Ipv4Addr::UNSPECIFIED,
            ident: 0,
            seq: 1,
        }
    }
}

impl IcmpEncapState {
    /// [`encap`]s `p` as an ICMP `icmp_type`/`code` message with this
    /// state's addresses, identifier and sequence number, then steps the
    /// sequence number (skipping 0). `None` (dropped, the number kept) if
    /// the result would not fit in an IP datagram.
    pub(crate) fn encap_next(&mut self, p: Packet, icmp_type: u8, code: u8) -> Option<Packet> {
        let q = encap(p, self.src, self.dst, icmp_type, code, self.ident, self.seq)?;
        self.seq = self
            .seq
            .wrapping_add(if self.seq == 0xffff { 2 } else { 1 });
        Some(q)
    }

    /// Reads handler `id` of [`AddrH`].
    pub(crate) fn read_handler(&self, id: u32) -> Result<String, String> {
        match AddrH::from_id(id) {
            Some(AddrH::Src) => Ok(self.src.to_string()),
            Some(AddrH::Dst) => Ok(self.dst.to_string()),
            None => Err("no such handler".into()),
        }
    }

    /// Writes handler `id` of [`AddrH`]: an IP address.
    pub(crate) fn write_handler(&mut self, id: u32, value: &str) -> Result<(), String> {
        let a = Ipv4Addr::from_arg(value.trim(), &NoContext)
            .map_err(|_| "expected IP address".to_string())?;
        match AddrH::from_id(id) {
            Some(AddrH::Src) => self.src = a,
            Some(AddrH::Dst) => self.dst = a,
            None => return Err("no such handler".into()),
        }
        Ok(())
    }
}

/// The ICMPIPEncap element.
#[derive(Default)]
pub struct IcmpIpEncap {
    state: IcmpEncapState,
    icmp_type: u8,
    code: u8,
}

impl Element for IcmpIpEncap {
    fn class_name(&self) -> &'static str {
        "ICMPIPEncap"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let (mut src, mut dst) = (Ipv4Addr::UNSPECIFIED, Ipv4Addr::UNSPECIFIED);
        let mut ty: i64 = -1;
        let mut code = Word("0".into());
        let mut ident = 0u16;
        Args::new_with(conf, ctx)
            .read_mp("SRC", &mut src)
            .read_mp("DST", &mut dst)
            .read_mp_with("TYPE", &mut ty, |s| parse_icmp_type(s, ctx))
            .read_p("CODE", &mut code)
            .read("IDENTIFIER", &mut ident)
            .complete()
            .map_err(|e| e.to_string())?;
        if !(0..=255).contains(&ty) {
            return Err("invalid TYPE".into());
        }
        let ty = ty as u8;
        let code = parse_icmp_code(ty, &code.0, ctx).ok_or("invalid CODE")?;
        self.state.src = src;
        self.state.dst = dst;
        self.state.ident = ident;
        self.icmp_type = ty;
        self.code = code;
        Ok(())
    }

    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.state.encap_next(p, self.icmp_type, self.code)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        AddrH::all_defs()
    }

    fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        self.state.read_handler(id)
    }

    fn write_handler(&mut self, id: u32, value: &str, _: &mut Ctx) -> Result<(), String> {
        self.state.write_handler(id, value)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::{AddrH, IcmpEncapState};
    use rclick_packet::Packet;
    use rclick_wire::{IcmpPacket, Ipv4Packet};

    /// The sequence number steps from 1, skips 0 after 65535, and stays
    /// for a packet too long; the handlers read and write the addresses.
    #[test]
    fn state_steps_sequence_and_handles_addresses() {
        let mut st = IcmpEncapState::default();
        st.write_handler(AddrH::Dst.id(), " 2.0.0.2 ").unwrap();
        assert!(st.write_handler(AddrH::Src.id(), "bogus").is_err());
        assert_eq!(st.read_handler(AddrH::Dst.id()).unwrap(), "2.0.0.2");
        assert_eq!(st.read_handler(AddrH::Src.id()).unwrap(), "0.0.0.0");
        let seq_of = |q: &Packet| IcmpPacket::new_unchecked(&q.data()[20..]).echo_seq_no();
        let q = st.encap_next(Packet::from_slice(&[1]), 8, 0).unwrap();
        assert_eq!(seq_of(&q), 1);
        assert!(st
            .encap_next(Packet::from_slice(&vec![0; 0xffff]), 8, 0)
            .is_none());
        st.seq = 0xffff;
        let q = st.encap_next(Packet::from_slice(&[1]), 8, 0).unwrap();
        assert_eq!(seq_of(&q), 0xffff);
        let q = st.encap_next(Packet::from_slice(&[1]), 8, 0).unwrap();
        assert_eq!(seq_of(&q), 1);
        assert_eq!(
            Ipv4Packet::new_unchecked(q.data()).dst_addr().octets(),
            [2, 0, 0, 2]
        );
    }

    fn one(elem: &str) -> Vec<u8> {
        let conf = format!(
            "InfiniteSource(DATA \\<aabb>, LIMIT 1, STOP true) -> {elem} -> s :: TestSink;"
        );
        let r = rclick_core::testing::run(&conf, &reg()).unwrap();
        unhex(&rclick_core::testing::read(&r, "s.data"))
    }

    #[test]
    fn types_and_codes() {
        for (elem, ty, code, hl) in [
            ("ICMPIPEncap(1.0.0.1, 1.0.0.1, TYPE 8, CODE 0)", 8, 0, 8),
            ("ICMPIPEncap(1.0.0.2, 1.0.0.2, TYPE 3, CODE 1)", 3, 1, 8),
            ("ICMPIPEncap(1.0.0.3, 1.0.0.3, TYPE 5, CODE 3)", 5, 3, 8),
            ("ICMPIPEncap(1.0.0.3, 1.0.0.3, unreachable, port)", 3, 3, 8),
            ("ICMPIPEncap(1.0.0.3, 1.0.0.3, timestamp)", 13, 0, 20),
        ] {
            let q = one(elem);
            let ip = Ipv4Packet::new_checked(&q[..]).unwrap();
            assert!(ip.verify_checksum());
            assert_eq!(ip.protocol().0, 1);
            let ic = IcmpPacket::new_checked(ip.payload()).unwrap();
            assert!(ic.verify_checksum());
            assert_eq!((ic.icmp_type(), ic.code()), (ty, code), "{elem}");
            assert_eq!(q.len(), 20 + hl + 2);
        }
    }

    #[test]
    fn bad_config() {
        let r = reg();
        for (c, msg) in [
            ("ICMPIPEncap(1.0.0.1, 1.0.0.2, 256)", "invalid TYPE"),
            (
                "ICMPIPEncap(1.0.0.1, 1.0.0.2, unreachable, xyz)",
                "invalid CODE",
            ),
            ("ICMPIPEncap(1.0.0.1, 1.0.0.2)", "TYPE"),
        ] {
            let e = rclick_core::testing::build(&format!("Idle -> {c} -> Discard;"), &r, true)
                .err()
                .unwrap();
            assert!(e.contains(msg), "{c}: {e}");
        }
    }
}
