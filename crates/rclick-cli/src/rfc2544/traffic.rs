//! The traffic generator and receiver: fixed-size UDP frames at a paced
//! rate over many flows, each stamped with its trial, flow, sequence
//! number and transmit time ([`rclick_rfc2544::frame`]), sent through a
//! memory-mapped transmit ring on one interface and read back through a
//! memory-mapped receive ring (TPACKET_V2, one frame per slot, so no
//! block timer adds latency) on another, possibly in other network
//! namespaces. The rings are FromDevice/ToDevice's (`METHOD MMAP`).
//!
//! One thread does both, pinned to its own processor: it sends what is
//! due (frame `i` is due at `i / rate` seconds after the start, at most
//! [`BATCH`] per system call, so a late generator catches up in small
//! bursts and never in bursts of a second), then reads what arrived, in a
//! loop that never sleeps. Latency is the kernel's receive time stamp
//! (`CLOCK_REALTIME`, taken when the receive ring got the frame) minus
//! the transmit stamp (the same clock, read when the frame's batch was
//! written, just before the kernel was told to send it): one-way,
//! without the generator's polling delay.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rclick_elements_userlevel::device::ring::{RingConfig, RxRing, RxVersion, TxRefused, TxRing};
use rclick_elements_userlevel::device::sys::{if_index, PacketSocket};
use rclick_rfc2544::flows::{FlowSet, FlowTotals};
use rclick_rfc2544::frame::{Stamp, Template, MAX_FRAME};
use rclick_rfc2544::hist::Histogram;

use super::sys::in_netns;

/// Most frames written to the transmit ring per system call.
pub const BATCH: u64 = 32;

/// Set by the SIGINT/SIGTERM handler: trials end at once.
pub fn stop_flag() -> &'static Arc<AtomicBool> {
    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    STOP.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// The current time, nanoseconds of `CLOCK_REALTIME` (the clock of the
/// kernel's receive stamps).
#[inline]
pub fn realtime_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Where frames leave and where they come back.
pub struct Ports {
    tx: TxRing,
    rx: RxRing,
    /// `namespace/interface` of each end, for messages.
    pub tx_name: String,
    /// See `tx_name`.
    pub rx_name: String,
    next_trial: u16,
}

fn open_tx(ns: &str, dev: &str) -> Result<TxRing, String> {
    in_netns(ns, || {
        let idx = if_index(dev).ok_or_else(|| format!("{ns}: no interface {dev}"))?;
        let sock = PacketSocket::open(idx, false).map_err(|e| format!("{ns}/{dev}: {e}"))?;
        let cfg = RingConfig {
            version: RxVersion::V2,
            max_frame: MAX_FRAME,
            ring_bytes: 4 << 20,
            block_timeout_ms: 1,
        };
        TxRing::new(sock, &cfg).map_err(|e| format!("{ns}/{dev}: transmit ring: {e}"))
    })?
}

fn open_rx(ns: &str, dev: &str) -> Result<RxRing, String> {
    in_netns(ns, || {
        let idx = if_index(dev).ok_or_else(|| format!("{ns}: no interface {dev}"))?;
        let sock = PacketSocket::open(idx, true).map_err(|e| format!("{ns}/{dev}: {e}"))?;
        sock.ignore_outgoing()
            .map_err(|e| format!("{ns}/{dev}: PACKET_IGNORE_OUTGOING: {e}"))?;
        let cfg = RingConfig {
            version: RxVersion::V2,
            max_frame: MAX_FRAME,
            ring_bytes: 64 << 20,
            block_timeout_ms: 1,
        };
        RxRing::new(sock, &cfg).map_err(|e| format!("{ns}/{dev}: receive ring: {e}"))
    })?
}

/// One trial's instructions.
pub struct TrialSpec {
    /// The frames.
    pub template: Template,
    /// Flows (UDP source ports), taken in turn.
    pub flows: u16,
    /// Frames per second; infinite: as fast as the generator can.
    pub rate: f64,
    /// If not empty, the rate changes: `(seconds, frames/s)` in turn
    /// (then `rate` is only reported as the rate asked for).
    pub phases: Vec<(f64, f64)>,
    /// Frames to send at most.
    pub frames: u64,
    /// Longest sending time.
    pub duration: Duration,
    /// How long to wait for late frames after sending stops (less if
    /// every frame has arrived).
    pub drain: Duration,
    /// Timeline bin width.
    pub bin: Duration,
    /// Something to start, in a thread of its own, this long after the
    /// first frame (the router process, a hot-swap).
    pub action: Option<(Duration, Box<dyn FnOnce() + Send>)>,
    /// End the trial at the first frame that arrives after the action
    /// (or, without one, at the first frame).
    pub stop_at_first: bool,
}

impl TrialSpec {
    /// A trial of `seconds` at `rate` frames/s.
    pub fn paced(template: Template, flows: u16, rate: f64, seconds: f64) -> TrialSpec {
        TrialSpec {
            template,
            flows,
            rate,
            phases: Vec::new(),
            frames: (rate * seconds).ceil().max(1.0) as u64,
            duration: Duration::from_secs_f64(seconds),
            drain: Duration::from_millis(200),
            bin: Duration::from_millis(10),
            action: None,
            stop_at_first: false,
        }
    }
}

/// What a trial saw.
#[derive(Debug, Default)]
pub struct TrialResult {
    /// Rate asked for.
    pub requested: f64,
    /// Rate achieved: frames sent over the sending time.
    pub rate: f64,
    /// Sending time, seconds.
    pub send_s: f64,
    /// Frames per flow totals: sent, received, lost, reordered, duplicates.
    pub totals: FlowTotals,
    /// One-way latency of every frame received, nanoseconds.
    pub hist: Histogram,
    /// Frames of earlier trials that arrived during this one.
    pub stale: u64,
    /// Frames the receive ring had no room for (a generator limit).
    pub rx_ring_drops: u64,
    /// Times the transmit ring was full (the kernel lagged the generator).
    pub tx_ring_full: u64,
    /// Per bin of send time from the trial's start: frames sent, and how
    /// many of those arrived (so a bin with fewer arrived lost frames).
    pub timeline: Vec<(u64, u64)>,
    /// When the action started, from the trial's start.
    pub action_at: Option<Duration>,
    /// The first frame received after the action, from the action.
    pub first_after_action: Option<Duration>,
    /// The longest time between two frames received, the later one
    /// after the action (with no action: after the first frame).
    pub max_gap: Duration,
    /// Frames whose receive stamp was before their transmit stamp.
    pub clock_anomalies: u64,
}

impl TrialResult {
    /// The trial as the search sees it.
    pub fn outcome(&self) -> rclick_rfc2544::search::TrialOutcome {
        rclick_rfc2544::search::TrialOutcome {
            rate: self.rate,
            sent: self.totals.sent,
            lost: self.totals.lost,
        }
    }

    /// Frames received per second over the sending time.
    pub fn delivered_rate(&self) -> f64 {
        if self.send_s > 0.0 {
            self.totals.unique as f64 / self.send_s
        } else {
            0.0
        }
    }
}

/// Frames due `el` nanoseconds into a trial of `phases`.
fn due_in_phases(phases: &[(f64, f64)], el: u64) -> u64 {
    let t = el as f64 / 1e9;
    let (mut start, mut acc) = (0.0, 0.0);
    for &(len, rate) in phases {
        if t < start + len {
            return (acc + (t - start) * rate) as u64 + 1;
        }
        acc += len * rate;
        start += len;
    }
    acc as u64
}

impl Ports {
    /// Opens the transmit ring on `tx` and the receive ring on `rx`, each
    /// `(namespace, interface)`.
    pub fn open(tx: (&str, &str), rx: (&str, &str)) -> Result<Ports, String> {
        Ok(Ports {
            tx: open_tx(tx.0, tx.1)?,
            rx: open_rx(rx.0, rx.1)?,
            tx_name: format!("{}/{}", tx.0, tx.1),
            rx_name: format!("{}/{}", rx.0, rx.1),
            next_trial: 1,
        })
    }

    /// Runs one trial.
    pub fn run(&mut self, mut spec: TrialSpec) -> Result<TrialResult, String> {
        let trial = self.next_trial;
        self.next_trial = self.next_trial.wrapping_add(1).max(1);
        let flows = spec.flows.max(1);
        let mut frames: Vec<Vec<u8>> = (0..flows)
            .map(|f| spec.template.build(f))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let mut set = FlowSet::new(flows as usize);
        let mut r = TrialResult {
            requested: spec.rate,
            ..TrialResult::default()
        };
        let bin_ns = spec.bin.as_nanos().max(1) as u64;
        let dur_ns = spec.duration.as_nanos() as u64;
        let drain_ns = spec.drain.as_nanos() as u64;
        let nbins = ((dur_ns + drain_ns) / bin_ns + 2) as usize;
        r.timeline = vec![(0, 0); nbins];
        let _ = self.rx.socket().statistics(); // reset the counters
        let mut sent: u64 = 0;
        let per_ns = spec.rate / 1e9;
        let mut send_end: Option<u64> = None;
        let mut action_real: Option<u64> = None;
        let mut last_rx: Option<u64> = None;
        let mut helper: Option<std::thread::JoinHandle<()>> = None;
        let t0 = Instant::now();
        let t0_real = realtime_ns();
        let mut done = false;
        while !done {
            let el = t0.elapsed().as_nanos() as u64;
            if stop_flag().load(Ordering::Relaxed) {
                return Err("interrupted".into());
            }
            if let Some((at, _)) = &spec.action {
                if el >= at.as_nanos() as u64 {
                    let (_, f) = spec.action.take().expect("checked");
                    action_real = Some(realtime_ns());
                    r.action_at = Some(Duration::from_nanos(el));
                    helper = Some(std::thread::spawn(f));
                }
            }
            // Send what is due.
            if send_end.is_none() {
                if sent >= spec.frames || el >= dur_ns {
                    send_end = Some(el.max(1));
                } else {
                    let due = if !spec.phases.is_empty() {
                        due_in_phases(&spec.phases, el).min(spec.frames)
                    } else if spec.rate.is_finite() {
                        ((el as f64 * per_ns) as u64 + 1).min(spec.frames)
                    } else {
                        spec.frames
                    };
                    let n = due.saturating_sub(sent).min(BATCH);
                    if n > 0 {
                        let tx_ns = realtime_ns();
                        let bin = ((el / bin_ns) as usize).min(nbins - 1);
                        for _ in 0..n {
                            let flow = (sent % u64::from(flows)) as u16;
                            let f = &mut frames[flow as usize];
                            Stamp {
                                trial,
                                flow,
                                seq: (sent / u64::from(flows)) as u32,
                                tx_ns,
                            }
                            .write(f);
                            match self.tx.push(f) {
                                Ok(()) => {
                                    sent += 1;
                                    r.timeline[bin].0 += 1;
                                }
                                Err(TxRefused::Full) => {
                                    r.tx_ring_full += 1;
                                    break;
                                }
                                Err(TxRefused::TooLong) => {
                                    return Err("frame longer than a ring slot".into())
                                }
                            }
                        }
                        self.tx
                            .kick()
                            .map_err(|e| format!("{}: send: {e}", self.tx_name))?;
                    }
                }
            }
            // Read what arrived.
            let mut stop_now = false;
            self.rx.recv(256, |d, info| {
                let Some(s) = Stamp::read(d) else { return };
                if s.trial != trial {
                    r.stale += 1;
                    return;
                }
                if !set.record(s.flow, s.seq) {
                    return;
                }
                let ts = info.tstamp_ns;
                if ts >= s.tx_ns {
                    r.hist.record(ts - s.tx_ns);
                } else {
                    r.clock_anomalies += 1;
                }
                let bin = ((s.tx_ns.saturating_sub(t0_real) / bin_ns) as usize).min(nbins - 1);
                r.timeline[bin].1 += 1;
                let after = !matches!(action_real, Some(a) if ts < a);
                if after {
                    if let Some(l) = last_rx {
                        r.max_gap = r.max_gap.max(Duration::from_nanos(ts.saturating_sub(l)));
                    } else if let Some(a) = action_real {
                        r.max_gap = r.max_gap.max(Duration::from_nanos(ts.saturating_sub(a)));
                    }
                    if let Some(a) = action_real {
                        if r.first_after_action.is_none() {
                            r.first_after_action = Some(Duration::from_nanos(ts - a));
                            stop_now |= spec.stop_at_first;
                        }
                    } else {
                        stop_now |= spec.stop_at_first;
                    }
                }
                last_rx = Some(ts);
            });
            if stop_now {
                send_end.get_or_insert(el.max(1));
                break;
            }
            if let Some(end) = send_end {
                let unique = set.totals(&[]).unique;
                done = el >= end + drain_ns || (unique >= sent && spec.action.is_none());
            }
        }
        if let Some(h) = helper {
            let _ = h.join();
        }
        let end = send_end.unwrap_or(1);
        r.send_s = end as f64 / 1e9;
        // Each flow sent ceil or floor of sent / flows frames.
        let per_flow: Vec<u64> = (0..u64::from(flows))
            .map(|f| sent / u64::from(flows) + u64::from(f < sent % u64::from(flows)))
            .collect();
        r.totals = set.totals(&per_flow);
        r.rate = if r.send_s > 0.0 && sent > 1 {
            // Frames over the time between the first and the last send.
            sent as f64 / r.send_s
        } else {
            spec.rate
        };
        if let Ok((_, drops)) = self.rx.socket().statistics() {
            r.rx_ring_drops = u64::from(drops);
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_pace_in_turn() {
        let p = [(1.0, 1000.0), (0.5, 100.0)];
        assert_eq!(due_in_phases(&p, 0), 1);
        assert_eq!(due_in_phases(&p, 500_000_000), 501);
        assert_eq!(due_in_phases(&p, 1_000_000_000), 1001);
        assert_eq!(due_in_phases(&p, 1_250_000_000), 1026);
        assert_eq!(due_in_phases(&p, 9_000_000_000), 1050);
    }
}
