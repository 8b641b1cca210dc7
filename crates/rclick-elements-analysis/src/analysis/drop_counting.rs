//! What the classes here that drop the packets they cannot handle share:
//! the `drops` read handler, their only one (AggregateIP, AggregateFilter
//! and AnonymizeIPAddr call [`handlers`] and [`read`]), and for the ones
//! that only change each packet or drop it (AggregateLength,
//! EraseIPPayload, StoreTimestamp) the [`DropCounting`] family: each
//! class's file implements it (its configuration and its change);
//! [`DropCountingElement`] makes the element around it and counts the
//! drops.

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

rclick_core::handlers! {
    /// `drops`, read-only.
    enum H {
        Drops = read("drops"),
    }
}

/// The definition of the `drops` handler, the class's only one.
pub(crate) fn handlers() -> Vec<HandlerDef> {
    H::all_defs()
}

/// The `drops` handler's read: `drops` in decimal (an unknown `id` is an
/// error, as for every class).
pub(crate) fn read(id: u32, drops: u64) -> Result<String, String> {
    match H::from_id(id) {
        Some(H::Drops) => Ok(drops.to_string()),
        None => Err("no such handler".into()),
    }
}

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
        if self.class.change(&mut p) {
            Some(p)
        } else {
            self.drops += 1;
            None
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        handlers()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        read(id, self.drops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::HandlerKind;

    #[test]
    fn one_read_handler_that_reads_the_count() {
        let defs = handlers();
        assert_eq!(defs.len(), 1);
        assert_eq!(defs[0].name, "drops");
        let HandlerKind::Element(id) = defs[0].kind else {
            panic!("{:?}", defs[0].kind);
        };
        assert_eq!(read(id, 42).unwrap(), "42");
        assert_eq!(read(id + 1, 42).unwrap_err(), "no such handler");
    }
}
