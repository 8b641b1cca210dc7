//! # DecIP6HLIM
//!
//! `DecIP6HLIM()`
//!
//! **Category:** ip6. Decrements the IPv6 hop limit, dropping expired packets.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Expects IPv6 packets with the IPv6 header annotation. A packet whose hop
//! limit is 0 or 1 has expired (RFC 8200 section 3: a router must not
//! forward it): it leaves on output 1 unchanged (to ICMP6Error, for a time
//! exceeded message) or is dropped if output 1 is not connected, and is
//! counted. Otherwise the hop limit is decremented (IPv6 has no header
//! checksum to fix) and the packet leaves on output 0. A packet without a
//! whole IPv6 header at its annotation passes unchanged.
//!
//! ## Annotations
//!
//! Uses the IPv6 header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): expired packets.
//!
//! ## Examples
//!
//! ```text
//! dh :: DecIP6HLIM;
//! ... -> dh -> ...;
//! dh[1] -> ICMP6Error(2001:db8::1, timeexceeded) -> ...
//! ```
//!
//! ## See also
//!
//! ICMP6Error, CheckIP6Header, DecIPTTL

use rclick_core::args::Args;
use rclick_core::drops::simple::divert;
use rclick_core::{ConfigureCx, Ctx, Element, Packet, PacketBatch};

use super::{fixed_header, fixed_header_mut};
use crate::divert::push_keeping;

/// The DecIP6HLIM element.
#[derive(Default)]
pub struct DecIP6HLIM {
    drops: u64,
}

/// Decrements `p`'s hop limit; false if it expired.
#[inline]
fn process(p: &mut Packet) -> bool {
    let Some(hlim) = fixed_header(p).map(|v| v.hop_limit()) else {
        return true;
    };
    if hlim <= 1 {
        return false;
    }
    if let Some(mut v) = fixed_header_mut(p) {
        v.set_hop_limit(hlim - 1);
    }
    true
}

impl Element for DecIP6HLIM {
    fn class_name(&self) -> &'static str {
        "DecIP6HLIM"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn push(&mut self, _port: usize, live: PacketBatch, cx: &mut Ctx) {
        self.drops += push_keeping(live, cx, process);
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if process(&mut p) {
            return Some(p);
        }
        divert(&mut self.drops, p, cx);
        None
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{by_burst, config_errors, registry};
    use crate::ip6::test_util::ip6_hex;

    /// Compared with the reference Click: 64 becomes 63; 1 and 0 expire
    /// (to output 1 if connected, else dropped), counted in `drops`.
    #[test]
    fn decrements_and_expires() {
        let mut sources = String::new();
        for (hlim, n) in [(64u8, 3), (1, 2), (0, 1), (2, 1)] {
            let d = ip6_hex("::1", "2001:db8::2", 58, hlim, &[]);
            sources.push_str(&format!(
                "InfiniteSource(DATA \\<{d}>, LIMIT {n}, STOP false) -> q;\n"
            ));
        }
        let conf = format!(
            "q :: Queue; {sources}
             q -> Unqueue(BURST {{BURST}}) -> MarkIP6Header -> d :: DecIP6HLIM
               -> IP6Print(ok) -> Discard;
             d[1] -> IP6Print(dead) -> Discard;
             DriverManager(wait 0.2s);"
        );
        let [one, many] = by_burst(&conf, &["d.drops"]);
        assert_eq!(one, many);
        let (logs, values) = one;
        assert_eq!(values, ["3"]);
        assert_eq!(
            logs["ok"].iter().filter(|l| l.ends_with("hlim 63")).count(),
            3
        );
        assert_eq!(
            logs["ok"].iter().filter(|l| l.ends_with("hlim 1")).count(),
            1
        );
        assert_eq!(logs["dead"].len(), 3);
        assert!(logs["dead"]
            .iter()
            .all(|l| l.ends_with("hlim 1") || l.ends_with("hlim 0")));
    }

    #[test]
    fn no_arguments() {
        config_errors(
            &registry(),
            |a| format!("Idle -> DecIP6HLIM({a}) -> Discard"),
            &[("foo", "too many arguments")],
        );
    }
}
