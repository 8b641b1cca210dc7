//! # KernelTap
//!
//! `KernelTap(ADDR/MASK [, GATEWAY, KEYWORDS])`
//!
//! **Category:** comm. Interface to a Linux TAP device (user-level).
//!
//! **Ports:** at most one input (agnostic: push or pull); one or two push
//! outputs.
//!
//! ## Description
//!
//! KernelTun with a TAP device (`IFF_TAP`): it emits and expects Ethernet
//! frames instead of IP packets. KernelTap creates the device from
//! `/dev/net/tun`, gives the kernel's side the address ADDR with netmask
//! MASK, turns ARP on and brings it up; frames the host sends on it come
//! out of output 0, and frames pushed or pulled into the input are handed
//! to the host as if the device had received them.
//!
//! The host sends ARP queries for the addresses of ADDR/MASK it wants to
//! reach and waits for replies before it sends IP packets, so a
//! configuration must answer ARP (ARPResponder), and should send frames to
//! the device's Ethernet address (ETHER, or the random one the kernel
//! chose). The element never emits on output 1 (every frame is valid for a
//! TAP device); frames shorter than an Ethernet header, or longer than MTU
//! plus 14 bytes, are dropped and counted.
//!
//! Keywords are KernelTun's: `GATEWAY`, `DEVNAME` (default `tap0`,
//! `tap1`... as the kernel chooses), `MTU` (default 1500, without the
//! Ethernet header), `HEADROOM`, `BURST`, `ETHER` (the device's Ethernet
//! address; default: the kernel's random one), `IGNORE_QUEUE_OVERFLOWS`,
//! and `TAP` (default true here).
//!
//! Creating a TAP device needs CAP_NET_ADMIN (root). Errors are reported
//! at initialization with what to do, as for KernelTun.
//!
//! ## Annotations
//!
//! Sets the timestamp and MAC header annotations of emitted frames.
//!
//! ## Handlers
//!
//! As KernelTun's (see there):
//!
//! * `dev_name`, `packets`, `written`, `selected_calls` (read).
//! * `drops`, `drop_details`, `mtu` (read).
//! * `reset_counts` (write).
//!
//! ## Examples
//!
//! The router answers ARP for every address of the subnet but the
//! host's own, and answers pings (`ping 192.0.2.2`):
//!
//! ```text
//! tap :: KernelTap(192.0.2.1/24, ETHER 02:00:00:00:00:01);
//! tap -> c :: Classifier(12/0806 20/0001, 12/0800, -);
//! c[0] -> ARPResponder(192.0.2.2/32 192.0.2.3/32 02:00:00:00:00:02) -> tap;
//! c[1] -> Strip(14) -> CheckIPHeader -> IPClassifier(icmp type echo)
//!      -> ICMPPingResponder -> EtherEncap(0x0800, 02:00:00:00:00:02, 02:00:00:00:00:01)
//!      -> tap;
//! c[2] -> Discard;
//! ```
//!
//! ## See also
//!
//! KernelTun, ARPResponder, FromDevice, ToDevice

use super::kernel_tun::KernelTun;

/// A new KernelTap: a KernelTun on a TAP device.
pub fn kernel_tap() -> KernelTun {
    KernelTun::new(true)
}
