//! Word-wise classification programs (Click's `Classification::Wordwise`).
//!
//! A program is a decision DAG of instructions; each instruction loads a
//! 32-bit word at a (fake) offset, masks it and compares it with a value,
//! then jumps to a later step or ends at an output. Words, masks and values
//! are kept in network byte order read as big-endian integers, so the
//! printed form (`%08x`) is the value itself.
//!
//! Patterns are first built as a tree of tests combined with and/or/ternary
//! connectives, then optimized the way Click does it (sorting "and" chains,
//! dominator-based branch shifting, merging compatible tests, dropping
//! unreachable steps) so the `program` handler prints what Click prints,
//! and finally compressed: runs of tests on the same word with the same
//! "yes" target become one step with several values.
//!
//! Packets run through a fast form of the compressed program when they
//! hold every word it tests. When the program's tests fit its limits, that
//! form has no data-dependent branch: every test is evaluated and the
//! outcomes index tables built from the program (see the `table` module);
//! otherwise the words are loaded once, and each step is copied per kind
//! of path that reaches it so tests a path already decided are skipped
//! (see `Fast` and `Specializer`). Short or truncated packets take the
//! careful path, which checks lengths per step as Click does; randomized
//! tests check that all of them give the same output.

use std::fmt::Write as _;

use super::table::{CrossTable, TableStep};

/// Output meaning "drop the packet".
pub const J_NEVER: i32 = -2147483647;
/// Parse-time target of a failing branch.
pub const J_FAILURE: i32 = -2147483646;
/// Parse-time target of a succeeding branch.
pub const J_SUCCESS: i32 = -2147483645;

/// How `finish_subtree` combines the subtrees of one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combiner {
    /// Every subtree must match.
    And,
    /// Any subtree may match.
    Or,
    /// `a ? b : c`.
    Ternary,
}

/// One test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    /// Fake offset of the word (see the IPFilter module).
    pub offset: u16,
    /// Where a packet too short for this test goes: `true` = yes branch.
    pub short_output: bool,
    /// Mask (network order as a big-endian integer).
    pub mask: u32,
    /// Value, already masked.
    pub value: u32,
    /// `[no, yes]` targets: positive = step, `<= 0` = negated output.
    pub j: [i32; 2],
}

impl Insn {
    /// A fresh test with unresolved targets.
    pub fn new(offset: u16, value: u32, mask: u32) -> Insn {
        Insn {
            offset,
            short_output: false,
            mask,
            value: value & mask,
            j: [J_FAILURE, J_SUCCESS],
        }
    }

    /// Yes target.
    pub fn yes(&self) -> i32 {
        self.j[1]
    }
    /// No target.
    pub fn no(&self) -> i32 {
        self.j[0]
    }

    /// Bytes the packet must have (from fake offset 0) for the test to look
    /// at real data only.
    pub fn required_length(&self) -> u32 {
        let off = u32::from(self.offset);
        if self.mask == 0 {
            0
        } else if self.mask & 0xFF != 0 {
            off + 4
        } else if self.mask & 0xFF00 != 0 {
            off + 3
        } else if self.mask & 0xFF_0000 != 0 {
            off + 2
        } else {
            off + 1
        }
    }

    fn same_test(&self, x: &Insn) -> bool {
        self.offset == x.offset
            && self.short_output == x.short_output
            && self.mask == x.mask
            && self.value == x.value
    }

    fn short_ok(&self, direction: bool, x: &Insn, next_direction: bool, known: u32) -> bool {
        if self.short_output != direction || u32::from(self.offset) + 4 <= known {
            return true;
        }
        let r = self.required_length();
        r <= known || (r <= x.required_length() && next_direction == x.short_output)
    }

    fn implies(&self, x: &Insn, known: u32) -> bool {
        if x.mask == 0 {
            return true;
        }
        if x.offset != self.offset || !self.short_ok(true, x, true, known) {
            return false;
        }
        let both = self.mask & x.mask;
        both == x.mask && (self.value & both) == x.value
    }

    fn not_implies(&self, x: &Insn, known: u32) -> bool {
        if x.mask == 0 {
            return true;
        }
        if x.offset != self.offset || !self.short_ok(false, x, true, known) {
            return false;
        }
        self.mask & self.mask.wrapping_sub(1) == 0 && self.mask == x.mask && self.value != x.value
    }

    fn implies_not(&self, x: &Insn, known: u32) -> bool {
        if x.mask == 0 || x.offset != self.offset || !self.short_ok(true, x, false, known) {
            return false;
        }
        let both = self.mask & x.mask;
        both == x.mask && (self.value & both) != x.value
    }

    fn not_implies_not(&self, x: &Insn, known: u32) -> bool {
        if self.mask == 0 {
            return true;
        }
        if x.offset != self.offset || !self.short_ok(false, x, false, known) {
            return false;
        }
        let both = self.mask & x.mask;
        both == self.mask && self.value == (x.value & both)
    }

    fn compatible(&self, x: &Insn, consider_short: bool) -> bool {
        if self.mask == 0 || x.mask == 0 {
            return true;
        }
        if x.offset != self.offset
            || (consider_short
                && x.short_output != self.short_output
                && self.required_length() < x.required_length())
        {
            return false;
        }
        let both = self.mask & x.mask;
        (self.value & both) == (x.value & both)
    }

    fn generalizable_or_pair(&self, x: &Insn) -> bool {
        let diff = self.value ^ x.value;
        if self.offset != 0
            && x.offset == self.offset
            && self.mask != 0
            && x.mask == self.mask
            && (self.short_output || !x.short_output)
            && self.yes() == x.yes()
            && diff & diff.wrapping_sub(1) == 0
        {
            let test = Insn::new(self.offset, self.value & !diff, self.mask & !diff);
            test.required_length() == self.required_length()
        } else {
            false
        }
    }

    fn flippable(&self) -> bool {
        self.mask != 0 && self.mask & (self.mask - 1) == 0
    }

    fn flip(&mut self) {
        self.value ^= self.mask;
        self.j.swap(0, 1);
        self.short_output = !self.short_output;
    }
}

fn jump_text(out: &mut String, j: i32) {
    if j <= J_SUCCESS {
        let c = ["X", "-", "+"][(j - J_NEVER) as usize];
        let _ = write!(out, "[{c}]");
    } else if j <= 0 {
        let _ = write!(out, "[{}]", -(j as i64));
    } else {
        let _ = write!(out, "step {j}");
    }
}

#[allow(clippy::too_many_arguments)]
fn insn_text(
    out: &mut String,
    step: usize,
    offset: i64,
    value: u32,
    mask: u32,
    no: i32,
    yes: i32,
    short: bool,
) {
    let _ = write!(
        out,
        "{}{} {:3}/{:08x}%{:08x}  yes->",
        if step < 10 { " " } else { "" },
        step,
        offset,
        value,
        mask
    );
    jump_text(out, yes);
    out.push_str("  no->");
    jump_text(out, no);
    if short {
        out.push_str("  short->yes");
    }
    out.push('\n');
}

/// A program under construction or optimized.
#[derive(Clone, Debug)]
pub struct Program {
    insn: Vec<Insn>,
    output_everything: i32,
    safe_length: u32,
}

impl Default for Program {
    fn default() -> Self {
        Program::new()
    }
}

/// The parse-tree bookkeeping `start_subtree`/`finish_subtree` use.
pub type Tree = Vec<i32>;

impl Program {
    /// An empty program (matches nothing).
    pub fn new() -> Program {
        Program {
            insn: Vec::new(),
            output_everything: -J_NEVER,
            safe_length: u32::MAX,
        }
    }

    /// Number of steps.
    pub fn ninsn(&self) -> usize {
        self.insn.len()
    }
    /// The steps.
    pub fn insns(&self) -> &[Insn] {
        &self.insn
    }
    /// The output every packet goes to when there are no steps.
    pub fn output_everything(&self) -> i32 {
        self.output_everything
    }
    /// Packets at least this long need no length checks.
    pub fn safe_length(&self) -> u32 {
        self.safe_length
    }

    /// A fresh tree.
    pub fn init_subtree(&self) -> Tree {
        let mut t = vec![-1; self.insn.len() + 1];
        t[0] = 0;
        t
    }

    /// Opens a subtree.
    pub fn start_subtree(&self, tree: &mut Tree) {
        tree[0] += 1;
    }

    /// Adds a test to the current subtree.
    pub fn add_insn(&mut self, tree: &mut Tree, offset: u16, value: u32, mask: u32) {
        self.insn.push(Insn::new(offset, value, mask));
        tree.push(tree[0]);
        self.output_everything = -1;
    }

    fn redirect_subtree(&mut self, first: usize, last: usize, success: i32, failure: i32) {
        for insn in &mut self.insn[first..last] {
            for k in 0..2 {
                if insn.j[k] == J_SUCCESS {
                    insn.j[k] = success;
                } else if insn.j[k] == J_FAILURE {
                    insn.j[k] = failure;
                }
            }
        }
    }

    /// Closes the current subtree, combining its children with `combiner`;
    /// leftover success/failure targets become `success`/`failure`.
    pub fn finish_subtree(
        &mut self,
        tree: &mut Tree,
        combiner: Combiner,
        success: i32,
        failure: i32,
    ) {
        let level = tree[0];
        let n = self.insn.len();
        let mut subtrees: Vec<usize> = Vec::new();
        let mut ptr = n;
        while ptr > 0 && (tree[ptr] < 0 || tree[ptr] >= level) {
            ptr -= 1;
        }
        ptr += 1;
        while ptr <= n {
            if tree[ptr] == level {
                subtrees.push(ptr - 1);
            }
            ptr += 1;
        }
        if !subtrees.is_empty() {
            tree[subtrees[0] + 1] = level - 1;
            for e in tree.iter_mut().take(n + 1).skip(subtrees[0] + 2) {
                *e = -1;
            }
            let mut t = 0;
            while t + 1 < subtrees.len() {
                let first = subtrees[t];
                let next = subtrees[t + 1];
                let next_step = next as i32;
                match combiner {
                    Combiner::And => self.redirect_subtree(first, next, next_step, failure),
                    Combiner::Or => self.redirect_subtree(first, next, success, next_step),
                    Combiner::Ternary => {
                        if t + 2 < subtrees.len() {
                            let next2 = subtrees[t + 2];
                            self.redirect_subtree(first, next, next_step, next2 as i32);
                            self.redirect_subtree(next, next2, success, failure);
                            t += 1;
                        } else {
                            self.redirect_subtree(first, next, next_step, failure);
                        }
                    }
                }
                t += 1;
            }
            if t < subtrees.len() {
                self.redirect_subtree(subtrees[t], n, success, failure);
            }
        }
        tree[0] -= 1;
    }

    /// Swaps success and failure in the last finished subtree; with
    /// `flip_short`, short packets change sides too.
    pub fn negate_subtree(&mut self, tree: &Tree, flip_short: bool) {
        let level = tree[0];
        let mut first = self.insn.len() as isize - 1;
        while first >= 0 && tree[first as usize + 1] != level {
            first -= 1;
        }
        if first < 0 {
            return;
        }
        for e in &mut self.insn[first as usize..] {
            for k in 0..2 {
                if e.j[k] == J_FAILURE {
                    e.j[k] = J_SUCCESS;
                } else if e.j[k] == J_SUCCESS {
                    e.j[k] = J_FAILURE;
                }
            }
            if flip_short {
                e.short_output = !e.short_output;
            }
        }
    }

    fn remove_unused_states(&mut self) {
        let n = self.insn.len();
        if n == 0 {
            return;
        }
        let mut dest = vec![-1i32; n];
        for i in (0..n).rev() {
            for k in 0..2 {
                let j = self.insn[i].j[k];
                if j > 0 {
                    self.insn[i].j[k] = dest[j as usize];
                }
            }
            let insn = self.insn[i];
            dest[i] = if insn.yes() != insn.no() && insn.mask != 0 {
                i as i32
            } else if insn.yes() <= 0 {
                insn.yes()
            } else {
                dest[insn.yes() as usize]
            };
        }
        self.output_everything = -1;
        if dest[0] > 0 {
            self.insn[0] = self.insn[dest[0] as usize];
        } else if dest[0] < 0 {
            self.output_everything = -dest[0];
        } else if self.insn[0].yes() == 0 && (self.insn[0].no() == 0 || self.insn[0].mask == 0) {
            self.output_everything = 0;
        }

        let mut dest = vec![-1i32; n];
        if self.output_everything < 0 {
            dest[0] = 0;
        }
        let mut next = 0;
        for i in 0..n {
            if dest[i] >= 0 {
                dest[i] = next;
                next += 1;
                let insn = self.insn[i];
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
                self.insn[j] = self.insn[i];
                for k in 0..2 {
                    let t = self.insn[j].j[k];
                    if t > 0 {
                        self.insn[j].j[k] = dest[t as usize];
                    }
                }
            }
        }
        self.insn.truncate(next as usize);
    }

    fn combine_compatible_states(&mut self) {
        let mut i = self.insn.len() as isize - 1;
        while i >= 0 {
            let iu = i as usize;
            let no = self.insn[iu].no();
            if no > 0 {
                let no_in = self.insn[no as usize];
                if no_in.compatible(&self.insn[iu], false) && self.insn[iu].flippable() {
                    self.insn[iu].flip();
                } else if self.insn[iu].generalizable_or_pair(&no_in) {
                    let bit = self.insn[iu].value ^ no_in.value;
                    let cur = &mut self.insn[iu];
                    cur.value &= !bit;
                    cur.mask &= !bit;
                    cur.j[0] = no_in.no();
                    // look at this step again
                    continue;
                }
            }
            let yes = self.insn[iu].yes();
            if yes <= 0 {
                i -= 1;
                continue;
            }
            let yu = yes as usize;
            if self.insn[iu].no() == self.insn[yu].yes() && self.insn[yu].flippable() {
                self.insn[yu].flip();
            }
            let yes_in = self.insn[yu];
            if self.insn[iu].no() == yes_in.no() && yes_in.compatible(&self.insn[iu], true) {
                let cur = &mut self.insn[iu];
                cur.j[1] = yes_in.yes();
                if cur.mask == 0 {
                    cur.offset = yes_in.offset;
                }
                cur.value = (cur.value & cur.mask) | (yes_in.value & yes_in.mask);
                cur.mask |= yes_in.mask;
                continue;
            }
            i -= 1;
        }
    }

    fn count_inbranches(&self) -> Vec<i32> {
        let mut inb = vec![-1i32; self.insn.len()];
        for (i, e) in self.insn.iter().enumerate() {
            for k in 0..2 {
                if e.j[k] > 0 {
                    let t = e.j[k] as usize;
                    inb[t] = if inb[t] >= 0 { 0 } else { i as i32 };
                }
            }
        }
        inb
    }

    /// Sorts chains of "and"ed tests by offset, mask and value (the IP
    /// protocol word sorts first).
    pub fn bubble_sort_and_exprs(&mut self) {
        let inbranch = self.count_inbranches();
        let map = |o: u16| if o == 264 { 259 } else { i32::from(o) };
        let mut i: isize = 0;
        while (i as usize) < self.insn.len() {
            let iu = i as usize;
            for k in 0..2 {
                let e1 = self.insn[iu];
                let j = e1.j[k];
                if j <= 0 || inbranch[j as usize] <= 0 {
                    continue;
                }
                let ju = j as usize;
                let e2 = self.insn[ju];
                if e1.j[1 - k] != e2.j[1 - k] {
                    continue;
                }
                let (o1, o2) = (map(e1.offset), map(e2.offset));
                if o1 > o2
                    || (o1 == o2
                        && (e1.mask > e2.mask || (e1.mask == e2.mask && e1.value > e2.value)))
                {
                    let mut n2 = e1;
                    n2.j[k] = e2.j[k];
                    let mut n1 = e2;
                    n1.j[k] = j;
                    self.insn[ju] = n2;
                    self.insn[iu] = n1;
                    i = if inbranch[iu] > 0 {
                        inbranch[iu] as isize - 1
                    } else {
                        i - 1
                    };
                    break;
                }
            }
            i += 1;
        }
    }

    /// Click's optimizer; afterwards either there are steps or
    /// `output_everything() >= 0`.
    pub fn optimize(&mut self) {
        self.bubble_sort_and_exprs();
        {
            let mut dom = DominatorOptimizer::new(self);
            for i in 0..dom.p.insn.len() {
                dom.run(i);
            }
        }
        self.combine_compatible_states();
        self.remove_unused_states();
        if self.insn.is_empty() && self.output_everything < 0 {
            self.output_everything = -J_NEVER;
        } else if self.output_everything >= 0 {
            self.insn.clear();
        }
        self.safe_length = self
            .insn
            .iter()
            .map(Insn::required_length)
            .max()
            .unwrap_or(0);
    }
}

/// Click's dominator optimizer: shifts branches past tests whose outcome
/// every path to them already decided.
struct DominatorOptimizer<'a> {
    p: &'a mut Program,
    known_length: Vec<i32>,
    insn_id: Vec<usize>,
    dom: Vec<i32>,
    dom_start: Vec<usize>,
    domlist_start: Vec<usize>,
    pred_first: Vec<i32>,
    pred_next: Vec<i32>,
    pred_prev: Vec<i32>,
}

const MAX_DOMLIST: usize = 4;

fn brno(state: usize, br: bool) -> i32 {
    ((state << 1) + usize::from(br)) as i32
}
fn stateno(br: i32) -> usize {
    (br >> 1) as usize
}
fn br_yes(br: i32) -> bool {
    br & 1 != 0
}

impl<'a> DominatorOptimizer<'a> {
    fn new(p: &'a mut Program) -> DominatorOptimizer<'a> {
        let n = p.insn.len();
        let mut known_length = vec![0x7FFF_FFFFi32; n];
        if n > 0 {
            known_length[0] = 0;
        }
        for i in 0..n {
            let insn = p.insn[i];
            let tested = (insn.required_length() as i32).max(known_length[i]);
            let so = usize::from(insn.short_output);
            let a = insn.j[1 - so];
            if a > 0 && tested < known_length[a as usize] {
                known_length[a as usize] = tested;
            }
            let b = insn.j[so];
            if b > 0 && known_length[i] < known_length[b as usize] {
                known_length[b as usize] = known_length[i];
            }
        }
        let mut insn_id = vec![0usize; n];
        for i in 0..n {
            insn_id[i] = (0..i)
                .find(|&k| p.insn[k].same_test(&p.insn[i]))
                .map_or(i, |k| insn_id[k]);
        }
        let mut pred_first = vec![-1i32; n];
        let mut pred_next = vec![-1i32; n * 2];
        let mut pred_prev = vec![-1i32; n * 2];
        for i in 0..n {
            for k in 0..2 {
                let t = p.insn[i].j[k];
                if t > 0 {
                    let br = brno(i, k == 1);
                    let t = t as usize;
                    pred_next[br as usize] = pred_first[t];
                    if pred_first[t] >= 0 {
                        pred_prev[pred_first[t] as usize] = br;
                    }
                    pred_first[t] = br;
                }
            }
        }
        DominatorOptimizer {
            p,
            known_length,
            insn_id,
            dom: Vec::new(),
            dom_start: vec![0],
            domlist_start: vec![0],
            pred_first,
            pred_next,
            pred_prev,
        }
    }

    fn br_implies(&self, br: i32, state: usize) -> bool {
        let from = stateno(br);
        let kl = self.known_length[from] as u32;
        let (a, b) = (&self.p.insn[from], &self.p.insn[state]);
        if br_yes(br) {
            a.implies(b, kl)
        } else {
            a.not_implies(b, kl)
        }
    }

    fn br_implies_not(&self, br: i32, state: usize) -> bool {
        let from = stateno(br);
        let kl = self.known_length[from] as u32;
        let (a, b) = (&self.p.insn[from], &self.p.insn[state]);
        if br_yes(br) {
            a.implies_not(b, kl)
        } else {
            a.not_implies_not(b, kl)
        }
    }

    fn set_branch(&mut self, from: usize, branch: bool, to: i32) {
        let br = brno(from, branch);
        let bu = br as usize;
        let old = self.p.insn[from].j[usize::from(branch)];
        if old > 0 {
            let (pp, pn) = (self.pred_prev[bu], self.pred_next[bu]);
            if pp >= 0 {
                self.pred_next[pp as usize] = pn;
            } else {
                self.pred_first[old as usize] = pn;
            }
            if pn >= 0 {
                self.pred_prev[pn as usize] = pp;
            }
        }
        if to > 0 {
            let mut prev = -1i32;
            let mut cur = self.pred_first[to as usize];
            while cur >= 0 && cur < br {
                prev = cur;
                cur = self.pred_next[cur as usize];
            }
            self.pred_prev[bu] = prev;
            self.pred_next[bu] = cur;
            if prev >= 0 {
                self.pred_next[prev as usize] = br;
            } else {
                self.pred_first[to as usize] = br;
            }
            if cur >= 0 {
                self.pred_prev[cur as usize] = br;
            }
        }
        self.p.insn[from].j[usize::from(branch)] = to;
    }

    fn predecessors(&self, state: usize) -> Vec<i32> {
        let mut v = Vec::new();
        let mut br = self.pred_first[state];
        while br >= 0 {
            v.push(br);
            br = self.pred_next[br as usize];
        }
        v
    }

    fn intersect_lists(input: &[i32], start: &[usize], end: &[usize], out: &mut Vec<i32>) {
        let n = start.len();
        if n == 0 {
            return;
        }
        if n == 1 {
            out.extend_from_slice(&input[start[0]..end[0]]);
            return;
        }
        let mut pos = start.to_vec();
        let mut x: i32 = -1;
        loop {
            let mut p = 0;
            let mut k = 0;
            while k < n {
                while pos[p] < end[p] && input[pos[p]] < x {
                    pos[p] += 1;
                }
                if pos[p] >= end[p] {
                    return;
                }
                if input[pos[p]] > x {
                    x = input[pos[p]];
                    k = 0;
                }
                p += 1;
                if p == n {
                    p = 0;
                }
                k += 1;
            }
            out.push(x);
            x += 1;
        }
    }

    fn calculate_dom(&mut self, state: usize) {
        let preds = self.predecessors(state);
        let mut pdom: Vec<usize> = Vec::new();
        let mut pdom_end: Vec<usize> = Vec::new();
        // Lists the previous predecessor branch added.
        let mut prev_pushed = 0usize;
        for (i, &pred_br) in preds.iter().enumerate() {
            let s = stateno(pred_br);
            // Both branches of `s` lead here: `s` decides nothing on the
            // way, so its branch leaves the list (Click: the last list).
            // When the first branch added no list (every one of them
            // contradicted it), this branch's lists count on their own.
            if i > 0 && stateno(preds[i - 1]) == s && prev_pushed > 0 {
                if let Some(last) = pdom_end.last_mut() {
                    *last -= 1;
                }
                prev_pushed = 0;
                continue;
            }
            let before = pdom.len();
            let pred_brid = brno(self.insn_id[s], br_yes(pred_br));
            for j in self.domlist_start[s]..self.domlist_start[s + 1] {
                let (pos1, pos2) = (self.dom_start[j], self.dom_start[j + 1]);
                if self.dom[pos1..pos2 - 1]
                    .iter()
                    .any(|&d| (d ^ pred_brid) == 1)
                {
                    continue;
                }
                pdom.push(pos1);
                pdom_end.push(pos2);
                self.dom[pos2 - 1] = pred_brid;
            }
            prev_pushed = pdom.len() - before;
        }

        let dom_start_oldsize = self.dom_start.len();
        if pdom.len() > MAX_DOMLIST {
            let copy = self.dom.clone();
            Self::intersect_lists(&copy, &pdom, &pdom_end, &mut self.dom);
            self.dom.push(brno(self.insn_id[state], false));
            self.dom_start.push(self.dom.len());
        } else if !pdom.is_empty() {
            let mut mybr = brno(self.insn_id[state], false);
            let mut num_mybr: i32 = 0;
            for p in 0..pdom.len() {
                let mut pred_mybr = -1;
                // A list emptied above (the start state's, whose both
                // branches lead here) copies nothing: Click reads the
                // element before it.
                if pdom_end[p] > pdom[p] {
                    let endpos = pdom_end[p] - 1;
                    let last_pdom_br = self.dom[endpos];
                    for i in pdom[p]..=endpos {
                        let thisbr = self.dom[i];
                        if i < endpos && (thisbr ^ last_pdom_br) <= 1 {
                            continue;
                        }
                        if (thisbr ^ mybr) <= 1 {
                            pred_mybr = thisbr;
                        }
                        self.dom.push(thisbr);
                    }
                }
                if num_mybr >= 0 && pred_mybr >= 0 && (num_mybr == 0 || mybr == pred_mybr) {
                    mybr = pred_mybr;
                    num_mybr += 1;
                } else {
                    num_mybr = -1;
                }
                self.dom.push(mybr);
                self.dom_start.push(self.dom.len());
            }
            if num_mybr > 0 {
                let new_state = self.p.insn[state].j[(mybr & 1) as usize];
                for &pb in &preds {
                    self.set_branch(stateno(pb), br_yes(pb), new_state);
                }
                pdom.clear();
            }
        }

        if pdom.is_empty() {
            self.dom.truncate(self.dom_start[dom_start_oldsize - 1]);
            self.dom_start.truncate(dom_start_oldsize);
            if state > 0 {
                self.set_branch(state, false, J_NEVER);
                self.set_branch(state, true, J_NEVER);
            } else {
                self.dom.push(brno(state, false));
                self.dom_start.push(self.dom.len());
            }
        }
        self.domlist_start.push(self.dom_start.len() - 1);
    }

    fn dom_shift_branch(
        &mut self,
        br: i32,
        mut to_state: i32,
        dom: usize,
        dom_end: usize,
        mut collector: Option<&mut Vec<i32>>,
    ) -> i32 {
        let br = brno(self.insn_id[stateno(br)], br_yes(br));
        self.dom[dom_end - 1] = br;
        if let Some(c) = collector.as_deref_mut() {
            c.push(to_state);
        }
        while to_state > 0 {
            let ts = to_state as usize;
            let mut found = None;
            for j in (dom..dom_end).rev() {
                if self.br_implies(self.dom[j], ts) {
                    found = Some(self.p.insn[ts].yes());
                    break;
                } else if self.br_implies_not(self.dom[j], ts) {
                    found = Some(self.p.insn[ts].no());
                    break;
                }
            }
            match found {
                Some(t) => {
                    to_state = t;
                    if let Some(c) = collector.as_deref_mut() {
                        c.push(to_state);
                    }
                }
                None => break,
            }
        }
        to_state
    }

    fn shift_branch(&mut self, state: usize, branch: bool) {
        let nexts = self.p.insn[state].j[usize::from(branch)];
        let br = brno(state, branch);
        let (d0, d1) = (self.domlist_start[state], self.domlist_start[state + 1]);
        let new_nexts = if d0 == d1 || nexts <= 0 {
            nexts
        } else if d0 + 1 == d1 {
            let (a, b) = (self.dom_start[d0], self.dom_start[d0 + 1]);
            self.dom_shift_branch(br, nexts, a, b, None)
        } else {
            let mut vals = Vec::new();
            let mut start = Vec::new();
            let mut end = Vec::new();
            for d in d0..d1 {
                start.push(vals.len());
                let (a, b) = (self.dom_start[d], self.dom_start[d + 1]);
                self.dom_shift_branch(br, nexts, a, b, Some(&mut vals));
                end.push(vals.len());
            }
            last_common_state(&vals, &start, &end).unwrap_or(nexts)
        };
        if new_nexts != nexts {
            self.set_branch(state, branch, new_nexts);
        }
    }

    fn run(&mut self, state: usize) {
        self.calculate_dom(state);
        self.shift_branch(state, true);
        self.shift_branch(state, false);
    }
}

fn last_common_state(input: &[i32], start: &[usize], end: &[usize]) -> Option<i32> {
    let s = input[end[0] - 1];
    if s <= 0 && (1..start.len()).all(|j| input[end[j] - 1] == s) {
        return Some(s);
    }
    let mut inter = Vec::new();
    DominatorOptimizer::intersect_lists(input, start, end, &mut inter);
    inter.last().copied()
}

/// One compressed step: a word test against one or more values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZStep {
    /// Fake offset.
    pub offset: u16,
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
    /// The same steps over preloaded words, for packets long enough for
    /// every word; `None` when the program tests link-layer bytes or loads
    /// too many distinct words.
    fast: Option<Fast>,
}

/// Most distinct words a fast program preloads (a power of two, so a word
/// index masked with `FAST_WORDS - 1` needs no bounds check): up to `HALF`
/// from the IP header, then up to `HALF` from the transport header.
const FAST_WORDS: usize = 16;
const HALF: usize = FAST_WORDS / 2;

/// One step of the fast form: the index of its preloaded word, then the
/// same test and targets as the [`ZStep`] at the same index.
#[derive(Clone, Copy, Debug)]
struct FastStep {
    word: u8,
    /// More than one value: the test is [`ZProgram::multi_hit`] on the
    /// values of step `zstep`.
    multi: bool,
    zstep: u32,
    mask: u32,
    value: u32,
    no: i32,
    yes: i32,
}

/// A program over preloaded words. Every packet long enough for all of
/// them (`net_need` bytes from the IP header, `transp_need` bytes from the
/// transport header) gets the same answer from this form as from the
/// careful one, which handles the rest (short or truncated packets, and
/// unset headers).
#[derive(Clone, Debug)]
struct Fast {
    /// Byte offsets of the IP header words (word `i` is `ip_words[i]`).
    ip_words: Vec<usize>,
    /// Byte offsets of the transport header words (word `HALF + i` is
    /// `transp_words[i]`).
    transp_words: Vec<usize>,
    steps: Vec<FastStep>,
    net_need: usize,
    transp_need: usize,
    /// The branch-free form of `steps`, when it fits its limits (then
    /// `steps` stays unspecialized and unused by the fast path).
    table: Option<CrossTable>,
}

impl Fast {
    /// The fast form of `z`, if it has one. Every jump goes forward to an
    /// existing step (checked here, so the walk needs no loop guard).
    fn build(z: &ZProgram) -> Option<Fast> {
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
        };
        for (i, st) in z.steps.iter().enumerate() {
            let off = usize::from(st.offset);
            let (list, base, off) = if off >= 512 {
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
const MAX_SPECIALIZED: usize = 4096;
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
struct Specializer<'a> {
    base: &'a [FastStep],
    /// Per step: the words it or a later step tests (jumps go forward).
    later_words: Vec<u32>,
    out: Vec<FastStep>,
    memo: std::collections::HashMap<(usize, Vec<Fact>), i32>,
}

impl Specializer<'_> {
    fn run(base: &[FastStep]) -> Option<Vec<FastStep>> {
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

impl Default for ZProgram {
    fn default() -> Self {
        ZProgram {
            steps: Vec::new(),
            values: Vec::new(),
            output_everything: -J_NEVER,
            safe_length: u32::MAX,
            print_step: Vec::new(),
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
    /// Compresses an optimized program.
    pub fn compile(prog: &Program) -> ZProgram {
        let insns = prog.insns();
        let n = insns.len();
        let mut z = ZProgram {
            output_everything: prog.output_everything(),
            safe_length: prog.safe_length(),
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

/// Unparses an uncompressed program (for tests and debugging).
pub fn unparse_program(p: &Program) -> String {
    let mut out = String::new();
    for (i, insn) in p.insns().iter().enumerate() {
        insn_text(
            &mut out,
            i,
            i64::from(insn.offset),
            insn.value,
            insn.mask,
            insn.no(),
            insn.yes(),
            insn.short_output,
        );
    }
    if p.ninsn() == 0 {
        let _ = writeln!(out, "all->[{}]", p.output_everything());
    }
    let _ = writeln!(out, "safe length {}", p.safe_length());
    out.push_str("alignment offset 0\n");
    out
}

/// Where a packet's bytes are, in the fake-offset space.
struct View<'a> {
    /// From the network header to the end of the data.
    net: &'a [u8],
    /// Network header length (transport header offset within `net`).
    nhl: usize,
    /// From the MAC header to the end of the data, if set.
    mac: Option<&'a [u8]>,
}

impl View<'_> {
    /// The masked word for `st`, or `None` when the packet is too short.
    #[inline(always)]
    fn word(&self, st: &ZStep) -> Option<u32> {
        let off = usize::from(st.offset);
        let (buf, start) = if off >= 512 {
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
        if self.steps.is_empty() {
            return self.output_everything.max(0) as usize;
        }
        let view = View {
            net: p.network_header().unwrap_or(&[]),
            nhl: p.network_header_len(),
            mac: p.mac_header(),
        };
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
    use super::ZProgram;
    use crate::classifier::parse_program;
    use rclick_core::args::NoContext;
    use rclick_packet::Packet;

    use crate::classifier::TestRng as Rng;

    /// The 10 rules (and default) of Click's `d_ipclassifier10` benchmark.
    const BENCH_RULES: &[&str] = &[
        "dst net 10.0.0.0/8 and tcp dst port 80",
        "dst net 10.0.0.0/8 and udp dst port 53",
        "src host 10.0.0.2 and dst net 192.168.0.0/16",
        "tcp opt syn and not tcp opt ack",
        "icmp type echo",
        "dst net 172.16.0.0/12",
        "udp dst port 5678 and dst net 128.0.0.0/2",
        "dst net 64.0.0.0/3 and ip ttl < 10",
        "ip frag",
        "udp",
        "-",
    ];

    fn program(rules: &[&str]) -> ZProgram {
        let conf: Vec<String> = rules
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{i} {r}"))
            .collect();
        parse_program(&conf, rules.len(), &NoContext).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// A random frame: a 14-byte link header, then an IPv4-looking header
    /// (random header length, so options, protocol, fragment fields,
    /// addresses near the tested networks), a transport header and
    /// payload, truncated to a random length; headers set or not.
    fn packet(r: &mut Rng) -> Packet {
        let mut d = [0u8; 14 + 60 + 40];
        for b in d.iter_mut() {
            *b = r.next() as u8;
        }
        let hl = 5 + r.below(11) as usize;
        d[14] = 0x40 | hl as u8;
        d[14 + 9] = [1, 6, 17, 2, 4, r.next() as u8][r.below(6) as usize];
        if r.below(2) == 0 {
            // unfragmented, or a first fragment, half the time
            d[14 + 6] &= 0x20;
            d[14 + 7] = 0;
        }
        let nets = [
            [10, 0, 0, 2],
            [10, 0, 1, 2],
            [192, 168, 3, 4],
            [172, 16, 9, 9],
        ];
        for at in [14 + 12, 14 + 16] {
            if r.below(2) == 0 {
                d[at..at + 4].copy_from_slice(&nets[r.below(4) as usize]);
            }
        }
        let th = 14 + hl * 4;
        if r.below(2) == 0 {
            let ports: [u16; 5] = [80, 53, 5678, 22, 1];
            d[th + 2..th + 4].copy_from_slice(&ports[r.below(5) as usize].to_be_bytes());
            d[th] = [8, 0, 3][r.below(3) as usize];
        }
        let len = if r.below(3) == 0 {
            r.below(d.len() as u64 + 1) as usize
        } else {
            d.len()
        };
        let mut p = Packet::from_slice(&d[..len]);
        match r.below(8) {
            0 => {}
            1 => p.set_ip_header(14, 4 * r.below(20) as usize),
            _ => {
                p.set_mac_header(0);
                p.set_ip_header(14, hl * 4);
            }
        }
        p
    }

    #[test]
    fn fast_path_agrees_with_the_careful_one() {
        let sets: &[&[&str]] = &[
            BENCH_RULES,
            &[
                "tcp port 1 or 2 or 3 or 5 or 8 or 13 or 21 or 22 or 34 or 53 or 80",
                "udp src port 53 or 5678 or 1",
                "icmp type echo-reply or unreachable",
                "ip hl > 5 and ip[20:2] != 0",
                "transp[2:2] < 1024 and not ip frag",
                "tcp win 0 or tcp opt fin",
            ],
            &[
                "ip unfrag and transp[0] & 0x80 != 0",
                "src or dst 10.0.0.0/24",
                "-",
            ],
            &["ether src 00:11:22:33:44:55", "ip dscp 3 or ip ect", "tcp"],
            &[
                "icmp[1:1] == 3",
                "ip[12:4] == 0x0a000002 && ip ttl >= 64",
                "udp[6:2] == 0",
            ],
            &["-"],
        ];
        let mut r = Rng(0x0123_4567_89ab_cdef);
        for (k, rules) in sets.iter().enumerate() {
            let prog = program(rules);
            assert_eq!(prog.fast.is_some(), k != 3 && k != 5, "set {k}");
            // The benchmark's rules take the table form; the port lists of
            // set 1 (too many atoms on one word) keep the walk.
            let table = prog.fast.as_ref().is_some_and(|f| f.table.is_some());
            assert_eq!(table, k == 0 || k == 2 || k == 4, "set {k}");
            let mut fast = 0;
            for i in 0..20_000 {
                let p = packet(&mut r);
                let net = p.network_header().unwrap_or(&[]);
                if let Some(f) = &prog.fast {
                    let nhl = p.network_header_len();
                    if p.network_header().is_some()
                        && net.len() >= f.net_need
                        && net.len() >= nhl + f.transp_need
                    {
                        fast += 1;
                    }
                }
                assert_eq!(
                    prog.classify(&p),
                    prog.classify_careful(&p),
                    "set {k}, packet {i}: {:02x?}",
                    p.data()
                );
            }
            // Both paths ran: many packets are long enough, some are not.
            if prog.fast.is_some() {
                assert!(fast > 5_000 && fast < 20_000, "set {k}: {fast} fast");
            }
        }
    }

    #[test]
    fn specialized_and_large_programs_agree_with_the_careful_path() {
        let ten = program(&[
            "dst net 10.0.0.0/8 and tcp dst port 80",
            "dst net 10.0.0.0/8 and udp dst port 53",
            "udp",
            "-",
        ]);
        let f = ten.fast.as_ref().map_or(0, |f| f.steps.len());
        assert!(f > 0 && f <= super::MAX_SPECIALIZED, "{f}");

        let rules: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    "dst host 10.0.{}.{} and udp or src port {}",
                    i / 250,
                    i % 250,
                    i
                )
            })
            .collect();
        let refs: Vec<&str> = rules.iter().map(String::as_str).collect();
        let big = program(&refs);
        let mut r = Rng(42);
        for i in 0..5_000 {
            let p = packet(&mut r);
            assert_eq!(big.classify(&p), big.classify_careful(&p), "packet {i}");
        }
    }

    /// Times the table form against the specialized DAG walk on the
    /// 10-rule benchmark's packets (random destinations):
    /// `cargo test --release -p rclick-elements-ip -- --ignored --nocapture table_vs_walk`.
    #[test]
    #[ignore]
    fn table_vs_walk_timing() {
        let prog = program(BENCH_RULES);
        let mut walk = prog.clone();
        if let Some(f) = walk.fast.as_mut() {
            f.table = None;
            if let Some(steps) = super::Specializer::run(&f.steps) {
                f.steps = steps;
            }
        }
        let frame: Vec<u8> = (0..50u8).collect();
        let mut x: u32 = 0x1234_5678;
        let mut pkts: Vec<Packet> = (0..64)
            .map(|_| {
                let mut p = Packet::from_slice(&frame);
                if let Some(d) = p.data_mut().get_mut(0..20) {
                    d.copy_from_slice(&[
                        0x45, 0, 0, 0x32, 0, 0, 0, 0, 0x40, 0x11, 0x65, 0xb8, 10, 0, 0, 2, 0, 0, 0,
                        0,
                    ]);
                }
                p.set_ip_header(0, 20);
                p
            })
            .collect();
        let iters: usize = std::env::var("ITERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(40_000);
        let fixed = std::env::var_os("FIXED").is_some();
        for round in 0..3 {
            let trivial = program(&["-"]);
            for (name, pr) in [
                ("table", Some(&prog)),
                ("walk", Some(&walk)),
                ("none", None),
                ("trivial", Some(&trivial)),
            ] {
                // CPU time of this thread (the machine may be loaded)
                let cpu = || {
                    std::fs::read_to_string("/proc/thread-self/schedstat")
                        .ok()
                        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                        .unwrap_or(0)
                };
                let t = std::time::Instant::now();
                let c0 = cpu();
                let mut sum = 0usize;
                // a fresh random destination per packet, in cache
                for _ in 0..iters {
                    for p in pkts.iter_mut() {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        if !fixed {
                            if let Some(d) = p.data_mut().get_mut(16..20) {
                                d.copy_from_slice(&x.to_be_bytes());
                            }
                        }
                        let p = std::hint::black_box(&*p);
                        sum = sum.wrapping_add(pr.map_or(p.data()[19].into(), |pr| pr.classify(p)));
                    }
                }
                let n = iters as f64 * pkts.len() as f64;
                let ns = t.elapsed().as_nanos() as f64 / n;
                let cns = (cpu() - c0) as f64 / n;
                eprintln!("round {round} {name}: {ns:.2} ns/packet wall, {cns:.2} cpu ({sum})");
            }
        }
    }
}
