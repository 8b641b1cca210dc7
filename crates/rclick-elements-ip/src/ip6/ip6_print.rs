//! # IP6Print
//!
//! `IP6Print([LABEL, keywords NBYTES, CONTENTS])`
//!
//! **Category:** ip6. Prints IPv6 packets.
//!
//! **Ports:** one input, one output (agnostic).
//!
//! ## Description
//!
//! Logs one line per packet: `LABEL: SRC -> DST plen N, next P, hlim H`
//! (no `LABEL: ` when LABEL is empty), read from the IPv6 header at the
//! packet's annotation. With CONTENTS, the first NBYTES bytes of the
//! packet's data follow as hex, four bytes to a group and 24 to a line,
//! each line indented two spaces. A packet without a whole IPv6 header at
//! its annotation is printed as `LABEL: (no IPv6 header)` (Click reads past
//! the data instead). Packets pass unchanged.
//!
//! Keywords:
//!
//! * `CONTENTS` (boolean, default false): print the data in hex.
//! * `NBYTES` (unsigned, default 1500): how many bytes CONTENTS prints.
//!
//! ## Annotations
//!
//! Uses the IPv6 header annotation.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIP6Header -> IP6Print(in) -> ...
//! ```
//!
//! ## See also
//!
//! IPPrint, Print, CheckIP6Header

use std::fmt::Write;

use rclick_core::args::Args;
use rclick_core::{ConfigureCx, Ctx, Element, Packet};

use super::fixed_header;

/// The IP6Print element.
pub struct IP6Print {
    label: String,
    contents: bool,
    nbytes: usize,
}

impl Default for IP6Print {
    fn default() -> Self {
        IP6Print {
            label: String::new(),
            contents: false,
            nbytes: 1500,
        }
    }
}

impl IP6Print {
    /// The log text for `p`.
    fn line(&self, p: &Packet) -> String {
        let mut s = String::new();
        if !self.label.is_empty() {
            s.push_str(&self.label);
            s.push_str(": ");
        }
        match fixed_header(p) {
            Some(v) => {
                let _ = write!(
                    s,
                    "{} -> {} plen {}, next {}, hlim {}",
                    v.src_addr(),
                    v.dst_addr(),
                    v.payload_len(),
                    u8::from(v.next_header()),
                    v.hop_limit()
                );
            }
            None => s.push_str("(no IPv6 header)"),
        }
        if self.contents {
            s.push_str("\n  ");
            let data = p.data();
            for (i, b) in data[..data.len().min(self.nbytes)].iter().enumerate() {
                let _ = write!(s, "{b:02x}");
                if (i + 1) % 24 == 0 {
                    s.push_str("\n  ");
                } else if (i + 1) % 4 == 0 {
                    s.push(' ');
                }
            }
        }
        s
    }
}

impl Element for IP6Print {
    fn class_name(&self) -> &'static str {
        "IP6Print"
    }
    fn is_simple(&self) -> bool {
        true
    }
    fn configure(&mut self, conf: &[String], _cx: &mut ConfigureCx) -> Result<(), String> {
        let mut label = String::new();
        let mut contents = false;
        let mut nbytes = 1500usize;
        Args::new(conf)
            .read_p("LABEL", &mut label)
            .read("NBYTES", &mut nbytes)
            .read("CONTENTS", &mut contents)
            .complete()
            .map_err(|e| e.to_string())?;
        self.label = label;
        self.contents = contents;
        self.nbytes = nbytes;
        Ok(())
    }
    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        cx.log(self.line(&p));
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use crate::ip::test_util::{config_errors, registry};
    use crate::ip6::test_util::{ip6_hex, run_log};

    /// Lines compared with the reference Click (clickdiff): labels,
    /// CONTENTS layout at 57, 48, 10, 4 and 0 bytes.
    #[test]
    fn matches_reference() {
        let d = ip6_hex(
            "2001:db8::1",
            "2001:db8:1::2",
            17,
            64,
            &[0x12, 0x34, 0x56, 0x78, 0, 16, 0, 0],
        );
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}99>, LIMIT 1, STOP true) -> MarkIP6Header
               -> IP6Print(a, CONTENTS true) -> IP6Print(b, NBYTES 10, CONTENTS true)
               -> IP6Print(\"\") -> IP6Print -> Discard"
        ));
        let head = "2001:db8::1 -> 2001:db8:1::2 plen 8, next 17, hlim 64";
        assert_eq!(
            log,
            [
                format!(
                    "a: {head}\n  60000000 00081140 20010db8 00000000 00000000 00000001\n  \
                     20010db8 00010000 00000000 00000002 12345678 00100000\n  99"
                ),
                format!("b: {head}\n  60000000 00081140 2001"),
                head.to_string(),
                head.to_string(),
            ]
        );
        let log = run_log(&format!(
            "InfiniteSource(DATA \\<{d}>, LIMIT 1, STOP true) -> MarkIP6Header
               -> IP6Print(a, CONTENTS true) -> IP6Print(b, NBYTES 0, CONTENTS true)
               -> IP6Print(c, NBYTES 4, CONTENTS true) -> Discard"
        ));
        assert!(log[0].ends_with("12345678 00100000\n  "), "{log:?}");
        assert_eq!(log[1], format!("b: {head}\n  "));
        assert_eq!(log[2], format!("c: {head}\n  60000000 "));
    }

    /// Where Click crashes (no annotation, a short packet), we print a note.
    #[test]
    fn no_header() {
        let log = run_log(
            "InfiniteSource(DATA \\<600000000008>, LIMIT 1, STOP true) -> IP6Print(s)
               -> MarkIP6Header -> IP6Print(t, CONTENTS true) -> Discard",
        );
        assert_eq!(
            log,
            [
                "s: (no IPv6 header)",
                "t: (no IPv6 header)\n  60000000 0008"
            ]
        );
        config_errors(
            &registry(),
            |a| format!("Idle -> IP6Print({a}) -> Discard"),
            &[("a, FOO 1", "FOO"), ("a, NBYTES x", "NBYTES")],
        );
    }
}
