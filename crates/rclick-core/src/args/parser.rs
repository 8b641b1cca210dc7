//! [`Args`]: matching arguments to keywords and positions, Click's way.

use std::ops::BitOr;

use super::basic::FromArg;
use super::context::{ArgContext, NO_CONTEXT};
use super::error::{ArgError, ArgErrors};

/// How a read matches arguments: any combination of [`Flags::MANDATORY`]
/// and [`Flags::POSITIONAL`] (Click's `Args::mandatory`, `Args::positional`).
///
/// The named read methods cover the usual cases; flags are for
/// [`Args::read_flagged`] when the combination is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(u8);

impl Flags {
    /// An optional keyword argument.
    pub const NONE: Flags = Flags(0);
    /// The argument must be given.
    pub const MANDATORY: Flags = Flags(1);
    /// The argument may also be given by position.
    pub const POSITIONAL: Flags = Flags(2);
    /// Internal: take the first matching keyword, not the last (`read_all`).
    const FIRST_MATCH: Flags = Flags(4);

    /// True if every flag in `other` is set in `self`.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    const fn without(self, other: Flags) -> Flags {
        Flags(self.0 & !other.0)
    }
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

/// Where an argument stands (Click's `_kwpos`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Not yet read; has no keyword.
    Plain,
    /// Not yet read; starts with a keyword of this many bytes.
    Keyword(usize),
    /// Read by position.
    UsedPositional,
    /// Read by keyword.
    UsedKeyword,
}

impl Slot {
    fn is_free(self) -> bool {
        matches!(self, Slot::Plain | Slot::Keyword(_))
    }
}

/// The keyword length of `arg`, if it looks like `KEYWORD value`: a letter
/// or `_`, then letters, digits, `_`, `:`, `.`, `?`, `!`, then space, then
/// something (Click's `Args::reset_from`).
fn keyword_len(arg: &str) -> Option<usize> {
    let b = arg.as_bytes();
    if b.is_empty() || !(b[0].is_ascii_alphabetic() || b[0] == b'_') {
        return None;
    }
    let end = 1 + b[1..]
        .iter()
        .take_while(|&&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b':' | b'.' | b'?' | b'!')
        })
        .count();
    let rest = &b[end..];
    let value_at = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
    (value_at > 0 && value_at < rest.len()).then_some(end)
}

/// A deferred assignment to a caller's variable.
type Commit<'a> = Box<dyn FnOnce() + 'a>;

/// Click's typed argument parser.
///
/// Build one over an element's arguments, chain reads, and finish with
/// [`complete`](Args::complete) (or [`consume`](Args::consume)).  Reads
/// parse at once and remember the result; the caller's variables are written
/// only when the whole parse succeeds, so a failed configuration changes
/// nothing.  See the [module documentation](super) for the matching rules.
///
/// | method | keyword | by position | mandatory |
/// |---|---|---|---|
/// | [`read`](Args::read) | yes | no | no |
/// | [`read_m`](Args::read_m) | yes | no | yes |
/// | [`read_p`](Args::read_p) | yes | yes | no |
/// | [`read_mp`](Args::read_mp) | yes | yes | yes |
///
/// Each has a `_with` form taking a parser closure instead of [`FromArg`].
///
/// ```
/// use rclick_core::args::{Args, Bandwidth};
/// let conf = ["RATE 10Mbps", "BURST 20"];
/// let (mut rate, mut burst) = (Bandwidth(0.0), 2u32);
/// Args::new(&conf).read_m("RATE", &mut rate).read("BURST", &mut burst).complete().unwrap();
/// assert_eq!((rate.0, burst), (1_250_000.0, 20));
/// ```
pub struct Args<'a> {
    conf: Vec<String>,
    slots: Vec<Slot>,
    ctx: &'a dyn ArgContext,
    errors: Vec<ArgError>,
    commits: Vec<Commit<'a>>,
    last_ok: bool,
}

impl<'a> Args<'a> {
    /// A parser over `conf` (the element's arguments, already split on
    /// top-level commas) that resolves no names.
    pub fn new<S: AsRef<str>>(conf: &[S]) -> Self {
        Self::new_with(conf, &NO_CONTEXT)
    }

    /// A parser over `conf` whose address parsers resolve names through
    /// `ctx` (for `AddressInfo` names like `eth0:ip`).
    pub fn new_with<S: AsRef<str>>(conf: &[S], ctx: &'a dyn ArgContext) -> Self {
        let conf: Vec<String> = conf.iter().map(|s| s.as_ref().trim().to_string()).collect();
        let slots = conf
            .iter()
            .map(|a| keyword_len(a).map_or(Slot::Plain, Slot::Keyword))
            .collect();
        Args {
            conf,
            slots,
            ctx,
            errors: Vec::new(),
            commits: Vec::new(),
            last_ok: false,
        }
    }

    /// The context names are resolved with.
    pub fn context(&self) -> &'a dyn ArgContext {
        self.ctx
    }

    /// True if no error has been found so far.
    pub fn status(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors found so far.
    pub fn errors(&self) -> &[ArgError] {
        &self.errors
    }

    /// Finds the value for `keyword` under `flags` and marks it read
    /// (Click's `Args::find`).  Reports a missing mandatory argument.
    fn find(&mut self, keyword: &str, flags: Flags) -> Option<String> {
        let first_match = flags.contains(Flags::FIRST_MATCH);
        let mut got: Option<(usize, bool)> = None; // (index, by keyword)
                                                   // The first argument not taken by position; None if there is none,
                                                   // Some(None) if it was taken by keyword (which ends positional use).
        let mut position: Option<Option<usize>> = None;
        for i in 0..self.conf.len() {
            if position.is_none() && self.slots[i] != Slot::UsedPositional {
                position = Some(self.slots[i].is_free().then_some(i));
            }
            if self.slots[i] == Slot::Keyword(keyword.len())
                && self.conf[i].as_bytes().starts_with(keyword.as_bytes())
            {
                got = Some((i, true));
                self.slots[i] = Slot::UsedKeyword;
                if first_match {
                    break;
                }
            }
        }

        if let (true, Some(Some(p))) = (flags.contains(Flags::POSITIONAL), position) {
            let slot = self.slots[p];
            let got_index = got.map(|(g, _)| g);
            // whether the keyword match (if any) comes after position p
            let keyword_after = !matches!(got_index, Some(g) if g <= p);
            let keyword_before = !matches!(got_index, Some(g) if g >= p);
            if slot.is_free()
                && ((got.is_none() && flags.contains(Flags::MANDATORY)) || slot == Slot::Plain)
                && (!first_match || keyword_after)
            {
                self.slots[p] = Slot::UsedPositional;
                if let (true, Some(g)) = (first_match, got_index) {
                    // give the keyword match back for a later read
                    self.slots[g] = Slot::Keyword(keyword.len());
                }
                if first_match || keyword_before {
                    got = Some((p, false));
                }
            }
        }

        let Some((i, by_keyword)) = got else {
            if flags.contains(Flags::MANDATORY) {
                self.missing(keyword);
            }
            return None;
        };
        let arg = &self.conf[i];
        let value = if by_keyword {
            arg[keyword.len()..].trim_start().to_string()
        } else {
            arg.clone()
        };
        if value.is_empty() {
            // Click treats an empty argument as absent ("use the default").
            if flags.contains(Flags::MANDATORY) {
                self.missing(keyword);
            }
            return None;
        }
        Some(value)
    }

    fn missing(&mut self, keyword: &str) {
        self.errors.push(ArgError::Missing {
            keyword: keyword.to_string(),
        });
    }

    fn invalid(&mut self, keyword: &str, text: String, message: String) {
        self.errors.push(ArgError::Invalid {
            keyword: keyword.to_string(),
            text,
            message,
        });
    }

    /// Reads one argument with `flags`, parsing it with `parse`.
    pub fn read_flagged_with<T: 'a, F>(
        mut self,
        keyword: &str,
        flags: Flags,
        out: &'a mut T,
        parse: F,
    ) -> Self
    where
        F: FnOnce(&str) -> Result<T, String>,
    {
        self.last_ok = false;
        if let Some(text) = self.find(keyword, flags.without(Flags::FIRST_MATCH)) {
            match parse(&text) {
                Ok(v) => {
                    self.last_ok = true;
                    self.commits.push(Box::new(move || *out = v));
                }
                Err(message) => self.invalid(keyword, text, message),
            }
        }
        self
    }

    /// Reads one argument with `flags`, parsing it with `T`'s [`FromArg`].
    pub fn read_flagged<T: FromArg + 'a>(
        self,
        keyword: &str,
        flags: Flags,
        out: &'a mut T,
    ) -> Self {
        let ctx = self.ctx;
        self.read_flagged_with(keyword, flags, out, |s| T::from_arg(s, ctx))
    }

    /// Reads optional keyword argument `keyword` into `out`.
    pub fn read<T: FromArg + 'a>(self, keyword: &str, out: &'a mut T) -> Self {
        self.read_flagged(keyword, Flags::NONE, out)
    }

    /// Reads mandatory keyword argument `keyword` into `out`.
    pub fn read_m<T: FromArg + 'a>(self, keyword: &str, out: &'a mut T) -> Self {
        self.read_flagged(keyword, Flags::MANDATORY, out)
    }

    /// Reads optional argument `keyword`, or the next plain argument by
    /// position, into `out`.
    pub fn read_p<T: FromArg + 'a>(self, keyword: &str, out: &'a mut T) -> Self {
        self.read_flagged(keyword, Flags::POSITIONAL, out)
    }

    /// Reads mandatory argument `keyword`, or the next argument by position,
    /// into `out`.
    pub fn read_mp<T: FromArg + 'a>(self, keyword: &str, out: &'a mut T) -> Self {
        self.read_flagged(keyword, Flags::MANDATORY | Flags::POSITIONAL, out)
    }

    /// Like [`read`](Args::read), parsing with `parse`.
    ///
    /// ```
    /// use rclick_core::args::Args;
    /// let mut even = 0u32;
    /// let err = Args::new(&["N 3"])
    ///     .read_with("N", &mut even, |s| match s.parse::<u32>() {
    ///         Ok(n) if n % 2 == 0 => Ok(n),
    ///         _ => Err("expected even number".to_string()),
    ///     })
    ///     .complete()
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "N: expected even number");
    /// ```
    pub fn read_with<T: 'a, F>(self, keyword: &str, out: &'a mut T, parse: F) -> Self
    where
        F: FnOnce(&str) -> Result<T, String>,
    {
        self.read_flagged_with(keyword, Flags::NONE, out, parse)
    }

    /// Like [`read_m`](Args::read_m), parsing with `parse`.
    pub fn read_m_with<T: 'a, F>(self, keyword: &str, out: &'a mut T, parse: F) -> Self
    where
        F: FnOnce(&str) -> Result<T, String>,
    {
        self.read_flagged_with(keyword, Flags::MANDATORY, out, parse)
    }

    /// Like [`read_p`](Args::read_p), parsing with `parse`.
    pub fn read_p_with<T: 'a, F>(self, keyword: &str, out: &'a mut T, parse: F) -> Self
    where
        F: FnOnce(&str) -> Result<T, String>,
    {
        self.read_flagged_with(keyword, Flags::POSITIONAL, out, parse)
    }

    /// Like [`read_mp`](Args::read_mp), parsing with `parse`.
    pub fn read_mp_with<T: 'a, F>(self, keyword: &str, out: &'a mut T, parse: F) -> Self
    where
        F: FnOnce(&str) -> Result<T, String>,
    {
        self.read_flagged_with(keyword, Flags::MANDATORY | Flags::POSITIONAL, out, parse)
    }

    /// Reads every `keyword` argument, in order, parsing each with `parse`;
    /// if there is at least one and all parse, `out` is replaced by the list.
    pub fn read_all_flagged_with<T: 'a, F>(
        mut self,
        keyword: &str,
        flags: Flags,
        out: &'a mut Vec<T>,
        mut parse: F,
    ) -> Self
    where
        F: FnMut(&str) -> Result<T, String>,
    {
        let mut flags = flags | Flags::FIRST_MATCH;
        let mut values = Vec::new();
        let mut ok = true;
        while let Some(text) = self.find(keyword, flags) {
            flags = flags.without(Flags::MANDATORY);
            match parse(&text) {
                Ok(v) => values.push(v),
                Err(message) => {
                    ok = false;
                    self.invalid(keyword, text, message);
                }
            }
        }
        self.last_ok = ok && !values.is_empty();
        if self.last_ok {
            self.commits.push(Box::new(move || *out = values));
        }
        self
    }

    /// Reads every `KEYWORD value` argument for `keyword`, in order (a
    /// keyword that may repeat, like `ROUTE`).  If at least one is given and
    /// all parse, `out` is replaced by their values; otherwise it is left
    /// alone.
    ///
    /// ```
    /// use rclick_core::args::{Args, IpPrefix};
    /// let mut routes = Vec::<IpPrefix>::new();
    /// Args::new(&["ROUTE 10/8", "ROUTE 1.2.3.4"]).read_all("ROUTE", &mut routes).complete().unwrap();
    /// assert_eq!(routes.len(), 2);
    /// ```
    pub fn read_all<T: FromArg + 'a>(self, keyword: &str, out: &'a mut Vec<T>) -> Self {
        let ctx = self.ctx;
        self.read_all_flagged_with(keyword, Flags::NONE, out, |s| T::from_arg(s, ctx))
    }

    /// Like [`read_all`](Args::read_all), but at least one must be given.
    pub fn read_all_m<T: FromArg + 'a>(self, keyword: &str, out: &'a mut Vec<T>) -> Self {
        let ctx = self.ctx;
        self.read_all_flagged_with(keyword, Flags::MANDATORY, out, |s| T::from_arg(s, ctx))
    }

    /// Like [`read_all`](Args::read_all), parsing with `parse`.
    pub fn read_all_with<T: 'a, F>(self, keyword: &str, out: &'a mut Vec<T>, parse: F) -> Self
    where
        F: FnMut(&str) -> Result<T, String>,
    {
        self.read_all_flagged_with(keyword, Flags::NONE, out, parse)
    }

    /// Sets `given` (on success) to whether the previous read found its
    /// argument and parsed it (Click's `read_status`), for "was this
    /// specified?" defaults.
    ///
    /// ```
    /// use std::net::Ipv4Addr;
    /// use rclick_core::args::Args;
    /// let (mut src, mut src_given) = (Ipv4Addr::UNSPECIFIED, false);
    /// Args::new(&["SRC 1.2.3.4"]).read("SRC", &mut src).read_status(&mut src_given).complete().unwrap();
    /// assert!(src_given);
    /// ```
    pub fn read_status(mut self, given: &'a mut bool) -> Self {
        let ok = self.last_ok;
        self.commits.push(Box::new(move || *given = ok));
        self
    }

    /// Takes every argument not read so far, as written, into `out` (on
    /// success), so that [`complete`](Args::complete) does not report them.
    /// Later reads find nothing.
    pub fn rest(mut self, out: &'a mut Vec<String>) -> Self {
        let mut rest = Vec::new();
        for (slot, arg) in self.slots.iter_mut().zip(&self.conf) {
            if slot.is_free() {
                rest.push(arg.clone());
                *slot = Slot::UsedPositional;
            }
        }
        self.commits.push(Box::new(move || *out = rest));
        self
    }

    fn commit(self) {
        for c in self.commits {
            c();
        }
    }

    /// Finishes the parse: reports arguments nobody read (`WORD: unknown
    /// argument` for keyword-like ones, then one `too many arguments` for
    /// plain ones); if there are no errors at all, assigns every result.
    pub fn complete(mut self) -> Result<(), ArgErrors> {
        let mut extra = Vec::new();
        for (slot, arg) in self.slots.iter().zip(&self.conf) {
            match *slot {
                Slot::Plain => extra.push(arg.clone()),
                Slot::Keyword(len) => self.errors.push(ArgError::UnknownKeyword {
                    keyword: arg[..len].to_string(),
                    text: arg.clone(),
                }),
                Slot::UsedPositional | Slot::UsedKeyword => {}
            }
        }
        if !extra.is_empty() {
            self.errors.push(ArgError::TooManyArguments { extra });
        }
        if self.errors.is_empty() {
            self.commit();
            Ok(())
        } else {
            Err(ArgErrors(std::mem::take(&mut self.errors)))
        }
    }

    /// Finishes the parse without checking for unread arguments (Click's
    /// `consume`): if there are no errors, assigns every result and returns
    /// the unread arguments, as written, for the caller to parse.
    pub fn consume(mut self) -> Result<Vec<String>, ArgErrors> {
        if !self.errors.is_empty() {
            return Err(ArgErrors(std::mem::take(&mut self.errors)));
        }
        let rest = self
            .slots
            .iter()
            .zip(&self.conf)
            .filter(|(s, _)| s.is_free())
            .map(|(_, a)| a.clone())
            .collect();
        self.commit();
        Ok(rest)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::super::basic::{AnyArg, Data};
    use super::super::context::AddrKind;
    use super::super::net::{EtherAddr, IpPrefix};
    use super::super::units::Interval;
    use super::*;

    fn msgs(r: Result<(), ArgErrors>) -> Vec<String> {
        r.unwrap_err().iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn keyword_detection() {
        assert_eq!(keyword_len("LIMIT 5"), Some(5));
        assert_eq!(keyword_len("LIMIT   5"), Some(5));
        assert_eq!(keyword_len("_X1:.?! v"), Some(7));
        assert_eq!(keyword_len("hello world"), Some(5));
        assert_eq!(keyword_len("LIMIT"), None);
        assert_eq!(keyword_len("LIMIT "), None);
        assert_eq!(keyword_len("5 LIMIT"), None);
        assert_eq!(keyword_len("\"A\" b"), None);
        assert_eq!(keyword_len("A-B c"), None);
        assert_eq!(keyword_len(""), None);
        assert_eq!(keyword_len("1.2.3.4 5"), None);
    }

    #[test]
    fn positional_and_keyword() {
        let mut data = Vec::<u8>::new();
        let mut limit: i64 = -1;
        let mut stop = false;
        Args::new(&["\"abc\"", "10", "STOP true"])
            .read_p("DATA", &mut data)
            .read_p("LIMIT", &mut limit)
            .read("STOP", &mut stop)
            .complete()
            .unwrap();
        assert_eq!((data.as_slice(), limit, stop), (&b"abc"[..], 10, true));

        // keywords in any order, read_p accepting its keyword
        let (mut data, mut limit) = (Vec::<u8>::new(), -1i64);
        Args::new(&["LIMIT 3", "DATA x"])
            .read_p("DATA", &mut data)
            .read_p("LIMIT", &mut limit)
            .complete()
            .unwrap();
        assert_eq!((data.as_slice(), limit), (&b"x"[..], 3));
    }

    #[test]
    fn positional_after_keyword_is_too_many() {
        let (mut a, mut b) = (0u32, 0u32);
        let r = Args::new(&["A 1", "2"])
            .read_p("A", &mut a)
            .read_p("B", &mut b)
            .complete();
        assert_eq!(msgs(r), ["too many arguments"]);
        assert_eq!((a, b), (0, 0));
    }

    #[test]
    fn empty_argument_keeps_default() {
        let (mut a, mut b) = (7u32, 0u32);
        Args::new(&["", "2"])
            .read_p("A", &mut a)
            .read_p("B", &mut b)
            .complete()
            .unwrap();
        assert_eq!((a, b), (7, 2));
        let r = Args::new(&[""]).read_mp("A", &mut a).complete();
        assert_eq!(msgs(r), ["A: required argument missing"]);
    }

    #[test]
    fn mandatory_missing() {
        let mut limit = 0i64;
        let mut foo = String::new();
        let r = Args::new::<&str>(&[])
            .read_mp("LIMIT", &mut limit)
            .read_m("FOO", &mut foo)
            .complete();
        assert_eq!(
            msgs(r),
            [
                "LIMIT: required argument missing",
                "FOO: required argument missing"
            ]
        );
        // a mandatory keyword-only read does not take positional arguments
        let r = Args::new(&["5"]).read_m("LIMIT", &mut limit).complete();
        assert_eq!(
            msgs(r),
            ["LIMIT: required argument missing", "too many arguments"]
        );
    }

    #[test]
    fn mandatory_positional_takes_keyword_like_argument() {
        let mut label = AnyArg::default();
        Args::new(&["hello world"])
            .read_mp("LABEL", &mut label)
            .complete()
            .unwrap();
        assert_eq!(label.0, "hello world");
        // but an optional one does not
        let mut label = AnyArg::default();
        let r = Args::new(&["hello world"])
            .read_p("LABEL", &mut label)
            .complete();
        assert_eq!(msgs(r), ["hello: unknown argument"]);
        assert_eq!(label.0, "");
    }

    #[test]
    fn unknown_keywords_and_too_many() {
        let mut a = 0u8;
        let r = Args::new(&["1", "2", "FOO 1", "BAR 2", "3"])
            .read_p("A", &mut a)
            .complete();
        assert_eq!(
            msgs(r),
            [
                "FOO: unknown argument",
                "BAR: unknown argument",
                "too many arguments"
            ]
        );
        assert_eq!(a, 0);
        let err = Args::new(&["1", "2"])
            .read_p("A", &mut a)
            .complete()
            .unwrap_err();
        assert_eq!(
            err.0,
            [ArgError::TooManyArguments {
                extra: vec!["2".into()]
            }]
        );
        let err = Args::new(&["FOO  x"]).complete().unwrap_err();
        assert_eq!(
            err.0,
            [ArgError::UnknownKeyword {
                keyword: "FOO".into(),
                text: "FOO  x".into()
            }]
        );
    }

    #[test]
    fn type_errors_all_reported_nothing_assigned() {
        let (mut limit, mut stop, mut ip) = (-1i64, false, Ipv4Addr::UNSPECIFIED);
        let mut ok_one = 0u8;
        let err = Args::new(&["x", "OK 3", "STOP maybe", "IP 1.2.3"])
            .read_mp("LIMIT", &mut limit)
            .read("OK", &mut ok_one)
            .read("STOP", &mut stop)
            .read("IP", &mut ip)
            .complete()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "LIMIT: expected integer\nSTOP: expected boolean\nIP: expected IP address"
        );
        assert_eq!(
            err.0[0],
            ArgError::Invalid {
                keyword: "LIMIT".into(),
                text: "x".into(),
                message: "expected integer".into()
            }
        );
        assert_eq!(
            (limit, stop, ip, ok_one),
            (-1, false, Ipv4Addr::UNSPECIFIED, 0)
        );
    }

    #[test]
    fn duplicate_keywords_last_wins() {
        let mut d = String::new();
        Args::new(&["DATA a", "DATA b", "DATA c"])
            .read("DATA", &mut d)
            .complete()
            .unwrap();
        assert_eq!(d, "c");
        // a bad earlier duplicate is not even parsed, as in Click
        let mut n = 0u32;
        Args::new(&["N x", "N 4"])
            .read("N", &mut n)
            .complete()
            .unwrap();
        assert_eq!(n, 4);
        // a positional argument and its keyword: the keyword comes later, so wins
        Args::new(&["1", "N 2"])
            .read_p("N", &mut n)
            .complete()
            .unwrap();
        assert_eq!(n, 2);
    }

    #[test]
    fn keyword_must_match_exactly() {
        let mut n = 0u32;
        let r = Args::new(&["LIMITS 1"]).read("LIMIT", &mut n).complete();
        assert_eq!(msgs(r), ["LIMITS: unknown argument"]);
        let r = Args::new(&["limit 1"]).read("LIMIT", &mut n).complete();
        assert_eq!(msgs(r), ["limit: unknown argument"]);
        assert_eq!(n, 0);
    }

    #[test]
    fn custom_parser() {
        let mut v = 0u32;
        Args::new(&["RATE 7"])
            .read_with("RATE", &mut v, |s| {
                s.parse::<u32>().map_err(|e| e.to_string())
            })
            .complete()
            .unwrap();
        assert_eq!(v, 7);
        let r = Args::new(&["RATE x"])
            .read_with("RATE", &mut v, |_| {
                Err::<u32, _>("expected rate".to_string())
            })
            .complete();
        assert_eq!(msgs(r), ["RATE: expected rate"]);
        let (mut a, mut b, mut c) = (0u32, 0u32, 0u32);
        let p = |s: &str| s.parse::<u32>().map_err(|e| e.to_string());
        Args::new(&["1", "2", "C 3"])
            .read_mp_with("A", &mut a, p)
            .read_p_with("B", &mut b, p)
            .read_m_with("C", &mut c, p)
            .complete()
            .unwrap();
        assert_eq!((a, b, c), (1, 2, 3));
    }

    #[test]
    fn read_all_repeats() {
        let mut routes = vec![IpPrefix::new(Ipv4Addr::LOCALHOST, 8)];
        let mut other = 0u8;
        Args::new(&["ROUTE 10/8", "X 1", "ROUTE 1.2.3.4"])
            .read_all("ROUTE", &mut routes)
            .read("X", &mut other)
            .complete()
            .unwrap();
        let shown: Vec<String> = routes.iter().map(|r| r.to_string()).collect();
        assert_eq!(shown, ["10.0.0.0/8", "1.2.3.4/32"]);
        assert_eq!(other, 1);

        // none given: left alone; mandatory: reported
        let mut v = vec![5u8];
        Args::new::<&str>(&[])
            .read_all("N", &mut v)
            .complete()
            .unwrap();
        assert_eq!(v, [5]);
        let r = Args::new::<&str>(&[]).read_all_m("N", &mut v).complete();
        assert_eq!(msgs(r), ["N: required argument missing"]);
        Args::new(&["N 1", "N 2"])
            .read_all_m("N", &mut v)
            .complete()
            .unwrap();
        assert_eq!(v, [1, 2]);

        // every bad one reported, nothing assigned
        let r = Args::new(&["N x", "N 2", "N y"])
            .read_all("N", &mut v)
            .complete();
        assert_eq!(
            msgs(r),
            [
                "N: expected unsigned integer",
                "N: expected unsigned integer"
            ]
        );
        assert_eq!(v, [1, 2]);

        let mut words = Vec::<String>::new();
        Args::new(&["W a", "W b"])
            .read_all_with("W", &mut words, |s| Ok(s.to_uppercase()))
            .complete()
            .unwrap();
        assert_eq!(words, ["A", "B"]);
    }

    #[test]
    fn rest_and_consume() {
        let mut a = 0u32;
        let mut rest = Vec::new();
        Args::new(&["1", "FOO 2", "3"])
            .read_p("A", &mut a)
            .rest(&mut rest)
            .complete()
            .unwrap();
        assert_eq!(a, 1);
        assert_eq!(rest, ["FOO 2", "3"]);

        let mut b = 0u32;
        let left = Args::new(&["B 2", "X 1", "4"])
            .read("B", &mut b)
            .consume()
            .unwrap();
        assert_eq!(b, 2);
        assert_eq!(left, ["X 1", "4"]);

        let mut b = 0u32;
        let err = Args::new(&["B x", "X 1"])
            .read("B", &mut b)
            .consume()
            .unwrap_err();
        assert_eq!(err.to_string(), "B: expected unsigned integer");
        assert_eq!(b, 0);

        // rest is not assigned when the parse fails
        let mut rest = vec!["keep".to_string()];
        let mut b = 0u32;
        let r = Args::new(&["B x", "Y"])
            .read("B", &mut b)
            .rest(&mut rest)
            .complete();
        assert!(r.is_err());
        assert_eq!(rest, ["keep"]);
    }

    #[test]
    fn read_status_and_flags() {
        let (mut x, mut x_given, mut y, mut y_given) = (0u8, true, 0u8, true);
        Args::new(&["X 1"])
            .read("X", &mut x)
            .read_status(&mut x_given)
            .read("Y", &mut y)
            .read_status(&mut y_given)
            .complete()
            .unwrap();
        assert_eq!((x, x_given, y, y_given), (1, true, 0, false));

        let mut z = 0u8;
        let flags = Flags::MANDATORY | Flags::POSITIONAL;
        assert!(flags.contains(Flags::MANDATORY));
        assert!(!Flags::NONE.contains(Flags::POSITIONAL));
        Args::new(&["9"])
            .read_flagged("Z", flags, &mut z)
            .complete()
            .unwrap();
        assert_eq!(z, 9);
    }

    #[test]
    fn status_and_errors_so_far() {
        let mut n = 0u8;
        let args = Args::new(&["x"]).read_p("N", &mut n);
        assert!(!args.status());
        assert_eq!(args.errors().len(), 1);
        let args = Args::new(&["1"]);
        assert!(args.status());
        assert!(args.context().lookup_address("a", AddrKind::Ip).is_none());
    }

    struct Names;
    impl ArgContext for Names {
        fn lookup_address(&self, name: &str, kind: AddrKind) -> Option<String> {
            match (name, kind) {
                ("eth0:ip", AddrKind::Ip) => Some("10.0.0.1".into()),
                ("eth0", AddrKind::Ether) => Some("00:01:02:03:04:05".into()),
                _ => None,
            }
        }
    }

    #[test]
    fn context_resolves_names() {
        let (mut ip, mut eth) = (Ipv4Addr::UNSPECIFIED, EtherAddr::default());
        Args::new_with(&["eth0:ip", "eth0"], &Names)
            .read_mp("IP", &mut ip)
            .read_mp("ETH", &mut eth)
            .complete()
            .unwrap();
        assert_eq!(ip, Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(eth, EtherAddr([0, 1, 2, 3, 4, 5]));
        let r = Args::new(&["eth0:ip"]).read_mp("IP", &mut ip).complete();
        assert_eq!(msgs(r), ["IP: expected IP address"]);
    }

    #[test]
    fn many_types_together() {
        let mut data = Data::default();
        let mut interval = Interval::ZERO;
        let mut limit = 0i64;
        let conf = vec![
            "\\<00 01>".to_string(),
            "  LIMIT 5 ".to_string(),
            "INTERVAL 10ms".to_string(),
        ];
        Args::new(&conf)
            .read_p("DATA", &mut data)
            .read("LIMIT", &mut limit)
            .read("INTERVAL", &mut interval)
            .complete()
            .unwrap();
        assert_eq!(data.0, [0, 1]);
        assert_eq!(limit, 5);
        assert_eq!(interval, Interval::from_millis(10));
    }

    #[test]
    fn first_positional_taken_by_keyword_stops_positions() {
        // Click: once the first unread argument was taken by keyword, later
        // plain arguments are not positional.
        let (mut a, mut b) = (0u8, 0u8);
        let r = Args::new(&["B 1", "2"])
            .read("B", &mut b)
            .read_p("A", &mut a)
            .complete();
        assert_eq!(msgs(r), ["too many arguments"]);
        // whereas read order alone does not matter when positions come first
        let (mut a, mut b) = (0u8, 0u8);
        Args::new(&["2", "B 1"])
            .read("B", &mut b)
            .read_p("A", &mut a)
            .complete()
            .unwrap();
        assert_eq!((a, b), (2, 1));
    }
}
