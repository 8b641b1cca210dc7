//! # PortInfo
//!
//! `PortInfo(NAME PORT[/PROTOCOL] [NAME...] [# comment], ...)`
//!
//! **Category:** information. Names TCP and UDP ports for other elements.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Each argument gives a name, a port number, optionally `/tcp` or `/udp`
//! (both when absent), and optionally more names for the same port; a word
//! starting with `#` ends the argument (the rest is a comment). Elements
//! that take port numbers (UDPIPEncap, ...) then accept the names. Names
//! are scoped like Click's: a PortInfo inside a compound element defines
//! names for that compound's elements only, overriding outer definitions.
//! Without a PortInfo, Click's built-in service names (`ssh`, `www`,
//! `domain`, ...) and those of `/etc/services` (`http`, `nfs`, ...) for the
//! protocol asked are understood, as in Click; IPClassifier and IPFilter
//! look names up the same way.
//!
//! ## Examples
//!
//! ```text
//! PortInfo(ssh 22, http 80/tcp www);
//! ```
//!
//! ## See also
//!
//! AddressInfo

use rclick_core::args::{AddrKind, ArgContext};
use rclick_core::confparse::split_space;
use rclick_core::{phase, ConfigureCx, Element};

/// The PortInfo element.
#[derive(Default)]
pub struct PortInfo;

pub(crate) use rclick_core::args::service_port as well_known_port;

/// An [`ArgContext`] that adds, to the names `cx` resolves, the ports
/// PortInfo elements name for `element` and the well-known services.
pub(crate) struct PortNames<'a, 'b> {
    /// The configuring element's context.
    pub cx: &'a ConfigureCx<'b>,
}

impl ArgContext for PortNames<'_, '_> {
    fn lookup_address(&self, name: &str, kind: AddrKind) -> Option<String> {
        self.cx.arg_context().lookup_address(name, kind)
    }
    fn lookup_port(&self, name: &str, proto: &str) -> Option<u16> {
        parse_port(name, proto, self.cx.name(), self.cx)
    }
}

/// Parses a port for protocol `proto` (`"tcp"` or `"udp"`): a number, a
/// PortInfo name visible from element `element`, or a well-known service.
pub fn parse_port(word: &str, proto: &str, element: &str, cx: &ConfigureCx) -> Option<u16> {
    if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
        return word.parse().ok();
    }
    let kind = format!("{proto}port");
    if let Some(v) = super::scoped_lookup(|k, n| cx.lookup_name(k, n), &kind, element, word) {
        return v.parse().ok();
    }
    well_known_port(word, proto)
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
        let scope = super::scope_of(cx.name()).to_string();
        let mut defs = Vec::new();
        let mut errors = Vec::new();
        for arg in conf {
            let words: Vec<String> = split_space(arg)
                .into_iter()
                .take_while(|w| !w.starts_with('#'))
                .collect();
            if words.is_empty() {
                continue;
            }
            if words.len() < 2 {
                errors.push(format!("expected 'NAME PORT[/PROTOCOL]', got '{arg}'"));
                continue;
            }
            let (num, proto) = match words[1].split_once('/') {
                Some((n, p)) => (n, Some(p.to_ascii_lowercase())),
                None => (words[1].as_str(), None),
            };
            let port = num
                .parse::<u16>()
                .ok()
                .filter(|_| num.bytes().all(|b| b.is_ascii_digit()));
            let protos: Vec<&str> = match proto.as_deref() {
                None => vec!["tcp", "udp"],
                Some("tcp") => vec!["tcp"],
                Some("udp") => vec!["udp"],
                Some(_) => {
                    errors.push(format!("bad protocol in '{}'", words[1]));
                    continue;
                }
            };
            let Some(port) = port else {
                errors.push(format!("bad port number '{num}'"));
                continue;
            };
            for name in std::iter::once(&words[0]).chain(&words[2..]) {
                for p in &protos {
                    defs.push((
                        format!("{p}port"),
                        format!("{scope}{name}"),
                        port.to_string(),
                    ));
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        for (k, n, v) in defs {
            cx.define_name(&k, &n, &v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::well_known_port;
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// Names from PortInfo, aliases included, and well-known names, in
    /// UDPIPEncap's ports.
    #[test]
    fn names_ports() {
        assert_eq!(well_known_port("ssh", "tcp"), Some(22));
        assert_eq!(well_known_port("no-such-service", "tcp"), None);
        let r = testing::run(
            "PortInfo(foo 4660/udp bar # a comment);
             InfiniteSource(DATA \\<>, LIMIT 1, STOP true) -> UDPIPEncap(1.0.0.1, bar, 2.0.0.2, domain)
             -> Strip(20) -> Print(u, 4) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["u:    8 | 12340035"]);
    }

    fn program(conf: &str) -> Result<String, String> {
        let r = testing::build(conf, &registry(), true)?;
        Ok(testing::read(&r, "c.program"))
    }

    /// Checked against the reference: IPClassifier and IPFilter take
    /// PortInfo names for the protocol they were defined for (a name
    /// defined for UDP only is not a TCP port), inner compound scopes
    /// first, and service names.
    #[test]
    fn classifiers_take_port_names() {
        let same = |a: &str, b: &str| {
            let pa = program(&format!(
                "PortInfo(myport 4567/udp, other 80); Idle -> c :: IPClassifier({a}, -) -> Discard; c[1] -> Discard;"
            ))
            .unwrap();
            let pb = program(&format!(
                "Idle -> c :: IPClassifier({b}, -) -> Discard; c[1] -> Discard;"
            ))
            .unwrap();
            assert_eq!(pa, pb, "{a} / {b}");
        };
        same("udp port myport", "udp port 4567");
        same("tcp port other", "tcp port 80");
        same("udp port other", "udp port 80");
        same("tcp port www", "tcp port 80");
        same("tcp port pptp", "tcp port 1723");
        assert!(program(
            "PortInfo(myport 4567/udp); Idle -> c :: IPClassifier(tcp port myport, -) -> Discard; c[1] -> Discard;"
        )
        .is_err());
        let f = program(
            "PortInfo(p 99); Idle -> c :: IPFilter(allow src port p, deny all) -> Discard;",
        )
        .unwrap();
        let g = program("Idle -> c :: IPFilter(allow src port 99, deny all) -> Discard;").unwrap();
        assert_eq!(f, g);
        // The compound's own definition wins: the program reads port 2.
        let r = testing::build(
            "PortInfo(p 1); elementclass E { PortInfo(p 2); input -> c :: IPClassifier(tcp port p, -) -> output; c[1] -> Discard };
             Idle -> e :: E -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        assert!(testing::read(&r, "e/c.program").contains("00000002%0000ffff"));
    }
}
