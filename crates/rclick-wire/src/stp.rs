//! IEEE 802.1D spanning-tree BPDUs, after an 802.3 header (whose type
//! field holds the length): the LLC header, then a configuration message or
//! a topology change notification (TCN).
//!
//! ```text
//! +--------+--------+--------+-----------------+--------+--------+--------+
//! |  DSAP  |  SSAP  |  Ctrl  |   Protocol id   |Version |  Type  | Flags  |
//! +--------+--------+--------+-----------------+--------+--------+--------+
//! |                    Root id (8)                    |  Root path cost (4) |
//! |                   Bridge id (8)                   | Port id (2) |Age (2)|
//! |  Max age (2)  | Hello time (2) | Forward delay (2)|   (times in 1/256 s)
//! ```
//!
//! A TCN holds only the LLC header and the first four BPDU bytes
//! ([`TCN_LEN`]); a configuration message is [`CONFIG_LEN`] long.

use crate::{check_room, read_u16, read_u32, write_u16, write_u32, Result};

/// Byte offsets from the start of the LLC header.
pub mod field {
    /// LLC destination SAP (offset).
    pub const DSAP: usize = 0;
    /// LLC source SAP (offset).
    pub const SSAP: usize = 1;
    /// LLC control (offset).
    pub const CTRL: usize = 2;
    /// Protocol identifier, 0 (offset).
    pub const PROTOCOL: usize = 3;
    /// Protocol version, 0 (offset).
    pub const VERSION: usize = 5;
    /// BPDU type: [`TYPE_CONFIG`](super::TYPE_CONFIG) or
    /// [`TYPE_TCN`](super::TYPE_TCN) (offset).
    pub const TYPE: usize = 6;
    /// Flags: [`FLAG_TC`](super::FLAG_TC), [`FLAG_TCA`](super::FLAG_TCA) (offset).
    pub const FLAGS: usize = 7;
    /// Root identifier (offset).
    pub const ROOT_ID: usize = 8;
    /// Root path cost (offset).
    pub const ROOT_COST: usize = 16;
    /// Sending bridge's identifier (offset).
    pub const BRIDGE_ID: usize = 20;
    /// Sending port's identifier (offset).
    pub const PORT_ID: usize = 28;
    /// Message age, in 1/256 s (offset).
    pub const MESSAGE_AGE: usize = 30;
    /// Max age, in 1/256 s (offset).
    pub const MAX_AGE: usize = 32;
    /// Hello time, in 1/256 s (offset).
    pub const HELLO_TIME: usize = 34;
    /// Forward delay, in 1/256 s (offset).
    pub const FORWARD_DELAY: usize = 36;
}

/// The LLC SAP of the spanning tree protocol (both DSAP and SSAP).
pub const LLC_SAP_STP: u8 = 0x42;
/// LLC control: unnumbered information.
pub const LLC_UI: u8 = 3;
/// A configuration message.
pub const TYPE_CONFIG: u8 = 0;
/// A topology change notification.
pub const TYPE_TCN: u8 = 128;
/// Flag: topology change.
pub const FLAG_TC: u8 = 0x01;
/// Flag: topology change acknowledgment.
pub const FLAG_TCA: u8 = 0x80;
/// Length of a TCN, LLC header included.
pub const TCN_LEN: usize = 7;
/// Length of a configuration message, LLC header included.
pub const CONFIG_LEN: usize = 38;

view! {
    /// A view of a BPDU (from its LLC header on). `new_checked` asks for a
    /// configuration message's length, so every accessor is in bounds.
    pub struct BpduPacket;
}

impl<T: AsRef<[u8]>> BpduPacket<T> {
    /// Checks that the buffer holds a configuration message.
    pub fn check_len(&self) -> Result<()> {
        check_room("BPDU", CONFIG_LEN, self.buffer.as_ref().len())
    }

    /// The BPDU type.
    #[inline]
    pub fn bpdu_type(&self) -> u8 {
        self.buffer.as_ref()[field::TYPE]
    }

    /// The flags.
    #[inline]
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    /// The root identifier.
    #[inline]
    pub fn root_id(&self) -> u64 {
        read_u64(self.buffer.as_ref(), field::ROOT_ID)
    }

    /// The root path cost.
    #[inline]
    pub fn root_cost(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::ROOT_COST)
    }

    /// The sending bridge's identifier.
    #[inline]
    pub fn bridge_id(&self) -> u64 {
        read_u64(self.buffer.as_ref(), field::BRIDGE_ID)
    }

    /// The sending port's identifier.
    #[inline]
    pub fn port_id(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::PORT_ID)
    }

    /// The message age, in 1/256 s.
    #[inline]
    pub fn message_age(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::MESSAGE_AGE)
    }

    /// The max age, in 1/256 s.
    #[inline]
    pub fn max_age(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::MAX_AGE)
    }

    /// The hello time, in 1/256 s.
    #[inline]
    pub fn hello_time(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::HELLO_TIME)
    }

    /// The forward delay, in 1/256 s.
    #[inline]
    pub fn forward_delay(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::FORWARD_DELAY)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> BpduPacket<T> {
    /// Writes the LLC header (STP SAPs, UI), protocol id and version 0.
    pub fn set_llc_header(&mut self) {
        let b = self.buffer.as_mut();
        b[field::DSAP] = LLC_SAP_STP;
        b[field::SSAP] = LLC_SAP_STP;
        b[field::CTRL] = LLC_UI;
        write_u16(b, field::PROTOCOL, 0);
        b[field::VERSION] = 0;
    }

    /// Sets the BPDU type.
    #[inline]
    pub fn set_bpdu_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::TYPE] = v;
    }

    /// Sets the flags.
    #[inline]
    pub fn set_flags(&mut self, v: u8) {
        self.buffer.as_mut()[field::FLAGS] = v;
    }

    /// Sets the root identifier.
    #[inline]
    pub fn set_root_id(&mut self, v: u64) {
        write_u64(self.buffer.as_mut(), field::ROOT_ID, v)
    }

    /// Sets the root path cost.
    #[inline]
    pub fn set_root_cost(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::ROOT_COST, v)
    }

    /// Sets the sending bridge's identifier.
    #[inline]
    pub fn set_bridge_id(&mut self, v: u64) {
        write_u64(self.buffer.as_mut(), field::BRIDGE_ID, v)
    }

    /// Sets the sending port's identifier.
    #[inline]
    pub fn set_port_id(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::PORT_ID, v)
    }

    /// Sets the message age, in 1/256 s.
    #[inline]
    pub fn set_message_age(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::MESSAGE_AGE, v)
    }

    /// Sets the max age, in 1/256 s.
    #[inline]
    pub fn set_max_age(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::MAX_AGE, v)
    }

    /// Sets the hello time, in 1/256 s.
    #[inline]
    pub fn set_hello_time(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::HELLO_TIME, v)
    }

    /// Sets the forward delay, in 1/256 s.
    #[inline]
    pub fn set_forward_delay(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::FORWARD_DELAY, v)
    }
}

fn read_u64(b: &[u8], at: usize) -> u64 {
    u64::from(read_u32(b, at)) << 32 | u64::from(read_u32(b, at + 4))
}

fn write_u64(b: &mut [u8], at: usize, v: u64) {
    write_u32(b, at, (v >> 32) as u32);
    write_u32(b, at + 4, v as u32);
}

/// A bridge identifier from a priority and a MAC address: the priority in
/// the top two bytes, the address in the low six.
pub fn bridge_id(priority: u16, addr: [u8; 6]) -> u64 {
    addr.iter()
        .fold(u64::from(priority), |id, &b| id << 8 | u64::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_message_round_trip() {
        let mut b = [0u8; CONFIG_LEN];
        let mut v = BpduPacket::new_checked(&mut b[..]).unwrap();
        v.set_llc_header();
        v.set_bpdu_type(TYPE_CONFIG);
        v.set_flags(FLAG_TC | FLAG_TCA);
        v.set_root_id(0x8000_0011_2233_4455);
        v.set_root_cost(19);
        v.set_bridge_id(0x0102_0304_0506_0708);
        v.set_port_id(0x8001);
        v.set_message_age(256);
        v.set_max_age(20 * 256);
        v.set_hello_time(2 * 256);
        v.set_forward_delay(15 * 256);
        assert_eq!(b[..8], [0x42, 0x42, 3, 0, 0, 0, 0, 0x81]);
        assert_eq!(b[8..16], [0x80, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x55]);
        assert_eq!(b[16..20], [0, 0, 0, 19]);
        assert_eq!(b[20..28], [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(b[28..38], [0x80, 1, 1, 0, 20, 0, 2, 0, 15, 0]);
        let v = BpduPacket::new_checked(&b[..]).unwrap();
        assert_eq!(v.bpdu_type(), TYPE_CONFIG);
        assert_eq!(v.flags(), 0x81);
        assert_eq!(v.root_id(), 0x8000_0011_2233_4455);
        assert_eq!(v.root_cost(), 19);
        assert_eq!(v.bridge_id(), 0x0102_0304_0506_0708);
        assert_eq!(v.port_id(), 0x8001);
        assert_eq!(
            (
                v.message_age(),
                v.max_age(),
                v.hello_time(),
                v.forward_delay()
            ),
            (256, 5120, 512, 3840)
        );
    }

    #[test]
    fn short_buffer_and_tcn() {
        assert!(BpduPacket::new_checked(&[0u8; CONFIG_LEN - 1][..]).is_err());
        let mut b = [0xffu8; TCN_LEN];
        let mut v = BpduPacket::new_unchecked(&mut b[..]);
        v.set_llc_header();
        v.set_bpdu_type(TYPE_TCN);
        assert_eq!(b, [0x42, 0x42, 3, 0, 0, 0, 128]);
    }

    #[test]
    fn bridge_id_puts_the_priority_above_the_address() {
        assert_eq!(
            bridge_id(0, [0, 0x11, 0x22, 0x33, 0x44, 0x55]),
            0x0011_2233_4455
        );
        assert_eq!(bridge_id(0x8000, [1, 2, 3, 4, 5, 6]), 0x8000_0102_0304_0506);
    }
}
