//! Service names for ports, as Click's IPNameInfo knows them: its
//! built-in names, then the system's services file.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Click's built-in port names, for TCP and UDP alike (they take
/// precedence over `/etc/services`).
const KNOWN_PORTS: &[(&str, u16)] = &[
    ("auth", 113),
    ("bootpc", 68),
    ("bootps", 67),
    ("chargen", 19),
    ("daytime", 13),
    ("discard", 9),
    ("dns", 53),
    ("domain", 53),
    ("echo", 7),
    ("finger", 79),
    ("ftp", 21),
    ("ftp-data", 20),
    ("https", 443),
    ("imap3", 220),
    ("imaps", 993),
    ("irc", 194),
    ("netbios-dgm", 138),
    ("netbios-ns", 137),
    ("netbios-ssn", 139),
    ("nntp", 119),
    ("ntp", 123),
    ("pop3", 110),
    ("pop3s", 995),
    ("pptp", 1723),
    ("rip", 520),
    ("route", 520),
    ("smtp", 25),
    ("snmp", 161),
    ("snmp-trap", 162),
    ("ssh", 22),
    ("sunrpc", 111),
    ("telnet", 23),
    ("tftp", 69),
    ("www", 80),
];

/// Common services, used only when `/etc/services` cannot be read.
const FALLBACK_SERVICES: &[(&str, u16)] = &[
    ("time", 37),
    ("http", 80),
    ("kerberos", 88),
    ("imap", 143),
    ("imap2", 143),
    ("bgp", 179),
    ("ldap", 389),
    ("microsoft-ds", 445),
    ("syslog", 514),
    ("submission", 587),
    ("ldaps", 636),
    ("nfs", 2049),
    ("mysql", 3306),
    ("postgresql", 5432),
];

/// The services database: (protocol, name) to port.
type Services = HashMap<(String, String), u16>;

/// Reads a services file as Click does: on each line (up to a `#`), a
/// name, `PORT/PROTOCOL`, then aliases; ports of 65536 and more and lines
/// without a protocol are skipped.
fn parse_services(text: &str) -> Services {
    let mut db = Services::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        let (Some(name), Some(pp)) = (words.next(), words.next()) else {
            continue;
        };
        let Some((port, proto)) = pp.split_once(['/', ',']) else {
            continue;
        };
        let Some(port) = port
            .parse::<u16>()
            .ok()
            .filter(|_| port.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let proto = proto.to_ascii_lowercase();
        for n in std::iter::once(name).chain(words) {
            db.entry((proto.clone(), n.to_string())).or_insert(port);
        }
    }
    db
}

/// `/etc/services`, read once; `None` when it cannot be read.
fn services() -> Option<&'static Services> {
    static DB: OnceLock<Option<Services>> = OnceLock::new();
    DB.get_or_init(|| {
        std::fs::read_to_string("/etc/services")
            .ok()
            .map(|t| parse_services(&t))
    })
    .as_ref()
}

/// A service name's port for protocol `proto` (`"tcp"`, `"udp"`): Click's
/// built-in names, then `/etc/services` (or, without that file, a few
/// common services), as Click's IPNameInfo looks them up.
pub fn service_port(word: &str, proto: &str) -> Option<u16> {
    if let Some(&(_, p)) = KNOWN_PORTS.iter().find(|(n, _)| *n == word) {
        return Some(p);
    }
    match services() {
        Some(db) => db.get(&(proto.to_string(), word.to_string())).copied(),
        None => FALLBACK_SERVICES
            .iter()
            .find(|(n, _)| *n == word)
            .map(|&(_, p)| p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A services file read as Click reads it: aliases, protocols, comments,
    /// bad lines skipped; the first definition of a name wins.
    #[test]
    fn services_file() {
        let db = parse_services(
            "# comment\nhttp\t80/tcp www # web\nhttp 80/udp\nnfs 2049/tcp\nbad 70000/tcp\nnoproto 12\n\
             dup 1/tcp\ndup 2/tcp\nsctpish 9/sctp\n",
        );
        let get = |p: &str, n: &str| db.get(&(p.to_string(), n.to_string())).copied();
        assert_eq!(get("tcp", "http"), Some(80));
        assert_eq!(get("tcp", "www"), Some(80));
        assert_eq!(get("udp", "http"), Some(80));
        assert_eq!(get("udp", "nfs"), None);
        assert_eq!(get("tcp", "bad"), None);
        assert_eq!(get("tcp", "noproto"), None);
        assert_eq!(get("tcp", "dup"), Some(1));
        assert_eq!(get("sctp", "sctpish"), Some(9));
        // Click's own names come first, for both protocols.
        assert_eq!(service_port("pptp", "udp"), Some(1723));
        assert_eq!(service_port("www", "tcp"), Some(80));
        assert_eq!(service_port("no-such-service", "tcp"), None);
    }
}
