//! # SetIP6DSCP
//!
//! `SetIP6DSCP(DSCP)`
//!
//! **Category:** ip6. Sets the IPv6 DSCP field.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Sets the Differentiated Services codepoint (the upper six bits of the
//! traffic class, RFC 2474) of each IPv6 packet to DSCP (0 to 63), keeping
//! the two ECN bits. IPv6 has no header checksum, so nothing else changes.
//! Packets without a whole IPv6 header at their annotation pass unchanged.
//!
//! ## Annotations
//!
//! Uses the IPv6 header annotation.
//!
//! ## Handlers
//!
//! * `dscp` (read/write): DSCP.
//!
//! ## See also
//!
//! SetIPDSCP, MarkIP6Header

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

use super::{fixed_header, fixed_header_mut};

/// The SetIP6DSCP element.
#[derive(Default)]
pub struct SetIP6DSCP {
    dscp: u8,
}

rclick_core::handlers! {
    /// SetIP6DSCP's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Dscp = reconfigure_config("dscp", "DSCP").positional(0),
    }
}

impl Element for SetIP6DSCP {
    fn class_name(&self) -> &'static str {
        "SetIP6DSCP"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut dscp = 0u8;
        Args::new(conf)
            .read_mp_with("DSCP", &mut dscp, |s| match s.trim().parse::<u8>() {
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
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let Some(tc) = fixed_header(&p).map(|v| v.traffic_class()) else {
            return Some(p);
        };
        let new = (self.dscp << 2) | (tc & 3);
        if new != tc {
            if let Some(mut v) = fixed_header_mut(&mut p) {
                v.set_traffic_class(new);
            }
        }
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
    use rclick_core::testing;

    /// Compared with the reference Click: DSCP 10 makes the first word
    /// 0x62800000; the ECN bits stay; DSCP 0 clears.
    #[test]
    fn sets_dscp_keeps_ecn() {
        let mut d = ip6_hex("2001:db8::1", "2001:db8::2", 17, 64, &[]);
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> MarkIP6Header
               -> SetIP6DSCP(10) -> Print(a, 4) -> SetIP6DSCP(DSCP 0) -> Print(b, 4) -> Discard"
        ));
        assert_eq!(log, ["a:   40 | 62800000", "b:   40 | 60000000"]);
        d.replace_range(0..3, "603"); // traffic class 0x03: ECN CE
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> MarkIP6Header
               -> SetIP6DSCP(63) -> Print(a, 4) -> Discard"
        ));
        assert_eq!(log, ["a:   40 | 6ff00000"]);
        // No annotation, or a short packet: unchanged.
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> SetIP6DSCP(63) -> Print(a, 4)
               -> Truncate(20) -> MarkIP6Header -> SetIP6DSCP(1) -> Print(b, 4) -> Discard"
        ));
        assert_eq!(log, ["a:   40 | 60300000", "b:   20 | 60300000"]);
    }

    #[test]
    fn handler_and_errors() {
        let r = testing::build("Idle -> s :: SetIP6DSCP(7) -> Idle", &registry(), true).unwrap();
        assert_eq!(testing::read(&r, "s.dscp"), "7");
        assert!(r.write_handler("s.dscp", "64").is_err());
        assert_eq!(testing::read(&r, "s.dscp"), "7");
        config_errors(
            &registry(),
            |a| format!("Idle -> SetIP6DSCP({a}) -> Discard"),
            &[("64", "DSCP"), ("x", "DSCP"), ("", "DSCP")],
        );
    }
}
