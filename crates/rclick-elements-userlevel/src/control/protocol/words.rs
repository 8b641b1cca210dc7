//! The protocol's text helpers: splitting a command line into words,
//! the numbers it carries, handler names, Click's `printable`, and error
//! texts.

/// Click's `String::printable`: control characters as `^X`, bytes above
/// 126 as `M-` and their 7-bit form.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        let mut c = b;
        if c >= 128 {
            out.push_str("M-");
            c -= 128;
        }
        if c < 32 {
            out.push('^');
            out.push((c + 64) as char);
        } else if c == 127 {
            out.push_str("^?");
        } else {
            out.push(c as char);
        }
    }
    out
}

/// Drops a leading `.` or `0.` from a handler name (the root element).
pub(super) fn canonical(name: &str) -> &str {
    match name.find('.') {
        Some(0) => &name[1..],
        Some(1) if name.starts_with('0') => &name[2..],
        _ => name,
    }
}

pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The words of `line` with their byte ranges.
pub(super) fn words(line: &[u8]) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && is_space(line[i]) {
            i += 1;
        }
        let start = i;
        while i < line.len() && !is_space(line[i]) {
            i += 1;
        }
        if start < i {
            v.push((start, i));
        }
    }
    v
}

pub(super) fn parse_len(w: &[u8]) -> Option<usize> {
    let s = std::str::from_utf8(w).ok()?;
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

pub(super) fn parse_hex(s: &str) -> Option<u32> {
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if s.is_empty() {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// Whether `a` and `b` are equal, in a time that depends on their
/// lengths only (not on where they first differ).
pub(super) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The C library's text for an errno value.
pub fn strerror(errno: i32) -> String {
    let s = std::io::Error::from_raw_os_error(errno).to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes() {
        assert_eq!(printable("a\tb\x7f"), "a^Ib^?");
        assert_eq!(canonical(".version"), "version");
        assert_eq!(canonical("0.version"), "version");
        assert_eq!(canonical("10.x"), "10.x");
    }

    #[test]
    fn words_numbers_and_secrets() {
        let line = b"  READ\tc.count  x\r\n";
        let w: Vec<&[u8]> = words(line).iter().map(|&(a, b)| &line[a..b]).collect();
        assert_eq!(w, [&b"READ"[..], b"c.count", b"x"]);
        assert!(words(b" \t ").is_empty());
        assert_eq!(parse_len(b"+12"), Some(12));
        assert_eq!(parse_len(b"-1"), None);
        assert_eq!(parse_len(b""), None);
        assert_eq!(parse_hex("0x4004C005"), Some(0x4004_c005));
        assert_eq!(parse_hex("ff"), Some(0xff));
        assert_eq!(parse_hex("0x"), None);
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert_eq!(strerror(22), "Invalid argument");
    }
}
