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

#[cfg(test)]
mod tests {
    use super::super::test_util::{build_err, handler_names, tun_open_fails};
    use super::*;
    use rclick_core::args::NoContext;
    use rclick_core::Element;

    fn configured(conf: &[&str]) -> Result<(KernelTun, Vec<String>), String> {
        let conf: Vec<String> = conf.iter().map(|s| s.to_string()).collect();
        let mut t = kernel_tap();
        let warnings = t.parse_config(&conf, &NoContext)?;
        Ok((t, warnings))
    }

    #[test]
    fn a_kerneltun_on_a_tap_device() {
        let t = kernel_tap();
        assert_eq!(t.class_name(), "KernelTap");
        assert_eq!(t.port_count(), "0-1/1-2");
        assert_eq!(t.processing(), "a/h");
        let e = build_err(
            "t :: KernelTap(192.0.2.1/24); t[0] -> Discard; t[1] -> Discard; t[2] -> Discard",
        );
        assert!(e.contains("'t :: KernelTap' has no output 2"), "{e}");
    }

    #[test]
    fn defaults() {
        let (t, warnings) = configured(&["192.0.2.1/24"]).unwrap();
        assert!(warnings.is_empty());
        let s = t.settings();
        assert!(s.tap, "TAP defaults to true");
        assert!(!s.host);
        assert_eq!(s.prefix.to_string(), "192.0.2.1/24");
        assert_eq!(s.gateway, None);
        assert_eq!(t.dev_name(), "", "the kernel chooses tapN");
        assert_eq!(t.mtu(), 1500);
        assert_eq!(s.burst, 1);
        assert_eq!(s.ether, None);
        assert!(!s.ignore_queue_overflows);
        assert_eq!(s.headroom, rclick_packet::DEFAULT_HEADROOM.div_ceil(4) * 4);
        // TAP false makes it a TUN device.
        let (t, _) = configured(&["192.0.2.1/24", "TAP false"]).unwrap();
        assert!(!t.settings().tap);
        // Click's old DEV_NAME still works, with a warning.
        let (t, warnings) = configured(&["192.0.2.1/24", "DEV_NAME tap9"]).unwrap();
        assert_eq!(t.dev_name(), "tap9");
        assert_eq!(warnings, ["DEV_NAME is deprecated; use DEVNAME"]);
    }

    /// Click's messages (`ADDR: required argument missing`, `bad GATEWAY`,
    /// `BURST must be >= 1`, `X: unknown argument`), with ours where we
    /// say more (the MTU's range: 68 for a TAP device, where Click says
    /// "MTU must be greater than 20").
    #[test]
    fn configuration_errors() {
        let cases = [
            ("KernelTap()", "ADDR: required argument missing"),
            ("KernelTap(192.0.2.1/24, 198.51.100.1)", "bad GATEWAY"),
            ("KernelTap(192.0.2.1/24, BURST 0)", "BURST must be >= 1"),
            (
                "KernelTap(192.0.2.1/24, UP_DELAY_MS 5)",
                "UP_DELAY_MS: unknown argument",
            ),
            (
                "KernelTap(192.0.2.1/24, ETHER 1:2)",
                "ETHER: expected Ethernet address",
            ),
            (
                "KernelTap(192.0.2.1/24, MTU 67)",
                "MTU must be between 68 and 65521",
            ),
            ("KernelTap(192.0.2.1/24, HEADROOM 8193)", "HEADROOM too big"),
            (
                "KernelTap(0.0.0.0/24)",
                "ADDR: the device needs a nonzero address",
            ),
        ];
        for (conf, want) in cases {
            let e = build_err(&format!("{conf} -> Discard"));
            assert!(
                e.contains("While configuring 'KernelTap@1 :: KernelTap'"),
                "{conf}: {e}"
            );
            assert!(e.contains(want), "{conf}: {e}");
        }
        // A TUN device's smallest MTU is an IP header's.
        assert!(configured(&["192.0.2.1/24", "TAP false", "MTU 20"]).is_ok());
    }

    #[test]
    fn handlers_are_kerneltuns() {
        assert_eq!(
            handler_names(&kernel_tap()),
            handler_names(&KernelTun::new(false))
        );
        assert!(handler_names(&kernel_tap()).contains(&"reset_counts".to_string()));
    }

    /// `lo` exists and is no TAP device: opening it fails in every
    /// environment, with an error that says what to do.
    #[test]
    fn a_device_that_cannot_be_opened_is_a_clear_error() {
        tun_open_fails(
            "KernelTap(192.0.2.1/24, DEVNAME lo) -> Discard",
            "KernelTap@1 :: KernelTap",
            "KernelTap",
        );
    }
}
