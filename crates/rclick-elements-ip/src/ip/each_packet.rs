//! What StripIPHeader, StripToNetworkHeader and UnstripIPHeader share (not
//! an element): one change to each packet, the same on push and on pull,
//! nothing dropped, no configuration, no handlers. Each class's file
//! implements [`EachPacket`] (its change); [`EachPacketElement`] makes the
//! element around it.

use std::marker::PhantomData;

use rclick_core::{Ctx, Element, Packet, PacketBatch};

/// One class's own part: its name and its change to a packet.
pub(crate) trait EachPacket: 'static {
    /// The class name.
    const CLASS: &'static str;

    /// Changes `p`.
    fn apply(p: &mut Packet);
}

/// The element of an [`EachPacket`] class: one input, one output, push or
/// pull.
pub struct EachPacketElement<C: EachPacket>(PhantomData<fn() -> C>);

impl<C: EachPacket> Default for EachPacketElement<C> {
    fn default() -> Self {
        EachPacketElement(PhantomData)
    }
}

impl<C: EachPacket> Element for EachPacketElement<C> {
    fn class_name(&self) -> &'static str {
        C::CLASS
    }
    #[inline]
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        batch.iter_mut().for_each(C::apply);
        cx.push(0, batch);
    }
    #[inline]
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        batch.iter_mut().for_each(C::apply);
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::testing;

    /// Adds 1 to each packet's first byte.
    struct Bump;

    impl EachPacket for Bump {
        const CLASS: &'static str = "Bump";
        fn apply(p: &mut Packet) {
            p.data_mut()[0] += 1;
        }
    }

    /// Every packet changed once, on push (two in a batch) and on pull;
    /// no arguments taken.
    #[test]
    fn changes_each_packet_on_push_and_pull() {
        let mut reg = crate::icmp::test_util::reg();
        reg.add("Bump", || Box::<EachPacketElement<Bump>>::default(), "");
        let r = testing::run(
            "InfiniteSource(DATA \\<01>, LIMIT 2, BURST 2, STOP false) -> Bump -> s :: TestSink;
             InfiniteSource(DATA \\<05>, LIMIT 1, STOP false) -> Queue -> Bump -> Unqueue
               -> t :: TestSink;
             DriverManager(wait 0.2s);",
            &reg,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.data"), "02\n02");
        assert_eq!(testing::read(&r, "t.data"), "06");
        assert!(testing::build("Idle -> Bump(1) -> Discard;", &reg, true).is_err());
    }
}
