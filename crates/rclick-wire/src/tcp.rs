//! TCP segments (RFC 9293).
//!
//! TCP has no length field: the segment is the whole buffer, so wrap
//! exactly the IP payload. [`TcpPacket::new_checked`] checks the data
//! offset (at least 5 words, header within the buffer).

use crate::checksum::{self, PseudoHeader};
use crate::ipv4::IpProtocol;
use crate::{check_header_room, read_u16, read_u32, write_u16, write_u32, Result};

/// Byte ranges of the TCP header.
pub mod field {
    /// Source port (offset).
    pub const SRC_PORT: usize = 0;
    /// Destination port (offset).
    pub const DST_PORT: usize = 2;
    /// Sequence number (offset).
    pub const SEQ_NUM: usize = 4;
    /// Acknowledgment number (offset).
    pub const ACK_NUM: usize = 8;
    /// Data offset (high nibble) and the NS flag (low bit).
    pub const DATA_OFFSET: usize = 12;
    /// Flags CWR..FIN.
    pub const FLAGS: usize = 13;
    /// Window (offset).
    pub const WINDOW: usize = 14;
    /// Checksum (offset).
    pub const CHECKSUM: usize = 16;
    /// Urgent pointer (offset).
    pub const URGENT: usize = 18;
}

/// TCP flag bits of the flags byte (Click's `TH_*`).
pub mod flags {
    /// No more data from sender.
    pub const FIN: u8 = 0x01;
    /// Synchronize sequence numbers.
    pub const SYN: u8 = 0x02;
    /// Reset the connection.
    pub const RST: u8 = 0x04;
    /// Push.
    pub const PSH: u8 = 0x08;
    /// Acknowledgment field is significant.
    pub const ACK: u8 = 0x10;
    /// Urgent pointer is significant.
    pub const URG: u8 = 0x20;
    /// ECN echo.
    pub const ECE: u8 = 0x40;
    /// Congestion window reduced.
    pub const CWR: u8 = 0x80;
}

/// Length of a TCP header without options.
pub const HEADER_LEN: usize = 20;

/// The maximum segment size option's value (kind 2, length 4) among TCP
/// `options` (what [`TcpPacket::options`] gives), if there is one before
/// the end of the list or a malformed option.
pub fn mss_option(mut o: &[u8]) -> Option<u16> {
    while let Some(&kind) = o.first() {
        match kind {
            0 => return None,
            1 => o = &o[1..],
            _ => {
                let len = usize::from(*o.get(1)?);
                if len < 2 || len > o.len() {
                    return None;
                }
                if kind == 2 && len == 4 {
                    return Some(read_u16(o, 2));
                }
                o = &o[len..];
            }
        }
    }
    None
}

/// One TCP option's fields, read from and written to the option's bytes
/// (`o`: kind, length, then data) as [`TcpPacket::options`] lists them.
/// Each function expects the option's length already checked against its
/// kind (MSS 4, timestamp 10, SACK 2 plus 8 a block) and the bytes there.
pub mod option {
    use crate::{read_u16, read_u32, write_u32};

    /// End of the option list.
    pub const END: u8 = 0;
    /// No operation (padding).
    pub const NOP: u8 = 1;
    /// Maximum segment size.
    pub const MSS: u8 = 2;
    /// Window scale.
    pub const WINDOW_SCALE: u8 = 3;
    /// SACK permitted.
    pub const SACK_PERMITTED: u8 = 4;
    /// SACK blocks.
    pub const SACK: u8 = 5;
    /// Timestamps.
    pub const TIMESTAMP: u8 = 8;

    /// An MSS option's value.
    pub fn mss(o: &[u8]) -> u16 {
        read_u16(o, 2)
    }

    /// A timestamp option's value and echo reply.
    pub fn timestamps(o: &[u8]) -> (u32, u32) {
        (read_u32(o, 2), read_u32(o, 6))
    }

    /// A SACK option's blocks, (left edge, right edge) each.
    pub fn sack_blocks(o: &[u8]) -> impl Iterator<Item = (u32, u32)> + '_ {
        o[2..]
            .chunks_exact(8)
            .map(|b| (read_u32(b, 0), read_u32(b, 4)))
    }

    /// Replaces every edge `e` of a SACK option's blocks by `f(e)`.
    pub fn map_sack_edges(o: &mut [u8], mut f: impl FnMut(u32) -> u32) {
        for e in o[2..].chunks_exact_mut(4) {
            let v = f(read_u32(e, 0));
            write_u32(e, 0, v);
        }
    }

    /// Appends one SACK block to a SACK option being built in `out`.
    pub fn push_sack_block(out: &mut Vec<u8>, left: u32, right: u32) {
        out.extend_from_slice(&left.to_be_bytes());
        out.extend_from_slice(&right.to_be_bytes());
    }

    /// Appends a timestamp option (kind, length, value, echo reply).
    pub fn push_timestamps(out: &mut Vec<u8>, value: u32, echo: u32) {
        out.extend_from_slice(&[TIMESTAMP, 10]);
        out.extend_from_slice(&value.to_be_bytes());
        out.extend_from_slice(&echo.to_be_bytes());
    }
}

view! {
    /// A view of a TCP segment.
    pub struct TcpPacket;
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    /// Checks: 20 bytes present; data offset at least 5 words; the whole
    /// header (options included) present.
    pub fn check_len(&self) -> Result<()> {
        let len = self.buffer.as_ref().len();
        check_header_room("TCP", HEADER_LEN, len, || self.header_len().into())?;
        Ok(())
    }

    /// Source port.
    #[inline]
    pub fn src_port(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    #[inline]
    pub fn dst_port(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Sequence number.
    #[inline]
    pub fn seq_number(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::SEQ_NUM)
    }

    /// Acknowledgment number.
    #[inline]
    pub fn ack_number(&self) -> u32 {
        read_u32(self.buffer.as_ref(), field::ACK_NUM)
    }

    /// Header length in bytes (data offset × 4), options included.
    #[inline]
    pub fn header_len(&self) -> u8 {
        (self.buffer.as_ref()[field::DATA_OFFSET] >> 4) * 4
    }

    /// The flags byte (see [`flags`]).
    #[inline]
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[field::FLAGS]
    }

    #[inline]
    fn flag(&self, f: u8) -> bool {
        self.flags() & f != 0
    }

    /// FIN.
    #[inline]
    pub fn fin(&self) -> bool {
        self.flag(flags::FIN)
    }

    /// SYN.
    #[inline]
    pub fn syn(&self) -> bool {
        self.flag(flags::SYN)
    }

    /// RST.
    #[inline]
    pub fn rst(&self) -> bool {
        self.flag(flags::RST)
    }

    /// PSH.
    #[inline]
    pub fn psh(&self) -> bool {
        self.flag(flags::PSH)
    }

    /// ACK.
    #[inline]
    pub fn ack(&self) -> bool {
        self.flag(flags::ACK)
    }

    /// URG.
    #[inline]
    pub fn urg(&self) -> bool {
        self.flag(flags::URG)
    }

    /// ECE.
    #[inline]
    pub fn ece(&self) -> bool {
        self.flag(flags::ECE)
    }

    /// CWR.
    #[inline]
    pub fn cwr(&self) -> bool {
        self.flag(flags::CWR)
    }

    /// Window.
    #[inline]
    pub fn window_len(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::WINDOW)
    }

    /// Checksum as stored.
    #[inline]
    pub fn checksum(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// Urgent pointer.
    #[inline]
    pub fn urgent_at(&self) -> u16 {
        read_u16(self.buffer.as_ref(), field::URGENT)
    }

    /// The option bytes (empty when the data offset is 5).
    #[inline]
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len() as usize]
    }

    /// The payload: everything after the header.
    #[inline]
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len() as usize..]
    }

    /// Sequence space the segment occupies: payload length, plus one each
    /// for SYN and FIN.
    pub fn segment_len(&self) -> usize {
        self.payload().len() + self.syn() as usize + self.fin() as usize
    }

    fn full_sum<A: PseudoHeader>(&self, src: A, dst: A) -> u16 {
        let b = self.buffer.as_ref();
        checksum::add(
            src.pseudo_header_sum(dst, IpProtocol::TCP.0, b.len() as u32),
            checksum::sum(b),
        )
    }

    /// Whether the checksum is correct for a segment from `src` to `dst`.
    pub fn verify_checksum<A: PseudoHeader>(&self, src: A, dst: A) -> bool {
        self.full_sum(src, dst) == 0xffff
    }

    /// The checksum the segment calls for.
    pub fn compute_checksum<A: PseudoHeader>(&self, src: A, dst: A) -> u16 {
        !checksum::add(self.full_sum(src, dst), !self.checksum())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPacket<T> {
    /// Updates the checksum incrementally for a 32-bit word of the
    /// pseudo-header (an IP address) changed from `old` to `new`.
    #[inline]
    pub fn update_checksum_u32(&mut self, old: u32, new: u32) {
        self.set_checksum(checksum::update_u32(self.checksum(), old, new))
    }

    /// Sets the source port.
    #[inline]
    pub fn set_src_port(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::SRC_PORT, v)
    }

    /// Sets the destination port.
    #[inline]
    pub fn set_dst_port(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::DST_PORT, v)
    }

    /// Sets the sequence number.
    #[inline]
    pub fn set_seq_number(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::SEQ_NUM, v)
    }

    /// Sets the acknowledgment number.
    #[inline]
    pub fn set_ack_number(&mut self, v: u32) {
        write_u32(self.buffer.as_mut(), field::ACK_NUM, v)
    }

    /// Sets the header length in bytes (rounded down to a multiple of 4).
    #[inline]
    pub fn set_header_len(&mut self, len: u8) {
        let b = &mut self.buffer.as_mut()[field::DATA_OFFSET];
        *b = (*b & 0x0f) | (((len / 4) & 0x0f) << 4);
    }

    /// Sets the flags byte.
    #[inline]
    pub fn set_flags(&mut self, v: u8) {
        self.buffer.as_mut()[field::FLAGS] = v
    }

    fn set_flag(&mut self, f: u8, on: bool) {
        let v = if on {
            self.flags() | f
        } else {
            self.flags() & !f
        };
        self.set_flags(v)
    }

    /// Sets or clears FIN.
    #[inline]
    pub fn set_fin(&mut self, on: bool) {
        self.set_flag(flags::FIN, on)
    }

    /// Sets or clears SYN.
    #[inline]
    pub fn set_syn(&mut self, on: bool) {
        self.set_flag(flags::SYN, on)
    }

    /// Sets or clears RST.
    #[inline]
    pub fn set_rst(&mut self, on: bool) {
        self.set_flag(flags::RST, on)
    }

    /// Sets or clears PSH.
    #[inline]
    pub fn set_psh(&mut self, on: bool) {
        self.set_flag(flags::PSH, on)
    }

    /// Sets or clears ACK.
    #[inline]
    pub fn set_ack(&mut self, on: bool) {
        self.set_flag(flags::ACK, on)
    }

    /// Sets or clears URG.
    #[inline]
    pub fn set_urg(&mut self, on: bool) {
        self.set_flag(flags::URG, on)
    }

    /// Sets or clears ECE.
    #[inline]
    pub fn set_ece(&mut self, on: bool) {
        self.set_flag(flags::ECE, on)
    }

    /// Sets or clears CWR.
    #[inline]
    pub fn set_cwr(&mut self, on: bool) {
        self.set_flag(flags::CWR, on)
    }

    /// Sets the window.
    #[inline]
    pub fn set_window_len(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::WINDOW, v)
    }

    /// Sets the checksum field.
    #[inline]
    pub fn set_checksum(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::CHECKSUM, v)
    }

    /// Sets the urgent pointer.
    #[inline]
    pub fn set_urgent_at(&mut self, v: u16) {
        write_u16(self.buffer.as_mut(), field::URGENT, v)
    }

    /// The option bytes, writable.
    #[inline]
    pub fn options_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len() as usize;
        &mut self.buffer.as_mut()[HEADER_LEN..hl]
    }

    /// The payload, writable.
    #[inline]
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len() as usize;
        &mut self.buffer.as_mut()[hl..]
    }

    /// Computes and stores the checksum for a segment (the whole buffer)
    /// from `src` to `dst` (`Ipv4Addr` or `Ipv6Addr`).
    #[inline]
    pub fn fill_checksum<A: PseudoHeader>(&mut self, src: A, dst: A) {
        self.set_checksum(0);
        let c = !self.full_sum(src, dst);
        self.set_checksum(c)
    }
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for TcpPacket<T> {
    fn as_ref(&self) -> &[u8] {
        self.buffer.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WireError;

    #[test]
    fn option_fields_read_write_and_build() {
        assert_eq!(option::mss(&[2, 4, 0x05, 0xb4]), 1460);
        let mut ts = Vec::new();
        option::push_timestamps(&mut ts, 0x0102_0304, 7);
        assert_eq!(ts, [8, 10, 1, 2, 3, 4, 0, 0, 0, 7]);
        assert_eq!(option::timestamps(&ts), (0x0102_0304, 7));
        let mut sack = vec![option::SACK, 18];
        option::push_sack_block(&mut sack, 100, 200);
        option::push_sack_block(&mut sack, 0xffff_fff0, 5);
        assert_eq!(sack[2..10], [0, 0, 0, 100, 0, 0, 0, 200]);
        let blocks: Vec<_> = option::sack_blocks(&sack).collect();
        assert_eq!(blocks, [(100, 200), (0xffff_fff0, 5)]);
        option::map_sack_edges(&mut sack, |e| e.wrapping_sub(10));
        let blocks: Vec<_> = option::sack_blocks(&sack).collect();
        assert_eq!(blocks, [(90, 190), (0xffff_ffe6, 0xffff_fffb)]);
    }
    use std::net::{Ipv4Addr, Ipv6Addr};

    /// A SYN 192.168.1.2:50000 -> 192.168.1.1:80, seq 0x01020304, window
    /// 64240, options MSS 1460, SACK-permitted, timestamps, NOP, wscale 7.
    /// Checksum 0xefe0 computed independently.
    const SYN: [u8; 40] = [
        0xc3, 0x50, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x02, 0xfa,
        0xf0, 0xef, 0xe0, 0x00, 0x00, 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0x00, 0x00,
        0x12, 0x34, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x03, 0x07,
    ];
    const SRC: Ipv4Addr = Ipv4Addr::new(192, 168, 1, 2);
    const DST: Ipv4Addr = Ipv4Addr::new(192, 168, 1, 1);

    #[test]
    fn finds_the_mss_option() {
        assert_eq!(
            mss_option(TcpPacket::new_unchecked(&SYN[..]).options()),
            Some(1460)
        );
        assert_eq!(mss_option(&[1, 1, 2, 4, 5, 0xb4]), Some(1460));
        assert_eq!(mss_option(&[0, 2, 4, 5, 0xb4]), None);
        assert_eq!(mss_option(&[3, 3, 7, 2, 4, 1, 0]), Some(256));
        assert_eq!(mss_option(&[3, 9, 7]), None);
        assert_eq!(mss_option(&[3]), None);
    }

    #[test]
    fn incremental_update_for_a_new_address() {
        let mut b = SYN;
        let new = Ipv4Addr::new(203, 0, 113, 9);
        let mut t = TcpPacket::new_unchecked(&mut b[..]);
        t.update_checksum_u32(SRC.into(), new.into());
        assert!(t.verify_checksum(new, DST));
    }

    #[test]
    fn accept_syn() {
        let p = TcpPacket::new_checked(&SYN[..]).unwrap();
        assert_eq!(p.src_port(), 50000);
        assert_eq!(p.dst_port(), 80);
        assert_eq!(p.seq_number(), 0x0102_0304);
        assert_eq!(p.ack_number(), 0);
        assert_eq!(p.header_len(), 40);
        assert_eq!(p.flags(), flags::SYN);
        assert!(p.syn() && !p.ack() && !p.fin() && !p.rst());
        assert!(!p.psh() && !p.urg() && !p.ece() && !p.cwr());
        assert_eq!(p.window_len(), 64240);
        assert_eq!(p.checksum(), 0xefe0);
        assert_eq!(p.urgent_at(), 0);
        assert_eq!(p.options().len(), 20);
        assert_eq!(&p.options()[..4], &[2, 4, 0x05, 0xb4]);
        assert!(p.payload().is_empty());
        assert_eq!(p.segment_len(), 1);
        assert!(p.verify_checksum(SRC, DST));
        assert_eq!(p.compute_checksum(SRC, DST), 0xefe0);
        assert!(!p.verify_checksum(SRC, Ipv4Addr::new(192, 168, 1, 3)));
    }

    #[test]
    fn reject_lengths() {
        assert_eq!(
            TcpPacket::new_checked(&SYN[..19]).unwrap_err(),
            WireError::Truncated {
                header: "TCP",
                needed: 20,
                available: 19
            }
        );
        assert_eq!(
            TcpPacket::new_checked(&SYN[..39]).unwrap_err(),
            WireError::Truncated {
                header: "TCP",
                needed: 40,
                available: 39
            }
        );
        let mut b = SYN;
        b[12] = 0x40;
        assert_eq!(
            TcpPacket::new_checked(&b[..]).unwrap_err(),
            WireError::BadHeaderLength {
                header: "TCP",
                len: 16,
                min: 20
            }
        );
    }

    #[test]
    fn payload_and_checksums() {
        let mut v = SYN.to_vec();
        v.extend_from_slice(b"hello");
        let mut p = TcpPacket::new_checked(&mut v[..]).unwrap();
        assert_eq!(p.payload(), b"hello");
        assert!(!p.verify_checksum(SRC, DST));
        p.fill_checksum(SRC, DST);
        assert!(p.verify_checksum(SRC, DST));
        assert_eq!(p.segment_len(), 6);

        // IPv6 pseudo-header, checksum 0x17c0 computed independently.
        let mut b = SYN;
        let mut p = TcpPacket::new_checked(&mut b[..]).unwrap();
        let s6: Ipv6Addr = "2001:db8::1".parse().unwrap();
        let d6: Ipv6Addr = "2001:db8::2".parse().unwrap();
        p.fill_checksum(s6, d6);
        assert_eq!(p.checksum(), 0x17c0);
        assert!(p.verify_checksum(s6, d6));
    }

    #[test]
    fn incremental_seq_update() {
        let mut b = SYN;
        let mut p = TcpPacket::new_checked(&mut b[..]).unwrap();
        let new_seq = 0xdead_beef;
        let c = checksum::update_u32(p.checksum(), p.seq_number(), new_seq);
        p.set_seq_number(new_seq);
        p.set_checksum(c);
        assert!(p.verify_checksum(SRC, DST));
    }

    #[test]
    fn setters() {
        let mut b = [0u8; 24];
        let mut p = TcpPacket::new_unchecked(&mut b[..]);
        p.set_src_port(1);
        p.set_dst_port(2);
        p.set_seq_number(3);
        p.set_ack_number(4);
        p.set_header_len(24);
        p.set_syn(true);
        p.set_ack(true);
        p.set_fin(true);
        p.set_rst(true);
        p.set_psh(true);
        p.set_urg(true);
        p.set_ece(true);
        p.set_cwr(true);
        assert_eq!(p.flags(), 0xff);
        p.set_fin(false);
        p.set_rst(false);
        p.set_window_len(5);
        p.set_urgent_at(6);
        p.options_mut().copy_from_slice(&[1, 1, 1, 0]);
        assert!(p.payload_mut().is_empty());
        let p = TcpPacket::new_checked(&b[..]).unwrap();
        assert_eq!(p.flags(), 0xfa);
        assert_eq!(
            &b[..],
            &[0, 1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0x60, 0xfa, 0, 5, 0, 0, 0, 6, 1, 1, 1, 0]
        );
    }
}
