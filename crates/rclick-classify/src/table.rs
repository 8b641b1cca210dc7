//! Branch-free classification by cross-producting word classes.
//!
//! A decision DAG over masked word tests walks one dependent compare and
//! jump per step; when the words are random (a uniformly random destination
//! address against `dst net` rules) several of those jumps go either way and
//! most of the time goes to branch mispredictions. This form has no
//! data-dependent branch:
//!
//! 1. every distinct test ("atom": word, mask, value) on a word is
//!    evaluated at once (one SIMD compare of the word, broadcast, with up
//!    to four masks and values; two for five to eight) into a bit pattern;
//! 2. the pattern indexes a small table giving the word's *class* times
//!    its stride: two patterns share a class when the program gives the
//!    same output for them whatever the other words hold (patterns no word
//!    value can produce get none);
//! 3. the sum over the words indexes one table of outputs.
//!
//! The tables are built at configuration time by running the DAG on every
//! combination of feasible bit patterns (bounded by [`MAX_ENUM`]); a
//! program with too many atoms, combinations or classes keeps the DAG
//! walk. (The idea is the cross-producting / recursive flow classification
//! of packet classification literature, applied to one program's words.)

use std::collections::HashMap;

/// Most atoms on one word (their outcomes index a table of `2^LANES`
/// entries); also the spacing of words in the build-time bit vector.
const LANES: usize = 8;
/// Most atoms on one word.
const MAX_WORD_ATOMS: usize = LANES;
/// Most combinations of feasible bit patterns run through the DAG at build
/// time.
pub(crate) const MAX_ENUM: usize = 1 << 20;
/// Most entries of the output table (one byte each).
pub(crate) const MAX_TABLE: usize = 1 << 15;
/// Feasibility of a bit pattern is decided exactly by trying every value
/// of at most this many undecided bits; beyond, the pattern is kept
/// (keeping an infeasible pattern only costs table space).
const MAX_BRUTE_BITS: u32 = 12;

/// One step of the DAG the table is built from.
#[derive(Clone, Debug)]
pub(crate) struct TableStep {
    /// Index of the tested word (below `nwords` given to [`CrossTable::build`]).
    pub word: usize,
    /// Mask.
    pub mask: u32,
    /// The test is true when `word & mask` equals one of these (masked).
    pub values: Vec<u32>,
    /// Targets: `> 0` a later step, `<= 0` a negated output.
    pub no: i32,
    /// Yes target, same encoding.
    pub yes: i32,
}

/// A masked word compare, one bit of the vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Atom {
    word: u8,
    mask: u32,
    value: u32,
}

/// Up to four atoms of one word, evaluated together (one SIMD compare):
/// lane `j` is true when the word `& mask[j] == value[j]`. The word is
/// read in memory order, so masks and values are stored so (`to_be`).
/// Unused lanes have mask 0 and value 1 (never true). A word with five to
/// eight atoms takes two entries: the first passes its pattern on
/// (`carry`), the second adds its own, shifted, and looks up the class.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// All ones for a word in the transport header, 0 for one in the
    /// network header (the transport header's offset is and-ed with it).
    transp: usize,
    /// Byte offset of the word in its header.
    off: usize,
    mask: [u32; 4],
    value: [u32; 4],
    /// The lanes' pattern is shifted left by this (0 or 4).
    shift: u32,
    /// Index of the entry's table in `CrossTable::classes`.
    base: usize,
    /// The looked-up value is the next entry's offset, not a class.
    carry: bool,
}

/// The branch-free form of a program (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct CrossTable {
    entries: Vec<Entry>,
    /// Per entry, indexed by its (carried and own) outcome pattern: the
    /// word's class times its stride in `table`, or for a carrying entry
    /// its pattern.
    classes: Vec<u32>,
    #[cfg(test)]
    natoms: usize,
    /// Output index (into `outputs`) per combination of classes.
    table: Vec<u8>,
    outputs: Vec<usize>,
}

/// The output the DAG gives when its tests have the outcomes in `bits`.
fn walk(steps: &[TableStep], step_atoms: &[Vec<u32>], bits: u64) -> usize {
    let mut s = 0usize;
    loop {
        let (Some(st), Some(atoms)) = (steps.get(s), step_atoms.get(s)) else {
            return usize::MAX;
        };
        let hit = atoms.iter().any(|&a| bits >> a & 1 != 0);
        let t = if hit { st.yes } else { st.no };
        if t <= 0 {
            return (-(t as i64)) as usize;
        }
        if t as usize <= s {
            return usize::MAX;
        }
        s = t as usize;
    }
}

/// Whether some 32-bit word has exactly the outcomes `pattern` (bit `i` set:
/// atom `i` true) on `atoms`. May say yes wrongly only when deciding would
/// take too long; never says no wrongly.
fn feasible(atoms: &[(u32, u32)], pattern: u32) -> bool {
    let (mut m, mut v) = (0u32, 0u32);
    for (i, &(am, av)) in atoms.iter().enumerate() {
        if pattern >> i & 1 != 0 {
            if (v ^ av) & m & am != 0 {
                return false;
            }
            m |= am;
            v |= av;
        }
    }
    // Atoms that must be false, on bits the true atoms leave free.
    let mut rest: Vec<(u32, u32)> = Vec::new();
    for (i, &(am, av)) in atoms.iter().enumerate() {
        if pattern >> i & 1 != 0 || (v ^ av) & am & m != 0 {
            continue; // true, or already false
        }
        let free = am & !m;
        if free == 0 {
            return false; // the true atoms make it true
        }
        rest.push((free, av & free));
    }
    if rest.is_empty() {
        return true;
    }
    // Union bound: the excluded values are fewer than all of them.
    let excluded: f64 = rest
        .iter()
        .map(|&(f, _)| 0.5f64.powi(f.count_ones() as i32))
        .sum();
    if excluded < 1.0 {
        return true;
    }
    let all = rest.iter().fold(0u32, |a, &(f, _)| a | f);
    if all.count_ones() > MAX_BRUTE_BITS {
        return true;
    }
    // Every value of the undecided bits (subsets of `all`).
    let mut x = 0u32;
    loop {
        if rest.iter().all(|&(f, p)| x & f != p) {
            return true;
        }
        x = x.wrapping_sub(all) & all;
        if x == 0 {
            return false;
        }
    }
}

/// Bit `j` set when `x & m[j] == v[j]` (one SIMD compare and movemask).
#[inline(always)]
fn lanes4(x: u32, m: &[u32; 4], v: &[u32; 4]) -> u32 {
    let mut q = 0u32;
    for j in 0..4 {
        q |= u32::from(x & m[j] == v[j]) << j;
    }
    q
}

impl CrossTable {
    /// The table form of `steps`, whose word `i` is at `locs[i]` (in the
    /// transport header?, byte offset), if it fits the limits.
    pub(crate) fn build(steps: &[TableStep], locs: &[(bool, usize)]) -> Option<CrossTable> {
        let nwords = locs.len();
        if steps.is_empty() || nwords > 256 {
            return None;
        }
        // Atoms, grouped by word.
        let mut per_word: Vec<Vec<(u32, u32)>> = vec![Vec::new(); nwords];
        for st in steps {
            let list = per_word.get_mut(st.word)?;
            for &v in &st.values {
                let a = (st.mask, v & st.mask);
                if !list.contains(&a) {
                    list.push(a);
                }
            }
        }
        if per_word.iter().any(|l| l.len() > MAX_WORD_ATOMS) {
            return None;
        }
        // Each word's atoms: bits 8g.. of the vector for the g-th word.
        let mut atoms: Vec<(u32, Atom)> = Vec::new();
        // (word, first bit, atom count, feasible patterns)
        let mut gdesc: Vec<(usize, u32, usize, Vec<u32>)> = Vec::new();
        for (w, list) in per_word.iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let shift = (gdesc.len() * LANES) as u32;
            if shift >= 64 {
                return None;
            }
            for (j, &(mask, value)) in list.iter().enumerate() {
                atoms.push((
                    shift + j as u32,
                    Atom {
                        word: w as u8,
                        mask,
                        value,
                    },
                ));
            }
            let pats: Vec<u32> = (0..1u32 << list.len())
                .filter(|&p| feasible(list, p))
                .collect();
            gdesc.push((w, shift, list.len(), pats));
        }
        let step_atoms: Vec<Vec<u32>> = steps
            .iter()
            .map(|st| {
                st.values
                    .iter()
                    .filter_map(|&v| {
                        atoms
                            .iter()
                            .find(|(_, a)| {
                                usize::from(a.word) == st.word
                                    && a.mask == st.mask
                                    && a.value == v & st.mask
                            })
                            .map(|&(bit, _)| bit)
                    })
                    .collect()
            })
            .collect();

        // Every combination of feasible patterns, through the DAG.
        let counts: Vec<usize> = gdesc.iter().map(|g| g.3.len()).collect();
        let mut total = 1usize;
        for &c in &counts {
            total = total.checked_mul(c).filter(|&t| t <= MAX_ENUM)?;
        }
        let mut outputs: Vec<usize> = Vec::new();
        let mut f: Vec<u8> = Vec::with_capacity(total);
        let mut digit = vec![0usize; gdesc.len()];
        for _ in 0..total {
            let bits = gdesc
                .iter()
                .zip(&digit)
                .fold(0u64, |b, (g, &d)| b | u64::from(g.3[d]) << g.1);
            let out = walk(steps, &step_atoms, bits);
            let k = match outputs.iter().position(|&o| o == out) {
                Some(k) => k,
                None => {
                    outputs.push(out);
                    outputs.len() - 1
                }
            };
            f.push(u8::try_from(k).ok()?);
            // next combination; the last group varies fastest
            for (d, &c) in digit.iter_mut().zip(&counts).rev() {
                *d += 1;
                if *d < c {
                    break;
                }
                *d = 0;
            }
        }

        // Classes per group: patterns with the same outputs for every
        // combination of the other groups.
        let mut estride = vec![1usize; gdesc.len()];
        for i in (0..gdesc.len().saturating_sub(1)).rev() {
            estride[i] = estride[i + 1] * counts[i + 1];
        }
        let mut class_of: Vec<Vec<usize>> = Vec::with_capacity(gdesc.len());
        let mut nclasses: Vec<usize> = Vec::with_capacity(gdesc.len());
        for (i, &n) in counts.iter().enumerate() {
            let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
            let mut cls = Vec::with_capacity(n);
            let (outer, inner) = (estride[i] * n, estride[i]);
            for d in 0..n {
                let sig: Vec<u8> = (0..total / outer)
                    .flat_map(|hi| {
                        let start = hi * outer + d * inner;
                        f[start..start + inner].iter().copied()
                    })
                    .collect();
                let next = seen.len();
                cls.push(*seen.entry(sig).or_insert(next));
            }
            nclasses.push(seen.len());
            class_of.push(cls);
        }
        let mut rstride = vec![1usize; gdesc.len()];
        for i in (0..gdesc.len().saturating_sub(1)).rev() {
            rstride[i] = rstride[i + 1] * nclasses[i + 1];
        }
        let size = nclasses
            .iter()
            .try_fold(1usize, |a, &c| a.checked_mul(c).filter(|&t| t <= MAX_TABLE))?;

        let mut entries = Vec::new();
        let mut classes: Vec<u32> = Vec::new();
        for (i, g) in gdesc.iter().enumerate() {
            let &(transp, off) = locs.get(g.0)?;
            let list = &per_word[g.0];
            let lane = |j: usize| list.get(j).map_or((0, 1), |&(m, v)| (m.to_be(), v.to_be()));
            let entry = |h: usize, base: usize, carry: bool| Entry {
                transp: if transp { usize::MAX } else { 0 },
                off,
                mask: std::array::from_fn(|j| lane(4 * h + j).0),
                value: std::array::from_fn(|j| lane(4 * h + j).1),
                shift: 4 * h as u32,
                base,
                carry,
            };
            if g.2 > 4 {
                // the low four lanes' pattern, passed on as is
                let base = classes.len();
                classes.extend(0..16);
                entries.push(entry(0, base, true));
            }
            let bits = if g.2 > 4 { 8 } else { 4 };
            let base = classes.len();
            classes.resize(base + (1 << bits), 0);
            for (d, &p) in g.3.iter().enumerate() {
                classes[base + p as usize] = (class_of[i][d] * rstride[i]) as u32;
            }
            entries.push(entry(usize::from(g.2 > 4), base, false));
        }
        let mut table = vec![0u8; size];
        for (idx, &out) in f.iter().enumerate() {
            let r: usize = (0..gdesc.len())
                .map(|i| class_of[i][idx / estride[i] % counts[i]] * rstride[i])
                .sum();
            table[r] = out;
        }
        Some(CrossTable {
            entries,
            classes,
            #[cfg(test)]
            natoms: atoms.len(),
            table,
            outputs,
        })
    }

    /// Entries of the output table.
    #[cfg(test)]
    pub(crate) fn table_len(&self) -> usize {
        self.table.len()
    }

    /// Number of atoms (tests evaluated per packet).
    #[cfg(test)]
    pub(crate) fn natoms(&self) -> usize {
        self.natoms
    }

    /// The output for a packet whose network header (to the end of the
    /// data) is `net`, with the transport header at `nhl` (both holding
    /// every word the program tests).
    #[inline]
    pub(crate) fn classify(&self, net: &[u8], nhl: usize) -> usize {
        let (mut idx, mut carry) = (0usize, 0usize);
        for e in &self.entries {
            let at = e.off.wrapping_add(nhl & e.transp);
            let x = at
                .checked_add(4)
                .and_then(|end| net.get(at..end))
                .map_or(0, |b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
            let k = carry + ((lanes4(x, &e.mask, &e.value) as usize) << e.shift);
            let v = self.classes.get(e.base + k).copied().unwrap_or(0) as usize;
            // same sequence for every packet: predictable
            if e.carry {
                carry = v;
            } else {
                idx += v;
                carry = 0;
            }
        }
        let o = self.table.get(idx).copied().unwrap_or(0);
        self.outputs
            .get(usize::from(o))
            .copied()
            .unwrap_or(usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::{feasible, walk, CrossTable, TableStep};

    use crate::TestRng as Rng;

    /// Words 0..4 in the network header, 4..8 in the transport header
    /// (in reverse order, so offsets and word numbers differ).
    const LOCS: [(bool, usize); 8] = [
        (false, 0),
        (false, 4),
        (false, 8),
        (false, 12),
        (true, 12),
        (true, 8),
        (true, 4),
        (true, 0),
    ];

    /// The table's answer for a packet holding words `w` where `LOCS` says
    /// (a 20-byte network header, then the transport header).
    fn classify(t: &CrossTable, w: &[u32; 8]) -> usize {
        let mut net = [0u8; 36];
        for (&(tr, off), &x) in LOCS.iter().zip(w) {
            let at = off + if tr { 20 } else { 0 };
            net[at..at + 4].copy_from_slice(&x.to_be_bytes());
        }
        t.classify(&net, 20)
    }

    /// The DAG's answer, walked directly on word values.
    fn reference(steps: &[TableStep], w: &[u32; 8]) -> usize {
        let mut s = 0usize;
        loop {
            let st = &steps[s];
            let d = w[st.word] & st.mask;
            let hit = st.values.iter().any(|&v| v & st.mask == d);
            let t = if hit { st.yes } else { st.no };
            if t <= 0 {
                return (-(t as i64)) as usize;
            }
            s = t as usize;
        }
    }

    /// Masks like the pattern language's: prefixes, bytes, bits, fields.
    fn mask(r: &mut Rng) -> u32 {
        match r.below(5) {
            0 => u32::MAX << r.below(32),
            1 => 0xFF << (8 * r.below(4)),
            2 => 1 << r.below(32),
            3 => 0xFFFF << (16 * r.below(2)),
            _ => r.next() as u32,
        }
    }

    /// A random forward DAG over `nwords` words with values drawn from a
    /// few per word (so tests overlap and agree often).
    fn dag(r: &mut Rng, nsteps: usize, nwords: usize, pool: &[[u32; 3]]) -> Vec<TableStep> {
        (0..nsteps)
            .map(|i| {
                let word = r.below(nwords as u64) as usize;
                let m = mask(r);
                let nv = 1 + r.below(3) as usize * usize::from(r.below(4) == 0);
                let values = (0..nv)
                    .map(|_| pool[word][r.below(3) as usize] ^ (r.below(4) as u32 * 0x0101_0000))
                    .collect();
                let target = |r: &mut Rng| {
                    if i + 1 < nsteps && r.below(3) != 0 {
                        (i + 1 + r.below((nsteps - i - 1) as u64) as usize) as i32
                    } else {
                        -(r.below(6) as i32)
                    }
                };
                let no = target(r);
                let yes = target(r);
                TableStep {
                    word,
                    mask: m,
                    values,
                    no,
                    yes,
                }
            })
            .collect()
    }

    #[test]
    fn random_programs_agree_with_the_dag() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let mut built = 0;
        for k in 0..300 {
            let nwords = 1 + r.below(6) as usize;
            let pool: Vec<[u32; 3]> = (0..8)
                .map(|_| [r.next() as u32, r.next() as u32, r.next() as u32])
                .collect();
            let nsteps = 1 + r.below(14) as usize;
            let steps = dag(&mut r, nsteps, nwords, &pool);
            let Some(t) = CrossTable::build(&steps, &LOCS) else {
                continue;
            };
            built += 1;
            for i in 0..3000 {
                let mut w = [0u32; 8];
                for (j, x) in w.iter_mut().enumerate() {
                    // near the tested values most of the time
                    *x = match r.below(4) {
                        0 => r.next() as u32,
                        _ => {
                            pool[j][r.below(3) as usize]
                                ^ ((1 << r.below(32)) * (r.below(2) as u32))
                        }
                    };
                }
                assert_eq!(
                    classify(&t, &w),
                    reference(&steps, &w),
                    "program {k}, words {i}: {w:08x?}\n{steps:?}"
                );
            }
        }
        assert!(built > 200, "{built} tables built");
    }

    #[test]
    fn prefix_rules_collapse_into_few_classes() {
        // dst in 10/8 -> 1; 172.16/12 -> 2; 128/2 -> 3; 64/3 -> 4; else 5,
        // as separate steps on one word.
        let prefixes: [(u32, u32); 4] = [
            (0x0a00_0000, 8),
            (0xac10_0000, 12),
            (0x8000_0000, 2),
            (0x4000_0000, 3),
        ];
        let steps: Vec<TableStep> = prefixes
            .iter()
            .enumerate()
            .map(|(i, &(v, len))| TableStep {
                word: 0,
                mask: u32::MAX << (32 - len),
                values: vec![v],
                no: if i + 1 < prefixes.len() {
                    i as i32 + 1
                } else {
                    -5
                },
                yes: -(i as i32 + 1),
            })
            .collect();
        let t = CrossTable::build(&steps, &LOCS).expect("table");
        // 172.16/12 is inside 128/2, the others are disjoint: of 16
        // patterns 5 are feasible (none, 10/8, 128/2, 128/2 and 172.16/12,
        // 64/3), each with its own output.
        assert_eq!(t.natoms(), 4);
        assert_eq!(t.table_len(), 5);
        let mut w = [0u32; 8];
        for (addr, out) in [
            (0x0a01_0203, 1),
            (0xac1f_0000, 2),
            (0xac20_0000, 3),
            (0xbfff_ffff, 3),
            (0x4000_0001, 4),
            (0x2000_0000, 5),
            (0xc000_0000, 5),
        ] {
            w[0] = addr;
            assert_eq!(classify(&t, &w), out, "{addr:08x}");
        }
    }

    #[test]
    fn words_with_five_to_eight_atoms_take_two_entries() {
        // seven prefixes of one word (in the transport header), then a
        // test on another word, first match wins
        let nets: [(u32, u32); 7] = [
            (0x0a00_0000, 8),
            (0x0a01_0000, 16),
            (0xc0a8_0000, 16),
            (0xac10_0000, 12),
            (0x8000_0000, 1),
            (0x0000_0000, 2),
            (0x0a01_0200, 24),
        ];
        let mut steps: Vec<TableStep> = nets
            .iter()
            .enumerate()
            .map(|(i, &(v, len))| TableStep {
                word: 5,
                mask: u32::MAX << (32 - len),
                values: vec![v],
                no: i as i32 + 1,
                yes: -(i as i32 % 3),
            })
            .collect();
        steps.push(TableStep {
            word: 1,
            mask: 0xFF,
            values: vec![17],
            no: -4,
            yes: -5,
        });
        let t = CrossTable::build(&steps, &LOCS).expect("table");
        assert_eq!(t.natoms(), 8);
        assert_eq!(t.entries.len(), 3);
        let mut r = Rng(99);
        for _ in 0..20_000 {
            let mut w = [0u32; 8];
            for x in w.iter_mut() {
                *x = r.next() as u32;
            }
            if r.below(2) == 0 {
                let (v, len) = nets[r.below(7) as usize];
                w[5] = v | (r.next() as u32 & !(u32::MAX << (32 - len)));
            }
            if r.below(2) == 0 {
                w[1] = 17;
            }
            assert_eq!(classify(&t, &w), reference(&steps, &w), "{w:08x?}");
        }
    }

    #[test]
    fn feasibility() {
        // one bit tested for 0 and for 1: exactly one is true
        let a = [(1, 0), (1, 1)];
        assert!(!feasible(&a, 0b00));
        assert!(feasible(&a, 0b01));
        assert!(feasible(&a, 0b10));
        assert!(!feasible(&a, 0b11));
        // two full-word values: not both
        let b = [(u32::MAX, 5), (u32::MAX, 6)];
        assert!(feasible(&b, 0b00));
        assert!(!feasible(&b, 0b11));
        // a prefix inside another
        let c = [(0xFF00_0000, 0x0a00_0000), (0x8000_0000, 0)];
        assert!(!feasible(&c, 0b01)); // in 10/8 but not in 0/1
        assert!(feasible(&c, 0b11));
        assert!(feasible(&c, 0b10));
        assert!(feasible(&c, 0b00));
        // a two-bit field: 4 values excluded one by one
        let d = [(3, 0), (3, 1), (3, 2), (3, 3)];
        assert!(!feasible(&d, 0));
        assert!(feasible(&d, 0b0100));
        // Brute force against every value of a small field.
        let mut r = Rng(7);
        for _ in 0..2000 {
            let n = 1 + r.below(5) as usize;
            let atoms: Vec<(u32, u32)> = (0..n)
                .map(|_| {
                    let m = r.next() as u32 & 0x3F;
                    (m, r.next() as u32 & m)
                })
                .collect();
            let pat = r.below(1 << n) as u32;
            let exact = (0..64u32).any(|x| {
                atoms
                    .iter()
                    .enumerate()
                    .all(|(i, &(m, v))| (x & m == v) == (pat >> i & 1 != 0))
            });
            assert_eq!(feasible(&atoms, pat), exact, "{atoms:?} {pat:b}");
        }
    }

    #[test]
    fn limits_and_bad_programs() {
        assert!(CrossTable::build(&[], &LOCS).is_none());
        // a word tested against too many values
        let many = TableStep {
            word: 0,
            mask: u32::MAX,
            values: (0..11).collect(),
            no: 0,
            yes: -1,
        };
        assert!(CrossTable::build(&[many], &LOCS).is_none());
        // a jump backwards ends at "drop" as the DAG walk does
        let back = vec![
            TableStep {
                word: 0,
                mask: 1,
                values: vec![1],
                no: 1,
                yes: -1,
            },
            TableStep {
                word: 1,
                mask: 1,
                values: vec![1],
                no: 1,
                yes: -2,
            },
        ];
        let t = CrossTable::build(&back, &LOCS).expect("table");
        let atoms = vec![vec![0], vec![1]];
        assert_eq!(classify(&t, &[0u32, 0, 0, 0, 0, 0, 0, 0]), usize::MAX);
        assert_eq!(walk(&back, &atoms, 0), usize::MAX);
        assert_eq!(classify(&t, &[1u32, 0, 0, 0, 0, 0, 0, 0]), 1);
        assert_eq!(classify(&t, &[0u32, 1, 0, 0, 0, 0, 0, 0]), 2);
    }
}
