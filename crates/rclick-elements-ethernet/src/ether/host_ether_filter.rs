//! # HostEtherFilter
//!
//! `HostEtherFilter(ETHER [, DROP_OWN, DROP_OTHER, KEYWORDS])`
//!
//! **Category:** ethernet. Drops Ethernet frames not for this host.
//!
//! **Ports:** one input, one or two outputs, agnostic (output 1 push).
//!
//! ## Description
//!
//! Looks at the Ethernet header OFFSET bytes into each packet and sets the
//! packet type annotation: `HOST` for frames to ETHER, `BROADCAST`,
//! `MULTICAST`, or `OTHERHOST`. Frames for other hosts (if DROP_OTHER) and
//! frames from ETHER itself (if DROP_OWN) go to output 1, or are dropped if
//! there is none. Packets too short for the header go to output 1 too.
//!
//! Keywords:
//!
//! * `ETHER` (Ethernet address, mandatory): this host's address.
//! * `DROP_OWN` (boolean, positional, default false).
//! * `DROP_OTHER` (boolean, positional, default true).
//! * `OFFSET` (unsigned, default 0): where the Ethernet header starts.
//!
//! ## Annotations
//!
//! Sets the packet type annotation.
//!
//! ## Handlers
//!
//! * `ether` (read/write): ETHER.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> HostEtherFilter(00:01:02:03:04:05) -> ...
//! ```
//!
//! ## See also
//!
//! Classifier, SetPacketType

use rclick_core::args::{Args, EtherAddr};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use super::two_outputs::{pull_split, push_both};
use rclick_packet::PacketType;

use super::eth_dash;

/// The HostEtherFilter element.
#[derive(Default)]
pub struct HostEtherFilter {
    addr: [u8; 6],
    drop_own: bool,
    drop_other: bool,
    offset: usize,
}

impl HostEtherFilter {
    fn classify(&self, p: &mut Packet) -> bool {
        let Some(e) = p.data().get(self.offset..self.offset + 14) else {
            return false;
        };
        let (dst, src) = (&e[0..6], &e[6..12]);
        let ty = if self.drop_own && src == self.addr {
            return false;
        } else if dst == self.addr {
            PacketType::Host
        } else if dst == [0xff; 6] {
            PacketType::Broadcast
        } else if dst[0] & 1 != 0 {
            PacketType::Multicast
        } else {
            PacketType::OtherHost
        };
        p.set_packet_type_anno(ty);
        !(ty == PacketType::OtherHost && self.drop_other)
    }
}

rclick_core::handlers! {
    /// HostEtherFilter's handlers (the manual's list).
    enum H {
        Ether = read_write("ether"),
    }
}

impl Element for HostEtherFilter {
    fn class_name(&self) -> &'static str {
        "HostEtherFilter"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = EtherAddr::default();
        let (mut own, mut other, mut offset) = (false, true, 0u32);
        Args::new_with(conf, cx.arg_context())
            .read_mp("ETHER", &mut addr)
            .read_p("DROP_OWN", &mut own)
            .read_p("DROP_OTHER", &mut other)
            .read("OFFSET", &mut offset)
            .complete()
            .map_err(|e| e.to_string())?;
        self.addr = addr.0;
        self.drop_own = own;
        self.drop_other = other;
        self.offset = offset as usize;
        Ok(())
    }
    fn push(&mut self, _port: usize, mut keep: PacketBatch, cx: &mut Ctx) {
        let other = keep.divert(|p| self.classify(p));
        push_both(keep, other, cx);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        pull_split(
            max,
            cx,
            |mut p| {
                if self.classify(&mut p) {
                    Ok(p)
                } else {
                    Err(p)
                }
            },
        )
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(eth_dash(&self.addr))
    }
    fn write_handler(&mut self, _id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        self.addr = super::ether_handler_value(value, "ETHER", cx.arg_context())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn filters() {
        let r = testing::run(
            "InfiniteSource(\\<000102030405 0a0b0c0d0e0f 0800>, LIMIT 2) -> f :: HostEtherFilter(0:1:2:3:4:5) -> a :: Counter -> Discard; f[1] -> b :: Counter -> Discard;
             InfiniteSource(\\<ffffffffffff 0a0b0c0d0e0f 0800>, LIMIT 1) -> f;
             InfiniteSource(\\<010203040506 0a0b0c0d0e0f 0800>, LIMIT 1) -> f;
             InfiniteSource(\\<020203040506 0a0b0c0d0e0f 0800>, LIMIT 3) -> f;
             InfiniteSource(\\<0203>, LIMIT 1) -> f;
             DriverManager(wait 1s, stop);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "4");
        assert_eq!(testing::read(&r, "b.count"), "4");
        assert_eq!(testing::read(&r, "f.ether"), "00-01-02-03-04-05");
    }
}
