//! # IPsecESPUnencap
//!
//! `IPsecESPUnencap([SATABLE name])`
//!
//! **Category:** ipsec. Opens ESP packets (RFC 4303), tunnel mode.
//!
//! **Ports:** one input, one or two outputs, agnostic (output 1, if
//! connected, gets the packets refused; otherwise they are dropped, and
//! counted either way).
//!
//! ## Description
//!
//! Each packet starts at an ESP header (the outer IP header stripped, as
//! StripIPHeader does). The SA is the one whose SPI the header carries, in
//! the SATable (`SATABLE` names it when the configuration has several).
//! In order, as RFC 4303 3.4 says:
//!
//! 1. the sequence number is checked against the SA's anti-replay window
//!    (3.4.3) without moving it;
//! 2. the ICV is verified and the payload decrypted (AES-GCM, RFC 4106, or
//!    ChaCha20-Poly1305, RFC 7634, as Linux lays them out);
//! 3. only then the window moves;
//! 4. the trailer is checked: the pad length must fit and the padding be
//!    1, 2, 3, ...; next header 59 (a dummy packet, 2.6) is discarded;
//!    next header 4 or 41 (tunnel mode) must hold a well-formed IPv4 or
//!    IPv6 packet, which is what comes out, trimmed to its own length
//!    (so traffic-flow-confidentiality padding goes).
//!
//! Click's IPsecESPUnencap removes only the ESP header and padding after
//! IPsecDES/IPsecAES and IPsecAuthHMACSHA1; with an AEAD cipher the three
//! steps are one.
//!
//! Dropped packets are counted by reason (`drop_details`):
//!
//! * `truncated`: shorter than ESP header, IV, trailer and ICV;
//! * `unknown_spi`: no SA with that SPI;
//! * `replayed`: sequence number already received (or 0);
//! * `too_old`: sequence number left of the window;
//! * `bad_icv`: the ICV does not verify (wrong key, corrupted packet);
//! * `bad_padding`: pad length or padding bytes wrong;
//! * `dummy`: a dummy packet (next header 59);
//! * `bad_next_header`: neither IPv4 nor IPv6 (transport mode is not done);
//! * `bad_inner`: the inner packet's header is not a valid IP header.
//!
//! ## Annotations
//!
//! Sets the network header annotation (the IP header annotation for IPv4)
//! to the inner packet's header, the destination address annotation
//! (IPv4 or IPv6) to its destination, and the SPI annotation (user bytes
//! 32-35) to the SA's SPI.
//!
//! ## Handlers
//!
//! * `count` (read): packets opened.
//! * `drops`, `drop_details` (read): packets refused, by reason.
//!
//! ## Examples
//!
//! ```text
//! rt[0] -> StripIPHeader -> IPsecESPUnencap -> [0]rt;
//! ```
//!
//! ## See also
//!
//! IPsecESPEncap, SATable, RadixIPsecLookup, StripIPHeader

use rclick_core::args::Args;
use rclick_core::router::InitCx;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::esp::EspPacket;
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::ipv6::Ipv6Packet;

use crate::sa::{self, OpenError, SaCache};
use crate::{Stepper, SPI_ANNO};

rclick_core::drop_reasons! {
    /// Why IPsecESPUnencap refuses a packet (`drop_details`).
    enum Why {
        Truncated = "truncated",
        UnknownSpi = "unknown_spi",
        Replayed = "replayed",
        TooOld = "too_old",
        BadIcv = "bad_icv",
        BadPadding = "bad_padding",
        Dummy = "dummy",
        BadNextHeader = "bad_next_header",
        BadInner = "bad_inner",
    }
}

fn reason(e: OpenError) -> Why {
    match e {
        OpenError::Truncated => Why::Truncated,
        OpenError::Replayed => Why::Replayed,
        OpenError::TooOld => Why::TooOld,
        OpenError::BadIcv => Why::BadIcv,
        OpenError::BadPadding => Why::BadPadding,
        OpenError::Dummy => Why::Dummy,
        OpenError::BadNextHeader => Why::BadNextHeader,
        OpenError::BadInner => Why::BadInner,
    }
}

/// The IPsecESPUnencap element.
#[derive(Default)]
pub struct IPsecESPUnencap {
    table: String,
    cache: SaCache,
    stats: Stepper<Why>,
}

/// Checks the inner packet of next header `nh`, trims it to its own
/// length and sets its annotations.
fn inner(p: &mut Packet, nh: u8) -> Result<(), OpenError> {
    let n = p.len();
    if nh == sa::NH_IPV4 {
        let h = Ipv4Packet::new_checked(p.data()).map_err(|_| OpenError::BadInner)?;
        if h.version() != 4 {
            return Err(OpenError::BadInner);
        }
        let (hl, total, dst) = (
            usize::from(h.header_len()),
            usize::from(h.total_len()),
            h.dst_addr(),
        );
        p.take(n - total);
        p.set_ip_header(0, hl);
        p.set_dst_ip_anno(dst);
    } else {
        let h = Ipv6Packet::new_checked(p.data()).map_err(|_| OpenError::BadInner)?;
        if h.version() != 6 {
            return Err(OpenError::BadInner);
        }
        let (total, dst) = (40 + usize::from(h.payload_len()), h.dst_addr());
        p.take(n - total);
        p.set_network_header(0, 40);
        p.set_dst_ip6_anno(dst);
    }
    Ok(())
}

/// Opens one packet, or gives the drop reason.
#[inline]
fn open(cache: &mut SaCache, p: &mut Packet) -> Result<(), Why> {
    let spi = EspPacket::new_checked(p.data())
        .map_err(|_| Why::Truncated)?
        .spi();
    let sa = cache.get(spi).ok_or(Why::UnknownSpi)?;
    let nh = sa.open(p).map_err(reason)?;
    inner(p, nh).map_err(reason)?;
    p.set_anno_u32(SPI_ANNO, spi);
    Ok(())
}

impl Element for IPsecESPUnencap {
    fn class_name(&self) -> &'static str {
        "IPsecESPUnencap"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut table = String::new();
        Args::new_with(conf, cx.arg_context())
            .read("SATABLE", &mut table)
            .complete()
            .map_err(|e| e.to_string())?;
        self.table = table;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.cache = SaCache::new(crate::find_table(&self.table, cx)?);
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let cache = &mut self.cache;
        self.stats.push(batch, cx, |p| open(cache, p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let cache = &mut self.cache;
        self.stats.pull(max, cx, |p| open(cache, p))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        Stepper::<Why>::handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        self.stats.read(id)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{ip_hex, registry};
    use rclick_core::testing;

    const K1: &str = "0x0102030405060708090a0b0c0d0e0f1011121314";

    fn k2() -> String {
        format!("0x{}", "5a".repeat(36))
    }

    /// Plain packets through the route table into the tunnel, sealed,
    /// given an outer header, stripped and opened again: the inner
    /// packets come back byte for byte, for each cipher and several sizes.
    #[test]
    fn round_trip_through_a_tunnel() {
        for (cipher, key) in [("aes-gcm", K1.to_string()), ("chacha20-poly1305", k2())] {
            for n in [0usize, 1, 2, 3, 36, 1372] {
                let data = ip_hex([198, 51, 100, 2], [203, 0, 113, 5], n);
                let conf = format!(
                    "SATable(0x1001 {cipher} {key});
                     InfiniteSource(DATA {data}, LIMIT 5, STOP true) -> MarkIPHeader -> GetIPAddress(16)
                     -> rt :: RadixIPsecLookup(192.0.2.1/32 0, 198.51.100.0/24 1, 203.0.113.0/24 192.0.2.2 2 0x1001);
                     rt[0] -> Discard; rt[1] -> Discard;
                     rt[2] -> enc :: IPsecESPEncap -> outer :: IPsecEncap(esp, SRC 192.0.2.1)
                       -> CheckIPHeader -> esp :: Counter
                       -> StripIPHeader -> dec :: IPsecESPUnencap -> CheckIPHeader
                       -> IPPrint(in) -> back :: Counter -> Discard;"
                );
                let r = testing::run(&conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(testing::read(&r, "enc.count"), "5");
                assert_eq!(testing::read(&r, "dec.count"), "5");
                assert_eq!(testing::read(&r, "back.count"), "5");
                assert_eq!(testing::read(&r, "dec.drops"), "0");
                assert_eq!(testing::read(&r, "outer.dst"), "192.0.2.2");
                // Outer length: 20 + 8 + 8 + inner (28 + n) padded to 4 with
                // the 2 trailer bytes, + 16.
                let inner = 28 + n;
                let esp = 8 + 8 + (inner + 2).div_ceil(4) * 4 + 16;
                let bytes: u64 = testing::read(&r, "esp.byte_count").parse().unwrap();
                assert_eq!(bytes, 5 * (20 + esp) as u64, "{cipher} {n}");
                let log = r.take_log().join("\n");
                assert_eq!(
                    log.matches("198.51.100.2.1234 > 203.0.113.5.5678: udp")
                        .count(),
                    5,
                    "{log}"
                );
            }
        }
    }

    /// Each drop reason of the element, counted in drop_details, with the
    /// refused packets on output 1 when it is connected.
    #[test]
    fn drop_reasons() {
        let data = ip_hex([198, 51, 100, 2], [203, 0, 113, 5], 40);
        let conf = format!(
            "SATable(0x1001 aes-gcm {K1}, 0x1002 aes-gcm {K1});
             src :: InfiniteSource(DATA {data}, LIMIT 3, STOP true) -> MarkIPHeader
             -> enc :: IPsecESPEncap(SPI 0x1001) -> t :: Tee(6);
             // 0: good; 1: good again (a replay); 2: ICV corrupted;
             // 3: SPI changed to one we know with another window (bad ICV);
             // 4: SPI unknown; 5: truncated.
             t[0] -> [0]m :: Null;
             t[1] -> [0]m;
             t[2] -> StoreData(30, \\<ff>) -> [0]m;
             t[3] -> StoreData(2, \\<1002>) -> [0]m;
             t[4] -> StoreData(0, \\<00009999>) -> [0]m;
             t[5] -> Truncate(30) -> [0]m;
             m -> dec :: IPsecESPUnencap -> ok :: Counter -> Discard;
             dec[1] -> bad :: Counter -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        // Per source packet: the first copy opens, the second is a replay.
        // Seq 1's copies 2-5 arrive after 1 was accepted... ICV is checked
        // after the replay test, so corrupted copies of an accepted
        // number count as replays; copy 3 (other SPI) is a new SA.
        assert_eq!(testing::read(&r, "ok.count"), "3");
        let d = testing::read(&r, "dec.drop_details");
        let get = |reason: &str| -> u64 {
            d.lines()
                .find(|l| l.ends_with(&format!("\t{reason}")))
                .and_then(|l| l.split('\t').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{reason} in {d}"))
        };
        assert_eq!(get("replayed"), 6, "{d}"); // t[1] and t[2] of each
        assert_eq!(get("bad_icv"), 3, "{d}"); // t[3]: SA 0x1002
        assert_eq!(get("unknown_spi"), 3, "{d}");
        assert_eq!(get("truncated"), 3, "{d}");
        assert_eq!(testing::read(&r, "bad.count"), "15");
        assert_eq!(testing::read(&r, "dec.drops"), "15");
    }

    /// The encapsulation side's reasons.
    #[test]
    fn encap_drop_reasons() {
        let data = ip_hex([198, 51, 100, 2], [203, 0, 113, 5], 4);
        let conf = format!(
            "SATable(0x1001 aes-gcm {K1} SEQ 4294967294);
             InfiniteSource(DATA {data}, LIMIT 4, STOP true) -> MarkIPHeader
             -> e1 :: IPsecESPEncap(SPI 0x1001) -> c1 :: Counter -> Discard;
             InfiniteSource(DATA {data}, LIMIT 1) -> e2 :: IPsecESPEncap -> Discard;
             InfiniteSource(DATA \\<0102030405>, LIMIT 1) -> e4 :: IPsecESPEncap(SPI 0x1001) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "c1.count"), "2");
        let d = testing::read(&r, "e1.drop_details");
        assert!(d.contains("2\tseq_overflow"), "{d}");
        assert!(testing::read(&r, "e2.drop_details").contains("1\tno_spi"));
        assert!(testing::read(&r, "e4.drop_details").contains("1\tnot_ip"));
        // A configured SPI that names no SA is an error.
        let bad =
            format!("SATable(0x1001 aes-gcm {K1}); Idle -> IPsecESPEncap(SPI 0x2002) -> Discard;");
        let e = testing::build(&bad, &registry(), true).err().unwrap();
        assert!(e.contains("no such SA"), "{e}");
        let none = "Idle -> IPsecESPUnencap -> Discard;";
        let e = testing::build(none, &registry(), true).err().unwrap();
        assert!(e.contains("no SATable"), "{e}");
    }
}
