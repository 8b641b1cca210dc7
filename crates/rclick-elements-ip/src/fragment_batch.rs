//! What IPFragmenter and IP6Fragmenter share (not an element): taking a
//! batch apart around the packets too long for the MTU, and the two
//! counters with their handlers. Each class keeps its own fragmenting (its
//! `fragment`) and what it does with the packets it refuses.

use rclick_core::{Ctx, HandlerDef, Packet, PacketBatch};

rclick_core::handlers! {
    /// The fragmenters' handlers (their manuals' lists).
    enum FragH {
        Drops = read("drops"),
        Fragments = read("fragments"),
    }
}

/// A fragmenter's counters: packets dropped or refused, fragments made.
#[derive(Default)]
pub(crate) struct FragmentCounts {
    pub(crate) drops: u64,
    pub(crate) fragments: u64,
}

impl FragmentCounts {
    /// The handler table.
    pub(crate) fn handlers() -> Vec<HandlerDef> {
        FragH::all_defs()
    }

    /// Reads handler `id`.
    pub(crate) fn read(&self, id: u32) -> Result<String, String> {
        match FragH::from_id(id) {
            Some(FragH::Drops) => Ok(self.drops.to_string()),
            Some(FragH::Fragments) => Ok(self.fragments.to_string()),
            None => Err("no such handler".into()),
        }
    }
}

/// A fragmenter's push of `batch` for MTU `mtu`. A batch whose packets all
/// fit (or have no network header) goes on whole on output 0. Otherwise
/// each packet that fits is kept, and each that does not goes through
/// `fragment`, which appends its fragments to the kept ones (order stays
/// the packets' order) or gives the packet back; the kept packets and
/// fragments go on output 0, and the packets given back are returned (in
/// order, `None` if there are none) for the class to send on as it does.
#[inline]
pub(crate) fn fragment_batch(
    batch: PacketBatch,
    mtu: usize,
    cx: &mut Ctx,
    mut fragment: impl FnMut(Packet, &mut PacketBatch, &mut Ctx) -> Result<(), Packet>,
) -> Option<PacketBatch> {
    let fits = |p: &Packet| p.network_length().is_none_or(|l| l <= mtu);
    if batch.iter().all(fits) {
        // Nothing to fragment: the batch goes on as it is.
        cx.push(0, batch);
        return None;
    }
    let mut out = PacketBatch::with_capacity(batch.len());
    let mut bad = PacketBatch::new();
    for p in batch {
        if fits(&p) {
            out.push(p);
        } else if let Err(p) = fragment(p, &mut out, cx) {
            bad.push(p);
        }
    }
    if !out.is_empty() {
        cx.push(0, out);
    }
    (!bad.is_empty()).then_some(bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::icmp::test_util::{hex_data, reg};
    use rclick_core::{testing, Element};

    /// MTU 4 after a 4-byte network header mark: cuts a longer packet into
    /// 4-byte pieces, refusing one whose second byte is 0xff; output 1 gets
    /// the refusals.
    #[derive(Default)]
    struct Chop;

    fn chop(p: Packet, out: &mut PacketBatch, _cx: &mut Ctx) -> Result<(), Packet> {
        if p.data()[1] == 0xff {
            return Err(p);
        }
        for piece in p.data().chunks(4) {
            out.push(Packet::from_slice(piece));
        }
        Ok(())
    }

    impl Element for Chop {
        fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
            if let Some(bad) = fragment_batch(batch, 4, cx, chop) {
                cx.push(1, bad);
            }
        }
        fn port_count(&self) -> &'static str {
            "1/2"
        }
        fn class_name(&self) -> &'static str {
            "Chop"
        }
    }

    /// Runs `conf` with Chop and the icmp module's test classes.
    fn run(conf: &str) -> rclick_core::Router {
        let mut r = reg();
        r.add("Chop", || Box::<Chop>::default(), "");
        testing::run(conf, &r).unwrap()
    }

    /// In one batch: a packet that fits, one cut in three, one refused,
    /// another that fits; the pieces keep the packets' order.
    #[test]
    fn cuts_refuses_and_keeps_order() {
        let mut sources = String::new();
        for data in [
            &[0x41u8, 1][..],
            &[0x41, 2, 3, 4, 5, 6, 7, 8, 9],
            &[0x41, 0xff, 0, 0, 0],
            &[0x41, 3],
        ] {
            sources.push_str(&format!(
                "InfiniteSource(DATA {}, LIMIT 1, STOP false) -> q;\n",
                hex_data(data)
            ));
        }
        let r = run(&format!(
            "q :: Queue; {sources}
             q -> Unqueue(BURST 8) -> TestMarkIP -> c :: Chop -> s :: TestSink;
             c[1] -> bad :: TestSink;
             DriverManager(wait 0.2s);"
        ));
        let read = |h| testing::read(&r, h);
        assert_eq!(read("s.data"), "4101\n41020304\n05060708\n09\n4103");
        assert_eq!(read("bad.data"), "41ff000000");
    }

    /// Each handler reads its counter.
    #[test]
    fn counts_read_by_handler() {
        let c = FragmentCounts {
            drops: 2,
            fragments: 7,
        };
        let names: Vec<_> = FragmentCounts::handlers()
            .into_iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, ["drops", "fragments"]);
        assert_eq!(c.read(FragH::Drops.id()).unwrap(), "2");
        assert_eq!(c.read(FragH::Fragments.id()).unwrap(), "7");
        assert!(c.read(2).is_err());
    }

    /// A batch that all fits goes on as it is, without `fragment`.
    #[test]
    fn a_batch_that_fits_goes_on_whole() {
        let r = run(
            "InfiniteSource(DATA \\<41ff>, LIMIT 3, BURST 3, STOP true) -> TestMarkIP
               -> c :: Chop -> s :: TestSink; c[1] -> bad :: TestSink;",
        );
        assert_eq!(testing::read(&r, "s.data"), "41ff\n41ff\n41ff");
        assert_eq!(testing::read(&r, "bad.data"), "");
    }
}
