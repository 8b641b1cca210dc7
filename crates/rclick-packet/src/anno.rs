//! Packet annotations: per-packet metadata that travels with a packet
//! through the router but is not part of its bytes.
//!
//! [`Anno`] holds the annotations Click defines as first-class fields
//! (destination IP, paint, packet type, timestamps, ...) plus a 48-byte
//! general-purpose user area, [`Anno::user`], that elements address by byte
//! offset with typed accessors ([`Anno::u32_at`], [`Anno::set_u32_at`], ...),
//! like Click's `anno_u32(offset)`.
//!
//! Annotations are plain `Copy` data; [`Packet::clone`](crate::Packet) copies
//! them, and a new packet starts with [`Anno::DEFAULT`] (all zero, packet
//! type [`PacketType::Host`]).
//!
//! Typed user-area accessors never panic: reading out of range returns 0
//! (or `None` from the `try_` variants) and writing out of range is ignored
//! (the `try_` setters report it with `false`). Multi-byte values use native
//! byte order, as in Click.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::timestamp::Timestamp;

/// Size in bytes of the general-purpose user annotation area.
pub const USER_ANNO_SIZE: usize = 48;

/// How a packet was received, mirroring Click's `Packet::PacketType` (and
/// Linux's `PACKET_*` values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketType {
    /// Addressed to this host (`HOST`, 0). The default.
    #[default]
    Host = 0,
    /// Link-layer broadcast (`BROADCAST`, 1).
    Broadcast = 1,
    /// Link-layer multicast (`MULTICAST`, 2).
    Multicast = 2,
    /// Addressed to another host (`OTHERHOST`, 3).
    OtherHost = 3,
    /// Sent by this host (`OUTGOING`, 4).
    Outgoing = 4,
    /// Looped back (`LOOPBACK`, 5).
    Loopback = 5,
    /// Fast-routed (`FASTROUTE`, 6).
    FastRoute = 6,
}

impl PacketType {
    /// Converts Click's numeric value; `None` for values above 6.
    pub const fn from_u8(v: u8) -> Option<PacketType> {
        Some(match v {
            0 => PacketType::Host,
            1 => PacketType::Broadcast,
            2 => PacketType::Multicast,
            3 => PacketType::OtherHost,
            4 => PacketType::Outgoing,
            5 => PacketType::Loopback,
            6 => PacketType::FastRoute,
            _ => return None,
        })
    }

    /// Click's keyword for this type (`HOST`, `BROADCAST`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            PacketType::Host => "HOST",
            PacketType::Broadcast => "BROADCAST",
            PacketType::Multicast => "MULTICAST",
            PacketType::OtherHost => "OTHERHOST",
            PacketType::Outgoing => "OUTGOING",
            PacketType::Loopback => "LOOPBACK",
            PacketType::FastRoute => "FASTROUTE",
        }
    }

    /// Parses Click's keyword (case-insensitive).
    pub fn from_name(s: &str) -> Option<PacketType> {
        (0..=6)
            .filter_map(PacketType::from_u8)
            .find(|t| t.name().eq_ignore_ascii_case(s))
    }
}

/// Per-packet annotations. Plain data: `Copy`, 104 bytes (88 before the
/// IPv6 destination annotation's 12 bytes and their padding).
///
/// The named fields are public; [`Packet`](crate::Packet) also has Click-style
/// accessors (`dst_ip_anno()`, `set_paint_anno()`, ...) that forward here.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Anno {
    /// Timestamp annotation (Click's `timestamp_anno()`), zero when unset.
    pub timestamp: Timestamp,
    /// First-timestamp annotation (Click's `FIRST_TIMESTAMP_ANNO`, used for
    /// aggregated flows), zero when unset.
    pub first_timestamp: Timestamp,
    /// Destination IPv4 address annotation as `u32::from(Ipv4Addr)`
    /// (i.e. `10.0.0.1` is `0x0a000001`); zero when unset.
    pub dst_ip: u32,
    /// The last 12 bytes of the destination IPv6 address annotation. As in
    /// Click, where `DST_IP6_ANNO` starts where `DST_IP_ANNO` does, the
    /// IPv6 annotation's first four bytes are [`dst_ip`](Self::dst_ip):
    /// setting either changes the other. Only the 12 bytes the IPv4
    /// annotation lacks cost space here.
    pub dst_ip6_tail: [u8; 12],
    /// Aggregate annotation (Click's `AGGREGATE_ANNO`).
    pub aggregate: u32,
    /// Extra-length annotation (Click's `EXTRA_LENGTH_ANNO`): bytes the
    /// packet stood for beyond its current length (e.g. truncated captures).
    pub extra_length: u32,
    /// Sequence-number annotation (Click's `SEQUENCE_NUMBER_ANNO`).
    pub sequence_number: u32,
    /// VLAN TCI annotation (Click's `VLAN_TCI_ANNO`), host byte order.
    pub vlan_tci: u16,
    /// Paint annotation (Click's `PAINT_ANNO`).
    pub paint: u8,
    /// ICMP parameter-problem pointer (Click's `ICMP_PARAMPROB_ANNO`).
    pub icmp_param_prob: u8,
    /// Packet type annotation.
    pub packet_type: PacketType,
    /// Fix-IP-source flag (Click's `FIX_IP_SRC_ANNO`).
    pub fix_ip_src: bool,
    /// General-purpose annotation area, addressed by byte offset.
    pub user: [u8; USER_ANNO_SIZE],
}

impl Anno {
    /// All-zero annotations with packet type [`PacketType::Host`].
    pub const DEFAULT: Anno = Anno {
        timestamp: Timestamp::ZERO,
        first_timestamp: Timestamp::ZERO,
        dst_ip: 0,
        dst_ip6_tail: [0; 12],
        aggregate: 0,
        extra_length: 0,
        sequence_number: 0,
        vlan_tci: 0,
        paint: 0,
        icmp_param_prob: 0,
        packet_type: PacketType::Host,
        fix_ip_src: false,
        user: [0; USER_ANNO_SIZE],
    };

    /// Destination IP annotation as an address.
    #[inline]
    pub fn dst_ip_addr(&self) -> Ipv4Addr {
        Ipv4Addr::from(self.dst_ip)
    }

    /// Sets the destination IP annotation from an address.
    #[inline]
    pub fn set_dst_ip_addr(&mut self, a: Ipv4Addr) {
        self.dst_ip = u32::from(a);
    }

    /// Destination IPv6 address annotation (Click's `DST_IP6_ANNO`): the
    /// IPv4 annotation's four bytes followed by [`dst_ip6_tail`](Self::dst_ip6_tail).
    #[inline]
    pub fn dst_ip6_addr(&self) -> Ipv6Addr {
        let mut b = [0u8; 16];
        b[..4].copy_from_slice(&self.dst_ip.to_be_bytes());
        b[4..].copy_from_slice(&self.dst_ip6_tail);
        Ipv6Addr::from(b)
    }

    /// Sets the destination IPv6 address annotation (which overwrites the
    /// IPv4 one with its first four bytes, as in Click).
    #[inline]
    pub fn set_dst_ip6_addr(&mut self, a: Ipv6Addr) {
        let b = a.octets();
        self.dst_ip = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        self.dst_ip6_tail.copy_from_slice(&b[4..]);
    }

    /// Reads `N` bytes at `offset` of the user area, `None` if out of range.
    #[inline]
    fn get_n<const N: usize>(&self, offset: usize) -> Option<[u8; N]> {
        let end = offset.checked_add(N)?;
        let bytes = self.user.get(offset..end)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Some(out)
    }

    /// Writes `N` bytes at `offset` of the user area; `false` if out of range.
    #[inline]
    fn set_n<const N: usize>(&mut self, offset: usize, v: [u8; N]) -> bool {
        let Some(end) = offset.checked_add(N) else {
            return false;
        };
        match self.user.get_mut(offset..end) {
            Some(dst) => {
                dst.copy_from_slice(&v);
                true
            }
            None => false,
        }
    }
}

macro_rules! user_accessors {
    ($($t:ty: $get:ident, $try_get:ident, $set:ident, $try_set:ident;)*) => {
        impl Anno {
            $(
                #[doc = concat!("Reads a `", stringify!($t), "` at byte `offset` of the user area; 0 if out of range.")]
                #[inline]
                pub fn $get(&self, offset: usize) -> $t {
                    self.$try_get(offset).unwrap_or(0)
                }

                #[doc = concat!("Reads a `", stringify!($t), "` at byte `offset` of the user area; `None` if out of range.")]
                #[inline]
                pub fn $try_get(&self, offset: usize) -> Option<$t> {
                    self.get_n(offset).map(<$t>::from_ne_bytes)
                }

                #[doc = concat!("Writes a `", stringify!($t), "` at byte `offset` of the user area; ignored if out of range.")]
                #[inline]
                pub fn $set(&mut self, offset: usize, v: $t) {
                    self.set_n(offset, v.to_ne_bytes());
                }

                #[doc = concat!("Writes a `", stringify!($t), "` at byte `offset` of the user area; `false` (and no write) if out of range.")]
                #[inline]
                pub fn $try_set(&mut self, offset: usize, v: $t) -> bool {
                    self.set_n(offset, v.to_ne_bytes())
                }
            )*
        }
    };
}

user_accessors! {
    u8: u8_at, try_u8_at, set_u8_at, try_set_u8_at;
    u16: u16_at, try_u16_at, set_u16_at, try_set_u16_at;
    u32: u32_at, try_u32_at, set_u32_at, try_set_u32_at;
    u64: u64_at, try_u64_at, set_u64_at, try_set_u64_at;
}

impl Default for Anno {
    fn default() -> Self {
        Anno::DEFAULT
    }
}

impl std::fmt::Debug for Anno {
    /// Prints the named fields; the user area only if it is not all zero.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Anno");
        d.field("timestamp", &format_args!("{}", self.timestamp))
            .field("dst_ip", &self.dst_ip_addr())
            .field("paint", &self.paint)
            .field("packet_type", &self.packet_type);
        if !self.first_timestamp.is_zero() {
            d.field("first_timestamp", &format_args!("{}", self.first_timestamp));
        }
        for (name, v) in [
            ("aggregate", self.aggregate),
            ("extra_length", self.extra_length),
            ("sequence_number", self.sequence_number),
            ("vlan_tci", self.vlan_tci as u32),
            ("icmp_param_prob", self.icmp_param_prob as u32),
        ] {
            if v != 0 {
                d.field(name, &v);
            }
        }
        if self.fix_ip_src {
            d.field("fix_ip_src", &true);
        }
        if self.user.iter().any(|&b| b != 0) {
            d.field("user", &&self.user[..]);
        }
        d.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_zero_host() {
        let a = Anno::default();
        assert_eq!(a.packet_type, PacketType::Host);
        assert_eq!(a.dst_ip, 0);
        assert!(a.user.iter().all(|&b| b == 0));
        assert_eq!(a, Anno::DEFAULT);
    }

    #[test]
    fn packet_type_values() {
        assert_eq!(PacketType::FastRoute as u8, 6);
        assert_eq!(PacketType::OtherHost as u8, 3);
        for v in 0..=6 {
            let t = PacketType::from_u8(v).unwrap();
            assert_eq!(t as u8, v);
            assert_eq!(PacketType::from_name(t.name()), Some(t));
        }
        assert_eq!(PacketType::from_u8(7), None);
        assert_eq!(
            PacketType::from_name("broadcast"),
            Some(PacketType::Broadcast)
        );
        assert_eq!(PacketType::from_name("nope"), None);
    }

    #[test]
    fn user_area_typed_access() {
        let mut a = Anno::default();
        a.set_u32_at(4, 0xdead_beef);
        a.set_u16_at(8, 0x1234);
        a.set_u8_at(10, 7);
        a.set_u64_at(40, u64::MAX - 1);
        assert_eq!(a.u32_at(4), 0xdead_beef);
        assert_eq!(a.u16_at(8), 0x1234);
        assert_eq!(a.u8_at(10), 7);
        assert_eq!(a.u64_at(40), u64::MAX - 1);
        assert_eq!(&a.user[4..8], &0xdead_beefu32.to_ne_bytes());
        // Out of range: no panic, reads 0, writes ignored.
        assert_eq!(a.u64_at(41), 0);
        assert_eq!(a.try_u64_at(41), None);
        assert_eq!(a.try_u8_at(usize::MAX), None);
        assert!(!a.try_set_u32_at(46, 1));
        assert!(!a.try_set_u32_at(usize::MAX, 1));
        a.user = [0; USER_ANNO_SIZE];
        a.set_u32_at(46, 1);
        assert_eq!(a.u16_at(46), 0);
        assert!(a.try_set_u8_at(47, 9));
        assert_eq!(a.try_u8_at(47), Some(9));
    }

    #[test]
    fn dst_ip_conversion() {
        let mut a = Anno::default();
        a.set_dst_ip_addr(Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(a.dst_ip, 0x0a00_0001);
        assert_eq!(a.dst_ip_addr(), Ipv4Addr::new(10, 0, 0, 1));
        let s = format!("{a:?}");
        assert!(s.contains("10.0.0.1"), "{s}");
    }

    #[test]
    fn dst_ip6_overlaps_dst_ip() {
        let mut a = Anno::default();
        assert_eq!(a.dst_ip6_addr(), Ipv6Addr::UNSPECIFIED);
        let six: Ipv6Addr = "2001:db8::7:1".parse().unwrap();
        a.set_dst_ip6_addr(six);
        assert_eq!(a.dst_ip6_addr(), six);
        assert_eq!(a.dst_ip_addr(), Ipv4Addr::new(0x20, 0x01, 0x0d, 0xb8));
        a.set_dst_ip_addr(Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(a.dst_ip6_addr(), "a00:1::7:1".parse::<Ipv6Addr>().unwrap());
        // The IPv6 annotation costs 12 bytes (16 with padding), no more.
        assert!(
            std::mem::size_of::<Anno>() <= 104,
            "{}",
            std::mem::size_of::<Anno>()
        );
    }
}
