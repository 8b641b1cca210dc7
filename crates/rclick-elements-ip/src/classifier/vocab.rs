//! The words of the IPFilter/IPClassifier pattern language: fake offsets,
//! primitive types and fields, the keyword, protocol, port, TCP option and
//! ICMP type tables, word lookup, and how types print in messages.

use rclick_core::args::{ArgContext, FromArg, NoContext};

pub const OFFSET_MAC: u32 = 0;
pub const OFFSET_NET: u32 = 256;
pub const OFFSET_TRANSP: u32 = 512;

pub(crate) const TYPE_NONE: i32 = 0;
pub(crate) const TYPE_TYPE: i32 = 1;
pub(crate) const TYPE_SYNTAX: i32 = 2;
pub(crate) const TYPE_INT: i32 = 3;
pub(crate) const TYPE_HOST: i32 = 10;
pub(crate) const TYPE_PROTO: i32 = 11;
pub(crate) const TYPE_IPFRAG: i32 = 12;
pub(crate) const TYPE_PORT: i32 = 13;
pub(crate) const TYPE_TCPOPT: i32 = 14;
pub(crate) const TYPE_ETHER: i32 = 15;
pub(crate) const TYPE_NET: i32 = 30;
pub(crate) const TYPE_IPUNFRAG: i32 = 31;
pub(crate) const TYPE_IPECT: i32 = 32;
pub(crate) const TYPE_IPCE: i32 = 33;

pub(crate) const TYPE_FIELD: i32 = 0x4000_0000;
pub(crate) const FIELD_PROTO_SHIFT: i32 = 21;
pub(crate) const FIELD_PROTO_MASK: i32 = 0x1FF << FIELD_PROTO_SHIFT;
pub(crate) const FIELD_OFFSET_SHIFT: i32 = 5;
pub(crate) const FIELD_OFFSET_MASK: i32 = 0xFFFF << FIELD_OFFSET_SHIFT;
pub(crate) const FIELD_LENGTH_MASK: i32 = 0x1F;
pub(crate) const FIELD_IPLEN: i32 = TYPE_FIELD | ((2 * 8) << FIELD_OFFSET_SHIFT) | 15;
pub(crate) const FIELD_ID: i32 = TYPE_FIELD | ((4 * 8) << FIELD_OFFSET_SHIFT) | 15;
pub(crate) const FIELD_VERSION: i32 = TYPE_FIELD | 3;
pub(crate) const FIELD_HL: i32 = TYPE_FIELD | (4 << FIELD_OFFSET_SHIFT) | 3;
pub(crate) const FIELD_TOS: i32 = TYPE_FIELD | (8 << FIELD_OFFSET_SHIFT) | 7;
pub(crate) const FIELD_DSCP: i32 = TYPE_FIELD | (8 << FIELD_OFFSET_SHIFT) | 5;
pub(crate) const FIELD_TTL: i32 = TYPE_FIELD | ((8 * 8) << FIELD_OFFSET_SHIFT) | 7;
pub(crate) const FIELD_TCP_WIN: i32 =
    TYPE_FIELD | (6 << FIELD_PROTO_SHIFT) | ((14 * 8) << FIELD_OFFSET_SHIFT) | 15;
pub(crate) const FIELD_ICMP_TYPE: i32 = TYPE_FIELD | (1 << FIELD_PROTO_SHIFT) | 7;

pub(crate) const UNKNOWN: i32 = -1000;
pub(crate) const SD_SRC: i32 = 1;
pub(crate) const SD_DST: i32 = 2;
pub(crate) const SD_AND: i32 = 3;
pub(crate) const SD_OR: i32 = 4;
pub(crate) const OP_EQ: i32 = 0;
pub(crate) const OP_GT: i32 = 1;
pub(crate) const OP_LT: i32 = 2;

pub(crate) const IP_PROTO_ICMP: i32 = 1;
pub(crate) const IP_PROTO_IGMP: i32 = 2;
pub(crate) const IP_PROTO_IPIP: i32 = 4;
pub(crate) const IP_PROTO_TCP: i32 = 6;
pub(crate) const IP_PROTO_UDP: i32 = 17;
pub(crate) const IP_PROTO_DCCP: i32 = 33;
pub(crate) const IP_PROTO_TCP_OR_UDP: i32 = 0x101;
pub(crate) const IP_PROTO_TRANSP: i32 = 0x102;

pub(crate) const TYPE_WORDS: &[(&str, i32)] = &[
    ("ce", TYPE_IPCE),
    ("dest", TYPE_SYNTAX),
    ("dscp", FIELD_DSCP),
    ("dst", TYPE_SYNTAX),
    ("ect", TYPE_IPECT),
    ("ether", TYPE_SYNTAX),
    ("frag", TYPE_IPFRAG),
    ("hl", FIELD_HL),
    ("host", TYPE_HOST),
    ("id", FIELD_ID),
    ("ip", TYPE_SYNTAX),
    ("len", FIELD_IPLEN),
    ("net", TYPE_NET),
    ("not", TYPE_SYNTAX),
    ("opt", TYPE_TCPOPT),
    ("port", TYPE_PORT),
    ("proto", TYPE_PROTO),
    ("src", TYPE_SYNTAX),
    ("tos", FIELD_TOS),
    ("ttl", FIELD_TTL),
    ("type", FIELD_ICMP_TYPE),
    ("unfrag", TYPE_IPUNFRAG),
    ("vers", FIELD_VERSION),
    ("win", FIELD_TCP_WIN),
];

pub(crate) const IP_PROTOS: &[(&str, i32)] = &[
    ("icmp", IP_PROTO_ICMP),
    ("igmp", IP_PROTO_IGMP),
    ("ipip", IP_PROTO_IPIP),
    ("tcp", IP_PROTO_TCP),
    ("tcpudp", IP_PROTO_TCP_OR_UDP),
    ("transp", IP_PROTO_TRANSP),
    ("udp", IP_PROTO_UDP),
];

pub(crate) const TCP_OPTS: &[(&str, i32)] = &[
    ("ack", 0x10),
    ("fin", 0x01),
    ("psh", 0x08),
    ("rst", 0x04),
    ("syn", 0x02),
    ("urg", 0x20),
];

pub(crate) const ICMP_TYPES: &[(&str, i32)] = &[
    ("echo", 8),
    ("echo-reply", 0),
    ("inforeq", 15),
    ("inforeq-reply", 16),
    ("maskreq", 17),
    ("maskreq-reply", 18),
    ("parameterproblem", 12),
    ("redirect", 5),
    ("routeradvert", 9),
    ("routersolicit", 10),
    ("sourcequench", 4),
    ("timeexceeded", 11),
    ("timestamp", 13),
    ("timestamp-reply", 14),
    ("unreachable", 3),
];

pub(crate) fn table(t: &[(&str, i32)], w: &str) -> Option<i32> {
    t.iter().find(|(n, _)| *n == w).map(|&(_, v)| v)
}

/// Collects errors like Click's ErrorHandler (with a prefix).
#[derive(Default)]
pub struct Errors {
    pub messages: Vec<String>,
    pub(crate) prefix: String,
}

impl Errors {
    pub(crate) fn error(&mut self, msg: impl Into<String>) {
        let m = msg.into();
        self.messages.push(format!("{}{}", self.prefix, m));
    }
}

pub(crate) fn ffs_msb(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        x.leading_zeros() + 1
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Primitive {
    pub(crate) type_: i32,
    pub(crate) data: i32,
    pub(crate) op: i32,
    pub(crate) op_negated: bool,
    pub(crate) srcdst: i32,
    pub(crate) transp_proto: i32,
    /// Numeric value (IP addresses as numbers).
    pub(crate) u: u32,
    pub(crate) mask: u32,
    /// Ethernet data and mask.
    pub(crate) eu: [u8; 6],
    pub(crate) emask: [u8; 6],
}

impl Default for Primitive {
    fn default() -> Self {
        Primitive {
            type_: 0,
            data: 0,
            op: OP_EQ,
            op_negated: false,
            srcdst: 0,
            transp_proto: UNKNOWN,
            u: 0,
            mask: 0,
            eu: [0; 6],
            emask: [0; 6],
        }
    }
}

/// A mask given with `& MASK`.
#[derive(Clone, Copy, Default)]
pub(crate) struct GivenMask {
    pub(crate) dt: i32,
    pub(crate) u: u32,
    pub(crate) e: [u8; 6],
}

pub(crate) fn unparse_transp_proto(p: i32) -> String {
    match p {
        UNKNOWN => String::new(),
        IP_PROTO_ICMP => "icmp".into(),
        IP_PROTO_IGMP => "igmp".into(),
        IP_PROTO_IPIP => "ipip".into(),
        IP_PROTO_TCP => "tcp".into(),
        IP_PROTO_UDP => "udp".into(),
        IP_PROTO_TCP_OR_UDP => "tcpudp".into(),
        IP_PROTO_TRANSP => "transp".into(),
        _ => format!("ip proto {p}"),
    }
}

pub(crate) fn unparse_type(srcdst: i32, type_: i32) -> String {
    let mut s = String::new();
    match srcdst {
        SD_SRC => s.push_str("src "),
        SD_DST => s.push_str("dst "),
        SD_OR => s.push_str("src or dst "),
        SD_AND => s.push_str("src and dst "),
        _ => {}
    }
    match type_ {
        TYPE_NONE => s.push_str("<none>"),
        TYPE_HOST => s.push_str("ip host"),
        TYPE_PROTO => s.push_str("proto"),
        TYPE_ETHER => s.push_str("ether host"),
        TYPE_IPFRAG => s.push_str("ip frag"),
        TYPE_PORT => s.push_str("port"),
        TYPE_TCPOPT => s.push_str("tcp opt"),
        TYPE_NET => s.push_str("ip net"),
        TYPE_IPUNFRAG => s.push_str("ip unfrag"),
        TYPE_IPECT => s.push_str("ip ect"),
        TYPE_IPCE => s.push_str("ip ce"),
        t if t & TYPE_FIELD != 0 => match t {
            FIELD_IPLEN => s.push_str("ip len"),
            FIELD_ID => s.push_str("ip id"),
            FIELD_VERSION => s.push_str("ip vers"),
            FIELD_HL => s.push_str("ip hl"),
            FIELD_TOS => s.push_str("ip tos"),
            FIELD_DSCP => s.push_str("ip dscp"),
            FIELD_TTL => s.push_str("ip ttl"),
            FIELD_TCP_WIN => s.push_str("tcp win"),
            FIELD_ICMP_TYPE => s.push_str("icmp type"),
            _ => {
                if t & FIELD_PROTO_MASK != 0 {
                    s.push_str(&unparse_transp_proto(
                        (t & FIELD_PROTO_MASK) >> FIELD_PROTO_SHIFT,
                    ));
                } else {
                    s.push_str("ip");
                }
                s.push_str("[...]");
            }
        },
        t => s.push_str(&format!("<unknown type {t}>")),
    }
    s
}

pub(crate) fn unparse_word(type_: i32, proto: i32, word: &str) -> String {
    let mut tn = unparse_type(0, type_);
    let mut tr = unparse_transp_proto(proto);
    if !tn.is_empty() {
        tn.push(' ');
    }
    if !tr.is_empty() || (!word.is_empty() && !tn.is_empty()) {
        tr.push(' ');
    }
    format!("{tn}{tr}{word}")
}

pub(crate) const DB_TYPES: [i32; 5] = [
    TYPE_PROTO,
    TYPE_PORT,
    TYPE_PORT,
    TYPE_TCPOPT,
    FIELD_ICMP_TYPE,
];

/// A port name for `proto`: PortInfo names through `ctx`, then Click's
/// built-in names and the system's services. Numbers are not names.
fn port_name(word: &str, proto: &str, ctx: &dyn ArgContext) -> Option<i32> {
    if word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    ctx.lookup_port(word, proto)
        .or_else(|| crate::ip::port_info::well_known_port(word, proto))
        .map(i32::from)
}

/// Looks a word up: `Ok(Some((kind, data)))`, `Ok(None)` for "not a
/// name", `Err(())` for an ambiguous or meaningless name (reported when
/// `errh` is given).
pub(crate) fn lookup(
    word: &str,
    type_: i32,
    proto: i32,
    ctx: &dyn ArgContext,
    errh: Option<&mut Errors>,
) -> Result<Option<(i32, u32)>, ()> {
    if type_ == 0 || type_ == TYPE_TYPE {
        if let Some(d) = table(TYPE_WORDS, word) {
            return Ok(if d == TYPE_SYNTAX {
                None
            } else {
                Some((TYPE_TYPE, d as u32))
            });
        }
    }
    let got = [
        table(IP_PROTOS, word),
        port_name(word, "tcp", ctx),
        port_name(word, "udp", ctx),
        table(TCP_OPTS, word),
        table(ICMP_TYPES, word),
    ];
    if got.iter().all(Option::is_none) {
        return Ok(None);
    }
    let any_proto = proto == UNKNOWN;
    let mut tgot = [
        got[0].is_some() && (type_ == 0 || type_ == TYPE_PROTO),
        got[1].is_some()
            && (type_ == 0 || type_ == TYPE_PORT)
            && (any_proto || proto == IP_PROTO_TCP || proto == IP_PROTO_TCP_OR_UDP),
        got[2].is_some()
            && (type_ == 0 || type_ == TYPE_PORT)
            && (any_proto || proto == IP_PROTO_UDP || proto == IP_PROTO_TCP_OR_UDP),
        got[3].is_some()
            && (type_ == 0 || type_ == TYPE_TCPOPT)
            && (any_proto || proto == IP_PROTO_TCP || proto == IP_PROTO_TCP_OR_UDP),
        got[4].is_some()
            && (type_ == 0 || type_ == FIELD_ICMP_TYPE)
            && (any_proto || proto == IP_PROTO_ICMP),
    ];
    if tgot[1] && tgot[2] && got[1] == got[2] {
        tgot[2] = false;
    }
    let ngot = tgot.iter().filter(|&&b| b).count();
    if ngot == 1 {
        let i = tgot.iter().position(|&b| b).unwrap_or(0);
        return Ok(Some((DB_TYPES[i], got[i].unwrap_or(0) as u32)));
    }
    if let Some(errh) = errh {
        let tries: Vec<String> = (0..5)
            .filter(|&i| got[i].is_some())
            .map(|i| format!("'{}'", unparse_word(DB_TYPES[i], proto, word)))
            .collect();
        errh.error(format!(
            "'{}' is {}; try {}",
            unparse_word(type_, proto, word),
            if ngot > 1 { "ambiguous" } else { "meaningless" },
            tries.join(", ")
        ));
    }
    Err(())
}

pub(crate) fn parse_int(s: &str) -> Option<i32> {
    <i32 as FromArg>::from_arg(s, &NoContext).ok()
}

pub(crate) fn parse_uint(s: &str) -> Option<u32> {
    <u32 as FromArg>::from_arg(s, &NoContext).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_name_types_protocols_and_ports() {
        assert_eq!(
            lookup("tcp", 0, UNKNOWN, &NoContext, None),
            Ok(Some((TYPE_PROTO, 6)))
        );
        assert_eq!(
            lookup("www", TYPE_PORT, IP_PROTO_TCP, &NoContext, None),
            Ok(Some((TYPE_PORT, 80)))
        );
        assert_eq!(table(ICMP_TYPES, "echo"), Some(8));
        assert_eq!(lookup("frobnicate", 0, UNKNOWN, &NoContext, None), Ok(None));
        assert_eq!(table(TCP_OPTS, "syn"), Some(2));
        assert_eq!(table(IP_PROTOS, "nosuch"), None);
    }

    #[test]
    fn types_print_as_in_click_messages() {
        assert_eq!(unparse_type(SD_SRC, TYPE_HOST), "src ip host");
        assert_eq!(unparse_type(0, TYPE_PORT), "port");
        assert_eq!(ffs_msb(0), 0);
        assert_eq!(ffs_msb(0x8000_0000), 1);
        assert_eq!(ffs_msb(1), 32);
        assert_eq!(parse_int("-3"), Some(-3));
        assert_eq!(parse_uint("-3"), None);
    }

    #[test]
    fn errors_carry_the_pattern_prefix() {
        let mut e = Errors {
            prefix: "pattern 2: ".into(),
            ..Errors::default()
        };
        e.error("bad");
        assert_eq!(e.messages, ["pattern 2: bad"]);
    }
}
