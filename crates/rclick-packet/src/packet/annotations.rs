//! Annotation accessors: the named annotations (destination address,
//! paint, timestamps, VLAN TCI, ...) and the user area read and written at
//! an offset, all stored in the packet's pooled header ([`Anno`]).

use std::net::Ipv4Addr;

use super::*;
use crate::anno::PacketType;
use crate::timestamp::Timestamp;

impl Packet {
    /// All annotations.
    #[inline]
    pub fn anno(&self) -> &Anno {
        &self.hdr().anno
    }

    /// All annotations, mutable (annotations are never shared, so this never
    /// copies).
    #[inline]
    pub fn anno_mut(&mut self) -> &mut Anno {
        &mut self.hdr_mut().anno
    }

    /// Copies `other`'s annotations into this packet (Click's
    /// `copy_annotations()`; header offsets are not copied).
    #[inline]
    pub fn copy_annotations(&mut self, other: &Packet) {
        self.hdr_mut().anno = other.hdr().anno;
    }

    /// Resets annotations to [`Anno::DEFAULT`] (header offsets are kept).
    #[inline]
    pub fn clear_annotations(&mut self) {
        self.hdr_mut().anno = Anno::DEFAULT;
    }

    /// Destination IP annotation (Click's `dst_ip_anno()`).
    #[inline]
    pub fn dst_ip_anno(&self) -> Ipv4Addr {
        self.anno().dst_ip_addr()
    }

    /// Sets the destination IP annotation from an [`Ipv4Addr`], a `u32`
    /// (as in `u32::from(addr)`) or `[u8; 4]`.
    #[inline]
    pub fn set_dst_ip_anno(&mut self, a: impl Into<Ipv4Addr>) {
        self.anno_mut().set_dst_ip_addr(a.into());
    }

    /// Destination IPv6 annotation (Click's `dst_ip6_anno()`); its first
    /// four bytes are the IPv4 annotation's, as in Click.
    #[inline]
    pub fn dst_ip6_anno(&self) -> std::net::Ipv6Addr {
        self.anno().dst_ip6_addr()
    }

    /// Sets the destination IPv6 annotation (and so the IPv4 one).
    #[inline]
    pub fn set_dst_ip6_anno(&mut self, a: std::net::Ipv6Addr) {
        self.anno_mut().set_dst_ip6_addr(a);
    }

    /// Paint annotation.
    #[inline]
    pub fn paint_anno(&self) -> u8 {
        self.anno().paint
    }

    /// Sets the paint annotation.
    #[inline]
    pub fn set_paint_anno(&mut self, v: u8) {
        self.anno_mut().paint = v;
    }

    /// Packet type annotation.
    #[inline]
    pub fn packet_type_anno(&self) -> PacketType {
        self.anno().packet_type
    }

    /// Sets the packet type annotation.
    #[inline]
    pub fn set_packet_type_anno(&mut self, t: PacketType) {
        self.anno_mut().packet_type = t;
    }

    /// Timestamp annotation (zero when unset).
    #[inline]
    pub fn timestamp_anno(&self) -> Timestamp {
        self.anno().timestamp
    }

    /// Sets the timestamp annotation.
    #[inline]
    pub fn set_timestamp_anno(&mut self, t: Timestamp) {
        self.anno_mut().timestamp = t;
    }

    /// First-timestamp annotation.
    #[inline]
    pub fn first_timestamp_anno(&self) -> Timestamp {
        self.anno().first_timestamp
    }

    /// Sets the first-timestamp annotation.
    #[inline]
    pub fn set_first_timestamp_anno(&mut self, t: Timestamp) {
        self.anno_mut().first_timestamp = t;
    }

    /// ICMP parameter-problem pointer annotation.
    #[inline]
    pub fn icmp_param_prob_anno(&self) -> u8 {
        self.anno().icmp_param_prob
    }

    /// Sets the ICMP parameter-problem pointer annotation.
    #[inline]
    pub fn set_icmp_param_prob_anno(&mut self, v: u8) {
        self.anno_mut().icmp_param_prob = v;
    }

    /// Fix-IP-source annotation.
    #[inline]
    pub fn fix_ip_src_anno(&self) -> bool {
        self.anno().fix_ip_src
    }

    /// Sets the fix-IP-source annotation.
    #[inline]
    pub fn set_fix_ip_src_anno(&mut self, v: bool) {
        self.anno_mut().fix_ip_src = v;
    }

    /// VLAN TCI annotation (host byte order).
    #[inline]
    pub fn vlan_tci_anno(&self) -> u16 {
        self.anno().vlan_tci
    }

    /// Sets the VLAN TCI annotation (host byte order).
    #[inline]
    pub fn set_vlan_tci_anno(&mut self, v: u16) {
        self.anno_mut().vlan_tci = v;
    }

    /// Aggregate annotation.
    #[inline]
    pub fn aggregate_anno(&self) -> u32 {
        self.anno().aggregate
    }

    /// Sets the aggregate annotation.
    #[inline]
    pub fn set_aggregate_anno(&mut self, v: u32) {
        self.anno_mut().aggregate = v;
    }

    /// Extra-length annotation.
    #[inline]
    pub fn extra_length_anno(&self) -> u32 {
        self.anno().extra_length
    }

    /// Sets the extra-length annotation.
    #[inline]
    pub fn set_extra_length_anno(&mut self, v: u32) {
        self.anno_mut().extra_length = v;
    }

    /// Sequence-number annotation.
    #[inline]
    pub fn sequence_number_anno(&self) -> u32 {
        self.anno().sequence_number
    }

    /// Sets the sequence-number annotation.
    #[inline]
    pub fn set_sequence_number_anno(&mut self, v: u32) {
        self.anno_mut().sequence_number = v;
    }

    /// `u8` at byte `offset` of the user annotation area (0 if out of range).
    #[inline]
    pub fn anno_u8(&self, offset: usize) -> u8 {
        self.anno().u8_at(offset)
    }

    /// Writes a `u8` into the user annotation area (ignored if out of range).
    #[inline]
    pub fn set_anno_u8(&mut self, offset: usize, v: u8) {
        self.anno_mut().set_u8_at(offset, v)
    }

    /// `u16` at byte `offset` of the user annotation area (0 if out of range).
    #[inline]
    pub fn anno_u16(&self, offset: usize) -> u16 {
        self.anno().u16_at(offset)
    }

    /// Writes a `u16` into the user annotation area (ignored if out of range).
    #[inline]
    pub fn set_anno_u16(&mut self, offset: usize, v: u16) {
        self.anno_mut().set_u16_at(offset, v)
    }

    /// `u32` at byte `offset` of the user annotation area (0 if out of range).
    #[inline]
    pub fn anno_u32(&self, offset: usize) -> u32 {
        self.anno().u32_at(offset)
    }

    /// Writes a `u32` into the user annotation area (ignored if out of range).
    #[inline]
    pub fn set_anno_u32(&mut self, offset: usize, v: u32) {
        self.anno_mut().set_u32_at(offset, v)
    }

    /// `u64` at byte `offset` of the user annotation area (0 if out of range).
    #[inline]
    pub fn anno_u64(&self, offset: usize) -> u64 {
        self.anno().u64_at(offset)
    }

    /// Writes a `u64` into the user annotation area (ignored if out of range).
    #[inline]
    pub fn set_anno_u64(&mut self, offset: usize, v: u64) {
        self.anno_mut().set_u64_at(offset, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_copied_on_clone() {
        let mut p = Packet::from_slice(b"x");
        p.set_dst_ip_anno(Ipv4Addr::new(192, 168, 1, 1));
        p.set_paint_anno(3);
        p.set_packet_type_anno(PacketType::Broadcast);
        p.set_timestamp_anno(Timestamp::from_sec_usec(10, 5));
        p.set_first_timestamp_anno(Timestamp::from_sec(9));
        p.set_icmp_param_prob_anno(12);
        p.set_fix_ip_src_anno(true);
        p.set_vlan_tci_anno(0x1005);
        p.set_aggregate_anno(77);
        p.set_extra_length_anno(1000);
        p.set_sequence_number_anno(5);
        p.set_anno_u8(0, 1);
        p.set_anno_u16(2, 2);
        p.set_anno_u32(4, 3);
        p.set_anno_u64(8, 4);
        let mut q = p.clone();
        assert_eq!(q.anno(), p.anno());
        assert_eq!(q.dst_ip_anno(), Ipv4Addr::new(192, 168, 1, 1));
        assert_eq!(q.paint_anno(), 3);
        assert_eq!(q.packet_type_anno(), PacketType::Broadcast);
        assert_eq!(q.timestamp_anno(), Timestamp::from_sec_usec(10, 5));
        assert_eq!(q.first_timestamp_anno(), Timestamp::from_sec(9));
        assert_eq!(q.icmp_param_prob_anno(), 12);
        assert!(q.fix_ip_src_anno());
        assert_eq!(q.vlan_tci_anno(), 0x1005);
        assert_eq!(q.aggregate_anno(), 77);
        assert_eq!(q.extra_length_anno(), 1000);
        assert_eq!(q.sequence_number_anno(), 5);
        assert_eq!(
            (q.anno_u8(0), q.anno_u16(2), q.anno_u32(4), q.anno_u64(8)),
            (1, 2, 3, 4)
        );
        // Annotations are per packet, not shared.
        q.set_paint_anno(9);
        q.set_dst_ip_anno(0x0a00_0001u32);
        assert_eq!(p.paint_anno(), 3);
        assert_eq!(q.dst_ip_anno(), Ipv4Addr::new(10, 0, 0, 1));
        let mut r = Packet::from_slice(b"y");
        r.copy_annotations(&q);
        assert_eq!(r.paint_anno(), 9);
        r.clear_annotations();
        assert_eq!(*r.anno(), Anno::DEFAULT);
        assert_eq!(r.anno_u32(1000), 0);
        r.set_anno_u32(1000, 5); // ignored
    }
}
