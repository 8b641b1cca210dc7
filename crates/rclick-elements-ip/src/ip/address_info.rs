//! # AddressInfo
//!
//! `AddressInfo(NAME ADDRESS [ADDRESS...], ...)`
//!
//! **Category:** information. Names addresses for other elements.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Lets a configuration refer to addresses by name. Each argument is a name
//! followed by one or more addresses: an IPv4 address (`18.26.4.9`), an
//! IPv4 prefix (`18.26.4.9/24`; host bits given also define the name's
//! address), an Ethernet address (`00:0a:95:9d:68:16`), or an IPv6 address.
//! Afterwards any element's argument that expects an address of some kind
//! accepts the name, and a suffix picks the kind explicitly:
//!
//! * `NAME`: whichever kind the argument expects (an IP address argument
//!   takes the IP address, an Ethernet one the Ethernet address, a prefix
//!   argument the prefix, or the address as a /32).
//! * `NAME:ip` (or `:ip4`): the IP address.
//! * `NAME:ipnet` (or `:ip4net`, `:net`): the IP prefix.
//! * `NAME:bcast`: the prefix's broadcast address (`1.2.15.255` for
//!   `1.2.3.4/20`).
//! * `NAME:gw`: the prefix's first host address (`1.2.0.1`), unless a name
//!   `NAME:gw` is itself defined.
//! * `NAME:eth` (or `:ethernet`): the Ethernet address.
//!
//! AddressInfo is configured before every other element, so the order in
//! the configuration does not matter. If one argument gives several
//! addresses of one kind, the first wins. Empty arguments are allowed.
//!
//! ## Examples
//!
//! ```text
//! AddressInfo(mauer 10.0.0.1, mazu 10.0.0.10, eth0 10.0.0.1/8 00:50:BA:85:84:A9);
//! ... -> IPEncap(6, mauer, mazu) -> ...
//! rt :: RadixIPLookup(eth0:ipnet 0, 0/0 eth0:gw 1);
//! ```
//!
//! ## See also
//!
//! PortInfo

use std::net::{Ipv4Addr, Ipv6Addr};

use rclick_core::args::{parse_ip_prefix_with, EtherAddr, FromArg};
use rclick_core::confparse::split_space;
use rclick_core::{phase, ConfigureCx, Element};

/// The AddressInfo element.
#[derive(Default)]
pub struct AddressInfo;

impl Element for AddressInfo {
    fn class_name(&self) -> &'static str {
        "AddressInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::FIRST
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut defs: Vec<(&'static str, String, String)> = Vec::new();
        let mut errors = Vec::new();
        {
            let ctx = cx.arg_context();
            for arg in conf {
                let parts = split_space(arg);
                if parts.is_empty() {
                    continue;
                }
                if parts.len() < 2 {
                    errors.push("expected 'NAME [ADDRS]'".to_string());
                    continue;
                }
                let name = &parts[0];
                let mut have: Vec<&'static str> = Vec::new();
                for part in &parts[1..] {
                    let mut mine: Vec<(&'static str, String)> = Vec::new();
                    if let Ok(e) = EtherAddr::from_arg(part, ctx) {
                        mine.push(("eth", e.to_string()));
                    }
                    if let Ok(a) = Ipv4Addr::from_arg(part, ctx) {
                        mine.push(("ip", a.to_string()));
                    } else if let Ok(p) = parse_ip_prefix_with(part, false, ctx) {
                        mine.push(("ipnet", p.to_string()));
                        if u32::from(p.addr) & !u32::from(p.mask) != 0 {
                            mine.push(("ip", p.addr.to_string()));
                        }
                        let bcast = u32::from(p.addr) | !u32::from(p.mask);
                        mine.push(("bcast", Ipv4Addr::from(bcast).to_string()));
                    }
                    if let Ok(a) = part.parse::<Ipv6Addr>() {
                        mine.push(("ip6", a.to_string()));
                    }
                    if mine.is_empty() {
                        errors.push(format!("'{part}' is not a recognizable address"));
                        continue;
                    }
                    let one_type = mine.iter().filter(|(k, _)| *k != "bcast").count() == 1;
                    for (kind, value) in mine {
                        if one_type || !have.contains(&kind) {
                            defs.push((kind, name.clone(), value));
                        }
                        have.push(kind);
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        for (kind, name, value) in defs {
            cx.define_name(kind, &name, &value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn names_resolve_everywhere() {
        let r = testing::run(
            "AddressInfo(x 10.0.0.1/8 00:01:02:03:04:05, y 1.2.3.4);
             InfiniteSource(LIMIT 1, STOP true) -> UDPIPEncap(x, 1, y, 2)
             -> s :: SetIPAddress(x:bcast) -> Discard;
             rt :: RadixIPLookup(x:ipnet 0, y 0, 0/0 x:gw 0, x:bcast 1); Idle -> rt -> Idle; rt[1] -> Idle;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.read_handler("rt.lookup", "10.9.9.9").unwrap(), "0");
        assert_eq!(
            r.read_handler("rt.lookup", "11.9.9.9").unwrap(),
            "0 10.0.0.1"
        );
        assert_eq!(testing::read(&r, "s.addr"), "x:bcast");
        assert!(testing::read(&r, "rt.table").contains("10.255.255.255/32"));
        assert_eq!(r.read_handler("rt.lookup", "x:bcast").unwrap(), "1");
    }

    #[test]
    fn bad_address_is_an_error() {
        let e = testing::build("AddressInfo(x foo)", &registry(), true).unwrap_err();
        assert!(e.contains("'foo' is not a recognizable address"), "{e}");
    }
}
