//! # AverageCounter
//!
//! `AverageCounter([IGNORE])`
//!
//! **Category:** basic. Counts packets and measures their average rate.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Passes packets unchanged, counting them and their bytes. The rates it
//! reports are averages over the time between the first and the last packet
//! it saw.
//!
//! Keywords:
//!
//! * `IGNORE` (seconds): packets arriving within this time of the first
//!   one are not counted. Default 0.
//!
//! ## Handlers
//!
//! * `count` (read), `byte_count` (read): packets and bytes counted.
//! * `rate` (read): average packets a second.
//! * `byte_rate` (read), `bit_rate` (read): average bytes and bits a second.
//! * `reset` (write): starts over.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Examples
//!
//! ```text
//! ... -> ac :: AverageCounter(IGNORE 1) -> ...
//! // later: read ac.rate
//! ```
//!
//! ## See also
//!
//! Counter

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, HandlerDef, PacketBatch};

use super::unparse_double;

/// The AverageCounter element.
#[derive(Default)]
pub struct AverageCounter {
    count: u64,
    byte_count: u64,
    /// Jiffies (ms) of the first and last packets; `None` before the first.
    first: Option<i64>,
    last: i64,
    ignore_ms: i64,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
        ByteCount = read("byte_count"),
        Rate = read("rate"),
        ByteRate = read("byte_rate"),
        BitRate = read("bit_rate"),
        Reset = write("reset"),
    }
}

impl AverageCounter {
    fn account(&mut self, b: &PacketBatch, cx: &Ctx) {
        let now = cx.now().as_msec();
        let first = *self.first.get_or_insert(now);
        if now - first >= self.ignore_ms {
            self.count += b.len() as u64;
            self.byte_count += b.iter().map(|p| p.len() as u64).sum::<u64>();
        }
        self.last = now;
    }

    fn rate(&self, n: u64) -> String {
        let first = self.first.unwrap_or(self.last);
        let d = (self.last - first - self.ignore_ms).max(1);
        unparse_double(n as f64 * 1000.0 / d as f64)
    }
}

impl Element for AverageCounter {
    fn class_name(&self) -> &'static str {
        "AverageCounter"
    }

    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut ignore = 0.0f64;
        Args::new(conf)
            .read_p("IGNORE", &mut ignore)
            .complete()
            .map_err(|e| e.to_string())?;
        if !(0.0..1e9).contains(&ignore) {
            return Err("IGNORE: out of range".into());
        }
        self.ignore_ms = (ignore * 1000.0) as i64;
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.account(&batch, cx);
        cx.push(0, batch);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let b = cx.pull(0, max);
        if !b.is_empty() {
            self.account(&b, cx);
        }
        b
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Count) => self.count.to_string(),
            Some(H::ByteCount) => self.byte_count.to_string(),
            Some(H::Rate) => self.rate(self.count),
            Some(H::ByteRate) => self.rate(self.byte_count),
            Some(H::BitRate) => self.rate(self.byte_count.saturating_mul(8)),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => {
                self.count = 0;
                self.byte_count = 0;
                self.first = None;
                self.last = 0;
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn average_rate() {
        let r = testing::run("RatedSource(\\<00>, RATE 100, LIMIT 101, STOP true) -> c :: AverageCounter -> Discard;", &registry())
            .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "101");
        assert_eq!(testing::read(&r, "c.byte_count"), "101");
        let rate: f64 = testing::read(&r, "c.rate").parse().unwrap();
        assert!((rate - 101.0).abs() < 2.0, "{rate}");
    }
}
