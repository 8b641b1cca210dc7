//! The context a parser may consult: address names defined elsewhere in the
//! configuration (Click's `AddressInfo`).

/// What kind of address a name is being looked up as.
///
/// `AddressInfo(eth0 10.0.0.1/8 00:01:02:03:04:05)` defines `eth0` as all
/// three; a context answers with the text of the matching part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddrKind {
    /// An IPv4 address, as in `eth0` or `eth0:ip`; answer `a.b.c.d`.
    Ip,
    /// An IPv4 prefix, as in `eth0` or `eth0:ipnet`; answer `a.b.c.d/len`.
    IpPrefix,
    /// An Ethernet address, as in `eth0` or `eth0:eth`; answer
    /// `xx:xx:xx:xx:xx:xx`.
    Ether,
}

/// Resolves names that are not literal values, such as `AddressInfo` names.
///
/// Parsers call [`lookup_address`](ArgContext::lookup_address) only after the
/// text failed to parse as a literal.  The name is passed exactly as the user
/// wrote it, suffix included (`eth0:ip`, `eth0:eth`, `eth0`); interpreting
/// the suffix is the context's business.  The answer is parsed as a literal
/// (never looked up again).
pub trait ArgContext {
    /// Returns the literal text for `name` as an address of kind `kind`, or
    /// `None` if the name is unknown.
    fn lookup_address(&self, name: &str, kind: AddrKind) -> Option<String>;

    /// Returns the port `name` stands for with protocol `proto` (`"tcp"`,
    /// `"udp"`), as Click's PortInfo and service names define it, or
    /// `None` if this context knows no such name (the default).
    fn lookup_port(&self, name: &str, proto: &str) -> Option<u16> {
        let _ = (name, proto);
        None
    }
}

/// The context used by [`Args::new`](super::Args::new): it resolves nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoContext;

impl ArgContext for NoContext {
    fn lookup_address(&self, _name: &str, _kind: AddrKind) -> Option<String> {
        None
    }
}

/// A shared [`NoContext`] for use as `&dyn ArgContext`.
pub(crate) static NO_CONTEXT: NoContext = NoContext;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_context_resolves_nothing() {
        assert_eq!(NoContext.lookup_address("eth0", AddrKind::Ip), None);
        assert_eq!(NO_CONTEXT.lookup_address("eth0:eth", AddrKind::Ether), None);
    }
}
