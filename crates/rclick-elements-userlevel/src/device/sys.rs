//! Linux packet sockets (`AF_PACKET`, `SOCK_RAW`), TUN/TAP devices and
//! interface configuration. With `ring` (packet rings) and `xdp` (AF_XDP),
//! the only modules of this crate with `unsafe`. Every call into the C
//! library is wrapped in a safe function that checks sizes and turns `-1`
//! into an `io::Error`.
//!
//! Packet sockets are opened non-blocking and bound to one interface.
//! Receiving uses `recvmmsg` into caller-owned slots, with `PACKET_AUXDATA`
//! control messages (checksum status, stripped VLAN tags); sending uses
//! `sendmmsg`.
//!
//! TUN/TAP devices come from `/dev/net/tun` (`TUNSETIFF`, without packet
//! information headers); [`IfConfig`] sets an interface's address,
//! netmask, MTU, Ethernet address and flags and adds a default route with
//! the classic `SIOC*` ioctls on an `AF_INET` datagram socket.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::mem::{size_of, zeroed};
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;

use super::gso::{Gso, VNET_HDR_LEN};

/// Most messages one `recvmmsg`/`sendmmsg` call moves.
pub const MAX_BATCH: usize = 64;

/// Bytes of control-message space per received message (one
/// `tpacket_auxdata` with its `cmsghdr`, with room to spare).
const CMSG_SPACE: usize = 64;

/// What the kernel said about one received frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct RecvInfo {
    /// Bytes stored in the slot.
    pub len: usize,
    /// The frame's length on the wire (larger than `len` if truncated).
    pub wire_len: usize,
    /// `sll_pkttype`: `PACKET_HOST`, `PACKET_OUTGOING`, ...
    pub pkttype: u8,
    /// The transport checksum is partial (`TP_STATUS_CSUMNOTREADY`).
    pub csum_not_ready: bool,
    /// A VLAN tag the kernel stripped: `(tpid, tci)`.
    pub vlan: Option<(u16, u16)>,
    /// When the kernel received the frame, in nanoseconds of
    /// `CLOCK_REALTIME` (memory-mapped rings only; 0 when unknown).
    pub tstamp_ns: u64,
    /// The frame is a run of segments (GSO), as its virtio-net header
    /// says (sockets with `PACKET_VNET_HDR` only).
    pub gso: Option<Gso>,
}

/// Aligned storage for one message's control data.
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct CmsgBuf([u8; CMSG_SPACE]);

/// An `AF_PACKET` socket bound to one interface.
#[derive(Debug)]
pub struct PacketSocket {
    fd: OwnedFd,
    ifindex: i32,
    /// Received frames come after a virtio-net header (`PACKET_VNET_HDR`).
    vnet_hdr: bool,
}

/// The index of interface `name`, or `None` if there is no such interface.
pub fn if_index(name: &str) -> Option<i32> {
    let c = CString::new(name).ok()?;
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        None
    } else {
        i32::try_from(i).ok()
    }
}

/// The MTU of interface `name` (from sysfs), if it can be read.
pub fn if_mtu(name: &str) -> Option<usize> {
    if name.contains('/') {
        return None;
    }
    std::fs::read_to_string(format!("/sys/class/net/{name}/mtu"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

pub(crate) fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

pub(crate) fn setsockopt<T>(
    fd: &OwnedFd,
    level: libc::c_int,
    name: libc::c_int,
    val: &T,
) -> io::Result<()> {
    let len = libc::socklen_t::try_from(size_of::<T>()).map_err(|_| io::ErrorKind::InvalidInput)?;
    // SAFETY: `val` points to `size_of::<T>()` readable bytes for the whole
    // call; the kernel copies them and keeps no pointer.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (val as *const T).cast::<libc::c_void>(),
            len,
        )
    };
    check(r).map(|_| ())
}

/// Reads a socket option into `val`, a plain-old-data value of the
/// option's type.
pub(crate) fn getsockopt<T: Copy>(
    fd: &OwnedFd,
    level: libc::c_int,
    name: libc::c_int,
    val: &mut T,
) -> io::Result<()> {
    let mut len =
        libc::socklen_t::try_from(size_of::<T>()).map_err(|_| io::ErrorKind::InvalidInput)?;
    // SAFETY: `val` points to `size_of::<T>()` writable bytes for the whole
    // call; the kernel writes at most `len` bytes, updates `len`, and
    // keeps no pointer. `T: Copy` excludes types with drop glue.
    let r = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (val as *mut T).cast::<libc::c_void>(),
            &mut len,
        )
    };
    check(r).map(|_| ())
}

impl PacketSocket {
    /// The socket's descriptor (for the memory-mapped rings of `ring`).
    pub(crate) fn fd(&self) -> &OwnedFd {
        &self.fd
    }

    /// Opens a non-blocking packet socket on interface `ifindex`. With
    /// `receive`, it receives every protocol (`ETH_P_ALL`); without, it
    /// receives nothing (a send-only socket).
    pub fn open(ifindex: i32, receive: bool) -> io::Result<PacketSocket> {
        let proto: u16 = if receive { libc::ETH_P_ALL as u16 } else { 0 };
        // SAFETY: plain system call with integer arguments.
        let raw = unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                i32::from(proto.to_be()),
            )
        };
        let raw = check(raw)?;
        // SAFETY: `raw` is a freshly created descriptor that nothing else
        // owns; the OwnedFd closes it exactly once.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: sockaddr_ll is plain old data; all-zero is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = proto.to_be();
        sll.sll_ifindex = ifindex;
        // SAFETY: `sll` is a valid sockaddr_ll and the length says so.
        let r = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast::<libc::sockaddr>(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        check(r)?;
        Ok(PacketSocket {
            fd,
            ifindex,
            vnet_hdr: false,
        })
    }

    /// Asks for `PACKET_AUXDATA` control messages (checksum status, VLAN tags).
    pub fn enable_auxdata(&self) -> io::Result<()> {
        setsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_AUXDATA, &1i32)
    }

    /// Asks for a virtio-net header before every received frame
    /// (`PACKET_VNET_HDR`): it says whether the frame is a run of TCP or
    /// UDP segments a host's segmentation offload left whole (GSO), and
    /// their size. [`PacketSocket::recv_batch`] reads it into
    /// [`RecvInfo::gso`]. Must come before a ring is set up.
    pub fn enable_vnet_hdr(&mut self) -> io::Result<()> {
        setsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_VNET_HDR, &1i32)?;
        self.vnet_hdr = true;
        Ok(())
    }

    /// Stops the kernel from queueing outgoing frames to this socket
    /// (`PACKET_IGNORE_OUTGOING`, Linux 4.20+).
    pub fn ignore_outgoing(&self) -> io::Result<()> {
        setsockopt(
            &self.fd,
            libc::SOL_PACKET,
            libc::PACKET_IGNORE_OUTGOING,
            &1i32,
        )
    }

    /// Joins fanout group `group` (an id within the network namespace)
    /// with `PACKET_FANOUT_HASH`: the kernel then hands each frame of the
    /// interface to one socket of the group, chosen by a hash of its flow
    /// (addresses and ports), so each flow's frames reach one socket, in
    /// order. The socket must be bound; a group that exists with other
    /// settings (another type, device or protocol) refuses it (`EINVAL`).
    pub fn join_fanout(&self, group: u16) -> io::Result<()> {
        let arg: u32 = u32::from(group) | (libc::PACKET_FANOUT_HASH << 16);
        setsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_FANOUT, &arg)
    }

    /// Puts the interface in promiscuous mode for as long as the socket is
    /// open (the kernel counts and undoes it on close).
    pub fn set_promiscuous(&self) -> io::Result<()> {
        // SAFETY: packet_mreq is plain old data; all-zero is a valid value.
        let mut mr: libc::packet_mreq = unsafe { zeroed() };
        mr.mr_ifindex = self.ifindex;
        mr.mr_type = libc::PACKET_MR_PROMISC as u16;
        setsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mr)
    }

    /// Sets the receive buffer size: with `SO_RCVBUFFORCE`, which may
    /// exceed `net.core.rmem_max` but needs CAP_NET_ADMIN, else with
    /// `SO_RCVBUF`, which the kernel silently caps at `rmem_max` (208 KB
    /// on a stock system: a few hundred small frames).
    pub fn set_rcvbuf(&self, bytes: i32) -> io::Result<()> {
        setsockopt(&self.fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &bytes)
            .or_else(|_| setsockopt(&self.fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &bytes))
    }

    /// The receive buffer size in use (`SO_RCVBUF`; the kernel doubles
    /// the size set, for its bookkeeping).
    pub fn rcvbuf(&self) -> io::Result<i32> {
        let mut v: libc::c_int = 0;
        getsockopt(&self.fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &mut v)?;
        Ok(v)
    }

    /// Packets received and dropped by the kernel since the last call
    /// (`PACKET_STATISTICS`, which resets on read).
    pub fn statistics(&self) -> io::Result<(u32, u32)> {
        // SAFETY: tpacket_stats is plain old data; all-zero is a valid value.
        let mut st: libc::tpacket_stats = unsafe { zeroed() };
        getsockopt(&self.fd, libc::SOL_PACKET, libc::PACKET_STATISTICS, &mut st)?;
        Ok((st.tp_packets, st.tp_drops))
    }

    /// Receives up to `infos.len()` frames (at most [`MAX_BATCH`]) without
    /// blocking. Frame `i` is stored at `buf[i * slot..]`, at most `slot`
    /// bytes. Returns how many arrived (0 when none is waiting).
    pub fn recv_batch(
        &self,
        buf: &mut [u8],
        slot: usize,
        infos: &mut [RecvInfo],
    ) -> io::Result<usize> {
        if slot == 0 {
            return Ok(0);
        }
        let n = infos.len().min(MAX_BATCH).min(buf.len() / slot);
        if n == 0 {
            return Ok(0);
        }
        // SAFETY: these are plain old data; all-zero is a valid value.
        let mut addrs: [libc::sockaddr_ll; MAX_BATCH] = unsafe { zeroed() };
        // SAFETY: as above.
        let mut iovs: [[libc::iovec; 2]; MAX_BATCH] = unsafe { zeroed() };
        // SAFETY: as above.
        let mut hdrs: [libc::mmsghdr; MAX_BATCH] = unsafe { zeroed() };
        let mut cmsgs = [CmsgBuf([0; CMSG_SPACE]); MAX_BATCH];
        let mut vnet = [[0u8; VNET_HDR_LEN]; MAX_BATCH];
        // With PACKET_VNET_HDR the header goes to a buffer of its own and
        // the frame to its slot, as without.
        let (first, parts) = if self.vnet_hdr { (0, 2) } else { (1, 1) };
        let base = buf.as_mut_ptr();
        for i in 0..n {
            iovs[i][0].iov_base = vnet[i].as_mut_ptr().cast::<libc::c_void>();
            iovs[i][0].iov_len = VNET_HDR_LEN;
            // SAFETY: i * slot + slot <= n * slot <= buf.len(), so the
            // pointer stays inside `buf`.
            iovs[i][1].iov_base = unsafe { base.add(i * slot) }.cast::<libc::c_void>();
            iovs[i][1].iov_len = slot;
            let h = &mut hdrs[i].msg_hdr;
            h.msg_name = (&mut addrs[i] as *mut libc::sockaddr_ll).cast::<libc::c_void>();
            h.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            h.msg_iov = &mut iovs[i][first];
            h.msg_iovlen = parts;
            h.msg_control = cmsgs[i].0.as_mut_ptr().cast::<libc::c_void>();
            h.msg_controllen = CMSG_SPACE as _;
        }
        // SAFETY: every header points at live, correctly sized buffers
        // (`buf` slots, `addrs`, `iovs`, `cmsgs`) that outlive the call;
        // `n` <= the arrays' lengths; MSG_TRUNC only changes the reported
        // length.
        let r = unsafe {
            libc::recvmmsg(
                self.fd.as_raw_fd(),
                hdrs.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT | libc::MSG_TRUNC,
                std::ptr::null_mut(),
            )
        };
        let got = match check(r) {
            Ok(k) => k as usize,
            Err(e) if would_block(&e) => return Ok(0),
            Err(e) => return Err(e),
        };
        for i in 0..got.min(n) {
            let mut wire_len = hdrs[i].msg_len as usize;
            let mut gso = None;
            if self.vnet_hdr {
                wire_len = wire_len.saturating_sub(VNET_HDR_LEN);
                gso = Gso::from_vnet_hdr(&vnet[i]);
            }
            let mut info = RecvInfo {
                len: wire_len.min(slot),
                wire_len,
                pkttype: addrs[i].sll_pkttype,
                gso,
                ..RecvInfo::default()
            };
            if let Some(aux) = auxdata(&hdrs[i].msg_hdr) {
                info.csum_not_ready = aux.tp_status & libc::TP_STATUS_CSUMNOTREADY != 0;
                if aux.tp_status & libc::TP_STATUS_VLAN_VALID != 0 {
                    let tpid = if aux.tp_status & libc::TP_STATUS_VLAN_TPID_VALID != 0 {
                        aux.tp_vlan_tpid
                    } else {
                        0x8100
                    };
                    info.vlan = Some((tpid, aux.tp_vlan_tci));
                }
            }
            infos[i] = info;
        }
        Ok(got.min(n))
    }

    /// Sends up to [`MAX_BATCH`] frames without blocking. Returns how many
    /// the kernel took (the first `k`); an error only if it took none.
    pub fn send_batch(&self, frames: &[&[u8]]) -> io::Result<usize> {
        let n = frames.len().min(MAX_BATCH);
        if n == 0 {
            return Ok(0);
        }
        // SAFETY: plain old data; all-zero is a valid value.
        let mut iovs: [libc::iovec; MAX_BATCH] = unsafe { zeroed() };
        // SAFETY: as above.
        let mut hdrs: [libc::mmsghdr; MAX_BATCH] = unsafe { zeroed() };
        for i in 0..n {
            // The kernel only reads through this pointer (sendmmsg).
            iovs[i].iov_base = frames[i].as_ptr() as *mut libc::c_void;
            iovs[i].iov_len = frames[i].len();
            hdrs[i].msg_hdr.msg_iov = &mut iovs[i];
            hdrs[i].msg_hdr.msg_iovlen = 1;
        }
        // SAFETY: each header points at one iovec describing a live frame
        // slice that outlives the call; sendmmsg does not write through
        // iov_base. The socket is bound, so no address is needed.
        let r = unsafe {
            libc::sendmmsg(
                self.fd.as_raw_fd(),
                hdrs.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
            )
        };
        check(r).map(|k| k as usize)
    }
}

/// The `tpacket_auxdata` control message of a received message, if any.
// The length fields are `size_t` on glibc but `socklen_t` on musl.
#[allow(clippy::unnecessary_cast)]
fn auxdata(h: &libc::msghdr) -> Option<libc::tpacket_auxdata> {
    if h.msg_control.is_null() || (h.msg_controllen as usize) < size_of::<libc::cmsghdr>() {
        return None;
    }
    // SAFETY: msg_control/msg_controllen describe the buffer the kernel
    // filled; CMSG_FIRSTHDR/CMSG_NXTHDR stay within it and return null at
    // its end.
    let mut c = unsafe { libc::CMSG_FIRSTHDR(h) };
    while !c.is_null() {
        // SAFETY: `c` is non-null and points at a complete cmsghdr inside
        // the control buffer (guaranteed by CMSG_FIRSTHDR/CMSG_NXTHDR).
        let (level, ty, len) = unsafe { ((*c).cmsg_level, (*c).cmsg_type, (*c).cmsg_len) };
        // SAFETY: computing a length from a constant.
        let need = unsafe { libc::CMSG_LEN(size_of::<libc::tpacket_auxdata>() as u32) } as usize;
        if level == libc::SOL_PACKET && ty == libc::PACKET_AUXDATA && len as usize >= need {
            // SAFETY: the message holds at least a full tpacket_auxdata
            // (checked above); read_unaligned tolerates any alignment.
            return Some(unsafe {
                std::ptr::read_unaligned(libc::CMSG_DATA(c).cast::<libc::tpacket_auxdata>())
            });
        }
        // SAFETY: `h` and `c` describe the same control buffer.
        c = unsafe { libc::CMSG_NXTHDR(h, c) };
    }
    None
}

/// Whether `e` means "try again later" (the socket is full or empty).
pub fn would_block(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EAGAIN) | Some(libc::ENOBUFS) | Some(libc::EINTR)
    ) || e.kind() == io::ErrorKind::WouldBlock
}

/// The C library's message for `e` (`Operation not permitted`).
pub fn strerror(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The TUN/TAP control device.
pub const TUN_PATH: &str = "/dev/net/tun";

/// An `ifreq` naming interface `name` (at most `IFNAMSIZ - 1` bytes; may
/// be empty), everything else zero.
fn ifreq_named(name: &str) -> io::Result<libc::ifreq> {
    if name.len() >= libc::IFNAMSIZ || name.as_bytes().contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "bad interface name '{name}' (at most {} bytes)",
                libc::IFNAMSIZ - 1
            ),
        ));
    }
    // SAFETY: ifreq is plain old data (a name and a union of plain
    // fields and a pointer); all-zero is a valid value.
    let mut ifr: libc::ifreq = unsafe { zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    Ok(ifr)
}

/// The name stored in an `ifreq`.
fn ifreq_name(ifr: &libc::ifreq) -> String {
    let bytes: Vec<u8> = ifr
        .ifr_name
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A `sockaddr` holding the IPv4 address `a` (port 0).
fn sockaddr_v4(a: Ipv4Addr) -> libc::sockaddr {
    // SAFETY: sockaddr_in is plain old data; all-zero is a valid value.
    let mut sin: libc::sockaddr_in = unsafe { zeroed() };
    sin.sin_family = libc::AF_INET as libc::sa_family_t;
    sin.sin_addr.s_addr = u32::from(a).to_be();
    // SAFETY: sockaddr_in and sockaddr have the same size (16 bytes) and
    // both are plain old data, so every bit pattern is valid for either.
    unsafe { std::mem::transmute::<libc::sockaddr_in, libc::sockaddr>(sin) }
}

/// A Linux TUN (IP packets) or TAP (Ethernet frames) device, opened
/// non-blocking from [`TUN_PATH`] without packet information headers
/// (`IFF_NO_PI`). The device exists while this value lives: dropping it
/// closes the descriptor and the kernel removes the interface.
#[derive(Debug)]
pub struct TunDevice {
    file: File,
    name: String,
}

impl TunDevice {
    /// Creates (or attaches to) the device `name`; an empty name lets the
    /// kernel choose (`tun0`, `tap0`, ...).
    pub fn open(name: &str, tap: bool) -> io::Result<TunDevice> {
        let mut ifr = ifreq_named(name)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(TUN_PATH)?;
        let mode = if tap { libc::IFF_TAP } else { libc::IFF_TUN };
        ifr.ifr_ifru.ifru_flags = (mode | libc::IFF_NO_PI) as libc::c_short;
        // SAFETY: TUNSETIFF reads and writes one `struct ifreq`, and `ifr`
        // is a valid, writable ifreq that outlives the call.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF as _, &mut ifr) };
        check(r)?;
        Ok(TunDevice {
            file,
            name: ifreq_name(&ifr),
        })
    }

    /// The interface name the kernel gave the device.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device's descriptor (to wait until it is readable).
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        self.file.as_raw_fd()
    }

    /// Reads one packet without blocking (`WouldBlock` when none waits).
    /// A packet longer than `buf` is truncated to it.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        (&self.file).read(buf)
    }

    /// Writes one packet without blocking.
    pub fn write(&self, packet: &[u8]) -> io::Result<usize> {
        (&self.file).write(packet)
    }
}

/// The kernel's `struct rtentry` (`<net/route.h>`), for `SIOCADDRT`; the
/// libc crate defines it only for musl.
#[repr(C)]
struct RtEntry {
    rt_pad1: libc::c_ulong,
    rt_dst: libc::sockaddr,
    rt_gateway: libc::sockaddr,
    rt_genmask: libc::sockaddr,
    rt_flags: libc::c_ushort,
    rt_pad2: libc::c_short,
    rt_pad3: libc::c_ulong,
    rt_pad4: *mut libc::c_void,
    rt_metric: libc::c_short,
    rt_dev: *mut libc::c_char,
    rt_mtu: libc::c_ulong,
    rt_window: libc::c_ulong,
    rt_irtt: libc::c_ushort,
}

/// Interface configuration through ioctls on an `AF_INET` datagram socket.
#[derive(Debug)]
pub struct IfConfig {
    sock: OwnedFd,
}

impl IfConfig {
    /// Opens the socket the ioctls go through.
    pub fn new() -> io::Result<IfConfig> {
        // SAFETY: plain system call with integer arguments.
        let raw = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        let raw = check(raw)?;
        // SAFETY: `raw` is a fresh descriptor nothing else owns.
        let sock = unsafe { OwnedFd::from_raw_fd(raw) };
        Ok(IfConfig { sock })
    }

    fn ioctl(&self, request: libc::c_ulong, ifr: &mut libc::ifreq) -> io::Result<()> {
        // SAFETY: every request used here (SIOC[GS]IF*) reads and/or writes
        // exactly one `struct ifreq`, which `ifr` is, valid and writable
        // for the whole call.
        let r =
            unsafe { libc::ioctl(self.sock.as_raw_fd(), request as _, ifr as *mut libc::ifreq) };
        check(r).map(|_| ())
    }

    /// Sets the interface's IPv4 address (`SIOCSIFADDR`).
    pub fn set_addr(&self, name: &str, a: Ipv4Addr) -> io::Result<()> {
        let mut ifr = ifreq_named(name)?;
        ifr.ifr_ifru.ifru_addr = sockaddr_v4(a);
        self.ioctl(libc::SIOCSIFADDR, &mut ifr)
    }

    /// Sets the interface's IPv4 netmask (`SIOCSIFNETMASK`); after the
    /// address, which resets it.
    pub fn set_netmask(&self, name: &str, mask: Ipv4Addr) -> io::Result<()> {
        let mut ifr = ifreq_named(name)?;
        ifr.ifr_ifru.ifru_netmask = sockaddr_v4(mask);
        self.ioctl(libc::SIOCSIFNETMASK, &mut ifr)
    }

    /// Sets the interface's MTU (`SIOCSIFMTU`).
    pub fn set_mtu(&self, name: &str, mtu: i32) -> io::Result<()> {
        let mut ifr = ifreq_named(name)?;
        ifr.ifr_ifru.ifru_mtu = mtu;
        self.ioctl(libc::SIOCSIFMTU, &mut ifr)
    }

    /// Sets the interface's Ethernet address (`SIOCSIFHWADDR`; TAP only).
    pub fn set_hwaddr(&self, name: &str, mac: [u8; 6]) -> io::Result<()> {
        let mut ifr = ifreq_named(name)?;
        // SAFETY: sockaddr is plain old data; all-zero is a valid value.
        let mut sa: libc::sockaddr = unsafe { zeroed() };
        sa.sa_family = libc::ARPHRD_ETHER;
        for (d, s) in sa.sa_data.iter_mut().zip(mac) {
            *d = s as libc::c_char;
        }
        ifr.ifr_ifru.ifru_hwaddr = sa;
        self.ioctl(libc::SIOCSIFHWADDR, &mut ifr)
    }

    /// The interface flags (`SIOCGIFFLAGS`: `IFF_UP`, `IFF_NOARP`, ...).
    pub fn flags(&self, name: &str) -> io::Result<i32> {
        let mut ifr = ifreq_named(name)?;
        self.ioctl(libc::SIOCGIFFLAGS, &mut ifr)?;
        // SAFETY: SIOCGIFFLAGS stored the flags in this union member.
        Ok(i32::from(unsafe { ifr.ifr_ifru.ifru_flags }) & 0xffff)
    }

    /// Sets the interface flags (`SIOCSIFFLAGS`).
    pub fn set_flags(&self, name: &str, flags: i32) -> io::Result<()> {
        let mut ifr = ifreq_named(name)?;
        ifr.ifr_ifru.ifru_flags = flags as u16 as libc::c_short;
        self.ioctl(libc::SIOCSIFFLAGS, &mut ifr)
    }

    /// Adds a default route through `gateway` (`SIOCADDRT`), as
    /// `route add default gw GATEWAY` does.
    pub fn add_default_route(&self, gateway: Ipv4Addr) -> io::Result<()> {
        let mut rt = RtEntry {
            rt_pad1: 0,
            rt_dst: sockaddr_v4(Ipv4Addr::UNSPECIFIED),
            rt_gateway: sockaddr_v4(gateway),
            rt_genmask: sockaddr_v4(Ipv4Addr::UNSPECIFIED),
            rt_flags: libc::RTF_UP | libc::RTF_GATEWAY,
            rt_pad2: 0,
            rt_pad3: 0,
            rt_pad4: std::ptr::null_mut(),
            rt_metric: 0,
            rt_dev: std::ptr::null_mut(),
            rt_mtu: 0,
            rt_window: 0,
            rt_irtt: 0,
        };
        // SAFETY: SIOCADDRT reads one `struct rtentry`, which `rt` lays out
        // as the kernel's (`#[repr(C)]`); its pointers are null (no device
        // name), which the kernel accepts.
        let r = unsafe {
            libc::ioctl(
                self.sock.as_raw_fd(),
                libc::SIOCADDRT as _,
                &mut rt as *mut RtEntry,
            )
        };
        check(r).map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn euid_is_root() -> bool {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    #[test]
    fn receive_buffer_may_exceed_rmem_max_when_privileged() {
        let Some(lo) = if_index("lo") else {
            return;
        };
        // Opening needs CAP_NET_RAW; without it there is nothing to test.
        let Ok(s) = PacketSocket::open(lo, true) else {
            return;
        };
        let want: i32 = 16 << 20;
        s.set_rcvbuf(want).unwrap();
        let got = s.rcvbuf().unwrap();
        let rmem_max: i32 = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        assert!(
            got >= 2 * want.min(rmem_max),
            "rcvbuf {got}, rmem_max {rmem_max}"
        );
        if euid_is_root() {
            // SO_RCVBUFFORCE ignores rmem_max.
            assert!(got >= 2 * want, "rcvbuf {got} as root");
        }
    }
}
