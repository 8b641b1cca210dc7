//! # SATable
//!
//! `SATable(SA1, SA2, ...)`
//!
//! **Category:** ipsec. The security association database, keyed by SPI.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Holds the router's ESP security associations (RFC 4301 4.4.2). Each
//! argument is one SA, `SPI CIPHER KEY [WINDOW N] [SEQ N]`:
//!
//! * `SPI`: the security parameters index, decimal or `0x` hexadecimal,
//!   256 or more (RFC 4303 2.1). One SPI names one SA; an SA is used in one
//!   direction (outbound by IPsecESPEncap, inbound by IPsecESPUnencap), so
//!   a tunnel has two.
//! * `CIPHER`: `aes-gcm` (RFC 4106, AES-128 or AES-256 by the key's length,
//!   16-byte ICV) or `chacha20-poly1305` (RFC 7634). Linux's names
//!   `rfc4106(gcm(aes))` and `rfc7539esp(chacha20,poly1305)` are accepted too.
//! * `KEY`: the key material as `ip xfrm state ... aead NAME KEY 128` takes
//!   it: `0x` and hexadecimal digits (or Click's `\<...>` data), the cipher
//!   key followed by a 4-byte salt: 20 or 36 bytes for AES-GCM, 36 for
//!   ChaCha20-Poly1305.
//! * `WINDOW`: the inbound anti-replay window, 1 to 4096 sequence numbers
//!   (default 64, as RFC 4303 3.4.3 recommends).
//! * `SEQ`: the first outbound sequence number (default 1). Sequence
//!   numbers are 32 bits (no extended sequence numbers); an SA that has
//!   sent 2^32 - 1 packets sends no more (IPsecESPEncap counts them as
//!   `seq_overflow`): it must be replaced.
//!
//! Click's SATable is an internal table of RadixIPsecLookup with no
//! configuration; here it is the table, and IPsecESPEncap, IPsecESPUnencap
//! and RadixIPsecLookup use it (the only SATable of the configuration, or
//! the one their `SATABLE` keyword names). The SAs are shared between
//! threads: outbound sequence numbers are atomic counters and each inbound
//! window has its own lock.
//!
//! In a hot swap (`hotconfig`, `-R`), an SA that the new configuration
//! has with the same SPI, cipher and key keeps its outbound sequence
//! number, inbound window and counters: the far end sees no sequence number
//! twice and no replay gets in.
//!
//! ## Handlers
//!
//! * `table` (read): one line per SA: SPI, cipher, next outbound sequence
//!   number, window size and highest inbound sequence number accepted,
//!   packets and bytes sealed or opened, ICV failures, replay drops.
//! * `count` (read): the number of SAs.
//! * `add` (write): adds an SA (`SPI CIPHER KEY ...`); an error if the SPI
//!   is taken.
//! * `set` (write): adds or replaces an SA (a new SA starts a new window
//!   and sequence).
//! * `remove` (write): removes the SA with the SPI written.
//!
//! ## Examples
//!
//! ```text
//! sa :: SATable(0x1001 aes-gcm 0x0102030405060708090a0b0c0d0e0f1011121314,
//!               0x2001 aes-gcm 0x1112131415161718191a1b1c1d1e1f2021222324);
//! ```
//!
//! ## See also
//!
//! IPsecESPEncap, IPsecESPUnencap, RadixIPsecLookup, IPsecEncap

use std::fmt::Write;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef};

use crate::sa::{self, SaDb};

rclick_core::handlers! {
    /// SATable's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Count = read("count"),
        Add = write("add"),
        Set = write("set"),
        Remove = write("remove"),
    }
}

/// The SATable element.
#[derive(Default)]
pub struct SATable {
    db: Arc<SaDb>,
}

impl SATable {
    /// The shared database.
    pub fn db(&self) -> Arc<SaDb> {
        self.db.clone()
    }
}

/// The `table` handler's text.
pub fn dump(db: &SaDb) -> String {
    let mut s = String::new();
    for sa in db.all() {
        let c = &sa.counters;
        let (w, top) = sa.window();
        let _ = writeln!(
            s,
            "{:#010x} {} seq {} window {} top {} packets {} bytes {} auth_failures {} replay_drops {}",
            sa.spi,
            sa.cipher_name(),
            sa.next_seq(),
            w,
            top,
            c.packets.load(Ordering::Relaxed),
            c.bytes.load(Ordering::Relaxed),
            c.auth_failures.load(Ordering::Relaxed),
            c.replay_drops.load(Ordering::Relaxed),
        );
    }
    s
}

impl Element for SATable {
    fn class_name(&self) -> &'static str {
        "SATable"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut sas = Vec::new();
        let mut errors = Vec::new();
        for (i, a) in conf.iter().enumerate() {
            if a.trim().is_empty() {
                continue;
            }
            match sa::parse_sa(a) {
                Ok(s) => sas.push(s),
                Err(e) => errors.push(format!("argument {}: {e}", i + 1)),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        let db = SaDb::default();
        for s in sas {
            db.insert(s, false)?;
        }
        self.db = Arc::new(db);
        Ok(())
    }
    /// A hot swap: the SAs the new configuration shares with the old one
    /// (same SPI, cipher and key) keep their sequence numbers, windows and
    /// counters.
    fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
        if let Some(o) = old.downcast_ref::<SATable>() {
            self.db.take_over(&o.db);
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Table) => Ok(dump(&self.db)),
            Some(H::Count) => Ok(self.db.all().len().to_string()),
            _ => Err("no such handler".into()),
        }
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let v = rclick_core::confparse::uncomment(value);
        let v = v.trim();
        match H::from_id(id) {
            Some(H::Add | H::Set) => self.db.insert(sa::parse_sa(v)?, id == H::Set.id()),
            Some(H::Remove) => self.db.remove(sa::parse_spi(v)?),
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::registry;
    use rclick_core::testing;

    const K: &str = "0x0102030405060708090a0b0c0d0e0f1011121314";

    #[test]
    fn table_and_handlers() {
        let r = testing::build(
            &format!(
                "sa :: SATable(0x1001 aes-gcm {K}, 4098 chacha20-poly1305 0x{} WINDOW 128)",
                "ab".repeat(36)
            ),
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "sa.count"), "2");
        let t = testing::read(&r, "sa.table");
        assert!(
            t.contains("0x00001001 aes128-gcm seq 1 window 64 top 0 packets 0"),
            "{t}"
        );
        assert!(
            t.contains("0x00001002 chacha20-poly1305 seq 1 window 128"),
            "{t}"
        );
        r.write_handler("sa.add", &format!("0x3000 aes-gcm {K}"))
            .unwrap();
        assert!(r
            .write_handler("sa.add", &format!("0x3000 aes-gcm {K}"))
            .is_err());
        r.write_handler("sa.set", &format!("0x3000 aes-gcm {K} SEQ 5"))
            .unwrap();
        assert!(testing::read(&r, "sa.table").contains("0x00003000 aes128-gcm seq 5"));
        r.write_handler("sa.remove", "0x1001").unwrap();
        assert!(r.write_handler("sa.remove", "0x1001").is_err());
        assert!(r.write_handler("sa.add", "0x4000 des 0x00").is_err());
        assert_eq!(testing::read(&r, "sa.count"), "2");
    }

    #[test]
    fn configuration_errors() {
        for (conf, want) in [
            (
                format!("SATable(0x1001 aes-gcm {K}, 0x1001 aes-gcm {K})"),
                "already has an SA",
            ),
            (
                "SATable(0x1001 aes-gcm 0x01)".to_string(),
                "argument 1: AES-GCM key material",
            ),
            (
                format!("SATable(0x1001 aes-gcm {K}, 12 aes-gcm {K})"),
                "argument 2: SPI 12 is reserved",
            ),
        ] {
            match testing::build(&conf, &registry(), true) {
                Ok(_) => panic!("{conf}: accepted"),
                Err(e) => assert!(e.contains(want), "{conf}: {e}"),
            }
        }
    }
}
