//! # StrideSwitch
//!
//! `StrideSwitch(TICKETS0, ..., TICKETSN-1)`
//!
//! **Category:** classification. Sends packets to stride-scheduled outputs.
//!
//! **Ports:** one push input, one or more push outputs.
//!
//! ## Description
//!
//! Stride switching by packet: output I has TICKETSI tickets, and each
//! arriving packet goes to the next output in stride order (the lowest
//! pass, ties to the lower-numbered output), so over time each output gets
//! packets in proportion to its tickets. It is StrideSched's scheduler run
//! over outputs instead of inputs, and makes the same choices as Click's.
//!
//! Arguments: one per output, each a non-negative integer. More than 32768
//! is reduced to 32768 with Click's warning (which says "input" here too);
//! a negative or non-integer argument is an error.
//!
//! When every output has 0 tickets, Click's StrideSwitch never returns
//! from its push; here the packet is dropped and counted in `drops`.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `ticketsI` (read/write), for each output I: that output's tickets.
//! * `drops` (read): packets dropped because no output had tickets (not in
//!   Click).
//!
//! ## Examples
//!
//! ```text
//! ... -> s :: StrideSwitch(2, 1);
//! s[0] -> ToDevice(eth0); s[1] -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! StrideSched, RoundRobinSwitch, RandomSwitch, HashSwitch, Switch

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::paint_switch::push_each_by;
use crate::queues::stride_sched::StrideTable;

rclick_core::handlers! {
    /// StrideSwitch's handlers: `ticketsI`, one per output, and `drops`.
    enum H {
        Tickets = family_read_write("tickets"),
        Drops = read("drops"),
    }
}

/// The StrideSwitch element.
#[derive(Default)]
pub struct StrideSwitch {
    table: StrideTable,
    drops: u64,
}

impl Element for StrideSwitch {
    fn class_name(&self) -> &'static str {
        "StrideSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let n = cx.noutputs();
        self.table.configure(conf, n, "output", cx)
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let table = &mut self.table;
        let drops = &mut self.drops;
        push_each_by(batch, cx, || match table.next() {
            Some(o) => o,
            None => {
                *drops += 1;
                usize::MAX
            }
        });
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        let mut h = H::Tickets.family_defs(self.table.len());
        h.extend(H::Drops.defs());
        h
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::decode(id) {
            Some((H::Drops, _)) => Ok(self.drops.to_string()),
            Some((H::Tickets, port)) => self.table.read(port),
            None => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::decode(id) {
            Some((H::Tickets, port)) => self.table.write(port, value),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    fn outputs(conf: &str) -> String {
        let r = testing::run(conf, &registry()).unwrap();
        r.take_log()
            .iter()
            .map(|l| l.split(':').next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn stride_order_matches_click() {
        // Orders taken from the reference Click.
        assert_eq!(
            outputs(
                "InfiniteSource(LIMIT 10, STOP true) -> r :: StrideSwitch(1, 2, 3);
                 r[0] -> Print(a, 0) -> Discard; r[1] -> Print(b, 0) -> Discard;
                 r[2] -> Print(c, 0) -> Discard;"
            ),
            "c b c c b a c b c c"
        );
        assert_eq!(
            outputs(
                "InfiniteSource(LIMIT 6, STOP true) -> r :: StrideSwitch(1, 1);
                 r[0] -> Print(a, 0) -> Discard; r[1] -> Print(b, 0) -> Discard;"
            ),
            "a b b a a b"
        );
        // the same order when packets come in bursts
        assert_eq!(
            outputs(
                "InfiniteSource(LIMIT 10, BURST 5, STOP true) -> r :: StrideSwitch(1, 2, 3);
                 r[0] -> Print(a, 0) -> Discard; r[1] -> Print(b, 0) -> Discard;
                 r[2] -> Print(c, 0) -> Discard;"
            ),
            "c b c c b a c b c c"
        );
        assert_eq!(
            outputs(
                "InfiniteSource(LIMIT 6, STOP true) -> r :: StrideSwitch(1, 0);
                 r[0] -> Print(a, 0) -> Discard; r[1] -> Print(b, 0) -> Discard;"
            ),
            "a a a a a a"
        );
    }

    #[test]
    fn no_tickets_drops_and_counts() {
        let r = testing::run(
            "InfiniteSource(LIMIT 6, BURST 3, STOP true) -> r :: StrideSwitch(0, 0) -> c :: Counter -> Discard; r[1] -> c;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "0");
        assert_eq!(testing::read(&r, "r.drops"), "6");
    }

    #[test]
    fn arguments_and_handlers() {
        let err = |c: &str| testing::build(c, &registry(), true).err().unwrap();
        assert!(err("Idle -> StrideSwitch() -> Discard;")
            .contains("need 1 arguments, one per output port"));
        assert!(
            err("Idle -> r :: StrideSwitch(0, -1) -> Discard; r[1] -> Discard;")
                .contains("argument 1 (number of tickets) must be >= 0")
        );
        assert!(
            err("Idle -> r :: StrideSwitch(0, x) -> Discard; r[1] -> Discard;")
                .contains("argument 1 should be number of tickets (integer)")
        );
        assert!(err("Idle -> Queue -> StrideSwitch(1) -> Discard;").contains("push input"));
        let r = testing::build(
            "Idle -> r :: StrideSwitch(1, 100000) -> Discard; r[1] -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        assert!(r
            .take_log()
            .iter()
            .any(|l| l.contains("warning: input 1's tickets reduced to 32768")));
        assert_eq!(testing::read(&r, "r.tickets0"), "1");
        assert_eq!(testing::read(&r, "r.tickets1"), "32768");
        r.write_handler("r.tickets0", "7").unwrap();
        assert_eq!(testing::read(&r, "r.tickets0"), "7");
        assert!(r.write_handler("r.tickets0", "-1").is_err());
        assert!(r.write_handler("r.tickets0", "x").is_err());
    }
}
