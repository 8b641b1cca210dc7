//! The [`FromArg`] trait and parsers for Click's basic types: booleans,
//! integers, reals and strings.

use super::context::ArgContext;
use super::quote;

/// A type that can be parsed from one configuration argument, as Click's
/// `DefaultArg<T>` parsers do.
///
/// `s` is the argument's value with its keyword removed.  On failure the
/// parser returns the message Click would print after `KEYWORD: `, such as
/// `expected integer` or `out of range, bound 255`.  Parsers that accept
/// names (IP and Ethernet addresses) consult `ctx`; others ignore it.
///
/// ```
/// use rclick_core::args::{FromArg, NoContext};
/// assert_eq!(u8::from_arg("0x1f", &NoContext), Ok(31));
/// assert_eq!(u8::from_arg("256", &NoContext), Err("out of range, bound 255".to_string()));
/// ```
pub trait FromArg: Sized {
    /// Parses `s`, or says what is wrong with it.
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String>;
}

impl FromArg for bool {
    /// Click's `BoolArg`: `true`, `yes`, `1`, `t`, `y` and `false`, `no`,
    /// `0`, `f`, `n` (lower case only).
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        match s {
            "true" | "yes" | "1" | "t" | "y" => Ok(true),
            "false" | "no" | "0" | "f" | "n" => Ok(false),
            _ => Err("expected boolean".into()),
        }
    }
}

/// Why an integer did not parse.
enum IntFault {
    /// Not an integer at all.
    Invalid,
    /// An integer, but its magnitude does not fit in 128 bits.
    Overflow { negative: bool },
}

/// Parses an integer as Click's `IntArg` (base 0): optional sign (`-` only
/// if `signed`), then `0x`/`0X` hexadecimal, `0b`/`0B` binary, a leading `0`
/// octal, or decimal; `_` may separate digits.  Returns sign and magnitude.
fn parse_int_magnitude(s: &str, signed: bool) -> Result<(bool, u128), IntFault> {
    let b = s.as_bytes();
    let n = b.len();
    let mut i = 0;
    let mut negative = false;
    if i < n && ((signed && b[i] == b'-') || b[i] == b'+') {
        negative = b[i] == b'-';
        i += 1;
    }
    let base: u32;
    if i + 2 < n && b[i] == b'0' && (b[i + 1] == b'x' || b[i + 1] == b'X') {
        base = 16;
        i += 2;
    } else if i + 2 < n && b[i] == b'0' && (b[i + 1] == b'b' || b[i + 1] == b'B') {
        base = 2;
        i += 2;
    } else if i < n && b[i] == b'0' {
        base = 8;
    } else {
        base = 10;
    }
    let first = i;
    let mut last_digit_end = None;
    let mut value: u128 = 0;
    let mut overflow = false;
    while i < n {
        if b[i] == b'_' && last_digit_end == Some(i) {
            // underscores are allowed between digits
        } else if let Some(d) = (b[i] as char).to_digit(base) {
            last_digit_end = Some(i + 1);
            match value
                .checked_mul(u128::from(base))
                .and_then(|v| v.checked_add(u128::from(d)))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
        } else {
            break;
        }
        i += 1;
    }
    // Click parses only the leading "0" of "0x!"; with junk left over, that
    // is invalid too.
    if i == first || last_digit_end != Some(n) {
        return Err(IntFault::Invalid);
    }
    if overflow {
        return Err(IntFault::Overflow { negative });
    }
    Ok((negative, value))
}

macro_rules! unsigned_from_arg {
    ($($t:ty)*) => {$(
        impl FromArg for $t {
            /// Click's `IntArg`: decimal, `0x` hex, `0b` binary, leading-`0`
            /// octal, `_` between digits; overflow is an error.
            fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
                match parse_int_magnitude(s, false) {
                    Ok((_, v)) => <$t>::try_from(v)
                        .map_err(|_| format!("out of range, bound {}", <$t>::MAX)),
                    Err(IntFault::Overflow { .. }) => {
                        Err(format!("out of range, bound {}", <$t>::MAX))
                    }
                    Err(IntFault::Invalid) => Err("expected unsigned integer".into()),
                }
            }
        }
    )*};
}

macro_rules! signed_from_arg {
    ($($t:ty)*) => {$(
        impl FromArg for $t {
            /// Click's `IntArg`: optional sign, decimal, `0x` hex, `0b`
            /// binary, leading-`0` octal, `_` between digits; overflow is an
            /// error.
            fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
                let bound = |negative: bool| {
                    if negative {
                        format!("out of range, bound {}", <$t>::MIN)
                    } else {
                        format!("out of range, bound {}", <$t>::MAX)
                    }
                };
                match parse_int_magnitude(s, true) {
                    Ok((negative, mag)) => {
                        let wide = if negative {
                            0i128.checked_sub_unsigned(mag)
                        } else {
                            i128::try_from(mag).ok()
                        };
                        wide.and_then(|w| <$t>::try_from(w).ok())
                            .ok_or_else(|| bound(negative))
                    }
                    Err(IntFault::Overflow { negative }) => Err(bound(negative)),
                    Err(IntFault::Invalid) => Err("expected integer".into()),
                }
            }
        }
    )*};
}

unsigned_from_arg!(u8 u16 u32 u64 u128 usize);
signed_from_arg!(i8 i16 i32 i64 i128 isize);

impl FromArg for f64 {
    /// Click's `DoubleArg` (`strtod` on the whole text): `1`, `-0.5`,
    /// `1e-3`, `.5`, `inf`.  Overflow and underflow are errors.
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        let v: f64 = s.parse().map_err(|_| "expected real number".to_string())?;
        let mantissa = s.split(['e', 'E']).next().unwrap_or("");
        let lower = s.to_ascii_lowercase();
        if v.is_infinite() && !lower.contains("inf") {
            Err("out of range, bound inf".into())
        } else if v == 0.0 && mantissa.bytes().any(|c| (b'1'..=b'9').contains(&c)) {
            Err("underflow, rounded to 0".into())
        } else {
            Ok(v)
        }
    }
}

/// Click's `cp_string`: one possibly-quoted word, unquoted to bytes.
fn parse_string_bytes(s: &str) -> Result<Vec<u8>, String> {
    let len = quote::first_word_len(s);
    if len == 0 || len != s.len() {
        return Err("expected string".into());
    }
    Ok(quote::unquote_bytes(s))
}

impl FromArg for String {
    /// Click's `StringArg`: a single word, possibly quoted (`"a b"`,
    /// `'a b'`), with Click's escapes expanded inside double quotes.  An
    /// unquoted space is an error.  The result must be UTF-8; use [`Data`]
    /// for arbitrary bytes.
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        String::from_utf8(parse_string_bytes(s)?)
            .map_err(|_| "expected string, got bytes that are not UTF-8".into())
    }
}

/// A word: a possibly-quoted string that, once unquoted, is printable ASCII
/// without spaces, quotes, backslashes or commas (Click's `WordArg`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Word(pub String);

impl FromArg for Word {
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String> {
        let w = String::from_arg(s, ctx).map_err(|_| "expected word".to_string())?;
        if quote::is_word(&w) {
            Ok(Word(w))
        } else {
            Err("expected word".into())
        }
    }
}

/// A keyword: one or more of `[A-Za-z0-9_.:?!]`, unquoted (Click's
/// `KeywordArg`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Keyword(pub String);

impl FromArg for Keyword {
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        let ok = !s.is_empty()
            && s.bytes().all(|c| {
                c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'?' | b'!')
            });
        if ok {
            Ok(Keyword(s.to_string()))
        } else {
            Err("expected keyword".into())
        }
    }
}

/// The argument's raw text, quotes and all (Click's `AnyArg`).  Never fails.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AnyArg(pub String);

impl FromArg for AnyArg {
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        Ok(AnyArg(s.to_string()))
    }
}

/// Packet data: a possibly-quoted string unquoted to bytes, so that
/// `\<00 01 ff>` and `"\x41\n"` give arbitrary bytes (what Click's
/// `InfiniteSource(DATA ...)` reads through `StringArg`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Data(pub Vec<u8>);

impl FromArg for Data {
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        parse_string_bytes(s).map(Data)
    }
}

impl FromArg for Vec<u8> {
    /// The same as [`Data`].
    fn from_arg(s: &str, _ctx: &dyn ArgContext) -> Result<Self, String> {
        parse_string_bytes(s)
    }
}

/// A space-separated list, each word parsed as `T`: `SpaceSep<Ipv4Addr>`
/// reads `1.0.0.1 1.0.0.2` (what Click's `IPAddressArg` does for a
/// `Vector<IPAddress>`).  Quoted spaces do not separate.  An empty list is
/// allowed.  A word's error is reported as is.
///
/// [`Ipv4Addr`]: std::net::Ipv4Addr
///
/// ```
/// use rclick_core::args::{FromArg, NoContext, SpaceSep};
/// let v = SpaceSep::<u8>::from_arg("1 2  3", &NoContext).unwrap();
/// assert_eq!(v.0, [1, 2, 3]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpaceSep<T>(pub Vec<T>);

impl<T: FromArg> FromArg for SpaceSep<T> {
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String> {
        let mut out = Vec::new();
        let mut rest = s.trim_start();
        while !rest.is_empty() {
            let len = quote::first_word_len(rest);
            out.push(T::from_arg(&rest[..len], ctx)?);
            rest = rest[len..].trim_start();
        }
        Ok(SpaceSep(out))
    }
}

#[cfg(test)]
mod tests {
    use super::super::context::NoContext;
    use super::*;

    fn p<T: FromArg>(s: &str) -> Result<T, String> {
        T::from_arg(s, &NoContext)
    }

    #[test]
    fn booleans() {
        for t in ["true", "yes", "1", "t", "y"] {
            assert_eq!(p::<bool>(t), Ok(true), "{t}");
        }
        for f in ["false", "no", "0", "f", "n"] {
            assert_eq!(p::<bool>(f), Ok(false), "{f}");
        }
        for bad in ["TRUE", "on", "off", "2", "", " true", "yes "] {
            assert_eq!(p::<bool>(bad), Err("expected boolean".into()), "{bad}");
        }
    }

    #[test]
    fn integers_accept() {
        assert_eq!(p::<i64>("0"), Ok(0));
        assert_eq!(p::<i64>("42"), Ok(42));
        assert_eq!(p::<i64>("+42"), Ok(42));
        assert_eq!(p::<i64>("-42"), Ok(-42));
        assert_eq!(p::<u32>("0x1F"), Ok(31));
        assert_eq!(p::<u32>("0X1f"), Ok(31));
        assert_eq!(p::<u32>("0b101"), Ok(5));
        assert_eq!(p::<u32>("010"), Ok(8));
        assert_eq!(p::<u32>("1_000_000"), Ok(1_000_000));
        assert_eq!(p::<i32>("-0x10"), Ok(-16));
        assert_eq!(p::<u8>("255"), Ok(255));
        assert_eq!(p::<i8>("-128"), Ok(-128));
        assert_eq!(p::<i8>("127"), Ok(127));
        assert_eq!(p::<u64>("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(p::<i64>("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(p::<i128>(&i128::MIN.to_string()), Ok(i128::MIN));
        assert_eq!(p::<u128>(&u128::MAX.to_string()), Ok(u128::MAX));
        assert_eq!(p::<usize>("7"), Ok(7));
        assert_eq!(p::<isize>("-7"), Ok(-7));
        assert_eq!(p::<u16>("0x"), Err("expected unsigned integer".into()));
        // "0x" with nothing after is octal 0 followed by junk
        assert_eq!(p::<u16>("00"), Ok(0));
    }

    #[test]
    fn integers_reject() {
        for bad in [
            "", "x", "1x", "1 ", " 1", "+", "-", "1_", "1__0", "_1", "08", "0x!", "1.5",
        ] {
            assert_eq!(p::<i64>(bad), Err("expected integer".into()), "{bad:?}");
        }
        assert_eq!(p::<u32>("-1"), Err("expected unsigned integer".into()));
        assert_eq!(p::<u8>("256"), Err("out of range, bound 255".into()));
        assert_eq!(p::<i8>("128"), Err("out of range, bound 127".into()));
        assert_eq!(p::<i8>("-129"), Err("out of range, bound -128".into()));
        assert_eq!(
            p::<u64>("18446744073709551616"),
            Err("out of range, bound 18446744073709551615".into())
        );
        assert_eq!(
            p::<i64>("-99999999999999999999999999999999999999999"),
            Err("out of range, bound -9223372036854775808".into())
        );
        assert_eq!(
            p::<u128>("999999999999999999999999999999999999999999"),
            Err(format!("out of range, bound {}", u128::MAX))
        );
    }

    #[test]
    fn reals() {
        assert_eq!(p::<f64>("1"), Ok(1.0));
        assert_eq!(p::<f64>("-0.5"), Ok(-0.5));
        assert_eq!(p::<f64>(".5"), Ok(0.5));
        assert_eq!(p::<f64>("1e-3"), Ok(0.001));
        assert_eq!(p::<f64>("inf"), Ok(f64::INFINITY));
        for bad in ["", " 1", "1 ", "x", "1.5s"] {
            assert_eq!(p::<f64>(bad), Err("expected real number".into()), "{bad:?}");
        }
        assert_eq!(p::<f64>("1e999"), Err("out of range, bound inf".into()));
        assert_eq!(p::<f64>("1e-999"), Err("underflow, rounded to 0".into()));
        assert_eq!(p::<f64>("0e-999"), Ok(0.0));
    }

    #[test]
    fn strings() {
        assert_eq!(p::<String>("abc"), Ok("abc".into()));
        assert_eq!(p::<String>("\"a b\""), Ok("a b".into()));
        assert_eq!(p::<String>("'a\\nb'"), Ok("a\\nb".into()));
        assert_eq!(p::<String>("\"a\\nb\""), Ok("a\nb".into()));
        assert_eq!(p::<String>("\"\""), Ok(String::new()));
        assert_eq!(p::<String>("a\"b c\"d"), Ok("ab cd".into()));
        assert_eq!(p::<String>("a b"), Err("expected string".into()));
        assert_eq!(p::<String>(""), Err("expected string".into()));
        assert_eq!(
            p::<String>("\\<ff>"),
            Err("expected string, got bytes that are not UTF-8".into())
        );
    }

    #[test]
    fn words_keywords_any() {
        assert_eq!(p::<Word>("eth0"), Ok(Word("eth0".into())));
        assert_eq!(p::<Word>("\"eth0\""), Ok(Word("eth0".into())));
        assert_eq!(p::<Word>("a-b.c/d"), Ok(Word("a-b.c/d".into())));
        for bad in ["", "a b", "\"a b\"", "\"a,b\"", "\"a\\\\b\"", "\"\""] {
            assert_eq!(p::<Word>(bad), Err("expected word".into()), "{bad:?}");
        }
        assert_eq!(p::<Keyword>("A_b.1:?!"), Ok(Keyword("A_b.1:?!".into())));
        for bad in ["", "a b", "a-b", "\"a\""] {
            assert_eq!(p::<Keyword>(bad), Err("expected keyword".into()), "{bad:?}");
        }
        assert_eq!(
            p::<AnyArg>("\"raw\" text"),
            Ok(AnyArg("\"raw\" text".into()))
        );
        assert_eq!(p::<AnyArg>(""), Ok(AnyArg(String::new())));
    }

    #[test]
    fn space_separated() {
        assert_eq!(p::<SpaceSep<u8>>("1 2\t3"), Ok(SpaceSep(vec![1, 2, 3])));
        assert_eq!(p::<SpaceSep<u8>>(""), Ok(SpaceSep(vec![])));
        assert_eq!(
            p::<SpaceSep<String>>("a \"b c\" d"),
            Ok(SpaceSep(vec!["a".into(), "b c".into(), "d".into()]))
        );
        assert_eq!(
            p::<SpaceSep<u8>>("1 x"),
            Err("expected unsigned integer".into())
        );
    }

    #[test]
    fn data() {
        assert_eq!(p::<Data>("\\<00 01 ff>"), Ok(Data(vec![0, 1, 0xff])));
        assert_eq!(p::<Data>("\"AB\\x43\\n\""), Ok(Data(b"ABC\n".to_vec())));
        assert_eq!(p::<Data>("hello"), Ok(Data(b"hello".to_vec())));
        assert_eq!(p::<Data>("\"\""), Ok(Data(Vec::new())));
        assert_eq!(p::<Data>("a b"), Err("expected string".into()));
        assert_eq!(p::<Vec<u8>>("\\<4142>"), Ok(b"AB".to_vec()));
    }
}
