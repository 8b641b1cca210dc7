//! # SetIPDSCP
//!
//! `SetIPDSCP(DSCP)`
//!
//! **Category:** ip. Sets the IP header's DSCP field.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets the Differentiated Services Code Point (the top six bits of the
//! TOS byte) of each packet's IP header to DSCP (0-63, mandatory), leaving
//! the ECN bits alone, and updates the header checksum incrementally.
//! Needs the IP header annotation; packets without one pass unchanged.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `dscp` (read/write): DSCP.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetIPDSCP(46) -> ...
//! ```
//!
//! ## See also
//!
//! MarkIPCE, IPEncap

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::Ipv4Packet;

/// Rewrites the TOS byte of `p`'s IP header with `f`, fixing the checksum.
#[inline]
pub(crate) fn update_tos(p: &mut Packet, f: impl Fn(u8) -> u8) {
    let Some(h) = p.ip_header() else { return };
    if h.len() < 20 {
        return;
    }
    let tos = Ipv4Packet::new_unchecked(h).tos();
    if f(tos) == tos {
        return;
    }
    if let Some(h) = p.ip_header_mut() {
        Ipv4Packet::new_unchecked(h).set_tos_update_checksum(f(tos));
    }
}

/// The SetIPDSCP element.
#[derive(Default)]
pub struct SetIPDSCP {
    dscp: u8,
}

rclick_core::handlers! {
    /// SetIPDSCP's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Dscp = reconfigure_config("dscp", "DSCP").positional(0),
    }
}

impl Element for SetIPDSCP {
    fn class_name(&self) -> &'static str {
        "SetIPDSCP"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut dscp = 0u8;
        Args::new(conf)
            .read_mp_with("DSCP", &mut dscp, |s| match s.parse::<u8>() {
                Ok(v) if v <= 63 => Ok(v),
                _ => Err("expected DSCP value (0-63)".to_string()),
            })
            .complete()
            .map_err(|e| e.to_string())?;
        self.dscp = dscp;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        let d = self.dscp << 2;
        for p in batch.iter_mut() {
            update_tos(p, |t| (t & 3) | d);
        }
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let d = self.dscp << 2;
        let mut batch = cx.pull(0, max);
        for p in batch.iter_mut() {
            update_tos(p, |t| (t & 3) | d);
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

    #[test]
    fn dscp_handler() {
        let r =
            testing::build("Idle -> s :: SetIPDSCP(DSCP 10) -> Idle", &registry(), true).unwrap();
        assert_eq!(testing::read(&r, "s.dscp"), "10");
        r.write_handler("s.dscp", "2").unwrap();
        assert_eq!(testing::read(&r, "s.dscp"), "2");
        assert!(r.write_handler("s.dscp", "64").is_err());
        assert_eq!(testing::read(&r, "s.dscp"), "2");
    }
}
