//! ICMP messages (RFC 792), with Click's type and code constants and names.
//!
//! ```text
//!  0               1               2               3
//! +---------------+---------------+-------------------------------+
//! |     Type      |     Code      |           Checksum            |
//! +---------------+---------------+-------------------------------+
//! |  rest of header (echo: identifier, sequence; redirect:        |
//! |  gateway; parameter problem: pointer; needfrag: next-hop MTU) |
//! +---------------------------------------------------------------+
//! |  data (echo payload, or the offending IP header + 8 bytes)    |
//! ```
//!
//! The view's buffer is the whole ICMP message (the IP payload), since the
//! checksum covers all of it.

use crate::checksum;
use crate::{check_room, read_u16, read_u32, write_u16, write_u32, Result, WireError};

/// ICMP message types (Click's `ICMP_*` names in each doc line).
pub mod types {
    /// Echo reply, 0 (`ICMP_ECHOREPLY`).
    pub const ECHO_REPLY: u8 = 0;
    /// Destination unreachable, 3 (`ICMP_UNREACH`); codes in [`super::unreach`].
    pub const UNREACH: u8 = 3;
    /// Source quench, 4 (`ICMP_SOURCEQUENCH`).
    pub const SOURCE_QUENCH: u8 = 4;
    /// Redirect, 5 (`ICMP_REDIRECT`); codes in [`super::redirect`].
    pub const REDIRECT: u8 = 5;
    /// Echo request, 8 (`ICMP_ECHO`).
    pub const ECHO: u8 = 8;
    /// Router advertisement, 9 (`ICMP_ROUTERADVERT`).
    pub const ROUTER_ADVERT: u8 = 9;
    /// Router solicitation, 10 (`ICMP_ROUTERSOLICIT`).
    pub const ROUTER_SOLICIT: u8 = 10;
    /// Time exceeded, 11 (`ICMP_TIMXCEED`); codes in [`super::time_exceeded`].
    pub const TIME_EXCEEDED: u8 = 11;
    /// Parameter problem, 12 (`ICMP_PARAMPROB`); codes in [`super::param_problem`].
    pub const PARAM_PROBLEM: u8 = 12;
    /// Timestamp request, 13 (`ICMP_TSTAMP`).
    pub const TIMESTAMP: u8 = 13;
    /// Timestamp reply, 14 (`ICMP_TSTAMPREPLY`).
    pub const TIMESTAMP_REPLY: u8 = 14;
    /// Information request, 15 (`ICMP_IREQ`).
    pub const INFO_REQUEST: u8 = 15;
    /// Information reply, 16 (`ICMP_IREQREPLY`).
    pub const INFO_REPLY: u8 = 16;
    /// Address mask request, 17 (`ICMP_MASKREQ`).
    pub const MASK_REQUEST: u8 = 17;
    /// Address mask reply, 18 (`ICMP_MASKREQREPLY`).
    pub const MASK_REPLY: u8 = 18;
}

/// Codes of [`types::UNREACH`].
pub mod unreach {
    /// Network unreachable, 0.
    pub const NET: u8 = 0;
    /// Host unreachable, 1.
    pub const HOST: u8 = 1;
    /// Protocol unreachable, 2.
    pub const PROTOCOL: u8 = 2;
    /// Port unreachable, 3.
    pub const PORT: u8 = 3;
    /// Fragmentation needed and DF set, 4; the next-hop MTU is in bytes 6..8.
    pub const NEEDFRAG: u8 = 4;
    /// Source route failed, 5.
    pub const SRCFAIL: u8 = 5;
    /// Destination network unknown, 6.
    pub const NET_UNKNOWN: u8 = 6;
    /// Destination host unknown, 7.
    pub const HOST_UNKNOWN: u8 = 7;
    /// Source host isolated, 8.
    pub const ISOLATED: u8 = 8;
    /// Network administratively prohibited, 9.
    pub const NET_PROHIB: u8 = 9;
    /// Host administratively prohibited, 10.
    pub const HOST_PROHIB: u8 = 10;
    /// Network unreachable for TOS, 11.
    pub const TOSNET: u8 = 11;
    /// Host unreachable for TOS, 12.
    pub const TOSHOST: u8 = 12;
    /// Communication administratively prohibited by filtering, 13.
    pub const FILTER_PROHIB: u8 = 13;
    /// Host precedence violation, 14.
    pub const HOST_PRECEDENCE: u8 = 14;
    /// Precedence cutoff in effect, 15.
    pub const PRECEDENCE_CUTOFF: u8 = 15;
}

/// Codes of [`types::REDIRECT`].
pub mod redirect {
    /// Redirect for the network, 0.
    pub const NET: u8 = 0;
    /// Redirect for the host, 1.
    pub const HOST: u8 = 1;
    /// Redirect for TOS and network, 2.
    pub const TOSNET: u8 = 2;
    /// Redirect for TOS and host, 3.
    pub const TOSHOST: u8 = 3;
}

/// Codes of [`types::TIME_EXCEEDED`].
pub mod time_exceeded {
    /// TTL exceeded in transit, 0.
    pub const TRANSIT: u8 = 0;
    /// Fragment reassembly time exceeded, 1.
    pub const REASSEMBLY: u8 = 1;
}

/// Codes of [`types::PARAM_PROBLEM`].
pub mod param_problem {
    /// The pointer (byte 4) indicates the error, 0.
    pub const ERRATPTR: u8 = 0;
    /// A required option is missing, 1.
    pub const OPTABSENT: u8 = 1;
    /// Bad length, 2.
    pub const LENGTH: u8 = 2;
}

/// Click's names for ICMP types (`NameInfo`'s ICMP type database).
const TYPE_NAMES: &[(&str, u8)] = &[
    ("echo", types::ECHO),
    ("echo-reply", types::ECHO_REPLY),
    ("inforeq", types::INFO_REQUEST),
    ("inforeq-reply", types::INFO_REPLY),
    ("maskreq", types::MASK_REQUEST),
    ("maskreq-reply", types::MASK_REPLY),
    ("parameterproblem", types::PARAM_PROBLEM),
    ("redirect", types::REDIRECT),
    ("routeradvert", types::ROUTER_ADVERT),
    ("routersolicit", types::ROUTER_SOLICIT),
    ("sourcequench", types::SOURCE_QUENCH),
    ("timeexceeded", types::TIME_EXCEEDED),
    ("timestamp", types::TIMESTAMP),
    ("timestamp-reply", types::TIMESTAMP_REPLY),
    ("unreachable", types::UNREACH),
];

const UNREACH_NAMES: &[(&str, u8)] = &[
    ("filterprohibited", unreach::FILTER_PROHIB),
    ("host", unreach::HOST),
    ("hostprecedence", unreach::HOST_PRECEDENCE),
    ("hostprohibited", unreach::HOST_PROHIB),
    ("hostunknown", unreach::HOST_UNKNOWN),
    ("isolated", unreach::ISOLATED),
    ("needfrag", unreach::NEEDFRAG),
    ("net", unreach::NET),
    ("netprohibited", unreach::NET_PROHIB),
    ("netunknown", unreach::NET_UNKNOWN),
    ("port", unreach::PORT),
    ("precedencecutoff", unreach::PRECEDENCE_CUTOFF),
    ("protocol", unreach::PROTOCOL),
    ("srcroutefail", unreach::SRCFAIL),
    ("toshost", unreach::TOSHOST),
    ("tosnet", unreach::TOSNET),
];

const REDIRECT_NAMES: &[(&str, u8)] = &[
    ("host", redirect::HOST),
    ("net", redirect::NET),
    ("toshost", redirect::TOSHOST),
    ("tosnet", redirect::TOSNET),
];

const TIME_EXCEEDED_NAMES: &[(&str, u8)] = &[
    ("reassembly", time_exceeded::REASSEMBLY),
    ("transit", time_exceeded::TRANSIT),
];

const PARAM_PROBLEM_NAMES: &[(&str, u8)] = &[
    ("erroratptr", param_problem::ERRATPTR),
    ("length", param_problem::LENGTH),
    ("missingopt", param_problem::OPTABSENT),
];

fn code_table(icmp_type: u8) -> &'static [(&'static str, u8)] {
    match icmp_type {
        types::UNREACH => UNREACH_NAMES,
        types::REDIRECT => REDIRECT_NAMES,
        types::TIME_EXCEEDED => TIME_EXCEEDED_NAMES,
        types::PARAM_PROBLEM => PARAM_PROBLEM_NAMES,
        _ => &[],
    }
}

/// The length of the ICMP header of a message of type `icmp_type`, what
/// precedes its data (Click's `click_icmp_hl`): 20 for timestamp
/// messages, 12 for address mask messages, 8 for every other type.
pub const fn header_len_for_type(icmp_type: u8) -> usize {
    match icmp_type {
        types::TIMESTAMP | types::TIMESTAMP_REPLY => 20,
        types::MASK_REQUEST | types::MASK_REPLY => 12,
        _ => 8,
    }
}

/// Click's name for an ICMP type (`"echo"`, `"unreachable"`...).
pub fn type_name(icmp_type: u8) -> Option<&'static str> {
    TYPE_NAMES
        .iter()
        .find(|&&(_, v)| v == icmp_type)
        .map(|&(n, _)| n)
}

/// The ICMP type Click calls `name`.
pub fn type_from_name(name: &str) -> Option<u8> {
    TYPE_NAMES
        .iter()
        .find(|&&(n, _)| n == name)
        .map(|&(_, v)| v)
}

/// Click's name for `code` of `icmp_type` (`"port"`, `"transit"`...).
pub fn code_name(icmp_type: u8, code: u8) -> Option<&'static str> {
    code_table(icmp_type)
        .iter()
        .find(|&&(_, v)| v == code)
        .map(|&(n, _)| n)
}

/// The code of `icmp_type` that Click calls `name`.
pub fn code_from_name(icmp_type: u8, name: &str) -> Option<u8> {
    code_table(icmp_type)
        .iter()
        .find(|&&(n, _)| n == name)
        .map(|&(_, v)| v)
}

/// Whether `icmp_type` is an error message (unreachable, source quench,
/// redirect, time exceeded, parameter problem). No ICMP error is sent
/// about an ICMP error.
pub fn is_error(icmp_type: u8) -> bool {
    matches!(
        icmp_type,
        types::UNREACH
            | types::SOURCE_QUENCH
            | types::REDIRECT
            | types::TIME_EXCEEDED
            | types::PARAM_PROBLEM
    )
}

/// Byte ranges of the ICMP header.
pub mod field {
    use core::ops::{Range, RangeFrom};
    /// Type.
    pub const TYPE: usize = 0;
    /// Code.
    pub const CODE: usize = 1;
    /// Checksum (offset).
    pub const CHECKSUM: usize = 2;
    /// The 4 type-specific bytes.
    pub const REST: Range<usize> = 4..8;
    /// Echo identifier (offset).
    pub const ECHO_IDENT: usize = 4;
    /// Echo sequence number (offset).
    pub const ECHO_SEQNO: usize = 6;
    /// Parameter problem pointer.
    pub const POINTER: usize = 4;
    /// Next-hop MTU of "fragmentation needed" (offset).
    pub const NEXT_HOP_MTU: usize = 6;
    /// Data after the 8-byte header.
    pub const DATA: RangeFrom<usize> = 8..;
}

/// Length of the ICMP header.
pub const HEADER_LEN: usize = 8;

view! {
    /// A view of an ICMP message.
    pub struct IcmpPacket;
}

impl<T: AsRef<[u8]>> IcmpPacket<T> {
    /// Checks that the buffer holds the 8-byte header.
    pub fn check_len(&self) -> Result<()> {
        check_room("ICMP", HEADER_LEN, self.buffer.as_ref().len())
    }

    /// Message type (see [`types`]).
    #[inline]
    pub fn icmp_type(&self) -> u8 {
        self.buffer.as_ref()[field::TYPE]
    }

    /// Code (see [`unreach`], [`redirect`], [`time_exceeded`],
    /// [`param_problem`]).
    #[inline]
    pub fn code(&self) -> u8 {
        self.buffer.as_ref()[field::CODE]
    }

    /// Checksum as stored.
    #[inline]
    pub fn checksum(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// The 4 type-specific header bytes as one big-endian word.
    #[inline]
    pub fn rest_of_header(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::REST.start)
    }

    /// Echo (reply) identifier.
    #[inline]
    pub fn echo_ident(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::ECHO_IDENT)
    }

    /// Echo (reply) sequence number.
    #[inline]
    pub fn echo_seq_no(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::ECHO_SEQNO)
    }

    /// Parameter problem pointer: the offending byte's offset in the
    /// quoted IP header.
    #[inline]
    pub fn pointer(&self) -> u8 {
        self.buffer.as_ref()[field::POINTER]
    }

    /// Redirect gateway address.
    #[inline]
    pub fn gateway(&self) -> std::net::Ipv4Addr {
        std::net::Ipv4Addr::from(self.rest_of_header())
    }

    /// Next-hop MTU of a "fragmentation needed" unreachable (RFC 1191).
    #[inline]
    pub fn next_hop_mtu(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::NEXT_HOP_MTU)
    }

    /// The data after the header.
    #[inline]
    pub fn data(&self) -> &[u8] {
        &self.buffer.as_ref()[field::DATA]
    }

    /// Whether the checksum over the whole message is correct.
    #[inline]
    pub fn verify_checksum(&self) -> bool {
        checksum::verify(self.buffer.as_ref())
    }

    /// The checksum the message calls for (computed with the field as zero).
    pub fn compute_checksum(&self) -> u16 {
        let b = self.buffer.as_ref();
        !checksum::add(checksum::sum(&b[..2]), checksum::sum(&b[4..]))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> IcmpPacket<T> {
    /// Sets the type.
    #[inline]
    pub fn set_icmp_type(&mut self, v: u8) {
        self.buffer.as_mut()[field::TYPE] = v
    }

    /// Sets the code.
    #[inline]
    pub fn set_code(&mut self, v: u8) {
        self.buffer.as_mut()[field::CODE] = v
    }

    /// Sets the checksum field.
    #[inline]
    pub fn set_checksum(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::CHECKSUM, v)
    }

    /// Sets the 4 type-specific header bytes.
    #[inline]
    pub fn set_rest_of_header(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::REST.start, v)
    }

    /// Sets the echo identifier.
    #[inline]
    pub fn set_echo_ident(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::ECHO_IDENT, v)
    }

    /// Sets the echo sequence number.
    #[inline]
    pub fn set_echo_seq_no(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::ECHO_SEQNO, v)
    }

    /// Sets the parameter problem pointer.
    #[inline]
    pub fn set_pointer(&mut self, v: u8) {
        self.buffer.as_mut()[field::POINTER] = v
    }

    /// Sets the redirect gateway.
    #[inline]
    pub fn set_gateway(&mut self, a: std::net::Ipv4Addr) {
        self.set_rest_of_header(u32::from(a))
    }

    /// Sets the next-hop MTU.
    #[inline]
    pub fn set_next_hop_mtu(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::NEXT_HOP_MTU, v)
    }

    /// The data after the header, writable.
    #[inline]
    pub fn data_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::DATA]
    }

    /// Recomputes the checksum over the whole message.
    #[inline]
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let c = checksum::internet_checksum(self.buffer.as_ref());
        self.set_checksum(c)
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for IcmpPacket<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

/// The meaning of an ICMP header: type, code and the 4 type-specific
/// bytes. The data stay in the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IcmpRepr {
    /// Message type.
    pub icmp_type: u8,
    /// Code.
    pub code: u8,
    /// The type-specific word (echo identifier and sequence, gateway,
    /// pointer, MTU...).
    pub rest_of_header: u32,
}

impl IcmpRepr {
    /// An echo request or reply header.
    pub fn echo(reply: bool, ident: u16, seq_no: u16) -> IcmpRepr {
        IcmpRepr {
            icmp_type: if reply {
                types::ECHO_REPLY
            } else {
                types::ECHO
            },
            code: 0,
            rest_of_header: ((ident as u32) << 16) | seq_no as u32,
        }
    }

    /// Reads the header, verifying the checksum if `verify_checksum`.
    pub fn parse<T: AsRef<[u8]>>(p: &IcmpPacket<T>, verify_checksum: bool) -> Result<IcmpRepr> {
        p.check_len()?;
        if verify_checksum && !p.verify_checksum() {
            return Err(WireError::BadChecksum {
                header: "ICMP",
                found: p.checksum(),
                expected: p.compute_checksum(),
            });
        }
        Ok(IcmpRepr {
            icmp_type: p.icmp_type(),
            code: p.code(),
            rest_of_header: p.rest_of_header(),
        })
    }

    /// Header bytes [`emit`](Self::emit) writes: 8.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header, then the checksum over the **whole** buffer, so
    /// write the data first (or call [`IcmpPacket::fill_checksum`] again).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut IcmpPacket<T>) {
        p.set_icmp_type(self.icmp_type);
        p.set_code(self.code);
        p.set_rest_of_header(self.rest_of_header);
        p.fill_checksum();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_len_by_type() {
        assert_eq!(header_len_for_type(types::ECHO), 8);
        assert_eq!(header_len_for_type(types::UNREACH), 8);
        assert_eq!(header_len_for_type(types::TIMESTAMP), 20);
        assert_eq!(header_len_for_type(types::TIMESTAMP_REPLY), 20);
        assert_eq!(header_len_for_type(types::MASK_REQUEST), 12);
        assert_eq!(header_len_for_type(types::MASK_REPLY), 12);
        assert_eq!(header_len_for_type(200), 8);
    }

    /// An echo request, id 0x1234, seq 1, data "abcd", checksum zero.
    const ECHO: [u8; 12] = [
        0x08, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x01, b'a', b'b', b'c', b'd',
    ];

    fn echo() -> [u8; 12] {
        let mut b = ECHO;
        IcmpPacket::new_unchecked(&mut b[..]).fill_checksum();
        b
    }

    #[test]
    fn accept_echo() {
        let b = echo();
        // 0x0800+0x1234+0x0001+0x6162+0x6364 = 0xdefb; checksum 0x2104.
        assert_eq!(&b[2..4], &[0x21, 0x04]);
        let p = IcmpPacket::new_checked(&b[..]).unwrap();
        assert_eq!(p.icmp_type(), types::ECHO);
        assert_eq!(p.code(), 0);
        assert_eq!(p.echo_ident(), 0x1234);
        assert_eq!(p.echo_seq_no(), 1);
        assert_eq!(p.rest_of_header(), 0x1234_0001);
        assert_eq!(p.data(), b"abcd");
        assert!(p.verify_checksum());
        assert_eq!(p.compute_checksum(), 0x2104);
    }

    #[test]
    fn reject_short_and_bad_checksum() {
        let b = echo();
        assert_eq!(
            IcmpPacket::new_checked(&b[..7]).unwrap_err(),
            WireError::Truncated {
                header: "ICMP",
                needed: 8,
                available: 7
            }
        );
        let mut bad = b;
        bad[11] ^= 1;
        let p = IcmpPacket::new_checked(&bad[..]).unwrap();
        assert!(!p.verify_checksum());
        assert!(matches!(
            IcmpRepr::parse(&p, true),
            Err(WireError::BadChecksum {
                header: "ICMP",
                found: 0x2104,
                ..
            })
        ));
        assert!(IcmpRepr::parse(&p, false).is_ok());
    }

    #[test]
    fn repr_round_trip_and_reply() {
        let b = echo();
        let repr = IcmpRepr::parse(&IcmpPacket::new_checked(&b[..]).unwrap(), true).unwrap();
        assert_eq!(repr, IcmpRepr::echo(false, 0x1234, 1));
        let mut out = [0u8; 12];
        out[8..].copy_from_slice(b"abcd");
        repr.emit(&mut IcmpPacket::new_unchecked(&mut out[..]));
        assert_eq!(out, b);
        assert_eq!(repr.buffer_len(), 8);

        // ICMPPingResponder: turn the request into a reply.
        let mut p = IcmpPacket::new_unchecked(&mut out[..]);
        p.set_icmp_type(types::ECHO_REPLY);
        p.fill_checksum();
        assert!(p.verify_checksum());
        assert_eq!(p.checksum(), 0x2904);
    }

    #[test]
    fn error_fields() {
        let mut b = [0u8; 36];
        let mut p = IcmpPacket::new_checked(&mut b[..]).unwrap();
        p.set_icmp_type(types::UNREACH);
        p.set_code(unreach::NEEDFRAG);
        p.set_next_hop_mtu(1400);
        p.data_mut()[0] = 0x45;
        p.fill_checksum();
        assert_eq!(p.next_hop_mtu(), 1400);
        assert!(p.verify_checksum());
        p.set_icmp_type(types::PARAM_PROBLEM);
        p.set_rest_of_header(0);
        p.set_pointer(9);
        assert_eq!(p.rest_of_header(), 0x0900_0000);
        assert_eq!(p.pointer(), 9);
        p.set_icmp_type(types::REDIRECT);
        p.set_gateway(std::net::Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(p.gateway(), std::net::Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(&b[4..8], &[10, 0, 0, 1]);
    }

    #[test]
    fn names() {
        assert_eq!(type_name(types::ECHO), Some("echo"));
        assert_eq!(type_name(types::ECHO_REPLY), Some("echo-reply"));
        assert_eq!(type_from_name("timeexceeded"), Some(11));
        assert_eq!(type_from_name("parameterproblem"), Some(12));
        assert_eq!(type_from_name("bogus"), None);
        assert_eq!(type_name(99), None);
        assert_eq!(code_name(types::UNREACH, unreach::PORT), Some("port"));
        assert_eq!(code_from_name(types::UNREACH, "needfrag"), Some(4));
        assert_eq!(code_from_name(types::REDIRECT, "host"), Some(1));
        assert_eq!(code_from_name(types::TIME_EXCEEDED, "transit"), Some(0));
        assert_eq!(code_from_name(types::PARAM_PROBLEM, "missingopt"), Some(1));
        assert_eq!(code_from_name(types::ECHO, "port"), None);
        // Every table round-trips.
        for &(n, v) in TYPE_NAMES {
            assert_eq!(type_name(v), Some(n));
            for &(cn, cv) in code_table(v) {
                assert_eq!(code_name(v, cv), Some(cn));
                assert_eq!(code_from_name(v, cn), Some(cv));
            }
        }
        assert!(is_error(types::UNREACH) && is_error(types::PARAM_PROBLEM));
        assert!(!is_error(types::ECHO) && !is_error(types::ECHO_REPLY));
    }
}
