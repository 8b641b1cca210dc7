//! # GetEtherAddress
//!
//! `GetEtherAddress(ANNO, OFFSET)`
//!
//! **Category:** ethernet. Copies an Ethernet address from packet data to
//! an annotation.
//!
//! **Ports:** one input, agnostic; one or two outputs (output 1 push).
//!
//! ## Description
//!
//! Copies the six bytes at OFFSET of each packet's data into the
//! annotation area at byte ANNO. ANNO (mandatory) is a byte offset from 0
//! to 42. OFFSET (mandatory) is an unsigned integer, or `src` (6) or
//! `dst` (0), the offsets of the source and destination fields of an
//! Ethernet header at the data start. A packet too short for the six
//! bytes leaves by output 1, or is dropped and counted when output 1 is
//! not connected.
//!
//! ## Annotations
//!
//! Sets six bytes of the annotation area at ANNO.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped for being too short without an
//!   output 1 (not in Click).
//!
//! ## Differences from Click
//!
//! The annotation area here is separate from the named annotations
//! (destination IP address, paint...), where Click's overlap them.
//!
//! ## Examples
//!
//! ```text
//! ... -> GetEtherAddress(8, src) -> ...
//! ```
//!
//! ## See also
//!
//! SetEtherAddress, StoreEtherAddress

use rclick_core::args::{Args, Word};
use rclick_core::drops::simple::divert_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};

/// The GetEtherAddress element.
#[derive(Default)]
pub struct GetEtherAddress {
    anno: usize,
    offset: usize,
    drops: u64,
}

impl Element for GetEtherAddress {
    fn class_name(&self) -> &'static str {
        "GetEtherAddress"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    /// Output 1 is pushed to (Click says agnostic, but pushes to it).
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    /// Output 0 through `simple_action`, output 1 pushed from it.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut anno = 0usize;
        let mut off = Word(String::new());
        Args::new(conf)
            .read_mp_with("ANNO", &mut anno, super::ether_anno)
            .read_mp("OFFSET", &mut off)
            .complete()
            .map_err(|e| e.to_string())?;
        let offset = super::ether_offset(&off.0)?;
        self.anno = anno;
        self.offset = offset;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let at = self.offset;
        let Some(a) = p
            .data()
            .get(at..)
            .and_then(|d| d.first_chunk::<6>())
            .copied()
        else {
            divert_or_count(&mut self.drops, p, cx);
            return None;
        };
        super::set_anno_ether(&mut p, self.anno, &a);
        Some(p)
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use super::GetEtherAddress;
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    /// Checked against Click: output 1 for a short packet.
    #[test]
    fn copies_or_diverts() {
        let r = testing::run(
            "InfiniteSource(DATA \\<000102030405 0a0b0c0d0e0f 0800>, LIMIT 1, STOP true)
             -> GetEtherAddress(10, dst) -> ps :: PaintSwitch(ANNO 13) -> Discard;
             ps[1] -> Discard; ps[2] -> Discard; ps[3] -> Print(got) -> Discard;
             InfiniteSource(DATA \\<0001>, LIMIT 1, STOP true) -> g :: GetEtherAddress(10, 0)
             -> Print(ok) -> Discard; g[1] -> Print(bad) -> Discard;",
            &registry(),
        )
        .unwrap();
        let mut log = r.take_log();
        log.sort();
        assert_eq!(
            log,
            vec![
                "bad:    2 | 0001",
                "got:   14 | 00010203 04050a0b 0c0d0e0f 0800"
            ]
        );
    }

    #[test]
    fn writes_the_annotation() {
        let g = GetEtherAddress {
            anno: 42,
            offset: 6,
            drops: 0,
        };
        let mut p = rclick_core::Packet::from_slice(&[9, 9, 9, 9, 9, 9, 1, 2, 3, 4, 5, 6]);
        let a = *p.data()[g.offset..].first_chunk::<6>().unwrap();
        crate::ether::set_anno_ether(&mut p, g.anno, &a);
        assert_eq!(crate::ether::anno_ether(&p, 42), [1, 2, 3, 4, 5, 6]);
    }

    /// Checked against Click: ANNO 0 to 42; OFFSET a word.
    #[test]
    fn configuration() {
        for conf in ["42, 0", "3, SRC", "ANNO 3, OFFSET 1"] {
            assert!(
                testing::build(
                    &format!("Idle -> GetEtherAddress({conf}) -> Idle;"),
                    &registry(),
                    true
                )
                .is_ok(),
                "{conf}"
            );
        }
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> GetEtherAddress({conf}) -> Idle;"),
            &[
                ("3", "OFFSET: required argument missing"),
                ("3, x", "type mismatch: bad OFFSET"),
                ("43, 0", "ANNO: parse error"),
                ("60, 0", "ANNO: parse error"),
            ],
        );
    }
}
