//! Basic elements: sources and sinks, counters, printing, tees, paint,
//! length adjusters, switches and the generic [`Classifier`](classifier).
//!
//! One element class per file; each file opens with the class's manual.
//! Helpers shared by several classes (annotation slots, packet data
//! templates, token buckets, rate estimators, Click's number formats) live
//! in this file.

use rclick_core::args::ArgContext;
use rclick_core::Registry;
use rclick_packet::Packet;

pub mod average_counter;
pub mod check_crc32;
pub mod check_length;
pub mod check_paint;
pub mod classifier;
pub mod counter;
pub(crate) mod crc32;
pub mod discard;
pub mod discard_no_free;
pub(crate) mod each_packet;
pub mod hash_switch;
pub mod idle;
pub mod infinite_source;
pub(crate) mod length_arg;
pub mod message;
pub mod null;
pub mod nulls;
pub mod pad;
pub mod paint;
pub(crate) mod paint_color;
pub mod paint_switch;
pub mod paint_tee;
pub mod print;
pub(crate) mod pull_input;
pub mod pull_null;
pub mod pull_switch;
pub mod pull_tee;
pub mod push_null;
pub mod random_source;
pub mod random_switch;
pub mod rated_source;
pub mod round_robin_switch;
pub mod set_anno_byte;
pub mod set_crc32;
pub mod set_packet_type;
pub mod simple_pull_switch;
pub(crate) mod source;
pub mod static_pull_switch;
pub mod static_switch;
pub mod store_data;
pub mod stride_switch;
pub mod strip;
pub mod switch;
pub mod tee;
pub mod timed_source;
pub mod truncate;
pub mod unstrip;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "AverageCounter",
        || Box::<average_counter::AverageCounter>::default(),
        include_str!("average_counter.rs"),
    );
    r.add(
        "CheckCRC32",
        || Box::<check_crc32::CheckCRC32>::default(),
        include_str!("check_crc32.rs"),
    );
    r.add(
        "CheckLength",
        || Box::<check_length::CheckLength>::default(),
        include_str!("check_length.rs"),
    );
    r.add(
        "CheckPaint",
        || Box::<check_paint::CheckPaint>::default(),
        include_str!("check_paint.rs"),
    );
    r.add(
        "Classifier",
        || Box::<classifier::Classifier>::default(),
        include_str!("classifier.rs"),
    );
    r.add(
        "Counter",
        || Box::<counter::Counter>::default(),
        include_str!("counter.rs"),
    );
    r.add(
        "Discard",
        || Box::<discard::Discard>::default(),
        include_str!("discard.rs"),
    );
    r.add(
        "DiscardNoFree",
        || Box::<discard_no_free::DiscardNoFree>::default(),
        include_str!("discard_no_free.rs"),
    );
    r.add(
        "HashSwitch",
        || Box::<hash_switch::HashSwitch>::default(),
        include_str!("hash_switch.rs"),
    );
    r.add(
        "Idle",
        || Box::<idle::Idle>::default(),
        include_str!("idle.rs"),
    );
    r.add(
        "InfiniteSource",
        || Box::<infinite_source::InfiniteSource>::default(),
        include_str!("infinite_source.rs"),
    );
    r.add(
        "Message",
        || Box::<message::Message>::default(),
        include_str!("message.rs"),
    );
    r.add(
        "Null",
        || Box::<null::Null>::default(),
        include_str!("null.rs"),
    );
    r.add("Pad", || Box::<pad::Pad>::default(), include_str!("pad.rs"));
    r.add(
        "Paint",
        || Box::<paint::Paint>::default(),
        include_str!("paint.rs"),
    );
    r.add(
        "PaintSwitch",
        || Box::<paint_switch::PaintSwitch>::default(),
        include_str!("paint_switch.rs"),
    );
    r.add(
        "PaintTee",
        || Box::<paint_tee::PaintTee>::default(),
        include_str!("paint_tee.rs"),
    );
    r.add(
        "Print",
        || Box::<print::Print>::default(),
        include_str!("print.rs"),
    );
    r.add(
        "PullNull",
        || Box::<pull_null::PullNull>::default(),
        include_str!("pull_null.rs"),
    );
    r.add(
        "PullSwitch",
        || Box::<pull_switch::PullSwitch>::default(),
        include_str!("pull_switch.rs"),
    );
    r.add(
        "PullTee",
        || Box::<pull_tee::PullTee>::default(),
        include_str!("pull_tee.rs"),
    );
    r.add(
        "PushNull",
        || Box::<push_null::PushNull>::default(),
        include_str!("push_null.rs"),
    );
    r.add(
        "RandomSource",
        || Box::<random_source::RandomSource>::default(),
        include_str!("random_source.rs"),
    );
    r.add(
        "RandomSwitch",
        || Box::<random_switch::RandomSwitch>::default(),
        include_str!("random_switch.rs"),
    );
    r.add(
        "RatedSource",
        || Box::<rated_source::RatedSource>::default(),
        include_str!("rated_source.rs"),
    );
    r.add(
        "RoundRobinSwitch",
        || Box::<round_robin_switch::RoundRobinSwitch>::default(),
        include_str!("round_robin_switch.rs"),
    );
    r.add(
        "SetAnnoByte",
        || Box::<set_anno_byte::SetAnnoByte>::default(),
        include_str!("set_anno_byte.rs"),
    );
    r.add(
        "SetCRC32",
        || Box::<set_crc32::SetCRC32>::default(),
        include_str!("set_crc32.rs"),
    );
    r.add(
        "SetPacketType",
        || Box::<set_packet_type::SetPacketType>::default(),
        include_str!("set_packet_type.rs"),
    );
    r.add(
        "SimplePullSwitch",
        || Box::<simple_pull_switch::SimplePullSwitch>::default(),
        include_str!("simple_pull_switch.rs"),
    );
    r.add(
        "StaticPullSwitch",
        || Box::<static_pull_switch::StaticPullSwitch>::default(),
        include_str!("static_pull_switch.rs"),
    );
    r.add(
        "StaticSwitch",
        || Box::<static_switch::StaticSwitch>::default(),
        include_str!("static_switch.rs"),
    );
    r.add(
        "Strip",
        || Box::<strip::Strip>::default(),
        include_str!("strip.rs"),
    );
    r.add(
        "StoreData",
        || Box::<store_data::StoreData>::default(),
        include_str!("store_data.rs"),
    );
    r.add(
        "StrideSwitch",
        || Box::<stride_switch::StrideSwitch>::default(),
        include_str!("stride_switch.rs"),
    );
    r.add(
        "Switch",
        || Box::<switch::Switch>::default(),
        include_str!("switch.rs"),
    );
    r.add("Tee", || Box::<tee::Tee>::default(), include_str!("tee.rs"));
    r.add(
        "TimedSource",
        || Box::<timed_source::TimedSource>::default(),
        include_str!("timed_source.rs"),
    );
    r.add(
        "Truncate",
        || Box::<truncate::Truncate>::default(),
        include_str!("truncate.rs"),
    );
    r.add(
        "Unstrip",
        || Box::<unstrip::Unstrip>::default(),
        include_str!("unstrip.rs"),
    );
    nulls::register(r);
    r.alias("RRSwitch", "RoundRobinSwitch");
}

/// The packet data sources send when given none (Click's default).
pub(crate) const DEFAULT_DATA: &[u8] =
    b"Random bullshit in a packet, at least 64 bytes long. Well, now it is.";

/// The longest packet a source makes (LENGTH is checked against it).
pub(crate) const MAX_SOURCE_LENGTH: i64 = 1 << 24;

/// Checks a source's LENGTH.
pub(crate) fn check_length(length: i64) -> Result<i64, String> {
    if length > MAX_SOURCE_LENGTH {
        Err(format!("LENGTH: out of range, bound {MAX_SOURCE_LENGTH}"))
    } else {
        Ok(length)
    }
}

/// The bytes of a source's template packet: `data` cut or repeated to
/// `length` bytes when `length` is not negative (Click's LENGTH keyword).
pub(crate) fn sized_data(data: &[u8], length: i64) -> Vec<u8> {
    if length < 0 {
        return data.to_vec();
    }
    let len = usize::try_from(length)
        .unwrap_or(usize::MAX)
        .min(MAX_SOURCE_LENGTH as usize);
    if data.is_empty() {
        return vec![0; len];
    }
    data.iter().copied().cycle().take(len).collect()
}

/// Makes a template packet, or an empty one if the size is absurd.
pub(crate) fn template_packet(headroom: usize, data: &[u8]) -> Packet {
    Packet::try_make(headroom.min(1 << 20), data, 0).unwrap_or_else(|_| Packet::from_slice(&[]))
}

/// What a source does once it has sent LIMIT packets: stop the driver
/// (STOP) or write a handler (END_CALL); InfiniteSource and RandomSource.
#[derive(Clone, Debug, Default)]
pub(crate) struct SourceEnd {
    stop: bool,
    end_call: Option<(String, String)>,
}

impl SourceEnd {
    /// From the STOP and END_CALL keywords, which exclude each other.
    pub(crate) fn new(stop: bool, end_call: &str) -> Result<SourceEnd, String> {
        let end_call = parse_handler_call(end_call);
        if stop && end_call.is_some() {
            return Err("END_CALL and STOP are mutually exclusive".into());
        }
        Ok(SourceEnd { stop, end_call })
    }

    /// The limit was reached: stop the driver or call END_CALL.
    pub(crate) fn fire(&self, cx: &mut rclick_core::Ctx) {
        if self.stop {
            cx.request_stop();
        } else if let Some((h, v)) = &self.end_call {
            if let Err(e) = cx.call_write(h, v) {
                cx.log(format!("{}: {e}", cx.name()));
            }
        }
    }
}

/// Wakes a source after a handler let it send again (Click's
/// `change_param` tail): its task in push mode, else its "empty" notifier.
pub(crate) fn wake_source(
    task: Option<rclick_core::TaskId>,
    notifier: &rclick_core::Notifier,
    cx: &mut rclick_core::Ctx,
) {
    if let Some(t) = task {
        cx.schedule_task(t);
    } else if !notifier.active() {
        cx.wake_notifier(notifier);
    }
}

/// Where an element reads or writes a one-byte annotation: the paint
/// annotation (Click's `PAINT`, the default) or a byte of the user area.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum AnnoSlot {
    /// The paint annotation.
    #[default]
    Paint,
    /// Byte `n` of the general-purpose annotation area.
    User(usize),
}

impl AnnoSlot {
    /// Reads the annotation byte.
    #[inline]
    pub(crate) fn get(self, p: &Packet) -> u8 {
        match self {
            AnnoSlot::Paint => p.paint_anno(),
            AnnoSlot::User(o) => p.anno().u8_at(o),
        }
    }

    /// Writes the annotation byte.
    #[inline]
    pub(crate) fn set(self, p: &mut Packet, v: u8) {
        match self {
            AnnoSlot::Paint => p.set_paint_anno(v),
            AnnoSlot::User(o) => p.anno_mut().set_u8_at(o, v),
        }
    }
}

impl rclick_core::args::FromArg for AnnoSlot {
    /// Click's `AnnoArg(1)`: an annotation name (`PAINT`) or a byte offset
    /// into the annotation area.
    fn from_arg(s: &str, ctx: &dyn ArgContext) -> Result<Self, String> {
        let upper = s.to_ascii_uppercase();
        if upper == "PAINT" || upper == "PAINT_ANNO" {
            return Ok(AnnoSlot::Paint);
        }
        match usize::from_arg(s, ctx) {
            Ok(o) if o < rclick_packet::USER_ANNO_SIZE => Ok(AnnoSlot::User(o)),
            // Click's AnnoArg wording.
            _ => Err("parse error".into()),
        }
    }
}

/// The name-table kind under which AnnotationInfo defines annotation
/// names (value: `OFFSET SIZE`).
pub(crate) const ANNO_NAME_KIND: &str = "anno";

/// Replaces annotation names defined by AnnotationInfo with their offsets
/// in an annotation-taking element's arguments (a whole argument, or the
/// value of an `ANNO` keyword), so that [`AnnoSlot`] parses them. A name
/// whose annotation is not one byte is left alone, and then fails to
/// parse, as in Click.
pub(crate) fn resolve_anno_names(conf: &[String], cx: &rclick_core::ConfigureCx) -> Vec<String> {
    let one_byte = |name: &str| -> Option<String> {
        let v = cx.lookup_name(ANNO_NAME_KIND, name)?;
        let (off, size) = v.split_once(' ')?;
        (size == "1").then(|| off.to_string())
    };
    conf.iter()
        .map(|a| {
            let t = a.trim();
            if let Some(off) = one_byte(t) {
                return off;
            }
            if let Some(rest) = t.strip_prefix("ANNO") {
                if rest.starts_with(char::is_whitespace) {
                    if let Some(off) = one_byte(rest.trim()) {
                        return format!("ANNO {off}");
                    }
                }
            }
            a.clone()
        })
        .collect()
}

/// A token bucket (Click's `TokenBucket`): `rate` tokens a second
/// accumulate, up to `capacity`; time is in nanoseconds.
#[derive(Clone, Debug, Default)]
pub(crate) struct TokenBucket {
    rate: u64,
    capacity: u64,
    /// Tokens times 1e9 (token-nanoseconds at rate 1).
    credit: u128,
    last: i64,
}

const UNIT: u128 = 1_000_000_000;

impl TokenBucket {
    /// A bucket filling at `rate` a second, holding up to `capacity`.
    pub(crate) fn new(rate: u64, capacity: u64) -> TokenBucket {
        TokenBucket {
            rate,
            capacity: capacity.max(1),
            credit: 0,
            last: 0,
        }
    }

    /// The rate.
    pub(crate) fn rate(&self) -> u64 {
        self.rate
    }

    /// Changes rate and capacity, keeping the tokens (up to the new capacity).
    pub(crate) fn assign_adjust(&mut self, rate: u64, capacity: u64) {
        self.rate = rate;
        self.capacity = capacity.max(1);
        self.credit = self.credit.min(u128::from(self.capacity) * UNIT);
    }

    /// Sets the bucket to hold `tokens` at time `now`.
    pub(crate) fn set(&mut self, tokens: u64, now: i64) {
        self.credit = u128::from(tokens.min(self.capacity)) * UNIT;
        self.last = now;
    }

    /// Adds the tokens earned since the last refill.
    pub(crate) fn refill(&mut self, now: i64) {
        if now > self.last {
            let dt = (now - self.last) as u128;
            let cap = u128::from(self.capacity) * UNIT;
            self.credit = (self.credit + dt * u128::from(self.rate)).min(cap);
            self.last = now;
        }
    }

    /// Removes `n` tokens if there are that many.
    pub(crate) fn remove_if(&mut self, n: u64) -> bool {
        let need = u128::from(n) * UNIT;
        if self.credit >= need {
            self.credit -= need;
            true
        } else {
            false
        }
    }

    /// Nanoseconds until the bucket holds `n` tokens (`None`: never).
    pub(crate) fn time_until_contains(&self, n: u64) -> Option<i64> {
        let need = u128::from(n) * UNIT;
        if self.credit >= need {
            return Some(0);
        }
        if self.rate == 0 || n > self.capacity {
            return None;
        }
        let missing = need - self.credit;
        let r = u128::from(self.rate);
        Some(i64::try_from(missing.div_ceil(r)).unwrap_or(i64::MAX))
    }
}

/// Click's `RateEWMA` as Counter uses it: an exponentially weighted moving
/// average of events per jiffy (1 ms), with 1/16 weight for each new jiffy
/// and `SCALE` fraction bits.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateEwma {
    avg: u64,
    count: u64,
    epoch: i64,
    started: bool,
}

/// Fraction bits of [`RateEwma`]'s average.
pub(crate) const EWMA_SCALE: u32 = 10;
const EWMA_SHIFT: u32 = 4;
/// Jiffies a second.
pub(crate) const HZ: u64 = 1000;

impl RateEwma {
    fn fold(&mut self, x: u64) {
        let scaled = x.saturating_mul(1 << EWMA_SCALE);
        if scaled >= self.avg {
            self.avg += (scaled - self.avg) >> EWMA_SHIFT;
        } else {
            self.avg -= (self.avg - scaled) >> EWMA_SHIFT;
        }
    }

    /// Records `delta` events at time `now_ns`.
    pub(crate) fn update(&mut self, delta: u64, now_ns: i64) {
        let now = now_ns.div_euclid(1_000_000);
        if !self.started {
            self.started = true;
            self.epoch = now;
        }
        if now != self.epoch {
            self.fold(self.count);
            let idle = now - self.epoch - 1;
            // Each idle jiffy decays the average; after enough of them it is zero.
            let mut k = idle.clamp(0, 2000);
            while k > 0 && self.avg > 0 {
                self.fold(0);
                k -= 1;
            }
            self.count = 0;
            self.epoch = now;
        }
        self.count = self.count.saturating_add(delta);
    }

    /// The average rate a second, scaled by 2^[`EWMA_SCALE`].
    pub(crate) fn scaled_rate(&self) -> u64 {
        self.avg.saturating_mul(HZ)
    }

    /// Forgets everything.
    pub(crate) fn reset(&mut self) {
        *self = RateEwma::default();
    }
}

pub(crate) use rclick_core::args::unparse_real2;

/// Click's `String(double)`: `%.12g`-like, without trailing zeros.
pub(crate) fn unparse_double(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    if !(-5..12).contains(&exp) {
        let s = format!("{:.11e}", v);
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.')
        } else {
            mant
        };
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let decimals = (11 - exp).max(0) as usize;
    let s = format!("{:.*}", decimals, v);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Splits a handler call `HANDLER [VALUE]` (Click's `HandlerCall` text);
/// `None` when empty.
pub(crate) fn parse_handler_call(text: &str) -> Option<(String, String)> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let (h, v) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    Some((h.to_string(), v.trim().to_string()))
}

/// Parses a boolean handler value (Click's `BoolArg`), ignoring surrounding
/// space.
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    <bool as rclick_core::args::FromArg>::from_arg(s.trim(), &rclick_core::args::NoContext).ok()
}

/// Parses an integer handler value (Click's `IntArg`), ignoring surrounding
/// space.
pub(crate) fn parse_int<T: rclick_core::args::FromArg>(s: &str) -> Option<T> {
    T::from_arg(s.trim(), &rclick_core::args::NoContext).ok()
}

#[cfg(test)]
pub(crate) mod test_util {
    use rclick_core::Registry;

    /// A registry with every class of this crate.
    pub(crate) fn registry() -> Registry {
        let mut r = Registry::new();
        crate::register(&mut r);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double() {
        assert_eq!(unparse_double(2.5), "2.5");
        assert_eq!(unparse_double(10.0), "10");
        assert_eq!(unparse_double(1.0 / 3.0), "0.333333333333");
    }

    #[test]
    fn bucket() {
        let mut tb = TokenBucket::new(10, 2);
        tb.set(1, 0);
        assert!(tb.remove_if(1));
        assert!(!tb.remove_if(1));
        assert_eq!(tb.time_until_contains(1), Some(100_000_000));
        tb.refill(100_000_000);
        assert!(tb.remove_if(1));
        tb.refill(10_000_000_000);
        assert!(tb.remove_if(1) && tb.remove_if(1) && !tb.remove_if(1));
    }

    #[test]
    fn sized() {
        assert_eq!(sized_data(b"abc", 7), b"abcabca");
        assert_eq!(sized_data(b"abc", 2), b"ab");
        assert_eq!(sized_data(b"abc", -1), b"abc");
    }
}
