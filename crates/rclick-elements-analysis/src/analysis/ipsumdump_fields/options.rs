//! IP and TCP options: parsing their text (`ip_opt`, `tcp_opt`) into
//! bytes and printing bytes back as text.

use std::fmt::Write as _;

use rclick_wire::ipv4::{push_timestamp, read_timestamp};
use rclick_wire::tcp::option as tcp_option;

use super::*;

pub(crate) const IPOPT_EOL: u8 = 0;
pub(crate) const IPOPT_NOP: u8 = 1;
pub(crate) const IPOPT_RR: u8 = 7;
pub(crate) const IPOPT_TS: u8 = 68;
pub(crate) const IPOPT_LSRR: u8 = 131;
pub(crate) const IPOPT_SSRR: u8 = 137;

pub(crate) const TCPOPT_PADDING: u32 = 1;
pub(crate) const TCPOPT_MSS: u32 = 2;
pub(crate) const TCPOPT_WSCALE: u32 = 4;
pub(crate) const TCPOPT_SACK: u32 = 8;
pub(crate) const TCPOPT_TIMESTAMP: u32 = 16;
pub(crate) const TCPOPT_UNKNOWN: u32 = 32;
pub(crate) const TCPOPT_ALL: u32 = 0xFFFF_FFFF;
pub(crate) const TCPOPT_ALL_NOPAD: u32 = 0xFFFF_FFFE;
pub(crate) const TCPOPT_NTALL: u32 = 0xFFFF_FFEE;

pub(crate) fn parse_quad(s: &[u8], out: &mut Vec<u8>) -> Option<usize> {
    let mut p = 0;
    for i in 0..4 {
        let (v, rest) = prefix_int(&s[p..], 10);
        let v = v.filter(|&v| v <= 255)?;
        p = s.len() - rest.len();
        out.push(v as u8);
        if i < 3 {
            if s.get(p) != Some(&b'.') {
                return None;
            }
            p += 1;
        }
    }
    Some(p)
}

/// Parses Click's IP option text (`rr{...}`, `ssrr{...}`, `ts{...}`,
/// `nop`, `eol`, `N=a:b`). `.` means none (empty result).
pub fn parse_ip_opt(text: &str) -> Option<Vec<u8>> {
    parse_option_list(text, false, |s, mut p, sa| {
        let end = s.len();
        let rest = &s[p..];
        let route = if rest.len() > 3 && rest.starts_with(b"rr{") {
            Some((IPOPT_RR, 3))
        } else if rest.len() > 5 && rest.starts_with(b"ssrr{") {
            Some((IPOPT_SSRR, 5))
        } else if rest.len() > 5 && rest.starts_with(b"lsrr{") {
            Some((IPOPT_LSRR, 5))
        } else {
            None
        };
        if let Some((kind, skip)) = route {
            sa.push(kind);
            p += skip;
            let sa_pos = sa.len() - 1;
            let mut pointer: i64 = -1;
            sa.push(0);
            sa.push(0);
            loop {
                if p < end && s[p] == b'^' && pointer < 0 {
                    pointer = (sa.len() - sa_pos + 1) as i64;
                    p += 1;
                }
                if p >= end || !s[p].is_ascii_digit() {
                    break;
                }
                p += parse_quad(&s[p..], sa)?;
                if p < end && s[p] == b',' {
                    p += 1;
                }
            }
            if p >= end || s[p] != b'}' {
                return None;
            }
            sa[sa_pos + 2] = if pointer >= 0 {
                pointer as u8
            } else {
                (sa.len() - sa_pos + 1) as u8
            };
            if p + 2 < end && s[p + 1] == b'+' && s[p + 2].is_ascii_digit() {
                let (v, r) = prefix_int(&s[p + 2..], 10);
                p = end - r.len();
                let v = v.unwrap_or(0);
                if v < 64 {
                    sa.extend(std::iter::repeat_n(0u8, v as usize * 4));
                }
            } else {
                p += 1;
            }
            if sa.len() - sa_pos > 255 {
                return None;
            }
            sa[sa_pos + 1] = (sa.len() - sa_pos) as u8;
        } else if rest.len() > 3 && (rest.starts_with(b"ts{") || rest.starts_with(b"ts.")) {
            let sa_pos = sa.len();
            sa.extend_from_slice(&[IPOPT_TS, 0, 0, 0]);
            let mut flag: i64 = -1;
            if rest[2] == b'.' {
                if rest.len() > 6 && rest[3..].starts_with(b"ip{") {
                    flag = 1;
                    p += 6;
                } else if rest.len() > 9 && rest[3..].starts_with(b"preip{") {
                    flag = 3;
                    p += 9;
                } else if rest.len() > 3 && rest[3].is_ascii_digit() {
                    let (v, r) = prefix_int(&rest[3..], 0);
                    let v = v.unwrap_or(99);
                    if v > 15 || r.first() != Some(&b'{') {
                        return None;
                    }
                    flag = i64::from(v);
                    p = end - r.len() + 1;
                } else {
                    return None;
                }
            } else {
                p += 3;
            }
            let mut pointer: i64 = -1;
            loop {
                if p < end && s[p] == b'^' && pointer < 0 {
                    pointer = (sa.len() - sa_pos + 1) as i64;
                    p += 1;
                }
                if p >= end || (!s[p].is_ascii_digit() && s[p] != b'!') {
                    break;
                }
                let entry = p;
                let entry_len = sa.len();
                'retry: loop {
                    if flag == 1 || flag == 3 || flag == -2 {
                        p += parse_quad(&s[p..], sa)?;
                        if pointer >= 0 && flag == -2 {
                            flag = 3;
                        }
                        if p + 1 < end && s[p] == b'=' {
                            if s[p + 1].is_ascii_digit() || s[p + 1] == b'!' {
                                p += 1;
                            } else if s[p + 1] == b'?' && pointer >= 0 {
                                sa.extend_from_slice(&[0, 0, 0, 0]);
                                p += 2;
                                break 'retry;
                            } else {
                                return None;
                            }
                        } else if pointer >= 0 {
                            sa.extend_from_slice(&[0, 0, 0, 0]);
                            break 'retry;
                        } else {
                            return None;
                        }
                    }
                    let mut top = 0u32;
                    if p < end && s[p] == b'!' {
                        top = 0x8000_0000;
                        p += 1;
                    }
                    if p >= end || !s[p].is_ascii_digit() {
                        return None;
                    }
                    let (v, r) = prefix_int(&s[p..], 0);
                    p = end - r.len();
                    if p < end && s[p] == b'.' && flag == -1 {
                        flag = -2;
                        p = entry;
                        sa.truncate(entry_len);
                        continue 'retry;
                    } else if flag == -1 {
                        flag = 0;
                    }
                    push_timestamp(sa, v.unwrap_or(0) | top);
                    break 'retry;
                }
                if p < end && s[p] == b',' {
                    p += 1;
                }
            }
            if p < end {
                if s[p] != b'}' {
                    return None;
                }
                p += 1;
            }
            if flag == -2 {
                flag = 1;
            }
            if flag < 0 {
                flag = 0;
            }
            sa[sa_pos + 2] = if pointer >= 0 {
                pointer as u8
            } else {
                (sa.len() - sa_pos + 1) as u8
            };
            if p + 1 < end && s[p] == b'+' && s[p + 1].is_ascii_digit() {
                let (v, r) = prefix_int(&s[p + 1..], 0);
                p = end - r.len();
                let v = v.unwrap_or(99);
                if v < 64 {
                    let per = if flag == 1 || flag == 3 { 8 } else { 4 };
                    sa.extend(std::iter::repeat_n(0u8, v as usize * per));
                }
            }
            let mut overflow = 0u8;
            if p + 2 < end && s[p] == b'+' && s[p + 1] == b'+' && s[p + 2].is_ascii_digit() {
                let (v, r) = prefix_int(&s[p + 2..], 0);
                p = end - r.len();
                let v = v.unwrap_or(99);
                if v < 16 {
                    overflow = v as u8;
                }
            }
            sa[sa_pos + 3] = (overflow << 4) | (flag as u8 & 0xF);
            if sa.len() - sa_pos > 255 {
                return None;
            }
            sa[sa_pos + 1] = (sa.len() - sa_pos) as u8;
        } else if !rest.is_empty() && rest[0].is_ascii_digit() {
            parse_unknown_opt(s, &mut p, sa)?;
        } else if let Some(n) = parse_padding(rest, sa) {
            p += n;
        } else {
            return None;
        }
        Some(p)
    })
}

/// Parses an option list's text (empty or `.` for none): options
/// separated by `,` or `;`, each read by `one` from the text at an offset
/// into the list (returning the offset after it, None when it reads none);
/// white space also ends the list when `space_ends`.
fn parse_option_list(
    text: &str,
    space_ends: bool,
    mut one: impl FnMut(&[u8], usize, &mut Vec<u8>) -> Option<usize>,
) -> Option<Vec<u8>> {
    if text.is_empty() || text == "." {
        return Some(Vec::new());
    }
    let s = text.as_bytes();
    let mut p = 0;
    let mut sa = Vec::new();
    loop {
        p = one(s, p, &mut sa)?;
        match after_option(s, p, space_ends) {
            After::End => return finish_options(sa),
            After::Next(q) => p = q,
            After::Bad => return None,
        }
    }
}

/// `nop` or `eol` (not followed by a comma) at the start of `rest`, the
/// padding kinds of IP and TCP options alike: appends its byte to `sa`
/// and says how many bytes it read.
fn parse_padding(rest: &[u8], sa: &mut Vec<u8>) -> Option<usize> {
    if rest.starts_with(b"nop") {
        sa.push(IPOPT_NOP);
    } else if rest.starts_with(b"eol") && (rest.len() == 3 || rest[3] != b',') {
        sa.push(IPOPT_EOL);
    } else {
        return None;
    }
    Some(3)
}

/// What follows an option in an option list's text.
enum After {
    /// The end of the list.
    End,
    /// Another option, at this offset.
    Next(usize),
    /// Something that separates no options.
    Bad,
}

/// What follows the option of `s` that ends at `p`: the end of the text
/// (or white space, when `space_ends`), or a `,` or `;` and the next one.
fn after_option(s: &[u8], p: usize, space_ends: bool) -> After {
    match s.get(p) {
        None => After::End,
        Some(c) if space_ends && c.is_ascii_whitespace() => After::End,
        Some(b',' | b';') => After::Next(p + 1),
        Some(_) => After::Bad,
    }
}

/// A parsed option list, within a header's 40 bytes of options: leading
/// NOPs are dropped while it is longer; None when it still is.
fn finish_options(mut sa: Vec<u8>) -> Option<Vec<u8>> {
    while sa.len() > 40 && sa[0] == IPOPT_NOP {
        sa.remove(0);
    }
    (sa.len() <= 40).then_some(sa)
}

pub(crate) fn parse_unknown_opt(s: &[u8], p: &mut usize, sa: &mut Vec<u8>) -> Option<()> {
    let end = s.len();
    let (v, r) = prefix_int(&s[*p..], 0);
    *p = end - r.len();
    let v = v.filter(|&v| v < 256)?;
    sa.push(v as u8);
    if *p + 1 < end && s[*p] == b'=' && s[*p + 1].is_ascii_digit() {
        let pos0 = sa.len();
        sa.push(0);
        loop {
            let (v, r) = prefix_int(&s[*p + 1..], 0);
            *p = end - r.len();
            let v = v.filter(|&v| v < 256)?;
            sa.push(v as u8);
            if !(*p + 1 < end && s[*p] == b':' && s[*p + 1].is_ascii_digit()) {
                break;
            }
        }
        if sa.len() > pos0 + 254 {
            return None;
        }
        sa[pos0] = (sa.len() - pos0 + 1) as u8;
    }
    Some(())
}

/// Parses Click's TCP option text restricted to `mask`.
pub(crate) fn parse_tcp_opt(text: &str, mask: u32) -> Option<Vec<u8>> {
    parse_option_list(text, true, |s, mut p, sa| {
        let end = s.len();
        let rest = &s[p..];
        if rest.len() > 3 && rest.starts_with(b"mss") && mask & TCPOPT_MSS != 0 {
            let (v, r) = prefix_int(&rest[3..], 0);
            p = end - r.len();
            let v = v.filter(|&v| v <= 0xFFFF)?;
            sa.extend_from_slice(&[2, 4, (v >> 8) as u8, v as u8]);
        } else if rest.len() > 6 && rest.starts_with(b"wscale") && mask & TCPOPT_WSCALE != 0 {
            let (v, r) = prefix_int(&rest[6..], 0);
            p = end - r.len();
            let v = v.filter(|&v| v <= 255)?;
            sa.extend_from_slice(&[3, 3, v as u8]);
        } else if rest.starts_with(b"sackok") && mask & TCPOPT_SACK != 0 {
            sa.extend_from_slice(&[4, 2]);
            p += 6;
        } else if rest.len() > 4 && rest.starts_with(b"sack") && mask & TCPOPT_SACK != 0 {
            let sa_pos = sa.len();
            sa.extend_from_slice(&[5, 0]);
            p += 4;
            loop {
                let start = p;
                let (a, r) = prefix_int(&s[p..], 0);
                let t = end - r.len();
                if t >= end || (s[t] != b':' && s[t] != b'-') {
                    return None;
                }
                let (b, r2) = prefix_int(&s[t + 1..], 0);
                let t2 = end - r2.len();
                tcp_option::push_sack_block(sa, a.unwrap_or(0), b.unwrap_or(0));
                if t2 < start + 3 {
                    return None;
                }
                p = t2;
                if p + 5 >= end || &s[p..p + 5] != b",sack" {
                    break;
                }
                p += 5;
            }
            sa[sa_pos + 1] = (sa.len() - sa_pos) as u8;
        } else if rest.len() > 2 && rest.starts_with(b"ts") && mask & TCPOPT_TIMESTAMP != 0 {
            let start = p;
            let (a, r) = prefix_int(&rest[2..], 0);
            let t = end - r.len();
            if t >= end || s[t] != b':' {
                return None;
            }
            let (b, r2) = prefix_int(&s[t + 1..], 0);
            let t2 = end - r2.len();
            if sa.is_empty() {
                sa.extend_from_slice(&[1, 1]);
            }
            tcp_option::push_timestamps(sa, a.unwrap_or(0), b.unwrap_or(0));
            if t2 < start + 5 {
                return None;
            }
            p = t2;
        } else if !rest.is_empty() && rest[0].is_ascii_digit() && mask & TCPOPT_UNKNOWN != 0 {
            parse_unknown_opt(s, &mut p, sa)?;
        } else if let Some(n) = (mask & TCPOPT_PADDING != 0)
            .then(|| parse_padding(rest, sa))
            .flatten()
        {
            p += n;
        } else {
            return None;
        }
        Some(p)
    })
}

pub(crate) fn write_quad(out: &mut String, o: &[u8]) {
    let _ = write!(out, "{}.{}.{}.{}", o[0], o[1], o[2], o[3]);
}

/// Replaces what an unparse wrote from `start` on with `?`: the options
/// are malformed.
fn write_bad(out: &mut String, start: usize) {
    out.truncate(start);
    out.push('?');
}

/// Prints an option of a kind Click's text has no name for (IP's or
/// TCP's): after `sep`, its kind, then `=` and its data bytes, `:` between.
fn write_unknown(out: &mut String, sep: &str, kind: u8, data: &[u8]) {
    let _ = write!(out, "{sep}{kind}");
    let mut c = '=';
    for &b in data {
        let _ = write!(out, "{c}{b}");
        c = ':';
    }
}

/// Prints IP options in Click's text form, without padding.
pub fn unparse_ip_opt(out: &mut String, opts: &[u8]) {
    let start_len = out.len();
    let end = opts.len();
    let mut i = 0usize;
    let mut sep = "";
    let bad = |out: &mut String| write_bad(out, start_len);
    while i < end {
        let kind = opts[i];
        match kind {
            IPOPT_EOL => break,
            IPOPT_NOP => i += 1,
            IPOPT_RR | IPOPT_LSRR | IPOPT_SSRR => {
                if i + 2 >= end
                    || i + usize::from(opts[i + 1]) > end
                    || opts[i + 1] < 3
                    || opts[i + 2] < 4
                {
                    return bad(out);
                }
                out.push_str(sep);
                out.push_str(match kind {
                    IPOPT_RR => "rr",
                    IPOPT_LSRR => "lsrr",
                    _ => "ssrr",
                });
                let ol = i + usize::from(opts[i + 1]);
                let op = i + usize::from(opts[i + 2]) - 1;
                let mut o = i + 3;
                let mut s2 = "";
                out.push('{');
                while o + 4 <= ol {
                    if o == op {
                        if kind == IPOPT_RR {
                            break;
                        }
                        s2 = "^";
                    }
                    out.push_str(s2);
                    write_quad(out, &opts[o..o + 4]);
                    s2 = ",";
                    o += 4;
                }
                if o == ol && o == op && kind != IPOPT_RR {
                    out.push('^');
                }
                out.push('}');
                if o + 4 <= ol && o == op && kind == IPOPT_RR {
                    let _ = write!(out, "+{}", (ol - o) / 4);
                }
                i = ol;
                sep = ";";
            }
            IPOPT_TS => {
                if i + 3 >= end
                    || i + usize::from(opts[i + 1]) > end
                    || opts[i + 1] < 4
                    || opts[i + 2] < 5
                {
                    return bad(out);
                }
                let ol = i + usize::from(opts[i + 1]);
                let op = i + usize::from(opts[i + 2]) - 1;
                let flag = opts[i + 3] & 0xF;
                let size = if (1..=3).contains(&flag) { 8 } else { 4 };
                out.push_str(sep);
                out.push_str("ts");
                match flag {
                    0 => {}
                    1 => out.push_str(".ip"),
                    3 => out.push_str(".preip"),
                    f => {
                        let _ = write!(out, ".{f}");
                    }
                }
                out.push('{');
                let mut s2 = "";
                let mut o = i + 4;
                while o + size <= ol {
                    if o == op {
                        if flag != 3 {
                            break;
                        }
                        s2 = "^";
                    }
                    if flag != 0 {
                        // Undefined flags (2, 4-15) step by 4 bytes but
                        // still print an address and a stamp: an entry cut
                        // short by the option's end stops the list (Click
                        // reads on past the option).
                        if o + 8 > ol {
                            break;
                        }
                        out.push_str(s2);
                        write_quad(out, &opts[o..o + 4]);
                        out.push('=');
                        o += 4;
                    } else {
                        out.push_str(s2);
                    }
                    if flag == 3 && o > op {
                        out.pop();
                    } else {
                        let v = read_timestamp(&opts[i..ol], o - i);
                        if v & 0x8000_0000 != 0 {
                            out.push('!');
                        }
                        let _ = write!(out, "{}", v & 0x7FFF_FFFF);
                    }
                    s2 = ",";
                    o += 4;
                }
                if o == ol && o == op {
                    out.push('^');
                }
                out.push('}');
                if o + size <= ol && o == op {
                    let _ = write!(out, "+{}", (ol - o) / size);
                }
                if opts[i + 3] & 0xF0 != 0 {
                    let _ = write!(out, "++{}", opts[i + 3] >> 4);
                }
                i = ol;
                sep = ";";
            }
            _ => {
                if i + 1 >= end || i + usize::from(opts[i + 1]) > end || opts[i + 1] < 2 {
                    return bad(out);
                }
                let e = i + usize::from(opts[i + 1]);
                write_unknown(out, sep, kind, &opts[i + 2..e]);
                i = e;
                sep = ";";
            }
        }
    }
    if out.len() == start_len {
        out.push('.');
    }
}

/// Subtracts `base` from every SACK block edge in TCP options `o`.
pub(crate) fn relative_sack(o: &mut [u8], base: u32) {
    let mut i = 0;
    while i < o.len() {
        match o[i] {
            0 => break,
            1 => i += 1,
            kind => {
                let len = usize::from(*o.get(i + 1).unwrap_or(&0));
                if len < 2 || i + len > o.len() {
                    break;
                }
                if kind == tcp_option::SACK {
                    tcp_option::map_sack_edges(&mut o[i..i + len], |e| e.wrapping_sub(base));
                }
                i += len;
            }
        }
    }
}

/// Prints TCP options in Click's text form, keeping the kinds in `mask`.
pub(crate) fn unparse_tcp_opt(out: &mut String, opts: &[u8], mask: u32) {
    let start_len = out.len();
    let end = opts.len();
    let mut i = 0usize;
    let mut sep = "";
    let bad = |out: &mut String| write_bad(out, start_len);
    while i < end {
        let kind = opts[i];
        if kind == 0 {
            if mask & TCPOPT_PADDING != 0 {
                out.push_str(sep);
                out.push_str("eol");
            }
            break;
        }
        if kind == 1 {
            if mask & TCPOPT_PADDING != 0 {
                out.push_str(sep);
                out.push_str("nop");
                sep = ";";
            }
            i += 1;
            continue;
        }
        if i + 1 >= end {
            return bad(out);
        }
        let olen = usize::from(opts[i + 1]);
        let (valid, bit) = match kind {
            2 => (olen == 4, TCPOPT_MSS),
            3 => (olen == 3, TCPOPT_WSCALE),
            4 => (olen == 2, TCPOPT_SACK),
            5 => (olen % 8 == 2, TCPOPT_SACK),
            8 => (olen == 10, TCPOPT_TIMESTAMP),
            _ => (olen >= 2, TCPOPT_UNKNOWN),
        };
        if i + olen > end || !valid {
            return bad(out);
        }
        if mask & bit == 0 {
            i += if olen >= 2 { olen } else { 128 };
            continue;
        }
        let o = &opts[i..i + olen];
        match kind {
            2 => {
                let _ = write!(out, "{sep}mss{}", tcp_option::mss(o));
            }
            3 => {
                let _ = write!(out, "{sep}wscale{}", o[2]);
            }
            4 => {
                let _ = write!(out, "{sep}sackok");
            }
            5 => {
                for (a, b) in tcp_option::sack_blocks(o) {
                    let _ = write!(out, "{sep}sack{a}-{b}");
                    sep = ";";
                }
            }
            8 => {
                let (a, b) = tcp_option::timestamps(o);
                let _ = write!(out, "{sep}ts{a}:{b}");
            }
            _ => write_unknown(out, sep, kind, &o[2..]),
        }
        sep = ";";
        i += olen;
    }
    if out.len() == start_len {
        out.push('.');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_opt_round_trip() {
        let cases = [
            (
                "ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}",
                "ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}",
            ),
            (
                "ssrr{128.4.45.60,128.4.49.61,^1.1.1.1,2.2.2.2}",
                "ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}",
            ),
            ("rr{2.3.4.5}+3", "rr{2.3.4.5}+3"),
            ("rr{}+1", "rr{}+1"),
            (
                "ts{1.0.0.1=!8320,1.0.0.2=8321}++5",
                "ts.ip{1.0.0.1=!8320,1.0.0.2=8321^}++5",
            ),
            (
                "ts.3{1.0.0.1=1,^1.0.0.3,1.0.0.4=?}+1",
                "ts.preip{1.0.0.1=1^1.0.0.3,1.0.0.4,0.0.0.0}",
            ),
            ("ts{1,10000,!45}+2", "ts{1,10000,!45}+2"),
            ("ts{1,10000,!45^0,0};rr{}+1", "ts{1,10000,!45}+2;rr{}+1"),
            ("nop;nop;eol", "."),
        ];
        for (input, want) in cases {
            let b = parse_ip_opt(input).unwrap_or_else(|| panic!("parse {input}"));
            let mut s = String::new();
            unparse_ip_opt(&mut s, &b);
            assert_eq!(s, want, "{input}");
        }
    }

    #[test]
    fn tcp_opt_round_trip() {
        let b = parse_tcp_opt("mss1460,sackok,wscale10,ts1:2,sack1-2", TCPOPT_ALL).unwrap();
        let mut s = String::new();
        unparse_tcp_opt(&mut s, &b, TCPOPT_ALL_NOPAD);
        assert_eq!(s, "mss1460;sackok;wscale10;ts1:2;sack1-2");
    }

    /// The list's ends and separators, padding, and the 40-byte limit
    /// (leading NOPs give way; a list still longer is refused).
    #[test]
    fn list_ends_padding_and_limit() {
        assert_eq!(parse_ip_opt("nop,eol"), Some(vec![1, 0]));
        assert_eq!(parse_ip_opt("nop eol"), None);
        assert_eq!(
            parse_tcp_opt("nop;mss1 trailing", TCPOPT_ALL),
            Some(vec![1, 2, 4, 0, 1])
        );
        assert_eq!(parse_tcp_opt("nop", TCPOPT_MSS), None);
        assert_eq!(parse_tcp_opt("eol,nop", TCPOPT_ALL), None);
        let nops = vec!["nop"; 41].join(",");
        assert_eq!(parse_ip_opt(&nops), Some(vec![1; 40]));
        let long = format!("{nops},7=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22:23:24:25:26:27:28:29:30:31:32:33:34:35:36:37:38:39");
        assert_eq!(parse_ip_opt(&long), None);
    }

    /// Kinds without a name print as their number and data bytes, in IP
    /// and TCP options alike; a malformed list prints as `?`.
    #[test]
    fn unknown_kinds_and_malformed_lists() {
        let mut s = String::new();
        unparse_ip_opt(&mut s, &parse_ip_opt("99=1:2").unwrap());
        s.push(' ');
        unparse_tcp_opt(
            &mut s,
            &parse_tcp_opt("99=1:2", TCPOPT_ALL).unwrap(),
            TCPOPT_ALL,
        );
        s.push(' ');
        unparse_ip_opt(&mut s, &[99, 9]);
        s.push(' ');
        unparse_tcp_opt(&mut s, &[2, 4, 1], TCPOPT_ALL);
        assert_eq!(s, "99=1:2 99=1:2 ? ?");
    }

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn timestamp_option_with_undefined_flag() {
        // flag 15, one 4-byte entry: the address fits, its stamp does not
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("4408090f01020304"));
        assert_eq!(s, "ts.15{}");
        // room for address and stamp: printed as Click does
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("440c090f0102030405060708"));
        assert_eq!(s, "ts.15{1.2.3.4=84281096}");
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("440c050f0102030405060708"));
        assert_eq!(s, "ts.15{}+2");
        let mut s = String::new();
        unparse_ip_opt(&mut s, &hex("440c0d0f0102030405060708"));
        assert_eq!(s, "ts.15{1.2.3.4=84281096^}");
    }
}
