//! # RatedSource
//!
//! `RatedSource([DATA, RATE, LIMIT, ACTIVE, KEYWORDS])`
//!
//! **Category:** sources. Generates packets at a given rate.
//!
//! **Ports:** no inputs, one output, agnostic.
//!
//! ## Description
//!
//! Creates packets consisting of DATA, RATE of them a second, in push or
//! pull mode. A token bucket holding up to 2 packets' worth of credit (or
//! RATE/100 when RATE is 200 or more) paces them, so packets are evenly
//! spaced and a late start catches up by at most a short burst. In push
//! mode a task sends packets while credit lasts and otherwise sets a timer
//! for when the next packet is due, so the element works in simulated time
//! too. In pull mode a pull returns a packet only when one is due.
//!
//! Keywords:
//!
//! * `DATA` (string): packet contents. Default is a 70-byte text.
//! * `LENGTH` (integer): packet length; DATA is cut or repeated to fit.
//!   `DATASIZE` is a deprecated synonym. Default DATA's length.
//! * `RATE` (unsigned integer): packets a second. Default 10.
//! * `BANDWIDTH` (bandwidth): sets RATE to this many bytes a second divided
//!   by the packet length.
//! * `LIMIT` (integer): total packets to send; negative means no limit.
//!   Default -1.
//! * `ACTIVE` (boolean): whether to send packets. Default true.
//! * `STOP` (boolean): stop the driver when LIMIT is reached. Default false.
//!
//! ## Annotations
//!
//! Sets the timestamp annotation to the current time.
//!
//! ## Handlers
//!
//! * `count` (read): packets sent so far.
//! * `reset` (write): zeroes the count and restarts.
//! * `rate` (read/write): RATE.
//! * `limit` (read/write): LIMIT.
//! * `active` (read/write): ACTIVE.
//! * `data` (read/write): DATA.
//! * `length` (read/write), `datasize` (read/write): LENGTH (two names).
//!
//! ## Examples
//!
//! ```text
//! RatedSource(\<0800>, 10, 1000) -> Queue -> ...
//! ```
//!
//! ## See also
//!
//! InfiniteSource, TimedSource, RatedUnqueue

use rclick_core::args::{Args, Bandwidth, Data};
use rclick_core::{Ctx, Element, HandlerDef, InitCx, PacketBatch, TaskId, TimerId, Timestamp};
use rclick_packet::Packet;

use super::source::LengthArgs;
use super::{parse_bool, parse_int, sized_data, template_packet, TokenBucket, DEFAULT_DATA};

/// The RatedSource element.
pub struct RatedSource {
    data: Vec<u8>,
    length: i64,
    limit: Option<u64>,
    active: bool,
    stop: bool,
    count: u64,
    tb: TokenBucket,
    packet: Packet,
    task: Option<TaskId>,
    timer: Option<TimerId>,
}

impl Default for RatedSource {
    fn default() -> Self {
        RatedSource {
            data: DEFAULT_DATA.to_vec(),
            length: -1,
            limit: None,
            active: true,
            stop: false,
            count: 0,
            tb: TokenBucket::new(10, 2),
            packet: Packet::from_slice(DEFAULT_DATA),
            task: None,
            timer: None,
        }
    }
}

/// Headroom of the template packet (room for Ethernet, IP and UDP headers).
const HEADROOM: usize = 16 + 20 + 24;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Data = read_write("data").raw(),
        Rate = read_write("rate"),
        Limit = read_write("limit"),
        Active = read_write("active"),
        Count = read("count"),
        Reset = write("reset"),
        Length = read_write("length", "datasize"),
    }
}

fn burst_for(rate: u64) -> u64 {
    if rate < 200 {
        2
    } else {
        rate / 100
    }
}

impl RatedSource {
    fn setup_packet(&mut self) {
        self.packet = template_packet(HEADROOM, &sized_data(&self.data, self.length));
    }

    fn limited(&self) -> bool {
        matches!(self.limit, Some(l) if self.count >= l)
    }

    fn make(&self, cx: &Ctx) -> Packet {
        let mut p = self.packet.clone();
        p.set_timestamp_anno(cx.now());
        p
    }
}

impl Element for RatedSource {
    fn class_name(&self) -> &'static str {
        "RatedSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }

    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut data = Data(DEFAULT_DATA.to_vec());
        let mut rate: u32 = 10;
        let mut limit: i64 = -1;
        let mut active = true;
        let mut length = LengthArgs::default();
        let mut stop = false;
        let mut bandwidth = Bandwidth(0.0);
        let args = Args::new(conf)
            .read_p("DATA", &mut data)
            .read_p("RATE", &mut rate)
            .read_p("LIMIT", &mut limit)
            .read_p("ACTIVE", &mut active);
        length
            .read(args)
            .read("STOP", &mut stop)
            .read("BANDWIDTH", &mut bandwidth)
            .complete()
            .map_err(|e| e.to_string())?;
        let length = length.get()?;
        let mut rate = u64::from(rate);
        let bw = bandwidth.bytes_per_sec();
        let plen = if length < 0 {
            data.0.len() as f64
        } else {
            length as f64
        };
        if bw > 0.0 && plen > 0.0 {
            rate = (bw / plen) as u64;
        }
        let mut burst = burst_for(rate);
        if bw > 0.0 && length > 0 && burst < 2 * length as u64 {
            burst = 2 * length as u64;
        }
        self.data = data.0;
        self.length = length;
        self.tb = TokenBucket::new(rate, burst);
        self.limit = u64::try_from(limit).ok();
        self.active = active;
        self.stop = stop;
        self.setup_packet();
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.count = 0;
        if cx.output_is_push(0) {
            self.task = Some(cx.new_task(true));
            self.timer = Some(cx.new_timer());
        }
        let now = cx.now().as_nsec();
        self.tb.set(1, now);
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.active {
            return false;
        }
        if self.limited() {
            if self.stop {
                cx.request_stop();
            }
            return false;
        }
        let now = cx.now().as_nsec();
        self.tb.refill(now);
        if self.tb.remove_if(1) {
            let p = self.make(cx);
            self.count += 1;
            cx.push_one(0, p);
            cx.reschedule();
            true
        } else {
            if let (Some(t), Some(wait)) = (self.timer, self.tb.time_until_contains(1)) {
                cx.schedule_timer_after(t, Timestamp::from_nsec(wait.max(1)));
            }
            false
        }
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if let Some(t) = self.task {
            cx.schedule_task(t);
        }
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut b = PacketBatch::new();
        if !self.active {
            return b;
        }
        if self.limited() {
            if self.stop {
                cx.request_stop();
            }
            return b;
        }
        self.tb.refill(cx.now().as_nsec());
        while b.len() < max.max(1) && !self.limited() && self.tb.remove_if(1) {
            b.push(self.make(cx));
            self.count += 1;
        }
        b
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Data) => String::from_utf8_lossy(&self.data).into_owned(),
            Some(H::Rate) => self.tb.rate().to_string(),
            Some(H::Limit) => self.limit.map_or("-1".to_string(), |l| l.to_string()),
            Some(H::Active) => self.active.to_string(),
            Some(H::Count) => self.count.to_string(),
            Some(H::Length) => self.length.to_string(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let now = cx.now().as_nsec();
        let restart = |s: &mut Self, cx: &mut Ctx| {
            if let Some(t) = s.task {
                if s.active && !cx.task_scheduled(t) {
                    s.tb.set(1, now);
                    cx.schedule_task(t);
                }
            }
        };
        match H::from_id(id) {
            Some(H::Data) => {
                self.data = value.as_bytes().to_vec();
                self.setup_packet();
            }
            Some(H::Rate) => {
                let rate = u64::from(parse_int::<u32>(value).ok_or("syntax error")?);
                self.tb.refill(now);
                self.tb.assign_adjust(rate, burst_for(rate));
            }
            Some(H::Limit) => {
                let l = parse_int::<i64>(value).ok_or("syntax error")?;
                self.limit = u64::try_from(l).ok();
            }
            Some(H::Active) => {
                self.active = parse_bool(value).ok_or("syntax error")?;
                restart(self, cx);
            }
            Some(H::Reset) => {
                self.count = 0;
                self.tb.set(1, now);
                restart(self, cx);
            }
            Some(H::Length) => {
                let l = parse_int::<i64>(value).ok_or("syntax error")?;
                self.length = super::check_length(l)?;
                self.setup_packet();
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
    fn rate_in_simulated_time() {
        let r = testing::build(
            "s :: RatedSource(RATE 10, LIMIT 25, STOP true) -> c :: Counter -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        let start = r.clock().now();
        r.run();
        assert_eq!(testing::read(&r, "c.count"), "25");
        // 25 packets at 10/s: the first at 0, the last at 2.4s.
        let t = (r.clock().now() - start).as_secs_f64();
        assert!((2.3..2.6).contains(&t), "elapsed {t}");
    }

    #[test]
    fn prints_data() {
        let r = testing::run(
            "RatedSource(DATA \"I love myself\\n\", RATE 10000, LIMIT 3, STOP true) -> Print -> Discard",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["  14 | 49206c6f 7665206d 7973656c 660a"; 3]
        );
    }

    #[test]
    fn handlers() {
        let r = testing::build("s :: RatedSource(RATE 50) -> Discard", &registry(), true).unwrap();
        assert_eq!(testing::read(&r, "s.rate"), "50");
        assert_eq!(testing::read(&r, "s.limit"), "-1");
        r.write_handler("s.rate", "300").unwrap();
        assert_eq!(testing::read(&r, "s.rate"), "300");
        assert!(r.write_handler("s.rate", "x").is_err());
    }
}
