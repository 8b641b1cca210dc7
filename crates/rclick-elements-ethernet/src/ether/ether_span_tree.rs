//! # EtherSpanTree
//!
//! `EtherSpanTree(ADDR, INPUT_SUPPRESSOR, OUTPUT_SUPPRESSOR, SWITCH)`
//!
//! **Category:** ethernet. The IEEE 802.1d spanning tree protocol for
//! Ethernet switches.
//!
//! **Ports:** any number of push inputs, the same number of push outputs,
//! one per switch port.
//!
//! ## Description
//!
//! Expects 802.1d configuration messages (BPDUs, 60-byte frames) on its
//! inputs, one per switch port, and emits its own on the matching outputs
//! every hello time (2 seconds by default, as the root bridge says). It
//! computes the spanning tree: the root port and the ports for which this
//! bridge is the designated bridge forward; the others block. Blocking and
//! forwarding are done by the two Suppressor elements placed before and
//! after the EtherSwitch: a blocked port drops both directions; a port on
//! its way to forwarding listens, then learns (input only) for one forward
//! delay each.
//!
//! Keywords (all mandatory, positional):
//!
//! * `ADDR` (Ethernet address): this bridge's address (its ID, with
//!   priority 0xdead, which makes it unlikely to be root).
//! * `INPUT_SUPPRESSOR`, `OUTPUT_SUPPRESSOR` (element names): Suppressors
//!   upstream and downstream of the switch.
//! * `SWITCH` (element name): the EtherSwitch.
//!
//! The EtherSpanTree, Suppressors and EtherSwitch must have as many ports
//! as the switch. Port state changes are reported on standard error.
//!
//! ## Handlers
//!
//! * `msgs` (read): the best message heard on each port, then this
//!   bridge's own, one a line.
//!
//! ## Examples
//!
//! ```text
//! span_tree :: EtherSpanTree(00-1f-29-4d-f8-31, in_supp, out_supp, switch);
//! switch :: EtherSwitch;
//! in_supp, out_supp :: Suppressor;
//! from_port0 -> c0 :: Classifier(14/4242, -);
//! c0[0] -> [0]span_tree[0] -> q0;
//! c0[1] -> [0]in_supp[0] -> [0]switch[0] -> [0]out_supp[0] -> q0;
//! ```
//!
//! ## See also
//!
//! EtherSwitch, Suppressor

use std::cmp::Ordering;
use std::fmt::Write as _;

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, TimerId, Timestamp};
use rclick_wire::stp::{self, BpduPacket};
use rclick_wire::{EtherType, EthernetAddress, EthernetFrame};

use super::suppressor::Suppressor;

const PRIORITY: u64 = 0xdead;
const ALL_BRIDGES: [u8; 6] = [0x01, 0x80, 0xc2, 0x00, 0x00, 0x00];
/// Length of a bridge message on the wire.
pub const BPDU_LEN: usize = 60;
/// The 802.3 header before the BPDU.
const ETHER_LEN: usize = 14;

/// A bridge message (BPDU contents and when it was heard).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Msg {
    root: u64,
    bridge_id: u64,
    cost: u32,
    port_id: u16,
    tc: bool,
    /// `None`: never expires.
    timestamp: Option<Timestamp>,
    max_age: u32,
    hello_time: u32,
    forward_delay: u32,
}

impl Default for Msg {
    fn default() -> Self {
        let mut m = Msg {
            root: 0,
            bridge_id: 0,
            cost: 0,
            port_id: 0,
            tc: false,
            timestamp: None,
            max_age: 20,
            hello_time: 2,
            forward_delay: 15,
        };
        m.expire();
        m
    }
}

/// `a` better (smaller) than `b`: positive weight of the deciding field.
fn cmp_field<T: Ord>(a: T, b: T, w: i32) -> Option<i32> {
    match a.cmp(&b) {
        Ordering::Less => Some(w),
        Ordering::Greater => Some(-w),
        Ordering::Equal => None,
    }
}

impl Msg {
    fn reset(&mut self, id: u64) {
        self.root = id;
        self.bridge_id = id;
        self.cost = 0;
        self.timestamp = None;
        self.tc = false;
        self.max_age = 20;
        self.hello_time = 2;
        self.forward_delay = 15;
    }
    fn expire(&mut self) {
        self.root = u64::MAX;
        self.bridge_id = u64::MAX;
        self.cost = u32::from(u16::MAX);
        self.timestamp = None;
        self.tc = false;
    }
    fn expire_before(&mut self, cutoff: Timestamp) -> bool {
        match self.timestamp {
            Some(t) if t <= cutoff => {
                self.expire();
                true
            }
            _ => false,
        }
    }
    /// Positive if `self` is better than the message with these fields.
    fn compare_fields(
        &self,
        root: u64,
        cost: u32,
        bridge: u64,
        port: u16,
        my_bridge: u64,
        my_port: u16,
    ) -> i32 {
        cmp_field(self.root, root, 4)
            .or_else(|| cmp_field(self.cost, cost, 3))
            .or_else(|| cmp_field(my_bridge, bridge, 2))
            .or_else(|| cmp_field(my_port, port, 1))
            .unwrap_or(0)
    }
    fn compare(&self, o: &Msg) -> i32 {
        self.compare_fields(
            o.root,
            o.cost,
            o.bridge_id,
            o.port_id,
            self.bridge_id,
            self.port_id,
        )
    }
    fn compare_as(&self, o: &Msg, bridge: u64, port: u16) -> i32 {
        self.compare_fields(o.root, o.cost, o.bridge_id, o.port_id, bridge, port)
    }
    fn read_wire(&mut self, w: &[u8], now: Timestamp) {
        let b = BpduPacket::new_unchecked(&w[ETHER_LEN..]);
        self.root = b.root_id();
        self.cost = b.root_cost();
        self.bridge_id = b.bridge_id();
        self.port_id = b.port_id();
        let late_us = i64::from(b.message_age()) * 1_000_000 / 256;
        self.timestamp = Some(now - Timestamp::from_usec(late_us));
        self.tc = b.flags() & stp::FLAG_TC != 0;
        self.max_age = u32::from(b.max_age()) / 256;
        self.hello_time = u32::from(b.hello_time()) / 256;
        self.forward_delay = u32::from(b.forward_delay()) / 256;
    }
    fn write_wire(&self, w: &mut [u8], now: Timestamp) {
        let mut b = prep(w, stp::CONFIG_LEN);
        b.set_bpdu_type(stp::TYPE_CONFIG);
        b.set_flags(u8::from(self.tc));
        b.set_root_id(self.root);
        b.set_root_cost(self.cost);
        b.set_bridge_id(self.bridge_id);
        b.set_port_id(self.port_id);
        let age: u16 = match self.timestamp {
            None => 0,
            Some(t) => {
                let d = now - t;
                let v = d.subsec_usec() as i64 * 256 / 1_000_000 + d.sec() * 256;
                v as u16
            }
        };
        b.set_message_age(age);
        b.set_max_age((256 * self.max_age) as u16);
        b.set_hello_time((256 * self.hello_time) as u16);
        b.set_forward_delay((256 * self.forward_delay) as u16);
    }
    fn unparse(&self) -> String {
        format!(
            " {:>16}:{:04x}: {:>2}  {:x} -> {:>16}  m/h/d: {:x}/{:x}/{:x}",
            format!("{:x}", self.bridge_id),
            self.port_id,
            if self.tc { "TC" } else { "tc" },
            self.cost,
            format!("{:x}", self.root),
            self.max_age,
            self.hello_time,
            self.forward_delay
        )
    }
}

/// Zeroes the frame `w`, writes its 802.3 header (to all bridges, the
/// length `len`) and the BPDU's LLC header, and gives the BPDU's view.
fn prep(w: &mut [u8], len: usize) -> BpduPacket<&mut [u8]> {
    w.fill(0);
    let mut eth = EthernetFrame::new_unchecked(&mut *w);
    eth.set_dst_addr(EthernetAddress(ALL_BRIDGES));
    eth.set_ethertype(EtherType(len as u16));
    let mut b = BpduPacket::new_unchecked(&mut w[ETHER_LEN..]);
    b.set_llc_header();
    b
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PortState {
    Block = 0,
    Listen = 1,
    Learn = 2,
    Forward = 3,
}

#[derive(Clone, Debug)]
struct Port {
    state: PortState,
    since: Timestamp,
    needs_tca: bool,
    msg: Msg,
}

/// The EtherSpanTree element.
#[derive(Default)]
pub struct EtherSpanTree {
    addr: [u8; 6],
    bridge_id: u64,
    in_sup: String,
    out_sup: String,
    switch: String,
    ports: Vec<Port>,
    best: Msg,
    send_tc_msg: bool,
    topology_change: Option<Timestamp>,
    timer: Option<TimerId>,
    /// Messages produced while initializing, printed at the first run.
    pending_log: Vec<String>,
}

/// Where suppressor changes go: straight to the elements while
/// initializing, through their handlers while running.
enum SupSink<'a, 'b> {
    Init(&'a mut InitCx<'b>),
    Run(&'a mut Ctx<'b>),
}

impl EtherSpanTree {
    fn my_id(&self) -> u64 {
        (PRIORITY << 48) | self.bridge_id
    }

    fn log(&mut self, sink: &mut SupSink, line: String) {
        match sink {
            SupSink::Init(_) => self.pending_log.push(line),
            SupSink::Run(cx) => cx.log(line),
        }
    }

    fn suppress(&self, sink: &mut SupSink, sup: &str, port: usize, suppress: bool) {
        match sink {
            SupSink::Init(cx) => {
                if let Some(e) = cx.find(sup) {
                    cx.with_element(e, |el| {
                        if let Some(s) = el.downcast_mut::<Suppressor>() {
                            s.set(port, suppress);
                        }
                    });
                }
            }
            SupSink::Run(cx) => {
                if let Some(e) = cx.find(sup) {
                    let spec = format!("{}.active{}", cx.element_info(e).name, port);
                    if let Err(err) = cx.call_write(&spec, if suppress { "false" } else { "true" })
                    {
                        cx.log(err);
                    }
                }
            }
        }
    }

    fn set_state(
        &mut self,
        i: usize,
        target: PortState,
        now: Timestamp,
        sink: &mut SupSink,
    ) -> bool {
        let cur = self.ports[i].state;
        if cur == target {
            return false;
        }
        let state = if target == PortState::Forward {
            if cur == PortState::Block {
                self.log(
                    sink,
                    format!("Setting send_tc_msg: BLOCK -> FORWARD on {i}"),
                );
                self.send_tc_msg = true;
            }
            match cur {
                PortState::Block => PortState::Listen,
                PortState::Listen => PortState::Learn,
                _ => PortState::Forward,
            }
        } else {
            self.log(
                sink,
                format!("Setting send_tc_msg: FORWARD -> BLOCK on {i}"),
            );
            self.send_tc_msg = true;
            target
        };
        self.log(
            sink,
            format!("Changing port {i} from {} to {}", cur as i32, state as i32),
        );
        self.ports[i].state = state;
        self.ports[i].since = now;
        let (inp, out) = match state {
            PortState::Block | PortState::Listen => (true, true),
            PortState::Learn => (false, true),
            PortState::Forward => (false, false),
        };
        let (a, b) = (self.in_sup.clone(), self.out_sup.clone());
        self.suppress(sink, &a, i, inp);
        self.suppress(sink, &b, i, out);
        true
    }

    fn find_tree(&mut self, now: Timestamp, sink: &mut SupSink) {
        let my_id = self.my_id();
        let mut root_port = None;
        self.best.reset(my_id);
        for i in 0..self.ports.len() {
            let mut m = self.ports[i].msg;
            m.cost = m.cost.wrapping_add(1);
            if self.best.compare(&m) < 0 {
                self.best = m;
                root_port = Some(i);
            }
        }
        for i in 0..self.ports.len() {
            if Some(i) == root_port {
                if self.ports[i].state == PortState::Block {
                    self.set_state(i, PortState::Forward, now, sink);
                }
                continue;
            }
            let cmp = self.best.compare_as(&self.ports[i].msg, my_id, i as u16);
            if cmp < 0 {
                self.set_state(i, PortState::Block, now, sink);
            } else if self.ports[i].state == PortState::Block {
                self.set_state(i, PortState::Forward, now, sink);
            }
        }
    }

    fn periodic(&mut self, now: Timestamp, sink: &mut SupSink) {
        let cutoff = now - Timestamp::from_sec(i64::from(self.best.forward_delay));
        for i in 0..self.ports.len() {
            let p = &self.ports[i];
            if matches!(p.state, PortState::Listen | PortState::Learn) && p.since < cutoff {
                self.set_state(i, PortState::Forward, now, sink);
            }
        }
        let t = now - Timestamp::from_sec(i64::from(self.best.max_age));
        for i in 0..self.ports.len() {
            if self.ports[i].msg.expire_before(t) {
                self.log(sink, format!("Expiring message on port {i}"));
            }
        }
        self.find_tree(now, sink);
    }

    fn generate(&mut self, output: usize, now: Timestamp) -> Option<Packet> {
        let cmp = self.best.compare(&self.ports[output].msg);
        if cmp < 0 || (cmp == 0 && !self.send_tc_msg) {
            return None;
        }
        let mut w = [0u8; BPDU_LEN];
        if cmp == 0 {
            prep(&mut w, stp::TCN_LEN).set_bpdu_type(stp::TYPE_TCN);
        } else {
            self.best.write_wire(&mut w, now);
            let mut b = BpduPacket::new_unchecked(&mut w[ETHER_LEN..]);
            b.set_bridge_id(self.my_id());
            b.set_port_id(output as u16);
            let mut flags = b.flags();
            if let Some(tc) = self.topology_change {
                let cutoff = now
                    - Timestamp::from_sec(i64::from(self.best.forward_delay + self.best.max_age));
                if tc < cutoff {
                    self.topology_change = None;
                } else {
                    flags |= stp::FLAG_TC;
                }
            }
            if self.ports[output].needs_tca {
                self.ports[output].needs_tca = false;
                flags |= stp::FLAG_TCA;
            }
            b.set_flags(flags);
        }
        EthernetFrame::new_unchecked(&mut w[..]).set_src_addr(EthernetAddress(self.addr));
        Some(Packet::from_slice(&w))
    }

    fn flush_log(&mut self, cx: &mut Ctx) {
        for l in std::mem::take(&mut self.pending_log) {
            cx.log(l);
        }
    }
}

rclick_core::handlers! {
    /// EtherSpanTree's handlers (the manual's list).
    enum H {
        Msgs = read("msgs"),
    }
}

impl Element for EtherSpanTree {
    fn class_name(&self) -> &'static str {
        "EtherSpanTree"
    }
    fn port_count(&self) -> &'static str {
        "-/="
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = EtherAddr::default();
        let (mut ins, mut outs, mut sw) = (String::new(), String::new(), String::new());
        Args::new_with(conf, cx.arg_context())
            .read_mp("ADDR", &mut addr)
            .read_mp("INPUT_SUPPRESSOR", &mut ins)
            .read_mp("OUTPUT_SUPPRESSOR", &mut outs)
            .read_mp("SWITCH", &mut sw)
            .complete()
            .map_err(|e| e.to_string())?;
        for (kw, name, class) in [
            ("INPUT_SUPPRESSOR", &ins, "Suppressor"),
            ("OUTPUT_SUPPRESSOR", &outs, "Suppressor"),
            ("SWITCH", &sw, "EtherSwitch"),
        ] {
            match cx.find(name) {
                Some(e) if cx.element_info(e).class == class => {}
                Some(_) => return Err(format!("{kw}: type mismatch, expected {class}")),
                None => return Err(format!("{kw}: no element named '{name}'")),
            }
        }
        self.addr = addr.0;
        self.bridge_id = stp::bridge_id(0, addr.0);
        self.in_sup = ins;
        self.out_sup = outs;
        self.switch = sw;
        self.ports = vec![
            Port {
                state: PortState::Block,
                since: Timestamp::ZERO,
                needs_tca: false,
                msg: Msg::default(),
            };
            cx.noutputs()
        ];
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let now = cx.now();
        let mut sink = SupSink::Init(cx);
        for i in 0..self.ports.len() {
            self.set_state(i, PortState::Forward, now, &mut sink);
        }
        let id = self.my_id();
        self.best.reset(id);
        let t = cx.new_timer();
        cx.schedule_timer_after(
            t,
            Timestamp::from_sec(i64::from(self.best.hello_time.max(1))),
        );
        self.timer = Some(t);
        Ok(())
    }
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        self.flush_log(cx);
        let now = cx.now();
        self.periodic(now, &mut SupSink::Run(cx));
        for i in 0..self.ports.len() {
            if let Some(p) = self.generate(i, now) {
                cx.push_one(i, p);
            }
        }
        cx.schedule_timer_after(
            timer,
            Timestamp::from_sec(i64::from(self.best.hello_time.max(1))),
        );
    }
    fn push(&mut self, port: usize, batch: rclick_core::PacketBatch, cx: &mut Ctx) {
        self.flush_log(cx);
        let now = cx.now();
        for p in batch {
            let w = p.data();
            if w.len() < BPDU_LEN || port >= self.ports.len() {
                continue;
            }
            let mut incoming = Msg::default();
            incoming.read_wire(w, now);
            let cur = &self.ports[port].msg;
            let cmp = cur.compare_fields(
                incoming.root,
                incoming.cost,
                incoming.bridge_id,
                incoming.port_id,
                cur.bridge_id,
                cur.port_id,
            );
            if cmp <= 0 {
                self.ports[port].msg = incoming;
                if BpduPacket::new_unchecked(&w[ETHER_LEN..]).flags() & stp::FLAG_TCA != 0 {
                    self.send_tc_msg = false;
                }
            }
            self.find_tree(now, &mut SupSink::Run(cx));
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let mut s = String::new();
        for p in &self.ports {
            let _ = writeln!(s, "{}", p.msg.unparse());
        }
        let _ = writeln!(s, "{}", self.best.unparse());
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn message_order_and_wire() {
        let mut a = Msg::default();
        a.reset(5);
        let mut b = Msg::default();
        b.reset(7);
        assert!(a.compare(&b) > 0);
        assert!(b.compare(&a) < 0);
        let mut w = [0u8; BPDU_LEN];
        a.write_wire(&mut w, Timestamp::from_sec(10));
        let mut c = Msg::default();
        c.read_wire(&w, Timestamp::from_sec(10));
        assert_eq!((c.root, c.bridge_id, c.cost, c.hello_time), (5, 5, 0, 2));
        assert_eq!(&w[0..6], &ALL_BRIDGES);
        assert_eq!(
            a.unparse(),
            "                5:0000: tc  0 ->                5  m/h/d: 14/2/f"
        );
    }

    #[test]
    fn runs_and_sends_hellos() {
        let r = testing::build(
            "st :: EtherSpanTree(00-1f-29-4d-f8-31, ins, outs, sw);
             sw :: EtherSwitch; ins, outs :: Suppressor;
             Idle -> [0]st[0] -> c0 :: Counter -> Discard;
             Idle -> [1]st[1] -> c1 :: Counter -> Discard;
             Idle -> [0]ins[0] -> [0]sw[0] -> [0]outs[0] -> Discard;
             Idle -> [1]ins[1] -> [1]sw[1] -> [1]outs[1] -> Discard;
             DriverManager(wait 5s, stop);",
            &registry(),
            true,
        )
        .unwrap();
        // Starting up: ports listen, so both suppressors block them.
        assert_eq!(testing::read(&r, "ins.active0"), "false");
        r.run();
        assert_eq!(testing::read(&r, "c0.count"), "2");
        assert_eq!(testing::read(&r, "c1.count"), "2");
        let msgs = testing::read(&r, "st.msgs");
        assert_eq!(msgs.lines().count(), 3);
        assert!(
            msgs.ends_with("dead001f294df831:0000: tc  0 -> dead001f294df831  m/h/d: 14/2/f\n"),
            "{msgs}"
        );
        assert!(testing::build(
            "st :: EtherSpanTree(0:1:2:3:4:5, a, b, c); Idle -> st -> Idle;",
            &registry(),
            true
        )
        .is_err());
    }
}
