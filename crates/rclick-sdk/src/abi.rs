//! The package ABI, version [`ABI_VERSION`]: the `#[repr(C)]` types and
//! function signatures that cross between the router and a package.
//!
//! Rust has no stable ABI, so nothing of Rust's (no `String`, `Vec`,
//! trait object, allocation or panic) crosses: only these types, plain
//! integers, pointers to bytes and `extern "C"` functions.
//!
//! ## The contract
//!
//! * A package exports one symbol, [`ENTRY_SYMBOL`] (`rclick_package_entry`),
//!   an `extern "C" fn() -> *const PackageDesc`. The descriptor and
//!   everything it points to are immutable and live as long as the library
//!   is loaded.
//! * The first field of [`PackageDesc`] is `abi_version` in every version
//!   of the ABI. The router reads it first and refuses the package unless
//!   it equals its own [`ABI_VERSION`]; nothing else of a descriptor of
//!   another version is read.
//! * **Version rule:** any change to the layout or meaning of any type or
//!   function here raises [`ABI_VERSION`] by one. A router loads packages
//!   of exactly its own version (rebuild the package against the SDK of
//!   that router).
//! * Strings ([`Str`]) are UTF-8, not NUL-terminated, and borrowed for the
//!   duration of the call (descriptor strings: while loaded).
//! * Strings going back to the router (errors, handler values) are written
//!   through a [`Sink`] the router passes, so no allocation crosses.
//! * A class's `new` returns an opaque state pointer (null on error); the
//!   router passes it to `action` and `read`, from one thread at a time,
//!   and to `destroy` exactly once.
//! * `read` and `write` handlers are called from one thread at a time too,
//!   between packets.
//! * `action` gets a [`RawPacket`] whose bytes it may read for the
//!   duration of the call, and change in place once it has called the
//!   packet's `make_writable` (the router then copies a buffer shared with
//!   other packets, as Click's `uniqueify`); it returns an output port (`>= 0`),
//!   [`ACTION_DROP`] or [`ACTION_PANIC`]. It may ask the router to remove
//!   bytes at the front (`pull`) or end (`take`) and change the
//!   annotations in `anno`; the router applies both after the call.
//! * No panic unwinds out of a package: the SDK's shims catch them and
//!   return the `PANIC` codes below.

use std::ffi::c_void;

/// The ABI version this SDK speaks.
pub const ABI_VERSION: u32 = 1;

/// The entry symbol every package exports (without its NUL: `b"..."`).
pub const ENTRY_SYMBOL: &str = "rclick_package_entry";

/// `action`'s return value: drop the packet (the router counts it).
pub const ACTION_DROP: i32 = -1;
/// `action`'s return value: the element panicked; the router drops the
/// packet and counts it, and the panic's message went to the sink.
pub const ACTION_PANIC: i32 = -2;

/// `read`'s (and `new`'s status) codes.
pub const STATUS_OK: i32 = 0;
/// An error; its message went to the sink.
pub const STATUS_ERROR: i32 = 1;
/// A panic, caught; its message went to the sink.
pub const STATUS_PANIC: i32 = 2;

/// A borrowed UTF-8 string.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Str {
    /// The first byte (dangling but non-null when `len` is 0).
    pub ptr: *const u8,
    /// Its length in bytes.
    pub len: usize,
}

impl Str {
    /// Borrows a string.
    pub const fn new(s: &str) -> Str {
        Str {
            ptr: s.as_ptr(),
            len: s.len(),
        }
    }

    /// The bytes as a string; invalid UTF-8 is replaced.
    ///
    /// # Safety
    /// `ptr` must point to `len` readable bytes that stay valid and
    /// unchanged for `'a`.
    pub unsafe fn as_str<'a>(self) -> std::borrow::Cow<'a, str> {
        if self.len == 0 {
            return std::borrow::Cow::Borrowed("");
        }
        // SAFETY: the caller's contract.
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
        String::from_utf8_lossy(bytes)
    }
}

/// Where a package writes a string for the router: `write(ctx, ptr, len)`
/// appends `len` bytes. May be called several times; valid for the call it
/// was passed to.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Sink {
    /// The router's context.
    pub ctx: *mut c_void,
    /// Appends bytes.
    pub write: extern "C" fn(ctx: *mut c_void, ptr: *const u8, len: usize),
}

impl Sink {
    /// Writes `s` into the sink.
    pub fn put(&self, s: &str) {
        (self.write)(self.ctx, s.as_ptr(), s.len());
    }
}

/// Annotations a packet carries across; the router copies them in before
/// `action` and applies changed ones after.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawAnno {
    /// The network header's offset from the data's start, -1 if unset.
    pub network_offset: i32,
    /// The transport header's offset from the data's start, -1 if unset.
    pub transport_offset: i32,
    /// The destination IP address annotation, in network order.
    pub dst_ip: [u8; 4],
    /// The aggregate annotation.
    pub aggregate: u32,
    /// The sequence number annotation.
    pub sequence: u32,
    /// The paint annotation.
    pub paint: u8,
    /// Zero.
    pub reserved: [u8; 3],
}

/// One packet, for the duration of one `action` call.
#[repr(C)]
#[derive(Debug)]
pub struct RawPacket {
    /// The packet's data: `len` bytes, valid until `action` returns;
    /// read-only while `writable` is 0.
    pub data: *mut u8,
    /// The data's length.
    pub len: usize,
    /// Out: bytes the router removes from the front after the call.
    pub pull: usize,
    /// Out: bytes the router removes from the end after the call.
    pub take: usize,
    /// In and out: the annotations.
    pub anno: RawAnno,
    /// 1 once `data` may be written (after `make_writable`), else 0.
    pub writable: u32,
    /// The router's packet (opaque).
    pub host: *mut c_void,
    /// Makes the data writable: the router copies it if it is shared and
    /// updates `data` and `writable`. Returns 0, or nonzero (and nothing
    /// changes) if it could not.
    pub make_writable: extern "C" fn(packet: *mut RawPacket) -> i32,
}

/// Makes an element: `new(args, nargs, err)` with the configuration's
/// arguments (split as Click splits them); returns its state, or null
/// with the reason written to `err`.
pub type NewFn = extern "C" fn(args: *const Str, nargs: usize, err: Sink) -> *mut c_void;
/// Handles one packet; see the module's contract. `err` gets a panic's
/// message.
pub type ActionFn = extern "C" fn(state: *mut c_void, packet: *mut RawPacket, err: Sink) -> i32;
/// Reads handler number `handler` (an index into `ClassDesc::handlers`)
/// into `out`; returns a `STATUS_` code.
pub type ReadFn = extern "C" fn(state: *mut c_void, handler: u32, out: Sink) -> i32;
/// Writes `value` to write handler number `handler` (an index into
/// `ClassDesc::write_handlers`); returns a `STATUS_` code, the reason in
/// `err`.
pub type WriteFn = extern "C" fn(state: *mut c_void, handler: u32, value: Str, err: Sink) -> i32;
/// Destroys an element's state.
pub type DestroyFn = extern "C" fn(state: *mut c_void);

/// One element class.
#[repr(C)]
#[derive(Debug)]
pub struct ClassDesc {
    /// The class name (`PayloadXor`).
    pub name: Str,
    /// Click's port count code (`1/1`, `1/1-2`).
    pub port_count: Str,
    /// Click's processing code (`a/a`, `h/h`).
    pub processing: Str,
    /// The manual (`rclick doc CLASS`).
    pub manual: Str,
    /// Makes an element.
    pub new: NewFn,
    /// Handles a packet.
    pub action: ActionFn,
    /// Destroys an element.
    pub destroy: DestroyFn,
    /// The read handlers' names.
    pub handlers: *const Str,
    /// How many.
    pub nhandlers: usize,
    /// Reads a handler.
    pub read: ReadFn,
    /// The write handlers' names (a name in both lists is one handler,
    /// read and written).
    pub write_handlers: *const Str,
    /// How many.
    pub nwrite_handlers: usize,
    /// Writes a handler.
    pub write: WriteFn,
}

/// The package: what the entry symbol returns.
#[repr(C)]
#[derive(Debug)]
pub struct PackageDesc {
    /// [`ABI_VERSION`] of the SDK the package was built with. Always the
    /// first field.
    pub abi_version: u32,
    /// The package's name (`require(package "NAME")`).
    pub name: Str,
    /// The classes.
    pub classes: *const ClassDesc,
    /// How many.
    pub nclasses: usize,
}

// SAFETY: descriptors are immutable and point only to immutable data that
// lives as long as the library (string literals, statics, functions), so
// sharing them between threads is sound.
unsafe impl Sync for Str {}
// SAFETY: as above.
unsafe impl Sync for ClassDesc {}
// SAFETY: as above.
unsafe impl Sync for PackageDesc {}
// SAFETY: as above; the router reads descriptors from any thread.
unsafe impl Send for Str {}

/// The entry function's type.
pub type EntryFn = extern "C" fn() -> *const PackageDesc;
