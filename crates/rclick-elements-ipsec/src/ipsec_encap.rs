//! # IPsecEncap
//!
//! `IPsecEncap(PROTO [, SRC addr, TTL ttl, DF bool])`
//!
//! **Category:** ipsec. Adds the outer IP header of a tunnel.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prepends a 20-byte IPv4 header with protocol PROTO (a number or a name:
//! `esp` is 50), destination the packet's destination address annotation
//! (the tunnel's far end: RadixIPsecLookup sets it to the route's
//! gateway), total length, an identifier counting up from 0, TTL 250 and
//! a correct checksum. Sets the IP header annotation, and the destination
//! annotation to the destination.
//!
//! As Click's, the source address is 0.0.0.0 and the fix-IP-source
//! annotation is set, so that FixIPSrc on the output path fills in the
//! interface's address. `SRC` (ours) gives the source address instead;
//! `TTL` (ours) the TTL, and `DF` (ours, default false) sets the don't
//! fragment bit.
//!
//! ## Annotations
//!
//! Uses the destination address annotation; sets it, the IP header
//! annotation and (without SRC) the fix-IP-source annotation.
//!
//! ## Handlers
//!
//! * `src`, `dst` (read): the source address (`0.0.0.0` without SRC), and
//!   the destination of the last packet.
//!
//! ## Examples
//!
//! ```text
//! ... -> IPsecESPEncap -> IPsecEncap(esp, SRC 192.0.2.1) -> ...
//! ```
//!
//! ## See also
//!
//! IPsecESPEncap, IPEncap, FixIPSrc, RadixIPsecLookup

use std::net::Ipv4Addr;

use rclick_core::args::{Args, FromArg};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::ipv4::{IpProtocol, Ipv4Packet};

rclick_core::handlers! {
    /// IPsecEncap's handlers (the manual's list).
    enum H {
        Src = read("src"),
        Dst = read("dst"),
    }
}

/// An IP protocol number or name (Click's names for the tunnel protocols).
fn parse_proto(s: &str) -> Result<u8, String> {
    Ok(match s.to_ascii_lowercase().as_str() {
        "ipip" => 4,
        "ipv6" => 41,
        "gre" => 47,
        "esp" => 50,
        "ah" => 51,
        "udp" => 17,
        n => match n.parse::<i64>() {
            // Click's message (clickdiff).
            Ok(v) => u8::try_from(v).map_err(|_| "bad IP protocol".to_string())?,
            Err(_) => return Err("expected IP protocol".into()),
        },
    })
}

/// The IPsecEncap element.
pub struct IPsecEncap {
    proto: u8,
    src: Option<Ipv4Addr>,
    ttl: u8,
    df: bool,
    id: u16,
    last_dst: Ipv4Addr,
}

impl Default for IPsecEncap {
    fn default() -> Self {
        IPsecEncap {
            proto: 50,
            src: None,
            ttl: 250,
            df: false,
            id: 0,
            last_dst: Ipv4Addr::UNSPECIFIED,
        }
    }
}

impl Element for IPsecEncap {
    fn class_name(&self) -> &'static str {
        "IPsecEncap"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let mut proto = 0u8;
        let mut src: Option<Ipv4Addr> = None;
        let mut ttl = 250u8;
        let mut df = false;
        Args::new_with(conf, ctx)
            .read_mp_with("PROTO", &mut proto, parse_proto)
            .read_with("SRC", &mut src, |s| Ipv4Addr::from_arg(s, ctx).map(Some))
            .read("TTL", &mut ttl)
            .read("DF", &mut df)
            .complete()
            .map_err(|e| {
                // A bare message for a protocol out of range, as Click's.
                let e = e.to_string();
                if e.contains("bad IP protocol") {
                    "bad IP protocol".to_string()
                } else {
                    e
                }
            })?;
        self.proto = proto;
        self.src = src;
        self.ttl = ttl;
        self.df = df;
        Ok(())
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let dst = p.dst_ip_anno();
        let total = (p.len() + 20).min(0xffff) as u16;
        p.push(20).ok()?;
        let mut h = Ipv4Packet::new_unchecked(&mut p.data_mut()[..20]);
        h.set_version(4);
        h.set_header_len(20);
        h.set_total_len(total);
        h.set_ident(self.id);
        h.set_dont_frag(self.df);
        h.set_ttl(self.ttl);
        h.set_protocol(IpProtocol(self.proto));
        h.set_src_addr(self.src.unwrap_or(Ipv4Addr::UNSPECIFIED));
        h.set_dst_addr(dst);
        h.fill_checksum();
        self.id = self.id.wrapping_add(1);
        p.set_ip_header(0, 20);
        if self.src.is_none() {
            p.set_fix_ip_src_anno(true);
        }
        self.last_dst = dst;
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Src) => Ok(self.src.unwrap_or(Ipv4Addr::UNSPECIFIED).to_string()),
            Some(H::Dst) => Ok(self.last_dst.to_string()),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn outer_header() {
        let r = testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 2, STOP true) -> SetIPAddress(203.0.113.9)
             -> e :: IPsecEncap(esp, SRC 192.0.2.1, TTL 64) -> CheckIPHeader -> Print(x, 24) -> n :: Counter -> Discard;
             InfiniteSource(DATA \\<0102>, LIMIT 1, STOP true) -> SetIPAddress(203.0.113.9)
             -> f :: IPsecEncap(50) -> Print(y, 24) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "n.count"), "2");
        let log = r.take_log().join("\n");
        assert!(log.contains("x:   22 | 45000016 00000000 4032"), "{log}");
        assert!(log.contains("c0000201 cb007109"), "{log}");
        assert!(log.contains("y:   22 | 45000016 00000000 fa32"), "{log}");
        assert!(log.contains("00000000 cb007109"), "{log}");
        assert_eq!(testing::read(&r, "e.src"), "192.0.2.1");
        assert_eq!(testing::read(&r, "f.dst"), "203.0.113.9");
    }

    /// Errors as the reference gives them (clickdiff).
    #[test]
    fn errors() {
        for (args, want) in [
            ("300", "bad IP protocol"),
            ("50, 1.0.0.1", "too many arguments"),
            ("", "PROTO: required argument missing"),
        ] {
            let conf = format!("Idle -> IPsecEncap({args}) -> Discard;");
            match testing::build(&conf, &registry(), true) {
                Ok(_) => panic!("{args}: accepted"),
                Err(e) => assert!(e.contains(want), "{args}: {e}"),
            }
        }
    }
}
