//! # IPGWOptions
//!
//! `IPGWOptions(MYADDR [, OTHERADDRS])`
//!
//! **Category:** ip. Processes router IP options.
//!
//! **Ports:** one input, one or two outputs. Input and output 0 agnostic,
//! output 1 push.
//!
//! ## Description
//!
//! Processes the IP options every router must handle, not just the
//! packet's final destination: Record Route and Internet Timestamp.
//! Source route options are left alone (see ICMPError for how errors about
//! source-routed packets are routed back).
//!
//! * Record Route: if there is room, MYADDR is written at the pointer and
//!   the pointer advances by 4. A full option is left alone.
//! * Timestamp: flag 0 records the time (milliseconds since midnight UTC),
//!   flag 1 records MYADDR and the time, flag 3 records the time only where
//!   the prespecified address is MYADDR or one of OTHERADDRS. When a flag 0
//!   or 1 option is full, its overflow counter is incremented.
//!
//! The header checksum is recomputed when the packet changed. MYADDR
//! should be the router's address on the interface the packet leaves by
//! (RFC 1812 section 4.2.2.2), so the element usually sits on the output
//! path.
//!
//! A malformed option (bad length, pointer, flag, or overflow counter
//! overflow) is an error: the packet's ICMP parameter-problem annotation
//! is set to the offset of the offending byte from the IP header, the
//! drop is counted, and the packet goes to output 1 if it exists (usually
//! an `ICMPError(ADDR, parameterproblem)`), and is dropped otherwise.
//! Packets without an IP header are errors too (pointer 0).
//!
//! Keywords:
//!
//! * `MYADDR` (IP address, mandatory): this router's address.
//! * `OTHERADDRS` (space-separated IP addresses): the router's other
//!   interface addresses, for prespecified timestamps.
//!
//! ## Annotations
//!
//! Sets the ICMP parameter-problem annotation on erroneous packets.
//!
//! ## Handlers
//!
//! * `drops` (read): packets with option errors.
//!
//! ## Examples
//!
//! ```text
//! gw :: IPGWOptions(18.26.4.24) -> ...;
//! gw[1] -> ICMPError(18.26.4.24, parameterproblem) -> ...;
//! ```
//!
//! ## See also
//!
//! ICMPError

use std::net::Ipv4Addr;

use rclick_core::args::{Args, SpaceSep};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_packet::{Packet, Timestamp};
use rclick_wire::ipv4::{option_kind, write_timestamp};
use rclick_wire::Ipv4Packet;

/// The IPGWOptions element.
pub struct IpGwOptions {
    preferred: Ipv4Addr,
    my_addrs: Vec<Ipv4Addr>,
    drops: u64,
}

impl Default for IpGwOptions {
    fn default() -> Self {
        IpGwOptions {
            preferred: Ipv4Addr::UNSPECIFIED,
            my_addrs: Vec::new(),
            drops: 0,
        }
    }
}

impl IpGwOptions {
    /// An IPGWOptions for router address `me` alone (IPOutputCombo's).
    pub(crate) fn for_address(me: Ipv4Addr) -> Self {
        IpGwOptions {
            preferred: me,
            my_addrs: vec![me],
            drops: 0,
        }
    }

    /// Processes the options in `h` (a whole IPv4 header of `hl` bytes).
    /// Returns whether the header changed, or the offset of the bad byte.
    fn process(&self, h: &mut [u8], hl: usize, now: Timestamp) -> Result<bool, usize> {
        let mut changed = false;
        let mut oi = 20;
        let ms = {
            let secs = now.sec().rem_euclid(86_400) as u32;
            secs * 1000 + now.subsec_nsec() / 1_000_000
        };
        while oi < hl {
            let kind = h[oi];
            if kind == option_kind::NOP {
                oi += 1;
                continue;
            } else if kind == option_kind::EOL {
                break;
            }
            if oi + 1 >= hl {
                return Err(oi + 1);
            }
            let xlen = h[oi + 1] as usize;
            if xlen < 2 || oi + xlen > hl {
                return Err(oi + 1);
            }
            if kind != option_kind::RR && kind != option_kind::TS {
                oi += xlen;
                continue;
            }
            if xlen < 3 {
                return Err(oi + 2);
            }
            // The pointer is 1-based; 0 is always wrong.
            let Some(ptr) = (h[oi + 2] as usize).checked_sub(1) else {
                return Err(oi + 2);
            };
            if kind == option_kind::RR {
                if ptr >= 3 && ptr + 4 <= xlen {
                    h[oi + ptr..oi + ptr + 4].copy_from_slice(&self.preferred.octets());
                    h[oi + 2] = h[oi + 2].wrapping_add(4);
                    changed = true;
                } else if ptr != xlen {
                    return Err(oi + 2);
                }
            } else {
                if xlen < 4 || ptr < 4 {
                    return Err(oi + 2);
                }
                let oflw = h[oi + 3] >> 4;
                let flg = h[oi + 3] & 0x0f;
                let mut overflowed = false;
                if flg == 0 {
                    if ptr + 4 <= xlen {
                        write_timestamp(&mut h[oi..], ptr, ms);
                        h[oi + 2] = h[oi + 2].wrapping_add(4);
                        changed = true;
                    } else {
                        overflowed = true;
                    }
                } else if flg == 1 {
                    if ptr + 8 <= xlen {
                        h[oi + ptr..oi + ptr + 4].copy_from_slice(&self.preferred.octets());
                        write_timestamp(&mut h[oi..], ptr + 4, ms);
                        h[oi + 2] = h[oi + 2].wrapping_add(8);
                        changed = true;
                    } else {
                        overflowed = true;
                    }
                } else if flg == 3 && ptr + 8 <= xlen {
                    let a = Ipv4Addr::new(
                        h[oi + ptr],
                        h[oi + ptr + 1],
                        h[oi + ptr + 2],
                        h[oi + ptr + 3],
                    );
                    if self.my_addrs.contains(&a) {
                        write_timestamp(&mut h[oi..], ptr + 4, ms);
                        h[oi + 2] = h[oi + 2].wrapping_add(8);
                        changed = true;
                    }
                } else {
                    return Err(oi + 3);
                }
                if overflowed {
                    if oflw < 15 {
                        h[oi + 3] = ((oflw + 1) << 4) | flg;
                        changed = true;
                    } else {
                        return Err(oi + 3);
                    }
                }
            }
            oi += xlen;
        }
        Ok(changed)
    }

    /// Processes `p`'s options in place; false means it goes to the error
    /// output (its ICMP parameter-problem annotation set).
    pub(crate) fn handle(&mut self, p: &mut Packet, now: Timestamp) -> bool {
        let hl = match p.network_header() {
            Some(h) if h.len() >= 20 => {
                let hl = ((h[0] & 0x0f) as usize) << 2;
                if hl <= 20 {
                    return true;
                }
                hl.min(h.len())
            }
            _ => {
                self.drops += 1;
                p.set_icmp_param_prob_anno(0);
                return false;
            }
        };
        // Work on a copy of the header so a shared packet is copied only
        // when it actually changes.
        let mut hdr = [0u8; 60];
        if let Some(h) = p.network_header() {
            hdr[..hl].copy_from_slice(&h[..hl]);
        }
        match self.process(&mut hdr[..hl], hl, now) {
            Ok(false) => true,
            Ok(true) => {
                Ipv4Packet::new_unchecked(&mut hdr[..hl]).fill_checksum_over(hl);
                if let Some(h) = p.network_header_mut() {
                    h[..hl].copy_from_slice(&hdr[..hl]);
                }
                true
            }
            Err(off) => {
                self.drops += 1;
                p.set_icmp_param_prob_anno(off.min(255) as u8);
                false
            }
        }
    }
}

/// Whether `p` has IP options (or a header too short to tell).
pub(crate) fn has_options(p: &Packet) -> bool {
    p.network_header()
        .is_none_or(|h| h.len() < 20 || h[0] & 0x0f > 5)
}

rclick_core::handlers! {
    /// IPGWOptions's handlers (the manual's list).
    enum H {
        Drops = read("drops"),
    }
}

impl Element for IpGwOptions {
    fn class_name(&self) -> &'static str {
        "IPGWOptions"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }

    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut me = Ipv4Addr::UNSPECIFIED;
        let mut others: SpaceSep<Ipv4Addr> = SpaceSep(Vec::new());
        Args::new_with(conf, cx.arg_context())
            .read_mp("MYADDR", &mut me)
            .read_p("OTHERADDRS", &mut others)
            .complete()
            .map_err(|e| e.to_string())?;
        let mut addrs = others.0;
        addrs.push(me);
        self.preferred = me;
        self.my_addrs = addrs;
        Ok(())
    }

    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        // Most packets carry no options, and `handle` passes those on
        // unchanged: a batch without any goes on whole. Only Timestamp
        // options need the clock: read it only for a batch that has some.
        if !batch.iter().any(has_options) {
            if !batch.is_empty() {
                cx.push(0, batch);
            }
            return;
        }
        let now = cx.now();
        let bad = crate::divert::divert_failures(&mut batch, |p| self.handle(p, now));
        if !batch.is_empty() {
            cx.push(0, batch);
        }
        if let Some(bad) = bad {
            if cx.noutputs() > 1 {
                cx.push(1, bad);
            }
        }
    }

    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        // As `push`: a packet without options passes unchanged, and only
        // one with options needs the clock.
        if !has_options(&p) {
            return Some(p);
        }
        if self.handle(&mut p, cx.now()) {
            Some(p)
        } else {
            if cx.noutputs() > 1 {
                cx.push_one(1, p);
            }
            None
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, _id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        Ok(self.drops.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use rclick_core::testing;

    fn with_opts(opts: &[u8]) -> Vec<u8> {
        let hl = 20 + opts.len();
        let mut v = vec![
            (0x40 | (hl / 4)) as u8,
            0,
            0,
            0,
            0,
            1,
            0,
            0,
            64,
            17,
            0,
            0,
            1,
            0,
            0,
            1,
            2,
            0,
            0,
            2,
        ];
        v.extend_from_slice(opts);
        v.extend_from_slice(&[0; 8]);
        let len = v.len();
        v[2] = (len >> 8) as u8;
        v[3] = len as u8;
        fix_ip_checksum(&mut v);
        v
    }

    fn run(pkt: &[u8]) -> (Vec<String>, Vec<String>, String) {
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP -> g :: IPGWOptions(9.9.9.9, 8.8.8.8) -> s :: TestSink; g[1] -> e :: TestSink;",
            hex_data(pkt)
        );
        let r = testing::run(&conf, &reg()).unwrap();
        let s = testing::read(&r, "s.data")
            .lines()
            .map(String::from)
            .collect();
        let e = testing::read(&r, "e.data")
            .lines()
            .map(String::from)
            .collect();
        (s, e, testing::read(&r, "g.drops"))
    }

    #[test]
    fn record_route() {
        let (s, e, d) = run(&with_opts(&[7, 11, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
        assert!(e.is_empty());
        assert_eq!(d, "0");
        let q = unhex(&s[0]);
        assert_eq!(&q[20..32], &[7, 11, 8, 9, 9, 9, 9, 0, 0, 0, 0, 0]);
        assert!(rclick_wire::checksum::verify(&q[..32]));
        // A full option passes unchanged.
        let full = with_opts(&[7, 7, 8, 1, 2, 3, 4, 0]);
        let (s, _, _) = run(&full);
        assert_eq!(unhex(&s[0]), full);
    }

    #[test]
    fn timestamps() {
        // Flag 1: address and time.
        let (s, _, _) = run(&with_opts(&[68, 12, 5, 1, 0, 0, 0, 0, 0, 0, 0, 0]));
        let q = unhex(&s[0]);
        assert_eq!(&q[24..28], &[9, 9, 9, 9]);
        assert_eq!(q[22], 13);
        // Flag 3 with another address of ours.
        let (s, _, _) = run(&with_opts(&[68, 12, 5, 3, 8, 8, 8, 8, 0, 0, 0, 0]));
        assert_eq!(unhex(&s[0])[22], 13);
        // Flag 0 full: overflow incremented.
        let (s, _, _) = run(&with_opts(&[68, 8, 9, 0x20, 0, 0, 0, 0]));
        assert_eq!(unhex(&s[0])[23], 0x30);
        // Overflow counter overflows: error at the flags byte.
        let (s, e, d) = run(&with_opts(&[68, 8, 9, 0xf0, 0, 0, 0, 0]));
        assert!(s.is_empty());
        assert_eq!(e.len(), 1);
        assert_eq!(d, "1");
        // Bad flag.
        let (_, e, _) = run(&with_opts(&[68, 8, 5, 2, 0, 0, 0, 0]));
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn errors_set_pointer() {
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP -> g :: IPGWOptions(9.9.9.9) -> Discard; g[1] -> ICMPError(9.9.9.9, parameterproblem) -> s :: TestSink;",
            hex_data(&with_opts(&[1, 7, 40, 4]))
        );
        let r = testing::run(&conf, &reg()).unwrap();
        let q = unhex(&testing::read(&r, "s.data"));
        // Bad length: pointer at the length byte, offset 22.
        assert_eq!(q[24], 22);
        assert_eq!(testing::read(&r, "g.drops"), "1");
    }
}
