//! The fast form of a compressed program, for packets that hold every
//! word it tests: the words are loaded once, then either the branch-free
//! table ([`crate::table`]) decides, or a walk over the preloaded words
//! whose steps are copied per kind of path that reaches them, so tests a
//! path already decided are skipped ([`Specializer`]).

use crate::table::{CrossTable, TableStep};
use crate::zprogram::{Layout, ZProgram};

/// Most distinct words a fast program preloads (a power of two, so a word
/// index masked with `FAST_WORDS - 1` needs no bounds check): up to `HALF`
/// from the IP header, then up to `HALF` from the transport header.
pub(crate) const FAST_WORDS: usize = 16;
pub(crate) const HALF: usize = FAST_WORDS / 2;

/// One step of the fast form: the index of its preloaded word, then the
/// same test and targets as the [`ZStep`] at the same index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastStep {
    pub(crate) word: u8,
    /// More than one value: the test is [`ZProgram::multi_hit`] on the
    /// values of step `zstep`.
    pub(crate) multi: bool,
    pub(crate) zstep: u32,
    pub(crate) mask: u32,
    pub(crate) value: u32,
    pub(crate) no: i32,
    pub(crate) yes: i32,
}

/// One step of the compact fast form of a [`Layout::Bytes`] program whose
/// steps test one value each: the word at byte `offset` read in native
/// byte order, masked, against `value` (mask and value kept in that order,
/// so no byte swap); `next[1]` if equal, else `next[0]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ByteStep {
    pub(crate) offset: u32,
    pub(crate) mask: u32,
    pub(crate) value: u32,
    pub(crate) next: [i32; 2],
}

/// A program over preloaded words. Every packet long enough for all of
/// them (`net_need` bytes from the IP header, `transp_need` bytes from the
/// transport header) gets the same answer from this form as from the
/// careful one, which handles the rest (short or truncated packets, and
/// unset headers).
#[derive(Clone, Debug)]
pub(crate) struct Fast {
    /// Byte offsets of the IP header words (word `i` is `ip_words[i]`).
    pub(crate) ip_words: Vec<usize>,
    /// Byte offsets of the transport header words (word `HALF + i` is
    /// `transp_words[i]`).
    pub(crate) transp_words: Vec<usize>,
    pub(crate) steps: Vec<FastStep>,
    pub(crate) net_need: usize,
    pub(crate) transp_need: usize,
    /// The branch-free form of `steps`, when it fits its limits (then
    /// `steps` stays unspecialized and unused by the fast path).
    pub(crate) table: Option<CrossTable>,
    /// For a [`Layout::Bytes`] program with one value a step, its compact
    /// steps (the fields above stay unused); empty otherwise.
    pub(crate) bytes: Vec<ByteStep>,
}

impl Fast {
    /// The fast form of `z`, if it has one. Every jump goes forward to an
    /// existing step (checked here, so the walk needs no loop guard).
    pub(crate) fn build(z: &ZProgram) -> Option<Fast> {
        if z.steps.is_empty() {
            return None;
        }
        let mut f = Fast {
            ip_words: Vec::new(),
            transp_words: Vec::new(),
            steps: Vec::with_capacity(z.steps.len()),
            net_need: 0,
            transp_need: 0,
            table: None,
            bytes: Vec::new(),
        };
        for (i, st) in z.steps.iter().enumerate() {
            let off = st.offset as usize;
            let (list, base, off) = if z.layout == Layout::Bytes {
                f.net_need = f.net_need.max(off + 4);
                (&mut f.ip_words, 0, off)
            } else if off >= 512 {
                f.transp_need = f.transp_need.max(off - 512 + 4);
                (&mut f.transp_words, HALF, off - 512)
            } else if off >= 256 {
                f.net_need = f.net_need.max(off - 256 + 4);
                (&mut f.ip_words, 0, off - 256)
            } else {
                return None;
            };
            let word = base
                + match list.iter().position(|&k| k == off) {
                    Some(w) => w,
                    None => {
                        list.push(off);
                        list.len() - 1
                    }
                };
            if list.len() > HALF {
                return None;
            }
            let forward = |t: i32| t <= 0 || (t as usize > i && (t as usize) < z.steps.len());
            if !forward(st.no) || !forward(st.yes) {
                return None;
            }
            f.steps.push(FastStep {
                word: word as u8,
                multi: st.nval != 1,
                zstep: i as u32,
                mask: st.mask,
                value: st.value0,
                no: st.no,
                yes: st.yes,
            });
        }
        if z.layout == Layout::Bytes {
            // One value a step (the usual Classifier program): the compact
            // form ZProgram::walk_bytes runs; otherwise it walks the steps
            // themselves.
            if z.steps.iter().all(|st| st.nval == 1) {
                f.bytes = z
                    .steps
                    .iter()
                    .map(|st| ByteStep {
                        offset: st.offset,
                        mask: u32::from_ne_bytes(st.mask.to_be_bytes()),
                        value: u32::from_ne_bytes(st.value0.to_be_bytes()),
                        next: [st.no, st.yes],
                    })
                    .collect();
            }
            return Some(f);
        }
        let table_steps: Vec<TableStep> = f
            .steps
            .iter()
            .zip(&z.steps)
            .map(|(fs, st)| TableStep {
                word: usize::from(fs.word),
                mask: fs.mask,
                values: z
                    .values
                    .get(st.vstart as usize..(st.vstart + st.nval) as usize)
                    .unwrap_or(&[])
                    .to_vec(),
                no: fs.no,
                yes: fs.yes,
            })
            .collect();
        let locs: Vec<(bool, usize)> = (0..FAST_WORDS)
            .map(|w| match w.checked_sub(HALF) {
                None => (false, f.ip_words.get(w).copied().unwrap_or(0)),
                Some(t) => (true, f.transp_words.get(t).copied().unwrap_or(0)),
            })
            .collect();
        f.table = CrossTable::build(&table_steps, &locs);
        if f.table.is_none() {
            if let Some(steps) = Specializer::run(&f.steps) {
                f.steps = steps;
            }
        }
        Some(f)
    }
}

/// Most steps a specialized fast program may have.
pub const MAX_SPECIALIZED: usize = 4096;
/// Longest program that is specialized (the specializer recurses once or
/// twice per step of a path, so this bounds its stack use).
const MAX_SPECIALIZE_INPUT: usize = 1024;

/// What a path knows about a word: `word & mask == value` (`eq`) or `!=`.
type Fact = (u8, bool, u32, u32);

/// Path specialization of a fast program: a step reached by paths that
/// know different things is copied per kind of path, and tests whose
/// outcome the path already knows are skipped. (In the fast form every
/// word is present, so a test is a pure function of its word.) For the
/// 10-rule benchmark this shortens a UDP packet's walk from 14 to 9 tests.
pub(crate) struct Specializer<'a> {
    base: &'a [FastStep],
    /// Per step: the words it or a later step tests (jumps go forward).
    later_words: Vec<u32>,
    out: Vec<FastStep>,
    memo: std::collections::HashMap<(usize, Vec<Fact>), i32>,
}

impl Specializer<'_> {
    pub(crate) fn run(base: &[FastStep]) -> Option<Vec<FastStep>> {
        if base.len() > MAX_SPECIALIZE_INPUT {
            return None;
        }
        let mut later_words = vec![0u32; base.len() + 1];
        for (i, st) in base.iter().enumerate().rev() {
            later_words[i] = later_words[i + 1] | (1 << st.word);
        }
        let mut sp = Specializer {
            base,
            later_words,
            out: Vec::new(),
            memo: std::collections::HashMap::new(),
        };
        sp.node(0, Vec::new())?;
        Some(sp.out)
    }

    /// The outcome of `st` on paths that know `facts`, if they decide it.
    fn decide(st: &FastStep, facts: &[Fact]) -> Option<bool> {
        if st.multi {
            return None;
        }
        for &(w, eq, m, v) in facts {
            if w != st.word {
                continue;
            }
            if eq {
                if st.mask & !m == 0 {
                    return Some(v & st.mask == st.value);
                }
                if (v ^ st.value) & m & st.mask != 0 {
                    return Some(false);
                }
            } else if m & !st.mask == 0 && st.value & m == v {
                return Some(false);
            }
        }
        None
    }

    /// The target for a jump to `t` on paths that know `facts`.
    fn target(&mut self, mut t: i32, facts: &[Fact]) -> Option<i32> {
        while t > 0 {
            let st = self.base.get(t as usize)?;
            match Self::decide(st, facts) {
                Some(hit) => t = if hit { st.yes } else { st.no },
                None => return self.node(t as usize, facts.to_vec()),
            }
        }
        Some(t)
    }

    /// A copy of step `state` for paths that know `facts`.
    fn node(&mut self, state: usize, mut facts: Vec<Fact>) -> Option<i32> {
        let words = self.later_words[state];
        facts.retain(|f| words & (1 << f.0) != 0);
        facts.sort_unstable();
        facts.dedup();
        let key = (state, facts);
        if let Some(&n) = self.memo.get(&key) {
            return Some(n);
        }
        if self.out.len() >= MAX_SPECIALIZED {
            return None;
        }
        let st = *self.base.get(state)?;
        let idx = self.out.len();
        self.out.push(st);
        let facts = &key.1;
        let (mut yes, mut no) = (facts.clone(), facts.clone());
        if !st.multi {
            yes.push((st.word, true, st.mask, st.value));
            if st.mask & st.mask.wrapping_sub(1) == 0 {
                // one bit: not equal means equal to the other value
                no.push((st.word, true, st.mask, st.value ^ st.mask));
            } else {
                no.push((st.word, false, st.mask, st.value));
            }
        }
        let y = self.target(st.yes, &yes)?;
        let n = self.target(st.no, &no)?;
        let out = self.out.get_mut(idx)?;
        out.yes = y;
        out.no = n;
        self.memo.insert(key, idx as i32);
        Some(idx as i32)
    }
}

#[cfg(test)]
mod tests {
    use crate::program::tests::patterns;
    use crate::zprogram::{Layout, ZProgram};

    fn program(tests: &[(u32, u32, u32)], layout: Layout) -> ZProgram {
        let pats: Vec<&[(u32, u32, u32)]> = tests.iter().map(std::slice::from_ref).collect();
        let mut p = patterns(&pats);
        p.optimize();
        ZProgram::compile_with(&p, layout)
    }

    #[test]
    fn header_programs_get_a_fast_form_unless_they_test_the_link_header() {
        let ip = program(
            &[(264, 0x0006_0000, 0x00ff_0000), (512, 80, 0xffff)],
            Layout::Headers,
        );
        assert_eq!(ip.fast_needs(), Some((12, 4)));
        assert!(ip.has_table());
        let mac = program(&[(2, 0x0800_0000, 0xffff_0000)], Layout::Headers);
        assert_eq!(mac.fast_steps(), None);
    }

    #[test]
    fn bytes_programs_walk_their_steps() {
        let z = program(&[(12, 0x0800_0000, 0xffff_0000)], Layout::Bytes);
        assert_eq!(z.fast_needs(), Some((16, 0)));
        assert!(!z.has_table());
    }

    #[test]
    fn too_many_words_means_no_fast_form() {
        let tests: Vec<(u32, u32, u32)> = (0..9).map(|i| (256 + 4 * i, 1, 0xff)).collect();
        assert_eq!(program(&tests, Layout::Headers).fast_steps(), None);
    }
}
