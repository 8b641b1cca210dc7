//! # LinkUnqueue
//!
//! `LinkUnqueue(LATENCY, BANDWIDTH)`
//!
//! **Category:** shaping. Emulates a serial link.
//!
//! **Ports:** one pull input, one push output.
//!
//! ## Description
//!
//! Pulls packets from its input and delays them as a serial link with
//! latency LATENCY and bandwidth BANDWIDTH would: every packet is delayed
//! by at least LATENCY, plus the time its bytes take at BANDWIDTH, plus
//! the time the packets ahead of it on the link still need. Packets are
//! pushed out of the output when their time comes.
//!
//! LinkUnqueue keeps only the packets that are on the link: it pulls a new
//! packet only while the link has room (the last packet on the link is
//! due to have left the sender's side). Put a Queue in front of it to
//! emulate a link fed by a queue. It sleeps on the upstream "empty"
//! notifiers while its input is empty.
//!
//! The transmission time of a packet is its length plus its extra length
//! annotation, at BANDWIDTH, in whole microseconds.
//!
//! Arguments:
//!
//! * `LATENCY` (time). Required.
//! * `BANDWIDTH` (bandwidth, such as `384kbps`; at least 100Bps).
//!   Required. Kept in units of 100 bytes per second, as Click does.
//!
//! Errors: `bandwidth too small, minimum 100Bps`.
//!
//! ## Annotations
//!
//! Uses the extra length annotation; sets the timestamp annotation to the
//! time each packet leaves the link.
//!
//! ## Handlers
//!
//! * `latency` (read/write): LATENCY. Writing resets the link.
//! * `bandwidth` (read/write): BANDWIDTH in bytes per second. Writing
//!   resets the link.
//! * `size` (read): packets now on the link.
//! * `reset` (write): drops every packet on the link.
//! * The task handlers `scheduled`, `tickets`, `home_thread`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Queue -> LinkUnqueue(5ms, 1Mbps) -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! DelayUnqueue, Queue, Unqueue, RatedUnqueue, BandwidthRatedUnqueue,
//! DelayShaper, SetTimestamp

use std::collections::VecDeque;

use rclick_core::args::{parse_bandwidth, parse_interval, Args, Bandwidth, Interval};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, Packet, TaskId, TimerId,
    Timestamp,
};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Latency = read_write("latency"),
        Bandwidth = read_write("bandwidth"),
        Size = read("size"),
        Reset = write("reset"),
    }
}

/// The LinkUnqueue element.
pub struct LinkUnqueue {
    latency: Interval,
    /// Bandwidth in units of 100 bytes per second.
    bw100: u32,
    link: VecDeque<Packet>,
    back_to_back: bool,
    task: Option<TaskId>,
    timer: Option<TimerId>,
    signal: NotifierSignal,
}

impl Default for LinkUnqueue {
    fn default() -> Self {
        LinkUnqueue {
            latency: Interval::ZERO,
            bw100: 1,
            link: VecDeque::new(),
            back_to_back: false,
            task: None,
            timer: None,
            signal: NotifierSignal::Busy,
        }
    }
}

fn bandwidth_units(bw: Bandwidth) -> Result<u32, String> {
    let b = bw.bytes_per_sec();
    if b.is_nan() || b < 100.0 {
        return Err("bandwidth too small, minimum 100Bps".into());
    }
    if b > f64::from(u32::MAX) {
        return Err("BANDWIDTH: out of range".into());
    }
    Ok((b as u32) / 100)
}

impl LinkUnqueue {
    fn latency(&self) -> Timestamp {
        Timestamp::from_nsec(self.latency.as_nanos())
    }

    /// Sets `p`'s leaving time: `start` plus its transmission time.
    fn delay_by_bandwidth(&self, p: &mut Packet, start: Timestamp) {
        let len = p.len() as u64 + u64::from(p.extra_length_anno());
        let usec = len * 10_000 / u64::from(self.bw100.max(1));
        let usec = i64::try_from(usec).unwrap_or(i64::MAX / 1000);
        p.set_timestamp_anno(start.saturating_add(Timestamp::from_usec(usec)));
    }

    fn reset(&mut self, cx: &mut Ctx) {
        self.link.clear();
        self.back_to_back = false;
        if let Some(t) = self.timer {
            cx.unschedule_timer(t);
        }
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }
}

impl Element for LinkUnqueue {
    fn class_name(&self) -> &'static str {
        "LinkUnqueue"
    }
    fn processing(&self) -> &'static str {
        "l/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut latency = Interval::ZERO;
        let mut bw = Bandwidth(0.0);
        Args::new(conf)
            .read_mp("LATENCY", &mut latency)
            .read_mp("BANDWIDTH", &mut bw)
            .complete()
            .map_err(|e| e.to_string())?;
        let units = bandwidth_units(bw)?;
        self.latency = latency;
        self.bw100 = units;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_task(true);
        self.task = Some(t);
        self.timer = Some(cx.new_timer());
        self.signal = cx.upstream_empty_signal(0, Some(t));
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.link.clear();
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let mut worked = false;
        let now = cx.now();
        let now_delayed = now.saturating_add(self.latency());

        // Take packets while the link has room.
        while self
            .link
            .back()
            .is_none_or(|q| q.timestamp_anno() <= now_delayed)
        {
            let Some(mut p) = cx.pull_one(0) else {
                self.back_to_back = false;
                break;
            };
            let start = match self.link.back() {
                Some(q) if self.back_to_back => q.timestamp_anno(),
                _ => now_delayed,
            };
            self.delay_by_bandwidth(&mut p, start);
            self.link.push_back(p);
            worked = true;
            self.back_to_back = true;
        }

        // Send what has arrived.
        while self.link.front().is_some_and(|p| p.timestamp_anno() <= now) {
            if let Some(p) = self.link.pop_front() {
                cx.push_one(0, p);
                worked = true;
            }
        }

        // Decide when to run next.
        if let (Some(head), Some(tail)) = (self.link.front(), self.link.back()) {
            let mut expiry = head.timestamp_anno();
            if self.signal.active() {
                expiry = expiry.min(tail.timestamp_anno().saturating_sub(self.latency()));
            }
            if expiry <= now {
                cx.reschedule();
            } else if let Some(t) = self.timer {
                cx.schedule_timer_at(t, expiry);
            }
        } else if self.signal.active() {
            cx.reschedule();
        }
        worked
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Latency) => self.latency.to_string(),
            Some(H::Bandwidth) => (u64::from(self.bw100) * 100).to_string(),
            Some(H::Size) => self.link.len().to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let value = value.trim();
        match H::from_id(id) {
            Some(H::Latency) => {
                self.latency = parse_interval(value).map_err(|_| "latency must be a timestamp")?;
            }
            Some(H::Bandwidth) => {
                let bw = parse_bandwidth(value).map_err(|_| "invalid bandwidth")?;
                self.bw100 = bandwidth_units(bw)?;
            }
            Some(H::Reset) => {}
            _ => return Err("unknown handler".into()),
        }
        self.reset(cx);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn serial_link_timing() {
        // 100kb/s = 12500 B/s: a 20-byte packet takes 1.6ms, 1600 bytes 128ms.
        let r = testing::run(
            "InfiniteSource(LENGTH 20, LIMIT 2, STOP false) -> q :: Queue -> l :: LinkUnqueue(5ms, 100kb/s)
               -> c :: Counter -> Discard;
             Script(wait 6ms, set a $(c.count), wait 0.7ms, set b $(c.count), wait 2ms,
                    print $a $b $(c.count) $(l.size), stop);",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(r.take_stdout().trim(), "0 1 2 0");
        assert_eq!(testing::read(&r, "l.bandwidth"), "12500");
        assert_eq!(testing::read(&r, "l.latency"), "5ms");
        assert!(r.write_handler("l.bandwidth", "10Bps").is_err());
        assert!(r.write_handler("l.latency", "x").is_err());
        r.write_handler("l.reset", "").unwrap();
        let e = testing::run(
            "Idle -> LinkUnqueue(1ms, 50Bps) -> Discard;",
            &test_registry(),
        )
        .unwrap_err();
        assert!(e.contains("bandwidth too small"), "{e}");
    }
}
