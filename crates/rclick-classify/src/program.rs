//! A program under construction (the parse-tree API the pattern parsers
//! drive: subtrees combined with and/or/ternary) and Click's optimizer
//! over it: sorting "and" chains, the dominator pass
//! ([`crate::dominator`]), merging compatible tests, dropping unreachable
//! steps.

use std::fmt::Write as _;

use crate::dominator::DominatorOptimizer;
use crate::insn::{insn_text, Combiner, Insn, J_FAILURE, J_NEVER, J_SUCCESS};

/// A program under construction or optimized.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) insn: Vec<Insn>,
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
    pub fn add_insn(&mut self, tree: &mut Tree, offset: u32, value: u32, mask: u32) {
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
        let map = |o: u32| if o == 264 { 259 } else { i64::from(o) };
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Pattern `i` (its tests `(offset, value, mask)` ANDed) sends a packet
    /// to output `i`; the patterns ORed in order, else drop; unoptimized.
    pub(crate) fn patterns(pats: &[&[(u32, u32, u32)]]) -> Program {
        let mut p = Program::new();
        let mut tree = p.init_subtree();
        p.start_subtree(&mut tree);
        for (slot, pat) in pats.iter().enumerate() {
            p.start_subtree(&mut tree);
            for &(o, v, m) in pat.iter() {
                p.add_insn(&mut tree, o, v, m);
            }
            p.finish_subtree(&mut tree, Combiner::And, -(slot as i32), J_FAILURE);
        }
        p.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
        p
    }

    /// `12/0806 20/0001 -> 0, 12/0800 -> 1, else drop`, as Classifier builds it.
    fn ethernet() -> Program {
        patterns(&[
            &[
                (12, 0x0806_0000, 0xffff_0000),
                (20, 0x0001_0000, 0xffff_0000),
            ],
            &[(12, 0x0800_0000, 0xffff_0000)],
        ])
    }

    #[test]
    fn subtrees_wire_and_and_or() {
        let p = ethernet();
        assert_eq!(
            unparse_program(&p),
            " 0  12/08060000%ffff0000  yes->step 1  no->step 2\n \
             1  20/00010000%ffff0000  yes->[0]  no->step 2\n \
             2  12/08000000%ffff0000  yes->[1]  no->[X]\n\
             safe length 4294967295\nalignment offset 0\n"
        );
    }

    #[test]
    fn optimize_skips_decided_tests() {
        let mut p = ethernet();
        p.optimize();
        // An ARP packet whose opcode is not 1 is not IP: no need to test again.
        assert_eq!(
            unparse_program(&p),
            " 0  12/08060000%ffff0000  yes->step 1  no->step 2\n \
             1  20/00010000%ffff0000  yes->[0]  no->[X]\n \
             2  12/08000000%ffff0000  yes->[1]  no->[X]\n\
             safe length 22\nalignment offset 0\n"
        );
    }

    #[test]
    fn a_program_without_tests_sends_everything_one_way() {
        let mut p = Program::new();
        let mut tree = p.init_subtree();
        p.start_subtree(&mut tree);
        p.start_subtree(&mut tree);
        p.add_insn(&mut tree, 0, 0, 0);
        p.finish_subtree(&mut tree, Combiner::And, -1, J_FAILURE);
        p.finish_subtree(&mut tree, Combiner::Or, J_NEVER, J_NEVER);
        p.optimize();
        assert_eq!((p.ninsn(), p.output_everything()), (0, 1));
    }
}
