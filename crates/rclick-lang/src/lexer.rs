//! The Click language tokenizer: identifiers, variables, operators,
//! comments, `#` line directives, and raw configuration strings.

use crate::confparse::unquote;
use crate::{Diagnostic, Landmark};
use std::sync::Arc;

/// Token kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident,
    Variable,
    Arrow,
    TwoArrow,
    TwoColon,
    TwoBar,
    ThreeDot,
    Elementclass,
    Require,
    Define,
    Char(u8),
    Eof,
}

/// One token; `text` is its source text (for a variable, the name without
/// `$`).
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub kind: Tok,
    pub text: String,
}

impl Token {
    pub(crate) fn is(&self, k: Tok) -> bool {
        self.kind == k
    }
    pub(crate) fn is_char(&self, c: u8) -> bool {
        self.kind == Tok::Char(c)
    }
    /// True for `->` and `=>`.
    pub(crate) fn is_arrow(&self) -> bool {
        matches!(self.kind, Tok::Arrow | Tok::TwoArrow)
    }
}

#[derive(Clone)]
struct State {
    pos: usize,
    line: u32,
    file: Arc<str>,
}

/// Tokenizer with a pushback stack. Diagnostics of the whole parse are
/// collected here, in order.
pub(crate) struct Lexer<'a> {
    b: &'a [u8],
    st: State,
    original_file: Arc<str>,
    pushback: Vec<Token>,
    pub diags: Vec<Diagnostic>,
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'@'
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str, file: &str) -> Lexer<'a> {
        let file: Arc<str> = Arc::from(if file.is_empty() { "config" } else { file });
        Lexer {
            b: text.as_bytes(),
            st: State {
                pos: 0,
                line: 1,
                file: file.clone(),
            },
            original_file: file,
            pushback: Vec::new(),
            diags: Vec::new(),
        }
    }

    /// The current position as a landmark.
    pub(crate) fn landmark(&self) -> Landmark {
        Landmark {
            file: self.st.file.clone(),
            line: self.st.line,
        }
    }

    /// Reports an error at the current position.
    pub(crate) fn error(&mut self, msg: impl Into<String>) {
        let lm = self.landmark();
        crate::push_diagnostic(&mut self.diags, Diagnostic::new(Some(lm), msg));
    }

    /// Reports an error at a given landmark.
    pub(crate) fn error_at(&mut self, lm: Landmark, msg: impl Into<String>) {
        crate::push_diagnostic(&mut self.diags, Diagnostic::new(Some(lm), msg));
    }

    /// Counts a newline at `s` (handling `\r\n`); returns the index of the
    /// last byte of the newline sequence.
    fn newline_at(&mut self, s: usize) -> usize {
        self.st.line = self.st.line.saturating_add(1);
        if self.b[s] == b'\r' && s + 1 < self.b.len() && self.b[s + 1] == b'\n' {
            s + 1
        } else {
            s
        }
    }

    fn skip_line(&mut self, mut s: usize) -> usize {
        let end = self.b.len();
        while s < end {
            if self.b[s] == b'\n' || self.b[s] == b'\r' {
                return self.newline_at(s) + 1;
            }
            s += 1;
        }
        s
    }

    /// Reports a comment, string or `\<...>` block that the input ends
    /// inside, at the line where it starts (Click only says what it missed
    /// at the end of the file).
    fn unterminated(&mut self, start: Landmark, what: &str) {
        self.error_at(start, format!("unterminated {what} starts here"));
    }

    fn skip_slash_star(&mut self, mut s: usize) -> usize {
        let end = self.b.len();
        let start = self.landmark();
        while s < end {
            match self.b[s] {
                b'\n' | b'\r' => s = self.newline_at(s),
                b'*' if s + 1 < end && self.b[s + 1] == b'/' => return s + 2,
                _ => {}
            }
            s += 1;
        }
        self.unterminated(start, "'/*' comment");
        end
    }

    fn skip_backslash_angle(&mut self, mut s: usize) -> usize {
        let end = self.b.len();
        let start = self.landmark();
        while s < end {
            match self.b[s] {
                b'\n' | b'\r' => s = self.newline_at(s),
                b'/' if s + 1 < end && self.b[s + 1] == b'/' => {
                    s = self.skip_line(s + 2);
                    continue;
                }
                b'/' if s + 1 < end && self.b[s + 1] == b'*' => {
                    s = self.skip_slash_star(s + 2);
                    continue;
                }
                b'>' => return s + 1,
                _ => {}
            }
            s += 1;
        }
        self.unterminated(start, "'\\<' hex block");
        end
    }

    fn skip_quote(&mut self, mut s: usize, endc: u8) -> usize {
        let end = self.b.len();
        let start = self.landmark();
        while s < end {
            match self.b[s] {
                b'\n' | b'\r' => s = self.newline_at(s),
                b'\\' if endc == b'"' && s + 1 < end => {
                    if self.b[s + 1] == b'<' {
                        s = self.skip_backslash_angle(s + 2);
                        continue;
                    }
                    s += 1;
                    if self.b[s] == b'\n' || self.b[s] == b'\r' {
                        s = self.newline_at(s);
                    }
                }
                c if c == endc => return s + 1,
                _ => {}
            }
            s += 1;
        }
        let what = if endc == b'"' {
            "double-quoted string"
        } else {
            "single-quoted string"
        };
        self.unterminated(start, what);
        end
    }

    /// Processes a `#` line directive at `s`; returns the index of the
    /// newline ending it (or the end of input).
    fn line_directive(&mut self, s: usize) -> usize {
        let b = self.b;
        let end = b.len();
        let mut p = s + 1;
        while p < end && (b[p] == b' ' || b[p] == b'\t') {
            p += 1;
        }
        if p + 4 < end && &b[p..p + 4] == b"line" && (b[p + 4] == b' ' || b[p + 4] == b'\t') {
            p += 5;
            while p < end && (b[p] == b' ' || b[p] == b'\t') {
                p += 1;
            }
        }
        if p >= end || !b[p].is_ascii_digit() {
            self.error("unknown preprocessor directive");
            return self.skip_line(p);
        }
        let mut line: u32 = 0;
        while p < end && b[p].is_ascii_digit() {
            line = line
                .saturating_mul(10)
                .saturating_add(u32::from(b[p] - b'0'));
            p += 1;
        }
        self.st.line = line.saturating_sub(1);
        while p < end && (b[p] == b' ' || b[p] == b'\t') {
            p += 1;
        }
        if p < end && b[p] == b'"' {
            let first = p;
            p += 1;
            while p < end && b[p] != b'"' && b[p] != b'\n' && b[p] != b'\r' {
                if b[p] == b'\\' && p + 1 < end && b[p + 1] != b'\n' && b[p + 1] != b'\r' {
                    p += 1;
                }
                p += 1;
            }
            let mut text = String::from_utf8_lossy(&b[first..p]).into_owned();
            text.push('"');
            let name = unquote(&text);
            self.st.file = if name.is_empty() {
                self.original_file.clone()
            } else {
                Arc::from(name.as_str())
            };
        }
        while p < end && b[p] != b'\n' && b[p] != b'\r' {
            p += 1;
        }
        p
    }

    fn at_line_start(&self, s: usize) -> bool {
        s == 0 || self.b[s - 1] == b'\n' || self.b[s - 1] == b'\r'
    }

    fn next_token(&mut self) -> Token {
        let b = self.b;
        let end = b.len();
        let mut s = self.st.pos;
        loop {
            while s < end && crate::confparse::is_space(b[s]) {
                if b[s] == b'\n' || b[s] == b'\r' {
                    s = self.newline_at(s);
                }
                s += 1;
            }
            if s >= end {
                self.st.pos = end;
                return Token {
                    kind: Tok::Eof,
                    text: String::new(),
                };
            } else if b[s] == b'/' && s + 1 < end && b[s + 1] == b'/' {
                s = self.skip_line(s + 2);
            } else if b[s] == b'/' && s + 1 < end && b[s + 1] == b'*' {
                s = self.skip_slash_star(s + 2);
            } else if b[s] == b'#' && self.at_line_start(s) {
                s = self.line_directive(s);
            } else {
                break;
            }
        }
        let start = s;
        let text = |e: usize| String::from_utf8_lossy(&b[start..e]).into_owned();
        if is_word_char(b[s]) {
            s += 1;
            loop {
                while s < end && is_word_char(b[s]) {
                    s += 1;
                }
                if s + 1 < end && b[s] == b'/' && is_word_char(b[s + 1]) {
                    s += 1;
                    continue;
                }
                break;
            }
            self.st.pos = s;
            let word = text(s);
            let kind = match word.as_str() {
                "elementclass" => Tok::Elementclass,
                "require" => Tok::Require,
                "define" => Tok::Define,
                _ => Tok::Ident,
            };
            return Token { kind, text: word };
        }
        if b[s] == b'$' {
            let mut p = s + 1;
            while p < end && (b[p].is_ascii_alphanumeric() || b[p] == b'_') {
                p += 1;
            }
            if p > s + 1 {
                self.st.pos = p;
                return Token {
                    kind: Tok::Variable,
                    text: String::from_utf8_lossy(&b[s + 1..p]).into_owned(),
                };
            }
        }
        if s + 1 < end {
            let kind = match (b[s], b[s + 1]) {
                (b'-', b'>') => Some(Tok::Arrow),
                (b'=', b'>') => Some(Tok::TwoArrow),
                (b':', b':') => Some(Tok::TwoColon),
                (b'|', b'|') => Some(Tok::TwoBar),
                _ => None,
            };
            if let Some(kind) = kind {
                self.st.pos = s + 2;
                return Token {
                    kind,
                    text: text(s + 2),
                };
            }
        }
        if s + 2 < end && &b[s..s + 3] == b"..." {
            self.st.pos = s + 3;
            return Token {
                kind: Tok::ThreeDot,
                text: "...".into(),
            };
        }
        self.st.pos = s + 1;
        Token {
            kind: Tok::Char(b[s]),
            text: text(s + 1),
        }
    }

    /// Returns the next token.
    pub(crate) fn lex(&mut self) -> Token {
        match self.pushback.pop() {
            Some(t) => t,
            None => self.next_token(),
        }
    }

    /// Pushes a token back; the next [`Lexer::lex`] returns it.
    pub(crate) fn unlex(&mut self, t: Token) {
        self.pushback.push(t);
    }

    /// Consumes the next token if it is the character `c`; otherwise leaves
    /// it and, if `report`, reports "expected 'c'".
    pub(crate) fn expect_char(&mut self, c: u8, report: bool) -> bool {
        if let Some(t) = self.pushback.last() {
            if t.is_char(c) {
                self.pushback.pop();
                return true;
            }
        } else {
            let saved = self.st.clone();
            if self.next_token().is_char(c) {
                return true;
            }
            self.st = saved;
        }
        if report {
            self.error(format!("expected '{}'", c as char));
        }
        false
    }

    /// Reads a raw configuration string up to (not including) the `)` that
    /// balances an already-consumed `(`. Line directives inside are
    /// processed and removed.
    pub(crate) fn lex_config(&mut self) -> String {
        // Pushed-back tokens would be lost; the parser only calls this right
        // after consuming '('.
        let b = self.b;
        let end = b.len();
        let mut out: Vec<u8> = Vec::new();
        let mut start = self.st.pos;
        let mut s = start;
        let mut depth = 1usize;
        while s < end {
            match b[s] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'\n' | b'\r' => s = self.newline_at(s),
                b'#' if s > 0 && (b[s - 1] == b'\n' || b[s - 1] == b'\r') => {
                    out.extend_from_slice(&b[start..s]);
                    s = self.line_directive(s);
                    start = s;
                    continue;
                }
                b'/' if s + 1 < end && b[s + 1] == b'/' => {
                    s = self.skip_line(s + 2);
                    continue;
                }
                b'/' if s + 1 < end && b[s + 1] == b'*' => {
                    s = self.skip_slash_star(s + 2);
                    continue;
                }
                c @ (b'\'' | b'"') => {
                    s = self.skip_quote(s + 1, c);
                    continue;
                }
                b'\\' if s + 1 < end && b[s + 1] == b'<' => {
                    s = self.skip_backslash_angle(s + 2);
                    continue;
                }
                _ => {}
            }
            s += 1;
        }
        let s = s.min(end);
        self.st.pos = s;
        out.extend_from_slice(&b[start..s]);
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// Whether configuration string `config` would be read back as itself
/// between an element's parentheses: the lexer would stop at the `)`
/// after it, and keep every character of it. Variable expansion can make
/// a string that would not (`"${-"}"` in Click's own expansion rules
/// gives an escaped quote inside a string the lexer had seen closed; `${-/}*`
/// makes a comment start), and such a string cannot be printed as a
/// flat configuration.
pub(crate) fn config_reads_back(config: &str) -> bool {
    if !config
        .bytes()
        .any(|c| matches!(c, b'"' | b'\'' | b'/' | b'#' | b'(' | b')' | b'\\'))
    {
        return true;
    }
    let text = format!("{config})");
    let mut l = Lexer::new(&text, "");
    l.lex_config() == config && l.st.pos == config.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Tok, String)> {
        let mut l = Lexer::new(s, "t");
        let mut v = Vec::new();
        loop {
            let t = l.lex();
            if t.is(Tok::Eof) {
                break;
            }
            v.push((t.kind, t.text));
        }
        v
    }

    #[test]
    fn tokens() {
        let v =
            kinds("a/b :: X -> => || ... $var $ elementclass require define [0] // c\n /* d */ x");
        let k: Vec<Tok> = v.iter().map(|x| x.0).collect();
        assert_eq!(
            k,
            vec![
                Tok::Ident,
                Tok::TwoColon,
                Tok::Ident,
                Tok::Arrow,
                Tok::TwoArrow,
                Tok::TwoBar,
                Tok::ThreeDot,
                Tok::Variable,
                Tok::Char(b'$'),
                Tok::Elementclass,
                Tok::Require,
                Tok::Define,
                Tok::Char(b'['),
                Tok::Ident,
                Tok::Char(b']'),
                Tok::Ident
            ]
        );
        assert_eq!(v[0].1, "a/b");
        assert_eq!(v[7].1, "var");
    }

    #[test]
    fn line_counting_and_directives() {
        let mut l = Lexer::new("a\r\nb\rc\n# 100 \"foo.click\"\nd\n#line 7\ne", "x");
        let mut lines = Vec::new();
        loop {
            let t = l.lex();
            if t.is(Tok::Eof) {
                break;
            }
            lines.push(l.landmark().to_string());
        }
        assert_eq!(
            lines,
            vec!["x:1", "x:2", "x:3", "foo.click:100", "foo.click:7"]
        );
    }

    #[test]
    fn bad_directive() {
        let mut l = Lexer::new("# foo\na", "x");
        let t = l.lex();
        assert_eq!(t.text, "a");
        assert_eq!(
            l.diags[0].to_string(),
            "x:1: unknown preprocessor directive"
        );
        assert_eq!(l.landmark().line, 2);
    }

    #[test]
    fn config_strings() {
        let mut l = Lexer::new("(a(b), \")\", ')', /* ) */ \\<29>) rest", "x");
        assert!(l.lex().is_char(b'('));
        assert_eq!(l.lex_config(), "a(b), \")\", ')', /* ) */ \\<29>");
        assert!(l.expect_char(b')', true));
        assert_eq!(l.lex().text, "rest");
    }

    #[test]
    fn configs_that_read_back() {
        for c in [
            "",
            "a, b",
            "\"x)\", ')', /* ) */ (a(b))",
            "a // c\n",
            "\\<29>",
        ] {
            assert!(config_reads_back(c), "{c:?}");
        }
        for c in [
            "X \"\\\" \"\"",
            "a /* b",
            "a // b",
            "a)",
            "(a",
            "'a",
            "a\n# 1 \"f\"\nb",
        ] {
            assert!(!config_reads_back(c), "{c:?}");
        }
    }

    #[test]
    fn config_with_directive() {
        let mut l = Lexer::new("m(\n# 100 \"f.click\"\n\"t\");\nx", "A");
        l.lex();
        l.lex();
        let c = l.lex_config();
        assert_eq!(c, "\n\n\"t\"");
        assert_eq!(l.landmark().to_string(), "f.click:100");
    }

    #[test]
    fn unterminated_things() {
        for s in [
            "(\"abc", "/* abc", "('", "(\\<", "#", "# 1 \"", "$", "a/", "..", "-", "(/*",
        ] {
            let mut l = Lexer::new(s, "x");
            for _ in 0..10 {
                let t = l.lex();
                if t.is_char(b'(') {
                    let _ = l.lex_config();
                }
            }
        }
    }
}
