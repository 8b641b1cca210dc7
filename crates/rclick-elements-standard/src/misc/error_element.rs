//! # Error
//!
//! `Error(...)`
//!
//! **Category:** basic. Always fails to initialize.
//!
//! **Ports:** any number of inputs and outputs, agnostic; no packet
//! flows from an input to an output.
//!
//! ## Description
//!
//! Accepts any configuration and any connections, then fails during
//! initialization, so a router containing it never runs. Click's tools
//! put it where an element could not be made (click-xform, click-undead
//! replacing an unknown class), so that such a configuration can still be
//! parsed and written out but not run.
//!
//! Click fails without a message of its own (only `Router could not be
//! initialized!`); here the failure is reported under the element's
//! context as `unspecified error`, since every failure names its element.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> Error;
//! ```
//!
//! ## See also
//!
//! Idle, Message

use rclick_core::{ConfigureCx, Element, InitCx};

/// The Error element (Click's `ErrorElement`).
#[derive(Default)]
pub struct ErrorElement;

impl Element for ErrorElement {
    fn class_name(&self) -> &'static str {
        "Error"
    }
    fn port_count(&self) -> &'static str {
        "-/-"
    }
    fn flow_code(&self) -> &'static str {
        "x/y"
    }
    fn configure(&mut self, _conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Ok(())
    }
    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        Err(String::new())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn never_initializes() {
        for conf in [
            "x :: Error;",
            "x :: Error(hello, 1, 2);",
            "Idle -> x :: Error -> Discard; Idle -> [1] x [1] -> Discard;",
            "InfiniteSource -> Queue -> x :: Error -> Discard;",
        ] {
            let e = testing::build(conf, &test_registry(), true).err().unwrap();
            assert!(e.contains("While initializing 'x :: Error'"), "{conf}: {e}");
        }
    }
}
