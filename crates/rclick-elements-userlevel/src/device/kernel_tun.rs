//! # KernelTun
//!
//! `KernelTun(ADDR/MASK [, GATEWAY, KEYWORDS])`
//!
//! **Category:** comm. Interface to a Linux TUN device (user-level).
//!
//! **Ports:** at most one input (agnostic: push or pull); one or two push
//! outputs.
//!
//! ## Description
//!
//! Creates a TUN device with Linux's universal TUN/TAP driver
//! (`/dev/net/tun`, `IFF_TUN`, no packet information header), gives the
//! kernel's side of it the address ADDR with netmask MASK and brings it up,
//! so the host routes packets for ADDR/MASK into the router. The kernel
//! itself answers for ADDR; packets the host sends to any other address of
//! the subnet come out of KernelTun's output 0. Packets arriving on the
//! input are handed to the kernel as if the device had received them.
//!
//! KernelTun emits and expects IP packets (IPv4 or IPv6, no link header).
//! Emitted IPv4 packets have the IP header annotation set; a packet that is
//! not valid IP goes to output 1 if it exists, else it is dropped and
//! counted (`not IP`). A packet written to the device needs a network
//! header annotation (as after CheckIPHeader or MarkIPHeader); any link
//! header before it is stripped. Packets without one, of an unknown IP
//! version, or larger than MTU are dropped and counted.
//!
//! If GATEWAY (nonzero, inside ADDR/MASK) is given, KernelTun adds a
//! default route through it, as `route add default gw GATEWAY` does.
//!
//! Interface configuration uses ioctls (`SIOCSIFADDR`, `SIOCSIFNETMASK`,
//! `SIOCSIFFLAGS`, `SIOCSIFMTU`, `SIOCADDRT`), not ifconfig(8). The device
//! is created non-persistent: when the router stops, closing it removes
//! the interface, its addresses and its routes.
//!
//! A task reads the non-blocking device, up to BURST packets per run (one
//! read each: the TUN driver has no batch read). The router watches the
//! device (Click's `add_select`) and runs the task as soon as a packet
//! waits; the task runs again at once only after a full burst, else it
//! sleeps until the device is readable again. With a pull input, the same
//! task pulls up to BURST packets per run and sleeps while its upstream is
//! empty (a Queue's notifier).
//!
//! Creating a TUN device needs CAP_NET_ADMIN (root). A missing
//! `/dev/net/tun`, a missing privilege, a device name in use, or an address
//! the kernel refuses fails initialization with a message saying what to
//! do.
//!
//! Keywords:
//!
//! * `GATEWAY` (IP address, also positional): add a default route through
//!   this host, which must lie in ADDR/MASK. Default none.
//! * `DEVNAME` (string): the interface name, such as `tun7`. Default: the
//!   kernel chooses (`tun0`, `tun1`, ...). `DEV_NAME` is a deprecated
//!   synonym (with a warning), as in Click.
//! * `MTU` (unsigned): the device's MTU, without link header; larger
//!   packets are not written. Default 1500 (the kernel's default, left
//!   alone); another value is set on the device (a warning if it fails).
//! * `HEADROOM` (unsigned): bytes of headroom before emitted packets'
//!   data. Default 28, rounded up to a multiple of 4.
//! * `BURST` (unsigned): most packets read (and, with a pull input,
//!   pulled) per task run, at least 1. Default 1 (Click's); larger values
//!   move packets in batches.
//! * `ETHER` (Ethernet address): the device's Ethernet address. A TUN
//!   device has none, so giving it only prints a warning; it matters for
//!   KernelTap.
//! * `IGNORE_QUEUE_OVERFLOWS` (boolean): print only the first of the
//!   `ENOBUFS` errors from writing the device. Default false (every
//!   overflow is printed). Overflows are always counted.
//! * `TAP` (boolean): make a TAP device instead, exactly as KernelTap.
//!   Default false.
//!
//! ## Annotations
//!
//! Sets the timestamp annotation of emitted packets and, for IPv4, the IP
//! header annotation (IPv6: the network header). Uses the network header
//! annotation of written packets.
//!
//! ## Handlers
//!
//! * `dev_name` (read): the interface name.
//! * `packets` (read): packets read from the device.
//! * `written` (read): packets written to the device.
//! * `selected_calls` (read): task runs that found packets to read.
//! * `drops` (read): packets dropped, all reasons.
//! * `drop_details` (read): one line per reason, `COUNT<TAB>REASON`;
//!   reasons are `not IP`, `no network header`, `unknown IP version`,
//!   `too short for Ethernet`, `larger than MTU`, `device queue full`,
//!   `write error`.
//! * `mtu` (read): the MTU.
//! * `reset_counts` (write): sets the counters above to 0.
//!
//! ## Examples
//!
//! The host reaches 192.0.2.1 (its own address) directly; the router
//! answers pings to every other address of 192.0.2.0/24
//! (`ping 192.0.2.2`):
//!
//! ```text
//! tun :: KernelTun(192.0.2.1/24);
//! tun -> IPClassifier(icmp type echo) -> ICMPPingResponder -> tun;
//! ```
//!
//! ## See also
//!
//! KernelTap, FromDevice, ToDevice, ICMPPingResponder

use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;

use rclick_core::args::{ArgContext, Args, EtherAddr, IpPrefix};
use rclick_core::router::Select;
use rclick_core::{phase, ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, TaskId};
use rclick_packet::{Packet, PacketBatch, Timestamp};

use super::sys::{self, IfConfig, TunDevice};
use rclick_core::drops::Drops;

rclick_core::drop_reasons! {
    /// Why KernelTun dropped a packet (the manual's `drop_details` list).
    enum Why {
        NotIp = "not IP",
        NoNetworkHeader = "no network header",
        BadVersion = "unknown IP version",
        TooShort = "too short for Ethernet",
        TooLong = "larger than MTU",
        QueueFull = "device queue full",
        WriteError = "write error",
    }
}

/// The MTU KernelTun leaves alone (the kernel's default for TUN and TAP).
const DEFAULT_MTU: u32 = 1500;

/// Bytes per read: any packet the device can hand us, whole.
const READ_BUF: usize = 65536;

/// KernelTun's configuration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    pub(crate) tap: bool,
    /// FromHost: a TAP device whose frames carry IP annotations, no input.
    pub(crate) host: bool,
    pub(crate) prefix: IpPrefix,
    pub(crate) gateway: Option<Ipv4Addr>,
    pub(crate) devname: String,
    pub(crate) mtu: usize,
    pub(crate) headroom: usize,
    pub(crate) burst: usize,
    pub(crate) ether: Option<EtherAddr>,
    pub(crate) ignore_queue_overflows: bool,
}

impl Settings {
    fn new(tap: bool) -> Settings {
        Settings {
            tap,
            host: false,
            prefix: IpPrefix::new(Ipv4Addr::UNSPECIFIED, 0),
            gateway: None,
            devname: String::new(),
            mtu: DEFAULT_MTU as usize,
            headroom: rclick_packet::DEFAULT_HEADROOM,
            burst: 1,
            ether: None,
            ignore_queue_overflows: false,
        }
    }

    /// Parses a configuration; returns the settings and the warnings.
    fn parse(
        conf: &[String],
        tap: bool,
        actx: &dyn ArgContext,
    ) -> Result<(Settings, Vec<String>), String> {
        let mut warnings = Vec::new();
        let mut prefix = IpPrefix::new(Ipv4Addr::UNSPECIFIED, 0);
        let mut gateway = Ipv4Addr::UNSPECIFIED;
        let mut tap = tap;
        let mut headroom: u32 = rclick_packet::DEFAULT_HEADROOM as u32;
        let mut burst: u32 = 1;
        let mut ether = EtherAddr([0; 6]);
        let mut ether_set = false;
        let mut ignore = false;
        let mut mtu: u32 = DEFAULT_MTU;
        let mut dev_name_old = String::new();
        let mut dev_name_old_set = false;
        let mut devname = String::new();
        Args::new_with(conf, actx)
            .read_mp("ADDR", &mut prefix)
            .read_p("GATEWAY", &mut gateway)
            .read("TAP", &mut tap)
            .read("HEADROOM", &mut headroom)
            .read("BURST", &mut burst)
            .read("ETHER", &mut ether)
            .read_status(&mut ether_set)
            .read("IGNORE_QUEUE_OVERFLOWS", &mut ignore)
            .read("MTU", &mut mtu)
            .read("DEV_NAME", &mut dev_name_old)
            .read_status(&mut dev_name_old_set)
            .read("DEVNAME", &mut devname)
            .complete()
            .map_err(|e| e.to_string())?;
        if dev_name_old_set {
            warnings.push("DEV_NAME is deprecated; use DEVNAME".to_string());
            if devname.is_empty() {
                devname = dev_name_old;
            }
        }
        if prefix.addr.is_unspecified() {
            return Err(
                "ADDR: the device needs a nonzero address (ADDR/MASK, such as 192.0.2.1/24)".into(),
            );
        }
        if prefix.addr.is_multicast() || prefix.addr.is_broadcast() {
            return Err(format!("ADDR: {} is not a unicast address", prefix.addr));
        }
        if !gateway.is_unspecified() && !prefix.contains(gateway) {
            return Err(format!("bad GATEWAY: {gateway} is not in {prefix}"));
        }
        if burst < 1 {
            return Err("BURST must be >= 1".into());
        }
        let min_mtu = if tap { 68 } else { 20 };
        if !(min_mtu..=65521).contains(&mtu) {
            return Err(format!("MTU must be between {min_mtu} and 65521"));
        }
        if headroom > 8192 {
            return Err("HEADROOM too big (at most 8192)".into());
        }
        if devname.len() >= libc::IFNAMSIZ || devname.contains(['/', ' ']) {
            return Err(format!(
                "DEVNAME: bad interface name '{devname}' (at most {} characters, no '/' or spaces)",
                libc::IFNAMSIZ - 1
            ));
        }
        let s = Settings {
            tap,
            host: false,
            prefix,
            gateway: (!gateway.is_unspecified()).then_some(gateway),
            devname,
            mtu: mtu as usize,
            headroom: (headroom as usize).div_ceil(4) * 4,
            burst: burst as usize,
            ether: ether_set.then_some(ether),
            ignore_queue_overflows: ignore,
        };
        Ok((s, warnings))
    }
}

impl Settings {
    /// Parses FromHost's configuration: `DEVNAME [, DST/MASK, KEYWORDS]`.
    fn parse_host(conf: &[String], actx: &dyn ArgContext) -> Result<Settings, String> {
        let mut devname = String::new();
        let mut prefix = IpPrefix::new(Ipv4Addr::UNSPECIFIED, 0);
        let mut gateway = Ipv4Addr::UNSPECIFIED;
        let mut ether = EtherAddr([0; 6]);
        let mut ether_set = false;
        // Click's default: 4/2 alignment of the default headroom
        let dh = rclick_packet::DEFAULT_HEADROOM as u32;
        let mut headroom: u32 = dh + (4 - (dh + 2) % 4) % 4;
        let mut mtu: u32 = DEFAULT_MTU;
        Args::new_with(conf, actx)
            .read_mp("DEVNAME", &mut devname)
            .read_p("DST", &mut prefix)
            .read("GATEWAY", &mut gateway)
            .read("ETHER", &mut ether)
            .read_status(&mut ether_set)
            .read("HEADROOM", &mut headroom)
            .read("MTU", &mut mtu)
            .complete()
            .map_err(|e| e.to_string())?;
        if !prefix.addr.is_unspecified() && !gateway.is_unspecified() && !prefix.contains(gateway) {
            return Err("bad GATEWAY".into());
        }
        if devname.is_empty() {
            return Err("must specify device name".into());
        }
        if headroom > 8192 {
            return Err("HEADROOM too large".into());
        }
        if !(68..=65521).contains(&mtu) {
            return Err("MTU must be between 68 and 65521".into());
        }
        if devname.len() >= libc::IFNAMSIZ || devname.contains(['/', ' ']) {
            return Err(format!(
                "DEVNAME: bad interface name '{devname}' (at most {} characters, no '/' or spaces)",
                libc::IFNAMSIZ - 1
            ));
        }
        Ok(Settings {
            tap: true,
            host: true,
            prefix,
            gateway: (!gateway.is_unspecified()).then_some(gateway),
            devname,
            mtu: mtu as usize,
            headroom: headroom as usize,
            burst: 8,
            ether: ether_set.then_some(ether),
            ignore_queue_overflows: false,
        })
    }
}

/// The KernelTun element (and, with `tap`, KernelTap; FromHost).
pub struct KernelTun {
    cfg: Settings,
    dev: Option<Arc<TunDevice>>,
    buf: Vec<u8>,
    signal: NotifierSignal,
    pull_input: bool,
    packets: u64,
    written: u64,
    selected_calls: u64,
    drops: Drops<Why>,
    read_errors_printed: u32,
}

impl KernelTun {
    /// A KernelTun (`tap` false) or a KernelTap (`tap` true).
    pub fn new(tap: bool) -> KernelTun {
        KernelTun {
            cfg: Settings::new(tap),
            dev: None,
            buf: Vec::new(),
            signal: NotifierSignal::Busy,
            pull_input: false,
            packets: 0,
            written: 0,
            selected_calls: 0,
            drops: Drops::default(),
            read_errors_printed: 0,
        }
    }

    /// A FromHost: the host side of a TAP device the router reads.
    pub fn from_host() -> KernelTun {
        let mut t = KernelTun::new(true);
        t.cfg.host = true;
        t
    }

    /// The interface name (after initialization, the one the kernel gave).
    pub fn dev_name(&self) -> &str {
        &self.cfg.devname
    }

    /// The open device, shared with a ToHost of the same name.
    pub fn device(&self) -> Option<Arc<TunDevice>> {
        self.dev.clone()
    }

    /// The device's MTU (without link header).
    pub fn mtu(&self) -> usize {
        self.cfg.mtu
    }

    /// Reads configuration `conf` into the settings, as `configure` does,
    /// and returns the warnings.
    pub(crate) fn parse_config(
        &mut self,
        conf: &[String],
        actx: &dyn ArgContext,
    ) -> Result<Vec<String>, String> {
        if self.cfg.host {
            self.cfg = Settings::parse_host(conf, actx)?;
            return Ok(Vec::new());
        }
        let (cfg, warnings) = Settings::parse(conf, self.cfg.tap, actx)?;
        self.cfg = cfg;
        Ok(warnings)
    }

    /// The settings the configuration gave (for the tests of the classes
    /// made from KernelTun).
    #[cfg(test)]
    pub(crate) fn settings(&self) -> &Settings {
        &self.cfg
    }

    fn class(&self) -> &'static str {
        if self.cfg.host {
            "FromHost"
        } else if self.cfg.tap {
            "KernelTap"
        } else {
            "KernelTun"
        }
    }

    fn who(&self) -> String {
        format!("{}({})", self.class(), self.cfg.devname)
    }

    fn count_drop(&mut self, why: Why, n: u64, detail: Option<&str>, cx: &Ctx) {
        let who = self.who();
        crate::drops::count(&mut self.drops, why, n, detail, false, &who, cx);
    }

    /// Turns a user-facing error for step `what` of the setup into a
    /// sentence that says what to do.
    fn setup_error(&self, what: &str, e: &io::Error) -> String {
        let why = sys::strerror(e);
        let class = self.class();
        let hint = match e.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => {
                " (creating and configuring TUN/TAP devices needs CAP_NET_ADMIN: \
                 run as root, or give the program the capability with \
                 `setcap cap_net_admin+ep PROGRAM`)"
            }
            Some(libc::ENOENT) | Some(libc::ENODEV) | Some(libc::ENXIO)
                if what.starts_with(sys::TUN_PATH) =>
            {
                " (the kernel's TUN/TAP driver is missing: load it with \
                 `modprobe tun`; in a container, create the device node with \
                 `mkdir -p /dev/net && mknod /dev/net/tun c 10 200`)"
            }
            Some(libc::EBUSY) | Some(libc::EINVAL) if what.starts_with(sys::TUN_PATH) => {
                " (DEVNAME names an interface that exists and is not a free \
                 TUN/TAP device of this kind: choose another DEVNAME, or leave \
                 it out to let the kernel choose)"
            }
            Some(libc::EEXIST) if what.contains("route") => {
                " (a default route exists already: remove it, or leave GATEWAY out)"
            }
            Some(libc::EINVAL) | Some(libc::EADDRNOTAVAIL) if what.contains("address") => {
                " (ADDR must be a unicast IPv4 address)"
            }
            _ => "",
        };
        format!("{class}: {what}: {why}{hint}")
    }

    /// Creates and configures the device.
    fn open_device(&self, cx: &mut InitCx) -> Result<TunDevice, String> {
        let dev = TunDevice::open(&self.cfg.devname, self.cfg.tap)
            .map_err(|e| self.setup_error(sys::TUN_PATH, &e))?;
        let name = dev.name().to_string();
        let ifc = IfConfig::new().map_err(|e| self.setup_error("socket", &e))?;
        let step = |what: &str, r: io::Result<()>| -> Result<(), String> {
            r.map_err(|e| self.setup_error(&format!("{name}: {what}"), &e))
        };
        // FromHost may leave the device without an address
        if !self.cfg.prefix.addr.is_unspecified() {
            step(
                &format!("cannot set address {}", self.cfg.prefix.addr),
                ifc.set_addr(&name, self.cfg.prefix.addr),
            )?;
            step(
                &format!("cannot set netmask {}", self.cfg.prefix.mask),
                ifc.set_netmask(&name, self.cfg.prefix.mask),
            )?;
        }
        if let Some(mac) = self.cfg.ether {
            if let Err(e) = ifc.set_hwaddr(&name, mac.0) {
                cx.warning(format!(
                    "{name}: could not set the Ethernet address {mac}: {}{}",
                    sys::strerror(&e),
                    if self.cfg.tap {
                        ""
                    } else {
                        " (TUN devices have none)"
                    }
                ));
            }
        }
        if self.cfg.mtu != DEFAULT_MTU as usize {
            if let Err(e) = ifc.set_mtu(&name, self.cfg.mtu as i32) {
                cx.warning(format!(
                    "{name}: could not set MTU {}: {}",
                    self.cfg.mtu,
                    sys::strerror(&e)
                ));
            }
        }
        let flags = ifc
            .flags(&name)
            .map_err(|e| self.setup_error(&format!("{name}: SIOCGIFFLAGS"), &e))?;
        let mut flags = flags | libc::IFF_UP | libc::IFF_PROMISC;
        if self.cfg.tap {
            flags &= !libc::IFF_NOARP;
        }
        step("cannot bring the device up", ifc.set_flags(&name, flags))?;
        if let Some(gw) = self.cfg.gateway {
            step(
                &format!("cannot add a default route via {gw}"),
                ifc.add_default_route(gw),
            )?;
        }
        Ok(dev)
    }

    /// Makes the packet for `len` bytes read into the buffer: `Ok` for
    /// output 0, `Err` for output 1 (not IP).
    fn make_packet(&self, len: usize, now: Timestamp) -> Option<Result<Packet, Packet>> {
        let mut p = Packet::try_make(self.cfg.headroom, &self.buf[..len], 0).ok()?;
        p.set_timestamp_anno(now);
        if self.cfg.tap {
            p.set_mac_header(0);
            if self.cfg.host {
                annotate_ip_in_frame(&mut p);
            }
            return Some(Ok(p));
        }
        let d = p.data();
        match d.first().map(|b| b >> 4) {
            Some(4) if d.len() >= rclick_wire::ipv4::HEADER_LEN => {
                let ip = rclick_wire::ipv4::Ipv4Packet::new_unchecked(d);
                let ihl = usize::from(ip.header_len());
                let total = usize::from(ip.total_len());
                if ihl >= 20 && ihl <= total && total <= d.len() {
                    p.set_ip_header(0, ihl);
                    Some(Ok(p))
                } else {
                    Some(Err(p))
                }
            }
            Some(6) if d.len() >= 40 => {
                p.set_network_header(0, 40);
                Some(Ok(p))
            }
            _ => Some(Err(p)),
        }
    }

    /// Reads up to BURST packets and pushes them; returns how many.
    fn poll(&mut self, cx: &mut Ctx) -> usize {
        let mut out = PacketBatch::new();
        let mut other = PacketBatch::new();
        let mut n = 0;
        let now = cx.now();
        while n < self.cfg.burst {
            let Some(dev) = &self.dev else {
                break;
            };
            let len = match dev.read(&mut self.buf) {
                Ok(0) => break,
                Ok(len) => len,
                Err(e) if sys::would_block(&e) => break,
                Err(e) => {
                    if self.read_errors_printed < 5 {
                        self.read_errors_printed += 1;
                        cx.log(format!("{}: read: {}", self.who(), sys::strerror(&e)));
                    }
                    break;
                }
            };
            n += 1;
            match self.make_packet(len, now) {
                Some(Ok(p)) => out.push(p),
                Some(Err(p)) => other.push(p),
                None => {}
            }
        }
        self.packets += n as u64;
        if n > 0 {
            self.selected_calls += 1;
        }
        if !out.is_empty() {
            cx.push(0, out);
        }
        if !other.is_empty() {
            if cx.noutputs() > 1 {
                cx.push(1, other);
            } else {
                self.count_drop(Why::NotIp, other.len() as u64, None, cx);
            }
        }
        n
    }

    /// Checks one packet and returns the bytes to write, or the drop reason.
    fn prepare(&self, p: &mut Packet) -> Result<(), Why> {
        let mtu = self.cfg.mtu;
        if self.cfg.tap {
            if p.len() < 14 {
                return Err(Why::TooShort);
            }
            if p.len() - 14 > mtu {
                return Err(Why::TooLong);
            }
            return Ok(());
        }
        let off = match p.network_header_offset() {
            Some(off) if off >= 0 && p.network_header_len() >= 20 => off as usize,
            _ => return Err(Why::NoNetworkHeader),
        };
        match p.data().get(off).map(|b| b >> 4) {
            Some(4) | Some(6) => {}
            _ => return Err(Why::BadVersion),
        }
        if off > 0 {
            p.pull(off);
        }
        if p.len() > mtu {
            return Err(Why::TooLong);
        }
        Ok(())
    }

    /// Writes a batch to the device, counting what goes and what drops.
    fn write_batch(&mut self, batch: PacketBatch, cx: &mut Ctx) {
        for mut p in batch {
            if let Err(why) = self.prepare(&mut p) {
                self.count_drop(why, 1, None, cx);
                continue;
            }
            let Some(dev) = &self.dev else {
                self.count_drop(Why::WriteError, 1, Some("device closed"), cx);
                continue;
            };
            match dev.write(p.data()) {
                Ok(_) => self.written += 1,
                Err(e) if sys::would_block(&e) => {
                    let detail = sys::strerror(&e);
                    if self.cfg.ignore_queue_overflows {
                        self.count_drop(Why::QueueFull, 1, Some(&detail), cx);
                    } else {
                        let who = self.who();
                        crate::drops::count(
                            &mut self.drops,
                            Why::QueueFull,
                            1,
                            Some(&detail),
                            true,
                            &who,
                            cx,
                        );
                    }
                }
                Err(e) => {
                    let detail = sys::strerror(&e);
                    self.count_drop(Why::WriteError, 1, Some(&detail), cx);
                }
            }
        }
    }
}

/// FromHost's annotations on a frame from the host: for IPv4, the IP
/// header (after the 14-byte Ethernet header) and the destination address.
fn annotate_ip_in_frame(p: &mut Packet) {
    if let Some((ihl, dst)) = super::ipv4_header_in_frame(p.data()) {
        p.set_ip_header(rclick_wire::ethernet::HEADER_LEN, ihl);
        p.set_dst_ip_anno(dst);
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        DevName = read("dev_name"),
        Packets = read("packets"),
        Written = read("written"),
        Selected = read("selected_calls"),
        Drops = read("drops"),
        DropDetails = read("drop_details"),
        Mtu = read("mtu"),
        Reset = write("reset_counts"),
    }
}

impl Element for KernelTun {
    fn class_name(&self) -> &'static str {
        self.class()
    }
    fn port_count(&self) -> &'static str {
        if self.cfg.host {
            "0/1"
        } else {
            "0-1/1-2"
        }
    }
    fn processing(&self) -> &'static str {
        if self.cfg.host {
            "h/h"
        } else {
            "a/h"
        }
    }
    fn flow_code(&self) -> &'static str {
        "x/y"
    }
    fn configure_phase(&self) -> i32 {
        phase::PRIVILEGED - 1
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        for w in self.parse_config(conf, cx.arg_context())? {
            cx.warning(w);
        }
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let dev = self.open_device(cx)?;
        self.cfg.devname = dev.name().to_string();
        self.dev = Some(Arc::new(dev));
        self.buf = vec![0u8; READ_BUF];
        let t = cx.new_task(true);
        if let Some(dev) = &self.dev {
            cx.add_select(dev.raw_fd(), Select::Read, t);
        }
        if cx.ninputs() > 0 && !cx.input_is_push(0) {
            self.pull_input = true;
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        // Closing the descriptor removes the (non-persistent) device.
        self.dev = None;
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.write_batch(batch, cx);
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let read = self.poll(cx);
        let mut pulled = 0;
        if self.pull_input {
            let batch = cx.pull(0, self.cfg.burst);
            pulled = batch.len();
            if pulled > 0 {
                self.write_batch(batch, cx);
            }
        }
        // A short read drained the device: its descriptor wakes the task
        // again. A pull input keeps it going while its queue has packets.
        if read >= self.cfg.burst || (self.pull_input && self.signal.active()) {
            cx.reschedule();
        }
        read > 0 || pulled > 0
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::DevName) => Ok(self.cfg.devname.clone()),
            Some(H::Packets) => Ok(self.packets.to_string()),
            Some(H::Written) => Ok(self.written.to_string()),
            Some(H::Selected) => Ok(self.selected_calls.to_string()),
            Some(H::Drops) => Ok(self.drops.total().to_string()),
            Some(H::DropDetails) => Ok(self.drops.details()),
            Some(H::Mtu) => Ok(self.cfg.mtu.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Reset) => {
                self.packets = 0;
                self.written = 0;
                self.selected_calls = 0;
                self.drops.reset();
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::build_err;
    use super::*;
    use rclick_core::args::NoContext;

    #[test]
    fn configuration_errors() {
        assert!(build_err("KernelTun() -> Discard").contains("ADDR"));
        assert!(build_err("KernelTun(bogus) -> Discard").contains("ADDR"));
        assert!(build_err("KernelTun(0.0.0.0/24) -> Discard").contains("nonzero"));
        assert!(build_err("KernelTun(224.0.0.1/24) -> Discard").contains("unicast"));
        let e = build_err("KernelTun(192.0.2.1/24, 198.51.100.1) -> Discard");
        assert!(e.contains("bad GATEWAY"), "{e}");
        assert!(build_err("KernelTun(192.0.2.1/24, BURST 0) -> Discard").contains("BURST"));
        assert!(build_err("KernelTun(192.0.2.1/24, MTU 10) -> Discard").contains("MTU"));
        assert!(
            build_err("KernelTun(192.0.2.1/24, HEADROOM 9000) -> Discard").contains("HEADROOM")
        );
        let e = build_err("KernelTun(192.0.2.1/24, DEVNAME averyveryverylongname) -> Discard");
        assert!(e.contains("DEVNAME"), "{e}");
        let e = build_err("KernelTun(192.0.2.1/24, UP_DELAY_MS 5) -> Discard");
        assert!(e.contains("UP_DELAY_MS: unknown argument"), "{e}");
        assert!(build_err("KernelTap(192.0.2.1/24, ETHER 1:2) -> Discard").contains("ETHER"));
        // Three outputs: too many.
        let e = build_err(
            "t :: KernelTun(192.0.2.1/24); t[0] -> Discard; t[1] -> Discard; t[2] -> Discard",
        );
        assert!(!e.is_empty());
    }

    #[test]
    fn configuration_is_parsed() {
        let conf: Vec<String> = [
            "192.0.2.1/24",
            "192.0.2.254",
            "HEADROOM 30",
            "BURST 8",
            "MTU 1400",
            "DEVNAME rtun0",
            "ETHER 02:00:00:00:00:01",
            "IGNORE_QUEUE_OVERFLOWS true",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (t, warnings) = Settings::parse(&conf, true, &NoContext).unwrap();
        assert!(warnings.is_empty());
        assert!(t.tap);
        assert_eq!(t.prefix.to_string(), "192.0.2.1/24");
        assert_eq!(t.gateway, Some(Ipv4Addr::new(192, 0, 2, 254)));
        assert_eq!(t.headroom, 32);
        assert_eq!(t.burst, 8);
        assert_eq!(t.mtu, 1400);
        assert_eq!(t.devname, "rtun0");
        assert_eq!(t.ether, Some(EtherAddr([2, 0, 0, 0, 0, 1])));
        assert!(t.ignore_queue_overflows);
        let old: Vec<String> = vec!["192.0.2.1/24".into(), "DEV_NAME x0".into()];
        let (t, warnings) = Settings::parse(&old, false, &NoContext).unwrap();
        assert_eq!(t.devname, "x0");
        assert!(warnings[0].contains("deprecated"));
        let tap: Vec<String> = vec!["192.0.2.1/24".into(), "TAP true".into()];
        assert!(Settings::parse(&tap, false, &NoContext).unwrap().0.tap);
    }

    #[test]
    fn packets_read_are_classified() {
        let mut t = KernelTun::new(false);
        t.buf = vec![0u8; 64];
        // A minimal IPv4 header (total length 20).
        t.buf[..20].copy_from_slice(&[
            0x45, 0, 0, 20, 0, 0, 0, 0, 64, 1, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
        ]);
        let p = t.make_packet(20, Timestamp::ZERO).unwrap().unwrap();
        assert_eq!(p.ip_header_offset(), Some(0));
        assert_eq!(p.ip_header_len(), 20);
        // A lying total length, a bad version, a runt: output 1.
        t.buf[3] = 40;
        assert!(t.make_packet(20, Timestamp::ZERO).unwrap().is_err());
        t.buf[3] = 20;
        t.buf[0] = 0x55;
        assert!(t.make_packet(20, Timestamp::ZERO).unwrap().is_err());
        assert!(t.make_packet(3, Timestamp::ZERO).unwrap().is_err());
        // TAP: anything goes, with the MAC header annotation.
        t.cfg.tap = true;
        let p = t.make_packet(14, Timestamp::ZERO).unwrap().unwrap();
        assert_eq!(p.mac_header_offset(), Some(0));
    }

    #[test]
    fn packets_written_are_checked() {
        let mut t = KernelTun::new(false);
        t.cfg.mtu = 100;
        let mut ip = vec![0u8; 14];
        ip.extend_from_slice(&[
            0x45, 0, 0, 20, 0, 0, 0, 0, 64, 1, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
        ]);
        let mut p = Packet::from_slice(&ip);
        assert!(matches!(t.prepare(&mut p), Err(Why::NoNetworkHeader)));
        p.set_ip_header(14, 20);
        assert!(t.prepare(&mut p).is_ok());
        assert_eq!(p.len(), 20, "the link header is stripped");
        let mut big = Packet::from_slice(&[0x45; 200]);
        big.set_ip_header(0, 20);
        assert!(matches!(t.prepare(&mut big), Err(Why::TooLong)));
        let mut v5 = Packet::from_slice(&[0x55; 40]);
        v5.set_ip_header(0, 20);
        assert!(matches!(t.prepare(&mut v5), Err(Why::BadVersion)));
        t.cfg.tap = true;
        let mut runt = Packet::from_slice(&[0; 10]);
        assert!(matches!(t.prepare(&mut runt), Err(Why::TooShort)));
        let mut frame = Packet::from_slice(&[0; 60]);
        assert!(t.prepare(&mut frame).is_ok());
    }

    #[test]
    fn unprivileged_or_missing_driver_says_what_to_do() {
        // As root with a TUN driver this would create a device in this
        // namespace; only the failure paths run here.
        let privileged = is_root();
        if privileged && std::path::Path::new(sys::TUN_PATH).exists() {
            eprintln!("skipping: root (tests/e2e/kerneltun.sh covers this in a namespace)");
            return;
        }
        let e = build_err("KernelTun(192.0.2.1/24) -> Discard");
        assert!(
            e.contains("CAP_NET_ADMIN") || e.contains("modprobe tun"),
            "{e}"
        );
    }

    /// Whether this process runs as root (`/proc/self` belongs to the
    /// effective user).
    fn is_root() -> bool {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
    }
}
