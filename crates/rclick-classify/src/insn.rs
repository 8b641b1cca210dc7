//! One test of a classification program ([`Insn`]), the jump encoding
//! its branches use, and the relations between tests the optimizer
//! relies on (implication, compatibility, merging).

use std::fmt::Write as _;

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
    pub offset: u32,
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
    pub fn new(offset: u32, value: u32, mask: u32) -> Insn {
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
        let off = self.offset;
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

    pub(crate) fn same_test(&self, x: &Insn) -> bool {
        self.offset == x.offset
            && self.short_output == x.short_output
            && self.mask == x.mask
            && self.value == x.value
    }

    pub(crate) fn short_ok(
        &self,
        direction: bool,
        x: &Insn,
        next_direction: bool,
        known: u32,
    ) -> bool {
        if self.short_output != direction || self.offset + 4 <= known {
            return true;
        }
        let r = self.required_length();
        r <= known || (r <= x.required_length() && next_direction == x.short_output)
    }

    pub(crate) fn implies(&self, x: &Insn, known: u32) -> bool {
        if x.mask == 0 {
            return true;
        }
        if x.offset != self.offset || !self.short_ok(true, x, true, known) {
            return false;
        }
        let both = self.mask & x.mask;
        both == x.mask && (self.value & both) == x.value
    }

    pub(crate) fn not_implies(&self, x: &Insn, known: u32) -> bool {
        if x.mask == 0 {
            return true;
        }
        if x.offset != self.offset || !self.short_ok(false, x, true, known) {
            return false;
        }
        self.mask & self.mask.wrapping_sub(1) == 0 && self.mask == x.mask && self.value != x.value
    }

    pub(crate) fn implies_not(&self, x: &Insn, known: u32) -> bool {
        if x.mask == 0 || x.offset != self.offset || !self.short_ok(true, x, false, known) {
            return false;
        }
        let both = self.mask & x.mask;
        both == x.mask && (self.value & both) != x.value
    }

    pub(crate) fn not_implies_not(&self, x: &Insn, known: u32) -> bool {
        if self.mask == 0 {
            return true;
        }
        if x.offset != self.offset || !self.short_ok(false, x, false, known) {
            return false;
        }
        let both = self.mask & x.mask;
        both == self.mask && self.value == (x.value & both)
    }

    pub(crate) fn compatible(&self, x: &Insn, consider_short: bool) -> bool {
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

    pub(crate) fn generalizable_or_pair(&self, x: &Insn) -> bool {
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

    pub(crate) fn flippable(&self) -> bool {
        self.mask != 0 && self.mask & (self.mask - 1) == 0
    }

    pub(crate) fn flip(&mut self) {
        self.value ^= self.mask;
        self.j.swap(0, 1);
        self.short_output = !self.short_output;
    }
}

pub(crate) fn jump_text(out: &mut String, j: i32) {
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
pub(crate) fn insn_text(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_length_is_the_last_tested_byte() {
        assert_eq!(Insn::new(8, 0, 0).required_length(), 0);
        assert_eq!(Insn::new(8, 0, 0xff00_0000).required_length(), 9);
        assert_eq!(Insn::new(8, 0, 0x0000_ff00).required_length(), 11);
        assert_eq!(Insn::new(8, 0, 0x0000_0001).required_length(), 12);
    }

    #[test]
    fn relations_between_tests() {
        let a = Insn::new(12, 0x0806_0000, 0xffff_0000);
        let b = Insn::new(12, 0x0800_0000, 0xff00_0000);
        // a matching means b matches; b failing means a fails
        assert!(a.implies(&b, 0));
        assert!(b.not_implies_not(&a, 0));
        let c = Insn::new(12, 0x0800_0000, 0xffff_0000);
        assert!(a.implies_not(&c, 0));
        assert!(a.compatible(&b, false) && !a.compatible(&c, false));
        let mut bit = Insn::new(0, 0x10, 0x10);
        assert!(bit.flippable());
        bit.j = [1, 2];
        bit.flip();
        assert_eq!((bit.value, bit.j, bit.short_output), (0, [2, 1], true));
    }

    #[test]
    fn steps_print_as_click_prints_them() {
        let mut s = String::new();
        insn_text(&mut s, 3, 12, 0x0800_0000, 0xffff_0000, J_NEVER, -2, true);
        assert_eq!(
            s,
            " 3  12/08000000%ffff0000  yes->[2]  no->[X]  short->yes\n"
        );
    }
}
