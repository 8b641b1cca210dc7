//! # Bypass
//!
//! `Bypass([ACTIVE, INLINE])`
//!
//! **Category:** classification. Sends packets through an optional side
//! path that can be switched on and off at run time.
//!
//! **Ports:** one or two inputs, one or two outputs; agnostic.
//!
//! ## Description
//!
//! Normally Bypass passes packets arriving on input 0 to output 0, like
//! Null. When ACTIVE is true, a push Bypass emits packets from input 0 on
//! output 1 instead, and a pull Bypass answers pulls on output 0 by pulling
//! from input 1. The optional second input (on a push Bypass) or output (on
//! a pull Bypass) joins the side path back to the main path: packets pushed
//! into input 1 leave on output 0, pulls on output 1 pull from input 0. So
//!
//! ```text
//! src -> b :: Bypass -> sink;
//! b[1] -> Print(Debug) -> [1]b;
//! ```
//!
//! behaves as `src -> sink` while `b.active` is false and as
//! `src -> Print(Debug) -> sink` while it is true, in push and pull
//! contexts alike.
//!
//! Click's Bypass rewires its neighbours' ports so that an inactive Bypass
//! costs nothing. rclick passes a whole batch through Bypass with one
//! branch, so Bypass always stays in the path; the packet flow, and hence
//! every output, is the same. Packets that come back into input 1 while
//! an active push Bypass is sending are forwarded at once, and pulls that
//! come back into output 1 while an active pull Bypass is pulling are
//! answered from input 0, so the side path behaves as if spliced in.
//!
//! Keywords:
//!
//! * `ACTIVE` (boolean): whether the side path is on. Default false.
//! * `INLINE` (boolean): in Click, keeps Bypass from rewiring its
//!   neighbours. Accepted for compatibility; it changes nothing here.
//!   Default false.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `active` (read/write): ACTIVE. Writing anything but a boolean fails
//!   with `syntax error`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> pb :: Bypass -> Queue -> ToDevice(eth1);
//! pb[1] -> Print(eth0) -> [1]pb;
//! ```
//!
//! ## See also
//!
//! Switch, PullSwitch, Null

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Active = read_write("active"),
    }
}

/// The Bypass element.
#[derive(Default)]
pub struct Bypass {
    active: bool,
    inline: bool,
}

impl Element for Bypass {
    fn class_name(&self) -> &'static str {
        "Bypass"
    }
    fn port_count(&self) -> &'static str {
        "1-2/1-2"
    }
    fn flow_code(&self) -> &'static str {
        "xy/[xy]x"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut active, mut inline) = (false, false);
        Args::new(conf)
            .read_p("ACTIVE", &mut active)
            .read("INLINE", &mut inline)
            .complete()
            .map_err(|e| e.to_string())?;
        self.active = active;
        self.inline = inline;
        Ok(())
    }

    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let out = usize::from(self.active && port == 0 && cx.noutputs() > 1);
        cx.push(out, batch);
        if out == 1 {
            // The side path usually comes straight back into input 1:
            // forward those packets now, in Click's nested order.
            for (p, b) in cx.take_reentrant_pushes() {
                self.push(p, b, cx);
            }
        }
    }

    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        if self.active && port == 0 && cx.ninputs() > 1 {
            // The side path usually pulls from our output 1 while we are
            // busy: answer those pulls from input 0.
            let fwd = if cx.noutputs() > 1 { 1 } else { usize::MAX };
            cx.pull_forwarding(1, max, fwd, 0)
        } else {
            cx.pull(0, max)
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Active) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.active.to_string())
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Active) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        let mut active = false;
        Args::new(&[value.trim()])
            .read_mp("ACTIVE", &mut active)
            .complete()
            .map_err(|_| "syntax error".to_string())?;
        self.active = active;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn push_path_switches_after_count_call() {
        let r = testing::run(
            "InfiniteSource(\\<11>, LIMIT 4, STOP true)
             -> Counter(COUNT_CALL 3 b.active true) -> b :: Bypass -> a :: Counter -> Discard;
             b[1] -> side :: Counter -> [1]b;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "4");
        assert_eq!(testing::read(&r, "side.count"), "2");
        assert_eq!(testing::read(&r, "b.active"), "true");
        assert!(r.write_handler("b.active", "maybe").is_err());
        assert_eq!(testing::read(&r, "b.active"), "true");
    }

    #[test]
    fn pull_path() {
        let r = testing::run(
            "InfiniteSource(\\<11>, LIMIT 4, STOP true) -> PullNull
             -> Counter(COUNT_CALL 3 b.active true) -> b :: Bypass -> a :: Counter -> Discard;
             b[1] -> side :: Counter -> [1]b;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "4");
        assert_eq!(testing::read(&r, "side.count"), "1");
    }

    #[test]
    fn single_port_and_bad_config() {
        let r = testing::run(
            "InfiniteSource(LIMIT 3, STOP true) -> b :: Bypass(true) -> a :: Counter -> Discard;",
            &test_registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "3");
        assert!(
            testing::run("Idle -> Bypass(ACTIVE maybe) -> Discard;", &test_registry()).is_err()
        );
    }
}
