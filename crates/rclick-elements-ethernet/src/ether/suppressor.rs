//! # Suppressor
//!
//! `Suppressor`
//!
//! **Category:** ethernet. Passes packets unchanged, optionally dropping
//! some ports' packets.
//!
//! **Ports:** any number of inputs, the same number of outputs, agnostic.
//!
//! ## Description
//!
//! Packets arriving on input N leave on output N, unless port N is
//! suppressed: then pushed packets are dropped and pulls return nothing.
//! EtherSpanTree suppresses ports of an EtherSwitch this way.
//!
//! ## Handlers
//!
//! * `activeN` (read/write): whether port N passes packets (boolean).
//! * `reset` (write): makes every port active.
//!
//! ## Examples
//!
//! ```text
//! s :: Suppressor;
//! in0 -> [0]s[0] -> out0;
//! in1 -> [1]s[1] -> out1;
//! ```
//!
//! ## See also
//!
//! EtherSpanTree, EtherSwitch

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

/// The Suppressor element.
#[derive(Default)]
pub struct Suppressor {
    suppressed: Vec<bool>,
}

rclick_core::handlers! {
    /// Suppressor's handlers: `activeN`, one per port pair, and `reset`.
    enum H {
        Active = family_read_write("active"),
        Reset = write("reset"),
    }
}

impl Suppressor {
    /// Whether port `i` is suppressed.
    pub fn is_suppressed(&self, i: usize) -> bool {
        self.suppressed.get(i).copied().unwrap_or(false)
    }
    /// Suppresses (`true`) or allows port `i`.
    pub fn set(&mut self, i: usize, suppress: bool) {
        if let Some(s) = self.suppressed.get_mut(i) {
            *s = suppress;
        }
    }
}

impl Element for Suppressor {
    fn class_name(&self) -> &'static str {
        "Suppressor"
    }
    fn port_count(&self) -> &'static str {
        "-/="
    }
    fn flow_code(&self) -> &'static str {
        "#/#"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())?;
        self.suppressed = vec![false; cx.noutputs()];
        Ok(())
    }
    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        if !self.is_suppressed(port) {
            cx.push(port, batch);
        }
    }
    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.is_suppressed(port) {
            PacketBatch::new()
        } else {
            cx.pull(port, max)
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v = H::Active.family_defs(self.suppressed.len());
        v.extend(H::Reset.defs());
        v
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::decode(id) {
            Some((H::Active, port)) => Ok((!self.is_suppressed(port as usize)).to_string()),
            _ => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let port = match H::decode(id) {
            Some((H::Reset, _)) => {
                self.suppressed.iter_mut().for_each(|s| *s = false);
                return Ok(());
            }
            Some((H::Active, port)) => port,
            None => return Err("no such handler".into()),
        };
        let mut active = true;
        Args::new(&[value.trim()])
            .read_mp("ACTIVE", &mut active)
            .complete()
            .map_err(|_| "active value must be boolean".to_string())?;
        self.set(port as usize, !active);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn suppresses_ports() {
        let reg = registry();
        let r = testing::build(
            "s :: Suppressor; InfiniteSource(LIMIT 3, STOP true) -> [0]s[0] -> a :: Counter -> Discard;
             InfiniteSource(LIMIT 3, ACTIVE false) -> [1]s[1] -> b :: Counter -> Discard;",
            &reg,
            true,
        )
        .unwrap();
        r.write_handler("s.active0", "false").unwrap();
        assert_eq!(testing::read(&r, "s.active0"), "false");
        assert!(r.write_handler("s.active1", "maybe").is_err());
        r.run();
        assert_eq!(testing::read(&r, "a.count"), "0");
        r.write_handler("s.reset", "").unwrap();
        assert_eq!(testing::read(&r, "s.active0"), "true");
    }
}
