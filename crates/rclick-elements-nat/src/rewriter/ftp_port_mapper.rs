//! # FTPPortMapper
//!
//! `FTPPortMapper(CONTROL_REWRITER, DATA_REWRITER, DATA_REWRITER_INPUT)`
//!
//! **Category:** nat. Manipulates IPRewriter for FTP.
//!
//! ## Ports and processing
//!
//! One input, one output; agnostic.
//!
//! ## Description
//!
//! Expects FTP control packets (TCP). For a packet whose payload is a
//! `PORT a,b,c,d,p,q` command and whose flow has a mapping in
//! CONTROL_REWRITER (a TCPRewriter or IPRewriter), it finds or creates a
//! mapping in DATA_REWRITER for the announced data connection (from address
//! `a.b.c.d` port `p*256+q` to the control packet's destination, port one
//! below the control destination port), creating it through input spec
//! DATA_REWRITER_INPUT of DATA_REWRITER. The PORT command is rewritten to
//! name the mapped address and port, the IP length and checksum and the TCP
//! checksum are fixed, and CONTROL_REWRITER is told to shift later sequence
//! numbers of the control flow by the change in payload length (so place
//! FTPPortMapper upstream of CONTROL_REWRITER). Other packets pass unchanged.
//!
//! ## Handlers
//!
//! None beyond the standard ones.
//!
//! ## Example
//!
//! ```text
//! rw :: TCPRewriter(pattern 1.0.0.1 1024-65535# - - 0 0);
//! ... -> FTPPortMapper(rw, rw, 0) -> [0]rw;
//! ```
//!
//! ## See also
//!
//! TCPRewriter, IPRewriter

use rclick_core::args::{Args, Word};
use rclick_core::router::ElementId;
use rclick_core::{ConfigureCx, Ctx, Element, InitCx, Packet};
use rclick_wire::checksum;
use rclick_wire::ipv4::Ipv4Packet;
use rclick_wire::tcp::TcpPacket;

use super::base::{Rewriter, REWRITER_CLASSES};
use super::class::ip_info;
use super::flowset::{now_ms, Lookup, RwHandle, IP_PROTO_TCP};
use super::pattern::FlowId;

/// The FTPPortMapper element.
#[derive(Default)]
pub struct FTPPortMapper {
    control: Option<ElementId>,
    data: Option<ElementId>,
    data_input: usize,
    control_h: Option<RwHandle>,
    data_h: Option<RwHandle>,
}

impl FTPPortMapper {
    fn rewrite(&self, mut p: Packet, now: i64) -> Packet {
        let (Some(ch), Some(dh)) = (&self.control_h, &self.data_h) else {
            return p;
        };
        let Some(info) = ip_info(&p) else { return p };
        if info.proto != IP_PROTO_TCP || info.tlen < 20 {
            return p;
        }
        let Some(nh) = p.ip_header_offset().and_then(|o| usize::try_from(o).ok()) else {
            return p;
        };
        let (th_off, sport, dport, seq) = {
            let ip = p.ip_header().unwrap_or(&[]);
            let th = TcpPacket::new_unchecked(&ip[info.thoff..]);
            (
                usize::from(th.header_len()),
                th.src_port(),
                th.dst_port(),
                th.seq_number(),
            )
        };
        if th_off < 20 || th_off > info.tlen {
            return p;
        }
        let data_off = nh + info.thoff + th_off;
        let len = p.len().saturating_sub(data_off);
        let data = &p.data()[data_off.min(p.len())..];
        if len < 5 || !data[..4].eq_ignore_ascii_case(b"PORT") || data[4] != b' ' {
            return p;
        }
        let control_flow = FlowId::new(info.src, sport, info.dst, dport);
        let Some(ce) = ch
            .lock()
            .get_entry(ch.slot, IP_PROTO_TCP, control_flow, Lookup::Check, now)
        else {
            return p;
        };
        // parse the command
        let mut pos = 5;
        while pos < len && data[pos] == b' ' {
            pos += 1;
        }
        let arg_off = pos;
        let mut nums = [0u32; 6];
        let mut which = 0;
        while pos < len && which < 6 {
            match data[pos] {
                c @ b'0'..=b'9' => {
                    nums[which] = nums[which]
                        .saturating_mul(10)
                        .saturating_add(u32::from(c - b'0'))
                }
                b',' => which += 1,
                _ => break,
            }
            pos += 1;
        }
        if which != 5
            || pos >= len
            || (data[pos] != b'\r' && data[pos] != b'\n')
            || nums.iter().any(|&n| n >= 256)
        {
            return p;
        }
        let addr = (nums[0] << 24) | (nums[1] << 16) | (nums[2] << 8) | nums[3];
        let port = ((nums[4] << 8) | nums[5]) as u16;
        let flow = FlowId::new(addr, port, info.dst, dport.wrapping_sub(1));
        let (nf, fwd) = {
            let mut set = dh.lock();
            let Some(e) = set.get_entry(
                dh.slot,
                IP_PROTO_TCP,
                flow,
                Lookup::Input(self.data_input),
                now,
            ) else {
                return p;
            };
            let Some(f) = set.flow(e.flow) else { return p };
            (f.rewritten(e.reply), e)
        };
        let buf = format!(
            "{},{},{},{},{},{}",
            nf.saddr >> 24,
            (nf.saddr >> 16) & 255,
            (nf.saddr >> 8) & 255,
            nf.saddr & 255,
            nf.sport >> 8,
            nf.sport & 255
        );
        let arg_len = pos - arg_off;
        let blen = buf.len();
        let start = data_off + arg_off;
        let tail = (start + arg_len)..(data_off + len);
        if blen > arg_len {
            if p.put(blen - arg_len).is_err() {
                return p;
            }
            p.data_mut().copy_within(tail, start + blen);
        } else {
            p.data_mut().copy_within(tail, start + blen);
            p.take(arg_len - blen);
        }
        p.data_mut()[start..start + blen].copy_from_slice(buf.as_bytes());
        let total = p.len() - nh;
        let thoff = info.thoff;
        if let Some(ip) = p.ip_header_mut() {
            let (hdr, th) = ip.split_at_mut(thoff);
            let mut hdr = Ipv4Packet::new_unchecked(hdr);
            let old = hdr.total_len();
            let new = total as u16;
            hdr.set_total_len(new);
            let c = checksum::update_u16(hdr.checksum(), old, new);
            hdr.set_checksum(c);
            TcpPacket::new_unchecked(th).fill_checksum(hdr.src_addr(), hdr.dst_addr());
        }
        // sequence numbers of later control packets shift
        let delta = blen as i32 - arg_len as i32;
        let trigger = seq.wrapping_add(len as u32);
        let ranno = {
            let mut set = ch.lock();
            match set.flow_mut(ce.flow) {
                Some(f) => {
                    f.update_seqno_delta(ce.reply, trigger, delta);
                    f.reply_anno
                }
                None => 0,
            }
        };
        if let Some(f) = dh.lock().flow_mut(fwd.flow) {
            f.reply_anno = ranno;
        }
        p
    }
}

impl Element for FTPPortMapper {
    fn class_name(&self) -> &'static str {
        "FTPPortMapper"
    }
    fn configure_phase(&self) -> i32 {
        rclick_core::phase::DEFAULT + 1
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        let (mut c, mut d, mut input) = (Word::default(), Word::default(), 0i64);
        Args::new_with(conf, cx.arg_context())
            .read_mp("CONTROL_REWRITER", &mut c)
            .read_mp("DATA_REWRITER", &mut d)
            .read_mp("DATA_REWRITER_INPUT", &mut input)
            .complete()
            .map_err(|e| e.to_string())?;
        let ce = cx
            .find(&c.0)
            .ok_or("CONTROL_REWRITER: no element named that")?;
        let class = cx.element_info(ce).class.clone();
        if !matches!(class.as_str(), "TCPRewriter" | "IPRewriter") {
            return Err("CONTROL_REWRITER: element is not a TCPRewriter".into());
        }
        let de = cx
            .find(&d.0)
            .ok_or("DATA_REWRITER: no element named that")?;
        if !REWRITER_CLASSES.contains(&cx.element_info(de).class.as_str()) {
            return Err("DATA_REWRITER: element is not an IPRewriterBase".into());
        }
        if input < 0 || input as usize >= cx.element_info(de).inputs.len() {
            return Err("DATA_REWRITER_INPUT out of range".into());
        }
        self.control = Some(ce);
        self.data = Some(de);
        self.data_input = input as usize;
        Ok(())
    }
    fn initialize(&mut self, cx: &mut InitCx) -> Result<(), String> {
        let get = |cx: &mut InitCx, e: Option<ElementId>| -> Option<(RwHandle, &str)> {
            cx.with_element(e?, |el| {
                el.downcast_ref::<Rewriter>()
                    .map(|r| (r.handle(), r.class().name()))
            })?
        };
        let c = get(cx, self.control);
        let d = get(cx, self.data);
        if let Some((_, class)) = &c {
            // Click's TCPRewriter cast: IPRewriter is one too
            if !matches!(*class, "TCPRewriter" | "IPRewriter") {
                return Err("CONTROL_REWRITER: element is not a TCPRewriter".into());
            }
        }
        self.control_h = c.map(|x| x.0);
        self.data_h = d.map(|x| x.0);
        Ok(())
    }
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        let now = now_ms(cx.now());
        Some(self.rewrite(p, now))
    }
}

#[cfg(test)]
mod tests {
    use crate::rewriter::testutil::*;
    use rclick_core::testing;

    /// The data flows go through input `DATA`.
    const CFG: &str = "rw :: TCPRewriter(pattern 1.0.0.1 1024-65535# - - 0 0, keep 0 0);
        src :: TestSource(KEY); sink :: TestSink(KEY);
        src -> FTPPortMapper(rw, rw, DATA) -> rw -> sink; Idle -> [1]rw;";

    fn run(data: usize, pkts: Vec<(usize, Vec<u8>)>) -> rclick_core::router::Router {
        let key = seed(pkts);
        let cfg = CFG.replace("KEY", &key).replace("DATA", &data.to_string());
        let r = testing::build(&cfg, &registry(), true).unwrap();
        r.run();
        r
    }

    /// A PORT command: the data flow it announces gets a mapping in the
    /// data rewriter, the command names the mapped address and port, and
    /// the control flow's later sequence numbers shift by the length
    /// change.
    #[test]
    fn port_command_maps_the_data_flow_and_shifts_sequence_numbers() {
        let c = ip(200, 200, 200, 200);
        let s = ip(2, 0, 0, 2);
        let port = b"PORT 200,200,200,200,200,200\r\n";
        let control = |seq, payload: &[u8]| (0, tcp_payload(c, 30, s, 21, seq, payload));
        // data through the pattern: 200,200,200,200,200,200 becomes
        // 1,0,0,1,4,1 (1.0.0.1:1025), 12 bytes shorter
        let r = run(0, vec![control(0, b"x"), control(1, port)]);
        let table = testing::read(&r, "rw.table");
        assert_eq!(table.lines().count(), 4, "{table}");
        assert!(
            table.contains("(200.200.200.200, 51400, 2.0.0.2, 20) => (1.0.0.1, 1025, 2.0.0.2, 20)"),
            "{table}"
        );
        assert!(table.contains("seq -12"), "{table}");
        // data through `keep`: the same address, the same length, no delta
        let r = run(1, vec![control(0, b"x"), control(1, port)]);
        let table = testing::read(&r, "rw.table");
        assert!(
            table.contains(
                "(200.200.200.200, 51400, 2.0.0.2, 20) => (200.200.200.200, 51400, 2.0.0.2, 20)"
            ),
            "{table}"
        );
        assert!(!table.contains("seq"), "{table}");
        assert_eq!(testing::read(&r, "rw.nmappings"), "2");
    }

    /// Lines that are not PORT commands, or malformed ones, pass unchanged
    /// and create no data flow.
    #[test]
    fn other_lines_pass_unchanged() {
        let c = ip(200, 200, 200, 200);
        let s = ip(2, 0, 0, 2);
        for line in [
            &b"USER anonymous\r\n"[..],
            b"PORT 1,2,3,4,5\r\n",
            b"PORT 1,2,3,4,5,300\r\n",
            b"PORT 1,2,3,4,5,6",
        ] {
            let r = run(0, vec![(0, tcp_payload(c, 30, s, 21, 0, line))]);
            assert_eq!(testing::read(&r, "rw.nmappings"), "1", "{line:?}");
        }
    }

    #[test]
    fn configuration_errors() {
        let e = testing::build(
            "rw :: UDPRewriter(keep 0 0); Idle -> FTPPortMapper(rw, rw, 0) -> rw -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(
            e.contains("CONTROL_REWRITER: element is not a TCPRewriter"),
            "{e}"
        );
        let e = testing::build(
            "rw :: TCPRewriter(keep 0 0); Idle -> FTPPortMapper(rw, rw, 3) -> rw -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("DATA_REWRITER_INPUT out of range"), "{e}");
        let e = testing::build(
            "rw :: TCPRewriter(keep 0 0); Idle -> FTPPortMapper(rw, nosuch, 0) -> rw -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("DATA_REWRITER: no element named that"), "{e}");
    }
}
