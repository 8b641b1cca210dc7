//! IEEE 802.3 MAC Control frames (EtherType 0x8808), such as the 802.3x
//! PAUSE frame, after the Ethernet header.
//!
//! ```text
//! +-------------------------------+-------------------------------+
//! |            Opcode             |   Parameter (PAUSE: quanta)   |
//! +-------------------------------+-------------------------------+
//! |                  Reserved (zero) to the minimum frame           |
//! ```

use crate::{check_room, read_u16, write_u16, Result};

/// Byte offsets of the MAC Control header.
pub mod field {
    /// Opcode (offset).
    pub const OPCODE: usize = 0;
    /// The opcode's parameter; for PAUSE, the pause time in quanta of 512
    /// bit times (offset).
    pub const PARAM: usize = 2;
}

/// Length of the opcode and parameter.
pub const HEADER_LEN: usize = 4;

/// The PAUSE opcode.
pub const OP_PAUSE: u16 = 0x0001;

view! {
    /// A view of a MAC Control frame's payload.
    pub struct MacControlPacket;
}

impl<T: AsRef<[u8]>> MacControlPacket<T> {
    /// Checks that the buffer holds the opcode and parameter.
    pub fn check_len(&self) -> Result<()> {
        check_room("MAC Control", HEADER_LEN, self.buffer.as_ref().len())
    }

    /// The opcode.
    #[inline]
    pub fn opcode(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::OPCODE)
    }

    /// The parameter (the pause time of a PAUSE frame).
    #[inline]
    pub fn param(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::PARAM)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> MacControlPacket<T> {
    /// Sets the opcode.
    #[inline]
    pub fn set_opcode(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::OPCODE, v)
    }

    /// Sets the parameter.
    #[inline]
    pub fn set_param(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::PARAM, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_round_trip_and_short_buffer() {
        let mut b = [0u8; 6];
        let mut v = MacControlPacket::new_checked(&mut b[..]).unwrap();
        v.set_opcode(OP_PAUSE);
        v.set_param(390);
        assert_eq!(b, [0, 1, 1, 0x86, 0, 0]);
        let v = MacControlPacket::new_checked(&b[..]).unwrap();
        assert_eq!((v.opcode(), v.param()), (OP_PAUSE, 390));
        assert!(MacControlPacket::new_checked(&b[..3]).is_err());
    }
}
