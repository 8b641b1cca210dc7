//! # CheckARPHeader
//!
//! `CheckARPHeader([OFFSET, keywords OFFSET, VERBOSE, DETAILS])`
//!
//! **Category:** ethernet. Checks ARP header lengths.
//!
//! **Ports:** one input, agnostic; one or two outputs (output 1 push).
//!
//! ## Description
//!
//! Expects ARP packets whose header starts OFFSET bytes in. Checks, in
//! order, that the 8-byte fixed header is present, that the addresses it
//! announces (twice the hardware length plus twice the protocol length)
//! are present, that an Ethernet hardware type (1) has hardware length 6,
//! and that an IPv4 protocol type has protocol length 4 and an IPv6 one
//! 16. Packets that pass get their network header annotation set to the
//! ARP header and its addresses, and leave on output 0; the others leave
//! on output 1, or are dropped if it is not connected. The first failure
//! (every failure when VERBOSE) is reported as `ARP header check failed:
//! REASON`.
//!
//! Keywords:
//!
//! * `OFFSET` (unsigned, default 0): where the ARP header starts.
//! * `VERBOSE` (boolean, default false): report every failure.
//! * `DETAILS` (boolean, default false): count failures per reason.
//!
//! ## Annotations
//!
//! Sets the network header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets that failed.
//! * `drop_details` (read, when DETAILS is true): `COUNT<TAB>REASON` lines
//!   for `tiny packet`, `too small for addresses`, `bad hardware
//!   type/length`, `bad protocol type/length`.
//!
//! ## Differences from Click
//!
//! Click's `drop_details` shows garbage for the first two reasons (their
//! counters are never initialised); here they count.
//!
//! ## Examples
//!
//! ```text
//! ... -> Strip(14) -> CheckARPHeader -> ARPPrint -> ...
//! ```
//!
//! ## See also
//!
//! ARPPrint, ARPQuerier, ARPResponder

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::{ArpPacket, EtherType};

/// Why a packet failed.
const REASONS: [&str; 4] = [
    "tiny packet",
    "too small for addresses",
    "bad hardware type/length",
    "bad protocol type/length",
];

/// ARP hardware type Ethernet.
const HRD_ETHER: u16 = 1;

/// The CheckARPHeader element.
#[derive(Default)]
pub struct CheckARPHeader {
    offset: usize,
    verbose: bool,
    details: bool,
    drops: u64,
    per_reason: [u64; 4],
}

impl CheckARPHeader {
    /// Checks `p`: the ARP header length, or the reason it fails.
    fn check(&self, p: &Packet) -> Result<usize, usize> {
        let arp = p.data().get(self.offset..).unwrap_or_default();
        let Some(fixed) = arp.first_chunk::<8>() else {
            return Err(0);
        };
        let v = ArpPacket::new_unchecked(fixed);
        let (hln, pln) = (v.hardware_len() as usize, v.protocol_len() as usize);
        let hlen = 8 + 2 * hln + 2 * pln;
        if arp.len() < hlen {
            return Err(1);
        }
        if v.hardware_type() == HRD_ETHER && hln != 6 {
            return Err(2);
        }
        let pro = v.protocol_type();
        if (pro == EtherType::IPV4 && pln != 4) || (pro == EtherType::IPV6 && pln != 16) {
            return Err(3);
        }
        Ok(hlen)
    }
}

rclick_core::handlers! {
    /// CheckARPHeader's handlers (the manual's list); `drop_details` only
    /// with DETAILS.
    enum H {
        Drops = read("drops"),
        DropDetails = read("drop_details"),
    }
}

impl Element for CheckARPHeader {
    fn class_name(&self) -> &'static str {
        "CheckARPHeader"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    /// Output 0 through `simple_action`, output 1 pushed from it.
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut offset: u32 = 0;
        let (mut verbose, mut details) = (false, false);
        Args::new(conf)
            .read_p("OFFSET", &mut offset)
            .read("VERBOSE", &mut verbose)
            .read("DETAILS", &mut details)
            .complete()
            .map_err(|e| e.to_string())?;
        self.offset = offset as usize;
        self.verbose = verbose;
        self.details = details;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        match self.check(&p) {
            Ok(hlen) => {
                p.set_network_header(self.offset, hlen);
                Some(p)
            }
            Err(reason) => {
                if self.drops == 0 || self.verbose {
                    cx.log(format!("ARP header check failed: {}", REASONS[reason]));
                }
                self.drops += 1;
                self.per_reason[reason] += 1;
                cx.checked_push(1, PacketBatch::from(p));
                None
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        if self.details {
            H::all_defs()
        } else {
            H::Drops.defs()
        }
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Drops) => self.drops.to_string(),
            Some(H::DropDetails) | None => REASONS
                .iter()
                .zip(self.per_reason)
                .map(|(r, n)| format!("{n}\t{r}\n"))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::ether::test_util::registry;
    use rclick_core::testing;

    const ARP: &str = "0001 0800 06 04 0001 000102030405 0a000001 000000000000 0a000002";

    fn run(data: &str, args: &str) -> (Vec<String>, String, String) {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{data}>, LIMIT 2, STOP true) -> c :: CheckARPHeader({args})
                 -> Print(ok, 8) -> Discard; c[1] -> Print(bad, 8) -> Discard;"
            ),
            &registry(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let details = if args.contains("DETAILS") {
            testing::read(&r, "c.drop_details")
        } else {
            String::new()
        };
        (r.take_log(), testing::read(&r, "c.drops"), details)
    }

    /// Checked against Click, reason by reason.
    #[test]
    fn reasons() {
        let (log, drops, _) = run(ARP, "DETAILS true");
        assert_eq!(log, vec!["ok:   28 | 00010800 06040001"; 2]);
        assert_eq!(drops, "0");
        for (data, reason, row) in [
            ("0001 0800 06 04 00", "tiny packet", 0),
            ("0001 0800 06 04 0001", "too small for addresses", 1),
            (&ARP[..ARP.len() - 2], "too small for addresses", 1),
            (
                "0001 0800 07 04 0001 000102030405 0a000001 000000000000 0a000002 0000",
                "bad hardware type/length",
                2,
            ),
            (
                "0001 0800 06 05 0001 000102030405 0a000001 000000000000 0a000002 0000",
                "bad protocol type/length",
                3,
            ),
            (
                "0006 86dd 06 04 0001 000102030405 0a000001 000000000000 0a000002",
                "bad protocol type/length",
                3,
            ),
        ] {
            let (log, drops, details) = run(data, "DETAILS true");
            assert_eq!(log.len(), 3, "{data}: {log:?}");
            assert_eq!(log[0], format!("ARP header check failed: {reason}"));
            assert!(log[1].starts_with("bad:"), "{log:?}");
            assert_eq!(drops, "2");
            let want: Vec<String> = (0..4)
                .map(|i| format!("{}\t{}", if i == row { 2 } else { 0 }, super::REASONS[i]))
                .collect();
            assert_eq!(details.lines().collect::<Vec<_>>(), want);
        }
        // A non-Ethernet hardware type with length 8 is fine.
        let other = "0006 0800 08 04 0001 000102030405 0a000001 000000000000 0a000002 00000000";
        assert_eq!(run(other, "").1, "0");
    }

    /// Checked against Click: OFFSET, VERBOSE, the ARP header annotation
    /// (ARPPrint reads it), no drop_details without DETAILS.
    #[test]
    fn offset_verbose_and_annotation() {
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<aabb {ARP}>, LIMIT 1, STOP true) -> c :: CheckARPHeader(2)
                 -> ARPPrint(ok, TIMESTAMP false) -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), vec!["ok: arp who-has 10.0.0.2 tell 10.0.0.1"]);
        assert!(r.read_handler("c.drop_details", "").is_err());
        let r = testing::run(
            "InfiniteSource(DATA \\<aabb>, LIMIT 3, STOP true)
             -> v :: CheckARPHeader(OFFSET 20, VERBOSE true) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(
            r.take_log(),
            vec!["ARP header check failed: tiny packet"; 3]
        );
        assert_eq!(testing::read(&r, "v.drops"), "3");
    }

    /// Checked against Click: the error texts.
    #[test]
    fn configuration_errors() {
        crate::ether::test_util::config_errors(
            &registry(),
            |conf| format!("Idle -> CheckARPHeader({conf}) -> Idle;"),
            &[
                ("x", "OFFSET"),
                ("1, 2", "too many arguments"),
                ("VERBOSE x", "VERBOSE"),
            ],
        );
    }
}
