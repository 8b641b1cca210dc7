//! Router Plugins (Decasper et al., SIGCOMM 1998) in Click's terms:
//! six-tuple filters, the filter table (a tuple-space classifier), the flow
//! cache, `FlowGate` (the paper's gates) and `PluginManager` (its plugin
//! control unit and plugin manager, reached through handlers and
//! `rclick pmgr`). See docs/PLUGINS.md.

pub mod classifier;
pub mod filter;
pub mod flow_cache;
mod u64map;

pub use classifier::{Classifier, FilterId};
pub use filter::{Filter, FilterError, FlowKey, PortRange, Prefix};
pub use flow_cache::{CacheStats, FlowCache};
