//! rclick-sdk: write element classes in a shared library (an element
//! *package*) that a running rclick loads with `require(package "NAME")` or
//! `rclick pmgr load`, without rebuilding the router.
//!
//! A package author writes ordinary safe Rust: a type implementing
//! [`PackageElement`] per class, and one [`export_package!`] line:
//!
//! ```
//! use rclick_sdk::{Action, Config, Packet, PackageElement};
//!
//! /// Counts packets and paints them.
//! pub struct Painter { color: u8, count: u64 }
//!
//! impl PackageElement for Painter {
//!     const CLASS: &'static str = "Painter";
//!     const HANDLERS: &'static [&'static str] = &["count"];
//!     fn new(conf: &mut Config) -> Result<Self, String> {
//!         let color = conf.keyword("COLOR")?.unwrap_or(0);
//!         Ok(Painter { color, count: 0 })
//!     }
//!     fn action(&mut self, p: &mut Packet) -> Action {
//!         self.count += 1;
//!         p.set_paint(self.color);
//!         Action::Emit(0)
//!     }
//!     fn read_handler(&self, _name: &str) -> Result<String, String> {
//!         Ok(self.count.to_string())
//!     }
//! }
//!
//! rclick_sdk::export_package!("painter", [Painter]);
//! ```
//!
//! built as a `cdylib` (`crate-type = ["cdylib"]`, `panic = "unwind"`, the
//! default). The [`abi`] module is the boundary itself, and its rules
//! (the version check, who owns what); docs/PLUGINS.md tells how to build
//! and load a package.
//!
//! A panic in an element is caught here, at the boundary: the packet is
//! dropped, and the router counts it and keeps the message (the element's
//! `panics` and `last_panic` handlers). The element keeps running: its
//! state is still memory-safe Rust, perhaps half-updated.

pub mod abi;

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;

use abi::{ClassDesc, RawPacket, Sink, Str};

/// What to do with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Send it out of this output.
    Emit(u16),
    /// Drop it (the router counts it in the element's `drops`).
    Drop,
}

/// One element class of a package.
pub trait PackageElement: Sized + 'static {
    /// The class name, as configurations write it.
    const CLASS: &'static str;
    /// Click's port count code.
    const PORT_COUNT: &'static str = "1/1";
    /// Click's processing code. With pull processing only output 0 is
    /// used: a packet sent elsewhere is dropped and counted.
    const PROCESSING: &'static str = "a/a";
    /// The manual, in Click's sections (`rclick doc CLASS` prints it).
    const MANUAL: &'static str = "";
    /// The read handlers' names (besides the router's own).
    const HANDLERS: &'static [&'static str] = &[];
    /// The write handlers' names (a name also in `HANDLERS` is one
    /// handler, read and written).
    const WRITE_HANDLERS: &'static [&'static str] = &[];

    /// Makes an element from its configuration; an error says why.
    fn new(conf: &mut Config) -> Result<Self, String>;
    /// Handles one packet.
    fn action(&mut self, p: &mut Packet) -> Action;
    /// Reads the handler `name` (one of `HANDLERS`).
    fn read_handler(&self, name: &str) -> Result<String, String> {
        Err(format!("no read handler '{name}'"))
    }
    /// Writes `value` to the handler `name` (one of `WRITE_HANDLERS`); an
    /// error says why (and should change nothing).
    fn write_handler(&mut self, name: &str, value: &str) -> Result<(), String> {
        let _ = value;
        Err(format!("no write handler '{name}'"))
    }
}

/// A packet, as an element sees it during `action`. Reading costs
/// nothing; the first `data_mut` (or `network_header_mut`) asks the router
/// to make the bytes writable, which copies them if another packet shares
/// them (Click's `uniqueify`).
pub struct Packet<'a> {
    raw: &'a mut RawPacket,
}

impl<'a> Packet<'a> {
    /// Wraps a raw packet.
    ///
    /// # Safety
    /// `raw.data` must point to `raw.len` bytes readable for `'a`, and
    /// writable and used by nothing else once `raw.writable` is 1 (after
    /// `raw.make_writable`): the router's promise for an `action` call.
    pub unsafe fn from_raw(raw: &'a mut RawPacket) -> Packet<'a> {
        raw.pull = 0;
        raw.take = 0;
        Packet { raw }
    }

    fn range(&self) -> std::ops::Range<usize> {
        self.raw.pull..self.raw.len - self.raw.take
    }

    fn bytes(&self) -> &[u8] {
        if self.raw.len == 0 || self.raw.data.is_null() {
            return &[];
        }
        // SAFETY: `from_raw`'s contract: `len` readable bytes for `'a`,
        // and `&self` keeps `data_mut` from handing them out meanwhile.
        unsafe { std::slice::from_raw_parts(self.raw.data, self.raw.len) }
    }

    /// The data.
    pub fn data(&self) -> &[u8] {
        let r = self.range();
        &self.bytes()[r]
    }
    /// The data, to change in place. Panics (caught at the boundary: the
    /// packet is dropped and counted) if the router cannot make it
    /// writable.
    pub fn data_mut(&mut self) -> &mut [u8] {
        if self.raw.writable == 0 {
            let make = self.raw.make_writable;
            let raw: *mut RawPacket = &mut *self.raw;
            if make(raw) != 0 || self.raw.writable == 0 {
                panic!("the router could not make the packet writable");
            }
        }
        let r = self.range();
        if self.raw.len == 0 || self.raw.data.is_null() {
            return &mut [];
        }
        // SAFETY: `writable` is 1, so by `from_raw`'s contract the `len`
        // bytes are writable and ours alone; `&mut self` makes this the only
        // borrow.
        let all = unsafe { std::slice::from_raw_parts_mut(self.raw.data, self.raw.len) };
        &mut all[r]
    }
    /// The data's length.
    pub fn len(&self) -> usize {
        self.range().len()
    }
    /// True if there is no data.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Removes `n` bytes from the front; false (and nothing changes) if
    /// there are fewer.
    pub fn pull(&mut self, n: usize) -> bool {
        if n > self.len() {
            return false;
        }
        self.raw.pull += n;
        true
    }
    /// Removes `n` bytes from the end; false (and nothing changes) if
    /// there are fewer.
    pub fn take(&mut self, n: usize) -> bool {
        if n > self.len() {
            return false;
        }
        self.raw.take += n;
        true
    }
    fn offset(&self, o: i32) -> Option<usize> {
        usize::try_from(o)
            .ok()
            .and_then(|o| o.checked_sub(self.raw.pull))
            .filter(|&o| o <= self.len())
    }
    /// The network header's offset in `data()`, if set and still there.
    pub fn network_offset(&self) -> Option<usize> {
        self.offset(self.raw.anno.network_offset)
    }
    /// The transport header's offset in `data()`, if set and still there.
    pub fn transport_offset(&self) -> Option<usize> {
        self.offset(self.raw.anno.transport_offset)
    }
    /// The bytes from the network header on.
    pub fn network_header(&self) -> Option<&[u8]> {
        let o = self.network_offset()?;
        Some(&self.data()[o..])
    }
    /// The bytes from the network header on, to change in place.
    pub fn network_header_mut(&mut self) -> Option<&mut [u8]> {
        let o = self.network_offset()?;
        Some(&mut self.data_mut()[o..])
    }
    /// The paint annotation.
    pub fn paint(&self) -> u8 {
        self.raw.anno.paint
    }
    /// Sets the paint annotation.
    pub fn set_paint(&mut self, v: u8) {
        self.raw.anno.paint = v;
    }
    /// The aggregate annotation.
    pub fn aggregate(&self) -> u32 {
        self.raw.anno.aggregate
    }
    /// Sets the aggregate annotation.
    pub fn set_aggregate(&mut self, v: u32) {
        self.raw.anno.aggregate = v;
    }
    /// The sequence number annotation.
    pub fn sequence(&self) -> u32 {
        self.raw.anno.sequence
    }
    /// Sets the sequence number annotation.
    pub fn set_sequence(&mut self, v: u32) {
        self.raw.anno.sequence = v;
    }
    /// The destination IP annotation.
    pub fn dst_ip(&self) -> [u8; 4] {
        self.raw.anno.dst_ip
    }
    /// Sets the destination IP annotation.
    pub fn set_dst_ip(&mut self, a: [u8; 4]) {
        self.raw.anno.dst_ip = a;
    }
}

/// An element's configuration: Click's arguments, read by keyword or
/// position. Every argument must be used: [`Config::finish`] (which the
/// SDK calls after `new`) rejects leftovers, as Click's parser does.
#[derive(Debug)]
pub struct Config {
    args: Vec<(String, bool)>,
}

fn keyword_of(arg: &str) -> Option<(&str, &str)> {
    let (k, v) = arg.split_once(char::is_whitespace)?;
    let is_kw = !k.is_empty()
        && k.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && k.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    is_kw.then(|| (k, v.trim()))
}

impl Config {
    /// A configuration of these arguments.
    pub fn new<S: AsRef<str>>(args: &[S]) -> Config {
        Config {
            args: args
                .iter()
                .map(|a| (a.as_ref().trim().to_string(), false))
                .filter(|a| !a.0.is_empty())
                .collect(),
        }
    }

    /// Reads keyword argument `KEY value` (the last one if repeated);
    /// `None` if absent, an error naming the keyword if unparsable.
    pub fn keyword<T: FromStr>(&mut self, key: &str) -> Result<Option<T>, String> {
        let mut found = None;
        for (a, used) in &mut self.args {
            if let Some((k, v)) = keyword_of(a) {
                if k == key {
                    *used = true;
                    found = Some(v.to_string());
                }
            }
        }
        match found {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| format!("{key}: bad value '{v}'")),
        }
    }

    /// Reads the next positional argument (one that is not `KEY value`),
    /// named `name` in errors; `None` if there is none left.
    pub fn positional<T: FromStr>(&mut self, name: &str) -> Result<Option<T>, String> {
        let Some((a, used)) = self
            .args
            .iter_mut()
            .find(|(a, used)| !*used && keyword_of(a).is_none())
        else {
            return Ok(None);
        };
        *used = true;
        a.parse()
            .map(Some)
            .map_err(|_| format!("{name}: bad value '{a}'"))
    }

    /// An error for the first argument nothing read.
    pub fn finish(&self) -> Result<(), String> {
        match self.args.iter().find(|a| !a.1) {
            Some((a, _)) => Err(format!("unknown argument '{a}'")),
            None => Ok(()),
        }
    }
}

/// A caught panic's message.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = p.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_string()
    }
}

extern "C" fn new_shim<T: PackageElement>(
    args: *const Str,
    nargs: usize,
    err: Sink,
) -> *mut c_void {
    let r = catch_unwind(|| {
        let strs: Vec<String> = if nargs == 0 || args.is_null() {
            Vec::new()
        } else {
            // SAFETY: the router passes `nargs` valid `Str`s that live for
            // this call (abi contract).
            let raw = unsafe { std::slice::from_raw_parts(args, nargs) };
            // SAFETY: each `Str` is valid for the call (abi contract).
            raw.iter()
                .map(|s| unsafe { s.as_str() }.into_owned())
                .collect()
        };
        let mut conf = Config::new(&strs);
        let el = T::new(&mut conf)?;
        conf.finish()?;
        Ok::<T, String>(el)
    });
    match r {
        Ok(Ok(el)) => Box::into_raw(Box::new(el)).cast(),
        Ok(Err(e)) => {
            err.put(&e);
            std::ptr::null_mut()
        }
        Err(p) => {
            err.put(&panic_text(&*p));
            std::ptr::null_mut()
        }
    }
}

extern "C" fn action_shim<T: PackageElement>(
    state: *mut c_void,
    packet: *mut RawPacket,
    err: Sink,
) -> i32 {
    if state.is_null() || packet.is_null() {
        return abi::ACTION_DROP;
    }
    let r = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `state` came from `new_shim::<T>` (a `Box<T>`) and the
        // router calls from one thread at a time (abi contract).
        let el = unsafe { &mut *state.cast::<T>() };
        // SAFETY: the router passes a valid packet, exclusive for the call.
        let mut p = unsafe { Packet::from_raw(&mut *packet) };
        el.action(&mut p)
    }));
    match r {
        Ok(Action::Emit(port)) => i32::from(port),
        Ok(Action::Drop) => abi::ACTION_DROP,
        Err(p) => {
            err.put(&panic_text(&*p));
            abi::ACTION_PANIC
        }
    }
}

extern "C" fn read_shim<T: PackageElement>(state: *mut c_void, handler: u32, out: Sink) -> i32 {
    let Some(name) = T::HANDLERS.get(handler as usize) else {
        out.put("no such handler");
        return abi::STATUS_ERROR;
    };
    if state.is_null() {
        return abi::STATUS_ERROR;
    }
    // SAFETY: as in `action_shim`; a read handler only reads.
    let el = unsafe { &*state.cast::<T>() };
    match catch_unwind(AssertUnwindSafe(|| el.read_handler(name))) {
        Ok(Ok(s)) => {
            out.put(&s);
            abi::STATUS_OK
        }
        Ok(Err(e)) => {
            out.put(&e);
            abi::STATUS_ERROR
        }
        Err(p) => {
            out.put(&panic_text(&*p));
            abi::STATUS_PANIC
        }
    }
}

extern "C" fn write_shim<T: PackageElement>(
    state: *mut c_void,
    handler: u32,
    value: Str,
    err: Sink,
) -> i32 {
    let Some(name) = T::WRITE_HANDLERS.get(handler as usize) else {
        err.put("no such handler");
        return abi::STATUS_ERROR;
    };
    if state.is_null() {
        return abi::STATUS_ERROR;
    }
    // SAFETY: the router passes a valid string for the call (abi contract).
    let value = unsafe { value.as_str() }.into_owned();
    // SAFETY: as in `action_shim`.
    let el = unsafe { &mut *state.cast::<T>() };
    match catch_unwind(AssertUnwindSafe(|| el.write_handler(name, &value))) {
        Ok(Ok(())) => abi::STATUS_OK,
        Ok(Err(e)) => {
            err.put(&e);
            abi::STATUS_ERROR
        }
        Err(p) => {
            err.put(&panic_text(&*p));
            abi::STATUS_PANIC
        }
    }
}

extern "C" fn destroy_shim<T: PackageElement>(state: *mut c_void) {
    if state.is_null() {
        return;
    }
    // A panicking Drop is caught; the memory is then leaked.
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `state` came from `Box::into_raw` in `new_shim::<T>` and
        // the router destroys it once (abi contract).
        drop(unsafe { Box::from_raw(state.cast::<T>()) });
    }));
}

/// Names of `T::HANDLERS` as ABI strings; a `static` per class made by
/// [`export_package!`].
pub struct HandlerNames<const N: usize>(pub [Str; N]);

impl<const N: usize> HandlerNames<N> {
    /// Borrows the names.
    pub const fn of(names: &'static [&'static str]) -> HandlerNames<N> {
        let mut out = [Str::new(""); N];
        let mut i = 0;
        while i < N {
            out[i] = Str::new(names[i]);
            i += 1;
        }
        HandlerNames(out)
    }
}

impl ClassDesc {
    /// The descriptor of class `T`, whose handler names are `handlers`
    /// and `write_handlers` (from [`HandlerNames::of`]`(T::HANDLERS)` and
    /// `(T::WRITE_HANDLERS)`).
    pub const fn of<T: PackageElement>(
        handlers: &'static [Str],
        write_handlers: &'static [Str],
    ) -> ClassDesc {
        ClassDesc {
            name: Str::new(T::CLASS),
            port_count: Str::new(T::PORT_COUNT),
            processing: Str::new(T::PROCESSING),
            manual: Str::new(T::MANUAL),
            new: new_shim::<T>,
            action: action_shim::<T>,
            destroy: destroy_shim::<T>,
            handlers: handlers.as_ptr(),
            nhandlers: handlers.len(),
            read: read_shim::<T>,
            write_handlers: write_handlers.as_ptr(),
            nwrite_handlers: write_handlers.len(),
            write: write_shim::<T>,
        }
    }
}

impl abi::PackageDesc {
    /// The descriptor of package `name` with these classes.
    pub const fn new(name: &'static str, classes: &'static [ClassDesc]) -> abi::PackageDesc {
        abi::PackageDesc {
            abi_version: abi::ABI_VERSION,
            name: Str::new(name),
            classes: classes.as_ptr(),
            nclasses: classes.len(),
        }
    }
}

/// Exports a package: `export_package!("NAME", [Class1, Class2])` defines
/// the entry symbol (`rclick_package_entry`) returning the package's
/// descriptor. Use it once per library.
#[macro_export]
macro_rules! export_package {
    ($name:expr, [$($class:ty),+ $(,)?]) => {
        /// The package's entry point (rclick-sdk's ABI).
        #[no_mangle]
        pub extern "C" fn rclick_package_entry() -> *const $crate::abi::PackageDesc {
            static CLASSES: &[$crate::abi::ClassDesc] = &[$({
                const N: usize = <$class as $crate::PackageElement>::HANDLERS.len();
                static NAMES: $crate::HandlerNames<N> =
                    $crate::HandlerNames::of(<$class as $crate::PackageElement>::HANDLERS);
                const W: usize = <$class as $crate::PackageElement>::WRITE_HANDLERS.len();
                static WNAMES: $crate::HandlerNames<W> =
                    $crate::HandlerNames::of(<$class as $crate::PackageElement>::WRITE_HANDLERS);
                $crate::abi::ClassDesc::of::<$class>(&NAMES.0, &WNAMES.0)
            }),+];
            static DESC: $crate::abi::PackageDesc = $crate::abi::PackageDesc::new($name, CLASSES);
            &DESC
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo {
        port: u16,
        seen: u64,
    }

    impl PackageElement for Echo {
        const CLASS: &'static str = "Echo";
        const HANDLERS: &'static [&'static str] = &["seen", "broken"];
        const WRITE_HANDLERS: &'static [&'static str] = &["seen"];
        fn new(conf: &mut Config) -> Result<Self, String> {
            let port = conf.positional("PORT")?.unwrap_or(0);
            if conf.keyword::<bool>("PANIC")? == Some(true) {
                panic!("asked to");
            }
            Ok(Echo { port, seen: 0 })
        }
        fn action(&mut self, p: &mut Packet) -> Action {
            self.seen += 1;
            if p.data().first() == Some(&0xff) {
                panic!("bad byte");
            }
            if p.is_empty() {
                return Action::Drop;
            }
            p.data_mut()[0] ^= 1;
            p.set_paint(7);
            assert!(p.pull(1));
            assert!(!p.take(1000));
            Action::Emit(self.port)
        }
        fn read_handler(&self, name: &str) -> Result<String, String> {
            match name {
                "seen" => Ok(self.seen.to_string()),
                _ => Err("broken".into()),
            }
        }
        fn write_handler(&mut self, _name: &str, value: &str) -> Result<(), String> {
            self.seen = value
                .parse()
                .map_err(|_| format!("not a number: '{value}'"))?;
            Ok(())
        }
    }

    export_package!("echo-pkg", [Echo]);

    /// The tests' buffers are the test's own: writable as they are.
    extern "C" fn writable_here(raw: *mut RawPacket) -> i32 {
        // SAFETY: the shim passes the packet it was given.
        unsafe { (*raw).writable = 1 };
        0
    }

    extern "C" fn refuse(_: *mut RawPacket) -> i32 {
        1
    }

    /// A raw packet over `bytes`, read-only until `make_writable`.
    fn raw_packet(
        bytes: &mut [u8],
        make_writable: extern "C" fn(*mut RawPacket) -> i32,
    ) -> RawPacket {
        RawPacket {
            data: bytes.as_mut_ptr(),
            len: bytes.len(),
            pull: 0,
            take: 0,
            anno: abi::RawAnno::default(),
            writable: 0,
            host: std::ptr::null_mut(),
            make_writable,
        }
    }

    extern "C" fn to_string(ctx: *mut c_void, ptr: *const u8, len: usize) {
        // SAFETY: test: ctx is a &mut String, ptr/len a str.
        let s = unsafe { &mut *ctx.cast::<String>() };
        // SAFETY: test: the shim passes a valid str.
        s.push_str(std::str::from_utf8(unsafe { std::slice::from_raw_parts(ptr, len) }).unwrap());
    }

    fn sink(s: &mut String) -> Sink {
        Sink {
            ctx: (s as *mut String).cast(),
            write: to_string,
        }
    }

    /// Drives the exported descriptor as the router does.
    #[test]
    fn descriptor_and_shims() {
        // SAFETY: the exported entry returns a static descriptor.
        let d = unsafe { &*rclick_package_entry() };
        assert_eq!(d.abi_version, abi::ABI_VERSION);
        // SAFETY: descriptor strings are static.
        assert_eq!(unsafe { d.name.as_str() }, "echo-pkg");
        assert_eq!(d.nclasses, 1);
        // SAFETY: `classes` points to `nclasses` static descriptors.
        let c = unsafe { &*d.classes };
        // SAFETY: static strings.
        unsafe {
            assert_eq!(c.name.as_str(), "Echo");
            assert_eq!(c.port_count.as_str(), "1/1");
            assert_eq!(c.processing.as_str(), "a/a");
            assert_eq!(c.nhandlers, 2);
            assert_eq!((*c.handlers.add(1)).as_str(), "broken");
        }
        let mut err = String::new();
        let args = [Str::new("2"), Str::new("BOGUS 1")];
        assert!((c.new)(args.as_ptr(), 2, sink(&mut err)).is_null());
        assert_eq!(err, "unknown argument 'BOGUS 1'");
        err.clear();
        let args = [Str::new("PANIC true")];
        assert!((c.new)(args.as_ptr(), 1, sink(&mut err)).is_null());
        assert_eq!(err, "panicked: asked to");
        err.clear();
        let args = [Str::new("x")];
        assert!((c.new)(args.as_ptr(), 1, sink(&mut err)).is_null());
        assert_eq!(err, "PORT: bad value 'x'");

        let args = [Str::new("3")];
        let st = (c.new)(args.as_ptr(), 1, sink(&mut err));
        assert!(!st.is_null());
        let mut bytes = [4u8, 5, 6];
        let mut raw = raw_packet(&mut bytes, writable_here);
        let mut e = String::new();
        assert_eq!((c.action)(st, &mut raw, sink(&mut e)), 3);
        assert_eq!(bytes[0], 5);
        assert_eq!((raw.pull, raw.take, raw.anno.paint), (1, 0, 7));
        // A panic is caught: the code says so and the message arrives.
        let mut bytes = [0xffu8];
        let mut raw = raw_packet(&mut bytes, writable_here);
        assert_eq!((c.action)(st, &mut raw, sink(&mut e)), abi::ACTION_PANIC);
        assert_eq!(e, "panicked: bad byte");
        // A packet the router cannot make writable: a caught panic too,
        // and the bytes are untouched.
        let mut bytes = [4u8];
        let mut raw = raw_packet(&mut bytes, refuse);
        e.clear();
        assert_eq!((c.action)(st, &mut raw, sink(&mut e)), abi::ACTION_PANIC);
        assert_eq!(e, "panicked: the router could not make the packet writable");
        assert_eq!(bytes, [4]);
        let mut out = String::new();
        assert_eq!((c.read)(st, 0, sink(&mut out)), abi::STATUS_OK);
        assert_eq!(out, "3", "every action call counted, panicking ones too");
        out.clear();
        assert_eq!((c.read)(st, 1, sink(&mut out)), abi::STATUS_ERROR);
        assert_eq!(out, "broken");
        out.clear();
        assert_eq!((c.read)(st, 9, sink(&mut out)), abi::STATUS_ERROR);
        // Write handlers.
        assert_eq!(c.nwrite_handlers, 1);
        out.clear();
        assert_eq!(
            (c.write)(st, 0, Str::new("x"), sink(&mut out)),
            abi::STATUS_ERROR
        );
        assert_eq!(out, "not a number: 'x'");
        out.clear();
        assert_eq!(
            (c.write)(st, 0, Str::new("40"), sink(&mut out)),
            abi::STATUS_OK
        );
        assert_eq!((c.read)(st, 0, sink(&mut out)), abi::STATUS_OK);
        assert_eq!(out, "40");
        (c.destroy)(st);
    }

    #[test]
    fn config_keywords_positionals_and_leftovers() {
        let mut c = Config::new(&["10", "KEY 0x5", "COLOR 3", "", "more words"]);
        assert_eq!(c.keyword::<u8>("COLOR").unwrap(), Some(3));
        assert_eq!(c.keyword::<u8>("ABSENT").unwrap(), None);
        assert_eq!(c.positional::<u32>("N").unwrap(), Some(10));
        assert_eq!(c.keyword::<u8>("KEY").unwrap_err(), "KEY: bad value '0x5'");
        assert_eq!(c.finish().unwrap_err(), "unknown argument 'more words'");
        assert_eq!(
            c.positional::<String>("S").unwrap().as_deref(),
            Some("more words")
        );
        assert!(c.finish().is_ok());
    }

    #[test]
    fn packet_pull_take_and_offsets() {
        let mut bytes = [1u8, 2, 3, 4, 5, 6];
        let mut raw = raw_packet(&mut bytes, writable_here);
        (raw.pull, raw.take) = (9, 9);
        raw.anno.network_offset = 2;
        raw.anno.transport_offset = -1;
        // SAFETY: `bytes` outlives `p`, nothing else uses it.
        let mut p = unsafe { Packet::from_raw(&mut raw) };
        assert_eq!(p.len(), 6, "from_raw clears pull and take");
        assert_eq!(p.network_header(), Some(&[3u8, 4, 5, 6][..]));
        assert_eq!(p.transport_offset(), None);
        assert!(p.pull(1) && p.take(2));
        assert_eq!(p.data(), &[2, 3, 4]);
        assert_eq!(p.network_offset(), Some(1));
        assert!(p.pull(3));
        assert!(p.is_empty());
        assert!(!p.pull(1) && !p.take(1));
        assert_eq!(p.network_offset(), None, "the header was pulled off");
    }
}
