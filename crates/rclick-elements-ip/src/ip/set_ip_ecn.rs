//! # SetIPECN
//!
//! `SetIPECN(ECN)`
//!
//! **Category:** ip. Sets the IP header's ECN field.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets the ECN field (the low two bits of the TOS byte) of each packet's
//! IP header to ECN and updates the header checksum incrementally. ECN
//! (mandatory) is `0` to `3` or one of the names `no` or `-` (0, not
//! ECN-capable), `ect1` or `ECT(1)` (1), `ect2` or `ECT(0)` (2), `ce` or
//! `CE` (3, congestion experienced). Packets without an IP header
//! annotation pass unchanged.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `ecn` (read/write): ECN, as written in the configuration.
//!
//! ## Differences from Click
//!
//! Click stops with an assertion failure on a packet without an IP header
//! annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetIPECN(ECT(0)) -> ...
//! ```
//!
//! ## See also
//!
//! SetIPDSCP, MarkIPCE

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};
use rclick_wire::checksum::update_u16;
use rclick_wire::Ipv4Packet;

/// The SetIPECN element.
#[derive(Default)]
pub struct SetIPECN {
    ecn: u8,
}

/// Parses Click's ECN values.
fn parse_ecn(s: &str) -> Result<u8, String> {
    Ok(match s {
        "0" | "no" | "-" => 0,
        "1" | "ect1" | "ECT(1)" => 1,
        "2" | "ect2" | "ECT(0)" => 2,
        "3" | "ce" | "CE" => 3,
        _ => return Err("bad ECN argument".to_string()),
    })
}

impl SetIPECN {
    fn set(&self, p: &mut Packet) {
        let Some(h) = p.ip_header().and_then(|h| h.first_chunk::<20>()) else {
            return;
        };
        if Ipv4Packet::new_unchecked(h).ecn() == self.ecn {
            return;
        }
        if let Some(h) = p.ip_header_mut().and_then(|h| h.first_chunk_mut::<20>()) {
            let mut ip = Ipv4Packet::new_unchecked(h);
            // The TOS byte is the low byte of its checksum word, whose
            // high byte does not change: the word's change is the byte's.
            let old = u16::from(ip.tos());
            ip.set_ecn(self.ecn);
            let new = u16::from(ip.tos());
            let c = ip.checksum();
            ip.set_checksum(update_u16(c, old, new));
        }
    }
}

rclick_core::handlers! {
    /// SetIPECN's handlers (the manual's list): each reads its argument's
    /// text and is written by reconfiguring it.
    enum H {
        Ecn = reconfigure_config("ecn", "ECN").positional(0),
    }
}

impl Element for SetIPECN {
    fn class_name(&self) -> &'static str {
        "SetIPECN"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut ecn = 0u8;
        Args::new(conf)
            .read_mp_with("ECN", &mut ecn, parse_ecn)
            .complete()
            .map_err(|e| {
                // Click names no keyword for a bad value.
                let s = e.to_string();
                if s.contains("bad ECN argument") {
                    "bad ECN argument".to_string()
                } else {
                    s
                }
            })?;
        self.ecn = ecn;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.set(&mut p);
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// TOS 0xfc (DSCP 63, not ECT), checksum 65ce.
    const IP: &str = "45fc0020 00010000 401165ce 0a000001 0a000002 04d21234 000c0000 61626364";

    /// Checked against Click for every spelling: the DSCP stays, the
    /// checksum follows.
    #[test]
    fn sets_ecn_with_checksum() {
        for (arg, head) in [
            ("0", "45fc0020 00010000 401165ce"),
            ("1", "45fd0020 00010000 401165cd"),
            ("2", "45fe0020 00010000 401165cc"),
            ("3", "45ff0020 00010000 401165cb"),
            ("no", "45fc0020 00010000 401165ce"),
            ("-", "45fc0020 00010000 401165ce"),
            ("ect1", "45fd0020 00010000 401165cd"),
            ("ECT(1)", "45fd0020 00010000 401165cd"),
            ("ect2", "45fe0020 00010000 401165cc"),
            ("ECT(0)", "45fe0020 00010000 401165cc"),
            ("ce", "45ff0020 00010000 401165cb"),
            ("CE", "45ff0020 00010000 401165cb"),
            ("ECN 2", "45fe0020 00010000 401165cc"),
        ] {
            let r = testing::run(
                &format!(
                    "InfiniteSource(DATA \\<{IP}>, LIMIT 1, STOP true) -> MarkIPHeader
                     -> SetIPECN({arg}) -> Print(m, 12) -> c :: CheckIPHeader -> Discard;"
                ),
                &registry(),
            )
            .unwrap();
            assert_eq!(r.take_log(), vec![format!("m:   32 | {head}")], "{arg}");
            assert_eq!(testing::read(&r, "c.drops"), "0", "{arg}");
        }
    }

    /// Checked against Click: bad values, missing and extra arguments; the
    /// handler reads back what was written.
    #[test]
    fn configuration_and_handler() {
        crate::ip::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> SetIPECN({conf}) -> Idle;"),
            &[
                ("4", "bad ECN argument"),
                ("Ce", "bad ECN argument"),
                ("nope", "bad ECN argument"),
                ("", "ECN: required argument missing"),
                ("1, 2", "too many arguments"),
            ],
        );
        let r = testing::build("Idle -> s :: SetIPECN(ect1) -> Idle;", &registry(), true).unwrap();
        assert_eq!(testing::read(&r, "s.ecn"), "ect1");
        r.write_handler("s.ecn", "CE").unwrap();
        assert_eq!(testing::read(&r, "s.ecn"), "CE");
        assert!(r.write_handler("s.ecn", "5").is_err());
        assert_eq!(testing::read(&r, "s.ecn"), "CE");
    }
}
