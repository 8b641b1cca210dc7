//! # EtherRewrite
//!
//! `EtherRewrite(SRC, DST)`
//!
//! **Category:** ethernet. Rewrites Ethernet source and destination.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Writes SRC and DST (Ethernet addresses, mandatory) into the source and
//! destination fields of each packet's Ethernet header, which starts at
//! the MAC header annotation (or at the packet data when there is none);
//! the type field is left alone. Useful where a link has one next hop
//! only (a transparent firewall). Packets whose header is shorter than
//! the 12 address bytes pass unchanged.
//!
//! ## Handlers
//!
//! * `src`, `dst` (read/write): the addresses (`01-01-01-01-01-01`).
//!
//! ## Differences from Click
//!
//! Click crashes on a packet without a MAC header annotation, and writes
//! past the end of a shorter packet.
//!
//! ## Examples
//!
//! ```text
//! ... -> EtherRewrite(1:1:1:1:1:1, 2:2:2:2:2:2) -> ToDevice(eth1)
//! ```
//!
//! ## See also
//!
//! EtherEncap, EnsureEther, StoreEtherAddress, EtherMirror

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::{EthernetAddress, EthernetFrame};

/// The EtherRewrite element.
#[derive(Default)]
pub struct EtherRewrite {
    src: [u8; 6],
    dst: [u8; 6],
}

impl EtherRewrite {
    fn rewrite(&self, p: &mut Packet) {
        let h = if p.has_mac_header() {
            p.mac_header_mut()
        } else {
            Some(p.data_mut())
        };
        if let Some(h) = h.and_then(|h| h.first_chunk_mut::<12>()) {
            let mut eth = EthernetFrame::new_unchecked(h);
            eth.set_src_addr(EthernetAddress(self.src));
            eth.set_dst_addr(EthernetAddress(self.dst));
        }
    }
}

rclick_core::handlers! {
    /// EtherRewrite's handlers (the manual's list): reconfiguring write
    /// handlers read through `read_handler`.
    enum H {
        Src = reconfigure_read("src", "SRC").positional(0),
        Dst = reconfigure_read("dst", "DST").positional(1),
    }
}

impl Element for EtherRewrite {
    fn class_name(&self) -> &'static str {
        "EtherRewrite"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut src, mut dst) = (EtherAddr::default(), EtherAddr::default());
        Args::new_with(conf, cx.arg_context())
            .read_mp("SRC", &mut src)
            .read_mp("DST", &mut dst)
            .complete()
            .map_err(|e| e.to_string())?;
        self.src = src.0;
        self.dst = dst.0;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.rewrite(&mut p);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let src = H::from_id(id) == Some(H::Src);
        Ok(super::eth_dash(if src { &self.src } else { &self.dst }))
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    const FRAME: &str = "000102030405 0a0b0c0d0e0f 0800 45000020 00010000";

    fn run(data: &str, before: &str) -> Vec<String> {
        testing::run(
            &format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> {before}
                 -> EtherRewrite(1:1:1:1:1:1, 2:2:2:2:2:2) -> Print(m, 20) -> Discard;"
            ),
            &registry(),
        )
        .unwrap()
        .take_log()
    }

    /// Checked against Click: at the MAC header, even once stripped.
    #[test]
    fn rewrites_at_mac_header() {
        let want = vec!["m:   22 | 02020202 02020101 01010101 08004500 00200001"];
        assert_eq!(run(FRAME, "MarkMACHeader"), want);
        assert_eq!(
            testing::run(
                &format!(
                    "InfiniteSource(DATA \\<{FRAME}>, LIMIT 1, STOP true) -> MarkMACHeader -> Strip(14)
                     -> EtherRewrite(1:1:1:1:1:1, 2:2:2:2:2:2) -> Unstrip(14) -> Print(m, 20) -> Discard;"
                ),
                &registry(),
            )
            .unwrap()
            .take_log(),
            want
        );
        // No MAC header: the data start (Click crashes).
        assert_eq!(run(FRAME, "Null"), want);
        // Too short: unchanged (Click writes past the end).
        assert_eq!(run("0001", "MarkMACHeader"), vec!["m:    2 | 0001"]);
    }

    /// Checked against Click: handler formats, reconfiguration, errors.
    #[test]
    fn handlers_and_errors() {
        let r = testing::build(
            "Idle -> e :: EtherRewrite(1:1:1:1:1:1, 2:2:2:2:2:2) -> Idle;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "e.src"), "01-01-01-01-01-01");
        assert_eq!(testing::read(&r, "e.dst"), "02-02-02-02-02-02");
        r.write_handler("e.dst", "0:a:b:c:d:e").unwrap();
        assert_eq!(testing::read(&r, "e.dst"), "00-0A-0B-0C-0D-0E");
        assert!(r.write_handler("e.src", "nope").is_err());
        assert_eq!(testing::read(&r, "e.src"), "01-01-01-01-01-01");
        let e = testing::build(
            "Idle -> EtherRewrite(1:1:1:1:1:1) -> Idle;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(
            e.to_string().contains("DST: required argument missing"),
            "{e}"
        );
    }
}
