//! What the rated classes share (RatedUnqueue, BandwidthRatedUnqueue,
//! RatedSplitter, BandwidthRatedSplitter): RATE and the burst keywords
//! (Click's `RatedUnqueue::configure_helper`), the token bucket they fill,
//! what a packet costs (one token, or its length in bytes for the
//! Bandwidth classes) and the `rate` handler. Each class's file holds
//! what it does when a packet may or may not pass.

use rclick_core::args::{parse_interval, unparse_bandwidth, Args, Bandwidth};
use rclick_core::Packet;

use super::token_bucket::{ticks, TokenBucket};

/// Extra tokens (bytes) BandwidthRatedUnqueue's bucket holds: it sends
/// while at least this many are available, whatever the packet length.
pub(crate) const BANDWIDTH_THRESH: u32 = 131072;

/// A rated class's token bucket, in packets or (for the Bandwidth
/// classes) bytes.
#[derive(Default)]
pub(crate) struct RateBucket {
    bandwidth: bool,
    tb: TokenBucket,
}

impl RateBucket {
    /// A bucket counting packets, or bytes when `bandwidth`.
    pub(crate) fn new(bandwidth: bool) -> RateBucket {
        RateBucket {
            bandwidth,
            tb: TokenBucket::default(),
        }
    }

    /// Whether it counts bytes.
    pub(crate) fn bandwidth(&self) -> bool {
        self.bandwidth
    }

    /// Takes RATE and the burst keywords.
    pub(crate) fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        let (rate, capacity) = parse_rate_config(conf, self.bandwidth)?;
        self.tb.assign(rate, capacity);
        Ok(())
    }

    /// Adds the tokens earned up to `now`.
    pub(crate) fn refill(&mut self, now: rclick_core::Timestamp) {
        self.tb.refill(ticks(now));
    }

    /// The tokens a packet may go with.
    pub(crate) fn threshold(&self) -> u32 {
        if self.bandwidth {
            BANDWIDTH_THRESH
        } else {
            1
        }
    }

    /// Whether a packet may go now.
    pub(crate) fn ready(&self) -> bool {
        self.tb.contains(self.threshold())
    }

    /// Nanoseconds until a packet may go, `u64::MAX` for never.
    pub(crate) fn time_until_ready(&self) -> u64 {
        self.tb.time_until_contains(self.threshold())
    }

    /// Takes what `p` costs.
    pub(crate) fn charge(&mut self, p: &Packet) {
        let cost = if self.bandwidth {
            u32::try_from(p.len()).unwrap_or(u32::MAX)
        } else {
            1
        };
        self.tb.remove(cost);
    }

    /// Takes what `p` costs if a packet may go now; whether it may.
    pub(crate) fn take(&mut self, p: &Packet) -> bool {
        if self.bandwidth {
            if !self.tb.contains(BANDWIDTH_THRESH) {
                return false;
            }
            self.charge(p);
            true
        } else {
            self.tb.remove_if(1)
        }
    }

    /// The `rate` handler's read.
    pub(crate) fn rate_text(&self) -> String {
        if self.bandwidth {
            unparse_bandwidth(f64::from(self.tb.rate()))
        } else {
            self.tb.rate().to_string()
        }
    }
}

fn parse_msec(s: &str) -> Result<u32, String> {
    let i = parse_interval(s)?;
    // SecondsArg(3): milliseconds, rounded half up
    let ms = (i.as_nanos() + 500_000) / 1_000_000;
    u32::try_from(ms).map_err(|_| "out of range".to_string())
}

/// Parses RATE and the burst keywords into a token bucket rate and
/// capacity (Click's `RatedUnqueue::configure_helper`); shared with
/// BandwidthRatedUnqueue.
pub(crate) fn parse_rate_config(conf: &[String], bandwidth: bool) -> Result<(u32, u32), String> {
    let mut rate: u32 = 0;
    let mut bw = Bandwidth(0.0);
    let mut dur_msec: u32 = 20;
    let mut tokens: u32 = 0;
    let (mut dur_given, mut tokens_given) = (false, false);
    let burst_kw = if bandwidth {
        "BURST_BYTES"
    } else {
        "BURST_SIZE"
    };
    let mut args = Args::new(conf);
    args = if bandwidth {
        args.read_mp("RATE", &mut bw)
    } else {
        args.read_mp("RATE", &mut rate)
    };
    args.read_with("BURST_DURATION", &mut dur_msec, parse_msec)
        .read_status(&mut dur_given)
        .read(burst_kw, &mut tokens)
        .read_status(&mut tokens_given)
        .complete()
        .map_err(|e| e.to_string())?;
    if bandwidth {
        let b = bw.bytes_per_sec();
        if b > f64::from(u32::MAX) {
            return Err("RATE: out of range".into());
        }
        rate = b as u32;
    }
    if dur_given && tokens_given {
        return Err(format!("cannot specify both BURST_DURATION and {burst_kw}"));
    }
    if !tokens_given {
        let t = u64::from(rate) * u64::from(dur_msec) / 1000;
        tokens = u32::try_from(t).unwrap_or(u32::MAX);
    }
    if bandwidth {
        tokens = tokens.saturating_add(BANDWIDTH_THRESH);
    }
    Ok((rate, tokens.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn burst_parameters() {
        assert_eq!(parse_rate_config(&conf(&["2"]), false), Ok((2, 1)));
        assert_eq!(
            parse_rate_config(&conf(&["RATE 2", "BURST_SIZE 50"]), false),
            Ok((2, 50))
        );
        assert_eq!(
            parse_rate_config(&conf(&["2", "BURST_DURATION 25"]), false),
            Ok((2, 50))
        );
        assert_eq!(parse_rate_config(&conf(&["1000"]), false), Ok((1000, 20)));
        assert!(
            parse_rate_config(&conf(&["2", "BURST_DURATION 1", "BURST_SIZE 3"]), false).is_err()
        );
        assert!(parse_rate_config(&conf(&[]), false).is_err());
        assert_eq!(
            parse_rate_config(&conf(&["200Bps"]), true),
            Ok((200, 131076))
        );
    }

    #[test]
    fn costs_and_rate_handler() {
        let p = Packet::from_slice(&[0; 100]);
        let mut b = RateBucket::new(false);
        b.configure(&conf(&["10", "BURST_SIZE 2"])).unwrap();
        b.tb.set_full();
        assert!(b.ready());
        assert!(b.take(&p) && b.take(&p));
        assert!(!b.take(&p) && !b.ready());
        assert_eq!(b.rate_text(), "10");
        let mut b = RateBucket::new(true);
        b.configure(&conf(&["1000Bps"])).unwrap();
        assert_eq!(b.threshold(), BANDWIDTH_THRESH);
        assert_eq!(b.rate_text(), unparse_bandwidth(1000.0));
    }
}
