//! # CheckIPHeader
//!
//! `CheckIPHeader([BADSRC, OFFSET, keywords INTERFACES, BADSRC, GOODDST,
//! OFFSET, CHECKSUM, VERBOSE, DETAILS])`
//!
//! **Category:** ip. Checks IP header validity.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Input packets should have IP headers starting OFFSET bytes in. Checks,
//! in order, that the packet holds at least 20 bytes of header, that the
//! version is 4, that the header length is at least 20, that the total
//! length covers the header and fits in the packet, that the header
//! checksum is correct (unless CHECKSUM is false), and that the source
//! address is not a bad source (unless the destination is a good
//! destination). Packets that pass are trimmed to the IP total length, get
//! their IP header annotation set, and get their destination IP address
//! annotation set to the header's destination; they leave on output 0.
//! Others are dropped, or sent out output 1 if it exists; the first drop
//! (every drop when VERBOSE) is reported as `NAME: IP header check failed:
//! REASON`.
//!
//! Keywords:
//!
//! * `OFFSET` (unsigned, default 0): where the IP header starts.
//! * `INTERFACES` (space-separated IP prefixes): this router's interfaces;
//!   sets BADSRC to their broadcast addresses plus 0.0.0.0 and
//!   255.255.255.255, and GOODDST to their addresses.
//! * `BADSRC` (space-separated IP addresses, default none): drop packets
//!   with these source addresses.
//! * `GOODDST` (space-separated IP addresses, default none): accept bad
//!   sources when the destination is one of these.
//! * `CHECKSUM` (boolean, default true): verify the header checksum.
//! * `VERBOSE` (boolean, default false): report every drop.
//! * `DETAILS` (boolean, default false): count drops per reason.
//!
//! The old form `CheckIPHeader(BADSRC [, OFFSET])` (BADSRC a space-separated
//! address list, to which 0.0.0.0 and 255.255.255.255 are added) and
//! `CheckIPHeader(OFFSET)` are also accepted.
//!
//! ## Annotations
//!
//! Sets the IP header annotation and the destination IP address annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped.
//! * `drop_details` (read, when DETAILS is true): one line per reason,
//!   `COUNT<TAB>REASON`; reasons are `tiny packet`, `bad IP version`,
//!   `bad IP header length`, `bad IP length`, `bad IP checksum`,
//!   `bad source address`.
//!
//! ## Examples
//!
//! ```text
//! ... -> Strip(14) -> CheckIPHeader(INTERFACES 18.26.4.1/24) -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader2, MarkIPHeader, SetIPChecksum, StripIPHeader, AddressInfo

use std::net::Ipv4Addr;

use rclick_core::args::{Args, FromArg, IpPrefix, SpaceSep};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::{checksum, Ipv4Packet};

use super::CheckDrops;

rclick_core::drop_reasons! {
    /// Why CheckIPHeader drops (`drop_details`).
    pub(crate) enum Why {
        Tiny = "tiny packet",
        BadVersion = "bad IP version",
        BadHeaderLength = "bad IP header length",
        BadLength = "bad IP length",
        BadChecksum = "bad IP checksum",
        BadSource = "bad source address",
    }
}

/// CheckIPHeader, and CheckIPHeader2 (which never checks checksums).
pub struct CheckIPHeader {
    no_checksum_class: bool,
    offset: usize,
    checksum: bool,
    bad_src: AddrList,
    good_dst: AddrList,
    pub(crate) drops: CheckDrops<Why>,
}

impl CheckIPHeader {
    /// A CheckIPHeader (`checker2` for CheckIPHeader2).
    pub fn new(checker2: bool) -> Self {
        CheckIPHeader {
            no_checksum_class: checker2,
            offset: 0,
            checksum: !checker2,
            bad_src: AddrList::default(),
            good_dst: AddrList::default(),
            drops: CheckDrops::new("IP header"),
        }
    }

    /// Checks `p`; on success fixes it up, on failure returns the reason.
    ///
    /// The fixed 20 bytes are read through a view over `&[u8; 20]` taken
    /// with one length test, so no field read checks bounds, and a header
    /// without options is summed in three word loads. With the batch loop
    /// around it and the hop, 116 instructions per packet against 144 when
    /// each check was a call (callgrind, BURST 32, Click's IP router).
    #[inline(always)]
    fn check(&self, p: &mut Packet) -> Result<(), Why> {
        let data = p.data();
        let ip = data.get(self.offset..).unwrap_or_default();
        let Some(fixed) = ip.first_chunk::<20>() else {
            return Err(Why::Tiny);
        };
        let v = Ipv4Packet::new_unchecked(fixed);
        if v.version() != 4 {
            return Err(Why::BadVersion);
        }
        let hlen = v.header_len() as usize;
        if hlen < 20 {
            return Err(Why::BadHeaderLength);
        }
        let len = v.total_len() as usize;
        if len > ip.len() || len < hlen {
            return Err(Why::BadLength);
        }
        if self.checksum {
            let ok = if hlen == 20 {
                checksum::verify(fixed)
            } else {
                checksum::verify(&ip[..hlen])
            };
            if !ok {
                return Err(Why::BadChecksum);
            }
        }
        let src = u32::from(v.src_addr());
        let dst = v.dst_addr();
        if self.bad_src.contains(src) && !self.good_dst.contains(u32::from(dst)) {
            return Err(Why::BadSource);
        }
        let extra = ip.len() - len;
        p.set_ip_header(self.offset, hlen);
        if extra > 0 {
            p.take(extra);
        }
        p.set_dst_ip_anno(dst);
        Ok(())
    }
}

impl CheckIPHeader {
    /// The rest of `push` once packet `first_bad` failed (the packets
    /// before it passed): counts its reason (checking it again finds the
    /// same, since a failed check changes nothing), checks the others,
    /// pushes the good packets on and the bad ones out output 1.
    #[cold]
    #[inline(never)]
    fn push_with_failures(&mut self, mut good: PacketBatch, first_bad: usize, cx: &mut Ctx) {
        if let Some(Err(r)) = good.get_mut(first_bad).map(|p| self.check(p)) {
            self.drops.count(r, cx);
        }
        let bad = crate::divert::divert_after(&mut good, first_bad, |p| match self.check(p) {
            Ok(()) => true,
            Err(r) => {
                self.drops.count(r, cx);
                false
            }
        });
        if !good.is_empty() {
            cx.push(0, good);
        }
        cx.checked_push(1, bad);
    }
}

/// A short list of addresses (BADSRC, GOODDST: a few per interface).
///
/// Up to [`AddrList::FEW`] addresses are held in a fixed array, padded by
/// repeating the first, and compared all at once (two vector compares, no
/// branch): about 11 instructions whatever the address. A longer list has a
/// 64-bit filter in front: an address whose filter bit is clear is not in
/// the list. The filter alone served every list before; on Click's IP
/// router its false positives sent both the source (1.0.0.1) and the
/// destination (2.0.0.2) of the benchmark packet to the full comparison
/// (a scan and a call) on every packet.
#[derive(Default)]
pub(crate) struct AddrList {
    addrs: Vec<u32>,
    /// The addresses, padded with the first, when there are 1 to `FEW`.
    few: Option<[u32; AddrList::FEW]>,
    /// Bit [`AddrList::bit`]`(a)` is set for every address `a` in `addrs`.
    filter: u64,
}

impl AddrList {
    /// The most addresses compared all at once.
    const FEW: usize = 8;

    pub(crate) fn new(addrs: Vec<u32>) -> AddrList {
        let filter = addrs.iter().fold(0, |f, &a| f | Self::bit(a));
        let few = match addrs.first() {
            Some(&a0) if addrs.len() <= Self::FEW => {
                let mut few = [a0; Self::FEW];
                few[..addrs.len()].copy_from_slice(&addrs);
                Some(few)
            }
            _ => None,
        };
        AddrList { addrs, few, filter }
    }

    /// The address's filter bit: the top six bits of a multiplicative hash.
    #[inline(always)]
    fn bit(a: u32) -> u64 {
        1 << (a.wrapping_mul(0x9e37_79b1) >> 26)
    }

    #[inline(always)]
    pub(crate) fn contains(&self, a: u32) -> bool {
        match &self.few {
            // `|`, not `||`: every lane compared, no branch.
            Some(few) => few.iter().fold(false, |found, &x| found | (x == a)),
            None => self.filter & Self::bit(a) != 0 && self.addrs.contains(&a),
        }
    }
}

pub(crate) fn interfaces(prefixes: &[IpPrefix]) -> (Vec<u32>, Vec<u32>) {
    let mut bad = Vec::new();
    let mut good = Vec::new();
    for p in prefixes {
        let (a, m) = (u32::from(p.addr), u32::from(p.mask));
        bad.push((a & m) | !m);
        good.push(a);
    }
    bad.push(0);
    bad.push(u32::MAX);
    (bad, good)
}

impl Element for CheckIPHeader {
    fn class_name(&self) -> &'static str {
        if self.no_checksum_class {
            "CheckIPHeader2"
        } else {
            "CheckIPHeader"
        }
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let ctx = cx.arg_context();
        let mut ifaces: Option<SpaceSep<IpPrefix>> = None;
        let mut badsrc: Option<SpaceSep<Ipv4Addr>> = None;
        let mut gooddst: Option<SpaceSep<Ipv4Addr>> = None;
        let mut offset: usize = 0;
        let mut verbose = false;
        let mut details = false;
        let mut csum = !self.no_checksum_class;
        let rest = Args::new_with(conf, ctx)
            .read_with("INTERFACES", &mut ifaces, |s| {
                SpaceSep::<IpPrefix>::from_arg(s, ctx).map(Some)
            })
            .read_with("BADSRC", &mut badsrc, |s| {
                SpaceSep::<Ipv4Addr>::from_arg(s, ctx).map(Some)
            })
            .read_with("GOODDST", &mut gooddst, |s| {
                SpaceSep::<Ipv4Addr>::from_arg(s, ctx).map(Some)
            })
            .read("OFFSET", &mut offset)
            .read("VERBOSE", &mut verbose)
            .read("DETAILS", &mut details)
            .read("CHECKSUM", &mut csum)
            .consume()
            .map_err(|e| e.to_string())?;
        let mut bad_src = Vec::new();
        let mut good_dst = Vec::new();
        if let Some(SpaceSep(v)) = &ifaces {
            (bad_src, good_dst) = interfaces(v);
        }
        if let Some(SpaceSep(v)) = badsrc {
            bad_src = v.into_iter().map(u32::from).collect();
        }
        if let Some(SpaceSep(v)) = gooddst {
            good_dst = v.into_iter().map(u32::from).collect();
        }
        let only_offset = rest.len() == 1 && rest[0].trim().parse::<usize>().is_ok();
        if only_offset {
            offset = rest[0].trim().parse().unwrap_or(0);
        } else if !rest.is_empty() {
            let mut old: Option<SpaceSep<Ipv4Addr>> = None;
            Args::new_with(&rest, ctx)
                .read_p_with("BADSRC", &mut old, |s| {
                    SpaceSep::<Ipv4Addr>::from_arg(s, ctx).map(Some)
                })
                .read_p("OFFSET", &mut offset)
                .complete()
                .map_err(|e| e.to_string())?;
            if let Some(SpaceSep(v)) = old {
                bad_src = v.into_iter().map(u32::from).collect();
                bad_src.push(0);
                bad_src.push(u32::MAX);
            }
        }
        self.offset = offset;
        self.checksum = csum && !self.no_checksum_class;
        self.bad_src = AddrList::new(bad_src);
        self.good_dst = AddrList::new(good_dst);
        self.drops.verbose = verbose;
        self.drops.details = details;
        Ok(())
    }

    fn push(&mut self, _port: usize, mut good: PacketBatch, cx: &mut Ctx) {
        // Usually every packet passes: one inlined loop over the batch.
        match crate::divert::first_failure(&mut good, |p| self.check(p).is_ok()) {
            None => {
                if !good.is_empty() {
                    cx.push(0, good);
                }
            }
            Some(first_bad) => self.push_with_failures(good, first_bad, cx),
        }
    }

    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }

    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        match self.check(&mut p) {
            Ok(()) => Some(p),
            Err(r) => {
                self.drops.count(r, cx);
                cx.checked_push(1, PacketBatch::from(p));
                None
            }
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        self.drops.handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.drops.read(id)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    // 20-byte header 10.0.0.2 -> 10.0.1.2, UDP, total length 28, valid checksum.
    pub(crate) const GOOD: &str = "4500001c 00000000 4011 65ce 0a000002 0a000102 04d2162e 000c0000";

    #[test]
    fn accepts_good_and_counts_bad() {
        let conf = format!(
            "InfiniteSource(DATA \\<{GOOD}>, LIMIT 3) -> c :: CheckIPHeader(DETAILS true)
             -> n :: Counter -> Discard;
             InfiniteSource(DATA \\<{}>, LIMIT 2) -> c;
             InfiniteSource(DATA \\<4500>, LIMIT 1) -> c;
             c[1] -> b :: Counter -> Discard; DriverManager(wait 1s);",
            GOOD.replace("65ce", "65cf")
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "n.count"), "3");
        assert_eq!(testing::read(&r, "b.count"), "3");
        assert_eq!(testing::read(&r, "c.drops"), "3");
        let d = testing::read(&r, "c.drop_details");
        assert!(d.starts_with("1\ttiny packet\n0\tbad IP version\n"), "{d}");
        assert!(d.contains("2\tbad IP checksum\n"), "{d}");
        let log = r.take_log();
        assert_eq!(
            log.iter()
                .filter(|l| l.contains("IP header check failed"))
                .count(),
            1,
            "{log:?}"
        );
    }

    /// Batches that mix good packets with each kind of bad one (the fast
    /// loop, then the careful split from the first failure on) give what
    /// the same packets give one per batch: the same packets out of each
    /// output, in order, and the same counts.
    #[test]
    fn mixed_batches_match_single_packets() {
        use crate::ip::test_util::{by_burst, Rng};
        // GOOD, then one variant per failure reason (and a longer packet
        // that is trimmed, and a bad source).
        let variants = [
            GOOD.to_string(),
            "4500".to_string(),
            GOOD.replacen("45", "55", 1),
            GOOD.replacen("45", "44", 1),
            GOOD.replace("001c", "0040"),
            GOOD.replace("65ce", "65cf"),
            format!("{GOOD} 0102030405"),
            GOOD.replace("0a000002", "0a0000ff").replace("65ce", "64d1"),
        ];
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for round in 0..12 {
            let mut sources = String::new();
            for i in 0..4 + rng.below(4) {
                let v = &variants[rng.below(variants.len() as u64) as usize];
                sources.push_str(&format!(
                    "InfiniteSource(DATA \\<{v}>, LIMIT {}, BURST {}) -> q;\n",
                    1 + rng.below(20),
                    1 + rng.below(5),
                ));
                let _ = i;
            }
            let conf = format!(
                "q :: Queue(10000); {sources}
                 q -> Unqueue(BURST {{BURST}}) -> c :: CheckIPHeader(INTERFACES 10.0.0.1/24, DETAILS true)
                   -> Print(ok, MAXLENGTH 64) -> Discard;
                 c[1] -> Print(bad, MAXLENGTH 64) -> Discard;
                 DriverManager(wait 1s);"
            );
            let [one, many] = by_burst(&conf, &["c.drops", "c.drop_details"]);
            assert_eq!(one, many, "round {round}: {conf}");
            assert!(one.0.contains_key("ok") || one.0.contains_key("bad"));
        }
    }

    /// The list answers as `<[u32]>::contains` for listed addresses, their
    /// neighbours and pseudo-random ones, in both forms (up to eight
    /// addresses compared at once, more behind the filter), including
    /// addresses that share a filter bit with a listed one.
    #[test]
    fn addr_list_matches_slice_contains() {
        use super::AddrList;
        let mut x: u32 = 0x1234_5678;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let mut lists: Vec<Vec<u32>> = vec![
            vec![],
            vec![7],
            vec![0x121a_04ff, 0x121a_07ff, 0, u32::MAX],
            vec![5; 9],
            vec![1, 2, 3, 4, 5, 6, 7, 8],
            vec![0x0100_0001, 0x0200_0002],
        ];
        lists.push((0..8).map(|_| next()).collect());
        lists.push((0..9).map(|_| next()).collect());
        lists.push((0..40).map(|_| next()).collect());
        for list in lists {
            let set = AddrList::new(list.clone());
            let mut probes: Vec<u32> = list
                .iter()
                .flat_map(|&a| [a, a.wrapping_add(1), a.wrapping_sub(1)])
                .collect();
            probes.extend((0..2000).map(|_| next()));
            probes.extend([0, 1, u32::MAX, 0x0100_0001]);
            let mut collisions = 0;
            for a in probes {
                assert_eq!(set.contains(a), list.contains(&a), "{list:?} {a:#x}");
                if set.filter & AddrList::bit(a) != 0 && !list.contains(&a) {
                    collisions += 1;
                }
            }
            // The filter passes some unlisted addresses on to the list:
            // those were answered correctly too.
            if list.len() >= 40 {
                assert!(collisions > 0);
            }
        }
    }

    #[test]
    fn bad_sources_and_old_syntax() {
        let conf = format!(
            "InfiniteSource(DATA \\<{GOOD}>, LIMIT 2) -> c :: CheckIPHeader(10.0.0.2, 0)
             -> n :: Counter -> Discard;
             InfiniteSource(DATA \\<{GOOD}>, LIMIT 2) -> c2 :: CheckIPHeader(INTERFACES 10.0.0.1/24, GOODDST 10.0.1.2)
             -> n2 :: Counter -> Discard;
             InfiniteSource(DATA \\<{}>, LIMIT 2) -> c3 :: CheckIPHeader2 -> n3 :: Counter -> Discard; DriverManager(wait 1s);",
            GOOD.replace("65ce", "0000")
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "n.count"), "0");
        assert_eq!(testing::read(&r, "c.drops"), "2");
        assert_eq!(testing::read(&r, "n2.count"), "2");
        assert_eq!(testing::read(&r, "n3.count"), "2");
    }
}
