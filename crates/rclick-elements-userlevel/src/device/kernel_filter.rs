//! # KernelFilter
//!
//! `KernelFilter(FILTERS... [, IPTABLES_COMMAND])`
//!
//! **Category:** comm. Keeps the host's network stack from seeing packets
//! of a device (user-level).
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! When a router reads a device with FromDevice, the host's kernel still
//! receives every packet too, and answers some of them (TCP resets,
//! ICMP errors) behind the router's back. KernelFilter installs firewall
//! rules that make the kernel drop them, when the router initializes, and
//! removes them when the router stops (also after a hot swap replaced it,
//! or when another element's initialization failed).
//!
//! Each argument is a filter; the only kind is `drop dev DEVNAME`, which
//! runs `iptables -A INPUT -i DEVNAME -j DROP` (and `-D` to remove it).
//! Rules are added in argument order and removed in reverse order. A
//! command that fails, or prints anything, fails initialization with the
//! command and its output; the rules added before it are removed.
//!
//! The rules live outside the process: a router killed with SIGKILL leaves
//! them behind (remove them with `iptables -D INPUT -i DEVNAME -j DROP`).
//! SIGINT and SIGTERM stop the router cleanly, and the rules go.
//!
//! Keywords:
//!
//! * `IPTABLES_COMMAND` (string): the iptables program, with any leading
//!   arguments (split at spaces, no shell). Default `/sbin/iptables` or
//!   `/usr/sbin/iptables`, whichever exists (`no 'iptables' executable
//!   found` otherwise).
//!
//! ## Handlers
//!
//! * `devices` (read): the devices whose packets are dropped now, one per
//!   line.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> ... -> ToDevice(eth0);
//! KernelFilter(drop dev eth0);
//! ```
//!
//! ## See also
//!
//! FromDevice, ToDevice, FromHost

use std::process::Command;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx};

/// Where Click looks for iptables.
const IPTABLES_PATHS: [&str; 2] = ["/sbin/iptables", "/usr/sbin/iptables"];

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Devices = read("devices"),
    }
}

/// The KernelFilter element.
#[derive(Default)]
pub struct KernelFilter {
    command: Vec<String>,
    devices: Vec<String>,
    /// The devices whose rule is installed now, in installation order.
    installed: Vec<String>,
}

/// Splits one `drop dev DEVNAME` filter.
fn parse_filter(arg: &str) -> Result<String, String> {
    let words: Vec<&str> = arg.split_whitespace().collect();
    let missing = ["ACTION", "TYPE", "ARG"];
    match words.as_slice() {
        ["drop", "dev", dev] => Ok((*dev).to_string()),
        [_, _, _] => Err("arguments must follow 'drop dev DEVNAME'".into()),
        w if w.len() < 3 => Err(missing[w.len()..]
            .iter()
            .map(|k| format!("{k}: required argument missing"))
            .collect::<Vec<_>>()
            .join("\n")),
        _ => Err("too many arguments".into()),
    }
}

impl KernelFilter {
    /// Runs the iptables command that adds (`-A`) or deletes (`-D`) the rule
    /// for `dev`.
    fn rule(&self, op: &str, dev: &str) -> Result<(), String> {
        let (prog, lead) = self
            .command
            .split_first()
            .ok_or("no 'iptables' executable found")?;
        let args = ["INPUT", "-i", dev, "-j", "DROP"];
        let text = format!("{} {op} {}", self.command.join(" "), args.join(" "));
        let out = Command::new(prog)
            .args(lead)
            .arg(op)
            .args(args)
            .output()
            .map_err(|e| format!("{text}: {e}"))?;
        let mut said = String::from_utf8_lossy(&out.stdout).into_owned();
        said.push_str(&String::from_utf8_lossy(&out.stderr));
        let said = said.trim();
        if !out.status.success() || !said.is_empty() {
            let said = if said.is_empty() {
                out.status.to_string()
            } else {
                said.to_string()
            };
            return Err(format!("{text}: {said}"));
        }
        Ok(())
    }

    /// Removes every installed rule, newest first; returns the failures.
    fn remove_all(&mut self) -> Vec<String> {
        let mut errors = Vec::new();
        while let Some(dev) = self.installed.pop() {
            if let Err(e) = self.rule("-D", &dev) {
                errors.push(e);
            }
        }
        errors
    }
}

impl Element for KernelFilter {
    fn class_name(&self) -> &'static str {
        "KernelFilter"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut command = String::new();
        let mut filters = Vec::new();
        for a in conf {
            let t = a.trim();
            if let Some(rest) = t.strip_prefix("IPTABLES_COMMAND") {
                if rest.is_empty() || rest.starts_with(char::is_whitespace) {
                    Args::new(std::slice::from_ref(a))
                        .read("IPTABLES_COMMAND", &mut command)
                        .complete()
                        .map_err(|e| e.to_string())?;
                    continue;
                }
            }
            filters.push(parse_filter(t)?);
        }
        self.command = if command.trim().is_empty() {
            IPTABLES_PATHS
                .iter()
                .find(|p| std::path::Path::new(p).exists())
                .map(|p| vec![p.to_string()])
                .unwrap_or_default()
        } else {
            command.split_whitespace().map(str::to_string).collect()
        };
        self.devices = filters;
        Ok(())
    }

    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        if self.devices.is_empty() {
            return Ok(());
        }
        if self.command.is_empty() {
            return Err("no 'iptables' executable found".into());
        }
        for dev in self.devices.clone() {
            if let Err(e) = self.rule("-A", &dev) {
                let mut errors = vec![e];
                errors.extend(self.remove_all());
                return Err(errors.join("\n"));
            }
            self.installed.push(dev);
        }
        Ok(())
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        for e in self.remove_all() {
            cx.log(format!("{}: {e}", cx.declaration()));
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Devices) => Ok(self.installed.iter().map(|d| format!("{d}\n")).collect()),
            _ => Err("no such handler".into()),
        }
    }
}

impl Drop for KernelFilter {
    /// A router dropped without cleanup (its build failed after this
    /// element initialized) still removes the rules.
    fn drop(&mut self) {
        for e in self.remove_all() {
            eprintln!("KernelFilter: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::build_err;
    use super::parse_filter;

    // The reference's messages for the same configurations.
    #[test]
    fn filters_as_click() {
        assert_eq!(parse_filter("drop dev eth0").unwrap(), "eth0");
        assert_eq!(
            parse_filter("drop dev").unwrap_err(),
            "ARG: required argument missing"
        );
        assert_eq!(
            parse_filter("accept dev eth0").unwrap_err(),
            "arguments must follow 'drop dev DEVNAME'"
        );
        assert_eq!(
            parse_filter("drop").unwrap_err(),
            "TYPE: required argument missing\nARG: required argument missing"
        );
        assert_eq!(
            parse_filter("drop dev a b").unwrap_err(),
            "too many arguments"
        );
        let e = build_err("KernelFilter(drop if eth0)");
        assert!(
            e.contains("arguments must follow 'drop dev DEVNAME'"),
            "{e}"
        );
    }

    #[test]
    fn failing_command_fails_initialization() {
        // `false` prints nothing and fails: nothing is installed
        let e = build_err("KernelFilter(drop dev rcx-none0, IPTABLES_COMMAND false)");
        assert!(e.contains("false -A INPUT -i rcx-none0 -j DROP"), "{e}");
    }

    #[test]
    fn rules_added_and_removed_in_order() {
        // a stand-in for iptables that records its arguments
        let dir = std::env::temp_dir().join(format!("rclick-kf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("log");
        let script = dir.join("fake-iptables");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$@\" >> {}\n", log.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let r = rclick_core::testing::build(
            &format!(
                "k :: KernelFilter(drop dev a0, drop dev b0, IPTABLES_COMMAND {})",
                script.display()
            ),
            &super::super::test_util::registry(),
            true,
        )
        .unwrap();
        assert_eq!(rclick_core::testing::read(&r, "k.devices"), "a0\nb0\n");
        r.cleanup();
        r.cleanup();
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            text.lines().collect::<Vec<_>>(),
            [
                "-A INPUT -i a0 -j DROP",
                "-A INPUT -i b0 -j DROP",
                "-D INPUT -i b0 -j DROP",
                "-D INPUT -i a0 -j DROP"
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
