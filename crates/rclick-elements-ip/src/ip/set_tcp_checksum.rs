//! # SetTCPChecksum
//!
//! `SetTCPChecksum([FIXOFF])`
//!
//! **Category:** tcp. Sets the TCP checksum.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Computes the checksum of each TCP packet (over the pseudo-header and the
//! segment as bounded by the IP total length) and stores it in the TCP
//! header. Needs the IP header annotation. If FIXOFF is true (the default),
//! a TCP data offset pointing past the segment is first clamped to the
//! segment. Packets that are not whole TCP first fragments are dropped.
//!
//! Keywords: `FIXOFF` (boolean, default true).
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): bad packets dropped.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetTCPChecksum -> SetIPChecksum -> ...
//! ```
//!
//! ## See also
//!
//! SetUDPChecksum, SetIPChecksum, CheckTCPHeader

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_wire::TcpPacket;

use super::transport::segment_info;

/// The SetTCPChecksum element.
pub struct SetTCPChecksum {
    fixoff: bool,
    drops: u64,
}

impl Default for SetTCPChecksum {
    fn default() -> Self {
        SetTCPChecksum {
            fixoff: true,
            drops: 0,
        }
    }
}

impl SetTCPChecksum {
    fn process(&mut self, batch: &mut PacketBatch, cx: &Ctx) {
        let fixoff = self.fixoff;
        let before = batch.len();
        batch.retain_mut(|p| {
            let Some((src, dst, proto, hlen, tlen, first)) = segment_info(p) else {
                return false;
            };
            if proto != 6 || !first || tlen < 20 {
                return false;
            }
            let Some(h) = p.ip_header_mut() else {
                return false;
            };
            let mut t = TcpPacket::new_unchecked(&mut h[hlen..hlen + tlen]);
            let off = usize::from(t.header_len());
            if off < 20 || off > tlen {
                if !fixoff {
                    return false;
                }
                t.set_header_len((tlen.min(60) as u8).max(20));
            }
            t.fill_checksum(Ipv4Addr::from(src), Ipv4Addr::from(dst));
            true
        });
        let dropped = (before - batch.len()) as u64;
        if dropped > 0 {
            if self.drops == 0 {
                cx.log("SetTCPChecksum: bad input packet");
            }
            self.drops += dropped;
        }
    }
}

rclick_core::handlers! {
    /// SetTCPChecksum's handlers (the manual's list).
    enum H {
        Drops = read("drops"),
    }
}

impl Element for SetTCPChecksum {
    fn class_name(&self) -> &'static str {
        "SetTCPChecksum"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut fixoff = true;
        Args::new(conf)
            .read_p("FIXOFF", &mut fixoff)
            .complete()
            .map_err(|e| e.to_string())?;
        self.fixoff = fixoff;
        Ok(())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        self.process(&mut batch, cx);
        if !batch.is_empty() {
            cx.push(0, batch);
        }
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        self.process(&mut batch, cx);
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.drops.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// 10.0.0.1 -> 10.0.0.2, TCP, a 20-byte TCP header whose data offset
    /// is 0 (bad) and whose checksum is zero.
    const BAD_OFF: &str = "45000028 00000000 4006 66ce 0a000001 0a000002
                           04d20050 00000001 00000000 00020200 00000000";

    /// With FIXOFF (the default) a bad data offset is fixed and the
    /// checksum made; with FIXOFF false the packet is dropped.
    #[test]
    fn fixes_offset_and_checksum() {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{BAD_OFF}>, LIMIT 2, STOP true) -> MarkIPHeader
                 -> Tee -> s :: SetTCPChecksum -> t :: CheckTCPHeader -> ok :: Counter -> Discard;
                 t[1] -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{BAD_OFF}>, LIMIT 2, STOP true) -> MarkIPHeader
                 -> s :: SetTCPChecksum(FIXOFF false) -> ok :: Counter -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "0");
        assert_eq!(testing::read(&r, "s.drops"), "2");
    }
}
