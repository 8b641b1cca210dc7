//! # EtherPauseSource
//!
//! `EtherPauseSource(SRC, PAUSETIME [, keywords DST, LIMIT, ACTIVE,
//! INTERVAL])`
//!
//! **Category:** ethernet. Emits Ethernet 802.3x PAUSE frames.
//!
//! **Ports:** no inputs, one output, agnostic.
//!
//! ## Description
//!
//! Makes 64-byte PAUSE frames (MAC Control, EtherType 0x8808, opcode 1)
//! from SRC (Ethernet address, mandatory: the sending device's) asking
//! the receiver to pause for PAUSETIME quanta (0 to 65535, mandatory; a
//! quantum is the time to send 512 bits on the link, so at 1 Gbit/s 195
//! quanta are about 100 µs). Pulled, it gives a frame per packet asked
//! for; pushing, it sends one every INTERVAL.
//!
//! Keywords:
//!
//! * `DST` (Ethernet address, default 01-80-C2-00-00-01, the multicast
//!   address reserved for PAUSE frames).
//! * `LIMIT` (integer, default -1): the most frames to send; -1 is no
//!   limit.
//! * `ACTIVE` (boolean, default true): whether to send.
//! * `INTERVAL` (time, millisecond precision, default 1 s): the push
//!   period.
//!
//! ## Handlers
//!
//! * `count` (read): frames sent.
//! * `limit`, `active` (read/write).
//! * `src`, `dst` (read/write): the addresses (`00-1E-13-22-48-91`).
//! * `pausetime` (read/write): PAUSETIME.
//! * `reset_counts` (write): sets `count` to 0, so LIMIT more frames go.
//!
//! ## Differences from Click
//!
//! In push mode, Click keeps sending after `active` is written false; here
//! the timer stops, and writing `active` true starts it again.
//!
//! ## Examples
//!
//! ```text
//! EtherPauseSource(00:1e:13:22:48:91, 390) -> ToDevice(eth0)
//! ```
//!
//! ## See also
//!
//! InfiniteSource

use rclick_core::args::{Args, EtherAddr, FromArg, Interval, NoContext};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch, TimerId, Timestamp,
};
use rclick_wire::mac_control::{MacControlPacket, OP_PAUSE};
use rclick_wire::{EtherType, EthernetAddress, EthernetFrame};

/// Frame length (the Ethernet minimum without the frame check sequence).
const FRAME_LEN: usize = 64;

/// The PAUSE multicast address.
const PAUSE_DST: [u8; 6] = [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01];

/// The EtherPauseSource element.
pub struct EtherPauseSource {
    frame: [u8; FRAME_LEN],
    limit: i64,
    active: bool,
    interval_ms: i64,
    count: i64,
    timer: Option<TimerId>,
}

impl Default for EtherPauseSource {
    fn default() -> Self {
        EtherPauseSource {
            frame: [0; FRAME_LEN],
            limit: -1,
            active: true,
            interval_ms: 1000,
            count: 0,
            timer: None,
        }
    }
}

rclick_core::handlers! {
    /// EtherPauseSource's handlers (the manual's list).
    enum H {
        Count = read("count"),
        Limit = read_write("limit"),
        Active = read_write("active"),
        Src = read_write("src"),
        Dst = read_write("dst"),
        Pausetime = read_write("pausetime"),
        Reset = write("reset_counts"),
    }
}

impl EtherPauseSource {
    fn eth(&mut self) -> EthernetFrame<&mut [u8]> {
        EthernetFrame::new_unchecked(&mut self.frame[..])
    }

    fn pause(&mut self) -> MacControlPacket<&mut [u8]> {
        MacControlPacket::new_unchecked(&mut self.frame[14..])
    }

    fn build(src: [u8; 6], dst: [u8; 6], pausetime: u16) -> [u8; FRAME_LEN] {
        let mut frame = [0u8; FRAME_LEN];
        let (eth, ctl) = frame.split_at_mut(14);
        let mut e = EthernetFrame::new_unchecked(eth);
        e.set_dst_addr(EthernetAddress(dst));
        e.set_src_addr(EthernetAddress(src));
        e.set_ethertype(EtherType::MAC_CONTROL);
        let mut c = MacControlPacket::new_unchecked(ctl);
        c.set_opcode(OP_PAUSE);
        c.set_param(pausetime);
        frame
    }

    fn may_send(&self) -> bool {
        self.active && (self.limit < 0 || self.count < self.limit)
    }

    fn packet(&mut self) -> Packet {
        self.count += 1;
        let mut p = Packet::from_slice(&self.frame);
        p.set_mac_header_len(0, 14);
        p
    }

    /// In push mode, starts the timer if it should run and does not.
    fn wake(&mut self, cx: &mut Ctx) {
        if let Some(t) = self.timer {
            if self.may_send() && cx.timer_expiry(t).is_none() {
                cx.schedule_timer_after(t, Timestamp::ZERO);
            }
        }
    }
}

impl Element for EtherPauseSource {
    fn class_name(&self) -> &'static str {
        "EtherPauseSource"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut src = EtherAddr::default();
        let mut dst = EtherAddr(PAUSE_DST);
        let mut pausetime = 0u16;
        let mut limit: i32 = -1;
        let mut active = true;
        let mut interval = Interval::from_nanos(1_000_000_000);
        Args::new_with(conf, cx.arg_context())
            .read_mp("SRC", &mut src)
            .read_mp("PAUSETIME", &mut pausetime)
            .read("DST", &mut dst)
            .read("LIMIT", &mut limit)
            .read("ACTIVE", &mut active)
            .read("INTERVAL", &mut interval)
            .complete()
            .map_err(|e| e.to_string())?;
        if interval.0 < 0 {
            return Err("INTERVAL: must be positive".to_string());
        }
        self.frame = Self::build(src.0, dst.0, pausetime);
        self.limit = i64::from(limit);
        self.active = active;
        self.interval_ms = interval.0 / 1_000_000;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.count = 0;
        if cx.output_is_push(0) {
            let t = cx.new_timer();
            self.timer = Some(t);
            if self.limit != 0 && self.active {
                cx.schedule_timer_after(t, Timestamp::from_msec(self.interval_ms));
            }
        }
        Ok(())
    }
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        if !self.may_send() {
            return;
        }
        let p = self.packet();
        cx.push(0, PacketBatch::from(p));
        if self.may_send() {
            cx.schedule_timer_after(timer, Timestamp::from_msec(self.interval_ms));
        }
    }
    fn pull(&mut self, _port: usize, max: usize, _cx: &mut Ctx) -> PacketBatch {
        let mut batch = PacketBatch::new();
        while batch.len() < max && self.may_send() {
            let p = self.packet();
            batch.push(p);
        }
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Count) => self.count.to_string(),
            Some(H::Limit) => self.limit.to_string(),
            Some(H::Active) => self.active.to_string(),
            Some(H::Src) => super::eth_dash(&self.eth().src_addr().0),
            Some(H::Dst) => super::eth_dash(&self.eth().dst_addr().0),
            _ => self.pause().param().to_string(),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let v = value.trim();
        let mismatch = |_| "type mismatch".to_string();
        match H::from_id(id) {
            Some(H::Src | H::Dst) => {
                let mut a = EtherAddr::default();
                Args::new_with(&[v], cx.arg_context())
                    .read_mp("ADDR", &mut a)
                    .complete()
                    .map_err(|_| "type mismatch".to_string())?;
                if id == H::Src.id() {
                    self.eth().set_src_addr(EthernetAddress(a.0));
                } else {
                    self.eth().set_dst_addr(EthernetAddress(a.0));
                }
            }
            Some(H::Pausetime) => {
                let t = u16::from_arg(v, &NoContext).map_err(mismatch)?;
                self.pause().set_param(t);
            }
            Some(H::Limit) => {
                self.limit = i64::from(i32::from_arg(v, &NoContext).map_err(mismatch)?);
                self.wake(cx);
            }
            Some(H::Active) => {
                self.active = bool::from_arg(v, &NoContext).map_err(mismatch)?;
                self.wake(cx);
            }
            _ => {
                self.count = 0;
                self.wake(cx);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click: the frame, pulled, up to LIMIT.
    #[test]
    fn pulled_frames() {
        let r = testing::run(
            "e :: EtherPauseSource(00:1e:13:22:48:91, 390, LIMIT 2) -> Unqueue(LIMIT 2) -> Print(m, 64) -> Discard;
             DriverManager(wait 10ms, stop);",
            &registry(),
        )
        .unwrap();
        let frame =
            "m:   64 | 0180c200 0001001e 13224891 88080001 01860000 00000000 00000000 00000000 \
                     00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000";
        assert_eq!(r.take_log(), vec![frame, frame]);
        assert_eq!(testing::read(&r, "e.count"), "2");
    }

    /// Checked against Click: pushed every INTERVAL; handlers.
    #[test]
    fn pushed_frames_and_handlers() {
        let r = testing::run(
            "e :: EtherPauseSource(1:2:3:4:5:6, 7, DST 8:9:a:b:c:d, INTERVAL 0.1, LIMIT 3)
             -> c :: Counter -> Discard;
             DriverManager(wait 1s, stop);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "3");
        assert_eq!(testing::read(&r, "e.src"), "01-02-03-04-05-06");
        assert_eq!(testing::read(&r, "e.dst"), "08-09-0A-0B-0C-0D");
        assert_eq!(testing::read(&r, "e.pausetime"), "7");
        assert_eq!(testing::read(&r, "e.limit"), "3");
        assert_eq!(testing::read(&r, "e.active"), "true");
        r.write_handler("e.pausetime", "65535").unwrap();
        assert_eq!(testing::read(&r, "e.pausetime"), "65535");
        assert!(r.write_handler("e.pausetime", "65536").is_err());
        assert!(r.write_handler("e.src", "x").is_err());
        r.write_handler("e.reset_counts", "").unwrap();
        assert_eq!(testing::read(&r, "e.count"), "0");
    }

    #[test]
    fn configuration_errors() {
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("EtherPauseSource({conf}) -> Discard;"),
            &[
                ("1:2:3:4:5:6", "PAUSETIME: required argument missing"),
                ("1:2:3:4:5:6, 65536", "PAUSETIME"),
                ("x, 1", "SRC"),
            ],
        );
    }
}
