//! Click's IPRewriter family: network address (and port) translation with
//! per-flow mapping tables, guarantees, timeouts and bounded capacity.
//!
//! The rewriters share one element type, [`base::Rewriter`], and a small
//! library: [`flowset`] (flows, their maps and expiry, in
//! [`flowset::FlowSet`]s that several rewriters may share with
//! `MAPPING_CAPACITY other`, reached through [`flowset::RwHandle`]s by
//! ICMPRewriter and FTPPortMapper), [`spec`] (input specs), [`pattern`]
//! (rewrite patterns) and [`seq_delta`] (TCP sequence deltas). What each
//! class does on its own — which packets it maps, its keys and timeouts,
//! the rewriting itself — is its [`class::RewriterClass`] impl beside its
//! manual (`tcp_rewriter.rs`, `udp_rewriter.rs`, ...).
use rclick_core::Registry;

pub mod base;
pub mod class;
pub mod flowset;
pub mod pattern;
pub mod seq_delta;
pub mod spec;

pub mod ftp_port_mapper;
pub mod icmp_ping_rewriter;
pub mod icmp_rewriter;
pub mod ip_addr_pair_rewriter;
pub mod ip_addr_rewriter;
pub mod ip_rewriter;
pub mod ip_rewriter_patterns;
pub mod round_robin_ip_mapper;
pub mod source_ip_hash_mapper;
pub mod tcp_rewriter;
pub mod udp_rewriter;

#[cfg(test)]
pub(crate) mod testutil;

pub use base::Rewriter;
pub use ftp_port_mapper::FTPPortMapper;
pub use icmp_rewriter::ICMPRewriter;
pub use ip_rewriter_patterns::IPRewriterPatterns;
pub use round_robin_ip_mapper::RoundRobinIPMapper;
pub use source_ip_hash_mapper::SourceIPHashMapper;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "IPRewriter",
        || Box::new(ip_rewriter::new()),
        include_str!("ip_rewriter.rs"),
    );
    r.add(
        "TCPRewriter",
        || Box::new(tcp_rewriter::new()),
        include_str!("tcp_rewriter.rs"),
    );
    r.add(
        "UDPRewriter",
        || Box::new(udp_rewriter::new()),
        include_str!("udp_rewriter.rs"),
    );
    r.add(
        "IPAddrRewriter",
        || Box::new(ip_addr_rewriter::new()),
        include_str!("ip_addr_rewriter.rs"),
    );
    r.add(
        "IPAddrPairRewriter",
        || Box::new(ip_addr_pair_rewriter::new()),
        include_str!("ip_addr_pair_rewriter.rs"),
    );
    r.add(
        "ICMPPingRewriter",
        || Box::new(icmp_ping_rewriter::new()),
        include_str!("icmp_ping_rewriter.rs"),
    );
    r.add(
        "ICMPRewriter",
        || Box::<ICMPRewriter>::default(),
        include_str!("icmp_rewriter.rs"),
    );
    r.add(
        "IPRewriterPatterns",
        || Box::<IPRewriterPatterns>::default(),
        include_str!("ip_rewriter_patterns.rs"),
    );
    r.add(
        "RoundRobinIPMapper",
        || Box::<RoundRobinIPMapper>::default(),
        include_str!("round_robin_ip_mapper.rs"),
    );
    r.add(
        "SourceIPHashMapper",
        || Box::<SourceIPHashMapper>::default(),
        include_str!("source_ip_hash_mapper.rs"),
    );
    r.add(
        "FTPPortMapper",
        || Box::<FTPPortMapper>::default(),
        include_str!("ftp_port_mapper.rs"),
    );
}
