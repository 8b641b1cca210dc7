//! # ToIPSummaryDump
//!
//! ## Synopsis
//!
//! `ToIPSummaryDump(FILENAME [, keywords FIELDS, VERBOSE, BANNER, HEADER, MULTIPACKET, BAD_PACKETS, CAREFUL_TRUNC, EXTRA_LENGTH, BINARY])`
//!
//! ## Category
//!
//! analysis — writes packet summaries to a file in Click's IP summary dump
//! text format.
//!
//! ## Ports and processing
//!
//! One input, agnostic; zero or one push output. Packets pass through to
//! the output unchanged, if it exists. A pull input is pulled by a task.
//!
//! ## Description
//!
//! Writes one line per packet to FILENAME (`-` means standard output). Each
//! line holds the fields named by FIELDS, separated by spaces; a field the
//! packet lacks prints as `-`. The file starts with `!IPSummaryDump 1.3`,
//! an optional `!creator` line, and a `!data` line naming the fields.
//!
//! Fields: `timestamp` (`ts`), `ntimestamp`, `ts_sec` (`sec`), `ts_usec`
//! (`usec`), `ts_usec1`, `first_timestamp`, `count`, `link`/`paint`,
//! `direction`, `aggregate`, `wire_len`, `ip_src` (`src`), `ip_dst`
//! (`dst`), `ip_tos`, `ip_dscp`, `ip_ecn`, `ip_ttl`, `ip_frag`,
//! `ip_fragoff`, `ip_id`, `ip_sum`, `ip_proto` (`proto`), `ip_hl`, `ip_len`
//! (`len`), `ip_capture_len`, `ip_opt`, `sport`, `dport`, `tcp_seq`,
//! `tcp_ack`, `tcp_off`, `tcp_flags`, `tcp_window`, `tcp_urp`, `tcp_opt`,
//! `tcp_ntopt`, `tcp_sack`, `udp_len`, `icmp_type`, `icmp_code`,
//! `icmp_type_name`, `icmp_code_name`, `icmp_flowid`, `icmp_seq`,
//! `icmp_nextmtu`, `payload_len`, `payload`, `payload_md5`,
//! `payload_md5_hex`.
//!
//! Keywords:
//!
//! * `FIELDS` (text, default `timestamp ip_src`; `CONTENTS` is a synonym):
//!   the fields to write.
//! * `VERBOSE` (boolean, default false): also write `!host` and `!runtime`
//!   lines.
//! * `BANNER` (string): written as a `!creator` line.
//! * `HEADER` (boolean, default true): write the header lines.
//! * `MULTIPACKET` (boolean, default false): accepted for compatibility.
//! * `BAD_PACKETS` (boolean, default false): write a `!bad` line explaining
//!   each malformed packet.
//! * `CAREFUL_TRUNC` (boolean, default true): report truncated IP packets
//!   as bad.
//! * `EXTRA_LENGTH` (boolean, default true): count the extra length
//!   annotation in lengths.
//! * `BINARY` (boolean, default false): write a binary dump. After the
//!   header (which ends with a `!binary` line), each packet is a record: a
//!   4-byte big-endian length (counting itself), then each field in its
//!   binary encoding (numbers big-endian in 1, 2, 4 or 8 bytes, addresses
//!   in 4, timestamps as seconds and microseconds, options with a length
//!   byte). `!bad` lines become records whose length has the top bit set.
//!   The `payload` field is not allowed in binary dumps.
//!
//! ## Annotations
//!
//! Reads timestamp, first timestamp, paint, aggregate and extra length
//! annotations.
//!
//! ## Handlers
//!
//! * `flush` (write): flushes the file.
//! * `count` (read): packets written.
//!
//! ## Example
//!
//! `FromIPSummaryDump(F) -> ToIPSummaryDump(-, FIELDS src dst proto)`
//!
//! ## See also
//!
//! FromIPSummaryDump, ToDump

use std::fs::File;
use std::io::Write;

use rclick_core::args::{AnyArg, Args};
use rclick_core::{
    ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, PacketBatch, TaskId,
};
use rclick_packet::Packet;

use super::ipsumdump_fields::{prepare, BinKind, Field, MAJOR_VERSION, MINOR_VERSION};

/// The ToIPSummaryDump element.
pub struct ToIPSummaryDump {
    filename: String,
    fields: Vec<Field>,
    needs_ip: bool,
    verbose: bool,
    banner: String,
    header: bool,
    bad_packets: bool,
    careful_trunc: bool,
    extra_length: bool,
    file: Option<File>,
    pending: String,
    binary: bool,
    bin_pending: Vec<u8>,
    scratch: String,
    task: Option<TaskId>,
    signal: NotifierSignal,
    output_count: u64,
}

impl Default for ToIPSummaryDump {
    fn default() -> Self {
        ToIPSummaryDump {
            filename: String::new(),
            fields: Vec::new(),
            needs_ip: false,
            verbose: false,
            banner: String::new(),
            header: true,
            bad_packets: false,
            careful_trunc: true,
            extra_length: true,
            file: None,
            pending: String::new(),
            binary: false,
            bin_pending: Vec::new(),
            scratch: String::new(),
            task: None,
            signal: NotifierSignal::Busy,
            output_count: 0,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Flush = write("flush"),
        Count = read("count"),
    }
}

impl ToIPSummaryDump {
    fn summarize(&mut self, p: &mut Packet) {
        let mut d = prepare(
            p,
            self.careful_trunc,
            self.extra_length,
            self.bad_packets,
            self.needs_ip,
        );
        if self.binary {
            let start = self.bin_pending.len();
            self.bin_pending.extend_from_slice(&[0; 4]);
            for &f in &self.fields {
                d.write_binary(f, &mut self.bin_pending, &mut self.scratch);
            }
            let bad_after = d.bad.take();
            let len = (self.bin_pending.len() - start) as u32;
            self.bin_pending[start..start + 4].copy_from_slice(&len.to_be_bytes());
            if let Some(b) = bad_after.filter(|b| !b.is_empty()) {
                // the explanation goes before the record, as in text dumps
                let marker = (b.len() as u32) | 0x8000_0000;
                let mut pre = marker.to_be_bytes().to_vec();
                pre.extend_from_slice(b.as_bytes());
                self.bin_pending.splice(start..start, pre);
            }
            self.output_count += 1;
            return;
        }
        let mut line = String::with_capacity(64);
        for (i, &f) in self.fields.iter().enumerate() {
            if i > 0 {
                line.push(' ');
            }
            if !d.write(f, &mut line) {
                line.push('-');
            }
        }
        line.push('\n');
        if let Some(b) = d.bad.take() {
            self.pending.push_str(&b);
        }
        self.pending.push_str(&line);
        self.output_count += 1;
    }

    fn flush(&mut self, cx: &Ctx) {
        if !self.bin_pending.is_empty() {
            let mut bytes = std::mem::take(&mut self.pending).into_bytes();
            bytes.append(&mut self.bin_pending);
            match &mut self.file {
                Some(f) => {
                    if let Err(e) = f.write_all(&bytes) {
                        cx.log(format!("{}: {}: {e}", cx.name(), self.filename));
                    }
                }
                None => cx.print_stdout(&bytes),
            }
            bytes.clear();
            self.bin_pending = bytes;
            return;
        }
        if self.pending.is_empty() {
            return;
        }
        match &mut self.file {
            Some(f) => {
                if let Err(e) = f.write_all(self.pending.as_bytes()) {
                    cx.log(format!("{}: {}: {e}", cx.name(), self.filename));
                }
            }
            None => cx.print_stdout(self.pending.as_bytes()),
        }
        self.pending.clear();
    }

    fn header_text(&self) -> String {
        let mut sa = format!("!IPSummaryDump {MAJOR_VERSION}.{MINOR_VERSION}\n");
        if !self.banner.is_empty() {
            sa.push_str("!creator ");
            sa.push_str(&rclick_core::confparse::quote(&self.banner));
            sa.push('\n');
        }
        if self.verbose {
            if let Ok(h) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
                sa.push_str("!host ");
                sa.push_str(h.trim());
                sa.push('\n');
            }
            sa.push_str(&format!(
                "!runtime {}\n",
                rclick_packet::Timestamp::now_realtime()
            ));
        }
        sa.push_str("!data ");
        let names: Vec<&str> = self
            .fields
            .iter()
            .map(|f| {
                if *f == Field::NTimestamp && !self.binary {
                    "timestamp"
                } else {
                    f.name()
                }
            })
            .collect();
        sa.push_str(&names.join(" "));
        sa.push('\n');
        if self.binary {
            sa.push_str("!binary\n");
        }
        sa
    }
}

impl Element for ToIPSummaryDump {
    fn class_name(&self) -> &'static str {
        "ToIPSummaryDump"
    }
    fn port_count(&self) -> &'static str {
        "1/0-1"
    }
    fn processing(&self) -> &'static str {
        "a/h"
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut filename = String::new();
        let mut s1 = AnyArg(String::new());
        let mut s2 = AnyArg(String::new());
        let mut s3 = AnyArg(String::new());
        let mut verbose = false;
        let mut header = true;
        let mut banner = String::new();
        let mut multipacket = false;
        let mut bad_packets = false;
        let mut careful_trunc = true;
        let mut extra_length = true;
        let mut binary = false;
        Args::new(conf)
            .read_mp("FILENAME", &mut filename)
            .read("FIELDS", &mut s1)
            .read("CONTENTS", &mut s2)
            .read("DATA", &mut s3)
            .read("VERBOSE", &mut verbose)
            .read("HEADER", &mut header)
            .read("BANNER", &mut banner)
            .read("MULTIPACKET", &mut multipacket)
            .read("BAD_PACKETS", &mut bad_packets)
            .read("CAREFUL_TRUNC", &mut careful_trunc)
            .read("EXTRA_LENGTH", &mut extra_length)
            .read("BINARY", &mut binary)
            .complete()
            .map_err(|e| e.to_string())?;
        let save = [s1, s2, s3]
            .into_iter()
            .find(|c| !c.0.is_empty())
            .unwrap_or_else(|| AnyArg("timestamp ip_src".into()));
        let mut errors = Vec::new();
        let mut fields = Vec::new();
        for w in rclick_core::confparse::split_space(&save.0) {
            let word = rclick_core::confparse::unquote(&w);
            match Field::find(&word) {
                Some(f) => fields.push(f),
                None => errors.push(format!("unknown content type '{word}'")),
            }
        }
        if fields.is_empty() {
            errors.push("no contents specified".to_string());
        }
        if binary {
            for f in &fields {
                if f.binary_kind() == BinKind::NotAllowed {
                    errors.push(format!("'{}' field not allowed in binary output", f.name()));
                }
            }
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        self.needs_ip = fields.iter().any(|f| f.needs_ip());
        self.filename = filename;
        self.fields = fields;
        self.verbose = verbose;
        self.binary = binary;
        self.header = header;
        self.banner = banner;
        self.bad_packets = bad_packets;
        self.careful_trunc = careful_trunc;
        self.extra_length = extra_length;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if self.filename != "-" {
            let f = File::create(&self.filename).map_err(|e| format!("{}: {e}", self.filename))?;
            self.file = Some(f);
        }
        if !cx.input_is_push(0) {
            let t = cx.new_task(true);
            self.task = Some(t);
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        self.output_count = 0;
        if self.header {
            let h = self.header_text();
            match &mut self.file {
                Some(f) => f
                    .write_all(h.as_bytes())
                    .map_err(|e| format!("{}: {e}", self.filename))?,
                None => self.pending = h,
            }
        }
        Ok(())
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        self.flush(cx);
        if let Some(f) = &mut self.file {
            let _ = f.flush();
        }
    }

    fn push(&mut self, _port: usize, mut batch: PacketBatch, cx: &mut Ctx) {
        for p in batch.iter_mut() {
            self.summarize(p);
        }
        self.flush(cx);
        cx.checked_push(0, batch);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let mut batch = cx.pull(0, max);
        for p in batch.iter_mut() {
            self.summarize(p);
        }
        self.flush(cx);
        batch
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        let mut batch = cx.pull(0, rclick_packet::pool::BATCH_CAPACITY);
        if batch.is_empty() {
            self.flush(cx);
            if self.signal.active() {
                cx.reschedule();
            }
            return false;
        }
        for p in batch.iter_mut() {
            self.summarize(p);
        }
        self.flush(cx);
        cx.checked_push(0, batch);
        cx.reschedule();
        true
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Count) => Ok(self.output_count.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Flush) => {
                self.flush(cx);
                if let Some(f) = &mut self.file {
                    let _ = f.flush();
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

    /// The header names the fields; each packet is one line; `count`
    /// counts them.
    #[test]
    fn writes_header_and_lines() {
        let f = dir("toipsum").join("in");
        std::fs::write(
            &f,
            "!data ip_src ip_dst ip_ttl\n1.0.0.1 2.0.0.2 9\n3.0.0.3 4.0.0.4 10\n",
        )
        .unwrap();
        let (r, lines) = run_dump(
            "toipsum",
            &format!(
                "FromIPSummaryDump({}, STOP true) -> t :: ToIPSummaryDump(OUT, FIELDS ip_dst ip_src ttl);",
                f.display()
            ),
        );
        assert_eq!(lines, ["2.0.0.2 1.0.0.1 9", "4.0.0.4 3.0.0.3 10"]);
        assert_eq!(testing::read(&r, "t.count"), "2");
        let out = dir("toipsum").join("out");
        let text = std::fs::read_to_string(out).unwrap();
        assert!(text.starts_with("!IPSummaryDump 1.3\n"), "{text}");
        assert!(text.contains("!data ip_dst ip_src ip_ttl\n"), "{text}");
    }

    #[test]
    fn unknown_fields_are_errors() {
        let e = testing::build(
            "Idle -> ToIPSummaryDump(/dev/null, FIELDS ip_src bogus_field);",
            &super::super::test_util::registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("bogus_field"), "{e}");
    }
}
