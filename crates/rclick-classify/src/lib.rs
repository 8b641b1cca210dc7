//! The classification engine (Click's `Classification::Wordwise`), shared by
//! Classifier (byte patterns, rclick-elements-standard) and IPClassifier /
//! IPFilter (tcpdump-like expressions, rclick-elements-ip): the pattern
//! parsers build a [`Program`], [`Program::optimize`] optimizes it as Click
//! does, and [`ZProgram`] runs it.
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
//!
//! Offsets are fake offsets chosen by the front end: IPClassifier's
//! place the MAC header at 0 (shifted by 2), the network header at 256 and
//! the transport header at 512 ([`ZProgram::classify`]); Classifier's are
//! byte offsets into the packet data ([`ZProgram::classify_bytes`]).
//!
//! The parts: [`insn`] (one test and the relations between tests),
//! [`program`] (the builder and the optimizer), [`dominator`] (its
//! dominator pass), [`zprogram`] (the compressed program, its text and the
//! careful walk), [`fast`] and [`table`] (the fast forms).
#![forbid(unsafe_code)]

pub mod dominator;
pub mod fast;
pub mod insn;
pub mod program;
pub mod table;
pub mod zprogram;

pub use insn::{Combiner, Insn, J_FAILURE, J_NEVER, J_SUCCESS};
pub use program::{unparse_program, Program, Tree};
pub use zprogram::{bisect_key, Layout, ZProgram, ZStep, MIN_BINARY_SEARCH};

/// xorshift64*: deterministic randomness for the classifier tests (here
/// and in the front ends' crates).
#[doc(hidden)]
pub struct TestRng(pub u64);

impl TestRng {
    /// The next number.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
