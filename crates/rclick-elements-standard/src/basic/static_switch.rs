//! # StaticSwitch
//!
//! `StaticSwitch(OUTPUT)`
//!
//! **Category:** classification. Sends all packets to one output, fixed
//! at configuration time.
//!
//! **Ports:** one input, any number of outputs, agnostic.
//!
//! ## Description
//!
//! Sends every packet out output OUTPUT; a negative OUTPUT, or one that is
//! not an output, drops them. In pull mode, only output OUTPUT ever returns
//! packets.
//!
//! Keywords: `OUTPUT` (integer, mandatory).
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! ... -> s :: StaticSwitch(1);
//! s[0] -> Discard; s[1] -> Queue -> ...
//! ```
//!
//! ## See also
//!
//! Switch

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, PacketBatch};

use super::switch::clamp_port;

/// The StaticSwitch element.
#[derive(Default)]
pub struct StaticSwitch {
    output: i64,
}

impl Element for StaticSwitch {
    fn class_name(&self) -> &'static str {
        "StaticSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut out: i64 = 0;
        Args::new(conf)
            .read_mp("OUTPUT", &mut out)
            .complete()
            .map_err(|e| e.to_string())?;
        self.output = clamp_port(out, cx.noutputs());
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        if self.output >= 0 {
            cx.checked_push(self.output as usize, batch);
        }
    }
    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if port as i64 == self.output {
            cx.pull(0, max)
        } else {
            PacketBatch::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn fixed_output() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> s :: StaticSwitch(0) -> a :: Counter -> Discard; s[1] -> b :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "3");
        assert_eq!(testing::read(&r, "b.count"), "0");
        assert!(testing::build("Idle -> StaticSwitch -> Discard;", &registry(), true).is_err());
    }
}
