//! # ARPTable
//!
//! `ARPTable([KEYWORDS])`
//!
//! **Category:** arp. Stores IP-to-Ethernet mappings, and the packets
//! waiting for a mapping.
//!
//! **Ports:** none; an information element.
//!
//! ## Description
//!
//! Holds the ARP entries that ARPQuerier uses. ARPQuerier normally keeps a
//! private table; a separate ARPTable lets several ARPQueriers share one
//! (`ARPQuerier(..., TABLE t)`). Each entry maps an IP address to an
//! Ethernet address (or to "unknown" while a query is outstanding) and keeps
//! a bounded queue of packets waiting for the answer.
//!
//! Keywords:
//!
//! * `CAPACITY` (unsigned, default 2048): the most packets saved in the whole
//!   table; 0 means unlimited. When a new packet would exceed it, packets of
//!   the oldest entries are dropped until the table holds
//!   CAPACITY - CAPACITY/CAPACITY_SLIM_FACTOR packets.
//! * `ENTRY_CAPACITY` (unsigned, default 65536; 0 = unlimited): the most
//!   entries; the oldest entries go first, counted in `evictions`. (Click's
//!   default is unlimited: a flood of packets to unresolvable addresses
//!   then grows the table without bound.)
//! * `ENTRY_PACKET_CAPACITY` (unsigned, default 0 = unlimited): the most
//!   packets saved for one entry; further packets are dropped.
//! * `CAPACITY_SLIM_FACTOR` (unsigned, default 2, not 0): see CAPACITY.
//! * `TIMEOUT` (time, default 5 minutes): entries expire this long after
//!   their last update; 0 means never.
//!
//! A timer removes expired entries every TIMEOUT (whole seconds) plus one
//! second. Every drop is counted in `drops`.
//!
//! ## Handlers
//!
//! * `table` (read): one line per entry, oldest first: IP address, 1 if the
//!   entry is valid or 0, Ethernet address, time since the last update.
//! * `drops` (read): packets dropped for timeouts or capacity limits.
//! * `evictions` (read): entries removed to keep within ENTRY_CAPACITY.
//! * `count` (read): entries in the table.
//! * `length` (read): packets saved in the table.
//! * `insert` (write, `IP ETH`): adds or updates an entry.
//! * `delete` (write, `IP`): invalidates an entry.
//! * `clear` (write): deletes every entry and its packets.
//!
//! ## Examples
//!
//! ```text
//! arpt :: ARPTable(TIMEOUT 10min);
//! ... -> ARPQuerier(eth0, TABLE arpt) -> ...
//! ```
//!
//! ## See also
//!
//! ARPQuerier

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex, MutexGuard};

use rclick_core::args::{Args, EtherAddr, Interval};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, TimerId, Timestamp};

use super::eth_dash;

/// Click's jiffies: milliseconds.
const HZ: i64 = 1000;

/// The current time in jiffies.
pub(crate) fn jiffies(now: Timestamp) -> i64 {
    now.as_nsec().div_euclid(1_000_000)
}

/// Table settings (the keywords).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableConfig {
    /// CAPACITY.
    pub capacity: u32,
    /// ENTRY_CAPACITY.
    pub entry_capacity: u32,
    /// ENTRY_PACKET_CAPACITY.
    pub entry_packet_capacity: u32,
    /// CAPACITY_SLIM_FACTOR.
    pub slim_factor: u32,
    /// TIMEOUT in jiffies; 0 = never.
    pub timeout_j: i64,
}

/// ENTRY_CAPACITY when not given: about 10 MB of entries at most.
pub const DEFAULT_ENTRY_CAPACITY: u32 = 65536;

impl Default for TableConfig {
    fn default() -> Self {
        TableConfig {
            capacity: 2048,
            entry_capacity: DEFAULT_ENTRY_CAPACITY,
            entry_packet_capacity: 0,
            slim_factor: 2,
            timeout_j: 300 * HZ,
        }
    }
}

impl TableConfig {
    /// Parses the table keywords out of `args`, leaving the rest; returns
    /// which were given as well.
    pub(crate) fn timeout_from(iv: Interval) -> i64 {
        let ns = iv.as_nanos().max(0);
        if ns / 1_000_000_000 >= i64::from(u32::MAX) / HZ {
            0
        } else {
            ns / 1_000_000
        }
    }
}

/// One ARP entry.
#[derive(Debug)]
struct Entry {
    eth: [u8; 6],
    known: bool,
    polls: u8,
    live_at: i64,
    polled_at: i64,
    /// Position in the age order: `(live_at, seq)`.
    age_key: (i64, u64),
    queue: VecDeque<Packet>,
}

impl Entry {
    fn expired(&self, now: i64, timeout: i64) -> bool {
        timeout != 0 && self.live_at + timeout < now
    }
    fn is_known(&self, now: i64, timeout: i64) -> bool {
        self.known && !self.expired(now, timeout)
    }
    fn allow_poll(&self, now: i64) -> bool {
        let gap = if self.polls >= 10 { 2 * HZ } else { HZ / 10 };
        now >= self.polled_at + gap
    }
    fn mark_poll(&mut self, now: i64) {
        self.polled_at = now;
        self.polls = self.polls.saturating_add(1);
    }
}

/// Why [`ArpTable::append_query`] did not keep a packet.
#[derive(Debug)]
pub enum AppendError {
    /// The address is known after all: send the packet (given back).
    Known(Packet),
    /// No room: the packet was dropped and counted.
    Full,
}

/// The table itself: entries keyed by IP address, an age order, and the
/// saved packets. Shared between an ARPTable element and its ARPQueriers.
#[derive(Debug, Default)]
pub struct ArpTable {
    cfg: TableConfig,
    map: HashMap<u32, Entry>,
    age: BTreeMap<(i64, u64), u32>,
    next_seq: u64,
    prev_seq: u64,
    packet_count: u32,
    /// Packets dropped.
    pub drops: u64,
    /// Entries removed to keep within ENTRY_CAPACITY.
    pub evictions: u64,
}

/// A table shared by reference.
pub type SharedTable = Arc<Mutex<ArpTable>>;

/// Locks a shared table, ignoring poisoning.
pub fn lock(t: &SharedTable) -> MutexGuard<'_, ArpTable> {
    t.lock().unwrap_or_else(|p| p.into_inner())
}

const SEQ_MID: u64 = u64::MAX / 2;

impl ArpTable {
    /// An empty table with settings `cfg`.
    pub fn new(cfg: TableConfig) -> ArpTable {
        ArpTable {
            cfg,
            next_seq: SEQ_MID,
            prev_seq: SEQ_MID - 1,
            ..ArpTable::default()
        }
    }

    /// The settings.
    pub fn config(&self) -> TableConfig {
        self.cfg
    }

    /// Changes the settings.
    pub fn set_config(&mut self, cfg: TableConfig) {
        self.cfg = cfg;
    }

    /// Entries in the table.
    pub fn count(&self) -> usize {
        self.map.len()
    }

    /// Packets saved in the table.
    pub fn length(&self) -> u32 {
        self.packet_count
    }

    fn back_key(&mut self, live_at: i64) -> (i64, u64) {
        self.next_seq += 1;
        (live_at, self.next_seq)
    }

    fn drop_entry_packets(&mut self, ip: u32) {
        if let Some(e) = self.map.get_mut(&ip) {
            let n = e.queue.len() as u32;
            e.queue.clear();
            self.packet_count -= n.min(self.packet_count);
            self.drops += u64::from(n);
        }
    }

    /// Removes expired entries (and the oldest, over ENTRY_CAPACITY), then
    /// drops the oldest entries' packets while over CAPACITY.
    pub fn slim(&mut self, now: i64) {
        while let Some((&key, &ip)) = self.age.iter().next() {
            let over =
                self.cfg.entry_capacity != 0 && self.map.len() > self.cfg.entry_capacity as usize;
            let expired = self
                .map
                .get(&ip)
                .is_none_or(|e| e.expired(now, self.cfg.timeout_j));
            if !(expired || over) {
                break;
            }
            if !expired {
                self.evictions += 1;
            }
            self.drop_entry_packets(ip);
            self.age.remove(&key);
            self.map.remove(&ip);
        }
        let cap = self.cfg.capacity;
        if cap != 0 && self.packet_count > cap {
            let factor = self.cfg.slim_factor.max(1);
            let slim_to = (cap - cap / factor).max(1);
            let order: Vec<u32> = self.age.values().copied().collect();
            for ip in order {
                if self.packet_count <= slim_to {
                    break;
                }
                let Some(e) = self.map.get_mut(&ip) else {
                    continue;
                };
                while self.packet_count > slim_to && e.queue.pop_front().is_some() {
                    self.packet_count -= 1;
                    self.drops += 1;
                }
            }
        }
    }

    /// Finds or creates the entry for `ip`.
    fn ensure(&mut self, ip: u32, now: i64) {
        if self.map.contains_key(&ip) {
            return;
        }
        if self.cfg.entry_capacity != 0 && self.map.len() + 1 > self.cfg.entry_capacity as usize {
            // Count the new entry as present (it is not in the age order
            // yet, so it survives).
            self.map.insert(
                ip,
                Entry {
                    eth: [0xff; 6],
                    known: false,
                    polls: 0,
                    live_at: now,
                    polled_at: now - HZ,
                    age_key: (i64::MIN, 0),
                    queue: VecDeque::new(),
                },
            );
            self.slim(now);
        }
        let key = self.back_key(now);
        let e = self.map.entry(ip).or_insert(Entry {
            eth: [0xff; 6],
            known: false,
            polls: 0,
            live_at: now,
            polled_at: now - HZ,
            age_key: key,
            queue: VecDeque::new(),
        });
        e.age_key = key;
        self.age.insert(key, ip);
    }

    /// Looks `ip` up. `Some((eth, poll))` if known; `poll` says a renewal
    /// query is due (POLL_TIMEOUT `poll_timeout_j` passed, rate allowing).
    pub fn lookup(
        &mut self,
        ip: Ipv4Addr,
        poll_timeout_j: i64,
        now: i64,
    ) -> Option<([u8; 6], bool)> {
        let timeout = self.cfg.timeout_j;
        let e = self.map.get_mut(&u32::from(ip))?;
        if !e.is_known(now, timeout) {
            return None;
        }
        let poll = poll_timeout_j != 0 && now >= e.live_at + poll_timeout_j && e.allow_poll(now);
        if poll {
            e.mark_poll(now);
        }
        Some((e.eth, poll))
    }

    /// What [`lookup`](Self::lookup) would answer when it answers
    /// without a poll: the Ethernet address for `ip` if it is known and no
    /// poll is due at `now`. Changes nothing (`lookup` changes the entry
    /// only when a poll is due), so a caller may look up many packets
    /// under one lock and leave the rest to `lookup`.
    pub fn lookup_without_poll(
        &self,
        ip: Ipv4Addr,
        poll_timeout_j: i64,
        now: i64,
    ) -> Option<[u8; 6]> {
        let e = self.map.get(&u32::from(ip))?;
        if !e.is_known(now, self.cfg.timeout_j) {
            return None;
        }
        let poll = poll_timeout_j != 0 && now >= e.live_at + poll_timeout_j && e.allow_poll(now);
        (!poll).then_some(e.eth)
    }

    /// The Ethernet address for `ip`, if known.
    pub fn lookup_eth(&self, ip: Ipv4Addr, now: i64) -> Option<[u8; 6]> {
        let e = self.map.get(&u32::from(ip))?;
        e.is_known(now, self.cfg.timeout_j).then_some(e.eth)
    }

    /// Records `ip` at `eth` (broadcast means "unknown") and returns the
    /// packets that were waiting for it, oldest first.
    pub fn insert(&mut self, ip: Ipv4Addr, eth: [u8; 6], now: i64) -> VecDeque<Packet> {
        let key_ip = u32::from(ip);
        self.ensure(key_ip, now);
        let new_key = self.back_key(now);
        let Some(e) = self.map.get_mut(&key_ip) else {
            return VecDeque::new();
        };
        e.eth = eth;
        e.known = eth != [0xff; 6];
        e.live_at = now;
        e.polls = 0;
        e.polled_at = now - HZ;
        let old_key = std::mem::replace(&mut e.age_key, new_key);
        let waiting = std::mem::take(&mut e.queue);
        self.age.remove(&old_key);
        self.age.insert(new_key, key_ip);
        self.packet_count -= (waiting.len() as u32).min(self.packet_count);
        waiting
    }

    /// Saves `p` until `ip` is known. `Ok(true)` means a query should be
    /// sent now.
    pub fn append_query(&mut self, ip: Ipv4Addr, p: Packet, now: i64) -> Result<bool, AppendError> {
        let key_ip = u32::from(ip);
        self.ensure(key_ip, now);
        let timeout = self.cfg.timeout_j;
        let Some(e) = self.map.get(&key_ip) else {
            self.drops += 1;
            return Err(AppendError::Full);
        };
        if e.is_known(now, timeout) {
            return Err(AppendError::Known(p));
        }
        // Keep a wanted entry just short of expiring, so slimming below
        // does not delete it.
        if timeout != 0 && e.live_at < now - timeout {
            self.prev_seq -= 1;
            let new_key = (now - timeout, self.prev_seq);
            let old_key = e.age_key;
            self.age.remove(&old_key);
            self.age.insert(new_key, key_ip);
            if let Some(e) = self.map.get_mut(&key_ip) {
                e.live_at = now - timeout;
                e.age_key = new_key;
            }
        }
        let epc = self.cfg.entry_packet_capacity;
        if epc != 0
            && self
                .map
                .get(&key_ip)
                .is_some_and(|e| e.queue.len() >= epc as usize)
        {
            self.drops += 1;
            return Err(AppendError::Full);
        }
        self.packet_count += 1;
        if self.cfg.capacity != 0 && self.packet_count > self.cfg.capacity {
            self.slim(now);
        }
        let Some(e) = self.map.get_mut(&key_ip) else {
            self.packet_count -= 1;
            self.drops += 1;
            return Err(AppendError::Full);
        };
        e.queue.push_back(p);
        let poll = e.allow_poll(now);
        if poll {
            e.mark_poll(now);
        }
        Ok(poll)
    }

    /// Deletes every entry, dropping (and counting) saved packets.
    pub fn clear(&mut self) {
        let ips: Vec<u32> = self.map.keys().copied().collect();
        for ip in ips {
            self.drop_entry_packets(ip);
        }
        self.map.clear();
        self.age.clear();
        self.packet_count = 0;
    }

    /// Takes every entry of `other` (hot swap), if this table is empty.
    pub fn take_from(&mut self, other: &mut ArpTable) -> bool {
        if !self.map.is_empty() {
            return false;
        }
        std::mem::swap(&mut self.map, &mut other.map);
        std::mem::swap(&mut self.age, &mut other.age);
        self.next_seq = other.next_seq;
        self.prev_seq = other.prev_seq;
        self.packet_count = other.packet_count;
        self.drops = other.drops;
        self.evictions = other.evictions;
        other.packet_count = 0;
        true
    }

    /// The `table` handler's text.
    pub fn unparse(&self, now: i64) -> String {
        let mut s = String::new();
        for ip in self.age.values() {
            if let Some(e) = self.map.get(ip) {
                let ok = u8::from(e.is_known(now, self.cfg.timeout_j));
                let age = Timestamp::from_msec(now - e.live_at);
                let _ = writeln!(
                    s,
                    "{} {} {} {}",
                    Ipv4Addr::from(*ip),
                    ok,
                    eth_dash(&e.eth),
                    age
                );
            }
        }
        s
    }
}

/// The `insert` and `delete` handlers of ARPTable and ARPQuerier: `IP
/// ETH` enters a mapping in `table`, `IP` one to the Ethernet broadcast
/// address (as Click's do), both at jiffy `now`.
pub(crate) fn write_insert_delete(
    table: &SharedTable,
    delete: bool,
    value: &str,
    now: i64,
) -> Result<(), String> {
    let (ip, eth) = if delete {
        (parse_delete(value)?, [0xff; 6])
    } else {
        parse_insert(value)?
    };
    drop(lock(table).insert(ip, eth, now));
    Ok(())
}

/// Parses `IP ETH` (the `insert` handler) with names resolved by nothing.
fn parse_insert(value: &str) -> Result<(Ipv4Addr, [u8; 6]), String> {
    let words = rclick_core::confparse::split_space(value);
    let mut ip = Ipv4Addr::UNSPECIFIED;
    let mut eth = EtherAddr::default();
    Args::new(&words)
        .read_mp("IP", &mut ip)
        .read_mp("ETH", &mut eth)
        .complete()
        .map_err(|e| e.to_string())?;
    Ok((ip, eth.0))
}

/// Parses `IP` (the `delete` handler).
fn parse_delete(value: &str) -> Result<Ipv4Addr, String> {
    let words = rclick_core::confparse::split_space(value);
    let mut ip = Ipv4Addr::UNSPECIFIED;
    Args::new(&words)
        .read_mp("IP", &mut ip)
        .complete()
        .map_err(|e| e.to_string())?;
    Ok(ip)
}

/// Parses the table keywords into `cfg`; returns the unread arguments and
/// whether each keyword was given (CAPACITY, ENTRY_CAPACITY,
/// ENTRY_PACKET_CAPACITY, CAPACITY_SLIM_FACTOR, TIMEOUT).
pub(crate) fn parse_table_keywords(
    conf: &[String],
    cfg: &mut TableConfig,
    complete: bool,
) -> Result<Vec<String>, String> {
    let (mut cap, mut ecap, mut epcap, mut slim) = (
        cfg.capacity,
        cfg.entry_capacity,
        cfg.entry_packet_capacity,
        cfg.slim_factor,
    );
    let mut timeout: Option<Interval> = None;
    let mut iv = Interval::ZERO;
    let mut have_timeout = false;
    let args = Args::new(conf)
        .read("CAPACITY", &mut cap)
        .read("ENTRY_CAPACITY", &mut ecap)
        .read("ENTRY_PACKET_CAPACITY", &mut epcap)
        .read("CAPACITY_SLIM_FACTOR", &mut slim)
        .read("TIMEOUT", &mut iv)
        .read_status(&mut have_timeout);
    let rest = if complete {
        args.complete().map_err(|e| e.to_string())?;
        Vec::new()
    } else {
        args.consume().map_err(|e| e.to_string())?
    };
    if have_timeout {
        timeout = Some(iv);
    }
    if slim == 0 {
        return Err("CAPACITY_SLIM_FACTOR cannot be zero".into());
    }
    cfg.capacity = cap;
    cfg.entry_capacity = ecap;
    cfg.entry_packet_capacity = epcap;
    cfg.slim_factor = slim;
    if let Some(t) = timeout {
        cfg.timeout_j = TableConfig::timeout_from(t);
    }
    Ok(rest)
}

/// When the expiry timer runs next: TIMEOUT's whole seconds after it
/// starts, a second more after each run; never without a TIMEOUT.
fn expiry_period(cfg: &TableConfig, first: bool) -> Option<Timestamp> {
    if cfg.timeout_j == 0 {
        return None;
    }
    let secs = cfg.timeout_j / HZ + i64::from(!first);
    Some(Timestamp::from_sec(secs))
}

/// Starts the expiry timer of the table an element owns (ARPTable's, or
/// an ARPQuerier's own), if its TIMEOUT asks for one.
pub(crate) fn start_expiry(table: &SharedTable, cx: &mut InitCx) -> Option<TimerId> {
    let after = expiry_period(&lock(table).config(), true)?;
    let t = cx.new_timer();
    cx.schedule_timer_after(t, after);
    Some(t)
}

/// The expiry timer's run: drops the table's expired entries and
/// schedules the next run.
pub(crate) fn expire(table: &SharedTable, timer: TimerId, cx: &mut Ctx) {
    let mut t = lock(table);
    t.slim(jiffies(cx.now()));
    if let Some(after) = expiry_period(&t.config(), false) {
        cx.schedule_timer_after(timer, after);
    }
}

/// The ARPTable element.
pub struct ArpTableElement {
    /// The table, shared with ARPQueriers that name this element.
    pub table: SharedTable,
    timer: Option<TimerId>,
}

impl Default for ArpTableElement {
    fn default() -> Self {
        ArpTableElement {
            table: Arc::new(Mutex::new(ArpTable::new(TableConfig::default()))),
            timer: None,
        }
    }
}

rclick_core::handlers! {
    /// ARPTable's handlers (the manual's list).
    enum H {
        Table = read("table"),
        Drops = read("drops"),
        Evictions = read("evictions"),
        Count = read("count"),
        Length = read("length"),
        Insert = write("insert"),
        Delete = write("delete"),
        Clear = write("clear"),
    }
}

impl Element for ArpTableElement {
    fn class_name(&self) -> &'static str {
        "ARPTable"
    }
    fn port_count(&self) -> &'static str {
        "0/0"
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut cfg = TableConfig::default();
        parse_table_keywords(conf, &mut cfg, true)?;
        lock(&self.table).set_config(cfg);
        Ok(())
    }
    fn can_live_reconfigure(&self) -> bool {
        true
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.timer = start_expiry(&self.table, cx);
        Ok(())
    }
    fn run_timer(&mut self, timer: TimerId, cx: &mut Ctx) {
        expire(&self.table, timer, cx);
    }
    fn cleanup(&mut self, _cx: &mut Ctx) {
        lock(&self.table).clear();
    }
    fn take_state(&mut self, old: &mut dyn Element, _cx: &mut Ctx) {
        if let Some(o) = old.downcast_mut::<ArpTableElement>() {
            if !Arc::ptr_eq(&self.table, &o.table) {
                let mut mine = lock(&self.table);
                let mut theirs = lock(&o.table);
                mine.take_from(&mut theirs);
            }
        }
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, cx: &mut Ctx) -> Result<String, String> {
        let t = lock(&self.table);
        Ok(match H::from_id(id) {
            Some(H::Table) => t.unparse(jiffies(cx.now())),
            Some(H::Drops) => t.drops.to_string(),
            Some(H::Evictions) => t.evictions.to_string(),
            Some(H::Count) => t.count().to_string(),
            _ => t.length().to_string(),
        })
    }
    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let now = jiffies(cx.now());
        match H::from_id(id) {
            Some(h @ (H::Insert | H::Delete)) => {
                write_insert_delete(&self.table, h == H::Delete, value, now)?;
            }
            Some(H::Clear) => lock(&self.table).clear(),
            _ => return Err("handler not writable".into()),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rclick_core::testing;

    /// The expiry timer of ARPTable and of an ARPQuerier's own table drops
    /// an entry once TIMEOUT has passed; without a TIMEOUT, nothing goes.
    #[test]
    fn expiry_timer_drops_old_entries() {
        let reg = crate::ether::test_util::registry();
        for (timeout, left) in [("TIMEOUT 2s", "0"), ("TIMEOUT 0", "1")] {
            for class in ["ARPTable", "ARPQuerier(1.0.0.1, 2:1:1:1:1:1)"] {
                let (decl, ports) = if class == "ARPTable" {
                    (format!("t :: ARPTable({timeout});"), "")
                } else {
                    let c = class.replace(')', &format!(", {timeout})"));
                    (format!("t :: {c};"), "Idle -> t -> Discard; Idle -> [1] t;")
                };
                let conf = format!(
                    "{decl} {ports} DriverManager(write t.insert 1.0.0.2 2:1:1:1:1:2, wait 10s);"
                );
                let r = testing::run(&conf, &reg).unwrap();
                assert_eq!(testing::read(&r, "t.count"), left, "{conf}");
            }
        }
    }

    fn pkt() -> Packet {
        Packet::from_slice(&[0u8; 20])
    }

    /// A flood of packets to 70,000 unresolvable addresses: by default
    /// the table stops at DEFAULT_ENTRY_CAPACITY entries (it used to grow
    /// without bound), oldest first, and counts what it evicted; packets
    /// stay within CAPACITY. `ENTRY_CAPACITY 0` still means unlimited.
    #[test]
    fn entries_are_bounded_by_default() {
        let mut t = ArpTable::new(TableConfig::default());
        let n: u32 = 70_000;
        for i in 0..n {
            let ip = Ipv4Addr::from(0x0a00_0000 + i);
            assert!(t.append_query(ip, pkt(), i64::from(i)).is_ok());
        }
        assert_eq!(t.count(), DEFAULT_ENTRY_CAPACITY as usize);
        assert_eq!(t.evictions, u64::from(n - DEFAULT_ENTRY_CAPACITY));
        assert!(t.length() <= 2048);
        // the newest survive
        assert!(t
            .lookup_eth(Ipv4Addr::from(0x0a00_0000 + n - 1), 0)
            .is_none());
        assert!(t
            .unparse(0)
            .contains(&Ipv4Addr::from(0x0a00_0000 + n - 1).to_string()));
        assert!(!t.unparse(0).contains("10.0.0.0 "));

        let mut t = ArpTable::new(TableConfig {
            entry_capacity: 0,
            ..TableConfig::default()
        });
        for i in 0..66_000u32 {
            let _ = t.append_query(Ipv4Addr::from(0x0a00_0000 + i), pkt(), 0);
        }
        assert_eq!(t.count(), 66_000);
        assert_eq!(t.evictions, 0);
    }

    #[test]
    fn capacity_slims_oldest_entries() {
        let cfg = TableConfig {
            capacity: 10,
            ..TableConfig::default()
        };
        let mut t = ArpTable::new(cfg);
        for round in 0..2 {
            for i in 0..14u8 {
                let _ = round;
                let r = t.append_query(Ipv4Addr::new(2, i, 0, 1), pkt(), 0);
                assert!(r.is_ok());
            }
        }
        assert_eq!(t.length(), 10);
        assert_eq!(t.drops, 18);
        // 2.8 and 2.9 keep one packet, 2.10..2.13 two.
        let got: Vec<usize> = (0..14u8)
            .map(|i| {
                t.insert(Ipv4Addr::new(2, i, 0, 1), [2, 1, 1, 1, 1, i], 1)
                    .len()
            })
            .collect();
        assert_eq!(got, vec![0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 2, 2]);
    }

    #[test]
    fn entry_packet_capacity_and_poll_rate() {
        let cfg = TableConfig {
            entry_packet_capacity: 2,
            ..TableConfig::default()
        };
        let mut t = ArpTable::new(cfg);
        let ip = Ipv4Addr::new(1, 0, 0, 1);
        assert!(matches!(t.append_query(ip, pkt(), 0), Ok(true)));
        assert!(matches!(t.append_query(ip, pkt(), 50), Ok(false)));
        assert!(matches!(
            t.append_query(ip, pkt(), 100),
            Err(AppendError::Full)
        ));
        assert_eq!(t.drops, 1);
        assert_eq!(t.insert(ip, [2, 0, 0, 0, 0, 1], 120).len(), 2);
        assert_eq!(t.lookup(ip, 0, 130), Some(([2, 0, 0, 0, 0, 1], false)));
        assert!(t
            .unparse(130)
            .starts_with("1.0.0.1 1 02-00-00-00-00-01 0.010000"));
    }

    #[test]
    fn expiry_and_entry_capacity() {
        let cfg = TableConfig {
            entry_capacity: 1,
            capacity: 1,
            timeout_j: 100,
            ..TableConfig::default()
        };
        let mut t = ArpTable::new(cfg);
        for (ms, ip) in [(0, 1u8), (10, 2), (15, 3), (120, 1), (221, 1)] {
            assert!(matches!(
                t.append_query(Ipv4Addr::new(1, 0, 0, ip), pkt(), ms),
                Ok(true)
            ));
        }
        assert_eq!((t.count(), t.length()), (1, 1));
        assert_eq!(t.unparse(221), "1.0.0.1 0 FF-FF-FF-FF-FF-FF 0.100000\n");
    }
}
