//! Configuration-string helpers, the equivalents of Click's `cp_*` string
//! functions (`cp_argvec`, `cp_spacevec`, `cp_unquote`, `cp_quote`,
//! `cp_uncomment`, `cp_is_word`).
//!
//! All functions work on bytes internally and never panic, whatever the
//! input; non-UTF-8 results are converted lossily.

/// Click's notion of white space (C `isspace` in the "C" locale).
pub(crate) fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// True if `b[s..]` starts a `//` or `/*` comment.
pub(crate) fn comment_at(b: &[u8], s: usize) -> bool {
    s + 1 < b.len() && b[s] == b'/' && (b[s + 1] == b'/' || b[s + 1] == b'*')
}

/// Skips the comment starting at `s` (which must satisfy [`comment_at`]);
/// returns the index just after it. A `//` comment includes its newline.
pub(crate) fn skip_comment(b: &[u8], s: usize) -> usize {
    let end = b.len();
    let mut s = s + 2;
    if b[s - 1] == b'/' {
        while s < end && b[s] != b'\n' && b[s] != b'\r' {
            s += 1;
        }
        if s + 1 < end && b[s] == b'\r' && b[s + 1] == b'\n' {
            s += 1;
        }
        (s + 1).min(end)
    } else {
        while s + 1 < end && !(b[s] == b'*' && b[s + 1] == b'/') {
            s += 1;
        }
        (s + 2).min(end)
    }
}

/// Skips white space and comments from `s` (Click's
/// `cp_skip_comment_space`).
pub fn skip_comment_space(b: &[u8], mut s: usize) -> usize {
    while s < b.len() {
        if is_space(b[s]) {
            s += 1;
        } else if comment_at(b, s) {
            s = skip_comment(b, s);
        } else {
            break;
        }
    }
    s
}

/// Skips plain white space from `s`.
pub(crate) fn skip_space(b: &[u8], mut s: usize) -> usize {
    while s < b.len() && is_space(b[s]) {
        s += 1;
    }
    s
}

/// Skips a backslash escape starting at `s` (`b[s] == '\\'`).
fn skip_backslash(b: &[u8], s: usize) -> usize {
    let end = b.len();
    if s + 1 >= end {
        return end;
    }
    if b[s + 1] == b'<' {
        let mut p = s + 2;
        while p < end {
            if b[p] == b'>' {
                return p + 1;
            } else if comment_at(b, p) {
                p = skip_comment(b, p);
            } else {
                p += 1;
            }
        }
        end
    } else if b[s + 1] == b'\r' && s + 2 < end && b[s + 2] == b'\n' {
        s + 3
    } else {
        s + 2
    }
}

/// Skips a double-quoted string starting at `s` (`b[s] == '"'`).
pub(crate) fn skip_double_quote(b: &[u8], s: usize) -> usize {
    let mut p = s + 1;
    while p < b.len() {
        match b[p] {
            b'\\' => p = skip_backslash(b, p),
            b'"' => return p + 1,
            _ => p += 1,
        }
    }
    b.len()
}

/// Skips a single-quoted string starting at `s` (`b[s] == '\''`).
pub(crate) fn skip_single_quote(b: &[u8], s: usize) -> usize {
    match b[s + 1..].iter().position(|&c| c == b'\'') {
        Some(i) => s + 1 + i + 1,
        None => b.len(),
    }
}

fn lossy(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

/// Removes comments and leading/trailing space from `b[start..]`; a comment
/// (with the space around it) becomes one space. If `split` is true, stops
/// at the first top-level comma (outside quotes and brackets). Returns the
/// text and the index where scanning stopped.
fn partial_uncomment(b: &[u8], start: usize, split: bool) -> (Vec<u8>, usize) {
    let end = b.len();
    let mut s = skip_comment_space(b, start);
    let mut out = Vec::new();
    let (mut left, mut right) = (s, s);
    let mut closed = false;
    let mut depth = 0usize;
    while s < end {
        let c = b[s];
        if is_space(c) {
            s += 1;
        } else if comment_at(b, s) {
            s = skip_comment(b, s);
            closed = true;
        } else if c == b',' && split && depth == 0 {
            break;
        } else {
            if closed {
                out.extend_from_slice(&b[left..right]);
                out.push(b' ');
                left = s;
                closed = false;
            }
            s = match c {
                b'\'' => skip_single_quote(b, s),
                b'"' => skip_double_quote(b, s),
                b'\\' if s + 1 < end && b[s + 1] == b'<' => skip_backslash(b, s),
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    s + 1
                }
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    s + 1
                }
                _ => s + 1,
            };
            right = s;
        }
    }
    out.extend_from_slice(&b[left..right]);
    (out, s)
}

/// Click's `cp_uncomment`: strips comments and leading/trailing white space;
/// a comment and the space around it become a single space. Quoted text is
/// kept as is.
pub fn uncomment(s: &str) -> String {
    lossy(&partial_uncomment(s.as_bytes(), 0, false).0)
}

/// Click's `cp_argvec`: splits a configuration string into arguments at
/// top-level commas (commas inside quotes, `\<...>`, comments, parentheses,
/// brackets or braces do not split). Each argument is uncommented and
/// trimmed. An empty final argument is dropped, so `""` gives no arguments
/// and `"a, "` gives `["a"]`.
pub fn split_args(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut pos = 0;
    while pos < b.len() {
        let (arg, p) = partial_uncomment(b, pos, true);
        if !arg.is_empty() || p < b.len() {
            v.push(lossy(&arg));
        }
        pos = p + 1;
    }
    v
}

/// Index just after the space-separated item starting at `s`.
fn skip_spacevec_item(b: &[u8], mut s: usize) -> usize {
    while s < b.len() {
        match b[s] {
            b'/' if comment_at(b, s) => return s,
            b'"' => s = skip_double_quote(b, s),
            b'\'' => s = skip_single_quote(b, s),
            b'\\' if s + 1 < b.len() && b[s + 1] == b'<' => s = skip_backslash(b, s),
            c if is_space(c) => return s,
            _ => s += 1,
        }
    }
    s
}

/// Click's `cp_spacevec`: splits at unquoted white space (and comments).
pub fn split_space(s: &str) -> Vec<String> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut p = skip_comment_space(b, 0);
    while p < b.len() {
        let t = skip_spacevec_item(b, p);
        v.push(lossy(&b[p..t]));
        p = skip_comment_space(b, t);
    }
    v
}

/// Click's `cp_shift_spacevec`: returns the first space-separated item of
/// `b` and the rest (with leading space and comments removed).
pub(crate) fn shift_spacevec(b: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let item = skip_comment_space(b, 0);
    let item_end = skip_spacevec_item(b, item);
    let rest = skip_comment_space(b, item_end);
    (b[item..item_end].to_vec(), b[rest..].to_vec())
}

/// Click's `cp_shift_spacevec` on text: the first space-separated item of
/// `s` (quotes keep spaces inside it) and the rest, with leading space and
/// comments removed; both slices of `s`.
pub fn shift_space(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    let item = skip_comment_space(b, 0);
    let item_end = skip_spacevec_item(b, item);
    let rest = skip_comment_space(b, item_end);
    // The boundaries are at ASCII bytes or the ends, except inside an
    // unterminated escape; never split a character.
    let sub = |a: usize, e: usize| s.get(a.min(e)..e).unwrap_or("");
    (sub(item, item_end), sub(rest, s.len()))
}

/// Whether `s` holds nothing but white space and comments.
pub fn is_blank(s: &str) -> bool {
    skip_comment_space(s.as_bytes(), 0) >= s.len()
}

fn hex_val(c: u8) -> Option<u32> {
    (c as char).to_digit(16)
}

/// Processes the backslash escape at `b[s]`, appending to `out`; returns the
/// index after the escape.
fn process_backslash(b: &[u8], s: usize, out: &mut Vec<u8>) -> usize {
    let end = b.len();
    if s + 1 >= end {
        out.push(b'\\');
        return end;
    }
    let c = b[s + 1];
    match c {
        b'\r' => {
            if s + 2 < end && b[s + 2] == b'\n' {
                s + 3
            } else {
                s + 2
            }
        }
        b'\n' => s + 2,
        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' => {
            out.push(match c {
                b'a' => 7,
                b'b' => 8,
                b'f' => 12,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                _ => 11,
            });
            s + 2
        }
        b'0'..=b'7' => {
            let mut p = s + 1;
            let mut v: u32 = 0;
            let mut d = 0;
            while p < end && (b'0'..=b'7').contains(&b[p]) && d < 3 {
                v = v * 8 + u32::from(b[p] - b'0');
                p += 1;
                d += 1;
            }
            out.push(v as u8);
            p
        }
        b'x' => {
            let mut p = s + 2;
            let mut v: u32 = 0;
            while p < end {
                match hex_val(b[p]) {
                    Some(h) => v = v.wrapping_mul(16).wrapping_add(h),
                    None => break,
                }
                p += 1;
            }
            out.push(v as u8);
            p
        }
        b'<' => {
            let mut p = s + 2;
            let (mut v, mut d) = (0u32, 0);
            while p < end {
                if b[p] == b'>' {
                    return p + 1;
                } else if let Some(h) = hex_val(b[p]) {
                    v = v * 16 + h;
                    d += 1;
                    if d == 2 {
                        out.push(v as u8);
                        v = 0;
                        d = 0;
                    }
                    p += 1;
                } else if comment_at(b, p) {
                    p = skip_comment(b, p);
                } else {
                    p += 1;
                }
            }
            end
        }
        _ => {
            out.push(c);
            s + 2
        }
    }
}

/// Click's `cp_unquote`, returning raw bytes: uncomments, then removes one
/// level of `"..."` / `'...'` quoting, expanding backslash escapes inside
/// double quotes and `\<hex>` sequences outside quotes.
pub fn unquote_bytes(s: &str) -> Vec<u8> {
    let x = partial_uncomment(s.as_bytes(), 0, false).0;
    let end = x.len();
    let mut out = Vec::new();
    let mut start = 0;
    let mut quote = 0u8;
    let mut p = 0;
    while p < end {
        match x[p] {
            c @ (b'"' | b'\'') => {
                if quote == 0 {
                    out.extend_from_slice(&x[start..p]);
                    start = p + 1;
                    quote = c;
                } else if quote == c {
                    out.extend_from_slice(&x[start..p]);
                    start = p + 1;
                    quote = 0;
                }
                p += 1;
            }
            b'\\' if p + 1 < end && (quote == b'"' || (quote == 0 && x[p + 1] == b'<')) => {
                out.extend_from_slice(&x[start..p]);
                start = process_backslash(&x, p, &mut out);
                p = start;
            }
            _ => p += 1,
        }
    }
    out.extend_from_slice(&x[start.min(end)..]);
    out
}

/// Click's `cp_unquote` as a string (invalid UTF-8 is replaced).
pub fn unquote(s: &str) -> String {
    lossy(&unquote_bytes(s))
}

/// Click's `cp_quote`: returns a double-quoted string such that
/// `unquote(&quote(s)) == s`. The result is never empty.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' | '"' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 32 || c as u32 == 127 => {
                out.push_str(&format!("\\{:03o}", c as u32));
            }
            c if (c as u32) > 127 => {
                let mut buf = [0u8; 4];
                for &byte in c.encode_utf8(&mut buf).as_bytes() {
                    out.push_str(&format!("\\{:03o}", byte));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Click's `cp_is_word`: nonempty, only printable ASCII, and no quote,
/// backslash or comma characters.
pub fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c > 32 && c < 127 && !matches!(c, b'"' | b'\'' | b'\\' | b','))
}

/// Click's `cp_keyword` with a rest: a leading keyword made of
/// `[A-Za-z0-9_.:?!]`, ended by white space. Returns the keyword and the
/// rest after the white space.
pub(crate) fn keyword(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    let mut p = 0;
    while p < b.len() {
        let c = b[p];
        if is_space(c) {
            break;
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'?' | b'!')) {
            return None;
        }
        p += 1;
    }
    if p == 0 {
        return None;
    }
    let rest = skip_space(b, p);
    Some((&s[..p], &s[rest..]))
}

/// Click's `cp_string`: one (possibly quoted) string without unquoted
/// spaces, unquoted.
pub(crate) fn parse_string(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut p = 0;
    while p < b.len() {
        match b[p] {
            c if is_space(c) => break,
            b'"' => p = skip_double_quote(b, p),
            b'\'' => p = skip_single_quote(b, p),
            b'\\' if p + 1 < b.len() && b[p + 1] == b'<' => p = skip_backslash(b, p),
            _ => p += 1,
        }
    }
    if p == 0 || p != b.len() {
        None
    } else {
        Some(unquote(s))
    }
}

/// Click's `cp_word`: a string that unquotes to a word.
pub(crate) fn parse_word(s: &str) -> Option<String> {
    parse_string(s).filter(|w| is_word(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_space_takes_one_item() {
        assert_eq!(
            shift_space("  a \"b c\" // x\n d"),
            ("a", "\"b c\" // x\n d")
        );
        assert_eq!(shift_space("\"b c\" d"), ("\"b c\"", "d"));
        assert_eq!(
            shift_space("\\<0a /* > */ 0b> rest"),
            ("\\<0a /* > */ 0b>", "rest")
        );
        assert_eq!(shift_space(" /* only */ "), ("", ""));
        assert!(is_blank(" // x\n /* y */ "));
        assert!(!is_blank(" x "));
    }

    #[test]
    fn argvec_basic() {
        assert_eq!(split_args(""), Vec::<String>::new());
        assert_eq!(split_args("a, b, c"), vec!["a", "b", "c"]);
        assert_eq!(split_args("  a /*?*/ b,  c, "), vec!["a b", "c"]);
        assert_eq!(split_args("\"x, y\" // ?"), vec!["\"x, y\""]);
        assert_eq!(split_args("a,,b"), vec!["a", "", "b"]);
        assert_eq!(
            split_args("a(1, 2), [3, 4], {5, 6}"),
            vec!["a(1, 2)", "[3, 4]", "{5, 6}"]
        );
        assert_eq!(split_args("\\<0a, 0b>, c"), vec!["\\<0a, 0b>", "c"]);
        assert_eq!(split_args("'a,b' , c"), vec!["'a,b'", "c"]);
        assert_eq!(split_args("  "), Vec::<String>::new());
        assert_eq!(split_args(","), vec![""]);
        assert_eq!(split_args("a   b"), vec!["a   b"]);
    }

    #[test]
    fn spacevec() {
        assert_eq!(split_space("a  b, c"), vec!["a", "b,", "c"]);
        assert_eq!(split_space("  'a /*?*/ b'c"), vec!["'a /*?*/ b'c"]);
        assert_eq!(
            split_space("\"a b\" c /* x */ d"),
            vec!["\"a b\"", "c", "d"]
        );
        assert_eq!(split_space(""), Vec::<String>::new());
        let (w, r) = shift_spacevec(b"  A B  C");
        assert_eq!((w.as_slice(), r.as_slice()), (&b"A"[..], &b"B  C"[..]));
    }

    #[test]
    fn uncomment_cases() {
        assert_eq!(uncomment("  a   b  "), "a   b");
        assert_eq!(uncomment("  a /* Comment */       b  "), "a b");
        assert_eq!(uncomment("  \" /*???  */ \"  "), "\" /*???  */ \"");
        assert_eq!(uncomment("a // x\n"), "a");
        assert_eq!(uncomment("/* unterminated"), "");
    }

    #[test]
    fn unquote_cases() {
        assert_eq!(
            unquote("\"\\n\" abc /* 123 */ '/* def */'"),
            "\n abc /* def */"
        );
        assert_eq!(unquote("\"\\\\\""), "\\");
        assert_eq!(unquote("\\<48656c6C 6f 2 /* And finally */ 1>"), "Hello!");
        assert_eq!(unquote("\"\\x41\\102\\t\""), "AB\t");
        assert_eq!(unquote("'a\\nb'"), "a\\nb");
        assert_eq!(unquote("abc"), "abc");
        assert_eq!(unquote_bytes("\"\\377\""), vec![255u8]);
        assert_eq!(unquote("\"unterminated"), "unterminated");
        assert_eq!(unquote("\"\\"), "\\");
    }

    #[test]
    fn quote_roundtrip() {
        for s in [
            "",
            "abc",
            "a b",
            "\"q\"",
            "back\\slash",
            "$x",
            "tab\there\n",
            "é ü",
            "\x01\x7f",
        ] {
            let q = quote(s);
            assert!(q.starts_with('"') && q.ends_with('"'));
            assert_eq!(unquote(&q), s, "quote {:?} = {:?}", s, q);
        }
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("foo"), "\"foo\"");
    }

    #[test]
    fn words_and_keywords() {
        assert!(is_word("compact_config"));
        assert!(!is_word("a b"));
        assert!(!is_word("a,b"));
        assert!(!is_word(""));
        assert_eq!(keyword("TWO B"), Some(("TWO", "B")));
        assert_eq!(keyword("TWO"), Some(("TWO", "")));
        assert_eq!(keyword("\"x\" y"), None);
        assert_eq!(parse_word("\"foo\""), Some("foo".to_string()));
        assert_eq!(parse_word("a b"), None);
        assert_eq!(parse_string("'a b'"), Some("a b".to_string()));
    }

    #[test]
    fn never_panics_on_garbage() {
        let samples = [
            "\\", "\"", "'", "/", "/*", "//", "\\<", "\\<a/", "\"\\<", "(", ")", ",", "\\x", "\\7",
        ];
        for a in samples {
            for b in samples {
                let s = format!("{}{}", a, b);
                let _ = split_args(&s);
                let _ = split_space(&s);
                let _ = unquote(&s);
                let _ = uncomment(&s);
                let _ = parse_string(&s);
                let _ = keyword(&s);
            }
        }
    }
}
