//! # MarkIPCE
//!
//! `MarkIPCE([FORCE])`
//!
//! **Category:** ip. Sets the IP ECN field to Congestion Experienced.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Marks ECN-capable IP packets (ECN field ECT(0) or ECT(1)) as
//! Congestion Experienced, updating the header checksum incrementally;
//! packets already marked CE pass unchanged. Packets that are not
//! ECN-capable are dropped (RED-style early drop), unless FORCE is true,
//! in which case they are marked CE too. Needs the IP header annotation;
//! packets without it pass unchanged.
//!
//! Keywords: `FORCE` (boolean, default false).
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped for not being ECN-capable.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader -> MarkIPCE -> ...
//! ```
//!
//! ## See also
//!
//! RED, SetIPDSCP

use rclick_core::args::Args;
use rclick_core::{Ctx, PacketBatch};

use super::fix_in_place::{retain_counting, FixElement, FixInPlace};
use super::set_ip_dscp::update_tos;

/// The MarkIPCE element: [`MarkIPCEClass`] in a [`FixElement`] (push and
/// pull, the `drops` handler).
pub(crate) type MarkIPCE = FixElement<MarkIPCEClass>;

/// MarkIPCE's own part: its FORCE keyword.
#[derive(Default)]
pub(crate) struct MarkIPCEClass {
    force: bool,
}

impl FixInPlace for MarkIPCEClass {
    const CLASS: &'static str = "MarkIPCE";

    fn configure(&mut self, conf: &[String]) -> Result<(), String> {
        let mut force = false;
        Args::new(conf)
            .read_p("FORCE", &mut force)
            .complete()
            .map_err(|e| e.to_string())?;
        self.force = force;
        Ok(())
    }

    /// Sets CE on ECN-capable packets (all with FORCE), dropping the
    /// others without a log line; passes packets without an IP header.
    #[inline]
    fn fix(&mut self, batch: &mut PacketBatch, drops: &mut u64, _cx: &Ctx) {
        let force = self.force;
        retain_counting(batch, drops, |p| {
            let Some(h) = p.ip_header() else { return true };
            if h.len() < 20 {
                return true;
            }
            if h[1] & 3 == 0 && !force {
                return false;
            }
            update_tos(p, |t| t | 3);
            true
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn marks_ce() {
        // TOS 0 (not ECT) and TOS 1 (ECT(1)).
        let r = testing::run(
            "InfiniteSource(DATA \\<45000014 00000000 4011 0000 01000001 01000002>, LIMIT 1, STOP true)
             -> MarkIPHeader -> SetIPChecksum -> m :: MarkIPCE;
             InfiniteSource(DATA \\<45010014 00000000 4011 0000 01000002 01000003>, LIMIT 1, STOP true)
             -> MarkIPHeader -> SetIPChecksum -> m;
             m -> CheckIPHeader -> Print(x) -> c :: Counter -> Discard;",
            &registry(),
        );
        let r = match r {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(testing::read(&r, "m.drops"), "1");
        assert_eq!(testing::read(&r, "c.count"), "1");
        let log = r.take_log().join("\n");
        assert!(log.contains("x:   20 | 45030014"), "{log}");
    }
}
