//! Views of headers that may be cut short: the first bytes of an IPv4,
//! TCP, UDP or ICMP header, possibly fewer than its fixed part.
//!
//! A capture keeps only the first bytes of each packet, and a summary dump
//! (Click's `FromIPSummaryDump`) builds packets from as many fields as a
//! line has, so a TCP header may be 4 bytes long (its ports) or 13 (up to
//! its data offset). The full views refuse such buffers in `new_checked`;
//! these do not. Each getter returns `None` when its field does not fit in
//! the bytes there, and each setter writes only a field that fits and
//! returns whether it did. Fields are named as in the full views, and their
//! offsets come from the same `field` modules.
//!
//! ```
//! use rclick_wire::prefix::TcpPrefix;
//!
//! let mut h = [0u8; 4]; // a TCP header cut after its ports
//! let mut t = TcpPrefix::new(&mut h[..]);
//! assert!(t.set_dst_port(80));
//! assert!(!t.set_seq_number(1)); // no room: nothing written
//! assert_eq!(t.dst_port(), Some(80));
//! assert_eq!(t.seq_number(), None);
//! ```

use std::net::Ipv4Addr;

use crate::{icmp, ipv4, tcp, udp};

/// The `N` bytes at `at`, if they are all there.
fn get<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Writes `v` at `at` if all of it fits; returns whether it did.
fn put(b: &mut [u8], at: usize, v: &[u8]) -> bool {
    let Some(end) = at.checked_add(v.len()) else {
        return false;
    };
    match b.get_mut(at..end) {
        Some(x) => {
            x.copy_from_slice(v);
            true
        }
        None => false,
    }
}

fn get_u8(b: &[u8], at: usize) -> Option<u8> {
    b.get(at).copied()
}
fn get_u16(b: &[u8], at: usize) -> Option<u16> {
    get(b, at).map(u16::from_be_bytes)
}
fn get_u32(b: &[u8], at: usize) -> Option<u32> {
    get(b, at).map(u32::from_be_bytes)
}

/// Getters and setters shared by the prefix views, over the named fields.
macro_rules! prefix_common {
    ($name:ident) => {
        impl<T: AsRef<[u8]>> $name<T> {
            /// Wraps `buffer`, however short.
            pub const fn new(buffer: T) -> $name<T> {
                $name { buffer }
            }

            /// Returns the buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }

            /// How many header bytes are there.
            pub fn len(&self) -> usize {
                self.buffer.as_ref().len()
            }

            /// Whether there are none.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }
    };
}

/// Defines getter/setter pairs: `get: set, FIELD, type;` each.
macro_rules! prefix_fields {
    ($name:ident { $( $(#[$doc:meta])* $get:ident / $set:ident: $at:expr, $t:ident; )* }) => {
        impl<T: AsRef<[u8]>> $name<T> {
            $(
                $(#[$doc])*
                #[inline]
                pub fn $get(&self) -> Option<$t> {
                    prefix_fields!(@get $t, self.buffer.as_ref(), $at)
                }
            )*
        }
        impl<T: AsRef<[u8]> + AsMut<[u8]>> $name<T> {
            $(
                /// Sets the field if it fits; returns whether it did.
                #[inline]
                pub fn $set(&mut self, v: $t) -> bool {
                    put(self.buffer.as_mut(), $at, &v.to_be_bytes())
                }
            )*
        }
    };
    (@get u8, $b:expr, $at:expr) => { get_u8($b, $at) };
    (@get u16, $b:expr, $at:expr) => { get_u16($b, $at) };
    (@get u32, $b:expr, $at:expr) => { get_u32($b, $at) };
}

/// The first bytes of an IPv4 header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipv4Prefix<T: AsRef<[u8]>> {
    buffer: T,
}
prefix_common!(Ipv4Prefix);
prefix_fields!(Ipv4Prefix {
    /// Total length.
    total_len / set_total_len: ipv4::field::LENGTH, u16;
    /// Identification.
    ident / set_ident: ipv4::field::IDENT, u16;
    /// Flags and fragment offset as one word.
    flags_frag_offset / set_flags_frag_offset: ipv4::field::FLG_OFF, u16;
    /// Header checksum as stored.
    checksum / set_checksum: ipv4::field::CHECKSUM, u16;
});

impl<T: AsRef<[u8]>> Ipv4Prefix<T> {
    /// Source address.
    pub fn src_addr(&self) -> Option<Ipv4Addr> {
        get::<4>(self.buffer.as_ref(), ipv4::field::SRC_ADDR.start).map(Ipv4Addr::from)
    }

    /// Destination address.
    pub fn dst_addr(&self) -> Option<Ipv4Addr> {
        get::<4>(self.buffer.as_ref(), ipv4::field::DST_ADDR.start).map(Ipv4Addr::from)
    }
}

/// The first bytes of a TCP header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpPrefix<T: AsRef<[u8]>> {
    buffer: T,
}
prefix_common!(TcpPrefix);
prefix_fields!(TcpPrefix {
    /// Source port.
    src_port / set_src_port: tcp::field::SRC_PORT, u16;
    /// Destination port.
    dst_port / set_dst_port: tcp::field::DST_PORT, u16;
    /// Sequence number.
    seq_number / set_seq_number: tcp::field::SEQ_NUM, u32;
    /// Acknowledgment number.
    ack_number / set_ack_number: tcp::field::ACK_NUM, u32;
    /// The flags byte (see [`tcp::flags`]).
    flags / set_flags: tcp::field::FLAGS, u8;
    /// Window.
    window_len / set_window_len: tcp::field::WINDOW, u16;
    /// Checksum as stored.
    checksum / set_checksum: tcp::field::CHECKSUM, u16;
    /// Urgent pointer.
    urgent_at / set_urgent_at: tcp::field::URGENT, u16;
});

impl<T: AsRef<[u8]>> TcpPrefix<T> {
    /// Header length in bytes (data offset × 4).
    pub fn header_len(&self) -> Option<u8> {
        get_u8(self.buffer.as_ref(), tcp::field::DATA_OFFSET).map(|b| (b >> 4) * 4)
    }

    /// The twelve flag bits: the flags byte, and above it the four bits
    /// below the data offset (NS and the reserved bits), as Click's
    /// summary dumps print them. `None` unless both bytes are there.
    pub fn flags_ext(&self) -> Option<u16> {
        get_u16(self.buffer.as_ref(), tcp::field::DATA_OFFSET).map(|w| w & 0x0fff)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPrefix<T> {
    /// Sets the header length in bytes (its low six bits, rounded down to
    /// a multiple of 4, as [`TcpPacket::set_header_len`](crate::TcpPacket::set_header_len)
    /// does) if the data offset's byte is there; keeps the bits below it.
    pub fn set_header_len(&mut self, len: u8) -> bool {
        match self.buffer.as_mut().get_mut(tcp::field::DATA_OFFSET) {
            Some(b) => {
                *b = (*b & 0x0f) | (((len / 4) & 0x0f) << 4);
                true
            }
            None => false,
        }
    }

    /// Sets the twelve flag bits (see [`flags_ext`](Self::flags_ext)) if
    /// both their bytes are there; keeps the data offset.
    pub fn set_flags_ext(&mut self, v: u16) -> bool {
        let b = self.buffer.as_mut();
        let Some(old) = get_u16(b, tcp::field::DATA_OFFSET) else {
            return false;
        };
        put(
            b,
            tcp::field::DATA_OFFSET,
            &((old & 0xf000) | (v & 0x0fff)).to_be_bytes(),
        )
    }
}

/// The first bytes of a UDP header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UdpPrefix<T: AsRef<[u8]>> {
    buffer: T,
}
prefix_common!(UdpPrefix);
prefix_fields!(UdpPrefix {
    /// Source port.
    src_port / set_src_port: udp::field::SRC_PORT, u16;
    /// Destination port.
    dst_port / set_dst_port: udp::field::DST_PORT, u16;
    /// Length of header and payload.
    length / set_length: udp::field::LENGTH, u16;
    /// Checksum as stored.
    checksum / set_checksum: udp::field::CHECKSUM, u16;
});

/// The first bytes of an ICMP header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmpPrefix<T: AsRef<[u8]>> {
    buffer: T,
}
prefix_common!(IcmpPrefix);
prefix_fields!(IcmpPrefix {
    /// Message type.
    icmp_type / set_icmp_type: icmp::field::TYPE, u8;
    /// Code.
    code / set_code: icmp::field::CODE, u8;
    /// Checksum as stored.
    checksum / set_checksum: icmp::field::CHECKSUM, u16;
    /// Echo (and timestamp, information, mask) identifier.
    echo_ident / set_echo_ident: icmp::field::ECHO_IDENT, u16;
    /// Echo (and timestamp, information, mask) sequence number.
    echo_seq_no / set_echo_seq_no: icmp::field::ECHO_SEQNO, u16;
    /// Next-hop MTU of "fragmentation needed".
    next_hop_mtu / set_next_hop_mtu: icmp::field::NEXT_HOP_MTU, u16;
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::UDP64;

    #[test]
    fn full_headers_read_as_the_full_views_do() {
        let ip = Ipv4Prefix::new(&UDP64[14..34]);
        let full = crate::Ipv4Packet::new_checked(&UDP64[14..]).unwrap();
        assert_eq!(ip.total_len(), Some(full.total_len()));
        assert_eq!(ip.ident(), Some(full.ident()));
        assert_eq!(ip.checksum(), Some(full.checksum()));
        assert_eq!(ip.src_addr(), Some(Ipv4Addr::new(10, 0, 0, 2)));
        assert_eq!(ip.dst_addr(), Some(Ipv4Addr::new(10, 0, 1, 2)));
        let u = UdpPrefix::new(&UDP64[34..42]);
        assert_eq!(
            (u.src_port(), u.dst_port(), u.length(), u.checksum()),
            (Some(1234), Some(5678), Some(0x1e), Some(0xdcb4))
        );
        assert_eq!(u.len(), 8);
    }

    #[test]
    fn fields_past_the_end_read_as_none() {
        let ip = Ipv4Prefix::new(&UDP64[14..21]);
        assert_eq!(ip.ident(), Some(0));
        assert_eq!(ip.flags_frag_offset(), None, "one byte of two there");
        assert_eq!(ip.src_addr(), None);
        let t = TcpPrefix::new(&[1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x5f][..]);
        assert_eq!(t.src_port(), Some(0x0102));
        assert_eq!(t.ack_number(), Some(0x090a_0b0c));
        assert_eq!(t.header_len(), Some(20));
        assert_eq!(t.flags(), None);
        assert_eq!(t.flags_ext(), None);
        assert_eq!(t.window_len(), None);
        let empty = IcmpPrefix::new(&[][..]);
        assert!(empty.is_empty());
        assert_eq!(empty.icmp_type(), None);
    }

    #[test]
    fn setters_write_only_what_fits() {
        let mut h = [0xaau8; 6];
        let mut t = TcpPrefix::new(&mut h[..]);
        assert!(t.set_src_port(0x0102));
        assert!(t.set_dst_port(0x0304));
        assert!(!t.set_seq_number(0x0506_0708), "two bytes of four there");
        assert!(!t.set_urgent_at(9));
        assert!(!t.set_header_len(20));
        assert_eq!(h, [1, 2, 3, 4, 0xaa, 0xaa]);

        let mut h = [0u8; 8];
        let mut i = IcmpPrefix::new(&mut h[..]);
        assert!(i.set_icmp_type(3) && i.set_code(4) && i.set_next_hop_mtu(1500));
        assert!(i.set_checksum(0xbeef));
        assert_eq!(h, [3, 4, 0xbe, 0xef, 0, 0, 0x05, 0xdc]);
        let mut i = IcmpPrefix::new(&mut h[..]);
        assert!(i.set_echo_ident(7) && i.set_echo_seq_no(8));
        assert_eq!((i.echo_ident(), i.echo_seq_no()), (Some(7), Some(8)));

        let mut h = [0u8; 5];
        let mut u = UdpPrefix::new(&mut h[..]);
        assert!(!u.set_length(8), "one byte of two there");
        assert_eq!(h, [0; 5]);

        let mut h = [0u8; 12];
        let mut ip = Ipv4Prefix::new(&mut h[..]);
        assert!(ip.set_total_len(40) && ip.set_ident(1) && ip.set_flags_frag_offset(0x4000));
        assert!(ip.set_checksum(0x1234));
        assert_eq!(h, [0, 0, 0, 40, 0, 1, 0x40, 0, 0, 0, 0x12, 0x34]);
    }

    #[test]
    fn tcp_header_len_and_flag_bits_share_a_byte() {
        let mut h = [0u8; 14];
        let mut t = TcpPrefix::new(&mut h[..]);
        assert!(t.set_flags_ext(0x9ff));
        assert!(t.set_header_len(32));
        assert_eq!(t.header_len(), Some(32));
        assert_eq!(t.flags_ext(), Some(0x9ff));
        assert_eq!(t.flags(), Some(0xff));
        assert!(t.set_flags_ext(0x012));
        assert_eq!(&h[12..], &[0x80, 0x12]);
        // The same bytes read by the full view.
        let mut full = [0u8; 20];
        full[12..14].copy_from_slice(&h[12..]);
        let v = crate::TcpPacket::new_unchecked(&full[..]);
        assert_eq!((v.header_len(), v.flags()), (32, 0x12));
        // A header cut after its data offset: the offset fits, the flags do not.
        let mut h = [0u8; 13];
        let mut t = TcpPrefix::new(&mut h[..]);
        assert!(t.set_header_len(20));
        assert!(!t.set_flags_ext(0x10));
        assert_eq!(h[12], 0x50);
    }

    #[test]
    fn offsets_near_usize_max_are_refused() {
        assert_eq!(get_u32(&[0; 8], usize::MAX - 1), None);
        assert!(!put(&mut [0; 8], usize::MAX, &[1, 2]));
    }
}
