//! Element packages: shared libraries of element classes, loaded at run
//! time (the Router Plugins paper's loadable plugin code; Click's
//! `require(package "NAME")`). See docs/PLUGINS.md and rclick-sdk.
//!
//! [`Loader`] is the registry's [`PackageLoader`]: it finds `libNAME.so`
//! (or `NAME.so`) on the search path, opens it with libloading, checks the
//! ABI version of its descriptor and turns each class into a registry
//! class whose elements are [`PackageElement`]s: host elements that call
//! the package's `new`, `action`, `read` and `destroy` through the ABI.
//!
//! The search path: each directory of `CLICKPATH`, then of
//! `RCLICK_PACKAGE_PATH` (colon-separated, empty entries skipped); in each
//! directory `DIR/lib/`, `DIR/packages/`, then `DIR/` itself (Click looks
//! in a CLICKPATH directory's subdirectory first, then the directory). In
//! each place the file names `libNAME.so`, `NAME.so`, and, when NAME has
//! a `-`, the same with `_` (Cargo's name for `payload-xor`'s library is
//! `libpayload_xor.so`). A NAME with a `/` or ending in `.so` is a path.
//!
//! A library stays loaded while anything of it is alive: every element of
//! its classes holds it (an `Arc`), the registry holds it until `unload`,
//! and `unload` is refused while any element holds it. This module and the
//! SDK's shims are the only code that crosses the ABI; each `unsafe` block
//! says why it is sound.

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rclick_core::registry::{intern, ClassInfo, DynFactory, Package, PackageLoader};
use rclick_core::spec::{PortCount, ProcessingSpec};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, Packet, PacketBatch, Registry};
use rclick_sdk::abi::{self, RawAnno, RawPacket, Sink, Str};

/// Installs the package loader in `r`.
pub fn install_loader(r: &mut Registry) {
    r.set_package_loader(Arc::new(Loader::from_env()));
}

/// A loaded library (or, in tests, a descriptor in this program).
pub struct Lib {
    /// The library; `None` for a descriptor of this program's own.
    _lib: Option<libloading::Library>,
}

/// A class's functions and texts, copied out of its descriptor.
struct ClassFns {
    name: &'static str,
    port_count: &'static str,
    processing: &'static str,
    /// The package's handlers: name, index among its read handlers, index
    /// among its write handlers.
    handlers: Vec<PkgHandler>,
    write: abi::WriteFn,
    new: abi::NewFn,
    action: abi::ActionFn,
    read: abi::ReadFn,
    destroy: abi::DestroyFn,
}

/// One handler of a package class.
struct PkgHandler {
    name: &'static str,
    read: Option<u32>,
    write: Option<u32>,
}

/// Interned copies of `n` strings at `p` (none if `p` is null).
///
/// # Safety
/// `p` is null or points to `n` valid `Str`s.
unsafe fn names(p: *const Str, n: usize) -> Vec<&'static str> {
    if n == 0 || p.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, n) }
        .iter()
        // SAFETY: the caller's contract, for each string.
        .map(|s| intern(&unsafe { s.as_str() }))
        .collect()
}

/// Finds and opens packages.
pub struct Loader {
    /// Directories to search, in order (before the `lib/`, `packages/`
    /// subdirectories are added).
    pub dirs: Vec<PathBuf>,
}

impl Loader {
    /// A loader searching `CLICKPATH`, then `RCLICK_PACKAGE_PATH`, as they
    /// are when a package is loaded.
    pub fn from_env() -> Loader {
        Loader { dirs: Vec::new() }
    }

    fn search_dirs(&self) -> Vec<PathBuf> {
        if !self.dirs.is_empty() {
            return self.dirs.clone();
        }
        let mut v = Vec::new();
        for var in ["CLICKPATH", "RCLICK_PACKAGE_PATH"] {
            if let Some(p) = std::env::var_os(var) {
                v.extend(std::env::split_paths(&p).filter(|d| !d.as_os_str().is_empty()));
            }
        }
        v
    }

    /// The files `load(name)` would try, in order.
    pub fn candidates(&self, name: &str) -> Vec<PathBuf> {
        let mut files = vec![format!("lib{name}.so"), format!("{name}.so")];
        if name.contains('-') {
            let u = name.replace('-', "_");
            files.push(format!("lib{u}.so"));
            files.push(format!("{u}.so"));
        }
        let mut out = Vec::new();
        for d in self.search_dirs() {
            for sub in [d.join("lib"), d.join("packages"), d.clone()] {
                for f in &files {
                    out.push(sub.join(f));
                }
            }
        }
        out
    }

    /// Finds package `name`'s file.
    fn find(&self, name: &str) -> Result<PathBuf, String> {
        if let Some(p) = self.candidates(name).into_iter().find(|p| p.is_file()) {
            return Ok(p);
        }
        let dirs = self.search_dirs();
        let place = if dirs.is_empty() {
            "in CLICKPATH or RCLICK_PACKAGE_PATH (neither is set)".to_string()
        } else {
            let d: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
            format!(
                "in CLICKPATH or RCLICK_PACKAGE_PATH ({}, each with lib/ and packages/)",
                d.join(", ")
            )
        };
        Err(format!(
            "can't find required package 'lib{name}.so'\n{place}"
        ))
    }
}

impl PackageLoader for Loader {
    fn load(&self, name: &str) -> Result<Package, String> {
        let by_path = name.contains('/') || name.ends_with(".so");
        let path = if by_path {
            PathBuf::from(name)
        } else {
            if name.is_empty() || name.contains(char::is_whitespace) {
                return Err(format!("bad package name '{name}'"));
            }
            self.find(name)?
        };
        let pkg = open(&path)?;
        if !by_path && pkg.name != name && pkg.name.replace('-', "_") != name.replace('-', "_") {
            return Err(format!(
                "{} holds package '{}', not '{name}'",
                path.display(),
                pkg.name
            ));
        }
        Ok(pkg)
    }
}

/// Opens the library at `path` and reads its package.
pub fn open(path: &Path) -> Result<Package, String> {
    let shown = path.display().to_string();
    // SAFETY: loading a library runs its initializers, which could do
    // anything; a package is native code the operator chose to load (as a
    // Click package is), so it is trusted as the router itself is. Nothing
    // else is assumed here: the entry symbol is checked next.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| format!("{shown}: {e}"))?;
    let entry: abi::EntryFn = {
        // SAFETY: the symbol is looked up by name; its type is the ABI's
        // `EntryFn`, which every package exports under this name (a
        // library exporting something else under it breaks the contract
        // it claims by the name).
        let sym = unsafe { lib.get::<abi::EntryFn>(format!("{}\0", abi::ENTRY_SYMBOL).as_bytes()) }
            .map_err(|_| {
                format!(
                    "{shown}: not an rclick package (no '{}' symbol)",
                    abi::ENTRY_SYMBOL
                )
            })?;
        *sym
    };
    let desc = entry();
    let lib = Arc::new(Lib { _lib: Some(lib) });
    // SAFETY: `desc` is what the entry function returned: null or a
    // descriptor that lives as long as `lib` (abi contract); `lib` is kept
    // by the package and its elements.
    unsafe { from_descriptor(desc, lib, &shown) }
}

/// Reads a package from its descriptor.
///
/// # Safety
/// `desc` is null or points to a descriptor whose first field is a `u32`
/// ABI version and, if that version is ours, to a valid `PackageDesc`
/// (with the strings and classes it points to) that lives as long as
/// `lib`.
pub unsafe fn from_descriptor(
    desc: *const abi::PackageDesc,
    lib: Arc<Lib>,
    shown: &str,
) -> Result<Package, String> {
    if desc.is_null() {
        return Err(format!("{shown}: the package's entry returned nothing"));
    }
    // The version first, alone: a descriptor of another version is read no
    // further.
    // SAFETY: every version's descriptor starts with the u32 version.
    let version = unsafe { desc.cast::<u32>().read() };
    if version != abi::ABI_VERSION {
        return Err(format!(
            "{shown}: package ABI version {version}, but this router speaks version {} \
             (rebuild the package against this router's rclick-sdk)",
            abi::ABI_VERSION
        ));
    }
    // SAFETY: the version is ours, so it is a `PackageDesc` (caller).
    let d = unsafe { &*desc };
    // SAFETY: descriptor strings live as long as the library (caller).
    let name = unsafe { d.name.as_str() }.into_owned();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("{shown}: bad package name '{name}'"));
    }
    let descs: &[abi::ClassDesc] = if d.nclasses == 0 || d.classes.is_null() {
        &[]
    } else {
        // SAFETY: `classes` points to `nclasses` descriptors (caller).
        unsafe { std::slice::from_raw_parts(d.classes, d.nclasses) }
    };
    if descs.is_empty() {
        return Err(format!("{shown}: package '{name}' has no element classes"));
    }
    let weak = Arc::downgrade(&lib);
    let mut classes = Vec::new();
    for c in descs {
        // SAFETY: as above, for each class descriptor's strings.
        let (cname, pc, pr, manual) = unsafe {
            (
                c.name.as_str(),
                c.port_count.as_str(),
                c.processing.as_str(),
                c.manual.as_str(),
            )
        };
        let ok_name = cname
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
            && cname
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || "_@".contains(ch));
        if !ok_name {
            return Err(format!("{shown}: bad element class name '{cname}'"));
        }
        PortCount::parse(&pc).map_err(|e| format!("{shown}: class {cname}: {e}"))?;
        ProcessingSpec::parse(&pr).map_err(|e| format!("{shown}: class {cname}: {e}"))?;
        // SAFETY: each list points to its count of strings (caller).
        let (reads, writes) = unsafe {
            (
                names(c.handlers, c.nhandlers),
                names(c.write_handlers, c.nwrite_handlers),
            )
        };
        let mut handlers: Vec<PkgHandler> = Vec::new();
        for (i, n) in reads.iter().enumerate() {
            if !handlers.iter().any(|h| h.name == *n) {
                handlers.push(PkgHandler {
                    name: n,
                    read: Some(i as u32),
                    write: None,
                });
            }
        }
        for (i, n) in writes.iter().enumerate() {
            match handlers.iter_mut().find(|h| h.name == *n) {
                Some(h) => h.write = h.write.or(Some(i as u32)),
                None => handlers.push(PkgHandler {
                    name: n,
                    read: None,
                    write: Some(i as u32),
                }),
            }
        }
        let fns = Arc::new(ClassFns {
            name: intern(&cname),
            port_count: intern(&pc),
            processing: intern(&pr),
            handlers,
            new: c.new,
            action: c.action,
            read: c.read,
            write: c.write,
            destroy: c.destroy,
        });
        let weak = weak.clone();
        let factory: DynFactory = Arc::new(move || -> Box<dyn Element> {
            Box::new(PackageElement {
                // Registered classes are made only while the registry holds
                // the library (an unload removes the class first).
                lib: weak.upgrade().expect("a registered package is loaded"),
                class: fns.clone(),
                state: std::ptr::null_mut(),
                counts: Counts::default(),
                last_panic: String::new(),
                scratch: String::new(),
                outs: Vec::new(),
                noutputs: 0,
            })
        });
        let manual = if manual.trim().is_empty() {
            format!("# {cname}\n\nElement class of package '{name}' (no manual given).\n")
        } else {
            manual.into_owned()
        };
        classes.push(ClassInfo::runtime(&cname, factory, &manual));
    }
    Ok(Package {
        name,
        path: shown.to_string(),
        classes,
        live: lib,
    })
}

/// Why packets were dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// The element asked to drop them.
    drops: u64,
    /// The element panicked on them.
    panics: u64,
    /// The element answered with an output that does not exist (or, in a
    /// pull, any but 0), removed more bytes than the packet had, or
    /// returned a code the ABI does not know.
    errors: u64,
}

/// An element of a package's class: the router's side of the ABI.
pub struct PackageElement {
    lib: Arc<Lib>,
    class: Arc<ClassFns>,
    /// The package's state for this element; null until configured.
    state: *mut c_void,
    counts: Counts,
    last_panic: String,
    /// Handler output and errors.
    scratch: String,
    /// Per-output batches of the push being handled.
    outs: Vec<PacketBatch>,
    /// Output count, known once initialized (0 before).
    noutputs: usize,
}

// SAFETY: the state pointer belongs to this element alone (the package's
// `new` made it for this element) and is used only through `&mut self` or
// `&self` of the element, which the router hands to one thread at a time;
// packages promise (abi contract) that element state may move between
// threads, as every host element's may.
unsafe impl Send for PackageElement {}

extern "C" fn sink_write(ctx: *mut c_void, ptr: *const u8, len: usize) {
    if ctx.is_null() || ptr.is_null() {
        return;
    }
    // SAFETY: `ctx` is the `&mut String` this module passed in the same
    // call (see `sink`), alive and not otherwise used during it.
    let s = unsafe { &mut *ctx.cast::<String>() };
    // SAFETY: the package passes `len` readable bytes (abi contract).
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    s.push_str(&String::from_utf8_lossy(bytes));
}

/// The ABI's `make_writable`: copies the packet's buffer if it is shared
/// and points the raw packet at the writable bytes.
extern "C" fn make_writable(raw: *mut RawPacket) -> i32 {
    if raw.is_null() {
        return 1;
    }
    // SAFETY: the package passes back the raw packet `handle` gave it,
    // during the same `action` call: `host` is that call's `&mut Packet`,
    // which `handle` does not touch until the call returns.
    let (raw, p) = unsafe { (&mut *raw, &mut *(*raw).host.cast::<Packet>()) };
    let d = p.data_mut();
    raw.data = d.as_mut_ptr();
    raw.len = d.len();
    raw.writable = 1;
    0
}

/// A sink appending to `s`, valid while `s` is borrowed.
fn sink(s: &mut String) -> Sink {
    Sink {
        ctx: (s as *mut String).cast(),
        write: sink_write,
    }
}

impl PackageElement {
    /// A handler call's status: a caught panic is counted and kept.
    fn status(&mut self, r: i32, msg: String) -> Result<(), String> {
        match r {
            abi::STATUS_OK => Ok(()),
            abi::STATUS_PANIC => {
                self.counts.panics += 1;
                self.last_panic = msg.clone();
                Err(msg)
            }
            _ if msg.is_empty() => Err("the package's handler failed".into()),
            _ => Err(msg),
        }
    }
}

rclick_core::handlers! {
    /// The host's handlers of every package element (after the package
    /// class's own, which are `H_PACKAGE + index`).
    enum H {
        Drops = read("drops"),
        Panics = read("panics"),
        Errors = read("errors"),
        LastPanic = read("last_panic"),
        List = read("package_handlers"),
    }
}

/// The package's own handlers: `H_PACKAGE + index`.
const H_PACKAGE: u32 = H::ALL.len() as u32;

impl PackageElement {
    /// Runs the package's action on one packet: `Some((port, packet))` to
    /// send on, `None` if dropped (and counted).
    #[inline]
    fn handle(&mut self, mut p: Packet, noutputs: usize) -> Option<(usize, Packet)> {
        let anno = RawAnno {
            network_offset: p
                .network_header_offset()
                .and_then(|o| i32::try_from(o).ok())
                .unwrap_or(-1),
            transport_offset: p
                .transport_header_offset()
                .and_then(|o| i32::try_from(o).ok())
                .unwrap_or(-1),
            dst_ip: p.dst_ip_anno().octets(),
            aggregate: p.aggregate_anno(),
            sequence: p.sequence_number_anno(),
            paint: p.paint_anno(),
            reserved: [0; 3],
        };
        // Read-only until the package asks (`make_writable`): a packet
        // sharing its buffer (a source's clones) is copied only if written.
        let (data, len) = (p.data().as_ptr().cast_mut(), p.len());
        let mut raw = RawPacket {
            data,
            len,
            pull: 0,
            take: 0,
            anno,
            writable: 0,
            host: (&mut p as *mut Packet).cast(),
            make_writable,
        };
        let r = (self.class.action)(self.state, &mut raw, sink(&mut self.scratch));
        if r == abi::ACTION_PANIC {
            self.counts.panics += 1;
            self.last_panic = std::mem::take(&mut self.scratch);
            return None;
        }
        if r == abi::ACTION_DROP {
            self.counts.drops += 1;
            return None;
        }
        let len = p.len();
        let port = usize::try_from(r).ok().filter(|&o| o < noutputs);
        let Some(port) = port.filter(|_| raw.pull.checked_add(raw.take).is_some_and(|n| n <= len))
        else {
            self.counts.errors += 1;
            return None;
        };
        p.pull(raw.pull);
        p.take(raw.take);
        p.set_paint_anno(raw.anno.paint);
        p.set_aggregate_anno(raw.anno.aggregate);
        p.set_sequence_number_anno(raw.anno.sequence);
        p.set_dst_ip_anno(std::net::Ipv4Addr::from(raw.anno.dst_ip));
        Some((port, p))
    }
}

impl Element for PackageElement {
    fn class_name(&self) -> &'static str {
        self.class.name
    }
    fn port_count(&self) -> &'static str {
        self.class.port_count
    }
    fn processing(&self) -> &'static str {
        self.class.processing
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let args: Vec<Str> = conf.iter().map(|a| Str::new(a)).collect();
        let mut err = String::new();
        let st = (self.class.new)(args.as_ptr(), args.len(), sink(&mut err));
        if st.is_null() {
            return Err(if err.is_empty() {
                "the package refused the configuration".into()
            } else {
                err
            });
        }
        if !self.state.is_null() {
            (self.class.destroy)(self.state);
        }
        self.state = st;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut rclick_core::InitCx) -> Result<(), String> {
        self.noutputs = cx.noutputs();
        Ok(())
    }
    /// With one output, a package element is a per-packet element: its
    /// batch loop and fused chains (`simple_action`) do the same.
    fn is_simple(&self) -> bool {
        self.noutputs == 1
    }
    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        self.handle(p, 1).map(|x| x.1)
    }
    /// The action sees one packet at a time and calls nothing of the
    /// router's, so a batch of them is the same as one at a time (with
    /// several outputs the order between outputs would differ).
    fn batch_transparent(&self) -> bool {
        self.noutputs <= 1
    }
    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        let n = cx.noutputs();
        if n <= 1 {
            batch.filter_map_in_place(|p| self.handle(p, n).map(|x| x.1));
            if !batch.is_empty() {
                cx.push(0, batch);
            }
            return;
        }
        let mut outs = std::mem::take(&mut self.outs);
        outs.resize_with(n, PacketBatch::new);
        for p in batch.drain() {
            if let Some((o, p)) = self.handle(p, n) {
                outs[o].push(p);
            }
        }
        for (o, b) in outs.iter_mut().enumerate() {
            if !b.is_empty() {
                cx.push(o, b.take());
            }
        }
        self.outs = outs;
    }
    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        // Only output 0 is pulled: a packet sent elsewhere is an error.
        batch.filter_map_in_place(|p| match self.handle(p, usize::MAX) {
            Some((0, p)) => Some(p),
            Some(_) => {
                self.counts.errors += 1;
                None
            }
            None => None,
        });
        batch
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        let mut v: Vec<HandlerDef> = self
            .class
            .handlers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                let id = H_PACKAGE + i as u32;
                match (h.read, h.write) {
                    (Some(_), Some(_)) => HandlerDef::read_write(h.name, id),
                    (None, Some(_)) => HandlerDef::write(h.name, id),
                    _ => HandlerDef::read(h.name, id),
                }
            })
            .collect();
        v.extend(H::all_defs());
        v
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        if let Some(h) = H::from_id(id) {
            return Ok(match h {
                H::Drops => self.counts.drops.to_string(),
                H::Panics => self.counts.panics.to_string(),
                H::Errors => self.counts.errors.to_string(),
                H::LastPanic => self.last_panic.clone(),
                H::List => {
                    let v: Vec<&str> = self.class.handlers.iter().map(|h| h.name).collect();
                    v.join("\n")
                }
            });
        }
        Ok(match id {
            id if id >= H_PACKAGE && self.state.is_null() => {
                return Err("the element is not configured".into())
            }
            id if id >= H_PACKAGE => {
                let ridx = self
                    .class
                    .handlers
                    .get((id - H_PACKAGE) as usize)
                    .and_then(|h| h.read)
                    .ok_or("no such handler")?;
                let mut out = String::new();
                let r = (self.class.read)(self.state, ridx, sink(&mut out));
                self.status(r, out.clone())?;
                out
            }
            _ => return Err("no such handler".into()),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        let widx = id
            .checked_sub(H_PACKAGE)
            .and_then(|k| self.class.handlers.get(k as usize))
            .and_then(|h| h.write)
            .ok_or("no such handler")?;
        if self.state.is_null() {
            return Err("the element is not configured".into());
        }
        let mut err = String::new();
        let r = (self.class.write)(self.state, widx, Str::new(value), sink(&mut err));
        self.status(r, err)
    }
}

impl Drop for PackageElement {
    fn drop(&mut self) {
        if !self.state.is_null() {
            // The library is still loaded: `self.lib` is dropped after this.
            (self.class.destroy)(self.state);
            self.state = std::ptr::null_mut();
        }
        let _ = &self.lib;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::testing;
    use rclick_sdk::{Action, Config, PackageElement as Author};

    /// XORs the payload after `SKIP` bytes with `KEY`; paints with the
    /// byte count; a packet starting with 0xEE panics, one starting with
    /// 0xDD is dropped, 0xCC goes to output 5 (which does not exist).
    struct TestXor {
        key: u8,
        skip: usize,
        count: u64,
    }

    impl Author for TestXor {
        const CLASS: &'static str = "TestXor";
        const HANDLERS: &'static [&'static str] = &["count", "key"];
        const WRITE_HANDLERS: &'static [&'static str] = &["key", "reset"];
        const MANUAL: &'static str = "# TestXor\n";
        fn new(conf: &mut Config) -> Result<Self, String> {
            let key = conf.keyword("KEY")?.ok_or("KEY: missing")?;
            let skip = conf.keyword("SKIP")?.unwrap_or(0);
            Ok(TestXor {
                key,
                skip,
                count: 0,
            })
        }
        fn action(&mut self, p: &mut rclick_sdk::Packet) -> Action {
            match p.data().first() {
                Some(0xee) => panic!("0xEE"),
                Some(0xdd) => return Action::Drop,
                Some(0xcc) => return Action::Emit(5),
                _ => {}
            }
            self.count += 1;
            if self.skip < p.len() {
                let skip = self.skip;
                for b in &mut p.data_mut()[skip..] {
                    *b ^= self.key;
                }
            }
            p.set_paint(7);
            p.take(1);
            Action::Emit(0)
        }
        fn read_handler(&self, name: &str) -> Result<String, String> {
            Ok(match name {
                "count" => self.count.to_string(),
                _ => self.key.to_string(),
            })
        }
        fn write_handler(&mut self, name: &str, value: &str) -> Result<(), String> {
            match name {
                "key" => {
                    self.key = value
                        .parse()
                        .map_err(|_| format!("KEY: bad value '{value}'"))?
                }
                _ => self.count = 0,
            }
            Ok(())
        }
    }

    rclick_sdk::export_package!("test-xor", [TestXor]);

    /// The package, read from this program's own descriptor, registered.
    fn registry() -> Registry {
        let mut r = crate::test_util::registry();
        struct Here;
        impl PackageLoader for Here {
            fn load(&self, name: &str) -> Result<Package, String> {
                if name != "test-xor" {
                    return Err(format!("can't find required package 'lib{name}.so'"));
                }
                // SAFETY: this program's own static descriptor.
                unsafe {
                    from_descriptor(rclick_package_entry(), Arc::new(Lib { _lib: None }), "here")
                }
            }
        }
        r.set_package_loader(Arc::new(Here));
        r
    }

    #[test]
    fn a_package_class_runs_in_a_configuration() {
        let r = registry();
        let conf = "require(package \"test-xor\");
            InfiniteSource(DATA \\<00 01 02 03>, LIMIT 3)
            -> x :: TestXor(KEY 255, SKIP 1) -> c :: Counter -> Discard;
            InfiniteSource(DATA \\<ee>, LIMIT 2) -> x2 :: TestXor(KEY 1)
            -> c2 :: Counter -> Discard;
            InfiniteSource(DATA \\<dd>, LIMIT 3) -> x3 :: TestXor(KEY 1) -> Discard;
            InfiniteSource(DATA \\<cc>, LIMIT 4) -> x4 :: TestXor(KEY 1) -> Discard;";
        let rt = testing::run(conf, &r).unwrap();
        assert_eq!(testing::read(&rt, "x.count"), "3");
        assert_eq!(testing::read(&rt, "x.key"), "255");
        assert_eq!(testing::read(&rt, "c.count"), "3");
        assert_eq!(
            testing::read(&rt, "c.byte_count"),
            "9",
            "one byte taken off each"
        );
        assert_eq!(
            testing::read(&rt, "x.package_handlers"),
            "count\nkey\nreset"
        );
        // Write handlers: a bad value changes nothing and says why.
        let e = rt.write_handler("x.key", "300").unwrap_err();
        assert!(e.contains("KEY: bad value '300'"), "{e}");
        assert_eq!(testing::read(&rt, "x.key"), "255");
        rt.write_handler("x.key", "7").unwrap();
        assert_eq!(testing::read(&rt, "x.key"), "7");
        rt.write_handler("x.reset", "").unwrap();
        assert_eq!(testing::read(&rt, "x.count"), "0");
        assert!(rt.read_handler("x.reset", "").is_err(), "write-only");
        // Panics, drops and errors: dropped and counted, never passed on.
        assert_eq!(testing::read(&rt, "x2.panics"), "2");
        assert_eq!(testing::read(&rt, "x2.last_panic"), "panicked: 0xEE");
        assert_eq!(testing::read(&rt, "c2.count"), "0");
        assert_eq!(testing::read(&rt, "x3.drops"), "3");
        assert_eq!(testing::read(&rt, "x4.errors"), "4");
        assert_eq!(testing::read(&rt, "x.drops"), "0");
    }

    #[test]
    fn bytes_and_annotations_come_back() {
        let r = registry();
        r.require_package("test-xor").unwrap();
        let mut el = r.create("TestXor").unwrap();
        let pe = el.as_any_mut().downcast_mut::<PackageElement>().unwrap();
        let mut err = String::new();
        let args = [Str::new("KEY 15"), Str::new("SKIP 1")];
        pe.state = (pe.class.new)(args.as_ptr(), 2, sink(&mut err));
        assert!(!pe.state.is_null(), "{err}");
        let p = Packet::from_slice(&[1, 2, 3, 4]);
        let (port, p) = pe.handle(p, 1).unwrap();
        assert_eq!(port, 0);
        assert_eq!(p.data(), &[1, 2 ^ 15, 3 ^ 15]);
        assert_eq!(p.paint_anno(), 7);
        // A packet sharing its buffer is copied only when written.
        let orig = Packet::from_slice(&[1, 2, 3, 4]);
        let (_, p) = pe.handle(orig.clone(), 1).unwrap();
        assert!(!p.is_shared(), "written: copied");
        assert_eq!(
            orig.data(),
            &[1, 2, 3, 4],
            "the other packet keeps its bytes"
        );
        assert_eq!(p.data(), &[1, 2 ^ 15, 3 ^ 15]);
        let mut err = String::new();
        let args = [Str::new("KEY 15"), Str::new("SKIP 100")];
        let ro = (pe.class.new)(args.as_ptr(), 2, sink(&mut err));
        (pe.class.destroy)(std::mem::replace(&mut pe.state, ro));
        let (_, p) = pe.handle(orig.clone(), 1).unwrap();
        assert!(p.is_shared(), "only read: not copied");
        assert_eq!(r.packages()[0].elements, 1);
        assert!(r.unload_package("test-xor").is_err());
        drop(el);
        r.unload_package("test-xor").unwrap();
    }

    /// The PluginManager's load, create, unload and packages, and unload
    /// refused while an instance or a graph element of the package exists.
    #[test]
    fn plugin_manager_loads_and_unloads() {
        let conf = "Idle -> g :: FlowGate(sched) -> Discard; pm :: PluginManager;";
        let rt = testing::build(conf, &registry(), true).unwrap();
        let e = rt.read_handler("pm.create", "TestXor KEY 1").unwrap_err();
        assert!(e.contains("unknown element class 'TestXor'"), "{e}");
        assert_eq!(
            rt.read_handler("pm.load", "test-xor").unwrap(),
            "test-xor: TestXor"
        );
        let e = rt.read_handler("pm.load", "test-xor").unwrap_err();
        assert!(e.contains("already loaded"), "{e}");
        let e = rt.read_handler("pm.load", "").unwrap_err();
        assert!(e.contains("load: expected PACKAGE"), "{e}");
        let i = rt.read_handler("pm.create", "TestXor KEY 1").unwrap();
        assert_eq!(i, "TestXor@1");
        assert_eq!(
            testing::read(&rt, "pm.packages"),
            "test-xor here: TestXor (1 element)\n"
        );
        let e = rt.write_handler("pm.unload", "test-xor").unwrap_err();
        assert_eq!(
            e,
            "package 'test-xor' is in use by TestXor@1; free its instances and \
             remove its elements first"
        );
        assert_eq!(
            rt.write_handler("pm.unload", "nosuch").unwrap_err(),
            "no package 'nosuch' is loaded"
        );
        rt.write_handler("pm.free", &i).unwrap();
        rt.write_handler("pm.unload", "test-xor").unwrap();
        assert_eq!(testing::read(&rt, "pm.packages"), "");
        assert!(rt.read_handler("pm.create", "TestXor KEY 1").is_err());

        // A graph element of the package's classes keeps it loaded.
        let conf = "require(package \"test-xor\"); Idle -> x :: TestXor(KEY 2)
            -> g :: FlowGate(sched) -> Discard; pm :: PluginManager;";
        let rt = testing::build(conf, &registry(), true).unwrap();
        let e = rt.write_handler("pm.unload", "test-xor").unwrap_err();
        assert!(e.contains("in use by x;"), "{e}");
    }

    #[test]
    fn configuration_errors_name_the_element() {
        let r = registry();
        let e = testing::build(
            "require(package \"test-xor\"); Idle -> TestXor(KEY x) -> Discard;",
            &r,
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("KEY: bad value 'x'"), "{e}");
        let e = testing::build(
            "require(package \"test-xor\"); Idle -> TestXor(KEY 1, COLOR 2) -> Discard;",
            &r,
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("unknown argument 'COLOR 2'"), "{e}");
        let e = testing::build("require(package \"nosuch\"); Idle -> Discard;", &r, true)
            .err()
            .unwrap();
        assert!(
            e.contains("While loading package 'nosuch':\n  can't find required package 'libnosuch.so'\nrequirement 'nosuch' not available"),
            "{e}"
        );
    }

    /// A descriptor of another ABI version is refused after reading its
    /// version only.
    #[test]
    fn abi_version_mismatch_is_refused() {
        #[repr(C)]
        struct Future {
            abi_version: u32,
        }
        static F: Future = Future { abi_version: 99 };
        // SAFETY: only the first u32 of a foreign-version descriptor is read.
        let e = unsafe {
            from_descriptor(
                (&F as *const Future).cast(),
                Arc::new(Lib { _lib: None }),
                "libfuture.so",
            )
        }
        .err()
        .unwrap();
        assert_eq!(
            e,
            "libfuture.so: package ABI version 99, but this router speaks version 1 \
             (rebuild the package against this router's rclick-sdk)"
        );
        // SAFETY: null is allowed.
        let e = unsafe { from_descriptor(std::ptr::null(), Arc::new(Lib { _lib: None }), "x") };
        assert!(e.err().unwrap().contains("entry returned nothing"));
    }

    #[test]
    fn search_path_and_file_errors() {
        let dir = std::env::temp_dir().join(format!("rclick-pkg-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        let l = Loader {
            dirs: vec![dir.clone()],
        };
        let c = l.candidates("a-b");
        assert_eq!(c[0], dir.join("lib/liba-b.so"));
        assert_eq!(c[1], dir.join("lib/a-b.so"));
        assert_eq!(c[2], dir.join("lib/liba_b.so"));
        assert_eq!(c[4], dir.join("packages/liba-b.so"));
        assert_eq!(c[8], dir.join("liba-b.so"));
        let e = l.load("nosuch").err().unwrap();
        assert!(
            e.starts_with(
                "can't find required package 'libnosuch.so'\nin CLICKPATH or RCLICK_PACKAGE_PATH ("
            ),
            "{e}"
        );
        // Not a shared library: libloading's reason, with the file.
        std::fs::write(dir.join("lib/libjunk.so"), "not an ELF file").unwrap();
        let e = l.load("junk").err().unwrap();
        assert!(
            e.starts_with(&format!("{}", dir.join("lib/libjunk.so").display())),
            "{e}"
        );
        let e = l.load("bad name").err().unwrap();
        assert_eq!(e, "bad package name 'bad name'");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
