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
//! compares, with adjacent compatible compares merged; the `program`
//! handler shows it in Click's format.
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

use std::fmt::Write as _;

use rclick_core::{ConfigureCx, Ctx, Element, HandlerDef, PacketBatch};

use super::paint_switch::push_by;

/// Jump to no output (drop).
const J_NEVER: i32 = i32::MIN + 2;
/// Placeholder: the enclosing expression failed.
const J_FAILURE: i32 = J_NEVER + 1;
/// Placeholder: the enclosing expression succeeded.
const J_SUCCESS: i32 = J_NEVER + 2;

/// One masked 32-bit compare. Jumps `> 0` name instructions, `<= 0` are
/// negated output numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    offset: u32,
    mask: [u8; 4],
    value: [u8; 4],
    /// `[no, yes]`.
    j: [i32; 2],
    /// Where a packet too short for this compare goes: yes if true.
    short_output: bool,
}

impl Insn {
    fn new(offset: u32) -> Insn {
        Insn {
            offset,
            mask: [0; 4],
            value: [0; 4],
            j: [J_FAILURE, J_SUCCESS],
            short_output: false,
        }
    }
    fn mask_u(&self) -> u32 {
        u32::from_be_bytes(self.mask)
    }
    fn value_u(&self) -> u32 {
        u32::from_be_bytes(self.value)
    }
    fn set_mask_u(&mut self, m: u32) {
        self.mask = m.to_be_bytes();
    }
    fn set_value_u(&mut self, v: u32) {
        self.value = v.to_be_bytes();
    }
    fn yes(&self) -> i32 {
        self.j[1]
    }
    fn no(&self) -> i32 {
        self.j[0]
    }
    fn required_length(&self) -> u32 {
        match self.mask.iter().rposition(|&b| b != 0) {
            Some(i) => self.offset + i as u32 + 1,
            None => 0,
        }
    }
    /// Whether the two compares can both succeed (same word, agreeing
    /// values where their masks overlap).
    fn compatible(&self, x: &Insn) -> bool {
        if self.mask_u() == 0 || x.mask_u() == 0 {
            return true;
        }
        if x.offset != self.offset {
            return false;
        }
        let both = self.mask_u() & x.mask_u();
        (self.value_u() & both) == (x.value_u() & both)
    }
    fn flippable(&self) -> bool {
        let m = self.mask_u();
        m != 0 && m & (m - 1) == 0
    }
    fn flip(&mut self) {
        self.set_value_u(self.value_u() ^ self.mask_u());
        self.j.swap(0, 1);
        self.short_output = !self.short_output;
    }
    fn generalizable_or_pair(&self, x: &Insn) -> bool {
        let diff = self.value_u() ^ x.value_u();
        if self.offset != 0
            && x.offset == self.offset
            && self.mask_u() != 0
            && x.mask_u() == self.mask_u()
            && (self.short_output || !x.short_output)
            && self.yes() == x.yes()
            && diff != 0
            && diff & (diff - 1) == 0
        {
            let mut t = Insn::new(self.offset);
            t.set_mask_u(self.mask_u() & !diff);
            t.required_length() == self.required_length()
        } else {
            false
        }
    }
}

/// Where short packets must go when compare `a` and the compare `b` on its
/// "yes" branch (same "no" branch, same word) become one compare; `None`
/// when no single choice gives the same answers as the two compares.
fn merged_short_output(a: &Insn, b: &Insn) -> Option<bool> {
    if a.mask_u() == 0 {
        // A compare that tests nothing becomes the next one entirely.
        return Some(b.short_output);
    }
    if b.mask_u() == 0 {
        return Some(a.short_output);
    }
    let (ra, rb) = (a.required_length(), b.required_length());
    match (a.short_output, b.short_output) {
        (false, false) => Some(false),
        (true, true) if ra == rb => Some(true),
        (true, false) if rb >= ra => Some(false),
        (false, true) if rb <= ra => Some(false),
        _ => None,
    }
}

fn jump_text(s: &mut String, j: i32) {
    if j <= J_SUCCESS {
        let c = ['X', '-', '+'][(j - J_NEVER) as usize];
        let _ = write!(s, "[{c}]");
    } else if j <= 0 {
        let _ = write!(s, "[{}]", -(j as i64));
    } else {
        let _ = write!(s, "step {j}");
    }
}

/// One compare of the fast form: the native-endian word at `offset`,
/// masked, against `value`; `next[1]` if equal, else `next[0]` (jumps as in
/// [`Insn`]: `> 0` a step, `<= 0` a negated output).
#[derive(Clone, Copy, Debug)]
struct Step {
    offset: u32,
    mask: u32,
    value: u32,
    next: [i32; 2],
}

/// A compiled classifier program (Click's wordwise program).
#[derive(Clone, Debug, Default)]
pub struct Program {
    insns: Vec<Insn>,
    /// Matchers without compares send everything to one output (or, when
    /// negative, the program is not trivial).
    output_everything: i64,
    safe_length: u32,
    /// Careful form: (offset, mask, value, no, yes, short_output).
    careful: Vec<(usize, u32, u32, i32, i32, bool)>,
    /// Fast form, for packets that hold every word any step reads.
    steps: Vec<Step>,
    /// Bytes a packet needs for the fast form: the end of the last word
    /// read (0 when there are no steps).
    whole_len: usize,
}

/// The output a jump `j <= 0` names (out of range for "drop": `J_NEVER`
/// and the placeholders are far beyond any output).
#[inline(always)]
fn jump_output(j: i32) -> usize {
    (-(j as i64)) as usize
}

impl Program {
    /// The output a packet with `data` goes to, or `None` to drop it.
    #[inline]
    pub fn classify(&self, data: &[u8], noutputs: usize) -> Option<usize> {
        let o = self.classify_raw(data);
        (o < noutputs).then_some(o)
    }

    /// The output a packet with `data` goes to; anything at or beyond the
    /// number of outputs means "drop".
    ///
    /// A packet long enough for every word the program reads (the usual
    /// case) walks the steps with one compare each and no length logic:
    /// the Ethernet classifier of Click's IP router (`12/0806 20/0001,
    /// 12/0806 20/0002, 12/0800, -`) takes two steps for an IP packet,
    /// 61 instructions per packet against 99 for the careful walk
    /// (callgrind, BURST 32). Shorter packets take
    /// [`classify_careful`](Self::classify_careful).
    #[inline]
    pub fn classify_raw(&self, data: &[u8]) -> usize {
        if data.len() < self.whole_len || self.steps.is_empty() {
            return self.classify_careful(data);
        }
        let mut pos = 0usize;
        loop {
            let Some(s) = self.steps.get(pos) else {
                return usize::MAX;
            };
            let at = s.offset as usize;
            let w = match data.get(at..at + 4) {
                Some(&[a, b, c, d]) => u32::from_ne_bytes([a, b, c, d]),
                _ => return self.classify_careful(data),
            };
            let next = s.next[usize::from(w & s.mask == s.value)];
            if next <= 0 {
                return jump_output(next);
            }
            pos = next as usize;
        }
    }

    /// [`classify_raw`](Self::classify_raw) for any packet, however short:
    /// a word the packet holds only in part is compared when its missing
    /// bytes are masked out, and a compare the packet is too short for goes
    /// the way its `short_output` says.
    #[inline(never)]
    pub fn classify_careful(&self, data: &[u8]) -> usize {
        if self.careful.is_empty() {
            return usize::try_from(self.output_everything).unwrap_or(usize::MAX);
        }
        let len = data.len();
        let mut pos = 0usize;
        loop {
            let Some(&(off, mask, value, no, yes, short)) = self.careful.get(pos) else {
                return usize::MAX;
            };
            let word = if let Some(w) = data.get(off..off + 4) {
                Some(u32::from_ne_bytes([w[0], w[1], w[2], w[3]]))
            } else if off < len {
                // Partial word: fine if the missing bytes are masked out.
                let avail = len - off;
                let m = mask.to_ne_bytes();
                if m[3] != 0 || (m[2] != 0 && avail <= 2) || (m[1] != 0 && avail == 1) {
                    None
                } else {
                    let mut b = [0u8; 4];
                    b[..avail].copy_from_slice(&data[off..]);
                    Some(u32::from_ne_bytes(b))
                }
            } else {
                None
            };
            let next = match word {
                Some(w) => {
                    if w & mask == value {
                        yes
                    } else {
                        no
                    }
                }
                None => {
                    if short {
                        yes
                    } else {
                        no
                    }
                }
            };
            if next <= 0 {
                return jump_output(next);
            }
            pos = next as usize;
        }
    }

    /// Click's `program` handler text.
    pub fn unparse(&self) -> String {
        let mut s = String::new();
        for (i, insn) in self.insns.iter().enumerate() {
            let _ = write!(
                s,
                "{}{} {:3}/",
                if i < 10 { " " } else { "" },
                i,
                insn.offset
            );
            for b in insn.value {
                let _ = write!(s, "{b:02x}");
            }
            s.push('%');
            for b in insn.mask {
                let _ = write!(s, "{b:02x}");
            }
            s.push_str("  yes->");
            jump_text(&mut s, insn.yes());
            s.push_str("  no->");
            jump_text(&mut s, insn.no());
            if insn.short_output {
                s.push_str("  short->yes");
            }
            s.push('\n');
        }
        if self.insns.is_empty() {
            let _ = writeln!(s, "all->[{}]", self.output_everything);
        }
        let _ = writeln!(s, "safe length {}", self.safe_length);
        let _ = write!(s, "alignment offset 0");
        s
    }

    /// Whether knowing that compare `a` went `a_yes` decides compare `b`;
    /// returns its outcome. Only used while every short packet goes "no".
    fn decides(a: &Insn, a_yes: bool, b: &Insn) -> Option<bool> {
        if b.mask_u() == 0 {
            return Some(true);
        }
        if a.offset != b.offset || a.mask_u() == 0 {
            return None;
        }
        let (am, bm) = (a.mask_u(), b.mask_u());
        let both = am & bm;
        if a_yes {
            // A matched, so the packet holds A's bytes, which cover B's.
            if both == bm {
                return Some(a.value_u() & bm == b.value_u());
            }
            None
        } else if both == am && b.value_u() & am == a.value_u() {
            // B tests everything A tested the same way: B fails too (also
            // when A failed for lack of bytes, since B needs at least as many).
            Some(false)
        } else {
            None
        }
    }

    /// Click's dominator optimization, simplified: a branch that leads to a
    /// compare whose outcome every path to it already decides is redirected
    /// past that compare. Facts known at a compare are the branch outcomes
    /// common to all paths reaching it (jumps only go forward).
    fn shift_implied_branches(&mut self) {
        let n = self.insns.len();
        if n == 0 || n > 4096 || self.insns.iter().any(|i| i.short_output) {
            return;
        }
        let mut facts: Vec<Option<Vec<(usize, bool)>>> = vec![None; n];
        facts[0] = Some(Vec::new());
        for s in 0..n {
            let Some(known) = facts[s].take() else {
                continue;
            };
            for k in 0..2 {
                let mut t = self.insns[s].j[k];
                let mut path = known.clone();
                path.push((s, k == 1));
                let mut guard = 0;
                while t > 0 && (t as usize) < n && guard < n {
                    guard += 1;
                    let target = self.insns[t as usize];
                    let decided = path
                        .iter()
                        .find_map(|&(a, yes)| Self::decides(&self.insns[a], yes, &target));
                    match decided {
                        Some(out) => t = target.j[usize::from(out)],
                        None => break,
                    }
                }
                self.insns[s].j[k] = t;
                if t > 0 && (t as usize) < n {
                    let ti = t as usize;
                    path.sort_unstable();
                    facts[ti] = Some(match facts[ti].take() {
                        None => path,
                        Some(prev) => prev
                            .into_iter()
                            .filter(|f| path.binary_search(f).is_ok())
                            .collect(),
                    });
                }
            }
            facts[s] = Some(known);
        }
    }

    fn combine_compatible_states(&mut self) {
        let mut i = self.insns.len() as isize - 1;
        let mut guard = 0usize;
        while i >= 0 {
            guard += 1;
            if guard > 1_000_000 {
                break;
            }
            let iu = i as usize;
            let mut cur = self.insns[iu];
            if cur.no() > 0 {
                let no_in = self.insns[cur.no() as usize];
                if no_in.compatible(&cur) && cur.flippable() {
                    cur.flip();
                    self.insns[iu] = cur;
                } else if cur.generalizable_or_pair(&no_in) {
                    let bit = cur.value_u() ^ no_in.value_u();
                    cur.set_value_u(cur.value_u() & !bit);
                    cur.set_mask_u(cur.mask_u() & !bit);
                    cur.j[0] = no_in.no();
                    self.insns[iu] = cur;
                    continue;
                }
            }
            if cur.yes() <= 0 {
                i -= 1;
                continue;
            }
            let yi = cur.yes() as usize;
            if cur.no() == self.insns[yi].yes() && self.insns[yi].flippable() {
                self.insns[yi].flip();
            }
            let yes_in = self.insns[yi];
            let merged_short = merged_short_output(&cur, &yes_in);
            if cur.no() == yes_in.no() && yes_in.compatible(&cur) && merged_short.is_some() {
                cur.j[1] = yes_in.yes();
                if cur.mask_u() == 0 {
                    cur.offset = yes_in.offset;
                }
                cur.short_output = merged_short.unwrap_or(false);
                cur.set_value_u(
                    (cur.value_u() & cur.mask_u()) | (yes_in.value_u() & yes_in.mask_u()),
                );
                cur.set_mask_u(cur.mask_u() | yes_in.mask_u());
                self.insns[iu] = cur;
                continue;
            }
            i -= 1;
        }
    }

    fn remove_unused_states(&mut self) {
        let n = self.insns.len();
        if n == 0 {
            return;
        }
        // Skip compares that decide nothing.
        let mut dest = vec![-1i32; n];
        for i in (0..n).rev() {
            let mut insn = self.insns[i];
            for k in 0..2 {
                if insn.j[k] > 0 {
                    insn.j[k] = dest[insn.j[k] as usize];
                }
            }
            self.insns[i] = insn;
            dest[i] = if insn.yes() != insn.no() && insn.mask_u() != 0 {
                i as i32
            } else if insn.yes() <= 0 {
                insn.yes()
            } else {
                dest[insn.yes() as usize]
            };
        }
        self.output_everything = -1;
        if dest[0] > 0 {
            self.insns[0] = self.insns[dest[0] as usize];
        } else if dest[0] < 0 {
            self.output_everything = -(dest[0] as i64);
        } else if self.insns[0].yes() == 0
            && (self.insns[0].no() == 0 || self.insns[0].mask_u() == 0)
        {
            self.output_everything = 0;
        }
        // Drop unreachable compares and renumber.
        let mut dest = vec![-1i32; n];
        if self.output_everything < 0 {
            dest[0] = 0;
        }
        let mut next = 0i32;
        for i in 0..n {
            if dest[i] >= 0 {
                dest[i] = next;
                next += 1;
                let insn = self.insns[i];
                for k in 0..2 {
                    if insn.j[k] > 0 {
                        dest[insn.j[k] as usize] = 0;
                    }
                }
            }
        }
        for i in 0..n {
            if dest[i] >= 0 {
                let j = dest[i] as usize;
                let mut insn = self.insns[i];
                for k in 0..2 {
                    if insn.j[k] > 0 {
                        insn.j[k] = dest[insn.j[k] as usize];
                    }
                }
                self.insns[j] = insn;
            }
        }
        self.insns.truncate(next as usize);
    }

    fn finish(&mut self) {
        self.shift_implied_branches();
        self.combine_compatible_states();

        self.remove_unused_states();
        if self.insns.is_empty() && self.output_everything < 0 {
            self.output_everything = -(J_NEVER as i64);
        } else if self.output_everything >= 0 {
            self.insns.clear();
        }
        self.safe_length = self
            .insns
            .iter()
            .map(Insn::required_length)
            .max()
            .unwrap_or(0);
        self.careful = self
            .insns
            .iter()
            .map(|i| {
                (
                    i.offset as usize,
                    u32::from_ne_bytes(i.mask),
                    u32::from_ne_bytes(i.value),
                    i.no(),
                    i.yes(),
                    i.short_output,
                )
            })
            .collect();
        self.steps = self
            .insns
            .iter()
            .map(|i| Step {
                offset: i.offset,
                mask: u32::from_ne_bytes(i.mask),
                value: u32::from_ne_bytes(i.value),
                next: i.j,
            })
            .collect();
        self.whole_len = self
            .insns
            .iter()
            .map(|i| i.offset as usize + 4)
            .max()
            .unwrap_or(0);
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
    let mut insns: Vec<Insn> = Vec::new();
    let mut pattern_starts: Vec<usize> = Vec::new();
    let mut pattern_ranges: Vec<(usize, usize)> = Vec::new();
    for (slot, pat) in patterns.iter().enumerate() {
        let s = pat.trim().as_bytes();
        let len = s.len();
        let start = insns.len();
        pattern_starts.push(start);
        let mut i = if s == b"-" { 1 } else { 0 };
        // Term boundaries within this pattern: (first insn, end, negated).
        let mut terms: Vec<(usize, usize, bool)> = Vec::new();
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
            // One compare per 32-bit word the bytes touch.
            let first = insns.len();
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
                    insns.push(Insn::new(off / 4 * 4));
                    fresh = false;
                }
                let last = insns.last_mut().expect("just pushed");
                last.mask[(off & 3) as usize] = m;
                last.value[(off & 3) as usize] = v;
            }
            if insns.len() > first {
                terms.push((first, insns.len(), negated));
            }
        }
        if terms.is_empty() {
            let mut fake = Insn::new(0);
            fake.j = [J_FAILURE, J_SUCCESS];
            insns.push(fake);
            terms.push((insns.len() - 1, insns.len(), false));
        }
        // Each term: its compares ANDed; negation swaps success and failure.
        for &(a, b, neg) in &terms {
            for (k, insn) in insns.iter_mut().enumerate().take(b).skip(a) {
                let yes = if k + 1 < b { (k + 1) as i32 } else { J_SUCCESS };
                insn.j = [J_FAILURE, yes];
                if neg {
                    for j in insn.j.iter_mut() {
                        *j = match *j {
                            J_SUCCESS => J_FAILURE,
                            J_FAILURE => J_SUCCESS,
                            x => x,
                        };
                    }
                }
            }
        }
        // The terms ANDed: success of one leads to the next; the last one's
        // success is this pattern's output.
        for (t, &(a, b, _)) in terms.iter().enumerate() {
            let success = match terms.get(t + 1) {
                Some(&(next, _, _)) => next as i32,
                None => -(slot as i32),
            };
            for insn in &mut insns[a..b] {
                for j in insn.j.iter_mut() {
                    if *j == J_SUCCESS {
                        *j = success;
                    }
                }
            }
        }
        pattern_ranges.push((start, insns.len()));
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    // The patterns ORed in order: failure of one tries the next.
    for (p, &(a, b)) in pattern_ranges.iter().enumerate() {
        let failure = match pattern_ranges.get(p + 1) {
            Some(&(next, _)) => next as i32,
            None => J_NEVER,
        };
        for insn in &mut insns[a..b] {
            for j in insn.j.iter_mut() {
                if *j == J_FAILURE {
                    *j = failure;
                }
            }
        }
    }
    let mut prog = Program {
        insns,
        output_everything: -1,
        safe_length: 0,
        careful: Vec::new(),
        steps: Vec::new(),
        whole_len: 0,
    };
    if prog.insns.is_empty() {
        prog.output_everything = -(J_NEVER as i64);
    }
    prog.finish();
    Ok(prog)
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
        vec![HandlerDef::read("program", 0)]
    }
    fn read_handler(&mut self, _id: u32, _param: &str, _cx: &mut Ctx) -> Result<String, String> {
        Ok(self.prog.unparse())
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
                let len = p.whole_len + rnd(8) as usize;
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
                let len = rnd(18) as usize;
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
