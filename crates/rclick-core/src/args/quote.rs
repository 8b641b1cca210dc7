//! Click quoting, as the string parsers need it.
//!
//! Unquoting is `rclick_lang::confparse`'s; this module adds only the
//! `cp_string` scan that finds where a possibly-quoted word ends, which
//! `confparse` does not export.

pub(crate) use rclick_lang::confparse::{is_word, unquote_bytes};

/// Index just past a `/* */` or `//` comment starting at `i`.
fn skip_comment(b: &[u8], i: usize) -> usize {
    if b[i + 1] == b'/' {
        let mut j = i + 2;
        while j < b.len() && b[j] != b'\n' && b[j] != b'\r' {
            j += 1;
        }
        if j + 1 < b.len() && b[j] == b'\r' && b[j + 1] == b'\n' {
            j += 1;
        }
        (j + 1).min(b.len())
    } else {
        let mut j = i + 2;
        while j + 1 < b.len() && !(b[j] == b'*' && b[j + 1] == b'/') {
            j += 1;
        }
        (j + 2).min(b.len())
    }
}

fn is_comment_start(b: &[u8], i: usize) -> bool {
    b[i] == b'/' && i + 1 < b.len() && (b[i + 1] == b'/' || b[i + 1] == b'*')
}

/// Index just past a backslash escape starting at `i` (for scanning only).
fn skip_backslash(b: &[u8], i: usize) -> usize {
    if i + 1 >= b.len() {
        i + 1
    } else if b[i + 1] == b'<' {
        let mut j = i + 2;
        while j < b.len() {
            if b[j] == b'>' {
                return j + 1;
            } else if is_comment_start(b, j) {
                j = skip_comment(b, j);
            } else {
                j += 1;
            }
        }
        j
    } else if b[i + 1] == b'\r' && i + 2 < b.len() && b[i + 2] == b'\n' {
        i + 3
    } else {
        i + 2
    }
}

fn skip_double_quote(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i = skip_backslash(b, i),
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

fn skip_single_quote(b: &[u8], i: usize) -> usize {
    match b[i + 1..].iter().position(|&c| c == b'\'') {
        Some(p) => i + 1 + p + 1,
        None => b.len(),
    }
}

/// Length of the first word of `s` in Click's `cp_string` sense: it ends at
/// the first unquoted space; quoted spaces and spaces inside `\<...>` do not
/// end it.
pub(crate) fn first_word_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => return i,
            b'"' => i = skip_double_quote(b, i),
            b'\'' => i = skip_single_quote(b, i),
            b'\\' if i + 1 < b.len() && b[i + 1] == b'<' => i = skip_backslash(b, i),
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// The shared `unquote_bytes` behaves as these parsers rely on.
    fn shared_unquote_contract() {
        assert_eq!(unquote_bytes("abc"), b"abc");
        assert_eq!(unquote_bytes("\"a b\""), b"a b");
        assert_eq!(unquote_bytes("'a\\nb'"), b"a\\nb");
        assert_eq!(unquote_bytes("\"a\\nb\""), b"a\nb");
        assert_eq!(unquote_bytes("a\\nb"), b"a\\nb");
        assert_eq!(unquote_bytes("\\<48 65 6c6C 6f>"), b"Hello");
        assert_eq!(unquote_bytes("\"\\<00 ff>\""), [0u8, 0xff]);
        assert_eq!(unquote_bytes("\\<00 /* c */ 01>"), [0u8, 1]);
        assert_eq!(unquote_bytes("\"\\x41\\101\\t\\\"\\\\\""), b"AA\t\"\\");
        assert_eq!(
            unquote_bytes("\"\\a\\b\\f\\r\\v\\$\""),
            b"\x07\x08\x0c\r\x0b$"
        );
        assert_eq!(unquote_bytes("\"a\\\nb\""), b"ab");
        assert_eq!(unquote_bytes("\"a\\\r\nb\\\rc\""), b"abc");
        assert_eq!(unquote_bytes("\"end\\"), b"end\\");
        assert_eq!(unquote_bytes("\"it's\""), b"it's");
        assert_eq!(unquote_bytes("a /* x */ b"), b"a b");
        assert_eq!(unquote_bytes("a // x\n"), b"a");
        assert_eq!(unquote_bytes("'/* kept */'"), b"/* kept */");
        assert_eq!(unquote_bytes("\"unterminated"), b"unterminated");
        assert_eq!(unquote_bytes(""), b"");
    }

    #[test]
    fn first_word() {
        assert_eq!(first_word_len("abc def"), 3);
        assert_eq!(first_word_len("\"a b\" c"), 5);
        assert_eq!(first_word_len("'a b'"), 5);
        assert_eq!(first_word_len("\\<00 01> x"), 8);
        assert_eq!(first_word_len("\"a\\\" b\""), 7);
        assert_eq!(first_word_len(""), 0);
        assert_eq!(first_word_len(" x"), 0);
    }
}
