//! What the neighbour-lookup elements share: ARPQuerier (IPv4, in
//! rclick-elements-ethernet) and IP6NDSolicitor (IPv6, in
//! rclick-elements-ip) both send a query on their last output in the
//! middle of a batch and handle a reply that loops straight back, as
//! Click's nested push does. The two crates do not depend on each other,
//! so the step is here.

use crate::{Ctx, Packet, PacketBatch};

/// Sends `query` on the element's last output, then handles what came
/// back meanwhile.
///
/// What `out` holds (packets already encapsulated for output 0) is pushed
/// to output 0 first, so output 0 keeps its order relative to the query.
/// Each batch pushed back to the element while the query travelled (a
/// responder wired to the reply input) is given to `handle` as `(input
/// port, batch, out, cx)` right away, as Click's nested push would handle
/// it; `handle` may queue packets on `out`. Batches `handle` leaves are
/// none: every one taken is handed over.
pub fn send_query(
    query: Packet,
    out: &mut PacketBatch,
    cx: &mut Ctx,
    mut handle: impl FnMut(usize, PacketBatch, &mut PacketBatch, &mut Ctx),
) {
    if !out.is_empty() {
        cx.push(0, out.take());
    }
    let port = cx.noutputs().saturating_sub(1);
    cx.push_one(port, query);
    for (port, b) in cx.take_reentrant_pushes() {
        handle(port, b, out, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::send_query;
    use crate::{Ctx, Element, HandlerDef, Packet, PacketBatch, Registry};

    /// Queues packets 1 and 2 for output 0, sends query 9 on output 1,
    /// queues 3 for each reply handled, then pushes what is left (and 4).
    #[derive(Default)]
    struct Querier {
        handled: Vec<(usize, u8)>,
        late_pushes: usize,
    }

    impl Element for Querier {
        fn class_name(&self) -> &'static str {
            "Querier"
        }
        fn port_count(&self) -> &'static str {
            "0-1/2"
        }
        fn push(&mut self, _port: usize, _batch: PacketBatch, _cx: &mut Ctx) {
            self.late_pushes += 1;
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::write("go", 0), HandlerDef::read("handled", 1)]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(format!("{:?} late {}", self.handled, self.late_pushes))
        }
        fn write_handler(&mut self, _id: u32, _v: &str, cx: &mut Ctx) -> Result<(), String> {
            let mut out = PacketBatch::new();
            out.push(Packet::from_slice(&[1]));
            out.push(Packet::from_slice(&[2]));
            let handled = &mut self.handled;
            send_query(
                Packet::from_slice(&[9]),
                &mut out,
                cx,
                |port, b, out, _cx| {
                    for p in b {
                        handled.push((port, p.data()[0]));
                        out.push(Packet::from_slice(&[3]));
                    }
                },
            );
            out.push(Packet::from_slice(&[4]));
            cx.push(0, out);
            Ok(())
        }
    }

    /// Sends each packet straight back.
    #[derive(Default)]
    struct Echo;

    impl Element for Echo {
        fn class_name(&self) -> &'static str {
            "Echo"
        }
        fn port_count(&self) -> &'static str {
            "1/1"
        }
    }

    /// Records the first byte of each packet.
    #[derive(Default)]
    struct Log(Vec<u8>);

    impl Element for Log {
        fn class_name(&self) -> &'static str {
            "Log"
        }
        fn port_count(&self) -> &'static str {
            "1/0"
        }
        fn push(&mut self, _port: usize, batch: PacketBatch, _cx: &mut Ctx) {
            self.0.extend(batch.into_iter().map(|p| p.data()[0]));
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read("seen", 0)]
        }
        fn read_handler(&mut self, _id: u32, _p: &str, _cx: &mut Ctx) -> Result<String, String> {
            Ok(format!("{:?}", self.0))
        }
    }

    fn registry() -> Registry {
        let mut r = Registry::new();
        r.add("Querier", || Box::<Querier>::default(), "");
        r.add("Echo", || Box::<Echo>::default(), "");
        r.add("Log", || Box::<Log>::default(), "");
        r
    }

    #[test]
    fn query_follows_output_0_and_a_looped_reply_is_handled_at_once() {
        let r = crate::testing::build(
            "q :: Querier; q[0] -> log :: Log; q[1] -> Echo -> q;",
            &registry(),
            true,
        )
        .unwrap();
        r.write_handler("q.go", "").unwrap();
        // The reply (the query echoed to input 0) was handled inside the
        // send, not delivered later through push.
        assert_eq!(crate::testing::read(&r, "q.handled"), "[(0, 9)] late 0");
        // 1 and 2 left before the query; the reply's 3 and then 4 after.
        assert_eq!(crate::testing::read(&r, "log.seen"), "[1, 2, 3, 4]");
    }

    #[test]
    fn nothing_comes_back_without_a_loop() {
        let r = crate::testing::build(
            "q :: Querier; q[0] -> log :: Log; q[1] -> Log;",
            &registry(),
            true,
        )
        .unwrap();
        r.write_handler("q.go", "").unwrap();
        assert_eq!(crate::testing::read(&r, "q.handled"), "[] late 0");
        assert_eq!(crate::testing::read(&r, "log.seen"), "[1, 2, 4]");
    }
}
