//! # Resize
//!
//! `Resize([HEAD, TAIL])`
//!
//! **Category:** basic modification. Adjusts packet length at either end.
//!
//! **Ports:** one input, one output; agnostic.
//!
//! ## Description
//!
//! Adds HEAD bytes in front of each packet and TAIL bytes at its end; a
//! negative number removes that many bytes instead (never more than the
//! packet has). As in Click, bytes added in front are not initialized:
//! they show whatever the headroom held (bytes an earlier element removed,
//! for instance); bytes added at the end, and bytes of a reallocated
//! buffer, are zero. The packet is copied only when the bytes do not fit
//! in its headroom or tailroom, or (for tail bytes) when its data is
//! shared.
//!
//! Keywords:
//!
//! * `HEAD` (integer): bytes to add (negative: remove) at the front.
//!   Default 0.
//! * `TAIL` (integer): bytes to add (negative: remove) at the end.
//!   Default 0.
//!
//! A packet that would grow past the maximum buffer size is dropped.
//!
//! ## Annotations
//!
//! None used or set; header offsets keep pointing at the same bytes.
//!
//! ## Handlers
//!
//! * `head` (read/write): HEAD.
//! * `tail` (read/write): TAIL.
//!
//! ## Examples
//!
//! ```text
//! ... -> Resize(HEAD -14) -> ...     // like Strip(14)
//! ... -> Resize(TAIL 4) -> ...       // room for a trailer
//! ```
//!
//! ## See also
//!
//! Strip, Unstrip, Truncate, Pad

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Head = read_write("head"),
        Tail = read_write("tail"),
    }
}

/// The Resize element.
#[derive(Default)]
pub struct Resize {
    head: i32,
    tail: i32,
}

impl Element for Resize {
    fn class_name(&self) -> &'static str {
        "Resize"
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut head, mut tail) = (0i32, 0i32);
        Args::new(conf)
            .read_p("HEAD", &mut head)
            .read_p("TAIL", &mut tail)
            .complete()
            .map_err(|e| e.to_string())?;
        self.head = head;
        self.tail = tail;
        Ok(())
    }

    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        if self.head > 0 {
            p.push_keep(self.head as usize).ok()?;
        } else if self.head < 0 {
            p.pull(self.head.unsigned_abs() as usize);
        }
        if self.tail > 0 {
            p.put(self.tail as usize).ok()?;
        } else if self.tail < 0 {
            p.take(self.tail.unsigned_abs() as usize);
        }
        Some(p)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Head) => Ok(self.head.to_string()),
            Some(H::Tail) => Ok(self.tail.to_string()),
            None => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let (kw, slot) = match H::from_id(id) {
            Some(H::Head) => ("HEAD", &mut self.head),
            Some(H::Tail) => ("TAIL", &mut self.tail),
            None => return Err("no such handler".into()),
        };
        let mut v: i32 = 0;
        Args::new(&[value.trim()])
            .read_mp(kw, &mut v)
            .complete()
            .map_err(|e| e.to_string())?;
        *slot = v;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn grows_and_shrinks() {
        let r = testing::run(
            "InfiniteSource(DATA \"ABCD\", LIMIT 1, STOP true)
             -> Resize(HEAD -2) -> Print(a)
             -> r :: Resize(+4, -2) -> Print(b)
             -> Resize(HEAD -8) -> Print(c) -> Discard;",
            &test_registry(),
        )
        .unwrap();
        let log = r.take_log();
        assert_eq!(log[0], "a:    2 | 4344");
        // the front bytes are the headroom's: "AB" was pulled off before
        assert!(
            log[1].starts_with("b:    4 | ") && log[1].ends_with("4142"),
            "{}",
            log[1]
        );
        assert_eq!(log[2], "c:    0");
        assert_eq!(testing::read(&r, "r.head"), "4");
        assert_eq!(testing::read(&r, "r.tail"), "-2");
        r.write_handler("r.tail", "3").unwrap();
        assert_eq!(testing::read(&r, "r.tail"), "3");
        assert!(r.write_handler("r.tail", "x").is_err());
    }
}
