//! Router Plugins (Decasper et al., SIGCOMM 1998) in Click's terms:
//! six-tuple filters, the filter table (a tuple-space classifier), the flow
//! cache, `FlowGate` (the paper's gates) and `PluginManager` (its plugin
//! control unit and plugin manager, reached through handlers and
//! `rclick pmgr`), and element packages loaded at run time (`package`).
//! See docs/PLUGINS.md.
//!
//! `unsafe` is denied outside `package` (loading a shared library and
//! calling across its C ABI).
#![deny(unsafe_code)]

pub mod classifier;
pub mod filter;
pub mod flow_cache;
pub mod flow_drr;
pub mod hfsc;
#[allow(unsafe_code)]
pub mod package;
mod u64map;

pub use classifier::{Classifier, FilterId};
pub use filter::{Filter, FilterError, FlowKey, PortRange, Prefix};
pub use flow_cache::{CacheStats, FlowCache};
pub mod flow_gate;
pub mod plugin_manager;

pub use flow_drr::FlowDRR;
pub use flow_gate::FlowGate;
pub use hfsc::HFSC;
pub use plugin_manager::PluginManager;

/// Registers FlowGate, PluginManager, FlowDRR and HFSC.
pub fn register(r: &mut rclick_core::Registry) {
    r.add(
        "FlowDRR",
        || Box::<FlowDRR>::default(),
        include_str!("flow_drr.rs"),
    );
    r.add("HFSC", || Box::<HFSC>::default(), include_str!("hfsc.rs"));
    r.add(
        "FlowGate",
        || Box::<FlowGate>::default(),
        include_str!("flow_gate.rs"),
    );
    r.add(
        "PluginManager",
        || Box::<PluginManager>::default(),
        include_str!("plugin_manager.rs"),
    );
}

/// Test helpers: a registry with the standard and IP elements and this
/// crate's, and two test-only elements that check flows for loss and
/// reordering.
#[cfg(test)]
pub(crate) mod test_util {
    use std::collections::HashMap;

    use rclick_core::{Ctx, Element, HandlerDef, Packet, Registry};

    /// Standard, IP and plugin elements, plus SeqStamp and SeqCheck.
    pub fn registry() -> Registry {
        let mut r = Registry::new();
        rclick_elements_standard::register(&mut r);
        rclick_elements_ip::register(&mut r);
        crate::register(&mut r);
        r.add("SeqStamp", || Box::<SeqStamp>::default(), "");
        r.add("SeqCheck", || Box::<SeqCheck>::default(), "");
        r.add("InitProbe", || Box::<InitProbe>::default(), "");
        r
    }

    /// Says whether it was initialized (`initialized`) and cleaned up
    /// (the shared `CLEANED` count). With `TIMER` it has a timer that
    /// fires every second (`fires`); with `TASK` a task, scheduled at
    /// start, that pushes a 1-byte packet out of output 1 on each of its
    /// first 3 runs (`runs`); with `FAIL` its initialization fails.
    #[derive(Default)]
    pub struct InitProbe {
        timer: Option<rclick_core::TimerId>,
        wants_timer: bool,
        wants_task: bool,
        fail: bool,
        initialized: bool,
        fires: u64,
        runs: u64,
    }

    /// InitProbe cleanups so far.
    pub static CLEANED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    impl Element for InitProbe {
        fn class_name(&self) -> &'static str {
            "InitProbe"
        }
        fn port_count(&self) -> &'static str {
            "1/-"
        }
        fn configure(
            &mut self,
            conf: &[String],
            _cx: &mut rclick_core::ConfigureCx,
        ) -> Result<(), String> {
            self.wants_timer = conf.iter().any(|a| a == "TIMER");
            self.wants_task = conf.iter().any(|a| a == "TASK");
            self.fail = conf.iter().any(|a| a == "FAIL");
            Ok(())
        }
        fn initialize(&mut self, cx: &mut rclick_core::InitCx) -> Result<(), String> {
            if self.fail {
                return Err("probe refused".into());
            }
            if self.wants_timer {
                let t = cx.new_timer();
                cx.schedule_timer_after(t, rclick_core::Timestamp::from_sec(1));
                self.timer = Some(t);
            }
            if self.wants_task {
                cx.new_task(true);
            }
            self.initialized = true;
            Ok(())
        }
        fn run_timer(&mut self, t: rclick_core::TimerId, cx: &mut Ctx) {
            self.fires += 1;
            cx.schedule_timer_after(t, rclick_core::Timestamp::from_sec(1));
        }
        fn run_task(&mut self, _t: rclick_core::TaskId, cx: &mut Ctx) -> bool {
            self.runs += 1;
            let mut b = rclick_core::PacketBatch::new();
            b.push(Packet::from_slice(&[1]));
            cx.push(1, b);
            if self.runs < 3 {
                cx.reschedule();
            }
            true
        }
        fn cleanup(&mut self, _cx: &mut Ctx) {
            CLEANED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![
                HandlerDef::read("initialized", 0),
                HandlerDef::read("fires", 1),
                HandlerDef::read("runs", 2),
            ]
        }
        fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
            Ok(match id {
                0 => self.initialized.to_string(),
                1 => self.fires.to_string(),
                _ => self.runs.to_string(),
            })
        }
    }

    /// The IPv4 destination of a packet whose network header is set.
    fn flow_of(p: &Packet) -> u32 {
        p.network_header()
            .and_then(|ip| rclick_wire::Ipv4Packet::new_checked(ip).ok())
            .map_or(0, |v| u32::from(v.dst_addr()))
    }

    /// Numbers each flow's packets 1, 2, 3... in the sequence annotation.
    #[derive(Default)]
    pub struct SeqStamp {
        next: HashMap<u32, u32>,
    }

    impl Element for SeqStamp {
        fn class_name(&self) -> &'static str {
            "SeqStamp"
        }
        fn simple_action(&mut self, mut p: Packet, _cx: &mut Ctx) -> Option<Packet> {
            let n = self.next.entry(flow_of(&p)).or_insert(0);
            *n += 1;
            p.set_sequence_number_anno(*n);
            Some(p)
        }
    }

    /// Counts packets, and packets whose number is not one more than the
    /// last of their flow (`errors`: a loss or a reordering).
    #[derive(Default)]
    pub struct SeqCheck {
        last: HashMap<u32, u32>,
        count: u64,
        errors: u64,
    }

    impl Element for SeqCheck {
        fn class_name(&self) -> &'static str {
            "SeqCheck"
        }
        fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
            let last = self.last.entry(flow_of(&p)).or_insert(0);
            if p.sequence_number_anno() != *last + 1 {
                self.errors += 1;
            }
            *last = p.sequence_number_anno();
            self.count += 1;
            Some(p)
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("count", 0), HandlerDef::read("errors", 1)]
        }
        fn read_handler(&mut self, id: u32, _: &str, _: &mut Ctx) -> Result<String, String> {
            Ok(if id == 0 { self.count } else { self.errors }.to_string())
        }
    }
}
