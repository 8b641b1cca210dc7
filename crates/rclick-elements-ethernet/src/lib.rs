//! The Ethernet element group (Click's `elements/ethernet`): ARP, Ethernet
//! and VLAN encapsulation, host filtering, the learning switch and the
//! IEEE 802.1d spanning tree.
#![forbid(unsafe_code)]

pub mod ether;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    ether::register(r);
}
