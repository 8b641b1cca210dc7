//! The tcpdump-like pattern language of IPFilter and IPClassifier, compiled
//! into a [`Program`] the way Click's IPFilter does it.
//!
//! Fake offsets: 0..255 address the link header (offset 2 is the first MAC
//! header byte), 256..511 the IP header, 512.. the transport header.

use std::net::Ipv4Addr;

use rclick_core::args::{ArgContext, EtherAddr, FromArg, IpPrefix, NoContext};

use super::wordwise::{Combiner, Program, Tree, ZProgram, J_FAILURE, J_NEVER, J_SUCCESS};

pub const OFFSET_MAC: u32 = 0;
pub const OFFSET_NET: u32 = 256;
pub const OFFSET_TRANSP: u32 = 512;

const TYPE_NONE: i32 = 0;
const TYPE_TYPE: i32 = 1;
const TYPE_SYNTAX: i32 = 2;
const TYPE_INT: i32 = 3;
const TYPE_HOST: i32 = 10;
const TYPE_PROTO: i32 = 11;
const TYPE_IPFRAG: i32 = 12;
const TYPE_PORT: i32 = 13;
const TYPE_TCPOPT: i32 = 14;
const TYPE_ETHER: i32 = 15;
const TYPE_NET: i32 = 30;
const TYPE_IPUNFRAG: i32 = 31;
const TYPE_IPECT: i32 = 32;
const TYPE_IPCE: i32 = 33;

const TYPE_FIELD: i32 = 0x4000_0000;
const FIELD_PROTO_SHIFT: i32 = 21;
const FIELD_PROTO_MASK: i32 = 0x1FF << FIELD_PROTO_SHIFT;
const FIELD_OFFSET_SHIFT: i32 = 5;
const FIELD_OFFSET_MASK: i32 = 0xFFFF << FIELD_OFFSET_SHIFT;
const FIELD_LENGTH_MASK: i32 = 0x1F;
const FIELD_IPLEN: i32 = TYPE_FIELD | ((2 * 8) << FIELD_OFFSET_SHIFT) | 15;
const FIELD_ID: i32 = TYPE_FIELD | ((4 * 8) << FIELD_OFFSET_SHIFT) | 15;
const FIELD_VERSION: i32 = TYPE_FIELD | 3;
const FIELD_HL: i32 = TYPE_FIELD | (4 << FIELD_OFFSET_SHIFT) | 3;
const FIELD_TOS: i32 = TYPE_FIELD | (8 << FIELD_OFFSET_SHIFT) | 7;
const FIELD_DSCP: i32 = TYPE_FIELD | (8 << FIELD_OFFSET_SHIFT) | 5;
const FIELD_TTL: i32 = TYPE_FIELD | ((8 * 8) << FIELD_OFFSET_SHIFT) | 7;
const FIELD_TCP_WIN: i32 =
    TYPE_FIELD | (6 << FIELD_PROTO_SHIFT) | ((14 * 8) << FIELD_OFFSET_SHIFT) | 15;
const FIELD_ICMP_TYPE: i32 = TYPE_FIELD | (1 << FIELD_PROTO_SHIFT) | 7;

const UNKNOWN: i32 = -1000;
const SD_SRC: i32 = 1;
const SD_DST: i32 = 2;
const SD_AND: i32 = 3;
const SD_OR: i32 = 4;
const OP_EQ: i32 = 0;
const OP_GT: i32 = 1;
const OP_LT: i32 = 2;

const IP_PROTO_ICMP: i32 = 1;
const IP_PROTO_IGMP: i32 = 2;
const IP_PROTO_IPIP: i32 = 4;
const IP_PROTO_TCP: i32 = 6;
const IP_PROTO_UDP: i32 = 17;
const IP_PROTO_DCCP: i32 = 33;
const IP_PROTO_TCP_OR_UDP: i32 = 0x101;
const IP_PROTO_TRANSP: i32 = 0x102;

const TYPE_WORDS: &[(&str, i32)] = &[
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

const IP_PROTOS: &[(&str, i32)] = &[
    ("icmp", IP_PROTO_ICMP),
    ("igmp", IP_PROTO_IGMP),
    ("ipip", IP_PROTO_IPIP),
    ("tcp", IP_PROTO_TCP),
    ("tcpudp", IP_PROTO_TCP_OR_UDP),
    ("transp", IP_PROTO_TRANSP),
    ("udp", IP_PROTO_UDP),
];

const TCP_OPTS: &[(&str, i32)] = &[
    ("ack", 0x10),
    ("fin", 0x01),
    ("psh", 0x08),
    ("rst", 0x04),
    ("syn", 0x02),
    ("urg", 0x20),
];

const ICMP_TYPES: &[(&str, i32)] = &[
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

fn table(t: &[(&str, i32)], w: &str) -> Option<i32> {
    t.iter().find(|(n, _)| *n == w).map(|&(_, v)| v)
}

/// Collects errors like Click's ErrorHandler (with a prefix).
#[derive(Default)]
pub struct Errors {
    pub messages: Vec<String>,
    prefix: String,
}

impl Errors {
    fn error(&mut self, msg: impl Into<String>) {
        let m = msg.into();
        self.messages.push(format!("{}{}", self.prefix, m));
    }
}

fn ffs_msb(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        x.leading_zeros() + 1
    }
}

#[derive(Clone, Copy, Debug)]
struct Primitive {
    type_: i32,
    data: i32,
    op: i32,
    op_negated: bool,
    srcdst: i32,
    transp_proto: i32,
    /// Numeric value (IP addresses as numbers).
    u: u32,
    mask: u32,
    /// Ethernet data and mask.
    eu: [u8; 6],
    emask: [u8; 6],
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
struct GivenMask {
    dt: i32,
    u: u32,
    e: [u8; 6],
}

fn unparse_transp_proto(p: i32) -> String {
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

fn unparse_type(srcdst: i32, type_: i32) -> String {
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

fn unparse_word(type_: i32, proto: i32, word: &str) -> String {
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

const DB_TYPES: [i32; 5] = [
    TYPE_PROTO,
    TYPE_PORT,
    TYPE_PORT,
    TYPE_TCPOPT,
    FIELD_ICMP_TYPE,
];

/// Looks a word up: `Ok(Some((kind, data)))`, `Ok(None)` for "not a
/// name", `Err(())` for an ambiguous or meaningless name (reported when
/// `errh` is given).
fn lookup(
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

fn parse_int(s: &str) -> Option<i32> {
    <i32 as FromArg>::from_arg(s, &NoContext).ok()
}

fn parse_uint(s: &str) -> Option<u32> {
    <u32 as FromArg>::from_arg(s, &NoContext).ok()
}

impl Primitive {
    fn set_type(&mut self, x: i32, errh: &mut Errors) {
        if self.type_ != 0 {
            errh.error("type specified twice");
        }
        self.type_ = x;
    }

    fn set_srcdst(&mut self, x: i32, errh: &mut Errors) {
        if self.srcdst != 0 {
            errh.error("'src' or 'dst' specified twice");
        }
        self.srcdst = x;
    }

    fn set_transp_proto(&mut self, x: i32, errh: &mut Errors) {
        if self.transp_proto != UNKNOWN && self.transp_proto != x {
            errh.error("transport protocol specified twice");
        }
        self.transp_proto = x;
    }

    fn type_error(&self, errh: &mut Errors, msg: &str) -> Result<(), ()> {
        errh.error(format!(
            "'{}': {}",
            unparse_type(self.srcdst, self.type_),
            msg
        ));
        Err(())
    }

    fn set_mask(
        &mut self,
        full_mask: u32,
        shift: u32,
        provided: u32,
        errh: &mut Errors,
    ) -> Result<(), ()> {
        let data = self.u;
        let this_mask = if provided != 0 { provided } else { full_mask };
        if this_mask & full_mask != this_mask {
            errh.error(format!(
                "'{}': mask out of range, bound 0x{:X}",
                unparse_type(self.srcdst, self.type_),
                full_mask
            ));
            return Err(());
        }
        let low = (1u32 << shift) - 1;
        if self.op == OP_GT || self.op == OP_LT {
            if (self.op == OP_LT && (data == 0 || data > this_mask))
                || (self.op == OP_GT && data >= this_mask)
            {
                let will_be = if self.op == OP_LT && data > this_mask {
                    !self.op_negated
                } else {
                    self.op_negated
                };
                // Click warns "relation ... is always true/false" here.
                self.u = 0;
                self.mask = 0;
                self.op_negated = !will_be;
                self.op = OP_EQ;
                return Ok(());
            }
            if self.op == OP_LT {
                self.u = self.u.wrapping_sub(1);
                self.op_negated = !self.op_negated;
                self.op = OP_GT;
            }
            self.u = (self.u << shift) | low;
            self.mask = (this_mask << shift) | low;
            if self.u & self.mask != self.u {
                let full_u = (full_mask << shift) | low;
                let missing = (self.u & self.mask) ^ (self.u & full_u);
                let add = u32::MAX.checked_shr(ffs_msb(missing)).unwrap_or(0);
                self.u = (self.u | add) & self.mask;
            }
            return Ok(());
        }
        if data > full_mask {
            errh.error(format!(
                "'{}': out of range, bound {}",
                unparse_type(self.srcdst, self.type_),
                full_mask
            ));
            return Err(());
        }
        self.u = data << shift;
        self.mask = this_mask << shift;
        Ok(())
    }

    fn check(
        &mut self,
        prev: &Primitive,
        mut header: u8,
        given: &GivenMask,
        errh: &mut Errors,
    ) -> Result<(), ()> {
        let old_srcdst = self.srcdst;
        if self.type_ < 0 {
            return Err(());
        }
        if self.type_ == 0 {
            loop {
                match self.data {
                    TYPE_HOST | TYPE_NET | TYPE_TCPOPT | TYPE_ETHER => {
                        self.type_ = self.data;
                        if self.srcdst == 0 {
                            self.srcdst = prev.srcdst;
                        }
                    }
                    TYPE_PROTO => self.type_ = TYPE_PROTO,
                    TYPE_PORT => {
                        self.type_ = TYPE_PORT;
                        if self.srcdst == 0 {
                            self.srcdst = prev.srcdst;
                        }
                        if self.transp_proto == UNKNOWN {
                            self.transp_proto = prev.transp_proto;
                        }
                    }
                    TYPE_INT => {
                        if prev.type_ & TYPE_FIELD == 0
                            && prev.type_ != TYPE_PROTO
                            && prev.type_ != TYPE_PORT
                        {
                            errh.error("specify header field or 'port'");
                            return Err(());
                        }
                        self.data = prev.type_;
                        continue;
                    }
                    TYPE_NONE => {
                        if self.transp_proto != UNKNOWN {
                            self.type_ = TYPE_PROTO;
                        } else {
                            errh.error("partial directive");
                            return Err(());
                        }
                    }
                    d => {
                        if d & TYPE_FIELD != 0 {
                            self.type_ = d;
                            if d & FIELD_PROTO_MASK != 0 && self.transp_proto == UNKNOWN {
                                self.transp_proto = (d & FIELD_PROTO_MASK) >> FIELD_PROTO_SHIFT;
                            }
                        } else {
                            errh.error(format!("unknown type '{}'", unparse_type(0, d)));
                            return Err(());
                        }
                    }
                }
                break;
            }
        }

        if header == 0 {
            header = if self.data == TYPE_ETHER { b'e' } else { b'i' };
        }
        if header == b'e' && self.type_ == TYPE_HOST {
            self.type_ = TYPE_ETHER;
        }
        let gm = if given.dt != 0 { given.u } else { 0 };

        match self.type_ {
            TYPE_HOST | TYPE_NET => {
                let is_net = self.type_ == TYPE_NET;
                if header != b'i' || self.data != self.type_ {
                    return self.type_error(errh, "address missing");
                }
                if self.op != OP_EQ {
                    return self.type_error(errh, "operator not supported");
                }
                if is_net {
                    self.type_ = TYPE_HOST;
                } else {
                    self.mask = u32::MAX;
                }
                match given.dt {
                    0 => {}
                    TYPE_HOST => self.mask = given.u,
                    // Click stores an integer mask in host order where the
                    // address is in network order.
                    TYPE_INT => self.mask = given.u.swap_bytes(),
                    _ => return self.type_error(errh, "bad mask"),
                }
            }
            TYPE_ETHER => {
                if header != b'e' || self.data != TYPE_ETHER {
                    return self.type_error(errh, "address missing");
                }
                if self.op != OP_EQ {
                    return self.type_error(errh, "operator not supported");
                }
                self.emask = [0xFF; 6];
                match given.dt {
                    0 => {}
                    TYPE_ETHER => self.emask = given.e,
                    _ => return self.type_error(errh, "bad mask"),
                }
            }
            TYPE_PROTO => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data == TYPE_INT || self.data == TYPE_PROTO {
                    if self.transp_proto != UNKNOWN && self.transp_proto != self.u as i32 {
                        return self.type_error(errh, "specified twice");
                    }
                    self.data = TYPE_NONE;
                } else {
                    self.u = self.transp_proto as u32;
                }
                self.transp_proto = UNKNOWN;
                if self.data != TYPE_NONE || self.u as i32 == UNKNOWN {
                    return self.type_error(errh, "value missing");
                }
                if self.u as i32 >= 256 {
                    if self.op != OP_EQ || given.dt != 0 {
                        errh.error(format!(
                            "'{}': operator or mask not supported",
                            unparse_transp_proto(self.u as i32)
                        ));
                        return Err(());
                    }
                    self.mask = 0xFF;
                } else if given.dt != 0 && given.dt != TYPE_INT {
                    return self.type_error(errh, "bad mask");
                } else {
                    self.set_mask(0xFF, 0, gm, errh)?;
                }
                if self.op == OP_EQ && self.mask == 0xFF && !self.op_negated {
                    self.transp_proto = self.u as i32;
                }
            }
            TYPE_PORT => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data == TYPE_INT {
                    self.data = TYPE_PORT;
                }
                if self.data != TYPE_PORT {
                    return self.type_error(errh, "value missing");
                }
                if self.transp_proto == UNKNOWN {
                    self.transp_proto = IP_PROTO_TCP_OR_UDP;
                } else if ![
                    IP_PROTO_TCP,
                    IP_PROTO_UDP,
                    IP_PROTO_TCP_OR_UDP,
                    IP_PROTO_DCCP,
                ]
                .contains(&self.transp_proto)
                {
                    errh.error(format!("'port': bad protocol {}", self.transp_proto));
                    return Err(());
                } else if given.dt != 0 && given.dt != TYPE_INT {
                    return self.type_error(errh, "bad mask");
                }
                self.set_mask(0xFFFF, 0, gm, errh)?;
            }
            TYPE_TCPOPT => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data == TYPE_INT {
                    self.data = TYPE_TCPOPT;
                }
                if self.data != TYPE_TCPOPT {
                    return self.type_error(errh, "value missing");
                }
                if self.transp_proto == UNKNOWN {
                    self.transp_proto = IP_PROTO_TCP;
                } else if self.transp_proto != IP_PROTO_TCP {
                    errh.error(format!("'tcp opt': bad protocol {}", self.transp_proto));
                    return Err(());
                }
                if self.op != OP_EQ || self.op_negated || given.dt != 0 {
                    return self.type_error(errh, "operator or mask not supported");
                }
                if self.u as i32 > 255 || (self.u as i32) < 0 {
                    errh.error(format!("'tcp opt': value {} out of range", self.u as i32));
                    return Err(());
                }
                self.mask = self.u;
            }
            TYPE_IPECT => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_NONE && self.data != TYPE_INT {
                    return self.type_error(errh, "value missing");
                }
                if self.data == TYPE_NONE {
                    self.mask = 3;
                    self.u = 0;
                    self.op_negated = true;
                } else if given.dt != 0 && given.dt != TYPE_INT {
                    return self.type_error(errh, "bad mask");
                }
                self.set_mask(0x3, 0, gm, errh)?;
                self.type_ = FIELD_TOS;
            }
            TYPE_IPCE => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_NONE || given.dt != 0 {
                    return self.type_error(errh, "value not supported");
                }
                self.mask = 3;
                self.u = 3;
                self.type_ = FIELD_TOS;
            }
            TYPE_IPFRAG | TYPE_IPUNFRAG => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_NONE || given.dt != 0 {
                    return self.type_error(errh, "value not supported");
                }
                if self.type_ == TYPE_IPUNFRAG {
                    self.op_negated = true;
                    self.type_ = TYPE_IPFRAG;
                }
                self.mask = 1;
            }
            t if t & TYPE_FIELD != 0 => {
                if header != b'i' {
                    return self.type_error(errh, "ip only");
                }
                if self.data != TYPE_INT && self.data != t {
                    return self.type_error(errh, "value missing");
                } else if given.dt != 0 && given.dt != TYPE_INT && given.dt != t {
                    return self.type_error(errh, "bad mask");
                }
                let nbits = (t & FIELD_LENGTH_MASK) + 1;
                let xmask = if nbits == 32 {
                    u32::MAX
                } else {
                    (1u32 << nbits) - 1
                };
                self.set_mask(xmask, 0, gm, errh)?;
            }
            _ => {}
        }

        if self.type_ == TYPE_HOST || self.type_ == TYPE_PORT || self.type_ == TYPE_ETHER {
            if self.srcdst == 0 {
                self.srcdst = SD_OR;
            }
        } else if old_srcdst != 0 {
            // Click warns "'src' or 'dst' ignored" here.
        }
        Ok(())
    }

    /// Adds `field & mask OP value` tests; `value`/`mask` are numeric.
    #[allow(clippy::too_many_arguments)]
    fn add_comparison(
        &self,
        p: &mut Program,
        tree: &mut Tree,
        offset: u32,
        shift: u32,
        u_in: u32,
        mask_in: u32,
        op_negate: bool,
    ) {
        let mut mask = mask_in;
        let mut u = u_in & mask;
        let off = offset as u16;
        if self.op == OP_EQ {
            p.add_insn(tree, off, u.wrapping_shl(shift), mask.wrapping_shl(shift));
            if self.op_negated && op_negate {
                p.negate_subtree(tree, true);
            }
            return;
        }
        let mut record: u64 = 0;
        let mut count = 0;
        while u < mask {
            let high_bit = u > (mask >> 1);
            let x = if high_bit {
                !(u.wrapping_add(1)) & mask
            } else {
                u
            };
            let fdb = 33 - ffs_msb(x);
            let upper_mask = if fdb >= 32 {
                mask
            } else {
                mask & !((1u32 << fdb) - 1)
            };
            let upper_u = if high_bit { upper_mask } else { 0 };
            p.start_subtree(tree);
            p.add_insn(
                tree,
                off,
                upper_u.wrapping_shl(shift),
                upper_mask.wrapping_shl(shift),
            );
            if !high_bit {
                p.negate_subtree(tree, true);
            }
            record = (record << 1) | u64::from(high_bit);
            count += 1;
            mask &= !upper_mask;
            u &= mask;
            if upper_mask == 0 {
                break;
            }
        }
        while count > 0 {
            let c = if record & 1 != 0 {
                Combiner::And
            } else {
                Combiner::Or
            };
            p.finish_subtree(tree, c, J_SUCCESS, J_FAILURE);
            record >>= 1;
            count -= 1;
        }
        if self.op_negated && op_negate {
            p.negate_subtree(tree, true);
        }
    }

    fn compile(&self, p: &mut Program, tree: &mut Tree) {
        p.start_subtree(tree);
        if self.transp_proto != UNKNOWN {
            add_exprs_for_proto(self.transp_proto, p, tree);
        }
        let t = self.type_;
        if t == TYPE_PORT || t == TYPE_TCPOPT || (t & TYPE_FIELD != 0 && t & FIELD_PROTO_MASK != 0)
        {
            p.add_insn(tree, (OFFSET_NET + 4) as u16, 0, 0x1FFF);
        }
        let finish_srcdst = |p: &mut Program, tree: &mut Tree, prim: &Primitive| {
            let c = if prim.srcdst == SD_OR {
                Combiner::Or
            } else {
                Combiner::And
            };
            p.finish_subtree(tree, c, J_SUCCESS, J_FAILURE);
            if prim.op_negated {
                p.negate_subtree(tree, true);
            }
        };
        let src = self.srcdst == SD_SRC || self.srcdst == SD_AND || self.srcdst == SD_OR;
        let dst = self.srcdst == SD_DST || self.srcdst == SD_AND || self.srcdst == SD_OR;
        match t {
            TYPE_HOST => {
                p.start_subtree(tree);
                if src {
                    self.add_comparison(p, tree, OFFSET_NET + 12, 0, self.u, self.mask, false);
                }
                if dst {
                    self.add_comparison(p, tree, OFFSET_NET + 16, 0, self.u, self.mask, false);
                }
                finish_srcdst(p, tree, self);
            }
            TYPE_ETHER => {
                let be = |b: [u8; 4]| u32::from_be_bytes(b);
                let (e, m) = (self.eu, self.emask);
                p.start_subtree(tree);
                if src {
                    p.start_subtree(tree);
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC + 8,
                        0,
                        be([e[0], e[1], e[2], e[3]]),
                        be([m[0], m[1], m[2], m[3]]),
                        false,
                    );
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC + 12,
                        0,
                        be([e[4], e[5], 0, 0]),
                        be([m[4], m[5], 0, 0]),
                        false,
                    );
                    p.finish_subtree(tree, Combiner::And, J_SUCCESS, J_FAILURE);
                }
                if dst {
                    p.start_subtree(tree);
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC,
                        0,
                        be([0, 0, e[0], e[1]]),
                        be([0, 0, m[0], m[1]]),
                        false,
                    );
                    self.add_comparison(
                        p,
                        tree,
                        OFFSET_MAC + 4,
                        0,
                        be([e[2], e[3], e[4], e[5]]),
                        be([m[2], m[3], m[4], m[5]]),
                        false,
                    );
                    p.finish_subtree(tree, Combiner::And, J_SUCCESS, J_FAILURE);
                }
                finish_srcdst(p, tree, self);
            }
            TYPE_PROTO if self.transp_proto < 256 => {
                self.add_comparison(p, tree, OFFSET_NET + 8, 16, self.u, self.mask, true);
            }
            TYPE_IPFRAG => {
                p.add_insn(tree, (OFFSET_NET + 4) as u16, 0, 0x3FFF);
                if !self.op_negated {
                    p.negate_subtree(tree, true);
                }
            }
            TYPE_PORT => {
                p.start_subtree(tree);
                if src {
                    self.add_comparison(p, tree, OFFSET_TRANSP, 16, self.u, self.mask, false);
                }
                if dst {
                    self.add_comparison(p, tree, OFFSET_TRANSP, 0, self.u, self.mask, false);
                }
                finish_srcdst(p, tree, self);
            }
            TYPE_TCPOPT => {
                p.add_insn(
                    tree,
                    (OFFSET_TRANSP + 12) as u16,
                    self.u << 16,
                    self.mask << 16,
                );
            }
            _ if t & TYPE_FIELD != 0 => {
                let offset = ((t & FIELD_OFFSET_MASK) >> FIELD_OFFSET_SHIFT) as u32;
                let length = ((t & FIELD_LENGTH_MASK) + 1) as u32;
                let word_offset = (offset >> 3) & !3;
                let bit_offset = offset & 0x1F;
                let base = if t & FIELD_PROTO_MASK != 0 {
                    OFFSET_TRANSP
                } else {
                    OFFSET_NET
                };
                let shift = 32u32.saturating_sub(bit_offset + length);
                self.add_comparison(p, tree, base + word_offset, shift, self.u, self.mask, true);
            }
            _ => {}
        }
        p.finish_subtree(tree, Combiner::And, J_SUCCESS, J_FAILURE);
    }
}

fn add_exprs_for_proto(proto: i32, p: &mut Program, tree: &mut Tree) {
    let off = (OFFSET_NET + 8) as u16;
    if proto == IP_PROTO_TCP_OR_UDP {
        p.start_subtree(tree);
        p.add_insn(tree, off, (IP_PROTO_TCP as u32) << 16, 0x00FF_0000);
        p.add_insn(tree, off, (IP_PROTO_UDP as u32) << 16, 0x00FF_0000);
        p.finish_subtree(tree, Combiner::Or, J_SUCCESS, J_FAILURE);
    } else if proto >= 256 {
        // no test
    } else {
        p.add_insn(tree, off, ((proto as u32) & 0xFF) << 16, 0x00FF_0000);
    }
}

/// Splits pattern text into words the way Click's IPFilter does.
pub fn separate_text(text: &str) -> Vec<String> {
    let s = text.as_bytes();
    let len = s.len();
    let mut words = Vec::new();
    let mut pos = 0;
    while pos < len {
        while pos < len && s[pos].is_ascii_whitespace() {
            pos += 1;
        }
        if pos >= len {
            break;
        }
        let c = s[pos];
        let two = match c {
            b'&' | b'|' => pos + 1 < len && s[pos + 1] == c,
            b'<' | b'>' | b'!' | b'=' => pos + 1 < len && s[pos + 1] == b'=',
            _ => false,
        };
        let one = matches!(
            c,
            b'&' | b'|'
                | b'<'
                | b'>'
                | b'!'
                | b'='
                | b'('
                | b')'
                | b'['
                | b']'
                | b','
                | b';'
                | b'?'
        );
        if two {
            words.push(text[pos..pos + 2].to_string());
            pos += 2;
        } else if one {
            words.push(text[pos..pos + 1].to_string());
            pos += 1;
        } else {
            let first = pos;
            while pos < len
                && (s[pos].is_ascii_alphanumeric()
                    || matches!(s[pos], b'-' | b'.' | b'/' | b'@' | b'_' | b':'))
            {
                pos += 1;
            }
            if pos == first {
                // skip one (possibly multi-byte) character
                pos += text[pos..].chars().next().map_or(1, char::len_utf8);
            }
            words.push(text[first..pos].to_string());
        }
    }
    words
}

struct Parser<'a> {
    words: &'a [String],
    tree: &'a mut Tree,
    prog: &'a mut Program,
    ctx: &'a dyn ArgContext,
    errh: &'a mut Errors,
    prev: Primitive,
}

const S_EXPR0: u8 = 0;
const S_EXPR1: u8 = 1;
const S_EXPR2: u8 = 2;
const S_OREXPR0: u8 = 3;
const S_OREXPR1: u8 = 4;
const S_TERM0: u8 = 5;
const S_TERM1: u8 = 6;
const S_TERM2: u8 = 7;
const S_FACTOR0: u8 = 8;
const S_FACTOR1: u8 = 9;
const S_FACTOR2: u8 = 10;
const S_FACTOR0_NEG: u8 = 11;
const S_FACTOR1_NEG: u8 = 12;
const S_FACTOR2_NEG: u8 = 13;

impl<'a> Parser<'a> {
    fn word(&self, pos: usize) -> Option<&'a str> {
        self.words.get(pos).map(String::as_str)
    }

    fn parse_expr(&mut self, mut pos: usize) -> usize {
        // (state, last_pos)
        let mut stk: Vec<(u8, usize)> = vec![(S_EXPR0, 0)];
        while let Some(&(state, last_pos)) = stk.last() {
            let top = stk.len() - 1;
            let mut new_state: Option<u8> = None;
            match state {
                S_EXPR0 => {
                    self.prog.start_subtree(self.tree);
                    stk[top].0 = S_EXPR1;
                    new_state = Some(S_OREXPR0);
                }
                S_EXPR1 | S_EXPR2 => {
                    let mut finish = false;
                    if state == S_EXPR1 {
                        if self.word(pos) != Some("?") {
                            finish = true;
                        } else {
                            pos += 1;
                            stk[top].0 = S_EXPR2;
                            new_state = Some(S_EXPR0);
                        }
                    } else if pos == last_pos || self.word(pos) != Some(":") {
                        self.errh.error("missing ':' in ternary expression");
                        finish = true;
                    } else {
                        pos += 1;
                        stk[top].0 = S_EXPR1;
                        new_state = Some(S_OREXPR0);
                    }
                    if finish {
                        self.prog.finish_subtree(
                            self.tree,
                            Combiner::Ternary,
                            J_SUCCESS,
                            J_FAILURE,
                        );
                    }
                }
                S_OREXPR0 => {
                    self.prog.start_subtree(self.tree);
                    stk[top].0 = S_OREXPR1;
                    new_state = Some(S_TERM0);
                }
                S_OREXPR1 => {
                    if matches!(self.word(pos), Some("or") | Some("||")) {
                        pos += 1;
                        new_state = Some(S_TERM0);
                    } else {
                        self.prog
                            .finish_subtree(self.tree, Combiner::Or, J_SUCCESS, J_FAILURE);
                    }
                }
                S_TERM0 => {
                    self.prog.start_subtree(self.tree);
                    stk[top].0 = S_TERM1;
                    new_state = Some(S_FACTOR0);
                }
                S_TERM1 | S_TERM2 => {
                    if pos == last_pos {
                        if state == S_TERM1 {
                            self.errh.error("missing expression");
                        }
                        self.prog
                            .finish_subtree(self.tree, Combiner::And, J_SUCCESS, J_FAILURE);
                    } else {
                        if matches!(self.word(pos), Some("and") | Some("&&")) {
                            stk[top].0 = S_TERM1;
                            pos += 1;
                        } else {
                            stk[top].0 = S_TERM2;
                        }
                        new_state = Some(S_FACTOR0);
                    }
                }
                S_FACTOR0 | S_FACTOR0_NEG => {
                    let w = self.word(pos);
                    if matches!(w, Some("not") | Some("!")) {
                        stk[top].0 = state + 1;
                        new_state = Some(if state == S_FACTOR0 {
                            S_FACTOR0_NEG
                        } else {
                            S_FACTOR0
                        });
                        pos += 1;
                    } else if w == Some("(") {
                        stk[top].0 = state + 2;
                        new_state = Some(S_EXPR0);
                        pos += 1;
                    } else {
                        pos = self.parse_test(pos, state == S_FACTOR0_NEG);
                    }
                }
                S_FACTOR1 | S_FACTOR1_NEG => {
                    if pos == last_pos {
                        let w = self.words[pos - 1].clone();
                        self.errh.error(format!("missing expression after '{w}'"));
                    }
                }
                _ => {
                    // S_FACTOR2 | S_FACTOR2_NEG
                    if pos == last_pos {
                        self.errh.error("missing expression after '('");
                    }
                    if self.word(pos) == Some(")") {
                        pos += 1;
                    } else if pos != last_pos {
                        self.errh.error("missing ')'");
                    }
                    if state == S_FACTOR2_NEG {
                        self.prog.negate_subtree(self.tree, false);
                    }
                }
            }
            match new_state {
                Some(ns) => {
                    stk[top].1 = pos;
                    stk.push((ns, 0));
                }
                None => {
                    stk.pop();
                }
            }
        }
        let _ = (S_FACTOR1, S_FACTOR2);
        pos
    }

    fn parse_brackets(&mut self, prim: &mut Primitive, mut pos: usize) -> usize {
        let first_pos = pos + 1;
        let mut comb = String::new();
        pos += 1;
        while pos < self.words.len() && self.words[pos] != "]" {
            comb.push_str(&self.words[pos]);
            pos += 1;
        }
        if pos >= self.words.len() {
            self.errh.error("missing ']'");
            return first_pos;
        }
        pos += 1;
        let parsed = if let Some((a, b)) = comb.split_once(':').filter(|(_, b)| !b.is_empty()) {
            parse_int(a).zip(parse_int(b))
        } else if let Some((a, b)) = comb.split_once(',').filter(|(_, b)| !b.is_empty()) {
            parse_int(a)
                .zip(parse_int(b))
                .map(|(f, l)| (f, l.wrapping_sub(f).wrapping_add(1)))
        } else {
            parse_int(&comb).map(|f| (f, 1))
        };
        let Some((fieldpos, len)) = parsed else {
            self.errh
                .error("syntax error after '[', expected '[POS]' or '[POS:LEN]'");
            return pos;
        };
        let (fp, l) = (i64::from(fieldpos) * 8, i64::from(len) * 8);
        if !(1..=32).contains(&l) {
            self.errh
                .error("LEN in '[POS:LEN]' out of range, should be between 1 and 4");
        } else if (fp & !31) != ((fp + l - 1) & !31) || !(0..=0xFFFF).contains(&fp) {
            self.errh.error(format!(
                "field [{fieldpos}:{len}] does not fit in a single word"
            ));
        } else {
            let transp = if prim.transp_proto == UNKNOWN {
                0
            } else {
                prim.transp_proto
            };
            let t = TYPE_FIELD
                | ((transp & 0x1FF) << FIELD_PROTO_SHIFT)
                | ((fp as i32) << FIELD_OFFSET_SHIFT)
                | ((l as i32) - 1);
            prim.set_type(t, self.errh);
        }
        pos
    }

    fn parse_test(&mut self, mut pos: usize, mut negated: bool) -> usize {
        let n = self.words.len();
        let Some(first_word) = self.word(pos) else {
            return pos;
        };
        if matches!(first_word, ")" | "||" | "or" | "?" | ":") {
            return pos;
        }
        if first_word == "true" || first_word == "false" {
            self.prog.add_insn(self.tree, 0, 0, 0);
            if negated == (first_word == "true") {
                self.prog.negate_subtree(self.tree, false);
            }
            return pos + 1;
        }

        // `ip6` terms (not in Click), after any number of `not`s.
        let mut q = pos;
        let mut neg6 = negated;
        while matches!(self.word(q), Some("not" | "!")) {
            neg6 = !neg6;
            q += 1;
        }
        if self.word(q) == Some("ip6") {
            return self.parse_ip6_test(q + 1, neg6);
        }

        let first_pos = pos;
        let mut prim = Primitive::default();
        let mut header: u8 = 0;
        while pos < n {
            let wd = self.words[pos].as_str();
            match lookup(wd, 0, UNKNOWN, self.ctx, None) {
                Ok(Some((TYPE_TYPE, d))) => {
                    let d = d as i32;
                    prim.set_type(d, self.errh);
                    if d & TYPE_FIELD != 0 && d & FIELD_PROTO_MASK != 0 {
                        prim.set_transp_proto(
                            (d & FIELD_PROTO_MASK) >> FIELD_PROTO_SHIFT,
                            self.errh,
                        );
                    }
                }
                Ok(Some((TYPE_PROTO, d))) => prim.set_transp_proto(d as i32, self.errh),
                Ok(Some(_)) | Err(()) => break,
                Ok(None) => {
                    if wd == "src" {
                        let next2 = self.word(pos + 2);
                        if pos + 2 < n && matches!(next2, Some("dst") | Some("dest")) {
                            match self.word(pos + 1) {
                                Some("and") | Some("&&") => {
                                    prim.set_srcdst(SD_AND, self.errh);
                                    pos += 2;
                                }
                                Some("or") | Some("||") => {
                                    prim.set_srcdst(SD_OR, self.errh);
                                    pos += 2;
                                }
                                _ => prim.set_srcdst(SD_SRC, self.errh),
                            }
                        } else {
                            prim.set_srcdst(SD_SRC, self.errh);
                        }
                    } else if wd == "dst" || wd == "dest" {
                        prim.set_srcdst(SD_DST, self.errh);
                    } else if wd == "ip" || wd == "ether" {
                        if header != 0 {
                            break;
                        }
                        header = wd.as_bytes()[0];
                    } else if wd == "not" || wd == "!" {
                        negated = !negated;
                    } else {
                        break;
                    }
                }
            }
            pos += 1;
        }

        if pos != first_pos {
            self.prev = Primitive::default();
        }
        if self.prev.data == TYPE_ETHER {
            header = b'e';
        }

        let peek = |pos: usize| -> String {
            if pos + 1 >= n {
                String::new()
            } else {
                self.words[pos].clone()
            }
        };
        let mut wd = peek(pos);
        if wd == "[" && pos > first_pos && prim.type_ == TYPE_NONE {
            pos = self.parse_brackets(&mut prim, pos);
            wd = peek(pos);
        }

        let mut given = GivenMask::default();
        if wd == "&" && pos + 1 < n {
            let m = self.words[pos + 1].as_str();
            if let Some(v) = parse_uint(m) {
                given.dt = TYPE_INT;
                given.u = v;
                pos += 2;
            } else if let (true, Ok(a)) =
                (header != b'e', <Ipv4Addr as FromArg>::from_arg(m, self.ctx))
            {
                given.dt = TYPE_HOST;
                given.u = u32::from(a);
                pos += 2;
            } else if let (true, Ok(e)) = (
                header != b'i',
                <EtherAddr as FromArg>::from_arg(m, self.ctx),
            ) {
                given.dt = TYPE_ETHER;
                given.e = e.0;
                pos += 2;
            }
            if given.dt != 0 && given.dt != TYPE_ETHER && given.u == 0 {
                self.errh.error("zero mask ignored");
                given.dt = 0;
            }
            wd = peek(pos);
        }

        pos += 1;
        match wd.as_str() {
            "=" | "==" => {}
            "!=" => prim.op_negated = true,
            ">" => prim.op = OP_GT,
            "<" => prim.op = OP_LT,
            ">=" => {
                prim.op = OP_LT;
                prim.op_negated = true;
            }
            "<=" => {
                prim.op = OP_GT;
                prim.op_negated = true;
            }
            _ => pos -= 1,
        }

        let mut last_wd = wd;
        if pos < n {
            let wd = self.words[pos].clone();
            pos += 1;
            match lookup(
                &wd,
                prim.type_,
                prim.transp_proto,
                self.ctx,
                Some(self.errh),
            ) {
                Err(()) => prim.type_ = -2,
                Ok(Some((t, d))) if t != TYPE_TYPE => {
                    prim.data = t;
                    prim.u = d;
                }
                _ => {
                    if let Some(i) = parse_int(&wd) {
                        prim.u = i as u32;
                        prim.data = TYPE_INT;
                    } else if let (true, Ok(a)) = (
                        header != b'e',
                        <Ipv4Addr as FromArg>::from_arg(&wd, self.ctx),
                    ) {
                        prim.u = u32::from(a);
                        let mask_word = if pos + 1 < n && self.words[pos] == "mask" {
                            <Ipv4Addr as FromArg>::from_arg(&self.words[pos + 1], self.ctx).ok()
                        } else {
                            None
                        };
                        if let Some(m) = mask_word {
                            prim.mask = u32::from(m);
                            pos += 2;
                            prim.data = TYPE_NET;
                        } else if let (true, Ok(pf)) = (
                            prim.type_ == TYPE_NET,
                            <IpPrefix as FromArg>::from_arg(&wd, self.ctx),
                        ) {
                            prim.u = u32::from(pf.addr);
                            prim.mask = u32::from(pf.mask);
                            prim.data = TYPE_NET;
                        } else {
                            prim.data = TYPE_HOST;
                        }
                    } else if let Some(pf) = (header != b'e')
                        .then(|| <IpPrefix as FromArg>::from_arg(&wd, self.ctx).ok())
                        .flatten()
                    {
                        prim.u = u32::from(pf.addr);
                        prim.mask = u32::from(pf.mask);
                        prim.data = TYPE_NET;
                    } else if let Some(e) = (header != b'i')
                        .then(|| <EtherAddr as FromArg>::from_arg(&wd, self.ctx).ok())
                        .flatten()
                    {
                        prim.eu = e.0;
                        prim.data = TYPE_ETHER;
                    } else {
                        if prim.op != OP_EQ || prim.op_negated {
                            self.errh.error(format!("dangling operator near '{wd}'"));
                        }
                        pos -= 1;
                    }
                }
            }
            last_wd = wd;
        }

        if pos == first_pos {
            self.errh.error(format!("empty term near '{last_wd}'"));
            return pos;
        }

        let prev = self.prev;
        if prim.check(&prev, header, &given, self.errh).is_ok() {
            prim.compile(self.prog, self.tree);
            if negated {
                self.prog.negate_subtree(self.tree, false);
            }
            self.prev = prim;
        }
        pos
    }
}

impl Parser<'_> {
    /// An `ip6` term; `pos` is just past `ip6`. The forms:
    ///
    /// * `ip6`: the IP version is 6;
    /// * `ip6 [src | dst | src and dst | src or dst] [host | net] ADDR[/LEN]`
    ///   (`host` takes no `/LEN`; neither `src` nor `dst` means `src or
    ///   dst`, as for `host` in IPv4);
    /// * `ip6 proto P` (also `ip6 nxt P`): the fixed header's next header,
    ///   a number or `tcp`, `udp`, `icmp6` (58);
    /// * `ip6 hlim [OP] N`, `ip6 dscp [OP] N`, `ip6 flow [OP] N`: the hop
    ///   limit, the traffic class's DSCP bits, the flow label, with OP one
    ///   of `=`, `==`, `!=`, `<`, `>`, `<=`, `>=`.
    ///
    /// Every form also tests that the IP version is 6. Offsets are from
    /// the network header annotation (the fixed 40-byte header; extension
    /// headers are not followed).
    fn parse_ip6_test(&mut self, mut pos: usize, negated: bool) -> usize {
        let at = |s: &Self, i: usize| s.word(i).unwrap_or("");
        let mut sd = 0;
        match at(self, pos) {
            "src" => {
                if matches!(at(self, pos + 2), "dst" | "dest") {
                    match at(self, pos + 1) {
                        "and" | "&&" => {
                            sd = SD_AND;
                            pos += 2;
                        }
                        "or" | "||" => {
                            sd = SD_OR;
                            pos += 2;
                        }
                        _ => sd = SD_SRC,
                    }
                } else {
                    sd = SD_SRC;
                }
                pos += 1;
            }
            "dst" | "dest" => {
                sd = SD_DST;
                pos += 1;
            }
            _ => {}
        }
        let kw = at(self, pos);
        let mut prim = Primitive::default();
        // (word offset, shift, field mask) of a numeric field.
        let field = match kw {
            "hlim" => Some((OFFSET_NET + 4, 0, 0xFF, 255)),
            "dscp" => Some((OFFSET_NET, 22, 0x3F, 63)),
            "flow" => Some((OFFSET_NET, 0, 0xF_FFFF, 0xF_FFFF)),
            _ => None,
        };
        self.prev = Primitive::default();
        self.prog.start_subtree(self.tree);
        self.prog
            .add_insn(self.tree, OFFSET_NET as u16, 6 << 28, 0xF000_0000);
        if sd == 0 && matches!(kw, "proto" | "nxt") {
            let w = at(self, pos + 1);
            let v = match w {
                "tcp" => Some(6),
                "udp" => Some(17),
                "icmp6" | "icmpv6" => Some(58),
                _ => parse_uint(w).filter(|&v| v <= 255),
            };
            match v {
                Some(v) => {
                    self.prog
                        .add_insn(self.tree, (OFFSET_NET + 4) as u16, v << 8, 0xFF00);
                    pos += 2;
                }
                None => {
                    self.errh
                        .error(format!("'ip6 {kw}': expected protocol near '{w}'"));
                    pos += 1;
                }
            }
        } else if let (0, Some((off, shift, mask, max))) = (sd, field) {
            pos += 1;
            match at(self, pos) {
                "=" | "==" => pos += 1,
                "!=" => {
                    prim.op_negated = true;
                    pos += 1;
                }
                ">" => {
                    prim.op = OP_GT;
                    pos += 1;
                }
                "<" => {
                    prim.op = OP_LT;
                    pos += 1;
                }
                ">=" => {
                    prim.op = OP_LT;
                    prim.op_negated = true;
                    pos += 1;
                }
                "<=" => {
                    prim.op = OP_GT;
                    prim.op_negated = true;
                    pos += 1;
                }
                _ => {}
            }
            let w = at(self, pos);
            match parse_uint(w).filter(|&v| v <= max) {
                Some(v) => {
                    prim.u = v;
                    // Turns < into > and folds relations always true or false.
                    let _ = prim.set_mask(mask, 0, 0, self.errh);
                    self.prog.start_subtree(self.tree);
                    prim.add_comparison(self.prog, self.tree, off, shift, prim.u, prim.mask, true);
                    self.prog
                        .finish_subtree(self.tree, Combiner::And, J_SUCCESS, J_FAILURE);
                    pos += 1;
                }
                None => self.errh.error(format!(
                    "'ip6 {kw}': expected a number from 0 to {max} near '{w}'"
                )),
            }
        } else {
            let mut kind = "";
            if matches!(kw, "host" | "net") {
                kind = kw;
                pos += 1;
            }
            let w = at(self, pos);
            let parsed = if kind == "host" && w.contains('/') {
                Err(String::new())
            } else {
                crate::ip6::parse_ip6_prefix(w)
            };
            match parsed {
                Ok((a, len)) => {
                    pos += 1;
                    let (a, m) = (u128::from(a), crate::ip6::prefix_mask(len));
                    let sd = if sd == 0 { SD_OR } else { sd };
                    if m != 0 {
                        self.prog.start_subtree(self.tree);
                        for (which, base) in [(SD_SRC, 8), (SD_DST, 24)] {
                            if sd != which && sd != SD_AND && sd != SD_OR {
                                continue;
                            }
                            self.prog.start_subtree(self.tree);
                            for k in 0..4u32 {
                                let sh = 96 - 32 * k;
                                let wm = (m >> sh) as u32;
                                if wm != 0 {
                                    self.prog.add_insn(
                                        self.tree,
                                        (OFFSET_NET + base + 4 * k) as u16,
                                        (a >> sh) as u32 & wm,
                                        wm,
                                    );
                                }
                            }
                            self.prog.finish_subtree(
                                self.tree,
                                Combiner::And,
                                J_SUCCESS,
                                J_FAILURE,
                            );
                        }
                        let c = if sd == SD_OR {
                            Combiner::Or
                        } else {
                            Combiner::And
                        };
                        self.prog.finish_subtree(self.tree, c, J_SUCCESS, J_FAILURE);
                    }
                }
                Err(_) if sd != 0 || !kind.is_empty() => {
                    self.errh
                        .error(format!("'ip6': expected IPv6 address near '{w}'"));
                }
                // A bare `ip6`.
                Err(_) => {}
            }
        }
        self.prog
            .finish_subtree(self.tree, Combiner::And, J_SUCCESS, J_FAILURE);
        if negated {
            self.prog.negate_subtree(self.tree, false);
        }
        pos
    }
}

/// Parses one `ACTION PATTERN` rule list (IPFilter syntax) into a compressed
/// program. `noutputs` is the element's output count.
pub fn parse_program(
    conf: &[String],
    noutputs: usize,
    ctx: &dyn ArgContext,
) -> Result<ZProgram, Vec<String>> {
    let mut errh = Errors::default();
    let mut prog = Program::new();
    let mut tree = prog.init_subtree();
    prog.start_subtree(&mut tree);
    for (argno, arg) in conf.iter().enumerate() {
        let text = rclick_core::confparse::unquote(arg);
        let words = separate_text(&text);
        if words.is_empty() {
            errh.prefix.clear();
            errh.error(format!("empty pattern {argno}"));
            continue;
        }
        errh.prefix = format!("pattern {argno}: ");
        let slotwd = words[0].as_str();
        let mut slot: i64 = -i64::from(J_NEVER);
        match slotwd {
            "allow" => {
                slot = 0;
                if noutputs == 0 {
                    errh.error("'allow' is meaningless, element has zero outputs");
                }
            }
            "deny" | "drop" => {}
            _ => match parse_int(slotwd) {
                Some(s) => {
                    if s < 0 || s as usize >= noutputs {
                        errh.error(format!("slot '{s}' out of range"));
                    } else {
                        slot = i64::from(s);
                    }
                }
                None => errh.error(format!("unknown slot ID '{slotwd}'")),
            },
        }
        prog.start_subtree(&mut tree);
        if words.len() == 1
            || (words.len() == 2 && matches!(words[1].as_str(), "-" | "any" | "all"))
        {
            prog.add_insn(&mut tree, 0, 0, 0);
        } else {
            let mut parser = Parser {
                words: &words,
                tree: &mut tree,
                prog: &mut prog,
                ctx,
                errh: &mut errh,
                prev: Primitive::default(),
            };
            let pos = parser.parse_expr(1);
            if pos < words.len() {
                errh.error(format!("garbage after expression at '{}'", words[pos]));
            }
        }
        prog.finish_subtree(&mut tree, Combiner::And, (-slot) as i32, J_FAILURE);
    }
    prog.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
    if !errh.messages.is_empty() {
        return Err(errh.messages);
    }
    prog.optimize();
    prog.bubble_sort_and_exprs();
    Ok(ZProgram::compile(&prog))
}
