//! # ToDump
//!
//! `ToDump(FILENAME [, SNAPLEN, ENCAP, KEYWORDS])`
//!
//! **Category:** traces. Writes packets to a tcpdump (pcap) file.
//!
//! **Ports:** one input; zero or one output; agnostic.
//!
//! ## Description
//!
//! Writes incoming packets to FILENAME in `tcpdump -w` format, readable by
//! `tcpdump -r`, Wireshark, or FromDump. FILENAME `-` means standard output.
//! A FILENAME ending in `.gz`, `.bz2` or `.xz` is compressed through `gzip`,
//! `bzip2` or `xz`. The file is written in this machine's byte order.
//!
//! With an output, ToDump passes every packet on after writing it. Used as
//! a pull element without outputs, it schedules a task that pulls packets
//! (up to 32 a run), sleeping while its upstream is empty.
//!
//! Keywords:
//!
//! * `SNAPLEN` (unsigned integer): write at most this many bytes of each
//!   packet. 0 means whole packets. Default 2000.
//! * `ENCAP` (word): the link type recorded in the file header: `ETHER`
//!   (the default), `IP`, `SLL`, `FDDI`, `ATM`, `802_11`, `802_11_RADIO`,
//!   `AIRONET`, `HDLC`, `PPP_HDLC`, `PPP`, `SUNATM`, `PRISM`, `NULL`, or
//!   `#N` for link type N.
//! * `USE_ENCAP_FROM` (space-separated element names): take the link type
//!   from these elements' `encap` handlers (FromDump elements), which must
//!   agree. At most one of ENCAP and USE_ENCAP_FROM may be given.
//! * `EXTRA_LENGTH` (boolean): record packets' extra length annotations in
//!   the wire length. Default true.
//! * `UNBUFFERED` (boolean): write each packet to the file at once instead
//!   of through a buffer. Default false.
//! * `NANO` (boolean): write nanosecond timestamps (magic `a1b23c4d`).
//!   Default true, as the reference Click (built with nanosecond
//!   timestamps) writes; `NANO false` writes microseconds (magic
//!   `a1b2c3d4`), which older readers understand.
//!
//! Packets whose timestamp annotation is zero are stamped with the current
//! time. If writing fails, ToDump prints `ToDump(FILE): reason` and stops
//! writing (packets still pass through).
//!
//! ## Annotations
//!
//! Uses the timestamp and extra length annotations.
//!
//! ## Handlers
//!
//! * `count` (read): packets written.
//! * `reset_counts` (write): sets `count` to 0.
//! * `filename` (read): the file name (`<stdout>` for standard output).
//! * With a pull input and no output, the task handlers `scheduled`,
//!   `tickets`.
//!
//! ## Examples
//!
//! ```text
//! FromDevice(eth0) -> ToDump(capture.pcap, SNAPLEN 0);
//! FromIPSummaryDump(trace.txt, STOP true) -> ToDump(out.pcap, ENCAP IP);
//! ```
//!
//! ## See also
//!
//! FromDump, ToIPSummaryDump, tcpdump(1)

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::{Child, Command, Stdio};

use rclick_core::args::{AnyArg, Args, Word};
use rclick_core::{
    phase, ConfigureCx, Ctx, Element, HandlerDef, InitCx, NotifierSignal, PacketBatch, TaskId,
};
use rclick_packet::Packet;

use super::file_input::strerror;
use super::from_dump::FromDump;
use super::pcap::{self, FileHeader};

/// Packets pulled per task run.
const BURST: usize = 32;

enum Sink {
    File(File),
    Stdout(io::Stdout),
    Pipe(Child),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(s) => s.write(buf),
            Sink::Pipe(c) => match c.stdin.as_mut() {
                Some(i) => i.write(buf),
                None => Err(io::Error::from(io::ErrorKind::BrokenPipe)),
            },
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(s) => s.flush(),
            Sink::Pipe(c) => c.stdin.as_mut().map_or(Ok(()), |i| i.flush()),
        }
    }
}

/// The open output: buffered unless UNBUFFERED.
struct Output {
    w: BufWriter<Sink>,
    unbuffered: bool,
}

impl Drop for Output {
    fn drop(&mut self) {
        let _ = self.w.flush();
        if let Sink::Pipe(c) = self.w.get_mut() {
            drop(c.stdin.take());
            let _ = c.wait();
        }
    }
}

fn compressor(filename: &str) -> Option<&'static str> {
    if filename.ends_with(".gz") {
        Some("gzip")
    } else if filename.ends_with(".bz2") {
        Some("bzip2")
    } else if filename.ends_with(".xz") {
        Some("xz")
    } else {
        None
    }
}

/// The ToDump element.
pub struct ToDump {
    filename: String,
    snaplen: u32,
    linktype: u32,
    use_encap_from: Vec<String>,
    extra_length: bool,
    unbuffered: bool,
    nano: bool,
    out: Option<Output>,
    active: bool,
    count: u64,
    task: Option<TaskId>,
    signal: NotifierSignal,
}

impl Default for ToDump {
    fn default() -> Self {
        ToDump {
            filename: String::new(),
            snaplen: 2000,
            linktype: pcap::dlt::EN10MB,
            use_encap_from: Vec::new(),
            extra_length: true,
            unbuffered: false,
            nano: true,
            out: None,
            active: false,
            count: 0,
            task: None,
            signal: NotifierSignal::Busy,
        }
    }
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Filename = read("filename"),
        Count = read("count"),
        ResetCounts = write("reset_counts"),
    }
}

impl ToDump {
    fn print_name(&self) -> String {
        if self.filename == "-" {
            "<stdout>".to_string()
        } else {
            self.filename.clone()
        }
    }

    fn open(&self) -> Result<Output, String> {
        let name = self.print_name();
        let err = |e: io::Error| format!("{name}: {}", strerror(&e));
        let sink = if self.filename == "-" {
            Sink::Stdout(io::stdout())
        } else if let Some(prog) = compressor(&self.filename) {
            let file = File::create(&self.filename).map_err(err)?;
            let child = Command::new(prog)
                .arg("-c")
                .stdin(Stdio::piped())
                .stdout(Stdio::from(file))
                .spawn()
                .map_err(|e| format!("{} while executing '{prog} -c'", strerror(&e)))?;
            Sink::Pipe(child)
        } else {
            Sink::File(File::create(&self.filename).map_err(err)?)
        };
        let mut out = Output {
            w: BufWriter::with_capacity(64 * 1024, sink),
            unbuffered: self.unbuffered,
        };
        let snaplen = if self.snaplen == 0 {
            u32::MAX
        } else {
            self.snaplen
        };
        let h = FileHeader::emit(self.nano, snaplen, self.linktype);
        let mut r = out.w.write_all(&h);
        if r.is_ok() && self.unbuffered {
            r = out.w.flush();
        }
        r.map_err(|_| format!("{name}: unable to write file header"))?;
        Ok(out)
    }

    fn write_packet(&mut self, p: &Packet, cx: &Ctx) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let mut ts = p.timestamp_anno();
        if ts.is_zero() {
            ts = cx.now();
        }
        let data = p.data();
        let len = data.len() as u64
            + if self.extra_length {
                u64::from(p.extra_length_anno())
            } else {
                0
            };
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        let mut caplen = data.len();
        if self.snaplen != 0 && caplen > self.snaplen as usize {
            caplen = self.snaplen as usize;
        }
        let caplen32 = u32::try_from(caplen).unwrap_or(u32::MAX);
        let caplen = caplen32 as usize;
        let rec = pcap::emit_record(ts, self.nano, caplen32, len);
        let mut r = out.w.write_all(&rec);
        if r.is_ok() {
            r = out.w.write_all(&data[..caplen]);
        }
        if r.is_ok() && out.unbuffered {
            r = out.w.flush();
        }
        match r {
            Ok(()) => self.count += 1,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => {
                self.active = false;
                cx.log(format!("ToDump({}): {}", self.print_name(), strerror(&e)));
            }
        }
    }

    fn write_batch(&mut self, batch: &PacketBatch, cx: &Ctx) {
        if !self.active {
            return;
        }
        for p in batch.iter() {
            self.write_packet(p, cx);
            if !self.active {
                break;
            }
        }
    }
}

impl Element for ToDump {
    fn class_name(&self) -> &'static str {
        "ToDump"
    }
    fn port_count(&self) -> &'static str {
        "1/0-1"
    }
    fn configure_phase(&self) -> i32 {
        // After FromDump, whose encapsulation USE_ENCAP_FROM reads.
        phase::DEFAULT + 100
    }

    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut filename = String::new();
        let mut snaplen: u32 = 2000;
        let mut encap = Word::default();
        let mut use_encap_from = AnyArg::default();
        let mut extra_length = true;
        let mut unbuffered = false;
        let mut nano = true;
        Args::new(conf)
            .read_mp("FILENAME", &mut filename)
            .read_p("SNAPLEN", &mut snaplen)
            .read_p("ENCAP", &mut encap)
            .read("USE_ENCAP_FROM", &mut use_encap_from)
            .read("EXTRA_LENGTH", &mut extra_length)
            .read("UNBUFFERED", &mut unbuffered)
            .read("NANO", &mut nano)
            .complete()
            .map_err(|e| e.to_string())?;
        let from: Vec<String> = rclick_core::confparse::split_space(&use_encap_from.0);
        let linktype = if !use_encap_from.0.trim().is_empty() && !encap.0.is_empty() {
            return Err("specify at most one of 'ENCAP' and 'USE_ENCAP_FROM'".into());
        } else if !use_encap_from.0.trim().is_empty() {
            if from.is_empty() {
                return Err("element names missing after 'USE_ENCAP_FROM'".into());
            }
            pcap::dlt::EN10MB
        } else if encap.0.is_empty() {
            pcap::dlt::EN10MB
        } else {
            pcap::parse_dlt(&encap.0).ok_or("bad encapsulation type")?
        };
        if filename.is_empty() {
            return Err("FILENAME: expected filename".into());
        }
        self.filename = filename;
        self.snaplen = snaplen;
        self.linktype = linktype;
        self.use_encap_from = from;
        self.extra_length = extra_length;
        self.unbuffered = unbuffered;
        self.nano = nano;
        Ok(())
    }

    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        if !self.use_encap_from.is_empty() {
            let mut found: Vec<(String, String)> = Vec::new();
            for name in &self.use_encap_from {
                let e = cx
                    .find(name)
                    .ok_or_else(|| format!("no element named '{name}'"))?;
                let decl = cx.element_info(e).declaration();
                let encap = cx
                    .with_element(e, |el| el.downcast_ref::<FromDump>().map(FromDump::encap))
                    .flatten()
                    .ok_or_else(|| format!("'{name}' has no 'encap' read handler"))?;
                found.push((decl, encap));
            }
            let mut linktype: Option<u32> = None;
            for (_, encap) in &found {
                let d = pcap::parse_dlt(encap).ok_or_else(|| {
                    "'encap' handler did not return a valid encapsulation type".to_string()
                })?;
                if linktype.is_some_and(|l| l != d) {
                    let mut msg = String::from("source encapsulation types disagree:");
                    for (decl, encap) in &found {
                        msg.push_str(&format!("\n  {decl} has {encap}"));
                    }
                    return Err(msg);
                }
                linktype = Some(d);
            }
            if let Some(l) = linktype {
                self.linktype = l;
            }
        }
        self.out = Some(self.open()?);
        if !cx.input_is_push(0) && cx.noutputs() == 0 {
            let t = cx.new_task(true);
            self.task = Some(t);
            self.signal = cx.upstream_empty_signal(0, Some(t));
        }
        self.active = true;
        Ok(())
    }

    fn cleanup(&mut self, _cx: &mut Ctx) {
        self.out = None;
    }

    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        self.write_batch(&batch, cx);
        cx.checked_push(0, batch);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> PacketBatch {
        let batch = cx.pull(0, max);
        self.write_batch(&batch, cx);
        batch
    }

    fn run_task(&mut self, _task: TaskId, cx: &mut Ctx) -> bool {
        if !self.active {
            return false;
        }
        let batch = cx.pull(0, BURST);
        let worked = !batch.is_empty();
        self.write_batch(&batch, cx);
        drop(batch);
        if worked || self.signal.active() {
            cx.reschedule();
        }
        worked
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Filename) => Ok(self.print_name()),
            Some(H::Count) => Ok(self.count.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::ResetCounts) => {
                self.count = 0;
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use rclick_core::testing;

    fn temp_path(name: &str) -> String {
        temp_dir().join(name).to_string_lossy().into_owned()
    }

    /// As the reference Click writes by default: the nanosecond format,
    /// 1000000002.5 s stored as 1000000002 and 500,000,000; `NANO false`
    /// writes microseconds (500,000). Checked against the reference.
    #[test]
    fn nanoseconds_by_default() {
        let src = write_pcap(
            "nd-src.pcap",
            Order::Little,
            true,
            1,
            &sample_records()[2..],
        );
        for (nano, magic, frac) in [
            ("", 0xA1B2_3C4Du32, 500_000_000u32),
            (", NANO true", 0xA1B2_3C4D, 500_000_000),
            (", NANO false", 0xA1B2_C3D4, 500_000),
        ] {
            let out = temp_path(&format!("nano-default{}.pcap", nano.len()));
            let conf = format!("FromDump({src}, STOP true) -> ToDump({out}{nano});");
            drop(testing::run(&conf, &registry()).unwrap());
            let b = std::fs::read(&out).unwrap();
            assert_eq!(b[..4], magic.to_ne_bytes(), "{nano}");
            assert_eq!(b[24..28], 1_000_000_002u32.to_ne_bytes(), "{nano}");
            assert_eq!(b[28..32], frac.to_ne_bytes(), "{nano}");
        }
    }

    #[test]
    fn round_trip_micro_and_nano() {
        let recs = sample_records();
        let src = write_pcap("rt-src.pcap", Order::Big, true, 1, &recs);
        for nano in [false, true] {
            let out = temp_path(&format!("rt-out-{nano}.pcap"));
            let conf = format!(
                "FromDump({src}, STOP true) -> t :: ToDump({out}, SNAPLEN 0, NANO {nano}) -> c :: Counter -> Discard;"
            );
            let r = testing::run(&conf, &registry()).unwrap();
            assert_eq!(testing::read(&r, "t.count"), "3");
            assert_eq!(testing::read(&r, "c.count"), "3");
            drop(r);
            let back = read_pcap(&out);
            assert_eq!(back.nano, nano);
            assert_eq!(back.linktype, 1);
            assert_eq!(back.records.len(), 3);
            for (a, b) in back.records.iter().zip(&recs) {
                assert_eq!(a.data, b.data);
                assert_eq!(a.len, b.len);
                assert_eq!(a.sec, b.sec);
                // Nanoseconds survive only in a nanosecond file.
                let want = if nano { b.nsec } else { b.nsec / 1000 * 1000 };
                assert_eq!(a.nsec, want);
            }
            // And FromDump reads it back the same.
            let conf = format!(
                "FromDump({out}, STOP true) -> Print(x, TIMESTAMP true) -> c :: Counter -> Discard;"
            );
            let r = testing::run(&conf, &registry()).unwrap();
            assert_eq!(testing::read(&r, "c.count"), "3");
        }
    }

    #[test]
    fn snaplen_encap_and_extra_length() {
        let recs = sample_records();
        let src = write_pcap("sn-src.pcap", Order::Little, false, 1, &recs);
        let out = temp_path("sn-out.pcap");
        let conf = format!(
            "fd :: FromDump({src}, STOP true) -> ToDump({out}, 20, IP, EXTRA_LENGTH false);"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        drop(r);
        let back = read_pcap(&out);
        assert_eq!(back.linktype, 101);
        assert_eq!(back.snaplen, 20);
        assert_eq!(back.records[0].data.len(), 20);
        assert_eq!(back.records[0].len, 42);
        let conf = format!("fd :: FromDump({src}, STOP true) -> ToDump({out}, SNAPLEN 30);");
        drop(testing::run(&conf, &registry()).unwrap());
        let back = read_pcap(&out);
        assert_eq!(back.records[0].len, 60);
        assert_eq!(back.records[0].data.len(), 30);
    }

    #[test]
    fn use_encap_from() {
        let a = write_pcap("ue-a.pcap", Order::Little, false, 113, &[]);
        let b = write_pcap("ue-b.pcap", Order::Little, false, 1, &[]);
        let out = temp_path("ue-out.pcap");
        let conf = format!("a :: FromDump({a}, STOP true) -> ToDump({out}, USE_ENCAP_FROM a);");
        drop(testing::run(&conf, &registry()).unwrap());
        assert_eq!(read_pcap(&out).linktype, 113);
        let conf = format!(
            "a :: FromDump({a}) -> t :: ToDump({out}, USE_ENCAP_FROM a b); b :: FromDump({b}) -> t2 :: ToDump({out}.2);"
        );
        let e = testing::build(&conf, &registry(), true).err().unwrap();
        assert!(e.contains("source encapsulation types disagree"), "{e}");
        let conf = format!("Idle -> ToDump({out}, ENCAP IP, USE_ENCAP_FROM a);");
        let e = testing::build(&conf, &registry(), true).err().unwrap();
        assert!(
            e.contains("specify at most one of 'ENCAP' and 'USE_ENCAP_FROM'"),
            "{e}"
        );
        let conf = format!("Idle -> ToDump({out}, ENCAP BOGUS);");
        let e = testing::build(&conf, &registry(), true).err().unwrap();
        assert!(e.contains("bad encapsulation type"), "{e}");
        let e = testing::build("Idle -> ToDump(/nonexistent/dir/x);", &registry(), true)
            .err()
            .unwrap();
        assert!(
            e.contains("/nonexistent/dir/x: No such file or directory"),
            "{e}"
        );
    }

    #[test]
    fn pull_with_task_and_zero_timestamps() {
        let out = temp_path("pull-out.pcap");
        let conf = format!(
            "InfiniteSource(\\<0011223344556677 8899aabb ccdd 0800>, LIMIT 5, STOP true, TIMESTAMP false)
             -> Queue -> t :: ToDump({out});"
        );
        let r = testing::run(&conf, &registry()).unwrap();
        assert_eq!(testing::read(&r, "t.count"), "5");
        assert_eq!(testing::read(&r, "t.filename"), out);
        r.write_handler("t.reset_counts", "").unwrap();
        assert_eq!(testing::read(&r, "t.count"), "0");
        drop(r);
        let back = read_pcap(&out);
        assert_eq!(back.records.len(), 5);
        assert_eq!(back.records[0].data.len(), 16);
    }

    #[test]
    fn tcpdump_reads_output() {
        let Ok(status) = std::process::Command::new("tcpdump")
            .arg("--version")
            .output()
        else {
            eprintln!("tcpdump not installed; skipping");
            return;
        };
        if !status.status.success() {
            return;
        }
        for (nano, encap, snaplen) in [(false, "ETHER", 2000), (true, "ETHER", 0), (false, "IP", 0)]
        {
            let src = write_pcap("td-src.pcap", Order::Little, false, 1, &sample_records());
            let out = temp_path(&format!("td-out-{nano}-{encap}.pcap"));
            let strip = if encap == "IP" { "-> Strip(14)" } else { "" };
            let conf = format!(
                "FromDump({src}, STOP true, FORCE_IP true) {strip} -> ToDump({out}, ENCAP {encap}, NANO {nano}, SNAPLEN {snaplen});"
            );
            drop(testing::run(&conf, &registry()).unwrap());
            let o = std::process::Command::new("tcpdump")
                .args(["-nn", "-r", &out])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(text.lines().count(), 2, "{text}");
            assert!(text.contains("10.0.0.1.1234 > 10.0.0.2.80"), "{text}");
        }
    }
}
