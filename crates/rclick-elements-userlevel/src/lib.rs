//! Elements that talk to the operating system (Click's `elements/userlevel`):
//! pcap files, the control socket, network devices (FromDevice/ToDevice),
//! KernelTun/KernelTap, the Socket transport (and FromSocket/ToSocket),
//! ChatterSocket, ChangeUID and ProgressBar.
//! This is the only element group that touches files, sockets and devices.
//!
//! `unsafe` is denied outside the modules that call the operating system
//! directly (`device::sys`, `device::ring`, `device::xdp`,
//! `process::change_uid`, `progress::progress_bar`), each marked
//! `#[allow(unsafe_code)]` where it is declared, each use with a
//! `// SAFETY:` comment.
#![deny(unsafe_code)]

pub mod control;
pub mod device;
mod drops;
pub mod dump;
pub mod process;
pub mod progress;
pub mod sockets;

use rclick_core::Registry;

/// Registers every class of this group.
pub fn register(r: &mut Registry) {
    dump::register(r);
    control::register(r);
    device::register(r);
    sockets::register(r);
    process::register(r);
    progress::register(r);
}
