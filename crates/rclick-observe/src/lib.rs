//! Seeing a running router: the HTTPServer element, which serves a live
//! web view of the graph, Prometheus metrics and an HTTP/JSON API to the
//! handlers (docs/OBSERVE.md).
//!
//! - `http_server.rs`: the element (its manual, configuration, the task
//!   that answers requests on the router's thread, hot-swap take-over).
//! - `bridge.rs`: the request channel between the server thread and the
//!   element, and the socket that wakes the router.
//! - `server.rs`: the HTTP server (axum on a one-thread tokio runtime):
//!   routes, guards, server-sent events.
//! - `api.rs`: handler calls through ControlSocket's protocol, so codes and
//!   messages are ControlSocket's.
//! - `snapshot.rs`: the graph, handler lists and counters read through
//!   handlers.
//! - `metrics.rs`: the Prometheus exposition.
//! - `page/`: the page (HTML and JavaScript built into the binary).
#![forbid(unsafe_code)]

pub mod api;
pub mod bridge;
pub mod http_server;
pub mod metrics;
pub mod server;
pub mod snapshot;

use rclick_core::Registry;

/// Registers HTTPServer.
pub fn register(r: &mut Registry) {
    r.add(
        "HTTPServer",
        || Box::<http_server::HttpServer>::default(),
        include_str!("http_server.rs"),
    );
}
