//! # StoreTimestamp
//!
//! ## Synopsis
//!
//! `StoreTimestamp(OFFSET | keywords TAIL)`
//!
//! ## Category
//!
//! analysis — writes the timestamp annotation into the packet data.
//!
//! ## Ports and processing
//!
//! One input, one output, agnostic.
//!
//! ## Description
//!
//! Writes each packet's timestamp annotation into its data as 8 bytes: the
//! timestamp in nanoseconds, a signed 64-bit integer in little-endian
//! (host) order, as Click stores its `Timestamp` on x86.
//!
//! * `OFFSET` (unsigned): the byte offset to write at. A packet shorter than
//!   `OFFSET + 8` bytes is extended with zero bytes first.
//! * `TAIL` (boolean): when true, append the 8 bytes at the end instead.
//!
//! Exactly one of `OFFSET` and `TAIL true` must be given. A packet that
//! cannot be extended (it would exceed the largest buffer) is dropped and
//! counted in `drops`.
//!
//! ## Annotations
//!
//! Reads the timestamp annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped (an rclick addition).
//!
//! ## Example
//!
//! `StoreTimestamp(TAIL true)`
//!
//! ## See also
//!
//! SetTimestamp, TimeRange

use super::drop_counting::{DropCounting, DropCountingElement};
use rclick_core::args::Args;
use rclick_core::Packet;

/// Where the timestamp goes.
#[derive(Clone, Copy, Default)]
enum Place {
    #[default]
    Tail,
    At(usize),
}

/// StoreTimestamp's own part: where it writes the timestamp.
#[derive(Default)]
pub(crate) struct StoreTimestampClass {
    place: Place,
}

impl DropCounting for StoreTimestampClass {
    const CLASS: &'static str = "StoreTimestamp";

    fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        let mut offset = 0usize;
        let mut tail = false;
        let mut offset_given = false;
        Args::new(conf)
            .read_p("OFFSET", &mut offset)
            .read_status(&mut offset_given)
            .read("TAIL", &mut tail)
            .complete()
            .map_err(|e| e.to_string())?;
        if offset_given == tail {
            return Err("supply exactly one of 'OFFSET' and 'TAIL'".into());
        }
        self.place = if tail { Place::Tail } else { Place::At(offset) };
        Ok(())
    }

    fn change(&mut self, p: &mut Packet) -> bool {
        let off = match self.place {
            Place::Tail => p.len(),
            Place::At(o) => o,
        };
        let end = off.saturating_add(8);
        if end > p.len() && p.put(end - p.len()).is_err() {
            return false;
        }
        let bytes = p.timestamp_anno().as_nsec().to_le_bytes();
        p.data_mut()[off..end].copy_from_slice(&bytes);
        true
    }
}

/// The StoreTimestamp element: its own part in a [`DropCountingElement`].
pub(crate) type StoreTimestamp = DropCountingElement<StoreTimestampClass>;

#[cfg(test)]
mod tests {
    use super::super::test_util::registry;
    use rclick_core::testing;

    const D16: &str = "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff";

    fn store(data: &str, ts: &str, args: &str) -> String {
        let conf = format!(
            "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> SetTimestamp({ts})
             -> StoreTimestamp({args}) -> Print(x, 64) -> Discard;"
        );
        let log = testing::run(&conf, &registry()).unwrap().take_log();
        assert_eq!(log.len(), 1, "{log:?}");
        log[0].clone()
    }

    // Expected lines are Click's for the same configuration (clickdiff).
    #[test]
    fn offsets_and_tail() {
        let t = "1.000002";
        assert_eq!(
            store(D16, t, "4"),
            "x:   16 | 00112233 d0d19a3b 00000000 ccddeeff"
        );
        assert_eq!(
            store(D16, t, "OFFSET 4"),
            "x:   16 | 00112233 d0d19a3b 00000000 ccddeeff"
        );
        assert_eq!(
            store(D16, t, "OFFSET 12"),
            "x:   20 | 00112233 44556677 8899aabb d0d19a3b 00000000"
        );
        assert_eq!(
            store(D16, t, "OFFSET 14"),
            "x:   22 | 00112233 44556677 8899aabb ccddd0d1 9a3b0000 0000"
        );
        assert_eq!(
            store(D16, t, "TAIL true"),
            "x:   24 | 00112233 44556677 8899aabb ccddeeff d0d19a3b 00000000"
        );
        assert_eq!(
            store("00 11 22 33", "2.5", "OFFSET 0, TAIL false"),
            "x:    8 | 00f90295 00000000"
        );
    }

    #[test]
    fn extension_is_zero_filled() {
        // Click leaves the gap uninitialised; we fill it with zeros.
        assert_eq!(
            store("00 11 22 33", "2.5", "OFFSET 8"),
            "x:   16 | 00112233 00000000 00f90295 00000000"
        );
    }

    #[test]
    fn exactly_one_of_offset_and_tail() {
        for bad in ["", "TAIL false", "OFFSET 2, TAIL true", "x"] {
            let e = testing::build(
                &format!("Idle -> StoreTimestamp({bad}) -> Discard;"),
                &registry(),
                true,
            );
            assert!(e.is_err(), "{bad}");
        }
        let e = testing::build(
            "Idle -> StoreTimestamp(TAIL false) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(
            e.contains("supply exactly one of 'OFFSET' and 'TAIL'"),
            "{e}"
        );
    }
}
