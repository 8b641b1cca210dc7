//! # Counter
//!
//! `Counter([KEYWORDS])`
//!
//! **Category:** basic. Counts packets and bytes and measures their rates.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Passes packets unchanged, counting them and their bytes, and keeping an
//! exponentially weighted moving average of the packet and byte rates.
//!
//! Keywords:
//!
//! * `COUNT_CALL` (`N HANDLER [VALUE]`): when the packet count reaches N,
//!   write VALUE to HANDLER (once, until reset).
//! * `BYTE_COUNT_CALL` (`N HANDLER [VALUE]`): the same when the byte count
//!   reaches at least N.
//!
//! ## Handlers
//!
//! * `count` (read): packets counted.
//! * `byte_count` (read): bytes counted.
//! * `rate` (read): recent packet rate, packets a second.
//! * `byte_rate` (read): recent byte rate, bytes a second.
//! * `bit_rate` (read): recent bit rate, bits a second.
//! * `reset`, `reset_counts` (write): zero the counts and rates and re-arm
//!   the calls.
//! * `count_call` (read/write), `byte_count_call` (write): COUNT_CALL and
//!   BYTE_COUNT_CALL.
//!
//! ## Examples
//!
//! ```text
//! ... -> c :: Counter(COUNT_CALL 100 stop) -> ...
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## See also
//!
//! AverageCounter

use rclick_core::args::{AnyArg, Args};
use rclick_core::{Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::{unparse_real2, RateEwma, EWMA_SCALE};

/// A handler call armed by a count: `(threshold, handler, value)`.
#[derive(Clone, Debug, Default)]
struct Trigger {
    at: u64,
    handler: String,
    value: String,
    fired: bool,
}

fn parse_trigger(text: &str, what: &str) -> Result<Trigger, String> {
    let text = text.trim();
    let (n, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let at: u64 = super::parse_int(n).ok_or_else(|| format!("{what} type mismatch"))?;
    let (handler, value) =
        super::parse_handler_call(rest).ok_or_else(|| format!("{what}: missing handler"))?;
    Ok(Trigger {
        at,
        handler,
        value,
        fired: false,
    })
}

/// The Counter element.
#[derive(Default)]
pub struct Counter {
    count: u64,
    byte_count: u64,
    rate: RateEwma,
    byte_rate: RateEwma,
    count_call: Option<Trigger>,
    byte_call: Option<Trigger>,
}

rclick_core::handlers! {
    /// Counter's handlers (the manual's list).
    enum H {
        Count = read("count"),
        ByteCount = read("byte_count"),
        Rate = read("rate"),
        BitRate = read("bit_rate"),
        ByteRate = read("byte_rate"),
        Reset = write("reset", "reset_counts"),
        CountCall = read_write("count_call"),
        ByteCountCall = write("byte_count_call"),
    }
}

impl Counter {
    fn reset(&mut self) {
        self.count = 0;
        self.byte_count = 0;
        self.rate.reset();
        self.byte_rate.reset();
        for t in [&mut self.count_call, &mut self.byte_call]
            .into_iter()
            .flatten()
        {
            t.fired = false;
        }
    }

    /// Counts `b`; returns the number of leading packets after which the
    /// count trigger fires, if it fires within this batch.
    fn account(&mut self, b: &PacketBatch, cx: &Ctx) -> Option<usize> {
        let before = self.count;
        let bytes: u64 = b.iter().map(|p| p.len() as u64).sum();
        self.count += b.len() as u64;
        self.byte_count += bytes;
        let now = cx.now().as_nsec();
        self.rate.update(b.len() as u64, now);
        self.byte_rate.update(bytes, now);
        match &self.count_call {
            Some(t) if !t.fired && t.at > before && t.at <= self.count => {
                Some((t.at - before) as usize)
            }
            _ => None,
        }
    }

    fn fire(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.count_call.as_mut() {
            if !t.fired && self.count >= t.at {
                t.fired = true;
                let (h, v) = (t.handler.clone(), t.value.clone());
                if let Err(e) = cx.call_write(&h, &v) {
                    cx.log(format!("{}: {e}", cx.name()));
                }
            }
        }
        self.fire_bytes(cx);
    }

    fn fire_bytes(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.byte_call.as_mut() {
            if !t.fired && self.byte_count >= t.at {
                t.fired = true;
                let (h, v) = (t.handler.clone(), t.value.clone());
                if let Err(e) = cx.call_write(&h, &v) {
                    cx.log(format!("{}: {e}", cx.name()));
                }
            }
        }
    }
}

impl Element for Counter {
    fn class_name(&self) -> &'static str {
        "Counter"
    }
    /// Unless a COUNT_CALL or BYTE_COUNT_CALL could fire in the middle of a batch.
    fn batch_transparent(&self) -> bool {
        self.count_call.is_none() && self.byte_call.is_none()
    }

    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut cc = AnyArg::default();
        let mut bc = AnyArg::default();
        Args::new(conf)
            .read("COUNT_CALL", &mut cc)
            .read("BYTE_COUNT_CALL", &mut bc)
            .complete()
            .map_err(|e| e.to_string())?;
        let count_call = if cc.0.is_empty() {
            None
        } else {
            Some(parse_trigger(&cc.0, "COUNT_CALL")?)
        };
        let byte_call = if bc.0.is_empty() {
            None
        } else {
            Some(parse_trigger(&bc.0, "BYTE_COUNT_CALL")?)
        };
        self.count_call = count_call;
        self.byte_call = byte_call;
        self.reset();
        Ok(())
    }

    /// For one packet, `push` is `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        // As `push` for a batch of one: count, call the handlers that are
        // due, pass the packet on.
        let b = PacketBatch::from(p);
        match self.account(&b, cx) {
            None if self.byte_call.is_some() => self.fire_bytes(cx),
            None => {}
            Some(_) => self.fire(cx),
        }
        let mut b = b;
        b.pop()
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        match self.account(&batch, cx) {
            None => {
                if self.byte_call.is_some() {
                    self.fire_bytes(cx);
                }
                cx.push(0, batch);
            }
            Some(k) => {
                // Click calls the handler after counting packet k and
                // before passing it on.
                let n = batch.len();
                let mut head = PacketBatch::with_capacity(k - 1);
                let mut rest = PacketBatch::with_capacity(n + 1 - k);
                for (i, p) in batch.into_iter().enumerate() {
                    if i + 1 < k {
                        head.push(p);
                    } else {
                        rest.push(p);
                    }
                }
                if !head.is_empty() {
                    cx.push(0, head);
                }
                self.fire(cx);
                cx.push(0, rest);
            }
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let b = cx.pull(0, max);
        if !b.is_empty() {
            let hit = self.account(&b, cx).is_some();
            if hit || self.byte_call.is_some() {
                self.fire(cx);
            }
        }
        b
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, cx: &mut Ctx) -> Result<String, String> {
        let now = cx.now().as_nsec();
        Ok(match H::from_id(id) {
            Some(H::Count) => self.count.to_string(),
            Some(H::ByteCount) => self.byte_count.to_string(),
            Some(H::Rate) => {
                self.rate.update(0, now);
                unparse_real2(self.rate.scaled_rate(), EWMA_SCALE)
            }
            Some(H::ByteRate) => {
                self.byte_rate.update(0, now);
                unparse_real2(self.byte_rate.scaled_rate(), EWMA_SCALE)
            }
            Some(H::BitRate) => {
                self.byte_rate.update(0, now);
                unparse_real2(self.byte_rate.scaled_rate().saturating_mul(8), EWMA_SCALE)
            }
            Some(H::CountCall) => self
                .count_call
                .as_ref()
                .map_or(String::new(), |t| t.at.to_string()),
            Some(H::Reset | H::ByteCountCall) | None => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => self.reset(),
            Some(H::CountCall) => {
                let t = parse_trigger(value, "count_call").map_err(|_| {
                    "'count_call' first word should be unsigned (count)".to_string()
                })?;
                self.count_call = Some(t);
            }
            Some(H::ByteCountCall) => {
                let t = parse_trigger(value, "byte_count_call").map_err(|_| {
                    "'byte_count_call' first word should be unsigned (count)".to_string()
                })?;
                self.byte_call = Some(t);
            }
            _ => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn counts_and_reset() {
        let r = testing::run("InfiniteSource(\\<0102030405>, LIMIT 6, BURST 4, STOP true) -> c :: Counter -> Discard;", &registry())
            .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "6");
        assert_eq!(testing::read(&r, "c.byte_count"), "30");
        r.write_handler("c.reset", "").unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        assert_eq!(testing::read(&r, "c.rate"), "0");
    }

    #[test]
    fn count_call_stops() {
        let r = testing::run(
            "InfiniteSource(BURST 3) -> c :: Counter(COUNT_CALL 7 stop) -> d :: Discard;",
            &registry(),
        )
        .unwrap();
        // The call fires while the 7th packet is counted; the rest of
        // that burst still passes.
        let n: u64 = testing::read(&r, "c.count").parse().unwrap();
        assert!((7..=9).contains(&n), "{n}");
        assert_eq!(testing::read(&r, "c.count_call"), "7");
    }

    #[test]
    fn bad_call() {
        let e = testing::build(
            "Idle -> Counter(COUNT_CALL x y) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("COUNT_CALL type mismatch"), "{e}");
    }

    #[test]
    fn rate_is_positive_while_busy() {
        let r = testing::run(
            "RatedSource(RATE 1000, LIMIT 2000, STOP true) -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        let rate: f64 = testing::read(&r, "c.rate").parse().unwrap();
        assert!(rate > 500.0 && rate < 1500.0, "{rate}");
    }
}
