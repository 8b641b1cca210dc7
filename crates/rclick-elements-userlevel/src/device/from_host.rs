//! # FromHost
//!
//! `FromHost(DEVNAME [, DST/MASK, KEYWORDS])`
//!
//! **Category:** comm. Reads the packets the host sends into a TAP device
//! (user-level).
//!
//! **Ports:** no inputs; one push output.
//!
//! ## Description
//!
//! Creates the TAP device DEVNAME with Linux's universal TUN/TAP driver
//! (`/dev/net/tun`), gives the host's side of it the address DST with
//! netmask MASK if given, and brings it up. Every Ethernet frame the host
//! sends into the device comes out of output 0, with the MAC header
//! annotation set and, for IPv4, the IP header and destination address
//! annotations. ToHost elements with the same DEVNAME write frames back to
//! the host through the same device: FromHost and ToHost together connect
//! a router to its own host's network stack, as Click's user-level pair
//! does.
//!
//! The host resolves addresses on the device with ARP, so a router behind
//! it should answer ARP (ARPResponder) for the addresses it stands for.
//!
//! The device is configured with ioctls, not ifconfig(8) and route(8) as in
//! Click, and created non-persistent: when the router stops, closing it
//! removes the interface with its addresses and routes. Creating it needs
//! CAP_NET_ADMIN (root); a missing driver or privilege fails initialization
//! with a message saying what to do.
//!
//! Keywords:
//!
//! * `DEVNAME` (string): the interface name. Required.
//! * `DST` (IP prefix, also positional): the host's address and netmask on
//!   the device. Default none (the device comes up without an address).
//! * `GATEWAY` (IP address): add a default route through this address,
//!   which must lie in DST/MASK (`bad GATEWAY`).
//! * `ETHER` (Ethernet address): the device's (the host side's) Ethernet
//!   address. Default: the kernel chooses one.
//! * `HEADROOM` (unsigned): bytes of headroom before emitted frames. Default
//!   Click's (the packet default, aligned so the IP header falls on a
//!   4-byte boundary), at most 8192.
//! * `MTU` (unsigned): the device's MTU. Default 1500.
//!
//! ## Annotations
//!
//! Sets the timestamp, MAC header, IP header and destination IP address
//! annotations of emitted packets.
//!
//! ## Handlers
//!
//! * `dev_name` (read): the interface name.
//! * `packets` (read): frames read from the device.
//! * `drops`, `drop_details` (read): frames lost, by reason.
//! * `mtu` (read): the MTU.
//! * `selected_calls`, `written`, `reset_counts`: as KernelTap's (ToHost
//!   counts the frames written).
//!
//! ## Examples
//!
//! Answering the host's pings to 192.0.2.2 (and its ARP requests):
//!
//! ```text
//! FromHost(fh0, 192.0.2.1/24) -> c :: Classifier(12/0806 20/0001, 12/0800, -);
//! c[0] -> ARPResponder(192.0.2.2 02:00:00:00:00:02) -> th :: ToHost(fh0);
//! c[1] -> Strip(14) -> CheckIPHeader -> IPClassifier(icmp type echo)
//!   -> ICMPPingResponder -> Unstrip(14) -> EtherMirror -> th;
//! c[2] -> Discard;
//! ```
//!
//! ## See also
//!
//! ToHost, KernelTap, KernelTun, FromDevice

use super::kernel_tun::KernelTun;

/// A new FromHost: a KernelTun on a TAP device with FromHost's
/// configuration and no input.
pub fn from_host() -> KernelTun {
    KernelTun::from_host()
}
