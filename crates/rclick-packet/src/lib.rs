//! Packets, annotations, batches and pooling for rclick, a Click-compatible
//! modular router.
//!
//! # Model
//!
//! * A [`Packet`] is one pointer to a pooled header holding header offsets,
//!   [`Anno`] annotations and a reference-counted data buffer with headroom
//!   and tailroom (Click's `Packet`). Moving a packet is free.
//! * **Ownership**: a `Packet` is owned by exactly one element at a time and
//!   is passed by value. It is `Send`, so it can cross threads.
//! * **Sharing / copy-on-write**: [`Packet::clone`](Clone::clone) (Click's
//!   `clone()`) shares the buffer and copies offsets and annotations. Any
//!   write to the bytes ([`Packet::data_mut`], [`Packet::push`],
//!   [`Packet::put`], the `*_header_mut` accessors) first copies a shared
//!   buffer, so no packet ever observes another packet's writes.
//!   Annotations are never shared.
//! * **Pooling**: dropping a packet returns its header, and its buffer if no
//!   clone still uses it, to a bounded thread-local free list ([`pool`]);
//!   [`Packet::make`] and `clone` take from it. A steady flow therefore
//!   performs no heap allocation; [`pool::stats`] proves it.
//! * **Batches**: a [`PacketBatch`] is an ordered `Vec<Packet>` whose
//!   storage is pooled the same way; moving one copies three words.
//! * **Time**: [`Timestamp`] is `i64` nanoseconds since the epoch with
//!   Click's `sec.usec` display.
//!
//! The crate contains no `unsafe` code. Buffer reference counts are atomic
//! (`Arc`), so packets are `Send + Sync` and may move between threads.
//!
//! ```
//! use rclick_packet::{Packet, PacketBatch};
//!
//! let mut p = Packet::from_slice(&[0x45; 40]);
//! p.set_ip_header(0, 20);
//! let mut q = p.clone();           // shares the bytes
//! q.push(14).unwrap();             // copies (shared), then prepends 14 zero bytes
//! q.set_mac_header(0);
//! assert_eq!(p.len(), 40);
//! assert_eq!(q.len(), 54);
//! assert_eq!(q.ip_header_offset(), Some(14));
//!
//! let mut batch = PacketBatch::new();
//! batch.push(p);
//! batch.push(q);
//! let outs = batch.split_by(2, |p| (p.len() > 40) as usize);
//! assert_eq!((outs[0].len(), outs[1].len()), (1, 1));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod anno;
pub mod batch;
pub mod packet;
pub mod pool;
pub mod timestamp;

pub use anno::{Anno, PacketType, USER_ANNO_SIZE};
pub use batch::PacketBatch;
pub use packet::{Packet, PacketError, DEFAULT_HEADROOM, MAX_BUFFER_LEN, MAX_INTERNED_BYTES};
pub use pool::PoolStats;
pub use timestamp::Timestamp;
