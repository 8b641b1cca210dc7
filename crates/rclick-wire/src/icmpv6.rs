//! ICMPv6 messages (RFC 4443): the 4-byte header (type, code, checksum),
//! the 32-bit field that follows (unused, MTU, pointer, or echo
//! identifier and sequence), and the body. The checksum covers the IPv6
//! pseudo-header (RFC 8200 section 8.1).
//!
//! ```text
//! +-------+-------+---------------+
//! | Type  | Code  |   Checksum    |
//! +-------+-------+---------------+
//! |  MTU / pointer / unused       |
//! +-------------------------------+
//! |  Body ...                     |
//! ```

use std::net::Ipv6Addr;

use crate::checksum;
use crate::{check_room, read_u16, read_u32, write_u16, write_u32, Result};

/// Byte offsets of the ICMPv6 header fields.
pub mod field {
    /// Type.
    pub const TYPE: usize = 0;
    /// Code.
    pub const CODE: usize = 1;
    /// Checksum.
    pub const CHECKSUM: usize = 2;
    /// The 32-bit field after the checksum.
    pub const DATA: usize = 4;
}

/// Length of the header including the 32-bit field.
pub const HEADER_LEN: usize = 8;

/// ICMPv6 message types (RFC 4443 section 2.1).
pub mod types {
    /// Destination unreachable.
    pub const DST_UNREACH: u8 = 1;
    /// Packet too big.
    pub const PACKET_TOO_BIG: u8 = 2;
    /// Time exceeded.
    pub const TIME_EXCEEDED: u8 = 3;
    /// Parameter problem.
    pub const PARAM_PROBLEM: u8 = 4;
    /// Echo request.
    pub const ECHO_REQUEST: u8 = 128;
    /// Echo reply.
    pub const ECHO_REPLY: u8 = 129;
    /// Router Solicitation (RFC 4861).
    pub const ROUTER_SOLICIT: u8 = 133;
    /// Router Advertisement (RFC 4861).
    pub const ROUTER_ADVERT: u8 = 134;
    /// Neighbor Solicitation (RFC 4861).
    pub const NEIGHBOR_SOLICIT: u8 = 135;
    /// Neighbor Advertisement (RFC 4861).
    pub const NEIGHBOR_ADVERT: u8 = 136;
    /// Redirect (RFC 4861).
    pub const REDIRECT: u8 = 137;

    /// Whether `t` is an error message (types 0 to 127).
    pub const fn is_error(t: u8) -> bool {
        t < 128
    }
}

/// The IPv6 next-header value of ICMPv6.
pub const NEXT_HEADER: u8 = 58;

/// Neighbour discovery (RFC 4861 section 4): the Neighbor Solicitation and
/// Advertisement layout after the 8-byte ICMPv6 header (whose 32-bit field
/// holds an advertisement's flags), and the option types.
pub mod nd {
    /// The target address's offset in the message.
    pub const TARGET: usize = 8;
    /// The options' offset in the message (after the target).
    pub const OPTIONS: usize = 24;
    /// Advertisement flag: the sender is a router.
    pub const FLAG_ROUTER: u32 = 0x8000_0000;
    /// Advertisement flag: sent in answer to a solicitation.
    pub const FLAG_SOLICITED: u32 = 0x4000_0000;
    /// Advertisement flag: override an existing cache entry.
    pub const FLAG_OVERRIDE: u32 = 0x2000_0000;
    /// Option: Source Link-Layer Address.
    pub const OPT_SOURCE_LL_ADDR: u8 = 1;
    /// Option: Target Link-Layer Address.
    pub const OPT_TARGET_LL_ADDR: u8 = 2;
    /// The hop limit every neighbour discovery message has (RFC 4861
    /// sections 7.1.1 and 7.1.2: anything else was forwarded).
    pub const HOP_LIMIT: u8 = 255;

    /// Writes a link-layer address option (`kind` is
    /// [`OPT_SOURCE_LL_ADDR`] or [`OPT_TARGET_LL_ADDR`]) for the Ethernet
    /// address `addr` at the start of `out` (8 bytes: kind, length 1 in
    /// units of 8 bytes, the address). Panics if `out` is shorter.
    pub fn write_ll_addr_option(out: &mut [u8], kind: u8, addr: [u8; 6]) {
        out[..2].copy_from_slice(&[kind, 1]);
        out[2..8].copy_from_slice(&addr);
    }
}

view! {
    /// A view of an ICMPv6 message.
    pub struct Icmpv6Packet;
}

impl<T: AsRef<[u8]>> Icmpv6Packet<T> {
    /// Checks that the 8-byte header is present.
    pub fn check_len(&self) -> Result<()> {
        check_room("ICMPv6", HEADER_LEN, self.buffer.as_ref().len())
    }

    /// Message type.
    pub fn msg_type(&self) -> u8 {
        self.buffer.as_ref()[field::TYPE]
    }

    /// Code.
    pub fn code(&self) -> u8 {
        self.buffer.as_ref()[field::CODE]
    }

    /// Checksum.
    pub fn checksum(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// The 32-bit field after the checksum (MTU, pointer, or unused).
    pub fn data_field(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::DATA)
    }

    /// The body after the 8-byte header.
    pub fn body(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }

    /// Whether the checksum verifies for a message from `src` to `dst`.
    pub fn verify_checksum(&self, src: Ipv6Addr, dst: Ipv6Addr) -> bool {
        let b = self.buffer.as_ref();
        let ph = checksum::pseudo_header_v6(src, dst, NEXT_HEADER, b.len() as u32);
        checksum::combine(&[ph, checksum::sum(b)]) == 0xffff
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Icmpv6Packet<T> {
    /// Sets the type.
    pub fn set_msg_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::TYPE] = v;
    }

    /// Sets the code.
    pub fn set_code(&mut self, v: u8) {
        self.buffer.as_mut()[field::CODE] = v;
    }

    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::CHECKSUM, v);
    }

    /// Sets the 32-bit field after the checksum.
    pub fn set_data_field(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::DATA, v);
    }

    /// The body, for writing.
    pub fn body_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[HEADER_LEN..]
    }

    /// Computes and stores the checksum of the whole buffer as a message
    /// from `src` to `dst`.
    pub fn fill_checksum(&mut self, src: Ipv6Addr, dst: Ipv6Addr) {
        self.set_checksum(0);
        let b = self.buffer.as_ref();
        let ph = checksum::pseudo_header_v6(src, dst, NEXT_HEADER, b.len() as u32);
        let c = !checksum::combine(&[ph, checksum::sum(b)]);
        self.set_checksum(c);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn writes_a_link_layer_address_option() {
        let mut b = [0u8; 8];
        super::nd::write_ll_addr_option(&mut b, super::nd::OPT_TARGET_LL_ADDR, [1, 2, 3, 4, 5, 6]);
        assert_eq!(b, [2, 1, 1, 2, 3, 4, 5, 6]);
    }

    use super::*;

    #[test]
    fn accept_reject_and_checksum() {
        assert!(Icmpv6Packet::new_checked(&[0u8; 7][..]).is_err());
        let src: Ipv6Addr = "2001:db8::fe".parse().unwrap();
        let dst: Ipv6Addr = "2001:db8::1".parse().unwrap();
        // A time exceeded message quoting a 48-byte UDP packet; its
        // checksum, 0x6aa1, is the one the reference Click computes.
        let mut m = vec![0u8; 8];
        m.extend_from_slice(&[
            0x60, 0, 0, 0, 0, 8, 0x11, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 1, 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0x12, 0x34, 0x56,
            0x78, 0, 0x10, 0, 0,
        ]);
        let mut p = Icmpv6Packet::new_checked(&mut m[..]).unwrap();
        p.set_msg_type(types::TIME_EXCEEDED);
        p.set_code(0);
        p.set_data_field(0);
        p.fill_checksum(src, dst);
        assert_eq!(p.checksum(), 0x6aa1);
        assert!(p.verify_checksum(src, dst));
        assert!(!p.verify_checksum(dst, dst));
        assert_eq!((p.msg_type(), p.code(), p.body().len()), (3, 0, 48));
        assert!(types::is_error(p.msg_type()) && !types::is_error(types::ECHO_REQUEST));
    }
}
