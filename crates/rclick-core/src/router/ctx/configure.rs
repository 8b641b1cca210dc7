//! [`ConfigureCx`]: what an element sees while it is configured (names,
//! other elements' configurations, requirements), and the [`NameTable`]
//! of values elements define for others.

use crate::args::ArgContext;
use crate::element::{TaskId, TimerId};
use crate::router::{ElementId, ElementInfo};
use crate::spec::Processing;
use std::collections::HashMap;

/// Tasks and timers an element made at run time may take as its own
/// ([`Ctx::create_element`]): its holder's spare ones, whose runs the
/// holder passes on to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loan {
    /// Tasks.
    pub tasks: Vec<TaskId>,
    /// Timers.
    pub timers: Vec<TimerId>,
}

/// Named values elements define for others (AddressInfo's `eth0:ip`),
/// keyed by kind and name: Click's NameInfo.
#[derive(Clone, Debug, Default)]
pub struct NameTable {
    map: HashMap<(String, String), String>,
}

impl NameTable {
    /// Defines `name` of `kind` (`"ip"`, `"eth"`, `"ip6"`, `"prefix"`...).
    pub fn define(&mut self, kind: &str, name: &str, value: &str) {
        self.map
            .insert((kind.to_string(), name.to_string()), value.to_string());
    }
    /// Looks a name up.
    pub fn lookup(&self, kind: &str, name: &str) -> Option<&str> {
        self.map
            .get(&(kind.to_string(), name.to_string()))
            .map(String::as_str)
    }
}

impl NameTable {
    /// Click's `NAME:bcast`: the broadcast address of the prefix `base`.
    fn bcast_of(&self, base: &str) -> Option<String> {
        let p = crate::args::parse_ip_prefix(self.lookup("ipnet", base)?).ok()?;
        let a = u32::from(p.addr) | !u32::from(p.mask);
        Some(std::net::Ipv4Addr::from(a).to_string())
    }

    /// Click's `NAME:gw`: the first host address of the prefix `base`.
    fn gw_of(&self, base: &str) -> Option<String> {
        let p = crate::args::parse_ip_prefix(self.lookup("ipnet", base)?).ok()?;
        let a = (u32::from(p.addr) & u32::from(p.mask)) | 1;
        Some(std::net::Ipv4Addr::from(a).to_string())
    }
}

impl ArgContext for NameTable {
    /// AddressInfo defines kinds `ip`, `ipnet`, `eth` and `bcast`. As in
    /// Click, a suffix (case-insensitive) picks the kind whatever kind the
    /// parser asks for: `:ip`/`:ip4` the address, `:ipnet`/`:ip4net`/`:net`
    /// the prefix, `:eth`/`:ethernet` the Ethernet address, `:bcast` the
    /// prefix's broadcast address and `:gw` a name defined as `NAME:gw`, else
    /// the prefix's first host. Any other suffix resolves nothing.
    fn lookup_address(&self, name: &str, kind: crate::args::AddrKind) -> Option<String> {
        use crate::args::AddrKind;
        if let Some((base, suffix)) = name.rsplit_once(':') {
            let suffix = suffix.to_ascii_lowercase();
            return match suffix.as_str() {
                "ip" | "ip4" => self.lookup("ip", base).map(str::to_string),
                "ipnet" | "ip4net" | "net" => self.lookup("ipnet", base).map(str::to_string),
                "eth" | "ethernet" => self.lookup("eth", base).map(str::to_string),
                "bcast" => self
                    .lookup("bcast", base)
                    .map(str::to_string)
                    .or_else(|| self.bcast_of(base)),
                "gw" => self
                    .lookup("ip", name)
                    .map(str::to_string)
                    .or_else(|| self.gw_of(base)),
                _ => None,
            };
        }
        let k = match kind {
            AddrKind::Ip => "ip",
            AddrKind::IpPrefix => "ipnet",
            AddrKind::Ether => "eth",
        };
        self.lookup(k, name).map(str::to_string)
    }
}

/// What an element sees while it parses its configuration.
pub struct ConfigureCx<'a> {
    id: ElementId,
    info: &'a [ElementInfo],
    names: NamesRef<'a>,
    nthreads: usize,
    /// Lines to print once configure returns (warnings, messages).
    pub(crate) messages: Vec<String>,
}

enum NamesRef<'a> {
    Mut(&'a mut NameTable),
    Shared(&'a NameTable),
}

impl<'a> ConfigureCx<'a> {
    pub(crate) fn new(
        id: ElementId,
        info: &'a [ElementInfo],
        names: &'a mut NameTable,
        nthreads: usize,
    ) -> ConfigureCx<'a> {
        ConfigureCx {
            id,
            info,
            names: NamesRef::Mut(names),
            nthreads,
            messages: Vec::new(),
        }
    }

    pub(crate) fn new_shared(
        id: ElementId,
        info: &'a [ElementInfo],
        names: &'a NameTable,
        nthreads: usize,
    ) -> ConfigureCx<'a> {
        ConfigureCx {
            id,
            info,
            names: NamesRef::Shared(names),
            nthreads,
            messages: Vec::new(),
        }
    }

    /// This element's index.
    pub fn id(&self) -> ElementId {
        self.id
    }
    /// This element's name.
    pub fn name(&self) -> &str {
        &self.info[self.id].name
    }
    /// Number of inputs.
    pub fn ninputs(&self) -> usize {
        self.info[self.id].inputs.len()
    }
    /// Number of outputs.
    pub fn noutputs(&self) -> usize {
        self.info[self.id].outputs.len()
    }
    /// Whether input `port` is push.
    pub fn input_is_push(&self, port: usize) -> bool {
        self.info[self.id].inputs.get(port) == Some(&Processing::Push)
    }
    /// Whether output `port` is push.
    pub fn output_is_push(&self, port: usize) -> bool {
        self.info[self.id].outputs.get(port) == Some(&Processing::Push)
    }
    /// Finds another element by name, Click-style: first relative to this
    /// element's compound prefix, then globally.
    pub fn find(&self, name: &str) -> Option<ElementId> {
        find_relative(self.info, self.id, name)
    }
    /// Static facts about element `e`.
    pub fn element_info(&self, e: ElementId) -> &ElementInfo {
        &self.info[e]
    }
    /// Number of elements in the router.
    pub fn nelements(&self) -> usize {
        self.info.len()
    }
    /// Number of router threads (`-j`).
    pub fn nthreads(&self) -> usize {
        self.nthreads
    }
    /// Elements inside compound `name` (resolved like [`ConfigureCx::find`]):
    /// those named `prefix/...`, with the prefix found.
    pub fn compound_members(&self, name: &str) -> Option<(String, Vec<ElementId>)> {
        let own = &self.info[self.id].name;
        let mut candidates = Vec::new();
        let mut prefix = own.as_str();
        while let Some(pos) = prefix.rfind('/') {
            prefix = &prefix[..pos];
            candidates.push(format!("{prefix}/{name}"));
        }
        candidates.push(name.to_string());
        for c in candidates {
            let pre = format!("{c}/");
            let members: Vec<ElementId> = (0..self.info.len())
                .filter(|&i| self.info[i].name.starts_with(&pre))
                .collect();
            if !members.is_empty() {
                return Some((c, members));
            }
        }
        None
    }
    /// Defines a name for other elements (AddressInfo). Ignored at run time.
    pub fn define_name(&mut self, kind: &str, name: &str, value: &str) {
        if let NamesRef::Mut(n) = &mut self.names {
            n.define(kind, name, value);
        }
    }
    /// Looks a name up.
    pub fn lookup_name(&self, kind: &str, name: &str) -> Option<&str> {
        match &self.names {
            NamesRef::Mut(n) => n.lookup(kind, name),
            NamesRef::Shared(n) => n.lookup(kind, name),
        }
    }
    /// Reports a warning; it is printed with the element's context
    /// (`file:line: While configuring 'x :: C':` / `  warning: ...`).
    pub fn warning(&mut self, msg: impl std::fmt::Display) {
        self.messages.push(format!("warning: {msg}"));
    }

    /// Prints a message with the element's context (Click's
    /// `errh->message`).
    pub fn message(&mut self, msg: impl std::fmt::Display) {
        self.messages.push(msg.to_string());
    }

    /// The context for argument parsers (address names).
    pub fn arg_context(&self) -> &dyn ArgContext {
        match &self.names {
            NamesRef::Mut(n) => &**n,
            NamesRef::Shared(n) => *n,
        }
    }
}

/// Click's element lookup from inside a compound: `a/b/c` asking for `x`
/// tries `a/b/x`, `a/x`, then `x`.
pub(crate) fn find_relative(
    info: &[ElementInfo],
    from: ElementId,
    name: &str,
) -> Option<ElementId> {
    let own = &info[from].name;
    let mut prefix = own.as_str();
    while let Some(pos) = prefix.rfind('/') {
        prefix = &prefix[..pos];
        let full = format!("{prefix}/{name}");
        if let Some(i) = info.iter().position(|e| e.name == full) {
            return Some(i);
        }
    }
    info.iter().position(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::AddrKind;

    #[test]
    fn names_resolve_by_suffix_whatever_kind_is_asked() {
        let mut t = NameTable::default();
        t.define("ip", "eth0", "192.0.2.1");
        t.define("ipnet", "eth0", "192.0.2.1/24");
        t.define("eth", "eth0", "00:00:5e:00:53:01");
        assert_eq!(t.lookup("ip", "eth0"), Some("192.0.2.1"));
        assert_eq!(t.lookup("ip", "eth1"), None);
        let get = |n: &str| t.lookup_address(n, AddrKind::Ip);
        assert_eq!(get("eth0:ip").as_deref(), Some("192.0.2.1"));
        assert_eq!(get("eth0:NET").as_deref(), Some("192.0.2.1/24"));
        assert_eq!(get("eth0:eth").as_deref(), Some("00:00:5e:00:53:01"));
        assert_eq!(get("eth0:bcast").as_deref(), Some("192.0.2.255"));
        assert_eq!(get("eth0:gw").as_deref(), Some("192.0.2.1"));
        assert_eq!(get("eth0:nonsense"), None);
    }
}
