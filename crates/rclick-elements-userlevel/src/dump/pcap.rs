//! The pcap ("tcpdump -w") file format, as FromDump and ToDump use it.
//!
//! A file is a 24-byte header followed by records, each a 16-byte record
//! header and the captured bytes. The header's magic number tells the byte
//! order (the writer's native order) and the timestamp resolution:
//!
//! | magic        | meaning                                             |
//! |--------------|-----------------------------------------------------|
//! | `a1b2c3d4`   | microsecond timestamps                              |
//! | `a1b23c4d`   | nanosecond timestamps                               |
//! | `a1b2cd34`   | Alexey Kuznetzov's patched libpcap: 8 extra bytes   |
//! |              | after every record header (old Linux tcpdump)       |
//!
//! Written in-house rather than with a crate: FromDump needs the old format
//! quirks Click handles (the patched-libpcap records above, the `caplen` and
//! `len` fields swapped by writers before version 2.3, tcptrace's
//! off-by-one `caplen`), the byte offset of every record (the `filepos` and
//! `packet_filepos` handlers, the `FILEPOS` keyword), and reading from pipes
//! and standard input one buffer at a time. The format itself is two fixed
//! headers, so a crate would save little.

use rclick_packet::{Packet, Timestamp};

/// Microsecond-resolution magic number.
pub const MAGIC: u32 = 0xA1B2_C3D4;
/// Nanosecond-resolution magic number.
pub const MAGIC_NANO: u32 = 0xA1B2_3C4D;
/// Kuznetzov's patched libpcap magic number (records carry 8 extra bytes).
pub const MAGIC_MODIFIED: u32 = 0xA1B2_CD34;
/// The only major version in use.
pub const VERSION_MAJOR: u16 = 2;
/// The minor version written.
pub const VERSION_MINOR: u16 = 4;
/// Length of the file header.
pub const FILE_HEADER_LEN: usize = 24;
/// Length of a record header.
pub const RECORD_HEADER_LEN: usize = 16;
/// Extra bytes after each record header in the patched format.
pub const MODIFIED_EXTRA_LEN: usize = 8;

/// Link types (`DLT_*` as stored in files).
pub mod dlt {
    /// BSD loopback: 4-byte address family in host order.
    pub const NULL: u32 = 0;
    /// Ethernet.
    pub const EN10MB: u32 = 1;
    /// PPP.
    pub const PPP: u32 = 9;
    /// FDDI.
    pub const FDDI: u32 = 10;
    /// Raw IP as some hosts number it (mapped to [`RAW`]).
    pub const HOST_RAW: u32 = 12;
    /// Raw IP as OpenBSD numbers it (mapped to [`RAW`]).
    pub const OPENBSD_RAW: u32 = 14;
    /// PPP in HDLC-like framing, or Cisco HDLC.
    pub const PPP_HDLC: u32 = 50;
    /// RFC 1483-encapsulated ATM.
    pub const ATM_RFC1483: u32 = 100;
    /// Raw IP.
    pub const RAW: u32 = 101;
    /// Cisco HDLC.
    pub const C_HDLC: u32 = 104;
    /// IEEE 802.11.
    pub const IEEE802_11: u32 = 105;
    /// OpenBSD loopback: 4-byte address family in network order.
    pub const LOOP: u32 = 108;
    /// Linux cooked capture (`tcpdump -i any`).
    pub const LINUX_SLL: u32 = 113;
    /// 802.11 with a Prism header.
    pub const PRISM_HEADER: u32 = 119;
    /// Aironet header.
    pub const AIRONET_HEADER: u32 = 120;
    /// SunATM.
    pub const SUNATM: u32 = 123;
    /// 802.11 with a radiotap header.
    pub const IEEE802_11_RADIO: u32 = 127;
    /// Raw IPv4 only (`LINKTYPE_IPV4`; mapped to [`RAW`]).
    pub const IPV4: u32 = 228;
    /// Raw IPv6 only (`LINKTYPE_IPV6`; mapped to [`RAW`]).
    pub const IPV6: u32 = 229;
}

/// Click's encapsulation names and their link types (first name wins when
/// unparsing).
const DLT_NAMES: &[(&str, u32)] = &[
    ("NULL", dlt::NULL),
    ("IP", dlt::RAW),
    ("ETHER", dlt::EN10MB),
    ("FDDI", dlt::FDDI),
    ("ATM", dlt::ATM_RFC1483),
    ("RFC1483", dlt::ATM_RFC1483),
    ("ATM_RFC1483", dlt::ATM_RFC1483),
    ("802_11", dlt::IEEE802_11),
    ("802.11", dlt::IEEE802_11),
    ("802_11_RADIO", dlt::IEEE802_11_RADIO),
    ("802.11_RADIO", dlt::IEEE802_11_RADIO),
    ("SLL", dlt::LINUX_SLL),
    ("AIRONET", dlt::AIRONET_HEADER),
    ("HDLC", dlt::C_HDLC),
    ("PPP_HDLC", dlt::PPP_HDLC),
    ("PPP", dlt::PPP),
    ("SUNATM", dlt::SUNATM),
    ("PRISM", dlt::PRISM_HEADER),
];

/// Parses an encapsulation name (`ETHER`, `IP`, ... or `#N` for link type
/// N), as Click's `fake_pcap_parse_dlt`.
pub fn parse_dlt(s: &str) -> Option<u32> {
    if let Some(&(_, d)) = DLT_NAMES.iter().find(|(n, _)| *n == s) {
        return Some(d);
    }
    let n = s.strip_prefix('#')?;
    let v = <u32 as rclick_core::args::FromArg>::from_arg(n, &rclick_core::args::NoContext).ok()?;
    (v < 0x7FFF_FFFF).then_some(v)
}

/// The name of link type `d` (`#N` when it has none).
pub fn unparse_dlt(d: u32) -> String {
    match DLT_NAMES.iter().find(|(_, x)| *x == d) {
        Some((n, _)) => (*n).to_string(),
        None => format!("#{d}"),
    }
}

/// Maps host-specific link type numbers to the file-format ones.
pub fn canonical_dlt(d: u32) -> u32 {
    match d {
        dlt::HOST_RAW | dlt::OPENBSD_RAW | dlt::IPV4 | dlt::IPV6 => dlt::RAW,
        other => other,
    }
}

/// Whether FORCE_IP can find IP headers under link type `d`.
pub fn dlt_force_ipable(d: u32) -> bool {
    matches!(
        d,
        dlt::RAW
            | dlt::EN10MB
            | dlt::LINUX_SLL
            | dlt::NULL
            | dlt::LOOP
            | dlt::PPP
            | dlt::PPP_HDLC
            | dlt::C_HDLC
            | dlt::FDDI
            | dlt::ATM_RFC1483
            | dlt::SUNATM
    )
}

/// A parsed file header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// Fields are big-endian (else little-endian).
    pub big_endian: bool,
    /// Timestamps' fractions are nanoseconds.
    pub nano: bool,
    /// Extra bytes after each record header.
    pub extra_record_len: usize,
    /// Major version.
    pub version_major: u16,
    /// Minor version.
    pub version_minor: u16,
    /// Snapshot length.
    pub snaplen: u32,
    /// Link type as stored in the file.
    pub linktype: u32,
}

/// Why a file header was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// Fewer than 24 bytes.
    TooShort,
    /// No known magic number in either byte order.
    BadMagic,
    /// A major version other than 2.
    BadVersion(u16),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::TooShort => f.write_str("not a tcpdump file (too short)"),
            HeaderError::BadMagic => f.write_str("not a tcpdump file (bad magic number)"),
            HeaderError::BadVersion(v) => write!(f, "unknown major version {v}"),
        }
    }
}

fn u32_at(b: &[u8], off: usize, big: bool) -> u32 {
    let a = [b[off], b[off + 1], b[off + 2], b[off + 3]];
    if big {
        u32::from_be_bytes(a)
    } else {
        u32::from_le_bytes(a)
    }
}

fn u16_at(b: &[u8], off: usize, big: bool) -> u16 {
    let a = [b[off], b[off + 1]];
    if big {
        u16::from_be_bytes(a)
    } else {
        u16::from_le_bytes(a)
    }
}

impl FileHeader {
    /// Parses the first 24 bytes of a file.
    pub fn parse(b: &[u8]) -> Result<FileHeader, HeaderError> {
        if b.len() < FILE_HEADER_LEN {
            return Err(HeaderError::TooShort);
        }
        let known = |m: u32| m == MAGIC || m == MAGIC_NANO || m == MAGIC_MODIFIED;
        let big_endian = if known(u32_at(b, 0, false)) {
            false
        } else if known(u32_at(b, 0, true)) {
            true
        } else {
            return Err(HeaderError::BadMagic);
        };
        let magic = u32_at(b, 0, big_endian);
        let version_major = u16_at(b, 4, big_endian);
        if version_major != VERSION_MAJOR {
            return Err(HeaderError::BadVersion(version_major));
        }
        Ok(FileHeader {
            big_endian,
            nano: magic == MAGIC_NANO,
            extra_record_len: if magic == MAGIC_MODIFIED {
                MODIFIED_EXTRA_LEN
            } else {
                0
            },
            version_major,
            version_minor: u16_at(b, 6, big_endian),
            snaplen: u32_at(b, 16, big_endian),
            linktype: u32_at(b, 20, big_endian),
        })
    }

    /// The 24 bytes of a file header in this machine's byte order, as
    /// libpcap writes them.
    pub fn emit(nano: bool, snaplen: u32, linktype: u32) -> [u8; FILE_HEADER_LEN] {
        let mut h = [0u8; FILE_HEADER_LEN];
        let magic = if nano { MAGIC_NANO } else { MAGIC };
        h[0..4].copy_from_slice(&magic.to_ne_bytes());
        h[4..6].copy_from_slice(&VERSION_MAJOR.to_ne_bytes());
        h[6..8].copy_from_slice(&VERSION_MINOR.to_ne_bytes());
        // thiszone and sigfigs stay 0: timestamps are UTC.
        h[16..20].copy_from_slice(&snaplen.to_ne_bytes());
        h[20..24].copy_from_slice(&linktype.to_ne_bytes());
        h
    }

    /// Decodes a record header.
    pub fn record(&self, b: &[u8; RECORD_HEADER_LEN]) -> RecordHeader {
        let big = self.big_endian;
        let sec = u32_at(b, 0, big);
        let frac = u32_at(b, 4, big);
        let mut caplen = u32_at(b, 8, big);
        let mut len = u32_at(b, 12, big);
        // Before version 2.3, some writers swapped caplen and len.
        let ordered = self.version_minor > 3 || (self.version_minor == 3 && caplen <= len);
        if !ordered {
            std::mem::swap(&mut caplen, &mut len);
        }
        let ts = if self.nano {
            Timestamp::from_sec_nsec(i64::from(sec), i64::from(frac))
        } else {
            Timestamp::from_sec_usec(i64::from(sec), i64::from(frac))
        };
        RecordHeader { ts, caplen, len }
    }
}

/// A decoded record header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordHeader {
    /// The packet's timestamp.
    pub ts: Timestamp,
    /// Bytes stored in the file.
    pub caplen: u32,
    /// The packet's length on the wire.
    pub len: u32,
}

/// The 16 bytes of a record header in this machine's byte order.
pub fn emit_record(ts: Timestamp, nano: bool, caplen: u32, len: u32) -> [u8; RECORD_HEADER_LEN] {
    let mut h = [0u8; RECORD_HEADER_LEN];
    // The file format has unsigned 32-bit seconds.
    let sec = ts.sec().clamp(0, i64::from(u32::MAX)) as u32;
    let frac = if nano {
        ts.subsec_nsec()
    } else {
        ts.subsec_usec()
    };
    h[0..4].copy_from_slice(&sec.to_ne_bytes());
    h[4..8].copy_from_slice(&frac.to_ne_bytes());
    h[8..12].copy_from_slice(&caplen.to_ne_bytes());
    h[12..16].copy_from_slice(&len.to_ne_bytes());
    h
}

fn is_ip_ethertype(hi: u8, lo: u8) -> bool {
    let t = u16::from_be_bytes([hi, lo]);
    t == 0x0800 || t == 0x86DD
}

/// Where the IP header of a frame of link type `linktype` starts, if the
/// frame carries IPv4 or IPv6 (Click's `fake_pcap_force_ip` walk).
/// By byte offset: these link layers (Linux SLL, BSD loopback, HDLC, PPP,
/// FDDI) exist only in capture files, and rclick-wire has no views for them.
fn ip_offset(d: &[u8], linktype: u32) -> Option<usize> {
    match linktype {
        dlt::RAW | dlt::HOST_RAW | dlt::OPENBSD_RAW => Some(0),
        dlt::EN10MB => ether_ip_offset(d, 0),
        dlt::LINUX_SLL => {
            // pkttype, hatype, halen (2 each), 8 address bytes, protocol.
            (d.len() >= 16 && is_ip_ethertype(d[14], d[15])).then_some(16)
        }
        dlt::NULL | dlt::LOOP => {
            if d.len() < 4 {
                return None;
            }
            let family = if linktype == dlt::LOOP {
                u32::from_be_bytes([d[0], d[1], d[2], d[3]])
            } else {
                // Host order of the capturing machine: try both.
                let le = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
                if le & 0xFFFF == 0 {
                    le >> 16
                } else {
                    le
                }
            };
            // AF_INET, and the BSDs' various AF_INET6.
            matches!(family, 2 | 24 | 28 | 30).then_some(4)
        }
        dlt::C_HDLC => (d.len() >= 4 && is_ip_ethertype(d[2], d[3])).then_some(4),
        dlt::PPP_HDLC => {
            if d.len() < 4 {
                None
            } else if d[0] == 0xFF {
                (d[2] == 0 && (d[3] == 0x21 || d[3] == 0x57)).then_some(4)
            } else if d[0] == 0x0F || d[0] == 0x8F {
                is_ip_ethertype(d[2], d[3]).then_some(4)
            } else {
                None
            }
        }
        dlt::PPP => {
            let mut o = 0;
            if d.len() >= 2 && d[0] == 0xFF && d[1] == 0x03 {
                o = 2;
            }
            if d.len() < o + 2 {
                None
            } else if d[o] == 0x21 || d[o] == 0x57 {
                Some(o + 1)
            } else if d[o] == 0 && (d[o + 1] == 0x21 || d[o + 1] == 0x57) {
                Some(o + 2)
            } else {
                None
            }
        }
        dlt::FDDI => {
            // Frame control, 2 addresses, then LLC/SNAP.
            if d.len() < 13 || (d[0] & 0x38) != 0x10 {
                return None;
            }
            llc_ip_offset(d, 13)
        }
        dlt::ATM_RFC1483 => llc_ip_offset(d, 0),
        dlt::SUNATM => llc_ip_offset(d, 4),
        _ => None,
    }
}

/// Past an Ethernet header and at most one 802.1Q tag, through
/// rclick-wire's views (Ethernet is the one link layer here they know).
fn ether_ip_offset(d: &[u8], o: usize) -> Option<usize> {
    use rclick_wire::ethernet::{EtherType, EthernetFrame, HEADER_LEN};
    use rclick_wire::vlan::{VlanTag, HEADER_LEN as TAG_LEN};
    let is_ip = |t: EtherType| t == EtherType::IPV4 || t == EtherType::IPV6;
    let eth = EthernetFrame::new_checked(d.get(o..)?).ok()?;
    if is_ip(eth.ethertype()) {
        return Some(o + HEADER_LEN);
    }
    if eth.ethertype() == EtherType::VLAN {
        let tag = VlanTag::new_checked(eth.payload()).ok()?;
        return is_ip(tag.ethertype()).then_some(o + HEADER_LEN + TAG_LEN);
    }
    None
}

fn llc_ip_offset(d: &[u8], o: usize) -> Option<usize> {
    let r = d.get(o..)?;
    if r.len() >= 8 && r[0..6] == [0xAA, 0xAA, 0x03, 0, 0, 0] && is_ip_ethertype(r[6], r[7]) {
        Some(o + 8)
    } else if r.len() >= 4 && r[0] == 0x06 && r[1] == 0x06 {
        Some(o + 4)
    } else {
        None
    }
}

/// FORCE_IP: if `p` (a frame of link type `linktype`) carries a whole IPv4
/// or IPv6 header, sets its network header (and, for IPv4, the destination
/// address annotation) and returns true.
pub fn force_ip(p: &mut Packet, linktype: u32) -> bool {
    let d = p.data();
    let Some(off) = ip_offset(d, linktype) else {
        return false;
    };
    let Some(&first) = d.get(off) else {
        return false;
    };
    match first >> 4 {
        4 => {
            let hl = usize::from(first & 0x0F) * 4;
            if hl < 20 || d.len() < off + hl {
                return false;
            }
            let dst = [d[off + 16], d[off + 17], d[off + 18], d[off + 19]];
            p.set_ip_header(off, hl);
            p.set_dst_ip_anno(std::net::Ipv4Addr::from(dst));
            true
        }
        6 => {
            if d.len() < off + 40 {
                return false;
            }
            p.set_network_header(off, 40);
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_both_orders() {
        let le = FileHeader::emit(false, 2000, 1);
        let h = FileHeader::parse(&le).unwrap();
        assert!(!h.nano);
        assert_eq!((h.snaplen, h.linktype), (2000, 1));
        let mut be = [0u8; 24];
        be[0..4].copy_from_slice(&MAGIC_NANO.to_be_bytes());
        be[4..6].copy_from_slice(&2u16.to_be_bytes());
        be[6..8].copy_from_slice(&4u16.to_be_bytes());
        be[16..20].copy_from_slice(&65535u32.to_be_bytes());
        be[20..24].copy_from_slice(&101u32.to_be_bytes());
        let h = FileHeader::parse(&be).unwrap();
        assert!(h.big_endian && h.nano);
        assert_eq!((h.snaplen, h.linktype), (65535, 101));
        assert_eq!(FileHeader::parse(&be[..10]), Err(HeaderError::TooShort));
        assert_eq!(FileHeader::parse(&[0u8; 24]), Err(HeaderError::BadMagic));
        be[4..6].copy_from_slice(&3u16.to_be_bytes());
        assert_eq!(
            FileHeader::parse(&be).unwrap_err().to_string(),
            "unknown major version 3"
        );
    }

    #[test]
    fn old_versions_swap_lengths() {
        let mut raw = FileHeader::emit(false, 0, 1);
        raw[6..8].copy_from_slice(&2u16.to_ne_bytes());
        let h = FileHeader::parse(&raw).unwrap();
        let r = h.record(&emit_record(Timestamp::from_sec(5), false, 100, 60));
        assert_eq!((r.caplen, r.len), (60, 100));
    }

    #[test]
    fn dlt_names() {
        assert_eq!(parse_dlt("ETHER"), Some(1));
        assert_eq!(parse_dlt("IP"), Some(101));
        assert_eq!(parse_dlt("SLL"), Some(113));
        assert_eq!(parse_dlt("#147"), Some(147));
        assert_eq!(parse_dlt("bogus"), None);
        assert_eq!(unparse_dlt(101), "IP");
        assert_eq!(unparse_dlt(147), "#147");
        assert_eq!(canonical_dlt(12), 101);
        assert_eq!(canonical_dlt(14), 101);
    }

    #[test]
    fn force_ip_walks() {
        let ip = [
            0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
        ];
        let mut eth = vec![0u8; 12];
        eth.extend_from_slice(&[0x81, 0x00, 0, 5, 0x08, 0x00]);
        eth.extend_from_slice(&ip);
        let mut p = Packet::from_slice(&eth);
        assert!(force_ip(&mut p, dlt::EN10MB));
        assert_eq!(p.ip_header_offset(), Some(18));
        assert_eq!(p.dst_ip_anno(), std::net::Ipv4Addr::new(5, 6, 7, 8));
        let mut sll = vec![0u8; 14];
        sll.extend_from_slice(&[0x08, 0x00]);
        sll.extend_from_slice(&ip);
        let mut p = Packet::from_slice(&sll);
        assert!(force_ip(&mut p, dlt::LINUX_SLL));
        assert_eq!(p.ip_header_offset(), Some(16));
        let mut p = Packet::from_slice(&ip[..19]);
        assert!(!force_ip(&mut p, dlt::RAW));
        let mut arp = vec![0u8; 12];
        arp.extend_from_slice(&[0x08, 0x06]);
        arp.extend_from_slice(&[0u8; 28]);
        let mut p = Packet::from_slice(&arp);
        assert!(!force_ip(&mut p, dlt::EN10MB));
        let mut null = vec![2, 0, 0, 0];
        null.extend_from_slice(&ip);
        let mut p = Packet::from_slice(&null);
        assert!(force_ip(&mut p, dlt::NULL));
    }

    #[test]
    fn ethernet_ip_offset_with_and_without_a_tag() {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x86, 0xdd]);
        assert_eq!(ether_ip_offset(&f, 0), Some(14));
        assert_eq!(ether_ip_offset(&f[..13], 0), None);
        f[12] = 0x81;
        f[13] = 0;
        f.extend_from_slice(&[0, 5]);
        assert_eq!(ether_ip_offset(&f, 0), None, "tag cut short");
        f.extend_from_slice(&[0x08, 0x00]);
        assert_eq!(ether_ip_offset(&f, 0), Some(18));
        f[17] = 6; // ARP inside the tag
        assert_eq!(ether_ip_offset(&f, 0), None);
    }
}
