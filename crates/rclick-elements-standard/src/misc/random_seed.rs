//! # RandomSeed
//!
//! `RandomSeed([SEED])`
//!
//! **Category:** information. Seeds the random number generator.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Seeds the router's shared pseudo-random generator (the one elements
//! such as RandomSample and RandomSwitch draw from) with SEED, so that a
//! run can be repeated. Without SEED, seeds it from the clock and process
//! id. RandomSeed configures before other elements.
//!
//! Keywords:
//!
//! * `SEED` (unsigned 32-bit integer): the seed. Default: truly random.
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! * `seed` (read/write): the SEED argument as given (empty when none).
//!   Writing reseeds the generator.
//!
//! ## Examples
//!
//! ```text
//! RandomSeed(1);
//! InfiniteSource -> RandomSample(0.5) -> Counter -> Discard;
//! ```
//!
//! ## See also
//!
//! RandomSample, RandomSwitch, RandomSource

use rclick_core::args::Args;
use rclick_core::{phase, random, ConfigureCx, Element, HandlerDef};

rclick_core::handlers! {
    /// RandomSeed's handler: `seed`, read as the configuration's text.
    enum H {
        Seed = reconfigure_config("seed", "SEED").positional(0),
    }
}

/// The RandomSeed element.
#[derive(Default)]
pub struct RandomSeed;

impl Element for RandomSeed {
    fn class_name(&self) -> &'static str {
        "RandomSeed"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::FIRST
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut seed: u32 = 0;
        let mut given = false;
        Args::new(conf)
            .read_p("SEED", &mut seed)
            .read_status(&mut given)
            .complete()
            .map_err(|e| e.to_string())?;
        if given {
            random::srandom(seed);
        } else {
            random::srandom_from_entropy();
        }
        Ok(())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn seeds_and_reseeds() {
        // Seeding is process-wide: keep other tests' draws out of the way.
        let _g = rclick_core::random::test_lock();
        let r = testing::build("s :: RandomSeed(5);", &test_registry(), true).unwrap();
        assert_eq!(testing::read(&r, "s.seed"), "5");
        r.write_handler("s.seed", "17").unwrap();
        assert_eq!(testing::read(&r, "s.seed"), "17");
        assert!(r.write_handler("s.seed", "-3").is_err());
        assert_eq!(testing::read(&r, "s.seed"), "17");
        assert!(testing::build("RandomSeed(x);", &test_registry(), true).is_err());
        assert!(testing::build("RandomSeed;", &test_registry(), true).is_ok());
    }
}
