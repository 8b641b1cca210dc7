//! # ARPPrint
//!
//! `ARPPrint([LABEL, KEYWORDS])`
//!
//! **Category:** arp. Pretty-prints ARP packets, tcpdump style.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prints a line for each ARP packet (the packet's network header must be
//! set, as ARPQuerier, ARPResponder and Classifier-style elements do), then
//! passes it on unchanged. Formats: `arp who-has IP [(ETH)] tell IP`,
//! `arp reply IP is-at ETH`, `rarp who-is ...`, `truncated-arp (N)`.
//!
//! Keywords:
//!
//! * `LABEL` (string, positional, default empty): printed first, then `: `.
//! * `TIMESTAMP` (boolean, default true): print the timestamp annotation.
//! * `ETHER` (boolean, default false): print the Ethernet source and
//!   destination (`SRC > DST: `).
//! * `ACTIVE` (boolean, default true): print at all.
//! * `OUTFILE` (file name): append lines to this file instead of standard
//!   error.
//!
//! ## Handlers
//!
//! * `active` (read/write): ACTIVE.
//!
//! ## Examples
//!
//! ```text
//! arpq[1] -> ARPPrint(query, TIMESTAMP false) -> ToDevice(eth0);
//! ```
//!
//! ## See also
//!
//! IPPrint, Print

use std::fmt::Write as _;
use std::io::Write as _;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet};
use rclick_wire::ArpPacket;

use super::{eth_at, eth_dash, ip_at};

/// The ARPPrint element.
pub struct ArpPrint {
    label: String,
    timestamp: bool,
    ether: bool,
    active: bool,
    outfile: Option<String>,
    file: Option<std::fs::File>,
}

impl Default for ArpPrint {
    fn default() -> Self {
        ArpPrint {
            label: String::new(),
            timestamp: true,
            ether: false,
            active: true,
            outfile: None,
            file: None,
        }
    }
}

impl ArpPrint {
    /// The line for `p`, or `None` when Click prints nothing.
    fn line(&self, p: &Packet) -> Option<String> {
        let nh_off = p.network_header_offset()?;
        let mut sa = String::new();
        if !self.label.is_empty() {
            let _ = write!(sa, "{}: ", self.label);
        }
        if self.timestamp {
            let _ = write!(sa, "{}: ", p.timestamp_anno());
        }
        if self.ether {
            let x = p.mac_header_offset().unwrap_or(0);
            if x >= 0 && x + 14 <= nh_off && (x + 14) as usize <= p.len() {
                let d = &p.data()[x as usize..];
                let _ = write!(
                    sa,
                    "{} > {}: ",
                    eth_dash(&eth_at(d, 6)),
                    eth_dash(&eth_at(d, 0))
                );
            }
        }
        let a = p.network_header().unwrap_or(&[]);
        if nh_off < 0 || a.len() < 28 {
            let n = if nh_off < 0 { 0 } else { a.len() };
            let _ = write!(sa, "truncated-arp ({n})");
            return Some(sa);
        }
        let arp = ArpPacket::new_unchecked(a);
        let (hrd, pro, hln, pln, op) = (
            arp.hardware_type(),
            arp.protocol_type().0,
            arp.hardware_len(),
            arp.protocol_len(),
            arp.operation().0,
        );
        if (pro != 0x0800 && pro != 0x1000) || pln != 4 || hln == 0 {
            // Click builds this text but never prints it.
            return None;
        }
        if pro == 0x1000 {
            sa.push_str("trailer-");
        }
        let (sha, spa, tha, tpa) = (
            eth_dash(&eth_at(a, 8)),
            ip_at(a, 14),
            eth_dash(&eth_at(a, 18)),
            ip_at(a, 24),
        );
        let _ = match op {
            1 => {
                let hl = usize::from(hln).min(6);
                let _ = write!(sa, "arp who-has {tpa}");
                if a[18..18 + hl].iter().any(|&b| b != 0) {
                    let _ = write!(sa, " ({tha})");
                }
                write!(sa, " tell {spa}")
            }
            2 => write!(sa, "arp reply {spa} is-at {sha}"),
            3 => write!(sa, "rarp who-is {tha} tell {sha}"),
            4 => write!(sa, "rarp reply {tha} at {tpa}"),
            8 => write!(sa, "invarp who-is {tha} tell {sha}"),
            9 => write!(sa, "invarp reply {tha} at {tpa}"),
            _ => write!(sa, "arp-#{op}"),
        };
        if hrd != 1 {
            let _ = write!(sa, "hardware #{hrd}");
        }
        Some(sa)
    }
}

rclick_core::handlers! {
    /// ARPPrint's handlers (the manual's list).
    enum H {
        Active = read_write("active"),
    }
}

impl Element for ArpPrint {
    fn class_name(&self) -> &'static str {
        "ARPPrint"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut label, mut ts, mut ether, mut active) = (String::new(), true, false, true);
        let mut outfile = String::new();
        Args::new(conf)
            .read_p("LABEL", &mut label)
            .read("TIMESTAMP", &mut ts)
            .read("ETHER", &mut ether)
            .read("ACTIVE", &mut active)
            .read("OUTFILE", &mut outfile)
            .complete()
            .map_err(|e| e.to_string())?;
        self.label = label;
        self.timestamp = ts;
        self.ether = ether;
        self.active = active;
        self.outfile = (!outfile.is_empty()).then_some(outfile);
        Ok(())
    }
    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        if let Some(name) = &self.outfile {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(true)
                .open(name)
                .map_err(|e| format!("{name}: {e}"))?;
            self.file = Some(f);
        }
        Ok(())
    }
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.active {
            if let Some(line) = self.line(&p) {
                match self.file.as_mut() {
                    Some(f) => {
                        let _ = writeln!(f, "{line}");
                    }
                    None => cx.log(line),
                }
            }
        }
        Some(p)
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.active.to_string())
    }
    fn write_handler(&mut self, _id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let mut v = self.active;
        Args::new(&[value])
            .read_mp("ACTIVE", &mut v)
            .complete()
            .map_err(|e| e.to_string())?;
        self.active = v;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arp(op: u16, tha: [u8; 6]) -> Packet {
        let mut b = vec![
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 1, 0, 0xa, 0xa, 0xf, 8, 6,
        ];
        b.extend_from_slice(&[0, 1, 8, 0, 6, 4]);
        b.extend_from_slice(&op.to_be_bytes());
        b.extend_from_slice(&[2, 1, 0, 0xa, 0xa, 0xf, 1, 0, 10, 10]);
        b.extend_from_slice(&tha);
        b.extend_from_slice(&[1, 0, 0, 1]);
        let mut p = Packet::from_slice(&b);
        p.set_mac_header_len(0, 14);
        p
    }

    #[test]
    fn formats() {
        let mut e = ArpPrint {
            label: "arpo".into(),
            ether: true,
            ..ArpPrint::default()
        };
        assert_eq!(
            e.line(&arp(1, [0; 6])).unwrap(),
            "arpo: 0.000000: 02-01-00-0A-0A-0F > FF-FF-FF-FF-FF-FF: arp who-has 1.0.0.1 tell 1.0.10.10"
        );
        e.ether = false;
        e.timestamp = false;
        assert_eq!(
            e.line(&arp(1, [1; 6])).unwrap(),
            "arpo: arp who-has 1.0.0.1 (01-01-01-01-01-01) tell 1.0.10.10"
        );
        assert_eq!(
            e.line(&arp(2, [0; 6])).unwrap(),
            "arpo: arp reply 1.0.10.10 is-at 02-01-00-0A-0A-0F"
        );
        let mut short = arp(1, [0; 6]);
        short.take(10);
        assert_eq!(e.line(&short).unwrap(), "arpo: truncated-arp (18)");
        let mut none = arp(1, [0; 6]);
        none.clear_network_header();
        assert!(e.line(&none).is_none());
    }
}
