//! # Classifier
//!
//! `Classifier(PATTERN_1, ..., PATTERN_N)`
//!
//! **Category:** classification. Sends packets out the output of the first
//! pattern they match.
//!
//! **Ports:** one push input, N push outputs (one per pattern).
//!
//! ## Description
//!
//! Each pattern is a space-separated list of clauses `OFFSET/VALUE` or
//! `OFFSET/VALUE%MASK`. OFFSET is a decimal byte offset into the packet;
//! VALUE and MASK are strings of an even number of hex digits, the same
//! length, compared with the packet bytes from OFFSET on (only bits set in
//! MASK count). A `?` in VALUE or MASK matches any nibble. A clause
//! preceded by `!` matches when the bytes do not match. A packet matches a
//! pattern when it matches every clause; the pattern `-` matches every
//! packet. Packets go out the output of the first pattern they match and are
//! dropped if they match none.
//!
//! A packet too short for a clause's bytes does not match that clause
//! (so it does match a negated one, as in Click).
//!
//! The patterns are compiled into a decision tree of masked 32-bit
//! compares and optimized as Click does it (the classification engine
//! IPClassifier and IPFilter share, crate rclick-classify); the `program`
//! handler shows it in Click's format, as Click prints it.
//!
//! ## Handlers
//!
//! * `program` (read): the compiled decision tree.
//!
//! ## Examples
//!
//! ```text
//! Classifier(12/0806 20/0001,  // ARP requests
//!            12/0806 20/0002,  // ARP replies
//!            12/0800,          // IP
//!            -);               // everything else
//! ```
//!
//! ## Annotations
//!
//! None used or set.
//!
//! ## See also
//!
//! IPClassifier, IPFilter, PaintSwitch

use rclick_classify::{
    Combiner, Layout, Program as Wordwise, ZProgram, J_FAILURE, J_NEVER, J_SUCCESS,
};
use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::paint_switch::push_by;

rclick_core::handlers! {
    /// Classifier's handlers.
    enum H {
        Program = read("program"),
    }
}

/// A compiled Classifier program: the patterns' tests, optimized and
/// compressed by the classification engine, over the packet's bytes.
#[derive(Clone, Debug, Default)]
pub struct Program {
    z: ZProgram,
}

impl Program {
    /// The output a packet with `data` goes to, or `None` to drop it.
    #[inline]
    pub fn classify(&self, data: &[u8], noutputs: usize) -> Option<usize> {
        let o = self.classify_raw(data);
        (o < noutputs).then_some(o)
    }

    /// The output a packet with `data` goes to; anything at or beyond the
    /// number of outputs means "drop". A packet long enough for every word
    /// the program tests (the usual case) takes the engine's fast form;
    /// shorter ones [`classify_careful`](Self::classify_careful).
    #[inline]
    pub fn classify_raw(&self, data: &[u8]) -> usize {
        self.z.classify_bytes(data)
    }

    /// [`classify_raw`](Self::classify_raw) for any packet, however short:
    /// a word the packet holds only in part is compared when its missing
    /// bytes are masked out, and a compare the packet is too short for goes
    /// the way its `short_output` says.
    pub fn classify_careful(&self, data: &[u8]) -> usize {
        self.z.classify_careful_bytes(data)
    }

    /// Bytes a packet needs for the fast form: the end of the last word
    /// tested (0 when there are no tests).
    pub fn whole_len(&self) -> usize {
        self.z
            .steps
            .iter()
            .map(|st| st.offset as usize + 4)
            .max()
            .unwrap_or(0)
    }

    /// Click's `program` handler text.
    pub fn unparse(&self) -> String {
        let mut s = self.z.unparse();
        if s.ends_with('\n') {
            s.pop();
        }
        s
    }
}

fn nibble(c: u8) -> (u8, u8) {
    match c {
        b'?' => (0, 0),
        b'0'..=b'9' => (c - b'0', 0xF),
        b'a'..=b'f' => (c - b'a' + 10, 0xF),
        b'A'..=b'F' => (c - b'A' + 10, 0xF),
        _ => (0, 0xF),
    }
}

/// Largest offset a clause may name.
const MAX_OFFSET: u64 = 1 << 24;

/// Compiles Classifier patterns, reporting every error Click would.
pub fn compile(patterns: &[String]) -> Result<Program, String> {
    let mut errors: Vec<String> = Vec::new();
    let mut prog = Wordwise::new();
    let mut tree = prog.init_subtree();
    // The patterns ORed in order: failure of one tries the next.
    prog.start_subtree(&mut tree);
    for (slot, pat) in patterns.iter().enumerate() {
        let s = pat.trim().as_bytes();
        let len = s.len();
        let mut i = if s == b"-" { 1 } else { 0 };
        // A pattern's terms ANDed: success of one leads to the next.
        prog.start_subtree(&mut tree);
        let mut nterms = 0;
        while i < len {
            while i < len && s[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= len {
                break;
            }
            let mut negated = false;
            if s[i] == b'!' {
                negated = true;
                i += 1;
                while i < len && s[i].is_ascii_whitespace() {
                    i += 1;
                }
            }
            if i >= len || !s[i].is_ascii_digit() {
                errors.push(format!("pattern {slot}: expected a digit"));
                break;
            }
            let mut offset: u64 = 0;
            while i < len && s[i].is_ascii_digit() {
                offset = (offset * 10 + u64::from(s[i] - b'0')).min(u64::MAX / 20);
                i += 1;
            }
            if i >= len || s[i] != b'/' {
                errors.push(format!("pattern {slot}: expected '/'"));
                break;
            }
            i += 1;
            let vpos = i;
            while i < len && (s[i].is_ascii_hexdigit() || s[i] == b'?') {
                i += 1;
            }
            let mut vend = i;
            let mut mpos: Option<usize> = None;
            let mut mend = 0usize;
            if i < len && s[i] == b'%' {
                i += 1;
                mpos = Some(i);
                while i < len && (s[i].is_ascii_hexdigit() || s[i] == b'?') {
                    i += 1;
                }
                mend = i;
            }
            if vend - vpos < 2 {
                errors.push(format!("pattern {slot}: value has less than 2 hex digits"));
                vend = vpos;
                if let Some(mp) = mpos {
                    mend = mp;
                }
            }
            if (vend - vpos) % 2 != 0 {
                errors.push(format!(
                    "pattern {slot}: value has odd number of hex digits"
                ));
                vend -= 1;
                if mpos.is_some() {
                    mend = mend.saturating_sub(1);
                }
            }
            if let Some(mp) = mpos {
                let (ml, vl) = (mend.saturating_sub(mp), vend - vpos);
                if ml != vl {
                    let too_many = ml > vl;
                    errors.push(format!(
                        "pattern {slot}: mask has too {} hex digits",
                        if too_many { "many" } else { "few" }
                    ));
                    if !too_many {
                        vend = vpos + ml;
                    }
                }
            }
            if offset + ((vend - vpos) / 2) as u64 > MAX_OFFSET {
                errors.push(format!("pattern {slot}: offset too large"));
                break;
            }
            // One compare per 32-bit word the bytes touch: (word offset,
            // value bytes, mask bytes).
            let mut words: Vec<(u32, [u8; 4], [u8; 4])> = Vec::new();
            let (mut vp, mut mp) = (vpos, mpos);
            let mut fresh = true;
            let mut nbytes = (vend - vpos) / 2;
            if let Some(m) = mpos {
                nbytes = nbytes.min(mend.saturating_sub(m) / 2);
            }
            for off in (offset as u32..).take(nbytes) {
                let (v1, m1) = nibble(s[vp]);
                let (v0, m0) = nibble(s[vp + 1]);
                let mut v = (v1 << 4) | v0;
                let mut m = (m1 << 4) | m0;
                vp += 2;
                if let Some(p) = mp {
                    let (mv1, mm1) = nibble(s[p]);
                    let (mv0, mm0) = nibble(s[p + 1]);
                    m &= ((mv1 << 4) | mv0) & ((mm1 << 4) | mm0);
                    mp = Some(p + 2);
                }
                v &= m;
                if fresh || off & 3 == 0 {
                    words.push((off / 4 * 4, [0; 4], [0; 4]));
                    fresh = false;
                }
                if let Some(last) = words.last_mut() {
                    last.1[(off & 3) as usize] = v;
                    last.2[(off & 3) as usize] = m;
                }
            }
            if !words.is_empty() {
                // A term's words ANDed; negation swaps success and failure
                // (a packet too short for it matches the negated term).
                prog.start_subtree(&mut tree);
                for (off, v, m) in words {
                    prog.add_insn(&mut tree, off, u32::from_be_bytes(v), u32::from_be_bytes(m));
                }
                prog.finish_subtree(&mut tree, Combiner::And, J_SUCCESS, J_FAILURE);
                if negated {
                    prog.negate_subtree(&tree, false);
                }
                nterms += 1;
            }
        }
        if nterms == 0 {
            // `-`, or nothing: a test that every packet passes.
            prog.add_insn(&mut tree, 0, 0, 0);
        }
        prog.finish_subtree(&mut tree, Combiner::And, -(slot as i32), J_FAILURE);
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    prog.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
    prog.optimize();
    Ok(Program {
        z: ZProgram::compile_with(&prog, Layout::Bytes),
    })
}

/// The Classifier element.
#[derive(Default)]
pub struct Classifier {
    prog: Program,
}

impl Element for Classifier {
    fn class_name(&self) -> &'static str {
        "Classifier"
    }
    /// Per packet, independent of other elements: the scheduler may batch a source's runs through it.
    fn batch_transparent(&self) -> bool {
        true
    }
    fn port_count(&self) -> &'static str {
        "1/-"
    }
    fn processing(&self) -> &'static str {
        "h/h"
    }
    fn configure(&mut self, conf: &[String], cx: &mut ConfigureCx) -> Result<(), String> {
        if conf.len() != cx.noutputs() {
            return Err(format!(
                "need {} arguments, one per output port",
                cx.noutputs()
            ));
        }
        self.prog = compile(conf)?;
        Ok(())
    }
    fn push(&mut self, _port: usize, batch: PacketBatch, cx: &mut Ctx) {
        let prog = &self.prog;
        push_by(batch, cx, |p| prog.classify_raw(p.data()));
    }
    fn handlers(&self) -> Vec<HandlerDef> {
        H::all_defs()
    }
    fn read_handler(&mut self, id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        match H::from_id(id) {
            Some(H::Program) => Ok(self.prog.unparse()),
            None => Err("no such handler".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::compile;
    use crate::basic::test_util::registry;
    use rclick_core::testing;

    fn prog(p: &[&str]) -> super::Program {
        compile(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn click_program_text() {
        let p = prog(&["1/01", "-"]);
        assert_eq!(
            p.unparse(),
            " 0   0/00010000%00ff0000  yes->[0]  no->[1]\nsafe length 2\nalignment offset 0"
        );
        let p = prog(&["-"]);
        assert_eq!(p.unparse(), "all->[0]\nsafe length 0\nalignment offset 0");
    }

    #[test]
    fn implied_branches_are_skipped() {
        let p = prog(&["12/0806 20/0001", "12/0806 20/0002", "12/0800", "-"]);
        assert_eq!(
            p.unparse(),
            " 0  12/08060000%ffff0000  yes->step 1  no->step 3\n 1  20/00010000%ffff0000  yes->[0]  no->step 2\n \
             2  20/00020000%ffff0000  yes->[1]  no->[3]\n 3  12/08000000%ffff0000  yes->[2]  no->[3]\n\
             safe length 22\nalignment offset 0"
        );
        let mut arp = vec![0u8; 42];
        arp[12] = 8;
        arp[13] = 6;
        arp[21] = 2;
        assert_eq!(p.classify(&arp, 4), Some(1));
        assert_eq!(p.classify(&arp[..14], 4), Some(3));
        arp[13] = 0;
        assert_eq!(p.classify(&arp, 4), Some(2));
    }

    #[test]
    fn matching() {
        let p = prog(&["12/0800 14/45", "12/0806 20/0001", "!0/ff", "-"]);
        let mut ip = vec![0u8; 40];
        ip[12] = 8;
        ip[14] = 0x45;
        assert_eq!(p.classify(&ip, 4), Some(0));
        let mut arp = vec![0u8; 42];
        arp[12] = 8;
        arp[13] = 6;
        arp[21] = 1;
        assert_eq!(p.classify(&arp, 4), Some(1));
        arp[21] = 2;
        assert_eq!(p.classify(&arp, 4), Some(2));
        let mut ff = vec![0u8; 42];
        ff[0] = 0xff;
        assert_eq!(p.classify(&ff, 4), Some(3));
        // Short packets match no clause (but do match a negated one).
        assert_eq!(p.classify(&[8], 4), Some(2));
        assert_eq!(p.classify(&[], 4), Some(2));
        assert_eq!(p.classify(&[0xff], 4), Some(3));
    }

    #[test]
    fn wildcards_and_masks() {
        let p = prog(&["0/1?%f0", "0/0?3?", "2/ff%0f"]);
        assert_eq!(p.classify(&[0x1a], 3), Some(0));
        assert_eq!(p.classify(&[0x05, 0x3c], 3), Some(1));
        assert_eq!(p.classify(&[0x00, 0x00, 0xaf], 3), Some(2));
        assert_eq!(p.classify(&[0x00, 0x00, 0xa0], 3), None);
        assert_eq!(p.classify(&[0x00, 0x00], 3), None);
    }

    #[test]
    fn unaligned_multiword() {
        let p = prog(&["3/0102030405"]);
        let mut d = vec![0u8; 10];
        d[3..8].copy_from_slice(&[1, 2, 3, 4, 5]);
        assert_eq!(p.classify(&d, 1), Some(0));
        d[7] = 6;
        assert_eq!(p.classify(&d, 1), None);
        assert_eq!(p.classify(&d[..7], 1), None);
    }

    #[test]
    fn errors() {
        let e = compile(&[
            "x/01".to_string(),
            "1/0".to_string(),
            "1/01%f".to_string(),
            "4".to_string(),
        ])
        .unwrap_err();
        assert_eq!(
            e,
            "pattern 0: expected a digit\npattern 1: value has less than 2 hex digits\npattern 2: mask has too few hex digits\npattern 3: expected '/'"
        );
        let e = testing::build(
            "Idle -> c :: Classifier(1/01) -> Discard; c[1] -> Discard;",
            &registry(),
            true,
        )
        .err()
        .unwrap();
        assert!(e.contains("need 2 arguments, one per output port"), "{e}");
    }

    #[test]
    fn huge_offset_does_not_panic() {
        assert!(compile(&["99999999999999999999999/01".to_string()]).is_err());
        let p = prog(&["16000000/01"]);
        assert_eq!(p.classify(&[1, 2, 3], 1), None);
    }

    #[test]
    fn element() {
        let r = testing::run(
            "InfiniteSource(\\<0001>, LIMIT 3, STOP true) -> c :: Classifier(1/02, 1/01, -) -> a :: Counter -> Discard; \
             c[1] -> b :: Counter -> Discard; c[2] -> x :: Counter -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "a.count"), "0");
        assert_eq!(testing::read(&r, "b.count"), "3");
        assert_eq!(testing::read(&r, "x.count"), "0");
        let r = testing::run(
            "InfiniteSource(LIMIT 1, STOP true) -> Classifier(-) -> Print(A) -> Discard;",
            &registry(),
        )
        .unwrap();
        assert_eq!(r.take_log().len(), 1);
    }

    /// The fast form answers as the careful walk for every packet long
    /// enough for it, on random programs and packets.
    #[test]
    fn fast_form_agrees_with_careful_walk() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let bytes = ["00", "01", "ff", "0?", "?1", "??", "f0", "08", "06"];
        for _ in 0..400 {
            let npat = 1 + rnd(5) as usize;
            let pats: Vec<String> = (0..npat)
                .map(|_| {
                    if rnd(6) == 0 {
                        return "-".to_string();
                    }
                    (0..1 + rnd(3))
                        .map(|_| {
                            let len = 1 + rnd(4) as usize;
                            let val: String = (0..len).map(|_| bytes[rnd(9) as usize]).collect();
                            let neg = if rnd(4) == 0 { "!" } else { "" };
                            format!("{neg}{}/{val}", rnd(40))
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let p = compile(&pats).unwrap();
            for _ in 0..40 {
                let len = p.whole_len() + rnd(8) as usize;
                let data: Vec<u8> = (0..len)
                    .map(|_| [0u8, 1, 0xff, 0x10, 8, 6][rnd(6) as usize])
                    .collect();
                assert_eq!(
                    p.classify_raw(&data),
                    p.classify_careful(&data),
                    "{pats:?} on {data:02x?}\n{}",
                    p.unparse()
                );
            }
        }
    }

    /// A short packet and a test the optimizer flipped: the negated
    /// clause `!9/...%...01` becomes "byte 12 bit 0 clear goes to 0", so a
    /// 6-byte packet, too short for byte 12, goes to output 1, as Click
    /// sends it (checked with Click: `one: 6 | 00ff1010 0000`; the plain
    /// reading of the patterns would say 0).
    #[test]
    fn short_packets_go_as_in_click() {
        let p = prog(&[
            "6/0???0000%?1??0?0? !9/01??00ff%000????1",
            "-",
            "1/01???1?1 7/010001????%00?10101?? 0/000?00%f0fff0",
        ]);
        assert_eq!(
            p.unparse(),
            " 0  12/00000000%01000000  yes->[0]  no->[1]\nsafe length 13\nalignment offset 0"
        );
        assert_eq!(
            p.classify(&[0x00, 0xff, 0x10, 0x10, 0x00, 0x00], 3),
            Some(1)
        );
    }

    /// Straightforward reading of the pattern language, for comparison.
    fn naive(patterns: &[String], data: &[u8]) -> Option<usize> {
        'pat: for (i, p) in patterns.iter().enumerate() {
            for clause in p.split_whitespace().filter(|c| *c != "-") {
                let (neg, c) = match clause.strip_prefix('!') {
                    Some(c) => (true, c),
                    None => (false, clause),
                };
                let (off, rest) = c.split_once('/').unwrap();
                let off: usize = off.parse().unwrap();
                let (val, mask) = rest.split_once('%').unwrap_or((rest, ""));
                let vb = val.as_bytes();
                let mb = mask.as_bytes();
                let mut ok = true;
                for k in 0..vb.len() / 2 {
                    let nib = |c: u8| super::nibble(c);
                    let (v1, m1) = nib(vb[2 * k]);
                    let (v0, m0) = nib(vb[2 * k + 1]);
                    let mut m = (m1 << 4) | m0;
                    if !mb.is_empty() {
                        let (a1, b1) = nib(mb[2 * k]);
                        let (a0, b0) = nib(mb[2 * k + 1]);
                        m &= ((a1 << 4) | a0) & ((b1 << 4) | b0);
                    }
                    let v = ((v1 << 4) | v0) & m;
                    if m != 0 {
                        match data.get(off + k) {
                            Some(&d) if d & m == v => {}
                            _ => ok = false,
                        }
                    }
                }
                if ok == neg {
                    continue 'pat;
                }
            }
            return Some(i);
        }
        None
    }

    /// Packets that hold every byte the patterns test get what the
    /// pattern language says. (Shorter ones go as Click sends them, which
    /// is not always the plain reading: see `short_packets_go_as_in_click`.)
    #[test]
    fn compiled_programs_agree_with_the_pattern_language() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let bytes = ["00", "01", "ff", "0?", "?1", "??", "f0"];
        for _ in 0..400 {
            let npat = 1 + rnd(4) as usize;
            let mut pats = Vec::new();
            for _ in 0..npat {
                if rnd(6) == 0 {
                    pats.push("-".to_string());
                    continue;
                }
                let mut clauses = Vec::new();
                for _ in 0..1 + rnd(3) {
                    let off = rnd(10);
                    let len = 1 + rnd(5) as usize;
                    let val: String = (0..len).map(|_| bytes[rnd(7) as usize]).collect();
                    let mask = if rnd(3) == 0 {
                        format!(
                            "%{}",
                            (0..len).map(|_| bytes[rnd(7) as usize]).collect::<String>()
                        )
                    } else {
                        String::new()
                    };
                    let neg = if rnd(4) == 0 { "!" } else { "" };
                    clauses.push(format!("{neg}{off}/{val}{mask}"));
                }
                pats.push(clauses.join(" "));
            }
            let p = compile(&pats).unwrap();
            for _ in 0..40 {
                let len = p.whole_len() + rnd(6) as usize;
                let data: Vec<u8> = (0..len)
                    .map(|_| [0u8, 1, 0xff, 0x10][rnd(4) as usize])
                    .collect();
                assert_eq!(
                    p.classify(&data, npat),
                    naive(&pats, &data),
                    "{pats:?} on {data:02x?}\n{}",
                    p.unparse()
                );
            }
        }
    }
}
