//! Network address translation (Click's IPRewriter family): rewriters with
//! mapping tables and timeouts, mappers, and the FTP port mapper.
#![forbid(unsafe_code)]

pub mod rewriter;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    rewriter::register(r);
}
