//! # RandomSwitch
//!
//! `RandomSwitch`
//!
//! **Category:** classification. Sends packets to random outputs.
//!
//! **Ports:** one push input, one or more push outputs.
//!
//! ## Description
//!
//! Pushes each arriving packet to one of its N outputs, chosen uniformly at
//! random from the router's shared generator (Click's `click_random(0,
//! N-1)`, so after `RandomSeed` the choices are those Click makes). Takes
//! no arguments.
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
//! ... -> s :: RandomSwitch;
//! s[0] -> Queue -> ...; s[1] -> Queue -> ...;
//! ```
//!
//! ## See also
//!
//! Switch, StrideSwitch, RoundRobinSwitch, HashSwitch, RandomSample,
//! RandomSeed

use rclick_core::args::Args;
use rclick_core::{random, ConfigureCx, Ctx, Element, PacketBatch};

use super::paint_switch::push_each_by;

/// The RandomSwitch element.
#[derive(Default)]
pub struct RandomSwitch;

impl Element for RandomSwitch {
    fn class_name(&self) -> &'static str {
        "RandomSwitch"
    }
    fn port_count(&self) -> &'static str {
        "1/1-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf).complete().map_err(|e| e.to_string())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let hi = u32::try_from(cx.noutputs().saturating_sub(1)).unwrap_or(u32::MAX);
        push_each_by(batch, cx, || random::random_range(0, hi) as usize);
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::random::test_lock as random_lock;
    use rclick_core::testing;

    #[test]
    fn same_choices_as_click_after_random_seed() {
        let _g = random_lock();
        let r = testing::run(
            "RandomSeed(1); InfiniteSource(LIMIT 10, STOP true) -> r :: RandomSwitch;
             r[0] -> Print(a, 0) -> Discard; r[1] -> Print(b, 0) -> Discard;
             r[2] -> Print(c, 0) -> Discard;",
            &registry(),
        )
        .unwrap();
        let got: Vec<String> = r.take_log().iter().map(|l| l[..1].to_string()).collect();
        // The reference Click's choices for seed 1.
        assert_eq!(got.join(" "), "c b c c c a b c a b");
    }

    #[test]
    fn one_draw_per_packet_in_bursts() {
        let _g = random_lock();
        // The reference Click's counts for seed 9, 40 packets in bursts of 4.
        let r = testing::run(
            "RandomSeed(9); InfiniteSource(LIMIT 40, BURST 4, STOP true) -> r :: RandomSwitch;
             r[0] -> a :: Counter -> Discard; r[1] -> b :: Counter -> Discard;
             r[2] -> c :: Counter -> Discard; r[3] -> d :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        let counts: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|c| testing::read(&r, &format!("{c}.count")))
            .collect();
        assert_eq!(counts, ["11", "9", "10", "10"]);
    }

    #[test]
    fn one_output_and_arguments() {
        let r = testing::run(
            "InfiniteSource(LIMIT 5, BURST 2, STOP true) -> RandomSwitch -> c :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "c.count"), "5");
        let e = testing::build("Idle -> RandomSwitch(1) -> Discard;", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("too many arguments"), "{e}");
    }
}
