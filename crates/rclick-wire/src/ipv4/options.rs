//! IPv4 options (RFC 791 section 3.1): their kind bytes, one option
//! borrowed from a header ([`Ipv4Option`]), the iterator that walks and
//! validates a header's options ([`Ipv4OptionIter`]), and the writing of
//! the reversed source route an ICMP error carries back
//! ([`reverse_source_route`]).

use super::HEADER_LEN;
use crate::{read_u16, Result, WireError};

/// IPv4 option type bytes.
pub mod option_kind {
    /// End of option list.
    pub const EOL: u8 = 0;
    /// No operation (padding).
    pub const NOP: u8 = 1;
    /// Record route.
    pub const RR: u8 = 7;
    /// Internet timestamp.
    pub const TS: u8 = 68;
    /// Security (RFC 1108).
    pub const SECURITY: u8 = 130;
    /// Loose source and record route.
    pub const LSRR: u8 = 131;
    /// Stream identifier.
    pub const SATID: u8 = 136;
    /// Strict source and record route.
    pub const SSRR: u8 = 137;
    /// Router alert (RFC 2113).
    pub const RA: u8 = 148;
}

/// One IPv4 option, borrowed from the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ipv4Option<'a> {
    /// End of option list; what follows is padding.
    EndOfList,
    /// No operation.
    Nop,
    /// Record route: the pointer (1-based, at least 4) and the route data.
    RecordRoute {
        /// Offset, from the option's start plus one, of the next free slot.
        pointer: u8,
        /// The address slots (the option after its 3-byte head).
        data: &'a [u8],
    },
    /// Loose source and record route.
    LooseSourceRoute {
        /// Offset, from the option's start plus one, of the next address.
        pointer: u8,
        /// The address slots.
        data: &'a [u8],
    },
    /// Strict source and record route.
    StrictSourceRoute {
        /// Offset, from the option's start plus one, of the next address.
        pointer: u8,
        /// The address slots.
        data: &'a [u8],
    },
    /// Internet timestamp.
    Timestamp {
        /// Offset, from the option's start plus one, of the next free slot
        /// (at least 5).
        pointer: u8,
        /// Overflow count (high nibble of byte 3).
        overflow: u8,
        /// Flags (low nibble of byte 3): 0 timestamps only, 1 with
        /// addresses, 3 prespecified addresses.
        flags: u8,
        /// The timestamp slots (the option after its 4-byte head).
        data: &'a [u8],
    },
    /// Router alert, with its 16-bit value (0: examine packet).
    RouterAlert(u16),
    /// Any other option: its type byte and the bytes after type and length.
    Unknown {
        /// The option type byte.
        kind: u8,
        /// The option's bytes after type and length.
        data: &'a [u8],
    },
}

impl Ipv4Option<'_> {
    /// The option's type byte.
    pub fn kind(&self) -> u8 {
        match *self {
            Ipv4Option::EndOfList => option_kind::EOL,
            Ipv4Option::Nop => option_kind::NOP,
            Ipv4Option::RecordRoute { .. } => option_kind::RR,
            Ipv4Option::LooseSourceRoute { .. } => option_kind::LSRR,
            Ipv4Option::StrictSourceRoute { .. } => option_kind::SSRR,
            Ipv4Option::Timestamp { .. } => option_kind::TS,
            Ipv4Option::RouterAlert(_) => option_kind::RA,
            Ipv4Option::Unknown { kind, .. } => kind,
        }
    }
}

/// Iterates over IPv4 options, yielding each option's offset from the start
/// of the IP header (what an ICMP parameter problem points at) and the
/// option, or an error for the first malformed option, after which it stops.
/// It stops after [`Ipv4Option::EndOfList`].
#[derive(Debug, Clone)]
pub struct Ipv4OptionIter<'a> {
    data: &'a [u8],
    pos: usize,
    done: bool,
}

impl<'a> Ipv4OptionIter<'a> {
    /// Iterates over `options`, the bytes after a 20-byte IPv4 header.
    pub fn new(options: &'a [u8]) -> Ipv4OptionIter<'a> {
        Ipv4OptionIter {
            data: options,
            pos: 0,
            done: false,
        }
    }

    /// Checks every option, returning the first error.
    pub fn validate(self) -> Result<()> {
        for o in self {
            o?;
        }
        Ok(())
    }

    fn parse_one(&self) -> Result<(usize, Ipv4Option<'a>)> {
        let rest = &self.data[self.pos..];
        let kind = rest[0];
        let offset = HEADER_LEN + self.pos;
        let bad = |reason| WireError::BadOption {
            kind,
            offset,
            reason,
        };
        match kind {
            option_kind::EOL => return Ok((1, Ipv4Option::EndOfList)),
            option_kind::NOP => return Ok((1, Ipv4Option::Nop)),
            _ => {}
        }
        if rest.len() < 2 {
            return Err(bad("its length byte is missing"));
        }
        let len = rest[1] as usize;
        if len < 2 {
            return Err(bad("its length is below 2"));
        }
        if len > rest.len() {
            return Err(bad("its length runs past the end of the header"));
        }
        let opt = &rest[..len];
        let o = match kind {
            option_kind::RR | option_kind::LSRR | option_kind::SSRR => {
                if len < 3 {
                    return Err(bad("a route option needs at least 3 bytes"));
                }
                let pointer = opt[2];
                if pointer < 4 {
                    return Err(bad("its pointer is below 4"));
                }
                let data = &opt[3..];
                match kind {
                    option_kind::RR => Ipv4Option::RecordRoute { pointer, data },
                    option_kind::LSRR => Ipv4Option::LooseSourceRoute { pointer, data },
                    _ => Ipv4Option::StrictSourceRoute { pointer, data },
                }
            }
            option_kind::TS => {
                if len < 4 {
                    return Err(bad("a timestamp option needs at least 4 bytes"));
                }
                let pointer = opt[2];
                if pointer < 5 {
                    return Err(bad("its pointer is below 5"));
                }
                Ipv4Option::Timestamp {
                    pointer,
                    overflow: opt[3] >> 4,
                    flags: opt[3] & 0x0f,
                    data: &opt[4..],
                }
            }
            option_kind::RA => {
                if len != 4 {
                    return Err(bad("a router alert option must be 4 bytes long"));
                }
                Ipv4Option::RouterAlert(read_u16(opt, 2))
            }
            _ => Ipv4Option::Unknown {
                kind,
                data: &opt[2..],
            },
        };
        Ok((len, o))
    }
}

impl<'a> Iterator for Ipv4OptionIter<'a> {
    type Item = Result<(usize, Ipv4Option<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.data.len() {
            return None;
        }
        let offset = HEADER_LEN + self.pos;
        match self.parse_one() {
            Ok((len, o)) => {
                self.pos += len;
                if o == Ipv4Option::EndOfList {
                    self.done = true;
                }
                Some(Ok((offset, o)))
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for Ipv4OptionIter<'_> {}

/// Writes into `out` the source-route option `opt` (LSRR or SSRR, from its
/// kind byte, with at least its pointer's worth of bytes) reversed, as an
/// ICMP error about it carries it back (Click's ICMPError, RFC 1812
/// 4.3.2.5): the kind, the length `pointer - 1`, the pointer 4, then the
/// addresses already visited, last first, and an EOL. Returns the bytes
/// written (the option and its EOL). `out` must hold `pointer` bytes.
pub fn reverse_source_route(opt: &[u8], out: &mut [u8]) -> usize {
    let ptr = opt[2] as usize;
    let olen = ptr - 1;
    out[..3].copy_from_slice(&[opt[0], olen as u8, 4]);
    let mut o = 3;
    let mut i = ptr as isize - 5;
    while i >= 3 {
        let i_u = i as usize;
        out[o..o + 4].copy_from_slice(&opt[i_u..i_u + 4]);
        o += 4;
        i -= 4;
    }
    out[olen] = option_kind::EOL;
    olen + 1
}

/// Writes `ms` (a timestamp, milliseconds since midnight UTC) into the
/// 4-byte slot at `at` of the option `opt` (its bytes from the kind byte),
/// as a router records it in an Internet Timestamp option (RFC 791).
/// Panics if the slot is not inside `opt`.
#[inline]
pub fn write_timestamp(opt: &mut [u8], at: usize, ms: u32) {
    crate::write_u32(opt, at, ms)
}

/// The stamp in the 4-byte slot at `at` of the timestamp option `opt` (its
/// bytes from the kind byte): milliseconds since midnight UTC, or with the
/// high bit set a value in another unit (RFC 791). Panics if the slot is
/// not inside `opt`.
#[inline]
pub fn read_timestamp(opt: &[u8], at: usize) -> u32 {
    crate::read_u32(opt, at)
}

/// Appends one stamp to a timestamp option being built in `out` (after its
/// head, or after an entry's address).
#[inline]
pub fn push_timestamp(out: &mut Vec<u8>, stamp: u32) {
    out.extend_from_slice(&stamp.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipv4::{tests::with_options, Ipv4Packet, Ipv4Repr};

    #[test]
    fn write_timestamp_fills_one_slot() {
        let mut opt = [option_kind::TS, 12, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        write_timestamp(&mut opt, 4, 0x0102_0304);
        assert_eq!(opt, [68, 12, 5, 0, 1, 2, 3, 4, 0, 0, 0, 0]);
        write_timestamp(&mut opt, 8, 86_399_999);
        assert_eq!(&opt[8..], &86_399_999u32.to_be_bytes());
        assert_eq!(read_timestamp(&opt, 4), 0x0102_0304);
        assert_eq!(read_timestamp(&opt, 8), 86_399_999);
    }

    #[test]
    fn push_timestamp_builds_an_option() {
        let mut opt = vec![option_kind::TS, 0, 5, 1];
        opt.extend_from_slice(&[10, 0, 0, 1]);
        push_timestamp(&mut opt, 0x8000_0001);
        opt[1] = opt.len() as u8;
        assert_eq!(opt, [68, 12, 5, 1, 10, 0, 0, 1, 0x80, 0, 0, 1]);
        assert_eq!(read_timestamp(&opt, 8), 0x8000_0001);
        let parsed = Ipv4OptionIter::new(&opt).next().unwrap().unwrap().1;
        assert!(matches!(parsed, Ipv4Option::Timestamp { flags: 1, data, .. } if data.len() == 8));
    }

    #[test]
    fn options_iterate() {
        let h = with_options();
        let p = Ipv4Packet::new_checked(&h[..]).unwrap();
        assert!(p.verify_checksum());
        assert_eq!(p.header_len(), 60);
        assert_eq!(p.options().len(), 40);
        assert_eq!(p.payload(), &[8, 0, 0xf7, 0xff, 0, 0, 0, 0]);
        let opts: Vec<_> = p.options_iter().map(|o| o.unwrap()).collect();
        assert_eq!(
            opts,
            vec![
                (20, Ipv4Option::Nop),
                (
                    21,
                    Ipv4Option::RecordRoute {
                        pointer: 8,
                        data: &[10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
                    }
                ),
                (36, Ipv4Option::RouterAlert(0)),
                (
                    40,
                    Ipv4Option::Timestamp {
                        pointer: 5,
                        overflow: 1,
                        flags: 0,
                        data: &[0; 8]
                    }
                ),
                (52, Ipv4Option::EndOfList),
            ]
        );
        assert_eq!(opts[1].1.kind(), option_kind::RR);
        assert!(p.options_iter().validate().is_ok());
        let repr = Ipv4Repr::parse(&p, true).unwrap();
        assert_eq!(repr.payload_len, 8);
    }

    #[test]
    fn options_other_kinds() {
        let opts = [
            option_kind::LSRR,
            7,
            4,
            1,
            2,
            3,
            4,
            option_kind::SSRR,
            3,
            4,
            option_kind::SECURITY,
            2,
        ];
        let v: Vec<_> = Ipv4OptionIter::new(&opts).map(|o| o.unwrap().1).collect();
        assert_eq!(
            v,
            vec![
                Ipv4Option::LooseSourceRoute {
                    pointer: 4,
                    data: &[1, 2, 3, 4]
                },
                Ipv4Option::StrictSourceRoute {
                    pointer: 4,
                    data: &[]
                },
                Ipv4Option::Unknown {
                    kind: option_kind::SECURITY,
                    data: &[]
                },
            ]
        );
    }

    #[test]
    fn options_reject() {
        let cases: &[(&[u8], usize, &str)] = &[
            (
                &[option_kind::NOP, option_kind::RR],
                21,
                "its length byte is missing",
            ),
            (&[option_kind::RR, 1, 0, 0], 20, "its length is below 2"),
            (
                &[option_kind::RR, 9, 4, 0],
                20,
                "its length runs past the end of the header",
            ),
            (
                &[option_kind::RR, 2, 0, 0],
                20,
                "a route option needs at least 3 bytes",
            ),
            (&[option_kind::SSRR, 3, 3, 0], 20, "its pointer is below 4"),
            (
                &[option_kind::TS, 3, 5, 0],
                20,
                "a timestamp option needs at least 4 bytes",
            ),
            (&[option_kind::TS, 4, 4, 0], 20, "its pointer is below 5"),
            (
                &[option_kind::RA, 3, 0, 0],
                20,
                "a router alert option must be 4 bytes long",
            ),
            (&[0x99, 0, 0, 0], 20, "its length is below 2"),
        ];
        for &(bytes, at, why) in cases {
            let mut it = Ipv4OptionIter::new(bytes);
            let err = it.by_ref().find_map(|o| o.err()).expect("an error");
            assert_eq!(
                err,
                WireError::BadOption {
                    kind: bytes[at - 20],
                    offset: at,
                    reason: why
                },
                "{bytes:?}"
            );
            assert!(it.next().is_none(), "iterator stops after an error");
            assert!(Ipv4OptionIter::new(bytes).validate().is_err());
        }
        // Bytes after EOL are not parsed.
        assert!(Ipv4OptionIter::new(&[0, 0x44, 1, 0]).validate().is_ok());
    }

    #[test]
    fn reverses_a_source_route() {
        // LSRR, length 11, pointer 12: two addresses visited.
        let opt = [option_kind::LSRR, 11, 12, 10, 0, 0, 1, 10, 0, 0, 2];
        let mut out = [0xaa; 40];
        let n = reverse_source_route(&opt, &mut out);
        assert_eq!(n, 12);
        assert_eq!(
            out[..12],
            [
                option_kind::LSRR,
                11,
                4,
                10,
                0,
                0,
                2,
                10,
                0,
                0,
                1,
                option_kind::EOL
            ]
        );
        // Nothing visited yet: the option is its head alone.
        let opt = [option_kind::SSRR, 7, 4, 10, 0, 0, 1];
        assert_eq!(reverse_source_route(&opt, &mut out), 4);
        assert_eq!(out[..4], [option_kind::SSRR, 3, 4, option_kind::EOL]);
    }
}
