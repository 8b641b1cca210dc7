//! Ethernet II frames: destination, source, EtherType, payload.

use core::fmt;
use core::str::FromStr;

use crate::{check_room, read_u16, write_u16, Result};

/// A 48-bit Ethernet (MAC) address.
///
/// `Display` prints Click's form, upper-case hex separated by dashes
/// (`00-05-4E-50-3C-1A`); [`EthernetAddress::colon`] gives the colon form.
/// `FromStr` accepts either separator, one or two hex digits per byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EthernetAddress(pub [u8; 6]);

impl EthernetAddress {
    /// The broadcast address `FF-FF-FF-FF-FF-FF`.
    pub const BROADCAST: EthernetAddress = EthernetAddress([0xff; 6]);

    /// Builds an address from the first six bytes of `bytes`.
    ///
    /// # Panics
    /// If `bytes` is shorter than six bytes.
    pub fn from_bytes(bytes: &[u8]) -> EthernetAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(&bytes[..6]);
        EthernetAddress(a)
    }

    /// The six bytes.
    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// Whether this is the broadcast address.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }

    /// Whether the group bit is set (multicast or broadcast).
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 0x01 != 0
    }

    /// Whether this is a unicast address (group bit clear).
    pub fn is_unicast(&self) -> bool {
        !self.is_multicast()
    }

    /// Whether the locally-administered bit is set.
    pub fn is_local(&self) -> bool {
        self.0[0] & 0x02 != 0
    }

    /// A value that displays as colon-separated upper-case hex
    /// (`00:05:4E:50:3C:1A`, Click's `unparse_colon`).
    pub fn colon(&self) -> impl fmt::Display + '_ {
        struct Colon<'a>(&'a [u8; 6]);
        impl fmt::Display for Colon<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let b = self.0;
                write!(
                    f,
                    "{:02X}:{:02X}:{:02X}:{:02X}:{:02X}:{:02X}",
                    b[0], b[1], b[2], b[3], b[4], b[5]
                )
            }
        }
        Colon(&self.0)
    }
}

impl fmt::Display for EthernetAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "{:02X}-{:02X}-{:02X}-{:02X}-{:02X}-{:02X}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

/// The error of parsing an [`EthernetAddress`] from text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseEthernetAddressError;

impl fmt::Display for ParseEthernetAddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("expected an Ethernet address: six hex bytes separated by ':' or '-'")
    }
}

impl std::error::Error for ParseEthernetAddressError {}

impl FromStr for EthernetAddress {
    type Err = ParseEthernetAddressError;

    fn from_str(s: &str) -> core::result::Result<Self, Self::Err> {
        let sep = if s.contains(':') { ':' } else { '-' };
        let mut out = [0u8; 6];
        let mut n = 0;
        for part in s.split(sep) {
            if n == 6
                || part.is_empty()
                || part.len() > 2
                || !part.bytes().all(|c| c.is_ascii_hexdigit())
            {
                return Err(ParseEthernetAddressError);
            }
            out[n] = u8::from_str_radix(part, 16).map_err(|_| ParseEthernetAddressError)?;
            n += 1;
        }
        if n != 6 {
            return Err(ParseEthernetAddressError);
        }
        Ok(EthernetAddress(out))
    }
}

/// An EtherType value, with constants for the protocols rclick handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EtherType(pub u16);

impl EtherType {
    /// IPv4, 0x0800.
    pub const IPV4: EtherType = EtherType(0x0800);
    /// ARP, 0x0806.
    pub const ARP: EtherType = EtherType(0x0806);
    /// Reverse ARP, 0x8035.
    pub const RARP: EtherType = EtherType(0x8035);
    /// 802.1Q VLAN tag, 0x8100.
    pub const VLAN: EtherType = EtherType(0x8100);
    /// IPv6, 0x86DD.
    pub const IPV6: EtherType = EtherType(0x86dd);
    /// 802.1ad service VLAN tag (Q-in-Q), 0x88A8.
    pub const QINQ: EtherType = EtherType(0x88a8);
    /// IEEE 802.3x PAUSE and other MAC control frames, 0x8808.
    pub const MAC_CONTROL: EtherType = EtherType(0x8808);
    /// Link Layer Discovery Protocol, 0x88CC.
    pub const LLDP: EtherType = EtherType(0x88cc);
}

impl From<u16> for EtherType {
    fn from(v: u16) -> Self {
        EtherType(v)
    }
}

impl From<EtherType> for u16 {
    fn from(v: EtherType) -> Self {
        v.0
    }
}

impl fmt::Display for EtherType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EtherType::IPV4 => f.write_str("IPv4"),
            EtherType::ARP => f.write_str("ARP"),
            EtherType::RARP => f.write_str("RARP"),
            EtherType::VLAN => f.write_str("802.1Q"),
            EtherType::IPV6 => f.write_str("IPv6"),
            EtherType::QINQ => f.write_str("802.1ad"),
            EtherType(v) => write!(f, "0x{v:04x}"),
        }
    }
}

/// Byte ranges of the Ethernet II header.
pub mod field {
    use core::ops::{Range, RangeFrom};
    /// Destination address.
    pub const DESTINATION: Range<usize> = 0..6;
    /// Source address.
    pub const SOURCE: Range<usize> = 6..12;
    /// EtherType (offset of its first byte).
    pub const ETHERTYPE: usize = 12;
    /// Everything after the header.
    pub const PAYLOAD: RangeFrom<usize> = 14..;
}

/// Length of an Ethernet II header.
pub const HEADER_LEN: usize = 14;

view! {
    /// A view of an Ethernet II frame.
    pub struct EthernetFrame;
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Checks that the buffer holds the 14-byte header.
    pub fn check_len(&self) -> Result<()> {
        check_room("Ethernet", HEADER_LEN, self.buffer.as_ref().len())
    }

    /// Length of the header (always 14).
    pub const fn header_len() -> usize {
        HEADER_LEN
    }

    /// Destination address.
    #[inline]
    pub fn dst_addr(&self) -> EthernetAddress {
        EthernetAddress::from_bytes(&self.buffer.as_ref()[field::DESTINATION])
    }

    /// Source address.
    #[inline]
    pub fn src_addr(&self) -> EthernetAddress {
        EthernetAddress::from_bytes(&self.buffer.as_ref()[field::SOURCE])
    }

    /// EtherType.
    #[inline]
    pub fn ethertype(&self) -> EtherType {
        EtherType(read_u16(self.buffer.as_ref(), field::ETHERTYPE))
    }

    /// The bytes after the header (including any trailer or padding).
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination address.
    #[inline]
    pub fn set_dst_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::DESTINATION].copy_from_slice(&a.0)
    }

    /// Sets the source address.
    #[inline]
    pub fn set_src_addr(&mut self, a: EthernetAddress) {
        self.buffer.as_mut()[field::SOURCE].copy_from_slice(&a.0)
    }

    /// Sets the EtherType.
    #[inline]
    pub fn set_ethertype(&mut self, t: EtherType) {
        write_u16(self.buffer.as_mut(), field::ETHERTYPE, t.0)
    }

    /// The bytes after the header, writable.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD]
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for EthernetFrame<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// The meaning of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EthernetRepr {
    /// Source address.
    pub src_addr: EthernetAddress,
    /// Destination address.
    pub dst_addr: EthernetAddress,
    /// EtherType.
    pub ethertype: EtherType,
}

impl EthernetRepr {
    /// Reads the header of a checked frame.
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<EthernetRepr> {
        frame.check_len()?;
        Ok(EthernetRepr {
            src_addr: frame.src_addr(),
            dst_addr: frame.dst_addr(),
            ethertype: frame.ethertype(),
        })
    }

    /// Bytes [`emit`](Self::emit) writes: 14.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header into `frame`, whose buffer must hold at least
    /// [`buffer_len`](Self::buffer_len) bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, frame: &mut EthernetFrame<T>) {
        frame.set_src_addr(self.src_addr);
        frame.set_dst_addr(self.dst_addr);
        frame.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::UDP64;
    use crate::WireError;

    #[test]
    fn accept_udp64() {
        let f = EthernetFrame::new_checked(&UDP64[..]).unwrap();
        assert_eq!(
            f.dst_addr(),
            EthernetAddress([0x00, 0x00, 0xc0, 0xae, 0x67, 0xef])
        );
        assert_eq!(
            f.src_addr(),
            EthernetAddress([0x00, 0x11, 0x22, 0x33, 0x44, 0x55])
        );
        assert_eq!(f.ethertype(), EtherType::IPV4);
        assert_eq!(f.payload().len(), 50);
        assert_eq!(f.payload()[0], 0x45);
    }

    #[test]
    fn reject_short() {
        assert_eq!(
            EthernetFrame::new_checked(&UDP64[..13]).unwrap_err(),
            WireError::Truncated {
                header: "Ethernet",
                needed: 14,
                available: 13
            }
        );
        assert!(EthernetFrame::new_checked(&[][..]).is_err());
        // Exactly a header is fine; the payload is empty.
        let f = EthernetFrame::new_checked(&UDP64[..14]).unwrap();
        assert!(f.payload().is_empty());
    }

    #[test]
    fn repr_round_trip() {
        let f = EthernetFrame::new_checked(&UDP64[..]).unwrap();
        let repr = EthernetRepr::parse(&f).unwrap();
        let mut out = [0u8; 14];
        let mut g = EthernetFrame::new_unchecked(&mut out[..]);
        repr.emit(&mut g);
        assert_eq!(&out[..], &UDP64[..14]);
        assert_eq!(repr.buffer_len(), 14);
    }

    #[test]
    fn setters() {
        let mut buf = UDP64;
        let mut f = EthernetFrame::new_checked(&mut buf[..]).unwrap();
        f.set_dst_addr(EthernetAddress::BROADCAST);
        f.set_ethertype(EtherType::ARP);
        f.payload_mut()[0] = 0x46;
        assert!(f.dst_addr().is_broadcast());
        assert_eq!(&buf[..6], &[0xff; 6]);
        assert_eq!(&buf[12..15], &[0x08, 0x06, 0x46]);
    }

    #[test]
    fn address_text() {
        let a = EthernetAddress([0x00, 0x05, 0x4e, 0x50, 0x3c, 0x1a]);
        assert_eq!(a.to_string(), "00-05-4E-50-3C-1A");
        assert_eq!(a.colon().to_string(), "00:05:4E:50:3C:1A");
        assert_eq!("00:05:4e:50:3c:1a".parse::<EthernetAddress>(), Ok(a));
        assert_eq!("00-05-4E-50-3C-1A".parse::<EthernetAddress>(), Ok(a));
        assert_eq!("0:5:4e:50:3c:1a".parse::<EthernetAddress>(), Ok(a));
        for bad in [
            "",
            "00:05:4e:50:3c",
            "00:05:4e:50:3c:1a:00",
            "00:05:4e:50:3c:1g",
            "000:05:4e:50:3c:1a",
            "00:05-4e:50:3c:1a",
            "00::4e:50:3c:1a",
        ] {
            assert!(bad.parse::<EthernetAddress>().is_err(), "{bad}");
        }
        assert!(a.is_unicast() && !a.is_local());
        assert!(EthernetAddress([0x01, 0, 0x5e, 0, 0, 1]).is_multicast());
        assert_eq!(EtherType::IPV6.to_string(), "IPv6");
        assert_eq!(EtherType(0x1234).to_string(), "0x1234");
    }
}
