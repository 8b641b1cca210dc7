//! # StoreIPAddress
//!
//! `StoreIPAddress(OFFSET)`, `StoreIPAddress(ADDR, OFFSET)`
//!
//! **Category:** ip. Stores an IP address in packet data.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! With one argument, writes the packet's destination IP address annotation
//! into the packet data at OFFSET; with two, writes ADDR there. OFFSET is
//! an unsigned byte offset from the start of the data, or `src` or `dst`,
//! meaning the source or destination field of the IP header: then the IP
//! header checksum, and a TCP or UDP checksum of a first fragment, are
//! updated incrementally (a zero UDP checksum stays zero). A packet too
//! short for the write, or a zero annotation with a numeric offset, leaves
//! the packet unchanged.
//!
//! ## Annotations
//!
//! Uses the destination IP address annotation (one-argument form) and the
//! IP header annotation (`src`/`dst`).
//!
//! ## Examples
//!
//! ```text
//! ... -> StoreIPAddress(1.0.0.4, dst) -> ...
//! ```
//!
//! ## See also
//!
//! SetIPAddress, GetIPAddress

use std::net::Ipv4Addr;

use rclick_core::args::FromArg;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};
use rclick_wire::{tcp, udp, IpProtocol, Ipv4Packet, TcpPacket, UdpPacket};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    At(usize),
    IpSrc,
    IpDst,
}

/// The StoreIPAddress element.
pub struct StoreIPAddress {
    addr: Option<Ipv4Addr>,
    field: Field,
}

impl Default for StoreIPAddress {
    fn default() -> Self {
        StoreIPAddress {
            addr: None,
            field: Field::At(0),
        }
    }
}

/// Writes `addr` into the IP header's source or destination (`dst`)
/// field, updating the IP and transport checksums incrementally.
pub(crate) fn store_in_ip_header(p: &mut Packet, dst: bool, addr: Ipv4Addr) -> bool {
    let Some(h) = p.ip_header() else { return false };
    let hlen = p.ip_header_len();
    if hlen < 20 || h.len() < 20 {
        return false;
    }
    let ip = Ipv4Packet::new_unchecked(h);
    let (proto, first_frag) = (ip.protocol(), ip.frag_offset() == 0);
    let Some(h) = p.ip_header_mut() else {
        return false;
    };
    let mut ip = Ipv4Packet::new_unchecked(&mut *h);
    let old = u32::from(if dst {
        ip.set_dst_addr_update_checksum(addr)
    } else {
        ip.set_src_addr_update_checksum(addr)
    });
    let new = u32::from(addr);
    if first_frag {
        let t = h.get_mut(hlen..).unwrap_or_default();
        if proto == IpProtocol::TCP && t.len() >= tcp::HEADER_LEN {
            TcpPacket::new_unchecked(t).update_checksum_u32(old, new);
        } else if proto == IpProtocol::UDP && t.len() >= udp::HEADER_LEN {
            UdpPacket::new_unchecked(t).update_checksum_u32(old, new);
        }
    }
    true
}

impl Element for StoreIPAddress {
    fn class_name(&self) -> &'static str {
        "StoreIPAddress"
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        if conf.is_empty() || conf.len() > 2 {
            return Err("expected [IP address, ] byte offset".into());
        }
        let addr = if conf.len() == 2 {
            Some(
                Ipv4Addr::from_arg(conf[0].trim(), cx.arg_context())
                    .map_err(|_| "first argument should be IP address".to_string())?,
            )
        } else {
            None
        };
        let last = conf[conf.len() - 1].trim().to_ascii_lowercase();
        let field = match last.as_str() {
            "src" => Field::IpSrc,
            "dst" => Field::IpDst,
            n => Field::At(
                n.parse()
                    .map_err(|_| "last argument should be byte offset of IP address".to_string())?,
            ),
        };
        self.addr = addr;
        self.field = field;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let a = self.addr.unwrap_or_else(|| p.dst_ip_anno());
        match self.field {
            Field::At(off) => {
                if (self.addr.is_some() || !a.is_unspecified()) && off + 4 <= p.len() {
                    p.data_mut()[off..off + 4].copy_from_slice(&a.octets());
                }
            }
            Field::IpSrc => {
                store_in_ip_header(&mut p, false, a);
            }
            Field::IpDst => {
                store_in_ip_header(&mut p, true, a);
            }
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn stores_with_incremental_checksum() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2, STOP true, DATA \\<99999999 99999999 99999999 99999999 99999999>)
             -> MarkIPHeader(0) -> SetIPAddress(1.0.0.2) -> s :: RoundRobinSwitch
             -> StoreIPAddress(src) -> Print(d) -> Discard;
             s[1] -> StoreIPAddress(1.0.0.4, dst) -> Print(f) -> Discard;",
            &registry(),
        )
        .unwrap();
        let log = r.take_log().join("\n");
        assert!(
            log.contains("d:   20 | 99999999 99999999 9999cbca 01000002 99999999"),
            "{log}"
        );
        assert!(
            log.contains("f:   20 | 99999999 99999999 9999cbc8 99999999 01000004"),
            "{log}"
        );
    }
}
