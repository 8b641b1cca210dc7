//! # SetIP6Address
//!
//! `SetIP6Address(ADDR)`
//!
//! **Category:** ip6. Sets the destination IPv6 address annotation.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Sets each packet's destination IPv6 address annotation to ADDR (the
//! packet's bytes do not change). Since the annotation shares its first
//! four bytes with the destination IPv4 annotation, as in Click, this also
//! changes that.
//!
//! ## Annotations
//!
//! Sets the destination IPv6 address annotation.
//!
//! ## Handlers
//!
//! * `addr` (read/write): ADDR.
//!
//! ## See also
//!
//! GetIP6Address, SetIPAddress

use std::net::Ipv6Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

use super::parse_ip6;

/// The SetIP6Address element.
pub struct SetIP6Address {
    addr: Ipv6Addr,
}

impl Default for SetIP6Address {
    fn default() -> Self {
        SetIP6Address {
            addr: Ipv6Addr::UNSPECIFIED,
        }
    }
}

rclick_core::handlers! {
    /// SetIP6Address's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Addr = reconfigure_config("addr", "ADDR").positional(0),
    }
}

impl Element for SetIP6Address {
    fn class_name(&self) -> &'static str {
        "SetIP6Address"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut addr = Ipv6Addr::UNSPECIFIED;
        Args::new(conf)
            .read_mp_with("ADDR", &mut addr, parse_ip6)
            .complete()
            .map_err(|e| e.to_string())?;
        self.addr = addr;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        p.set_dst_ip6_anno(self.addr);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::{ip6_hex, run_log};

    /// The annotation set here routes the packet; compared with the
    /// reference Click (LookupIP6Route after SetIP6Address).
    #[test]
    fn sets_annotation() {
        let d = ip6_hex("2001:db8::1", "2001:db8:1::2", 17, 64, &[]);
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> SetIP6Address(fe80::7)
               -> rt :: LookupIP6Route(2001:db8:1::/48 0, fe80::/10 1) -> Print(zero, 0) -> Discard;
             rt[1] -> Print(one, 0) -> Discard;"
        ));
        assert_eq!(log, ["one:   40"]);
        config_errors(
            &registry(),
            |a| format!("Idle -> SetIP6Address({a}) -> Discard"),
            &[
                ("", "ADDR"),
                ("1.2.3.4", "expected IPv6 address"),
                ("::, ::", "too many"),
            ],
        );
    }
}
