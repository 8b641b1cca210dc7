//! Miscellaneous standard elements: path switches (Bypass, InputSwitch,
//! Hub), rate splitters, link and delay emulation (LinkUnqueue,
//! DelayShaper), packet editing (Clipboard, Resize, Align), information
//! elements (AlignmentInfo, RandomSeed), TimedSink,
//! NotifierDebug and the BlockThread test element.

use rclick_core::Registry;

pub mod align;
pub mod alignment_info;
pub mod annotation_info;
pub mod bandwidth_rated_splitter;
pub mod block;
pub mod block_thread;
pub mod bypass;
pub mod clipboard;
pub mod compare_block;
pub mod delay_shaper;
pub mod error_element;
pub mod flow_info;
pub mod hub;
pub mod input_switch;
pub mod link_unqueue;
pub mod notifier_debug;
pub mod quit_watcher;
pub mod random_bit_errors;
pub mod random_seed;
pub mod rated_splitter;
pub mod resize;
pub mod timed_sink;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "Block",
        || Box::<block::Block>::default(),
        include_str!("block.rs"),
    );
    r.add(
        "CompareBlock",
        || Box::<compare_block::CompareBlock>::default(),
        include_str!("compare_block.rs"),
    );
    r.add(
        "Error",
        || Box::<error_element::ErrorElement>::default(),
        include_str!("error_element.rs"),
    );
    r.add(
        "FlowInfo",
        || Box::<flow_info::FlowInfo>::default(),
        include_str!("flow_info.rs"),
    );
    r.add(
        "QuitWatcher",
        || Box::<quit_watcher::QuitWatcher>::default(),
        include_str!("quit_watcher.rs"),
    );
    r.add(
        "AnnotationInfo",
        || Box::<annotation_info::AnnotationInfo>::default(),
        include_str!("annotation_info.rs"),
    );
    r.add(
        "RandomBitErrors",
        || Box::<random_bit_errors::RandomBitErrors>::default(),
        include_str!("random_bit_errors.rs"),
    );
    r.add(
        "Bypass",
        || Box::<bypass::Bypass>::default(),
        include_str!("bypass.rs"),
    );
    r.add(
        "Clipboard",
        || Box::<clipboard::Clipboard>::default(),
        include_str!("clipboard.rs"),
    );
    r.add("Hub", || Box::<hub::Hub>::default(), include_str!("hub.rs"));
    r.add(
        "InputSwitch",
        || Box::<input_switch::InputSwitch>::default(),
        include_str!("input_switch.rs"),
    );
    r.add(
        "RatedSplitter",
        || Box::<rated_splitter::RatedSplitter>::default(),
        include_str!("rated_splitter.rs"),
    );
    r.add(
        "BandwidthRatedSplitter",
        bandwidth_rated_splitter::new,
        include_str!("bandwidth_rated_splitter.rs"),
    );
    r.add(
        "Resize",
        || Box::<resize::Resize>::default(),
        include_str!("resize.rs"),
    );
    r.add(
        "Align",
        || Box::<align::Align>::default(),
        include_str!("align.rs"),
    );
    r.add(
        "AlignmentInfo",
        || Box::<alignment_info::AlignmentInfo>::default(),
        include_str!("alignment_info.rs"),
    );
    r.add(
        "TimedSink",
        || Box::<timed_sink::TimedSink>::default(),
        include_str!("timed_sink.rs"),
    );
    r.add(
        "NotifierDebug",
        || Box::<notifier_debug::NotifierDebug>::default(),
        include_str!("notifier_debug.rs"),
    );
    r.add(
        "DelayShaper",
        || Box::<delay_shaper::DelayShaper>::default(),
        include_str!("delay_shaper.rs"),
    );
    r.add(
        "LinkUnqueue",
        || Box::<link_unqueue::LinkUnqueue>::default(),
        include_str!("link_unqueue.rs"),
    );
    r.add(
        "BlockThread",
        || Box::<block_thread::BlockThread>::default(),
        include_str!("block_thread.rs"),
    );
    r.add(
        "RandomSeed",
        || Box::<random_seed::RandomSeed>::default(),
        include_str!("random_seed.rs"),
    );
}

/// Every class of this crate, plus `NameProbe(KIND NAME)`, whose `value`
/// handler returns what the name table holds for NAME of KIND.
#[cfg(test)]
pub(crate) fn test_registry() -> Registry {
    let mut r = Registry::new();
    crate::register(&mut r);
    r.add("NameProbe", || Box::<NameProbe>::default(), "");
    r
}

#[cfg(test)]
#[derive(Default)]
struct NameProbe {
    value: String,
}

#[cfg(test)]
rclick_core::handlers! {
    /// NameProbe's handlers.
    enum ProbeH {
        Value = read("value"),
    }
}

#[cfg(test)]
impl rclick_core::Element for NameProbe {
    fn class_name(&self) -> &'static str {
        "NameProbe"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure(
        &mut self,
        conf: &[String],
        cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let words: Vec<&str> = conf
            .first()
            .map(|s| s.split_whitespace().collect())
            .unwrap_or_default();
        if let [kind, name] = words[..] {
            self.value = cx.lookup_name(kind, name).unwrap_or("").to_string();
        }
        Ok(())
    }
    fn handlers(&self) -> Vec<rclick_core::HandlerDef> {
        ProbeH::all_defs()
    }
    fn read_handler(
        &mut self,
        id: u32,
        _param: &str,
        _cx: &mut rclick_core::Ctx,
    ) -> Result<String, String> {
        match ProbeH::from_id(id) {
            Some(ProbeH::Value) => Ok(self.value.clone()),
            None => Err("no such handler".into()),
        }
    }
}
