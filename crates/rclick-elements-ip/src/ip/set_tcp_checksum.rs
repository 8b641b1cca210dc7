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
