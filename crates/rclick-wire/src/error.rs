//! The error type of every validation in this crate.

use core::fmt;

/// Why bytes are not a valid header.
///
/// Each variant names the header (`"IPv4"`, `"UDP"`...) and carries the
/// offending numbers, so `Display` prints a sentence such as
/// `IPv4 header is truncated: it needs 20 bytes but only 14 are present`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WireError {
    /// The buffer is shorter than the header (or than what a length field
    /// promises).
    Truncated {
        /// The header being read.
        header: &'static str,
        /// Bytes required.
        needed: usize,
        /// Bytes present.
        available: usize,
    },
    /// The version field is wrong for this header.
    BadVersion {
        /// The header being read.
        header: &'static str,
        /// The version this header must have.
        expected: u8,
        /// The version found.
        found: u8,
    },
    /// A header-length field is below its minimum (IPv4 IHL, TCP data
    /// offset).
    BadHeaderLength {
        /// The header being read.
        header: &'static str,
        /// The header length the field gives, in bytes.
        len: usize,
        /// The smallest legal header length, in bytes.
        min: usize,
    },
    /// A total-length field is shorter than the header it includes, or
    /// longer than the bytes present.
    BadTotalLength {
        /// The header being read.
        header: &'static str,
        /// The total length the field gives, in bytes.
        len: usize,
        /// The smallest legal value (the header's own length).
        min: usize,
        /// The bytes present in the buffer.
        available: usize,
    },
    /// The checksum does not match the bytes.
    BadChecksum {
        /// The header being read.
        header: &'static str,
        /// The checksum stored in the packet.
        found: u16,
        /// The checksum the bytes call for.
        expected: u16,
    },
    /// An IPv4 option is malformed.
    BadOption {
        /// The option's type byte.
        kind: u8,
        /// The option's offset from the start of the IP header.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A field holds a value this crate does not handle (for example an ARP
    /// hardware type other than Ethernet).
    Unsupported {
        /// The header being read.
        header: &'static str,
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: u32,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WireError::Truncated {
                header,
                needed,
                available,
            } => write!(
                f,
                "{header} header is truncated: it needs {needed} bytes but only {available} are present"
            ),
            WireError::BadVersion {
                header,
                expected,
                found,
            } => write!(
                f,
                "{header} header has version {found}, expected {expected}"
            ),
            WireError::BadHeaderLength { header, len, min } => write!(
                f,
                "{header} header length is {len} bytes, below the minimum of {min}"
            ),
            WireError::BadTotalLength {
                header,
                len,
                min,
                available,
            } => {
                if len < min {
                    write!(
                        f,
                        "{header} length field says {len} bytes, shorter than its own {min}-byte header"
                    )
                } else {
                    write!(
                        f,
                        "{header} length field says {len} bytes, but only {available} are present"
                    )
                }
            }
            WireError::BadChecksum {
                header,
                found,
                expected,
            } => write!(
                f,
                "{header} checksum is 0x{found:04x}, but the bytes call for 0x{expected:04x}"
            ),
            WireError::BadOption {
                kind,
                offset,
                reason,
            } => write!(
                f,
                "IPv4 option {kind} at header offset {offset} is malformed: {reason}"
            ),
            WireError::Unsupported {
                header,
                field,
                value,
            } => write!(
                f,
                "{header} {field} {value} (0x{value:x}) is not supported"
            ),
        }
    }
}

impl std::error::Error for WireError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_sentences() {
        let e = WireError::Truncated {
            header: "IPv4",
            needed: 20,
            available: 14,
        };
        assert_eq!(
            e.to_string(),
            "IPv4 header is truncated: it needs 20 bytes but only 14 are present"
        );
        let e = WireError::BadTotalLength {
            header: "IPv4",
            len: 10,
            min: 20,
            available: 64,
        };
        assert_eq!(
            e.to_string(),
            "IPv4 length field says 10 bytes, shorter than its own 20-byte header"
        );
        let e = WireError::BadTotalLength {
            header: "UDP",
            len: 100,
            min: 8,
            available: 30,
        };
        assert_eq!(
            e.to_string(),
            "UDP length field says 100 bytes, but only 30 are present"
        );
        let e = WireError::BadChecksum {
            header: "IPv4",
            found: 0x1234,
            expected: 0x65b8,
        };
        assert_eq!(
            e.to_string(),
            "IPv4 checksum is 0x1234, but the bytes call for 0x65b8"
        );
        let e = WireError::BadOption {
            kind: 7,
            offset: 20,
            reason: "its length 1 is below 2",
        };
        assert_eq!(
            e.to_string(),
            "IPv4 option 7 at header offset 20 is malformed: its length 1 is below 2"
        );
        let e = WireError::Unsupported {
            header: "ARP",
            field: "hardware type",
            value: 6,
        };
        assert_eq!(e.to_string(), "ARP hardware type 6 (0x6) is not supported");
        let e = WireError::BadVersion {
            header: "IPv4",
            expected: 4,
            found: 6,
        };
        assert_eq!(e.to_string(), "IPv4 header has version 6, expected 4");
        let e = WireError::BadHeaderLength {
            header: "TCP",
            len: 16,
            min: 20,
        };
        assert_eq!(
            e.to_string(),
            "TCP header length is 16 bytes, below the minimum of 20"
        );
    }
}
