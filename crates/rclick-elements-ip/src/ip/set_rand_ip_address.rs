//! # SetRandIPAddress
//!
//! `SetRandIPAddress(PREFIX [, LIMIT])`
//!
//! **Category:** ip. Sets the destination IP address annotation to a
//! random address.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Sets each packet's destination IP address annotation to a random address
//! within PREFIX (an IP prefix such as `10.0.0.0/8`, mandatory). If LIMIT
//! (unsigned, default 0) is positive, LIMIT random addresses are chosen in
//! advance and each packet gets one of those.
//!
//! The element draws from its own generator, seeded from the router's
//! (RandomSeed) when configured, so the packet path shares no state
//! between threads.
//!
//! Keywords: `PREFIX` (IP prefix, mandatory), `LIMIT` (unsigned, default 0).
//!
//! ## Annotations
//!
//! Sets the destination IP address annotation.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource -> SetRandIPAddress(0.0.0.0/0) -> RadixIPLookup(...)
//! ```
//!
//! ## See also
//!
//! SetIPAddress

use std::net::Ipv4Addr;

use rclick_core::args::{Args, IpPrefix};
use rclick_core::{random, ConfigureCx, Ctx, Element, PacketBatch};

/// The SetRandIPAddress element.
pub struct SetRandIPAddress {
    net: u32,
    mask: u32,
    addrs: Vec<u32>,
    state: u64,
}

impl Default for SetRandIPAddress {
    fn default() -> Self {
        SetRandIPAddress {
            net: 0,
            mask: 0,
            addrs: Vec::new(),
            state: 1,
        }
    }
}

impl SetRandIPAddress {
    #[inline]
    fn next(&mut self) -> u32 {
        // SplitMix64.
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    }

    #[inline]
    fn pick(&mut self) -> Ipv4Addr {
        let r = self.next();
        let a = if self.addrs.is_empty() {
            (self.net & self.mask) | (r & !self.mask)
        } else {
            self.addrs[r as usize % self.addrs.len()]
        };
        Ipv4Addr::from(a)
    }
}

impl Element for SetRandIPAddress {
    fn class_name(&self) -> &'static str {
        "SetRandIPAddress"
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut prefix = IpPrefix::new(Ipv4Addr::UNSPECIFIED, 0);
        let mut limit: u32 = 0;
        Args::new_with(conf, cx.arg_context())
            .read_mp("PREFIX", &mut prefix)
            .read_p("LIMIT", &mut limit)
            .complete()
            .map_err(|e| e.to_string())?;
        self.net = u32::from(prefix.addr);
        self.mask = u32::from(prefix.mask);
        self.state = random::next_u64();
        self.addrs.clear();
        for _ in 0..limit {
            let r = self.next();
            self.addrs.push((self.net & self.mask) | (r & !self.mask));
        }
        Ok(())
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        for p in batch.iter_mut() {
            let a = self.pick();
            p.set_dst_ip_anno(a);
        }
        cx.push(0, batch);
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        for p in batch.iter_mut() {
            let a = self.pick();
            p.set_dst_ip_anno(a);
        }
        batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_in_prefix() {
        let mut e = SetRandIPAddress {
            net: 0x0a01_0000,
            mask: 0xffff_0000,
            ..Default::default()
        };
        for _ in 0..1000 {
            assert_eq!(u32::from(e.pick()) & 0xffff_0000, 0x0a01_0000);
        }
        e.addrs = vec![1, 2];
        assert!(u32::from(e.pick()) <= 2);
    }
}
