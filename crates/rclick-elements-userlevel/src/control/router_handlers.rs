//! The router's handlers as ControlSocket's protocol reaches them from an
//! element's task (ControlSocket's, and rclick-observe's HTTPServer's):
//! `element.handler`, `number.handler` (elements numbered from 1) or a
//! global `handler`, private ones invisible; reads and writes through the
//! element's [`Ctx`]. The calling element's own handlers are answered by
//! the `own` function given, without re-entering the element.

use rclick_core::router::llrpc::EINVAL;
use rclick_core::Ctx;

use super::protocol::{Handlers, Lookup};

/// A [`Handlers`] back end on a router context.
pub struct RouterHandlers<'a, 'b, F> {
    cx: &'a mut Ctx<'b>,
    own: F,
    llrpc: bool,
}

impl<'a, 'b, F: FnMut(&str) -> Option<String>> RouterHandlers<'a, 'b, F> {
    /// Handlers seen from the element whose context is `cx`; `own(name)`
    /// answers a read of that element's handler `name` itself (`None`: ask
    /// the router). `llrpc`: whether LLRPCs are passed on (else `EINVAL`).
    pub fn new(cx: &'a mut Ctx<'b>, own: F, llrpc: bool) -> Self {
        RouterHandlers { cx, own, llrpc }
    }
}

impl<F: FnMut(&str) -> Option<String>> Handlers for RouterHandlers<'_, '_, F> {
    fn lookup(&mut self, name: &str) -> Lookup {
        let spec = match name.split_once('.') {
            Some((ename, h)) => {
                let e = self.cx.find(ename).or_else(|| {
                    ename
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n > 0 && n <= self.cx.nelements())
                        .map(|n| n - 1)
                });
                match e {
                    Some(e) => format!("{}.{h}", self.cx.element_info(e).name),
                    None => return Lookup::NoElement(ename.to_string()),
                }
            }
            None => name.to_string(),
        };
        match self.cx.handler_flags(&spec) {
            Some(f) if !f.private => Lookup::Found(spec, f),
            _ => Lookup::NoHandler,
        }
    }

    fn read(&mut self, spec: &str, param: &str) -> Result<String, String> {
        if let Some((e, h)) = spec.rsplit_once('.') {
            if e == self.cx.name() {
                if let Some(v) = (self.own)(h) {
                    return Ok(v);
                }
            }
        }
        self.cx.call_read(spec, param)
    }

    fn write(&mut self, spec: &str, value: &str) -> Result<(), String> {
        self.cx.call_write(spec, value)
    }

    fn llrpc(&mut self, spec: &str, command: u32, data: &mut [u8]) -> Result<(), i32> {
        if !self.llrpc {
            return Err(EINVAL);
        }
        let ename = spec.strip_suffix(".name").unwrap_or(spec);
        let e = self.cx.find(ename).ok_or(EINVAL)?;
        self.cx.call_llrpc(e, command, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::{testing, Element, HandlerDef};

    /// Asks the router's handlers through [`RouterHandlers`] from its own
    /// context: `ask` takes `lookup NAME`, `read NAME` or `llrpc NAME`.
    #[derive(Default)]
    struct Asker;

    impl Element for Asker {
        fn class_name(&self) -> &'static str {
            "Asker"
        }
        fn port_count(&self) -> &'static str {
            "0/0"
        }
        fn handlers(&self) -> Vec<HandlerDef> {
            vec![HandlerDef::read_param("ask", 0), HandlerDef::read("me", 1)]
        }
        fn read_handler(&mut self, id: u32, param: &str, cx: &mut Ctx) -> Result<String, String> {
            if id == 1 {
                return Ok("from the router".into());
            }
            let own = |h: &str| (h == "me").then(|| "answered here".to_string());
            let mut h = RouterHandlers::new(cx, own, false);
            let (what, name) = param.split_once(' ').unwrap_or((param, ""));
            Ok(match what {
                "lookup" => format!("{:?}", h.lookup(name)),
                "read" => h.read(name, "").unwrap_or_else(|e| format!("error: {e}")),
                "llrpc" => format!("{:?}", h.llrpc(name, 0, &mut [])),
                _ => return Err("what?".into()),
            })
        }
    }

    fn router() -> rclick_core::Router {
        let mut r = rclick_core::Registry::new();
        rclick_elements_standard::register(&mut r);
        r.add("Asker", || Box::<Asker>::default(), "");
        testing::build("a :: Asker; Idle -> c :: Counter -> Discard;", &r, false).unwrap()
    }

    fn ask(r: &rclick_core::Router, q: &str) -> String {
        r.read_handler("a.ask", q).unwrap()
    }

    #[test]
    fn names_numbers_and_globals_resolve_and_privates_hide() {
        let r = router();
        assert!(ask(&r, "lookup c.count").starts_with("Found(\"c.count\""));
        // Elements are numbered from 1 in declaration order: a is 1.
        assert!(ask(&r, "lookup 1.me").starts_with("Found(\"a.me\""));
        assert_eq!(ask(&r, "lookup 0.count"), "NoElement(\"0\")");
        assert_eq!(ask(&r, "lookup nope.count"), "NoElement(\"nope\")");
        assert_eq!(ask(&r, "lookup c.nope"), "NoHandler");
        assert!(ask(&r, "lookup version").starts_with("Found(\"version\""));
    }

    #[test]
    fn own_handlers_are_answered_here_others_by_the_router() {
        let r = router();
        assert_eq!(ask(&r, "read a.me"), "answered here");
        assert_eq!(ask(&r, "read c.count"), "0");
        assert_eq!(ask(&r, "llrpc c"), format!("Err({EINVAL})"));
    }
}
