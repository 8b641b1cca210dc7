//! # IPFragmenter
//!
//! `IPFragmenter(MTU [, HONOR_DF, VERBOSE, KEYWORDS])`
//!
//! **Category:** ip. Fragments large IP packets.
//!
//! **Ports:** one input, one or two outputs, push.
//!
//! ## Description
//!
//! Expects IP packets with their IP header annotation set. A packet whose
//! length from the IP header on is at most MTU leaves on output 0
//! unchanged. A longer one is split into fragments no longer than MTU,
//! emitted on output 0 in order, first fragment first.
//!
//! The first fragment is the original packet, trimmed, so it keeps
//! everything before the IP header (a link header, say), every IP option
//! and every annotation. The other fragments are new packets holding just
//! the IP header and the options whose copy flag is set (RFC 791), padded
//! with end-of-list bytes to a multiple of 4; they carry the original
//! packet's annotations. Fragment data lengths are multiples of 8 except
//! in the last fragment. Fragmenting a fragment keeps its offset, and its
//! more-fragments flag on the last piece.
//!
//! A packet with the don't-fragment (DF) flag set that is longer than MTU,
//! or one whose header leaves no room for 8 data bytes, goes to output 1
//! if it exists (usually `ICMPError(ADDR, unreachable, needfrag)`), and is
//! dropped otherwise; a message is printed for the first 5 such packets
//! (every one with VERBOSE). When HONOR_DF is false, DF is ignored: the
//! fragments get DF cleared and, since the IP ID can no longer be trusted,
//! a random ID. Packets with a malformed IP header are dropped.
//!
//! Keywords:
//!
//! * `MTU` (unsigned, mandatory): at least 8.
//! * `HONOR_DF` (boolean): obey the DF flag. Default true.
//! * `VERBOSE` (boolean): report every DF packet. Default false.
//! * `HEADROOM` (unsigned): headroom of the new fragments. Default the
//!   packet default headroom.
//!
//! ## Handlers
//!
//! * `drops` (read): packets sent to output 1 or dropped.
//! * `fragments` (read): fragments emitted.
//!
//! ## Examples
//!
//! ```text
//! ... -> fr :: IPFragmenter(1024) -> Queue(20) -> ...;
//! fr[1] -> ICMPError(18.26.4.24, unreachable, needfrag) -> ...;
//! ```
//!
//! ## See also
//!
//! ICMPError, CheckLength, IPReassembler

use crate::fragment_batch::{fragment_batch, FragmentCounts};
use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};
use rclick_packet::{Packet, DEFAULT_HEADROOM};
use rclick_wire::ipv4::{option_kind, FLAG_DF, FLAG_MF};
use rclick_wire::Ipv4Packet;

/// The IPFragmenter element.
pub struct IpFragmenter {
    mtu: u32,
    honor_df: bool,
    verbose: bool,
    headroom: usize,
    counts: FragmentCounts,
}

impl Default for IpFragmenter {
    fn default() -> Self {
        IpFragmenter {
            mtu: 0,
            honor_df: true,
            verbose: false,
            headroom: DEFAULT_HEADROOM,
            counts: FragmentCounts::default(),
        }
    }
}

/// Copies the options of header `h` (length `hl`) whose copy flag is set
/// into `out`, padded with EOL to a multiple of 4; returns their length.
fn copied_options(h: &[u8], hl: usize, out: &mut [u8; 40]) -> usize {
    let opts = &h[20..hl];
    let mut n = 0;
    let mut i = 0;
    while i < opts.len() {
        let kind = opts[i];
        let len = if kind == option_kind::NOP {
            1
        } else if kind == option_kind::EOL || i + 1 >= opts.len() {
            break;
        } else {
            let l = opts[i + 1] as usize;
            if l < 2 || i + l > opts.len() {
                break;
            }
            l
        };
        if kind & 0x80 != 0 {
            out[n..n + len].copy_from_slice(&opts[i..i + len]);
            n += len;
        }
        i += len;
    }
    while n % 4 != 0 {
        out[n] = option_kind::EOL;
        n += 1;
    }
    n
}

impl IpFragmenter {
    /// The new ID of a DF packet fragmented with HONOR_DF false: a draw
    /// from the router's shared generator, its low 16 bits stored in host
    /// (little-endian) order as Click's `ip_id = click_random()` does, so
    /// `RandomSeed(N)` gives Click's IDs.
    fn random_id() -> u16 {
        (rclick_core::random::random() as u16).swap_bytes()
    }

    /// Fragments `p` into `out`; returns `Err(p)` for output 1, or
    /// `Ok(())`. Malformed packets are dropped (counted).
    fn fragment(&mut self, mut p: Packet, out: &mut PacketBatch, cx: &Ctx) -> Result<(), Packet> {
        let Some(nh_off) = p.network_header_offset().filter(|&o| o >= 0) else {
            self.counts.drops += 1;
            return Ok(());
        };
        let nh_off = nh_off as usize;
        let (hl, ip_len, off_field, src, dst) = {
            let Some(h) = p.network_header().filter(|h| h.len() >= 20) else {
                self.counts.drops += 1;
                return Ok(());
            };
            let ip = Ipv4Packet::new_unchecked(h);
            let hl = usize::from(ip.header_len());
            let ip_len = usize::from(ip.total_len());
            if hl < 20 || hl > h.len() || ip_len < hl {
                self.counts.drops += 1;
                return Ok(());
            }
            (
                hl,
                ip_len.min(h.len()),
                ip.flags_frag_offset(),
                ip.src_addr(),
                ip.dst_addr(),
            )
        };
        let mtu = self.mtu as usize;
        let first_dlen = mtu.saturating_sub(hl) & !7;
        let in_dlen = ip_len - hl;
        let df = off_field & FLAG_DF != 0;
        if (df && self.honor_df) || first_dlen < 8 {
            if self.verbose || self.counts.drops < 5 {
                cx.log(format!(
                    "IPFragmenter({}) DF {} {} len={}",
                    self.mtu,
                    src,
                    dst,
                    p.len()
                ));
            }
            self.counts.drops += 1;
            return Err(p);
        }
        if in_dlen <= first_dlen {
            // Long only because of trailing bytes past the IP length.
            out.push(p);
            return Ok(());
        }

        let had_mf = off_field & FLAG_MF != 0;
        let new_id = if df { Some(Self::random_id()) } else { None };
        let mut hdr = [0u8; 60];
        let fields_off = (off_field & !FLAG_DF) | FLAG_MF;
        if let Some(h) = p.network_header() {
            hdr[..hl].copy_from_slice(&h[..hl]);
        }
        if let Some(id) = new_id {
            Ipv4Packet::new_unchecked(&mut hdr[..]).set_ident(id);
        }

        // The remaining fragments, built from the original data.
        let mut opts = [0u8; 40];
        let olen = copied_options(&hdr, hl, &mut opts);
        let out_hlen = 20 + olen;
        let mut rest = PacketBatch::new();
        {
            let data = p.network_header().unwrap_or(&[]);
            let payload = &data[hl..hl + in_dlen];
            let mut off = first_dlen;
            while off < in_dlen {
                let mut dlen = mtu.saturating_sub(out_hlen) & !7;
                if dlen == 0 {
                    // The copied options leave no room: give up on this one.
                    self.counts.drops += 1;
                    return Ok(());
                }
                if off + dlen > in_dlen {
                    dlen = in_dlen - off;
                }
                let mut q = Packet::make_zeroed(self.headroom, out_hlen + dlen, 0);
                {
                    let d = q.data_mut();
                    d[..20].copy_from_slice(&hdr[..20]);
                    d[20..out_hlen].copy_from_slice(&opts[..olen]);
                    d[out_hlen..].copy_from_slice(&payload[off..off + dlen]);
                    let mut f = fields_off.wrapping_add((off >> 3) as u16);
                    if off + dlen >= in_dlen && !had_mf {
                        f &= !FLAG_MF;
                    }
                    let mut h = Ipv4Packet::new_unchecked(&mut d[..out_hlen]);
                    h.set_version(4);
                    h.set_header_len(out_hlen as u8);
                    h.set_flags_frag_offset(f);
                    h.set_total_len((out_hlen + dlen) as u16);
                    h.fill_checksum_over(out_hlen);
                }
                q.set_ip_header(0, out_hlen);
                q.copy_annotations(&p);
                rest.push(q);
                off += dlen;
            }
        }

        // The first fragment: the original, trimmed.
        let mut h = Ipv4Packet::new_unchecked(&mut hdr[..hl]);
        h.set_flags_frag_offset(fields_off);
        h.set_total_len((hl + first_dlen) as u16);
        h.fill_checksum_over(hl);
        if let Some(h) = p.network_header_mut() {
            h[..hl].copy_from_slice(&hdr[..hl]);
        }
        let keep = nh_off + hl + first_dlen;
        let excess = p.len().saturating_sub(keep);
        p.take(excess);
        out.push(p);
        self.counts.fragments += 1 + rest.len() as u64;
        out.append(&mut rest);
        Ok(())
    }
}

impl Element for IpFragmenter {
    fn class_name(&self) -> &'static str {
        "IPFragmenter"
    }

    fn port_count(&self) -> &'static str {
        "1/1-2"
    }

    fn processing(&self) -> &'static str {
        rclick_core::spec::common::PUSH
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut mtu = 0u32;
        let mut honor_df = true;
        let mut verbose = false;
        let mut headroom = DEFAULT_HEADROOM as u32;
        Args::new(conf)
            .read_mp("MTU", &mut mtu)
            .read_p("HONOR_DF", &mut honor_df)
            .read_p("VERBOSE", &mut verbose)
            .read("HEADROOM", &mut headroom)
            .complete()
            .map_err(|e| e.to_string())?;
        if mtu < 8 {
            return Err("MTU must be at least 8".into());
        }
        self.mtu = mtu;
        self.honor_df = honor_df;
        self.verbose = verbose;
        self.headroom = (headroom as usize).min(1 << 16);
        Ok(())
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let mtu = self.mtu as usize;
        let bad = fragment_batch(batch, mtu, cx, |p, out, cx| self.fragment(p, out, cx));
        if let Some(bad) = bad {
            // Refusals are counted in `fragment`; dropped unless output 1
            // exists.
            if cx.noutputs() > 1 {
                cx.push(1, bad);
            }
        }
    }

    /// For one packet, `push` is `simple_action` (fragments and refusals
    /// leave from inside it): fusable.
    fn is_simple(&self) -> bool {
        true
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if p.network_header()
            .is_none_or(|h| h.len() <= self.mtu as usize)
        {
            return Some(p);
        }
        let mut out = PacketBatch::new();
        match self.fragment(p, &mut out, cx) {
            Ok(()) => {
                if !out.is_empty() {
                    cx.push(0, out);
                }
            }
            Err(p) => {
                if cx.noutputs() > 1 {
                    cx.push_one(1, p);
                }
            }
        }
        None
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
    use super::super::test_util::*;
    use rclick_core::testing;

    fn frag(pkt: &[u8], elem: &str) -> (Vec<Vec<u8>>, usize, rclick_core::Router) {
        let conf = format!(
            "InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP -> f :: {elem} -> s :: TestSink; f[1] -> e :: Counter -> Discard;",
            hex_data(pkt)
        );
        let r = testing::run(&conf, &reg()).unwrap();
        let s = testing::read(&r, "s.data").lines().map(unhex).collect();
        let e: usize = testing::read(&r, "e.count").parse().unwrap();
        (s, e, r)
    }

    #[test]
    fn click_option_handling() {
        // RandomSeed seeds the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let hx = |t: &str| t.replace(' ', "");
        let pkt = unhex(&hx("4600002c 00000000 64063482 121a042c 0a000004 01010000 001e0028 00000000 00000000 50000000 8f550000"));
        let (s, _, r) = frag(&pkt, "IPFragmenter(40, HONOR_DF false)");
        let hex: Vec<String> = s
            .iter()
            .map(|v| v.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        assert_eq!(hex[0], hx("46000028 00002000 64061486 121a042c 0a000004 01010000 001e0028 00000000 00000000 50000000"));
        assert_eq!(
            hex[1],
            hx("45000018 00000002 64063695 121a042c 0a000004 8f550000")
        );
        assert_eq!(testing::read(&r, "f.fragments"), "2");
        // A bad option (length 0) stops option copying.
        let mut bad = pkt.clone();
        bad[20] = 2;
        bad[21] = 0;
        fix_ip_checksum(&mut bad);
        let (s, _, _) = frag(&bad, "IPFragmenter(40, HONOR_DF false)");
        assert_eq!(s.len(), 2);
        assert_eq!(s[1][0], 0x45);
    }

    /// Click with `RandomSeed(1)` gives the fragments of a DF packet
    /// (HONOR_DF false) the ID bytes `67 45`: the first draw, 0x6b8b4567,
    /// cut to 16 bits and stored in host order (checked with clickdiff).
    #[test]
    fn new_id_like_click_under_random_seed() {
        // RandomSeed seeds the process-wide generator.
        let _g = rclick_core::random::test_lock();
        let mut pkt = vec![0u8; 628];
        pkt[..28].copy_from_slice(&unhex(
            "4500027400014000401124760a0000010a00000204d2162e02605287",
        ));
        fix_ip_checksum(&mut pkt);
        let conf = format!(
            "RandomSeed(1); InfiniteSource(DATA {}, LIMIT 1, STOP true) -> TestMarkIP \
             -> f :: IPFragmenter(300, HONOR_DF false) -> s :: TestSink;",
            hex_data(&pkt)
        );
        let r = testing::run(&conf, &reg()).unwrap();
        let s: Vec<Vec<u8>> = testing::read(&r, "s.data").lines().map(unhex).collect();
        assert_eq!(s.len(), 3);
        for (f, off) in s.iter().zip([0x2000u16, 0x2023, 0x0046]) {
            assert_eq!(&f[4..8], &[0x67, 0x45, (off >> 8) as u8, off as u8]);
        }
    }

    #[test]
    fn copies_flagged_options_and_splits() {
        // Security-like option 130 (copied), 4 bytes, plus 100 data bytes.
        let mut v = vec![
            0x46, 0, 0, 0, 0, 7, 0, 0, 64, 17, 0, 0, 1, 0, 0, 1, 2, 0, 0, 2, 130, 4, 0xaa, 0xbb,
        ];
        v.extend((0..100u8).collect::<Vec<_>>());
        let len = v.len();
        v[3] = len as u8;
        fix_ip_checksum(&mut v);
        let (s, _, _) = frag(&v, "IPFragmenter(60)");
        // 60-24 = 36 -> 32 data bytes per fragment: 32+32+32+4.
        assert_eq!(s.len(), 4);
        let mut data = Vec::new();
        for (i, q) in s.iter().enumerate() {
            assert!(q.len() <= 60);
            assert_eq!(&q[20..24], &[130, 4, 0xaa, 0xbb]);
            assert!(rclick_wire::checksum::verify(&q[..24]));
            let f = u16::from_be_bytes([q[6], q[7]]);
            assert_eq!((f & 0x1fff) as usize * 8, i * 32);
            assert_eq!(f & 0x2000 != 0, i < 3);
            data.extend_from_slice(&q[24..]);
        }
        assert_eq!(data, (0..100u8).collect::<Vec<_>>());
    }

    #[test]
    fn df_goes_to_output_1() {
        let mut v = ip_packet([1, 0, 0, 1], [2, 0, 0, 2], 17, &[0; 100]);
        v[6] = 0x40;
        fix_ip_checksum(&mut v);
        let (s, e, r) = frag(&v, "IPFragmenter(60)");
        assert!(s.is_empty());
        assert_eq!(e, 1);
        assert_eq!(testing::read(&r, "f.drops"), "1");
        assert_eq!(
            r.take_log(),
            ["IPFragmenter(60) DF 1.0.0.1 2.0.0.2 len=120"]
        );
        // Small packets pass.
        let (s, _, _) = frag(&v, "IPFragmenter(1500)");
        assert_eq!(s.len(), 1);
        // Ignoring DF: fragments have DF cleared.
        let (s, _, _) = frag(&v, "IPFragmenter(60, false)");
        assert_eq!(s.len(), 3);
        assert!(s.iter().all(|q| q[6] & 0x40 == 0));
    }

    #[test]
    fn config() {
        let e = testing::build("Idle -> IPFragmenter(7) -> Discard;", &reg(), true)
            .err()
            .unwrap();
        assert!(e.contains("MTU must be at least 8"), "{e}");
    }
}
