//! # IP6Fragmenter
//!
//! `IP6Fragmenter(MTU)`
//!
//! **Category:** ip6. Fragments large IPv6 packets (RFC 8200 section 4.5).
//!
//! **Ports:** one input, one or two outputs, push.
//!
//! ## Description
//!
//! Expects IPv6 packets with their IPv6 header annotation set. A packet
//! whose length from the IPv6 header on is at most MTU, or whose payload
//! length says it is (trailing bytes past it), leaves on output 0
//! unchanged, as does a packet without a 40-byte IPv6 header at its
//! annotation.
//!
//! A longer packet is split as a source node does (RFC 8200 section 4.5):
//! the unfragmentable part (the IPv6 header, a Hop-by-Hop Options header,
//! a Routing header and the Destination Options headers before it) is
//! repeated in every fragment, the last of its headers gets next header 44,
//! and a Fragment header follows it holding the original next header, the
//! fragment offset, the more-fragments flag (set on all but the last
//! fragment) and an identification shared by the fragments of one packet
//! and different for each packet. Every fragment is at most MTU bytes long
//! and, except the last, carries a multiple of 8 data bytes. Fragments are
//! new packets with the original's annotations, their IPv6 header at
//! offset 0 (anything before the original's IPv6 header is not copied),
//! emitted on output 0 first fragment first.
//!
//! A packet that cannot be fragmented goes to output 1 if it is connected
//! (usually to `ICMP6Error(ADDR, packettoobig)`) and is dropped otherwise;
//! either way it is counted in `drops`. That is a packet whose
//! unfragmentable part leaves no room for 8 data bytes and a Fragment
//! header under MTU, one that already holds a Fragment header, a jumbogram
//! (payload length 0), and one whose extension headers run past its end.
//!
//! The identification is a counter, starting at 1, per element.
//!
//! The reference Click accepts the same configuration and passes packets
//! of at most MTU bytes, but its fragmenting function is empty: it
//! neither emits nor counts longer packets, and leaks them.
//!
//! ## Handlers
//!
//! * `drops` (read): packets that could not be fragmented.
//! * `fragments` (read): fragments emitted.
//!
//! ## Examples
//!
//! ```text
//! ... -> f :: IP6Fragmenter(1280) -> ToDevice(eth0);
//! f[1] -> ICMP6Error(2001:db8::1, packettoobig) -> ...
//! ```
//!
//! ## See also
//!
//! IPFragmenter, ICMP6Error, CheckIP6Header

use crate::fragment_batch::{fragment_batch, FragmentCounts};
use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_packet::{Packet, DEFAULT_HEADROOM};
use rclick_wire::ipv6::{FRAGMENT_HEADER_LEN, HEADER_LEN};
use rclick_wire::{IpProtocol, Ipv6FragmentHeader, Ipv6Packet};

/// The Fragment header's next header value.
const FRAGMENT: u8 = 44;
/// The Fragment header's length.
const FRAG_LEN: usize = FRAGMENT_HEADER_LEN;

/// The IP6Fragmenter element.
#[derive(Default)]
pub struct IP6Fragmenter {
    mtu: u32,
    id: u32,
    counts: FragmentCounts,
}

/// The unfragmentable part of an IPv6 packet of `len` bytes (`h`):
/// its length and the offset of the byte holding the next header value
/// that the Fragment header takes over. `None` if it cannot be fragmented.
fn unfragmentable(h: &[u8], len: usize) -> Option<(usize, usize)> {
    let fixed = Ipv6Packet::new_unchecked(h.first_chunk::<HEADER_LEN>()?);
    let mut nh = u8::from(fixed.next_header());
    let (mut end, mut last_pos) = (HEADER_LEN, 6);
    let mut off = HEADER_LEN;
    while matches!(nh, 0 | 43 | 60) {
        // Extension headers: next header, then length in 8-byte units
        // past the first 8 (RFC 8200 section 4).
        let ext = h.get(off..off + 2).filter(|_| off + 2 <= len)?;
        let hlen = (usize::from(ext[1]) + 1) * 8;
        if off + hlen > len {
            return None;
        }
        if nh != 60 {
            end = off + hlen;
            last_pos = off;
        }
        nh = ext[0];
        off += hlen;
    }
    // Destination options after the last Hop-by-Hop or Routing header
    // belong to the fragmentable part; so does anything else.
    (nh != FRAGMENT).then_some((end, last_pos))
}

impl IP6Fragmenter {
    /// Fragments `p` into `out`; `Err(p)` if it cannot be.
    fn fragment(&mut self, p: Packet, out: &mut PacketBatch) -> Result<(), Packet> {
        let Some(h) = p.network_header() else {
            out.push(p);
            return Ok(());
        };
        let Some(fixed) = h.first_chunk::<HEADER_LEN>().map(Ipv6Packet::new_unchecked) else {
            out.push(p);
            return Ok(());
        };
        let plen = usize::from(fixed.payload_len());
        let mtu = self.mtu as usize;
        if plen == 0 || fixed.version() != 6 {
            return Err(p);
        }
        let len = (HEADER_LEN + plen).min(h.len());
        if len <= mtu {
            // Long only because of trailing bytes past the payload length.
            out.push(p);
            return Ok(());
        }
        let Some((unfrag, nh_pos)) = unfragmentable(h, len) else {
            return Err(p);
        };
        let per = mtu.saturating_sub(unfrag + FRAG_LEN) & !7;
        if per < 8 {
            return Err(p);
        }
        self.id = self.id.wrapping_add(1);
        let id = self.id;
        let orig_nh = h[nh_pos];
        let data = &h[unfrag..len];
        let mut off = 0;
        let first = out.len();
        while off < data.len() {
            let dlen = per.min(data.len() - off);
            let more = off + dlen < data.len();
            let total = unfrag + FRAG_LEN + dlen;
            let mut q = Packet::make_zeroed(DEFAULT_HEADROOM, total, 0);
            {
                let d = q.data_mut();
                d[..unfrag].copy_from_slice(&h[..unfrag]);
                d[nh_pos] = FRAGMENT;
                // The reserved byte stays 0 (the packet starts zeroed).
                let mut fh = Ipv6FragmentHeader::new_unchecked(&mut d[unfrag..unfrag + FRAG_LEN]);
                fh.set_next_header(IpProtocol(orig_nh));
                // off is a multiple of 8 below 65536.
                fh.set_frag_offset(off as u16);
                fh.set_more_frags(more);
                fh.set_ident(id);
                d[unfrag + FRAG_LEN..].copy_from_slice(&data[off..off + dlen]);
                let mut v = Ipv6Packet::new_unchecked(&mut d[..HEADER_LEN]);
                v.set_payload_len((total - HEADER_LEN) as u16);
            }
            q.set_ip_header(0, HEADER_LEN);
            q.copy_annotations(&p);
            out.push(q);
            off += dlen;
        }
        self.counts.fragments += (out.len() - first) as u64;
        Ok(())
    }
}

impl Element for IP6Fragmenter {
    fn class_name(&self) -> &'static str {
        "IP6Fragmenter"
    }

    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn processing(&self) -> &'static str {
        rclick_core::spec::common::PUSH
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut mtu = 0u32;
        Args::new(conf)
            .read_mp("MTU", &mut mtu)
            .complete()
            .map_err(|e| e.to_string())?;
        self.mtu = mtu;
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mtu = self.mtu as usize;
        let bad = fragment_batch(batch, mtu, cx, |p, out, _cx| self.fragment(p, out));
        if let Some(bad) = bad {
            self.counts.drops += bad.len() as u64;
            cx.checked_push(1, bad);
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        FragmentCounts::handlers()
    }

    fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
        self.counts.read(id)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip6::test_util::{hex, ip6_hex};
    use rclick_core::testing;

    /// Runs one packet (hex) through `elem`; returns the fragments' hex,
    /// the packets on output 1, and the router.
    fn frag(pkt: &str, elem: &str) -> (Vec<String>, usize, rclick_core::Router) {
        let conf = format!(
            "InfiniteSource(DATA \\<{pkt}>, LIMIT 1, STOP true) -> MarkIP6Header
               -> f :: {elem} -> s :: TestSink; f[1] -> e :: Counter -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        let s = testing::read(&r, "s.data")
            .lines()
            .map(str::to_string)
            .collect();
        let e = testing::read(&r, "e.count").parse().unwrap();
        (s, e, r)
    }

    /// The crate's classes, the standard ones and `TestSink`.
    fn registry() -> rclick_core::Registry {
        let mut r = crate::ip::test_util::registry();
        r.add(
            "TestSink",
            || Box::<crate::icmp::test_util::Sink>::default(),
            "",
        );
        r
    }

    fn payload(n: usize) -> Vec<u8> {
        (0..n).map(|i| i as u8).collect()
    }

    /// Compared with the reference Click: packets of at most MTU bytes
    /// pass unchanged (140 bytes through MTU 140 and 1280).
    #[test]
    fn small_packets_pass() {
        let p = ip6_hex("2001:db8::1", "2001:db8::2", 17, 64, &payload(100));
        for mtu in [140, 1280] {
            let (s, e, r) = frag(&p, &format!("IP6Fragmenter({mtu})"));
            assert_eq!(s, std::slice::from_ref(&p));
            assert_eq!(e, 0);
            assert_eq!(testing::read(&r, "f.fragments"), "0");
        }
    }

    /// 100 payload bytes through MTU 96: 96-40-8 = 48 data bytes per
    /// fragment, so 48 + 48 + 4, with offsets 0, 6 and 12 (8-byte units).
    #[test]
    fn splits_with_fragment_header() {
        let pl = payload(100);
        let p = ip6_hex("2001:db8::1", "2001:db8::2", 17, 64, &pl);
        let (s, e, r) = frag(&p, "IP6Fragmenter(96)");
        assert_eq!(e, 0);
        let head = |plen: u16| {
            format!(
                "6000000000{:02x}2c40{}{}",
                plen, "20010db8000000000000000000000001", "20010db8000000000000000000000002"
            )
        };
        assert_eq!(
            s,
            [
                format!("{}1100000100000001{}", head(56), hex(&pl[..48])),
                format!("{}1100003100000001{}", head(56), hex(&pl[48..96])),
                format!("{}1100006000000001{}", head(12), hex(&pl[96..])),
            ]
        );
        assert_eq!(testing::read(&r, "f.fragments"), "3");
        assert_eq!(testing::read(&r, "f.drops"), "0");
    }

    /// Run through clickdiff (where the reference leaks the packet): 1500
    /// payload bytes through MTU 1280 make a 1280-byte fragment (1232 data
    /// bytes) and a 316-byte one at offset 1232 (0x4d0).
    #[test]
    fn mtu_1280() {
        let pl: Vec<u8> = (0..1500).map(|i| i as u8).collect();
        let p = ip6_hex("2001:db8::1", "2001:db8::2", 17, 64, &pl);
        let (s, _, r) = frag(&p, "IP6Fragmenter(1280)");
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].len() / 2, s[1].len() / 2), (1280, 316));
        assert_eq!(&s[0][..16], "6000000004d82c40");
        assert_eq!(&s[1][..16], "6000000001142c40");
        assert_eq!(&s[0][80..96], "1100000100000001");
        assert_eq!(&s[1][80..104], "110004d000000001d0d1d2d3");
        assert_eq!(testing::read(&r, "f.fragments"), "2");
    }

    /// A Hop-by-Hop header (8 bytes) stays in every fragment, its next
    /// header becomes 44; Destination Options not followed by a Routing
    /// header are fragmentable.
    #[test]
    fn unfragmentable_part() {
        let mut pl = vec![60, 0, 1, 4, 0, 0, 0, 0]; // Hop-by-Hop -> DstOpts
        pl.extend([17, 0, 1, 4, 0, 0, 0, 0]); // DstOpts -> UDP
        pl.extend(payload(40));
        let p = ip6_hex("::1", "::2", 0, 64, &pl);
        let (s, _, _) = frag(&p, "IP6Fragmenter(88)");
        // 88 - 48 - 8 = 32 data bytes: 32 + 16.
        assert_eq!(s.len(), 2);
        for (i, f) in s.iter().enumerate() {
            assert_eq!(&f[12..14], "00"); // fixed header: next header 0
            assert_eq!(&f[80..96], "2c00010400000000"); // HbH now -> 44
            assert_eq!(&f[96..98], "3c"); // Fragment header -> DstOpts
            let field = if i == 0 { "0001" } else { "0020" };
            assert_eq!(&f[100..104], field);
        }
        assert_eq!(&s[0][112..128], "1100010400000000");
    }

    /// No room (MTU 50: 40 + 8 leaves 2 bytes), a fragment already, a
    /// jumbogram and a truncated extension header: output 1 and `drops`;
    /// without output 1 they are dropped, still counted.
    #[test]
    fn cannot_fragment() {
        let big = ip6_hex("::1", "::2", 17, 64, &payload(100));
        let (s, e, r) = frag(&big, "IP6Fragmenter(50)");
        assert!(s.is_empty());
        assert_eq!(e, 1);
        assert_eq!(testing::read(&r, "f.drops"), "1");
        let mut frag_hdr = vec![17, 0, 0, 1, 0, 0, 0, 9];
        frag_hdr.extend(payload(100));
        let already = ip6_hex("::1", "::2", 44, 64, &frag_hdr);
        let mut jumbo = ip6_hex("::1", "::2", 17, 64, &payload(100));
        jumbo.replace_range(8..12, "0000");
        let trunc = ip6_hex("::1", "::2", 0, 64, &[17, 200, 0, 0, 0, 0, 0, 0, 1, 2]);
        for (p, mtu) in [(already, 96), (jumbo, 96), (trunc, 48)] {
            let (s, e, r) = frag(&p, &format!("IP6Fragmenter({mtu})"));
            assert!(s.is_empty(), "{p}");
            assert_eq!(e, 1, "{p}");
            assert_eq!(testing::read(&r, "f.drops"), "1");
        }
        let conf = format!(
            "InfiniteSource(DATA \\<{big}>, LIMIT 2, STOP true) -> MarkIP6Header
               -> f :: IP6Fragmenter(50) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "f.drops"), "2");
    }

    /// Compared with the reference Click: MTU is required, one argument.
    #[test]
    fn config() {
        for (c, msg) in [
            ("", "MTU: required argument missing"),
            ("1280, 3", "too many arguments"),
        ] {
            let e = testing::build(
                &format!("Idle -> IP6Fragmenter({c}) -> Discard;"),
                &registry(),
                true,
            )
            .err()
            .unwrap();
            assert!(e.contains(msg), "{e}");
        }
        assert!(testing::build(
            "Idle -> IP6Fragmenter(MTU 1500) -> Discard;",
            &registry(),
            true
        )
        .is_ok());
    }
}
