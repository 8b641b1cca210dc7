//! The IP summary dump fields shared by FromIPSummaryDump and
//! ToIPSummaryDump (Click's `ipsumdump_*.cc`), split by job:
//!
//! - this file: the field table (names, synonyms, kinds) and the payload
//!   digest;
//! - [`text`]: numbers, timestamps and quoted bytes in the dump's text;
//! - [`inject`]: parsing a field's text into a packet under construction;
//! - [`options`]: IP and TCP options as text and bytes;
//! - [`extract`]: describing a packet and printing its fields;
//! - [`binary`]: the `!binary` format's per-field encodings.
//!
//! Every public name is re-exported here, so users name
//! `ipsumdump_fields::X` whichever part defines it.

mod binary;
mod extract;
mod inject;
mod options;
mod text;

pub use binary::*;
pub use extract::*;
pub use inject::*;
pub use options::*;
pub use text::*;

use std::net::Ipv4Addr;

/// The dump format's major version.
pub const MAJOR_VERSION: i32 = 1;
/// The dump format's minor version.
pub const MINOR_VERSION: i32 = 3;

pub(crate) const PROTO_ICMP: u8 = 1;
pub(crate) const PROTO_TCP: u8 = 6;
pub(crate) const PROTO_UDP: u8 = 17;
pub(crate) const PROTO_DCCP: u8 = 33;
pub(crate) const PROTO_UDPLITE: u8 = 136;

/// One summary dump field.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    None,
    Timestamp,
    NTimestamp,
    TsSec,
    TsUsec,
    TsUsec1,
    FirstTimestamp,
    FirstNTimestamp,
    Count,
    Link,
    Paint,
    Direction,
    Aggregate,
    WireLen,
    IpSrc,
    IpDst,
    IpTos,
    IpDscp,
    IpEcn,
    IpTtl,
    IpFrag,
    IpFragoff,
    IpId,
    IpSum,
    IpProto,
    IpHl,
    IpLen,
    IpCaptureLen,
    IpOpt,
    Sport,
    Dport,
    TcpSeq,
    TcpAck,
    TcpOff,
    TcpFlags,
    TcpWindow,
    TcpUrp,
    TcpOpt,
    TcpNtopt,
    TcpSack,
    UdpLen,
    IcmpType,
    IcmpCode,
    IcmpTypeName,
    IcmpCodeName,
    IcmpFlowid,
    IcmpSeq,
    IcmpNextmtu,
    PayloadLen,
    Payload,
    PayloadMd5,
    PayloadMd5Hex,
}

/// (name, field, reader order or `None` when the field cannot be read)
pub(crate) const TABLE: &[(&str, Field, Option<i32>)] = &[
    ("timestamp", Field::Timestamp, Some(100)),
    ("ntimestamp", Field::NTimestamp, Some(100)),
    ("ts_sec", Field::TsSec, Some(100)),
    ("ts_usec", Field::TsUsec, Some(100)),
    ("ts_usec1", Field::TsUsec1, Some(100)),
    ("first_timestamp", Field::FirstTimestamp, Some(100)),
    ("first_ntimestamp", Field::FirstNTimestamp, Some(100)),
    ("count", Field::Count, Some(100)),
    ("link", Field::Link, Some(100)),
    ("paint", Field::Paint, Some(100)),
    ("direction", Field::Direction, Some(100)),
    ("aggregate", Field::Aggregate, Some(100)),
    ("wire_len", Field::WireLen, Some(100)),
    ("ip_src", Field::IpSrc, Some(300)),
    ("ip_dst", Field::IpDst, Some(300)),
    ("ip_tos", Field::IpTos, Some(300)),
    ("ip_dscp", Field::IpDscp, Some(300)),
    ("ip_ecn", Field::IpEcn, Some(300)),
    ("ip_ttl", Field::IpTtl, Some(300)),
    ("ip_frag", Field::IpFrag, Some(298)),
    ("ip_fragoff", Field::IpFragoff, Some(299)),
    ("ip_id", Field::IpId, Some(300)),
    ("ip_sum", Field::IpSum, Some(302)),
    ("ip_proto", Field::IpProto, Some(300)),
    ("ip_hl", Field::IpHl, Some(299)),
    ("ip_len", Field::IpLen, Some(301)),
    ("ip_capture_len", Field::IpCaptureLen, Some(502)),
    ("ip_opt", Field::IpOpt, Some(300)),
    ("sport", Field::Sport, Some(400)),
    ("dport", Field::Dport, Some(400)),
    ("tcp_seq", Field::TcpSeq, Some(400)),
    ("tcp_ack", Field::TcpAck, Some(400)),
    ("tcp_off", Field::TcpOff, Some(399)),
    ("tcp_flags", Field::TcpFlags, Some(400)),
    ("tcp_window", Field::TcpWindow, Some(400)),
    ("tcp_urp", Field::TcpUrp, Some(400)),
    ("tcp_opt", Field::TcpOpt, Some(403)),
    ("tcp_ntopt", Field::TcpNtopt, Some(402)),
    ("tcp_sack", Field::TcpSack, Some(401)),
    ("udp_len", Field::UdpLen, Some(400)),
    ("icmp_type", Field::IcmpType, Some(400)),
    ("icmp_code", Field::IcmpCode, Some(401)),
    ("icmp_type_name", Field::IcmpTypeName, Some(400)),
    ("icmp_code_name", Field::IcmpCodeName, Some(401)),
    ("icmp_flowid", Field::IcmpFlowid, Some(402)),
    ("icmp_seq", Field::IcmpSeq, Some(402)),
    ("icmp_nextmtu", Field::IcmpNextmtu, Some(402)),
    ("payload_len", Field::PayloadLen, Some(501)),
    ("payload", Field::Payload, Some(500)),
    ("payload_md5", Field::PayloadMd5, None),
    ("payload_md5_hex", Field::PayloadMd5Hex, None),
];

pub(crate) const SYNONYMS: &[(&str, &str)] = &[
    ("length", "ip_len"),
    ("ip_p", "ip_proto"),
    ("tcp_seqno", "tcp_seq"),
    ("tcp_ackno", "tcp_ack"),
    ("tcp_win", "tcp_window"),
    ("utimestamp", "timestamp"),
    ("ts", "utimestamp"),
    ("sec", "ts_sec"),
    ("usec", "ts_usec"),
    ("usec1", "ts_usec1"),
    ("first_utimestamp", "first_timestamp"),
    ("first_ts", "first_utimestamp"),
    ("pkt_count", "count"),
    ("packet_count", "count"),
    ("agg", "aggregate"),
    ("wire_length", "wire_len"),
    ("payload_length", "payload_len"),
];

impl Field {
    /// The field called `name` (synonyms, `X` for `ip_X`, and spaces for
    /// underscores accepted, as Click does).
    pub fn find(name: &str) -> Option<Field> {
        Self::find_depth(name, 0)
    }

    pub(crate) fn find_depth(name: &str, depth: u32) -> Option<Field> {
        if depth > 8 {
            return None;
        }
        if let Some(&(_, syn)) = SYNONYMS.iter().find(|(n, _)| *n == name) {
            return Self::find_depth(syn, depth + 1);
        }
        if let Some(&(_, f, _)) = TABLE.iter().find(|(n, _, _)| *n == name) {
            return Some(f);
        }
        if let Some(i) = name.find(' ') {
            let n = format!("{}_{}", &name[..i], &name[i + 1..]);
            return Self::find_depth(&n, depth + 1);
        }
        if !name.contains('_') && !name.is_empty() {
            return Self::find_depth(&format!("ip_{name}"), depth + 1);
        }
        None
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(_, f, _)| *f == self)
            .map(|(n, _, _)| *n)
            .unwrap_or("none")
    }

    /// The reader order (fields are injected in increasing order), or
    /// `None` if the field is ignored on input.
    pub fn read_order(self) -> Option<i32> {
        TABLE
            .iter()
            .find(|(_, f, _)| *f == self)
            .and_then(|(_, _, o)| *o)
    }

    /// Whether writing the field looks at the IP headers.
    pub fn needs_ip(self) -> bool {
        !matches!(
            self,
            Field::None
                | Field::Timestamp
                | Field::NTimestamp
                | Field::TsSec
                | Field::TsUsec
                | Field::TsUsec1
                | Field::FirstTimestamp
                | Field::FirstNTimestamp
                | Field::Count
                | Field::Link
                | Field::Paint
                | Field::Direction
                | Field::Aggregate
                | Field::WireLen
        )
    }
}

/// A default flow identifier (`!flowid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowId {
    /// Source address.
    pub src: Ipv4Addr,
    /// Source port.
    pub sport: u16,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Destination port.
    pub dport: u16,
}

// ---------------------------------------------------------------------------
// MD5 (RFC 1321), for the payload_md5 fields

/// The MD5 digest of `data` (RustCrypto's `md-5`).
pub fn md5(data: &[u8]) -> [u8; 16] {
    use md5::{Digest, Md5};
    Md5::digest(data).into()
}

/// Click's `md5_finish_text` encoding (22 characters, `@` allowed).
pub fn md5_text(out: &mut String, digest: &[u8; 16]) {
    const ALPHABET: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@";
    let mut emitted = 0;
    for chunk in digest.chunks(3) {
        let mut v: u32 = 0;
        for (i, &b) in chunk.iter().enumerate() {
            v |= u32::from(b) << (8 * i);
        }
        let nchars = if chunk.len() == 3 { 4 } else { chunk.len() + 1 };
        for k in 0..nchars {
            out.push(ALPHABET[((v >> (6 * k)) & 63) as usize] as char);
            emitted += 1;
        }
    }
    debug_assert_eq!(emitted, 22);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_names() {
        assert_eq!(Field::find("src"), Some(Field::IpSrc));
        assert_eq!(Field::find("ts"), Some(Field::Timestamp));
        assert_eq!(Field::find("proto"), Some(Field::IpProto));
        assert_eq!(Field::find("ip len"), Some(Field::IpLen));
        assert_eq!(Field::find("bogus_field"), None);
        assert_eq!(Field::find("src").map(Field::name), Some("ip_src"));
    }

    fn md5_hex(data: &[u8]) -> String {
        md5(data).iter().map(|b| format!("{b:02x}")).collect()
    }

    /// RFC 1321's test suite, and inputs around the padding's block
    /// boundaries (55, 56, 63, 64, 65 bytes) and over several blocks.
    #[test]
    fn md5_rfc1321_vectors_and_block_boundaries() {
        for (input, want) in [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (
                "abcdefghijklmnopqrstuvwxyz",
                "c3fcd3d76192e4007dfb496cca67e13b",
            ),
            (
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
                "57edf4a22be3c955ac49da2e2107b67a",
            ),
        ] {
            assert_eq!(md5_hex(input.as_bytes()), want, "{input:?}");
        }
        for (n, want) in [
            (55, "6912ee65fff2d9f9ce2508cddf8bcda0"),
            (56, "51fdd1acda72405dfdfa03fcb85896d7"),
            (63, "48a6295221902e8e0938f773a7185e72"),
            (64, "b2d3f56bc197fd985d5965079b5e7148"),
            (65, "8bd7053801c768420faf816fadba971c"),
            (1000, "a24f1e3ef66950e1327f210e3997ba2c"),
        ] {
            let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            assert_eq!(md5_hex(&data), want, "{n} bytes");
        }
    }

    /// The digests and their text as the hand-written MD5 this replaced
    /// printed them (and Click prints them).
    #[test]
    fn md5_known() {
        let mut s = String::new();
        md5_text(&mut s, &md5(b""));
        assert_eq!(s, "u3bJz@iaYsq6aMaMSJVq_b");
        let hex: String = md5(b"hi there\n")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(hex, "12f6bb1941df66b8f138a446d4e8670c");
        let mut s = String::new();
        md5_text(&mut s, &md5(b"hi there\n"));
        assert_eq!(s, "sy@Uze03MHB84qQruJ_zma");
    }
}
