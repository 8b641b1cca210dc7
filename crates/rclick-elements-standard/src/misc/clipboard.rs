//! # Clipboard
//!
//! `Clipboard(RANGE_1, ..., RANGE_N)`
//!
//! **Category:** basic modification. Copies bytes from one packet into
//! later packets.
//!
//! **Ports:** two inputs, two outputs; each input/output pair is agnostic
//! (push or pull).
//!
//! ## Description
//!
//! Each argument is a byte range `OFFSET/LENGTH` (unsigned integers).
//! A packet arriving on input 0 has the bytes of every range copied into
//! the clipboard and leaves, unchanged, on output 0. A packet arriving on
//! input 1 has the clipboard's bytes written back over the same ranges and
//! leaves on output 1, so the data of one packet can be pasted into any
//! number of later ones.
//!
//! A packet on input 1 shorter than the end of the furthest range passes
//! unchanged. Before any packet has passed input 0 the clipboard holds
//! zero bytes; a packet on input 0 shorter than a range contributes only
//! the bytes it has.
//!
//! Errors: `range N: expected '/' between offset and length`,
//! `range N: invalid offset or length` (N counts from 0).
//!
//! Clipboard can be reconfigured while running (the clipboard is reset).
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones; `config` is writable.
//!
//! ## Examples
//!
//! ```text
//! cb :: Clipboard(0/6);   // remember the first 6 bytes
//! src1 -> [0]cb[0] -> Discard;
//! src2 -> [1]cb[1] -> Print;
//! ```
//!
//! ## See also
//!
//! StoreData, Strip, Unstrip

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};

/// The Clipboard element.
#[derive(Default)]
pub struct Clipboard {
    /// (offset, length) of each range.
    ranges: Vec<(usize, usize)>,
    clipboard: Vec<u8>,
    /// End of the furthest range.
    min_len: usize,
}

impl Clipboard {
    fn copy(&mut self, p: &Packet) {
        let data = p.data();
        let mut at = 0;
        for &(off, len) in &self.ranges {
            let end = off.saturating_add(len).min(data.len());
            if off < end {
                self.clipboard[at..at + (end - off)].copy_from_slice(&data[off..end]);
            }
            at += len;
        }
    }

    fn paste(&self, p: &mut Packet) {
        if p.len() < self.min_len || self.ranges.is_empty() {
            return;
        }
        let data = p.data_mut();
        let mut at = 0;
        for &(off, len) in &self.ranges {
            data[off..off + len].copy_from_slice(&self.clipboard[at..at + len]);
            at += len;
        }
    }

    fn process(&mut self, port: usize, batch: &mut PacketBatch) {
        if port == 0 {
            for p in batch.iter() {
                self.copy(p);
            }
        } else {
            for p in batch.iter_mut() {
                self.paste(p);
            }
        }
    }
}

impl Element for Clipboard {
    fn class_name(&self) -> &'static str {
        "Clipboard"
    }
    fn port_count(&self) -> &'static str {
        "2/2"
    }
    fn flow_code(&self) -> &'static str {
        "#/#"
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ranges = Vec::with_capacity(conf.len());
        let mut total: usize = 0;
        let mut min_len: usize = 0;
        for (i, arg) in conf.iter().enumerate() {
            let arg = arg.trim();
            let slash = arg.find('/').unwrap_or(0);
            if slash == 0 || slash + 1 >= arg.len() {
                return Err(format!("range {i}: expected '/' between offset and length"));
            }
            let (mut off, mut len) = (0u32, 0u32);
            Args::new(&[&arg[..slash], &arg[slash + 1..]])
                .read_mp("OFFSET", &mut off)
                .read_mp("LENGTH", &mut len)
                .complete()
                .map_err(|_| format!("range {i}: invalid offset or length"))?;
            let (off, len) = (off as usize, len as usize);
            total = total.saturating_add(len);
            min_len = min_len.max(off.saturating_add(len));
            ranges.push((off, len));
        }
        if total > (1 << 24) {
            return Err("ranges too long".into());
        }
        self.ranges = ranges;
        self.clipboard = vec![0; total];
        self.min_len = min_len;
        Ok(())
    }

    fn push(&mut self, port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        self.process(port, &mut batch);
        cx.push(port, batch);
    }

    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(port, max);
        self.process(port, &mut batch);
        batch
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn copies_and_pastes() {
        let r = testing::run(
            "cb :: Clipboard(0/1, 2/1, 9/1);
             TimedSource(0.0015, \"Simplistic\", LIMIT 1) -> [0]cb[0] -> Discard;
             TimedSource(0.001, \".a. is a .at,\", LIMIT 2, STOP true) -> [1]cb[1] -> Print(CONTENTS ASCII) -> Discard;
             TimedSource(0.0017, \"xy\", LIMIT 1) -> [1]cb;",
            &test_registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert_eq!(log.len(), 3, "{log:?}");
        assert!(log[0].contains(".a. is a  .at,"), "{log:?}");
        assert!(log[1].contains("xy"), "{log:?}");
        assert!(log[2].contains("Sam is a  cat,"), "{log:?}");
    }

    #[test]
    fn config_errors() {
        for bad in [
            "Clipboard(3)",
            "Clipboard(/3)",
            "Clipboard(3/)",
            "Clipboard(a/1)",
        ] {
            let text = format!("Idle -> c :: {bad} -> Discard; Idle -> [1]c[1] -> Discard;");
            let e = testing::run(&text, &test_registry())
                .map(|_| ())
                .expect_err(bad);
            assert!(e.contains("range 0:"), "{e}");
        }
    }
}
