//! # AggregateCounter
//!
//! ## Synopsis
//!
//! `AggregateCounter([keywords BYTES, IP_BYTES, MULTIPACKET, EXTRA_LENGTH, AGGREGATE_STOP, AGGREGATE_FREEZE, AGGREGATE_CALL, COUNT_STOP, COUNT_FREEZE, COUNT_CALL, BANNER])`
//!
//! ## Category
//!
//! analysis — counts packets (or bytes) per aggregate annotation.
//!
//! ## Ports and processing
//!
//! One or two inputs, one or two outputs, agnostic. Packets arriving on
//! input 1 only update aggregates already seen (as if frozen).
//!
//! ## Description
//!
//! Keeps a count for each aggregate annotation value seen. Packets that
//! were counted leave on output 0; others (frozen, inactive) leave on
//! output 1 when it exists, or output 0.
//!
//! * `BYTES` (boolean, default false): count bytes, not packets.
//! * `IP_BYTES` (boolean, default false): count bytes from the IP header.
//! * `MULTIPACKET` (boolean, default true): accepted for compatibility.
//! * `EXTRA_LENGTH` (boolean, default true): add the extra length
//!   annotation to byte counts.
//! * `AGGREGATE_STOP` / `AGGREGATE_FREEZE` (integer): stop the driver or
//!   freeze when this many nonzero aggregates exist and another appears.
//! * `AGGREGATE_CALL` (`N HANDLER [VALUE]`): call a write handler then.
//! * `COUNT_STOP` / `COUNT_FREEZE` (integer), `COUNT_CALL` (`N HANDLER
//!   [VALUE]`): the same when the total count reaches N.
//! * `BANNER` (string): extra header text for written files.
//!
//! ## Annotations
//!
//! Reads the aggregate and extra length annotations.
//!
//! ## Handlers
//!
//! * `write_text_file`, `write_ascii_file`, `write_ip_file`, `write_pdf_file` (write):
//!   write the counts to a file (`-` is standard output), one
//!   `AGGREGATE COUNT` line each, in aggregate order.
//! * `freeze`, `active` (read/write), `stop`, `clear` (write): stop
//!   counting for now, or for good; clear the counts.
//! * `count`, `nagg` (read): total count, nonzero aggregates.
//! * `banner` (read/write).
//!
//! ## Example
//!
//! `AggregateCounter -> Discard`
//!
//! ## See also
//!
//! AggregateIPFlows, AggregateIP

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rclick_core::args::{AnyArg, Args};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, InitCx, Packet, PacketBatch};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Ip,
    Pdf,
}

/// The AggregateCounter element.
#[derive(Default)]
pub struct AggregateCounter {
    counts: BTreeMap<u32, u32>,
    count: u64,
    bytes: bool,
    ip_bytes: bool,
    extra_length: bool,
    frozen: bool,
    active: bool,
    banner: String,
    call_nnz: Option<(u32, String, String)>,
    call_count: Option<(u64, String, String)>,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Text = write("write_text_file", "write_ascii_file"),
        Ip = write("write_ip_file"),
        Pdf = write("write_pdf_file"),
        Freeze = read_write("freeze"),
        Active = read_write("active"),
        Stop = write("stop"),
        Clear = write("clear"),
        Count = read("count"),
        Nagg = read("nagg"),
        Banner = read_write("banner"),
    }
}

fn split_call(s: &str) -> (String, String) {
    let s = s.trim();
    match s.find(|c: char| c.is_ascii_whitespace()) {
        Some(i) => (s[..i].to_string(), s[i..].trim().to_string()),
        None => (s.to_string(), String::new()),
    }
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err("type mismatch".into()),
    }
}

impl AggregateCounter {
    fn nnz(&self) -> u32 {
        self.counts.values().filter(|&&c| c > 0).count() as u32
    }

    fn update(&mut self, p: &Packet, frozen: bool, cx: &mut Ctx) -> bool {
        if !self.active {
            return false;
        }
        let agg = p.aggregate_anno();
        let existing = self.counts.get(&agg).copied().unwrap_or(0);
        if frozen && existing == 0 {
            return false;
        }
        let amount = if !self.bytes {
            1u32
        } else {
            let mut a = p.len() as u32;
            if self.extra_length {
                a = a.wrapping_add(p.extra_length_anno());
            }
            if self.ip_bytes {
                if let Some(off) = p.network_header_offset() {
                    a = a.wrapping_sub(off.max(0) as u32);
                }
            }
            a
        };
        if amount > 0 && existing == 0 {
            if let Some((n, h, v)) = self.call_nnz.clone() {
                if self.nnz() >= n {
                    self.call_nnz = None;
                    let h = if h.contains('.') {
                        h
                    } else {
                        format!("{}.{}", cx.name(), h)
                    };
                    if let Err(e) = cx.call_write(&h, &v) {
                        cx.log(format!("{}: {e}", cx.name()));
                    }
                    let f = frozen || self.frozen;
                    return self.update(p, f, cx);
                }
            }
        }
        *self.counts.entry(agg).or_insert(0) += amount;
        self.count += u64::from(amount);
        if let Some((n, h, v)) = self.call_count.clone() {
            if self.count >= n {
                self.call_count = None;
                let h = if h.contains('.') {
                    h
                } else {
                    format!("{}.{}", cx.name(), h)
                };
                if let Err(e) = cx.call_write(&h, &v) {
                    cx.log(format!("{}: {e}", cx.name()));
                }
            }
        }
        true
    }

    fn write_file(&self, where_: &str, format: Format, cx: &Ctx) -> Result<(), String> {
        let mut s = String::from("!IPAggregate 1.0\n");
        s.push_str(&self.banner);
        if !self.banner.is_empty() && !self.banner.ends_with('\n') {
            s.push('\n');
        }
        let _ = writeln!(s, "!num_nonzero {}", self.nnz());
        if format == Format::Ip {
            s.push_str("!ip\n");
        }
        for (&a, &c) in &self.counts {
            if c == 0 {
                continue;
            }
            match format {
                Format::Text => {
                    let _ = writeln!(s, "{a} {c}");
                }
                Format::Ip => {
                    let _ = writeln!(s, "{} {c}", std::net::Ipv4Addr::from(a));
                }
                Format::Pdf => {
                    let v = f64::from(c) / self.count as f64;
                    let _ = writeln!(s, "{a} {}", fmt_g12(v));
                }
            }
        }
        if where_ == "-" {
            cx.print_stdout(s.as_bytes());
            Ok(())
        } else {
            std::fs::write(where_, s).map_err(|e| format!("{where_}: {e}"))
        }
    }
}

/// `%.12g`-like formatting.
fn fmt_g12(v: f64) -> String {
    let s = format!("{v:.12}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

impl Element for AggregateCounter {
    fn class_name(&self) -> &'static str {
        "AggregateCounter"
    }
    fn port_count(&self) -> &'static str {
        "1-2/1-2"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut bytes = false;
        let mut ip_bytes = false;
        let mut multipacket = true;
        let mut extra_length = true;
        let mut freeze_nnz: i64 = -1;
        let mut stop_nnz: i64 = -1;
        let mut freeze_count: i64 = -1;
        let mut stop_count: i64 = -1;
        let mut call_nnz = AnyArg(String::new());
        let mut call_count = AnyArg(String::new());
        let mut banner = String::new();
        Args::new(conf)
            .read("BYTES", &mut bytes)
            .read("IP_BYTES", &mut ip_bytes)
            .read("MULTIPACKET", &mut multipacket)
            .read("EXTRA_LENGTH", &mut extra_length)
            .read("AGGREGATE_FREEZE", &mut freeze_nnz)
            .read("COUNT_FREEZE", &mut freeze_count)
            .read("AGGREGATE_STOP", &mut stop_nnz)
            .read("COUNT_STOP", &mut stop_count)
            .read("AGGREGATE_CALL", &mut call_nnz)
            .read("COUNT_CALL", &mut call_count)
            .read("BANNER", &mut banner)
            .complete()
            .map_err(|e| e.to_string())?;
        let given = |x: i64| (x >= 0) as u32;
        let nnz = if given(freeze_nnz) + given(stop_nnz) + (!call_nnz.0.is_empty()) as u32 > 1 {
            return Err(
                "'AGGREGATE_FREEZE', 'AGGREGATE_STOP', and 'AGGREGATE_CALL' are mutually exclusive"
                    .into(),
            );
        } else if freeze_nnz >= 0 {
            Some((freeze_nnz as u32, "freeze".to_string(), "true".to_string()))
        } else if stop_nnz >= 0 {
            Some((stop_nnz as u32, "stop".to_string(), String::new()))
        } else if !call_nnz.0.is_empty() {
            let (n, rest) = split_call(&call_nnz.0);
            let n: u32 = n.parse().map_err(|_| {
                "AGGREGATE_CALL first word should be unsigned (number of aggregates)".to_string()
            })?;
            let (h, v) = split_call(&rest);
            Some((n, h, v))
        } else {
            None
        };
        let cnt = if given(freeze_count) + given(stop_count) + (!call_count.0.is_empty()) as u32 > 1
        {
            return Err(
                "'COUNT_FREEZE', 'COUNT_STOP', and 'COUNT_CALL' are mutually exclusive".into(),
            );
        } else if freeze_count >= 0 {
            Some((
                freeze_count as u64,
                "freeze".to_string(),
                "true".to_string(),
            ))
        } else if stop_count >= 0 {
            Some((stop_count as u64, "stop".to_string(), String::new()))
        } else if !call_count.0.is_empty() {
            let (n, rest) = split_call(&call_count.0);
            let n: u64 = n
                .parse()
                .map_err(|_| "COUNT_CALL first word should be unsigned (count)".to_string())?;
            let (h, v) = split_call(&rest);
            Some((n, h, v))
        } else {
            None
        };
        let _ = multipacket;
        self.bytes = bytes;
        self.ip_bytes = ip_bytes;
        self.extra_length = extra_length;
        self.call_nnz = nnz;
        self.call_count = cnt;
        self.banner = banner;
        Ok(())
    }

    fn initialize(&mut self, _cx: &mut InitCx) -> Result<(), String> {
        self.counts.clear();
        self.count = 0;
        self.frozen = false;
        self.active = true;
        Ok(())
    }

    fn push(&mut self, port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let nout = cx.noutputs();
        for p in batch {
            let frozen = self.frozen || port == 1;
            let ok = self.update(&p, frozen, cx);
            let out = if nout == 1 { 0 } else { usize::from(!ok) };
            cx.push(out, PacketBatch::from(p));
        }
    }

    fn pull(&mut self, port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let inp = if cx.ninputs() == 1 { 0 } else { port };
        let b = cx.pull(inp, max);
        for p in b.iter() {
            let frozen = self.frozen || port == 1;
            self.update(p, frozen, cx);
        }
        b
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(match H::from_id(id) {
            Some(H::Freeze) => self.frozen.to_string(),
            Some(H::Active) => self.active.to_string(),
            Some(H::Count) => self.count.to_string(),
            Some(H::Nagg) => self.nnz().to_string(),
            Some(H::Banner) => self.banner.clone(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Text | H::Ip | H::Pdf) => {
                let f = rclick_core::confparse::unquote(value.trim());
                if f.is_empty() {
                    return Err("argument should be filename".into());
                }
                let fmt = match H::from_id(id) {
                    Some(H::Text) => Format::Text,
                    Some(H::Ip) => Format::Ip,
                    _ => Format::Pdf,
                };
                self.write_file(&f, fmt, cx)
            }
            Some(H::Freeze) => {
                self.frozen = parse_bool(value)?;
                Ok(())
            }
            Some(H::Active) => {
                self.active = parse_bool(value)?;
                Ok(())
            }
            Some(H::Stop) => {
                self.active = false;
                cx.request_stop();
                Ok(())
            }
            Some(H::Clear) => {
                self.counts.clear();
                self.count = 0;
                Ok(())
            }
            Some(H::Banner) => {
                self.banner = value.to_string();
                if !self.banner.is_empty() && !self.banner.ends_with('\n') {
                    self.banner.push('\n');
                } else if self.banner.len() == 1 {
                    self.banner.clear();
                }
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, run_dump};
    use rclick_core::testing;

    /// Counts per aggregate, written to a file; `count` and `nagg`; a
    /// frozen counter passes packets to output 1 uncounted.
    #[test]
    fn counts_per_aggregate() {
        let d = dir("aggcount");
        let f = d.join("in");
        std::fs::write(&f, "!data aggregate\n1\n2\n1\n7\n1\n").unwrap();
        let counts = d.join("counts");
        let (r, lines) = run_dump(
            "aggcount",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> a :: AggregateCounter
                 -> ToIPSummaryDump(OUT, FIELDS aggregate); a[1] -> c :: Counter -> Discard;",
                f.display()
            ),
        );
        assert_eq!(lines.len(), 5);
        assert_eq!(testing::read(&r, "a.count"), "5");
        assert_eq!(testing::read(&r, "a.nagg"), "3");
        r.write_handler("a.write_text_file", &counts.display().to_string())
            .unwrap();
        let text = std::fs::read_to_string(&counts).unwrap();
        let data: Vec<&str> = text.lines().filter(|l| !l.starts_with('!')).collect();
        assert_eq!(data, ["1 3", "2 1", "7 1"]);
        r.write_handler("a.clear", "").unwrap();
        assert_eq!(testing::read(&r, "a.count"), "0");
        assert_eq!(testing::read(&r, "c.count"), "0");
    }
}
