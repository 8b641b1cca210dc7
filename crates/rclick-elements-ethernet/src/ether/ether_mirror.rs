//! # EtherMirror
//!
//! `EtherMirror()`
//!
//! **Category:** ethernet. Swaps Ethernet source and destination.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Expects Ethernet frames starting at the packet data. Swaps each frame's
//! source and destination addresses (the type field and the rest stay).
//! Packets shorter than the 12 address bytes pass unchanged.
//!
//! ## Differences from Click
//!
//! Click swaps 12 bytes whatever the packet's length, reading and writing
//! past the end of a shorter packet.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> EtherMirror -> ToDevice(eth0)
//! ```
//!
//! ## See also
//!
//! IPMirror, EtherRewrite

use rclick_core::{Ctx, Element, Packet};
use rclick_wire::EthernetFrame;

/// The EtherMirror element.
#[derive(Default)]
pub struct EtherMirror;

/// Swaps the addresses of the frame at the start of `p`'s data (the view
/// over the 12 address bytes reads and writes nothing else).
fn mirror(p: &mut Packet) {
    let Some(h) = p.data().first_chunk::<12>() else {
        return;
    };
    let eth = EthernetFrame::new_unchecked(h);
    let (src, dst) = (eth.src_addr(), eth.dst_addr());
    if let Some(h) = p.data_mut().first_chunk_mut::<12>() {
        let mut eth = EthernetFrame::new_unchecked(h);
        eth.set_src_addr(dst);
        eth.set_dst_addr(src);
    }
}

impl Element for EtherMirror {
    fn class_name(&self) -> &'static str {
        "EtherMirror"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn batch_transparent(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        mirror(&mut p);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    fn run(data: &str) -> Vec<String> {
        testing::run(
            &format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> EtherMirror -> Print(m, 40) -> Discard;"
            ),
            &registry(),
        )
        .unwrap()
        .take_log()
    }

    /// Checked against Click.
    #[test]
    fn swaps_addresses() {
        assert_eq!(
            run("000102030405 0a0b0c0d0e0f 0800 aa"),
            vec!["m:   15 | 0a0b0c0d 0e0f0001 02030405 0800aa"]
        );
        assert_eq!(
            run("000102030405 0a0b0c0d0e0f"),
            vec!["m:   12 | 0a0b0c0d 0e0f0001 02030405"]
        );
        // Too short: unchanged (Click reads past the end).
        assert_eq!(run("0001020304"), vec!["m:    5 | 00010203 04"]);
    }

    #[test]
    fn takes_no_arguments() {
        let e = testing::build("Idle -> EtherMirror(3) -> Idle;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.to_string().contains("too many arguments"), "{e}");
    }
}
