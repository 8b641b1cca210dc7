//! # Print
//!
//! `Print([LABEL, MAXLENGTH, KEYWORDS])`
//!
//! **Category:** basic debugging. Prints packet contents.
//!
//! **Ports:** one input, one output, agnostic.
//!
//! ## Description
//!
//! Prints one line for each packet that passes, to standard error, then
//! passes the packet on unchanged. The line is: LABEL and `: ` if a label
//! was given; the timestamp and `: ` if TIMESTAMP is true; the packet length
//! right-aligned in four columns; then ` | ` and up to MAXLENGTH bytes of
//! contents, in hex groups of four bytes (`  14 | 49206c6f 7665206d ...`)
//! or as ASCII text in groups of eight characters.
//!
//! Keywords:
//!
//! * `LABEL` (string): the label. Default none.
//! * `MAXLENGTH` (integer): most bytes to print. Default 24; a negative
//!   value prints every byte (Click's `Print(x, -1)`). `LENGTH` and
//!   `NBYTES` are deprecated synonyms.
//! * `CONTENTS` (word): `HEX` (the default), `ASCII`, `NONE`, or a boolean
//!   (true means HEX).
//! * `TIMESTAMP` (boolean): print the timestamp annotation. Default false.
//! * `PRINTANNO` (boolean): print the annotation bytes in hex. Default false.
//! * `HEADROOM` (boolean): print headroom and tailroom. Default false.
//! * `ACTIVE` (boolean): whether to print at all. Default true.
//!
//! ## Handlers
//!
//! * `active` (read/write): ACTIVE.
//!
//! ## Examples
//!
//! ```text
//! InfiniteSource(DATA "I love myself\n", LIMIT 1) -> Print(x) -> Discard;
//! // prints "x:   14 | 49206c6f 7665206d 7973656c 660a"
//! ```
//!
//! ## Annotations
//!
//! Reads the timestamp annotation when TIMESTAMP is true and prints the
//! user annotation area when PRINTANNO is true.
//!
//! ## See also
//!
//! IPPrint

use std::fmt::Write as _;

use rclick_core::args::{Args, Word};
use rclick_core::{Ctx, Element, HandlerDef, Packet};

use super::parse_bool;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Contents {
    None,
    Hex,
    Ascii,
}

rclick_core::handlers! {
    /// The handlers (the manual's list).
    enum H {
        Active = read_write("active"),
    }
}

/// The Print element.
pub struct Print {
    label: String,
    max: usize,
    contents: Contents,
    timestamp: bool,
    print_anno: bool,
    headroom: bool,
    active: bool,
}

impl Default for Print {
    fn default() -> Self {
        Print {
            label: String::new(),
            max: 24,
            contents: Contents::Hex,
            timestamp: false,
            print_anno: false,
            headroom: false,
            active: true,
        }
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Print {
    fn line(&self, p: &Packet) -> String {
        let bytes = if self.contents == Contents::None {
            0
        } else {
            self.max.min(p.len())
        };
        let mut s = String::with_capacity(self.label.len() + 48 + 3 * bytes);
        let mut sep = "";
        if !self.label.is_empty() {
            s.push_str(&self.label);
            sep = ": ";
        }
        if self.timestamp {
            let _ = write!(s, "{sep}{}", p.timestamp_anno());
            sep = ": ";
        }
        let _ = write!(s, "{sep}{:4}", p.len());
        if self.headroom {
            let _ = write!(s, " (h{} t{})", p.headroom(), p.tailroom());
        }
        if self.print_anno {
            s.push_str(" | ");
            for &b in p.anno().user.iter() {
                s.push(HEX[usize::from(b >> 4)] as char);
                s.push(HEX[usize::from(b & 15)] as char);
            }
        }
        if bytes > 0 {
            s.push_str(" | ");
            let data = &p.data()[..bytes];
            match self.contents {
                Contents::Hex => {
                    for (i, &b) in data.iter().enumerate() {
                        if i > 0 && i % 4 == 0 {
                            s.push(' ');
                        }
                        s.push(HEX[usize::from(b >> 4)] as char);
                        s.push(HEX[usize::from(b & 15)] as char);
                    }
                }
                Contents::Ascii => {
                    for (i, &b) in data.iter().enumerate() {
                        if i % 8 == 0 {
                            s.push(' ');
                        }
                        s.push(if (32..=126).contains(&b) {
                            b as char
                        } else {
                            '.'
                        });
                    }
                }
                Contents::None => {}
            }
        }
        s
    }
}

impl Element for Print {
    fn class_name(&self) -> &'static str {
        "Print"
    }

    fn configure(
        &mut self,
        conf: &[String],
        _cx: &mut rclick_core::ConfigureCx,
    ) -> Result<(), String> {
        let mut label = String::new();
        let mut max: i64 = 24;
        let (mut max_dep, mut max_nb) = (i64::MIN, i64::MIN);
        let mut contents = Word("HEX".into());
        let mut timestamp = false;
        let mut print_anno = false;
        let mut active = true;
        let mut headroom = false;
        Args::new(conf)
            .read_p("LABEL", &mut label)
            .read_p("MAXLENGTH", &mut max)
            .read("LENGTH", &mut max_dep)
            .read("NBYTES", &mut max_nb)
            .read("CONTENTS", &mut contents)
            .read("TIMESTAMP", &mut timestamp)
            .read("PRINTANNO", &mut print_anno)
            .read("ACTIVE", &mut active)
            .read("HEADROOM", &mut headroom)
            .complete()
            .map_err(|e| e.to_string())?;
        for m in [max_dep, max_nb] {
            if m != i64::MIN {
                max = m;
            }
        }
        let c = match parse_bool(&contents.0) {
            Some(true) => Contents::Hex,
            Some(false) => Contents::None,
            None => match contents.0.to_ascii_uppercase().as_str() {
                "NONE" => Contents::None,
                "HEX" => Contents::Hex,
                "ASCII" => Contents::Ascii,
                other => {
                    return Err(format!(
                        "bad contents value '{other}'; should be 'NONE', 'HEX', or 'ASCII'"
                    ))
                }
            },
        };
        self.label = label;
        // Negative: no limit, as in Click.
        self.max = usize::try_from(max).unwrap_or(usize::MAX);
        self.contents = c;
        self.timestamp = timestamp;
        self.print_anno = print_anno;
        self.active = active;
        self.headroom = headroom;
        Ok(())
    }

    fn simple_action(&mut self, p: Packet, cx: &mut Ctx) -> Option<Packet> {
        if self.active {
            cx.log(self.line(&p));
        }
        Some(p)
    }

    fn push(&mut self, _port: usize, batch: rclick_core::PacketBatch, cx: &mut Ctx) {
        if self.active {
            for p in batch.iter() {
                cx.log(self.line(p));
            }
        }
        cx.push(0, batch);
    }

    fn pull(&mut self, _port: usize, max: usize, cx: &mut Ctx) -> rclick_core::PacketBatch {
        let batch = cx.pull(0, max);
        if self.active {
            for p in batch.iter() {
                cx.log(self.line(p));
            }
        }
        batch
    }

    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }

    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Active) => Ok(self.active.to_string()),
            _ => Err("no such handler".into()),
        }
    }

    fn write_handler(&mut self, id: u32, value: &str, _cx: &mut Ctx) -> Result<(), String> {
        match H::from_id(id) {
            Some(H::Active) => {
                self.active = parse_bool(value).ok_or("expected boolean")?;
                Ok(())
            }
            _ => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    fn lines(conf: &str) -> Vec<String> {
        let r = testing::run(conf, &registry()).unwrap();
        r.take_log()
    }

    #[test]
    fn hex_format() {
        let l = lines("InfiniteSource(DATA \"I love myself\\n\", LIMIT 1, STOP true) -> Print -> Print(label) -> Discard;");
        assert_eq!(
            l,
            vec![
                "  14 | 49206c6f 7665206d 7973656c 660a",
                "label:   14 | 49206c6f 7665206d 7973656c 660a"
            ]
        );
    }

    #[test]
    fn ascii_and_none_and_maxlength() {
        let l = lines(
            "InfiniteSource(DATA \"I love myself\\n\", LIMIT 1, STOP true) -> Print(a, CONTENTS ASCII) \
             -> Print(b, CONTENTS NONE) -> Print(c, 3) -> Print(CONTENTS false) -> Discard;",
        );
        assert_eq!(
            l,
            vec![
                "a:   14 |  I love m yself.",
                "b:   14",
                "c:   14 | 49206c",
                "  14"
            ]
        );
    }

    #[test]
    fn negative_maxlength_prints_everything() {
        // Click prints all 30 bytes for `Print(x, -1)` (checked with clickdiff).
        let l = lines(
            "InfiniteSource(DATA \"abcdefghijklmnopqrstuvwxyz0123\", LIMIT 1, STOP true) \
             -> Print(x, -1) -> Print(y, MAXLENGTH -5) -> Print(z, 2) -> Discard;",
        );
        let all = "   30 | 61626364 65666768 696a6b6c 6d6e6f70 71727374 75767778 797a3031 3233";
        assert_eq!(
            l,
            vec![
                format!("x:{all}"),
                format!("y:{all}"),
                "z:   30 | 6162".into()
            ]
        );
    }

    #[test]
    fn empty_packet_and_bad_contents() {
        let l = lines("InfiniteSource(DATA \"\", LIMIT 1, STOP true) -> Print(e) -> Discard;");
        assert_eq!(l, vec!["e:    0"]);
        let e = testing::build(
            "Idle -> Print(CONTENTS octal) -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("bad contents value 'OCTAL'"), "{e}");
    }

    #[test]
    fn inactive() {
        let r = testing::build(
            "InfiniteSource(LIMIT 2, STOP true) -> p :: Print(ACTIVE false) -> Discard;",
            &registry(),
            true,
        )
        .unwrap();
        r.run();
        assert!(r.take_log().is_empty());
        assert_eq!(testing::read(&r, "p.active"), "false");
    }
}
