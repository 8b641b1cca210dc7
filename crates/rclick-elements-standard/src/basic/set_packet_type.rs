//! # SetPacketType
//!
//! `SetPacketType(TYPE)`
//!
//! **Category:** basic. Sets packets' packet type annotation.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's packet type annotation to TYPE: one of `HOST`,
//! `BROADCAST`, `MULTICAST`, `OTHERHOST`, `OUTGOING`, `LOOPBACK` or
//! `FASTROUTE` (case does not matter).
//!
//! Keywords: `TYPE` (word, mandatory).
//!
//! ## Annotations
//!
//! Sets the packet type annotation.
//!
//! ## Handlers
//!
//! * `type` (read/write): TYPE.
//!
//! ## Examples
//!
//! ```text
//! ... -> SetPacketType(OTHERHOST) -> ...
//! ```
//!
//! ## See also
//!
//! CheckPacketType

use super::each_packet::{pull_each, push_each};
use rclick_core::args::{Args, Word};
use rclick_core::{Ctx, Element, HandlerDef, PacketBatch};
use rclick_packet::PacketType;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Type = read_write("type"),
    }
}

/// The SetPacketType element.
#[derive(Default)]
pub struct SetPacketType {
    ptype: PacketType,
}

fn parse_type(s: &str) -> Result<PacketType, String> {
    PacketType::from_name(s.trim())
        .ok_or_else(|| format!("unrecognized packet type '{}'", s.trim()))
}

impl Element for SetPacketType {
    fn class_name(&self) -> &'static str {
        "SetPacketType"
    }
    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut w = Word::default();
        Args::new(conf)
            .read_mp("TYPE", &mut w)
            .complete()
            .map_err(|e| e.to_string())?;
        self.ptype = parse_type(&w.0)?;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let ptype = self.ptype;
        push_each(batch, cx, |p| p.set_packet_type_anno(ptype));
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let ptype = self.ptype;
        pull_each(max, cx, |p| p.set_packet_type_anno(ptype))
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let Some(H::Type) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        Ok(self.ptype.name().to_string())
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let Some(H::Type) = H::from_id(id) else {
            return Err("no such handler".into());
        };
        self.ptype = parse_type(value)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    #[test]
    fn types() {
        let r = testing::build(
            "Idle -> s :: SetPacketType(otherhost) -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        assert_eq!(testing::read(&r, "s.type"), "OTHERHOST");
        let e = testing::build(
            "Idle -> SetPacketType(NOWHERE) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("unrecognized packet type 'NOWHERE'"), "{e}");
    }
}
