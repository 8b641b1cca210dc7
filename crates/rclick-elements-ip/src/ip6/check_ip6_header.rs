//! # CheckIP6Header
//!
//! `CheckIP6Header([BADADDRS, keywords OFFSET])`
//!
//! **Category:** ip6. Checks IPv6 headers.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Expects IPv6 packets starting OFFSET bytes into the data. A packet
//! passes if it holds a whole 40-byte fixed header, its version is 6, its
//! payload length fits in the packet, and its source address is none of
//! BADADDRS. A passing packet is cut to the length its header states
//! (dropping link-layer padding), gets the IPv6 header annotation (40
//! bytes, so the transport header annotation points just past the fixed
//! header), and leaves on output 0. A failing packet leaves on output 1
//! unchanged, or is dropped if output 1 is not connected; either way it is
//! counted by reason. The first failure logs `IP6 header check failed`.
//!
//! A payload length of 0 is taken literally (no jumbogram support, RFC
//! 2675), as in Click.
//!
//! Arguments:
//!
//! * `BADADDRS` (space-separated IPv6 addresses, default none): source
//!   addresses to refuse (for a router, `::` for instance).
//! * `OFFSET` (unsigned, default 0): where the IPv6 header starts.
//!
//! ## Annotations
//!
//! Sets the IPv6 (network) header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): failed packets.
//! * `drop_details` (read): failed packets by reason (`COUNT<tab>REASON`
//!   lines: short packet, bad version, bad payload length, bad source
//!   address).
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Strip(14) -> CheckIP6Header(::) -> ...
//! ```
//!
//! ## See also
//!
//! MarkIP6Header, CheckIPHeader

use std::net::Ipv6Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::ipv6::HEADER_LEN;
use rclick_wire::Ipv6Packet;

use super::parse_ip6;
use crate::ip::{read_drops, CheckH};
use rclick_core::drops::Drops;

rclick_core::drop_reasons! {
    /// Why a packet failed (the `drop_details` handler's lines).
    enum Fail {
        /// Fewer than 40 bytes from OFFSET.
        Short = "packet too short for IPv6 header",
        Version = "bad IP version",
        /// The payload length runs past the data.
        Length = "bad payload length",
        /// A source in BADADDRS.
        Source = "bad source address",
    }
}

/// The CheckIP6Header element.
#[derive(Default)]
pub struct CheckIP6Header {
    bad_src: Vec<Ipv6Addr>,
    offset: usize,
    drops: Drops<Fail>,
}

impl CheckIP6Header {
    /// Checks the header at `self.offset`; on success returns the length
    /// the packet's data should have (offset + 40 + payload length).
    #[inline]
    fn check(&self, data: &[u8]) -> Result<usize, Fail> {
        let h = data.get(self.offset..).ok_or(Fail::Short)?;
        let v = Ipv6Packet::new_unchecked(h.first_chunk::<HEADER_LEN>().ok_or(Fail::Short)?);
        if v.version() != 6 {
            return Err(Fail::Version);
        }
        let want = HEADER_LEN + usize::from(v.payload_len());
        if want > h.len() {
            return Err(Fail::Length);
        }
        if !self.bad_src.is_empty() && self.bad_src.contains(&v.src_addr()) {
            return Err(Fail::Source);
        }
        Ok(self.offset + want)
    }

    /// Checks and trims `p`, setting its header annotation; `Err` leaves
    /// `p` unchanged.
    #[inline]
    fn process(&self, p: &mut Packet) -> Result<(), Fail> {
        let want = self.check(p.data())?;
        let extra = p.len() - want;
        if extra > 0 {
            p.take(extra);
        }
        p.set_ip_header(self.offset, HEADER_LEN);
        Ok(())
    }

    #[cold]
    fn count(&mut self, why: Fail, cx: &Ctx) {
        if self.drops.total() == 0 {
            cx.log("IP6 header check failed");
        }
        self.drops.count(why, 1);
    }
}

impl Element for CheckIP6Header {
    fn class_name(&self) -> &'static str {
        "CheckIP6Header"
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
        let mut bad_src: Vec<Ipv6Addr> = Vec::new();
        let mut offset = 0usize;
        Args::new(conf)
            .read_p_with("BADADDRS", &mut bad_src, |s| {
                s.split_whitespace().map(parse_ip6).collect()
            })
            .read("OFFSET", &mut offset)
            .complete()
            .map_err(|e| e.to_string())?;
        self.bad_src = bad_src;
        self.offset = offset;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        match self.process(&mut p) {
            Ok(()) => Some(p),
            Err(why) => {
                self.count(why, cx);
                cx.checked_push(1, PacketBatch::from(p));
                None
            }
        }
    }
    /// `drops` and `drop_details` (the manual's list).
    fn handlers(&self) -> Vec<HandlerDef> {
        CheckH::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        read_drops(&self.drops, id)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::{ip6_hex, run_log};
    use rclick_core::testing;

    const A: &str = "2001:db8::1";
    const B: &str = "2001:db8:1::2";

    fn run(data: &str, args: &str) -> (Vec<String>, String, String) {
        let conf = format!(
            "InfiniteSource(DATA \\<{data}>, LIMIT 1, STOP true) -> c :: CheckIP6Header({args})
               -> Print(ok, 64) -> Discard; c[1] -> Print(bad) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        (
            r.take_log(),
            testing::read(&r, "c.drops"),
            testing::read(&r, "c.drop_details"),
        )
    }

    /// Cases compared with the reference Click (clickdiff, docs/COMPAT.md).
    #[test]
    fn matches_reference() {
        // A good packet with two bytes of padding is cut to its length.
        let good = ip6_hex(A, B, 17, 64, &[1, 2, 3, 4]);
        let (log, drops, _) = run(&format!("{good}9999"), "");
        assert_eq!(
            log,
            [
                "ok:   44 | 60000000 00041140 20010db8 00000000 00000000 00000001 \
              20010db8 00010000 00000000 00000002 01020304"
            ]
        );
        assert_eq!(drops, "0");
        // Payload length beyond the data.
        let mut long = good.clone();
        long.replace_range(8..12, "0020");
        let (log, drops, details) = run(&long, "");
        assert_eq!(log[0], "IP6 header check failed");
        assert!(
            log[1].starts_with("bad:   44 | 60000000 00201140"),
            "{log:?}"
        );
        assert_eq!(drops, "1");
        assert!(details.contains("1\tbad payload length\n"), "{details}");
        // Version 5.
        let mut v5 = good.clone();
        v5.replace_range(0..1, "5");
        let (log, _, details) = run(&v5, "");
        assert!(log[1].starts_with("bad:   44 | 50000000"), "{log:?}");
        assert!(details.contains("1\tbad IP version\n"), "{details}");
        // A refused source address; a multicast source passes as in Click.
        let (log, _, details) = run(&good, A);
        assert!(log[1].starts_with("bad:"), "{log:?}");
        assert!(details.contains("1\tbad source address\n"), "{details}");
        let (log, drops, _) = run(&ip6_hex("ff02::1", B, 17, 64, &[]), "");
        assert_eq!(log.len(), 1);
        assert_eq!(drops, "0");
        // Truncated headers, every length.
        for n in 0..40 {
            let (log, drops, details) = run(&good[..2 * n], "");
            assert!(log.len() == 2 && log[1].starts_with("bad:"), "{n}: {log:?}");
            assert_eq!(drops, "1");
            assert!(details.starts_with("1\tpacket too short"), "{details}");
        }
    }

    /// Three bad packets: one log line, three drops (as the reference).
    #[test]
    fn logs_first_failure_only() {
        let mut v5 = ip6_hex(A, B, 17, 64, &[]);
        v5.replace_range(0..1, "5");
        let conf = format!(
            "InfiniteSource(DATA \\<{v5}>, LIMIT 3, STOP true) -> c :: CheckIP6Header
               -> Print(ok) -> Discard"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(r.take_log(), ["IP6 header check failed"]);
        assert_eq!(testing::read(&r, "c.drops"), "3");
    }

    #[test]
    fn offset_and_annotation() {
        let good = ip6_hex(A, B, 17, 64, &[1, 2, 3, 4]);
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<aabb{good}>, LIMIT 1, STOP true)
               -> CheckIP6Header(OFFSET 2) -> IP6Print(x) -> Discard;"
        ));
        assert_eq!(
            log,
            ["x: 2001:db8::1 -> 2001:db8:1::2 plen 4, next 17, hlim 64"]
        );
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{good}>, LIMIT 1, STOP true)
               -> c :: CheckIP6Header(OFFSET 2) -> Discard; c[1] -> Print(bad, 4) -> Discard"
        ));
        assert_eq!(log, ["IP6 header check failed", "bad:   44 | 60000000"]);
    }

    #[test]
    fn several_bad_addresses_and_errors() {
        let good = ip6_hex(A, B, 17, 64, &[]);
        // (A list starting with a letter reads as a keyword, in Click too.)
        let (_, drops, _) = run(&good, "2001:db8::9 2001:db8::1");
        assert_eq!(drops, "1");
        config_errors(
            &registry(),
            |a| format!("Idle -> CheckIP6Header({a}) -> Discard"),
            &[
                ("10.0.0.1", "expected IPv6 address"),
                ("::1 fe80::/64", "expected IPv6 address"),
                ("OFFSET -1", "OFFSET"),
                ("::, FOO 1", "FOO"),
            ],
        );
    }
}
