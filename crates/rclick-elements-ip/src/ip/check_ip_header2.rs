//! # CheckIPHeader2
//!
//! `CheckIPHeader2([BADSRC, OFFSET, keywords INTERFACES, BADSRC, GOODDST,
//! OFFSET, VERBOSE, DETAILS])`
//!
//! **Category:** ip. Checks IP header validity, not the checksum.
//!
//! **Ports:** one input; one or two outputs (agnostic, output 1 push).
//!
//! ## Description
//!
//! Exactly like CheckIPHeader, except that it never verifies the header
//! checksum (its CHECKSUM keyword has no effect). Useful where checksums
//! are known to be right, or are computed later (after IPEncap, for
//! example).
//!
//! ## Annotations
//!
//! Sets the IP header annotation and the destination IP address annotation.
//!
//! ## Handlers
//!
//! * `drops` (read): packets dropped.
//! * `drop_details` (read, when DETAILS is true): counts per reason.
//!
//! ## Examples
//!
//! ```text
//! ... -> CheckIPHeader2(OFFSET 14) -> ...
//! ```
//!
//! ## See also
//!
//! CheckIPHeader, MarkIPHeader
