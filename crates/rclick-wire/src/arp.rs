//! ARP packets for Ethernet and IPv4 (RFC 826), 28 bytes.
//!
//! The view reads the fixed Ethernet/IPv4 layout; [`ArpPacket::new_checked`]
//! checks only the length, and [`ArpRepr::parse`] rejects other hardware or
//! protocol types.

use core::fmt;
use std::net::Ipv4Addr;

use crate::ethernet::{EtherType, EthernetAddress};
use crate::{check_room, read_u16, write_u16, Result, WireError};

/// Byte ranges of an Ethernet/IPv4 ARP packet.
pub mod field {
    use core::ops::Range;
    /// Hardware type (offset).
    pub const HTYPE: usize = 0;
    /// Protocol type (offset).
    pub const PTYPE: usize = 2;
    /// Hardware address length.
    pub const HLEN: usize = 4;
    /// Protocol address length.
    pub const PLEN: usize = 5;
    /// Operation (offset).
    pub const OPER: usize = 6;
    /// Sender hardware address.
    pub const SHA: Range<usize> = 8..14;
    /// Sender protocol address.
    pub const SPA: Range<usize> = 14..18;
    /// Target hardware address.
    pub const THA: Range<usize> = 18..24;
    /// Target protocol address.
    pub const TPA: Range<usize> = 24..28;
}

/// Length of an Ethernet/IPv4 ARP packet.
pub const PACKET_LEN: usize = 28;

/// ARP hardware type for Ethernet.
pub const HTYPE_ETHERNET: u16 = 1;

/// An ARP operation code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArpOperation(pub u16);

impl ArpOperation {
    /// ARP request, 1.
    pub const REQUEST: ArpOperation = ArpOperation(1);
    /// ARP reply, 2.
    pub const REPLY: ArpOperation = ArpOperation(2);
    /// RARP request, 3.
    pub const REVREQUEST: ArpOperation = ArpOperation(3);
    /// RARP reply, 4.
    pub const REVREPLY: ArpOperation = ArpOperation(4);
}

impl fmt::Display for ArpOperation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ArpOperation::REQUEST => f.write_str("request"),
            ArpOperation::REPLY => f.write_str("reply"),
            ArpOperation::REVREQUEST => f.write_str("reverse request"),
            ArpOperation::REVREPLY => f.write_str("reverse reply"),
            ArpOperation(v) => write!(f, "operation {v}"),
        }
    }
}

view! {
    /// A view of an Ethernet/IPv4 ARP packet.
    pub struct ArpPacket;
}

impl<T: AsRef<[u8]>> ArpPacket<T> {
    /// Checks that the buffer holds an Ethernet/IPv4 ARP packet's 28 bytes.
    pub fn check_len(&self) -> Result<()> {
        check_room("ARP", PACKET_LEN, self.buffer.as_ref().len())
    }

    /// Hardware type (1 for Ethernet).
    #[inline]
    pub fn hardware_type(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::HTYPE)
    }

    /// Protocol type (an EtherType, IPv4 here).
    #[inline]
    pub fn protocol_type(&self) -> EtherType {
        EtherType(read_u16(self.buffer.as_ref(), field::PTYPE))
    }

    /// Hardware address length (6 for Ethernet).
    #[inline]
    pub fn hardware_len(&self) -> u8 {
        self.buffer.as_ref()[field::HLEN]
    }

    /// Protocol address length (4 for IPv4).
    #[inline]
    pub fn protocol_len(&self) -> u8 {
        self.buffer.as_ref()[field::PLEN]
    }

    /// Whether the packet declares Ethernet hardware and IPv4 protocol
    /// addresses of the usual lengths, the only layout the accessors read.
    pub fn is_ethernet_ipv4(&self) -> bool {
        self.hardware_type() == HTYPE_ETHERNET
            && self.protocol_type() == EtherType::IPV4
            && self.hardware_len() == 6
            && self.protocol_len() == 4
    }

    /// Operation.
    #[inline]
    pub fn operation(&self) -> ArpOperation {
        ArpOperation(read_u16(self.buffer.as_ref(), field::OPER))
    }

    /// Sender hardware address.
    #[inline]
    pub fn sender_hardware_addr(&self) -> EthernetAddress {
        EthernetAddress::from_bytes(&self.buffer.as_ref()[field::SHA])
    }

    /// Sender protocol address.
    #[inline]
    pub fn sender_protocol_addr(&self) -> Ipv4Addr {
        ipv4(&self.buffer.as_ref()[field::SPA])
    }

    /// Target hardware address.
    #[inline]
    pub fn target_hardware_addr(&self) -> EthernetAddress {
        EthernetAddress::from_bytes(&self.buffer.as_ref()[field::THA])
    }

    /// Target protocol address.
    #[inline]
    pub fn target_protocol_addr(&self) -> Ipv4Addr {
        ipv4(&self.buffer.as_ref()[field::TPA])
    }
}

fn ipv4(b: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(b[0], b[1], b[2], b[3])
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> ArpPacket<T> {
    /// Sets the hardware type.
    #[inline]
    pub fn set_hardware_type(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::HTYPE, v)
    }

    /// Sets the protocol type.
    #[inline]
    pub fn set_protocol_type(&mut self, v: EtherType) {
        write_u16(self.buffer.as_mut(), field::PTYPE, v.0)
    }

    /// Sets the hardware address length.
    #[inline]
    pub fn set_hardware_len(&mut self, v: u8) {
        self.buffer.as_mut()[field::HLEN] = v
    }

    /// Sets the protocol address length.
    #[inline]
    pub fn set_protocol_len(&mut self, v: u8) {
        self.buffer.as_mut()[field::PLEN] = v
    }

    /// Sets the operation.
    #[inline]
    pub fn set_operation(&mut self, v: ArpOperation) {
        write_u16(self.buffer.as_mut(), field::OPER, v.0)
    }

    /// Sets the sender hardware address.
    #[inline]
    pub fn set_sender_hardware_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::SHA].copy_from_slice(&a.0)
    }

    /// Sets the sender protocol address.
    #[inline]
    pub fn set_sender_protocol_addr(&mut self, a: Ipv4Addr) {
        self.buffer.as_mut()[field::SPA].copy_from_slice(&a.octets())
    }

    /// Sets the target hardware address.
    #[inline]
    pub fn set_target_hardware_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::THA].copy_from_slice(&a.0)
    }

    /// Sets the target protocol address.
    #[inline]
    pub fn set_target_protocol_addr(&mut self, a: Ipv4Addr) {
        self.buffer.as_mut()[field::TPA].copy_from_slice(&a.octets())
    }
}

/// The meaning of an Ethernet/IPv4 ARP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArpRepr {
    /// Operation.
    pub operation: ArpOperation,
    /// Sender hardware address.
    pub source_hardware_addr: EthernetAddress,
    /// Sender protocol address.
    pub source_protocol_addr: Ipv4Addr,
    /// Target hardware address.
    pub target_hardware_addr: EthernetAddress,
    /// Target protocol address.
    pub target_protocol_addr: Ipv4Addr,
}

impl ArpRepr {
    /// Reads an ARP packet, rejecting anything but Ethernet/IPv4 with
    /// [`WireError::Unsupported`].
    pub fn parse<T: AsRef<[u8]>>(p: &ArpPacket<T>) -> Result<ArpRepr> {
        p.check_len()?;
        let unsupported = |field, value: u32| WireError::Unsupported {
            header: "ARP",
            field,
            value,
        };
        if p.hardware_type() != HTYPE_ETHERNET {
            return Err(unsupported("hardware type", p.hardware_type() as u32));
        }
        if p.protocol_type() != EtherType::IPV4 {
            return Err(unsupported("protocol type", p.protocol_type().0 as u32));
        }
        if p.hardware_len() != 6 {
            return Err(unsupported(
                "hardware address length",
                p.hardware_len() as u32,
            ));
        }
        if p.protocol_len() != 4 {
            return Err(unsupported(
                "protocol address length",
                p.protocol_len() as u32,
            ));
        }
        Ok(ArpRepr {
            operation: p.operation(),
            source_hardware_addr: p.sender_hardware_addr(),
            source_protocol_addr: p.sender_protocol_addr(),
            target_hardware_addr: p.target_hardware_addr(),
            target_protocol_addr: p.target_protocol_addr(),
        })
    }

    /// Bytes [`emit`](Self::emit) writes: 28.
    pub const fn buffer_len(&self) -> usize {
        PACKET_LEN
    }

    /// Writes the packet into a buffer of at least 28 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut ArpPacket<T>) {
        p.set_hardware_type(HTYPE_ETHERNET);
        p.set_protocol_type(EtherType::IPV4);
        p.set_hardware_len(6);
        p.set_protocol_len(4);
        p.set_operation(self.operation);
        p.set_sender_hardware_addr(self.source_hardware_addr);
        p.set_sender_protocol_addr(self.source_protocol_addr);
        p.set_target_hardware_addr(self.target_hardware_addr);
        p.set_target_protocol_addr(self.target_protocol_addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Who has 10.0.0.1? Tell 10.0.0.2 (00:11:22:33:44:55).
    const REQUEST: [u8; 28] = [
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01, //
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 10, 0, 0, 2, //
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 10, 0, 0, 1,
    ];

    #[test]
    fn accept() {
        let p = ArpPacket::new_checked(&REQUEST[..]).unwrap();
        assert!(p.is_ethernet_ipv4());
        assert_eq!(p.operation(), ArpOperation::REQUEST);
        assert_eq!(
            p.sender_hardware_addr(),
            EthernetAddress([0x00, 0x11, 0x22, 0x33, 0x44, 0x55])
        );
        assert_eq!(p.sender_protocol_addr(), Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(p.target_hardware_addr(), EthernetAddress::default());
        assert_eq!(p.target_protocol_addr(), Ipv4Addr::new(10, 0, 0, 1));
        // Ethernet padding after the ARP body is ignored.
        let mut padded = REQUEST.to_vec();
        padded.resize(46, 0);
        assert!(ArpPacket::new_checked(&padded[..]).is_ok());
    }

    #[test]
    fn reject_short() {
        assert_eq!(
            ArpPacket::new_checked(&REQUEST[..27]).unwrap_err(),
            WireError::Truncated {
                header: "ARP",
                needed: 28,
                available: 27
            }
        );
    }

    #[test]
    fn reject_unsupported_formats() {
        let cases: [(usize, u8, &str); 4] = [
            (1, 6, "hardware type"),
            (2, 0x86, "protocol type"),
            (4, 8, "hardware address length"),
            (5, 16, "protocol address length"),
        ];
        for (at, v, name) in cases {
            let mut b = REQUEST;
            b[at] = v;
            let p = ArpPacket::new_checked(&b[..]).unwrap();
            assert!(!p.is_ethernet_ipv4());
            match ArpRepr::parse(&p).unwrap_err() {
                WireError::Unsupported { field, .. } => assert_eq!(field, name),
                e => panic!("{e}"),
            }
        }
    }

    #[test]
    fn repr_round_trip() {
        let repr = ArpRepr::parse(&ArpPacket::new_checked(&REQUEST[..]).unwrap()).unwrap();
        let mut out = [0xaau8; 28];
        repr.emit(&mut ArpPacket::new_unchecked(&mut out[..]));
        assert_eq!(out, REQUEST);
        assert_eq!(repr.buffer_len(), 28);
        // Turn it into a reply in place.
        let mut p = ArpPacket::new_unchecked(&mut out[..]);
        p.set_operation(ArpOperation::REPLY);
        p.set_target_hardware_addr(repr.source_hardware_addr);
        assert_eq!(out[7], 2);
        assert_eq!(ArpOperation::REPLY.to_string(), "reply");
    }
}
