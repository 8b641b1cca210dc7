//! What RED and AdaptiveRED share (Click's AdaptiveRED is a subclass of
//! RED): the parameter checks, Click's fixed-point drop arithmetic
//! ([`RedState`]), the watched queues ([`Watched`]), the drop decision per
//! packet on push and pull ([`RedCore`]) and the handlers. Each class's
//! file keeps its manual, its own arguments and what it adds (AdaptiveRED's
//! timer).
//!
//! The arithmetic is Click's to the bit (thresholds in packets,
//! probabilities with 16 bits of fraction, the average with
//! [`QUEUE_SCALE`] bits, the random value from the seeded generator), so
//! runs under `RandomSeed` drop the same packets as the reference.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rclick_core::args::AnyArg;
use rclick_core::{ConfigureCx, Ctx, Element, ElementId, HandlerDef, InitCx, PacketBatch, TimerId};

use super::storage::storage_length;
use super::token_bucket::ticks;
use super::unparse_fixed;

/// The average holds queue lengths with this many bits of fraction.
pub(crate) const QUEUE_SCALE: u32 = 10;
/// Probability one, with 16 bits of fraction.
pub(crate) const ONE_P: u32 = 0x10000;

rclick_core::handlers! {
    /// RED's and AdaptiveRED's handlers, as AdaptiveRED offers them: its
    /// own code writes the thresholds and MAX_P. RED's table ([`RedH`] in
    /// red.rs) declares the same ids with reconfiguring writes.
    ///
    /// [`RedH`]: super::red
    pub(crate) enum H {
        MinThresh = read_write("min_thresh"),
        MaxThresh = read_write("max_thresh"),
        MaxP = read_write("max_p"),
        Drops = read("drops"),
        Queues = read("queues"),
        Avg = read("avg_queue_size"),
        Stats = read("stats"),
        Config = read("config"),
    }
}

/// Checked parameters.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Params {
    pub min_thresh: u32,
    pub max_thresh: u32,
    /// With 16 bits of fraction.
    pub max_p: u32,
    pub stability: u32,
    /// Drop with a probability rising to 1 between MAX_THRESH and twice
    /// MAX_THRESH, rather than always above MAX_THRESH.
    pub gentle: bool,
    pub queues: Option<Vec<String>>,
}

impl Params {
    /// Click's `check_params`, in its order and words.
    pub fn new(
        min_thresh: u32,
        max_thresh: u32,
        max_p: f64,
        stability: u32,
        gentle: bool,
        queues: Option<Vec<String>>,
    ) -> Result<Params, String> {
        if max_thresh > 0xFFFF {
            return Err("MAX_THRESH must be <= 65535".into());
        }
        if min_thresh > max_thresh {
            return Err("MIN_THRESH must be <= MAX_THRESH".into());
        }
        let max_p = parse_max_p(max_p)?;
        if stability > 16 {
            return Err("STABILITY must be between 0 and 16".into());
        }
        Ok(Params {
            min_thresh,
            max_thresh,
            max_p,
            stability,
            gentle,
            queues,
        })
    }
}

/// MAX_P as a fixed-point number with 16 bits of fraction.
pub(crate) fn parse_max_p(v: f64) -> Result<u32, String> {
    if v < 0.0 || v.is_nan() {
        // Click's unsigned fixed-point parser refuses a sign
        return Err("MAX_P: parse error".into());
    }
    if v > 1.0 {
        return Err("MAX_P must be between 0 and 1".into());
    }
    Ok((v * f64::from(ONE_P)).round() as u32)
}

/// The QUEUES argument: element names, or none when absent or blank.
pub(crate) fn queues_arg(queues: AnyArg, given: bool) -> Option<Vec<String>> {
    (given && !queues.0.trim().is_empty())
        .then(|| queues.0.split_whitespace().map(str::to_string).collect())
}

/// Click's RED arithmetic.
#[derive(Clone, Debug)]
pub(crate) struct RedState {
    pub min_thresh: u32,
    pub max_thresh: u32,
    kill_thresh: u32,
    pub max_p: u32,
    pub stability: u32,
    pub gentle: bool,
    c1: u32,
    c2: u32,
    g1: u32,
    g2: u32,
    /// The scaled average.
    pub avg: u64,
    count: i32,
    random_value: i32,
    last_jiffies: u64,
}

impl RedState {
    pub fn new(p: &Params) -> RedState {
        let mut s = RedState {
            min_thresh: 0,
            max_thresh: 0,
            kill_thresh: 0,
            max_p: 0,
            stability: 4,
            gentle: true,
            c1: 0,
            c2: 0,
            g1: 0,
            g2: 0,
            avg: 0,
            count: -1,
            random_value: 0,
            last_jiffies: 0,
        };
        s.set_params(p);
        s
    }

    /// New parameters; the average and the drop count stay.
    pub fn set_params(&mut self, p: &Params) {
        self.min_thresh = p.min_thresh;
        self.max_thresh = p.max_thresh;
        self.stability = p.stability;
        self.gentle = p.gentle;
        self.set_max_p(p.max_p);
    }

    /// A new MAX_P (AdaptiveRED's `max_p` handler and adaptation).
    pub fn set_max_p(&mut self, max_p: u32) {
        self.max_p = max_p;
        // gentle RED, unless MAX_P is one
        self.kill_thresh = if self.gentle && max_p != ONE_P {
            self.max_thresh * 2
        } else {
            self.max_thresh
        };
        self.set_coefficients();
    }

    /// The slopes of the drop probability (Click's `set_C1_and_C2`).
    fn set_coefficients(&mut self) {
        if self.min_thresh >= self.max_thresh {
            self.c1 = 0;
            self.c2 = 1;
        } else {
            let d = self.max_thresh - self.min_thresh;
            self.c1 = self.max_p / d;
            self.c2 = self.max_p.wrapping_mul(self.min_thresh) / d;
        }
        self.g1 = ONE_P.wrapping_sub(self.max_p) / self.max_thresh.max(1);
        self.g2 = ONE_P.wrapping_sub(self.max_p.wrapping_mul(2));
    }

    fn update_avg(&mut self, x: u64, n: u64) {
        let x_scaled = x << QUEUE_SCALE;
        if n >= 100 {
            self.avg = x_scaled;
            return;
        }
        let x_scaled = x_scaled + (1u64 << (self.stability.max(1) - 1));
        for _ in 0..n {
            let delta = (x_scaled.wrapping_sub(self.avg) as i64) >> self.stability;
            self.avg = self.avg.wrapping_add(delta as u64);
        }
    }

    /// The average in packets, rounded.
    pub fn unscaled_avg(&self) -> u64 {
        (self.avg + (1 << (QUEUE_SCALE - 1))) >> QUEUE_SCALE
    }

    /// Whether to drop the next packet, the queues holding `size` packets
    /// at `now_ms`; `random` gives a fresh random value when one is needed.
    pub fn should_drop(&mut self, size: usize, now_ms: u64, random: impl FnMut() -> i32) -> bool {
        let mut random = random;
        let avg = if self.stability == 0 {
            size as u64
        } else if size > 0 {
            self.update_avg(size as u64, 1);
            self.last_jiffies = 0;
            self.unscaled_avg()
        } else {
            // empty: one zero sample per 20 ms gone by
            let j = now_ms / 20;
            let n = if self.last_jiffies != 0 {
                j.wrapping_sub(self.last_jiffies)
            } else {
                1
            };
            self.update_avg(0, n);
            self.last_jiffies = j;
            self.unscaled_avg()
        };
        if avg <= u64::from(self.min_thresh) {
            self.count = -1;
            return false;
        }
        if avg > u64::from(self.kill_thresh) {
            self.count = -1;
            return true;
        }
        // Click computes this in 64 bits and keeps the low 32, signed
        let p_b = if avg <= u64::from(self.max_thresh) {
            (u64::from(self.c1).wrapping_mul(self.avg) >> QUEUE_SCALE)
                .wrapping_sub(u64::from(self.c2))
        } else {
            (u64::from(self.g1).wrapping_mul(self.avg) >> QUEUE_SCALE)
                .wrapping_sub(u64::from(self.g2))
        } as u32 as i32;
        self.count = self.count.saturating_add(1);
        if self.count > 0 && p_b > 0 && self.count > self.random_value / p_b {
            self.count = 0;
            self.random_value = random();
            return true;
        }
        if self.count == 0 {
            self.random_value = random();
        }
        false
    }

    /// Forgets the average and the drop count (Click's `initialize`).
    pub fn clear(&mut self) {
        self.avg = 0;
        self.count = -1;
        self.last_jiffies = 0;
    }
}

/// Click's random value for RED: 16 bits of the seeded generator.
fn next_random_value() -> i32 {
    ((rclick_core::random::random() >> 5) & 0xFFFF) as i32
}

/// The queues a RED watches.
#[derive(Default)]
pub(crate) struct Watched {
    pub ids: Vec<ElementId>,
    pub names: Vec<String>,
    lengths: Vec<Arc<AtomicUsize>>,
}

impl Watched {
    /// The packets in all of them.
    #[inline]
    pub fn size(&self) -> usize {
        self.lengths.iter().map(|l| l.load(Ordering::Relaxed)).sum()
    }

    /// Finds the elements named in QUEUES.
    pub fn resolve(names: &[String], cx: &ConfigureCx) -> Result<Vec<ElementId>, String> {
        let mut ids = Vec::new();
        let mut errs = Vec::new();
        for n in names {
            match cx.find(n) {
                Some(id) => ids.push(id),
                None => errs.push(format!("no element named '{n}'")),
            }
        }
        if errs.is_empty() {
            Ok(ids)
        } else {
            Err(errs.join("\n"))
        }
    }

    /// The queues `ids` if given, else the nearest Storage elements
    /// downstream (push output) or upstream (pull), as Click's
    /// `initialize`.
    pub fn find(cx: &mut InitCx, ids: &[ElementId]) -> Result<Watched, String> {
        let mut ids = ids.to_vec();
        if ids.is_empty() {
            let mut is_storage = |e: &dyn Element| storage_length(e).is_some();
            let found = if cx.output_is_push(0) {
                cx.downstream_elements(Some(0), &mut is_storage)
            } else {
                cx.upstream_elements(Some(0), &mut is_storage)
            };
            ids = found
                .into_iter()
                .filter(|&e| {
                    cx.with_element(e, |el| storage_length(el))
                        .flatten()
                        .is_some()
                })
                .collect();
            if ids.is_empty() {
                return Err("no nearby Queues".into());
            }
        }
        let (mut lengths, mut names, mut errs) = (Vec::new(), Vec::new(), Vec::new());
        for &e in &ids {
            let name = cx.element_info(e).name.clone();
            match cx.with_element(e, |el| storage_length(el)).flatten() {
                Some(l) => lengths.push(l),
                None => errs.push(format!("'{name}' is not a Storage element")),
            }
            names.push(name);
        }
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        Ok(Watched {
            ids,
            names,
            lengths,
        })
    }
}

/// The running part of a RED: its parameters, arithmetic, queues and
/// drops (Click's RED, which AdaptiveRED extends).
pub(crate) struct RedCore {
    pub p: Params,
    pub st: RedState,
    queue_ids: Vec<ElementId>,
    pub watched: Watched,
    pub drops: u64,
}

impl RedCore {
    pub fn new(p: Params) -> RedCore {
        RedCore {
            st: RedState::new(&p),
            p,
            queue_ids: Vec::new(),
            watched: Watched::default(),
            drops: 0,
        }
    }

    /// Takes checked parameters at configure time, finding the QUEUES
    /// named (Click's `finish_configure`).
    pub fn configure(&mut self, p: Params, cx: &ConfigureCx) -> Result<(), String> {
        let ids = match &p.queues {
            Some(names) => Watched::resolve(names, cx)?,
            None => Vec::new(),
        };
        self.st.set_params(&p);
        self.p = p;
        self.queue_ids = ids;
        Ok(())
    }

    /// New parameters while running: the queues are fixed once known.
    pub fn live_reconfigure(&mut self, mut p: Params) {
        p.queues = self.p.queues.clone();
        self.st.set_params(&p);
        self.p = p;
    }

    /// Finds the queues and starts afresh (Click's `initialize`).
    pub fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.watched = Watched::find(cx, &self.queue_ids)?;
        self.queue_ids = self.watched.ids.clone();
        self.st.clear();
        self.drops = 0;
        Ok(())
    }

    /// Click's `take_state`: the average carries over a hot swap.
    pub fn take_state(&mut self, old: &RedCore) {
        self.st.avg = old.st.avg;
    }

    fn decide(&mut self, cx: &Ctx) -> bool {
        let size = self.watched.size();
        let drop = self
            .st
            .should_drop(size, ticks(cx.now()), next_random_value);
        if drop {
            self.drops += 1;
        }
        drop
    }

    /// Click's push: one packet at a time, so each decision sees the
    /// queue after the packets before it went in.
    pub fn push(&mut self, batch: PacketBatch, cx: &mut Ctx) {
        for p in batch {
            if self.decide(cx) {
                if cx.noutputs() > 1 {
                    cx.push_one(1, p);
                }
            } else {
                cx.push_one(0, p);
            }
        }
    }

    /// Click's pull: the packets that are not dropped, up to `max`.
    pub fn pull(&mut self, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut out = PacketBatch::new();
        while out.len() < max.max(1) {
            let Some(p) = cx.pull_one(0) else {
                break;
            };
            if self.decide(cx) {
                if cx.noutputs() > 1 {
                    cx.push_one(1, p);
                }
            } else {
                out.push(p);
            }
        }
        out
    }

    /// Click's `config` handler: the parameters now in force.
    fn config_text(&self) -> String {
        let mut s = format!(
            "{}, {}, {}, QUEUES",
            self.st.min_thresh,
            self.st.max_thresh,
            unparse_fixed(u64::from(self.st.max_p), 16)
        );
        for n in &self.watched.names {
            s.push(' ');
            s.push_str(n);
        }
        s.push_str(&format!(", STABILITY {}", self.st.stability));
        if !self.st.gentle {
            s.push_str(", GENTLE false");
        }
        s
    }

    /// The read handlers.
    pub fn read(&self, h: H) -> String {
        match h {
            H::MinThresh => self.st.min_thresh.to_string(),
            H::MaxThresh => self.st.max_thresh.to_string(),
            H::MaxP => unparse_fixed(u64::from(self.st.max_p), 16),
            H::Drops => self.drops.to_string(),
            H::Queues => self
                .watched
                .names
                .iter()
                .map(|n| format!("{n}\n"))
                .collect(),
            H::Avg => unparse_fixed(self.st.avg, QUEUE_SCALE),
            H::Stats => format!(
                "{} current queue\n{} avg queue\n{} drops\n",
                self.watched.size(),
                unparse_fixed(self.st.avg, QUEUE_SCALE),
                self.drops
            ),
            H::Config => self.config_text(),
        }
    }
}

/// A class of the RED family: what differs between RED and its Click
/// subclass AdaptiveRED, implemented in each class's file; the element
/// is a [`RedElement`] of the class.
pub(crate) trait RedClass: Default + Send + 'static {
    /// The class name.
    const CLASS: &'static str;

    /// The parameters of an element not yet configured.
    fn default_params() -> Params;

    /// The class's arguments, checked.
    fn parse_params(conf: &[String]) -> Result<Params, String>;

    /// The handler definitions.
    fn handlers() -> Vec<HandlerDef>;

    /// Click's `initialize`, after the core's.
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let _ = cx;
        Ok(())
    }

    /// A timer of the class's ran.
    fn run_timer(&mut self, core: &mut RedCore, timer: TimerId, cx: &mut Ctx) {
        let _ = (core, timer, cx);
    }

    /// A handler write.
    fn write(&mut self, core: &mut RedCore, h: Option<H>, value: &str) -> Result<(), String> {
        let _ = (core, h, value);
        Err("handler not writable".into())
    }
}

/// An element of a RED class `C`: drops on push and pull as Click's RED.
pub(crate) struct RedElement<C: RedClass> {
    pub(crate) core: RedCore,
    class: C,
}

impl<C: RedClass> Default for RedElement<C> {
    fn default() -> Self {
        RedElement {
            core: RedCore::new(C::default_params()),
            class: C::default(),
        }
    }
}

impl<C: RedClass> Element for RedElement<C> {
    fn class_name(&self) -> &'static str {
        C::CLASS
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        self.core.configure(C::parse_params(conf)?, cx)
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn live_reconfigure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.core.live_reconfigure(C::parse_params(conf)?);
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.core.initialize(cx)?;
        self.class.initialize(cx)
    }

    fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
        if let Some(o) = old.downcast_ref::<RedElement<C>>() {
            self.core.take_state(&o.core);
        }
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        self.class.run_timer(&mut self.core, timer, cx);
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.core.push(batch, cx);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        self.core.pull(max, cx)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        C::handlers()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        H::from_id(id)
            .map(|h| self.core.read(h))
            .ok_or_else(|| "no such handler".into())
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        self.class.write(&mut self.core, H::from_id(id), value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(min: u32, max: u32, p: f64) -> Params {
        Params::new(min, max, p, 4, true, None).unwrap()
    }

    #[test]
    fn checks_in_clicks_order_and_words() {
        let e = |min, max, p, stab| Params::new(min, max, p, stab, true, None).unwrap_err();
        assert_eq!(e(5, 70000, 2.0, 17), "MAX_THRESH must be <= 65535");
        assert_eq!(e(50, 5, 2.0, 17), "MIN_THRESH must be <= MAX_THRESH");
        assert_eq!(e(5, 50, 2.0, 17), "MAX_P must be between 0 and 1");
        assert_eq!(e(5, 50, -0.1, 17), "MAX_P: parse error");
        assert_eq!(e(5, 50, 0.1, 17), "STABILITY must be between 0 and 16");
        assert_eq!(params(5, 50, 0.02).max_p, 1311);
        assert!(Params::new(5, 50, 0.1, 0, true, None).is_ok());
    }

    #[test]
    fn queues_argument() {
        assert_eq!(
            queues_arg(AnyArg("a  b".into()), true),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(queues_arg(AnyArg(" ".into()), true), None);
        assert_eq!(queues_arg(AnyArg("a".into()), false), None);
    }

    #[test]
    fn drop_thresholds() {
        let mut s = RedState::new(&params(5, 10, 0.5));
        let never = || panic!("no random value needed");
        // at or below MIN_THRESH: never
        s.stability = 0;
        assert!(!s.should_drop(5, 0, never));
        // above the kill threshold (gentle: twice MAX_THRESH): always
        assert!(s.should_drop(21, 0, never));
        assert!(!s.gentle || s.kill_thresh == 20);
        // not gentle: above MAX_THRESH
        let mut p = params(5, 10, 0.5);
        p.gentle = false;
        let mut s = RedState::new(&p);
        s.stability = 0;
        assert!(s.should_drop(11, 0, never));
        // MAX_P one is never gentle
        let s = RedState::new(&params(5, 10, 1.0));
        assert_eq!(s.kill_thresh, 10);
    }

    #[test]
    fn random_drops_follow_the_random_value() {
        // between the thresholds the first packet draws a value; a drop
        // comes once the count exceeds value / p_b
        let mut s = RedState::new(&params(0, 10, 1.0));
        s.stability = 0;
        let mut draws = 0;
        let mut rnd = || {
            draws += 1;
            1000
        };
        assert!(!s.should_drop(5, 0, &mut rnd)); // count 0: draw
        let p_b = ((s.c1 as u64 * s.avg) >> QUEUE_SCALE) as i32 - s.c2 as i32;
        assert_eq!(p_b, -(s.c2 as i32)); // the average is unused at STABILITY 0
        let mut s = RedState::new(&params(0, 10, 1.0));
        for _ in 0..20 {
            s.should_drop(8, 0, &mut rnd);
        }
        assert!(s.unscaled_avg() > 0 && s.unscaled_avg() <= 8);
        assert!(draws >= 2);
    }

    #[test]
    fn average_moves_by_the_stability_and_clears() {
        let mut s = RedState::new(&params(100, 200, 0.1));
        s.should_drop(64, 0, || 0);
        // one sample of 64 with weight 1/16, rounded: 4
        assert_eq!(s.unscaled_avg(), 4);
        s.update_avg(64, 100);
        assert_eq!(s.unscaled_avg(), 64);
        s.clear();
        assert_eq!(s.avg, 0);
    }
}
