//! # RoundRobinIPMapper
//!
//! `RoundRobinIPMapper(PATTERN1, ..., PATTERNn)`
//!
//! **Category:** nat. Round-robin mapper for IPRewriter(n).
//!
//! ## Ports and processing
//!
//! No ports.
//!
//! ## Description
//!
//! Works with IPRewriter-like elements: an input spec naming this element
//! asks it for each new flow's mapping. Each PATTERN is
//! `SADDR SPORT DADDR DPORT FOUTPUT ROUTPUT`, as in IPRewriter's `pattern`
//! input spec. New flows use the patterns in turn; a pattern that has no free
//! port is skipped. Useful for load balancing (with `- - - - 0 0, - - - - 1
//! 0, ...` each new flow goes to the next output). Giving no pattern is an
//! error; giving one draws a warning.
//!
//! ## Handlers
//!
//! None beyond the standard ones.
//!
//! ## Example
//!
//! ```text
//! r :: RoundRobinIPMapper(- - - - 0 0, - - - - 1 0);
//! rw :: IPRewriter(r);
//! ```
//!
//! ## See also
//!
//! IPRewriter, TCPRewriter, IPRewriterPatterns

use std::sync::Arc;

use rclick_core::{phase, ConfigureCx, Element};

use super::pattern::parse_with_ports;
use super::spec::{named_pattern, MapperShared, SpecContext};

/// A mapper's `SADDR SPORT DADDR DPORT FOUTPUT ROUTPUT` pattern.
pub(super) fn mapper_pattern(
    spec: &str,
    cx: &ConfigureCx,
) -> Result<(Arc<super::pattern::Pattern>, u32, u32), String> {
    let scx: &dyn SpecContext = cx;
    match parse_with_ports(spec, scx.args_ctx(), &|n| named_pattern(scx, n)) {
        Ok((p, f, r)) if f >= 0 && r >= 0 => Ok((p, f as u32, r as u32)),
        Ok(_) => Err("output port out of range".to_string()),
        Err(e) => Err(e),
    }
}

/// The RoundRobinIPMapper element.
#[derive(Default)]
pub struct RoundRobinIPMapper {
    shared: Arc<MapperShared>,
}

impl RoundRobinIPMapper {
    /// The patterns, shared with the rewriters that use this mapper.
    pub fn shared(&self) -> Arc<MapperShared> {
        self.shared.clone()
    }
}

impl Element for RoundRobinIPMapper {
    fn class_name(&self) -> &'static str {
        "RoundRobinIPMapper"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::DEFAULT - 1
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        if conf.is_empty() || conf.iter().all(|c| c.trim().is_empty()) {
            return Err("no patterns given".into());
        }
        let mut pats = Vec::new();
        let mut errors = Vec::new();
        for c in conf {
            match mapper_pattern(c, cx) {
                Ok(p) => pats.push(p),
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        if pats.len() == 1 {
            cx.warning("only one pattern given");
        }
        self.shared = Arc::new(MapperShared {
            patterns: pats,
            last: Default::default(),
            hash: None,
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;

    #[test]
    fn round_robin_outputs() {
        let pkts = [
            udp(ip(1, 0, 0, 1), 1, ip(1, 0, 0, 2), 2),
            udp(ip(1, 0, 0, 1), 1, ip(1, 0, 0, 2), 3),
            udp(ip(1, 0, 0, 1), 1, ip(1, 0, 0, 2), 2),
            udp(ip(1, 0, 0, 1), 1, ip(1, 0, 0, 3), 2),
            udp(ip(1, 0, 0, 1), 1, ip(1, 0, 0, 4), 2),
            udp(ip(1, 0, 0, 1), 1, ip(1, 0, 0, 2), 3),
        ];
        let out = run_ports(
            "r :: RoundRobinIPMapper(- - - - 0 0, - - - - 1 0, - - - - 2 0); rw :: IPRewriter(r);",
            3,
            &pkts,
        );
        assert_eq!(out, vec![0, 1, 0, 2, 0, 1]);
    }

    #[test]
    fn errors() {
        let e = rclick_core::testing::build("r :: RoundRobinIPMapper();", &registry(), true)
            .err()
            .unwrap();
        assert!(e.contains("no patterns given"), "{e}");
    }
}
