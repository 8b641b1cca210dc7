//! The ControlSocket protocol on any byte stream, answered by a real
//! router's handlers: the input's first byte sets the chunk size in which
//! the rest arrives (0: all at once) and whether the session is
//! read-only; each chunk is received and commands run until one blocks.
//! No panic; replies are bounded by what the commands ask for. The router
//! is built once per process, so handler writes of earlier inputs persist
//! (as on a long-lived control connection).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rclick_core::Router;
use rclick_elements_userlevel::control::protocol::{Handlers, Lookup, Progress, Session};

const CONFIG: &str = "
    src :: InfiniteSource(LIMIT 0, ACTIVE false) -> c :: Counter -> q :: Queue(16)
        -> u :: Unqueue -> ic :: IPClassifier(tcp, udp, -) -> d :: Discard;
    ic[1] -> Discard; ic[2] -> Discard;
    rt :: LinearIPLookup(1.0.0.0/8 0, 0.0.0.0/0 1);
    Idle -> rt; rt[0] -> Discard; rt[1] -> Discard;
    arp :: ARPTable;
    s :: Script(TYPE PASSIVE, return $(c.count));
";

struct RouterHandlers<'a>(&'a Router);

impl Handlers for RouterHandlers<'_> {
    fn lookup(&mut self, name: &str) -> Lookup {
        let r = self.0;
        let spec = match name.split_once('.') {
            Some((ename, h)) => {
                let e = r.find(ename).or_else(|| {
                    ename
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n > 0 && n <= r.nelements())
                        .map(|n| n - 1)
                });
                match e {
                    Some(e) => format!("{}.{h}", r.element_info(e).name),
                    None => return Lookup::NoElement(ename.to_string()),
                }
            }
            None => name.to_string(),
        };
        match r.handler_flags(&spec) {
            Some(f) if !f.private => Lookup::Found(spec, f),
            _ => Lookup::NoHandler,
        }
    }
    fn read(&mut self, spec: &str, param: &str) -> Result<String, String> {
        self.0.read_handler(spec, param)
    }
    fn write(&mut self, spec: &str, value: &str) -> Result<(), String> {
        // Writing these would stop or replace the router the next inputs
        // talk to; they are tested on their own.
        if matches!(spec, "stop" | "hotconfig") {
            return Ok(());
        }
        self.0.write_handler(spec, value)
    }
    fn llrpc(&mut self, _spec: &str, _command: u32, _data: &mut [u8]) -> Result<(), i32> {
        Err(22)
    }
}

thread_local! {
    static ROUTER: Router = rclick_fuzz::build(CONFIG).expect("control router builds");
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let chunk = match usize::from(head & 0x7f) {
        0 => rest.len().max(1),
        n => n,
    };
    let read_only = head & 0x80 != 0;
    ROUTER.with(|r| {
        let mut h = RouterHandlers(r);
        let mut s = Session::new();
        let mut sent = 0usize;
        for part in rest.chunks(chunk) {
            s.receive(part);
            for _ in 0..10_000 {
                match s.step(&mut h, read_only) {
                    Progress::Ran => {}
                    Progress::Idle | Progress::Blocked => break,
                }
                sent += s.output.len();
                s.output.clear();
            }
        }
        s.in_closed = true;
        while s.step(&mut h, read_only) == Progress::Ran {
            sent += s.output.len();
            s.output.clear();
        }
        let _ = s.finished();
        let _ = sent;
    });
});
