//! # RandomSample
//!
//! ## Synopsis
//!
//! `RandomSample([P, keywords PROBABILITY, DROP, ACTIVE])`
//!
//! ## Category
//!
//! analysis — samples packets with some probability.
//!
//! ## Ports and processing
//!
//! One input, one or two outputs, agnostic.
//!
//! ## Description
//!
//! Passes each packet to output 0 with probability P; other packets go to
//! output 1 if it exists and are dropped otherwise. When inactive, every
//! packet passes.
//!
//! * `P` / `PROBABILITY` (real in 0..1, default 1 when DROP is given).
//! * `DROP` (real in 0..1): the drop probability, `1 - P`.
//! * `ACTIVE` (boolean, default true): whether to sample.
//!
//! ## Handlers
//!
//! * `sampling_prob`, `probability` (read/write): P.
//! * `drop_prob` (read/write): 1 - P.
//! * `active` (read/write).
//! * `drops` (read): packets not sampled.
//!
//! ## Example
//!
//! `RandomSample(0.5)`
//!
//! ## See also
//!
//! RandomBitErrors

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

/// The RandomSample element.
pub struct RandomSample {
    prob: f64,
    active: bool,
    drops: u64,
    rng: u64,
}

impl Default for RandomSample {
    fn default() -> Self {
        RandomSample {
            prob: 1.0,
            active: true,
            drops: 0,
            rng: 0x2545_f491_4f6c_dd1d,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Prob = read_write("sampling_prob", "probability"),
        Drop = read_write("drop_prob"),
        Active = read_write("active"),
        Drops = read("drops"),
    }
}

fn parse_prob(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| "expected real number".to_string())?;
    if !(0.0..=1.0).contains(&v) {
        return Err("must be between 0 and 1".into());
    }
    Ok(v)
}

impl RandomSample {
    fn coin(&mut self) -> f64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Element for RandomSample {
    fn class_name(&self) -> &'static str {
        "RandomSample"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut p = -1.0f64;
        let mut p2 = -1.0f64;
        let mut d = -1.0f64;
        let mut active = true;
        Args::new(conf)
            .read_p_with("P", &mut p, parse_prob)
            .read_with("PROBABILITY", &mut p2, parse_prob)
            .read_with("DROP", &mut d, parse_prob)
            .read("ACTIVE", &mut active)
            .complete()
            .map_err(|e| e.to_string())?;
        if p2 >= 0.0 {
            p = p2;
        }
        let prob = match (p >= 0.0, d >= 0.0) {
            (true, true) => return Err("P and DROP are mutually exclusive".into()),
            (true, false) => p,
            (false, true) => 1.0 - d,
            (false, false) => return Err("P: required argument missing".into()),
        };
        self.prob = prob;
        self.active = active;
        Ok(())
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if !self.active || self.coin() < self.prob {
            Some(p)
        } else {
            self.drops += 1;
            cx.checked_push(1, rclick_core::PacketBatch::from(p));
            None
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Prob) => format!("{}", self.prob),
            Some(H::Drop) => format!("{}", 1.0 - self.prob),
            Some(H::Active) => self.active.to_string(),
            Some(H::Drops) => self.drops.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Prob) => self.prob = parse_prob(value)?,
            Some(H::Drop) => self.prob = 1.0 - parse_prob(value)?,
            Some(H::Active) => {
                self.active = match value.trim() {
                    "true" | "1" | "yes" | "on" => true,
                    "false" | "0" | "no" | "off" => false,
                    _ => return Err("expected boolean".into()),
                }
            }
            _ => return Err("no such handler".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};
    use rclick_core::testing;

    fn sample(args: &str) -> (usize, String, rclick_core::Router) {
        let f = dir("rsample").join("in");
        std::fs::write(&f, "!data ip_ttl\n1\n2\n3\n4\n5\n6\n7\n8\n").unwrap();
        let (r, lines) = run_dump(
            "rsample",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> s :: RandomSample({args})
                 -> ToIPSummaryDump(OUT, FIELDS ip_ttl);",
                f.display()
            ),
        );
        let drops = testing::read(&r, "s.drops");
        (lines.len(), drops, r)
    }

    /// P 1 passes all, P 0 drops all (counted), inactive passes all; the
    /// probability handlers read P and 1 - P.
    #[test]
    fn probabilities_at_the_ends() {
        let (n, drops, r) = sample("1");
        assert_eq!((n, drops.as_str()), (8, "0"));
        assert_eq!(testing::read(&r, "s.sampling_prob"), "1");
        assert_eq!(testing::read(&r, "s.drop_prob"), "0");
        let (n, drops, _) = sample("0");
        assert_eq!((n, drops.as_str()), (0, "8"));
        let (n, drops, r) = sample("DROP 1, ACTIVE false");
        assert_eq!((n, drops.as_str()), (8, "0"));
        assert_eq!(testing::read(&r, "s.active"), "false");
        assert!(testing::build(
            "RandomSample(1.5)",
            &super::super::test_util::registry(),
            true
        )
        .is_err());
    }
}
