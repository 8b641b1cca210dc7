//! Small parsers and printers of the dump's text: numbers as Click's
//! `IntArg`, timestamps, quoted bytes.

use std::fmt::Write as _;

use rclick_packet::Timestamp;

pub fn parse_u32(s: &str) -> Option<u32> {
    parse_u64(s).and_then(|v| u32::try_from(v).ok())
}

/// Click's `IntArg` for unsigned 64-bit values (decimal, `0x`, leading-0 octal).
pub fn parse_u64(s: &str) -> Option<u64> {
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() {
        return None;
    }
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(&digits, radix).ok()
}

/// Click's `cp_integer` prefix parse: reads digits at the start of `s` in
/// `base` (0 means detect); returns the value (saturated) and the rest.
pub(crate) fn prefix_int(s: &[u8], base: u32) -> (Option<u32>, &[u8]) {
    let (mut p, radix) = if base == 0 {
        if s.len() > 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') && s[2].is_ascii_hexdigit()
        {
            (2, 16)
        } else if s.len() > 1 && s[0] == b'0' && s[1].is_ascii_digit() {
            (1, 8)
        } else {
            (0, 10)
        }
    } else {
        (0, base)
    };
    let start = p;
    let mut v: u64 = 0;
    while p < s.len() {
        match (s[p] as char).to_digit(radix) {
            Some(d) => {
                v = (v * radix as u64 + d as u64).min(u64::from(u32::MAX) + 1);
                p += 1;
            }
            None => break,
        }
    }
    if p == start {
        if start > 0 {
            // "0" followed by something: the zero itself
            return (Some(0), &s[1..]);
        }
        return (None, s);
    }
    (Some(v.min(u64::from(u32::MAX)) as u32), &s[p..])
}

/// Parses a Click time value (`SEC[.FRAC]`, possibly negative).
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    s.parse::<Timestamp>().ok()
}

/// Prints a timestamp as Click does: six fraction digits, nine when the
/// value has sub-microsecond precision.
pub fn write_timestamp(out: &mut String, t: Timestamp) {
    if !t.subsec_nsec().is_multiple_of(1000) {
        let _ = write!(out, "{}", t.display_nsec());
    } else {
        let _ = write!(out, "{t}");
    }
}

/// Click's `cp_quote` over bytes.
pub fn quote_bytes(out: &mut String, s: &[u8]) {
    out.push('"');
    for &c in s {
        match c {
            b'\\' | b'"' | b'$' => {
                out.push('\\');
                out.push(c as char);
            }
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b'\n' => out.push_str("\\n"),
            c if !(32..127).contains(&c) => {
                let _ = write!(out, "\\{:03o}", c);
            }
            c => out.push(c as char),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_click_reads_them() {
        assert_eq!(parse_u32("17"), Some(17));
        assert_eq!(parse_u32("+17"), Some(17));
        assert_eq!(parse_u32("0x11"), Some(17));
        assert_eq!(parse_u32("021"), Some(17));
        assert_eq!(parse_u32("1_000"), Some(1000));
        assert_eq!(parse_u32("4294967296"), None);
        assert_eq!(parse_u64("4294967296"), Some(1 << 32));
        assert_eq!(parse_u32(""), None);
        assert_eq!(parse_u32("0x"), None);
        assert_eq!(parse_u32("-1"), None);
        assert_eq!(prefix_int(b"12ab", 0), (Some(12), &b"ab"[..]));
        assert_eq!(prefix_int(b"0x1fz", 0), (Some(31), &b"z"[..]));
        assert_eq!(prefix_int(b"0z", 0), (Some(0), &b"z"[..]));
        assert_eq!(prefix_int(b"z", 0), (None, &b"z"[..]));
        assert_eq!(prefix_int(b"99999999999", 10).0, Some(u32::MAX));
    }

    #[test]
    fn timestamps_print_micro_or_nanoseconds() {
        let t = parse_timestamp("1.5").unwrap();
        let mut s = String::new();
        write_timestamp(&mut s, t);
        assert_eq!(s, "1.500000");
        let t = parse_timestamp("1.000000001").unwrap();
        let mut s = String::new();
        write_timestamp(&mut s, t);
        assert_eq!(s, "1.000000001");
        assert!(parse_timestamp("x").is_none());
    }

    #[test]
    fn bytes_are_quoted_as_click_quotes_them() {
        let mut s = String::new();
        quote_bytes(&mut s, b"a\"b\\c$\t\r\n\x01\xff");
        assert_eq!(s, r#""a\"b\\c\$\t\r\n\001\377""#);
    }
}
