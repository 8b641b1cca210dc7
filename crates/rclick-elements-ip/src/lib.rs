//! The IP element group (Click's `elements/ip`, `elements/icmp` and the IP
//! parts of `elements/tcpudp`): header checks, address annotations, route
//! lookups, TTL and options processing, fragmentation, encapsulation, ICMP,
//! and the tcpdump-like IPClassifier and IPFilter.

pub mod classifier;
mod divert;
pub mod icmp;
pub mod ip;
pub mod tcpudp;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    ip::register(r);
    icmp::register(r);
    classifier::register(r);
    tcpudp::register(r);
}
