//! IPClassifier and IPFilter: tcpdump-like IP packet classification,
//! compiled into a decision program of masked 32-bit word tests (Click's
//! `elements/ip/ipfilter.cc` and `elements/standard/classification.cc`).

#[cfg(test)]
mod engine_tests;
pub mod ip_classifier;
pub mod ip_filter;
pub mod parser;
mod primitive;
mod vocab;

use rclick_core::{Ctx, PacketBatch, Registry};

pub use parser::parse_program;
pub use rclick_classify::ZProgram;

/// Registers this module's classes.
pub fn register(r: &mut Registry) {
    r.add(
        "IPFilter",
        || Box::new(ip_filter::IPFilter::default()),
        include_str!("ip_filter.rs"),
    );
    r.add(
        "IPClassifier",
        || Box::new(ip_classifier::IPClassifier::default()),
        include_str!("ip_classifier.rs"),
    );
}

/// Classifies `batch` with `prog` and pushes each packet to its output,
/// keeping packet order (runs of packets for one output go together; a
/// batch that all goes one way is pushed whole). Packets whose output does
/// not exist are dropped, as Click's `checked_output_push` does.
pub(crate) fn classify_push(
    prog: &ZProgram,
    scratch: &mut Vec<usize>,
    batch: PacketBatch,
    cx: &mut Ctx,
) {
    let n = cx.noutputs();
    let Some(first) = batch.first().map(|p| prog.classify(p)) else {
        return;
    };
    // One packet (sources emitting one per task run): no scratch pass.
    if batch.len() == 1 {
        if first < n {
            cx.push(first, batch);
        }
        return;
    }
    // Outputs wired to the same element and input are one destination:
    // note the lowest such port, so that a batch bound for several of them
    // goes on whole or in fewer runs.
    let aliases = cx.output_aliases();
    let alias = |o: usize| aliases.get(o).map_or(o, |&a| a as usize);
    let first = alias(first);
    scratch.clear();
    scratch.push(first);
    scratch.extend(batch.iter().skip(1).map(|p| alias(prog.classify(p))));
    if scratch.iter().all(|&o| o == first) {
        if first < n {
            cx.push(first, batch);
        }
        return;
    }
    let mut run = PacketBatch::with_capacity(batch.len());
    let mut run_port = first;
    for (p, &port) in batch.into_iter().zip(scratch.iter()) {
        if port != run_port && !run.is_empty() {
            let b = run.take();
            if run_port < n {
                cx.push(run_port, b);
            }
        }
        run_port = port;
        run.push(p);
    }
    if !run.is_empty() && run_port < n {
        cx.push(run_port, run);
    }
}

#[cfg(test)]
pub(crate) use rclick_classify::TestRng;
