//! # PortInfo
//!
//! `PortInfo(NAME PORT[/PROTOCOL], ...)`
//!
//! **Category:** information. Gives names to TCP and UDP port numbers.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Lets other elements' configurations use names for port numbers, as
//! AddressInfo does for addresses. Each argument is
//! `NAME PORT[/PROTOCOL] [ALIAS...]`: NAME (and every ALIAS) becomes a
//! name for the integer PORT. PROTOCOL is `tcp`, `udp`, or another IP
//! protocol name or number; without it the name is defined for both TCP
//! and UDP. An argument whose PROTOCOL is unknown is ignored, as are empty
//! arguments and arguments starting with `#`; a `#` word ends the alias
//! list.
//!
//! Names are defined in the configuration-wide name table: kind `port`
//! for every definition, plus `tcpport` and/or `udpport` for those that
//! apply to TCP and UDP, and `port/N` for another protocol N.
//!
//! Errors: `expected 'NAME PORT/PROTO'` (PORT is not an integer).
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## Handlers
//!
//! Only the standard ones.
//!
//! ## Examples
//!
//! ```text
//! PortInfo(ssh 22, http 80 www, dns 53/udp);
//! ... -> IPFilter(allow tcp dst port http) -> ...
//! ```
//!
//! ## See also
//!
//! AddressInfo

use rclick_core::args::{FromArg, NoContext};
use rclick_core::confparse::split_space;
use rclick_core::{phase, ConfigureCx, Element};

/// The PortInfo element.
#[derive(Default)]
pub struct PortInfo;

/// IP protocol numbers for the names PortInfo accepts after a slash.
fn ip_proto(name: &str, cx: &ConfigureCx) -> Option<u32> {
    let known = match name {
        "icmp" => Some(1),
        "igmp" => Some(2),
        "ipip" => Some(4),
        "tcp" => Some(6),
        "udp" => Some(17),
        "ipv6" => Some(41),
        "gre" => Some(47),
        "esp" => Some(50),
        "ah" => Some(51),
        "icmp6" | "ipv6-icmp" => Some(58),
        "sctp" => Some(132),
        "dccp" => Some(33),
        _ => None,
    };
    known
        .or_else(|| u32::from_arg(name, &NoContext).ok().filter(|&p| p < 256))
        .or_else(|| cx.lookup_name("ipproto", name)?.trim().parse().ok())
}

impl Element for PortInfo {
    fn class_name(&self) -> &'static str {
        "PortInfo"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure_phase(&self) -> i32 {
        phase::FIRST
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut errors = Vec::new();
        let mut defs: Vec<(String, String)> = Vec::new();
        for arg in conf {
            let words = split_space(arg);
            let Some(first) = words.first() else {
                continue;
            };
            if first.starts_with('#') {
                continue;
            }
            let spec = words.get(1).map(String::as_str).unwrap_or("");
            let (num, proto) = match spec.split_once('/') {
                Some((n, p)) => (n, Some(p)),
                None => (spec, None),
            };
            let Ok(port) = u32::from_arg(num, &NoContext) else {
                errors.push("expected 'NAME PORT/PROTO'".to_string());
                continue;
            };
            let kinds: Vec<String> = match proto {
                None => vec!["port".into(), "tcpport".into(), "udpport".into()],
                Some(p) => match ip_proto(p, cx) {
                    Some(6) => vec!["port".into(), "tcpport".into()],
                    Some(17) => vec!["port".into(), "udpport".into()],
                    Some(n) => vec!["port".into(), format!("port/{n}")],
                    None => continue,
                },
            };
            let names =
                std::iter::once(first).chain(words[2..].iter().take_while(|w| !w.starts_with('#')));
            for name in names {
                for k in &kinds {
                    defs.push((k.clone(), name.clone()));
                }
                defs.push((String::new(), port.to_string()));
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        // Each run of (kind, name) pairs is followed by its value.
        let mut pending: Vec<(String, String)> = Vec::new();
        for (k, v) in defs {
            if k.is_empty() {
                for (kind, name) in pending.drain(..) {
                    cx.define_name(&kind, &name, &v);
                }
            } else {
                pending.push((k, v));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::misc::test_registry;
    use rclick_core::testing;

    #[test]
    fn defines_names() {
        let r = testing::build(
            "PortInfo(ssh 22, http 80/tcp www, dns 53/udp, # comment, x 7/bogus, y 9/icmp);
             a :: NameProbe(tcpport www); b :: NameProbe(udpport www); c :: NameProbe(udpport ssh);
             d :: NameProbe(tcpport dns); e :: NameProbe(port dns); f :: NameProbe(port x);
             g :: NameProbe(port/1 y);",
            &test_registry(),
            true,
        )
        .unwrap();
        let v = |n: &str| testing::read(&r, &format!("{n}.value"));
        assert_eq!(v("a"), "80");
        assert_eq!(v("b"), "");
        assert_eq!(v("c"), "22");
        assert_eq!(v("d"), "");
        assert_eq!(v("e"), "53");
        assert_eq!(v("f"), "");
        assert_eq!(v("g"), "9");
        let err = testing::run("PortInfo(ssh twenty-two);", &test_registry()).unwrap_err();
        assert!(err.contains("expected 'NAME PORT/PROTO'"), "{err}");
    }
}
