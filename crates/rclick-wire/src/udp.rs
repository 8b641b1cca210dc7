//! UDP datagrams (RFC 768).
//!
//! The view's buffer starts at the UDP header; [`UdpPacket::new_checked`]
//! checks the length field against it (at least 8, no more than the bytes
//! present), and [`UdpPacket::payload`] ends where the length field says.
//! Checksums take the IP addresses of the pseudo-header, IPv4 or IPv6
//! ([`PseudoHeader`]).

use crate::checksum::{self, PseudoHeader};
use crate::ipv4::IpProtocol;
use crate::{check_room, check_total_len, read_u16, write_u16, Result, WireError};

/// Byte ranges of the UDP header.
pub mod field {
    use core::ops::Range;
    /// Source port (offset).
    pub const SRC_PORT: usize = 0;
    /// Destination port (offset).
    pub const DST_PORT: usize = 2;
    /// Length of header and payload (offset).
    pub const LENGTH: usize = 4;
    /// Checksum (offset).
    pub const CHECKSUM: usize = 6;
    /// The header.
    pub const HEADER: Range<usize> = 0..8;
}

/// Length of the UDP header.
pub const HEADER_LEN: usize = 8;

view! {
    /// A view of a UDP datagram.
    pub struct UdpPacket;
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Checks that 8 bytes are present and that the length field is at
    /// least 8 and no more than the bytes present.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        check_room("UDP", HEADER_LEN, len)?;
        check_total_len("UDP", self.len().into(), HEADER_LEN, len)
    }

    /// Source port.
    #[inline]
    pub fn src_port(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    #[inline]
    pub fn dst_port(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Length of header and payload, from the length field.
    #[inline]
    pub fn len(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::LENGTH)
    }

    /// Whether the payload is empty (length field 8).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() as usize <= HEADER_LEN
    }

    /// Checksum as stored (0 over IPv4 means "none").
    #[inline]
    pub fn checksum(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// The payload, up to the length field.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.len() as usize]
    }

    /// The sum over pseudo-header and datagram, checksum field included.
    fn full_sum<A: PseudoHeader>(&self, src: A, dst: A) -> u16 {
        let len = self.len();
        checksum::add(
            src.pseudo_header_sum(dst, IpProtocol::UDP.0, len as u32),
            checksum::sum(&self.buffer.as_ref()[..len as usize]),
        )
    }

    /// Whether the checksum is correct for a datagram from `src` to `dst`.
    /// A zero checksum over IPv4 means "not computed" and verifies.
    pub fn verify_checksum<A: PseudoHeader>(&self, src: A, dst: A) -> bool {
        if A::UDP_ZERO_MEANS_NONE && self.checksum() == 0 {
            return true;
        }
        self.full_sum(src, dst) == 0xffff
    }

    /// The checksum the datagram calls for (a computed 0 is sent as 0xffff).
    pub fn compute_checksum<A: PseudoHeader>(&self, src: A, dst: A) -> u16 {
        let without = checksum::add(self.full_sum(src, dst), !self.checksum());
        match !without {
            0 => 0xffff,
            c => c,
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Updates the checksum incrementally for a 32-bit word of the
    /// pseudo-header (an IP address) changed from `old` to `new`. A zero
    /// checksum ("none" over IPv4) stays zero; a result of zero is sent as
    /// 0xffff.
    #[inline]
    pub fn update_checksum_u32(&mut self, old: u32, new: u32) {
        let c = self.checksum();
        if c != 0 {
            let nc = checksum::update_u32(c, old, new);
            self.set_checksum(if nc == 0 { 0xffff } else { nc })
        }
    }

    /// Sets the source port.
    #[inline]
    pub fn set_src_port(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::SRC_PORT, v)
    }

    /// Sets the destination port.
    #[inline]
    pub fn set_dst_port(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::DST_PORT, v)
    }

    /// Sets the length field.
    #[inline]
    pub fn set_len(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::LENGTH, v)
    }

    /// Sets the checksum field.
    #[inline]
    pub fn set_checksum(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::CHECKSUM, v)
    }

    /// The payload, writable.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let len = self.len() as usize;
        &mut self.buffer.as_mut()[HEADER_LEN..len]
    }

    /// Computes and stores the checksum for a datagram from `src` to `dst`
    /// (`Ipv4Addr` or `Ipv6Addr`), over the bytes the length field covers.
    /// A computed 0 is stored as 0xffff.
    #[inline]
    pub fn fill_checksum<A: PseudoHeader>(&mut self, src: A, dst: A) {
        self.set_checksum(0);
        let c = match !self.full_sum(src, dst) {
            0 => 0xffff,
            c => c,
        };
        self.set_checksum(c)
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for UdpPacket<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// The meaning of a UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UdpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Payload length in bytes.
    pub payload_len: usize,
}

impl UdpRepr {
    /// Reads the header and, if `verify_checksum`, checks the checksum for
    /// a datagram from `src` to `dst`.
    pub fn parse<T: AsRef<[u8]>, A: PseudoHeader>(
        p: &UdpPacket<T>,
        src: A,
        dst: A,
        verify_checksum: bool,
    ) -> Result<UdpRepr> {
        p.check_len()?;
        if verify_checksum && !p.verify_checksum(src, dst) {
            return Err(WireError::BadChecksum {
                header: "UDP",
                found: p.checksum(),
                expected: p.compute_checksum(src, dst),
            });
        }
        Ok(UdpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload_len: p.payload().len(),
        })
    }

    /// Bytes the datagram occupies: 8 + payload.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN + self.payload_len
    }

    /// Writes the header and the checksum over the header and the payload
    /// already in the buffer, which must hold [`buffer_len`](Self::buffer_len)
    /// bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>, A: PseudoHeader>(
        &self,
        p: &mut UdpPacket<T>,
        src: A,
        dst: A,
    ) {
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len((HEADER_LEN + self.payload_len) as u16);
        p.fill_checksum(src, dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::UDP64;
    use std::net::{Ipv4Addr, Ipv6Addr};

    const SRC: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
    const DST: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 2);

    fn udp() -> [u8; 30] {
        let mut b = [0u8; 30];
        b.copy_from_slice(&UDP64[34..]);
        b
    }

    #[test]
    fn incremental_update_for_a_new_address() {
        let mut b = UDP64;
        let (src, dst) = (Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 1, 2));
        let new = Ipv4Addr::new(203, 0, 113, 9);
        let mut u = UdpPacket::new_unchecked(&mut b[34..]);
        assert!(u.verify_checksum(src, dst));
        u.update_checksum_u32(src.into(), new.into());
        assert!(u.verify_checksum(new, dst));
        // No checksum stays no checksum.
        u.set_checksum(0);
        u.update_checksum_u32(new.into(), src.into());
        assert_eq!(u.checksum(), 0);
    }

    #[test]
    fn accept_udp64() {
        let b = udp();
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        assert_eq!(p.src_port(), 1234);
        assert_eq!(p.dst_port(), 5678);
        assert_eq!(p.len(), 30);
        assert!(!p.is_empty());
        assert_eq!(p.checksum(), 0xdcb4);
        assert_eq!(p.payload(), b"Click UDP payload 64B!");
        assert!(p.verify_checksum(SRC, DST));
        assert!(!p.verify_checksum(SRC, Ipv4Addr::new(10, 0, 1, 3)));
        assert_eq!(p.compute_checksum(SRC, DST), 0xdcb4);
    }

    #[test]
    fn reject_lengths() {
        let b = udp();
        assert_eq!(
            UdpPacket::new_checked(&b[..7]).unwrap_err(),
            WireError::Truncated {
                header: "UDP",
                needed: 8,
                available: 7
            }
        );
        assert_eq!(
            UdpPacket::new_checked(&b[..29]).unwrap_err(),
            WireError::BadTotalLength {
                header: "UDP",
                len: 30,
                min: 8,
                available: 29
            }
        );
        let mut short = b;
        short[5] = 7;
        assert_eq!(
            UdpPacket::new_checked(&short[..]).unwrap_err(),
            WireError::BadTotalLength {
                header: "UDP",
                len: 7,
                min: 8,
                available: 30
            }
        );
    }

    #[test]
    fn overlong_buffer_ignores_trailer() {
        let mut v = udp().to_vec();
        v.extend_from_slice(&[0xee; 6]);
        let p = UdpPacket::new_checked(&v[..]).unwrap();
        assert_eq!(p.payload().len(), 22);
        assert!(p.verify_checksum(SRC, DST));
    }

    #[test]
    fn checksum_rules() {
        let mut b = udp();
        let mut p = UdpPacket::new_checked(&mut b[..]).unwrap();
        p.set_checksum(0x1234);
        assert!(!p.verify_checksum(SRC, DST));
        assert_eq!(
            UdpRepr::parse(&p, SRC, DST, true).unwrap_err(),
            WireError::BadChecksum {
                header: "UDP",
                found: 0x1234,
                expected: 0xdcb4
            }
        );
        p.fill_checksum(SRC, DST);
        assert_eq!(p.checksum(), 0xdcb4);
        // Zero means "no checksum" over IPv4 only.
        p.set_checksum(0);
        assert!(p.verify_checksum(SRC, DST));
        let s6: Ipv6Addr = "2001:db8::2".parse().unwrap();
        let d6: Ipv6Addr = "2001:db8::1:2".parse().unwrap();
        assert!(!p.verify_checksum(s6, d6));
        p.fill_checksum(s6, d6);
        assert!(p.verify_checksum(s6, d6));
        assert!(!p.verify_checksum(s6, Ipv6Addr::LOCALHOST));
    }

    #[test]
    fn computed_zero_is_sent_as_ffff() {
        // Choose a payload word that makes the sum 0xffff.
        let mut b = [0u8; 10];
        let mut p = UdpPacket::new_unchecked(&mut b[..]);
        p.set_len(10);
        let s = checksum::add(
            SRC.pseudo_header_sum(DST, 17, 10),
            checksum::sum(&p.as_ref()[..8]),
        );
        p.payload_mut().copy_from_slice(&(!s).to_be_bytes());
        p.fill_checksum(SRC, DST);
        assert_eq!(p.checksum(), 0xffff);
        assert!(p.verify_checksum(SRC, DST));
        assert_eq!(p.compute_checksum(SRC, DST), 0xffff);
    }

    #[test]
    fn repr_round_trip() {
        let b = udp();
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        let repr = UdpRepr::parse(&p, SRC, DST, true).unwrap();
        assert_eq!(
            repr,
            UdpRepr {
                src_port: 1234,
                dst_port: 5678,
                payload_len: 22
            }
        );
        assert_eq!(repr.buffer_len(), 30);
        let mut out = [0u8; 30];
        out[8..].copy_from_slice(b"Click UDP payload 64B!");
        repr.emit(&mut UdpPacket::new_unchecked(&mut out[..]), SRC, DST);
        assert_eq!(out, b);
    }
}
