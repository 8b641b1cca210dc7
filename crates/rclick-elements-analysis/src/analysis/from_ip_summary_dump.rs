//! # FromIPSummaryDump
//!
//! ## Synopsis
//!
//! `FromIPSummaryDump(FILENAME [, keywords STOP, ACTIVE, ZERO, TIMING, CHECKSUM, SAMPLE, PROTO, MULTIPACKET, FIELDS, DEFAULT_FIELDS, FLOWID, ALLOW_NONEXISTENT, DATA, BURST])`
//!
//! ## Category
//!
//! analysis — reads packets from an IP summary dump file.
//!
//! ## Ports and processing
//!
//! No inputs; one agnostic output. When the output is push, a task emits
//! packets; when pull, packets are read on demand.
//!
//! ## Description
//!
//! Reads IP summary dump text (as written by ToIPSummaryDump) and builds
//! one IP packet per data line, with the given header fields, real
//! protocol headers, and annotations. Lines starting with `!` give
//! directives: `!data FIELD...` (or `!contents`) names the fields of the
//! following lines, `!proto P` sets the default IP protocol, `!flowid SRC
//! SPORT DST DPORT [PROTO]` sets default addresses and ports, `!aggregate
//! N` and `!IPSummaryDump MAJOR.MINOR` are understood; `#` lines are
//! comments. A `!binary` line switches to binary records, as written by
//! ToIPSummaryDump's BINARY option: each record is a 4-byte big-endian
//! length (counting itself) followed by the fields' binary encodings; a
//! length with the top bit set marks a text record (a `!` or `#` line). A field given as `-` is left at its default. See
//! ToIPSummaryDump for field names.
//!
//! Keywords:
//!
//! * `FILENAME` (file name): the dump; `-` means standard input.
//! * `DATA` (string): the dump text itself, instead of FILENAME.
//! * `STOP` (boolean, default false): stop the driver at end of file.
//! * `ACTIVE` (boolean, default true): start emitting packets at once.
//! * `ZERO` (boolean, default true): zero packet data (always done).
//! * `TIMING` (boolean, default false): emit packets at the pace of their
//!   timestamps.
//! * `CHECKSUM` (boolean, default false): extend packets to their IP
//!   length and set correct IP, TCP, UDP and ICMP checksums.
//! * `SAMPLE` (real in 0..1, default 1): keep each packet with this
//!   probability.
//! * `PROTO` (byte, default 6): the default IP protocol.
//! * `MULTIPACKET` (boolean, default false): accepted for compatibility.
//! * `FIELDS` / `CONTENTS` / `DEFAULT_FIELDS` / `DEFAULT_CONTENTS` (text):
//!   the fields to expect before any `!data` line.
//! * `FLOWID` / `DEFAULT_FLOWID` (text): a default flow, as in `!flowid`.
//! * `ALLOW_NONEXISTENT` (boolean, default false): a missing file is an
//!   empty dump rather than an error.
//! * `BURST` (integer, default 1): packets emitted per task run.
//!
//! ## Annotations
//!
//! Sets the timestamp, first timestamp, paint, aggregate, destination IP
//! address and extra length annotations.
//!
//! ## Handlers
//!
//! * `active` (read/write): whether packets are being emitted.
//! * `sampling_prob` (read): the sampling probability.
//! * `encap` (read): `IP`.
//! * `filename` (read): the file name.
//! * `stop` (write): stops emitting and stops the driver.
//!
//! ## Example
//!
//! `FromIPSummaryDump(F, STOP true) -> ToIPSummaryDump(-, FIELDS src dst)`
//!
//! ## See also
//!
//! ToIPSummaryDump, FromDump

// Why this file is long: about 1,050 lines, kept whole: one element (its
// manual, configuration, the reader of its text and binary records with their
// `!data`/`!flowid`/`!proto` lines, timing and sampling) and 200 lines of
// tests. The field parsing it calls is `ipsumdump_fields`'s; what is left
// reads one file in one state machine, which a split would cut through.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};

use rclick_core::args::{AnyArg, Args};
use rclick_core::file_source::{FileSource, FileSourceH};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, Notifier, PacketBatch, TaskId, TimerId,
    Timestamp,
};
use rclick_packet::Packet;

use super::ipsumdump_fields::{
    binary_args, decode_binary, parse_u32, Field, FlowId, Odesc, MAJOR_VERSION, MINOR_VERSION,
};

/// The FromIPSummaryDump element.
pub struct FromIPSummaryDump {
    filename: String,
    data: Option<String>,
    stop: bool,
    timing: bool,
    checksum: bool,
    sampling_prob: f64,
    default_proto: u8,
    allow_nonexistent: bool,
    burst: usize,
    default_fields: Option<String>,
    default_flowid: Option<String>,

    reader: Option<Box<dyn BufRead + Send>>,
    peeked: Option<String>,
    lineno: u64,
    fields: Vec<Field>,
    order: Vec<usize>,
    proto: u8,
    flowid: Option<FlowId>,
    aggregate: Option<u32>,
    minor_version: i32,
    format_complaint: bool,
    binary: bool,
    work: Option<Packet>,
    have_timing: bool,
    timing_offset: Timestamp,
    rng: u64,

    timer: Option<TimerId>,
    /// `active`, `stop` and how the source is woken.
    src: FileSource,
}

impl Default for FromIPSummaryDump {
    fn default() -> Self {
        FromIPSummaryDump {
            filename: String::new(),
            data: None,
            stop: false,
            timing: false,
            checksum: false,
            sampling_prob: 1.0,
            default_proto: 6,
            allow_nonexistent: false,
            burst: 1,
            default_fields: None,
            default_flowid: None,
            reader: None,
            peeked: None,
            lineno: 0,
            fields: Vec::new(),
            order: Vec::new(),
            proto: 6,
            flowid: None,
            aggregate: None,
            minor_version: MINOR_VERSION,
            format_complaint: false,
            binary: false,
            work: None,
            have_timing: false,
            timing_offset: Timestamp::ZERO,
            rng: 0x853c_49e6_748f_ea9b,
            src: FileSource::default(),
            timer: None,
        }
    }
}

fn parse_proto(s: &str) -> Option<u8> {
    match s {
        "T" | "tcp" => Some(6),
        "U" | "udp" => Some(17),
        "I" | "icmp" => Some(1),
        _ => parse_u32(s).filter(|&v| v < 256).map(|v| v as u8),
    }
}

impl FromIPSummaryDump {
    fn landmark(&self) -> String {
        if self.binary {
            format!("{}:record {}", self.filename, self.lineno)
        } else {
            format!("{}:{}", self.filename, self.lineno)
        }
    }

    /// Reads one binary record: `Ok(bytes, textual)`; `None` at end of
    /// file or on error (after which reading stops).
    fn next_record(&mut self, cx: &Ctx) -> Option<(Vec<u8>, bool)> {
        let r = self.reader.as_mut()?;
        let mut hdr = [0u8; 4];
        if r.read_exact(&mut hdr).is_err() {
            self.reader = None;
            return None;
        }
        let word = u32::from_be_bytes(hdr);
        let textual = word & 0x8000_0000 != 0;
        let len = (word & 0x7FFF_FFFF) as usize;
        if len < 4 {
            self.reader = None;
            cx.log(format!("{}: binary record too short", self.landmark()));
            return None;
        }
        let mut body = vec![0u8; len - 4];
        if r.read_exact(&mut body).is_err() {
            self.reader = None;
            return None;
        }
        if textual {
            while body.last() == Some(&0) {
                body.pop();
            }
        }
        self.lineno += 1;
        Some((body, textual))
    }

    /// Handles a `!data` line or DEFAULT_FIELDS; returns warnings.
    fn bang_data(&mut self, line: &str) -> Vec<String> {
        let mut warnings = Vec::new();
        self.fields.clear();
        for (i, w) in rclick_core::confparse::split_space(line).iter().enumerate() {
            let word = rclick_core::confparse::unquote(w);
            if i == 0 && (word == "!data" || word == "!contents") {
                continue;
            }
            let f = match Field::find(&word) {
                None => {
                    warnings.push(format!("warning: unknown content type '{word}'"));
                    Field::None
                }
                Some(f) if f.read_order().is_none() => {
                    warnings.push(format!("warning: content type '{word}' ignored on input"));
                    Field::None
                }
                Some(f) => f,
            };
            self.fields.push(f);
        }
        if self.fields.is_empty() {
            warnings.push("no contents specified".into());
        }
        let mut order: Vec<usize> = (0..self.fields.len()).collect();
        let fields = &self.fields;
        order.sort_by_key(|&i| (fields[i].read_order().unwrap_or(100), i));
        self.order = order;
        warnings
    }

    fn bang_proto(&mut self, words: &[String], what: &str) -> Option<String> {
        if words.len() != 2 {
            return Some(format!("bad {what}"));
        }
        match parse_proto(&words[1]) {
            Some(p) => {
                self.proto = p;
                None
            }
            None => Some(format!("bad protocol in {what}")),
        }
    }

    fn bang_flowid(&mut self, line: &str) -> Vec<String> {
        let words = rclick_core::confparse::split_space(line);
        let addr = |s: &str| {
            if s == "-" {
                Some(std::net::Ipv4Addr::UNSPECIFIED)
            } else {
                rclick_core::args::parse_ip_addr(s).ok()
            }
        };
        let port = |s: &str| {
            if s == "-" {
                Some(0)
            } else {
                parse_u32(s).filter(|&v| v <= 65535)
            }
        };
        if words.len() < 5 {
            self.flowid = None;
            return vec!["bad !flowid specification".into()];
        }
        match (
            addr(&words[1]),
            port(&words[2]),
            addr(&words[3]),
            port(&words[4]),
        ) {
            (Some(src), Some(sport), Some(dst), Some(dport)) => {
                let mut w = Vec::new();
                if words.len() >= 6 {
                    let pw = vec![String::from("!"), words[5].clone()];
                    if let Some(e) = self.bang_proto(&pw, "!flowid") {
                        w.push(e);
                    }
                }
                self.flowid = Some(FlowId {
                    src,
                    sport: sport as u16,
                    dst,
                    dport: dport as u16,
                });
                w
            }
            _ => {
                self.flowid = None;
                vec!["bad !flowid specification".into()]
            }
        }
    }

    fn next_line(&mut self) -> Option<String> {
        if let Some(l) = self.peeked.take() {
            self.lineno += 1;
            return Some(l);
        }
        let r = self.reader.as_mut()?;
        let mut buf = Vec::new();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => {
                self.reader = None;
                None
            }
            Ok(_) => {
                while matches!(buf.last(), Some(b'\n' | b'\r')) {
                    buf.pop();
                }
                self.lineno += 1;
                Some(String::from_utf8_lossy(&buf).into_owned())
            }
        }
    }

    fn at_eof(&self) -> bool {
        self.reader.is_none() && self.peeked.is_none() && self.work.is_none()
    }

    /// Reads the next packet; `None` at end of file or on a bad line
    /// (check [`at_eof`](Self::at_eof)).
    fn read_packet(&mut self, cx: &Ctx) -> Option<Packet> {
        let mut bin_record: Option<Vec<u8>> = None;
        let line = loop {
            let line = if self.binary {
                let (body, textual) = self.next_record(cx)?;
                if !textual || body.first().is_some_and(|&c| c != b'!' && c != b'#') {
                    bin_record = Some(body);
                    break String::new();
                }
                String::from_utf8_lossy(&body).into_owned()
            } else {
                self.next_line()?
            };
            let b = line.as_bytes();
            if b.is_empty() || b[0] == b'#' {
                continue;
            }
            if b[0] != b'!' {
                break line;
            }
            let words = rclick_core::confparse::split_space(&line);
            let first = words.first().map(String::as_str).unwrap_or("");
            let msgs: Vec<String> = match first {
                "!data" | "!contents" if words.len() > 1 || b.len() > first.len() => {
                    self.bang_data(&line)
                }
                "!proto" => self.bang_proto(&words, "!proto").into_iter().collect(),
                "!flowid" => self.bang_flowid(&line),
                "!aggregate" => {
                    match words
                        .get(1)
                        .and_then(|w| parse_u32(w))
                        .filter(|_| words.len() == 2)
                    {
                        Some(a) => {
                            self.aggregate = Some(a);
                            vec![]
                        }
                        None => {
                            self.aggregate = None;
                            vec!["bad !aggregate specification".into()]
                        }
                    }
                }
                "!binary" => {
                    let bad = words.len() != 1;
                    self.binary = true;
                    self.lineno = 1;
                    if bad {
                        vec!["bad !binary specification".into()]
                    } else {
                        vec![]
                    }
                }
                _ => vec![],
            };
            for m in msgs {
                cx.log(format!("{}: {m}", self.landmark()));
            }
        };

        if let Some(body) = bin_record {
            return self.binary_packet(&body, cx);
        }

        // split the line into fields
        let b = line.as_bytes();
        let mut args: Vec<&str> = Vec::with_capacity(self.fields.len());
        let mut pos = 0usize;
        while pos < b.len() && b[pos].is_ascii_whitespace() {
            pos += 1;
        }
        while args.len() < self.fields.len() {
            let start = pos;
            while pos < b.len() && !b[pos].is_ascii_whitespace() {
                if b[pos] == b'"' {
                    pos += 1;
                    while pos < b.len() && b[pos] != b'"' {
                        if b[pos] == b'\\' {
                            pos += 1;
                        }
                        pos += 1;
                    }
                    pos = (pos + 1).min(b.len());
                } else {
                    pos += 1;
                }
            }
            args.push(line.get(start..pos).unwrap_or(""));
            while pos < b.len() && b[pos].is_ascii_whitespace() {
                pos += 1;
            }
        }

        let flowid = self.flowid;
        let mut d = Odesc::new(self.proto, flowid.as_ref(), self.minor_version);
        let mut nfields = 0;
        for &i in &self.order {
            let f = self.fields[i];
            let a = args[i];
            if a.is_empty() || a == "-" || f == Field::None {
                continue;
            }
            if let Some(v) = d.parse(f, a) {
                d.inject(f, v);
                nfields += 1;
            }
        }
        let quiet = line.trim().is_empty();
        self.finish_record(d, nfields, quiet, cx)
    }

    /// Builds a packet from a binary record.
    fn binary_packet(&mut self, body: &[u8], cx: &Ctx) -> Option<Packet> {
        let args = binary_args(&self.fields, body);
        let flowid = self.flowid;
        let mut d = Odesc::new(self.proto, flowid.as_ref(), self.minor_version);
        let mut nfields = 0;
        for &i in &self.order {
            let f = self.fields[i];
            let Some(at) = args[i] else { continue };
            if f == Field::None {
                continue;
            }
            if let Some(v) = decode_binary(f, body, at) {
                d.inject(f, v);
            }
            nfields += 1;
        }
        self.finish_record(d, nfields, false, cx)
    }

    /// The packet of a record that gave `nfields` fields; with none,
    /// nothing, and a complaint the first time (unless `quiet`: a blank
    /// line).
    fn finish_record(
        &mut self,
        mut d: Odesc,
        nfields: usize,
        quiet: bool,
        cx: &Ctx,
    ) -> Option<Packet> {
        if nfields == 0 {
            if !self.format_complaint && !quiet {
                let msg = if self.fields.is_empty() {
                    "no '!data' provided"
                } else {
                    "packet parse error"
                };
                cx.log(format!("{}: {msg}", self.landmark()));
                self.format_complaint = true;
            }
            return None;
        }
        if let Some(a) = self.aggregate {
            if !self.fields.contains(&Field::Aggregate) {
                d.aggregate = Some(a);
            }
        }
        Some(d.finish(self.checksum))
    }

    fn sample_ok(&mut self) -> bool {
        if self.sampling_prob >= 1.0 {
            return true;
        }
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        ((self.rng >> 11) as f64 / (1u64 << 53) as f64) < self.sampling_prob
    }

    /// Checks TIMING: returns false (keeping `p`) if it is not yet time.
    fn check_timing(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let now = cx.now();
        if !self.have_timing {
            self.timing_offset = now - p.timestamp_anno();
            self.have_timing = true;
        }
        let t = p.timestamp_anno() + self.timing_offset;
        if now < t {
            if let Some(tm) = self.timer {
                cx.schedule_timer_at(tm, t);
            }
            if self.src.pull_mode {
                self.src.notifier.set_active(false);
            }
            self.work = Some(p);
            return None;
        }
        Some(p)
    }

    /// The next packet to emit; `Err(())` when the caller must stop for now
    /// (end of file or waiting for time).
    fn next_packet(&mut self, cx: &mut Ctx) -> Result<Packet, bool> {
        loop {
            let p = match self.work.take() {
                Some(p) => Some(p),
                None => self.read_packet(cx),
            };
            let Some(p) = p else {
                if self.at_eof() {
                    return Err(true);
                }
                continue;
            };
            let p = if self.timing {
                match self.check_timing(p, cx) {
                    Some(p) => p,
                    None => return Err(false),
                }
            } else {
                p
            };
            if self.sample_ok() {
                return Ok(p);
            }
        }
    }

    fn open(&mut self) -> Result<(), String> {
        let reader: Box<dyn BufRead + Send> = if let Some(d) = &self.data {
            Box::new(Cursor::new(d.clone().into_bytes()))
        } else if self.filename == "-" {
            let mut v = Vec::new();
            std::io::stdin()
                .read_to_end(&mut v)
                .map_err(|e| format!("<stdin>: {e}"))?;
            Box::new(Cursor::new(v))
        } else {
            match File::open(&self.filename) {
                Ok(f) => Box::new(BufReader::new(f)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && self.allow_nonexistent => {
                    self.reader = None;
                    return Ok(());
                }
                Err(e) => {
                    let msg = match e.kind() {
                        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
                        _ => e.to_string(),
                    };
                    return Err(format!("{}: {msg}", self.filename));
                }
            }
        };
        self.reader = Some(reader);
        self.lineno = 0;
        self.binary = false;
        self.minor_version = MINOR_VERSION;
        if let Some(first) = self.next_line() {
            if let Some(rest) = first.strip_prefix("!IPSummaryDump") {
                let mut it = rest.trim().split('.');
                let major = it.next().and_then(|x| x.trim().parse::<i32>().ok());
                let minor = it.next().and_then(|x| x.trim().parse::<i32>().ok());
                if let (Some(ma), Some(mi)) = (major, minor) {
                    self.minor_version = if ma != MAJOR_VERSION || mi > MINOR_VERSION {
                        MINOR_VERSION
                    } else {
                        mi
                    };
                }
            } else {
                self.peeked = Some(first);
                self.lineno -= 1;
            }
        } else if self.data.is_none() {
            return Err(format!("{}: empty file", self.filename));
        }
        Ok(())
    }
}

impl Element for FromIPSummaryDump {
    fn class_name(&self) -> &'static str {
        "FromIPSummaryDump"
    }
    fn port_count(&self) -> &'static str {
        "0/1"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut filename = String::new();
        let mut stop = false;
        let mut active = true;
        let mut zero = true;
        let mut timing = false;
        let mut checksum = false;
        let mut sample = 1.0f64;
        let mut proto: u8 = 6;
        let mut multipacket = false;
        let mut c1 = AnyArg(String::new());
        let mut c2 = AnyArg(String::new());
        let mut c3 = AnyArg(String::new());
        let mut c4 = AnyArg(String::new());
        let mut f1 = AnyArg(String::new());
        let mut f2 = AnyArg(String::new());
        let mut allow_nonexistent = false;
        let mut data: Option<String> = None;
        let mut data_s = String::new();
        let mut burst: u32 = 1;
        let mut data_given = false;
        Args::new(conf)
            .read_p("FILENAME", &mut filename)
            .read("STOP", &mut stop)
            .read("ACTIVE", &mut active)
            .read("ZERO", &mut zero)
            .read("TIMING", &mut timing)
            .read("CHECKSUM", &mut checksum)
            .read("SAMPLE", &mut sample)
            .read("PROTO", &mut proto)
            .read("MULTIPACKET", &mut multipacket)
            .read("DEFAULT_CONTENTS", &mut c1)
            .read("DEFAULT_FIELDS", &mut c2)
            .read("CONTENTS", &mut c3)
            .read("FIELDS", &mut c4)
            .read("DEFAULT_FLOWID", &mut f1)
            .read("FLOWID", &mut f2)
            .read("ALLOW_NONEXISTENT", &mut allow_nonexistent)
            .read("DATA", &mut data_s)
            .read_status(&mut data_given)
            .read("BURST", &mut burst)
            .complete()
            .map_err(|e| e.to_string())?;
        if data_given {
            data = Some(data_s);
        }
        if data.is_some() && !filename.is_empty() {
            return Err("FILENAME and DATA conflict".into());
        }
        if data.is_none() && filename.is_empty() {
            return Err("FILENAME: required argument missing".into());
        }
        if burst == 0 {
            return Err("BURST must be at least 1".into());
        }
        let _ = (zero, multipacket);
        let contents = [c4, c3, c2, c1]
            .into_iter()
            .find(|c| !c.0.is_empty())
            .unwrap_or_default();
        let flowid = [f2, f1]
            .into_iter()
            .find(|c| !c.0.is_empty())
            .unwrap_or_default();
        self.filename = if data.is_some() {
            "<data>".into()
        } else {
            filename
        };
        self.data = data;
        self.stop = stop;
        self.src.active = active;
        self.timing = timing;
        self.checksum = checksum;
        self.sampling_prob = sample.clamp(0.0, 1.0);
        self.default_proto = proto;
        self.proto = proto;
        self.allow_nonexistent = allow_nonexistent;
        self.burst = burst as usize;
        self.default_fields = (!contents.0.is_empty()).then(|| contents.0.clone());
        self.default_flowid = (!flowid.0.is_empty()).then(|| flowid.0.clone());
        self.fields.clear();
        self.order.clear();
        self.flowid = None;
        if let Some(c) = self.default_fields.clone() {
            self.bang_data(&c);
        }
        if let Some(f) = self.default_flowid.clone() {
            let w = self.bang_flowid(&format!("!flowid {f}"));
            if !w.is_empty() {
                return Err(w.join("\n"));
            }
        }
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        self.timer = Some(cx.new_timer());
        self.src.initialize(cx);
        self.format_complaint = false;
        self.open()
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.src.active {
            return false;
        }
        let mut batch = PacketBatch::with_capacity(self.burst);
        let mut done = false;
        while batch.len() < self.burst {
            match self.next_packet(cx) {
                Ok(p) => batch.push(p),
                Err(eof) => {
                    done = true;
                    if eof && self.stop {
                        cx.request_stop();
                    }
                    break;
                }
            }
        }
        let worked = !batch.is_empty();
        if worked {
            cx.push(0, batch);
        }
        if !done {
            cx.reschedule();
        }
        worked
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = PacketBatch::new();
        if !self.src.active {
            return batch;
        }
        let max = max.max(1);
        while batch.len() < max {
            match self.next_packet(cx) {
                Ok(p) => batch.push(p),
                Err(eof) => {
                    if eof {
                        if self.stop {
                            cx.request_stop();
                        }
                        self.src.notifier.set_active(false);
                    }
                    return batch;
                }
            }
        }
        batch
    }

    fn run_timer(&mut self, _timer: TimerId, cx: &mut Ctx) {
        if self.src.active {
            if self.src.pull_mode {
                let n = self.src.notifier.clone();
                cx.wake_notifier(&n);
            } else if let Some(t) = self.src.task {
                cx.schedule_task(t);
            }
        }
    }

    fn empty_notifier(&self) -> Option<Notifier> {
        Some(self.src.notifier.clone())
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        use FileSourceH::*;
        // the file sources' set but for `filesize` and `filepos`
        FileSourceH::defs_of(&[SamplingProb, Active, Encap, Stop, Filename])
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        let h = FileSourceH::from_id(id).ok_or("no such handler")?;
        if let Some(v) = self.src.read(h) {
            return Ok(v);
        }
        Ok(match h {
            FileSourceH::SamplingProb => format!("{}", self.sampling_prob),
            FileSourceH::Encap => "IP".into(),
            FileSourceH::Filename => self.filename.clone(),
            _ => return Err("no such handler".into()),
        })
    }

    fn write_handler(&mut self, id: u32, value: &str, cx: &mut Ctx) -> Result<(), String> {
        let h = FileSourceH::from_id(id).ok_or("no such handler")?;
        self.src.write(h, value, "type mismatch", cx)
    }
}

#[cfg(test)]
mod tests {
    use rclick_core::testing;

    fn registry() -> rclick_core::Registry {
        let mut r = rclick_core::Registry::new();
        crate::register(&mut r);
        r
    }

    fn tmp(name: &str, text: &str) -> String {
        let dir =
            std::env::temp_dir().join(format!("rclick-analysis-{}-{name}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let f = dir.join("in");
        std::fs::write(&f, text).unwrap();
        f.to_string_lossy().into_owned()
    }

    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn run_dump(input: &str, fields: &str, extra: &str) -> String {
        let f = tmp(
            &format!(
                "{}",
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            input,
        );
        let out = format!("{f}.out");
        let conf = format!(
            "FromIPSummaryDump({f}, STOP true{extra}) -> ToIPSummaryDump({out}, FIELDS {fields});"
        );
        testing::run(&conf, &registry()).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        text.lines()
            .filter(|l| !l.starts_with('!'))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn round_trip_basic() {
        let got = run_dump(
            "!data src sport dst dport proto ip_id ip_fragoff ip_len\n18.26.4.44 30 10.0.0.4 40 U 1 0 100\n18.26.4.44 41 18.26.4.44 30 U 5 0+ 24\n",
            "src sport dst dport proto ip_id ip_fragoff ip_len udp_len",
            "",
        );
        assert_eq!(
            got,
            "18.26.4.44 30 10.0.0.4 40 U 1 0 100 80\n18.26.4.44 41 18.26.4.44 30 U 5 0+ 24 -"
        );
    }

    #[test]
    fn tcp_fields() {
        let got = run_dump(
            "!data sport dport tcp_seq tcp_ack tcp_flags tcp_opt payload\n1 2 3 4 SA wscale10 \"hi\"\n",
            "sport dport tcp_seq tcp_ack tcp_flags tcp_opt payload payload_len ip_len",
            ", CHECKSUM true",
        );
        assert_eq!(got, "1 2 3 4 SA wscale10 \"hi\" 2 46");
    }

    #[test]
    fn icmp_and_checksum() {
        let got = run_dump(
            "!data src dst icmp_type\n!proto I\n18.26.4.44 10.0.0.4 echo\n",
            "src dst icmp_type_name ip_sum",
            ", CHECKSUM true",
        );
        assert!(got.starts_with("18.26.4.44 10.0.0.4 echo "), "{got}");
    }

    #[test]
    fn timestamps_and_missing() {
        let got = run_dump(
            "!data timestamp aggregate\n0.1 3\n5.5 -\n",
            "timestamp aggregate sport",
            "",
        );
        assert_eq!(got, "0.100000 3 -\n5.500000 0 -");
    }

    #[test]
    fn bad_config() {
        let e = testing::build(
            "FromIPSummaryDump(STOP true) -> Discard;",
            &registry(),
            true,
        );
        assert!(e.is_err());
        let e = testing::build(
            "FromIPSummaryDump(/nonexistent/x) -> Discard;",
            &registry(),
            true,
        );
        assert!(e.is_err());
    }

    /// Text dump -> binary dump -> text dump; returns (binary bytes, text).
    fn binary_round_trip(input: &str, fields: &str) -> (Vec<u8>, String) {
        let f = tmp(
            &format!(
                "bin{}",
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            input,
        );
        let bin = format!("{f}.bin");
        let out = format!("{f}.out");
        let conf = format!(
            "FromIPSummaryDump({f}, STOP true) -> ToIPSummaryDump({bin}, BINARY true, FIELDS {fields});"
        );
        testing::run(&conf, &registry()).unwrap();
        let conf = format!(
            "FromIPSummaryDump({bin}, STOP true) -> ToIPSummaryDump({out}, FIELDS {fields});"
        );
        testing::run(&conf, &registry()).unwrap();
        let bytes = std::fs::read(&bin).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let text = text
            .lines()
            .filter(|l| !l.starts_with('!'))
            .collect::<Vec<_>>()
            .join("\n");
        (bytes, text)
    }

    #[test]
    fn binary_round_trip_ip_opt() {
        let input = "!data src sport dst dport proto ip_opt\n\
18.26.4.44 30 10.0.0.4 40 T .\n\
18.26.4.44 20 10.0.0.8 80 T ssrr{128.4.45.60,128.4.49.61^1.1.1.1,2.2.2.2}\n\
18.26.4.44 10 10.0.0.8 80 T rr{2.3.4.5}+3\n\
18.26.4.44 12 10.0.0.1 80 T ts.ip{1.0.0.1=!8320,1.0.0.2=8321^}++5\n\
18.26.4.44 15 10.0.0.1 80 T ts{1,10000,!45}+2;rr{}+1\n";
        let (bytes, text) = binary_round_trip(input, "src sport dst dport proto ip_opt");
        let want: Vec<&str> = input.lines().skip(1).collect();
        assert_eq!(text, want.join("\n"));
        // header, then the first record: length, fields, option bytes
        let hdr = b"!IPSummaryDump 1.3\n!data ip_src sport ip_dst dport ip_proto ip_opt\n!binary\n";
        assert!(
            bytes.starts_with(hdr),
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
        let rec = &bytes[hdr.len()..];
        let len = u32::from_be_bytes([rec[0], rec[1], rec[2], rec[3]]) as usize;
        assert_eq!(len, 4 + 4 + 2 + 4 + 2 + 1 + 2);
        assert_eq!(
            &rec[4..len],
            &[18, 26, 4, 44, 0, 30, 10, 0, 0, 4, 0, 40, 6, 0, 0]
        );
    }

    #[test]
    fn binary_round_trip_numbers() {
        // tcp_opt last: Click follows its options with a second, filtered copy
        let input = "!data timestamp src ip_id ip_fragoff ip_ttl tcp_seq tcp_flags tcp_window ip_len aggregate tcp_opt\n\
1.500000 1.2.3.4 77 0+ 64 4000000000 SA 512 60 9 mss1460;sackok\n\
3.000001 5.6.7.8 0 0 1 1 . 0 40 0 .\n";
        let fields =
            "timestamp src ip_id ip_fragoff ip_ttl tcp_seq tcp_flags tcp_window ip_len aggregate tcp_opt";
        let (_, text) = binary_round_trip(input, fields);
        let want: Vec<&str> = input.lines().skip(1).collect();
        assert_eq!(text, want.join("\n"));

        let input = "!data ntimestamp first_timestamp count\n2.000000123 1.25 1\n";
        let (bytes, text) = binary_round_trip(input, "ntimestamp first_timestamp count");
        assert_eq!(text, "2.000000123 1.250000 1");
        // the binary header keeps the name ntimestamp; nsec comes first
        let hdr = b"!IPSummaryDump 1.3\n!data ntimestamp first_timestamp count\n!binary\n";
        assert!(bytes.starts_with(hdr));
        assert_eq!(
            &bytes[hdr.len()..],
            &[0, 0, 0, 24, 0, 0, 0, 123, 0, 0, 0, 2, 0, 0, 0, 1, 0, 3, 0xD0, 0x90, 0, 0, 0, 1]
        );
    }

    #[test]
    fn binary_payload_refused_and_short_record() {
        let e = testing::build(
            "InfiniteSource -> ToIPSummaryDump(/tmp/x, BINARY true, FIELDS payload);",
            &registry(),
            true,
        );
        assert!(e.is_err());
        // a truncated record ends the dump without panicking
        let f = tmp("binshort", "");
        let mut data = b"!IPSummaryDump 1.3\n!data ip_src\n!binary\n".to_vec();
        data.extend_from_slice(&[0, 0, 0, 8, 1, 2, 3, 4, 0, 0, 0, 2]);
        std::fs::write(&f, &data).unwrap();
        let out = format!("{f}.out");
        let conf =
            format!("FromIPSummaryDump({f}, STOP true) -> ToIPSummaryDump({out}, FIELDS src);");
        testing::run(&conf, &registry()).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.ends_with("!data ip_src\n1.2.3.4\n"), "{text}");
    }
}
