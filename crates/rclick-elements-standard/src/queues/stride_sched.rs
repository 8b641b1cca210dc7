//! # StrideSched
//!
//! `StrideSched(TICKETS0, ..., TICKETSN-1)`
//!
//! **Category:** scheduling. Pulls from stride-scheduled inputs.
//!
//! **Ports:** one or more pull inputs, one pull output.
//!
//! ## Description
//!
//! Performs packet-based stride scheduling over its N inputs, giving input
//! I TICKETSI tickets: over time each input is served in proportion to its
//! tickets. Each pull on the output tries the inputs in stride order
//! (lowest pass first; ties go to the lower-numbered input) until one
//! produces a packet; every input tried advances by its stride, and an
//! input that produced nothing is not retried for the same pull. Inputs
//! with 0 tickets are never pulled. Inputs whose upstream queues say they
//! are empty are skipped (but still advance). Passes notification through.
//!
//! Arguments (one per input): non-negative integers, at most 32768.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `ticketsI` (read/write), for each input I: that input's tickets.
//!
//! ## Examples
//!
//! ```text
//! q0 :: Queue -> [0] s :: StrideSched(3, 1); q1 :: Queue -> [1] s;
//! s -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! PrioSched, RoundRobinSched

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, PacketBatch};

use super::inputs::InputSignals;

const STRIDE1: u32 = 1 << 16;
/// The most tickets a port may have.
pub const MAX_TICKETS: i64 = 1 << 15;

#[derive(Clone, Debug)]
struct Client {
    pass: u32,
    stride: u32,
    tickets: i64,
}

impl Client {
    fn set_tickets(&mut self, t: i64) {
        self.tickets = t;
        self.stride = if t > 0 { STRIDE1 / t as u32 } else { 0 };
    }
}

/// Click's wrapping pass comparison.
fn pass_gt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// The stride scheduler shared by StrideSched (over inputs) and
/// StrideSwitch (over outputs): one client a port, kept in pass order.
#[derive(Default)]
pub(crate) struct StrideTable {
    all: Vec<Client>,
    /// Clients with tickets, in pass order.
    list: Vec<usize>,
}

impl StrideTable {
    fn insert(&mut self, c: usize) {
        let pass = self.all[c].pass;
        let pos = self
            .list
            .iter()
            .position(|&o| !pass_gt(pass, self.all[o].pass))
            .unwrap_or(self.list.len());
        self.list.insert(pos, c);
    }

    fn parse_tickets(s: &str) -> Result<i64, String> {
        let mut v: i64 = 0;
        rclick_core::args::Args::new(&[s.trim()])
            .read_mp("TICKETS", &mut v)
            .complete()
            .map_err(|_| "tickets value must be integer".to_string())?;
        Ok(v)
    }

    /// Reads one TICKETS argument a port (`nports` of them; `what` names
    /// the ports in the error), as Click's StrideSched does; more than
    /// [`MAX_TICKETS`] is reduced with a warning.
    pub(crate) fn configure(
        &mut self,
        conf: &[String],
        nports: usize,
        what: &str,
        cx: &mut ConfigureCx,
    ) -> Result<(), String> {
        let n = nports;
        if conf.len() != n {
            return Err(format!("need {n} arguments, one per {what} port"));
        }
        let mut errs = Vec::new();
        let mut vals = Vec::with_capacity(n);
        for (i, a) in conf.iter().enumerate() {
            match Self::parse_tickets(a) {
                Err(_) => errs.push(format!(
                    "argument {i} should be number of tickets (integer)"
                )),
                Ok(v) if v < 0 => {
                    errs.push(format!("argument {i} (number of tickets) must be >= 0"))
                }
                Ok(v) => {
                    if v > MAX_TICKETS {
                        // Click's wording, "input" also for StrideSwitch.
                        cx.warning(format!("input {i}'s tickets reduced to {MAX_TICKETS}"));
                    }
                    vals.push(v.min(MAX_TICKETS))
                }
            }
        }
        if !errs.is_empty() {
            return Err(errs.join("\n"));
        }
        let first = self.all.is_empty();
        if first {
            self.all = vec![
                Client {
                    pass: 0,
                    stride: 0,
                    tickets: -1
                };
                n
            ];
        }
        for (i, v) in vals.into_iter().enumerate() {
            self.all[i].set_tickets(v);
            if first {
                self.all[i].pass = self.all[i].pass.wrapping_add(self.all[i].stride);
            }
        }
        self.list.clear();
        for i in (0..n).rev() {
            if self.all[i].tickets > 0 {
                self.insert(i);
            }
        }
        Ok(())
    }

    /// The next port in stride order, advanced by its stride; `None` when
    /// no port has tickets.
    pub(crate) fn next(&mut self) -> Option<usize> {
        let c = *self.list.first()?;
        self.list.remove(0);
        let s = self.all[c].stride;
        self.all[c].pass = self.all[c].pass.wrapping_add(s);
        self.insert(c);
        Some(c)
    }

    /// How many ports (and `ticketsI` handlers) there are.
    pub(crate) fn len(&self) -> usize {
        self.all.len()
    }

    /// Reads `tickets<port>`.
    pub(crate) fn read(&self, port: u32) -> Result<String, String> {
        self.all
            .get(port as usize)
            .map(|c| c.tickets.to_string())
            .ok_or_else(|| "no such handler".into())
    }

    /// Writes `tickets<port>`.
    pub(crate) fn write(&mut self, port: u32, value: &str) -> Result<(), String> {
        let port = port as usize;
        if port >= self.all.len() {
            return Err(format!("port {port} out of range"));
        }
        let t = Self::parse_tickets(value)?;
        if t < 0 {
            return Err("number of tickets must be >= 0".into());
        }
        let t = t.min(MAX_TICKETS);
        let old = self.all[port].tickets;
        self.all[port].set_tickets(t);
        if t == 0 && old > 0 {
            self.list.retain(|&c| c != port);
        } else if t > 0 && old <= 0 {
            let base = self.list.first().map(|&c| self.all[c].pass);
            self.all[port].pass = base.map_or(0, |p| p.wrapping_add(self.all[port].stride));
            self.insert(port);
        }
        Ok(())
    }
}

/// The StrideSched element.
#[derive(Default)]
pub struct StrideSched {
    table: StrideTable,
    inputs: InputSignals,
}

rclick_core::handlers! {
    /// StrideSched's handlers: `ticketsI`, one per input.
    enum H {
        Tickets = family_read_write("tickets"),
    }
}

impl Element for StrideSched {
    fn class_name(&self) -> &'static str {
        "StrideSched"
    }
    fn port_count(&self) -> &'static str {
        "1-/1"
    }
    fn processing(&self) -> &'static str {
        "l/l"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let n = cx.ninputs();
        self.table.configure(conf, n, "input", cx)
    }

    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.inputs.initialize(cx);
        Ok(())
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let t = &mut self.table;
        let mut out = PacketBatch::new();
        while out.len() < max {
            let mut got = None;
            let mut k = 0;
            while k < t.list.len() && got.is_none() {
                let c = t.list[k];
                got = self.inputs.pull_one(c, cx);
                let s = t.all[c].stride;
                t.all[c].pass = t.all[c].pass.wrapping_add(s);
                k += 1;
            }
            let stridden: Vec<usize> = t.list.drain(..k).collect();
            for c in stridden {
                t.insert(c);
            }
            match got {
                Some(p) => out.push(p),
                None => break,
            }
        }
        out
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::Tickets.family_defs(self.table.len())
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::decode(id) {
            Some((H::Tickets, port)) => self.table.read(port),
            None => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::decode(id) {
            Some((H::Tickets, port)) => self.table.write(port, value),
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::queues::test_registry;
    use rclick_core::testing;

    #[test]
    fn stride_order_matches_click() {
        let r = testing::run(
            "i1 :: InfiniteSource(\\<11>, LIMIT 10)
             i2 :: InfiniteSource(\\<22>, LIMIT 10)
             i3 :: InfiniteSource(\\<33>, LIMIT 10, STOP true)
             ss :: StrideSched(4, 2, 1)
             i1 -> [0] ss; i2 -> [1]ss; i3 -> [2]ss
             ss -> Print -> Discard",
            &test_registry(),
        )
        .unwrap();
        let got: Vec<String> = r
            .take_log()
            .iter()
            .map(|l| l.trim().trim_start_matches("1 | ").to_string())
            .collect();
        let want = "11 11 22 11 11 22 33 11 11 22 11 11 22 33 11 11 22 22 33 22 22 33 22 22 33 33 33 33 33 33";
        assert_eq!(got.join(" "), want);
    }

    #[test]
    fn ticket_handlers() {
        let r = testing::run(
            "Idle -> [0] s :: StrideSched(1, 2) -> Discard; Idle -> [1] s;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.tickets1"), "2");
        r.write_handler("s.tickets0", "0").unwrap();
        assert_eq!(testing::read(&r, "s.tickets0"), "0");
        assert!(r.write_handler("s.tickets0", "-3").is_err());
        r.write_handler("s.tickets0", "5").unwrap();
        assert_eq!(testing::read(&r, "s.tickets0"), "5");
    }

    #[test]
    fn argument_count_checked() {
        let e = testing::build(
            "Idle -> [0] s :: StrideSched(1) -> Discard; Idle -> [1] s;",
            &test_registry(),
            true,
        )
        .unwrap_err();
        assert!(e.contains("need 2 arguments"), "{e}");
        assert!(
            testing::build("Idle -> StrideSched(x) -> Discard;", &test_registry(), true).is_err()
        );
    }
}
