//! IPv4 headers (RFC 791), with options.
//!
//! ```text
//!  0                   1                   2                   3
//! +-------+-------+---------------+-------------------------------+
//! |Version|  IHL  |  TOS (DS/ECN) |          Total Length         |
//! +-------+-------+---------------+-----+-------------------------+
//! |         Identification        |Flags|     Fragment Offset     |
//! +---------------+---------------+-----+-------------------------+
//! |      TTL      |    Protocol   |        Header Checksum        |
//! +---------------+---------------+-------------------------------+
//! |                        Source Address                         |
//! |                      Destination Address                      |
//! |                    Options (IHL*4 - 20 bytes)                 |
//! +---------------------------------------------------------------+
//! ```
//!
//! [`Ipv4Packet::new_checked`] checks the lengths Click's `CheckIPHeader`
//! checks: 20 bytes present, IHL at least 5, the whole header present,
//! total length at least the header length and no more than the bytes
//! present. Bytes past the total length (Ethernet padding) are ignored by
//! [`Ipv4Packet::payload`]. Version and checksum are checked by
//! [`Ipv4Repr::parse`] or by the element.
//!
//! Options (their kinds, the borrowed [`Ipv4Option`], the validating
//! iterator and the writing of options) are in `options.rs`.

use core::fmt;
use std::net::Ipv4Addr;

use crate::checksum;
use crate::{check_header_room, check_total_len, read_u16, write_u16, Result, WireError};

mod options;
pub use options::{option_kind, reverse_source_route, Ipv4Option, Ipv4OptionIter};
pub use options::{push_timestamp, read_timestamp, write_timestamp};

/// An IP protocol number (the IPv4 protocol field, the IPv6 next header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IpProtocol(pub u8);

impl IpProtocol {
    /// IPv6 hop-by-hop options, 0.
    pub const HOPOPTS: IpProtocol = IpProtocol(0);
    /// ICMP, 1.
    pub const ICMP: IpProtocol = IpProtocol(1);
    /// IGMP, 2.
    pub const IGMP: IpProtocol = IpProtocol(2);
    /// IP in IP, 4.
    pub const IPIP: IpProtocol = IpProtocol(4);
    /// TCP, 6.
    pub const TCP: IpProtocol = IpProtocol(6);
    /// UDP, 17.
    pub const UDP: IpProtocol = IpProtocol(17);
    /// IPv6 encapsulation, 41.
    pub const IPV6: IpProtocol = IpProtocol(41);
    /// IPv6 routing header, 43.
    pub const IPV6_ROUTE: IpProtocol = IpProtocol(43);
    /// IPv6 fragment header, 44.
    pub const IPV6_FRAG: IpProtocol = IpProtocol(44);
    /// GRE, 47.
    pub const GRE: IpProtocol = IpProtocol(47);
    /// ESP, 50.
    pub const ESP: IpProtocol = IpProtocol(50);
    /// AH, 51.
    pub const AH: IpProtocol = IpProtocol(51);
    /// ICMPv6, 58.
    pub const ICMPV6: IpProtocol = IpProtocol(58);
    /// IPv6 no next header, 59.
    pub const IPV6_NONXT: IpProtocol = IpProtocol(59);
    /// IPv6 destination options, 60.
    pub const IPV6_OPTS: IpProtocol = IpProtocol(60);
    /// SCTP, 132.
    pub const SCTP: IpProtocol = IpProtocol(132);
}

impl From<u8> for IpProtocol {
    fn from(v: u8) -> Self {
        IpProtocol(v)
    }
}

impl From<IpProtocol> for u8 {
    fn from(v: IpProtocol) -> Self {
        v.0
    }
}

impl fmt::Display for IpProtocol {
    /// Click's names (`icmp`, `igmp`, `ipip`, `tcp`, `udp`), else the number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IpProtocol::ICMP => f.write_str("icmp"),
            IpProtocol::IGMP => f.write_str("igmp"),
            IpProtocol::IPIP => f.write_str("ipip"),
            IpProtocol::TCP => f.write_str("tcp"),
            IpProtocol::UDP => f.write_str("udp"),
            IpProtocol(v) => write!(f, "{v}"),
        }
    }
}

/// Byte ranges of the IPv4 header.
pub mod field {
    use core::ops::Range;
    /// Version (high nibble) and IHL (low nibble).
    pub const VER_IHL: usize = 0;
    /// Type of service: DSCP (6 bits) and ECN (2 bits).
    pub const TOS: usize = 1;
    /// Total length (offset).
    pub const LENGTH: usize = 2;
    /// Identification (offset).
    pub const IDENT: usize = 4;
    /// Flags (3 bits) and fragment offset (13 bits) (offset).
    pub const FLG_OFF: usize = 6;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol.
    pub const PROTOCOL: usize = 9;
    /// Header checksum (offset).
    pub const CHECKSUM: usize = 10;
    /// Source address.
    pub const SRC_ADDR: Range<usize> = 12..16;
    /// Destination address.
    pub const DST_ADDR: Range<usize> = 16..20;
}

/// Length of an IPv4 header without options.
pub const HEADER_LEN: usize = 20;
/// The longest IPv4 header (IHL 15).
pub const MAX_HEADER_LEN: usize = 60;

/// The reserved ("evil") flag bit of the flags/offset word.
pub const FLAG_RESERVED: u16 = 0x8000;
/// The don't-fragment flag bit (Click's `IP_DF`).
pub const FLAG_DF: u16 = 0x4000;
/// The more-fragments flag bit (Click's `IP_MF`).
pub const FLAG_MF: u16 = 0x2000;
/// The fragment offset bits, in 8-byte units (Click's `IP_OFFMASK`).
pub const OFFSET_MASK: u16 = 0x1fff;

view! {
    /// A view of an IPv4 packet: header, options and payload.
    pub struct Ipv4Packet;
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Checks, in order: 20 bytes present; IHL at least 5; the whole header
    /// (options included) present; total length at least the header
    /// length; total length no more than the bytes present.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        let hl = check_header_room("IPv4", HEADER_LEN, len, || self.header_len().into())?;
        check_total_len("IPv4", self.total_len().into(), hl, len)
    }

    /// Version (4 for IPv4).
    #[inline]
    pub fn version(&self) -> u8 {
        self.buffer.as_ref()[field::VER_IHL] >> 4
    }

    /// Header length in bytes (IHL × 4), options included.
    #[inline]
    pub fn header_len(&self) -> u8 {
        (self.buffer.as_ref()[field::VER_IHL] & 0x0f) * 4
    }

    /// The type-of-service byte (DSCP and ECN together; Click's `ip_tos`).
    #[inline]
    pub fn tos(&self) -> u8 {
        self.buffer.as_ref()[field::TOS]
    }

    /// Differentiated services code point (the high 6 bits of TOS).
    #[inline]
    pub fn dscp(&self) -> u8 {
        self.tos() >> 2
    }

    /// Explicit congestion notification (the low 2 bits of TOS).
    #[inline]
    pub fn ecn(&self) -> u8 {
        self.tos() & 0x03
    }

    /// Total length of header and payload, in bytes.
    #[inline]
    pub fn total_len(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::LENGTH)
    }

    /// Identification.
    #[inline]
    pub fn ident(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::IDENT)
    }

    /// The raw flags/fragment-offset word (Click's `ip_off`, host order).
    #[inline]
    pub fn flags_frag_offset(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::FLG_OFF)
    }

    /// The reserved flag bit.
    #[inline]
    pub fn reserved_flag(&self) -> bool {
        self.flags_frag_offset() & FLAG_RESERVED != 0
    }

    /// Don't fragment.
    #[inline]
    pub fn dont_frag(&self) -> bool {
        self.flags_frag_offset() & FLAG_DF != 0
    }

    /// More fragments.
    #[inline]
    pub fn more_frags(&self) -> bool {
        self.flags_frag_offset() & FLAG_MF != 0
    }

    /// Fragment offset **in bytes** (the field × 8).
    #[inline]
    pub fn frag_offset(&self) -> u16 {
        (self.flags_frag_offset() & OFFSET_MASK) << 3
    }

    /// Whether this is a fragment (MF set or a nonzero offset).
    #[inline]
    pub fn is_fragment(&self) -> bool {
        self.flags_frag_offset() & (FLAG_MF | OFFSET_MASK) != 0
    }

    /// Time to live.
    #[inline]
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }

    /// Protocol of the payload.
    #[inline]
    pub fn protocol(&self) -> IpProtocol {
        IpProtocol(self.buffer.as_ref()[field::PROTOCOL])
    }

    /// Header checksum as stored.
    #[inline]
    pub fn checksum(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// Source address.
    #[inline]
    pub fn src_addr(&self) -> Ipv4Addr {
        let b = &self.buffer.as_ref()[field::SRC_ADDR];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }

    /// Destination address.
    #[inline]
    pub fn dst_addr(&self) -> Ipv4Addr {
        let b = &self.buffer.as_ref()[field::DST_ADDR];
        Ipv4Addr::new(b[0], b[1], b[2], b[3])
    }

    /// The whole header, options included.
    #[inline]
    pub fn header(&self) -> &[u8] {
        &self.buffer.as_ref()[..self.header_len() as usize]
    }

    /// The option bytes (empty when IHL is 5).
    #[inline]
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len() as usize]
    }

    /// An iterator over the options that validates each option's length.
    pub fn options_iter(&self) -> Ipv4OptionIter<'_> {
        Ipv4OptionIter::new(self.options())
    }

    /// The payload: from the end of the header to the total length.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len() as usize..self.total_len() as usize]
    }

    /// Whether the header checksum is correct.
    #[inline]
    pub fn verify_checksum(&self) -> bool {
        checksum::verify(self.header())
    }

    /// The checksum the header calls for (computed with the field as zero).
    pub fn compute_checksum(&self) -> u16 {
        let h = self.header();
        !checksum::add(
            checksum::sum(&h[..field::CHECKSUM]),
            checksum::sum(&h[field::CHECKSUM + 2..]),
        )
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    /// Sets the version nibble.
    #[inline]
    pub fn set_version(&mut self, v: u8) {
        let b = &mut self.buffer.as_mut()[field::VER_IHL];
        *b = (*b & 0x0f) | (v << 4);
    }

    /// Sets the header length in bytes (rounded down to a multiple of 4).
    #[inline]
    pub fn set_header_len(&mut self, len: u8) {
        let b = &mut self.buffer.as_mut()[field::VER_IHL];
        *b = (*b & 0xf0) | ((len / 4) & 0x0f);
    }

    /// Sets the type-of-service byte.
    #[inline]
    pub fn set_tos(&mut self, v: u8) {
        self.buffer.as_mut()[field::TOS] = v
    }

    /// Sets the DSCP (low 6 bits of `v`), keeping ECN.
    #[inline]
    pub fn set_dscp(&mut self, v: u8) {
        let tos = (self.tos() & 0x03) | (v << 2);
        self.set_tos(tos)
    }

    /// Sets the ECN bits (low 2 bits of `v`), keeping DSCP.
    #[inline]
    pub fn set_ecn(&mut self, v: u8) {
        let tos = (self.tos() & 0xfc) | (v & 0x03);
        self.set_tos(tos)
    }

    /// Sets the total length.
    #[inline]
    pub fn set_total_len(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::LENGTH, v)
    }

    /// Sets the identification.
    #[inline]
    pub fn set_ident(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::IDENT, v)
    }

    /// Sets the raw flags/fragment-offset word.
    #[inline]
    pub fn set_flags_frag_offset(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::FLG_OFF, v)
    }

    fn set_flag(&mut self, flag: u16, on: bool) {
        let w = self.flags_frag_offset();
        self.set_flags_frag_offset(if on { w | flag } else { w & !flag })
    }

    /// Sets or clears don't-fragment.
    #[inline]
    pub fn set_dont_frag(&mut self, on: bool) {
        self.set_flag(FLAG_DF, on)
    }

    /// Sets or clears more-fragments.
    #[inline]
    pub fn set_more_frags(&mut self, on: bool) {
        self.set_flag(FLAG_MF, on)
    }

    /// Sets the fragment offset from a byte count (which should be a
    /// multiple of 8; the low 3 bits are dropped).
    #[inline]
    pub fn set_frag_offset(&mut self, bytes: u16) {
        let w = (self.flags_frag_offset() & !OFFSET_MASK) | (bytes >> 3);
        self.set_flags_frag_offset(w)
    }

    /// Sets the time to live.
    #[inline]
    pub fn set_ttl(&mut self, v: u8) {
        self.buffer.as_mut()[field::TTL] = v
    }

    /// Sets the protocol.
    #[inline]
    pub fn set_protocol(&mut self, v: IpProtocol) {
        self.buffer.as_mut()[field::PROTOCOL] = v.0
    }

    /// Sets the header checksum field.
    #[inline]
    pub fn set_checksum(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::CHECKSUM, v)
    }

    /// Sets the source address.
    #[inline]
    pub fn set_src_addr(&mut self, a: Ipv4Addr) {
        self.buffer.as_mut()[field::SRC_ADDR].copy_from_slice(&a.octets())
    }

    /// Sets the destination address.
    #[inline]
    pub fn set_dst_addr(&mut self, a: Ipv4Addr) {
        self.buffer.as_mut()[field::DST_ADDR].copy_from_slice(&a.octets())
    }

    /// The option bytes, writable.
    #[inline]
    pub fn options_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len() as usize;
        &mut self.buffer.as_mut()[HEADER_LEN..hl]
    }

    /// The payload, writable.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (hl, tl) = (self.header_len() as usize, self.total_len() as usize);
        &mut self.buffer.as_mut()[hl..tl]
    }

    /// Recomputes the header checksum over the whole header.
    #[inline]
    pub fn fill_checksum(&mut self) {
        let hl = self.header_len() as usize;
        self.fill_checksum_over(hl)
    }

    /// Recomputes the header checksum over the first `len` bytes, a header
    /// length known from elsewhere (Click's SetIPChecksum sums what the
    /// packet's IP header annotation covers, whatever the length field
    /// says). Panics if the buffer is shorter than `len` or 12 bytes.
    #[inline]
    pub fn fill_checksum_over(&mut self, len: usize) {
        self.set_checksum(0);
        let c = checksum::internet_checksum(&self.buffer.as_ref()[..len]);
        self.set_checksum(c)
    }

    /// Sets the TOS byte and updates the checksum incrementally (RFC 1624),
    /// as Click's SetIPDSCP and SetIPECN do.
    #[inline]
    pub fn set_tos_update_checksum(&mut self, v: u8) {
        let old = read_u16(self.buffer.as_ref(), field::VER_IHL);
        self.set_tos(v);
        let new = read_u16(self.buffer.as_ref(), field::VER_IHL);
        self.set_checksum(checksum::update_u16(self.checksum(), old, new));
    }

    /// Sets the source address and updates the checksum incrementally;
    /// returns the old address (a TCP or UDP checksum over the
    /// pseudo-header needs the same update).
    #[inline]
    pub fn set_src_addr_update_checksum(&mut self, a: Ipv4Addr) -> Ipv4Addr {
        let old = self.src_addr();
        self.set_src_addr(a);
        self.set_checksum(checksum::update_u32(self.checksum(), old.into(), a.into()));
        old
    }

    /// Sets the destination address and updates the checksum
    /// incrementally; returns the old address.
    #[inline]
    pub fn set_dst_addr_update_checksum(&mut self, a: Ipv4Addr) -> Ipv4Addr {
        let old = self.dst_addr();
        self.set_dst_addr(a);
        self.set_checksum(checksum::update_u32(self.checksum(), old.into(), a.into()));
        old
    }

    /// Click's `DecIPTTL`: decrements the TTL and updates the checksum
    /// incrementally (RFC 1624; the TTL is the high byte of its word, so
    /// the update is `~(~sum + 0xfeff)`). Returns the new TTL, or `None`,
    /// changing nothing, when the TTL is already 0. Deciding what to do
    /// with a TTL of 1 or 0 is the caller's business.
    #[inline]
    pub fn dec_ttl_update_checksum(&mut self) -> Option<u8> {
        let ttl = self.ttl().checked_sub(1)?;
        self.set_ttl(ttl);
        let sum = (!self.checksum()) as u32 + 0xfeff;
        self.set_checksum(!((sum + (sum >> 16)) as u16));
        Some(ttl)
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Ipv4Packet<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// The meaning of an IPv4 header, options aside.
///
/// [`parse`](Self::parse) accepts headers with options but does not keep
/// them; [`emit`](Self::emit) writes a 20-byte header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ipv4Repr {
    /// Source address.
    pub src_addr: Ipv4Addr,
    /// Destination address.
    pub dst_addr: Ipv4Addr,
    /// Protocol of the payload.
    pub protocol: IpProtocol,
    /// Payload length in bytes (total length minus header length).
    pub payload_len: usize,
    /// Time to live.
    pub ttl: u8,
    /// Type of service (DSCP and ECN).
    pub tos: u8,
    /// Identification.
    pub ident: u16,
    /// Don't fragment.
    pub dont_frag: bool,
    /// More fragments.
    pub more_frags: bool,
    /// Fragment offset in bytes (a multiple of 8).
    pub frag_offset: u16,
}

impl Ipv4Repr {
    /// Reads a header: lengths, version 4, and, if `verify_checksum`, the
    /// header checksum.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv4Packet<T>, verify_checksum: bool) -> Result<Ipv4Repr> {
        p.check_len()?;
        if p.version() != 4 {
            return Err(WireError::BadVersion {
                header: "IPv4",
                expected: 4,
                found: p.version(),
            });
        }
        if verify_checksum && !p.verify_checksum() {
            return Err(WireError::BadChecksum {
                header: "IPv4",
                found: p.checksum(),
                expected: p.compute_checksum(),
            });
        }
        Ok(Ipv4Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            protocol: p.protocol(),
            payload_len: p.payload().len(),
            ttl: p.ttl(),
            tos: p.tos(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            more_frags: p.more_frags(),
            frag_offset: p.frag_offset(),
        })
    }

    /// Header bytes [`emit`](Self::emit) writes: 20.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes a 20-byte header, checksum included, into a buffer of at
    /// least [`buffer_len`](Self::buffer_len) bytes. The total length is
    /// `20 + payload_len` (saturating at 65535).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv4Packet<T>) {
        p.set_version(4);
        p.set_header_len(HEADER_LEN as u8);
        p.set_tos(self.tos);
        p.set_total_len((HEADER_LEN + self.payload_len).min(u16::MAX as usize) as u16);
        p.set_ident(self.ident);
        let mut w = (self.frag_offset >> 3) & OFFSET_MASK;
        if self.dont_frag {
            w |= FLAG_DF;
        }
        if self.more_frags {
            w |= FLAG_MF;
        }
        p.set_flags_frag_offset(w);
        p.set_ttl(self.ttl);
        p.set_protocol(self.protocol);
        p.set_src_addr(self.src_addr);
        p.set_dst_addr(self.dst_addr);
        p.fill_checksum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::UDP64;

    fn udp64_ip() -> [u8; 50] {
        let mut b = [0u8; 50];
        b.copy_from_slice(&UDP64[14..]);
        b
    }

    /// An ICMP echo with options: NOP, RR (3 slots, one used), RA, TS
    /// (2 slots), EOL, padding. IHL 15.
    pub(crate) fn with_options() -> Vec<u8> {
        let mut h = vec![
            0x4f, 0x00, 0x00, 0x44, 0x12, 0x34, 0x40, 0x00, 0x40, 0x01, 0x00, 0x00, //
            192, 168, 1, 1, 192, 168, 1, 2,
        ];
        h.push(option_kind::NOP); // offset 20
        h.extend_from_slice(&[option_kind::RR, 15, 8, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]); // 21
        h.extend_from_slice(&[option_kind::RA, 4, 0, 0]); // 36
        h.extend_from_slice(&[option_kind::TS, 12, 5, 0x10, 0, 0, 0, 0, 0, 0, 0, 0]); // 40
        h.extend_from_slice(&[option_kind::EOL, 0, 0, 0, 0, 0, 0, 0]); // 52..60
        assert_eq!(h.len(), 60);
        h.extend_from_slice(&[8, 0, 0xf7, 0xff, 0, 0, 0, 0]);
        let mut p = Ipv4Packet::new_unchecked(&mut h[..]);
        p.fill_checksum();
        h
    }

    #[test]
    fn accept_udp64() {
        let b = udp64_ip();
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!(p.version(), 4);
        assert_eq!(p.header_len(), 20);
        assert_eq!(p.tos(), 0);
        assert_eq!((p.dscp(), p.ecn()), (0, 0));
        assert_eq!(p.total_len(), 50);
        assert_eq!(p.ident(), 0);
        assert!(!p.dont_frag() && !p.more_frags() && !p.reserved_flag());
        assert_eq!(p.frag_offset(), 0);
        assert!(!p.is_fragment());
        assert_eq!(p.ttl(), 64);
        assert_eq!(p.protocol(), IpProtocol::UDP);
        assert_eq!(p.checksum(), 0x65b8);
        assert!(p.verify_checksum());
        assert_eq!(p.compute_checksum(), 0x65b8);
        assert_eq!(p.src_addr(), Ipv4Addr::new(10, 0, 0, 2));
        assert_eq!(p.dst_addr(), Ipv4Addr::new(10, 0, 1, 2));
        assert!(p.options().is_empty());
        assert_eq!(p.options_iter().count(), 0);
        assert_eq!(p.payload().len(), 30);
        assert_eq!(&p.payload()[..2], &[0x04, 0xd2]);
    }

    #[test]
    fn reject_short_buffer() {
        let b = udp64_ip();
        assert_eq!(
            Ipv4Packet::new_checked(&b[..19]).unwrap_err(),
            WireError::Truncated {
                header: "IPv4",
                needed: 20,
                available: 19
            }
        );
    }

    #[test]
    fn reject_bad_header_length() {
        let mut b = udp64_ip();
        b[0] = 0x44;
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            WireError::BadHeaderLength {
                header: "IPv4",
                len: 16,
                min: 20
            }
        );
    }

    #[test]
    fn reject_header_past_buffer() {
        let mut b = udp64_ip();
        b[0] = 0x4f; // 60-byte header, 50 bytes present
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            WireError::Truncated {
                header: "IPv4",
                needed: 60,
                available: 50
            }
        );
    }

    #[test]
    fn reject_total_length() {
        let mut b = udp64_ip();
        b[2..4].copy_from_slice(&19u16.to_be_bytes());
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            WireError::BadTotalLength {
                header: "IPv4",
                len: 19,
                min: 20,
                available: 50
            }
        );
        b[2..4].copy_from_slice(&51u16.to_be_bytes());
        assert_eq!(
            Ipv4Packet::new_checked(&b[..]).unwrap_err(),
            WireError::BadTotalLength {
                header: "IPv4",
                len: 51,
                min: 20,
                available: 50
            }
        );
        // Exactly the header: empty payload.
        b[2..4].copy_from_slice(&20u16.to_be_bytes());
        assert!(Ipv4Packet::new_checked(&b[..])
            .unwrap()
            .payload()
            .is_empty());
    }

    #[test]
    fn overlong_buffer_ignores_trailer() {
        let mut v = udp64_ip().to_vec();
        v.extend_from_slice(&[0xee; 10]); // Ethernet padding
        let p = Ipv4Packet::new_checked(&v[..]).unwrap();
        assert_eq!(p.payload().len(), 30);
        assert_eq!(p.payload(), &UDP64[34..]);
    }

    #[test]
    fn reject_version_and_checksum_in_repr() {
        let mut b = udp64_ip();
        b[0] = 0x65;
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!(
            Ipv4Repr::parse(&p, true).unwrap_err(),
            WireError::BadVersion {
                header: "IPv4",
                expected: 4,
                found: 6
            }
        );
        let mut b = udp64_ip();
        b[8] = 63; // TTL changed, checksum not updated
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert!(!p.verify_checksum());
        assert_eq!(
            Ipv4Repr::parse(&p, true).unwrap_err(),
            WireError::BadChecksum {
                header: "IPv4",
                found: 0x65b8,
                expected: 0x66b8
            }
        );
        assert!(Ipv4Repr::parse(&p, false).is_ok());
    }

    #[test]
    fn repr_round_trip() {
        let b = udp64_ip();
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        let repr = Ipv4Repr::parse(&p, true).unwrap();
        assert_eq!(
            repr,
            Ipv4Repr {
                src_addr: Ipv4Addr::new(10, 0, 0, 2),
                dst_addr: Ipv4Addr::new(10, 0, 1, 2),
                protocol: IpProtocol::UDP,
                payload_len: 30,
                ttl: 64,
                tos: 0,
                ident: 0,
                dont_frag: false,
                more_frags: false,
                frag_offset: 0,
            }
        );
        let mut out = [0xffu8; 20];
        repr.emit(&mut Ipv4Packet::new_unchecked(&mut out[..]));
        assert_eq!(&out[..], &b[..20]);
        assert_eq!(repr.buffer_len(), 20);

        let frag = Ipv4Repr {
            dont_frag: true,
            more_frags: true,
            frag_offset: 1480,
            tos: 0xb8,
            ident: 0xbeef,
            ..repr
        };
        let mut out = [0u8; 20];
        frag.emit(&mut Ipv4Packet::new_unchecked(&mut out[..]));
        let mut whole = out.to_vec();
        whole.resize(50, 0);
        let q = Ipv4Packet::new_checked(&whole[..]).unwrap();
        assert!(q.verify_checksum());
        assert_eq!(q.flags_frag_offset(), 0x4000 | 0x2000 | 185);
        assert_eq!((q.dscp(), q.ecn()), (46, 0));
        assert_eq!(Ipv4Repr::parse(&q, true).unwrap(), frag);
    }

    #[test]
    fn setters() {
        let mut b = udp64_ip();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        p.set_dscp(46);
        p.set_ecn(3);
        assert_eq!(p.tos(), 0xbb);
        p.set_ecn(1);
        assert_eq!(p.dscp(), 46);
        p.set_dont_frag(true);
        p.set_more_frags(true);
        p.set_frag_offset(64);
        assert!(p.is_fragment());
        p.set_more_frags(false);
        assert_eq!(p.flags_frag_offset(), 0x4008);
        assert_eq!(p.frag_offset(), 64);
        p.set_ident(7);
        p.set_ttl(1);
        p.set_protocol(IpProtocol::TCP);
        p.set_src_addr(Ipv4Addr::new(1, 2, 3, 4));
        p.set_dst_addr(Ipv4Addr::BROADCAST);
        p.fill_checksum();
        assert!(p.verify_checksum());
        p.payload_mut()[0] = 0xaa;
        p.set_version(6);
        p.set_header_len(24);
        assert_eq!(b[0], 0x66);
        assert_eq!(b[20], 0xaa);
        assert_eq!(&b[16..20], &[255; 4]);
    }

    #[test]
    fn incremental_setters_keep_the_checksum_right() {
        let mut b = udp64_ip();
        let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
        p.set_tos_update_checksum(0xb8);
        assert_eq!(p.tos(), 0xb8);
        assert!(p.verify_checksum());
        let old = p.set_src_addr_update_checksum(Ipv4Addr::new(192, 0, 2, 1));
        assert_eq!(old, Ipv4Addr::new(10, 0, 0, 2));
        assert!(p.verify_checksum());
        let old = p.set_dst_addr_update_checksum(Ipv4Addr::new(198, 51, 100, 7));
        assert_eq!(old, Ipv4Addr::new(10, 0, 1, 2));
        assert_eq!(p.dst_addr(), Ipv4Addr::new(198, 51, 100, 7));
        assert!(p.verify_checksum());
    }

    #[test]
    fn fill_checksum_over_sums_the_length_given() {
        let mut b = udp64_ip();
        Ipv4Packet::new_unchecked(&mut b[..]).fill_checksum_over(20);
        assert_eq!(&b[..20], &UDP64[14..34]);
        // 24 bytes summed (as SetIPChecksum does for an annotation of 24).
        let mut p = Ipv4Packet::new_unchecked(&mut b[..]);
        p.fill_checksum_over(24);
        assert!(crate::checksum::verify(&b[..24]));
        assert!(!crate::checksum::verify(&b[..20]));
    }

    #[test]
    fn fill_checksum_matches_fixture() {
        let mut b = udp64_ip();
        b[10] = 0x12;
        b[11] = 0x34;
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        p.fill_checksum();
        assert_eq!(p.checksum(), 0x65b8);
        assert_eq!(b, udp64_ip());
    }

    #[test]
    fn dec_ttl_matches_full_recompute() {
        let mut b = udp64_ip();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        assert_eq!(p.dec_ttl_update_checksum(), Some(63));
        assert_eq!(p.checksum(), 0x66b8);
        // Every TTL, with varied other fields, against a full recomputation.
        for ttl in 1..=255u8 {
            for ident in [0u16, 1, 0x00ff, 0xfeff, 0xffff, 0x1234] {
                let mut b = udp64_ip();
                let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
                p.set_ttl(ttl);
                p.set_ident(ident);
                p.fill_checksum();
                assert_eq!(p.dec_ttl_update_checksum(), Some(ttl - 1));
                let incremental = p.checksum();
                p.fill_checksum();
                assert_eq!(incremental, p.checksum(), "ttl {ttl} ident {ident:#x}");
            }
        }
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        p.set_ttl(0);
        let before = b;
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        assert_eq!(p.dec_ttl_update_checksum(), None);
        assert_eq!(b, before);
    }

    #[test]
    fn dec_ttl_agrees_with_update_u16() {
        let mut b = udp64_ip();
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        let word = u16::from_be_bytes([p.ttl(), p.protocol().0]);
        let expect = checksum::update_u16(p.checksum(), word, word - 0x0100);
        p.dec_ttl_update_checksum();
        assert_eq!(p.checksum(), expect);
    }

    #[test]
    fn protocol_names() {
        assert_eq!(IpProtocol::TCP.to_string(), "tcp");
        assert_eq!(IpProtocol(99).to_string(), "99");
        assert_eq!(u8::from(IpProtocol::UDP), 17);
    }
}
