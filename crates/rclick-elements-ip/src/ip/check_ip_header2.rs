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

#[cfg(test)]
mod tests {
    use crate::ip::test_util::registry;
    use rclick_core::testing;

    /// A bad checksum passes CheckIPHeader2 (and fails CheckIPHeader); a
    /// bad version fails both.
    #[test]
    fn does_not_check_checksums() {
        let bad_sum = "4500001c 00000000 4011 65cf 0a000002 0a000102 04d2162e 000c0000";
        let bad_version = "3500001c 00000000 4011 65ce 0a000002 0a000102 04d2162e 000c0000";
        let r = testing::run(
            &format!(
                "InfiniteSource(DATA \\<{bad_sum}>, LIMIT 2, STOP true) -> c2 :: CheckIPHeader2
                 -> ok :: Counter -> c :: CheckIPHeader -> Discard; c[1] -> Discard;
                 InfiniteSource(DATA \\<{bad_version}>, LIMIT 1) -> c2; c2[1] -> Discard;"
            ),
            &registry(),
        )
        .unwrap();
        assert_eq!(testing::read(&r, "ok.count"), "2");
        assert_eq!(testing::read(&r, "c2.drops"), "1");
        assert_eq!(testing::read(&r, "c.drops"), "2");
    }
}
