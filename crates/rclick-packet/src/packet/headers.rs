//! Header offsets: where the MAC, network (IP) and transport headers start
//! in a packet's data, set by the elements that parse them (Click's
//! `set_mac_header`, `set_ip_header`, ...) and read as slices.

use super::*;

impl Packet {
    /// Sets the MAC header to start `offset` bytes into the data.
    #[inline]
    pub fn set_mac_header(&mut self, offset: usize) {
        let h = self.hdr_mut();
        h.mac = h.pos(offset);
    }

    /// Sets the MAC header at `offset` and the network header right after its
    /// `len` bytes (Click's `set_mac_header(p, len)`).
    #[inline]
    pub fn set_mac_header_len(&mut self, offset: usize, len: usize) {
        let h = self.hdr_mut();
        h.mac = h.pos(offset);
        h.nh = h.pos(offset.saturating_add(len));
    }

    /// Sets the network header to start `offset` bytes into the data, with
    /// the transport header `len` bytes later (Click's
    /// `set_network_header(p, len)`).
    #[inline]
    pub fn set_network_header(&mut self, offset: usize, len: usize) {
        let h = self.hdr_mut();
        h.nh = h.pos(offset);
        h.th = h.pos(offset.saturating_add(len));
    }

    /// Same as [`set_network_header`](Self::set_network_header) (Click's
    /// `set_ip_header()`).
    #[inline]
    pub fn set_ip_header(&mut self, offset: usize, len: usize) {
        self.set_network_header(offset, len);
    }

    /// Sets the transport header to start `offset` bytes into the data
    /// (leaves the network header alone).
    #[inline]
    pub fn set_transport_header(&mut self, offset: usize) {
        let h = self.hdr_mut();
        h.th = h.pos(offset);
    }

    /// Forgets the MAC header offset.
    #[inline]
    pub fn clear_mac_header(&mut self) {
        self.hdr_mut().mac = NONE;
    }

    /// Forgets the network and transport header offsets.
    #[inline]
    pub fn clear_network_header(&mut self) {
        let h = self.hdr_mut();
        h.nh = NONE;
        h.th = NONE;
    }

    /// True if a MAC header offset is set.
    #[inline]
    pub fn has_mac_header(&self) -> bool {
        self.hdr().mac != NONE
    }

    /// True if a network header offset is set (Click's
    /// `has_network_header()`).
    #[inline]
    pub fn has_network_header(&self) -> bool {
        self.hdr().nh != NONE
    }

    /// True if a transport header offset is set.
    #[inline]
    pub fn has_transport_header(&self) -> bool {
        self.hdr().th != NONE
    }

    /// MAC header offset relative to the data start (negative if it lies in
    /// the headroom, e.g. after a pull); `None` if unset.
    #[inline]
    pub fn mac_header_offset(&self) -> Option<isize> {
        let h = self.hdr();
        h.rel(h.mac)
    }

    /// Network header offset relative to the data start (negative if it lies
    /// in the headroom); `None` if unset (Click's `network_header_offset()`).
    #[inline]
    pub fn network_header_offset(&self) -> Option<isize> {
        let h = self.hdr();
        h.rel(h.nh)
    }

    /// Same as [`network_header_offset`](Self::network_header_offset)
    /// (Click's `ip_header_offset()`).
    #[inline]
    pub fn ip_header_offset(&self) -> Option<isize> {
        self.network_header_offset()
    }

    /// Transport header offset relative to the data start; `None` if unset
    /// (Click's `transport_header_offset()`).
    #[inline]
    pub fn transport_header_offset(&self) -> Option<isize> {
        let h = self.hdr();
        h.rel(h.th)
    }

    /// Bytes from the MAC header to the network header; 0 unless both are
    /// set and in order.
    #[inline]
    pub fn mac_header_len(&self) -> usize {
        let h = self.hdr();
        if h.mac == NONE || h.nh == NONE {
            0
        } else {
            h.nh.saturating_sub(h.mac) as usize
        }
    }

    /// Bytes from the network header to the transport header; 0 unless both
    /// are set and in order (Click's `network_header_length()`).
    #[inline]
    pub fn network_header_len(&self) -> usize {
        let h = self.hdr();
        if h.nh == NONE || h.th == NONE {
            0
        } else {
            h.th.saturating_sub(h.nh) as usize
        }
    }

    /// Same as [`network_header_len`](Self::network_header_len) (Click's
    /// `ip_header_length()`).
    #[inline]
    pub fn ip_header_len(&self) -> usize {
        self.network_header_len()
    }

    /// Bytes from the MAC header to the end of the data (Click's
    /// `mac_header()` pointer); `None` if unset or past the end.
    #[inline]
    pub fn mac_header(&self) -> Option<&[u8]> {
        let h = self.hdr();
        h.slice_from(h.mac)
    }

    /// Bytes from the network header to the end of the data (Click's
    /// `network_header()` pointer); `None` if unset or past the end.
    #[inline]
    pub fn network_header(&self) -> Option<&[u8]> {
        let h = self.hdr();
        h.slice_from(h.nh)
    }

    /// Bytes from the network header to the end of the data (Click's
    /// `network_length()`): `network_header().map(<[u8]>::len)` without
    /// touching the buffer.
    #[inline]
    pub fn network_length(&self) -> Option<usize> {
        let h = self.hdr();
        (h.nh != NONE && h.nh <= h.end).then(|| (h.end - h.nh) as usize)
    }

    /// Same as [`network_header`](Self::network_header) (Click's
    /// `ip_header()`).
    #[inline]
    pub fn ip_header(&self) -> Option<&[u8]> {
        self.network_header()
    }

    /// Bytes from the transport header to the end of the data; `None` if
    /// unset or past the end.
    #[inline]
    pub fn transport_header(&self) -> Option<&[u8]> {
        let h = self.hdr();
        h.slice_from(h.th)
    }

    /// Mutable [`mac_header`](Self::mac_header) (copies a shared buffer).
    #[inline]
    pub fn mac_header_mut(&mut self) -> Option<&mut [u8]> {
        let h = self.hdr_mut();
        h.slice_from_mut(h.mac)
    }

    /// Mutable [`network_header`](Self::network_header) (copies a shared
    /// buffer).
    #[inline]
    pub fn network_header_mut(&mut self) -> Option<&mut [u8]> {
        let h = self.hdr_mut();
        h.slice_from_mut(h.nh)
    }

    /// Same as [`network_header_mut`](Self::network_header_mut).
    #[inline]
    pub fn ip_header_mut(&mut self) -> Option<&mut [u8]> {
        self.network_header_mut()
    }

    /// Mutable [`transport_header`](Self::transport_header) (copies a
    /// shared buffer).
    #[inline]
    pub fn transport_header_mut(&mut self) -> Option<&mut [u8]> {
        let h = self.hdr_mut();
        h.slice_from_mut(h.th)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::Rng;
    use super::*;

    #[test]
    fn header_accessors_never_panic() {
        let mut p = Packet::from_slice(b"abc");
        assert!(!p.has_network_header());
        assert_eq!(p.network_header(), None);
        assert_eq!(p.network_header_offset(), None);
        assert_eq!(p.network_header_len(), 0);
        assert_eq!(p.network_header_mut(), None);
        p.set_network_header(usize::MAX, usize::MAX);
        assert!(p.has_network_header());
        assert_eq!(p.network_header(), None);
        assert_eq!(p.network_header_mut(), None);
        p.set_network_header(3, 0);
        assert_eq!(p.network_header(), Some(&b""[..]));
        p.set_network_header(1, 1);
        p.take(3);
        assert_eq!(p.network_header(), None);
        p.clear_network_header();
        assert!(!p.has_network_header() && !p.has_transport_header());
        p.set_mac_header(0);
        assert!(p.has_mac_header());
        p.clear_mac_header();
        assert!(!p.has_mac_header());
    }

    #[test]
    fn network_length_matches_network_header() {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        for _ in 0..2000 {
            let mut p = Packet::make(
                rng.below(30) as usize,
                &[1; 40][..rng.below(40) as usize],
                0,
            );
            if rng.below(4) != 0 {
                p.set_network_header(rng.below(50) as usize, 20);
            }
            p.pull(rng.below(20) as usize);
            p.take(rng.below(20) as usize);
            assert_eq!(p.network_length(), p.network_header().map(<[u8]>::len));
        }
    }
}
