//! HTTPServer's server thread: axum on a one-thread tokio runtime. It
//! serves the page, `/metrics` and the JSON API, and asks the router for
//! everything through a [`Link`]; it never touches the router itself.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the page (static HTML and JavaScript built into the binary) |
//! | `GET /metrics` | Prometheus exposition ([`crate::metrics`]) |
//! | `GET /api/graph` | elements, ports, connections, configuration text |
//! | `GET /api/snapshot` | every element's counters now |
//! | `GET /api/events?interval=MS` | the same, pushed as server-sent events (`snapshot`) |
//! | `GET /api/handlers` | every visible handler, with read and write flags |
//! | `GET /api/elements/NAME/HANDLER[?param=P]` | reads a handler |
//! | `POST /api/elements/NAME/HANDLER` | writes the request body to it |
//! | `GET`, `POST /api/global/HANDLER` | the same for global handlers (`hotconfig`...) |
//!
//! Handler replies are JSON `{code, message, value}` with ControlSocket's
//! codes and messages, and an HTTP status derived from the code
//! ([`Reply::status`]). Guards: with a token, every request must carry it
//! (`Authorization: Bearer TOKEN` or `?token=TOKEN`); without one (the
//! server is then on loopback), the `Host` header must name a loopback
//! host, so that a web page elsewhere cannot reach the router through
//! DNS rebinding; a `POST` with an `Origin` must come from the server's own
//! origin. Bodies are bounded ([`MAX_BODY`]), and so are event streams
//! ([`MAX_STREAMS`]) and requests waiting for the router.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, Query, Request as HttpRequest, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response as HttpResponse};
use axum::routing::get;
use axum::Router as AxumRouter;
use tokio::sync::{oneshot, Semaphore};

use crate::api::{code, Reply};
use crate::bridge::{Link, Request, Response};

/// Largest request body (a hot-swapped configuration, a handler value).
pub const MAX_BODY: usize = 4 << 20;
/// Event streams open at once.
pub const MAX_STREAMS: usize = 32;
/// Default and bounds of the event interval, in milliseconds.
pub const EVENT_INTERVAL_MS: (u64, u64, u64) = (1000, 100, 60_000);

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");

/// How the server guards itself.
#[derive(Clone, Debug, Default)]
pub struct Guard {
    /// Required on every request when set.
    pub token: Option<String>,
}

struct AppState {
    link: Link,
    guard: Guard,
    streams: Arc<Semaphore>,
}

/// A running server thread; dropping it stops the thread.
#[derive(Debug)]
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// Serves `listener` (bound, any blocking mode) on a thread of its own.
pub fn start(
    listener: std::net::TcpListener,
    link: Link,
    guard: Guard,
) -> std::io::Result<Running> {
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let (tx, rx) = oneshot::channel::<()>();
    let state = Arc::new(AppState {
        link,
        guard,
        streams: Arc::new(Semaphore::new(MAX_STREAMS)),
    });
    let thread = std::thread::Builder::new()
        .name("rclick-http".into())
        .spawn(move || {
            rt.block_on(async move {
                let Ok(l) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let app = app(state);
                tokio::select! {
                    _ = axum::serve(l, app) => {}
                    _ = rx => {}
                }
            });
            rt.shutdown_timeout(Duration::from_millis(200));
        })?;
    Ok(Running {
        addr,
        shutdown: Some(tx),
        thread: Some(thread),
    })
}

impl Running {
    /// Stops the server and waits for its thread.
    pub fn stop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

fn app(state: Arc<AppState>) -> AxumRouter {
    AxumRouter::new()
        .route("/", get(page))
        .route("/index.html", get(page))
        .route("/app.js", get(script))
        .route("/metrics", get(metrics))
        .route("/api/graph", get(graph))
        .route("/api/snapshot", get(snapshot))
        .route("/api/handlers", get(handlers))
        .route("/api/events", get(events))
        .route(
            "/api/elements/{*path}",
            get(read_element).post(write_element),
        )
        .route("/api/global/{name}", get(read_global).post(write_global))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

fn json_response(status: u16, body: String) -> HttpResponse {
    let mut r = HttpResponse::new(Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn reply_response(r: &Reply) -> HttpResponse {
    json_response(r.status(), serde_json::to_string(r).unwrap_or_default())
}

fn error(status: u16, code: u16, message: &str) -> HttpResponse {
    let mut r = reply_response(&Reply::error(code, message));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r
}

/// Whether `host` (a `Host` header) names this machine's loopback.
pub fn loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name == "::1"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback())
}

/// Compares without stopping at the first difference.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

fn query_param<'a>(query: Option<&'a str>, key: &str) -> Option<&'a str> {
    query?.split('&').find_map(|kv| {
        kv.split_once('=')
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v)
    })
}

/// The page's files, which carry no router data: served without the token
/// (the page then passes on the token of its own address).
fn static_asset(path: &str) -> bool {
    matches!(path, "/" | "/index.html" | "/app.js")
}

/// Token, host and origin checks (see the module documentation).
pub fn check(
    guard: &Guard,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<(), String> {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    match &guard.token {
        Some(_) if static_asset(path) && method == Method::GET => {}
        Some(t) => {
            let bearer = headers
                .get(header::AUTHORIZATION)
                .and_then(|h| h.to_str().ok())
                .and_then(|h| h.strip_prefix("Bearer "));
            let given = bearer.or_else(|| query_param(query, "token"));
            if !given.is_some_and(|g| same_secret(g.trim(), t)) {
                return Err("Permission denied: a token is required".into());
            }
        }
        None if !loopback_host(host) => {
            return Err(format!(
                "Permission denied: host '{}' is not loopback",
                host.chars().take(100).collect::<String>()
            ))
        }
        None => {}
    }
    if method == Method::POST {
        if let Some(origin) = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok()) {
            if origin != format!("http://{host}") {
                return Err("Permission denied: cross-origin request".into());
            }
        }
    }
    Ok(())
}

async fn guard(State(st): State<Arc<AppState>>, req: HttpRequest, next: Next) -> HttpResponse {
    match check(
        &st.guard,
        req.method(),
        req.uri().path(),
        req.headers(),
        req.uri().query(),
    ) {
        Ok(()) => next.run(req).await,
        Err(msg) => error(403, code::PERMISSION, &msg),
    }
}

async fn not_found() -> HttpResponse {
    error(404, code::UNIMPLEMENTED, "No such page")
}

async fn page() -> HttpResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        PAGE,
    )
        .into_response()
}

async fn script() -> HttpResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        SCRIPT,
    )
        .into_response()
}

async fn ask(st: &AppState, req: Request) -> HttpResponse {
    match st.link.call(req).await {
        Ok(Response::Reply(r)) => reply_response(&r),
        Ok(other) => json_response(200, serde_json::to_string(&other).unwrap_or_default()),
        Err(r) => reply_response(&r),
    }
}

async fn graph(State(st): State<Arc<AppState>>) -> HttpResponse {
    ask(&st, Request::Graph).await
}

async fn snapshot(State(st): State<Arc<AppState>>) -> HttpResponse {
    ask(&st, Request::Snapshot).await
}

async fn handlers(State(st): State<Arc<AppState>>) -> HttpResponse {
    ask(&st, Request::Handlers).await
}

async fn metrics(State(st): State<Arc<AppState>>) -> HttpResponse {
    match st.link.call(Request::Snapshot).await {
        Ok(Response::Snapshot(s)) => (
            [(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
            crate::metrics::render(&s),
        )
            .into_response(),
        Ok(_) => error(500, code::UNSPECIFIED, "Unexpected answer"),
        Err(r) => reply_response(&r),
    }
}

/// `outer/inner/count` → (`outer/inner`, `count`).
fn split_element_path(path: &str) -> Option<(&str, &str)> {
    let (e, h) = path.rsplit_once('/')?;
    (!e.is_empty() && !h.is_empty()).then_some((e, h))
}

async fn handler_call(st: &AppState, write: bool, name: String, data: String) -> HttpResponse {
    ask(st, Request::Handler { write, name, data }).await
}

async fn read_element(
    State(st): State<Arc<AppState>>,
    Path(path): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> HttpResponse {
    let Some((e, h)) = split_element_path(&path) else {
        return error(400, code::SYNTAX, "Expected /api/elements/ELEMENT/HANDLER");
    };
    let param = q.get("param").cloned().unwrap_or_default();
    handler_call(&st, false, format!("{e}.{h}"), param).await
}

async fn write_element(
    State(st): State<Arc<AppState>>,
    Path(path): Path<String>,
    body: String,
) -> HttpResponse {
    let Some((e, h)) = split_element_path(&path) else {
        return error(400, code::SYNTAX, "Expected /api/elements/ELEMENT/HANDLER");
    };
    handler_call(&st, true, format!("{e}.{h}"), body).await
}

async fn read_global(
    State(st): State<Arc<AppState>>,
    Path(name): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> HttpResponse {
    let param = q.get("param").cloned().unwrap_or_default();
    handler_call(&st, false, name, param).await
}

async fn write_global(
    State(st): State<Arc<AppState>>,
    Path(name): Path<String>,
    body: String,
) -> HttpResponse {
    handler_call(&st, true, name, body).await
}

async fn events(
    State(st): State<Arc<AppState>>,
    Query(q): Query<HashMap<String, String>>,
) -> HttpResponse {
    let Ok(permit) = st.streams.clone().try_acquire_owned() else {
        return error(503, code::BUSY, "Too many event streams");
    };
    let (def, lo, hi) = EVENT_INTERVAL_MS;
    let ms = q
        .get("interval")
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(def)
        .clamp(lo, hi);
    let stream =
        futures_util::stream::unfold((st, permit, true), move |(st, permit, first)| async move {
            if !first {
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            match st.link.call(Request::Snapshot).await {
                Ok(Response::Snapshot(s)) => {
                    let data = serde_json::to_string(&s).unwrap_or_default();
                    let ev = Event::default().event("snapshot").data(data);
                    Some((Ok::<_, Infallible>(ev), (st, permit, false)))
                }
                // The router is gone: end the stream (the browser retries).
                _ => None,
            }
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn loopback_hosts() {
        for h in [
            "127.0.0.1:8080",
            "localhost:1",
            "LOCALHOST",
            "[::1]:80",
            "127.1.2.3",
        ] {
            assert!(loopback_host(h), "{h}");
        }
        for h in [
            "",
            "evil.example:8080",
            "10.0.0.1:80",
            "[::2]:80",
            "127.0.0.1.evil:80",
        ] {
            assert!(!loopback_host(h), "{h}");
        }
    }

    #[test]
    fn guards_host_token_and_origin() {
        let open = Guard::default();
        let get = Method::GET;
        let post = Method::POST;
        assert!(check(
            &open,
            &get,
            "/api/x",
            &headers(&[("host", "127.0.0.1:9")]),
            None
        )
        .is_ok());
        let e = check(
            &open,
            &get,
            "/api/x",
            &headers(&[("host", "rebound.example:9")]),
            None,
        )
        .unwrap_err();
        assert!(e.contains("not loopback"), "{e}");
        assert!(check(
            &open,
            &post,
            "/api/x",
            &headers(&[("host", "127.0.0.1:9"), ("origin", "http://127.0.0.1:9")]),
            None
        )
        .is_ok());
        assert!(check(
            &open,
            &post,
            "/api/x",
            &headers(&[("host", "127.0.0.1:9"), ("origin", "http://evil.example")]),
            None
        )
        .is_err());
        let tok = Guard {
            token: Some("s3cret".into()),
        };
        let h = headers(&[("host", "192.0.2.1:9")]);
        assert!(check(&tok, &get, "/api/x", &h, None).is_err());
        assert!(check(&tok, &get, "/api/x", &h, Some("token=wrong")).is_err());
        assert!(check(&tok, &get, "/api/x", &h, Some("a=1&token=s3cret")).is_ok());
        let hb = headers(&[("host", "192.0.2.1:9"), ("authorization", "Bearer s3cret")]);
        assert!(check(&tok, &get, "/api/x", &hb, None).is_ok());
        // The page itself needs no token; its data does.
        assert!(check(&tok, &get, "/", &h, None).is_ok());
        assert!(check(&tok, &get, "/app.js", &h, None).is_ok());
        assert!(check(&tok, &get, "/metrics", &h, None).is_err());
        assert!(same_secret("abc", "abc") && !same_secret("abc", "abd") && !same_secret("a", "ab"));
    }

    #[test]
    fn element_paths() {
        assert_eq!(split_element_path("c/count"), Some(("c", "count")));
        assert_eq!(split_element_path("a/b/count"), Some(("a/b", "count")));
        assert_eq!(split_element_path("count"), None);
        assert_eq!(split_element_path("c/"), None);
        assert_eq!(split_element_path("/count"), None);
    }
}
