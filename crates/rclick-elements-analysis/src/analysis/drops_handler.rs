//! The `drops` read handler, the only handler of the classes here that
//! drop what they cannot handle (AggregateLength, AggregateIP,
//! AggregateFilter, AnonymizeIPAddr, EraseIPPayload, StoreTimestamp). Each
//! class's file keeps its own count and says in its manual what it drops;
//! this holds the handler's definition and its read, once.

use rclick_core::HandlerDef;

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
