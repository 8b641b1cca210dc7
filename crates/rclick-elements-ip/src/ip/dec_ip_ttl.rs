//! # DecIPTTL
//!
//! `DecIPTTL([keywords ACTIVE, MULTICAST])`
//!
//! **Category:** ip. Decrements the IP time-to-live, dropping dead packets.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Expects IP packets (with the IP header annotation). If a packet's TTL is
//! 1 or 0 it has expired: it is sent out output 1 unchanged (to ICMPError,
//! typically) or dropped if there is no output 1, and counted. Otherwise
//! the TTL is decremented, the header checksum is updated incrementally
//! (RFC 1624), and the packet leaves on output 0.
//!
//! Keywords:
//!
//! * `ACTIVE` (boolean, default true): if false, packets pass unchanged.
//! * `MULTICAST` (boolean, default true): if false, packets with multicast
//!   destinations pass unchanged.
//!
//! ## Annotations
//!
//! Uses the IP header annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): expired packets.
//! * `active` (read/write): ACTIVE.
//!
//! ## Examples
//!
//! ```text
//! dt :: DecIPTTL;
//! ... -> dt -> ...;
//! dt[1] -> ICMPError(18.26.4.24, timeexceeded) -> ...
//! ```
//!
//! ## See also
//!
//! ICMPError, CheckIPHeader

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch};
use rclick_wire::Ipv4Packet;

/// The DecIPTTL element.
pub struct DecIPTTL {
    active: bool,
    multicast: bool,
    drops: u64,
}

impl Default for DecIPTTL {
    fn default() -> Self {
        DecIPTTL {
            active: true,
            multicast: true,
            drops: 0,
        }
    }
}

impl DecIPTTL {
    /// Returns false if the packet expired.
    #[inline]
    fn process(&self, p: &mut Packet) -> bool {
        if !self.active {
            return true;
        }
        let Some(h) = p.ip_header() else { return true };
        if h.len() < 20 {
            return true;
        }
        if h[8] <= 1 {
            return false;
        }
        if !self.multicast && (h[16] & 0xf0) == 0xe0 {
            return true;
        }
        if let Some(h) = p.ip_header_mut() {
            let mut v = Ipv4Packet::new_unchecked(&mut h[..20]);
            v.dec_ttl_update_checksum();
        }
        true
    }
}

impl Element for DecIPTTL {
    fn class_name(&self) -> &'static str {
        "DecIPTTL"
    }
    /// Each packet alone through `simple_action`: fusable.
    fn is_simple(&self) -> bool {
        true
    }
    fn port_count(&self) -> &'static str {
        "1/1-2"
    }
    fn processing(&self) -> &'static str {
        "a/ah"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut active = true;
        let mut multicast = true;
        Args::new(conf)
            .read("ACTIVE", &mut active)
            .read("MULTICAST", &mut multicast)
            .complete()
            .map_err(|e| e.to_string())?;
        self.active = active;
        self.multicast = multicast;
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn push(&mut self, _port: usize, mut live: PacketBatch, cx: &mut Ctx) {
        let dead = crate::divert::divert_failures(&mut live, |p| self.process(p));
        if let Some(dead) = &dead {
            self.drops += dead.len() as u64;
        }
        if !live.is_empty() {
            cx.push(0, live);
        }
        if let Some(dead) = dead {
            cx.checked_push(1, dead);
        }
    }
    fn simple_action(&mut self, mut p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.process(&mut p) {
            Some(p)
        } else {
            self.drops += 1;
            cx.checked_push(1, PacketBatch::from(p));
            None
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        vec![
            HandlerDef::read("drops", 0),
            HandlerDef::read_write("active", 1),
        ]
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match id {
            0 => self.drops.to_string(),
            _ => self.active.to_string(),
        })
    }
    fn write_handler(&mut self, _id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        use rclick_core::args::{FromArg, NoContext};
        self.active = bool::from_arg(value.trim(), &NoContext)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decrements_and_expires() {
        let d = DecIPTTL::default();
        let mut h = [
            0x45u8, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        let c = rclick_wire::checksum::internet_checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        let mut p = Packet::from_slice(&h);
        p.set_ip_header(0, 20);
        assert!(d.process(&mut p));
        assert_eq!(p.data()[8], 63);
        assert!(rclick_wire::checksum::verify(&p.data()[..20]));
        h[8] = 1;
        let mut q = Packet::from_slice(&h);
        q.set_ip_header(0, 20);
        assert!(!d.process(&mut q));
    }
}
