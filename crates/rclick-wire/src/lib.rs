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

/// Declares a header view: `pub struct $name<T: AsRef<[u8]>>` over a
/// buffer, with the three constructors every view has (see "The
/// contract" above). The view's own `impl` block, in its module, gives
/// `check_len` (the lengths its accessors rely on) and the accessors.
///
/// ```text
/// view! {
///     /// A view of a UDP datagram.
///     pub struct UdpPacket;
/// }
/// ```
///
/// The macro writes out exactly what each view spelled out before, so the
/// views cost the same per packet.
macro_rules! view {
    ($(#[$attr:meta])* pub struct $name:ident;) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name<T: AsRef<[u8]>> {
            buffer: T,
        }

        impl<T: AsRef<[u8]>> $name<T> {
            /// Wraps `buffer` without checking it: the accessors may then
            /// panic on a buffer shorter than
            /// [`check_len`](Self::check_len) asks for.
            pub const fn new_unchecked(buffer: T) -> $name<T> {
                $name { buffer }
            }

            /// Wraps `buffer`, checking every length the accessors rely on
            /// ([`check_len`](Self::check_len)): after it succeeds no
            /// accessor can panic.
            pub fn new_checked(buffer: T) -> $crate::Result<$name<T>> {
                let view = Self::new_unchecked(buffer);
                view.check_len()?;
                Ok(view)
            }

            /// Returns the buffer.
            pub fn into_inner(self) -> T {
                self.buffer
            }
        }
    };
}

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

/// `Ok` when `available` bytes hold the `needed` ones of `header`;
/// otherwise the [`WireError::Truncated`] every view's length check gives.
#[inline(always)]
pub(crate) fn check_room(header: &'static str, needed: usize, available: usize) -> Result<()> {
    if available < needed {
        return Err(WireError::Truncated {
            header,
            needed,
            available,
        });
    }
    Ok(())
}

/// The checks of a header that gives its own length (IPv4's IHL, TCP's
/// data offset) and is `min` bytes at the least: `min` bytes present, then
/// the length `header_len` reads from them at least `min`, and that many
/// bytes present. Returns that length.
#[inline(always)]
pub(crate) fn check_header_room(
    header: &'static str,
    min: usize,
    available: usize,
    header_len: impl FnOnce() -> usize,
) -> Result<usize> {
    check_room(header, min, available)?;
    let len = header_len();
    if len < min {
        return Err(WireError::BadHeaderLength { header, len, min });
    }
    check_room(header, len, available)?;
    Ok(len)
}

/// `Ok` when a length field's `len` (IPv4's total length, UDP's length)
/// is from `min` up to the `available` bytes; otherwise the
/// [`WireError::BadTotalLength`] naming them.
#[inline(always)]
pub(crate) fn check_total_len(
    header: &'static str,
    len: usize,
    min: usize,
    available: usize,
) -> Result<()> {
    if len < min || len > available {
        return Err(WireError::BadTotalLength {
            header,
            len,
            min,
            available,
        });
    }
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared length check: enough bytes pass, one short names the
    /// header and both numbers.
    #[test]
    fn check_room_passes_or_names_the_shortfall() {
        assert_eq!(check_room("UDP", 8, 8), Ok(()));
        assert_eq!(check_room("UDP", 8, 100), Ok(()));
        assert_eq!(
            check_room("UDP", 8, 7),
            Err(WireError::Truncated {
                header: "UDP",
                needed: 8,
                available: 7
            })
        );
    }

    /// A self-described header length: the fixed part first, then the
    /// length read from it (not read at all when the fixed part is short).
    #[test]
    fn check_header_room_in_order() {
        let never = || -> usize { panic!("read before the fixed part was checked") };
        assert!(matches!(
            check_header_room("TCP", 20, 19, never),
            Err(WireError::Truncated { needed: 20, .. })
        ));
        assert_eq!(
            check_header_room("TCP", 20, 30, || 16),
            Err(WireError::BadHeaderLength {
                header: "TCP",
                len: 16,
                min: 20
            })
        );
        assert_eq!(
            check_header_room("IPv4", 20, 30, || 32),
            Err(WireError::Truncated {
                header: "IPv4",
                needed: 32,
                available: 30
            })
        );
        assert_eq!(check_header_room("IPv4", 20, 30, || 24), Ok(24));
    }

    /// A length field from `min` to the bytes present, both ends included.
    #[test]
    fn check_total_len_bounds() {
        assert_eq!(check_total_len("UDP", 8, 8, 8), Ok(()));
        assert_eq!(check_total_len("UDP", 30, 8, 30), Ok(()));
        for (len, available) in [(7, 30), (31, 30)] {
            assert_eq!(
                check_total_len("UDP", len, 8, available),
                Err(WireError::BadTotalLength {
                    header: "UDP",
                    len,
                    min: 8,
                    available
                })
            );
        }
    }

    /// Every view that `view!` declares checks its length through
    /// `new_checked` and gives its buffer back.
    #[test]
    fn views_check_through_new_checked() {
        let b = [0u8; 64];
        let short = |r: Result<()>, header: &str, needed: usize| match r {
            Err(WireError::Truncated {
                header: h,
                needed: n,
                available,
            }) => assert_eq!((h, n, available), (header, needed, needed - 1)),
            other => panic!("{header}: {other:?}"),
        };
        short(EspPacket::new_checked(&b[..7]).map(drop), "ESP", 8);
        short(Icmpv6Packet::new_checked(&b[..7]).map(drop), "ICMPv6", 8);
        short(
            MacControlPacket::new_checked(&b[..mac_control::HEADER_LEN - 1]).map(drop),
            "MAC Control",
            mac_control::HEADER_LEN,
        );
        short(
            BpduPacket::new_checked(&b[..stp::CONFIG_LEN - 1]).map(drop),
            "BPDU",
            stp::CONFIG_LEN,
        );
        short(
            Ipv6FragmentHeader::new_checked(&b[..7]).map(drop),
            "IPv6 fragment",
            8,
        );
        short(
            EthernetFrame::new_checked(&b[..13]).map(drop),
            "Ethernet",
            14,
        );
        short(VlanTag::new_checked(&b[..3]).map(drop), "802.1Q", 4);
        short(ArpPacket::new_checked(&b[..27]).map(drop), "ARP", 28);
        assert_eq!(
            EspPacket::new_checked(&b[..8]).unwrap().into_inner().len(),
            8
        );
        assert_eq!(
            Icmpv6Packet::new_checked(&b[..])
                .unwrap()
                .into_inner()
                .len(),
            64
        );
    }
}
