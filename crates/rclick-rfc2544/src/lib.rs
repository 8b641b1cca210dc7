//! The logic of `rclick rfc2544`, benchmarking a router by RFC 2544
//! (*Benchmarking Methodology for Network Interconnect Devices*) with
//! RFC 1242's terms, as the paper `click-vs-netfpga-rfc2544` did by hand.
//!
//! This crate knows no socket, no clock and no process: the traffic
//! generator in `rclick-cli` (`crates/rclick-cli/src/rfc2544/`) moves the
//! frames and feeds what it saw into the types here, so everything below
//! is deterministic and tested against simulated devices.
//!
//! - [`frame`]: the test frames (Ethernet/IPv4/UDP of a fixed size) and
//!   the payload each carries: trial, flow, sequence number, transmit time.
//! - [`flows`]: per-flow sequence tracking: loss, reordering, duplicates.
//! - [`hist`]: an HDR-style log-linear latency histogram with percentiles.
//! - [`search`]: the throughput search: the highest rate without loss
//!   (NDR, RFC 2544 §26.1) and the highest with at most a set loss ratio
//!   (PDR), found together by bisection with a stated resolution.
//! - [`report`]: the report model (JSON through serde),
//!   [`render`]: Markdown, a self-contained HTML page and a terminal
//!   summary from one list of sections, and [`plot`]: the page's SVG
//!   line plots.

#![forbid(unsafe_code)]

pub mod flows;
pub mod frame;
pub mod hist;
pub mod plot;
pub mod render;
pub mod report;
pub mod search;
