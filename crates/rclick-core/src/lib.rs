//! rclick-core: the router graph, elements, scheduling and handlers.
//!
//! This crate knows no socket and no element class: element crates
//! implement [`Element`] and register their classes in a [`Registry`];
//! the CLI builds a [`Router`] from a parsed configuration and runs it.
#![deny(unsafe_code)]

pub mod args;
pub mod clock;
pub mod drops;
pub mod element;
pub mod file_source;
pub mod handlers;
pub mod neighbor;
pub mod notifier;
pub mod random;
pub mod registry;
// `unsafe` only in `router::slot` (an element cell entered by one thread
// at a time), each use with a `// SAFETY:` comment.
#[allow(unsafe_code)]
pub mod router;
pub mod spec;
pub mod testing;

pub use element::{
    phase, ConcurrentPorts, Element, HandlerDef, HandlerFlags, HandlerKind, TaskId, TimerId,
};
pub use notifier::{Notifier, NotifierSignal};
/// Click's configuration-string helpers (`cp_unquote`, `cp_quote`,
/// `cp_spacevec`, `cp_uncomment`, `cp_argvec`).
pub use rclick_lang::confparse;
pub use rclick_packet::{Packet, PacketBatch, Timestamp};
pub use registry::{ClassInfo, Registry};
pub use router::{
    BuildError, BuildOptions, ConfigureCx, Ctx, ElementId, HotConfig, InitCx, Loan, Router,
};
