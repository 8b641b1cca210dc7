//! # TimedSource
//!
//! `TimedSource([INTERVAL, DATA, KEYWORDS])`
//!
//! **Category:** sources. Periodically generates a packet.
//!
//! **Ports:** no inputs, one push output.
//!
//! ## Description
//!
//! Creates a packet consisting of DATA every INTERVAL and pushes it out.
//! A timer drives it, so it works in simulated time.
//!
//! Keywords:
//!
//! * `INTERVAL` (time): time between packets. Default 0.5s.
//! * `DATA` (string): packet contents. Default is a 70-byte text.
//! * `LIMIT` (integer): total packets to send; negative means no limit.
//!   Default -1.
//! * `ACTIVE` (boolean): whether to send packets. Default true.
//! * `STOP` (boolean): stop the driver once LIMIT packets were sent.
//!   Default false.
//! * `HEADROOM` (unsigned): headroom of the generated packets. Default the
//!   standard packet headroom.
//!
//! ## Annotations
//!
//! Sets the timestamp annotation.
//!
//! ## Handlers
//!
//! * `data` (read/write): DATA.
//! * `limit` (read/write): LIMIT.
//! * `interval` (read/write): INTERVAL.
//! * `active` (read/write): ACTIVE.
//! * `headroom` (read/write): HEADROOM.
//! * `count` (read): packets sent so far.
//! * `reset` (write): zeroes the count and restarts.
//!
//! ## Examples
//!
//! ```text
//! TimedSource(1s, "hello") -> Print -> Discard;
//! ```
//!
//! ## See also
//!
//! InfiniteSource, RatedSource

use rclick_core::args::{parse_interval, Args, Data, Interval};
use rclick_core::{Ctx, Element, HandlerDef, InitCx, TimerId, Timestamp};
use rclick_packet::Packet;

use super::{parse_bool, parse_int, template_packet, DEFAULT_DATA};

/// The TimedSource element.
pub struct TimedSource {
    data: Vec<u8>,
    interval: Interval,
    limit: i64,
    count: u64,
    active: bool,
    stop: bool,
    headroom: usize,
    packet: Packet,
    timer: Option<TimerId>,
}

impl Default for TimedSource {
    fn default() -> Self {
        TimedSource {
            data: DEFAULT_DATA.to_vec(),
            interval: Interval::from_millis(500),
            limit: -1,
            count: 0,
            active: true,
            stop: false,
            headroom: rclick_packet::DEFAULT_HEADROOM,
            packet: Packet::from_slice(DEFAULT_DATA),
            timer: None,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Data = read_write("data").raw(),
        Limit = read_write("limit"),
        Interval = read_write("interval"),
        Active = read_write("active"),
        Count = read("count"),
        Headroom = read_write("headroom"),
        Reset = write("reset"),
    }
}

impl TimedSource {
    fn restart(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.timer {
            if self.active && cx.timer_expiry(t).is_none() {
                cx.schedule_timer_after(t, Timestamp::ZERO);
            }
        }
    }
}

impl Element for TimedSource {
    fn class_name(&self) -> &'static str {
        "TimedSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }

    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut interval = self.interval;
        let mut data = Data(self.data.clone());
        let mut limit = self.limit;
        let mut active = self.active;
        let mut stop = self.stop;
        let mut headroom = self.headroom;
        Args::new(conf)
            .read_p("INTERVAL", &mut interval)
            .read_p("DATA", &mut data)
            .read("LIMIT", &mut limit)
            .read("ACTIVE", &mut active)
            .read("STOP", &mut stop)
            .read("HEADROOM", &mut headroom)
            .complete()
            .map_err(|e| e.to_string())?;
        self.interval = interval;
        self.data = data.0;
        self.limit = limit;
        self.active = active;
        self.stop = stop;
        self.headroom = headroom.min(1 << 16);
        self.packet = template_packet(self.headroom, &self.data);
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let t = cx.new_timer();
        self.timer = Some(t);
        if self.active {
            cx.schedule_timer_after(t, Timestamp::from_nsec(self.interval.as_nanos().max(0)));
        }
        Ok(())
    }

    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        if !self.active {
            return;
        }
        if self.limit < 0 || self.count < self.limit as u64 {
            let mut p = self.packet.clone();
            p.set_timestamp_anno(cx.now());
            self.count += 1;
            cx.push_one(0, p);
            cx.schedule_timer_after(timer, Timestamp::from_nsec(self.interval.as_nanos().max(1)));
        } else if self.stop {
            cx.request_stop();
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Data) => String::from_utf8_lossy(&self.data).into_owned(),
            Some(H::Limit) => self.limit.to_string(),
            Some(H::Interval) => self.interval.to_string(),
            Some(H::Active) => self.active.to_string(),
            Some(H::Count) => self.count.to_string(),
            Some(H::Headroom) => self.headroom.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Data) => {
                self.data = value.as_bytes().to_vec();
                self.packet = template_packet(self.headroom, &self.data);
            }
            Some(H::Headroom) => {
                self.headroom = parse_int::<usize>(value)
                    .ok_or("bad headroom")?
                    .min(1 << 16);
                self.packet = template_packet(self.headroom, &self.data);
            }
            Some(H::Limit) => self.limit = parse_int::<i64>(value).ok_or("expected integer")?,
            Some(H::Interval) => {
                let i = parse_interval(value.trim())
                    .ok()
                    .filter(|i| i.as_nanos() > 0);
                self.interval = i.ok_or("bad interval")?;
            }
            Some(H::Active) => {
                self.active = parse_bool(value).ok_or("bad active")?;
                self.restart(cx);
            }
            Some(H::Reset) => {
                self.count = 0;
                self.restart(cx);
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
    fn periodic_with_limit() {
        let r = testing::build(
            "s :: TimedSource(100ms, \"ab\", LIMIT 4, STOP true) -> c :: Counter -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        let start = r.clock().now();
        r.run();
        assert_eq!(testing::read(&r, "c.count"), "4");
        assert_eq!(testing::read(&r, "c.byte_count"), "8");
        let el = (r.clock().now() - start).as_secs_f64();
        assert!((0.45..0.55).contains(&el), "{el}");
        assert_eq!(testing::read(&r, "s.interval"), "100ms");
    }
}
