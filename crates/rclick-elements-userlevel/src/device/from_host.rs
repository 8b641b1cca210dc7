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
//! * `MTU` (unsigned): the device's MTU, 68 to 65521. Default 1500.
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

#[cfg(test)]
mod tests {
    use super::super::test_util::{build_err, handler_names, tun_open_fails};
    use super::*;
    use rclick_core::args::{EtherAddr, NoContext};
    use rclick_core::Element;
    use std::net::Ipv4Addr;

    fn configured(conf: &[&str]) -> Result<KernelTun, String> {
        let conf: Vec<String> = conf.iter().map(|s| s.to_string()).collect();
        let mut t = from_host();
        let warnings = t.parse_config(&conf, &NoContext)?;
        assert!(warnings.is_empty(), "{warnings:?}");
        Ok(t)
    }

    #[test]
    fn a_tap_device_with_no_input() {
        let t = from_host();
        assert_eq!(t.class_name(), "FromHost");
        assert_eq!(t.port_count(), "0/1");
        assert_eq!(t.processing(), "h/h");
        let e = build_err("Idle -> FromHost(fh0) -> Discard");
        assert!(e.contains("has no input 0"), "{e}");
    }

    #[test]
    fn defaults() {
        let t = configured(&["fh0"]).unwrap();
        let s = t.settings();
        assert!(s.tap && s.host);
        assert_eq!(t.dev_name(), "fh0");
        assert!(s.prefix.addr.is_unspecified(), "no address by default");
        assert_eq!(s.gateway, None);
        assert_eq!(s.ether, None);
        assert_eq!(t.mtu(), 1500);
        // Click's: the packet default headroom, grown so the IP header
        // after a 14-byte Ethernet header falls on 4 bytes.
        assert_eq!((s.headroom + 14) % 4, 0);
        assert!(s.headroom >= rclick_packet::DEFAULT_HEADROOM);
        assert!(s.headroom < rclick_packet::DEFAULT_HEADROOM + 4);
    }

    #[test]
    fn configuration_is_parsed() {
        let t = configured(&[
            "fh1",
            "192.0.2.1/24",
            "GATEWAY 192.0.2.254",
            "ETHER 02:00:00:00:00:01",
            "HEADROOM 64",
            "MTU 9000",
        ])
        .unwrap();
        let s = t.settings();
        assert_eq!(s.prefix.to_string(), "192.0.2.1/24");
        assert_eq!(s.gateway, Some(Ipv4Addr::new(192, 0, 2, 254)));
        assert_eq!(s.ether, Some(EtherAddr([2, 0, 0, 0, 0, 1])));
        assert_eq!((s.headroom, t.mtu()), (64, 9000));
        let t = configured(&["DEVNAME fh2", "DST 10.0.0.1/8"]).unwrap();
        assert_eq!(t.dev_name(), "fh2");
        assert_eq!(t.settings().prefix.to_string(), "10.0.0.1/8");
    }

    /// The messages Click's FromHost gives (`DEVNAME: required argument
    /// missing`, `bad GATEWAY`, `HEADROOM too large`, `X: unknown
    /// argument`), and ours for what Click lets through.
    #[test]
    fn configuration_errors() {
        let cases = [
            ("FromHost()", "DEVNAME: required argument missing"),
            (
                "FromHost(fh0, 192.0.2.1/24, GATEWAY 10.0.0.1)",
                "bad GATEWAY",
            ),
            ("FromHost(fh0, HEADROOM 9000)", "HEADROOM too large"),
            ("FromHost(fh0, BOGUS 1)", "BOGUS: unknown argument"),
            ("FromHost(fh0, bogus)", "DST: expected IP prefix"),
            (
                "FromHost(fh0, ETHER 1:2)",
                "ETHER: expected Ethernet address",
            ),
            ("FromHost(fh0, MTU 10)", "MTU must be between 68 and 65521"),
            ("FromHost(DEVNAME \"\")", "must specify device name"),
            ("FromHost(a/b)", "DEVNAME: bad interface name 'a/b'"),
        ];
        for (conf, want) in cases {
            let e = build_err(&format!("{conf} -> Discard"));
            assert!(
                e.contains("While configuring 'FromHost@1 :: FromHost'"),
                "{conf}: {e}"
            );
            assert!(e.contains(want), "{conf}: {e}");
        }
    }

    #[test]
    fn handlers_are_the_manuals() {
        assert_eq!(
            handler_names(&from_host()),
            [
                "dev_name",
                "packets",
                "written",
                "selected_calls",
                "drops",
                "drop_details",
                "mtu",
                "reset_counts"
            ]
        );
    }

    /// `lo` exists and is no TAP device: opening it fails in every
    /// environment (without the driver, without privilege, or as root),
    /// with an error that says what to do, and nothing is created.
    #[test]
    fn a_device_that_cannot_be_opened_is_a_clear_error() {
        tun_open_fails(
            "FromHost(lo) -> Discard",
            "FromHost@1 :: FromHost",
            "FromHost",
        );
    }
}
