//! Typed, zero-copy views of packet headers, and Internet checksums.
//!
//! Elements of the IP, Ethernet and ICMP groups read and write headers
//! through the views in this crate, never through raw pointer casts. The
//! design follows smoltcp's `wire` module.
//!
//! # The contract
//!
//! Each header has two layers:
//!
//! * A **packet view**, such as [`Ipv4Packet<T>`], wraps any buffer
//!   `T: AsRef<[u8]>` (a `&[u8]`, a `&mut [u8]`, a `Vec<u8>`...) and reads
//!   fields straight out of the bytes, in network byte order, without
//!   copying. Getters need only `AsRef<[u8]>`; setters need
//!   `AsRef<[u8]> + AsMut<[u8]>`, so whether a view can write shows in its
//!   type.
//!   - `new_unchecked(buffer)` wraps without looking. Accessors may then
//!     panic on a short buffer; use it only on bytes already validated.
//!   - `new_checked(buffer)` validates **every length** the accessors rely
//!     on, once (the fixed header, and length fields such as IPv4's header
//!     length and total length against the buffer). After it succeeds no
//!     accessor of that view can panic. It does not judge field *values*
//!     (version, checksum, option contents): that is the `Repr`'s job, or the
//!     element's.
//!   - `check_len()` is the same validation on an existing view;
//!     `into_inner()` gives the buffer back.
//! * A **representation**, such as [`Ipv4Repr`], is a plain value holding
//!   the header's meaning. `Repr::parse(&view)` validates values (version,
//!   checksum, supported formats) and `Repr::emit(&mut view)` writes a
//!   header, checksum included, into a buffer at least `buffer_len()` bytes
//!   long. Parse then emit reproduces the header.
//!
//! Views do not own or trim packets: a view over an IPv4 packet with
//! trailing Ethernet padding reports `payload()` up to the total length and
//! ignores the rest, as Click's `CheckIPHeader` does.
//!
//! Errors are [`WireError`] values that name the header and carry the
//! offending numbers; their `Display` is a sentence a user can act on.
//!
//! # Checksums
//!
//! [`checksum`] computes the Internet checksum (RFC 1071) eight bytes at a
//! time, TCP/UDP pseudo-header sums for IPv4 and IPv6, and RFC 1624
//! incremental updates. The views wrap them: [`Ipv4Packet::fill_checksum`],
//! [`Ipv4Packet::verify_checksum`], [`Ipv4Packet::dec_ttl_update_checksum`]
//! (Click's `DecIPTTL`), [`UdpPacket::fill_checksum`],
//! [`TcpPacket::fill_checksum`], [`IcmpPacket::fill_checksum`].
//!
//! # Example
//!
//! ```
//! use rclick_wire::{EthernetFrame, EtherType, Ipv4Packet, IpProtocol, UdpPacket};
//!
//! # let frame: &[u8] = &[
//! #   0x00, 0x00, 0xc0, 0xae, 0x67, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x08, 0x00,
//! #   0x45, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x65, 0xb8,
//! #   0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x01, 0x02,
//! #   0x04, 0xd2, 0x16, 0x2e, 0x00, 0x1e, 0xdc, 0xb4,
//! #   0x43, 0x6c, 0x69, 0x63, 0x6b, 0x20, 0x55, 0x44, 0x50, 0x20, 0x70, 0x61, 0x79,
//! #   0x6c, 0x6f, 0x61, 0x64, 0x20, 0x36, 0x34, 0x42, 0x21];
//! let eth = EthernetFrame::new_checked(frame)?;
//! assert_eq!(eth.ethertype(), EtherType::IPV4);
//! let ip = Ipv4Packet::new_checked(eth.payload())?;
//! assert!(ip.verify_checksum());
//! assert_eq!(ip.protocol(), IpProtocol::UDP);
//! let udp = UdpPacket::new_checked(ip.payload())?;
//! assert_eq!(udp.dst_port(), 5678);
//! assert!(udp.verify_checksum(ip.src_addr(), ip.dst_addr()));
//! # Ok::<(), rclick_wire::WireError>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod arp;
pub mod checksum;
mod error;
pub mod esp;
pub mod ethernet;
pub mod icmp;
pub mod icmpv6;
pub mod ipv4;
pub mod ipv6;
pub mod mac_control;
pub mod prefix;
pub mod stp;
pub mod tcp;
pub mod udp;
pub mod vlan;

pub use arp::{ArpOperation, ArpPacket, ArpRepr};
pub use checksum::PseudoHeader;
pub use error::WireError;
pub use esp::EspPacket;
pub use ethernet::{EtherType, EthernetAddress, EthernetFrame, EthernetRepr};
pub use icmp::{IcmpPacket, IcmpRepr};
pub use icmpv6::Icmpv6Packet;
pub use ipv4::{IpProtocol, Ipv4Option, Ipv4OptionIter, Ipv4Packet, Ipv4Repr};
pub use ipv6::Ipv6FragmentHeader;
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use mac_control::MacControlPacket;
pub use prefix::{IcmpPrefix, Ipv4Prefix, TcpPrefix, UdpPrefix};
pub use stp::BpduPacket;
pub use tcp::TcpPacket;
pub use udp::{UdpPacket, UdpRepr};
pub use vlan::{VlanRepr, VlanTag};

/// Shorthand for `Result<T, WireError>`.
pub type Result<T> = core::result::Result<T, WireError>;

/// Reads a big-endian `u16` at `at`. Panics if out of bounds (callers have
/// checked lengths).
#[inline(always)]
pub(crate) fn read_u16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

/// Reads a big-endian `u32` at `at`.
#[inline(always)]
pub(crate) fn read_u32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Writes a big-endian `u16` at `at`.
#[inline(always)]
pub(crate) fn write_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes a big-endian `u32` at `at`.
#[inline(always)]
pub(crate) fn write_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

/// Test fixtures shared by the modules' tests.
#[cfg(test)]
pub(crate) mod fixtures {
    /// `../shared/bench/udp64.hex`: a 64-byte Ethernet/IPv4/UDP frame,
    /// 10.0.0.2:1234 -> 10.0.1.2:5678, payload "Click UDP payload 64B!".
    pub const UDP64: [u8; 64] = [
        0x00, 0x00, 0xc0, 0xae, 0x67, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x08, 0x00, //
        0x45, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x00, 0x40, 0x11, 0x65, 0xb8, //
        0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x01, 0x02, //
        0x04, 0xd2, 0x16, 0x2e, 0x00, 0x1e, 0xdc, 0xb4, //
        0x43, 0x6c, 0x69, 0x63, 0x6b, 0x20, 0x55, 0x44, 0x50, 0x20, 0x70, 0x61, 0x79, //
        0x6c, 0x6f, 0x61, 0x64, 0x20, 0x36, 0x34, 0x42, 0x21,
    ];
}
