//! # RandomBitErrors
//!
//! `RandomBitErrors(P [, KIND, ACTIVE])`
//!
//! **Category:** basic modification. Changes packet bits at random.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Treats every bit of every packet as in error with probability P, and
//! changes the bits in error according to KIND: `flip` inverts them, `set`
//! sets them to 1, `clear` sets them to 0. The draws come from the
//! router's shared generator (see RandomSeed). For each byte one draw
//! decides how many of its bits are in error (0 to 8, with the binomial
//! probabilities of P), and, when some are, further draws pick which.
//!
//! P is kept as a fixed-point number with 27 fraction bits, which gives
//! the readings of Click's handler for the values compared (0.1, 0.5,
//! 0.3333333, 0.000001; not 0.123456789, which Click reads back as
//! 0.12345678766 and this element as 0.12345679): a P too small to be
//! represented is 0, which Click warns about (`zero bit error probability
//! (underflow?)`) and so does this element.
//!
//! The same seed does not give the same bits as Click: Click picks the
//! error pattern of a byte from a table of its own. The error rate, its
//! spread over bytes and packets, and every handler and message are
//! Click's.
//!
//! Keywords:
//!
//! * `P` (real between 0 and 1, mandatory): the bit error probability.
//!   Anything else is `P: parse error`, and more than 1 is `drop
//!   probability must be between 0 and 1`.
//! * `KIND` (`flip`, `set` or `clear`; empty means `flip`): default
//!   `flip`. Anything else is `bad action 'X' (must be 'set', 'clear', or
//!   'flip')`.
//! * `ACTIVE` (boolean): whether to change anything. Default true.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `p_bit_error` (read/write): P.
//! * `error_kind` (read/write): KIND.
//! * `active` (read/write): ACTIVE.
//!
//! Writes reconfigure the element: a bad value changes nothing.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetCRC32 -> RandomBitErrors(0.0001) -> CheckCRC32 -> ...
//! ```
//!
//! ## See also
//!
//! RandomSample, RandomSeed

use crate::basic::each_packet::{pull_each, push_each};
use rclick_core::args::{AnyArg, Args};
use rclick_core::{random, ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use crate::basic::unparse_real2;

/// Fraction bits of P.
const P_BITS: u32 = 27;
/// P = 1.
const P_ONE: u64 = 1 << P_BITS;

rclick_core::handlers! {
    /// The handlers (the manual's list): each is written by reconfiguring
    /// its argument, at its position.
    enum H {
        P = reconfigure_read("p_bit_error", "P").positional(0),
        Kind = reconfigure_read("error_kind", "KIND").positional(1),
        Active = reconfigure_read("active", "ACTIVE").positional(2),
    }
}

/// What a bit in error becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Kind {
    Clear,
    Set,
    #[default]
    Flip,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Clear => "clear",
            Kind::Set => "set",
            Kind::Flip => "flip",
        }
    }
}

/// The RandomBitErrors element.
pub struct RandomBitErrors {
    /// P, with [`P_BITS`] fraction bits.
    p: u64,
    kind: Kind,
    active: bool,
    /// `cum[k]`: the probability, scaled to 2^31 (a draw's range), that a
    /// byte has at most k bits in error.
    cum: [u64; 9],
}

impl Default for RandomBitErrors {
    fn default() -> Self {
        RandomBitErrors {
            p: 0,
            kind: Kind::Flip,
            active: true,
            cum: [1 << 31; 9],
        }
    }
}

/// Parses P: a plain non-negative decimal, rounded to [`P_BITS`] bits.
fn parse_p(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let plain = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && !t.starts_with(['-', '+']);
    let v: f64 = match t.parse() {
        Ok(v) if plain && v >= 0.0 && f64::is_finite(v) => v,
        _ => return Err("P: parse error".into()),
    };
    if v > 1.0 {
        return Err("drop probability must be between 0 and 1".into());
    }
    Ok((v * P_ONE as f64).round() as u64)
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    match s.trim() {
        "flip" | "" => Ok(Kind::Flip),
        "set" => Ok(Kind::Set),
        "clear" => Ok(Kind::Clear),
        other => Err(format!(
            "bad action '{other}' (must be 'set', 'clear', or 'flip')"
        )),
    }
}

/// The cumulative binomial table for bit error probability `p`.
fn cumulative(p: u64) -> [u64; 9] {
    let q = p as f64 / P_ONE as f64;
    let mut cum = [0u64; 9];
    let mut acc = 0.0f64;
    let mut choose = 1.0f64; // C(8, k)
    for (k, c) in cum.iter_mut().enumerate() {
        if k > 0 {
            choose = choose * (9 - k) as f64 / k as f64;
        }
        acc += choose * q.powi(k as i32) * (1.0 - q).powi(8 - k as i32);
        *c = ((acc * (1u64 << 31) as f64).round() as u64).min(1 << 31);
    }
    cum[8] = 1 << 31;
    cum
}

impl RandomBitErrors {
    /// The error mask of one byte (0 when it has no error).
    #[inline]
    fn byte_errors(&self) -> u8 {
        let v = u64::from(random::random());
        if v < self.cum[0] {
            return 0;
        }
        let nbits = self.cum.iter().position(|&c| v < c).unwrap_or(8);
        // nbits distinct bit positions, chosen uniformly
        let mut mask = 0u8;
        let mut left = nbits;
        while left > 0 {
            let bit = 1u8 << random::random_range(0, 7);
            if mask & bit == 0 {
                mask |= bit;
                left -= 1;
            }
        }
        mask
    }

    fn apply(&self, p: &mut Packet) {
        if !self.active || self.p == 0 {
            return;
        }
        let masks: Vec<u8> = (0..p.len()).map(|_| self.byte_errors()).collect();
        if masks.iter().all(|&m| m == 0) {
            return;
        }
        for (b, m) in p.data_mut().iter_mut().zip(masks) {
            match self.kind {
                Kind::Clear => *b &= !m,
                Kind::Set => *b |= m,
                Kind::Flip => *b ^= m,
            }
        }
    }
}

impl Element for RandomBitErrors {
    fn class_name(&self) -> &'static str {
        "RandomBitErrors"
    }
    fn port_count(&self) -> &'static str {
        "1/1"
    }
    /// Each packet alone through `simple_action`.
    fn is_simple(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.apply(&mut p);
        Some(p)
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut p = AnyArg::default();
        let mut kind = String::new();
        let mut active = true;
        Args::new(conf)
            .read_mp("P", &mut p)
            .read_p("KIND", &mut kind)
            .read_p("ACTIVE", &mut active)
            .complete()
            .map_err(|e| e.to_string())?;
        let kind = parse_kind(&kind)?;
        let p = parse_p(&p.0)?;
        if p == 0 {
            cx.warning("zero bit error probability (underflow?)");
        }
        self.p = p;
        self.cum = cumulative(p);
        self.kind = kind;
        self.active = active;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        push_each(batch, cx, |p| self.apply(p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_each(max, cx, |p| self.apply(p))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::P) => unparse_real2(self.p, P_BITS),
            Some(H::Kind) => self.kind.name().to_string(),
            Some(H::Active) => self.active.to_string(),
            None => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{cumulative, RandomBitErrors, P_ONE};
    use crate::misc::test_registry;
    use rclick_core::random::test_lock as random_lock;
    use rclick_core::testing;

    #[test]
    fn handlers_read_as_in_click() {
        let r = testing::build(
            "Idle -> x :: RandomBitErrors(P 0.5, KIND set, ACTIVE false) -> Discard;
             Idle -> y :: RandomBitErrors(0.3333333) -> Discard;
             Idle -> z :: RandomBitErrors(0.000001, \"\") -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "x.p_bit_error"), "0.5");
        assert_eq!(testing::read(&r, "x.error_kind"), "set");
        assert_eq!(testing::read(&r, "x.active"), "false");
        assert_eq!(testing::read(&r, "y.p_bit_error"), "0.3333333");
        assert_eq!(testing::read(&r, "y.error_kind"), "flip");
        assert_eq!(testing::read(&r, "z.p_bit_error"), "0.000001");
        assert_eq!(testing::read(&r, "z.error_kind"), "flip");
        r.write_handler("y.error_kind", "clear").unwrap();
        assert_eq!(testing::read(&r, "y.error_kind"), "clear");
        assert!(r.write_handler("y.p_bit_error", "2").is_err());
        assert!(r.write_handler("y.error_kind", "1").is_err());
        assert_eq!(testing::read(&r, "y.p_bit_error"), "0.3333333");
    }

    #[test]
    fn configuration_errors_and_warning() {
        let err = |c: &str| testing::build(c, &test_registry(), true).err().unwrap();
        assert!(err("Idle -> RandomBitErrors(1.5) -> Discard;")
            .contains("drop probability must be between 0 and 1"));
        assert!(err("Idle -> RandomBitErrors(-0.5) -> Discard;").contains("P: parse error"));
        assert!(err("Idle -> RandomBitErrors(50%) -> Discard;").contains("P: parse error"));
        assert!(
            err("Idle -> RandomBitErrors() -> Discard;").contains("P: required argument missing")
        );
        assert!(err("Idle -> RandomBitErrors(0.1, bogus) -> Discard;")
            .contains("bad action 'bogus' (must be 'set', 'clear', or 'flip')"));
        assert!(err("Idle -> RandomBitErrors(0.1, KIND 0) -> Discard;").contains("bad action '0'"));
        assert!(err("Idle -> RandomBitErrors(0.1, flip, maybe) -> Discard;").contains("ACTIVE"));
        let r = testing::build(
            "Idle -> x :: RandomBitErrors(1e-12) -> Discard;",
            &test_registry(),
            true,
        )
        .unwrap();
        assert!(r
            .take_log()
            .iter()
            .any(|l| l.contains("warning: zero bit error probability (underflow?)")));
        assert_eq!(testing::read(&r, "x.p_bit_error"), "0");
    }

    #[test]
    fn kinds() {
        let r = testing::run(
            "InfiniteSource(\\<00000000 00000000>, LIMIT 2, STOP true) -> RandomBitErrors(1) -> Print(a) -> Discard;
             InfiniteSource(\\<ffffffff ffffffff>, LIMIT 1) -> RandomBitErrors(0.7, clear) -> Print(c) -> Discard;
             InfiniteSource(\\<0000>, LIMIT 1) -> RandomBitErrors(0.7, set, false) -> Print(d) -> Discard;",
            &test_registry(),
        )
        .unwrap();
        let log = r.take_log();
        // P 1 changes every bit, as in Click; inactive changes nothing
        assert_eq!(
            log.iter()
                .filter(|l| *l == "a:    8 | ffffffff ffffffff")
                .count(),
            2
        );
        assert!(log.iter().any(|l| l == "d:    2 | 0000"), "{log:?}");
        assert!(log.iter().any(|l| l.starts_with("c:    8 | ")));
        assert!(!log.iter().any(|l| l == "c:    8 | ffffffff ffffffff"));
    }

    #[test]
    fn error_rate() {
        let _g = random_lock();
        rclick_core::random::srandom(7);
        let mut e = RandomBitErrors::default();
        e.p = P_ONE / 10;
        e.cum = cumulative(e.p);
        let n = 200_000u32;
        let bits: u32 = (0..n).map(|_| e.byte_errors().count_ones()).sum();
        let want = f64::from(n) * 8.0 * 0.1;
        assert!(
            (f64::from(bits) - want).abs() < want * 0.02,
            "{bits} bits for {want}"
        );
        // P(no error in a byte) = 0.9^8
        let p0 = e.cum[0] as f64 / (1u64 << 31) as f64;
        assert!((p0 - 0.9f64.powi(8)).abs() < 1e-6, "{p0}");
        assert_eq!(e.cum[8], 1 << 31);
    }
}
