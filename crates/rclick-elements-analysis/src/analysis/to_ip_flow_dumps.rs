//! # ToIPFlowDumps
//!
//! ## Synopsis
//!
//! `ToIPFlowDumps(FILENAME [, keywords NOTIFIER, ABSOLUTE_TIME, ABSOLUTE_SEQ, TCP_OPT, ALL_TCP_OPT, TCP_WINDOW, IP_ID, MINCOUNT, BINARY, GZIP])`
//!
//! ## Category
//!
//! analysis — writes one IP summary dump file per TCP or UDP flow.
//!
//! ## Ports and processing
//!
//! One input, agnostic; zero or one output. Packets pass through to the
//! output unchanged, if it exists.
//!
//! ## Description
//!
//! Records a summary of each packet in the flow named by its aggregate
//! annotation, usually set by an upstream AggregateIPFlows, and writes one
//! file per flow in the IP summary dump format. rclick writes every flow's
//! file when the router cleans up (Click writes it as soon as the NOTIFIER
//! says the flow ended; the files' contents are the same).
//!
//! FILENAME is a pattern whose `%` escapes are expanded per flow: `%n` the
//! aggregate in decimal (`%.0n` .. `%.3n` its bytes from the top, `%.4n`
//! and `%.5n` its upper and lower 16 bits), `%x`/`%X` the same in hex,
//! `%s`/`%d` the flow's source and destination addresses (`%.0s` ..
//! `%.3s` one byte), `%S`/`%D` its ports, `%p` `T` or `U`, `%%` a percent
//! sign. A `0` flag and a width pad the value (`%03n` gives `007`).
//! Missing directories in the expanded name are created. A pattern with no
//! escape draws a configure-time warning (`OUTPUT_PATTERN has no %
//! escapes, so output files will get overwritten`); a bad escape is
//! reported when the flow is written (`` bad filename pattern `%q' ``), as is
//! a directory that cannot be made (`making directory D: ...`).
//!
//! A file starts with `!IPSummaryDump 1.3`, a `!flowid SRC SPORT DST DPORT
//! P` line, an `!aggregate N` line and a `!data` line. TCP flows list
//! `ntimestamp direction [ip_id] tcp_flags tcp_seq payload_len tcp_ack
//! tcp_ntopt` (`tcp_opt` with ALL_TCP_OPT); UDP flows `ntimestamp direction
//! [ip_id] payload_len`. Unless ABSOLUTE_SEQ, `!firstseq > N` and
//! `!firstseq < N` give each direction's first sequence number and the
//! lines show sequence and acknowledgement numbers relative to them.
//! Unless ABSOLUTE_TIME, `!firsttime T` gives the first packet's time less
//! one nanosecond and the lines show times relative to it. The direction
//! is `>` for paint annotation 0 and `<` for 1. The acknowledgement
//! number is 0 on packets without ACK. A UDP packet's `payload_len` is,
//! as in Click, its IP length less 8. With TCP_WINDOW the window
//! follows the acknowledgement number (as in Click, the `!data` line does
//! not name it); options follow last when present, SACK edges relative to
//! the other direction's first sequence number unless ABSOLUTE_SEQ.
//!
//! Keywords:
//!
//! * `NOTIFIER` (element name): an AggregateIPFlows or AggregateIPAddrPair.
//!   Checked (`NOTIFIER: does not name an element`, `x is not an
//!   AggregateNotifier`); see above for when files are written.
//! * `ABSOLUTE_TIME` (boolean, default false): print absolute timestamps.
//! * `ABSOLUTE_SEQ` (boolean, default false): print absolute sequence
//!   numbers.
//! * `TCP_OPT` (boolean, default false): print MSS, window scale and SACK
//!   options.
//! * `ALL_TCP_OPT` (boolean, default false): print every non-padding TCP
//!   option.
//! * `TCP_WINDOW` (boolean, default false): print TCP windows.
//! * `IP_ID` (boolean, default false): print IP IDs (Click prints them
//!   byte-swapped on little-endian hosts; rclick prints the real value).
//! * `MINCOUNT` (unsigned, default 0): write only flows with at least this
//!   many packets.
//! * `BINARY`, `GZIP` (boolean, default false): only false is supported
//!   (`BINARY true is not supported`).
//!
//! Packets that are not IPv4 TCP or UDP, or whose aggregate annotation is
//! 0, pass through unrecorded and are counted by `ignored`; if no packet
//! had an aggregate, cleanup warns `saw no packets with aggregate
//! annotations`. A file that cannot be written is reported on the log and
//! counted by `write_errors`.
//!
//! ## Annotations
//!
//! Reads the aggregate, paint and timestamp annotations.
//!
//! ## Handlers
//!
//! * `count` (read): packets recorded.
//! * `ignored` (read): packets not recorded (no flow).
//! * `flows` (read): flows open (not yet written).
//! * `write_errors` (read): flow files that could not be written.
//! * `flush` (write): writes every open flow's file now and forgets it.
//!
//! ## Example
//!
//! `FromDump(F) -> CheckIPHeader -> a :: AggregateIPFlows -> ToIPFlowDumps(/tmp/flow%03n, NOTIFIER a)`
//!
//! ## See also
//!
//! AggregateIPFlows, ToIPSummaryDump, FromIPSummaryDump

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::Ipv4Addr;

use rclick_core::args::{AnyArg, Args};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef};
use rclick_packet::{Packet, Timestamp};
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::tcp::TcpPacket;
use rclick_wire::udp::UdpPacket;

use super::ipsumdump_fields::{
    relative_sack, unparse_tcp_opt, write_timestamp, TCPOPT_ALL_NOPAD, TCPOPT_MSS, TCPOPT_SACK,
    TCPOPT_WSCALE,
};

/// One packet's summary.
struct Rec {
    ts: Timestamp,
    dir: u8,
    ip_id: u16,
    flags: u8,
    seq: u32,
    ack: u32,
    payload_len: u16,
    window: u16,
    opt: String,
}

/// One flow being recorded.
struct Flow {
    tcp: bool,
    src: Ipv4Addr,
    dst: Ipv4Addr,
    sport: u16,
    dport: u16,
    first_seq: [Option<u32>; 2],
    recs: Vec<Rec>,
}

/// The ToIPFlowDumps element.
#[derive(Default)]
pub struct ToIPFlowDumps {
    pattern: String,
    absolute_time: bool,
    absolute_seq: bool,
    opt_mask: u32,
    all_opt: bool,
    tcp_window: bool,
    ip_id: bool,
    mincount: u32,
    flows: BTreeMap<u32, Flow>,
    count: u64,
    ignored: u64,
    nagg: u64,
    write_errors: u64,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Count = read("count"),
        Ignored = read("ignored"),
        Flows = read("flows"),
        WriteErrors = read("write_errors"),
        Flush = write("flush"),
    }
}

/// Expands `pattern` for flow `agg`, or returns the bad escape.
fn expand(pattern: &str, agg: u32, f: &Flow) -> Result<String, String> {
    let mut at = 0;
    expand_at(pattern, agg, f, &mut at).ok_or_else(|| {
        // the escape: `%`, flags, width and part, then its letter
        let rest = &pattern[at + 1..];
        let n = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .map_or(rest.len(), |i| {
                i + rest[i..].chars().next().map_or(0, char::len_utf8)
            });
        pattern[at..at + 1 + n].to_string()
    })
}

fn expand_at(pattern: &str, agg: u32, f: &Flow, at: &mut usize) -> Option<String> {
    let b = pattern.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            let start = i;
            while i < b.len() && b[i] != b'%' {
                i += 1;
            }
            out.push_str(&pattern[start..i]);
            continue;
        }
        *at = i;
        i += 1;
        let zero = b.get(i) == Some(&b'0');
        if zero {
            i += 1;
        }
        let mut width = 0usize;
        while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
            width = width * 10 + usize::from(d - b'0');
            i += 1;
        }
        let mut part: Option<u8> = None;
        if b.get(i) == Some(&b'.') {
            part = Some(b.get(i + 1).filter(|c| c.is_ascii_digit())? - b'0');
            i += 2;
        }
        let conv = *b.get(i)?;
        i += 1;
        let esc_end = i;
        let byte = |a: Ipv4Addr, k: Option<u8>| -> Option<String> {
            match k {
                None => Some(a.to_string()),
                Some(k @ 0..=3) => Some(a.octets()[usize::from(k)].to_string()),
                _ => None,
            }
        };
        let aggpart = |k: Option<u8>| -> Option<u32> {
            Some(match k {
                None => agg,
                Some(0) => agg >> 24,
                Some(1) => (agg >> 16) & 255,
                Some(2) => (agg >> 8) & 255,
                Some(3) => agg & 255,
                Some(4) => agg >> 16,
                Some(5) => agg & 0xFFFF,
                _ => return None,
            })
        };
        let text = match conv {
            b'n' => aggpart(part)?.to_string(),
            b'x' => format!("{:x}", aggpart(part)?),
            b'X' => format!("{:X}", aggpart(part)?),
            b's' => byte(f.src, part)?,
            b'd' => byte(f.dst, part)?,
            b'S' if part.is_none() => f.sport.to_string(),
            b'D' if part.is_none() => f.dport.to_string(),
            b'p' if part.is_none() => if f.tcp { "T" } else { "U" }.to_string(),
            b'%' if part.is_none() && width == 0 => "%".to_string(),
            _ => return None,
        };
        *at = esc_end;
        let pad = if zero { '0' } else { ' ' };
        for _ in text.len()..width {
            out.push(pad);
        }
        out.push_str(&text);
    }
    Some(out)
}

impl ToIPFlowDumps {
    fn record(&mut self, p: &Packet) -> bool {
        let agg = p.aggregate_anno();
        if agg == 0 {
            return false;
        }
        self.nagg += 1;
        let Some(buf) = p.network_header().filter(|h| h.len() >= 20) else {
            return false;
        };
        let h = Ipv4Packet::new_unchecked(buf);
        let hl = usize::from(h.header_len());
        let proto = h.protocol().0;
        if h.version() != 4 || hl < 20 || (proto != 6 && proto != 17) {
            return false;
        }
        let Some(th) = buf.get(hl..) else {
            return false;
        };
        let tcp = proto == 6;
        if th.len() < if tcp { 20 } else { 8 } {
            return false;
        }
        let dir = p.paint_anno() & 1;
        let (src, dst) = (h.src_addr(), h.dst_addr());
        let mut rec = Rec {
            ts: p.timestamp_anno(),
            dir,
            ip_id: h.ident(),
            flags: 0,
            seq: 0,
            ack: 0,
            payload_len: 0,
            window: 0,
            opt: String::new(),
        };
        let (sport, dport);
        let mut opts: Option<Vec<u8>> = None;
        if tcp {
            let t = TcpPacket::new_unchecked(th);
            sport = t.src_port();
            dport = t.dst_port();
            rec.flags = t.flags();
            rec.seq = t.seq_number();
            rec.ack = t.ack_number();
            rec.window = t.window_len();
            let off = usize::from(t.header_len());
            rec.payload_len = h.total_len().wrapping_sub((hl + off) as u16);
            if self.opt_mask != 0 && off > 20 && th.len() >= off {
                opts = Some(th[20..off].to_vec());
            }
        } else {
            let u = UdpPacket::new_unchecked(th);
            sport = u.src_port();
            dport = u.dst_port();
            // as in Click: the IP length less the UDP header's 8 bytes
            rec.payload_len = h.total_len().wrapping_sub(8);
        }
        let flow = self.flows.entry(agg).or_insert_with(|| {
            let (src, dst, sport, dport) = if dir == 0 {
                (src, dst, sport, dport)
            } else {
                (dst, src, dport, sport)
            };
            Flow {
                tcp,
                src,
                dst,
                sport,
                dport,
                first_seq: [None; 2],
                recs: Vec::new(),
            }
        });
        if tcp && flow.first_seq[usize::from(dir)].is_none() {
            flow.first_seq[usize::from(dir)] = Some(rec.seq);
        }
        if let Some(mut o) = opts {
            if !self.absolute_seq {
                // as in Click, SACK edges count from the other direction's
                // first sequence number
                let base = flow.first_seq[usize::from(1 - dir)].unwrap_or(0);
                relative_sack(&mut o, base);
            }
            unparse_tcp_opt(&mut rec.opt, &o, self.opt_mask);
            if rec.opt == "." || rec.opt == "?" {
                rec.opt.clear();
            }
        }
        flow.recs.push(rec);
        self.count += 1;
        true
    }

    fn text(&self, agg: u32, f: &Flow) -> String {
        let mut s = String::from("!IPSummaryDump 1.3\n");
        let p = if f.tcp { 'T' } else { 'U' };
        let _ = writeln!(s, "!flowid {} {} {} {} {p}", f.src, f.sport, f.dst, f.dport);
        let _ = writeln!(s, "!aggregate {agg}");
        s.push_str("!data ntimestamp direction");
        if self.ip_id {
            s.push_str(" ip_id");
        }
        if f.tcp {
            s.push_str(" tcp_flags tcp_seq payload_len tcp_ack ");
            s.push_str(if self.all_opt { "tcp_opt" } else { "tcp_ntopt" });
        } else {
            s.push_str(" payload_len");
        }
        s.push('\n');
        if f.tcp && !self.absolute_seq {
            for (d, c) in [(0, '>'), (1, '<')] {
                if let Some(q) = f.first_seq[d] {
                    let _ = writeln!(s, "!firstseq {c} {q}");
                }
            }
        }
        let base = f.recs.first().map_or(Timestamp::default(), |r| r.ts) - Timestamp::from_nsec(1);
        if !self.absolute_time {
            s.push_str("!firsttime ");
            write_timestamp(&mut s, base);
            s.push('\n');
        }
        for r in &f.recs {
            if self.absolute_time {
                write_timestamp(&mut s, r.ts);
            } else {
                let _ = write!(s, "{}", (r.ts - base).display_nsec());
            }
            s.push_str(if r.dir == 0 { " >" } else { " <" });
            if self.ip_id {
                let _ = write!(s, " {}", r.ip_id);
            }
            if f.tcp {
                let d = usize::from(r.dir);
                let (mut seq, mut ack) = (r.seq, r.ack);
                if !self.absolute_seq {
                    seq = seq.wrapping_sub(f.first_seq[d].unwrap_or(seq));
                    ack = ack.wrapping_sub(f.first_seq[1 - d].unwrap_or(ack));
                }
                if r.flags & 0x10 == 0 {
                    ack = 0;
                }
                s.push(' ');
                push_flags(&mut s, r.flags);
                let _ = write!(s, " {seq} {} {ack}", r.payload_len);
                if self.tcp_window {
                    let _ = write!(s, " {}", r.window);
                }
                if !r.opt.is_empty() {
                    s.push(' ');
                    s.push_str(&r.opt);
                }
            } else {
                let _ = write!(s, " {}", r.payload_len);
            }
            s.push('\n');
        }
        s
    }

    /// Writes (and forgets) every open flow.
    fn write_all(&mut self, cx: &Ctx) {
        let flows = std::mem::take(&mut self.flows);
        for (agg, f) in &flows {
            if (f.recs.len() as u64) < u64::from(self.mincount) {
                continue;
            }
            let name = match expand(&self.pattern, *agg, f) {
                Ok(name) => name,
                Err(esc) => {
                    cx.log(format!("bad filename pattern `{esc}'"));
                    self.write_errors += 1;
                    continue;
                }
            };
            let path = std::path::Path::new(&name);
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                if let Err(e) = std::fs::create_dir_all(dir) {
                    cx.log(format!(
                        "making directory {}: {}",
                        dir.display(),
                        strerror(&e)
                    ));
                    self.write_errors += 1;
                    continue;
                }
            }
            if let Err(e) = std::fs::write(path, self.text(*agg, f)) {
                cx.log(format!("{name}: {}", strerror(&e)));
                self.write_errors += 1;
            }
        }
    }
}

/// An I/O error's text without Rust's `(os error N)` suffix.
fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    s.find(" (os error")
        .map_or(s.clone(), |i| s[..i].to_string())
}

/// Click's TCP flag letters, `.` for none.
fn push_flags(s: &mut String, flags: u8) {
    if flags == 0 {
        s.push('.');
        return;
    }
    for (i, c) in b"FSRPAUEW".iter().enumerate() {
        if flags & (1 << i) != 0 {
            s.push(char::from(*c));
        }
    }
}

impl Element for ToIPFlowDumps {
    fn class_name(&self) -> &'static str {
        "ToIPFlowDumps"
    }
    fn port_count(&self) -> &'static str {
        "1/0-1"
    }
    fn processing(&self) -> &'static str {
        "a/a"
    }

    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let mut pattern = String::new();
        let mut notifier = AnyArg(String::new());
        let (mut at, mut aseq, mut topt, mut aopt, mut win, mut id) =
            (false, false, false, false, false, false);
        let (mut binary, mut gzip) = (false, false);
        let mut mincount = 0u32;
        Args::new(conf)
            .read_mp("OUTPUT_PATTERN", &mut pattern)
            .read("NOTIFIER", &mut notifier)
            .read("ABSOLUTE_TIME", &mut at)
            .read("ABSOLUTE_SEQ", &mut aseq)
            .read("BINARY", &mut binary)
            .read("GZIP", &mut gzip)
            .read("TCP_OPT", &mut topt)
            .read("ALL_TCP_OPT", &mut aopt)
            .read("TCP_WINDOW", &mut win)
            .read("IP_ID", &mut id)
            .read("MINCOUNT", &mut mincount)
            .complete()
            .map_err(|e| e.to_string())?;
        if let Some(class) = super::notifier_class(&notifier.0, cx)? {
            if !["AggregateIPFlows", "AggregateIPAddrPair"].contains(&class.as_str()) {
                return Err(format!("{} is not an AggregateNotifier", notifier.0.trim()));
            }
        }
        if binary {
            return Err("BINARY true is not supported".into());
        }
        if gzip {
            return Err("GZIP true is not supported".into());
        }
        if !pattern.contains('%') {
            cx.warning("OUTPUT_PATTERN has no % escapes, so output files will get overwritten");
        }
        self.pattern = pattern;
        self.absolute_time = at;
        self.absolute_seq = aseq;
        self.all_opt = aopt;
        self.opt_mask = if aopt {
            TCPOPT_ALL_NOPAD
        } else if topt {
            TCPOPT_MSS | TCPOPT_WSCALE | TCPOPT_SACK
        } else {
            0
        };
        self.tcp_window = win;
        self.ip_id = id;
        self.mincount = mincount;
        Ok(())
    }

    fn cleanup(&mut self, cx: &mut Ctx) {
        self.write_all(cx);
        if self.nagg == 0 && self.ignored > 0 {
            cx.log(format!(
                "{}: warning: saw no packets with aggregate annotations",
                cx.declaration()
            ));
        }
    }

    fn simple_action(&mut self, p: Packet, _cx: &mut Ctx) -> Option<Packet> {
        if !self.record(&p) {
            self.ignored += 1;
        }
        Some(p)
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Count) => Ok(self.count.to_string()),
            Some(H::Ignored) => Ok(self.ignored.to_string()),
            Some(H::Flows) => Ok(self.flows.len().to_string()),
            Some(H::WriteErrors) => Ok(self.write_errors.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, _value: &str, cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Flush) => {
                self.write_all(cx);
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{dir, registry};
    use rclick_core::testing;

    const TRACE: &str =
        "!data timestamp ip_src sport ip_dst dport proto ip_len tcp_seq tcp_ack tcp_flags\n\
        1.5 10.0.0.1 1234 10.0.0.2 80 T 40 1000 0 S\n\
        1.6 10.0.0.2 80 10.0.0.1 1234 T 40 5000 1001 SA\n\
        1.7 10.0.0.1 1234 10.0.0.2 80 T 50 1001 5001 A\n\
        2.25 10.0.0.3 53 10.0.0.4 5353 U 60 - - -\n";

    fn run(name: &str, keywords: &str) -> (rclick_core::Router, std::path::PathBuf) {
        let d = dir(name);
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let input = d.join("in");
        std::fs::write(&input, TRACE).unwrap();
        let conf = format!(
            "FromIPSummaryDump({}, STOP true) -> a :: AggregateIPFlows -> t :: ToIPFlowDumps({}/f%n{keywords});",
            input.display(),
            d.display()
        );
        let r = testing::run(&conf, &registry()).unwrap();
        r.cleanup();
        (r, d)
    }

    /// One file per flow, relative times and sequence numbers.
    #[test]
    fn writes_one_file_per_flow() {
        let (r, d) = run("flowdumps-basic", ", NOTIFIER a");
        let tcp = std::fs::read_to_string(d.join("f1")).unwrap();
        assert_eq!(
            tcp,
            "!IPSummaryDump 1.3\n!flowid 10.0.0.1 1234 10.0.0.2 80 T\n!aggregate 1\n\
             !data ntimestamp direction tcp_flags tcp_seq payload_len tcp_ack tcp_ntopt\n\
             !firstseq > 1000\n!firstseq < 5000\n!firsttime 1.499999999\n\
             0.000000001 > S 0 0 0\n0.100000001 < SA 0 0 1\n0.200000001 > A 1 10 1\n"
        );
        let udp = std::fs::read_to_string(d.join("f2")).unwrap();
        assert!(
            udp.contains("!flowid 10.0.0.3 53 10.0.0.4 5353 U\n"),
            "{udp}"
        );
        assert!(
            udp.ends_with("!firsttime 2.249999999\n0.000000001 > 52\n"),
            "{udp}"
        );
        assert_eq!(testing::read(&r, "t.count"), "4");
        assert_eq!(testing::read(&r, "t.ignored"), "0");
    }

    /// MINCOUNT leaves out small flows; absolute keywords print raw values.
    #[test]
    fn mincount_and_absolute() {
        let (_r, d) = run(
            "flowdumps-abs",
            ", MINCOUNT 2, ABSOLUTE_TIME true, ABSOLUTE_SEQ true",
        );
        assert!(!d.join("f2").exists());
        let tcp = std::fs::read_to_string(d.join("f1")).unwrap();
        assert!(
            !tcp.contains("!firstseq") && !tcp.contains("!firsttime"),
            "{tcp}"
        );
        assert!(tcp.ends_with("1.700000 > A 1001 10 5001\n"), "{tcp}");
    }

    #[test]
    fn sack_edges_are_relative() {
        let mut o = vec![1, 1, 5, 10, 0, 0, 0x13, 0x89, 0, 0, 0x13, 0x8d];
        super::relative_sack(&mut o, 5000);
        assert_eq!(o, [1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 5]);
    }

    #[test]
    fn filename_escapes() {
        let f = super::Flow {
            tcp: false,
            src: "1.2.3.4".parse().unwrap(),
            dst: "5.6.7.8".parse().unwrap(),
            sport: 53,
            dport: 99,
            first_seq: [None; 2],
            recs: Vec::new(),
        };
        assert_eq!(
            super::expand("%05n-%x-%.2s-%d-%S-%D-%p-%%-%.5n", 0x1_0203, &f).unwrap(),
            "66051-10203-3-5.6.7.8-53-99-U-%-515"
        );
        assert_eq!(super::expand("f%q.txt", 1, &f).unwrap_err(), "%q");
        assert_eq!(super::expand("%n%", 1, &f).unwrap_err(), "%");
        assert_eq!(super::expand("%.9s", 1, &f).unwrap_err(), "%.9s");
    }

    /// Packets without an aggregate are counted; bad patterns, unwritable
    /// directories and bad NOTIFIERs do not panic.
    #[test]
    fn errors_are_reported() {
        let r = testing::run(
            "InfiniteSource(LIMIT 2, STOP true) -> t :: ToIPFlowDumps(/nonexistent-dir/f%n);",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "t.ignored"), "2");
        assert_eq!(testing::read(&r, "t.count"), "0");
        let (r, _d) = run("flowdumps-bad", "%q");
        assert_eq!(testing::read(&r, "t.write_errors"), "2");
        let (r, _d) = run("flowdumps-dir", "/x");
        assert_eq!(testing::read(&r, "t.write_errors"), "0");
        let err = |c: &str| testing::build(c, &registry(), true).err().unwrap();
        assert!(err("Idle -> ToIPFlowDumps(f%n, NOTIFIER x);")
            .contains("NOTIFIER: does not name an element"));
        assert!(
            err("x :: Counter; Idle -> x -> ToIPFlowDumps(f%n, NOTIFIER x);")
                .contains("x is not an AggregateNotifier")
        );
        assert!(err("Idle -> ToIPFlowDumps(f%n, MINCOUNT x);").contains("MINCOUNT"));
        assert!(err("Idle -> ToIPFlowDumps(f%n, BINARY true);").contains("not supported"));
    }
}
