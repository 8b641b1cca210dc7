//! # ToHost
//!
//! `ToHost(DEVNAME)`
//!
//! **Category:** comm. Hands Ethernet frames to the host through a
//! FromHost's TAP device (user-level).
//!
//! **Ports:** one push input; no outputs.
//!
//! ## Description
//!
//! Writes each packet, an Ethernet frame, to the TAP device that the
//! FromHost element with the same DEVNAME created: the host receives it as
//! if the device's link had delivered it (so its destination Ethernet
//! address must be the device's, or broadcast). A router needs a FromHost
//! with the same DEVNAME (`ToHost(DEVNAME) requires an initialized FromHost
//! with the same dev_name`).
//!
//! Frames shorter than an Ethernet header (`too short for Ethernet`) or
//! longer than the device's MTU plus 14 (`larger than MTU`) are dropped,
//! as are frames the kernel refuses (`device queue full`, `write error`);
//! every drop is counted and the first of each reason is printed.
//!
//! ## Handlers
//!
//! * `dev_name` (read): DEVNAME.
//! * `written` (read): frames written.
//! * `drops` (read): frames dropped, all reasons.
//! * `drop_details` (read): one line per reason, `COUNT<TAB>REASON`.
//!
//! ## Examples
//!
//! See FromHost.
//!
//! ## See also
//!
//! FromHost, KernelTap, ToDevice

use std::sync::Arc;

use rclick_core::args::Args;
use rclick_core::{phase, ConfigureCx, Ctx, Element, HandlerDef, InitCx, PacketBatch};

use super::kernel_tun::KernelTun;
use super::sys::{self, TunDevice};
use rclick_core::drops::Drops;

rclick_core::drop_reasons! {
    /// Why ToHost dropped a packet (the manual's `drop_details` list).
    enum Why {
        Short = "too short for Ethernet",
        Long = "larger than MTU",
        Full = "device queue full",
        Write = "write error",
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        DevName = read("dev_name"),
        Written = read("written"),
        Drops = read("drops"),
        DropDetails = read("drop_details"),
    }
}

/// The ToHost element.
pub struct ToHost {
    devname: String,
    dev: Option<Arc<TunDevice>>,
    mtu: usize,
    written: u64,
    drops: Drops<Why>,
}

impl Default for ToHost {
    fn default() -> Self {
        ToHost {
            devname: String::new(),
            dev: None,
            mtu: 1500,
            written: 0,
            drops: Drops::default(),
        }
    }
}

impl ToHost {
    fn drop(&mut self, why: Why, detail: Option<&str>, cx: &Ctx) {
        let who = format!("ToHost({})", self.devname);
        crate::drops::count(&mut self.drops, why, 1, detail, false, &who, cx);
    }
}

impl Element for ToHost {
    fn class_name(&self) -> &'static str {
        "ToHost"
    }
    fn port_count(&self) -> &'static str {
        "1/0"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    // after the FromHosts (KernelTun's phase) have opened their devices
    fn configure_phase(&self) -> i32 {
        phase::PRIVILEGED
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        Args::new(conf)
            .read_mp("DEVNAME", &mut self.devname)
            .complete()
            .map_err(|e| e.to_string())?;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        for e in 0..cx.nelements() {
            if cx.element_info(e).class != "FromHost" {
                continue;
            }
            let found = cx
                .with_element(e, |el| {
                    el.downcast_ref::<KernelTun>()
                        .filter(|t| t.dev_name() == self.devname)
                        .and_then(|t| t.device().map(|d| (d, t.mtu())))
                })
                .flatten();
            if let Some((dev, mtu)) = found {
                self.dev = Some(dev);
                self.mtu = mtu;
                return Ok(());
            }
        }
        Err(format!(
            "ToHost({}) requires an initialized FromHost with the same dev_name",
            self.devname
        ))
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        for p in batch {
            if p.len() < 14 {
                self.drop(Why::Short, None, cx);
                continue;
            }
            if p.len() - 14 > self.mtu {
                self.drop(Why::Long, None, cx);
                continue;
            }
            let Some(dev) = self.dev.clone() else {
                self.drop(Why::Write, Some("no device"), cx);
                continue;
            };
            match dev.write(p.data()) {
                Ok(_) => self.written += 1,
                Err(e) if sys::would_block(&e) => {
                    self.drop(Why::Full, Some(&sys::strerror(&e)), cx);
                }
                Err(e) => self.drop(Why::Write, Some(&sys::strerror(&e)), cx),
            }
        }
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::DevName) => self.devname.clone(),
            Some(H::Written) => self.written.to_string(),
            Some(H::Drops) => self.drops.total().to_string(),
            Some(H::DropDetails) => self.drops.details(),
            _ => return Err("no such handler".into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::build_err;

    // The reference's messages for the same configurations.
    #[test]
    fn configuration_errors_as_click() {
        let e = build_err("Idle -> ToHost(fh9)");
        assert!(
            e.contains("ToHost(fh9) requires an initialized FromHost with the same dev_name"),
            "{e}"
        );
        assert!(build_err("Idle -> ToHost").contains("DEVNAME: required argument missing"));
        assert!(build_err("FromHost -> Discard").contains("DEVNAME: required argument missing"));
        assert!(
            build_err("FromHost(fh0, 192.0.2.1/24, GATEWAY 198.51.100.1) -> Discard")
                .contains("bad GATEWAY")
        );
        assert!(build_err("FromHost(fh0, HEADROOM 9000) -> Discard").contains("HEADROOM too large"));
        assert!(build_err("Idle -> FromHost(fh0) -> Discard").contains("input"));
    }
}
