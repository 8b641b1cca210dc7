//! ESP headers (RFC 4303): the SPI and sequence number in front of the
//! encrypted payload.
//!
//! The view's buffer starts at the ESP header; [`EspPacket::new_checked`]
//! checks that the 8 bytes of SPI and sequence number are there. What
//! follows (IV, ciphertext, ICV) depends on the SA's cipher and is left to
//! the caller.

use crate::{check_room, read_u32, write_u32, Result};

/// Byte ranges of the ESP header.
pub mod field {
    /// Security parameters index (offset).
    pub const SPI: usize = 0;
    /// Sequence number (offset).
    pub const SEQ: usize = 4;
}

/// Length of the ESP header (SPI and sequence number).
pub const HEADER_LEN: usize = 8;

view! {
    /// A view of an ESP packet.
    pub struct EspPacket;
}

impl<T: AsRef<[u8]>> EspPacket<T> {
    /// Checks that the header (SPI and sequence number) is there.
    pub fn check_len(&self) -> Result<()> {
        check_room("ESP", HEADER_LEN, self.buffer.as_ref().len())
    }

    /// Security parameters index.
    #[inline]
    pub fn spi(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::SPI)
    }

    /// Sequence number (its low 32 bits).
    #[inline]
    pub fn seq(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::SEQ)
    }

    /// What follows the header.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EspPacket<T> {
    /// Sets the security parameters index.
    #[inline]
    pub fn set_spi(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::SPI, v)
    }

    /// Sets the sequence number.
    #[inline]
    pub fn set_seq(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::SEQ, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WireError;

    #[test]
    fn reads_and_writes_spi_and_seq() {
        let mut b = [0u8; 12];
        let mut e = EspPacket::new_checked(&mut b[..]).unwrap();
        e.set_spi(0x1001);
        e.set_seq(7);
        assert_eq!((e.spi(), e.seq()), (0x1001, 7));
        assert_eq!(e.payload().len(), 4);
        assert_eq!(b[..8], [0, 0, 0x10, 0x01, 0, 0, 0, 7]);
    }

    #[test]
    fn rejects_short() {
        assert!(matches!(
            EspPacket::new_checked(&[0u8; 7][..]),
            Err(WireError::Truncated { needed: 8, .. })
        ));
        assert!(EspPacket::new_checked(&[0u8; 8][..]).is_ok());
    }
}
