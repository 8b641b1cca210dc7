//! # EtherSwitch
//!
//! `EtherSwitch([KEYWORDS])`
//!
//! **Category:** ethernet. A learning, forwarding Ethernet switch.
//!
//! **Ports:** any number of push inputs, the same number of push outputs.
//!
//! ## Description
//!
//! Expects Ethernet frames on each input; input N and output N form one
//! switch port. The switch learns which port each source address lives on
//! (stamped with the packet's timestamp annotation). A frame to a learned
//! unicast address whose entry is younger than TIMEOUT goes out that port
//! (or is dropped if it is the port it came from); other frames are
//! flooded to every other port.
//!
//! Keywords: `TIMEOUT` (seconds, default 300): how long an entry stays
//! valid; 0 disables learning (a hub).
//!
//! ## Annotations
//!
//! Uses the timestamp annotation.
//!
//! ## Handlers
//!
//! * `table` (read): the learned addresses, `ETH PORT` a line.
//! * `timeout` (read/write): TIMEOUT in seconds.
//!
//! ## Examples
//!
//! ```text
//! s :: EtherSwitch;
//! FromDevice(eth0) -> [0]s[0] -> Queue -> ToDevice(eth0);
//! FromDevice(eth1) -> [1]s[1] -> Queue -> ToDevice(eth1);
//! ```
//!
//! ## See also
//!
//! ListenEtherSwitch, EtherSpanTree, Suppressor

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rclick_core::args::{Args, Interval};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch, Timestamp};

use super::{eth_at, eth_dash};

/// The EtherSwitch element.
pub struct EtherSwitch {
    table: BTreeMap<[u8; 6], (usize, Timestamp)>,
    timeout_s: u32,
}

impl Default for EtherSwitch {
    fn default() -> Self {
        EtherSwitch {
            table: BTreeMap::new(),
            timeout_s: 300,
        }
    }
}

fn parse_seconds(s: &str) -> Result<u32, String> {
    let iv: Interval = rclick_core::args::parse_interval(s)?;
    Ok((iv.as_nanos().max(0) / 1_000_000_000).min(i64::from(u32::MAX)) as u32)
}

rclick_core::handlers! {
    /// EtherSwitch's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Timeout = read_write("timeout"),
    }
}

impl Element for EtherSwitch {
    fn class_name(&self) -> &'static str {
        "EtherSwitch"
    }
    fn port_count(&self) -> &'static str {
        "-/="
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn flow_code(&self) -> &'static str {
        "#/#"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut t = rclick_core::args::AnyArg::default();
        let mut given = false;
        Args::new(conf)
            .read("TIMEOUT", &mut t)
            .read_status(&mut given)
            .complete()
            .map_err(|e| e.to_string())?;
        let timeout = if given {
            parse_seconds(t.0.trim()).map_err(|e| format!("TIMEOUT: {e}"))?
        } else {
            300
        };
        self.timeout_s = timeout;
        Ok(())
    }
    fn push(&mut self, source: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        for p in batch {
            let d = p.data();
            if d.len() < 12 {
                continue;
            }
            let (dst, src) = (eth_at(d, 0), eth_at(d, 6));
            let ts = p.timestamp_anno();
            let mut outport: Option<usize> = None;
            if self.timeout_s != 0 {
                self.table.insert(src, (source, ts));
                if dst[0] & 1 == 0 {
                    if let Some(&(port, stamp)) = self.table.get(&dst) {
                        if ts < stamp + Timestamp::from_sec(i64::from(self.timeout_s)) {
                            outport = Some(port);
                        } else {
                            self.table.remove(&dst);
                        }
                    }
                }
            }
            match outport {
                Some(o) if o == source => {}
                Some(o) => cx.push_one(o, p),
                None => {
                    let targets: Vec<usize> = (0..n).rev().filter(|&i| i != source).collect();
                    let last = targets.len().saturating_sub(1);
                    let mut p = Some(p);
                    for (k, &i) in targets.iter().enumerate() {
                        let q = if k == last { p.take() } else { p.clone() };
                        if let Some(q) = q {
                            cx.push_one(i, q);
                        }
                    }
                }
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        if H::from_id(id) == Some(H::Table) {
            let mut s = String::new();
            for (a, (port, _)) in &self.table {
                let _ = writeln!(s, "{} {}", eth_dash(a), port);
            }
            Ok(s)
        } else {
            Ok(self.timeout_s.to_string())
        }
    }
    fn write_handler(&mut self, _id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        self.timeout_s =
            parse_seconds(value.trim()).map_err(|_| "expected timeout (integer)".to_string())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn learns_and_floods() {
        // Port 0 sends from A to B (flooded), port 1 sends from B to A
        // (learned: only port 0), port 2 sends to B (learned: port 1).
        let r = testing::run(
            "s :: EtherSwitch;
             InfiniteSource(\\<0000000000bb 0000000000aa 0800>, LIMIT 1, STOP true) -> [0]s;
             Idle -> [1]s; Idle -> [2]s;
             s[0] -> c0 :: Counter -> Discard; s[1] -> c1 :: Counter -> Discard; s[2] -> c2 :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c0.count"), "0");
        assert_eq!(testing::read(&r, "c1.count"), "1");
        assert_eq!(testing::read(&r, "c2.count"), "1");
        assert_eq!(testing::read(&r, "s.table"), "00-00-00-00-00-AA 0\n");
        r.write_handler("s.timeout", "10").unwrap();
        assert_eq!(testing::read(&r, "s.timeout"), "10");
    }
}
