//! A compressed program ([`ZProgram`]): runs of tests on one word with one
//! "yes" target become one step with several values; how it prints, and
//! how packets run through it: the fast form when a packet holds every
//! word (see [`crate::fast`]), else the careful walk, which checks lengths
//! per step as Click does.

use std::fmt::Write as _;

use crate::fast::{ByteStep, Fast, FAST_WORDS, HALF};
use crate::insn::{insn_text, J_NEVER};
use crate::program::Program;

/// One compressed step: a word test against one or more values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZStep {
    /// Fake offset.
    pub offset: u32,
    /// Short packets take the yes branch.
    pub short_output: bool,
    /// Mask.
    pub mask: u32,
    /// No target: `> 0` = step index (in `ZProgram::steps`), else negated output.
    pub no: i32,
    /// Yes target, same encoding.
    pub yes: i32,
    /// Index of the first value in `ZProgram::values`.
    pub vstart: u32,
    /// Number of values.
    pub nval: u32,
    /// Bytes past `offset` whose mask is nonzero (1..=4; 0 for no mask).
    pub need: u8,
    /// The first (for one-value steps, the only) value.
    pub value0: u32,
}

/// Values lists at least this long are searched by bisection.
pub const MIN_BINARY_SEARCH: u32 = 7;

/// Where a program's (fake) offsets point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// IPClassifier's and IPFilter's: the MAC header from 0 (shifted by
    /// 2), the network header from 256, the transport header from 512
    /// ([`ZProgram::classify`]).
    #[default]
    Headers,
    /// Classifier's: byte offsets into the packet data
    /// ([`ZProgram::classify_bytes`]).
    Bytes,
}

/// A compressed program, ready to run.
#[derive(Clone, Debug)]
pub struct ZProgram {
    /// Steps; targets `> 0` index this vector.
    pub steps: Vec<ZStep>,
    /// Compared values; long lists sorted by [`bisect_key`].
    pub values: Vec<u32>,
    /// Output for every packet when there are no steps.
    pub output_everything: i32,
    /// Packets at least this long (fake offsets) need no length checks.
    pub safe_length: u32,
    /// Step numbers as Click prints them (first original step of each).
    print_step: Vec<usize>,
    /// Where the offsets point.
    pub(crate) layout: Layout,
    /// The same steps over preloaded words, for packets long enough for
    /// every word; `None` when the program tests link-layer bytes or loads
    /// too many distinct words.
    fast: Option<Fast>,
}

impl Default for ZProgram {
    fn default() -> Self {
        ZProgram {
            steps: Vec::new(),
            values: Vec::new(),
            output_everything: -J_NEVER,
            safe_length: u32::MAX,
            print_step: Vec::new(),
            layout: Layout::Headers,
            fast: None,
        }
    }
}

/// Click sorts long value lists as host-order (little-endian) integers;
/// the same key drives the bisection.
#[inline]
pub fn bisect_key(v: u32) -> u32 {
    v.swap_bytes()
}

fn need_bytes(mask: u32) -> u8 {
    if mask == 0 {
        0
    } else if mask & 0xFF != 0 {
        4
    } else if mask & 0xFF00 != 0 {
        3
    } else if mask & 0xFF_0000 != 0 {
        2
    } else {
        1
    }
}

impl ZProgram {
    /// Compresses an optimized program whose offsets are
    /// [`Layout::Headers`] ones.
    pub fn compile(prog: &Program) -> ZProgram {
        Self::compile_with(prog, Layout::Headers)
    }

    /// Compresses an optimized program whose offsets are `layout`'s.
    pub fn compile_with(prog: &Program, layout: Layout) -> ZProgram {
        let insns = prog.insns();
        let n = insns.len();
        let mut z = ZProgram {
            output_everything: prog.output_everything(),
            safe_length: prog.safe_length(),
            layout,
            ..ZProgram::default()
        };
        let mut wanted = vec![0u32; n + 1];
        if n > 0 {
            wanted[0] = 1;
        }
        for i in 0..n {
            if wanted[i] != 0 {
                for k in 0..2 {
                    if insns[i].j[k] > 0 {
                        wanted[insns[i].j[k] as usize] += 1;
                    }
                }
            }
        }
        // map from original step to compressed step index
        let mut zindex = vec![usize::MAX; n];
        let mut raw_targets: Vec<(i32, i32)> = Vec::new();
        let mut print_step = 0usize;
        for i in 0..n {
            if wanted[i] == 0 {
                continue;
            }
            let insn = insns[i];
            zindex[i] = z.steps.len();
            let vstart = z.values.len() as u32;
            z.values.push(insn.value);
            let mut no = insn.no();
            while no > 0 {
                let nu = no as usize;
                let cand = insns[nu];
                if wanted[nu] == 1
                    && cand.yes() == insn.yes()
                    && cand.offset == insn.offset
                    && cand.mask == insn.mask
                {
                    z.values.push(cand.value);
                    no = cand.no();
                    wanted[nu] -= 1;
                } else {
                    break;
                }
            }
            let nval = z.values.len() as u32 - vstart;
            if nval >= MIN_BINARY_SEARCH {
                z.values[vstart as usize..].sort_unstable_by_key(|&v| bisect_key(v));
            }
            z.steps.push(ZStep {
                offset: insn.offset,
                short_output: insn.short_output,
                mask: insn.mask,
                no: 0,
                yes: 0,
                vstart,
                nval,
                need: need_bytes(insn.mask),
                value0: z.values[vstart as usize],
            });
            z.print_step.push(print_step);
            print_step += nval as usize;
            raw_targets.push((no, insn.yes()));
        }
        for (s, (no, yes)) in raw_targets.into_iter().enumerate() {
            let fix = |t: i32| if t > 0 { zindex[t as usize] as i32 } else { t };
            z.steps[s].no = fix(no);
            z.steps[s].yes = fix(yes);
        }
        z.fast = Fast::build(&z);
        z
    }

    /// Click's `program` handler text.
    pub fn unparse(&self) -> String {
        let mut out = String::new();
        for (s, st) in self.steps.iter().enumerate() {
            let base = self.print_step[s];
            let target = |t: i32| {
                if t > 0 {
                    self.print_step[t as usize] as i32
                } else {
                    t
                }
            };
            for j in 0..st.nval as usize {
                let mystep = base + j;
                let no = if j + 1 < st.nval as usize {
                    mystep as i32 + 1
                } else {
                    target(st.no)
                };
                let value = self.values[st.vstart as usize + j];
                insn_text(
                    &mut out,
                    mystep,
                    i64::from(st.offset),
                    value,
                    st.mask,
                    no,
                    target(st.yes),
                    st.short_output,
                );
            }
        }
        if self.steps.is_empty() {
            let _ = writeln!(out, "all->[{}]", self.output_everything);
        }
        let _ = writeln!(out, "safe length {}", self.safe_length);
        out.push_str("alignment offset 0\n");
        out
    }

    /// The number of steps of the fast form, if the program has one.
    pub fn fast_steps(&self) -> Option<usize> {
        self.fast.as_ref().map(|f| f.steps.len())
    }

    /// Whether the fast form is the branch-free table.
    pub fn has_table(&self) -> bool {
        self.fast.as_ref().is_some_and(|f| f.table.is_some())
    }

    /// Bytes a packet needs for the fast form, if there is one: (from the
    /// network header, from the transport header).
    pub fn fast_needs(&self) -> Option<(usize, usize)> {
        self.fast.as_ref().map(|f| (f.net_need, f.transp_need))
    }

    /// The same program with the specialized walk as its fast form
    /// instead of the table (for timing the two).
    #[doc(hidden)]
    pub fn with_walk(&self) -> ZProgram {
        let mut z = self.clone();
        if let Some(f) = z.fast.as_mut() {
            if f.table.take().is_some() {
                if let Some(steps) = crate::fast::Specializer::run(&f.steps) {
                    f.steps = steps;
                }
            }
        }
        z
    }

    /// Whether some step or the default can reach output `port`.
    pub fn uses_output(&self, port: usize) -> bool {
        if self.steps.is_empty() {
            return self.output_everything >= 0 && self.output_everything as usize == port;
        }
        let t = -(port as i64);
        self.steps
            .iter()
            .any(|s| i64::from(s.no) == t || i64::from(s.yes) == t)
    }
}

/// Where a packet's bytes are, in the fake-offset space.
struct View<'a> {
    /// From the network header to the end of the data.
    net: &'a [u8],
    /// Network header length (transport header offset within `net`).
    nhl: usize,
    /// From the MAC header to the end of the data, if set.
    mac: Option<&'a [u8]>,
    /// Offsets are [`Layout::Bytes`] ones, into `net`.
    bytes: bool,
}

impl View<'_> {
    /// The masked word for `st`, or `None` when the packet is too short.
    #[inline(always)]
    fn word(&self, st: &ZStep) -> Option<u32> {
        let off = st.offset as usize;
        let (buf, start) = if self.bytes {
            (self.net, off)
        } else if off >= 512 {
            if self.net.len() <= self.nhl {
                return None;
            }
            (self.net, self.nhl + (off - 512))
        } else if off >= 256 {
            (self.net, off - 256)
        } else {
            return self.mac_word(st);
        };
        if let Some(b) = buf.get(start..start + 4) {
            return Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        }
        let avail = buf.len().checked_sub(start).filter(|&a| a > 0)?;
        if usize::from(st.need) > avail {
            return None;
        }
        let mut w = [0u8; 4];
        w[..avail].copy_from_slice(&buf[start..]);
        Some(u32::from_be_bytes(w))
    }

    #[cold]
    fn mac_word(&self, st: &ZStep) -> Option<u32> {
        let mac = self.mac?;
        let off = i64::from(st.offset) - 2;
        let mut w = [0u8; 4];
        let mut avail = 0;
        for (i, b) in w.iter_mut().enumerate() {
            let idx = off + i as i64;
            if idx < 0 {
                avail += 1;
                continue;
            }
            match mac.get(idx as usize) {
                Some(&v) => {
                    *b = v;
                    avail += 1;
                }
                None => break,
            }
        }
        if avail == 0 || usize::from(st.need) > avail {
            return None;
        }
        Some(u32::from_be_bytes(w))
    }
}

impl ZProgram {
    fn multi_hit(&self, st: &ZStep, data: u32) -> bool {
        let vals = self
            .values
            .get(st.vstart as usize..(st.vstart + st.nval) as usize)
            .unwrap_or(&[]);
        if st.nval < MIN_BINARY_SEARCH {
            vals.contains(&data)
        } else {
            vals.binary_search_by_key(&bisect_key(data), |&v| bisect_key(v))
                .is_ok()
        }
    }

    /// The output for packet `p` (`usize::MAX`-ish values mean drop; any
    /// value not below the element's output count is dropped).
    #[inline]
    pub fn classify(&self, p: &rclick_packet::Packet) -> usize {
        if let Some(f) = &self.fast {
            if let Some(net) = p.network_header() {
                let nhl = p.network_header_len();
                if net.len() >= f.net_need && net.len() >= nhl + f.transp_need {
                    return self.classify_fast(f, net, nhl);
                }
            }
        }
        self.classify_careful(p)
    }

    /// The fast form: the branch-free table when there is one; otherwise
    /// every word the program tests is loaded once, then the walk is a
    /// masked compare and a jump per step. The caller has checked that
    /// `net` holds every word (transport words at `nhl`).
    /// Measured on `d_ipclassifier10_nots.click` (10 rules, UDP packets
    /// with random destinations): the walk takes 8.7 dependent tests on 6
    /// words, several of them going either way at random; the table form
    /// evaluates all 19 tests (8 four-lane compares) with no data-dependent
    /// branch, in about as many instructions (about 356 per packet,
    /// callgrind) and about 20 % less CPU time in `table_vs_walk_timing`.
    /// The careful path takes 14 tests and about 600 instructions.
    #[inline]
    fn classify_fast(&self, f: &Fast, net: &[u8], nhl: usize) -> usize {
        if let Some(t) = &f.table {
            return t.classify(net, nhl);
        }
        let mut w = [0u32; FAST_WORDS];
        let (ip_w, tr_w) = w.split_at_mut(HALF);
        let load = |buf: &[u8], off: usize| {
            buf.get(off..)
                .and_then(|b| b.first_chunk::<4>())
                .map_or(0, |b| u32::from_be_bytes(*b))
        };
        for (slot, &off) in ip_w.iter_mut().zip(&f.ip_words) {
            *slot = load(net, off);
        }
        let transp = net.get(nhl..).unwrap_or(&[]);
        for (slot, &off) in tr_w.iter_mut().zip(&f.transp_words) {
            *slot = load(transp, off);
        }
        let mut s = 0usize;
        loop {
            let Some(st) = f.steps.get(s) else {
                return usize::MAX;
            };
            let data = w[usize::from(st.word) & (FAST_WORDS - 1)] & st.mask;
            let hit = if st.multi {
                self.steps
                    .get(st.zstep as usize)
                    .is_some_and(|z| self.multi_hit(z, data))
            } else {
                data == st.value
            };
            let target = if hit { st.yes } else { st.no };
            if target <= 0 {
                return (-(target as i64)) as usize;
            }
            // Jumps go forward in the DAG (Fast::build checks it), and a
            // specialized copy only jumps to copies of later steps.
            s = target as usize;
        }
    }

    /// The reference evaluation: each step loads its word with every
    /// length check (short packets take the step's short branch).
    pub fn classify_careful(&self, p: &rclick_packet::Packet) -> usize {
        self.walk(&View {
            net: p.network_header().unwrap_or(&[]),
            nhl: p.network_header_len(),
            mac: p.mac_header(),
            bytes: false,
        })
    }

    /// The output for packet data `data` of a [`Layout::Bytes`] program
    /// (values not below the element's output count mean drop): the fast
    /// form when `data` holds every word, else the careful walk.
    ///
    /// Click's IP router's Ethernet classifier (`12/0806 20/0001,
    /// 12/0806 20/0002, 12/0800, -`) decides an IP packet by the table
    /// form.
    #[inline]
    pub fn classify_bytes(&self, data: &[u8]) -> usize {
        if let Some(f) = &self.fast {
            if data.len() >= f.net_need {
                if !f.bytes.is_empty() {
                    return self.walk_compact(&f.bytes, data);
                }
                return self.walk_bytes(data);
            }
        }
        self.classify_careful_bytes(data)
    }

    /// The fast form of a [`Layout::Bytes`] program, for data that holds
    /// every word it tests: a masked compare and a jump per step, each
    /// word loaded where its step reads it. (Classifier's programs are
    /// small: on the Ethernet classifier above this takes about half the
    /// instructions of preloading the words and evaluating the table.)
    /// Jumps go forward ([`Fast::build`] checks it), so the walk ends.
    /// [`walk_bytes`](Self::walk_bytes) over the compact steps: one
    /// native-order compare and a branch-free choice of the next step.
    /// Measured on `c_fake_iprouter_sosp` (Click's IP router's Ethernet
    /// classifiers, callgrind, instructions a packet for the whole router):
    /// 2539 walking the steps themselves, 2534 this way (the table form:
    /// 2582; Classifier's former engine of its own: 2517).
    #[inline]
    fn walk_compact(&self, steps: &[ByteStep], data: &[u8]) -> usize {
        let mut s = 0usize;
        loop {
            let Some(st) = steps.get(s) else {
                return usize::MAX;
            };
            let at = st.offset as usize;
            let Some(&[a, b, c, d]) = data.get(at..at + 4) else {
                return self.classify_careful_bytes(data);
            };
            let w = u32::from_ne_bytes([a, b, c, d]);
            let next = st.next[usize::from(w & st.mask == st.value)];
            if next <= 0 {
                return (-(next as i64)) as usize;
            }
            s = next as usize;
        }
    }

    #[inline]
    fn walk_bytes(&self, data: &[u8]) -> usize {
        let mut s = 0usize;
        loop {
            let Some(st) = self.steps.get(s) else {
                return usize::MAX;
            };
            let at = st.offset as usize;
            let Some(&[a, b, c, d]) = data.get(at..at + 4) else {
                return self.classify_careful_bytes(data);
            };
            let w = u32::from_be_bytes([a, b, c, d]) & st.mask;
            let hit = if st.nval == 1 {
                w == st.value0
            } else {
                self.multi_hit(st, w)
            };
            let target = if hit { st.yes } else { st.no };
            if target <= 0 {
                return (-(target as i64)) as usize;
            }
            s = target as usize;
        }
    }

    /// [`classify_careful`](Self::classify_careful) for a
    /// [`Layout::Bytes`] program: a word the data holds only in part is
    /// tested when its missing bytes are masked out, and a test the data
    /// is too short for goes the way its `short_output` says.
    #[inline(never)]
    pub fn classify_careful_bytes(&self, data: &[u8]) -> usize {
        self.walk(&View {
            net: data,
            nhl: 0,
            mac: None,
            bytes: true,
        })
    }

    fn walk(&self, view: &View) -> usize {
        if self.steps.is_empty() {
            return self.output_everything.max(0) as usize;
        }
        let mut s = 0usize;
        loop {
            let Some(st) = self.steps.get(s) else {
                return usize::MAX;
            };
            let target = match view.word(st) {
                Some(w) => {
                    let data = w & st.mask;
                    let hit = if st.nval == 1 {
                        data == st.value0
                    } else {
                        self.multi_hit(st, data)
                    };
                    if hit {
                        st.yes
                    } else {
                        st.no
                    }
                }
                None => {
                    if st.short_output {
                        st.yes
                    } else {
                        st.no
                    }
                }
            };
            if target <= 0 {
                return (-(target as i64)) as usize;
            }
            let t = target as usize;
            if t <= s {
                return usize::MAX;
            }
            s = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insn::{Combiner, J_FAILURE};

    /// A Classifier-style program: one test per pattern, output `i` for
    /// byte 0 equal to `values[i]`.
    fn byte_switch(values: &[u8]) -> ZProgram {
        let mut p = Program::new();
        let mut tree = p.init_subtree();
        p.start_subtree(&mut tree);
        for (slot, &v) in values.iter().enumerate() {
            p.start_subtree(&mut tree);
            p.add_insn(&mut tree, 0, u32::from(v) << 24, 0xff00_0000);
            p.finish_subtree(&mut tree, Combiner::And, -(slot as i32), J_FAILURE);
        }
        p.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
        p.optimize();
        ZProgram::compile_with(&p, Layout::Bytes)
    }

    #[test]
    fn steps_print_one_line_per_value() {
        // Different outputs: three steps (runs with one "yes" target
        // would become one step of several values).
        let z = byte_switch(&[1, 2, 3]);
        assert_eq!(z.steps.len(), 3);
        assert_eq!(
            z.unparse(),
            " 0   0/01000000%ff000000  yes->[0]  no->step 1\n \
             1   0/02000000%ff000000  yes->[1]  no->step 2\n \
             2   0/03000000%ff000000  yes->[2]  no->[X]\n\
             safe length 1\nalignment offset 0\n"
        );
        assert!(z.uses_output(2) && !z.uses_output(3));
    }

    #[test]
    fn bytes_fast_and_careful_agree() {
        let z = byte_switch(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        for b in 0..12u8 {
            for len in 0..6 {
                let mut d = vec![0u8; len];
                if let Some(x) = d.first_mut() {
                    *x = b;
                }
                assert_eq!(z.classify_bytes(&d), z.classify_careful_bytes(&d), "{d:?}");
            }
            let want = if (1..=9).contains(&b) {
                usize::from(b - 1)
            } else {
                -J_NEVER as usize
            };
            assert_eq!(z.classify_bytes(&[b, 0, 0, 0]), want);
        }
        // too short for the word: the test's short branch (no)
        assert_eq!(z.classify_bytes(&[]), -J_NEVER as usize);
    }

    #[test]
    fn a_partial_word_is_tested_when_its_missing_bytes_are_masked_out() {
        let z = byte_switch(&[7]);
        assert_eq!(z.classify_careful_bytes(&[7]), 0);
        assert_eq!(z.classify_bytes(&[7, 1]), 0);
    }
}
