//! IPv6 fixed headers (RFC 8200), 40 bytes. Extension headers are payload.
//!
//! ```text
//!  0                   1                   2                   3
//! +-------+---------------+---------------------------------------+
//! |Version| Traffic Class |              Flow Label               |
//! +-------+---------------+-------+---------------+---------------+
//! |         Payload Length        |  Next Header  |   Hop Limit   |
//! +-------------------------------+---------------+---------------+
//! |                 Source Address (16 bytes)                     |
//! |               Destination Address (16 bytes)                  |
//! +---------------------------------------------------------------+
//! ```

use std::net::Ipv6Addr;

use crate::ipv4::IpProtocol;
use crate::{
    check_room, check_total_len, read_u16, read_u32, write_u16, write_u32, Result, WireError,
};

/// Byte ranges of the IPv6 fixed header.
pub mod field {
    use core::ops::Range;
    /// Version, traffic class and flow label (offset of the 32-bit word).
    pub const VER_TC_FLOW: usize = 0;
    /// Payload length (offset).
    pub const LENGTH: usize = 4;
    /// Next header.
    pub const NXT_HDR: usize = 6;
    /// Hop limit.
    pub const HOP_LIMIT: usize = 7;
    /// Source address.
    pub const SRC_ADDR: Range<usize> = 8..24;
    /// Destination address.
    pub const DST_ADDR: Range<usize> = 24..40;
}

/// Length of the IPv6 fixed header.
pub const HEADER_LEN: usize = 40;

view! {
    /// A view of an IPv6 packet.
    pub struct Ipv6Packet;
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Checks that 40 bytes are present and that 40 + payload length does
    /// not exceed the bytes present. (A jumbogram's payload length of 0
    /// gives an empty payload.)
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        check_room("IPv6", HEADER_LEN, len)?;
        let total = HEADER_LEN + self.payload_len() as usize;
        check_total_len("IPv6", total, HEADER_LEN, len)
    }

    #[inline]
    fn word0(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::VER_TC_FLOW)
    }

    /// Version (6 for IPv6).
    #[inline]
    pub fn version(&self) -> u8 {
        (self.word0() >> 28) as u8
    }

    /// Traffic class (DSCP and ECN).
    #[inline]
    pub fn traffic_class(&self) -> u8 {
        (self.word0() >> 20) as u8
    }

    /// Flow label (20 bits).
    #[inline]
    pub fn flow_label(&self) -> u32 {
        self.word0() & 0x000f_ffff
    }

    /// Payload length (bytes after the fixed header, extension headers
    /// included).
    #[inline]
    pub fn payload_len(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::LENGTH)
    }

    /// Next header.
    #[inline]
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(self.buffer.as_ref()[field::NXT_HDR])
    }

    /// Hop limit.
    #[inline]
    pub fn hop_limit(&self) -> u8 {
        self.buffer.as_ref()[field::HOP_LIMIT]
    }

    /// Source address.
    #[inline]
    pub fn src_addr(&self) -> Ipv6Addr {
        addr(&self.buffer.as_ref()[field::SRC_ADDR])
    }

    /// Destination address.
    #[inline]
    pub fn dst_addr(&self) -> Ipv6Addr {
        addr(&self.buffer.as_ref()[field::DST_ADDR])
    }

    /// The payload, up to the payload length.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        let end = HEADER_LEN + self.payload_len() as usize;
        &self.buffer.as_ref()[HEADER_LEN..end]
    }
}

fn addr(b: &[u8]) -> Ipv6Addr {
    let mut a = [0u8; 16];
    a.copy_from_slice(b);
    Ipv6Addr::from(a)
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    #[inline]
    fn set_word0(&mut self, w: u32) {
        write_u32(self.buffer.as_mut(), field::VER_TC_FLOW, w)
    }

    /// Sets the version (low 4 bits of `v`).
    #[inline]
    pub fn set_version(&mut self, v: u8) {
        let w = (self.word0() & 0x0fff_ffff) | ((v as u32 & 0x0f) << 28);
        self.set_word0(w)
    }

    /// Sets the traffic class.
    #[inline]
    pub fn set_traffic_class(&mut self, v: u8) {
        let w = (self.word0() & 0xf00f_ffff) | ((v as u32) << 20);
        self.set_word0(w)
    }

    /// Sets the flow label (low 20 bits of `v`).
    #[inline]
    pub fn set_flow_label(&mut self, v: u32) {
        let w = (self.word0() & 0xfff0_0000) | (v & 0x000f_ffff);
        self.set_word0(w)
    }

    /// Sets the payload length.
    #[inline]
    pub fn set_payload_len(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::LENGTH, v)
    }

    /// Sets the next header.
    #[inline]
    pub fn set_next_header(&mut self, v: IpProtocol) {
        self.buffer.as_mut()[field::NXT_HDR] = v.0
    }

    /// Sets the hop limit.
    #[inline]
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[field::HOP_LIMIT] = v
    }

    /// Sets the source address.
    #[inline]
    pub fn set_src_addr(&mut self, a: Ipv6Addr) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a.octets())
    }

    /// Sets the destination address.
    #[inline]
    pub fn set_dst_addr(&mut self, a: Ipv6Addr) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a.octets())
    }

    /// The payload, writable.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let end = HEADER_LEN + self.payload_len() as usize;
        &mut self.buffer.as_mut()[HEADER_LEN..end]
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Ipv6Packet<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// The meaning of an IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv6Repr {
    /// Source address.
    pub src_addr: Ipv6Addr,
    /// Destination address.
    pub dst_addr: Ipv6Addr,
    /// Next header.
    pub next_header: IpProtocol,
    /// Payload length in bytes.
    pub payload_len: usize,
    /// Hop limit.
    pub hop_limit: u8,
    /// Traffic class.
    pub traffic_class: u8,
    /// Flow label (20 bits).
    pub flow_label: u32,
}

impl Ipv6Repr {
    /// Reads the header: lengths and version 6.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Result<Ipv6Repr> {
        p.check_len()?;
        if p.version() != 6 {
            return Err(WireError::BadVersion {
                header: "IPv6",
                expected: 6,
                found: p.version(),
            });
        }
        Ok(Ipv6Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            next_header: p.next_header(),
            payload_len: p.payload_len() as usize,
            hop_limit: p.hop_limit(),
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
        })
    }

    /// Header bytes [`emit`](Self::emit) writes: 40.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the 40-byte header into a buffer at least that long.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv6Packet<T>) {
        p.set_word0(
            (6 << 28) | ((self.traffic_class as u32) << 20) | (self.flow_label & 0x000f_ffff),
        );
        p.set_payload_len(self.payload_len.min(u16::MAX as usize) as u16);
        p.set_next_header(self.next_header);
        p.set_hop_limit(self.hop_limit);
        p.set_src_addr(self.src_addr);
        p.set_dst_addr(self.dst_addr);
    }
}

/// Length of the IPv6 Fragment extension header (RFC 8200 section 4.5).
pub const FRAGMENT_HEADER_LEN: usize = 8;

view! {
    /// A view of an IPv6 Fragment extension header (RFC 8200 section 4.5):
    ///
    /// ```text
    /// +---------------+---------------+-------------------------+-----+-+
    /// |  Next Header  |   Reserved    |     Fragment Offset     | Res |M|
    /// +---------------+---------------+-------------------------+-----+-+
    /// |                        Identification                           |
    /// +-----------------------------------------------------------------+
    /// ```
    pub struct Ipv6FragmentHeader;
}

impl<T: AsRef<[u8]>> Ipv6FragmentHeader<T> {
    /// Checks that the buffer holds the header's 8 bytes.
    pub fn check_len(&self) -> Result<()> {
        check_room(
            "IPv6 fragment",
            FRAGMENT_HEADER_LEN,
            self.buffer.as_ref().len(),
        )
    }

    /// The header after this one.
    #[inline]
    pub fn next_header(&self) -> IpProtocol {
        IpProtocol(self.buffer.as_ref()[0])
    }

    /// The fragment's offset in bytes (a multiple of 8).
    #[inline]
    pub fn frag_offset(&self) -> u16 {
        read_u16(self.buffer.as_ref(), 2) & !7
    }

    /// The M flag: more fragments follow.
    #[inline]
    pub fn more_frags(&self) -> bool {
        read_u16(self.buffer.as_ref(), 2) & 1 != 0
    }

    /// The identification.
    #[inline]
    pub fn ident(&self) -> u32 {
        read_u32(self.buffer.as_ref(), 4)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6FragmentHeader<T> {
    /// Sets the next header.
    #[inline]
    pub fn set_next_header(&mut self, v: IpProtocol) {
        self.buffer.as_mut()[0] = v.0
    }

    /// Sets the fragment offset in bytes (`bytes` a multiple of 8; its low
    /// 3 bits are ignored), leaving the flags.
    #[inline]
    pub fn set_frag_offset(&mut self, bytes: u16) {
        let w = (read_u16(self.buffer.as_ref(), 2) & 7) | (bytes & !7);
        write_u16(self.buffer.as_mut(), 2, w)
    }

    /// Sets or clears the M flag.
    #[inline]
    pub fn set_more_frags(&mut self, on: bool) {
        let w = (read_u16(self.buffer.as_ref(), 2) & !1) | u16::from(on);
        write_u16(self.buffer.as_mut(), 2, w)
    }

    /// Sets the identification.
    #[inline]
    pub fn set_ident(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), 4, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A UDP/IPv6 header: TC 0xb8, flow 0x12345, payload 12, hop limit 64,
    /// 2001:db8::1 -> ff02::1, then 12 payload bytes.
    const PKT: [u8; 52] = [
        0x6b, 0x81, 0x23, 0x45, 0x00, 0x0c, 0x11, 0x40, //
        0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, //
        0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, //
        0x04, 0xd2, 0x16, 0x2e, 0x00, 0x0c, 0x00, 0x00, b'p', b'i', b'n', b'g',
    ];

    #[test]
    fn fragment_header_fields() {
        let b = [17u8, 0, 0x05, 0xa9, 0xde, 0xad, 0xbe, 0xef];
        let f = Ipv6FragmentHeader::new_checked(&b[..]).unwrap();
        assert_eq!(f.next_header(), IpProtocol::UDP);
        assert_eq!(f.frag_offset(), 0x05a8);
        assert!(f.more_frags());
        assert_eq!(f.ident(), 0xdead_beef);
        assert!(Ipv6FragmentHeader::new_checked(&b[..7]).is_err());

        let mut w = [0u8; FRAGMENT_HEADER_LEN];
        let mut f = Ipv6FragmentHeader::new_unchecked(&mut w[..]);
        f.set_next_header(IpProtocol::UDP);
        f.set_frag_offset(0x05a8);
        f.set_more_frags(true);
        f.set_ident(0xdead_beef);
        assert_eq!(w, b);
        let mut f = Ipv6FragmentHeader::new_unchecked(&mut w[..]);
        f.set_more_frags(false);
        assert_eq!(f.frag_offset(), 0x05a8);
        f.set_frag_offset(8);
        assert!(!f.more_frags());
        assert_eq!(&w[2..4], &[0, 8]);
    }

    #[test]
    fn accept() {
        let p = Ipv6Packet::new_checked(&PKT[..]).unwrap();
        assert_eq!(p.version(), 6);
        assert_eq!(p.traffic_class(), 0xb8);
        assert_eq!(p.flow_label(), 0x12345);
        assert_eq!(p.payload_len(), 12);
        assert_eq!(p.next_header(), IpProtocol::UDP);
        assert_eq!(p.hop_limit(), 64);
        assert_eq!(p.src_addr(), "2001:db8::1".parse::<Ipv6Addr>().unwrap());
        assert_eq!(p.dst_addr(), "ff02::1".parse::<Ipv6Addr>().unwrap());
        assert_eq!(p.payload(), &PKT[40..]);
    }

    #[test]
    fn reject_lengths_and_version() {
        assert_eq!(
            Ipv6Packet::new_checked(&PKT[..39]).unwrap_err(),
            WireError::Truncated {
                header: "IPv6",
                needed: 40,
                available: 39
            }
        );
        assert_eq!(
            Ipv6Packet::new_checked(&PKT[..51]).unwrap_err(),
            WireError::BadTotalLength {
                header: "IPv6",
                len: 52,
                min: 40,
                available: 51
            }
        );
        let mut b = PKT;
        b[0] = 0x4b;
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(
            Ipv6Repr::parse(&p).unwrap_err(),
            WireError::BadVersion {
                header: "IPv6",
                expected: 6,
                found: 4
            }
        );
    }

    #[test]
    fn overlong_buffer_ignores_trailer() {
        let mut v = PKT.to_vec();
        v.extend_from_slice(&[0; 8]);
        let p = Ipv6Packet::new_checked(&v[..]).unwrap();
        assert_eq!(p.payload().len(), 12);
    }

    #[test]
    fn repr_round_trip_and_setters() {
        let repr = Ipv6Repr::parse(&Ipv6Packet::new_checked(&PKT[..]).unwrap()).unwrap();
        assert_eq!(repr.payload_len, 12);
        let mut out = [0u8; 40];
        repr.emit(&mut Ipv6Packet::new_unchecked(&mut out[..]));
        assert_eq!(&out[..], &PKT[..40]);
        assert_eq!(repr.buffer_len(), 40);

        let mut b = PKT;
        let mut p = Ipv6Packet::new_checked(&mut b[..]).unwrap();
        p.set_traffic_class(0x01);
        p.set_flow_label(0xfffff);
        assert_eq!(
            (p.version(), p.traffic_class(), p.flow_label()),
            (6, 1, 0xfffff)
        );
        p.set_version(7);
        p.set_hop_limit(1);
        p.set_next_header(IpProtocol::ICMPV6);
        p.set_src_addr(Ipv6Addr::LOCALHOST);
        p.set_dst_addr(Ipv6Addr::UNSPECIFIED);
        p.set_payload_len(4);
        p.payload_mut().copy_from_slice(b"abcd");
        assert_eq!(&b[..8], &[0x70, 0x1f, 0xff, 0xff, 0x00, 0x04, 58, 1]);
        assert_eq!(b[23], 1);
        assert_eq!(&b[40..44], b"abcd");
    }
}
