//! # HTTPServer
//!
//! `HTTPServer(ADDRESS [, KEYWORDS])`
//!
//! **Category:** control. Serves a live web view of the router, Prometheus
//! metrics and an HTTP API to its handlers.
//!
//! **Ports:** none.
//!
//! ## Description
//!
//! Listens for HTTP on ADDRESS (`HOST:PORT`, `[IPV6]:PORT`, or a port
//! alone for 127.0.0.1; port 0 picks a free one, which the `port` handler
//! tells) and serves:
//!
//! * `/`: a page that draws the router's graph, each element with its
//!   packet rate, each queue with its length and drops, each connection
//!   with its rate, updated every second by server-sent events; a click on
//!   an element shows its handlers (read them, write the writable ones)
//!   and its declaration in the configuration text; a text box hot-swaps a
//!   new configuration (through the `hotconfig` handler, so the router
//!   must offer it: `click -R`, or `--http`, which offers it).
//! * `/metrics`: every element's counters in the Prometheus (OpenMetrics)
//!   text format, as `rclick_element_packets_total{element="c",class="Counter"}`
//!   and the like (docs/OBSERVE.md lists them).
//! * `/api/...`: the handlers as JSON: `GET /api/handlers`,
//!   `GET /api/elements/NAME/HANDLER`, `POST` to write, with
//!   ControlSocket's reply codes and messages.
//!
//! The server runs on a thread of its own and never touches the router:
//! it passes each request to this element, waking it through a socket the
//! router watches (as ControlSocket's are), and the element calls the
//! handlers on the router's thread. Rates come from reading the elements'
//! own counting handlers (`count`, `byte_count`, `drops`, `length`,
//! `highwater_length`, `capacity`, `drop_details`, and `cost` when
//! profiling is on) once a second while the page is open: nothing changes
//! on the data path, and an unwatched HTTPServer costs nothing.
//!
//! Keywords:
//!
//! * TOKEN: string. When given, every request must carry it, as
//!   `Authorization: Bearer TOKEN` or `?token=TOKEN` (the page passes on
//!   the token of its own address). Default none.
//! * REMOTE: boolean. Allows a non-loopback ADDRESS, which also needs a
//!   TOKEN. Default false: the server is only for this machine, and
//!   refuses requests whose `Host` is not loopback.
//! * READONLY: boolean. Refuses handler writes (and so hot swaps) with
//!   ControlSocket's 530. Default false.
//! * VERBOSE: boolean. Prints the page's address when the server starts.
//!   Default false.
//!
//! Hot swap: an HTTPServer replacing one of the same name and
//! configuration takes over its server, so open pages stay connected and
//! see the new graph.
//!
//! ## Handlers
//!
//! * `port` (read): the TCP port bound.
//! * `url` (read): the page's address.
//!
//! ## Examples
//!
//! ```text
//! HTTPServer(127.0.0.1:8080);
//! HTTPServer(0.0.0.0:8080, REMOTE true, TOKEN "long-random-string");
//! ```
//!
//! ## See also
//!
//! ControlSocket; the drivers' `--http` option; `rclick dot`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};
use std::os::fd::AsRawFd;

use rclick_core::args::Args;
use rclick_core::router::Select;
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, TaskId};
use rclick_elements_userlevel::control::router_handlers::RouterHandlers;

use crate::api::{self, Reply};
use crate::bridge::{self, Endpoint, Request, Response};
use crate::server::{self, Guard, Running};
use crate::snapshot;

/// Requests answered per task run before giving other tasks a turn.
const MAX_PER_RUN: usize = 32;

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Port = read("port"),
        Url = read("url"),
    }
}

/// The server and its end of the request channel; moved whole to the
/// replacing element in a hot swap.
struct Server {
    endpoint: Endpoint,
    running: Running,
    /// Configurations installed since it started.
    generation: u64,
}

/// HTTPServer. See the module documentation.
#[derive(Default)]
pub struct HttpServer {
    /// The configuration arguments, to recognise the same server in a
    /// hot swap.
    conf: Vec<String>,
    addr: Option<SocketAddr>,
    token: Option<String>,
    read_only: bool,
    verbose: bool,
    server: Option<Server>,
    task: Option<TaskId>,
}

/// Parses ADDRESS: `HOST:PORT`, `[V6]:PORT` or `PORT`.
pub fn parse_address(s: &str) -> Option<SocketAddr> {
    if let Ok(p) = s.parse::<u16>() {
        return Some(SocketAddr::from((Ipv4Addr::LOCALHOST, p)));
    }
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Some(a);
    }
    let (host, port) = s.rsplit_once(':')?;
    let port = port.parse::<u16>().ok()?;
    (host.eq_ignore_ascii_case("localhost")).then(|| SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
}

fn is_loopback(ip: IpAddr) -> bool {
    ip.is_loopback()
}

impl HttpServer {
    fn url(&self) -> String {
        match &self.server {
            Some(s) => format!("http://{}/", s.running.addr),
            None => String::new(),
        }
    }

    fn port(&self) -> String {
        self.server
            .as_ref()
            .map(|s| s.running.addr.port().to_string())
            .unwrap_or_default()
    }

    fn answer(&mut self, req: Request, cx: &mut Ctx) -> Response {
        let generation = self.server.as_ref().map_or(0, |s| s.generation);
        match req {
            Request::Handler { write, name, data } => {
                let own = |h: &str| match h {
                    "port" => Some(self.port()),
                    "url" => Some(self.url()),
                    _ => None,
                };
                let mut h = RouterHandlers::new(cx, own, false);
                Response::Reply(api::call(&mut h, write, &name, &data, self.read_only))
            }
            Request::Graph => Response::Graph(snapshot::graph(cx, generation)),
            Request::Snapshot => Response::Snapshot(snapshot::snapshot(cx, generation)),
            Request::Handlers => {
                let mut list = snapshot::handler_list(cx);
                if let Some(me) = list.iter_mut().find(|e| e.element == cx.name()) {
                    me.handlers = ["port", "url"]
                        .iter()
                        .map(|n| snapshot::HandlerEntry {
                            name: n.to_string(),
                            read: true,
                            write: false,
                        })
                        .collect();
                }
                Response::Handlers(list)
            }
        }
    }

    fn stop(&mut self) {
        if let Some(mut s) = self.server.take() {
            s.running.stop();
        }
    }
}

impl Element for HttpServer {
    fn class_name(&self) -> &'static str {
        "HTTPServer"
    }

    fn port_count(&self) -> &'static str {
        "0/0"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut address = String::new();
        let mut token = String::new();
        let mut token_given = false;
        let mut remote = false;
        let mut read_only = false;
        let mut verbose = false;
        Args::new(conf)
            .read_mp("ADDRESS", &mut address)
            .read("TOKEN", &mut token)
            .read_status(&mut token_given)
            .read("REMOTE", &mut remote)
            .read("READONLY", &mut read_only)
            .read("VERBOSE", &mut verbose)
            .complete()
            .map_err(|e| e.to_string())?;
        let addr = parse_address(address.trim())
            .ok_or_else(|| format!("ADDRESS: expected HOST:PORT or PORT, not '{address}'"))?;
        if token_given && token.is_empty() {
            return Err("TOKEN: must not be empty".into());
        }
        let allowed = is_loopback(addr.ip()) || (remote && token_given);
        if !allowed {
            return Err(format!(
                "ADDRESS {} is not a loopback address: give REMOTE true and a TOKEN",
                addr.ip()
            ));
        }
        self.conf = conf.to_vec();
        self.addr = Some(addr);
        self.token = token_given.then_some(token);
        self.read_only = read_only;
        self.verbose = verbose;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let task = cx.new_task(false);
        self.task = Some(task);
        let same = cx
            .hotswap_element()
            .is_some_and(|old| rclick_core::confparse::split_args(&old) == self.conf);
        if same {
            // The replaced HTTPServer's server comes over in take_state.
            return Ok(());
        }
        let addr = self.addr.ok_or("not configured")?;
        let listener = TcpListener::bind(addr).map_err(|e| format!("bind {addr}: {e}"))?;
        let (link, endpoint) = bridge::pair().map_err(|e| format!("socketpair: {e}"))?;
        let guard = Guard {
            token: self.token.clone(),
        };
        let running = server::start(listener, link, guard).map_err(|e| format!("{e}"))?;
        cx.add_select(endpoint.wake.as_raw_fd(), Select::Read, task);
        self.server = Some(Server {
            endpoint,
            running,
            generation: 0,
        });
        if self.verbose {
            cx.log(format!("HTTPServer: serving {}", self.url()));
        }
        Ok(())
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let Some(s) = &self.server else {
            return false;
        };
        s.endpoint.drain_wakeups();
        let mut n = 0;
        while n < MAX_PER_RUN {
            let Some((req, reply)) = self.server.as_ref().and_then(|s| s.endpoint.next()) else {
                break;
            };
            let answer = if cx.is_quitting() {
                Response::Reply(Reply::no_router())
            } else {
                self.answer(req, cx)
            };
            let _ = reply.send(answer);
            n += 1;
        }
        if n == MAX_PER_RUN {
            cx.reschedule();
        }
        n > 0
    }

    fn take_state(&mut self, old: &mut dyn Element, cx: &mut Ctx) {
        let Some(o) = old.downcast_mut::<HttpServer>() else {
            return;
        };
        if self.server.is_some() || o.conf != self.conf {
            return;
        }
        let Some(mut s) = o.server.take() else {
            return;
        };
        s.generation += 1;
        if let Some(t) = self.task {
            if let Err(e) = cx.add_select(s.endpoint.wake.as_raw_fd(), Select::Read, t) {
                cx.log(format!("{}: {e}", cx.declaration()));
            }
            // Requests that arrived during the swap.
            cx.schedule_task(t);
        }
        self.server = Some(s);
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.stop();
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Port) => Ok(self.port()),
            Some(H::Url) => Ok(self.url()),
            _ => Err("no such handler".into()),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::Arc;

    fn registry() -> rclick_core::Registry {
        let mut r = rclick_core::Registry::new();
        rclick_elements_standard::register(&mut r);
        crate::register(&mut r);
        r
    }

    fn build(text: &str) -> rclick_core::Router {
        let flat = rclick_lang::parse(text, &rclick_lang::Options::default()).unwrap();
        rclick_core::Router::build(
            flat,
            Arc::new(registry()),
            rclick_core::BuildOptions {
                threads: 1,
                capture_log: true,
                source_text: text.to_string(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// One HTTP/1.1 request; the status and body.
    fn request(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        let text = String::from_utf8_lossy(&out).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map(|x| x.1)
            .unwrap_or("")
            .to_string();
        (status, body)
    }

    #[test]
    fn configuration_errors() {
        let r = registry();
        let e = rclick_core::testing::build("HTTPServer(nonsense)", &r, false).unwrap_err();
        assert!(e.contains("ADDRESS: expected HOST:PORT"), "{e}");
        let e = rclick_core::testing::build("HTTPServer(0.0.0.0:0)", &r, false).unwrap_err();
        assert!(e.contains("not a loopback address"), "{e}");
        let e = rclick_core::testing::build("HTTPServer(0.0.0.0:0, REMOTE true)", &r, false)
            .unwrap_err();
        assert!(e.contains("TOKEN"), "{e}");
        let e = rclick_core::testing::build("HTTPServer(0, TOKEN \"\")", &r, false).unwrap_err();
        assert!(e.contains("TOKEN: must not be empty"), "{e}");
        let e = rclick_core::testing::build("HTTPServer(0, BOGUS 1)", &r, false).unwrap_err();
        assert!(e.contains("BOGUS"), "{e}");
        assert_eq!(
            parse_address("8080"),
            Some(SocketAddr::from((Ipv4Addr::LOCALHOST, 8080)))
        );
        assert_eq!(
            parse_address("localhost:9"),
            Some(SocketAddr::from((Ipv4Addr::LOCALHOST, 9)))
        );
        assert!(parse_address("[::1]:80").is_some_and(|a| a.ip().is_loopback()));
        assert_eq!(parse_address("host:80"), None);
        assert_eq!(parse_address("127.0.0.1:70000"), None);
    }

    /// The API answers from the router's thread while it runs: reads,
    /// writes that change the router, ControlSocket's error codes, the
    /// graph, metrics, and refusals of bad requests.
    #[test]
    fn serves_the_api_while_the_router_runs() {
        let r = build(
            "h :: HTTPServer(127.0.0.1:0);\n\
             src :: InfiniteSource(LIMIT 10, STOP false) -> c :: Counter -> s :: Switch(0) -> Discard;\n\
             s[1] -> q :: Queue(7) -> Discard;",
        );
        let port: u16 = r.read_handler("h.port", "").unwrap().parse().unwrap();
        assert_eq!(
            r.read_handler("h.url", "").unwrap(),
            format!("http://127.0.0.1:{port}/")
        );
        let client = std::thread::spawn(move || {
            let mut seen = Vec::new();
            // Until the source has run.
            for _ in 0..100 {
                let (_, b) = request(port, "GET", "/api/elements/c/count", "");
                if b.contains("\"value\":\"10\"") {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            for (m, p, body) in [
                ("GET", "/api/elements/c/count", ""),
                ("GET", "/api/elements/c/nope", ""),
                ("GET", "/api/elements/zz/count", ""),
                ("POST", "/api/elements/s/switch", "1"),
                ("GET", "/api/elements/s/switch", ""),
                ("POST", "/api/elements/c/count", "3"),
                ("GET", "/api/elements/h/port", ""),
                ("GET", "/api/global/version", ""),
                ("GET", "/api/graph", ""),
                ("GET", "/metrics", ""),
                ("GET", "/api/handlers", ""),
                ("GET", "/", ""),
                ("GET", "/nowhere", ""),
                ("GET", "/api/elements/c%20x/count", ""),
            ] {
                seen.push(request(port, m, p, body));
            }
            let _ = request(port, "POST", "/api/global/stop", "");
            seen
        });
        r.run();
        let seen = client.join().unwrap();
        drop(r);
        let json = |i: usize| -> serde_json::Value {
            serde_json::from_str(&seen[i].1).unwrap_or_else(|e| panic!("{e}: {:?}", seen[i]))
        };
        assert_eq!(seen[0].0, 200);
        assert_eq!(json(0)["value"], "10");
        assert_eq!((seen[1].0, json(1)["code"].as_u64()), (404, Some(511)));
        assert_eq!(json(1)["message"], "No handler named 'c.nope'");
        assert_eq!((seen[2].0, json(2)["code"].as_u64()), (404, Some(510)));
        assert_eq!(json(3)["message"], "Write handler 's.switch' OK");
        assert_eq!(json(4)["value"], "1");
        assert_eq!((seen[5].0, json(5)["code"].as_u64()), (403, Some(530)));
        assert_eq!(json(6)["value"], port.to_string());
        assert_eq!(seen[7].0, 200);
        let g = json(8);
        let names: Vec<&str> = g["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["h", "src", "c", "s", "Discard@5", "q", "Discard@7"]);
        assert_eq!(g["connections"].as_array().unwrap().len(), 5);
        assert_eq!(g["elements"][5]["outputs"][0], "pull");
        assert_eq!(g["elements"][5]["line"], 3);
        assert!(g["source"].as_str().unwrap().starts_with("h :: HTTPServer"));
        let m = &seen[9].1;
        assert!(
            m.contains("rclick_element_packets_total{element=\"c\",class=\"Counter\"} 10"),
            "{m}"
        );
        assert!(
            m.contains("rclick_queue_capacity{element=\"q\",class=\"Queue\"} 7"),
            "{m}"
        );
        let h = json(10);
        let s = h
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["element"] == "s")
            .unwrap();
        assert!(s["handlers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == "switch" && x["write"] == true));
        assert!(seen[11].1.contains("<svg id=\"graph\""), "{}", seen[11].1);
        assert_eq!(seen[12].0, 404);
        // A space in a name is a syntax error (500), not a second argument.
        assert_eq!(seen[13].0, 400);
    }

    /// With a token, requests without it are refused by the server
    /// thread alone; dropping the router stops the server.
    #[test]
    fn token_required_and_server_stops_with_the_router() {
        let r = build("h :: HTTPServer(127.0.0.1:0, TOKEN t0k);");
        let port: u16 = r.read_handler("h.port", "").unwrap().parse().unwrap();
        let (status, body) = request(port, "GET", "/metrics", "");
        assert_eq!(status, 403);
        assert!(body.contains("a token is required"), "{body}");
        assert_eq!(request(port, "GET", "/", "").0, 200);
        drop(r);
        assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    }
}
