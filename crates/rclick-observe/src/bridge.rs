//! What HTTPServer's server thread and the element pass each other.
//!
//! The server thread never touches the router: each request that needs it
//! becomes a [`Request`] on a bounded channel, the thread writes one byte
//! to a socket pair whose other end the router watches (Click's
//! `add_select`), and the element's task answers on the router's own
//! thread, through a one-shot reply channel. A router that has stopped
//! answers nothing: the caller gives up after a bound ([`Link::call`]).

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::oneshot;

use crate::api::Reply;
use crate::snapshot::{Graph, HandlerList, Snapshot};

/// Requests that may wait for the router at once; more are refused.
pub const MAX_WAITING: usize = 256;

/// How long a request waits for the router (a hot swap builds a whole
/// router in the meantime).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// What the server asks of the router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Calls a read (`write` false) or write handler as ControlSocket's
    /// `READDATA`/`WRITEDATA` would: `name` is `element.handler` or a
    /// global handler, `data` the parameter or value.
    Handler {
        /// Whether to write.
        write: bool,
        /// The handler's name.
        name: String,
        /// Parameter or value.
        data: String,
    },
    /// The graph: elements, ports, connections, configuration text.
    Graph,
    /// Every element's counters, now.
    Snapshot,
    /// Every visible handler.
    Handlers,
}

/// The router's answer.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Response {
    /// A handler call's outcome.
    Reply(Reply),
    /// The graph.
    Graph(Graph),
    /// Counters.
    Snapshot(Snapshot),
    /// Handlers.
    Handlers(HandlerList),
}

/// One request and where its answer goes.
pub type Call = (Request, oneshot::Sender<Response>);

/// The server thread's end.
#[derive(Debug)]
pub struct Link {
    tx: SyncSender<Call>,
    wake: UnixStream,
}

/// The element's end: requests, and the descriptor that becomes readable
/// when one is waiting.
#[derive(Debug)]
pub struct Endpoint {
    rx: Receiver<Call>,
    /// Watched by the router for reading.
    pub wake: UnixStream,
}

/// A connected pair.
pub fn pair() -> std::io::Result<(Link, Endpoint)> {
    let (a, b) = UnixStream::pair()?;
    a.set_nonblocking(true)?;
    b.set_nonblocking(true)?;
    let (tx, rx) = sync_channel(MAX_WAITING);
    Ok((Link { tx, wake: a }, Endpoint { rx, wake: b }))
}

impl Link {
    /// Sends `req` to the router and waits for the answer. Errors are
    /// ControlSocket replies: 540 when the router does not answer.
    pub async fn call(&self, req: Request) -> Result<Response, Reply> {
        let (tx, rx) = oneshot::channel();
        match self.tx.try_send((req, tx)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                return Err(Reply::error(
                    crate::api::code::BUSY,
                    "Too many requests waiting for the router",
                ))
            }
            Err(TrySendError::Disconnected(_)) => return Err(Reply::no_router()),
        }
        // One byte wakes the router; a full socket already holds one.
        let _ = (&self.wake).write(&[1]);
        match tokio::time::timeout(ANSWER_TIMEOUT, rx).await {
            Ok(Ok(r)) => Ok(r),
            _ => Err(Reply::no_router()),
        }
    }
}

impl Endpoint {
    /// Empties the wake-up socket. Call before [`Endpoint::next`], so a
    /// request sent after this is either seen by `next` or wakes the
    /// router again.
    pub fn drain_wakeups(&self) {
        let mut buf = [0u8; 64];
        loop {
            match (&self.wake).read(&mut buf) {
                Ok(n) if n == buf.len() => continue,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                _ => return,
            }
        }
    }

    /// The next waiting request, if any.
    pub fn next(&self) -> Option<Call> {
        self.rx.try_recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_request_wakes_the_endpoint_and_gets_its_answer() {
        let (link, end) = pair().unwrap();
        let t = std::thread::spawn(move || {
            let mut fds = [0u8; 1];
            // Blocks until the link writes its byte.
            end.wake.set_nonblocking(false).unwrap();
            (&end.wake).read_exact(&mut fds).unwrap();
            end.wake.set_nonblocking(true).unwrap();
            end.drain_wakeups();
            let (req, reply) = end.next().unwrap();
            assert_eq!(req, Request::Graph);
            reply
                .send(Response::Reply(Reply::ok("fine", "x".into())))
                .unwrap();
            assert!(end.next().is_none());
        });
        let r = rt().block_on(link.call(Request::Graph)).unwrap();
        t.join().unwrap();
        match r {
            Response::Reply(r) => assert_eq!((r.code, r.value.as_str()), (200, "x")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_dropped_endpoint_means_no_router() {
        let (link, end) = pair().unwrap();
        drop(end);
        let e = rt().block_on(link.call(Request::Snapshot)).unwrap_err();
        assert_eq!(e.code, 540);
        assert_eq!(e.status(), 503);
    }

    #[test]
    fn too_many_waiting_requests_are_refused() {
        let (link, _end) = pair().unwrap();
        let rt = rt();
        for _ in 0..MAX_WAITING {
            let (tx, _rx) = oneshot::channel();
            link.tx.try_send((Request::Graph, tx)).unwrap();
        }
        let e = rt.block_on(link.call(Request::Graph)).unwrap_err();
        assert_eq!(e.code, crate::api::code::BUSY);
    }
}
