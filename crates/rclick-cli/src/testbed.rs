//! `rclick testbed up|down`: a small virtual network in Linux network
//! namespaces for trying routers on real packet I/O.
//!
//! ```text
//!   rclick-h0 (eth0 192.0.2.2/24) ──veth── eth0 ┐
//!                                               ├ rclick-r (no kernel IP addresses)
//!   rclick-h1 (eth0 198.51.100.2/24) ─veth── eth1 ┘
//! ```
//!
//! Host `i` lives in namespace `rclick-hI` with interface `eth0`; the router
//! namespace `rclick-r` holds the other ends, `eth0`..`ethN-1`, which have no
//! kernel IP address (the kernel leaves their traffic to a user-level
//! router running there on FromDevice/ToDevice). Each host's only route
//! besides its own subnet is a default route through the router's address
//! on that subnet. IPv6 is off everywhere; checksum and segmentation
//! offloads are off on every veth, so frames are MTU-sized with complete
//! checksums, and receivers verify TCP and UDP checksums in software as
//! hosts behind real network cards would (a veth with receive offload on
//! trusts any frame sent without a checksum annotation, which would hide
//! a router's checksum bugs). Nothing is connected to the outside: no
//! route leaves the namespaces. Every namespace gets
//! `/etc/netns/NAME/resolv.conf` with `nameserver 127.0.0.1`, so programs
//! run in it resolve nothing outside.
//!
//! With `--kernel-forwarding` the router namespace is an ordinary Linux
//! router instead: its interfaces get the router addresses and
//! `net.ipv4.ip_forward` is 1, so the same hosts can be compared with the
//! kernel doing the forwarding (no user-level router may run then).
//!
//! `--prefix P` names everything `P-h0`.. and `P-r` instead of `rclick-…`,
//! so a second testbed (such as `rclick rfc2544`'s, `rclick-rfc-…`) can
//! exist beside the default one; `down --prefix P` removes only that one.
//!
//! It shells out to `ip`, `sysctl` and `ethtool` and needs root.
//! `down` removes whatever exists, so it also cleans up after a partial
//! `up`; a failing `up` cleans up after itself.

use std::process::Command;

/// Most hosts a testbed has.
pub const MAX_HOSTS: usize = 4;
/// The router's namespace.
pub const ROUTER_NS: &str = "rclick-r";
/// The default prefix of namespace and temporary interface names.
pub const DEFAULT_PREFIX: &str = "rclick";
/// The longest prefix: temporary veth names (`PREFIX-h0e`) must fit
/// Linux's 15 characters.
pub const MAX_PREFIX: usize = 11;

/// The router namespace of the testbed named by `prefix` (`rclick-r`).
pub fn router_ns(prefix: &str) -> String {
    format!("{prefix}-r")
}

/// Checks a prefix: 1 to [`MAX_PREFIX`] letters, digits, `-` or `_`.
pub fn check_prefix(prefix: &str) -> Result<(), String> {
    if prefix.is_empty()
        || prefix.len() > MAX_PREFIX
        || !prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "bad --prefix '{prefix}': 1 to {MAX_PREFIX} letters, digits, '-' or '_'"
        ));
    }
    Ok(())
}

/// One host and the router interface facing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The host's namespace (`rclick-h0`).
    pub host_ns: String,
    /// The host's address (`192.0.2.2`).
    pub host_ip: String,
    /// The host's Ethernet address.
    pub host_mac: String,
    /// The router's interface in its namespace (`eth0`).
    pub router_if: String,
    /// The router's address on this subnet (`192.0.2.1`), which only the
    /// user-level router answers for.
    pub router_ip: String,
    /// The router interface's Ethernet address.
    pub router_mac: String,
    /// The subnet (`192.0.2.0/24`).
    pub prefix: String,
}

/// The subnets, from the documentation ranges (RFC 5737).
const SUBNETS: [(&str, u8, u8); MAX_HOSTS] = [
    ("192.0.2", 0, 24),
    ("198.51.100", 0, 24),
    ("203.0.113", 0, 25),
    ("203.0.113", 128, 25),
];

/// The testbed's layout for `hosts` hosts (1 to [`MAX_HOSTS`]).
pub fn layout(hosts: usize) -> Vec<Link> {
    layout_in(DEFAULT_PREFIX, hosts)
}

/// The layout of the testbed named by `prefix`.
pub fn layout_in(prefix: &str, hosts: usize) -> Vec<Link> {
    (0..hosts.min(MAX_HOSTS))
        .map(|i| {
            let (net, base, len) = SUBNETS[i];
            Link {
                host_ns: format!("{prefix}-h{i}"),
                host_ip: format!("{net}.{}", base + 2),
                host_mac: format!("02:00:00:00:{i:02x}:02"),
                router_if: format!("eth{i}"),
                router_ip: format!("{net}.{}", base + 1),
                router_mac: format!("02:00:00:00:{i:02x}:01"),
                prefix: format!("{net}.{base}/{len}"),
            }
        })
        .collect()
}

fn prefix_len(l: &Link) -> &str {
    l.prefix.rsplit('/').next().unwrap_or("24")
}

/// Runs a command; an error says which command failed and why.
fn run(prog: &str, args: &[&str]) -> Result<(), String> {
    let out = Command::new(prog)
        .args(args)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "{prog}: command not found (install it: apt-get install {})",
                package_of(prog)
            ),
            _ => format!("{prog}: {e}"),
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{prog} {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn package_of(prog: &str) -> &'static str {
    match prog {
        "ethtool" => "ethtool",
        "ping" => "iputils-ping",
        "sysctl" => "procps",
        _ => "iproute2",
    }
}

fn in_ns(ns: &str, prog: &str, args: &[&str]) -> Result<(), String> {
    let mut v = vec!["netns", "exec", ns, prog];
    v.extend_from_slice(args);
    run("ip", &v)
}

fn namespaces(prefix: &str) -> Vec<String> {
    let mut v = vec![router_ns(prefix)];
    v.extend((0..MAX_HOSTS).map(|i| format!("{prefix}-h{i}")));
    v
}

/// Whether network namespace `ns` exists.
pub fn ns_exists(ns: &str) -> bool {
    std::path::Path::new("/run/netns").join(ns).exists()
}

/// Whether this process runs as root.
pub fn is_root() -> bool {
    // /proc/self/status: "Uid:\treal\teffective\t..."
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

fn make_ns(ns: &str) -> Result<(), String> {
    run("ip", &["netns", "add", ns])?;
    let dir = format!("/etc/netns/{ns}");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
    std::fs::write(format!("{dir}/resolv.conf"), "nameserver 127.0.0.1\n")
        .map_err(|e| format!("{dir}/resolv.conf: {e}"))?;
    for key in [
        "net.ipv6.conf.all.disable_ipv6=1",
        "net.ipv6.conf.default.disable_ipv6=1",
    ] {
        in_ns(ns, "sysctl", &["-q", "-w", key])?;
    }
    run("ip", &["-n", ns, "link", "set", "lo", "up"])
}

/// Turns off checksum (send and receive) and segmentation offloads
/// (ethtool may be missing: then FromDevice completes partial checksums
/// itself, and receivers trust checksums).
fn offloads_off(ns: &str, dev: &str, warnings: &mut Vec<String>) -> Result<(), String> {
    match in_ns(
        ns,
        "ethtool",
        &[
            "-K", dev, "rx", "off", "tx", "off", "tso", "off", "gso", "off", "gro", "off",
        ],
    ) {
        Ok(()) => Ok(()),
        Err(e) if e.contains("not found") || e.contains("No such file") => {
            warnings.push(format!(
                "ethtool is missing: offloads stay on in {ns}/{dev} (apt-get install ethtool)"
            ));
            Ok(())
        }
        Err(e) => Err(e),
    }
}

fn up_inner(
    prefix: &str,
    links: &[Link],
    kernel_forwarding: bool,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    let router = router_ns(prefix);
    make_ns(&router)?;
    if kernel_forwarding {
        in_ns(&router, "sysctl", &["-q", "-w", "net.ipv4.ip_forward=1"])?;
    }
    for (i, l) in links.iter().enumerate() {
        make_ns(&l.host_ns)?;
        // Create the pair with temporary names, then move and rename.
        let a = format!("{prefix}-h{i}e");
        let b = format!("{prefix}-r{i}e");
        run(
            "ip",
            &["link", "add", &a, "type", "veth", "peer", "name", &b],
        )?;
        run("ip", &["link", "set", &a, "netns", &l.host_ns])?;
        run("ip", &["link", "set", &b, "netns", &router])?;
        let h = ["-n", l.host_ns.as_str()];
        let r = ["-n", router.as_str()];
        let cmd = |ns: &[&str], rest: &[&str]| {
            let mut v: Vec<&str> = ns.to_vec();
            v.extend_from_slice(rest);
            run("ip", &v)
        };
        cmd(&h, &["link", "set", &a, "name", "eth0"])?;
        cmd(&r, &["link", "set", &b, "name", &l.router_if])?;
        cmd(&h, &["link", "set", "eth0", "address", &l.host_mac])?;
        cmd(&r, &["link", "set", &l.router_if, "address", &l.router_mac])?;
        offloads_off(&l.host_ns, "eth0", warnings)?;
        offloads_off(&router, &l.router_if, warnings)?;
        let addr = format!("{}/{}", l.host_ip, prefix_len(l));
        cmd(&h, &["addr", "add", &addr, "dev", "eth0"])?;
        cmd(&h, &["link", "set", "eth0", "up"])?;
        if kernel_forwarding {
            let raddr = format!("{}/{}", l.router_ip, prefix_len(l));
            cmd(&r, &["addr", "add", &raddr, "dev", &l.router_if])?;
        }
        cmd(&r, &["link", "set", &l.router_if, "up"])?;
        cmd(
            &h,
            &[
                "route",
                "add",
                "default",
                "via",
                &l.router_ip,
                "dev",
                "eth0",
            ],
        )?;
    }
    Ok(())
}

/// Creates the testbed with `hosts` hosts; with `kernel_forwarding`, the
/// router namespace's kernel routes between them. On failure, removes
/// whatever it created. Returns warnings to print.
pub fn up(hosts: usize, kernel_forwarding: bool) -> Result<Vec<String>, String> {
    up_in(DEFAULT_PREFIX, hosts, kernel_forwarding)
}

/// [`up`] for the testbed named by `prefix`.
pub fn up_in(prefix: &str, hosts: usize, kernel_forwarding: bool) -> Result<Vec<String>, String> {
    check_prefix(prefix)?;
    let down_hint = if prefix == DEFAULT_PREFIX {
        "rclick testbed down".to_string()
    } else {
        format!("rclick testbed down --prefix {prefix}")
    };
    if !(1..=MAX_HOSTS).contains(&hosts) {
        return Err(format!("--hosts must be between 1 and {MAX_HOSTS}"));
    }
    if !is_root() {
        return Err("creating network namespaces needs root: run `sudo rclick testbed up`".into());
    }
    if let Some(ns) = namespaces(prefix).into_iter().find(|n| ns_exists(n)) {
        return Err(format!(
            "namespace {ns} already exists: run `{down_hint}` first"
        ));
    }
    let links = layout_in(prefix, hosts);
    let mut warnings = Vec::new();
    if let Err(e) = up_inner(prefix, &links, kernel_forwarding, &mut warnings) {
        let _ = down_in(prefix);
        return Err(e);
    }
    Ok(warnings)
}

/// Removes every testbed namespace that exists (and its veths and
/// `/etc/netns` files). Errors are collected, not fatal: it removes as
/// much as it can.
pub fn down() -> Result<(), String> {
    down_in(DEFAULT_PREFIX)
}

/// [`down`] for the testbed named by `prefix`.
pub fn down_in(prefix: &str) -> Result<(), String> {
    check_prefix(prefix)?;
    if !is_root() {
        return Err(
            "removing network namespaces needs root: run `sudo rclick testbed down`".into(),
        );
    }
    let mut errors = Vec::new();
    for ns in namespaces(prefix) {
        if ns_exists(&ns) {
            if let Err(e) = run("ip", &["netns", "del", &ns]) {
                errors.push(e);
            }
        }
        let dir = format!("/etc/netns/{ns}");
        if std::path::Path::new(&dir).exists() {
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                errors.push(format!("{dir}: {e}"));
            }
        }
    }
    // Temporary veth names survive only if up failed between creating and
    // moving a pair; deleting one end deletes both.
    for i in 0..MAX_HOSTS {
        let a = format!("{prefix}-h{i}e");
        if std::path::Path::new("/sys/class/net").join(&a).exists() {
            if let Err(e) = run("ip", &["link", "del", &a]) {
                errors.push(e);
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// The layout as a table, printed by `up`.
pub fn describe(hosts: usize, kernel_forwarding: bool) -> String {
    describe_in(DEFAULT_PREFIX, hosts, kernel_forwarding)
}

/// [`describe`] for the testbed named by `prefix`.
pub fn describe_in(prefix: &str, hosts: usize, kernel_forwarding: bool) -> String {
    let router = router_ns(prefix);
    let mut s = if kernel_forwarding {
        format!("router namespace {router} (kernel forwarding, ip_forward=1):\n")
    } else {
        format!("router namespace {router} (no kernel addresses):\n")
    };
    for l in layout_in(prefix, hosts) {
        s.push_str(&format!(
            "  {} {} {}  <->  {} eth0 {}/{} {}  (default via {})\n",
            l.router_if,
            l.router_ip,
            l.router_mac,
            l.host_ns,
            l.host_ip,
            prefix_len(&l),
            l.host_mac,
            l.router_ip
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_uses_documentation_addresses() {
        let l = layout(4);
        assert_eq!(l.len(), 4);
        assert_eq!(l[0].host_ip, "192.0.2.2");
        assert_eq!(l[0].router_ip, "192.0.2.1");
        assert_eq!(l[1].prefix, "198.51.100.0/24");
        assert_eq!(l[2].prefix, "203.0.113.0/25");
        assert_eq!(l[3].host_ip, "203.0.113.130");
        assert_eq!(l[3].router_ip, "203.0.113.129");
        assert_eq!(l[1].router_mac, "02:00:00:00:01:01");
        assert_eq!(layout(9).len(), MAX_HOSTS);
        assert!(describe(2, false).contains("eth1 198.51.100.1"));
        assert!(describe(2, false).contains("no kernel addresses"));
        assert!(describe(2, true).contains("ip_forward=1"));
    }

    #[test]
    fn prefixes_name_everything() {
        let l = layout_in("rclick-rfc", 2);
        assert_eq!(l[1].host_ns, "rclick-rfc-h1");
        assert_eq!(l[1].host_ip, layout(2)[1].host_ip);
        assert_eq!(router_ns("rclick-rfc"), "rclick-rfc-r");
        assert_eq!(router_ns(DEFAULT_PREFIX), ROUTER_NS);
        assert!(describe_in("rclick-rfc", 2, false).contains("rclick-rfc-r"));
        assert!(check_prefix("rclick-rfc").is_ok());
        assert!(check_prefix("").is_err());
        assert!(check_prefix("much-too-long")
            .unwrap_err()
            .contains("--prefix"));
        assert!(check_prefix("a/b").is_err());
        assert!(up_in("a b", 2, false).is_err());
        assert!(down_in("../x").is_err());
    }

    #[test]
    fn host_count_is_checked() {
        assert!(up(0, false).unwrap_err().contains("--hosts"));
        assert!(up(5, true).unwrap_err().contains("--hosts"));
    }

    /// conf/iprouter-linux.click, conf/iprouter-linux-4.click and
    /// conf/ip6router-linux.click use the
    /// testbed's addresses, and MTU defines reach their IPFragmenters and
    /// "fragmentation needed" errors.
    #[test]
    fn router_configs_match_the_layout() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conf/");
        for (file, hosts) in [
            ("iprouter-linux.click", 2),
            ("iprouter-linux-4.click", 4),
            ("ip6router-linux.click", 2),
        ] {
            let text = std::fs::read_to_string(format!("{root}{file}")).unwrap();
            for l in layout(hosts) {
                let want = format!(
                    "{} {}/{} {}",
                    l.router_if,
                    l.router_ip,
                    prefix_len(&l),
                    l.router_mac
                );
                assert!(text.contains(&want), "{file} lacks `{want}`");
            }
            let last = hosts - 1;
            let defs = vec![(format!("MTU{last}"), "1000".to_string())];
            let flat = crate::parse(&text, file, &defs).unwrap();
            let config = |name: &str| {
                flat.elements
                    .iter()
                    .find(|e| e.name == name)
                    .map(|e| e.config.clone())
                    .unwrap_or_else(|| panic!("{file}: no element {name}"))
            };
            assert_eq!(config(&format!("fr{last}")), "1000", "{file}");
            assert_eq!(config("fr0"), "1500", "{file}");
            if file.starts_with("ip6") {
                // IPv6 is not fragmented: CheckLength and packet too big.
                assert_eq!(config(&format!("mtu{last}")), "1000", "{file}");
            }
            let needfrag: Vec<_> = flat
                .elements
                .iter()
                .filter(|e| e.class == "ICMPError" && e.config.contains("needfrag"))
                .map(|e| e.config.clone())
                .collect();
            assert_eq!(needfrag.len(), hosts, "{file}");
            assert!(
                needfrag.iter().any(|c| c.ends_with("PMTU 1000")),
                "{file}: {needfrag:?}"
            );
        }
    }
}
