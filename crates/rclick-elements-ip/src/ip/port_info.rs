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
//! Well-known service names (`ssh`, `http`, `domain`, ...) are understood
//! without any PortInfo.
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

use rclick_core::confparse::split_space;
use rclick_core::{phase, ConfigureCx, Element};

/// The PortInfo element.
#[derive(Default)]
pub struct PortInfo;

/// Well-known ports (a subset of `/etc/services`), for TCP and UDP alike.
const SERVICES: &[(&str, u16)] = &[
    ("echo", 7),
    ("discard", 9),
    ("daytime", 13),
    ("ftp-data", 20),
    ("ftp", 21),
    ("ssh", 22),
    ("telnet", 23),
    ("smtp", 25),
    ("time", 37),
    ("domain", 53),
    ("dns", 53),
    ("bootps", 67),
    ("bootpc", 68),
    ("tftp", 69),
    ("finger", 79),
    ("http", 80),
    ("www", 80),
    ("pop3", 110),
    ("sunrpc", 111),
    ("auth", 113),
    ("nntp", 119),
    ("ntp", 123),
    ("imap", 143),
    ("snmp", 161),
    ("snmp-trap", 162),
    ("bgp", 179),
    ("ldap", 389),
    ("https", 443),
    ("syslog", 514),
    ("rip", 520),
    ("route", 520),
];

/// A well-known service's port (`www`, `dns`...), the names Click knows
/// without a PortInfo.
pub(crate) fn well_known_port(word: &str) -> Option<u16> {
    SERVICES.iter().find(|(n, _)| *n == word).map(|&(_, p)| p)
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
    well_known_port(word)
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
        assert_eq!(well_known_port("ssh"), Some(22));
        assert_eq!(well_known_port("no-such-service"), None);
        let r = testing::run(
            "PortInfo(foo 4660/udp bar # a comment);
             InfiniteSource(DATA \\<>, LIMIT 1, STOP true) -> UDPIPEncap(1.0.0.1, bar, 2.0.0.2, domain)
             -> Strip(20) -> Print(u, 4) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log(), ["u:    8 | 12340035"]);
    }
}
