//! # IPsecESPEncap
//!
//! `IPsecESPEncap([SPI spi, SATABLE name])`
//!
//! **Category:** ipsec. Seals IP packets into ESP (RFC 4303), tunnel mode.
//!
//! **Ports:** one input, one or two outputs, agnostic (output 1, if
//! connected, gets the packets that could not be sealed; otherwise they are
//! dropped, and counted either way).
//!
//! ## Description
//!
//! Each packet is a whole IPv4 or IPv6 packet (data starting at its IP
//! header). It becomes the payload of an ESP packet of the security
//! association whose SPI is in the packet's SPI annotation (set by
//! RadixIPsecLookup for routes into a tunnel), or, when that annotation is
//! 0, the SA of the `SPI` keyword. The SA comes from the SATable (`SATABLE`
//! names it when the configuration has several).
//!
//! The packet becomes: ESP header (SPI, sequence number), an 8-byte IV
//! (the 64-bit sequence counter, so never repeated under one key), then,
//! encrypted, the inner packet, padding to a 4-byte boundary (bytes 1, 2,
//! 3, ... as RFC 4303 2.4 says), pad length and next header (4 for IPv4,
//! 41 for IPv6), then the 16-byte ICV. The AEAD's associated data is the
//! SPI and sequence number; its nonce is the SA's salt and the IV. This is
//! what Linux's `rfc4106(gcm(aes))` and `rfc7539esp(chacha20,poly1305)`
//! expect: a Linux host with the same SA opens these packets.
//!
//! IPsecEncap then adds the outer IP header. Click's IPsecESPEncap adds
//! only the ESP header and leaves encryption and authentication to
//! IPsecDES/IPsecAES and IPsecAuthHMACSHA1 (DES, AES-CBC and HMAC-SHA1,
//! not provided here); with an AEAD cipher the three steps are one.
//!
//! Dropped packets are counted by reason (`drop_details`):
//!
//! * `no_spi`: no SPI annotation and no `SPI` keyword;
//! * `unknown_spi`: no SA with that SPI;
//! * `not_ip`: the packet is not an IPv4 or IPv6 packet;
//! * `seq_overflow`: the SA has used all 2^32 - 1 sequence numbers (it
//!   must be replaced, RFC 4303 3.3.3);
//! * `no_room`: the packet could not grow (beyond the largest buffer).
//!
//! ## Annotations
//!
//! Reads the SPI annotation (user annotation bytes 32-35, Click's
//! `IPSEC_SPI_ANNO`) and writes the SPI used into it. Clears the network
//! header annotation (the IP header is now encrypted).
//!
//! ## Handlers
//!
//! * `count` (read): packets sealed.
//! * `drops`, `drop_details` (read): packets dropped, by reason.
//!
//! ## Examples
//!
//! ```text
//! rt[1] -> IPsecESPEncap -> IPsecEncap(esp, SRC 192.0.2.1) -> ...
//! ```
//!
//! ## See also
//!
//! IPsecESPUnencap, SATable, IPsecEncap, RadixIPsecLookup

use rclick_core::args::Args;
use rclick_core::router::InitCx;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};

use crate::sa::{self, SaCache, SealError};
use crate::{Stepper, SPI_ANNO};

rclick_core::drop_reasons! {
    /// Why IPsecESPEncap drops (`drop_details`).
    enum Why {
        NoSpi = "no_spi",
        UnknownSpi = "unknown_spi",
        NotIp = "not_ip",
        SeqOverflow = "seq_overflow",
        NoRoom = "no_room",
    }
}

/// The IPsecESPEncap element.
#[derive(Default)]
pub struct IPsecESPEncap {
    spi: u32,
    table: String,
    cache: SaCache,
    stats: Stepper<Why>,
}

/// Seals one packet, or gives the drop reason.
#[inline]
fn seal(cache: &mut SaCache, default_spi: u32, p: &mut Packet) -> Result<(), Why> {
    let mut spi = p.anno_u32(SPI_ANNO);
    if spi == 0 {
        spi = default_spi;
    }
    if spi == 0 {
        return Err(Why::NoSpi);
    }
    let sa = cache.get(spi).ok_or(Why::UnknownSpi)?;
    let nh = match (p.data().first().map(|b| b >> 4), p.len()) {
        (Some(4), n) if n >= 20 => sa::NH_IPV4,
        (Some(6), n) if n >= 40 => sa::NH_IPV6,
        _ => return Err(Why::NotIp),
    };
    sa.seal(p, nh).map_err(|e| match e {
        SealError::SeqOverflow => Why::SeqOverflow,
        SealError::NoRoom | SealError::Cipher => Why::NoRoom,
    })?;
    p.set_anno_u32(SPI_ANNO, spi);
    p.clear_network_header();
    Ok(())
}

impl Element for IPsecESPEncap {
    fn class_name(&self) -> &'static str {
        "IPsecESPEncap"
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut spi = String::new();
        let mut table = String::new();
        Args::new_with(conf, cx.arg_context())
            .read("SPI", &mut spi)
            .read("SATABLE", &mut table)
            .complete()
            .map_err(|e| e.to_string())?;
        self.spi = if spi.is_empty() {
            0
        } else {
            sa::parse_spi(&spi)?
        };
        self.table = table;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let db = crate::find_table(&self.table, cx)?;
        if self.spi != 0 && db.get(self.spi).is_none() {
            return Err(format!("SPI {:#x}: no such SA in the SATable", self.spi));
        }
        self.cache = SaCache::new(db);
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let (cache, spi) = (&mut self.cache, self.spi);
        self.stats.push(batch, cx, |p| seal(cache, spi, p));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let (cache, spi) = (&mut self.cache, self.spi);
        self.stats.pull(max, cx, |p| seal(cache, spi, p))
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

    const K: &str = "0x0102030405060708090a0b0c0d0e0f1011121314";

    /// Packets sealed with the configured SPI; packets with no SPI, or
    /// that are not IP, dropped by reason.
    #[test]
    fn seals_and_names_drops() {
        let data = ip_hex([198, 51, 100, 2], [203, 0, 113, 5], 4);
        let conf = format!(
            "SATable(0x1001 aes-gcm {K});
             InfiniteSource(DATA {data}, LIMIT 3, STOP true) -> e :: IPsecESPEncap(SPI 0x1001)
             -> ok :: Counter -> Discard;
             InfiniteSource(DATA {data}, LIMIT 2) -> n :: IPsecESPEncap -> Discard;
             InfiniteSource(DATA \\<0102>, LIMIT 1) -> e;"
        );
        let r = testing::run(&conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(testing::read(&r, "ok.count"), "3");
        assert_eq!(testing::read(&r, "e.count"), "3");
        assert_eq!(
            testing::read(&r, "e.drop_details"),
            "0\tno_spi\n0\tunknown_spi\n1\tnot_ip\n0\tseq_overflow\n0\tno_room\n"
        );
        assert_eq!(testing::read(&r, "n.drops"), "2");
        let log = r.take_log();
        assert!(
            log.contains(&"n: dropped a packet: no_spi".to_string()),
            "{log:?}"
        );
    }
}
