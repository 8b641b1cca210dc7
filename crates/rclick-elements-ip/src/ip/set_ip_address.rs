//! # SetIPAddress
//!
//! `SetIPAddress(ADDR)`
//!
//! **Category:** ip. Sets the destination IP address annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets the destination IP address annotation of each packet to ADDR (an
//! IP address or AddressInfo name, mandatory). The packet data is not
//! changed; StoreIPAddress writes the annotation into the packet.
//!
//! ## Annotations
//!
//! Sets the destination IP address annotation.
//!
//! ## Handlers
//!
//! * `addr` (read/write): ADDR.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetIPAddress(10.0.0.1) -> rt :: RadixIPLookup(...)
//! ```
//!
//! ## See also
//!
//! StoreIPAddress, GetIPAddress, SetRandIPAddress

use std::net::Ipv4Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

/// The SetIPAddress element.
pub struct SetIPAddress {
    addr: Ipv4Addr,
}

impl Default for SetIPAddress {
    fn default() -> Self {
        SetIPAddress {
            addr: Ipv4Addr::UNSPECIFIED,
        }
    }
}

rclick_core::handlers! {
    /// SetIPAddress's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Addr = reconfigure_config("addr", "ADDR").positional(0),
    }
}

impl Element for SetIPAddress {
    fn class_name(&self) -> &'static str {
        "SetIPAddress"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = Ipv4Addr::UNSPECIFIED;
        Args::new_with(conf, cx.arg_context())
            .read_mp("ADDR", &mut addr)
            .complete()
            .map_err(|e| e.to_string())?;
        self.addr = addr;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        for p in batch.iter_mut() {
            p.set_dst_ip_anno(self.addr);
        }
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        for p in batch.iter_mut() {
            p.set_dst_ip_anno(self.addr);
        }
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// The annotation is set (StoreIPAddress writes it into the data where
    /// Print shows it) and the handler reads ADDR.
    #[test]
    fn sets_the_annotation() {
        let r = testing::run(
            "InfiniteSource(DATA \\<00000000 00000000>, LIMIT 1, STOP true)
             -> s :: SetIPAddress(10.0.0.1) -> StoreIPAddress(4) -> Print(x) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["x:    8 | 00000000 0a000001"]);
        assert_eq!(testing::read(&r, "s.addr"), "10.0.0.1");
    }
}
