//! Click-style typed configuration argument parsing.
//!
//! An element's configuration string is split on top-level commas (by
//! `rclick-lang`) into arguments.  [`Args`] matches those arguments against
//! the element's keywords, parses each with its type's [`FromArg`] parser,
//! and writes the results to the caller's variables *only if every argument
//! parsed*: a failed configuration changes nothing.  All errors are collected
//! and reported together, each naming its keyword, in Click's words
//! (`LIMIT: expected integer`, `LIMIT: required argument missing`,
//! `FOO: unknown argument`, `too many arguments`).
//!
//! # Arguments and keywords
//!
//! Each argument is either *keyword-like* (`KEYWORD value`: a first word made
//! of a letter or `_` followed by letters, digits, `_`, `:`, `.`, `?` or `!`,
//! then space, then a non-empty value) or *plain*.  The rules are Click's
//! (`lib/args.cc`):
//!
//! * [`Args::read`] / [`Args::read_m`] take a keyword argument (optional or
//!   mandatory).  If a keyword is given several times, the last one wins and
//!   the others are consumed silently.
//! * [`Args::read_p`] / [`Args::read_mp`] also take the next plain argument
//!   by position.  Positional arguments come first: once the first
//!   not-yet-matched argument is a keyword argument, no later argument is
//!   taken by position.  A mandatory positional read whose keyword was not
//!   given takes the next argument even if it looks like a keyword argument.
//!   When both a positional argument and the keyword are present, the later
//!   one wins.
//! * [`Args::complete`] reports every argument nobody read: a keyword-like
//!   one as `WORD: unknown argument`, plain ones as `too many arguments`.
//!   [`Args::consume`] and [`Args::rest`] hand unread arguments back instead.
//! * An empty argument (as in `RatedSource(, 10)`) counts as "given but
//!   use the default": an optional read leaves its variable alone.
//!   (Click silently does the same for mandatory reads; here a mandatory read
//!   of an empty argument reports `required argument missing`.)
//!
//! # Example
//!
//! ```
//! use rclick_core::args::{Args, Interval};
//!
//! let conf: Vec<String> = vec!["\"hello\"".into(), "LIMIT 5".into(), "INTERVAL 10ms".into()];
//! let mut data = Vec::<u8>::new();
//! let mut limit: i64 = -1;
//! let mut stop = false;
//! let mut interval = Interval::from_secs(1);
//! Args::new(&conf)
//!     .read_p("DATA", &mut data)
//!     .read_p("LIMIT", &mut limit)
//!     .read("STOP", &mut stop)
//!     .read("INTERVAL", &mut interval)
//!     .complete()
//!     .expect("valid configuration");
//! assert_eq!(data, b"hello");
//! assert_eq!(limit, 5);
//! assert!(!stop);
//! assert_eq!(interval.to_string(), "10ms");
//!
//! // A failed parse reports every problem and assigns nothing.
//! let bad: Vec<String> = vec!["x".into(), "STOP maybe".into(), "BOGUS 1".into()];
//! let mut limit: i64 = -1;
//! let mut stop = false;
//! let err = Args::new(&bad)
//!     .read_mp("LIMIT", &mut limit)
//!     .read("STOP", &mut stop)
//!     .complete()
//!     .unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "LIMIT: expected integer\nSTOP: expected boolean\nBOGUS: unknown argument"
//! );
//! assert_eq!(limit, -1);
//! ```
//!
//! # Types
//!
//! [`FromArg`] is implemented for `bool`, every primitive integer, `f64`,
//! `String` (a possibly-quoted string), [`Word`], [`Keyword`], [`AnyArg`]
//! (raw text), [`Data`] (bytes, with `\<hex>` escapes), [`Ipv4Addr`],
//! [`IpPrefix`], [`EtherAddr`], [`Interval`], [`Bandwidth`] and
//! [`SpaceSep`] lists of any of these.  Address
//! parsers consult an [`ArgContext`] (see [`Args::new_with`]) for names such
//! as `eth0:ip` defined by `AddressInfo`.
//!
//! [`Ipv4Addr`]: std::net::Ipv4Addr

mod basic;
mod context;
mod error;
mod net;
mod parser;
mod quote;
mod real;
mod services;
mod units;

pub use basic::{AnyArg, Data, FromArg, Keyword, SpaceSep, Word};
pub use context::{AddrKind, ArgContext, NoContext};
pub use error::{ArgError, ArgErrors};
pub use net::{
    parse_ether, parse_ip_addr, parse_ip_prefix, parse_ip_prefix_with, EtherAddr, IpPrefix,
};
pub use parser::{Args, Flags};
pub use real::{parse_real2, unparse_real2};
pub use services::service_port;
pub use units::{parse_bandwidth, parse_interval, unparse_bandwidth, Bandwidth, Interval};
