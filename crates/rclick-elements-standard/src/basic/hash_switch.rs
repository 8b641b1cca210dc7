//! # HashSwitch
//!
//! `HashSwitch(OFFSET, LENGTH)`
//!
//! **Category:** classification. Spreads packets over its outputs by a
//! hash of some of their bytes.
//!
//! **Ports:** one push input, one or more push outputs.
//!
//! ## Description
//!
//! Sums the LENGTH bytes starting at byte OFFSET of each packet and picks
//! an output from the sum, so packets with the same bytes there always
//! leave by the same output. Packets too short to hold those bytes go out
//! output 0.
//!
//! Keywords: `OFFSET` (unsigned, mandatory); `LENGTH` (unsigned > 0,
//! mandatory).
//!
//! ## Examples
//!
//! ```text
//! HashSwitch(26, 8)  // IP source and destination addresses after Ethernet
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## See also
//!
//! RoundRobinSwitch, Switch

use rclick_core::args::Args;
use rclick_core::{Ctx, Element, PacketBatch};

use super::paint_switch::push_by;

/// The HashSwitch element.
#[derive(Default)]
pub struct HashSwitch {
    offset: usize,
    length: usize,
}

impl Element for HashSwitch {
    fn class_name(&self) -> &'static str {
        "HashSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut offset: u32 = 0;
        let mut length: u32 = 0;
        Args::new(conf)
            .read_mp("OFFSET", &mut offset)
            .read_mp("LENGTH", &mut length)
            .complete()
            .map_err(|e| e.to_string())?;
        if length == 0 {
            return Err("length must be > 0".into());
        }
        self.offset = offset as usize;
        self.length = length as usize;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs().max(1);
        let (o, l) = (self.offset, self.length);
        push_by(batch, cx, |p| {
            let Some(bytes) = p.data().get(o..o.saturating_add(l)) else {
                return 0;
            };
            let d: u32 = bytes.iter().map(|&b| u32::from(b)).sum();
            if n == 2 || n == 4 || n == 8 {
                ((d ^ (d >> 4)) as usize) & (n - 1)
            } else {
                d as usize % n
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn same_bytes_same_output() {
        let r = testing::run(
            "InfiniteSource(\\<0001>, LIMIT 4, STOP true) -> s :: HashSwitch(1, 1) -> a :: Counter -> Discard; s[1] -> b :: Counter -> Discard;\
             InfiniteSource(\\<00>, LIMIT 2) -> t :: HashSwitch(1, 1) -> c :: Counter -> Discard; t[1] -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "0");
        assert_eq!(testing::read(&r, "b.count"), "4");
        assert_eq!(testing::read(&r, "c.count"), "2");
        assert!(testing::build("Idle -> HashSwitch(0, 0) -> Discard;", &registry(), true).is_err());
    }
}
