//! # IPPrint
//!
//! `IPPrint([LABEL, KEYWORDS])`
//!
//! **Category:** ip. Pretty-prints IP packets.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prints a tcpdump-like line for each IP packet, then passes it on
//! unchanged. Packets must have their IP header annotation set (place the
//! element after CheckIPHeader or MarkIPHeader); packets without one pass
//! silently. The line is, in order: LABEL and `: ` if LABEL is not empty;
//! the timestamp annotation and `: `; `#AGGREGATE` and/or paint (`.P` after
//! an aggregate, `paint P` alone) and `: `; then the IP ID, TTL, TOS and
//! length when asked; then per protocol:
//!
//! * TCP: `SRC.SPORT > DST.DPORT: FLAGS SEQ:END(SEQLEN,PACKETLEN,IPLEN)`
//!   then ` ack ACK` if ACK is set and ` win WIN`. FLAGS is `S`, `F`, `R`,
//!   `P` or `.`.
//! * UDP: `SRC.SPORT > DST.DPORT: udp ULEN`.
//! * ICMP: `SRC > DST: icmp ...` with the type (`echo (ID, SEQ)`,
//!   `DST unreachable CODE`, names for other types and codes).
//! * Others: `SRC > DST: ip-proto-N`.
//!
//! Short headers print `truncated-ip`, `truncated-tcp`, `truncated-udp`,
//! `truncated-icmp`; fragments other than the first print just the
//! protocol. Fragments end with ` (frag ID:LEN@OFFSET)`, `+` marking
//! more fragments. With CONTENTS or PAYLOAD, the packet data follows on
//! further lines, indented by two spaces: in hex, 24 bytes a line in
//! groups of 4; in ASCII, 48 characters a line in groups of 8, with `.`
//! for unprintable bytes.
//!
//! Keywords:
//!
//! * `LABEL` (string): text printed first. Default empty.
//! * `CONTENTS` (`false`, `hex`, `ascii`, or a boolean): print the
//!   packet's data from its first byte. Default false; true means hex.
//! * `PAYLOAD` (`false`, `hex`, `ascii`): print the payload after the TCP
//!   or UDP header (the IP payload for others). At most one of CONTENTS
//!   and PAYLOAD.
//! * `MAXLENGTH` (integer): most bytes of data printed. Default 1500.
//!   `NBYTES` is a deprecated synonym.
//! * `ID`, `TTL`, `TOS`, `LENGTH` (booleans): print these IP header
//!   fields. Default false.
//! * `TIMESTAMP` (boolean): print the timestamp annotation. Default true.
//! * `AGGREGATE` (boolean): print the aggregate annotation. Default false.
//! * `PAINT` (boolean): print the paint annotation. Default false.
//! * `SWAP` (boolean): print ICMP echo ID and sequence in network byte
//!   order (true) or byte-swapped (false). Default true.
//! * `ACTIVE` (boolean): print at all. Default true.
//! * `OUTFILE` (filename): append lines to this file instead of the log.
//! * `CHANNEL` (word): accepted for compatibility; lines go to the log.
//!
//! ## Handlers
//!
//! * `active` (read/write): ACTIVE.
//!
//! ## Examples
//!
//! ```text
//! FromIPSummaryDump(IN) -> IPPrint(PAYLOAD ascii) -> Discard;
//! ```
//!
//! ## See also
//!
//! Print, CheckIPHeader

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::net::Ipv4Addr;

use rclick_core::args::{Args, Word};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx};
use rclick_packet::Packet;
use rclick_wire::icmp::{self, types, unreach};
use rclick_wire::{IcmpPacket, Ipv4Packet, TcpPacket, UdpPacket};

use super::{bool_text, ip_proto_name, is_first_fragment, is_fragment};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Contents {
    None,
    Hex,
    Ascii,
}

/// The IPPrint element.
pub struct IpPrint {
    label: String,
    bytes: i64,
    contents: Contents,
    payload: bool,
    print_id: bool,
    print_timestamp: bool,
    print_paint: bool,
    print_tos: bool,
    print_ttl: bool,
    print_len: bool,
    print_aggregate: bool,
    swap: bool,
    active: bool,
    outfile_name: Option<String>,
    outfile: Option<BufWriter<File>>,
    line: String,
}

impl Default for IpPrint {
    fn default() -> Self {
        IpPrint {
            label: String::new(),
            bytes: 1500,
            contents: Contents::None,
            payload: false,
            print_id: false,
            print_timestamp: true,
            print_paint: false,
            print_tos: false,
            print_ttl: false,
            print_len: false,
            print_aggregate: false,
            swap: true,
            active: true,
            outfile_name: None,
            outfile: None,
            line: String::new(),
        }
    }
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "yes" | "1" | "t" | "y" => Some(true),
        "false" | "no" | "0" | "f" | "n" => Some(false),
        _ => None,
    }
}

fn addr(b: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(b[0], b[1], b[2], b[3])
}

/// Writes the addresses of a TCP or UDP line (`proto` names it) of IP
/// header `h`: `SRC.SPORT > DST.DPORT: ` with the ports `ports` reads, and
/// true; or, for a later fragment or fewer than 4 bytes of transport
/// header (`tlen`), `SRC > DST: PROTO` (`truncated-PROTO` for the latter)
/// and false: the line is done.
fn ports_prefix(
    sa: &mut String,
    h: &[u8],
    tlen: usize,
    proto: &str,
    ports: impl FnOnce() -> (u16, u16),
) -> bool {
    let (src, dst) = (addr(&h[12..16]), addr(&h[16..20]));
    let first = is_first_fragment(h);
    if tlen < 4 || !first {
        let trunc = if first { "truncated-" } else { "" };
        let _ = write!(sa, "{src} > {dst}: {trunc}{proto}");
        return false;
    }
    let (sport, dport) = ports();
    let _ = write!(sa, "{src}.{sport} > {dst}.{dport}: ");
    true
}

impl IpPrint {
    fn tcp_line(sa: &mut String, p: &Packet, h: &[u8], th: &[u8], tlen: usize) {
        // `th` holds at least `tlen` bytes: each field is read only once
        // `tlen` covers it.
        let tcp = TcpPacket::new_unchecked(th);
        if !ports_prefix(sa, h, tlen, "tcp", || (tcp.src_port(), tcp.dst_port())) {
            return;
        }
        if tlen < 14 {
            sa.push_str("truncated-tcp");
            return;
        }
        let ip_len = Ipv4Packet::new_unchecked(h).total_len() as i64;
        let hl = ((h[0] & 0x0f) as i64) << 2;
        let flags = th[13];
        let mut seqlen = ip_len - hl - (((th[12] >> 4) as i64) << 2);
        if flags & 0x02 != 0 {
            sa.push('S');
            seqlen += 1;
        }
        if flags & 0x01 != 0 {
            sa.push('F');
            seqlen += 1;
        }
        if flags & 0x04 != 0 {
            sa.push('R');
        }
        if flags & 0x08 != 0 {
            sa.push('P');
        }
        if flags & 0x0f == 0 {
            sa.push('.');
        }
        let seq = tcp.seq_number();
        let seqlen32 = seqlen as i32;
        let _ = write!(
            sa,
            " {seq}:{}({seqlen32},{},{ip_len})",
            seq.wrapping_add(seqlen32 as u32),
            p.len()
        );
        if flags & 0x10 != 0 {
            let _ = write!(sa, " ack {}", tcp.ack_number());
        }
        if tlen < 16 {
            sa.push_str("truncated-tcp");
            return;
        }
        let _ = write!(sa, " win {}", tcp.window_len());
    }

    fn udp_line(sa: &mut String, h: &[u8], th: &[u8], tlen: usize) {
        let udp = UdpPacket::new_unchecked(th);
        if !ports_prefix(sa, h, tlen, "udp", || (udp.src_port(), udp.dst_port())) {
            return;
        }
        if tlen < 8 {
            sa.push_str("truncated-udp");
            return;
        }
        let _ = write!(sa, "udp {}", udp.len());
    }

    fn icmp_line(&self, sa: &mut String, h: &[u8], th: &[u8], tlen: usize) {
        let _ = write!(sa, "{} > {}: ", addr(&h[12..16]), addr(&h[16..20]));
        if !is_first_fragment(h) {
            sa.push_str("icmp");
            return;
        }
        if tlen < 2 {
            sa.push_str("truncated-icmp");
            return;
        }
        let (ty, code) = (th[0], th[1]);
        match ty {
            types::ECHO | types::ECHO_REPLY => {
                sa.push_str(if ty == types::ECHO {
                    "icmp echo "
                } else {
                    "icmp echo-reply "
                });
                if tlen < 8 {
                    sa.push_str("truncated-icmp");
                    return;
                }
                let icmp = IcmpPacket::new_unchecked(th);
                let (mut id, mut seq) = (icmp.echo_ident(), icmp.echo_seq_no());
                if !self.swap {
                    id = id.swap_bytes();
                    seq = seq.swap_bytes();
                }
                let _ = write!(sa, "({id}, {seq})");
            }
            types::UNREACH => {
                let code_s = match icmp::code_name(ty, code) {
                    Some(n) => n.to_string(),
                    None => format!("code {code}"),
                };
                let eiph_len = tlen as i64 - 8;
                if eiph_len < 20 {
                    let _ = write!(sa, "icmp unreachable {code_s} ");
                    sa.push_str("truncated-icmp");
                    return;
                }
                let e = &th[8..];
                let ehl = ((e[0] & 0x0f) as i64) << 2;
                let eudph_len = eiph_len - ehl;
                let _ = write!(sa, "icmp {} unreachable {code_s}", addr(&e[16..20]));
                match code {
                    unreach::PROTOCOL => {
                        sa.push(' ');
                        match ip_proto_name(e[9]) {
                            Some(n) => sa.push_str(n),
                            None => {
                                let _ = write!(sa, "{}", e[9]);
                            }
                        }
                    }
                    unreach::PORT => {
                        sa.push(' ');
                        match ip_proto_name(e[9]) {
                            Some(n) => sa.push_str(n),
                            None => {
                                let _ = write!(sa, "protocol {}", e[9]);
                            }
                        }
                        if eudph_len < 4 {
                            sa.push_str("truncated-icmp");
                            return;
                        }
                        // `e` holds the quoted header and 4 bytes after it.
                        let quoted = UdpPacket::new_unchecked(&e[ehl as usize..]);
                        let _ = write!(sa, "/{}", quoted.dst_port());
                    }
                    unreach::NEEDFRAG => {
                        let mtu = IcmpPacket::new_unchecked(th).next_hop_mtu();
                        if mtu != 0 {
                            let _ = write!(sa, " (mtu {mtu})");
                        }
                    }
                    _ => {}
                }
            }
            _ => {
                sa.push_str("icmp ");
                match icmp::type_name(ty) {
                    Some(n) => sa.push_str(n),
                    None => {
                        let _ = write!(sa, "type {ty}");
                    }
                }
                match icmp::code_name(ty, code) {
                    Some(n) => {
                        sa.push(' ');
                        sa.push_str(n);
                    }
                    None if code != 0 => {
                        let _ = write!(sa, " code {code}");
                    }
                    None => {}
                }
            }
        }
    }

    /// Formats the line for `p` into `self.line`; false if nothing to print.
    fn format(&mut self, p: &Packet) -> bool {
        let Some(nh) = p.network_header() else {
            return false;
        };
        let mut sa = std::mem::take(&mut self.line);
        sa.clear();
        if !self.label.is_empty() {
            sa.push_str(&self.label);
            sa.push_str(": ");
        }
        if self.print_timestamp {
            let _ = write!(sa, "{}: ", p.timestamp_anno());
        }
        if self.print_aggregate {
            let _ = write!(sa, "#{}", p.aggregate_anno());
        }
        if self.print_paint {
            let _ = write!(
                sa,
                "{}{}",
                if self.print_aggregate { "." } else { "paint " },
                p.paint_anno()
            );
        }
        if self.print_aggregate || self.print_paint {
            sa.push_str(": ");
        }

        if nh.len() < 20 {
            sa.push_str("truncated-ip");
        } else {
            let h = nh;
            let ip = Ipv4Packet::new_unchecked(h);
            let ip_len = ip.total_len() as i64;
            let hl = ((h[0] & 0x0f) as i64) << 2;
            let payload_len = ip_len - hl;
            // The transport header: its annotation, else right after the
            // IP header.
            let th: &[u8] = match p.transport_header() {
                Some(t) => t,
                None => h.get(hl as usize..).unwrap_or(&[]),
            };
            let tlen = (th.len() as i64).min(payload_len).max(0) as usize;

            if self.print_id {
                let _ = write!(sa, "id {} ", ip.ident());
            }
            if self.print_ttl {
                let _ = write!(sa, "ttl {} ", h[8]);
            }
            if self.print_tos {
                let _ = write!(sa, "tos {} ", h[1]);
            }
            if self.print_len {
                let _ = write!(sa, "length {ip_len} ");
            }
            match h[9] {
                6 => Self::tcp_line(&mut sa, p, h, th, tlen),
                17 => Self::udp_line(&mut sa, h, th, tlen),
                1 => self.icmp_line(&mut sa, h, th, tlen),
                proto => {
                    let _ = write!(
                        sa,
                        "{} > {}: ip-proto-{proto}",
                        addr(&h[12..16]),
                        addr(&h[16..20])
                    );
                }
            }
            if is_fragment(h) {
                let field = ip.flags_frag_offset();
                let _ = write!(
                    sa,
                    " (frag {}:{payload_len}@{}{})",
                    ip.ident(),
                    ((field & 0x1fff) as u32) << 3,
                    if field & 0x2000 != 0 { "+" } else { "" }
                );
            }

            if self.contents != Contents::None {
                let data: &[u8] = if self.payload {
                    let first = is_first_fragment(h);
                    let skip = if first && h[9] == 6 {
                        th.get(12).map_or(th.len(), |b| ((b >> 4) as usize) << 2)
                    } else if first && h[9] == 17 {
                        8
                    } else {
                        0
                    };
                    th.get(skip..).unwrap_or(&[])
                } else {
                    p.data()
                };
                let n = if self.bytes < 0 {
                    data.len()
                } else {
                    data.len().min(self.bytes as usize)
                };
                Self::dump(&mut sa, &data[..n], self.contents);
            }
        }
        self.line = sa;
        true
    }

    fn dump(sa: &mut String, data: &[u8], how: Contents) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        match how {
            Contents::Hex => {
                for (i, &b) in data.iter().enumerate() {
                    if i % 24 == 0 {
                        sa.push_str("\n  ");
                    } else if i % 4 == 0 {
                        sa.push(' ');
                    }
                    sa.push(HEX[(b >> 4) as usize] as char);
                    sa.push(HEX[(b & 15) as usize] as char);
                }
            }
            Contents::Ascii => {
                for (i, &b) in data.iter().enumerate() {
                    if i % 48 == 0 {
                        sa.push_str("\n  ");
                    } else if i % 8 == 0 {
                        sa.push(' ');
                    }
                    sa.push(if (32..=126).contains(&b) {
                        b as char
                    } else {
                        '.'
                    });
                }
            }
            Contents::None => {}
        }
    }

    fn emit(&mut self, cx: &Ctx) {
        if let Some(f) = self.outfile.as_mut() {
            let _ = f.write_all(self.line.as_bytes());
            let _ = f.write_all(b"\n");
        } else {
            cx.log(self.line.clone());
        }
    }
}

rclick_core::handlers! {
    /// IPPrint's handlers (the manual's list).
    enum H {
        Active = read_write("active"),
    }
}

impl Element for IpPrint {
    fn class_name(&self) -> &'static str {
        "IPPrint"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut label = String::new();
        let mut contents = Word("no".into());
        let mut payload = Word("no".into());
        let mut bytes: i64 = 1500;
        let mut nbytes: i64 = i64::MIN;
        let (mut id, mut ts, mut paint, mut tos, mut ttl) = (false, true, false, false, false);
        let (mut swap, mut len, mut agg, mut active) = (true, false, false, true);
        let mut outfile = String::new();
        let mut channel = Word(String::new());
        Args::new(conf)
            .read_p("LABEL", &mut label)
            .read("CONTENTS", &mut contents)
            .read("PAYLOAD", &mut payload)
            .read("MAXLENGTH", &mut bytes)
            .read("NBYTES", &mut nbytes)
            .read("ID", &mut id)
            .read("TIMESTAMP", &mut ts)
            .read("PAINT", &mut paint)
            .read("TOS", &mut tos)
            .read("TTL", &mut ttl)
            .read("SWAP", &mut swap)
            .read("LENGTH", &mut len)
            .read("AGGREGATE", &mut agg)
            .read("ACTIVE", &mut active)
            .read("OUTFILE", &mut outfile)
            .read("CHANNEL", &mut channel)
            .complete()
            .map_err(|e| e.to_string())?;
        if nbytes != i64::MIN {
            bytes = nbytes;
        }
        let c = if let Some(b) = parse_bool(&contents.0) {
            if b {
                Contents::Hex
            } else {
                Contents::None
            }
        } else {
            match contents.0.to_ascii_uppercase().as_str() {
                "NONE" => Contents::None,
                "HEX" => Contents::Hex,
                "ASCII" => Contents::Ascii,
                _ => {
                    return Err(format!(
                        "bad contents value '{}'; should be 'NONE', 'HEX', or 'ASCII'",
                        contents.0.to_ascii_uppercase()
                    ))
                }
            }
        };
        let pv = match payload.0.to_ascii_uppercase().as_str() {
            "NO" | "FALSE" => Contents::None,
            "YES" | "TRUE" | "HEX" => Contents::Hex,
            "ASCII" => Contents::Ascii,
            other => {
                return Err(format!(
                    "bad payload value '{other}'; should be 'false', 'hex', or 'ascii'"
                ))
            }
        };
        if pv != Contents::None && c != Contents::None {
            return Err("specify at most one of PAYLOAD and CONTENTS".into());
        }
        self.label = label;
        self.bytes = bytes;
        if pv != Contents::None {
            self.contents = pv;
            self.payload = true;
        } else {
            self.contents = c;
            self.payload = false;
        }
        self.print_id = id;
        self.print_timestamp = ts;
        self.print_paint = paint;
        self.print_tos = tos;
        self.print_ttl = ttl;
        self.print_len = len;
        self.print_aggregate = agg;
        self.swap = swap;
        self.active = active;
        self.outfile_name = (!outfile.is_empty()).then_some(outfile);
        Ok(())
    }

    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        if let Some(name) = &self.outfile_name {
            let f = File::create(name).map_err(|e| format!("{name}: {e}"))?;
            self.outfile = Some(BufWriter::new(f));
        }
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        if let Some(mut f) = self.outfile.take() {
            let _ = f.flush();
        }
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.active && self.format(&p) {
            self.emit(cx);
        }
        Some(p)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, _id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        Ok(bool_text(self.active))
    }

    fn write_handler(&mut self, _id: u32, value: &str, _: &mut Ctx) -> Result<(), String> {
        self.active = parse_bool(value.trim()).ok_or("expected boolean")?;
        Ok(())
    }
}

impl Drop for IpPrint {
    fn drop(&mut self) {
        if let Some(f) = self.outfile.as_mut() {
            let _ = f.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    /// The three shapes of a TCP or UDP line's start.
    #[test]
    fn ports_prefix_shapes() {
        let mut h = [0u8; 20];
        h[12..16].copy_from_slice(&[1, 0, 0, 1]);
        h[16..20].copy_from_slice(&[2, 0, 0, 2]);
        let line = |h: &[u8], tlen| {
            let mut sa = String::new();
            let more = super::ports_prefix(&mut sa, h, tlen, "udp", || (7, 9));
            (sa, more)
        };
        assert_eq!(line(&h, 4), ("1.0.0.1.7 > 2.0.0.2.9: ".into(), true));
        assert_eq!(
            line(&h, 3),
            ("1.0.0.1 > 2.0.0.2: truncated-udp".into(), false)
        );
        h[7] = 1; // a later fragment
        assert_eq!(line(&h, 8), ("1.0.0.1 > 2.0.0.2: udp".into(), false));
    }

    use super::super::test_util::*;
    use rclick_core::testing;

    fn print(pkt: &[u8], args: &str) -> Vec<String> {
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true, TIMESTAMP false) -> TestMarkIP -> IPPrint({args}) -> Discard;",
            hex_data(pkt)
        );
        let r = testing::run(&conf, &reg()).unwrap();
        r.take_log()
    }

    fn tcp(hl_opts: usize, flags: u8, ip_len: u16, data_off: u8) -> Vec<u8> {
        let mut v = vec![
            0x45 + (hl_opts / 4) as u8,
            0,
            (ip_len >> 8) as u8,
            ip_len as u8,
            0,
            0,
            0,
            0,
            64,
            6,
            0,
            0,
            1,
            0,
            0,
            1,
            1,
            0,
            0,
            2,
        ];
        v.extend_from_slice(&vec![1; hl_opts]);
        v.extend_from_slice(&[
            0,
            10,
            0,
            20,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            data_off << 4,
            flags,
            0,
            0,
            0,
            0,
            0,
            0,
        ]);
        v
    }

    #[test]
    fn tcp_lines_like_click() {
        assert_eq!(
            print(&tcp(20, 0x10, 1500, 5), ""),
            ["0.000000: 1.0.0.1.10 > 1.0.0.2.20: . 0:1440(1440,60,1500) ack 0 win 0"]
        );
        assert_eq!(
            print(&tcp(0, 0x12, 1000, 5), ""),
            ["0.000000: 1.0.0.1.10 > 1.0.0.2.20: S 0:961(961,40,1000) ack 0 win 0"]
        );
        assert_eq!(
            print(&tcp(0, 0x03, 1000, 10), "TIMESTAMP false, LABEL x"),
            ["x: 1.0.0.1.10 > 1.0.0.2.20: SF 0:942(942,40,1000) win 0"]
        );
    }

    #[test]
    fn udp_fragments_and_payload() {
        let mut payload = vec![0, 2, 0, 4, 0, 77, 0, 0];
        payload.extend_from_slice(
            b"Random bullshit in a packet, at least 64 bytes long. Well, now it is.",
        );
        let pkt = ip_packet([1, 0, 0, 1], [3, 0, 0, 3], 17, &payload);
        assert_eq!(
            print(&pkt, "PAYLOAD ascii"),
            ["0.000000: 1.0.0.1.2 > 3.0.0.3.4: udp 77\n  Random b ullshit  in a pac ket, at  least 64  bytes l\n  ong. Wel l, now i t is."]
        );
        let mut f = pkt.clone();
        f[6] = 0x20;
        f[7] = 3;
        assert_eq!(
            print(&f, "TIMESTAMP false, ID true, TTL true"),
            ["id 1 ttl 64 1.0.0.1 > 3.0.0.3: udp (frag 1:77@24+)"]
        );
        let out = print(&pkt[..26], "CONTENTS hex, MAXLENGTH 26, TIMESTAMP false");
        let lines: Vec<&str> = out[0].split('\n').collect();
        assert_eq!(lines[0], "1.0.0.1.2 > 3.0.0.3.4: truncated-udp");
        assert_eq!(&lines[1][..20], "  45000061 00010000 ");
        assert_eq!(lines[1].len(), 2 + 48 + 5);
        assert_eq!(lines[2], "  004d");
    }

    #[test]
    fn icmp_lines() {
        let echo = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &[8, 0, 0, 0, 0, 3, 0, 1]);
        assert_eq!(
            print(&echo, "TIMESTAMP false"),
            ["1.0.0.1 > 2.0.0.2: icmp echo (3, 1)"]
        );
        assert_eq!(
            print(&echo, "TIMESTAMP false, SWAP false"),
            ["1.0.0.1 > 2.0.0.2: icmp echo (768, 256)"]
        );
        let inner = ip_packet([2, 0, 0, 2], [5, 0, 0, 5], 17, &[0, 1, 0, 53, 0, 8, 0, 0]);
        let mut m = vec![3, 3, 0, 0, 0, 0, 0, 0];
        m.extend_from_slice(&inner);
        let un = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &m);
        assert_eq!(
            print(&un, "TIMESTAMP false"),
            ["1.0.0.1 > 2.0.0.2: icmp 5.0.0.5 unreachable port udp/53"]
        );
        let te = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 1, &[11, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            print(&te, "TIMESTAMP false"),
            ["1.0.0.1 > 2.0.0.2: icmp timeexceeded transit"]
        );
        let gre = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 47, &[]);
        assert_eq!(
            print(&gre, "TIMESTAMP false, PAINT true, AGGREGATE true"),
            ["#0.0: 1.0.0.1 > 2.0.0.2: ip-proto-47"]
        );
        assert_eq!(print(&gre[..10], "TIMESTAMP false"), ["truncated-ip"]);
    }

    #[test]
    fn config_errors() {
        let r = reg();
        for (c, msg) in [
            ("IPPrint(CONTENTS bogus)", "bad contents value"),
            ("IPPrint(PAYLOAD bogus)", "bad payload value"),
            ("IPPrint(CONTENTS hex, PAYLOAD hex)", "at most one"),
        ] {
            let e = testing::build(&format!("Idle -> {c} -> Discard;"), &r, true)
                .err()
                .unwrap();
            assert!(e.contains(msg), "{c}: {e}");
        }
    }
}
