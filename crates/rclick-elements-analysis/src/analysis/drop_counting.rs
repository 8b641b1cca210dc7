//! The classes here that only change each packet or drop it
//! (AggregateLength, EraseIPPayload, StoreTimestamp): each class's file
//! implements [`DropCounting`] (its configuration and its change);
//! [`DropCountingElement`] makes the element around it and counts the
//! drops, with core's [`drops::simple`] (the `drops` handler and the
//! drop-and-count tail, which the other classes here with only a `drops`
//! handler use directly).

use rclick_core::drops::simple::keep_or_count;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};

/// One class's own part: its name, configuration and change.
pub(crate) trait DropCounting: Default + Send + 'static {
    /// The class name.
    const CLASS: &'static str;

    /// Parses the configuration; must change nothing on error.
    fn configure(&mut self, conf: &[String]) -> Result<(), String>;

    /// Changes `p`; false when it cannot, and the element drops it.
    fn change(&mut self, p: &mut Packet) -> bool;
}

/// The element of a [`DropCounting`] class: one input, one output,
/// agnostic, Click's simple kind; counts what it drops.
#[derive(Default)]
pub(crate) struct DropCountingElement<C: DropCounting> {
    class: C,
    drops: u64,
}

impl<C: DropCounting> Element for DropCountingElement<C> {
    fn class_name(&self) -> &'static str {
        C::CLASS
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        self.class.configure(conf)
    }
    fn is_simple(&self) -> bool {
        true
    }
    #[inline]
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let ok = self.class.change(&mut p);
        keep_or_count(&mut self.drops, p, ok)
    }
    rclick_core::drops_handler!(drops);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps packets of even length, adding 1 to their first byte.
    #[derive(Default)]
    struct Even;

    impl DropCounting for Even {
        const CLASS: &'static str = "Even";
        fn configure(&mut self, _conf: &[String]) -> Result<(), String> {
            Ok(())
        }
        fn change(&mut self, p: &mut Packet) -> bool {
            p.data_mut()[0] += 1;
            p.len().is_multiple_of(2)
        }
    }

    #[test]
    fn changes_or_drops_and_counts() {
        let mut reg = rclick_core::Registry::new();
        rclick_elements_standard::register(&mut reg);
        reg.add("Even", || Box::<DropCountingElement<Even>>::default(), "");
        let r = rclick_core::testing::run(
            "InfiniteSource(DATA \\<0102>, LIMIT 3, STOP false) -> e :: Even -> Print(ok) -> Discard;
             InfiniteSource(DATA \\<010203>, LIMIT 2, STOP false) -> e;
             DriverManager(wait 0.2s);",
            &reg,
        )
        .unwrap();
        assert_eq!(rclick_core::testing::read(&r, "e.drops"), "2");
        assert_eq!(r.take_log(), ["ok:    2 | 0202"; 3]);
        let defs = DropCountingElement::<Even>::default().handlers();
        assert_eq!(defs, rclick_core::drops::simple::DropsOnly::all_defs());
    }
}
