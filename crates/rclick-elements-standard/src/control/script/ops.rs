//! The pieces of Script's language that need no router: splitting words the
//! way Click's `cp_shift_spacevec` does, number formatting (`%.12g`), and
//! the arithmetic, comparison, Boolean and `sprintf` handlers.
//!
//! Every function here takes the handler's parameter text and returns the
//! result text or Click's error message; none panics on any input.

use crate::basic::parse_int;
use rclick_core::args::{FromArg, NoContext};

pub(crate) use rclick_core::confparse::{is_blank, shift_space as shift_word, skip_comment_space};

/// Removes and returns the first word of `s`.
pub(crate) fn pop_word(s: &mut String) -> String {
    let (w, rest) = shift_word(s);
    let (w, rest) = (w.to_string(), rest.to_string());
    *s = rest;
    w
}

/// Click's `DoubleArg`.
pub(crate) fn parse_double(s: &str) -> Option<f64> {
    f64::from_arg(s, &NoContext).ok()
}

/// Click's `BoolArg`.
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    bool::from_arg(s, &NoContext).ok()
}

/// Click's `BoolArg::unparse`.
pub(crate) fn bool_text(b: bool) -> String {
    if b { "true" } else { "false" }.to_string()
}

/// C's `%.{prec}g`, which Click uses to print real numbers (`String(double)`
/// prints with `%.12g`).
pub(crate) fn format_g(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let p = prec.max(1);
    let sci = format!("{:.*e}", p - 1, x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let strip = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if exp < -4 || exp >= p as i32 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{}{:02}", strip(mant), sign, exp.unsigned_abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip(&format!("{:.*}", decimals, x))
    }
}

/// Click's `String(double)`.
pub(crate) fn double_text(x: f64) -> String {
    format_g(x, 12)
}

/// Which arithmetic operation an `arith` call performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Min,
    Max,
    Mul,
    Div,
    Idiv,
}

/// `add`, `sub`, `min`, `max`, `mul`, `div`, `idiv`: fold a list of
/// numbers. Integers stay integers until a real number appears; `div` works
/// in reals, `idiv` truncates the real quotient.
pub(crate) fn arith(what: Arith, args: &str) -> Result<String, String> {
    let unit = matches!(what, Arith::Add | Arith::Sub);
    let mut accum: i64 = if unit { 0 } else { 1 };
    let mut daccum: f64 = if unit { 0.0 } else { 1.0 };
    let mut use_d = matches!(what, Arith::Div | Arith::Idiv);
    let mut first = true;
    let mut rest = args;
    loop {
        let (word, r) = shift_word(rest);
        rest = r;
        if word.is_empty() {
            if is_blank(rest) {
                break;
            }
            return Err("expected list of numbers".into());
        }
        let iv = if use_d { None } else { parse_int::<i64>(word) };
        if !use_d && iv.is_none() {
            use_d = true;
            daccum = accum as f64;
        }
        if use_d {
            let d = parse_double(word).ok_or("expected list of numbers")?;
            daccum = if first {
                d
            } else {
                match what {
                    Arith::Add => daccum + d,
                    Arith::Sub => daccum - d,
                    Arith::Min => daccum.min(d),
                    Arith::Max => daccum.max(d),
                    Arith::Mul => daccum * d,
                    Arith::Div | Arith::Idiv => daccum / d,
                }
            };
        } else {
            let a = iv.unwrap_or(0);
            accum = if first {
                a
            } else {
                match what {
                    Arith::Add => accum.wrapping_add(a),
                    Arith::Sub => accum.wrapping_sub(a),
                    Arith::Min => accum.min(a),
                    Arith::Max => accum.max(a),
                    Arith::Mul => accum.wrapping_mul(a),
                    Arith::Div | Arith::Idiv => accum.checked_div(a).unwrap_or(0),
                }
            };
        }
        first = false;
    }
    if what == Arith::Idiv {
        return Ok((daccum as i64).to_string());
    }
    Ok(if use_d {
        double_text(daccum)
    } else {
        accum.to_string()
    })
}

/// Splits exactly two words off `args`.
fn two_words(args: &str) -> Option<(&str, &str)> {
    let (a, r) = shift_word(args);
    let (b, r) = shift_word(r);
    if a.is_empty() || b.is_empty() || !r.is_empty() {
        None
    } else {
        Some((a, b))
    }
}

/// `mod` (integers only) and `rem` (reals allowed).
pub(crate) fn modrem(real_ok: bool, args: &str) -> Result<String, String> {
    let (a, b) = two_words(args).ok_or("expected two numbers")?;
    match (parse_int::<i64>(a), parse_int::<i64>(b)) {
        (Some(x), Some(y)) => x
            .checked_rem(y)
            .map(|r| r.to_string())
            .ok_or_else(|| "division by zero".to_string()),
        _ => {
            if !real_ok {
                return Err("expected two numbers".into());
            }
            match (parse_double(a), parse_double(b)) {
                (Some(x), Some(y)) => Ok(double_text(x % y)),
                _ => Err("expected two numbers".into()),
            }
        }
    }
}

/// `neg` and `abs`.
pub(crate) fn negabs(neg: bool, args: &str) -> Result<String, String> {
    let t = args.trim_matches(|c: char| c.is_ascii_whitespace());
    if let Some(x) = parse_int::<i64>(t) {
        let r = if neg || x < 0 { x.wrapping_neg() } else { x };
        return Ok(r.to_string());
    }
    let d = parse_double(t).ok_or("expected one number")?;
    Ok(double_text(if neg { -d } else { d.abs() }))
}

/// The comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Lt,
    Eq,
    Gt,
    Ge,
    Ne,
    Le,
}

/// `eq`, `ne`, `lt`, `gt`, `le`, `ge`: numeric comparison when both
/// arguments are numbers, otherwise byte-wise comparison of the unquoted
/// strings.
pub(crate) fn compare(what: Cmp, args: &str) -> Result<String, String> {
    use std::cmp::Ordering;
    let (a, b) = two_words(args).ok_or("expected two numbers")?;
    let ord = match (parse_int::<i64>(a), parse_int::<i64>(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => match (parse_double(a), parse_double(b)) {
            (Some(x), Some(y)) => {
                if x < y {
                    Ordering::Less
                } else if x == y {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            _ => unquote_bytes(a).cmp(&unquote_bytes(b)),
        },
    };
    let r = match what {
        Cmp::Lt => ord == Ordering::Less,
        Cmp::Eq => ord == Ordering::Equal,
        Cmp::Gt => ord == Ordering::Greater,
        Cmp::Ge => ord != Ordering::Less,
        Cmp::Ne => ord != Ordering::Equal,
        Cmp::Le => ord != Ordering::Greater,
    };
    Ok(bool_text(r))
}

pub(crate) use rclick_core::confparse::{quote, unquote, unquote_bytes};

/// `not`.
pub(crate) fn not(args: &str) -> Result<String, String> {
    let b = parse_bool(args.trim()).ok_or("syntax error")?;
    Ok(bool_text(!b))
}

/// `and`, `or`, `nand`, `nor`: Boolean folds that stop at the first
/// deciding value.
pub(crate) fn andor(is_and: bool, negate: bool, args: &str) -> Result<String, String> {
    let zero = is_and;
    let mut cur = zero;
    let mut rest = args.to_string();
    while cur == zero && !rest.is_empty() {
        let w = pop_word(&mut rest);
        let x = parse_bool(&w).ok_or("syntax error")?;
        cur = if is_and { cur && x } else { cur || x };
    }
    Ok(bool_text(if negate { !cur } else { cur }))
}

/// `if COND A B`.
pub(crate) fn if_(args: &str) -> Result<String, String> {
    let mut rest = args.to_string();
    let c = pop_word(&mut rest);
    let x = parse_bool(&c).ok_or("syntax error")?;
    let a = pop_word(&mut rest);
    if x {
        return Ok(a);
    }
    Ok(pop_word(&mut rest))
}

/// `in WORD A B ...`.
pub(crate) fn in_(args: &str) -> String {
    let mut rest = args.to_string();
    let word = unquote(&pop_word(&mut rest));
    let mut answer = false;
    while !word.is_empty() && !rest.is_empty() && !answer {
        answer = word == unquote(&pop_word(&mut rest));
    }
    bool_text(answer)
}

/// `htons`, `htonl`, `ntohs`, `ntohl` on a little-endian host.
pub(crate) fn byte_order(long: bool, args: &str) -> Result<String, String> {
    let x: i32 = i32::from_arg(args.trim(), &NoContext).map_err(|_| "syntax error")?;
    Ok(if long {
        (x as u32).swap_bytes().to_string()
    } else {
        (x as u16).swap_bytes().to_string()
    })
}

/// One `sprintf` conversion's flags.
#[derive(Default)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alt: bool,
    width: usize,
    precision: Option<usize>,
}

fn pad(spec: &Spec, prefix: &str, body: &str, zero_ok: bool) -> String {
    let len = prefix.chars().count() + body.chars().count();
    if len >= spec.width {
        return format!("{prefix}{body}");
    }
    let fill = spec.width - len;
    if spec.minus {
        format!("{prefix}{body}{}", " ".repeat(fill))
    } else if spec.zero && zero_ok {
        format!("{prefix}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{prefix}{body}", " ".repeat(fill))
    }
}

fn format_int(spec: &Spec, conv: u8, neg: bool, mag: u64) -> String {
    let mut digits = match conv {
        b'o' => format!("{mag:o}"),
        b'x' => format!("{mag:x}"),
        b'X' => format!("{mag:X}"),
        _ => mag.to_string(),
    };
    if let Some(p) = spec.precision {
        if p == 0 && mag == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let mut prefix = String::new();
    match conv {
        b'd' | b'i' => {
            if neg {
                prefix.push('-');
            } else if spec.plus {
                prefix.push('+');
            } else if spec.space {
                prefix.push(' ');
            }
        }
        b'o' if spec.alt && !digits.starts_with('0') => digits.insert(0, '0'),
        b'x' if spec.alt && mag != 0 => prefix.push_str("0x"),
        b'X' if spec.alt && mag != 0 => prefix.push_str("0X"),
        _ => {}
    }
    pad(spec, &prefix, &digits, spec.precision.is_none())
}

/// `sprintf FORMAT ARGS...`: C-style formatting of integers (`%d %i %u
/// %o %x %X`, with `h`, `l`, `ll` sizes), strings (`%s`) and `%%`.
pub(crate) fn sprintf(args: &str) -> Result<String, String> {
    let syntax = || "syntax error".to_string();
    let mut rest = args.to_string();
    let format = unquote_bytes(&pop_word(&mut rest));
    let f = &format;
    let end = f.len();
    let mut out: Vec<u8> = Vec::new();
    let mut s = 0;
    while let Some(off) = f[s..].iter().position(|&c| c == b'%') {
        let mut p = s + off;
        out.extend_from_slice(&f[s..p]);
        let mut spec = Spec::default();
        p += 1;
        while p < end && matches!(f[p], b'0' | b'#' | b'-' | b' ' | b'+') {
            match f[p] {
                b'0' => spec.zero = true,
                b'#' => spec.alt = true,
                b'-' => spec.minus = true,
                b' ' => spec.space = true,
                _ => spec.plus = true,
            }
            p += 1;
        }
        if p < end && f[p] == b'*' {
            let w = parse_int::<i64>(&pop_word(&mut rest)).ok_or_else(syntax)?;
            if w < 0 {
                spec.minus = true;
            }
            spec.width = w.unsigned_abs().min(4096) as usize;
            p += 1;
        } else {
            while p < end && f[p].is_ascii_digit() {
                spec.width = (spec.width * 10 + usize::from(f[p] - b'0')).min(4096);
                p += 1;
            }
        }
        if p < end && f[p] == b'.' {
            p += 1;
            if p < end && f[p] == b'*' {
                let w = parse_int::<i64>(&pop_word(&mut rest))
                    .filter(|&w| w >= 0)
                    .ok_or_else(syntax)?;
                spec.precision = Some(w.min(4096) as usize);
                p += 1;
            } else {
                let mut v = 0usize;
                while p < end && f[p].is_ascii_digit() {
                    v = (v * 10 + usize::from(f[p] - b'0')).min(4096);
                    p += 1;
                }
                spec.precision = Some(v);
            }
        }
        let mut size = 0u8;
        while p < end {
            match f[p] {
                b'h' => size = b'h',
                b'l' => size = if size == b'l' { b'q' } else { b'l' },
                b'L' | b'q' => size = b'q',
                _ => break,
            }
            p += 1;
        }
        if p >= end {
            return Err(syntax());
        }
        let conv = f[p];
        match conv {
            b'o' | b'x' | b'X' | b'u' => {
                let w = pop_word(&mut rest);
                let v = u64::from_arg(&w, &NoContext)
                    .or_else(|_| i64::from_arg(&w, &NoContext).map(|v| v as u64))
                    .map_err(|_| syntax())?;
                let v = if size == b'h' { u64::from(v as u16) } else { v };
                out.extend_from_slice(format_int(&spec, conv, false, v).as_bytes());
            }
            b'd' | b'i' => {
                let v = parse_int::<i64>(&pop_word(&mut rest)).ok_or_else(syntax)?;
                let v = if size == b'h' { i64::from(v as i16) } else { v };
                out.extend_from_slice(format_int(&spec, conv, v < 0, v.unsigned_abs()).as_bytes());
            }
            b'%' => out.push(b'%'),
            b's' => {
                let w = pop_word(&mut rest);
                if w.is_empty() {
                    return Err(syntax());
                }
                let mut text = unquote(&w);
                if let Some(p) = spec.precision {
                    text = text.chars().take(p).collect();
                }
                out.extend_from_slice(pad(&spec, "", &text, false).as_bytes());
            }
            _ => return Err(syntax()),
        }
        s = p + 1;
    }
    if !rest.is_empty() {
        return Err(syntax());
    }
    out.extend_from_slice(&f[s.min(end)..]);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Signal numbers by name (Linux), for `kill`.
pub(crate) fn signal_number(word: &str) -> Option<i32> {
    let n = match word {
        "ABRT" => 6,
        "ALRM" => 14,
        "HUP" => 1,
        "INT" => 2,
        "IO" => 29,
        "PIPE" => 13,
        "QUIT" => 3,
        "TERM" => 15,
        "TSTP" => 20,
        "USR1" => 10,
        "USR2" => 12,
        _ => return parse_int::<i64>(word).and_then(|v| i32::try_from(v).ok()),
    };
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(shift_word("  a b  c"), ("a", "b  c"));
        assert_eq!(shift_word("\"x y\" z"), ("\"x y\"", "z"));
        assert_eq!(shift_word(""), ("", ""));
        assert_eq!(shift_word("a /* c */ b"), ("a", "b"));
        let mut s = "foo bar baz".to_string();
        assert_eq!(pop_word(&mut s), "foo");
        assert_eq!(s, "bar baz");
    }

    #[test]
    fn g_format() {
        assert_eq!(format_g(6.0, 12), "6");
        assert_eq!(format_g(0.5, 12), "0.5");
        assert_eq!(format_g(1.0 / 3.0, 12), "0.333333333333");
        assert_eq!(format_g(1e20, 12), "1e+20");
        assert_eq!(format_g(1.5e-7, 12), "1.5e-07");
        assert_eq!(format_g(123456789012.0, 12), "123456789012");
        assert_eq!(format_g(1234567890123.0, 12), "1.23456789012e+12");
        assert_eq!(format_g(-2.25, 12), "-2.25");
        assert_eq!(format_g(f64::INFINITY, 12), "inf");
    }

    #[test]
    fn arithmetic() {
        assert_eq!(arith(Arith::Add, "1 2 3").unwrap(), "6");
        assert_eq!(arith(Arith::Sub, "10 2 2").unwrap(), "6");
        assert_eq!(arith(Arith::Min, "10 6 20").unwrap(), "6");
        assert_eq!(arith(Arith::Max, "-1 6 3").unwrap(), "6");
        assert_eq!(arith(Arith::Mul, "1 2 3").unwrap(), "6");
        assert_eq!(arith(Arith::Div, "75 2.5 5").unwrap(), "6");
        assert_eq!(arith(Arith::Idiv, "60 2 5").unwrap(), "6");
        assert_eq!(arith(Arith::Div, "7 2").unwrap(), "3.5");
        assert_eq!(arith(Arith::Idiv, "7 2").unwrap(), "3");
        assert_eq!(arith(Arith::Add, "1 0.5").unwrap(), "1.5");
        assert_eq!(arith(Arith::Add, "").unwrap(), "0");
        assert_eq!(arith(Arith::Mul, "").unwrap(), "1");
        assert_eq!(arith(Arith::Div, "1 0").unwrap(), "inf");
        assert!(arith(Arith::Add, "1 x").is_err());
        assert_eq!(modrem(false, "7 3").unwrap(), "1");
        assert!(modrem(false, "7 0").is_err());
        assert!(modrem(false, "7.5 2").is_err());
        assert_eq!(modrem(true, "7.5 2").unwrap(), "1.5");
        assert_eq!(negabs(true, "5").unwrap(), "-5");
        assert_eq!(negabs(false, "-5").unwrap(), "5");
        assert_eq!(negabs(false, "-2.5").unwrap(), "2.5");
        assert!(negabs(false, "x").is_err());
        assert_eq!(byte_order(true, "6").unwrap(), "100663296");
        assert_eq!(byte_order(true, "100663296").unwrap(), "6");
        assert_eq!(byte_order(false, "6").unwrap(), "1536");
        assert_eq!(byte_order(false, "1536").unwrap(), "6");
    }

    #[test]
    fn comparisons() {
        assert_eq!(compare(Cmp::Eq, "10 0xA").unwrap(), "true");
        assert_eq!(compare(Cmp::Le, "9 8").unwrap(), "false");
        assert_eq!(compare(Cmp::Eq, "10x 10x").unwrap(), "true");
        assert_eq!(compare(Cmp::Lt, "abc abd").unwrap(), "true");
        assert_eq!(compare(Cmp::Ge, "1.5 1.5").unwrap(), "true");
        assert_eq!(compare(Cmp::Ne, "1 2").unwrap(), "true");
        assert_eq!(compare(Cmp::Gt, "3 2").unwrap(), "true");
        assert!(compare(Cmp::Eq, "1").is_err());
        assert!(compare(Cmp::Eq, "1 2 3").is_err());
    }

    #[test]
    fn booleans() {
        assert_eq!(not("true").unwrap(), "false");
        assert!(not("maybe").is_err());
        assert_eq!(andor(true, false, "true true").unwrap(), "true");
        assert_eq!(andor(true, false, "true false").unwrap(), "false");
        assert_eq!(andor(false, false, "false true").unwrap(), "true");
        assert_eq!(andor(false, true, "false false").unwrap(), "true");
        assert_eq!(andor(true, false, "").unwrap(), "true");
        assert_eq!(if_("true a b").unwrap(), "a");
        assert_eq!(if_("false a b").unwrap(), "b");
        assert_eq!(in_("foo bar foo"), "true");
        assert_eq!(in_("foo bar baz"), "false");
    }

    #[test]
    fn printf() {
        assert_eq!(sprintf("\"%05x\" 127").unwrap(), "0007f");
        assert_eq!(sprintf("\"%d-%s\" 5 abc").unwrap(), "5-abc");
        assert_eq!(sprintf("\"%-4d|\" 5").unwrap(), "5   |");
        assert_eq!(sprintf("\"%+d %+d\" 5 -5").unwrap(), "+5 -5");
        assert_eq!(sprintf("\"%#x %#o\" 255 8").unwrap(), "0xff 010");
        assert_eq!(sprintf("\"%.3d\" 7").unwrap(), "007");
        assert_eq!(sprintf("\"%*d\" 4 7").unwrap(), "   7");
        assert_eq!(sprintf("\"100%%\"").unwrap(), "100%");
        assert_eq!(sprintf("\"%hu\" 65537").unwrap(), "1");
        assert!(sprintf("\"%d\"").is_err());
        assert!(sprintf("\"%d\" 1 2").is_err());
        assert!(sprintf("\"%q\" 1").is_err());
        assert!(sprintf("\"%").is_err());
    }
}
