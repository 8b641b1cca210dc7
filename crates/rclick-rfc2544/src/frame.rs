//! Test frames: Ethernet II / IPv4 / UDP frames of a fixed size, as RFC
//! 2544 §9 asks, whose UDP payload starts with a [`Stamp`].
//!
//! A frame size counts the 4-byte frame check sequence, as RFC 2544 does
//! (64 to 1518 bytes); the bytes handed to a packet socket are 4 fewer. A
//! 64-byte frame leaves 18 bytes of UDP payload, exactly a stamp:
//!
//! ```text
//! offset  size  field
//!  0      2     magic 0x25 0x44
//!  2      2     trial number (frames of other trials are ignored)
//!  4      2     flow number (also the UDP source port minus BASE_PORT)
//!  6      4     sequence number within the flow and trial, from 0
//! 10      8     transmit time, nanoseconds (the generator's clock)
//! ```
//!
//! All fields are big-endian. The UDP checksum is 0 (none, allowed for
//! IPv4), so a generator rewrites only the stamp per frame; the receiver
//! checks the magic and the lengths instead.

use std::net::Ipv4Addr;

use rclick_wire::{
    EtherType, EthernetAddress, EthernetFrame, EthernetRepr, IpProtocol, Ipv4Packet, Ipv4Repr,
    UdpPacket,
};

/// Bytes of Ethernet header, IPv4 header and UDP header.
pub const HEADERS_LEN: usize = 14 + 20 + 8;
/// Bytes of the frame check sequence counted in a frame size.
pub const FCS_LEN: usize = 4;
/// Bytes of the stamp.
pub const STAMP_LEN: usize = 18;
/// The smallest frame size (RFC 2544: 64 bytes with the FCS).
pub const MIN_FRAME: usize = HEADERS_LEN + STAMP_LEN + FCS_LEN;
/// The largest frame size on a 1500-byte MTU.
pub const MAX_FRAME: usize = 1518;
/// The magic number at the start of every stamp.
pub const MAGIC: u16 = 0x2544;
/// UDP source port of flow 0; flow `f` uses `BASE_PORT + f`.
pub const BASE_PORT: u16 = 1024;
/// UDP destination port (discard).
pub const DST_PORT: u16 = 9;
/// Offset of the stamp in a frame.
pub const STAMP_OFF: usize = HEADERS_LEN;
/// Bytes of preamble, start delimiter and inter-frame gap a frame costs
/// on an Ethernet wire besides its own bytes (for line-rate figures).
pub const WIRE_OVERHEAD: usize = 20;

/// The frame sizes of RFC 2544 §9.1 for Ethernet, and 1280 (the paper's).
pub const RFC2544_SIZES: [usize; 7] = [64, 128, 256, 512, 1024, 1280, 1518];

/// What every frame carries, besides the stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Template {
    /// Source Ethernet address (the generator's interface).
    pub src_mac: [u8; 6],
    /// Destination Ethernet address (the router's interface).
    pub dst_mac: [u8; 6],
    /// Source IPv4 address.
    pub src_ip: Ipv4Addr,
    /// Destination IPv4 address (behind the router).
    pub dst_ip: Ipv4Addr,
    /// Frame size including the FCS ([`MIN_FRAME`]..=[`MAX_FRAME`]).
    pub frame_size: usize,
}

/// Why a frame size or a received frame was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// A frame size outside [`MIN_FRAME`]..=[`MAX_FRAME`].
    BadSize(usize),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::BadSize(n) => write!(
                f,
                "frame size {n} is outside {MIN_FRAME}..={MAX_FRAME} bytes (sizes count the 4-byte FCS)"
            ),
        }
    }
}

impl Template {
    /// Bytes handed to the device: the frame size less the FCS.
    pub fn len(&self) -> usize {
        self.frame_size - FCS_LEN
    }

    /// Never true: a frame has headers.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The frame of flow `flow` with a zero stamp (magic set), or an
    /// error for a size out of range.
    pub fn build(&self, flow: u16) -> Result<Vec<u8>, FrameError> {
        if !(MIN_FRAME..=MAX_FRAME).contains(&self.frame_size) {
            return Err(FrameError::BadSize(self.frame_size));
        }
        let mut buf = vec![0u8; self.len()];
        let mut eth = EthernetFrame::new_checked(&mut buf[..]).expect("long enough");
        EthernetRepr {
            src_addr: EthernetAddress(self.src_mac),
            dst_addr: EthernetAddress(self.dst_mac),
            ethertype: EtherType::IPV4,
        }
        .emit(&mut eth);
        let ip_len = self.len() - 14;
        // The buffer holds the whole header (the size was checked above).
        let mut ip = Ipv4Packet::new_unchecked(&mut buf[14..]);
        Ipv4Repr {
            src_addr: self.src_ip,
            dst_addr: self.dst_ip,
            protocol: IpProtocol::UDP,
            payload_len: ip_len - 20,
            ttl: 64,
            tos: 0,
            ident: 0,
            dont_frag: false,
            more_frags: false,
            frag_offset: 0,
        }
        .emit(&mut ip);
        ip.fill_checksum();
        let mut udp = UdpPacket::new_unchecked(&mut buf[34..]);
        udp.set_src_port(BASE_PORT.wrapping_add(flow));
        udp.set_dst_port(DST_PORT);
        udp.set_len((ip_len - 20) as u16);
        udp.set_checksum(0);
        Stamp {
            trial: 0,
            flow,
            seq: 0,
            tx_ns: 0,
        }
        .write(&mut buf);
        Ok(buf)
    }
}

/// The per-frame fields a generator writes and a receiver reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Trial number.
    pub trial: u16,
    /// Flow number.
    pub flow: u16,
    /// Sequence number within the flow and trial.
    pub seq: u32,
    /// Transmit time in nanoseconds.
    pub tx_ns: u64,
}

impl Stamp {
    /// Writes the stamp into `frame` at [`STAMP_OFF`]. `frame` must be a
    /// frame from [`Template::build`] (at least [`MIN_FRAME`] − 4 bytes).
    #[inline]
    pub fn write(&self, frame: &mut [u8]) {
        let s = &mut frame[STAMP_OFF..STAMP_OFF + STAMP_LEN];
        s[0..2].copy_from_slice(&MAGIC.to_be_bytes());
        s[2..4].copy_from_slice(&self.trial.to_be_bytes());
        s[4..6].copy_from_slice(&self.flow.to_be_bytes());
        s[6..10].copy_from_slice(&self.seq.to_be_bytes());
        s[10..18].copy_from_slice(&self.tx_ns.to_be_bytes());
    }

    /// Reads the stamp of a received frame: `None` unless it is an IPv4
    /// UDP frame to [`DST_PORT`] long enough for a stamp that starts with
    /// [`MAGIC`]. Routers change the TTL, the IP checksum and the Ethernet
    /// addresses; the stamp travels untouched.
    #[inline]
    pub fn read(frame: &[u8]) -> Option<Stamp> {
        if frame.len() < STAMP_OFF + STAMP_LEN
            || frame[12..14] != [0x08, 0x00]
            || frame[14] != 0x45
            || frame[23] != 17
            || frame[36..38] != DST_PORT.to_be_bytes()
        {
            return None;
        }
        let s = &frame[STAMP_OFF..STAMP_OFF + STAMP_LEN];
        if s[0..2] != MAGIC.to_be_bytes() {
            return None;
        }
        let be16 = |i: usize| u16::from_be_bytes([s[i], s[i + 1]]);
        Some(Stamp {
            trial: be16(2),
            flow: be16(4),
            seq: u32::from_be_bytes(s[6..10].try_into().ok()?),
            tx_ns: u64::from_be_bytes(s[10..18].try_into().ok()?),
        })
    }
}

/// Frames per second at `bits_per_second` of Ethernet line rate for
/// frames of `frame_size` bytes (each also costs [`WIRE_OVERHEAD`]).
pub fn line_rate_fps(bits_per_second: f64, frame_size: usize) -> f64 {
    bits_per_second / (8.0 * (frame_size + WIRE_OVERHEAD) as f64)
}

/// Bits per second of frame bytes (FCS included, no preamble or gap) that
/// `fps` frames of `frame_size` bytes carry, as the paper's Figure 4
/// plots throughput.
pub fn frame_bits_per_second(fps: f64, frame_size: usize) -> f64 {
    fps * 8.0 * frame_size as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(size: usize) -> Template {
        Template {
            src_mac: [2, 0, 0, 0, 0, 2],
            dst_mac: [2, 0, 0, 0, 0, 1],
            src_ip: Ipv4Addr::new(192, 0, 2, 2),
            dst_ip: Ipv4Addr::new(198, 51, 100, 2),
            frame_size: size,
        }
    }

    #[test]
    fn frames_have_the_size_and_valid_headers() {
        for size in RFC2544_SIZES {
            let f = template(size).build(3).unwrap();
            assert_eq!(f.len(), size - 4);
            let eth = EthernetFrame::new_checked(&f[..]).unwrap();
            assert_eq!(eth.ethertype(), EtherType::IPV4);
            let ip = Ipv4Packet::new_checked(eth.payload()).unwrap();
            assert!(ip.verify_checksum());
            assert_eq!(ip.total_len() as usize, size - 4 - 14);
            assert_eq!(ip.dst_addr(), Ipv4Addr::new(198, 51, 100, 2));
            let udp = UdpPacket::new_checked(ip.payload()).unwrap();
            assert_eq!(udp.src_port(), BASE_PORT + 3);
            assert_eq!(udp.dst_port(), DST_PORT);
            assert_eq!(udp.len() as usize, size - 4 - 34);
            assert_eq!(udp.checksum(), 0);
        }
        assert_eq!(MIN_FRAME, 64);
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        assert_eq!(template(63).build(0), Err(FrameError::BadSize(63)));
        assert_eq!(template(1519).build(0), Err(FrameError::BadSize(1519)));
        assert!(FrameError::BadSize(63).to_string().contains("FCS"));
    }

    #[test]
    fn stamp_round_trips_and_survives_routing() {
        let mut f = template(64).build(7).unwrap();
        let s = Stamp {
            trial: 513,
            flow: 7,
            seq: 0xdead_beef,
            tx_ns: 0x0123_4567_89ab_cdef,
        };
        s.write(&mut f);
        assert_eq!(Stamp::read(&f), Some(s));
        // What a router does: new addresses, TTL down, checksum updated.
        f[0..12].copy_from_slice(&[9; 12]);
        let mut ip = Ipv4Packet::new_checked(&mut f[14..]).unwrap();
        ip.dec_ttl_update_checksum();
        assert_eq!(Stamp::read(&f), Some(s));
        // The stamp is the last 18 bytes of a 64-byte frame.
        assert_eq!(STAMP_OFF + STAMP_LEN, f.len());
    }

    #[test]
    fn other_frames_are_not_read_as_stamps() {
        let f = template(128).build(0).unwrap();
        assert!(Stamp::read(&f).is_some());
        for (at, v) in [(12, 0x86), (14, 0x46), (23, 6), (37, 10), (STAMP_OFF, 0)] {
            let mut g = f.clone();
            g[at] = v;
            assert_eq!(Stamp::read(&g), None, "byte {at} = {v}");
        }
        assert_eq!(Stamp::read(&f[..59]), None);
        assert_eq!(Stamp::read(&[]), None);
    }

    #[test]
    fn rates() {
        // 10 GbE, 64 B: the classic 14.88 Mpps.
        assert!((line_rate_fps(10e9, 64) - 14_880_952.4).abs() < 1.0);
        assert_eq!(frame_bits_per_second(1000.0, 64), 512_000.0);
    }
}
