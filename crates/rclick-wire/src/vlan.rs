//! 802.1Q VLAN tags: the four bytes that follow an Ethernet header whose
//! EtherType is [`EtherType::VLAN`] (or [`EtherType::QINQ`]).
//!
//! ```text
//!  0                   1                   2                   3
//! +-----+-+-----------------------+-------------------------------+
//! | PCP |D|         VID           |   encapsulated EtherType      |
//! +-----+-+-----------------------+-------------------------------+
//! ```
//!
//! Wrap the Ethernet frame's payload: `VlanTag::new_checked(eth.payload())`.

use crate::ethernet::EtherType;
use crate::{check_room, read_u16, write_u16, Result};

/// Byte ranges of an 802.1Q tag.
pub mod field {
    use core::ops::RangeFrom;
    /// Tag control information (offset of its first byte).
    pub const TCI: usize = 0;
    /// Encapsulated EtherType (offset of its first byte).
    pub const ETHERTYPE: usize = 2;
    /// Everything after the tag.
    pub const PAYLOAD: RangeFrom<usize> = 4..;
}

/// Length of an 802.1Q tag.
pub const HEADER_LEN: usize = 4;

view! {
    /// A view of an 802.1Q VLAN tag and what follows it.
    pub struct VlanTag;
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    /// Checks that the buffer holds the 4-byte tag.
    pub fn check_len(&self) -> Result<()> {
        check_room("802.1Q", HEADER_LEN, self.buffer.as_ref().len())
    }

    /// The whole tag control information: PCP (3 bits), DEI (1), VID (12).
    #[inline]
    pub fn tci(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::TCI)
    }

    /// Priority code point, 0 to 7.
    #[inline]
    pub fn pcp(&self) -> u8 {
        (self.tci() >> 13) as u8
    }

    /// Drop eligible indicator.
    #[inline]
    pub fn dei(&self) -> bool {
        self.tci() & 0x1000 != 0
    }

    /// VLAN identifier, 0 to 4095.
    #[inline]
    pub fn vid(&self) -> u16 {
        self.tci() & 0x0fff
    }

    /// The EtherType of the encapsulated frame.
    #[inline]
    pub fn ethertype(&self) -> EtherType {
        EtherType(read_u16(self.buffer.as_ref(), field::ETHERTYPE))
    }

    /// The bytes after the tag.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VlanTag<T> {
    /// Sets the whole tag control information.
    #[inline]
    pub fn set_tci(&mut self, tci: u16) {
        write_u16(self.buffer.as_mut(), field::TCI, tci)
    }

    /// Sets the priority code point (only the low 3 bits of `pcp` count).
    #[inline]
    pub fn set_pcp(&mut self, pcp: u8) {
        let tci = (self.tci() & 0x1fff) | (((pcp & 7) as u16) << 13);
        self.set_tci(tci)
    }

    /// Sets the drop eligible indicator.
    #[inline]
    pub fn set_dei(&mut self, dei: bool) {
        let tci = (self.tci() & !0x1000) | if dei { 0x1000 } else { 0 };
        self.set_tci(tci)
    }

    /// Sets the VLAN identifier (only the low 12 bits of `vid` count).
    #[inline]
    pub fn set_vid(&mut self, vid: u16) {
        let tci = (self.tci() & 0xf000) | (vid & 0x0fff);
        self.set_tci(tci)
    }

    /// Sets the encapsulated EtherType.
    #[inline]
    pub fn set_ethertype(&mut self, t: EtherType) {
        write_u16(self.buffer.as_mut(), field::ETHERTYPE, t.0)
    }

    /// The bytes after the tag, writable.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD]
    }
}

/// The meaning of an 802.1Q tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VlanRepr {
    /// Priority code point, 0 to 7.
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 0 to 4095.
    pub vid: u16,
    /// EtherType of the encapsulated frame.
    pub ethertype: EtherType,
}

impl VlanRepr {
    /// Reads a tag.
    pub fn parse<T: AsRef<[u8]>>(tag: &VlanTag<T>) -> Result<VlanRepr> {
        tag.check_len()?;
        Ok(VlanRepr {
            pcp: tag.pcp(),
            dei: tag.dei(),
            vid: tag.vid(),
            ethertype: tag.ethertype(),
        })
    }

    /// The tag control information this value encodes.
    pub fn tci(&self) -> u16 {
        ((self.pcp as u16 & 7) << 13) | if self.dei { 0x1000 } else { 0 } | (self.vid & 0x0fff)
    }

    /// Bytes [`emit`](Self::emit) writes: 4.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the tag into a buffer of at least 4 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, tag: &mut VlanTag<T>) {
        tag.set_tci(self.tci());
        tag.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ethernet::EthernetFrame;
    use crate::WireError;

    /// An ARP request tagged PCP 5, DEI 1, VID 100 (0xb064), truncated
    /// after the tag and 4 ARP bytes.
    const TAGGED: [u8; 22] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x81, 0x00, //
        0xb0, 0x64, 0x08, 0x06, //
        0x00, 0x01, 0x08, 0x00,
    ];

    #[test]
    fn accept() {
        let eth = EthernetFrame::new_checked(&TAGGED[..]).unwrap();
        assert_eq!(eth.ethertype(), EtherType::VLAN);
        let tag = VlanTag::new_checked(eth.payload()).unwrap();
        assert_eq!(tag.tci(), 0xb064);
        assert_eq!(tag.pcp(), 5);
        assert!(tag.dei());
        assert_eq!(tag.vid(), 100);
        assert_eq!(tag.ethertype(), EtherType::ARP);
        assert_eq!(tag.payload(), &[0x00, 0x01, 0x08, 0x00]);
    }

    #[test]
    fn reject_short() {
        assert_eq!(
            VlanTag::new_checked(&TAGGED[14..17]).unwrap_err(),
            WireError::Truncated {
                header: "802.1Q",
                needed: 4,
                available: 3
            }
        );
        assert!(VlanTag::new_checked(&TAGGED[14..18]).is_ok());
    }

    #[test]
    fn repr_round_trip_and_setters() {
        let tag = VlanTag::new_checked(&TAGGED[14..]).unwrap();
        let repr = VlanRepr::parse(&tag).unwrap();
        assert_eq!(
            repr,
            VlanRepr {
                pcp: 5,
                dei: true,
                vid: 100,
                ethertype: EtherType::ARP
            }
        );
        let mut out = [0u8; 4];
        repr.emit(&mut VlanTag::new_unchecked(&mut out[..]));
        assert_eq!(&out, &TAGGED[14..18]);

        let mut t = VlanTag::new_unchecked(&mut out[..]);
        t.set_vid(0xfff);
        assert_eq!((t.pcp(), t.dei(), t.vid()), (5, true, 4095));
        t.set_pcp(0);
        t.set_dei(false);
        assert_eq!(t.tci(), 0x0fff);
        t.set_pcp(0xff);
        assert_eq!(t.tci(), 0xefff);
        t.set_ethertype(EtherType::IPV6);
        assert_eq!(out, [0xef, 0xff, 0x86, 0xdd]);
    }
}
