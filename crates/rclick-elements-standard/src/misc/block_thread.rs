//! # BlockThread
//!
//! `BlockThread()`
//!
//! **Category:** control (test). Offers a handler that blocks the calling
//! thread.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Writing BlockThread's `block` handler stalls the thread that makes the
//! write (a Script's `write`, a ControlSocket client, a task) for the
//! given time: nothing else runs on that thread meanwhile. It exists to
//! test how the rest of the router (other threads, signal delivery,
//! timers) copes with a thread that is stuck. Useful only at user level.
//!
//! BlockThread takes no configuration arguments.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `block` (write-only, private): write a time in seconds (`0.01`,
//!   `10ms`, ...); the writing thread sleeps that long. A value that is
//!   not a time is an error (`bad TIME`).
//!
//! ## Examples
//!
//! ```text
//! bt :: BlockThread;
//! Script(TYPE SIGNAL USR1, write bt.block 0.5s, end);
//! ```
//!
//! ## See also
//!
//! Script, StaticThreadSched

use std::time::Duration;

use rclick_core::args::{parse_interval, Args};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        /// Private: not in the `handlers` listing.
        Block = write("block"),
    }
}

/// The BlockThread element.
#[derive(Default)]
pub struct BlockThread;

impl Element for BlockThread {
    fn class_name(&self) -> &'static str {
        "BlockThread"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs().into_iter().map(HandlerDef::private).collect()
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Block) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        let t = parse_interval(value.trim()).map_err(|_| "bad TIME".to_string())?;
        if t.0 > 0 {
            std::thread::sleep(Duration::from_nanos(t.0 as u64));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;
    use std::time::Instant;

    #[test]
    fn blocks_for_the_time_written() {
        let r = testing::build("bt :: BlockThread;", &test_registry(), false).unwrap();
        let start = Instant::now();
        r.write_handler("bt.block", "0.02s").unwrap();
        assert!(start.elapsed().as_millis() >= 20);
        r.write_handler("bt.block", "0").unwrap();
        assert!(r.write_handler("bt.block", "soon").is_err());
        assert!(r.read_handler("bt.block", "").is_err());
        assert!(testing::build("BlockThread(1);", &test_registry(), false).is_err());
    }
}
