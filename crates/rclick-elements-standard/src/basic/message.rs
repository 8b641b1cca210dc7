//! # Message
//!
//! `Message(MESSAGE [, TYPE])`
//!
//! **Category:** basic. Prints a message when configured.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Prints MESSAGE to standard error when the router is configured, under a
//! `FILE:LINE: While configuring 'NAME :: Message':` line, as Click reports
//! messages about configuration. TYPE says how:
//!
//! * `MESSAGE` (the default): print MESSAGE as it is.
//! * `WARNING`: print it as a warning (`warning: MESSAGE`). The reference
//!   Click then fails the configuration with `unspecified error` (its
//!   warning call's return value is taken for an error); that is a Click
//!   bug, not kept here: a warning does not stop the router.
//! * `ERROR`: report it as an error, so configuration fails with MESSAGE.
//!
//! Keywords: `MESSAGE` (string, mandatory), `TYPE` (keyword, default
//! `MESSAGE`).
//!
//! ## Examples
//!
//! ```text
//! Message("this configuration is deprecated", WARNING);
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## See also
//!
//! Script

use rclick_core::args::{Args, Keyword};
use rclick_core::Element;

/// The Message element.
#[derive(Default)]
pub struct Message;

impl Element for Message {
    fn class_name(&self) -> &'static str {
        "Message"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(
        &mut self,
        conf: &[String],
        cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut message = String::new();
        let mut kind = Keyword("MESSAGE".into());
        Args::new(conf)
            .read_mp("MESSAGE", &mut message)
            .read_p("TYPE", &mut kind)
            .complete()
            .map_err(|e| e.to_string())?;
        let text = match kind.0.as_str() {
            "MESSAGE" => message,
            "WARNING" => format!("warning: {message}"),
            "ERROR" => return Err(message),
            _ => return Err("unrecognized message type".into()),
        };
        // Printed with the configuration context, as Click's error handler
        // does for every message reported while configuring.
        let info = cx.element_info(cx.id());
        let mut out = format!(
            "{}: While configuring '{}':",
            info.landmark,
            info.declaration()
        );
        for line in text.lines() {
            out.push_str("\n  ");
            out.push_str(line);
        }
        eprintln!("{out}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn error_fails_configuration() {
        let e = testing::build("Message(\"no way\", ERROR)", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("no way"), "{e}");
        assert!(testing::build("Message(\"fine\", WARNING)", &registry(), true).is_ok());
        let e = testing::build("Message(x, BOGUS)", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("unrecognized message type"), "{e}");
    }
}
