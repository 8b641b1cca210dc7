//! Click's dominator optimizer: a branch that leads to a test whose
//! outcome every path to it already decides is shifted past that test.

use crate::insn::J_NEVER;
use crate::program::Program;

/// Click's dominator optimizer: shifts branches past tests whose outcome
/// every path to them already decided.
pub(crate) struct DominatorOptimizer<'a> {
    pub(crate) p: &'a mut Program,
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
    pub(crate) fn new(p: &'a mut Program) -> DominatorOptimizer<'a> {
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

    pub(crate) fn run(&mut self, state: usize) {
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

#[cfg(test)]
mod tests {
    use crate::program::tests::patterns;
    use crate::program::unparse_program;

    /// `8/01 -> 0; 8/01 12/02 -> 1; else drop`: the second pattern's first
    /// test is decided by the first pattern's failure, so the dominator
    /// pass sends that failure straight to the drop.
    #[test]
    fn a_test_decided_on_every_path_is_skipped() {
        let mut p = patterns(&[
            &[(8, 0x0100_0000, 0xff00_0000)],
            &[
                (8, 0x0100_0000, 0xff00_0000),
                (12, 0x0200_0000, 0xff00_0000),
            ],
        ]);
        p.optimize();
        assert_eq!(
            unparse_program(&p),
            " 0   8/01000000%ff000000  yes->[0]  no->[X]\nsafe length 9\nalignment offset 0\n"
        );
    }
}
