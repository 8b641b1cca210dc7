//! The report: what `rclick rfc2544` measured, for every device under
//! test side by side, with the method and the generator's own ceiling
//! kept next to the figures. Serialised as JSON for machines; rendered
//! as Markdown and HTML by [`crate::render`].

use serde::{Deserialize, Serialize};

use crate::hist::LatencySummary;
use crate::search::TrialRecord;

/// The whole report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// The program and its version.
    pub tool: String,
    /// When the run started (UTC, RFC 3339).
    pub started: String,
    /// `quick` or `full`.
    pub profile: String,
    /// Wall time of the whole run, seconds.
    pub elapsed_s: f64,
    /// The machine.
    pub machine: Machine,
    /// How it was measured.
    pub method: Method,
    /// The generator's ceiling per frame size, back to back.
    pub generator: Vec<Ceiling>,
    /// Each device under test.
    pub duts: Vec<DutReport>,
    /// Devices or tests that were not run, and why.
    pub not_run: Vec<String>,
    /// The targets of the issue, checked.
    pub targets: Vec<Target>,
}

/// The machine the run was on.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Machine {
    /// Processors online.
    pub cpus: usize,
    /// Processor model.
    pub cpu_model: String,
    /// Kernel release.
    pub kernel: String,
    /// Load averages (1, 5, 15 min) before the run.
    pub load_before: Vec<f64>,
    /// Load averages after the run.
    pub load_after: Vec<f64>,
}

/// The method's parameters.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Method {
    /// Trial length, seconds.
    pub trial_s: f64,
    /// Time waited for late frames after each trial, seconds.
    pub drain_s: f64,
    /// Search resolution (relative).
    pub resolution: f64,
    /// Loss ratio of the partial-drop rate.
    pub pdr_loss_ratio: f64,
    /// Most trials per search.
    pub max_trials: usize,
    /// Flows (UDP source ports) per trial.
    pub flows: u16,
    /// Frame sizes, bytes with the FCS.
    pub sizes: Vec<usize>,
    /// The processor the generator runs on.
    pub generator_cpu: usize,
    /// The processor the device under test runs on.
    pub dut_cpu: usize,
    /// Sentences on how frames move and what runs where.
    pub notes: Vec<String>,
}

/// The generator's ceiling for one frame size.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Ceiling {
    /// Frame size.
    pub size: usize,
    /// Frames/s it offers and receives back to back without loss.
    pub fps: f64,
    /// Frames/s it sends when it sends as fast as it can.
    pub send_fps: f64,
}

/// One device under test.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DutReport {
    /// Short name (`rclick`, `kernel`, `click`).
    pub name: String,
    /// What it is, in words.
    pub description: String,
    /// How it was started.
    pub command: String,
    /// Why it could not be measured, if so.
    pub error: Option<String>,
    /// Throughput per frame size.
    pub throughput: Vec<Throughput>,
    /// Latency at the throughput rate per frame size.
    pub latency: Vec<Latency>,
    /// Frame loss rate against offered load per frame size.
    pub frame_loss: Vec<LossCurve>,
    /// Back-to-back frames per frame size.
    pub back_to_back: Vec<BackToBack>,
    /// Overloaded behaviour and system recovery.
    pub overload: Option<Overload>,
    /// Restart behaviour.
    pub restart: Option<Restart>,
    /// Single-frame behaviour per frame size.
    pub single_frame: Vec<SingleFrame>,
    /// File transfers through the device.
    pub transfers: Vec<Transfer>,
    /// Remarks.
    pub notes: Vec<String>,
}

/// Throughput for one frame size.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Throughput {
    /// Frame size.
    pub size: usize,
    /// No-drop rate, frames/s.
    pub ndr_fps: f64,
    /// Partial-drop rate, frames/s.
    pub pdr_fps: f64,
    /// The generator's ceiling for this size, frames/s.
    pub ceiling_fps: f64,
    /// The NDR reached the ceiling: a generator limit.
    pub at_ceiling: bool,
    /// The search met its resolution.
    pub converged: bool,
    /// Frames/s delivered in the first trial, at the ceiling.
    pub delivered_at_ceiling_fps: f64,
    /// The trials.
    pub trials: Vec<TrialRecord>,
}

/// Latency at one rate.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Latency {
    /// Frame size.
    pub size: usize,
    /// Offered rate, frames/s.
    pub rate_fps: f64,
    /// Percentiles, if frames arrived.
    pub summary: Option<LatencySummary>,
    /// Frames lost in this trial.
    pub lost: u64,
    /// Frames reordered.
    pub reordered: u64,
    /// Frames duplicated.
    pub duplicates: u64,
}

/// Frame loss rate against offered load.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LossCurve {
    /// Frame size.
    pub size: usize,
    /// Points, lowest load first.
    pub points: Vec<LossPoint>,
}

/// One load.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LossPoint {
    /// Percent of the generator's ceiling.
    pub percent: f64,
    /// Offered rate achieved, frames/s.
    pub offered_fps: f64,
    /// Delivered rate, frames/s.
    pub delivered_fps: f64,
    /// Lost frames / sent frames.
    pub loss_ratio: f64,
    /// Where the lost frames were lost, when the interfaces' counters
    /// could be read.
    #[serde(default)]
    pub where_lost: Option<LossSplit>,
}

/// Where a trial's lost frames were lost, from the kernel's counters of
/// the testbed's interfaces: so a loss the generator's receiving side
/// caused is not read as the device's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LossSplit {
    /// Frames the device's receiving interface never took: the kernel's
    /// receive backlog on the device's processor was full.
    pub before: u64,
    /// Frames the device's receiving interface took but that it never
    /// handed to its transmitting interface: lost inside the device (a
    /// socket buffer, a queue, its own drops, processing it had no time
    /// for).
    pub inside: u64,
    /// Frames the device sent that the generator's receiver did not count:
    /// the receiving host's backlog or the receive ring was full (a
    /// generator limit, not the device's).
    pub after: u64,
}

impl LossSplit {
    /// The split of a trial from the frame counts along the path: `sent`
    /// by the generator, `entered` the device's receiving interface,
    /// `handed` to its transmitting interface (sent on or dropped by the
    /// link), `received` by the generator's receiver. Counts that do not
    /// add up (other traffic on a link) saturate at 0.
    pub fn from_counts(sent: u64, entered: u64, handed: u64, received: u64) -> LossSplit {
        let entered = entered.min(sent);
        let handed = handed.min(entered);
        LossSplit {
            before: sent - entered,
            inside: entered - handed,
            after: handed.saturating_sub(received),
        }
    }

    /// All the frames it accounts for.
    pub fn total(&self) -> u64 {
        self.before + self.inside + self.after
    }
}

/// Back-to-back: the longest burst at the generator's fastest that
/// passes without loss.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BackToBack {
    /// Frame size.
    pub size: usize,
    /// Longest lossless burst, frames.
    pub frames: u64,
    /// The longest burst tried (passing it means the limit is above).
    pub max_tried: u64,
    /// Rate of the bursts, frames/s.
    pub burst_fps: f64,
}

/// Overloaded behaviour (delivered rate against offered load above the
/// throughput) and system recovery.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Overload {
    /// Frame size.
    pub size: usize,
    /// The device's NDR at this size, frames/s.
    pub ndr_fps: f64,
    /// Points, lowest load first.
    pub points: Vec<LossPoint>,
    /// Rate of the overload phase of the recovery trial, frames/s.
    pub overload_fps: f64,
    /// Rate after it (half the NDR), frames/s.
    pub after_fps: f64,
    /// Time from the end of the overload until the delivered rate was
    /// back to the offered rate, milliseconds.
    pub recovery_ms: Option<f64>,
}

/// Restart behaviour.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Restart {
    /// Start of the router process to the first forwarded frame, ms.
    pub start_ms: Option<f64>,
    /// The longest gap in forwarded frames around a hot-swap, ms.
    pub hotswap_gap_ms: Option<f64>,
    /// Frames lost during the hot-swap trial.
    pub hotswap_lost: Option<u64>,
    /// Rate of the hot-swap trial, frames/s.
    pub hotswap_rate_fps: f64,
    /// Remarks.
    pub notes: Vec<String>,
}

/// Single-frame behaviour.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SingleFrame {
    /// Frame size.
    pub size: usize,
    /// Lone frames sent (each after an idle time).
    pub sent: u64,
    /// Forwarded.
    pub forwarded: u64,
    /// Idle time before each, milliseconds.
    pub idle_ms: f64,
    /// Latency of each forwarded one, microseconds.
    pub latency_us: Vec<f64>,
}

/// A file transfer through the device.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Transfer {
    /// `HTTP` or `FTP`.
    pub protocol: String,
    /// File size, bytes.
    pub bytes: u64,
    /// Transfer time, seconds.
    pub seconds: Option<f64>,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// One target of the issue.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Target {
    /// What is measured.
    pub name: String,
    /// The goal, in words.
    pub goal: String,
    /// What was measured, in words.
    pub value: String,
    /// Met, not met, or not measurable in this run.
    pub met: Option<bool>,
}

impl Report {
    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data serialises")
    }

    /// Reads a report back.
    pub fn from_json(s: &str) -> Result<Report, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }

    /// The device named `name`.
    pub fn dut(&self, name: &str) -> Option<&DutReport> {
        self.duts.iter().find(|d| d.name == name)
    }

    /// The generator's ceiling for `size`.
    pub fn ceiling(&self, size: usize) -> Option<f64> {
        self.generator
            .iter()
            .find(|c| c.size == size)
            .map(|c| c.fps)
    }
}

impl DutReport {
    /// The NDR for `size`.
    pub fn ndr(&self, size: usize) -> Option<f64> {
        self.throughput
            .iter()
            .find(|t| t.size == size)
            .map(|t| t.ndr_fps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_split_follows_the_frames_along_the_path() {
        // 1000 sent, 900 taken by the device, 850 handed on, 840 counted.
        let s = LossSplit::from_counts(1000, 900, 850, 840);
        assert_eq!(
            s,
            LossSplit {
                before: 100,
                inside: 50,
                after: 10
            }
        );
        assert_eq!(s.total(), 160);
        // Nothing lost.
        assert_eq!(LossSplit::from_counts(10, 10, 10, 10).total(), 0);
    }

    #[test]
    fn loss_split_saturates_when_other_traffic_inflates_a_count() {
        // An ARP request sent by the device on top of the test frames.
        let s = LossSplit::from_counts(100, 100, 101, 100);
        assert_eq!(s.total(), 0);
        // More counted at the device than sent (a stray frame).
        let s = LossSplit::from_counts(100, 103, 90, 90);
        assert_eq!((s.before, s.inside, s.after), (0, 10, 0));
    }

    #[test]
    fn reports_without_the_split_still_load() {
        let p: LossPoint = serde_json::from_str(
            r#"{"percent":50.0,"offered_fps":1.0,"delivered_fps":1.0,"loss_ratio":0.0}"#,
        )
        .expect("an older report's point");
        assert_eq!(p.where_lost, None);
    }
}
