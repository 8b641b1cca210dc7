//! # ICMPError
//!
//! `ICMPError(SRC, TYPE [, CODE, BADADDRS, KEYWORDS])`
//!
//! **Category:** icmp. Generates ICMP error packets.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Answers each incoming IP packet with an ICMP error message of type TYPE
//! and code CODE, sent from address SRC back to the packet's source. The
//! error carries, as its payload, the offending packet's IP header and as
//! much of the rest as fits in MTU bytes. The input packet itself is
//! consumed; the output is the new IP/ICMP packet, with its destination
//! address annotation set to the destination, its timestamp set to now and
//! (unless SET_FIX_ANNO is false) its fix-IP-source annotation set, so a
//! later FixIPSrc can rewrite the source to the outgoing interface.
//!
//! TYPE and CODE are integers 0–255 or names: TYPE must be an error type,
//! `unreachable` (3), `sourcequench` (4), `redirect` (5), `timeexceeded`
//! (11) or `parameterproblem` (12). CODE names depend on the type:
//! `net`, `host`, `protocol`, `port`, `needfrag`, `srcroutefail`, ... for
//! unreachable; `net`, `host`, `tosnet`, `toshost` for redirect; `transit`
//! and `reassembly` for timeexceeded; `erroratptr`, `missingopt` and
//! `length` for parameterproblem. CODE defaults to 0.
//!
//! Following RFC 1812 section 4.3.2.7, ICMPError never answers: an ICMP
//! error message; a packet sent to a broadcast or multicast IP address or
//! to one of BADADDRS; a link-level broadcast or multicast (packet type
//! annotation); a packet whose source is not a valid unicast host
//! (network 0, 127, class D or E, or one of BADADDRS); a fragment other
//! than the first; a packet without an IP header. Those packets are
//! dropped silently.
//!
//! If the packet carries a loose or strict source route option, the error
//! carries a source route option of the same kind listing the hops
//! already visited in reverse order (RFC 1812 section 4.3.2.6), except for
//! a parameter problem that points into the source route itself. No
//! redirect is sent for a source-routed packet.
//!
//! For `parameterproblem` with code `erroratptr`, the pointer comes from
//! the packet's ICMP parameter-problem annotation, which IPGWOptions sets.
//! For `redirect`, the gateway address comes from the destination address
//! annotation. For `unreachable` `needfrag`, the next-hop MTU field is
//! PMTU.
//!
//! Keywords:
//!
//! * `SRC` (IP address, mandatory): the error's source address.
//! * `TYPE` (ICMP type, mandatory).
//! * `CODE` (ICMP code): default 0.
//! * `BADADDRS` (space-separated IP addresses): addresses never answered,
//!   as source or destination (for example directed broadcast addresses).
//! * `MTU` (unsigned): the largest error packet generated. Default 576.
//! * `PMTU` (unsigned): next-hop MTU reported in `needfrag` errors.
//!   Default 0.
//! * `SET_FIX_ANNO` (boolean): set the fix-IP-source annotation. Default
//!   true.
//!
//! ## Annotations
//!
//! Uses the ICMP parameter-problem annotation, the destination IP
//! annotation (redirects) and the packet type annotation. Sets the
//! destination IP, fix-IP-source and timestamp annotations of the error.
//!
//! ## Handlers
//!
//! * `src` (read/write): SRC.
//! * `mtu` (read/write): MTU.
//! * `pmtu` (read/write): PMTU.
//! * `drops` (read): packets that got no error (an ICMP error, a
//!   broadcast, a fragment after the first, a bad source...); Click drops
//!   them uncounted.
//!
//! ## Examples
//!
//! ```text
//! dt :: DecIPTTL;
//! dt[1] -> ICMPError(18.26.4.24, timeexceeded) -> m :: RatedSplitter(10) -> ...;
//! m[1] -> Discard;
//! ```
//!
//! ## See also
//!
//! DecIPTTL, FixIPSrc, IPGWOptions, IPFragmenter

use std::net::Ipv4Addr;

use rclick_core::args::{Args, FromArg, SpaceSep, Word};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef};
use rclick_packet::{Packet, PacketType, DEFAULT_HEADROOM};
use rclick_wire::icmp::{self, types};
use rclick_wire::ipv4::{self, option_kind};
use rclick_wire::{IcmpPacket, IpProtocol, Ipv4Packet};

use super::{ip_header_checked, is_first_fragment, parse_icmp_code, parse_icmp_type};

/// The ICMPError element.
pub struct IcmpError {
    src: Ipv4Addr,
    icmp_type: u8,
    code: u8,
    bad_addrs: Vec<Ipv4Addr>,
    mtu: u32,
    pmtu: u32,
    set_fix_anno: bool,
    next_id: u16,
    drops: u64,
}

impl Default for IcmpError {
    fn default() -> Self {
        IcmpError {
            src: Ipv4Addr::UNSPECIFIED,
            icmp_type: types::UNREACH,
            code: 0,
            bad_addrs: Vec::new(),
            mtu: 576,
            pmtu: 0,
            set_fix_anno: true,
            next_id: 1,
            drops: 0,
        }
    }
}

rclick_core::handlers! {
    /// ICMPError's handlers (the manual's list).
    enum H {
        Src = read_write("src"),
        Mtu = read_write("mtu"),
        Pmtu = read_write("pmtu"),
        Drops = read("drops"),
    }
}

impl IcmpError {
    fn unicast(&self, a: Ipv4Addr) -> bool {
        let ha = u32::from(a);
        !(ha == 0xffff_ffff || (ha & 0xf000_0000) == 0xe000_0000 || self.bad_addrs.contains(&a))
    }

    fn valid_source(&self, a: Ipv4Addr) -> bool {
        let net = a.octets()[0];
        self.unicast(a) && net != 0 && net != 127 && (net & 0xf0) != 0xf0
    }

    /// Offset (from the IP header) and length of a usable source route
    /// option in header `h` of length `hl`.
    fn source_route(h: &[u8], hl: usize) -> Option<(usize, usize)> {
        let mut oi = 20;
        while oi < hl {
            let kind = h[oi];
            if kind == option_kind::NOP {
                oi += 1;
                continue;
            } else if kind == option_kind::EOL || oi + 1 >= hl {
                return None;
            }
            let xlen = h[oi + 1] as usize;
            if xlen < 2 || oi + xlen > hl {
                return None;
            }
            if (kind == option_kind::LSRR || kind == option_kind::SSRR) && xlen >= 3 {
                let ptr = h[oi + 2] as usize;
                if ptr >= 4 && ptr & 3 == 0 && ptr <= xlen + 1 {
                    return Some((oi, xlen));
                }
            }
            oi += xlen;
        }
        None
    }

    /// Builds the error for `p`, or `None` when RFC 1812 says not to.
    fn make_error(&mut self, p: &Packet, cx: &Ctx) -> Option<Packet> {
        let (h, hl) = ip_header_checked(p)?;
        let ip = Ipv4Packet::new_unchecked(h);
        let (src, dst) = (ip.src_addr(), ip.dst_addr());

        // Never answer ICMP errors.
        if ip.protocol() == IpProtocol::ICMP
            && (hl + 4 > h.len() || icmp::is_error(IcmpPacket::new_unchecked(&h[hl..]).icmp_type()))
        {
            return None;
        }
        if !self.unicast(dst) {
            return None;
        }
        if matches!(
            p.packet_type_anno(),
            PacketType::Broadcast | PacketType::Multicast
        ) {
            return None;
        }
        if !self.valid_source(src) || !is_first_fragment(h) {
            return None;
        }

        let mut route = Self::source_route(h, hl);
        let pp = p.icmp_param_prob_anno() as usize;
        if let Some((off, len)) = route {
            if self.icmp_type == types::REDIRECT {
                return None;
            }
            if self.icmp_type == types::PARAM_PROBLEM
                && self.code == icmp::param_problem::ERRATPTR
                && off <= pp
                && pp < off + len
            {
                route = None;
            }
        }

        // The reversed source route option, if any.
        let mut opts = [0u8; 40];
        let mut opts_len = 0;
        if let Some((off, _)) = route {
            opts_len = ipv4::reverse_source_route(&h[off..], &mut opts);
        }
        let nhl = 20 + opts_len;

        let room = (self.mtu as usize).saturating_sub(nhl + 8);
        let xlen = room.min(h.len());
        let total = nhl + 8 + xlen;
        if total > 0xffff {
            return None;
        }
        let mut q = Packet::make_zeroed(DEFAULT_HEADROOM, total, 0);
        {
            let d = q.data_mut();
            d[nhl + 8..].copy_from_slice(&h[..xlen]);
            let (iph, icmph) = d.split_at_mut(nhl);
            {
                let mut ic = IcmpPacket::new_unchecked(&mut icmph[..]);
                ic.set_icmp_type(self.icmp_type);
                ic.set_code(self.code);
                if self.icmp_type == types::PARAM_PROBLEM
                    && self.code == icmp::param_problem::ERRATPTR
                {
                    ic.set_pointer(pp as u8);
                }
                if self.icmp_type == types::REDIRECT {
                    ic.set_gateway(p.dst_ip_anno());
                }
                if self.icmp_type == types::UNREACH && self.code == icmp::unreach::NEEDFRAG {
                    ic.set_next_hop_mtu(self.pmtu as u16);
                }
                ic.fill_checksum();
            }
            iph[20..nhl].copy_from_slice(&opts[..opts_len]);
            let mut ip = Ipv4Packet::new_unchecked(&mut iph[..]);
            ip.set_version(4);
            ip.set_header_len(nhl as u8);
            ip.set_tos(0);
            ip.set_total_len(total as u16);
            ip.set_ident(self.next_id);
            ip.set_flags_frag_offset(0);
            ip.set_ttl(200);
            ip.set_protocol(rclick_wire::IpProtocol::ICMP);
            ip.set_src_addr(self.src);
            ip.set_dst_addr(src);
            ip.fill_checksum();
        }
        self.next_id = self.next_id.wrapping_add(1);
        q.set_ip_header(0, nhl);
        q.set_dst_ip_anno(src);
        if self.set_fix_anno {
            q.set_fix_ip_src_anno(true);
        }
        q.set_timestamp_anno(cx.now());
        Some(q)
    }
}

impl Element for IcmpError {
    fn class_name(&self) -> &'static str {
        "ICMPError"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let mut src = Ipv4Addr::UNSPECIFIED;
        let mut ty: i64 = -1;
        let mut code = Word("0".to_string());
        let mut bad: SpaceSep<Ipv4Addr> = SpaceSep(Vec::new());
        let mut mtu: u32 = 576;
        let mut pmtu: u32 = 0;
        let mut fix = true;
        Args::new_with(conf, ctx)
            .read_mp("SRC", &mut src)
            .read_mp_with("TYPE", &mut ty, |s| parse_icmp_type(s, ctx))
            .read_p("CODE", &mut code)
            .read_p("BADADDRS", &mut bad)
            .read("MTU", &mut mtu)
            .read("PMTU", &mut pmtu)
            .read("SET_FIX_ANNO", &mut fix)
            .complete()
            .map_err(|e| e.to_string())?;
        if !(0..=255).contains(&ty) {
            return Err("ICMP type must be between 0 and 255".into());
        }
        let ty = ty as u8;
        if !icmp::is_error(ty) {
            return Err(format!("ICMP type {ty} is not an error type"));
        }
        let code = parse_icmp_code(ty, &code.0, ctx)
            .ok_or("argument 2 takes ICMP code (integer between 0 and 255)")?;
        self.src = src;
        self.icmp_type = ty;
        self.code = code;
        self.bad_addrs = bad.0;
        self.mtu = mtu;
        self.pmtu = pmtu;
        self.set_fix_anno = fix;
        Ok(())
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let q = self.make_error(&p, cx);
        if q.is_none() {
            self.drops += 1;
        }
        q
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Src) => Ok(self.src.to_string()),
            Some(H::Mtu) => Ok(self.mtu.to_string()),
            Some(H::Pmtu) => Ok(self.pmtu.to_string()),
            Some(H::Drops) => Ok(self.drops.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let ctx = rclick_core::args::NoContext;
        let v = value.trim();
        match H::from_id(id) {
            Some(H::Src) => self.src = Ipv4Addr::from_arg(v, &ctx)?,
            Some(H::Mtu) => self.mtu = u32::from_arg(v, &ctx)?,
            Some(H::Pmtu) => self.pmtu = u32::from_arg(v, &ctx)?,
            _ => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use rclick_core::testing;

    fn udp() -> Vec<u8> {
        ip_packet(
            [18, 26, 4, 44],
            [10, 0, 0, 8],
            17,
            &[0, 20, 0, 80, 0, 12, 0, 0, 1, 2, 3, 4],
        )
    }

    #[test]
    fn basic_time_exceeded() {
        let out = run_one(&udp(), "", "ICMPError(19.19.19.19, timeexceeded)");
        assert_eq!(out.len(), 1);
        let q = unhex(&out[0]);
        let ip = Ipv4Packet::new_checked(&q[..]).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!(ip.src_addr(), Ipv4Addr::new(19, 19, 19, 19));
        assert_eq!(ip.dst_addr(), Ipv4Addr::new(18, 26, 4, 44));
        assert_eq!(ip.ttl(), 200);
        assert_eq!(ip.total_len() as usize, 20 + 8 + 32);
        let ic = IcmpPacket::new_checked(ip.payload()).unwrap();
        assert!(ic.verify_checksum());
        assert_eq!((ic.icmp_type(), ic.code()), (11, 0));
        assert_eq!(ic.data(), &udp()[..]);
    }

    /// Packets that get no error are counted in `drops` (they went
    /// uncounted; found by the malformed-packet corpus test).
    #[test]
    fn packets_without_an_error_are_counted() {
        let mut reg = rclick_core::Registry::new();
        rclick_elements_standard::register(&mut reg);
        crate::register(&mut reg);
        let r = rclick_core::testing::run(
            "InfiniteSource(\\<45000014 00000000 40010000 0a000001 ffffffff>, LIMIT 3, STOP true)
               -> MarkIPHeader -> e :: ICMPError(9.9.9.9, unreachable, port)
               -> c :: Counter -> Discard;",
            &reg,
        )
        .unwrap();
        assert_eq!(rclick_core::testing::read(&r, "c.count"), "0");
        assert_eq!(rclick_core::testing::read(&r, "e.drops"), "3");
    }

    #[test]
    fn rfc1812_donts() {
        // ICMP error in, nothing out.
        let unreach = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &[3, 3, 0, 0, 0, 0, 0, 0]);
        assert!(run_one(&unreach, "", "ICMPError(9.9.9.9, unreachable, port)").is_empty());
        // An echo is answered.
        let echo = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &[8, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            run_one(&echo, "", "ICMPError(9.9.9.9, unreachable, port)").len(),
            1
        );
        // Broadcast destination, multicast destination, bad source.
        let b = ip_packet([1, 0, 0, 1], [255, 255, 255, 255], 17, &[0; 8]);
        assert!(run_one(&b, "", "ICMPError(9.9.9.9, 3)").is_empty());
        let m = ip_packet([1, 0, 0, 1], [224, 0, 0, 5], 17, &[0; 8]);
        assert!(run_one(&m, "", "ICMPError(9.9.9.9, 3)").is_empty());
        let s = ip_packet([127, 0, 0, 1], [1, 0, 0, 1], 17, &[0; 8]);
        assert!(run_one(&s, "", "ICMPError(9.9.9.9, 3)").is_empty());
        // Link broadcast.
        assert!(run_one(&udp(), "TYPE 1", "ICMPError(9.9.9.9, 3)").is_empty());
        // BADADDRS.
        assert!(run_one(&udp(), "", "ICMPError(9.9.9.9, 3, 0, 10.0.0.8)").is_empty());
        // Non-first fragment.
        let mut f = udp();
        f[6] = 0;
        f[7] = 3;
        fix_ip_checksum(&mut f);
        assert!(run_one(&f, "", "ICMPError(9.9.9.9, 3)").is_empty());
        // Truncated garbage.
        assert!(run_one(&[0x45, 0, 0], "", "ICMPError(9.9.9.9, 3)").is_empty());
    }

    #[test]
    fn source_route_reversed() {
        // ssrr with pointer at the third address.
        let mut v = vec![
            0x4a, 0, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 18, 26, 4, 44, 10, 0, 0, 8,
        ];
        v.extend_from_slice(&[
            137, 19, 12, 128, 4, 45, 60, 128, 4, 49, 61, 1, 2, 3, 4, 5, 6, 7, 8, 0,
        ]);
        v.extend_from_slice(&[0; 20]);
        let len = v.len();
        v[3] = len as u8;
        fix_ip_checksum(&mut v);
        let out = run_one(&v, "", "ICMPError(19.19.19.19, timeexceeded)");
        let q = unhex(&out[0]);
        assert_eq!(q[0], 0x48);
        assert_eq!(&q[20..32], &[137, 11, 4, 128, 4, 49, 61, 128, 4, 45, 60, 0]);
        let ip = Ipv4Packet::new_checked(&q[..]).unwrap();
        assert!(ip.verify_checksum());
        assert_eq!(ip.total_len() as usize - 32, 68);
        // A redirect for a source-routed packet is not sent.
        assert!(run_one(&v, "", "ICMPError(19.19.19.19, redirect, host)").is_empty());
        // A parameter problem pointing into the route drops the route.
        let out = run_one(&v, "PP 22", "ICMPError(19.19.19.19, parameterproblem)");
        let q = unhex(&out[0]);
        assert_eq!(q[0], 0x45);
        assert_eq!(q[24], 22);
    }

    #[test]
    fn mtu_and_pmtu() {
        let big = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 17, &[7; 1000]);
        let out = run_one(
            &big,
            "",
            "ICMPError(9.9.9.9, unreachable, needfrag, PMTU 1400)",
        );
        let q = unhex(&out[0]);
        assert_eq!(q.len(), 576);
        assert_eq!(&q[26..28], &1400u16.to_be_bytes());
        let out = run_one(&big, "", "ICMPError(9.9.9.9, 3, 4, MTU 100)");
        assert_eq!(unhex(&out[0]).len(), 100);
    }

    #[test]
    fn config_errors() {
        let r = reg();
        for (c, msg) in [
            ("ICMPError(1.0.0.1, echo)", "not an error type"),
            ("ICMPError(1.0.0.1, 300)", "between 0 and 255"),
            ("ICMPError(1.0.0.1, unreachable, bogus)", "ICMP code"),
            ("ICMPError(1.0.0.1)", "TYPE"),
        ] {
            let conf = format!("Idle -> {c} -> Discard;");
            let e = testing::build(&conf, &r, true).err().unwrap();
            assert!(e.contains(msg), "{c}: {e}");
        }
        let conf = "Idle -> e :: ICMPError(1.0.0.1, 3, MTU 100) -> Discard;";
        let router = testing::build(conf, &r, true).unwrap();
        assert_eq!(testing::read(&router, "e.mtu"), "100");
        assert_eq!(testing::read(&router, "e.src"), "1.0.0.1");
    }
}
