//! The IPsec element group (Click's `elements/ipsec`): ESP (RFC 4303) in
//! tunnel mode with AEAD ciphers, a security association table keyed by
//! SPI, anti-replay windows, and the route table that sends traffic into
//! tunnels.
//!
//! * [`sa`] — security associations, the SA database, the replay window,
//!   and the sealing and opening of one ESP packet (the ciphers are
//!   RustCrypto's `aes-gcm` and `chacha20poly1305`).
//! * `SATable` holds the SAs; `IPsecESPEncap` and `IPsecESPUnencap` seal and
//!   open packets with them; `IPsecEncap` adds the outer IP header;
//!   `RadixIPsecLookup` routes, marking packets for tunnels with their SPI
//!   and checking that ESP packets for the router have a known SPI.
//!
//! Elements never hold references to each other: the SA database is an
//! `Arc` that SATable makes and the others take from it when they are
//! initialized (the way IPRewriter's helpers share its flow table).
#![forbid(unsafe_code)]

pub mod esp_encap;
pub mod esp_unencap;
pub mod ipsec_encap;
pub mod radix_ipsec_lookup;
pub mod sa;
pub mod sa_table;

use std::sync::Arc;

use rclick_core::drops::{DropReason, Drops};
use rclick_core::router::InitCx;
use rclick_core::{Ctx, HandlerDef, Packet, PacketBatch, Registry};

/// Byte offset in the user annotation area of the SPI annotation (Click's
/// `IPSEC_SPI_ANNO`, at Click's offset): RadixIPsecLookup sets it for
/// packets it sends into a tunnel, IPsecESPEncap reads it.
pub const SPI_ANNO: usize = 32;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    r.add(
        "SATable",
        || Box::<sa_table::SATable>::default(),
        include_str!("sa_table.rs"),
    );
    r.add(
        "IPsecESPEncap",
        || Box::<esp_encap::IPsecESPEncap>::default(),
        include_str!("esp_encap.rs"),
    );
    r.add(
        "IPsecESPUnencap",
        || Box::<esp_unencap::IPsecESPUnencap>::default(),
        include_str!("esp_unencap.rs"),
    );
    r.add(
        "IPsecEncap",
        || Box::<ipsec_encap::IPsecEncap>::default(),
        include_str!("ipsec_encap.rs"),
    );
    r.add(
        "RadixIPsecLookup",
        || Box::<radix_ipsec_lookup::RadixIPsecLookup>::default(),
        include_str!("radix_ipsec_lookup.rs"),
    );
}

/// The SA database of the SATable named `name`, or of the router's only
/// SATable when `name` is empty.
pub(crate) fn find_table(name: &str, cx: &mut InitCx) -> Result<Arc<sa::SaDb>, String> {
    let get = |cx: &mut InitCx, e| {
        cx.with_element(e, |el| {
            el.downcast_ref::<sa_table::SATable>().map(|t| t.db())
        })
        .flatten()
    };
    if !name.is_empty() {
        let e = cx
            .find(name)
            .ok_or_else(|| format!("no element named '{name}'"))?;
        return get(cx, e).ok_or_else(|| format!("'{name}' is not an SATable"));
    }
    let mut found = Vec::new();
    for e in 0..cx.nelements() {
        if let Some(db) = get(cx, e) {
            found.push(db);
        }
    }
    match found.len() {
        1 => Ok(found.pop().unwrap_or_default()),
        0 => Err("no SATable in the configuration".into()),
        n => Err(format!("{n} SATables: say which with SATABLE")),
    }
}

/// Counts a drop for `reason`, logging the first of each reason as
/// `NAME: dropped a packet: REASON`.
pub(crate) fn count_drop<R: DropReason>(drops: &mut Drops<R>, reason: R, cx: &Ctx) {
    if drops.count(reason, 1) {
        cx.log(format!(
            "{}: dropped a packet: {}",
            cx.name(),
            reason.text()
        ));
    }
}

rclick_core::handlers! {
    /// The handlers of IPsecESPEncap and IPsecESPUnencap.
    pub(crate) enum StepperH {
        Count = read("count"),
        Drops = read("drops"),
        DropDetails = read("drop_details"),
    }
}

/// What IPsecESPEncap and IPsecESPUnencap share: a per-packet step that
/// either changes the packet or names a drop reason, the count of packets
/// that passed, and the drops. Good packets leave on output 0, the others
/// on output 1 when it is connected.
pub(crate) struct Stepper<R: DropReason> {
    count: u64,
    drops: Drops<R>,
}

impl<R: DropReason> Default for Stepper<R> {
    fn default() -> Self {
        Stepper {
            count: 0,
            drops: Drops::default(),
        }
    }
}

impl<R: DropReason> Stepper<R> {
    /// Runs `step` on each packet; returns the refused ones.
    fn run(
        &mut self,
        batch: &mut PacketBatch,
        cx: &mut Ctx,
        mut step: impl FnMut(&mut Packet) -> Result<(), R>,
    ) -> PacketBatch {
        let mut reasons = Vec::new();
        let bad = batch.divert(|p| match step(p) {
            Ok(()) => true,
            Err(r) => {
                reasons.push(r);
                false
            }
        });
        for r in reasons {
            count_drop(&mut self.drops, r, cx);
        }
        self.count += batch.len() as u64;
        bad
    }

    /// The element's push: runs `step` on each packet of `batch`, pushes
    /// the good packets to output 0 and the refused ones to 1.
    pub fn push(
        &mut self,
        mut batch: PacketBatch,
        cx: &mut Ctx,
        step: impl FnMut(&mut Packet) -> Result<(), R>,
    ) {
        let bad = self.run(&mut batch, cx, step);
        if !batch.is_empty() {
            cx.push(0, batch);
        }
        if !bad.is_empty() {
            cx.checked_push(1, bad);
        }
    }

    /// The element's pull: pulls up to `max` packets from input 0, runs
    /// `step` on each, pushes the refused ones to output 1 and returns the
    /// good ones.
    pub fn pull(
        &mut self,
        max: usize,
        cx: &mut Ctx,
        step: impl FnMut(&mut Packet) -> Result<(), R>,
    ) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        let bad = self.run(&mut batch, cx, step);
        if !bad.is_empty() {
            cx.checked_push(1, bad);
        }
        batch
    }

    pub fn handlers() -> Vec<HandlerDef> {
        StepperH::all_defs()
    }

    pub fn read(&self, id: u32) -> Result<String, String> {
        match StepperH::from_id(id) {
            Some(StepperH::Count) => Ok(self.count.to_string()),
            Some(StepperH::Drops) => Ok(self.drops.total().to_string()),
            Some(StepperH::DropDetails) => Ok(self.drops.details()),
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use rclick_core::Registry;

    /// A registry with this group's classes, the standard ones and the IP
    /// group's.
    pub fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        rclick_elements_ip::register(&mut r);
        crate::register(&mut r);
        r
    }

    /// An IPv4 packet from `src` to `dst`, UDP, with `n` payload bytes and
    /// a correct header checksum, as Click data (`\<...>`).
    pub fn ip_hex(src: [u8; 4], dst: [u8; 4], n: usize) -> String {
        let mut v = vec![0u8; 28 + n];
        let total = v.len() as u16;
        v[0] = 0x45;
        v[2..4].copy_from_slice(&total.to_be_bytes());
        v[8] = 64;
        v[9] = 17;
        v[12..16].copy_from_slice(&src);
        v[16..20].copy_from_slice(&dst);
        let mut sum = 0u32;
        for i in (0..20).step_by(2) {
            sum += u32::from(u16::from_be_bytes([v[i], v[i + 1]]));
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        v[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        v[20..22].copy_from_slice(&1234u16.to_be_bytes());
        v[22..24].copy_from_slice(&5678u16.to_be_bytes());
        v[24..26].copy_from_slice(&(8 + n as u16).to_be_bytes());
        for (i, b) in v[28..].iter_mut().enumerate() {
            *b = i as u8;
        }
        let hex: String = v.iter().map(|b| format!("{b:02x}")).collect();
        format!("\\<{hex}>")
    }
}

#[cfg(test)]
mod stepper_tests {
    use super::test_util::{ip_hex, registry};
    use rclick_core::testing;

    /// Pulled packets take the same step as pushed ones: the sealed ones
    /// are returned, the refused ones pushed to output 1.
    #[test]
    fn pulled_packets_are_stepped_and_refused_ones_pushed_out() {
        let k = "0x0102030405060708090a0b0c0d0e0f1011121314";
        let data = ip_hex([198, 51, 100, 2], [203, 0, 113, 5], 4);
        let conf = format!(
            "SATable(0x1001 aes-gcm {k});
             InfiniteSource(DATA {data}, LIMIT 3) -> q :: Queue;
             InfiniteSource(DATA \\<0102>, LIMIT 2) -> q;
             q -> e :: IPsecESPEncap(SPI 0x1001) -> Unqueue -> ok :: Counter -> Discard;
             e[1] -> bad :: Counter -> Discard;
             DriverManager(wait 10ms, stop);"
        );
        let r = testing::run(&conf, &registry()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(testing::read(&r, "ok.count"), "3");
        assert_eq!(testing::read(&r, "bad.count"), "2");
        assert_eq!(testing::read(&r, "e.count"), "3");
        assert_eq!(testing::read(&r, "e.drops"), "2");
    }
}

#[cfg(test)]
mod robustness {
    use rclick_core::testing;

    /// Garbage, truncated and mutated ESP packets of every length through
    /// each element: nothing may panic, and every packet comes out of one
    /// of the two outputs or is counted as dropped.
    #[test]
    fn garbage_never_panics() {
        let k = "0x0102030405060708090a0b0c0d0e0f1011121314";
        let mut seeds: Vec<Vec<u8>> = Vec::new();
        let base = {
            let sa = crate::sa::parse_sa(&format!("0x1001 aes-gcm {k}")).unwrap();
            let mut v = vec![0x45u8, 0, 0, 60];
            v.resize(60, 7);
            let mut p = rclick_core::Packet::from_slice(&v);
            sa.seal(&mut p, 4).unwrap();
            p.data().to_vec()
        };
        for n in 0..base.len() {
            seeds.push(base[..n].to_vec());
        }
        for at in 0..base.len() {
            let mut v = base.clone();
            v[at] ^= 0xff;
            seeds.push(v);
        }
        seeds.push(vec![0x45; 100]);
        seeds.push(vec![0x60; 100]);
        let elems = [
            "IPsecESPUnencap",
            "IPsecESPEncap(SPI 0x1001)",
            "IPsecEncap(50)",
            "RadixIPsecLookup(0.0.0.0/0 0, 1.0.0.0/8 1.1.1.1 1 0x1001)",
        ];
        for e in elems {
            let mut conf = format!(
                "SATable(0x1001 aes-gcm {k} WINDOW 4096); x :: {e}; x[0] -> a :: Counter -> Discard;"
            );
            if !e.starts_with("IPsecEncap") {
                conf.push_str("x[1] -> b :: Counter -> Discard;");
            }
            for (i, s) in seeds.iter().enumerate() {
                let hex: String = s.iter().map(|b| format!("{b:02x}")).collect();
                let mark = if i % 2 == 0 { "MarkIPHeader" } else { "Null" };
                let stop = if i + 1 == seeds.len() {
                    ", STOP true"
                } else {
                    ""
                };
                conf.push_str(&format!(
                    "InfiniteSource(DATA \\<{hex}>, LIMIT 2{stop}) -> {mark} -> x;\n"
                ));
            }
            let r = testing::run(&conf, &crate::test_util::registry())
                .unwrap_or_else(|err| panic!("{e}: {err}"));
            if !e.starts_with("IPsecEncap") && !e.starts_with("Radix") {
                let a: u64 = testing::read(&r, "a.count").parse().unwrap();
                let b: u64 = testing::read(&r, "b.count").parse().unwrap();
                let d: u64 = testing::read(&r, "x.drops").parse().unwrap();
                assert_eq!(a + b, 2 * seeds.len() as u64, "{e}");
                assert_eq!(b, d, "{e}");
            }
        }
    }
}
