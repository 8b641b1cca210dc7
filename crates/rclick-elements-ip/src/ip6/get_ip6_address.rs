//! # GetIP6Address
//!
//! `GetIP6Address(OFFSET)`
//!
//! **Category:** ip6. Sets the destination IPv6 address annotation from packet data.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Copies the 16 bytes at OFFSET in each packet's data into its destination
//! IPv6 address annotation. OFFSET is usually 24, the destination address
//! of an IPv6 header at the start of the data. A packet shorter than
//! OFFSET + 16 keeps its annotation and is counted in `short`.
//!
//! The annotation shares its first four bytes with the destination IPv4
//! annotation, as in Click.
//!
//! ## Annotations
//!
//! Sets the destination IPv6 address annotation.
//!
//! ## Handlers
//!
//! * `short` (read): packets too short to hold the address.
//!
//! ## Examples
//!
//! ```text
//! ... -> GetIP6Address(24) -> LookupIP6Route(...) -> ...
//! ```
//!
//! ## See also
//!
//! SetIP6Address, LookupIP6Route, GetIPAddress

use std::net::Ipv6Addr;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet};

/// The GetIP6Address element.
#[derive(Default)]
pub struct GetIP6Address {
    offset: usize,
    short: u64,
}

rclick_core::handlers! {
    /// GetIP6Address's handlers (the manual's list).
    enum H {
        Short = read("short"),
    }
}

impl Element for GetIP6Address {
    fn class_name(&self) -> &'static str {
        "GetIP6Address"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut offset = 0usize;
        Args::new(conf)
            .read_mp("OFFSET", &mut offset)
            .complete()
            .map_err(|e| e.to_string())?;
        self.offset = offset;
        Ok(())
    }
    fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        let a = p
            .data()
            .get(self.offset..)
            .and_then(|d| d.first_chunk::<16>())
            .copied();
        match a {
            Some(a) => p.set_dst_ip6_anno(Ipv6Addr::from(a)),
            None => self.short += 1,
        }
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.short.to_string())
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::ip6_hex;
    use rclick_core::testing;

    #[test]
    fn copies_destination() {
        let d = ip6_hex("2001:db8::1", "2001:db8:1::2", 17, 64, &[]);
        let conf = format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> g :: GetIP6Address(24)
               -> rt :: LookupIP6Route(2001:db8:1::/48 1, ::/0 0) -> Discard;
             rt[1] -> Print(one, 0) -> GetIP6Address(30) -> h :: GetIP6Address(25) -> Discard;"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(r.take_log(), ["one:   40"]);
        assert_eq!(testing::read(&r, "g.short"), "0");
        assert_eq!(testing::read(&r, "h.short"), "1");
        config_errors(
            &registry(),
            |a| format!("Idle -> GetIP6Address({a}) -> Discard"),
            &[("", "OFFSET"), ("x", "OFFSET")],
        );
    }
}
